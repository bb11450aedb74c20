"""Golden digests of every run the reproductions make (the bit-identity check).

Every reproduction (at its regression-snapshot size: tests/snapshots.py; leith, welzl
and heybey reduced) and every scenario file is run; each native ``run`` call made in
this process (sweeps run their cases here too, ``jobs=1``) is recorded under
(scenario file name, overrides, seed; for a scenario given as text or a dict, also a
digest of that text) with, per results section
(``flows``, ``links``, ``phases``, ``intervals``, ``series``) and per key of its rows,
a digest of that key's values over all rows, plus the leading characters of those
values to show in a failure. A nested list of rows (a period's ``flows``, a channel's
``elements``) counts as its length under its own key and as one key per key of its
rows (``flows.goodput_bps``). The scalars ``events``, ``sim_time_s``, ``seed`` and
``scenario`` are kept as they are. Only the keys the golden file lists are compared,
so the engine may add result fields without touching the baseline, but no recorded
value may change.

The file lists each section's keys once (``keys``); each run holds, per section with
rows, one entry per listed key (``null``: the run has no such key), each
"<digest> <the values' JSON, cut>". A failure names the run and the key and shows the
stored values and the new ones (their leading characters).

    python tests/golden.py                  # compare against tests/data/golden_runs.json
    python tests/golden.py --update         # record every run anew (approve every change)
    python tests/golden.py --update RUN...  # approve only the runs matching a RUN pattern
    python tests/golden.py --update --keys 'flows.rtt_*'   # approve only those keys

RUN and KEY patterns are shell-style (``*``, ``?``, ``[...]``); a RUN pattern without
them matches the runs whose key contains it (``welzl-cadpc.toml``). Keys are named
``<section>.<key>`` (``links.drops``, ``phases.flows.goodput_bps``) or by the scalar's
name (``events``).

The fidelity issue sets new baselines; until then, engine changes must keep every
digest (tests/test_golden.py).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ccsim
from ccsim import _ccsim

REPO = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "data" / "golden_runs.json"
FORMAT = 2
# Reproductions whose runs are recorded: every one, at its snapshot size (snapshots.SPECS).
REPRODUCTIONS = ["keshav-s1", "keshav-s2", "keshav-s3", "dabbous", "leith", "welzl", "heybey"]
SECTIONS = ["flows", "links", "phases", "intervals", "series"]
SCALARS = ["events", "sim_time_s", "seed", "scenario"]
# Hex digits of a key's digest (48 bits), and the characters of its values kept to show.
DIGEST_HEX = 12
PREVIEW = 32
# At most this many differences are listed (then how many more).
MAX_PROBLEMS = 200
ABSENT = "(absent)"


def _is_rows(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(o, dict) for o in v)


def keys_of(section: list[dict[str, Any]]) -> list[str]:
    """Union of the keys of a section's rows (and ``k.kk`` for the keys of the rows of
    a nested list of rows ``k``), sorted."""
    keys: set[str] = set()
    for obj in section:
        for k, v in obj.items():
            keys.add(k)
            if _is_rows(v):
                keys.update(f"{k}.{kk}" for o in v for kk in o)
    return sorted(keys)


def _cell(v: Any) -> Any:
    """A row's value of a key: a nested list of rows counts as its length."""
    return len(v) if isinstance(v, list) and all(isinstance(o, dict) for o in v) and v else v


def values(section: list[dict[str, Any]], key: str) -> list[Any]:
    """The values of ``key`` over a section's rows (``k.kk``: per row, the list of the
    ``kk`` of its nested rows ``k``); ABSENT where a row has no such key."""
    if "." in key:
        outer, inner = key.split(".", 1)
        return [[o.get(inner, ABSENT) for o in row.get(outer) or []] for row in section]
    return [_cell(row.get(key, ABSENT)) for row in section]


def entry(vals: list[Any]) -> str:
    """The stored form of a key's values: "<digest> <the values' JSON, cut>"."""
    text = json.dumps(vals, sort_keys=True, separators=(",", ":"))
    d = hashlib.sha256(text.encode()).hexdigest()[:DIGEST_HEX]
    return f"{d} {text if len(text) <= PREVIEW else text[: PREVIEW - 1] + '…'}"


def digest(raw: dict[str, Any]) -> dict[str, Any]:
    """A run's record: its scalars and, per section, {key: entry} for every key."""
    out: dict[str, Any] = {k: raw[k] for k in SCALARS}
    for s in SECTIONS:
        out[s] = {k: entry(values(raw[s], k)) for k in keys_of(raw[s])}
    return out


def run_key(source: str, overrides: list[str], seed: int | None, text: str) -> str:
    """The name a run is recorded under. A scenario not read from a file ("<dict>",
    "<string>") also gets a digest of its text: its name says nothing of it."""
    name = Path(source).name
    parts: list[Any] = [name, list(overrides), seed]
    if name.startswith("<"):
        parts.append("text " + hashlib.sha256(text.encode()).hexdigest()[:DIGEST_HEX])
    return json.dumps(parts)


def _reproduce(name: str, out_dir: Path) -> None:
    import snapshots

    snapshots.SPECS[name].run(out_dir)


def record(reproduce: Callable[[str, Path], Any] = _reproduce) -> dict[str, Any]:
    """Run every recorded experiment; returns {run key: record}. ``reproduce(name,
    out_dir)`` runs each of REPRODUCTIONS at its snapshot size (the tests pass one that
    also takes their regression snapshots, tests/snapshots.py, so that each runs once)."""
    runs: dict[str, Any] = {}
    original = _ccsim.run

    def recording_run(text: str, source: str, overrides: list[str] = [], seed: int | None = None, *rest: object, **kw: object) -> Any:  # noqa: B006
        out = original(text, source, overrides, seed, *rest, **kw)
        key = run_key(source, overrides, seed, text)
        # The results as columns (ccsim.run) or as JSON text (sweeps, out="json"): the
        # JSON dict rebuilt from the columns must digest as the engine's JSON did.
        raw = json.loads(out) if isinstance(out, str) else ccsim.Results.from_columns(out).raw
        rec = digest(raw)
        if key in runs and runs[key] != rec:
            raise RuntimeError(f"two runs recorded as {key} give different results: name them apart")
        runs[key] = rec
        return out

    # Sweeps run their cases in this process, where the recording sees them (worker
    # processes would not record).
    sweep = ccsim.sweep

    def inline_sweep(*args: Any, **kwargs: Any) -> Any:
        return sweep(*args, **{**kwargs, "jobs": 1})

    _ccsim.run = recording_run  # type: ignore[assignment]
    ccsim.sweep = inline_sweep  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in REPRODUCTIONS:
                reproduce(name, Path(tmp) / name)
        for path in sorted((REPO / "scenarios").glob("*.toml")) + [REPO / "tests" / "data" / "tiny.toml"]:
            ccsim.run(ccsim.load(path))
        bench = json.loads(_ccsim.bench(20, 10_000_000, 10.0))
        runs["bench 20 flows 10Mbps 10s"] = {k: bench[k] for k in ("events", "delivered_pkts", "bottleneck_utilization")}
    finally:
        _ccsim.run = original  # type: ignore[assignment]
        ccsim.sweep = sweep  # type: ignore[assignment]
    return runs


# The golden file ------------------------------------------------------------------------


def load(path: Path = GOLDEN) -> dict[str, Any]:
    """The baseline: {run key: record}, each section as {key: entry} (keys not stored
    for a run left out)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("format") != FORMAT:
        raise SystemExit(f"{path}: golden format {doc.get('format')!r}, this script reads {FORMAT}")
    keys = doc["keys"]
    runs = {}
    for name, stored in doc["runs"].items():
        rec = dict(stored)
        for s in SECTIONS:
            if s in rec:
                rec[s] = {k: e for k, e in zip(keys[s], rec[s], strict=True) if e is not None}
        runs[name] = rec
    return runs


def dumps(runs: dict[str, Any]) -> str:
    """The golden file's text: each section's keys once, then per run one line per
    section (its entries in the order of the keys)."""
    keys = {s: sorted({k for r in runs.values() for k in r.get(s, {})}) for s in SECTIONS}
    lines = ["{", f' "format": {FORMAT},', ' "keys": {']
    lines += [f"  {json.dumps(s)}: {json.dumps(keys[s])}{',' if i < len(SECTIONS) - 1 else ''}" for i, s in enumerate(SECTIONS)]
    lines += [" },", ' "runs": {']
    names = sorted(runs)
    for n, name in enumerate(names):
        rec = runs[name]
        fields = [f"   {json.dumps(k)}: {json.dumps(rec[k])}" for k in rec if k not in SECTIONS]
        fields += [
            f"   {json.dumps(s)}: {json.dumps([rec[s].get(k) for k in keys[s]], ensure_ascii=False)}"
            for s in SECTIONS
            if rec.get(s)
        ]
        lines.append(f"  {json.dumps(name)}: {{")
        lines.append(",\n".join(fields))
        lines.append("  }" + ("," if n < len(names) - 1 else ""))
    lines += [" }", "}"]
    return "\n".join(lines) + "\n"


# Comparing and approving ----------------------------------------------------------------


def _shown(e: str | None) -> str:
    return "(no such key)" if e is None else e.split(" ", 1)[1]


def differences(baseline: dict[str, Any], now: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(run, key, old, new) for each difference: a scalar or a stored key whose values
    differ (shown as stored: the leading characters of the values), a run not made any
    more or not in the baseline (key "")."""
    out = []
    for run, want in baseline.items():
        got = now.get(run)
        if got is None:
            out.append((run, "", "recorded", "not run any more"))
            continue
        for k, v in want.items():
            if k in SECTIONS:
                for key, e in v.items():
                    g = got.get(k, {}).get(key)
                    if g is None or g.split(" ", 1)[0] != e.split(" ", 1)[0]:
                        out.append((run, f"{k}.{key}", _shown(e), _shown(g)))
            elif got.get(k) != v:
                out.append((run, k, json.dumps(v), json.dumps(got.get(k))))
    for run in now:
        if run not in baseline:
            out.append((run, "", "not in the baseline", "a new run: record it with --update"))
    return out


def compare(baseline: dict[str, Any], now: dict[str, Any], limit: int = MAX_PROBLEMS) -> list[str]:
    """The differences, one line each, at most ``limit`` (then how many more)."""
    lines = []
    for run, key, old, new in differences(baseline, now):
        if not key:
            lines.append(f"{run}: {new}" if old != "recorded" else f"{run}: not run any more")
            continue
        same = " (they differ further on)" if old == new else ""
        lines.append(f"{run}: {key}: was {old} now {new}{same}")
    if len(lines) > limit:
        lines = lines[:limit] + [f"... and {len(lines) - limit} more differences"]
    return lines


def _matches(name: str, patterns: list[str]) -> bool:
    """``name`` matches one of ``patterns`` (shell-style, or a part of it), or there are none."""
    if not patterns:
        return True
    return any(fnmatch.fnmatchcase(name, p) if any(c in p for c in "*?[") else p in name for p in patterns)


def approve(
    baseline: dict[str, Any], now: dict[str, Any], runs: list[str], keys: list[str]
) -> tuple[dict[str, Any], int]:
    """The baseline with the new values of the runs matching ``runs`` (all if empty) and,
    in them, of the keys matching ``keys`` (all if empty); a new run matching is added
    whole, a run not made any more and matching is dropped. Returns it and the number of
    values approved."""
    out = {r: {k: (dict(v) if isinstance(v, dict) else v) for k, v in rec.items()} for r, rec in baseline.items()}
    n = 0

    def key_ok(key: str) -> bool:
        return not keys or any(fnmatch.fnmatchcase(key, p) for p in keys)

    for run in sorted(set(baseline) | set(now)):
        if not _matches(run, runs):
            continue
        if run not in now:
            if not keys:
                del out[run]
                n += 1
            continue
        if run not in baseline or not keys:
            n += sum(len(v) if isinstance(v, dict) else 1 for v in now[run].values())
            out[run] = now[run]
            continue
        for k, v in now[run].items():
            if k in SECTIONS:
                for key, e in v.items():
                    if key_ok(f"{k}.{key}") and out[run].setdefault(k, {}).get(key) != e:
                        out[run][k][key] = e
                        n += 1
            elif key_ok(k) and out[run].get(k) != v:
                out[run][k] = v
                n += 1
    return out, n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--update",
        nargs="*",
        metavar="RUN",
        help="approve the new values of the runs matching a RUN pattern; with no RUN, of "
        "every run (the whole baseline is recorded anew)",
    )
    ap.add_argument(
        "--keys",
        nargs="+",
        metavar="KEY",
        default=[],
        help="with --update: approve only the keys matching a KEY pattern (flows.rtt_*, events)",
    )
    args = ap.parse_args()
    if args.keys and args.update is None:
        ap.error("--keys goes with --update")
    # Approving everything records the baseline anew: the old one is not read.
    everything = args.update == [] and not args.keys
    baseline = {} if everything else load()
    now = record()
    if args.update is not None:
        new, n = approve(baseline, now, args.update, args.keys)
        GOLDEN.write_text(dumps(new), encoding="utf-8")
        print(f"approved {n} values; wrote {len(new)} runs to {GOLDEN}")
        return 0
    problems = compare(baseline, now)
    for p in problems:
        print(p)
    print(f"{len(baseline)} runs, {len(differences(baseline, now))} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
