"""Claims: each reproduction scored by the paper's own statements, not by table cells.

A *claim* is a statement a paper makes about its own simulations that asserts a number
(``value``), a bound (``bound``: upper or lower), an ordering between schemes
(``ordering``), a trend (``trend``) or a qualitative result (``qualitative``). Each paper
has an inventory, ``claims/<paper>.toml`` beside this module, taken section by section
and committed before the code that scores it::

    paper = "welzl"
    title = "M. Welzl, ..."

    [tolerance]                  # stated once per paper
    relative = 0.15              # value claims: |ours - paper| <= max(relative * |paper|, floor[unit])
    text = "..."                 # the paper's tolerance rules in words
    [tolerance.floor]
    ratio = 0.01                 # one absolute floor per unit the value claims use

    [[claims]]
    id = "fig1-loss-100-flows"   # unique in the file (kebab-case)
    experiment = "fig12"         # the experiment whose runs measure it
    kind = "value"               # value | bound | ordering | trend | qualitative
    source = "Section 3.2, Figure 1"
    paper = "..."                # the paper's words or value
    value = 0.5                  # value and bound claims: the paper's number
    unit = "ratio"               # value and bound claims: a key of [tolerance.floor]
    bound = "upper"              # bound claims: ours <= value ("upper") or >= value ("lower")
    statistic = "..."            # what ours is; for the other kinds, the test that decides it
    not_counted = "identity"     # only for claims not counted: one of NOT_COUNTED_REASONS
    reason = "..."               #   and why
    outside_reason = "..."       # a counted claim found outside: its cause, checked with a run
    link = "welzl.md#anchor"     #   and where the docs show that run

A reproduction measures its claims on the :class:`~ccsim.reproduce.Report` it returns:
``report.paper = "welzl"``, ``report.experiments = ["fig6"]`` (the experiments it ran) and
``report.measured[claim_id] = Measured(ours=..., value=..., holds=..., spread=...)``.
:func:`score` then gives each claim of those experiments its verdict:

- ``not_counted``: the inventory says why (an identity by construction, a value derived
  from other claims, a duplicate, a self-fulfilling check, a claim the paper contradicts
  elsewhere, or one about no simulation we run);
- a ``value`` claim is ``within`` when |ours - paper| <= max(relative * |paper|, floor);
- a ``bound`` claim is ``within`` only when ours is on its side of the bound (strict: no
  tolerance);
- an ``ordering``, ``trend`` or ``qualitative`` claim is ``within`` when its test holds;
- otherwise ``outside``, with the inventory's ``outside_reason`` (or "no reason recorded").

A counted claim of an experiment that ran but was not measured is ``unmeasured``: an
error the CLI shows and the tests refuse.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

INVENTORY_DIR = Path(__file__).resolve().parent / "claims"

KINDS = ("value", "bound", "ordering", "trend", "qualitative")
NOT_COUNTED_REASONS = (
    "identity",
    "derived",
    "duplicate",
    "self_fulfilling",
    "contradicted",
    "not_simulated",
)
WITHIN = "within"
OUTSIDE = "outside"
NOT_COUNTED = "not_counted"
UNMEASURED = "unmeasured"

_ID = re.compile(r"[a-z0-9]+(-[a-z0-9.]+)*")
_CLAIM_KEYS = {
    "id", "experiment", "kind", "source", "paper", "value", "unit", "bound", "statistic",
    "not_counted", "reason", "outside_reason", "link",
}  # fmt: skip


class ClaimError(ValueError):
    """An inventory or a measurement that breaks the rules above (the message names the
    file, the claim, the field and the fix)."""


@dataclass(frozen=True)
class Claim:
    id: str
    experiment: str
    kind: str
    source: str
    paper: str
    statistic: str
    value: float | None = None
    unit: str | None = None
    bound: str | None = None
    not_counted: str | None = None
    reason: str | None = None
    outside_reason: str | None = None
    link: str | None = None

    @property
    def counted(self) -> bool:
        return self.not_counted is None


@dataclass(frozen=True)
class Inventory:
    paper: str
    title: str
    relative: float
    tolerance_text: str
    floors: dict[str, float]
    claims: tuple[Claim, ...]

    def tolerance(self, claim: Claim) -> float:
        """The absolute tolerance of a value claim."""
        assert claim.value is not None and claim.unit is not None
        return max(self.relative * abs(claim.value), self.floors[claim.unit])

    def by_id(self) -> dict[str, Claim]:
        return {c.id: c for c in self.claims}


@dataclass(frozen=True)
class Measured:
    """Ours for one claim: ``ours`` in words (with the numbers), ``value`` for value and
    bound claims (in the claim's unit), ``holds`` for the other kinds, ``spread`` the
    (min, max) over the seeds or phases ``value`` is the mean of."""

    ours: str
    value: float | None = None
    holds: bool | None = None
    spread: tuple[float, float] | None = None


@dataclass
class ClaimResult:
    claim: Claim
    verdict: str
    ours: str
    value: float | None = None
    spread: tuple[float, float] | None = None
    tolerance: float | None = None

    @property
    def reason(self) -> str | None:
        if self.verdict == NOT_COUNTED:
            return f"{self.claim.not_counted}: {self.claim.reason}"
        if self.verdict == OUTSIDE:
            return self.claim.outside_reason
        if self.verdict == UNMEASURED:
            return "counted but not measured by the reproduction"
        return None

    def to_dict(self) -> dict[str, Any]:
        c = self.claim
        d: dict[str, Any] = {
            "id": c.id,
            "experiment": c.experiment,
            "kind": c.kind,
            "source": c.source,
            "paper": c.paper,
            "ours": self.ours,
            "verdict": self.verdict,
            "reason": self.reason,
            "statistic": c.statistic,
        }
        if c.value is not None:
            d["paper_value"] = c.value
            d["unit"] = c.unit
        if c.bound is not None:
            d["bound"] = c.bound
        if self.value is not None:
            d["value"] = self.value
        if self.tolerance is not None:
            d["tolerance"] = self.tolerance
        if self.spread is not None:
            d["min"], d["max"] = self.spread
        if self.verdict == OUTSIDE and c.link:
            d["link"] = c.link
        return d


@dataclass
class ClaimBoard:
    inventory: Inventory
    results: list[ClaimResult] = field(default_factory=list)

    def _with(self, verdict: str) -> list[ClaimResult]:
        return [r for r in self.results if r.verdict == verdict]

    @property
    def counted(self) -> int:
        return len(self._with(WITHIN)) + len(self._with(OUTSIDE))

    @property
    def within(self) -> int:
        return len(self._with(WITHIN))

    @property
    def outside(self) -> list[ClaimResult]:
        return self._with(OUTSIDE)

    @property
    def not_counted(self) -> list[ClaimResult]:
        return self._with(NOT_COUNTED)

    @property
    def unmeasured(self) -> list[ClaimResult]:
        return self._with(UNMEASURED)

    @property
    def unexplained(self) -> list[ClaimResult]:
        return [r for r in self.outside if not r.claim.outside_reason]

    def share(self) -> float | None:
        return self.within / self.counted if self.counted else None

    def summary(self) -> dict[str, Any]:
        by_reason: dict[str, int] = {}
        for r in self.not_counted:
            key = r.claim.not_counted or ""
            by_reason[key] = by_reason.get(key, 0) + 1
        return {
            "paper": self.inventory.paper,
            "tolerance": self.inventory.tolerance_text,
            "counted": self.counted,
            "within": self.within,
            "outside": len(self.outside),
            "share_within": self.share(),
            "not_counted": len(self.not_counted),
            "not_counted_by_reason": by_reason,
            "unmeasured": len(self.unmeasured),
        }

    def to_list(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.results]


def _fail(path: Path, where: str, message: str) -> ClaimError:
    return ClaimError(f"{path.name}: {where}: {message}")


def _text(path: Path, where: str, d: dict[str, Any], key: str) -> str:
    v = d.get(key)
    if not isinstance(v, str) or not v.strip():
        raise _fail(path, where, f"`{key}` must be a non-empty string (got {v!r})")
    return v


def _paper_words(path: Path, where: str, d: dict[str, Any]) -> str:
    v = d.get("paper")
    if isinstance(v, int | float) and not isinstance(v, bool):
        return f"{v:g}"
    return _text(path, where, d, "paper")


def _claim(path: Path, i: int, d: dict[str, Any], floors: dict[str, float]) -> Claim:
    where = f"claims[{i}]"
    cid = _text(path, where, d, "id")
    where = f"claim {cid!r}"
    if not _ID.fullmatch(cid):
        raise _fail(path, where, "`id` must be kebab-case (lower-case letters, digits, '-')")
    unknown = sorted(set(d) - _CLAIM_KEYS)
    if unknown:
        raise _fail(path, where, f"unknown field `{unknown[0]}`; known: {', '.join(sorted(_CLAIM_KEYS))}")
    kind = _text(path, where, d, "kind")
    if kind not in KINDS:
        raise _fail(path, where, f"`kind` = {kind!r}; choose one of {', '.join(KINDS)}")
    claim = Claim(
        id=cid,
        experiment=_text(path, where, d, "experiment"),
        kind=kind,
        source=_text(path, where, d, "source"),
        paper=_paper_words(path, where, d),
        statistic=_text(path, where, d, "statistic"),
        value=d.get("value"),
        unit=d.get("unit"),
        bound=d.get("bound"),
        not_counted=d.get("not_counted"),
        reason=d.get("reason"),
        outside_reason=d.get("outside_reason"),
        link=d.get("link"),
    )
    if kind in ("value", "bound"):
        if isinstance(claim.value, bool) or not isinstance(claim.value, int | float):
            raise _fail(path, where, f"a {kind} claim needs a numeric `value` (the paper's number)")
        if claim.unit not in floors:
            raise _fail(
                path, where,
                f"`unit` = {claim.unit!r} has no floor; add it to [tolerance.floor] "
                f"(known: {', '.join(floors) or 'none'})",
            )  # fmt: skip
    elif claim.value is not None or claim.unit is not None:
        raise _fail(path, where, f"only value and bound claims take `value` and `unit` (kind is {kind!r})")
    if kind == "bound":
        if claim.bound not in ("upper", "lower"):
            raise _fail(path, where, f"`bound` = {claim.bound!r}; a bound claim is \"upper\" or \"lower\"")
    elif claim.bound is not None:
        raise _fail(path, where, f"only bound claims take `bound` (kind is {kind!r})")
    if claim.not_counted is not None:
        if claim.not_counted not in NOT_COUNTED_REASONS:
            raise _fail(
                path, where,
                f"`not_counted` = {claim.not_counted!r}; choose one of {', '.join(NOT_COUNTED_REASONS)}",
            )  # fmt: skip
        _text(path, where, d, "reason")
        if claim.outside_reason is not None:
            raise _fail(path, where, "a claim not counted cannot have an `outside_reason`")
    elif claim.reason is not None:
        raise _fail(path, where, "`reason` is for claims not counted; use `outside_reason` for a counted claim found outside")
    if claim.link is not None and claim.outside_reason is None:
        raise _fail(path, where, "`link` goes with `outside_reason` (where the docs show its run)")
    return claim


def parse(path: Path) -> Inventory:
    """Reads and checks one inventory (raises :class:`ClaimError`)."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ClaimError(f"{path.name}: {e}") from None
    paper = _text(path, "top level", doc, "paper")
    if paper != path.stem:
        raise _fail(path, "top level", f"`paper` = {paper!r} must be the file's name {path.stem!r}")
    tol = doc.get("tolerance")
    if not isinstance(tol, dict):
        raise _fail(path, "top level", "a [tolerance] table is required (relative, text, [tolerance.floor])")
    relative = tol.get("relative")
    if isinstance(relative, bool) or not isinstance(relative, int | float) or not 0 <= relative < 1:
        raise _fail(path, "[tolerance]", f"`relative` = {relative!r}; give a fraction in [0, 1), e.g. 0.15")
    floors = tol.get("floor", {})
    if not isinstance(floors, dict) or any(
        isinstance(v, bool) or not isinstance(v, int | float) or v < 0 for v in floors.values()
    ):
        raise _fail(path, "[tolerance.floor]", "each unit's floor must be a number >= 0")
    raw = doc.get("claims")
    if not isinstance(raw, list) or not raw:
        raise _fail(path, "top level", "no [[claims]]")
    claims = tuple(_claim(path, i, d, floors) for i, d in enumerate(raw))
    seen: set[str] = set()
    for c in claims:
        if c.id in seen:
            raise _fail(path, f"claim {c.id!r}", "`id` is used twice; ids are unique in a paper")
        seen.add(c.id)
    return Inventory(
        paper=paper,
        title=_text(path, "top level", doc, "title"),
        relative=float(relative),
        tolerance_text=_text(path, "[tolerance]", tol, "text"),
        floors={k: float(v) for k, v in floors.items()},
        claims=claims,
    )


@cache
def load(paper: str) -> Inventory:
    """The inventory of ``paper`` (``claims/<paper>.toml``)."""
    path = INVENTORY_DIR / f"{paper}.toml"
    if not path.exists():
        known = ", ".join(papers()) or "none"
        raise ClaimError(f"no claims inventory for {paper!r} ({path}); known: {known}")
    return parse(path)


def papers() -> list[str]:
    """The papers that have an inventory."""
    return sorted(p.stem for p in INVENTORY_DIR.glob("*.toml"))


def score(inventory: Inventory, experiments: list[str], measured: dict[str, Measured]) -> ClaimBoard:
    """The verdict of every claim of ``experiments`` (in the inventory's order)."""
    claims = inventory.by_id()
    for cid in measured:
        if cid not in claims:
            raise ClaimError(f"{inventory.paper}.toml: a measurement for {cid!r}, which the inventory does not have")
    board = ClaimBoard(inventory)
    for c in inventory.claims:
        if c.experiment not in experiments:
            continue
        m = measured.get(c.id)
        if m is not None and m.value is not None and not math.isfinite(m.value):
            raise ClaimError(f"{inventory.paper}.toml: claim {c.id!r}: measured value {m.value!r} is not finite")
        ours = m.ours if m is not None else "-"
        value = m.value if m is not None else None
        spread = m.spread if m is not None else None
        if not c.counted:
            board.results.append(ClaimResult(c, NOT_COUNTED, ours, value, spread))
            continue
        if m is None:
            board.results.append(ClaimResult(c, UNMEASURED, ours))
            continue
        tolerance = None
        if c.kind in ("value", "bound"):
            if m.value is None:
                raise ClaimError(f"{inventory.paper}.toml: claim {c.id!r} is a {c.kind} claim: measure a `value`")
            assert c.value is not None
            if c.kind == "value":
                tolerance = inventory.tolerance(c)
                ok = abs(m.value - c.value) <= tolerance + 1e-12
            else:
                ok = m.value <= c.value if c.bound == "upper" else m.value >= c.value
        else:
            if m.holds is None:
                raise ClaimError(f"{inventory.paper}.toml: claim {c.id!r} is a {c.kind} claim: measure `holds`")
            ok = m.holds
        board.results.append(ClaimResult(c, WITHIN if ok else OUTSIDE, ours, value, spread, tolerance))
    return board


def _short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def lines(board: ClaimBoard) -> list[str]:
    """The claims as plain text lines (the CLI prints them after the scoreboard)."""
    share = board.share()
    pct = f" ({share:.0%})" if share is not None else ""
    out = [
        f"Claims ({board.inventory.paper}): {board.within} of {board.counted} counted claims "
        f"within{pct}; {len(board.not_counted)} not counted"
        + (f"; {len(board.unmeasured)} UNMEASURED" if board.unmeasured else "")
        + ".",
        f"  Tolerance: {board.inventory.tolerance_text}",
    ]
    for r in board.results:
        if r.verdict == NOT_COUNTED:
            continue
        out.append(f"  [{r.verdict}] {r.claim.id} ({r.claim.kind}, {r.claim.source})")
        out.append(f"      paper: {_short(r.claim.paper)}")
        out.append(f"      ours:  {_short(r.ours)}")
        if r.verdict != WITHIN:
            out.append(f"      why:   {_short(r.reason or 'no reason recorded')}")
    if board.not_counted:
        out.append("  Not counted:")
        for r in board.not_counted:
            out.append(f"    {r.claim.id}: {_short(r.reason or '', 90)}")
    return out
