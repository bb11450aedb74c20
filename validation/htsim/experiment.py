"""htsim's fat-tree TCP experiment (sim/datacenter/main_tcp.cpp in Broadcom/csg-htsim), its
parameters as that driver and the files it includes set them, and the random choices it
makes (plain Python: no ccsim, no htsim).

Where each value is set in htsim (paths relative to its sim/ directory):

| value | htsim source |
|---|---|
| k = 4, 16 hosts | `-nodes 16` (main_tcp.cpp's DEFAULT_NODES); FatTreeTopology::set_params: the smallest k with k^3/4 >= nodes |
| 16 flows, a permutation | `-conns 16`; ConnectionMatrix::setPermutation (datacenter/connection_matrix.cpp) |
| 100 Gbps every link | datacenter/main.h HOST_NIC 100000 (Mbps); main_tcp.cpp speedFromMbps(HOST_NIC) |
| 1 us every link | FatTreeTopology constructor (num_failed form): _hop_latency = timeFromUs(1) |
| switch ports: 8 packets, random drop | main_tcp.cpp memFromPkt(8), queue type RANDOM: RandomQueue (randomqueue.cpp), RANDOM_BUFFER 3 (main.h) |
| host NIC queue: unlimited | FairPriorityQueue (queue.cpp) only prints past its 1000 packets (FEEDER_BUFFER) |
| 1500 B packets, 40 B acks | network.cpp DEFAULTDATASIZE; tcppacket.h ACKSIZE |
| acks: no queue, no delay | main_tcp.cpp: routein holds only the TcpSrc |
| TCP | tcp.cpp TcpSrc: cwnd 10 MSS, ssthresh 100 MSS, NewReno recovery without SACK, every packet acked |
| RTO | tcp.cpp: srtt + 4 mdev from every ack, at least 250 ms, 3 s before a sample, doubled per timeout; TcpRtxTimerScanner every 10 ms |
| MPTCP, 1 subflow | COUPLED_EPSILON, epsilon 1 (mtcp.cpp): with one subflow the increase is Reno's, in expectation |
| 4 s run, samples at 0, 1, 2, 3 s | eventlist.setEndtime(timeFromSec(4)); TcpSinkLoggerSampling(timeFromMs(1000)) |
"""

from __future__ import annotations

import random

K = 4
NODES = K**3 // 4
CONNS = 16
RATE = "100Gbps"
RATE_BPS = 100e9
HOP_DELAY = "1us"
SWITCH_BUFFER_PKTS = 8  # htsim's count includes the packet being sent
RANDOM_BUFFER_PKTS = 3  # the top 3 packets of the 8: arrivals there dropped with p = 0.1
RANDOM_DROP_P = 0.1
MSS = 1500
ACK = 40
INITIAL_WINDOW = 10
INITIAL_SSTHRESH = 100
MIN_RTO = "250ms"
INITIAL_RTO = "3s"
RUN_S = 4
SAMPLE_S = 3  # the last throughput sample htsim writes (events at 4 s are not run)


def host_name(n: int) -> str:
    """htsim's host n (ToR n // (k/2), pod n // (k^2/4)) as ccsim's ``Scenario.fat_tree`` names it."""
    half = K // 2
    return f"h{n // (half * half)}-{(n // half) % half}-{n % half}"


def permutation(rng: random.Random, n: int = NODES, conns: int = CONNS) -> list[tuple[int, int]]:
    """ConnectionMatrix::setPermutation(conns): each host in turn draws its destination
    from those not yet drawn, never itself; then ``conns`` sources are drawn without
    replacement. htsim aborts (an assert) when the last host is left with only itself;
    here that draw is made again, which gives the distribution of htsim's runs that finish."""
    while True:
        left = list(range(n))
        to: dict[int, int] = {}
        for src in range(n):
            if left == [src]:
                break
            while True:
                pos = rng.randrange(len(left))
                if left[pos] != src:
                    break
            to[src] = left.pop(pos)
        if len(to) == n:
            break
    sources = list(range(n))
    pairs = []
    for _ in range(conns):
        src = sources.pop(rng.randrange(len(sources)))
        pairs.append((src, to[src]))
    return sorted(pairs)


def paths(src: int, dst: int) -> list[list[str]]:
    """Every fewest-hop path from host src to host dst (node names), in htsim's order
    (FatTreeTopology::get_bidir_paths): 1 under one ToR, k/2 within a pod, (k/2)^2 between pods."""
    half = K // 2
    sp, si = src // (half * half), (src // half) % half
    dp, di = dst // (half * half), (dst // half) % half
    s, d = host_name(src), host_name(dst)
    if (sp, si) == (dp, di):
        return [[s, f"e{sp}-{si}", d]]
    if sp == dp:
        return [[s, f"e{sp}-{si}", f"a{sp}-{j}", f"e{dp}-{di}", d] for j in range(half)]
    return [
        [s, f"e{sp}-{si}", f"a{sp}-{j}", f"c{j}-{m}", f"a{dp}-{j}", f"e{dp}-{di}", d]
        for j in range(half)
        for m in range(half)
    ]
