"""pcap export: the files ccsim writes open in tshark, carry every packet the channel
sent, and tshark's TCP analysis finds exactly the retransmissions ccsim counted."""

from __future__ import annotations

import shutil
import subprocess

import ccsim
import pytest
from ccsim.pcap import with_capture, write_pcaps
from conftest import DATA, run_cli

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (make installs it)")

RETX = "tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.spurious_retransmission"


def tshark(*args: str) -> str:
    out = subprocess.run(["tshark", *args], capture_output=True, text=True, check=True)
    return out.stdout


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    results = ccsim.run(with_capture(ccsim.load(DATA / "tiny.toml")))
    out = tmp_path_factory.mktemp("pcap")
    return results, out, write_pcaps(results, out)


def test_every_channel_gets_a_file_with_every_packet_it_sent(captured):
    results, out, paths = captured
    assert len(paths) == len(results.raw["links"])
    # tshark takes a second or two to start: check a few channels of each kind.
    for link in [results.link(n) for n in ("a1->r1", "r1->a1", "r1->r2", "r2->b")]:
        path = out / f"{link['from']}-to-{link['to']}.pcap"
        frames = tshark("-r", str(path), "-T", "fields", "-e", "frame.len").split()
        assert len(frames) == link["tx_pkts"], link["name"]
        # Frame lengths are the packets' sizes on the wire.
        assert sum(int(n) for n in frames) * 8 == link["tx_bits"], link["name"]


def test_tshark_finds_the_retransmissions_ccsim_counted(captured):
    results, out, _ = captured
    for flow in results.raw["flows"]:
        if flow["kind"] != "window":
            continue
        host = flow["from"]
        port = 10000 + results.raw["flows"].index(flow)
        found = tshark("-r", str(out / f"{host}-to-r1.pcap"), "-Y", f"({RETX}) && tcp.srcport == {port}",
                       "-T", "fields", "-e", "frame.number").split()  # fmt: skip
        assert len(found) == flow["retransmitted_pkts"], flow["name"]
        assert flow["retransmitted_pkts"] > 0


def test_cli_writes_pcaps(tmp_path):
    proc = run_cli("run", DATA / "tiny.toml", "--pcap", tmp_path / "caps", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "pcap files" in proc.stderr
    assert len(list((tmp_path / "caps").glob("*.pcap"))) == 10


def test_a_node_name_with_a_slash_gets_a_pcap_file_named_as_its_series(tmp_path):
    # "a/x" made the path o/a/x-to-r.pcap, in a directory that does not exist: the run
    # ended in "o/a/x-to-r.pcap: No such file or directory".
    text = (DATA / "tiny.toml").read_text().replace('"a1"', '"a/1"')
    scenario = ccsim.loads(text, "slash.toml")
    written = write_pcaps(ccsim.run(with_capture(scenario)), tmp_path)
    assert tmp_path / "a_1-to-r1.pcap" in written
    assert all(p.parent == tmp_path for p in written)
