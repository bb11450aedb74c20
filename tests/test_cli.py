"""The command line: output contracts of run, list, reproduce and bench (docs/cli.md)."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import ccsim
import pytest
from conftest import DATA, FLOW_KEYS, KESHAV, LINK_KEYS, TOP_KEYS, run_cli

ROWS = ["G/FCFS", "G/FQ", "JK/FCFS", "JK/FQ", "PP/FQ", "PP/FQ per-probe"]
COLUMNS = [
    f"{phase} {metric} {source}"
    for phase in ("bg-off", "bg-on")
    for metric in ("throughput", "loss", "retransmission")
    for source in ("1", "2", "bkg")
]
BENCH_KEYS = {"wall_time_s", "events", "events_per_s", "delivered_pkts", "delivered_pkts_per_s"}


def ok(result) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def test_console_script_is_installed_beside_the_interpreter():
    script = Path(sys.executable).parent / "ccsim"
    assert script.exists()


def test_help_names_every_command():
    out = ok(run_cli("--help"))
    for command in ("run", "list", "reproduce", "bench", "sweep"):
        assert command in out


def test_version():
    import ccsim

    assert ok(run_cli("--version")).strip() == f"ccsim {ccsim.__version__}"


def test_run_json_prints_one_object_with_the_contract_keys():
    data = json.loads(ok(run_cli("run", DATA / "tiny.toml", "--json")))
    assert TOP_KEYS <= set(data)
    assert data["scenario"] == "tiny" and data["seed"] == 7
    assert data["wall_time_s"] > 0
    for flow in data["flows"]:
        assert FLOW_KEYS <= set(flow)
    for link in data["links"]:
        assert LINK_KEYS <= set(link)


def test_run_seed_and_set_reach_the_engine():
    minimal = DATA / "minimal.toml"
    data = json.loads(
        ok(run_cli("run", minimal, "--json", "--seed", "5", "--set", "scenario.duration=3s"))
    )
    assert data["seed"] == 5
    assert data["sim_time_s"] == pytest.approx(3.0)


def test_run_repeated_set_applies_each_override():
    data = json.loads(
        ok(
            run_cli(
                "run", KESHAV, "--json",
                "--set", "defaults.cc=reno",
                "--set", "links.bottleneck.qdisc=fq",
            )
        )
    )  # fmt: skip
    assert {f["cc"] for f in data["flows"] if f["kind"] == "window"} == {"reno"}
    assert {c["qdisc"] for c in data["links"] if c["link"] == "bottleneck"} == {"fq"}


def test_run_tables_name_flows_and_channels():
    out = ok(run_cli("run", DATA / "tiny.toml"))
    for name in ("reno1", "poisson1", "r1->r2", "first", "second"):
        assert name in out


def test_run_out_writes_summary_tables_series_and_plots(tmp_path):
    out_dir = tmp_path / "run"
    stdout = ok(run_cli("run", DATA / "tiny.toml", "--json", "--out", out_dir))
    data = json.loads(stdout)
    assert json.loads((out_dir / "summary.json").read_text()) == data
    for name in ("flows", "links", "phases", "phase_links", "intervals", "interval_links"):
        assert (out_dir / f"{name}.csv").is_file(), name
    with (out_dir / "flows.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["name"] for r in rows] == [fl["name"] for fl in data["flows"]]
    assert list(rows[0]) == list(data["flows"][0])
    series = sorted(p.name for p in (out_dir / "series").iterdir())
    assert series == sorted(
        [
            "reno1.cwnd.csv", "reno1.outstanding.csv", "reno1.ssthresh.csv", "reno1.rtt.csv",
            "r1-to-r2.queue.csv",
        ]
    )  # fmt: skip
    assert (out_dir / "series" / "reno1.cwnd.csv").read_text().startswith("t,v\n")
    plots = sorted(p.name for p in (out_dir / "plots").iterdir())
    assert plots == [
        "channels.png", "r1-to-r2_queue.png", "reno1_rtt.png", "reno1_window.png",
        "throughput.png",
    ]  # fmt: skip
    for png in (out_dir / "plots").iterdir():
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_list_names_keshav():
    out = ok(run_cli("list"))
    assert out.splitlines()[0].startswith("keshav-s1 ")


def test_list_cc_gives_every_congestion_control_with_its_defaults():
    out = ok(run_cli("list", "cc"))
    lines = out.splitlines()
    heads = [line.split("  ")[0] for line in lines if not line.startswith((" ", "("))]
    assert heads == [
        "generic", "tahoe (jk)", "reno", "newreno", "pp (packet_pair)", "da", "vegas",
        "delay_aimd", "dctcp", "cubic", "bbr",
    ]  # fmt: skip
    params = {
        lines[i].split()[0]: lines[i + 1]
        for i in range(len(lines) - 1)
        if not lines[i].startswith((" ", "("))
    }
    # Generic's defaults (docs/scenario-format.md): beta 2, alpha 0.875, a 3 s first timeout,
    # the window unset (the flow's maximum window).
    assert params["generic"] == "    parameters: window unset, beta = 2.0, alpha = 0.875"
    # The transport's loss-recovery parameters a policy accepts, with its defaults, on their
    # own line: generic takes only a first timeout, delay_aimd Linux's timer bounds.
    transport = {
        lines[i].split()[0]: lines[i + 2]
        for i in range(len(lines) - 2)
        if not lines[i].startswith((" ", "(")) and lines[i + 2].startswith("    transport: ")
    }
    assert transport["generic"] == '    transport: initial_rto = "3s"'
    assert 'min_rto = "200ms"' in transport["delay_aimd"] and 'rto = "linux"' in transport["delay_aimd"]
    assert "initial_rto" not in params["delay_aimd"]
    assert "    series: base_rtt, diff" in lines
    assert lines[-2].startswith("(all go in [flows.params]; transport: ")
    assert lines[-1].startswith('(or cc = "module:Class": a congestion control written in Python')
    # The default listing is still the reproductions.
    assert ok(run_cli("list", "reproductions")) == ok(run_cli("list"))
    result = run_cli("list", "qdiscs")
    assert result.returncode == 2 and "invalid choice: 'qdiscs'" in result.stderr


def test_bench_cc_runs_a_registered_policy_and_refuses_others():
    args = ("bench", "--flows", "2", "--bottleneck", "1Mbps", "--time", "1s", "--json")
    reno = json.loads(ok(run_cli(*args)))
    vegas = json.loads(ok(run_cli(*args, "--cc", "vegas")))
    assert (reno["cc"], vegas["cc"]) == ("reno", "vegas")
    assert vegas["events"] != reno["events"], "the congestion control must change the run"
    result = run_cli(*args, "--cc", "westwood")
    assert result.returncode == 2
    assert "invalid choice: 'westwood' (choose from 'generic', 'tahoe', 'reno'" in result.stderr


def test_bench_sack_gives_every_flow_sack_and_counts_its_sends():
    args = ("bench", "--flows", "4", "--bottleneck", "10Mbps", "--time", "3s", "--json")
    plain = json.loads(ok(run_cli(*args)))
    sack = json.loads(ok(run_cli(*args, "--sack")))
    assert (plain["sack"], sack["sack"]) == (False, True)
    # Four Reno flows fill a one-BDP buffer within 3 s: losses, so the recovery differs.
    assert plain["retransmitted_pkts"] > 0
    assert (sack["events"], sack["sent_pkts"]) != (plain["events"], plain["sent_pkts"])
    for d in (plain, sack):
        # Every packet delivered was sent once as new data.
        assert d["sent_pkts"] - d["retransmitted_pkts"] >= d["delivered_pkts"]
    # Only a policy with SACK recovery; only the dumbbell.
    result = run_cli(*args, "--sack", "--cc", "tahoe")
    assert result.returncode == 2
    assert "sack: SACK recovery works with reno" in result.stderr and "'tahoe'" in result.stderr
    assert "Traceback" not in result.stderr
    result = run_cli("bench", "--case", "fat-tree", "--sack")
    assert result.returncode == 2 and "--sack: applies to the dumbbell" in result.stderr


def test_list_qdisc_gives_every_discipline_with_its_defaults():
    out = ok(run_cli("list", "qdisc"))
    lines = out.splitlines()
    heads = [line.split("  ")[0] for line in lines if not line.startswith((" ", "("))]
    assert heads == ["fcfs (droptail)", "fq", "red", "codel", "fq_codel", "pie", "random_drop"]
    block = {
        lines[i].split()[0]: [x for x in lines[i + 1 : i + 3] if x.startswith(" ")]
        for i in range(len(lines) - 1)
        if not lines[i].startswith((" ", "("))
    }
    assert block["fcfs"] == ["    parameters: none"]
    assert block["fq"] == ['    parameters: drop_rule = "dks"', "    drop reasons: pushed_out"]
    # RED's defaults (FJ93's simulation values, docs/scenario-format.md).
    red_params, red_reasons = block["red"]
    assert red_params.startswith('    parameters: w_q = 0.002, min_th = "5pkt", max_th = "15pkt"')
    assert red_reasons == "    drop reasons: red_early, red_forced"
    # htsim's RandomQueue (docs/scenario-format.md "Random drop").
    assert block["random_drop"] == ['    parameters: threshold = "4pkt", p = 0.1', "    drop reasons: random_drop"]
    assert lines[-1].startswith('(a link or [defaults] gives qdisc = "NAME"')
    result = run_cli("list", "qdiscs")
    assert result.returncode == 2
    assert "invalid choice: 'qdiscs' (choose from" in result.stderr and "qdisc" in result.stderr


def test_list_element_gives_every_element_with_required_and_default_parameters():
    out = ok(run_cli("list", "element"))
    lines = out.splitlines()
    heads = [line.split("  ")[0] for line in lines if not line.startswith((" ", "("))]
    assert heads == [
        "counter", "flow_stats", "random_loss", "beacon", "capture", "ptp", "smart_link",
    ]  # fmt: skip
    params = {
        lines[i].split()[0]: lines[i + 1]
        for i in range(len(lines) - 1)
        if not lines[i].startswith((" ", "("))
    }
    assert params["counter"] == "    parameters: none"
    # A beacon needs a destination host and a period; its packets are 40 B by default.
    assert params["beacon"] == (
        '    parameters: to = "sink" (required), period = "1s" (required), start unset, '
        'size = "40B"'
    )
    assert params["capture"] == "    parameters: max_packets = 1000000"
    i = lines.index(next(x for x in lines if x.startswith("random_loss ")))
    assert lines[i + 2] == "    drop reasons: random_loss"
    assert lines[-1].startswith('([[elements]] gives kind = "NAME"')
    result = run_cli("list", "elements")
    assert result.returncode == 2
    assert "invalid choice: 'elements' (choose from" in result.stderr and "'element'" in result.stderr


def test_list_flow_gives_every_kind_with_its_sender_receiver_keys_and_parameters():
    out = ok(run_cli("list", "flow"))
    lines = out.splitlines()
    heads = [line.split("  ")[0] for line in lines if not line.startswith((" ", "("))]
    assert heads == ["window", "cbr", "poisson", "cadpc", "rap", "tfrc", "tear", "voice"]
    block = {
        lines[i].split()[0]: [x.strip() for x in lines[i + 1 : i + 5] if x.startswith(" ")]
        for i in range(len(lines) - 1)
        if not lines[i].startswith((" ", "("))
    }
    window = block["window"]
    assert window[0].startswith("sender: Window  the window transport")
    assert window[1].startswith("receiver: Ack  acknowledges data")
    # The built-in defaults of docs/scenario-format.md, [defaults] setting them too; stop
    # unset (the end of the run).
    assert window[2].startswith(
        'keys: cc = "reno" [defaults], data_size = "1000B" [defaults], ack_size = "40B" [defaults]'
    )
    assert window[2].endswith("stop unset")
    assert window[3] == "params: its congestion control's (`ccsim list cc`)"
    assert block["cbr"][:2] == [
        "sender: Source  an unresponsive source: constant (CBR) or exponential (Poisson) gaps "
        "within its on periods",
        "receiver: Sink  counts what arrives",
    ]
    assert block["cbr"][2] == 'keys: rate = "40kbps" (required), packet_size = "1000B", on unset'
    # TFRC's parameters from its Config: RFC 3448's 2 s nofeedback timer, t_mbi 64 s,
    # history discounting (5.5) and oscillation prevention (4.5) on, as ns-2's defaults.
    assert block["tfrc"][3] == (
        'params: feedback_size = "40B", initial_nofeedback = "2s", t_mbi = "64s", '
        "history_discounting = true, oscillation_prevention = true"
    )
    assert block["voice"][2] == "keys: none"
    assert block["voice"][3].startswith('voice: partner = "reply" (required), packet_rate = 50.0')
    assert lines[-1].startswith("(every flow also takes name, kind, count, from, to, start")
    result = run_cli("list", "flows")
    assert result.returncode == 2
    assert "invalid choice: 'flows' (choose from" in result.stderr and "'flow'" in result.stderr


def test_list_markdown_is_the_components_page_and_takes_no_kind():
    from ccsim import components

    out = ok(run_cli("list", "--markdown"))
    assert out == components.markdown()
    assert "| `tfrc` |" in out and "| `red` |" in out and "| `beacon` |" in out
    result = run_cli("list", "cc", "--markdown")
    assert result.returncode == 2 and "give no WHAT with it" in result.stderr


def test_bench_qdisc_runs_a_registered_discipline_and_refuses_others():
    # 20 s: long enough for a standing queue, where RED drops early (its events may
    # equal drop-tail's: both run on timed channels).
    args = ("bench", "--flows", "4", "--bottleneck", "1Mbps", "--time", "20s", "--json")
    fcfs = json.loads(ok(run_cli(*args)))
    red = json.loads(ok(run_cli(*args, "--qdisc", "red")))
    assert (fcfs["qdisc"], red["qdisc"]) == ("fcfs", "red")
    assert red["delivered_pkts"] != fcfs["delivered_pkts"], "the discipline must change the run"
    result = run_cli(*args, "--qdisc", "sfq")
    assert result.returncode == 2
    assert "invalid choice: 'sfq' (choose from 'fcfs', 'fq', 'red', 'codel', 'fq_codel', 'pie', 'random_drop')" in result.stderr


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory):
    """`ccsim reproduce keshav-s1 --json` once for the tests below."""
    out_dir = tmp_path_factory.mktemp("keshav")
    result = run_cli("reproduce", "keshav-s1", "--json", "--out", out_dir)
    data = json.loads(ok(result))
    # Keshav has a claims inventory (claims/keshav.toml): its claims ride along.
    assert set(data) == {"reproduction", "rows", "scoreboard", "claims_summary", "claims"}
    return data["rows"], out_dir, data["scoreboard"]


def test_reproduce_json_is_the_row_column_contract(reproduction):
    rows, *_ = reproduction
    assert isinstance(rows, list)
    table2 = [(r["row"], r["column"]) for r in rows if r["row"] in ROWS]
    assert table2 == [(r, c) for r in ROWS for c in COLUMNS]
    for r in rows:
        assert {"row", "column", "ours", "paper"} <= set(r)
        # Every cell is a mean over background phases, with its spread.
        assert r["min"] <= r["ours"] <= r["max"]


def test_reproduce_json_paper_values_and_nulls(reproduction):
    rows, *_ = reproduction
    cell = {(r["row"], r["column"]): r for r in rows}
    assert cell[("G/FQ", "bg-on throughput 2")]["paper"] == 0.39
    assert cell[("JK/FCFS", "bg-on loss bkg")]["paper"] == 0.83
    assert cell[("G/FQ", "bg-off retransmission 2")]["paper"] == 0.04
    # The paper has no background column while the background is off.
    for metric in ("throughput", "loss", "retransmission"):
        assert cell[("JK/FCFS", f"bg-off {metric} bkg")]["paper"] is None
        assert cell[("JK/FCFS", f"bg-off {metric} bkg")]["ours"] is not None


def test_reproduce_json_pp_fq_is_run_beside_the_paper(reproduction):
    rows, *_ = reproduction
    pp = {r["column"]: r for r in rows if r["row"] == "PP/FQ"}
    assert pp and all(r["ours"] is not None for r in pp.values())
    assert pp["bg-on throughput 1"]["paper"] == 3.34
    # Packet-Pair over Fair Queueing shares the bottleneck: each source gets well over a
    # fifth of it in either phase (the fair shares are 5 and 3.33 pkt/s; with the DKS
    # drop rule the packets PP loses when the background starts are charged to it, so it
    # stays below its 3.33 while the background is on: keshav.md, FQ drop rule).
    assert pp["bg-off throughput 1"]["ours"] > 2.5
    assert pp["bg-on throughput 2"]["ours"] > 2.0
    assert all("note" not in r for r in rows)
    # The per-probe variant is compared with the same paper row.
    probe = {r["column"]: r for r in rows if r["row"] == "PP/FQ per-probe"}
    assert {c: r["paper"] for c, r in probe.items()} == {c: r["paper"] for c, r in pp.items()}
    assert all(r["ours"] is not None for r in probe.values())


def test_reproduce_ours_are_the_phase_rates_averaged_over_background_phases(reproduction):
    rows, *_ = reproduction
    cell = {(r["row"], r["column"]): r for r in rows}
    base = ccsim.load(KESHAV).set("defaults.qdisc", "fcfs").set("flows.bkg.start_jitter", "200ms")
    runs = [ccsim.run(base, seed=seed) for seed in range(1, 41)]
    for phase in ("bg-off", "bg-on"):
        for flow, source, key, metric in (
            ("ftp1", "1", "goodput_pps", "throughput"),
            ("ftp2", "2", "loss_pps", "loss"),
            ("bkg", "bkg", "retransmission_pps", "retransmission"),
        ):
            values = [next(f for f in r.phase(phase)["flows"] if f["name"] == flow)[key] for r in runs]
            c = cell[("JK/FCFS", f"{phase} {metric} {source}")]
            assert c["ours"] == pytest.approx(sum(values) / len(values))
            assert (c["min"], c["max"]) == (min(values), max(values))


def test_reproduce_scoreboard_counts_the_papers_pairs(reproduction):
    rows, _, board = reproduction
    # 5 paper pairs x (6 + 9) cells with paper values, less the self-inconsistent ones.
    assert board["counted"] + board["inconsistent"] == 5 * (6 + 9)
    assert board["inconsistent"] == 12
    assert all(c["reason"] and c["link"].startswith("docs/reproductions/keshav.md#") for c in board["outside_cells"])
    status = {(r["row"], r["column"]): r.get("status") for r in rows}
    assert status[("JK/FCFS", "bg-on throughput bkg")] == "inconsistent"
    assert status[("PP/FQ per-probe", "bg-on throughput 1")] == "not counted"
    assert status[("JK/FQ rollback", "bg-on throughput 1")] == "not counted"


def test_reproduce_writes_table_and_figure(reproduction):
    rows, out_dir, _ = reproduction
    with (out_dir / "table2.csv").open() as f:
        table = list(csv.DictReader(f))
    assert [(r["row"], r["column"]) for r in table] == [(r["row"], r["column"]) for r in rows]
    for name in (
        "figure2_jk_fcfs_window.png",
        "figure3_pp_fq_outstanding.png",
        "figure3_pp_fq_per_probe_outstanding.png",
    ):
        assert (out_dir / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_reproduce_tables_show_ours_beside_paper(tmp_path):
    out = ok(run_cli("reproduce", "keshav-s1", "--out", tmp_path))
    assert "not yet implemented" not in out
    assert "figure3_pp_fq_outstanding.png" in out
    assert "(0.39)" in out  # G/FQ, background on, throughput of source 2 in the paper
    assert "figure2_jk_fcfs_window.png" in out
    assert "Scoreboard:" in out and "cells within tolerance" in out


def test_bench_json_keys():
    data = json.loads(ok(run_cli("bench", "--flows", "2", "--time", "1s", "--json")))
    assert BENCH_KEYS <= set(data)
    assert data["events"] > 0 and data["delivered_pkts"] > 0
    assert data["wall_time_s"] > 0


def test_bench_reports_build_run_and_peak_memory():
    data = json.loads(ok(run_cli("bench", "--flows", "2", "--time", "1s", "--json")))
    assert data["build_time_s"] >= 0 and data["run_time_s"] > 0
    assert data["wall_time_s"] == pytest.approx(data["build_time_s"] + data["run_time_s"])
    # The Python interpreter alone holds more than 4 MiB resident.
    assert data["peak_rss_bytes"] > 4 * 2**20
    assert data["qdisc"] == "fcfs" and "results_load_s" not in data


def test_bench_fq_with_results():
    args = ("--flows", "3", "--bottleneck", "1Mbps", "--time", "2s", "--json")
    fcfs = json.loads(ok(run_cli("bench", *args)))
    fq = json.loads(ok(run_cli("bench", *args, "--qdisc", "fq", "--results")))
    assert fq["qdisc"] == "fq" and fq["delivered_pkts"] > 0
    assert fq["events"] != fcfs["events"], "the bottleneck discipline must change the run"
    assert fq["results_json_bytes"] > 1000 and fq["results_load_s"] >= 0
    assert 0 < fq["results_columns_bytes"] < fq["results_json_bytes"]
    assert fq["results_handoff_s"] >= fq["results_load_s"]


def test_bench_repeat_reports_the_median_of_the_runs():
    args = ("bench", "--flows", "2", "--time", "1s", "--json")
    data = json.loads(ok(run_cli(*args, "--repeat", "3")))
    assert data["repeat"] == 3 and len(data["runs"]) == 3
    rates = sorted(r["delivered_pkts_per_s"] for r in data["runs"])
    assert data["delivered_pkts_per_s_median"] == rates[1]
    assert (data["delivered_pkts_per_s_min"], data["delivered_pkts_per_s_max"]) == (
        rates[0],
        rates[2],
    )
    # The other figures are the median run's.
    assert data["delivered_pkts_per_s"] == rates[1]
    assert data["delivered_pkts"] * 1.0 / data["run_time_s"] == pytest.approx(rates[1])
    # An even count: the median is the mean of the middle two, the figures the lower's.
    two = json.loads(ok(run_cli(*args, "--repeat", "2")))
    low, high = sorted(r["delivered_pkts_per_s"] for r in two["runs"])
    assert two["delivered_pkts_per_s_median"] == pytest.approx((low + high) / 2)
    assert two["delivered_pkts_per_s"] == low
    # One run (the default) reports itself as the median.
    one = json.loads(ok(run_cli(*args)))
    assert one["repeat"] == 1 and one["delivered_pkts_per_s_median"] == one["delivered_pkts_per_s"]


def test_bench_repeat_table():
    out = ok(run_cli("bench", "--flows", "2", "--time", "1s", "--repeat", "2"))
    assert "median of 2" in out and "fastest, slowest run" in out and "median run's" in out


def test_bench_runs_that_differ_are_reported():
    from ccsim.cli import CliError, _bench_summary

    run = {"events": 10, "delivered_pkts": 5, "wall_time_s": 1.0, "delivered_pkts_per_s": 5.0}
    with pytest.raises(CliError, match="run 2 processed 11 events.*same scenario"):
        _bench_summary([run, {**run, "events": 11}])


def test_bench_table():
    out = ok(run_cli("bench", "--flows", "2", "--bottleneck", "10Mbps", "--time", "1s"))
    assert "events" in out and "delivered" in out
    data = json.loads(ok(run_cli("bench", "--flows", "2", "--bottleneck", "10Mbps", "--time", "1s", "--json")))
    sent = f"{data['sent_pkts']:,} ({data['retransmitted_pkts']:,})"
    rows = [line for line in out.splitlines() if "data packets sent (retransmissions)" in line]
    assert len(rows) == 1 and rows[0].rstrip().endswith(sent), out
    assert "sent_pkts" not in out, "shown once, with its label"
