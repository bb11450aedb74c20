"""No import circles: in the Python package and between the engine's modules.

Python (python/ccsim): a module imports another when it executes an ``import`` of it,
at module level or inside a function; imports under ``if TYPE_CHECKING:`` are for
annotations only and never run, so they are not counted. ``from ccsim import _ccsim``
imports the compiled submodule ``_ccsim``, not the package.

Rust (crates/ccsim-engine/src): the top-level modules of the crate (``sim``, ``link``,
``cc``, ...; a directory counts as one module) and the paths ``crate::name`` their
code names outside ``#[cfg(test)]`` modules.

A circle is a set of modules that reach each other (a strongly connected component of
the graph). The circles the engine still has are listed in import-circles.txt next to
this file; the list may only shrink: a new circle fails, and so does a listed one that
is gone (delete its line). Run as a script it prints what fails and exits 1 if anything
does.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def python_graph(package: Path) -> dict[str, set[str]]:
    """Module name -> the package's modules it imports when run."""
    base = package.parent
    files = {}
    for p in sorted(package.rglob("*.py")):
        parts = p.relative_to(base).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        files[name] = p
    native = {".".join(p.relative_to(base).with_suffix("").parts) for p in package.rglob("*.pyi")}
    graph: dict[str, set[str]] = {m: set() for m in files}

    for mod, path in files.items():
        pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]

        def visit(node: ast.AST, mod: str = mod, pkg: str = pkg) -> None:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                for child in node.orelse:
                    visit(child)
                return
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                where = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    where = ".".join(up + ([where] if where else []))
                subs = [f"{where}.{a.name}" for a in node.names]
                targets = [s for s in subs if s in files]
                if any(s not in files and s not in native for s in subs):
                    targets.append(where)
            for t in targets:
                # `import a.b.c` runs a, a.b and a.b.c; count the deepest module we know.
                while t and t not in files:
                    t = t.rpartition(".")[0]
                if t and t != mod:
                    graph[mod].add(t)
            for child in ast.iter_child_nodes(node):
                visit(child)

        visit(ast.parse(path.read_text(), str(path)))
    return graph


_CFG_TEST = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+\w+\s*\{")


def _strip_test_modules(text: str) -> str:
    """The source without its inline `#[cfg(test)] mod x { ... }` blocks and comments."""
    text = re.sub(r"//[^\n]*", "", text)
    out, i = [], 0
    for m in _CFG_TEST.finditer(text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def rust_graph(src: Path) -> dict[str, set[str]]:
    """Top-level module -> the top-level modules its code names as `crate::name`."""
    mods = {p.stem for p in src.glob("*.rs") if p.stem not in ("lib", "main")}
    mods |= {p.name for p in src.iterdir() if p.is_dir()}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    # Names the crate root re-exports (`pub use base::{time, units};`) count as the
    # module they come from.
    alias = {m: m for m in mods}
    lib = src / "lib.rs"
    root = lib.read_text() if lib.exists() else ""
    for source, names in re.findall(r"\buse\s+(\w+)::\{([^}]*)\}", root):
        for name in re.findall(r"\w+", names):
            if source in mods:
                alias.setdefault(name, source)
    for source, name in re.findall(r"\buse\s+(\w+)::(\w+)\s*;", root):
        if source in mods:
            alias.setdefault(name, source)
    for p in src.rglob("*.rs"):
        rel = p.relative_to(src)
        mod = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        if mod not in graph:
            continue
        if len(rel.parts) > 1 and rel.stem in ("tests", "sizes"):
            continue  # test-only files (declared under #[cfg(test)])
        code = _strip_test_modules(p.read_text())
        names = re.findall(r"\bcrate::(\w+)", code)
        # `use crate::{a, b::c}`
        for group in re.findall(r"\bcrate::\{([^}]*)\}", code):
            names += re.findall(r"(?:^|,)\s*(\w+)", group)
        for name in names:
            target = alias.get(name)
            if target is not None and target != mod:
                graph[mod].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def strong(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(1000, 10 * len(graph)))
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return sorted(out)


def describe(graph: dict[str, set[str]], comp: list[str]) -> str:
    edges = [f"{a} -> {b}" for a in comp for b in sorted(graph[a]) if b in comp]
    return "{" + ", ".join(comp) + "}: " + "; ".join(edges)


ALLOWLIST = Path(__file__).with_name("import-circles.txt")


def allowed(path: Path = ALLOWLIST) -> set[str]:
    """The listed circles, each as "engine: a, b, c" (modules sorted)."""
    lines = path.read_text().splitlines() if path.exists() else []
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def findings(root: Path = ROOT, allow: set[str] | None = None) -> list[str]:
    allow = allowed() if allow is None else allow
    found: dict[str, str] = {}
    py = python_graph(root / "python" / "ccsim")
    found |= {f"python: {', '.join(c)}": describe(py, c) for c in circles(py)}
    rs = rust_graph(root / "crates" / "ccsim-engine" / "src")
    found |= {f"engine: {', '.join(c)}": describe(rs, c) for c in circles(rs)}
    out = [f"import circle {key.split(':')[0]} {edges}" for key, edges in found.items() if key not in allow]
    out += [f"{ALLOWLIST.name}: '{key}' is no longer a circle; delete the line" for key in sorted(allow - set(found))]
    return out


if __name__ == "__main__":
    found = findings()
    for line in found:
        print(line)
    sys.exit(1 if found else 0)
