"""Instruction counts of the engine's run loop on the bench dumbbell: the structural
guard of the speed goals (today's algorithms at most 1.3 times Reno on drop-tail per
delivered packet; speed is guarded by structure, never by time). At 10^4 flows, where
the per-flow state outgrows the caches, the first-level cache misses per delivered
packet too: the cache lines a round trip reaches (docs/performance.md, "The cache lines
of a round trip").

Each case runs ``_ccsim.bench`` (the release module ``make`` builds, as ``ccsim bench``
runs it) under valgrind's callgrind, counting only ``Simulation::run_slice`` and what it
calls: the run, not the scenario's build, the results' hand-off or Python. Counts are
exact for a given build, so the bounds below are the counts measured when they were set
plus a margin for code placement (about 1 %; docs/performance.md, "Instruction counts
in CI"). A change that moves a count past its bound fails here: measure it
(``callgrind`` on ``examples/bench``, docs/performance.md) and either win the
instructions back or move the bound with the measurement in the same commit.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

# 100 flows, 100 Mbit/s, 10 s simulated: the bench of docs/performance.md.
FLOWS, RATE, SECONDS = 100, 100_000_000, 10.0

# Instructions of the run loop per delivered packet, Reno over drop-tail: the reference
# (1714.5 when set).
RENO_MAX = 1735.0

# Each case's bound on its ratio to Reno's count in the same build, with the ratio when
# the bound was set. The goal is 1.3 at most; FQ-CoDel's run loop alone stands just
# above it (docs/performance.md, "Instruction counts in CI"), and BBR's bound is blocked
# by its own traffic ("BBR's bound").
CASES = {
    # name: (qdisc, cc, sack, bound)  # ratio when set
    "fq_codel": ("fq_codel", "reno", False, 1.315),  # 1.3014
    "codel": ("codel", "reno", False, 1.24),  # 1.2283
    "pie": ("pie", "reno", False, 1.25),  # 1.2379
    "cubic": (None, "cubic", False, 1.149),  # 1.1371
    "dctcp": (None, "dctcp", False, 1.167),  # 1.1552
    "bbr": (None, "bbr", False, 2.015),  # 1.9928
    "reno_sack": (None, "reno", True, 1.149),  # 1.1374
    "bbr_sack": (None, "bbr", True, 2.815),  # 2.7844
}

# 10^4 flows, 1 Gbit/s, 3 s simulated: run-loop instructions and first-level misses
# (reads and writes) per delivered packet, Reno over drop-tail, with their bounds (about
# 1 % and 2 % above the counts when set: 2597.9 and 17.45; the misses move by up to
# 0.5 % with where the interpreter's own memory puts the engine's).
SCALE = (10_000, 1_000_000_000, 3.0)
SCALE_INSTRUCTIONS_MAX = 2625.0
SCALE_MISSES_MAX = 17.8
# The simulated caches, fixed so that the count does not depend on the machine: 32 KiB
# first-level caches of 8 ways (the first level's sets lie within a page, so where the
# allocator puts a value moves no count much), a 32 MiB last level; 64-byte lines.
CACHES = ["--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=33554432,16,64"]

VALGRIND = shutil.which("valgrind")
pytestmark = pytest.mark.skipif(VALGRIND is None, reason="valgrind not installed (make test installs it)")

PROGRAM = """
import json, sys
from ccsim import _ccsim
qdisc = sys.argv[1] or None
out = json.loads(_ccsim.bench({flows}, {rate}, {seconds}, 1, qdisc, cc=sys.argv[2], sack=sys.argv[3] == "1"))
print("delivered", out["delivered_pkts"])
"""


def run_loop_counts(
    qdisc: str | None, cc: str, sack: bool, tmp: str, scale=(FLOWS, RATE, SECONDS), caches=()
) -> tuple[list[int], int]:
    """The events callgrind counted in ``Simulation::run_slice`` (inclusive: the
    instructions first, then with ``caches`` the data reads, writes and cache misses,
    in its order) and the packets delivered."""
    flows, rate, seconds = scale
    program = PROGRAM.format(flows=flows, rate=rate, seconds=seconds)
    proc = subprocess.run(
        [
            VALGRIND,
            "--tool=callgrind",
            *caches,
            f"--callgrind-out-file={tmp}",
            "--toggle-collect=ccsim_engine::sim::Simulation::run_slice",
            sys.executable,
            "-c",
            program,
            qdisc or "",
            cc,
            "1" if sack else "0",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    collected = re.search(r"Collected : ([\d ]+)", proc.stderr)
    delivered = re.search(r"^delivered (\d+)$", proc.stdout, re.M)
    assert collected and delivered, (proc.stdout, proc.stderr[-2000:])
    return [int(x) for x in collected.group(1).split()], int(delivered.group(1))


def run_loop_per_packet(qdisc: str | None, cc: str, sack: bool, tmp: str) -> float:
    """Instructions of ``Simulation::run_slice`` (inclusive) per delivered packet."""
    counts, delivered = run_loop_counts(qdisc, cc, sack, tmp)
    return counts[0] / delivered


def test_run_loop_instructions_per_delivered_packet_stay_within_their_bounds(tmp_path):
    names = ["reno", *CASES]
    specs = {"reno": (None, "reno", False), **{k: v[:3] for k, v in CASES.items()}}
    with ThreadPoolExecutor(max_workers=2) as pool:
        counts = dict(
            zip(
                names,
                pool.map(lambda n: run_loop_per_packet(*specs[n], str(tmp_path / f"{n}.out")), names),
                strict=True,
            )
        )
    reno = counts["reno"]
    report = ", ".join(f"{n} {c:.1f} ({c / reno:.4f})" for n, c in counts.items())
    assert reno <= RENO_MAX, f"Reno's run loop: {reno:.1f} instructions a packet > {RENO_MAX}; {report}"
    # The counts mean something: with no work the loop would not reach Reno's order.
    assert reno > 0.8 * RENO_MAX, report
    over = {n: counts[n] / reno for n, (*_, bound) in CASES.items() if counts[n] / reno > bound}
    assert not over, f"ratios to Reno over their bounds: {over}; {report}"


def test_at_ten_thousand_flows_the_run_loop_stays_within_its_instructions_and_cache_misses(tmp_path):
    counts, delivered = run_loop_counts(None, "reno", False, str(tmp_path / "scale.out"), SCALE, CACHES)
    # callgrind's order with the cache simulation: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw.
    assert len(counts) == 9, counts
    instructions = counts[0] / delivered
    misses = (counts[4] + counts[5]) / delivered
    report = f"{instructions:.1f} instructions and {misses:.2f} first-level misses a packet ({delivered} delivered)"
    assert instructions <= SCALE_INSTRUCTIONS_MAX, report
    assert misses <= SCALE_MISSES_MAX, report
    # The counts mean something: the run delivers packets, and at this scale a packet's
    # per-flow state is not in the first level (below 100 flows it is: about 5 a packet).
    assert delivered > 200_000 and instructions > 0.8 * SCALE_INSTRUCTIONS_MAX and misses > 12, report
