"""The case families beyond NewReno (CUBIC, the AQM family, DCTCP, BBR), run by both
simulators over several seeds (plain Python; imported by both sides).

The Internet families use cases.py's dumbbell

    sender_i --(100 Mbps, a_i)--> r1 --(10 Mbps, 50 ms, B packets)--> r2 --(100 Mbps, 1 ms)--> receiver_i

with a_i = 1 ms (104 ms round trip) or 105 ms for every second flow (312 ms, the 1:3
cases), 1000 B payload + 42 B of headers, acks 42 B, SACK on, timestamps off, one ack
per segment, minimum RTO 1 s, initial window 10. DCTCP uses a datacenter dumbbell
(40 Gbps access links of 5 us, a 10 Gbps bottleneck of 10 us: 40 us round trip) with
step marking at K packets.

Every case runs with SEEDS seeds; each flow starts at a uniform random time in
[0, jitter_s) drawn from the seed (JITTER_S = 1 s; DCTCP 10 ms). Measured over [warmup, duration]: per-flow goodput,
the mean sojourn of packets in the bottleneck queue (arrival at r1 to the start of
transmission on the bottleneck), Jain's index over the TCP flows.
"""

from __future__ import annotations

from cases import ACCESS_BPS, BDP_PKTS, DELAY_MS, HEADERS, PAYLOAD, RATE_BPS, WIRE, access_delay_ms

SEEDS = list(range(1, 21))  # the first 5 by default (Makefile SEEDS)
JITTER_S = 1.0
FAMILIES = ("cubic", "aqm", "dctcp", "bbr")

# The AQM family: one limit for every discipline on both sides (Linux's 1000 packets;
# ns-3's own defaults differ: CoDel 1500, FQ-CoDel 10240, PIE 25 packets).
AQM_LIMIT_PKTS = 1000
CBR_BPS = 1_000_000  # wire bits per second, 1042 B packets

# DCTCP's datacenter dumbbell.
DC_RATE_BPS = 10_000_000_000
DC_ACCESS_BPS = 40_000_000_000
DC_DELAY_US = 10.0
DC_ACCESS_US = 5.0
DC_K_PKTS = 65  # Alizadeh et al. 2010, section 3.3: K = 65 packets at 10 Gbps
DC_LIMIT_PKTS = 1000
DC_JITTER_S = 0.01  # 250 round trips of 40 us


def _internet(family: str, cc: str, n: int, rtt: str, qdisc: str = "none", cbr_bps: int = 0) -> dict:
    name = f"{family}: {n} flow{'s' if n > 1 else ''}, {rtt} RTT"
    if qdisc != "none":
        name = f"{family}: {qdisc}, {n} flows + CBR {cbr_bps / 1e6:g} Mbps"
    return {
        "name": name,
        "family": family,
        "cc": cc,
        "flows": n,
        "access_ms": [access_delay_ms(i, rtt) for i in range(n)],
        "access_bps": ACCESS_BPS,
        "rate_bps": RATE_BPS,
        "delay_us": DELAY_MS * 1000.0,
        "last_ms": 1.0,
        "buffer_pkts": AQM_LIMIT_PKTS if qdisc != "none" else BDP_PKTS,
        "qdisc": qdisc,
        "cbr_bps": cbr_bps,
        "duration_s": 60.0,
        "warmup_s": 10.0,
        "min_rto_s": 1.0,
        "jitter_s": JITTER_S,
    }


def cases(family: str) -> list[dict]:
    if family in ("cubic", "bbr"):
        return [_internet(family, family, n, rtt) for n in (1, 2, 8) for rtt in (("equal", "1:3") if n > 1 else ("equal",))]
    if family == "aqm":
        return [_internet("aqm", "cubic", 4, "equal", q, CBR_BPS) for q in ("codel", "fq_codel", "pie")]
    if family == "dctcp":
        return [
            {
                "name": f"dctcp: {n} flows, K = {DC_K_PKTS} pkts",
                "family": "dctcp",
                "cc": "dctcp",
                "flows": n,
                "access_ms": [DC_ACCESS_US / 1000.0] * n,
                "access_bps": DC_ACCESS_BPS,
                "rate_bps": DC_RATE_BPS,
                "delay_us": DC_DELAY_US,
                "last_ms": DC_ACCESS_US / 1000.0,
                "buffer_pkts": DC_LIMIT_PKTS,
                "qdisc": "red_step",
                "k_pkts": DC_K_PKTS,
                "cbr_bps": 0,
                "duration_s": 1.0,
                "warmup_s": 0.2,
                "min_rto_s": 1.0,
                "jitter_s": DC_JITTER_S,
            }
            for n in (2, 8)
        ]
    raise ValueError(f"unknown family {family!r}: one of {', '.join(FAMILIES)}")


__all__ = ["FAMILIES", "HEADERS", "JITTER_S", "PAYLOAD", "SEEDS", "WIRE", "cases"]
