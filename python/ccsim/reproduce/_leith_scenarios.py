"""The scenario files of the McCullagh & Leith reproduction, as code.

``scenarios/leith-100ms.toml`` and ``scenarios/leith-mixed.toml`` are 500-receiver
dumbbells: too long to write by hand, so they are written by :func:`dumbbell` (and a test
checks that the committed files are exactly what it writes). Regenerate them with::

    python -m ccsim.reproduce._leith_scenarios

(it writes the package's copies, ``python/ccsim/scenarios/``, and those at the root,
``scenarios/``; a directory given as argument is written instead).

The layout (docs/reproductions/leith.md says why):

    s --1 Gbps-- r1 --10 Mbps, buffer-- r2 --1 Gbps, RTT_i/2-- d_i   (i = 1..500)

One sender host (the iperf client), the bottleneck, and one receiver per flow behind its
own link carrying the flow's propagation delay (RTT_i/2 each way). The delay sits after
the bottleneck, as a dummynet pipe applies its delay after its bandwidth queue: every
flow's SYN reaches the bottleneck before any data, so each flow measures its base RTT.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

# Flow RTTs of the mixed dumbbell: uniform in [20, 200] ms, drawn once with this seed.
MIXED_SEED = 1
MAX_FLOWS = 500
# The bottleneck buffer of every dumbbell figure: 375000 bytes (250 packets of 1500 B,
# 300 ms at 10 Mbps), a byte limit as a dummynet queue given in Kbytes.
BUFFER = "375000B"


def mixed_rtts_ms(n: int = MAX_FLOWS, seed: int = MIXED_SEED) -> list[float]:
    """Flow i's RTT (ms) in the mixed dumbbell: uniform in [20, 200], seeded."""
    rng = random.Random(seed)
    return [round(rng.uniform(20.0, 200.0), 3) for _ in range(n)]


def dumbbell(name: str, rtts_ms: list[float], description: str, count: int = 80) -> str:
    """A dumbbell scenario with one receiver (and one propagation delay) per flow."""
    receivers = [f"d{i + 1}" for i in range(len(rtts_ms))]
    quoted = ", ".join(f'"{d}"' for d in receivers)
    out = [
        "# McCullagh & Leith, 'Delay-based congestion control: sampling and correlation",
        "# issues revisited': the testbed dumbbell of sections V-B to V-F. Written by",
        "# python/ccsim/reproduce/_leith_scenarios.py; docs/reproductions/leith.md explains it.",
        "",
        "[scenario]",
        f'name = "{name}"',
        f'description = "{description}"',
        'duration = "250s"',
        "",
        "[defaults]",
        'cc = "delay_aimd"',
        'data_size = "1500B"        # IP packets of a 1500-byte MTU (1448-byte payload)',
        'ack_size = "52B"           # TCP/IP header with timestamps',
        "sack = true",
        "handshake = true           # the SYN gives each flow its base RTT",
        'start_jitter = "10ms"      # all flows start together (iperf -P), seeded order',
        "",
        "[nodes]",
        f'hosts = ["s", {quoted}]',
        'routers = ["r1", "r2"]',
        "",
        "[[links]]",
        'between = ["s", "r1"]',
        'rate = "1Gbps"',
        'buffer = "10000pkt"',
        "",
        "[[links]]",
        'name = "bottleneck"',
        'between = ["r1", "r2"]',
        'rate = "10Mbps"',
        f'buffer = "{BUFFER}"',
    ]
    for d, rtt in zip(receivers, rtts_ms, strict=True):
        out += [
            "",
            "[[links]]",
            f'between = ["r2", "{d}"]',
            'rate = "1Gbps"',
            f'delay = "{rtt / 2:g}ms"',
            'buffer = "10000pkt"',
        ]
    out += [
        "",
        "[[flows]]",
        'name = "f"',
        f"count = {count}",
        'from = "s"',
        f"to = [{quoted}]",
        "[flows.params]             # valid for delay_aimd and reno (Linux 2.6.23 values)",
        "initial_window = 3",
        'min_rto = "200ms"',
        'max_rto = "120s"',
        'rto = "linux"',
        "",
        "[[phases]]",
        'name = "steady"',
        'start = "50s"',
        'end = "250s"',
        "",
        "[measure]",
        'start = "50s"',
        "delays = true",
        "windows = true",
        "",
    ]
    return "\n".join(out)


def files() -> dict[str, str]:
    """File name -> text of every generated scenario file."""
    return {
        "leith-100ms.toml": dumbbell(
            "leith-100ms",
            [100.0] * MAX_FLOWS,
            "McCullagh & Leith: 10 Mbps dumbbell, every flow's RTT 100 ms (Figs. 6a, 7a, 8, 9)",
        ),
        "leith-mixed.toml": dumbbell(
            "leith-mixed",
            mixed_rtts_ms(),
            "McCullagh & Leith: 10 Mbps dumbbell, flow RTTs uniform in 20-200 ms "
            "(Figs. 4-5, 6b, 7b, 10, 14)",
        ),
    }


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        targets = [Path(argv[1])]
    else:
        package = Path(__file__).resolve().parent.parent / "scenarios"
        targets = [package, package.parent.parent.parent / "scenarios"]
    for target in targets:
        for name, text in files().items():
            (target / name).write_text(text, encoding="utf-8")
            print(f"wrote {target / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
