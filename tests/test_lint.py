"""The comment gate (tests/lint/comments.py) and the import gate (tests/lint/imports.py) find
what they should, and the tree passes both."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "lint"))

import comments  # noqa: E402
import imports  # noqa: E402


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


def test_the_import_gate_finds_circles_and_ignores_annotations(tmp_path: Path) -> None:
    pkg = tmp_path / "python" / "ccsim"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "_ccsim.pyi").write_text("")
    (pkg / "a.py").write_text("from ccsim import _ccsim\nfrom ccsim.b import f\n")
    (pkg / "b.py").write_text("def f():\n    from ccsim import a\n")  # lazy: still a circle
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ccsim import a\n")
    (pkg / "d.py").write_text("from ccsim import c\n")
    src = tmp_path / "crates" / "ccsim-engine" / "src"
    (src / "net").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod net; pub mod sim; pub mod time;\n")
    (src / "net" / "mod.rs").write_text("use crate::time::T;\n")
    (src / "net" / "pipe.rs").write_text("use crate::{sim::Sim, time};\n")
    (src / "sim.rs").write_text("use crate::net;\n#[cfg(test)]\nmod tests {\n    use crate::time;\n}\n")
    (src / "time.rs").write_text("// crate::sim in a comment\n#[cfg(test)]\nmod tests {\n    use crate::sim;\n}\n")
    found = imports.findings(tmp_path, allow=set())
    assert found == [
        "import circle python {ccsim.a, ccsim.b}: ccsim.a -> ccsim.b; ccsim.b -> ccsim.a",
        "import circle engine {net, sim}: net -> sim; sim -> net",
    ], found
    # An allowed circle passes; an allowed one that is gone is reported.
    found = imports.findings(tmp_path, allow={"python: ccsim.a, ccsim.b", "engine: net, sim", "engine: sim, time"})
    assert found == ["import-circles.txt: 'engine: sim, time' is no longer a circle; delete the line"], found


def test_the_repository_passes_the_import_gate() -> None:
    assert imports.findings() == []


def test_the_import_gate_follows_the_crate_root_s_re_exports(tmp_path: Path) -> None:
    (tmp_path / "python" / "ccsim").mkdir(parents=True)
    (tmp_path / "python" / "ccsim" / "__init__.py").write_text("")
    src = tmp_path / "crates" / "ccsim-engine" / "src"
    (src / "base").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod base;\npub mod net;\npub use base::{time, units};\n")
    (src / "base" / "mod.rs").write_text("pub mod time;\n")
    (src / "base" / "time.rs").write_text("use crate::net::Pipe;\n")
    (src / "net.rs").write_text("use crate::time::SimTime;\n")  # the re-export: net -> base
    assert imports.findings(tmp_path, allow=set()) == ["import circle engine {base, net}: base -> net; net -> base"]
