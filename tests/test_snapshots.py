"""Every reproduction's key values are as in its regression snapshot (tests/snapshots.py,
tests/snapshots/*.txt); a moved value fails with the diff and how to accept it."""

from __future__ import annotations

import pytest
import snapshots
from ccsim.reproduce import Report, Row
from golden import REPRODUCTIONS
from snapshots import SPECS, check, diff_message, moved, relative_change, render, take, values


@pytest.mark.parametrize("name", list(SPECS))
def test_snapshot_is_unchanged(name, request):
    if name in REPRODUCTIONS:
        # Taken while the golden test's recording runs it (conftest.golden_recording).
        text = request.getfixturevalue("golden_recording")[2][name]
    else:
        text = take(name)
    problem = check(name, text)
    if problem:
        pytest.fail(problem, pytrace=False)


def test_every_reproduction_has_a_snapshot():
    from ccsim.reproduce import names

    whole = [n for n in names() if not any(n != m and n.startswith(m + "-") for m in names())]
    assert sorted(whole) == sorted(SPECS)
    assert all(snapshots.path(n).is_file() for n in SPECS)


def _report(*rows: Row) -> Report:
    return Report("x", list(rows), [])


def test_render_writes_every_cell_spreads_and_run_totals(monkeypatch):
    monkeypatch.setitem(SPECS, "x", snapshots.Spec("reduced: nothing", lambda out: _report()))
    text = render("x", _report(
        Row("r1", "c1", 0.1 + 0.2, None),
        Row("r1", "c2", 3, 2.0),
        Row("r2", "c1", 1.5, 1.0, spread=(1.0, 2.0)),
        Row("r1", "c1", None, None),
    ), {"b": {"runs": 2, "sent_pkts": 10}, "a": {"runs": 1, "sent_pkts": 7}})  # fmt: skip
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert body == [
        "r1 | c1 | 0.30000000000000004",  # repr: every bit of the float shows
        "r1 | c2 | 3.0",
        "r2 | c1 | 1.5",
        "r2 | c1 [min] | 1.0",
        "r2 | c1 [max] | 2.0",
        "r1 | c1 #2 | None",  # the same cell twice keeps both
        "runs a | runs | 1",
        "runs a | sent_pkts | 7",
        "runs b | runs | 2",
        "runs b | sent_pkts | 10",
    ]
    assert "# Size: reduced: nothing." in text.splitlines()
    assert values(text)["r2 | c1 [max]"] == "2.0"


OLD = "# header\na | x | 1.0\na | y | 0.0\nb | x | 2.5\nruns s | sent_pkts | 100\n"


def test_moved_lists_old_new_and_relative_change():
    new = "# header\na | x | 1.0\na | y | 0.5\nb | x | 2.0\nc | z | 7.0\nruns s | sent_pkts | 101\n"
    assert moved(OLD, new) == [
        ("a", "y", "0.0", "0.5", "from 0"),
        ("b", "x", "2.5", "2.0", "-20 %"),
        ("c", "z", "(none)", "7.0", ""),
        ("runs s", "sent_pkts", "100", "101", "+1 %"),
    ]
    assert moved(OLD, OLD) == []
    assert moved(OLD, "# header\na | x | 1.0\n")[-1] == ("runs s", "sent_pkts", "100", "(none)", "")
    assert relative_change("None", "1.0") == ""
    assert relative_change("3.0", "nan") == ""
    assert relative_change("-4.0", "-3.0") == "+25 %"


def test_table_is_markdown_with_pipes_escaped():
    out = snapshots.table([("leith", "fig2 a|b", "c", "1.0", "2.0", "+100 %")])
    assert out.splitlines() == [
        "| reproduction | row | column | old | new | change |",
        "|---|---|---|---|---|---|",
        "| leith | fig2 a\\|b | c | 1.0 | 2.0 | +100 % |",
    ]


def test_a_changed_value_fails_with_its_diff_line_and_how_to_accept():
    text = snapshots.path("leith").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("fig2 one-way 120 ms | utilisation | "))
    value = line.rpartition(" | ")[2]
    edited = text.replace(line, line[: -len(value)] + "0.5")
    problem = check("leith", edited)
    assert problem is not None
    assert problem.splitlines()[0] == "snapshot leith: 1 values moved"
    assert f"-{line}" in problem.splitlines()
    assert "+fig2 one-way 120 ms | utilisation | 0.5" in problem.splitlines()
    assert "python tests/snapshots.py --update" in problem
    assert "python tests/snapshots.py --diff leith" in problem
    assert check("leith", text) is None


def test_a_long_diff_is_cut_to_the_limit_with_a_count():
    old = "".join(f"r{i} | c | {i}.0\n" for i in range(100))
    new = "".join(f"r{i} | c | {i}.5\n" for i in range(100))
    lines = diff_message("x", old, new).splitlines()
    assert lines[0] == "snapshot x: 100 values moved"
    # 3 header lines (---, +++, @@) and 200 changed lines: 60 shown, 143 counted.
    assert "... and 143 more diff lines" in lines
    assert sum(1 for x in lines if x.startswith(("-r", "+r"))) == 57
