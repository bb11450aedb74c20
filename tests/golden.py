"""Golden digests of every run the reproductions make (the bit-identity check).

Every reproduction and every scenario file is run; each native ``run`` call is recorded
under (scenario file name, overrides, seed) with a digest per results section (of the
JSON dict rebuilt from the columns the call returns, or of its JSON text). A
section's digest covers only the keys the golden file lists for it, so the engine may
add result fields without touching the baseline, but no recorded value may change.

    python tests/golden.py            # compare against tests/data/golden_runs.json
    python tests/golden.py --update   # rewrite the baseline (after an intended change)

The fidelity issue sets new baselines; until then, engine changes must keep every
digest (tests/test_golden.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ccsim
from ccsim import _ccsim
from ccsim.reproduce import NoProgress, get

REPO = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "data" / "golden_runs.json"
# Reproductions whose runs are recorded ("dabbous" runs all six Dabbous experiments).
REPRODUCTIONS = ["keshav-s1", "keshav-s2", "keshav-s3", "dabbous"]
SECTIONS = ["flows", "links", "phases", "intervals", "series"]
SCALARS = ["events", "sim_time_s", "seed", "scenario"]


def _keys_of(section: list[dict[str, Any]]) -> list[str]:
    """Union of the keys of a section's objects (and of their nested flow/link rows)."""
    keys: set[str] = set()
    for obj in section:
        for k, v in obj.items():
            keys.add(k)
            if isinstance(v, list) and v and isinstance(v[0], dict):
                keys.update(f"{k}.{kk}" for o in v for kk in o)
    return sorted(keys)


def _project(obj: Any, keys: list[str], prefix: str = "") -> Any:
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            name = f"{prefix}{k}"
            if name in keys:
                if isinstance(v, list) and v and isinstance(v[0], dict):
                    out[k] = [_project(o, keys, f"{name}.") for o in v]
                else:
                    out[k] = v
        return out
    return obj


def digest(raw: dict[str, Any], keys: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Digest per section of a results dict; ``keys`` restricts each section's keys."""
    out: dict[str, Any] = {k: raw[k] for k in SCALARS}
    out["keys"] = {}
    for s in SECTIONS:
        ks = keys[s] if keys is not None else _keys_of(raw[s])
        out["keys"][s] = ks
        projected = [_project(o, ks) for o in raw[s]]
        text = json.dumps(projected, sort_keys=True, separators=(",", ":"))
        out[s] = hashlib.sha256(text.encode()).hexdigest()
    return out


def _reproduce(name: str, out_dir: Path) -> None:
    get(name).reproduce(out_dir, NoProgress())


def record(
    baseline: dict[str, Any] | None = None, reproduce: Callable[[str, Path], Any] = _reproduce
) -> dict[str, Any]:
    """Run every recorded experiment; returns {run key: digest}. ``reproduce(name,
    out_dir)`` runs each of REPRODUCTIONS (the tests pass one that also takes their
    regression snapshots, tests/snapshots.py, so that each runs once)."""
    runs: dict[str, Any] = {}
    original = _ccsim.run

    def recording_run(text: str, source: str, overrides: list[str] = [], seed: int | None = None, *rest: object, **kw: object) -> Any:  # noqa: B006
        out = original(text, source, overrides, seed, *rest, **kw)
        key = json.dumps([Path(source).name, list(overrides), seed])
        keys = None
        if baseline is not None and key in baseline:
            keys = baseline[key]["keys"]
        # The results as columns (ccsim.run) or as JSON text (sweeps, out="json"): the
        # JSON dict rebuilt from the columns must digest as the engine's JSON did.
        raw = json.loads(out) if isinstance(out, str) else ccsim.Results.from_columns(out).raw
        runs[key] = digest(raw, keys)
        return out

    _ccsim.run = recording_run  # type: ignore[assignment]
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
    return runs


def compare(baseline: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Differences between a baseline and a new recording, one line each."""
    problems = []
    for key, want in baseline.items():
        got = now.get(key)
        if got is None:
            problems.append(f"{key}: not run any more")
            continue
        if key.startswith("bench"):
            problems += [f"{key}: {k} differs" for k in want if got[k] != want[k]]
            continue
        for field in SCALARS + SECTIONS:
            if got[field] != want[field]:
                problems.append(f"{key}: {field} differs")
    for key in now:
        if key not in baseline:
            problems.append(f"{key}: not in the baseline (a new run: record it with --update)")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="rewrite the baseline")
    args = ap.parse_args()
    if args.update:
        runs = record()
        GOLDEN.write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {len(runs)} runs to {GOLDEN}")
        return 0
    baseline = json.loads(GOLDEN.read_text(encoding="utf-8"))
    problems = compare(baseline, record(baseline))
    for p in problems:
        print(p)
    print(f"{len(baseline)} runs, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
