"""Heybey's runs as the reproduction and its claims both use them: a run's summary per
link with the stability rule, the Appendix-A figure runs and Table 3-1's threshold
(docs/reproductions/heybey.md). Apart from heybey.py so that _heybey_claims.py needs
no import of it."""

from __future__ import annotations

import json
from typing import Any

import ccsim
from ccsim.reproduce import _heybey_scenarios as S
from ccsim.reproduce._stats import pearson

UNSTABLE_PKTS = 100


def _elements(link: dict[str, Any]) -> list[dict[str, Any]]:
    e = link["elements"]
    return json.loads(e) if isinstance(e, str) else e


def summarise(raw: dict[str, Any], links: dict[str, str], duration_s: float) -> dict[str, Any]:
    """Per named link: the smart link's measures, throughput and queue; plus stability."""
    by_name = {L["name"]: L for L in raw["links"]}
    out: dict[str, Any] = {}
    for label, chan in links.items():
        L = by_name[chan]
        el = _elements(L)[0]
        out[label] = {
            "kbps": L["tx_bits"] / duration_s / 1000.0,
            "queue_max": L["queue_max_pkts"],
            "queue_max_after": el["queue_max_after_pkts"],
            "trace": el.get("trace"),
        }
    worst = max(v["queue_max_after"] for v in out.values())
    return {"links": out, "queue_max_after": worst, "stable": worst < UNSTABLE_PKTS,
            "kbps": sum(v["kbps"] for v in out.values()) / len(out)}


def _flows_queue_corr(raw: dict[str, Any], chan: str) -> float:
    """Correlation of the link's table size with its queue, sampled at update attempts
    (the convoy effect: the two oscillate in phase)."""
    import numpy as np

    L = next(L for L in raw["links"] if L["name"] == chan)
    tr = _elements(L)[0]["trace"]
    q = next(s for s in raw["series"] if s["name"] == f"{chan}.queue")
    t, v = np.array(q["t"]), np.array(q["v"])
    ts = np.array(tr["t_s"])
    idx = np.searchsorted(t, ts, side="right") - 1
    qs = np.where(idx >= 0, v[np.clip(idx, 0, None)], 0.0)
    w = np.array(tr["flows"], dtype=float)
    if w.std() == 0 or qs.std() == 0:
        return 0.0
    return pearson(w, qs)


# A figure run: (key, label, topology, kwargs, channel shown, link label).
FigRun = tuple[str, str, str, dict[str, Any], str]

FIG_RUNS: dict[str, list[FigRun]] = {
    "mosely": [
        ("A-1", "Hayden/no/slow (Mosely) link 2", "mosely", {"algorithm": "hayden", "update": "100ms"}, "link 2"),
        ("A-2", "Hayden/no/fast (Mosely) link 2", "mosely", {"algorithm": "hayden", "update": "20ms"}, "link 2"),
    ],
    "params": [
        ("A-3", "Hayden/no/slow (Heybey), a = 0.8, link 1", "heybey", {"algorithm": "hayden", "update": "100ms", "a": 0.8}, "link 1"),
        ("A-4", "Mosely/no/fast (Heybey), a = 0.8, link 1", "heybey", {"algorithm": "mosely", "update": "20ms", "a": 0.8}, "link 1"),
    ],
    "stability": [
        ("A-5", "Hayden/no/fast (Heybey), a = 0.55, link 1", "heybey", {"algorithm": "hayden", "update": "20ms", "a": 0.55}, "link 1"),
        ("A-6", "Hayden/no/fast (Heybey), a = 0.56, link 1", "heybey", {"algorithm": "hayden", "update": "20ms", "a": 0.56}, "link 1"),
    ],
    "forward": [
        ("A-7", "Hayden/no/slow (Heybey) forward queueing, a = 0.8, link 1", "heybey",
         {"algorithm": "hayden", "update": "100ms", "a": 0.8, "read_rate": "enqueue"}, "link 1"),
        ("A-8", "Mosely/no/fast (Heybey) forward queueing, a = 0.8, link 1", "heybey",
         {"algorithm": "mosely", "update": "20ms", "a": 0.8, "read_rate": "enqueue"}, "link 1"),
    ],
}


def _run_fig(topology: str, kwargs: dict[str, Any], duration: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    build = S.mosely if topology == "mosely" else S.heybey
    links = S.MOSELY_LINKS if topology == "mosely" else S.HEYBEY_LINKS
    kw = dict(kwargs)
    if duration is not None:
        kw["duration"] = duration
    sc = build(record=True, **kw)
    raw = ccsim.run(sc).raw
    dur = float(sc["scenario"]["duration"].rstrip("s"))
    return raw, summarise(raw, links, dur)


def threshold(cases: list[dict[str, Any]]) -> tuple[float | None, float | None, int]:
    """(last stable a before the first unstable one, throughput there, stable values
    of a above the first unstable one). a = None: unstable already at the lowest a."""
    cases = sorted(cases, key=lambda c: c["a"])
    last: dict[str, Any] | None = None
    for i, c in enumerate(cases):
        if not c["stable"]:
            above = sum(1 for d in cases[i:] if d["stable"])
            return (last["a"], last["kbps"], above) if last else (None, None, above)
        last = c
    return (last["a"], last["kbps"], 0) if last else (None, None, 0)
