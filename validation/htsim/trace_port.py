"""One shared switch port traced on both sides: htsim's run and ccsim's on the same draw.

    python trace_port.py OUTDIR --htsim PATH --seed N [--conns 4] [--rto jk|linux] [--port A->B]

``--htsim`` is a scratch build of htsim's ``htsim_tcp`` with the trace prints described
in README.md (never the project's code): it seeds ``srand`` from ``$HTSIM_SEED``, writes
its path choices (``PRINT_PATHS 1``), and prints, for the queue named by
``$HTSIM_TRACE_Q``, every drop (``TRQ t_us DROP flow_id pkt_id q N full|random``), and for
every TcpSrc a sample every 100 us (``TRC t_us name fid F cwnd C ssthresh S acked A rto_ms
R fr 0|1``), each fast retransmit (``TRT t_us FR name ...``) and each timeout's
retransmission (``TRT t_us RTX name cwnd C ssthresh S seq Q rto_next_ms R``).

Steps: htsim is started with the seed to write its ``.paths`` (htsim_paths.py), the
shared port is chosen (the first, or ``--port``), htsim runs whole with that queue
traced, and ccsim runs the same flows on the same paths (ccsim_ft.py's scenario with
``given``) with the port's queue and the flows' cwnd and ssthresh as series (100 us
buckets) and 10 ms intervals. Writes OUTDIR/trace.json (both sides, per flow and per
100 ms) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

import ccsim
import ccsim_ft
import htsim_ft
import htsim_paths
from experiment import MSS, NODES, SAMPLE_S

BIN_S = 0.1  # the timeline's bins


def run_htsim(binary: str, seed: int, conns: int, outdir: str, port: str | None):
    env = dict(os.environ, HTSIM_SEED=str(seed))
    log = os.path.join(outdir, "htsim.log")
    # A first start only for the .paths file (written before the run begins).
    subprocess.run(
        ["timeout", "3", binary, "-nodes", str(NODES), "-conns", str(conns), "-o", log],
        cwd=outdir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    given = htsim_paths.read(log + ".paths")
    sh = htsim_paths.shared(given)
    if not sh:
        sys.exit(f"trace_port.py: seed {seed} puts no two flows on one port")
    key = next((k for k in sh if f"{k[0]}->{k[1]}" == port), None) if port else sorted(sh)[0]
    if key is None:
        sys.exit(f"trace_port.py: no shared port {port}; shared: {sorted(sh)}")
    env["HTSIM_TRACE_Q"] = htsim_paths.htsim_queue(*key)
    out = os.path.join(outdir, "htsim-stdout.txt")
    with open(out, "w") as f:
        p = subprocess.run(
            ["nice", "-n", "19", binary, "-nodes", str(NODES), "-conns", str(conns), "-o", log],
            cwd=outdir,
            env=env,
            stdout=f,
            stderr=subprocess.STDOUT,
        )
    if p.returncode != 0:
        sys.exit(f"trace_port.py: htsim exited {p.returncode} (see {out})")
    return given, sh, key, log, out


def htsim_side(binary: str, log: str, out: str, flows_at_port):
    """htsim's side from its log (throughput at 3 s) and its trace lines."""
    binary_dir = os.path.dirname(os.path.abspath(binary))
    parsed = htsim_ft.parse_log(os.path.join(binary_dir, "..", "parse_output"), log)
    tput = {}
    for sink, pts in parsed["samples"].items():
        src, dst = parsed["names"][sink]
        cack = next((c for t, c in pts if abs(t - SAMPLE_S) < 1e-6), 0)
        tput[f"f{src}-{dst}"] = cack * 8 / SAMPLE_S / 1e9
    name_re = re.compile(r"mtcp_(\d+)_\d+_(\d+)")
    fid = {}
    per = defaultdict(
        lambda: {
            "drops_full": 0,
            "drops_random": 0,
            "timeouts": [],
            "fast_retransmits": 0,
            "timeouts_in_recovery": 0,
            "samples": [],
        }
    )
    drops_bins = defaultdict(lambda: defaultdict(int))
    with open(out) as f:
        for line in f:
            w = line.split()
            if w[:1] == ["At"] and "RECOVERY?" in w:
                m = name_re.match(w[-1])
                per[f"f{m.group(1)}-{m.group(2)}"]["timeouts_in_recovery"] += int(w[w.index("RECOVERY?") + 1])
                continue
            if not w or w[0] not in ("TRQ", "TRT", "TRC"):
                continue
            t = float(w[1]) * 1e-6
            if w[0] == "TRC":
                m = name_re.match(w[2])
                name = f"f{m.group(1)}-{m.group(2)}"
                fid[int(w[4])] = name
                per[name]["samples"].append((t, float(w[6]), float(w[8]), int(w[10]), int(w[12])))
            elif w[0] == "TRT":
                m = name_re.match(w[3])
                name = f"f{m.group(1)}-{m.group(2)}"
                if w[2] == "FR":
                    per[name]["fast_retransmits"] += 1
                else:
                    per[name]["timeouts"].append((t, int(w[13])))
            elif w[2] == "DROP":
                per[("fid", int(w[3]))]["drops_" + w[7]] += 1
                drops_bins[int(w[3])][int(t / BIN_S)] += 1
    flows = {}
    for s, d in flows_at_port:
        name = f"f{s}-{d}"
        fids = [k for k, v in fid.items() if v == name]
        p = per[name]
        dr = per[("fid", fids[0])] if fids else {"drops_full": 0, "drops_random": 0}
        # Delivered per bin from the cumulative ack samples (every 100 us).
        acked = [(t, a) for t, _, _, a, _ in p["samples"]]
        bins = []
        for b in range(int(SAMPLE_S / BIN_S)):
            lo = max((a for t, a in acked if t <= b * BIN_S), default=0)
            hi = max((a for t, a in acked if t <= (b + 1) * BIN_S), default=0)
            bins.append((hi - lo) * MSS * 8 / BIN_S / 1e9)
        flows[name] = {
            "tput_gbps": tput.get(name),
            "timeouts": len(p["timeouts"]),
            "timeout_times_s": [round(t, 4) for t, _ in p["timeouts"]],
            "rto_after_ms": [r for _, r in p["timeouts"]],
            "fast_retransmits": p["fast_retransmits"],
            "timeouts_in_recovery": p["timeouts_in_recovery"],
            "port_drops_full": dr["drops_full"],
            "port_drops_random": dr["drops_random"],
            "gbps_per_bin": [round(x, 2) for x in bins],
            "drops_per_bin": [drops_bins[fids[0]][b] if fids else 0 for b in range(int(SAMPLE_S / BIN_S))],
            "cwnd_max": max((c for _, c, _, _, _ in p["samples"]), default=None),
        }
    return flows


def ccsim_side(seed, given, key, rto, conns):
    """ccsim's side: the same flows and paths, the port's queue and the flows' windows as series."""
    d, _ = ccsim_ft.scenario(seed, conns=conns, rto=rto, given=given)
    port = f"{key[0]}->{key[1]}"
    names = [f"f{s}-{t}" for s, t, p in given if any((a, b) == key for a, b in zip(p, p[1:], strict=False))]
    d["measure"] = {
        "interval": "10ms",
        "series": [f"{port}.queue"] + [f"{n}.{m}" for n in names for m in ("cwnd", "ssthresh")],
        "sample": "100us",
    }
    raw = ccsim.Scenario.from_dict(d).run().raw
    series = {s["name"]: s for s in raw["series"]}
    flows = {}
    link = next(x for x in raw["links"] if x["name"] == port)
    for n in names:
        f = next(x for x in raw["flows"] if x["name"] == n)
        ivs = [(iv["start_s"], next(x for x in iv["flows"] if x["name"] == n)) for iv in raw["intervals"]]
        delivered = sum(x["delivered_pkts"] for t, x in ivs if t < SAMPLE_S - 1e-9)
        per_bin = int(round(BIN_S / 0.01))
        nb = int(SAMPLE_S / BIN_S)
        gb = [
            sum(x["delivered_pkts"] for t, x in ivs[b * per_bin : (b + 1) * per_bin]) * MSS * 8 / BIN_S / 1e9
            for b in range(nb)
        ]
        db = [sum(x["dropped_pkts"] for t, x in ivs[b * per_bin : (b + 1) * per_bin]) for b in range(nb)]
        cw = series[f"{n}.cwnd"]
        # A timeout sets cwnd to 1: the 100 us buckets whose minimum is 1.
        tos = [round(t, 4) for t, lo in zip(cw["t"], cw["min"], strict=True) if lo <= 1.0]
        flows[n] = {
            "tput_gbps": delivered * MSS * 8 / SAMPLE_S / 1e9,
            "timeouts": f["timeouts"],
            "timeout_buckets_s": tos,
            "fast_retransmits": f["fast_retransmits"],
            "port_drops": sum(x["dropped_pkts"] for _, x in ivs),
            "gbps_per_bin": [round(x, 2) for x in gb],
            "drops_per_bin": db,
            "cwnd_max": max(cw["max"]),
        }
    q = series[f"{port}.queue"]
    return flows, {
        "drops_by_reason": {k: v for k, v in link["drops_by_reason"].items() if v},
        "queue_mean_pkts": link["queue_mean_pkts"],
        "tx_pkts": link["tx_pkts"],
        "queue_series_mean": sum(q["v"]) / max(len(q["v"]), 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--htsim", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--conns", type=int, default=4)
    ap.add_argument("--rto", choices=["jk", "linux"], default="jk")
    ap.add_argument("--port")
    ap.add_argument("--skip-htsim", action="store_true", help="reuse OUTDIR's htsim run")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    outdir = os.path.abspath(a.outdir)
    if a.skip_htsim:
        log = os.path.join(outdir, "htsim.log")
        given = htsim_paths.read(log + ".paths")
        sh = htsim_paths.shared(given)
        key = next(k for k in sh if f"{k[0]}->{k[1]}" == a.port) if a.port else sorted(sh)[0]
        out = os.path.join(outdir, "htsim-stdout.txt")
    else:
        given, sh, key, log, out = run_htsim(a.htsim, a.seed, a.conns, outdir, a.port)
    at_port = sh[key]
    h = htsim_side(a.htsim, log, out, at_port)
    c, port_stats = ccsim_side(a.seed, given, key, a.rto, a.conns)
    res = {
        "seed": a.seed,
        "conns": a.conns,
        "rto": a.rto,
        "port": f"{key[0]}->{key[1]}",
        "htsim_queue": htsim_paths.htsim_queue(*key),
        "shared": {f"{k[0]}->{k[1]}": v for k, v in sh.items()},
        "htsim": h,
        "ccsim": c,
        "ccsim_port": port_stats,
    }
    with open(os.path.join(outdir, f"trace-{a.rto}.json"), "w") as f:
        json.dump(res, f, indent=1)
    print(f"seed {a.seed}, port {res['port']} ({res['htsim_queue']}), ccsim rto {a.rto}")
    print("| flow | side | Gbps 0-3 s | timeouts | fast retransmits | drops at the port | max cwnd |")
    print("|---|---|---|---|---|---|---|")
    for n in h:
        hh, cc = h[n], c[n]
        print(
            f"| {n} | htsim | {hh['tput_gbps']:.2f} | {hh['timeouts']} | {hh['fast_retransmits']} | "
            f"{hh['port_drops_full']} full + {hh['port_drops_random']} random | {hh['cwnd_max']:.0f} |"
        )
        print(
            f"| {n} | ccsim | {cc['tput_gbps']:.2f} | {cc['timeouts']} | {cc['fast_retransmits']} | "
            f"{cc['port_drops']} | {cc['cwnd_max']:.0f} |"
        )
    print("ccsim port:", port_stats)
    for n in h:
        print(n, "htsim timeouts", h[n]["timeout_times_s"][:12], "rto after (ms)", h[n]["rto_after_ms"][:12])
        print(n, "ccsim timeout buckets", c[n]["timeout_buckets_s"][:12])
    return 0


if __name__ == "__main__":
    sys.exit(main())
