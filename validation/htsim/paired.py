"""htsim and ccsim on the same draws: the full permutation, paired by htsim's seed.

    python paired.py OUTDIR --htsim PATH --seeds 1 2 3 4 5 [--conns 16] [--variant TAG=PYTHONPATH ...]
    python paired.py OUTDIR2 --htsim PATH --seeds 1 2 3 4 5 --hop-ps 1010000 --htsim-only
    python paired.py OUTDIR --table-only [--extra TAG=OUTDIR2]

``--htsim`` is the scratch build of ``htsim_tcp`` described in README.md (it seeds
``srand`` from ``$HTSIM_SEED`` and writes its path choices to ``LOG.paths``; no trace
variable is set here, so it runs as shipped). For each seed htsim runs whole in
``OUTDIR/htsim-SEED/``; ccsim then runs the same flows on the same paths
(``ccsim_ft.py --htsim-paths``, seed SEED for its own random drops) once with the
repository's build and once per ``--variant TAG=DIR`` (a package directory put first on
``PYTHONPATH``: a scratch build of the engine; the environment is passed on, so a
scratch build's switches are set by the caller). Each run is a separate process, timed
whole. Writes every run's JSON and ``OUTDIR/table.md``: per draw and pooled, the flows
below 5 Gbps, between 5 and 95 and at 95 or more, the mean, the timeouts; per side, how
many sets of flows that meet at a switch port keep every flow at 5 Gbps or more (each
set once, however many ports it crosses together); and per shared port the sides'
throughputs. ``--hop-ps`` runs htsim with every hop 1.01 us (or as
given; the scratch build's ``$HTSIM_HOP_PS``) on the same draws: another realisation of
htsim itself, which ``--extra`` adds to a table as columns (``--ccsim-hop-delay`` runs
ccsim with the same hop delay on those draws). ``--reseed N ...`` runs the repository's
ccsim once more per N with seed N instead of the draw's (the same flows and paths; only
the random drops' stream changes): other realisations of ccsim on each draw, as columns
``ccsim/N``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

import htsim_ft
import htsim_paths
from experiment import NODES

HERE = os.path.dirname(os.path.abspath(__file__))
LOW, HIGH = 5.0, 95.0  # Gbps: the bands of docs/performance.md's tables


def load(path: str):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def dump(obj, path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)


def run_htsim(binary: str, parse: str, seed: int, conns: int, outdir: str, hop_ps: int | None = None) -> dict:
    d = os.path.join(outdir, f"htsim-{seed}")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(d, "htsim.log")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HTSIM_TRACE")}
    env["HTSIM_SEED"] = str(seed)
    if hop_ps:
        env["HTSIM_HOP_PS"] = str(hop_ps)
    t0 = time.perf_counter()
    p = subprocess.run(
        [binary, "-nodes", str(NODES), "-conns", str(conns), "-o", log],
        cwd=d,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return {"seed": seed, "failed": p.returncode, "stderr": p.stderr[-2000:]}
    parsed = htsim_ft.parse_log(parse, log)
    given = htsim_paths.read(log + ".paths")
    tput = htsim_ft.throughputs(parsed)
    return {
        "seed": seed,
        "flows": [[s, t] for s, t, _ in given],
        "tput_gbps": [tput.get((s, t), (0, 0.0))[1] for s, t, _ in given],
        "timeouts": htsim_ft.timeouts(p.stdout),
        "run_wall_s": wall,
        "paths": log + ".paths",
    }


def run_ccsim(
    seed: int,
    paths: str,
    out: str,
    pythonpath: str | None,
    hop_delay: str | None = None,
    extra: tuple[str, ...] | list[str] = (),
) -> dict:
    env = dict(os.environ)
    parts = [pythonpath] if pythonpath else []
    env["PYTHONPATH"] = os.pathsep.join(parts + [p for p in [env.get("PYTHONPATH")] if p])
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, os.path.join(HERE, "ccsim_ft.py"), str(seed), out, "--htsim-paths", paths]
        + (["--hop-delay", hop_delay] if hop_delay else [])
        + list(extra),
        env=env,
        check=True,
        cwd=HERE,
    )
    res = load(out)
    res["process_wall_s"] = time.perf_counter() - t0
    return res


def bands(tput: list[float]) -> tuple[int, int, int]:
    low = sum(1 for x in tput if x < LOW)
    high = sum(1 for x in tput if x >= HIGH)
    return low, len(tput) - low - high, high


def shared_ports(r: dict) -> tuple[dict, dict] | None:
    """A paired run's flows by (src, dst) -> index into its throughputs, and the ports
    that two or more of them share (``htsim_paths.shared``); None without htsim's paths."""
    h = r.get("htsim")
    if not h or "paths" not in h:
        return None
    given = htsim_paths.read(h["paths"])
    return {(s, d): i for i, (s, d, _) in enumerate(given)}, htsim_paths.shared(given)


def sharing(runs: list[dict], tags: list[str]) -> list[str]:
    """Per side, the sets of flows that meet at a switch port (each set once, however
    many ports it shares): how many keep every flow at `LOW` Gbps or more (the port is
    shared) and how many leave one below (locked out there or elsewhere), and the median
    of the set's summed throughput."""
    counts = {t: [0, 0, []] for t in tags}
    for r in runs:
        draw = shared_ports(r)
        if draw is None:
            continue
        index, ports = draw
        groups = sorted({tuple(fl) for fl in ports.values()})
        for t in tags:
            x = r.get(t)
            if not x or "tput_gbps" not in x:
                continue
            for fl in groups:
                v = [x["tput_gbps"][index[f]] for f in fl]
                counts[t][0 if min(v) >= LOW else 1] += 1
                counts[t][2].append(sum(v))
    lines = [
        f"Flows that meet at a switch port (each set once): every flow at {LOW:g} Gbps or more / one below it:",
        "",
        "| side | shared | one below | median sum, Gbps |",
        "|---|---|---|---|",
    ]
    for t in tags:
        ok, low, sums = counts[t]
        if sums:
            n = len(sums)
            lines.append(f"| {t} | {ok} of {n} | {low} of {n} | {statistics.median(sums):.1f} |")
    return lines


def table(outdir: str, extra: list[str] = ()) -> str:
    runs = load(os.path.join(outdir, "runs.json"))
    for spec in extra:
        tag, other = spec.split("=", 1)
        by_seed = {r["seed"]: r for r in load(os.path.join(other, "runs.json"))}
        for r in runs:
            for side, x in by_seed.get(r["seed"], {}).items():
                if side != "seed":
                    r[tag if side == "htsim" else f"{side}@{tag}"] = x
    tags = ["htsim", "ccsim"] + sorted({t for r in runs for t in r if t not in ("htsim", "ccsim", "seed")})
    lines = [
        "| seed | side | mean, Gbps | below 5 | 5 to 95 | 95 or more | timeouts | wall, s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    pooled: dict[str, list[float]] = {t: [] for t in tags}
    tos: dict[str, int] = {t: 0 for t in tags}
    for r in runs:
        for t in tags:
            x = r.get(t)
            if not x or "tput_gbps" not in x:
                continue
            tp = x["tput_gbps"]
            pooled[t] += tp
            tos[t] += x["timeouts"]
            lo, mid, hi = bands(tp)
            wall = x.get("process_wall_s", x.get("run_wall_s", 0))
            lines.append(
                f"| {r['seed']} | {t} | {sum(tp) / len(tp):.2f} | {lo} | {mid} | {hi} | {x['timeouts']} | {wall:.0f} |"
            )
    for t in tags:
        tp = pooled[t]
        if tp:
            lo, mid, hi = bands(tp)
            n = len(tp)
            lines.append(
                f"| **pooled** | **{t}** | **{sum(tp) / n:.2f}** | {lo} of {n} | {mid} of {n} | {hi} of {n} | {tos[t]} | |"
            )
    lines += ["", *sharing(runs, tags)]
    lines += ["", "Per shared port (flows that share one switch port on the draw), Gbps:", ""]
    lines += ["| seed | port | flows | " + " | ".join(tags) + " |", "|---|---|---|" + "---|" * len(tags)]
    for r in runs:
        draw = shared_ports(r)
        if draw is None:
            continue
        index, ports = draw
        for (a, b), fl in sorted(ports.items()):
            cells = []
            for t in tags:
                x = r.get(t)
                if not x or "tput_gbps" not in x:
                    cells.append("")
                    continue
                cells.append(" / ".join(f"{x['tput_gbps'][index[f]]:.1f}" for f in fl))
            names = ", ".join(f"f{s}-{d}" for s, d in fl)
            lines.append(f"| {r['seed']} | {a}->{b} | {names} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(outdir, "table.md"), "w", encoding="utf-8") as f:
        f.write(text)
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--htsim")
    ap.add_argument("--parse")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--conns", type=int, default=16)
    ap.add_argument(
        "--variant", action="append", default=[], help="TAG=DIR: a ccsim package directory (TAG= for the repository's)"
    )
    ap.add_argument("--ccsim-args", default="", help="more ccsim_ft.py options for this call's ccsim runs, e.g. '--rto linux'")
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--hop-ps", type=int, help="htsim's hop latency in ps ($HTSIM_HOP_PS; another realisation)")
    ap.add_argument("--htsim-only", action="store_true", help="no ccsim runs")
    ap.add_argument("--ccsim-hop-delay", help="ccsim's every link delay (ccsim_ft.py --hop-delay; with --hop-ps)")
    ap.add_argument(
        "--reseed", type=int, nargs="+", default=[], help="ccsim once more per N with seed N (its random drops)"
    )
    ap.add_argument("--extra", action="append", default=[], help="TAG=DIR: another OUTDIR's runs as columns (its htsim as TAG, its ccsim as ccsim@TAG)")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    if not a.table_only:
        binary, parse = htsim_ft.binaries(a.htsim, a.parse)
        variants = [("ccsim", None, None)] + [(t, d or None, None) for t, d in (v.split("=", 1) for v in a.variant)]
        variants += [(f"ccsim/{n}", None, n) for n in a.reseed]
        extra = shlex.split(a.ccsim_args)
        path = os.path.join(a.outdir, "runs.json")
        runs = load(path) if os.path.exists(path) else []
        done = {r["seed"]: r for r in runs}
        for seed in a.seeds:
            if seed in done:
                r, h = done[seed], done[seed]["htsim"]
                for tag, pp, own in variants:
                    if tag not in r and "paths" in h and not a.htsim_only:
                        out = os.path.join(a.outdir, f"{tag.replace('/', '-')}-{seed}.json")
                        r[tag] = run_ccsim(seed if own is None else own, h["paths"], out, pp, a.ccsim_hop_delay, extra)
                        dump(runs, path)
                continue
            h = run_htsim(binary, parse, seed, a.conns, a.outdir, a.hop_ps)
            r = {"seed": seed, "htsim": h}
            if "paths" in h and not a.htsim_only:
                for tag, pp, own in variants:
                    out = os.path.join(a.outdir, f"{tag.replace('/', '-')}-{seed}.json")
                    r[tag] = run_ccsim(seed if own is None else own, h["paths"], out, pp, a.ccsim_hop_delay, extra)
            runs.append(r)
            dump(runs, path)
            print(f"paired.py: seed {seed} done", file=sys.stderr)
    print(table(a.outdir, a.extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
