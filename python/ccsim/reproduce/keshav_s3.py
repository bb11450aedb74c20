"""Keshav 1991, "Flow Control in High-Speed Networks with Long Delays", section 4.3.

Scenario 3: Scenario 2 with source 2's round trip doubled to 24 s
(``scenarios/keshav-s3.toml``). Table 4 and, beyond the paper (whose Figure 8 is the
topology, drawn in docs/reproductions/keshav.md), the windows of both sources for
JK/FCFS and the packets outstanding of both sources for PP/FQ.
"""

from __future__ import annotations

from pathlib import Path

from ccsim.reproduce import Progress, Report
from ccsim.reproduce._keshav_tandem import _S23, EXPLAIN_COMMON, Spec, paper_row
from ccsim.reproduce._keshav_tandem import reproduce as _reproduce
from ccsim.reproduce.scoreboard import Explain

DESCRIPTION = (
    "Keshav 1991, section 4.3, Scenario 3: Table 4 (G/FCFS, G/FQ, JK/FCFS, JK/FQ, PP/FQ), "
    "source 2 with a 24 s round trip"
)

# Table 4 as printed in our copy (no italics survive; we read the throughput/delay rows
# as (mean, sd) pairs as in Table 3; PP/FQ has empty sd cells for source 2). The loss /
# retransmission rows of G have six numbers under four heads: left out (see Table 3).
PAPER = {
    "G/FCFS": paper_row((0.82, 0.67, 0.05, 0.75, 32.01, 9.78, 114.26, 108.91), None),
    "G/FQ": paper_row((1.43, 0.49, 0.37, 0.48, 35.51, 7.05, 82.04, 91.36), None),
    "JK/FCFS": paper_row((1.03, 0.20, 0.31, 0.10, 14.75, 0.46, 39.09, 0.64), (0, 0, 0, 0)),
    "JK/FQ": paper_row((1.39, 0.05, 0.86, 0.38, 13.52, 0.41, 36.88, 0.29), (0, 0, 0, 0)),
    "PP/FQ": paper_row((1.73, 0.02, 1.64, None, 22.11, 3.48, 36.50, None), (0, 0, 0, 0)),
}
PAPER_NOTES = {
    "G/FCFS": "paper printed '0 0 0.03 0.02 0.43 0.72': columns ambiguous",
    "G/FQ": "paper printed '0 0.01 0.04 0.07 0.36 0.40': columns ambiguous",
}

EXPLAIN: list[Explain] = [
    Explain(
        r"JK/FQ", r"throughput [12]",
        "ours is near fair (1.87/1.81): our FQ does not single out the long-RTT source", _S23,
    ),
    *EXPLAIN_COMMON,
]  # fmt: skip

SPEC = Spec(
    scenario="keshav-s3",
    table="Table 4",
    paper=PAPER,
    paper_notes=PAPER_NOTES,
    explain=EXPLAIN,
    figures=[
        ("s3_jk_fcfs_windows.png", "JK/FCFS", ["ftp1.cwnd", "ftp2.cwnd"],
         "Scenario 3: JK/FCFS windows of sources 1 (12 s) and 2 (24 s)", None),
        ("s3_pp_fq_outstanding.png", "PP/FQ", ["ftp1.outstanding", "ftp2.outstanding"],
         "Scenario 3: PP/FQ packets outstanding of sources 1 (12 s) and 2 (24 s)", None),
        ("s3_pp_fq_per_probe_outstanding.png", "PP/FQ per-probe",
         ["ftp1.outstanding", "ftp2.outstanding"],
         "Scenario 3: PP/FQ (rate per probe) packets outstanding of sources 1 and 2", None),
    ],
)  # fmt: skip


def reproduce(out_dir: Path, progress: Progress) -> Report:
    return _reproduce(SPEC, out_dir, progress)
