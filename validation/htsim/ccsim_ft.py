"""htsim's fat-tree TCP experiment (experiment.py) in ccsim: one run, one seed.

    python ccsim_ft.py SEED OUT.json [--conns 16] [--acks instant|fabric] [--queue random|droptail|red|short] [--rto jk|linux]
        [--htsim-paths LOG.paths] [--ack-rate RATE] [--ssthresh-rule bsd|rfc5681] [--lattice exact|drift]

Run with the ccsim virtual environment (``import ccsim``). Writes each flow's throughput
over [0, 3 s] (htsim's last sample), the run's event count and the engine's wall time.

``--acks instant`` (default) is htsim's model: acks reach the sender at once. ccsim has no
such path, so each host gets a link to one extra router ``ack`` (0 s, 10 Tbps: a 40-byte
ack takes 32 ps a hop, two hops; ``--ack-rate`` sets that rate: ccsim rounds a
transmission up to a whole picosecond, so 1 ps a hop is the least); each flow's acks take
[to, ack, from] and its data the path drawn below, as htsim's source route. ``--acks
fabric`` drops the ack router and lets ccsim route: ``[scenario].routing = "ecmp"``
(each flow draws one of the fewest-hop paths from its own stream) with the acks on the
reverse path through the switches' 8-packet queues.

``--lattice exact`` (default, with ``--acks instant``) takes the ack router's two hops
(64 ps at 10 Tbps) off each ToR->host link, whose direction carries only the data to that
host, so that every round trip is a whole number of htsim's steps (1 us hops, 120 ns
packets) as in htsim, whose acks take no time: a flow's packets then meet the others' at
the same instants on every round trip. ``--lattice drift`` leaves the 64 ps on, and each
round trip moves a flow that far along the lattice (docs/performance.md, "The ack
detour's drift").

``--queue random`` (default) is htsim's RandomQueue: ccsim's ``random_drop`` port holds
7 packets besides the one being sent (htsim's 8 counted with it) and drops an arrival with
probability 0.1 once the waiting packets and the arrival are more than 4 (htsim: more than
5 of its 8 with the one being sent). ``--queue droptail``: the same port without the
random drop. ``red``
approximates that region with RED on the instantaneous queue (w_q = 1, 4 to 7 packets
waiting, max_p 0.3: the probability is 0, 0.1 and 0.2 at 4, 5 and 6 waiting, mean 0.1);
``short`` is the other bound, a drop-tail port of 4 waiting (htsim's early region always
dropping).

``--rto jk`` (default) is ccsim's Jacobson/Karels timer: one timed packet per round trip,
never a retransmitted one (Karn), so a timeout's doubling stays until a packet sent after
the go-back is acknowledged. ``--rto linux`` samples every advancing ack's timestamp echo,
retransmissions included, and each sample ends the backoff: htsim's TcpSrc, which
recomputes its timeout from every ack's echo (``tcp.cpp`` TcpSrc::receivePacket), is
nearer that one (docs/performance.md, "htsim's slow tail").

``--ssthresh-rule bsd`` (default) halves the window at a loss, as htsim's TcpSrc halves
its cwnd at a fast retransmit (``deflate_window``); on a timeout inside fast recovery
that is the window inflated by the duplicate acks, where htsim first deflates it to
min(ssthresh, FlightSize + 1 packet). ``rfc5681`` halves FlightSize and keeps the
recovery's ssthresh at such a timeout, nearer htsim there (docs/performance.md,
"Realisations of one draw").
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import sys
import time
from typing import Any

import ccsim
import htsim_paths
from ccsim import _ccsim
from experiment import (
    ACK,
    CONNS,
    HOP_DELAY,
    INITIAL_RTO,
    INITIAL_SSTHRESH,
    INITIAL_WINDOW,
    MIN_RTO,
    MSS,
    NODES,
    RATE,
    RUN_S,
    SAMPLE_S,
    SWITCH_BUFFER_PKTS,
    K,
    host_name,
    paths,
    permutation,
)

ACK_RATE = "10000Gbps"
HOST_QUEUE = "1000000pkt"  # htsim's host NIC queue never drops

QUEUES = {
    "droptail": ("fcfs", f"{SWITCH_BUFFER_PKTS - 1}pkt"),
    "red": (
        {"kind": "red", "w_q": 1.0, "min_th": "4pkt", "max_th": "7pkt", "max_p": 0.3, "mean_packet_size": f"{MSS}B"},
        f"{SWITCH_BUFFER_PKTS - 1}pkt",
    ),
    "short": ("fcfs", "4pkt"),
    "random": ({"kind": "random_drop", "threshold": "4pkt", "p": 0.1}, f"{SWITCH_BUFFER_PKTS - 1}pkt"),
}


def time_ps(t: str) -> int:
    """A time such as ``"1us"`` in whole picoseconds (the engine's own parser)."""
    return round(_ccsim.parse_time(t) * 1e12)


def ack_hop_ps(rate: str) -> int:
    """What one ack takes to cross a link of ``rate`` (``"10000Gbps"``), in whole
    picoseconds rounded up, as the engine rounds a transmission."""
    return max(1, -(-ACK * 8 * 10**12 // _ccsim.parse_rate(rate)))


def scenario(
    seed: int,
    acks: str = "instant",
    queue: str = "random",
    conns: int = CONNS,
    rto: str = "jk",
    given: list[tuple[int, int, list[str]]] | None = None,
    hop_delay: str = HOP_DELAY,
    ack_rate: str = ACK_RATE,
    ssthresh_rule: str = "bsd",
    lattice: str = "exact",
) -> tuple[dict, list]:
    """The scenario of one run (``Scenario.from_dict``'s input) and its flows [(src, dst,
    path or None)]. Host NICs queue without limit and without a discipline (fcfs), as
    htsim's FairPriorityQueue; switch ports as ``queue`` says. ``given``: the flows and
    their paths instead of the seed's draw (htsim_paths.read: an htsim run's own).
    ``hop_delay``: every switch and host link's delay (htsim's 1 us). ``ack_rate``: the
    rate of the ack router's links (``--acks instant``). ``ssthresh_rule``: the flows'
    (``--ssthresh-rule``). ``lattice``: ``exact`` takes the ack router's two hops off
    each ToR->host link so that a round trip stays on htsim's lattice of times, ``drift``
    leaves them on (``--lattice``)."""
    rng = random.Random(seed)
    pairs = [(s, d) for s, d, _ in given] if given else permutation(rng, conns=conns)
    given_path = {(s, d): p for s, d, p in given or ()}
    qdisc, buffer = QUEUES[queue]
    half = K // 2
    b = ccsim.Scenario.builder(
        "htsim-fat-tree-tcp", f"{RUN_S}s", seed=seed, routing="ecmp" if acks == "fabric" else None
    )
    b.defaults(data_size=f"{MSS}B", ack_size=f"{ACK}B", delayed_ack=False, sack=False, handshake=True)
    for n in range(NODES):
        b.add_host(host_name(n))
    for p in range(K):
        for i in range(half):
            b.add_router(f"e{p}-{i}")
        for j in range(half):
            b.add_router(f"a{p}-{j}")
    for j in range(half):
        for m in range(half):
            b.add_router(f"c{j}-{m}")
    if lattice not in ("exact", "drift"):
        raise ValueError(f"lattice {lattice!r}: give exact or drift")
    switch = {"rate": RATE, "delay": hop_delay, "qdisc": qdisc}
    host_delay: str | list[str] = hop_delay
    if lattice == "exact" and acks == "instant":
        # htsim's acks take no time; ccsim's cross the ack router, two hops. Those
        # picoseconds come off the ToR->host direction, which carries only the data to
        # that host (one flow's at most: a permutation), so that every round trip is a
        # whole number of htsim's steps (1 us hops, 120 ns packets).
        hop_ps = time_ps(hop_delay)
        host_delay = [f"{hop_ps}ps", f"{hop_ps - 2 * ack_hop_ps(ack_rate)}ps"]
    host_links: list[int] = []  # the first links: host <-> ToR
    for n in range(NODES):
        edge = f"e{n // (half * half)}-{(n // half) % half}"
        b.add_link(host_name(n), edge, buffer=[HOST_QUEUE, buffer], **{**switch, "delay": host_delay})
        host_links.append(len(host_links))
    for p in range(K):
        for i in range(half):
            for j in range(half):
                b.add_link(f"e{p}-{i}", f"a{p}-{j}", buffer=buffer, **switch)
        for j in range(half):
            for m in range(half):
                b.add_link(f"a{p}-{j}", f"c{j}-{m}", buffer=buffer, **switch)
    if acks == "instant":
        b.add_router("ack")
        for n in range(NODES):
            b.add_link(host_name(n), "ack", rate=ack_rate, delay="0s", buffer=HOST_QUEUE)
    params = {
        "initial_window": INITIAL_WINDOW,
        "initial_ssthresh": INITIAL_SSTHRESH,
        "ssthresh_rule": ssthresh_rule,
        "min_rto": MIN_RTO,
        "initial_rto": INITIAL_RTO,
    }
    if rto != "jk":
        params["rto"] = rto
    flows = []
    for src, dst in pairs:
        s, d = host_name(src), host_name(dst)
        fields = {}
        path = None
        if acks == "instant":
            choices = paths(src, dst)
            path = given_path.get((src, dst)) or choices[rng.randrange(len(choices))]
            fields = {"path": path, "ack_path": [d, "ack", s]}
        b.add_flow(f"f{src}-{dst}", s, d, cc="newreno", params=params, **fields)
        flows.append((src, dst, path))
    b.measure(interval="1s")
    d = b.to_dict()
    for i in host_links:
        d["links"][i]["qdisc"] = ["fcfs", qdisc]  # [host->ToR, ToR->host]
    return d, flows


def run(seed: int, **options: Any) -> dict:
    """One run of ``scenario(seed, **options)``: its settings (every argument of
    ``scenario`` but ``given``, defaults included), the flows' throughputs over [0,
    SAMPLE_S], the events and the timeouts."""
    d, flows = scenario(seed, **options)
    settings = inspect.signature(scenario).bind(seed, **options)
    settings.apply_defaults()
    t0 = time.perf_counter()
    r = ccsim.Scenario.from_dict(d).run()
    wall = time.perf_counter() - t0
    raw = r.raw
    upto = [iv for iv in raw["intervals"] if iv["end_s"] <= SAMPLE_S + 1e-9]
    delivered = {f["name"]: 0 for f in raw["flows"]}
    for iv in upto:
        for f in iv["flows"]:
            delivered[f["name"]] += f["delivered_pkts"]
    by_name = {f["name"]: f for f in raw["flows"]}
    tput = [delivered[f"f{s}-{d}"] * MSS * 8 / SAMPLE_S / 1e9 for s, d, _ in flows]
    return {
        **{k: v for k, v in settings.arguments.items() if k != "given"},
        "flows": [{"src": s, "dst": d, "path": p} for s, d, p in flows],
        "tput_gbps": tput,
        "events": raw["events"],
        "delivered_pkts": sum(f["delivered_pkts"] for f in raw["flows"]),
        "timeouts": sum(f["timeouts"] for f in raw["flows"]),
        "flow_timeouts": [by_name[f"f{s}-{d}"]["timeouts"] for s, d, _ in flows],
        "fast_retransmits": sum(f["fast_retransmits"] for f in raw["flows"]),
        "engine_wall_s": raw["wall_time_s"],
        "run_wall_s": wall,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("out")
    ap.add_argument("--acks", choices=["instant", "fabric"], default="instant")
    ap.add_argument("--queue", choices=sorted(QUEUES), default="random")
    ap.add_argument("--conns", type=int, default=CONNS, help="flows: htsim's -conns (default 16)")
    ap.add_argument("--rto", choices=["jk", "linux"], default="jk", help="the flows' retransmission timer")
    ap.add_argument("--htsim-paths", help="an htsim run's LOG.paths: its flows and paths (htsim_paths.py)")
    ap.add_argument("--hop-delay", default=HOP_DELAY, help="every link's delay (default htsim's 1us)")
    ap.add_argument(
        "--ack-rate",
        default=ACK_RATE,
        help="the ack router's links (--acks instant; default 10000Gbps: 32 ps a hop for an ack; "
        "320000Gbps: 1 ps, the least a hop takes)",
    )
    ap.add_argument(
        "--ssthresh-rule", choices=["bsd", "rfc5681"], default="bsd", help="the flows' ssthresh after a loss"
    )
    ap.add_argument(
        "--lattice",
        choices=["exact", "drift"],
        default="exact",
        help="exact (default): the ack router's two hops taken off each ToR->host link, so that every round "
        "trip stays on htsim's lattice of times; drift: each round trip 64 ps (two --ack-rate hops) off it",
    )
    a = ap.parse_args()
    given = htsim_paths.read(a.htsim_paths) if a.htsim_paths else None
    res = run(
        a.seed,
        acks=a.acks,
        queue=a.queue,
        conns=a.conns,
        rto=a.rto,
        given=given,
        hop_delay=a.hop_delay,
        ack_rate=a.ack_rate,
        ssthresh_rule=a.ssthresh_rule,
        lattice=a.lattice,
    )
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)
    print(
        f"ccsim seed {a.seed}: mean {sum(res['tput_gbps']) / len(res['tput_gbps']):.2f} Gbps, "
        f"{res['events']} events, {res['run_wall_s']:.2f} s -> {a.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
