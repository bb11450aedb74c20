"""Claims (reproduce/claims.py): the inventory format's checks, the verdict rules on
hand-made claims, and every shipped inventory loading cleanly."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from ccsim.reproduce import Report, claims
from ccsim.reproduce.claims import ClaimError, Measured

HEAD = """
paper = "toy"
title = "A toy paper"

[tolerance]
relative = 0.15
text = "15% or the unit's floor; bounds strict"
[tolerance.floor]
pkt = 2
ratio = 0.01
"""

CLAIMS = """
[[claims]]
id = "queue-value"
experiment = "a"
kind = "value"
source = "Table 1"
paper = "a mean queue of 20 packets"
value = 20
unit = "pkt"
statistic = "mean queue"

[[claims]]
id = "small-value"
experiment = "a"
kind = "value"
source = "Table 1"
paper = "4 packets"
value = 4
unit = "pkt"
statistic = "mean queue of the small case"

[[claims]]
id = "delay-bound"
experiment = "a"
kind = "bound"
source = "Eq. 5"
paper = "the delay stays under 98 ms"
value = 98
unit = "pkt"
bound = "upper"
statistic = "peak delay"

[[claims]]
id = "more-than"
experiment = "b"
kind = "bound"
source = "Section 4"
paper = "more than 390"
value = 390
unit = "pkt"
bound = "lower"
statistic = "flows"

[[claims]]
id = "fairer"
experiment = "b"
kind = "ordering"
source = "Figure 9"
paper = "A is fairer than B"
statistic = "Jain(A) > Jain(B)"
outside_reason = "B's flows share one RTT"
link = "toy.md#fairer"

[[claims]]
id = "identity"
experiment = "a"
kind = "value"
source = "Section 2"
paper = "B/(1+n)"
value = 0.5
unit = "ratio"
statistic = "rate over capacity"
not_counted = "identity"
reason = "the rate law's fixed point by construction"
"""


def _inventory(tmp_path: Path, text: str = HEAD + CLAIMS, name: str = "toy") -> claims.Inventory:
    path = tmp_path / f"{name}.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return claims.parse(path)


def _by_id(board: claims.ClaimBoard) -> dict[str, claims.ClaimResult]:
    return {r.claim.id: r for r in board.results}


def test_value_claims_use_fifteen_percent_or_the_floor(tmp_path):
    inv = _inventory(tmp_path)
    board = claims.score(
        inv,
        ["a"],
        {
            # 20 * 0.15 = 3 > floor 2: 23 is within, 23.5 would not be.
            "queue-value": Measured("23 packets", value=23.0),
            # 4 * 0.15 = 0.6 < floor 2: the floor decides; 6.5 is outside.
            "small-value": Measured("6.5 packets", value=6.5),
            "delay-bound": Measured("98 ms", value=98.0),
        },
    )
    r = _by_id(board)
    assert (r["queue-value"].verdict, r["queue-value"].tolerance) == ("within", 3.0)
    assert (r["small-value"].verdict, r["small-value"].tolerance) == ("outside", 2.0)
    assert r["small-value"].reason is None  # outside with no reason recorded
    # A bound is strict: 98 against "under 98" is on its side (<=), with no tolerance.
    assert r["delay-bound"].verdict == "within"
    assert r["identity"].verdict == "not_counted"
    assert r["identity"].reason == "identity: the rate law's fixed point by construction"
    # Only experiment a's claims: the identity is listed, not counted.
    assert set(r) == {"queue-value", "small-value", "delay-bound", "identity"}
    assert (board.counted, board.within) == (3, 2)
    assert board.share() == pytest.approx(2 / 3)
    assert [x.claim.id for x in board.unexplained] == ["small-value"]


def test_bounds_take_no_tolerance_and_orderings_their_test(tmp_path):
    inv = _inventory(tmp_path)
    board = claims.score(
        inv,
        ["a", "b"],
        {
            "queue-value": Measured("20", value=20.0),
            "small-value": Measured("4", value=4.0),
            # 98.5 is within 15% of 98 but over the bound: outside.
            "delay-bound": Measured("98.5 ms", value=98.5),
            # 389 is within 15% of 390 but under the lower bound: outside.
            "more-than": Measured("389 flows", value=389.0),
            "fairer": Measured("Jain 0.73 against 0.86", holds=False),
        },
    )
    r = _by_id(board)
    assert r["delay-bound"].verdict == "outside"
    assert r["more-than"].verdict == "outside"
    assert r["fairer"].verdict == "outside"
    assert r["fairer"].reason == "B's flows share one RTT"
    assert r["fairer"].to_dict()["link"] == "toy.md#fairer"
    assert board.summary()["not_counted_by_reason"] == {"identity": 1}


def test_a_counted_claim_left_unmeasured_is_reported(tmp_path):
    board = claims.score(_inventory(tmp_path), ["b"], {"fairer": Measured("yes", holds=True)})
    r = _by_id(board)
    assert r["more-than"].verdict == "unmeasured"
    assert [x.claim.id for x in board.unmeasured] == ["more-than"]
    assert "UNMEASURED" in claims.lines(board)[0]


@pytest.mark.parametrize(
    ("measured", "message"),
    [
        ({"no-such-claim": Measured("x", value=1.0)}, "does not have"),
        ({"queue-value": Measured("x", holds=True)}, "measure a `value`"),
        ({"fairer": Measured("x", value=1.0)}, "measure `holds`"),
        ({"queue-value": Measured("x", value=float("nan"))}, "not finite"),
    ],
)
def test_measurements_that_break_the_rules_are_refused(tmp_path, measured, message):
    with pytest.raises(ClaimError, match=message):
        claims.score(_inventory(tmp_path), ["a", "b"], measured)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('kind = "ordering"', 'kind = "order"'), "`kind` = 'order'; choose one of value"),
        (lambda t: t.replace('unit = "ratio"', 'unit = "percent"'), "`unit` = 'percent' has no floor"),
        (lambda t: t.replace('bound = "lower"', 'bound = "below"'), '"upper" or "lower"'),
        (lambda t: t.replace('not_counted = "identity"', 'not_counted = "obvious"'), "choose one of identity"),
        (lambda t: t.replace('reason = "the rate law', 'why = "the rate law'), "unknown field `why`"),
        (lambda t: t.replace('id = "fairer"', 'id = "queue-value"'), "used twice"),
        (lambda t: t.replace('id = "fairer"', 'id = "Fairer"'), "kebab-case"),
        (lambda t: t.replace("value = 390\n", ""), "needs a numeric `value`"),
        (lambda t: t.replace('statistic = "flows"', 'statistic = ""'), "`statistic` must be a non-empty"),
        (lambda t: t.replace('paper = "toy"', 'paper = "other"'), "must be the file's name 'toy'"),
        (lambda t: t.replace("relative = 0.15", "relative = 15"), "fraction in [0, 1)"),
        (
            lambda t: t.replace('outside_reason = "B\'s flows share one RTT"\n', ""),
            "`link` goes with `outside_reason`",
        ),
    ],
)
def test_inventory_errors_name_the_claim_field_and_fix(tmp_path, edit, message):
    with pytest.raises(ClaimError, match=r"toy\.toml: .*" + __import__("re").escape(message)):
        _inventory(tmp_path, edit(HEAD + CLAIMS))


def test_report_scores_its_claims_and_combined_json_carries_them(tmp_path, monkeypatch):
    inv = _inventory(tmp_path)
    monkeypatch.setattr(claims, "load", lambda paper: inv)
    report = Report("toy", [], [], paper="toy", experiments=["b"])
    report.measured["more-than"] = Measured("391 flows", value=391.0)
    report.measured["fairer"] = Measured("Jain 0.9 against 0.8", holds=True)
    report.score()
    d = report.to_dict()
    assert d["claims_summary"]["counted"] == 2
    assert d["claims_summary"]["share_within"] == 1.0
    assert [(c["id"], c["verdict"]) for c in d["claims"]] == [("more-than", "within"), ("fairer", "within")]
    for c in d["claims"]:
        assert {"kind", "source", "paper", "ours", "verdict", "reason"} <= set(c)


@pytest.mark.parametrize("paper", claims.papers() or ["(none yet)"])
def test_every_shipped_inventory_loads(paper):
    if paper == "(none yet)":
        pytest.skip("no inventory shipped yet")
    inv = claims.load(paper)
    assert inv.claims
    # Every claim not counted says why; every counted one can fail (a test or a number).
    for c in inv.claims:
        assert c.counted or c.reason
