"""Engine changes keep every reproduction's numbers bit for bit (tests/golden.py)."""

from __future__ import annotations

from golden import compare


def test_every_recorded_run_is_bit_identical_to_the_baseline(golden_recording):
    baseline, now, _ = golden_recording
    assert len(baseline) > 40
    problems = compare(baseline, now)
    assert not problems, "\n".join(problems[:40])
