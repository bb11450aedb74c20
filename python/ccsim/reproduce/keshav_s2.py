"""Keshav 1991, "Flow Control in High-Speed Networks with Long Delays", section 4.2.

Scenario 2: two FTP sources cross three tandem bottlenecks (10 pkt/s, 2 s each) with four
Poisson sources (2 pkt/s each) entering at every bottleneck; 120 buffers per switch, PP
window limit 60 (``scenarios/keshav-s2.toml``). Table 3 (throughput, delay, loss and
retransmission rates per FTP source with standard deviations over sub-intervals) and
Figures 5-7 (JK/FCFS and JK/FQ windows, PP/FQ packets outstanding of source 1). The
topology is our reconstruction; see docs/reproductions/keshav.md.
"""

from __future__ import annotations

from pathlib import Path

from ccsim.reproduce import Progress, Report
from ccsim.reproduce._keshav_tandem import EXPLAIN_COMMON, Spec, paper_row
from ccsim.reproduce._keshav_tandem import reproduce as _reproduce
from ccsim.reproduce.scoreboard import Explain

DESCRIPTION = (
    "Keshav 1991, section 4.2, Scenario 2: Table 3 (G/FCFS, G/FQ, JK/FCFS, JK/FQ, PP/FQ) "
    "and Figures 5-7 (JK windows, PP outstanding)"
)

# Table 3 as printed in our copy. Throughput/delay: (mean, sd) for throughput 1, 2 and
# delay 1, 2 (the italic numbers are the standard deviations). Loss/retransmission: the
# printed rows have six numbers under four column heads; we read them only where every
# number is zero (or zero means with italic deviations), and leave the G rows out.
PAPER = {
    "G/FCFS": paper_row((0.02, 0.52, 1.00, 0.59, 17.00, 22.94, 35.43, 7.51), None),
    "G/FQ": paper_row((1.10, 0.48, 0.21, 0.13, 41.73, 11.05, 92.22, 56.65), None),
    "JK/FCFS": paper_row((0.79, 0.06, 0.82, 0.12, 16.37, 1.06, 16.59, 1.04), (0, 0, 0, 0)),
    "JK/FQ": paper_row((1.62, 0.16, 1.72, 0.10, 13.53, 0.82, 16.41, 4.11), (0, 0, 0, 0)),
    "PP/FQ": paper_row((1.70, 0.02, 1.72, 0.01, 16.64, 4.97, 19.58, 4.37), (0, 0, 0, 0)),
}
PAPER_NOTES = {
    "G/FCFS": "paper printed '0.05 0.10 0.31 0.47 0.12 0.22': columns ambiguous",
    "G/FQ": "paper printed '0.02 0.02 0.03 0.02 0.06 0.01': columns ambiguous",
}

EXPLAIN: list[Explain] = [
    *EXPLAIN_COMMON,
]  # fmt: skip

SPEC = Spec(
    scenario="keshav-s2",
    table="Table 3",
    paper=PAPER,
    paper_notes=PAPER_NOTES,
    explain=EXPLAIN,
    figures=[
        ("figure5_jk_fcfs_window.png", "JK/FCFS", ["ftp1.cwnd"],
         "Scenario 2: JK/FCFS window of source 1 (cf. Keshav 1991, Figure 5)", None),
        ("figure6_jk_fq_window.png", "JK/FQ", ["ftp1.cwnd"],
         "Scenario 2: JK/FQ window of source 1 (cf. Keshav 1991, Figure 6)", None),
        ("figure7_pp_fq_outstanding.png", "PP/FQ", ["ftp1.outstanding"],
         "Scenario 2: PP/FQ packets outstanding of source 1, first 100 round trips "
         "(cf. Keshav 1991, Figure 7)", (0.0, 100.0)),
        ("figure7_pp_fq_per_probe_outstanding.png", "PP/FQ per-probe", ["ftp1.outstanding"],
         "Scenario 2: PP/FQ (rate per probe) packets outstanding of source 1, first 100 "
         "round trips (cf. Figure 7)", (0.0, 100.0)),
    ],
)  # fmt: skip


def reproduce(out_dir: Path, progress: Progress) -> Report:
    return _reproduce(SPEC, out_dir, progress)
