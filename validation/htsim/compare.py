"""htsim against ccsim on htsim's fat-tree TCP experiment: runs both, interleaved, and writes
a Markdown table.

    python compare.py OUTDIR --htsim PATH [--rounds 4] [--conns 16] [--acks instant] [--queue random]
    python compare.py OUTDIR --table-only

Run with the ccsim virtual environment. Each round runs htsim once (htsim_ft.py, a
subprocess) and then ccsim once (ccsim_ft.py, a subprocess, seed = the round number);
every run's JSON goes to OUTDIR (htsim-R.json, ccsim-R.json) and the table to
OUTDIR/table.md. Wall times are of the whole process: htsim_tcp's (start-up, topology,
run, log), and ccsim_ft.py's (Python start-up, import, scenario build, run, output); the
table gives their medians over the rounds. Throughputs are pooled over the
rounds: every round is another random permutation and other random paths, on both sides.
``--table-only`` re-renders the table from the JSON files already in OUTDIR.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def pct(xs: list[float], q: float) -> float:
    """The q-quantile by linear interpolation between order statistics (numpy's default)."""
    s = sorted(xs)
    if not s:
        return float("nan")
    h = (len(s) - 1) * q
    lo = int(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def summary(runs: list[dict]) -> dict:
    tput = [x for r in runs for x in r["tput_gbps"]]
    return {
        "runs": len(runs),
        "flows": len(tput),
        "mean": statistics.fmean(tput) if tput else float("nan"),
        "min": min(tput) if tput else float("nan"),
        "p10": pct(tput, 0.10),
        "median": pct(tput, 0.5),
        "max": max(tput) if tput else float("nan"),
        "starved": sum(1 for x in tput if x < 1.0),
        "total": statistics.fmean([sum(r["tput_gbps"]) for r in runs]) if runs else float("nan"),
        "wall": statistics.median([r["process_wall_s"] for r in runs]) if runs else float("nan"),
        "walls": [r["process_wall_s"] for r in runs],
    }


def _rel(a: float, b: float) -> str:
    return "-" if b == 0 else f"{100 * (a - b) / b:+.1f}%"


def table(ccsim: list[dict], htsim: list[dict]) -> str:
    c, h = summary(ccsim), summary(htsim)
    rows = [
        ("mean per-flow throughput, Gbps", "mean"),
        ("p10 per-flow throughput, Gbps", "p10"),
        ("min per-flow throughput, Gbps", "min"),
        ("median per-flow throughput, Gbps", "median"),
        ("max per-flow throughput, Gbps", "max"),
        ("aggregate throughput per run (mean), Gbps", "total"),
    ]
    lines = ["| | ccsim | htsim | ccsim vs htsim |", "|---|---|---|---|"]
    for label, key in rows:
        lines.append(f"| {label} | {c[key]:.2f} | {h[key]:.2f} | {_rel(c[key], h[key])} |")
    lines.append(f"| flows below 1 Gbps | {c['starved']} of {c['flows']} | {h['starved']} of {h['flows']} | |")
    lines.append(
        f"| timeouts per run (mean) | {statistics.fmean(r['timeouts'] for r in ccsim):.1f} | {statistics.fmean(r['timeouts'] for r in htsim):.1f} | |"
    )
    lines.append(
        f"| wall time per run, median of {c['runs']} / {h['runs']} | {c['wall']:.1f} s | {h['wall']:.1f} s | "
        f"{h['wall'] / c['wall']:.2f}x faster |"
        if c["wall"] and c["wall"] < h["wall"]
        else f"| wall time per run, median of {c['runs']} / {h['runs']} | {c['wall']:.1f} s | {h['wall']:.1f} s | {c['wall'] / h['wall']:.2f}x slower |"
    )
    pkts = [r["delivered_pkts"] for r in ccsim if "delivered_pkts" in r]
    if pkts:
        ev = statistics.fmean(r["events"] / r["delivered_pkts"] for r in ccsim)
        lines.append(f"| ccsim events per delivered data packet | {ev:.2f} | | |")
    lines.append("")
    lines.append(
        f"Wall times, run by run (s): ccsim {', '.join(f'{w:.1f}' for w in c['walls'])}; htsim {', '.join(f'{w:.1f}' for w in h['walls'])}."
    )
    return "\n".join(lines) + "\n"


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=HERE)
    return time.perf_counter() - t0


def load(outdir: str, side: str) -> list[dict]:
    runs = []
    for path in sorted(glob.glob(os.path.join(outdir, f"{side}-*.json"))):
        with open(path, encoding="utf-8") as f:
            runs.append(json.load(f))
    return runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--htsim", help="the htsim_tcp binary (or $HTSIM_TCP)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--conns", type=int, default=16, help="htsim's -conns, the flows of the permutation")
    ap.add_argument("--acks", default="instant")
    ap.add_argument("--queue", default="random")
    ap.add_argument("--table-only", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    if not a.table_only:
        htsim = a.htsim or os.environ.get("HTSIM_TCP")
        if not htsim:
            sys.exit("compare.py: give the htsim_tcp binary with --htsim PATH or HTSIM_TCP=PATH")
        for rnd in range(1, a.rounds + 1):
            for side in ("htsim", "ccsim"):
                out = os.path.abspath(os.path.join(a.outdir, f"{side}-{rnd}.json"))
                if side == "htsim":
                    cmd = [
                        sys.executable,
                        "htsim_ft.py",
                        out,
                        "--htsim",
                        os.path.abspath(htsim),
                        "--conns",
                        str(a.conns),
                    ]
                else:
                    cmd = [
                        sys.executable,
                        "ccsim_ft.py",
                        str(rnd),
                        out,
                        "--conns",
                        str(a.conns),
                        "--acks",
                        a.acks,
                        "--queue",
                        a.queue,
                    ]
                wall = timed(cmd)
                with open(out, encoding="utf-8") as f:
                    res = json.load(f)
                # htsim: its own process (a run that hit its assert and was started again is
                # not counted); ccsim: the whole Python process, start-up and build included.
                res["process_wall_s"] = res["run_wall_s"] if side == "htsim" else wall
                with open(out, "w", encoding="utf-8") as f:
                    json.dump(res, f, indent=1)
    text = table(load(a.outdir, "ccsim"), load(a.outdir, "htsim"))
    with open(os.path.join(a.outdir, "table.md"), "w", encoding="utf-8") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
