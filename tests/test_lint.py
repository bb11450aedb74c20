"""The comment gate (tests/lint/comments.py) finds what it should, and the tree is clean."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "lint"))

import comments  # noqa: E402


def test_the_gate_flags_history_and_notes_outside_the_repository(tmp_path: Path) -> None:
    src = tmp_path / "crates" / "x" / "src"
    src.mkdir(parents=True)
    (src / "lib.rs").write_text(
        "// Faster since stop 22.\n"
        "// As design.md says.\n"
        "// Flows stop 5 s later; issue 3 pkts at once.\n"  # durations and counts are not history
        "fn f() {}\n"
    )
    found = comments.findings(tmp_path)
    assert [f.split(": ")[0] for f in found] == ["crates/x/src/lib.rs:1", "crates/x/src/lib.rs:2"], found


def test_the_repository_passes_the_comment_gate() -> None:
    assert comments.findings() == []
