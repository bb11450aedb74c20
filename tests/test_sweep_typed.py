"""Typed sweep values (sweep format 2): numbers with units are numbers in a column
named KEY_UNIT; files of format 1 (the values as text under KEY) still read and resume;
and the HTML summary of a sweep."""

from __future__ import annotations

from html.parser import HTMLParser

import ccsim
import duckdb
from ccsim import _sweep, _sweepdb
from conftest import DATA

TINY = DATA / "tiny.toml"
N_FLOWS = 5  # tiny.toml
BUFFER = "links.bottleneck.buffer"


def plan(params: dict) -> _sweep.Plan:
    return _sweep.make_plan(TINY, params, 1, "product", _sweep.PYTHON_NAMES)


def test_numbers_with_a_unit_are_numbers_named_with_it():
    p = plan({BUFFER: ["5pkt", "10pkt", "40pkt"]})
    assert p.keys.params == ((f"{BUFFER}_pkt", "BIGINT"),)
    assert [p.key_values(c)[f"{BUFFER}_pkt"] for c in p.cases] == [5, 10, 40]


def test_units_of_one_family_become_its_base_unit():
    # 1 ms and 500 us are 0.001 s and 0.0005 s; 1 Mbps and 500 kbps are bits/s.
    p = plan({"links.bottleneck.delay": ["1ms", "500us"], "links.bottleneck.rate": ["1Mbps", "500kbps"]})
    assert p.keys.params == (("links.bottleneck.delay_s", "DOUBLE"), ("links.bottleneck.rate_bps", "BIGINT"))
    first, last = p.key_values(p.cases[0]), p.key_values(p.cases[-1])
    assert (first["links.bottleneck.delay_s"], first["links.bottleneck.rate_bps"]) == (0.001, 1_000_000)
    assert (last["links.bottleneck.delay_s"], last["links.bottleneck.rate_bps"]) == (0.0005, 500_000)
    # The same unit throughout keeps it, fractions as floats: 0.5 ms.
    p = plan({"links.bottleneck.delay": ["0.5ms", "2ms"]})
    assert p.keys.params == (("links.bottleneck.delay_ms", "DOUBLE"),)
    assert [p.key_values(c)["links.bottleneck.delay_ms"] for c in p.cases] == [0.5, 2.0]


def test_other_values_keep_their_column():
    # Text, and numbers with units of two families, stay text under the key.
    p = plan({"defaults.qdisc": ["fcfs", "fq"], BUFFER: ["20pkt", "30000B"]})
    assert p.keys.params == (("defaults.qdisc", "VARCHAR"), (BUFFER, "VARCHAR"))
    assert p.key_values(p.cases[-1])[BUFFER] == "30000B"


def test_order_by_sorts_numbers_and_params_name_the_columns(tmp_path):
    db = tmp_path / "s.duckdb"
    result = ccsim.sweep(TINY, {BUFFER: ["10pkt", "5pkt", "40pkt"]}, db=db, jobs=1)
    column = f"{BUFFER}_pkt"
    assert result.params == [column]
    assert result.format == _sweepdb.FORMAT == 2
    ordered = result.sql(f'SELECT DISTINCT "{column}" FROM flows ORDER BY 1')[column].tolist()
    assert ordered == [5, 10, 40]  # as text: '10pkt', '40pkt', '5pkt'
    summary = result.summary("goodput_bps")
    assert list(summary.columns[:2]) == [column, "name"]
    assert ccsim.open_sweep(db).params == [column]


def _to_format_1(db, column: str, key: str, unit: str, pending: int) -> None:
    """Rewrite a format-2 file as format 1 wrote it (the sweep table without
    param_columns, format 1, the key column text such as '10pkt' named by the key) and
    leave case ``pending`` not run, as a sweep stopped before it."""
    con = duckdb.connect(str(db))
    try:
        con.execute("ALTER TABLE sweep DROP COLUMN param_columns")
        con.execute("UPDATE sweep SET format = 1")
        for (table,) in con.execute(
            "SELECT DISTINCT table_name FROM information_schema.columns WHERE column_name = ?", [column]
        ).fetchall():
            con.execute(f'ALTER TABLE "{table}" ADD COLUMN "{key}" VARCHAR')
            con.execute(f'UPDATE "{table}" SET "{key}" = CAST("{column}" AS VARCHAR) || \'{unit}\'')
            con.execute(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
            if table != "cases":
                con.execute(f'DELETE FROM "{table}" WHERE case_id = {pending}')
        con.execute(f"UPDATE cases SET status = 'pending', wall_time_s = NULL WHERE case_id = {pending}")
    finally:
        con.close()


def test_a_format_1_file_reads_and_resumes_in_its_own_layout(tmp_path):
    db = tmp_path / "old.duckdb"
    params = {BUFFER: ["10pkt", "5pkt"]}
    ccsim.sweep(TINY, params, db=db, jobs=1)
    _to_format_1(db, f"{BUFFER}_pkt", BUFFER, "pkt", pending=1)
    old = ccsim.open_sweep(db)
    assert (old.format, old.params, old.counts) == (1, [BUFFER], {"done": 1, "pending": 1})
    assert old.flows[BUFFER].tolist() == ["10pkt"] * N_FLOWS
    old._repr_html_()  # the summary reads it too

    resumed = ccsim.sweep(TINY, params, db=db, jobs=1)
    assert (resumed.ran, resumed.skipped, resumed.format) == (1, 1, 1)
    assert resumed.params == [BUFFER]
    flows = resumed.flows
    assert f"{BUFFER}_pkt" not in flows.columns  # no second key column
    assert flows[BUFFER].tolist() == ["10pkt"] * N_FLOWS + ["5pkt"] * N_FLOWS
    # The resumed case's rows are those of a new sweep's same case.
    new = ccsim.sweep(TINY, params, jobs=1).flows
    assert flows["goodput_bps"].tolist() == new["goodput_bps"].tolist()


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def test_sweep_html_summary():
    result = ccsim.sweep(TINY, {BUFFER: ["10pkt", "5pkt"], "defaults.qdisc": ["fcfs"]}, seeds=[1, 2], jobs=1)
    checker = _Checker()
    checker.feed(result._repr_html_())
    checker.close()
    assert checker.stack == []
    text = " ".join(checker.text)
    for part in (BUFFER, f"{BUFFER}_pkt", "10pkt, 5pkt", "seeds 1, 2", "4 done", "Jain's index"):
        assert part in text, part
    # One row per combination: the mean over its two seeds of the total goodput.
    flows = result.flows
    total = flows[flows[f"{BUFFER}_pkt"] == 10].groupby("seed")["goodput_bps"].sum().mean()
    from ccsim import _tables

    assert _tables.rate(total) in text
