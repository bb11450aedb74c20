"""Engine changes keep every reproduction's numbers bit for bit (tests/golden.py)."""

from __future__ import annotations

import json

from golden import GOLDEN, compare, record


def test_every_recorded_run_is_bit_identical_to_the_baseline():
    baseline = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert len(baseline) > 40
    problems = compare(baseline, record(baseline))
    assert not problems, "\n".join(problems[:40])
