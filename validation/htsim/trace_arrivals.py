"""Every arrival at one shared switch port, on both sides, on the same draw: the occupancy
each arrival finds, whether a departure of that port falls on the same picosecond and in
which order the two are taken, and what the random drop did.

    python trace_arrivals.py OUTDIR --htsim PATH --seed N --window T0 T1 [--split T ...]
        [--conns 4] [--port A->B] [--hop-ps 1000000] [--arrival-first] [--tie-ps 0]
        [--skip-htsim] [--skip-ccsim]

``--htsim`` is a scratch build of htsim's ``htsim_tcp`` (README.md, "Tracing one
arrival at a time": never the project's code) that prints ``TRF id src dst`` and ``TRG
id flow_id`` for each TcpSrc (its log id, its endpoints, its packets' flow id) and, for
the queue named by ``$HTSIM_TRACE_Q`` between ``$HTSIM_TRACE_FROM`` and
``$HTSIM_TRACE_END`` s, ``TRA t_ps flow_id seq occupancy verdict tie`` per arrival:
occupancy in packets with the one being sent, verdict ``0`` (queued), ``R`` (random drop)
or ``F`` (full), tie ``B`` (a departure of the queue at the same picosecond, taken
before the arrival), ``A`` (one taken after it) or ``-`` (none).

ccsim's side needs a scratch build of the engine (README.md, same section) that prints
``CTA t_ps flow seq retx occupancy verdict tie since`` per arrival at the channel given by
``$CCSIM_TRACE_CH`` (``from,to,t0,t1``: node indices, seconds); ``tie`` is ``B`` when
the port's last departure was at most ``$CCSIM_TIE_PS`` ps before the arrival (0: the same
picosecond; ccsim always takes the departure first) and ``since`` the picoseconds
since it; ``$CCSIM_ARRIVAL_FIRST=1`` makes such an arrival see the departing packet
still queued (htsim's order ``A``). The same scratch build's
``$CCSIM_ARRIVAL_SHUFFLE=1`` takes simultaneous arrivals from different channels in
an order drawn from (time, channel) instead of by channel; it is set in the
environment, the script does not set it. ``--ack-rate`` sets the rate of ccsim's ack
links (their detour is 2 x 320 bits at that rate).

``--hop-ps`` sets every link's delay on both sides (htsim: ``$HTSIM_HOP_PS``). A
packet is retransmitted when its sequence number is not above the highest its flow
has brought to the port so far (in the window). Writes ``OUTDIR/arrivals.json`` and
prints per flow and per phase (the window cut at each ``--split``): arrivals, by
occupancy found and by tie, and the drops.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict

import ccsim_ft
import htsim_paths
import trace_port
from experiment import HOP_DELAY


def htsim_run(a, outdir):
    os.environ["HTSIM_TRACE_FROM"] = str(a.window[0])
    os.environ["HTSIM_TRACE_END"] = str(a.window[1])
    if a.hop_ps:
        os.environ["HTSIM_HOP_PS"] = str(a.hop_ps)
    return trace_port.run_htsim(a.htsim, a.seed, a.conns, outdir, a.port)


def htsim_records(out):
    by_src, fids, recs = {}, {}, []
    with open(out) as f:
        for line in f:
            if line.startswith("TRF "):
                _, src, s, d = line.split()
                by_src[int(src)] = f"f{s}-{d}"
            elif line.startswith("TRG "):
                _, src, fid = line.split()
                fids[int(fid)] = int(src)
            elif line.startswith("TRA "):
                _, t, fid, seq, occ, v, tie = line.split()
                recs.append((int(t), int(fid), int(seq), int(occ), v, tie))
    names = {fid: by_src[src] for fid, src in fids.items()}
    return [(t, names[fid], seq, occ, v, tie) for t, fid, seq, occ, v, tie in recs]


def ccsim_child(a, outdir, key) -> None:
    """Runs in its own process: the engine reads its scratch settings once."""
    given = htsim_paths.read(os.path.join(outdir, "htsim.log.paths"))
    d, _ = ccsim_ft.scenario(a.seed, conns=a.conns, given=given, hop_delay=f"{a.hop_ps}ps" if a.hop_ps else HOP_DELAY)
    # The engine numbers the nodes hosts first, then routers, each in the given order.
    if a.ack_rate:
        for ln in d["links"]:
            if "ack" in ln["between"]:
                ln["rate"] = a.ack_rate
    names = [n if isinstance(n, str) else n["name"] for k in ("hosts", "routers") for n in d["nodes"][k]]
    env = {
        "CCSIM_TRACE_CH": f"{names.index(key[0])},{names.index(key[1])},{a.ccsim_window[0]},{a.ccsim_window[1]}",
        "CCSIM_TIE_PS": str(a.tie_ps),
        "CCSIM_ARRIVAL_FIRST": "1" if a.arrival_first else "0",
    }
    flows = [f["name"] for f in d["flows"]]
    with open(os.path.join(outdir, "ccsim-scenario.json"), "w") as f:
        json.dump({"scenario": d, "flows": flows}, f)
    code = (
        "import json, sys, ccsim\n"
        "x = json.load(open(sys.argv[1]))\n"
        "r = ccsim.Scenario.from_dict(x['scenario']).run().raw\n"
        "json.dump({f['name']: {k: f[k] for k in ('timeouts', 'fast_retransmits', 'delivered_pkts')}"
        " for f in r['flows']}, open(sys.argv[2], 'w'))\n"
    )
    err = os.path.join(outdir, f"ccsim-{a.tag}.txt")
    with open(err, "w") as f:
        subprocess.run(
            [sys.executable, "-c", code, os.path.join(outdir, "ccsim-scenario.json"), os.path.join(outdir, f"ccsim-{a.tag}-flows.json")],
            env=dict(os.environ, **env),
            stderr=f,
            check=True,
        )


def ccsim_records(outdir, tag):
    flows = json.load(open(os.path.join(outdir, "ccsim-scenario.json")))["flows"]
    recs = []
    with open(os.path.join(outdir, f"ccsim-{tag}.txt")) as f:
        for line in f:
            if line.startswith("CTA "):
                _, t, fl, seq, _retx, occ, v, tie, since = line.split()
                recs.append((int(t), flows[int(fl)], int(seq), int(occ), v, tie, int(since)))
    return recs


SINCE = [(0, "0"), (100, "1-100 ps"), (1000, "0.1-1 ns"), (40000, "1-40 ns"), (10**18, "more")]


def since_bins(recs, cuts):
    """ccsim: per (phase, flow), arrivals by the time since the port's last departure."""
    out = defaultdict(Counter)
    for t, fl, *_, since in recs:
        ph = sum(t >= c for c in cuts)
        out[(ph, fl)][next(name for top, name in SINCE if since <= top)] += 1
    return out


def summarise(recs, cuts):
    """Per (phase, flow): arrivals, retransmissions, by occupancy, by tie, drops."""
    out = defaultdict(lambda: {"n": 0, "retx": 0, "occ": Counter(), "tie": Counter(), "drop": Counter(), "drop_occ": Counter(), "tie_occ": Counter()})
    top = {}
    for t, fl, seq, occ, v, tie, *_ in recs:
        ph = sum(t >= c for c in cuts)
        s = out[(ph, fl)]
        s["n"] += 1
        if seq <= top.get(fl, -1):
            s["retx"] += 1
        top[fl] = max(top.get(fl, -1), seq)
        s["occ"][occ] += 1
        s["tie"][tie] += 1
        s["tie_occ"][f"{tie}{occ}"] += 1
        if v != "0":
            s["drop"][v] += 1
            s["drop_occ"][occ] += 1
    return out


def table(side, summ, phases):
    print(f"\n{side}")
    print("| phase | flow | arrivals | retx | found <=3 / 4 / 5 / 6 / 7 / 8 | ties B / A / none | drops random / full | dropped |")
    print("|---|---|---|---|---|---|---|---|")
    for (ph, fl), s in sorted(summ.items()):
        o = s["occ"]
        occ = " / ".join(str(x) for x in [sum(v for k, v in o.items() if k <= 3)] + [o[k] for k in range(4, 9)])
        dr = s["drop"]["R"] + s["drop"]["F"]
        print(
            f"| {phases[ph]} | {fl} | {s['n']} | {s['retx']} | {occ} | {s['tie']['B']} / {s['tie']['A']} / {s['tie']['-']} "
            f"| {s['drop']['R']} / {s['drop']['F']} | {100 * dr / max(s['n'], 1):.2f}% |"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--htsim")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--conns", type=int, default=4)
    ap.add_argument("--port")
    ap.add_argument("--window", type=float, nargs=2, required=True, metavar=("T0", "T1"))
    ap.add_argument("--split", type=float, nargs="*", default=[])
    ap.add_argument("--ccsim-window", type=float, nargs=2, metavar=("T0", "T1"), help="ccsim's own (default --window)")
    ap.add_argument("--ccsim-split", type=float, nargs="*", help="ccsim's own (default --split)")
    ap.add_argument("--hop-ps", type=int, default=0)
    ap.add_argument("--arrival-first", action="store_true")
    ap.add_argument("--tie-ps", type=int, default=0)
    ap.add_argument("--ack-rate", help="ccsim's ack links' rate (default ccsim_ft.py's)")
    ap.add_argument("--skip-htsim", action="store_true", help="reuse OUTDIR's htsim run")
    ap.add_argument("--skip-ccsim", action="store_true", help="reuse OUTDIR's ccsim run (same options)")
    ap.add_argument("--htsim-only", action="store_true", help="run htsim and stop")
    a = ap.parse_args()
    a.ccsim_window = a.ccsim_window or a.window
    a.ccsim_split = a.ccsim_split if a.ccsim_split is not None else a.split
    a.tag = f"tie{a.tie_ps}" + ("-af" if a.arrival_first else "") + (f"-hop{a.hop_ps}" if a.hop_ps else "") + (f"-ack{a.ack_rate}" if a.ack_rate else "")
    if os.environ.get("CCSIM_ARRIVAL_SHUFFLE") == "1":
        a.tag += "-shuffle"
    os.makedirs(a.outdir, exist_ok=True)
    outdir = os.path.abspath(a.outdir)
    if not a.skip_htsim:
        htsim_run(a, outdir)
    if a.htsim_only:
        return 0
    given = htsim_paths.read(os.path.join(outdir, "htsim.log.paths"))
    sh = htsim_paths.shared(given)
    key = next(k for k in sh if f"{k[0]}->{k[1]}" == a.port) if a.port else sorted(sh)[0]
    if not a.skip_ccsim:
        ccsim_child(a, outdir, key)
    def phases_of(window, split):
        edges = [window[0], *split, window[1]]
        return [int(round(c * 1e12)) for c in split], [f"{x:g}-{y:g} s" for x, y in zip(edges, edges[1:], strict=False)]

    cuts, phases = phases_of(a.window, a.split)
    ccuts, cphases = phases_of(a.ccsim_window, a.ccsim_split)
    h = summarise(htsim_records(os.path.join(outdir, "htsim-stdout.txt")), cuts)
    crecs = ccsim_records(outdir, a.tag)
    c = summarise(crecs, ccuts)
    sb = since_bins(crecs, ccuts)
    print(f"seed {a.seed}, port {key[0]}->{key[1]} ({htsim_paths.htsim_queue(*key)}), ccsim {a.tag}")
    table("htsim", h, phases)
    table(f"ccsim ({a.tag})", c, cphases)
    print("\nccsim: arrivals by the time since the port's last departure")
    print("| phase | flow | " + " | ".join(name for _, name in SINCE) + " |")
    print("|---|---|" + "---|" * len(SINCE))
    for (ph, fl), x in sorted(sb.items()):
        print(f"| {cphases[ph]} | {fl} | " + " | ".join(str(x[name]) for _, name in SINCE) + " |")
    flows = json.load(open(os.path.join(outdir, f"ccsim-{a.tag}-flows.json")))
    print("\nccsim flows:", {k: v for k, v in flows.items() if any(k == fl for _, fl in c)})
    res = {
        "seed": a.seed,
        "port": f"{key[0]}->{key[1]}",
        "phases": phases,
        "htsim": {f"{phases[ph]} {fl}": s for (ph, fl), s in h.items()},
        "ccsim": {f"{cphases[ph]} {fl}": s for (ph, fl), s in c.items()},
        "ccsim_flows": flows,
    }
    with open(os.path.join(outdir, f"arrivals-{a.tag}.json"), "w") as f:
        json.dump(res, f, indent=1, default=dict)
    return 0


if __name__ == "__main__":
    sys.exit(main())
