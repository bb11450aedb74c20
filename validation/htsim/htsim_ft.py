"""Run htsim's fat-tree TCP experiment (its own driver, ``htsim_tcp``) once and parse it.

    python htsim_ft.py OUT.json [--htsim PATH] [--parse PATH] [--conns N]

``--htsim`` (or ``$HTSIM_TCP``) is the ``htsim_tcp`` binary built in htsim's
sim/datacenter/; ``--parse`` (or ``$HTSIM_PARSE``; default: ``parse_output`` in the
directory above the binary) is htsim's log reader. Plain Python, no ccsim.

htsim writes its per-flow samples (TcpSinkLoggerSampling, every second) to a binary log;
``parse_output LOG -ascii`` prints them as lines
``3.000000000 Type TCP_SINK ID 336 Ev RATE CAck 37499704501 Rate 12499999500``
(CAck: bytes cumulatively acknowledged; Rate: bytes per second over the last second).
A flow's throughput here is its CAck at the last sample (3 s) over 3 s, as ccsim_ft.py
measures it. The flows' endpoints come from the log's names, ``mtcp_sink_SRC_0_DST(0)``.
htsim seeds its random numbers from the clock (``srand(time(NULL))``), so every run draws
another permutation and other paths; a run that hits setPermutation's assert (the last
host left with only itself, about one run in 16) is started again.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from experiment import NODES, SAMPLE_S

NAME = re.compile(r": mtcp_sink_(\d+)_\d+_(\d+)\(\d+\)=(\d+)")


def binaries(htsim: str | None, parse: str | None) -> tuple[str, str]:
    htsim = htsim or os.environ.get("HTSIM_TCP")
    if not htsim:
        sys.exit("htsim_ft.py: give the htsim_tcp binary with --htsim PATH or HTSIM_TCP=PATH")
    parse = (
        parse
        or os.environ.get("HTSIM_PARSE")
        or os.path.join(os.path.dirname(os.path.abspath(htsim)), "..", "parse_output")
    )
    for what, path in (("htsim_tcp", htsim), ("parse_output", parse)):
        if not os.access(path, os.X_OK):
            sys.exit(f"htsim_ft.py: {what} not found or not executable at {path}")
    return htsim, parse


def parse_log(parse: str, log: str) -> dict:
    """The samples of the log, {sink id: [(time, cack)]}, and the sinks' endpoints,
    {sink id: (src, dst)}, from the log's text header (lines ``: NAME=ID``)."""
    text = subprocess.run([parse, log, "-ascii"], capture_output=True, text=True, check=True).stdout
    samples: dict[int, list[tuple[float, int]]] = {}
    for line in text.splitlines():
        w = line.split()
        if len(w) >= 10 and w[1] == "Type" and w[2] == "TCP_SINK" and w[6] == "RATE":
            samples.setdefault(int(w[4]), []).append((float(w[0]), int(w[8])))
    names: dict[int, tuple[int, int]] = {}
    with open(log, "rb") as f:
        for raw in f:
            if raw.startswith(b"# TRACE"):
                break
            m = NAME.match(raw.decode("ascii", "replace"))
            if m:
                names[int(m.group(3))] = (int(m.group(1)), int(m.group(2)))
    return {"samples": samples, "names": names}


def throughputs(parsed: dict) -> dict[tuple[int, int], tuple[int, float]]:
    """Each flow's (src, dst) -> (cumulative ack at SAMPLE_S in bytes, Gbps over
    [0, SAMPLE_S]) from ``parse_log``'s result."""
    out = {}
    for sink_id, pts in sorted(parsed["samples"].items()):
        last = [c for t, c in pts if abs(t - SAMPLE_S) < 1e-6]
        cack = last[0] if last else 0
        out[parsed["names"].get(sink_id, (-1, -1))] = (cack, cack * 8 / SAMPLE_S / 1e9)
    return out


def timeouts(stdout: str) -> int:
    """htsim's timeouts: the driver prints a line per retransmission timeout."""
    return sum(1 for line in stdout.splitlines() if " RTO " in line and line.startswith("At "))


def run(htsim: str, parse: str, conns: int, tries: int = 5) -> dict:
    with tempfile.TemporaryDirectory(prefix="htsim-ft-") as tmp:
        log = os.path.join(tmp, "logout.dat")
        for attempt in range(tries):
            t0 = time.perf_counter()
            p = subprocess.run(
                [htsim, "-nodes", str(NODES), "-conns", str(conns), "-o", log],
                cwd=tmp,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            wall = time.perf_counter() - t0
            if p.returncode == 0:
                break
            print(f"htsim_ft.py: htsim exited {p.returncode} (try {attempt + 1}), running again", file=sys.stderr)
            time.sleep(1.1)  # the next run's srand(time(NULL)) must differ
        else:
            sys.exit(f"htsim_ft.py: htsim failed {tries} times; last stderr:\n{p.stderr[-2000:]}")
        parsed = parse_log(parse, log)
    flows = [
        {"src": src, "dst": dst, "cack_bytes": cack, "tput_gbps": g}
        for (src, dst), (cack, g) in throughputs(parsed).items()
    ]
    return {
        "flows": [{"src": f["src"], "dst": f["dst"]} for f in flows],
        "tput_gbps": [f["tput_gbps"] for f in flows],
        "cack_bytes": [f["cack_bytes"] for f in flows],
        "timeouts": timeouts(p.stdout),
        "run_wall_s": wall,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--htsim")
    ap.add_argument("--parse")
    ap.add_argument("--conns", type=int, default=16)
    a = ap.parse_args()
    htsim, parse = binaries(a.htsim, a.parse)
    res = run(htsim, parse, a.conns)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)
    n = len(res["tput_gbps"])
    print(
        f"htsim: {n} flows, mean {sum(res['tput_gbps']) / max(n, 1):.2f} Gbps, {res['run_wall_s']:.1f} s -> {a.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
