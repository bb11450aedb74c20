"""The comment gate of `make lint`: comments and docstrings in the code cite only files in
the repository and carry no history (which belongs to git and docs/performance.md).

Flags, in the engine, the binding, the Python package, the tests and validation/:
references to notes outside the repository (``style.md``, ``design.md``) and to the
project's history (``stop 22``, ``issue 13``). Prints each as ``path:line: text`` and
exits 1 if there is any.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = ["crates", "python", "tests", "validation"]
SUFFIXES = {".rs", ".py", ".pyi"}
SKIP = {"tests/lint/comments.py", "tests/test_lint.py"}
PATTERNS = [
    (re.compile(r"\b(style|design)\.md\b"), "a note outside the repository"),
    (re.compile(r"\b(stop|issue)\s+\d+\b(?!\s*(s|ms|us|ns|ps|%|pkts?|packets?)\b)", re.I), "project history"),
]


def findings(root: Path = REPO) -> list[str]:
    out = []
    for top in ROOTS:
        for path in sorted((root / top).rglob("*")):
            rel = path.relative_to(root).as_posix()
            if path.suffix not in SUFFIXES or rel in SKIP or "/.venv/" in f"/{rel}" or "/target/" in f"/{rel}":
                continue
            for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for pattern, what in PATTERNS:
                    if pattern.search(line):
                        out.append(f"{rel}:{no}: {what}: {line.strip()}")
    return out


def main() -> int:
    found = findings()
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
