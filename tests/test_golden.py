"""Engine changes keep every reproduction's numbers bit for bit (tests/golden.py), and
the golden file's own machinery: keys stored once, differences shown with their values,
approval by run and by key."""

from __future__ import annotations

import golden
from golden import approve, compare, differences, digest, dumps, entry, load


def test_every_recorded_run_is_bit_identical_to_the_baseline(golden_recording):
    baseline, now, _ = golden_recording
    assert len(baseline) > 700
    # The reduced leith, welzl and heybey reproductions are covered too.
    for scenario in ("leith-tso.toml", "welzl-tfrc.toml", '"<dict>"'):
        assert any(scenario in run for run in baseline), scenario
    problems = compare(baseline, now)
    assert not problems, "\n".join(problems[:40])


def _raw(goodput: list[float], events: int = 10) -> dict:
    flows = [{"name": f"f{i}", "goodput_bps": g} for i, g in enumerate(goodput)]
    period = {"name": "p", "flows": flows, "links": []}
    return {"events": events, "sim_time_s": 1.0, "seed": 1, "scenario": "s", "flows": flows, "links": [],
            "phases": [period], "intervals": [], "series": []}  # fmt: skip


def test_a_record_has_one_entry_per_key_and_nested_rows_per_inner_key():
    rec = digest(_raw([1.5, 2.0]))
    assert rec["events"] == 10
    assert set(rec["flows"]) == {"goodput_bps", "name"}
    assert rec["flows"]["goodput_bps"].endswith(" [1.5,2.0]")
    assert set(rec["phases"]) == {"flows", "flows.goodput_bps", "flows.name", "links", "name"}
    assert rec["phases"]["flows"].endswith(" [2]")  # a nested list of rows: its length
    assert rec["phases"]["flows.goodput_bps"].endswith(" [[1.5,2.0]]")
    # A long value keeps its digest whole and its text cut.
    e = entry(list(range(100)))
    assert len(e.split(" ", 1)[1]) == golden.PREVIEW and e.endswith("…")


def test_keys_are_stored_once_and_read_back(tmp_path):
    runs = {"a": digest(_raw([1.0])), "b": digest(_raw([2.0, 3.0])), "bench": {"events": 3}}
    text = dumps(runs)
    assert text.count('"goodput_bps"') == 1  # the key list, not per run
    (tmp_path / "g.json").write_text(text)
    assert load(tmp_path / "g.json") == {**runs, "bench": {"events": 3}} | {
        r: {k: v for k, v in runs[r].items() if v != {}} for r in ("a", "b")
    }


def test_a_difference_shows_the_run_the_key_and_both_values():
    base = {"a": digest(_raw([1.5, 2.0])), "b": digest(_raw([1.0]))}
    now = {"a": digest(_raw([1.5, 2.25], events=11)), "b": digest(_raw([1.0])), "c": digest(_raw([0.0]))}
    lines = compare(base, now)
    assert "a: events: was 10 now 11" in lines
    assert "a: flows.goodput_bps: was [1.5,2.0] now [1.5,2.25]" in lines
    assert "a: phases.flows.goodput_bps: was [[1.5,2.0]] now [[1.5,2.25]]" in lines
    assert any(x.startswith("c: ") and "--update" in x for x in lines)
    assert not any(x.startswith("b:") for x in lines)
    # A run gone; a key gone; a value that differs beyond the characters kept.
    del now["b"]
    assert "b: not run any more" in compare(base, now)
    long_a, long_b = [0.5] * 40 + [1.0], [0.5] * 40 + [2.0]
    lines = compare({"x": digest(_raw(long_a))}, {"x": digest(_raw(long_b))})
    assert any(x.startswith("x: flows.goodput_bps: was [0.5,") and x.endswith("(they differ further on)") for x in lines)
    # Bounded: at most `limit` lines, then a count.
    many = {f"r{i}": digest(_raw([float(i)])) for i in range(10)}
    lines = compare(many, {k: digest(_raw([-1.0])) for k in many}, limit=5)
    assert len(lines) == 6 and lines[-1] == f"... and {len(differences(many, {k: digest(_raw([-1.0])) for k in many})) - 5} more differences"


def test_approval_by_run_and_by_key_keeps_the_rest():
    base = {'["x.toml", [], 1]': digest(_raw([1.0])), '["y.toml", [], 1]': digest(_raw([2.0]))}
    now = {k: digest(_raw([9.0], events=99)) for k in base} | {'["z.toml", [], 1]': digest(_raw([3.0]))}
    # By run (a part of the run's key): x whole, y kept, z not matched.
    new, n = approve(base, now, ["x.toml"], [])
    assert new['["x.toml", [], 1]'] == now['["x.toml", [], 1]']
    assert new['["y.toml", [], 1]'] == base['["y.toml", [], 1]']
    assert '["z.toml", [], 1]' not in new and n > 0
    # By key pattern, in every run: goodput approved, events kept; the new run comes whole.
    new, n = approve(base, now, [], ["flows.goodput_*"])
    for run in base:
        assert new[run]["flows"]["goodput_bps"] == now[run]["flows"]["goodput_bps"]
        assert new[run]["events"] == 10
        assert new[run]["phases"]["flows.goodput_bps"] == base[run]["phases"]["flows.goodput_bps"]
    assert n == 2 + 4 + 7  # two goodput entries; the new run: 4 scalars, 2 flow and 5 phase entries
    assert compare(new, now) != [] and not any(": flows.goodput_bps: was" in x for x in compare(new, now))
    # Everything: the new recording.
    new, _ = approve(base, now, [], [])
    assert new == now
