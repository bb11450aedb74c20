"""Documentation that runs: the code blocks of the user-facing docs, executed as written.

For each of ``DOCS`` the fenced code blocks are extracted and run in order, in a fresh
directory laid out like a checkout as the docs assume it (``scenarios/``,
``tests/data/`` and ``.venv`` link to this repository's and this interpreter's; ``out/``
starts empty):

- ```` ```python ````: executed in one namespace per document, in order, as if pasted
  into one Python session;
- ```` ```sh ````: each command (a line, with ``\\`` continuations joined) run by bash,
  with ``.venv/bin`` first on PATH (so ``ccsim`` is this build's); it must exit 0;
- ```` ```toml ````: parsed; a block with a ``[scenario]`` table is a whole scenario file
  and must also pass the engine's check;
- a fence without a language (or ``text``): output samples and command synopses, not run.
  Any other language fails the test, so no new kind of block goes unchecked by accident.

A block that cannot run here (a full reproduction, ns-3, a cluster, a build) starts with
the visible line ``# not run by the tests: <reason>``; it is skipped, and it must give
its reason.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import ccsim
import pytest
from conftest import REPO

DOCS = (
    "README.md", "docs/cli.md", "docs/scenario-format.md", "docs/sweeps.md", "docs/extending.md",
    "docs/python-cc.md", "docs/gym.md",
)  # fmt: skip
SKIP_MARK = "# not run by the tests:"
NOT_RUN = ("", "text")  # output samples and synopses
RUN = ("python", "sh", "toml")
# Rust blocks are compiled and run by the engine's doctests (`cargo test -p ccsim-engine
# --doc`), which include these documents (crates/ccsim-engine/src/lib.rs).
DOCTESTED = {"docs/extending.md": "rust"}
SHELL_TIMEOUT_S = 300

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)[^`]*$")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int  # line number of the block's first line of code (1-based)
    lang: str
    text: str

    @property
    def skip_reason(self) -> str | None:
        first = self.text.lstrip("\n").split("\n", 1)[0].strip()
        if first.startswith(SKIP_MARK):
            return first[len(SKIP_MARK) :].strip()
        return None

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def extract_blocks(markdown: str, doc: str = "<doc>") -> list[Block]:
    """The fenced code blocks of ``markdown``, in order (CommonMark fences: a closing fence
    is the same character, at least as long; an unclosed block runs to the end)."""
    blocks = []
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m["indent"]), m["fence"], m["lang"]
        body = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                break
            line = lines[j]
            body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
            j += 1
        blocks.append(Block(doc, i + 2, lang.lower(), "\n".join(body) + "\n"))
        i = j + 1
    return blocks


def shell_commands(block: Block) -> list[tuple[int, str]]:
    """The commands of a shell block with their line numbers: lines ending in ``\\`` are
    joined with the next (kept as written: bash reads the continuation); blank and
    comment-only lines are not commands."""
    commands: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for offset, line in enumerate(block.text.split("\n")):
        if not pending:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            start = block.line + offset
        pending.append(line)
        if line.endswith("\\"):
            continue
        commands.append((start, "\n".join(pending).strip()))
        pending = []
    if pending:
        commands.append((start, "\n".join(pending).strip()))
    return commands


def is_whole_scenario(doc: dict) -> bool:
    return isinstance(doc.get("scenario"), dict)


# The extraction itself, on hand-written markdown ------------------------------------------

SAMPLE = """\
# Title

```sh
# not run by the tests: needs a cluster
dask scheduler &
```

Text with ``` inline.

```python
x = 1
```

````
```python
not a block of its own
```
````

- a list item:

  ```sh
  ccsim run a.toml \\
      --seed 2   # a comment
  # only a comment
  ccsim list
  ```

```toml
[scenario]
name = "x"
"""


def test_extract_blocks_finds_fences_languages_and_lines():
    blocks = extract_blocks(SAMPLE, "s.md")
    assert [(b.lang, b.line) for b in blocks] == [
        ("sh", 4), ("python", 11), ("", 15), ("sh", 23), ("toml", 30),
    ]  # fmt: skip
    assert blocks[0].skip_reason == "needs a cluster"
    assert [b.skip_reason for b in blocks[1:]] == [None] * 4
    assert blocks[1].text == "x = 1\n"
    assert blocks[2].text == "```python\nnot a block of its own\n```\n"
    assert blocks[4].text == '[scenario]\nname = "x"\n\n'  # unclosed: to the end


def test_shell_commands_join_continuations_and_drop_comments():
    block = extract_blocks(SAMPLE, "s.md")[3]
    assert shell_commands(block) == [
        (23, "ccsim run a.toml \\\n    --seed 2   # a comment"),
        (26, "ccsim list"),
    ]


# The documents ------------------------------------------------------------------------------


def checkout_like(root: Path) -> Path:
    """``root`` laid out as the docs expect the repository root to be, with ``out/``
    absent: scenario files, examples, test data, and ``.venv`` (this interpreter's
    environment)."""
    (root / "scenarios").symlink_to(REPO / "scenarios", target_is_directory=True)
    (root / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    (root / "tests").mkdir()
    (root / "tests" / "data").symlink_to(REPO / "tests" / "data", target_is_directory=True)
    (root / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return root


def shell_env(root: Path) -> dict[str, str]:
    env = dict(os.environ, PATH=f"{root / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    env.pop("CCSIM_DEBUG", None)
    return env


def run_shell(block: Block, root: Path, timings: list[tuple[str, float]]) -> None:
    for line, command in shell_commands(block):
        start = time.perf_counter()
        status, stdout, stderr = bash(command, root)
        seconds = time.perf_counter() - start
        timings.append((f"{block.doc}:{line} {command.splitlines()[0]}", seconds))
        assert status == 0, (
            f"{block.doc}:{line}: `{command}` exited with status {status}\n"
            f"stdout:\n{stdout[-3000:]}\nstderr:\n{stderr[-3000:]}"
        )


def bash(command: str, root: Path, timeout: float = SHELL_TIMEOUT_S) -> tuple[int | str, str, str]:
    """Run ``command`` with bash in ``root``: its status (or why it has none), stdout and
    stderr. Output goes to files, not pipes, and whatever the command left running in
    the background is killed when bash returns, so such a command cannot hang the
    tests (it needs the skip mark)."""
    with open(root / ".stdout", "w+") as out, open(root / ".stderr", "w+") as err:
        proc = subprocess.Popen(
            ["bash", "-c", command], cwd=root, env=shell_env(root), stdin=subprocess.DEVNULL,
            stdout=out, stderr=err, start_new_session=True,
        )  # fmt: skip
        status: int | str
        try:
            status = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            status = f"none: still running after {timeout:g} s"
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        out.seek(0)
        err.seek(0)
        return status, out.read(), err.read()


def run_python(block: Block, namespace: dict, timings: list[tuple[str, float]]) -> None:
    # Padded so that a traceback names the document's own line.
    code = compile("\n" * (block.line - 1) + block.text, str(REPO / block.doc), "exec")
    start = time.perf_counter()
    exec(code, namespace)
    timings.append((f"{block.where} python", time.perf_counter() - start))


def check_toml(block: Block) -> None:
    try:
        doc = tomllib.loads(block.text)
    except tomllib.TOMLDecodeError as exc:
        raise AssertionError(f"{block.where}: not TOML: {exc}") from None
    if is_whole_scenario(doc):
        ccsim.loads(block.text, source=block.where).check()


def readme_sweep_has_real_intervals(namespace: dict) -> None:
    """README's sweep promises a 95% confidence interval across seeds: every group has
    its 10 seeds and an interval of finite, non-zero width (the start jitter makes the
    seeds differ)."""
    summary = namespace["sweep"].summary("goodput_pps")
    assert len(summary) == 9  # 3 buffers x 3 flows
    assert (summary["n"] == 10).all(), summary
    assert ((summary["half_width"] > 0) & (summary["half_width"] < summary["mean"])).all(), summary


# What a document's text says of the results its blocks leave, checked after they ran.
PROMISES = {"README.md": readme_sweep_has_real_intervals}


def test_the_engine_doctests_the_rust_of_the_documents_named_so():
    lib = (REPO / "crates/ccsim-engine/src/lib.rs").read_text(encoding="utf-8")
    for doc, lang in DOCTESTED.items():
        assert f'include_str!("../../../{doc}")' in lib
        blocks = extract_blocks((REPO / doc).read_text(encoding="utf-8"), doc)
        assert any(b.lang == lang for b in blocks), f"{doc} has no ```{lang} block"


def test_the_scenario_format_documents_every_congestion_control_parameter():
    """docs/scenario-format.md against the engine's registry (``ccsim list cc``): the
    ``[flows.params]`` table gives the meaning of every parameter (the names and defaults
    themselves are on the generated page docs/components.md)."""
    from ccsim.components import cc_registry

    text = (REPO / "docs/scenario-format.md").read_text(encoding="utf-8")
    table = text.split("### Congestion-control parameters")[1].split("\n\n`")[0]
    for c in cc_registry():
        for p in c["parameters"]:
            assert f"`{p['name']}`" in table, (c["name"], p["name"])


def test_the_components_page_is_what_the_registries_give():
    from ccsim.components import REGENERATE, markdown

    page = REPO / "docs/components.md"
    assert page.exists() and page.read_text(encoding="utf-8") == markdown(), (
        f"docs/components.md differs from the engine's registries; regenerate it: {REGENERATE}"
    )


def test_the_docs_list_component_names_only_on_the_components_page():
    """The scenario format's comments name no congestion controls, disciplines or flow
    kinds by hand: they point to the generated page."""
    text = (REPO / "docs/scenario-format.md").read_text(encoding="utf-8")
    lines = [x for x in text.splitlines() if "a name of `ccsim list" in x]
    assert [x.split()[0] for x in lines] == ["qdisc", "kind", "cc"]
    for line in lines:
        assert "docs/components.md" in line and line.count('"') == 2, line
    for doc in ("README.md", "docs/cli.md", "docs/scenario-format.md"):
        assert "components.md" in (REPO / doc).read_text(encoding="utf-8"), doc


@pytest.mark.parametrize("doc", DOCS)
def test_doc_code_blocks_run_as_written(doc, tmp_path, monkeypatch):
    root = checkout_like(tmp_path)
    monkeypatch.chdir(root)
    namespace: dict = {"__name__": "__main__"}
    timings: list[tuple[str, float]] = []
    for block in extract_blocks((REPO / doc).read_text(encoding="utf-8"), doc):
        if block.lang in NOT_RUN or DOCTESTED.get(doc) == block.lang:
            continue
        assert block.lang in RUN, (
            f"{block.where}: a ```{block.lang} block; the tests run only {RUN} and leave "
            f"{NOT_RUN} alone: use one of those (tests/test_docs.py)"
        )
        reason = block.skip_reason
        if reason is not None:
            assert reason, f"{block.where}: `{SKIP_MARK}` must give its reason"
            continue
        if block.lang == "sh":
            run_shell(block, root, timings)
        elif block.lang == "python":
            run_python(block, namespace, timings)
        else:
            check_toml(block)
    for what, seconds in timings:
        print(f"{seconds:7.2f} s  {what}")
    if doc in PROMISES:
        PROMISES[doc](namespace)


def test_a_command_left_running_in_the_background_is_killed(tmp_path):
    import psutil

    status, stdout, _ = bash("sleep 60 & echo $!", tmp_path)
    assert status == 0
    try:
        sleeper = psutil.Process(int(stdout))
        gone, _ = psutil.wait_procs([sleeper], timeout=10)  # killed: it ends well before 60 s
        assert gone or sleeper.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        pass  # killed and reaped already
    status, _, _ = bash("sleep 60", tmp_path, timeout=0.5)
    assert status == "none: still running after 0.5 s"
