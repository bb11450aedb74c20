"""The dumbbell cases both simulators run (plain Python; imported by both sides).

    sender_i --(100 Mbps, a_i)--> r1 --(10 Mbps, 50 ms, B packets, drop-tail)--> r2
             --(100 Mbps, 1 ms)--> receiver_i

Round trip without queueing: 2 (a_i + 51 ms) plus transmission times; a_i = 1 ms gives
104 ms, a_i = 105 ms gives 312 ms (the 1:3 cases: every second flow). B is 0.5 or 1
bandwidth-delay product of the 104 ms path in 1042 B packets (10 Mbps x 104 ms / 8336
bits = 125 packets). Wire sizes as in the issue: 1000 B payload + 42 B of headers
(IPv4 20, TCP 20 without options, PPP 2), acks 42 B. TCP: NewReno with classic
recovery, SACK off or on, timestamps off, one ack per segment, initial window 1
segment, minimum RTO 1 s, no limited transmit, unlimited initial ssthresh.
"""

from __future__ import annotations

RATE_BPS = 10_000_000
DELAY_MS = 50
ACCESS_BPS = 100_000_000
PAYLOAD = 1000
HEADERS = 42
WIRE = PAYLOAD + HEADERS
DURATION_S = 60.0
WARMUP_S = 10.0
BDP_PKTS = 125  # 10 Mbps x 104 ms / (1042 B x 8)


def access_delay_ms(i: int, rtt: str) -> float:
    """Sender i's access delay: 1 ms, or 105 ms for every second flow in the 1:3 cases."""
    return 105.0 if rtt == "1:3" and i % 2 == 1 else 1.0


def cases() -> list[dict]:
    out = []
    for sack in (False, True):
        for n in (1, 2, 8):
            for rtt in ("equal", "1:3") if n > 1 else ("equal",):
                for bdp in (0.5, 1.0):
                    out.append(
                        {
                            "name": f"{n} flow{'s' if n > 1 else ''}, {rtt} RTT, {bdp:g} BDP, SACK {'on' if sack else 'off'}",
                            "flows": n,
                            "rtt": rtt,
                            "buffer_pkts": round(bdp * BDP_PKTS),
                            "sack": sack,
                            "access_ms": [access_delay_ms(i, rtt) for i in range(n)],
                        }
                    )
    return out


def sawtooth_period(events_after_warmup: int) -> float | None:
    """Mean time between flow 0's loss events (a fast retransmit or a timeout) over
    [WARMUP_S, DURATION_S]: the start-up's slow-start overshoot is left out."""
    if events_after_warmup == 0:
        return None
    return (DURATION_S - WARMUP_S) / events_after_warmup
