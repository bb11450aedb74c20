"""Heybey 1990: the thesis's claims (claims/heybey.toml) measured on the reproduction's runs.

Each ``measure_<experiment>`` returns ``{claim id: Measured}`` for the counted claims of
that experiment (and the values of some uncounted ones, for display). The definitions the
statistics use (the 3.2.1 stability rule: the largest queue on either link from 50 s to
150 s under 100 packets; "entered the unstable region": 1000 packets from 10 s on; the
seed-1 grid; queue cycles) are stated once in the inventory's header.

The figure experiments measure on their own recorded runs (queue series and the smart
links' traces), plus, for Figures A-7/A-8, the same two settings with the rate read at
transmission, and for Mosely's topology the 12 permutations of algorithm, update rate and
protocol. The Table 3-1 claims need each run's queue from 50 s on, which the table's own
runs do not report (their smart links count from 10 s, the cell scoreboard's rule): the
seed-1 grid is run again with the links counting from 50 s and a measurement phase from
50 s to 150 s, and for seeds 2-5 each row's scan is continued from its first run that is
unstable by the 10 s rule (every run below it is stable by both rules) until the first
run unstable by the 3.2.1 rule.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

import ccsim
from ccsim.reproduce import _heybey_scenarios as S
from ccsim.reproduce._stats import pearson
from ccsim.reproduce.claims import Measured

PAPER = "heybey"
LATE_S = 50.0  # the 3.2.1 rule's window starts here (inventory header)
STABLE_PKTS = 100  # ... and a run is unstable when a queue reaches this
LARGE_PKTS = 1000  # "several thousand": the unstable region
CYCLE_HIGH, CYCLE_LOW = 500.0, 50.0  # queue cycles (the module's _cycles)
NO_THRESHOLD_A = 0.29  # a seed with no stable a in the grid (inventory: t31 statistic)
LEVEL_WIDTH_S = 0.1  # the figures' time step (Appendix A: bits "every 0.1 seconds")


# ---------------------------------------------------------------------------------------
# Series helpers (queue series are step functions recorded on change).


def _queue(raw: dict[str, Any], chan: str) -> tuple[list[float], list[float]]:
    q = next(s for s in raw["series"] if s["name"] == f"{chan}.queue")
    return q["t"], q["v"]


def _trace(raw: dict[str, Any], chan: str) -> dict[str, Any]:
    from ccsim.reproduce._heybey_runs import _elements

    L = next(L for L in raw["links"] if L["name"] == chan)
    return _elements(L)[0]["trace"]


def _value_at(t: list[float], v: list[float], x: float) -> float:
    """The step series' value at time x (0 before its first point)."""
    import bisect

    i = bisect.bisect_right(t, x) - 1
    return v[i] if i >= 0 else 0.0


def queue_max_from(t: list[float], v: list[float], t0: float) -> float:
    """Largest value of the step series from t0 on (its value at t0 included)."""
    import bisect

    i = bisect.bisect_right(t, t0) - 1
    return max(v[max(i, 0) :], default=0.0)


def time_mean(t: list[float], v: list[float], t0: float, t1: float) -> float:
    """Time average of the step series over [t0, t1]."""
    total, prev_t, prev_v = 0.0, t0, _value_at(t, v, t0)
    for ti, vi in zip(t, v, strict=True):
        if ti <= t0:
            continue
        if ti >= t1:
            break
        total += prev_v * (ti - prev_t)
        prev_t, prev_v = ti, vi
    total += prev_v * (t1 - prev_t)
    return total / (t1 - t0)


def interval_maxima(
    t: list[float], v: list[float], t0: float, t1: float, width: float = LEVEL_WIDTH_S, top: list[float] | None = None
) -> list[float]:
    """The largest value of the step series in each interval [t0 + k w, t0 + (k + 1) w)
    up to t1, its value at the interval's start included. ``top``: the engine's sampled
    series (buckets of ``width`` aligned with t0) gives each point's bucket maximum
    there; an unsampled series is its own maximum."""
    n = round((t1 - t0) / width)
    top = v if top is None else top
    out = [0.0] * n
    prev = 0.0  # the value carried into the next interval
    k_next = 0  # intervals before this one have their carried-in value set
    for ti, vi, mi in zip(t, v, top, strict=True):
        k = int((ti - t0) / width + 1e-9) if ti >= t0 else -1
        if k >= n:
            break
        while k_next <= k:
            out[k_next] = prev
            k_next += 1
        if k >= 0:
            out[k] = max(out[k], mi)
        prev = vi
    while k_next < n:
        out[k_next] = prev
        k_next += 1
    return out


def queue_level(t: list[float], v: list[float], t0: float, t1: float, top: list[float] | None = None) -> float:
    """The level a plot of the queue shows (claims/heybey.toml, s321-stable-level-five):
    the median over the 0.1 s intervals from t0 to t1 of the largest queue in each."""
    return float(statistics.median(interval_maxima(t, v, t0, t1, top=top)))


def cycles(t: list[float], v: list[float], end: float) -> list[dict[str, float]]:
    """Queue cycles: each rise to CYCLE_HIGH after being at CYCLE_LOW or below (the
    module's _cycles counts the same). Per cycle: ``low_t`` the last time at or below
    CYCLE_LOW before the rise, ``high_t`` the first time at CYCLE_HIGH or above,
    ``peak_t`` the time of the peak before the queue next falls to CYCLE_LOW, ``drain_t``
    that fall (``end`` when it never falls), ``drained`` whether it fell."""
    out: list[dict[str, float]] = []
    low_t = 0.0
    cur: dict[str, float] | None = None
    for ti, vi in zip(t, v, strict=True):
        if cur is None:
            if vi <= CYCLE_LOW:
                low_t = ti
            elif vi >= CYCLE_HIGH:
                cur = {"low_t": low_t, "high_t": ti, "peak_t": ti, "peak": vi}
        else:
            if vi > cur["peak"]:
                cur["peak"], cur["peak_t"] = vi, ti
            if vi <= CYCLE_LOW:
                cur["drain_t"], cur["drained"] = ti, 1.0
                out.append(cur)
                cur, low_t = None, ti
    if cur is not None:
        cur["drain_t"], cur["drained"] = end, 0.0
        out.append(cur)
    return out


def corr(x: Iterable[float], y: Iterable[float]) -> float:
    import numpy as np

    a, b = np.asarray(list(x), dtype=float), np.asarray(list(y), dtype=float)
    if len(a) < 2 or a.std() == 0 or b.std() == 0:
        return 0.0
    return pearson(a, b)


def _yes(b: bool) -> str:
    return "holds" if b else "does not hold"


# ---------------------------------------------------------------------------------------
# Figures: Mosely's topology.

# Mosely's own variants (section 3.1): Hayden and Jaffe with slow updates, Mosely fast.
MOSELY_RAN = {"hayden": "100ms", "jaffe": "100ms", "mosely": "20ms"}
OTHER_UPDATE = {"20ms": "100ms", "100ms": "20ms"}


def _mosely_label(alg: str, protocol: bool, update: str) -> str:
    return f"{alg.capitalize()}/{'yes' if protocol else 'no'}/{'fast' if update == '20ms' else 'slow'}"


def measure_mosely(raws: dict[str, dict[str, Any]]) -> dict[str, Measured]:
    """The 12 permutations on Mosely's topology (a = 0.8, 30 s, seed 1); A-1 and A-2's
    recorded runs are reused for Hayden/no/slow and Hayden/no/fast."""
    from ccsim.reproduce._heybey_runs import _run_fig

    runs: dict[tuple[str, bool, str], dict[str, Any]] = {}
    if "A-1" in raws and raws["A-1"]["sim_time_s"] >= 30:
        runs[("hayden", False, "100ms")] = raws["A-1"]
    if "A-2" in raws and raws["A-2"]["sim_time_s"] >= 30:
        runs[("hayden", False, "20ms")] = raws["A-2"]
    for alg in ("hayden", "jaffe", "mosely"):
        for protocol in (False, True):
            for update in ("20ms", "100ms"):
                if (alg, protocol, update) not in runs:
                    runs[(alg, protocol, update)], _ = _run_fig(
                        "mosely", {"algorithm": alg, "update": update, "protocol": protocol}
                    )
    chans = list(S.MOSELY_LINKS.values())

    def big(raw: dict[str, Any]) -> float:
        return max(queue_max_from(*_queue(raw, c), 10.0) for c in chans)

    qmax = {k: big(r) for k, r in runs.items()}
    out: dict[str, Measured] = {}

    ran = [(alg, p, MOSELY_RAN[alg]) for alg in MOSELY_RAN for p in (False, True)]
    large = all(qmax[k] >= LARGE_PKTS for k in ran)
    out["abstract-all-large-queues"] = Measured(
        ours=", ".join(f"{_mosely_label(*k)} {qmax[k]:.0f}" for k in ran)
        + f" packets (largest queue from 10 s on, 8 links): {_yes(large)}",
        holds=large,
    )

    pairs = []
    same = True
    for alg, upd in MOSELY_RAN.items():
        for p in (False, True):
            a, b = qmax[(alg, p, upd)], qmax[(alg, p, OTHER_UPDATE[upd])]
            agree = (a >= LARGE_PKTS) == (b >= LARGE_PKTS)
            same &= agree
            pairs.append(f"{_mosely_label(alg, p, upd)} {a:.0f} / {_mosely_label(alg, p, OTHER_UPDATE[upd])} {b:.0f}")
    out["s31-variants-neither-better-nor-worse"] = Measured(
        ours="; ".join(pairs) + f" packets: {_yes(same)} (both sides of 1000 agree in every pair)"
        if same
        else "; ".join(pairs) + " packets: the update rate separates large queues from small ones in some pair",
        holds=same,
    )

    jr = runs[("jaffe", False, "100ms")]
    cs = []
    for c in chans:
        tr = _trace(jr, c)
        bits = tr["bits_per_100ms"]
        flows = [0.0] * len(bits)
        k = 0
        last = 0.0
        for i in range(len(bits)):
            while k < len(tr["t_s"]) and tr["t_s"][k] < 0.1 * (i + 1):
                last = float(tr["flows"][k])
                k += 1
            flows[i] = last
        cs.append(corr(bits[100:], flows[100:]))
    m = sum(cs) / len(cs)
    out["s31-jaffe-bits-follow-flows"] = Measured(
        ours=f"mean correlation {m:.2f} over the 8 links (from {min(cs):.2f} to {max(cs):.2f}): {_yes(m >= 0.5)}",
        holds=m >= 0.5,
    )

    smaller = []
    for p in (False, True):
        j, h, mo = qmax[("jaffe", p, "100ms")], qmax[("hayden", p, "100ms")], qmax[("mosely", p, "20ms")]
        smaller.append(
            (j < h and j < mo, f"protocol {'yes' if p else 'no'}: Jaffe {j:.0f}, Hayden {h:.0f}, Mosely {mo:.0f}")
        )
    ok = all(s for s, _ in smaller)
    out["s31-jaffe-smaller-queues"] = Measured(
        ours="; ".join(t for _, t in smaller) + f" packets (largest from 10 s on): {_yes(ok)}", holds=ok
    )
    return out


# ---------------------------------------------------------------------------------------
# Figures.


def measure_stability(raws: dict[str, dict[str, Any]]) -> dict[str, Measured]:
    from ccsim.reproduce._heybey_runs import _flows_queue_corr

    out: dict[str, Measured] = {}
    l1, l2 = S.HEYBEY_LINKS["link 1"], S.HEYBEY_LINKS["link 2"]
    a5, a6 = raws.get("A-5"), raws.get("A-6")
    if a5 is not None and a5["sim_time_s"] > LATE_S:
        t, v = _queue(a5, l1)
        end = a5["sim_time_s"]
        lvl = queue_level(t, v, LATE_S, end)
        out["a5-queue-around-ten"] = Measured(
            ours=f"{lvl:.1f} packets (level on link 1 from 50 s, the median of its largest value per 0.1 s; time "
            f"average {time_mean(t, v, LATE_S, end):.2f}, largest {queue_max_from(t, v, LATE_S):.0f})",
            value=lvl,
        )
    if a6 is not None and a6["sim_time_s"] > LATE_S:
        t, v = _queue(a6, l1)
        mx = queue_max_from(t, v, 10.0)
        out["s321-unstable-two-three-thousand"] = Measured(
            ours=f"{mx:.0f} packets (largest on link 1 from 10 s on)", value=mx
        )
        tr = _trace(a6, l1)
        fl = [f for ts, f in zip(tr["t_s"], tr["flows"], strict=True) if ts >= 10.0]
        out["a6-flows-zero-to-fifteen"] = Measured(
            ours=f"{max(fl)} flows at most (smallest {min(fl)}) in link 1's table from 10 s on", value=float(max(fl))
        )
        c = _flows_queue_corr(a6, l1)
        out["a6-flows-in-phase"] = Measured(ours=f"correlation {c:.2f}: {_yes(c > 0)}", holds=c > 0)
        cap = 0.56 * 40000.0
        n = top = 0
        for here, other in ((l1, l2), (l2, l1)):
            tr = _trace(a6, here)
            ot, ov = _queue(a6, other)
            for ts, p in zip(tr["t_s"], tr["control_bps"], strict=True):
                if _value_at(ot, ov, ts) >= LARGE_PKTS:
                    n += 1
                    top += p >= 0.99 * cap
        share = top / n if n else 0.0
        out["s321-idle-link-control-all-the-way-up"] = Measured(
            ours=f"control value at c in {top} of {n} update attempts ({share:.0%}) while the other link's queue "
            f"is 1000 or more: {_yes(share > 0.5)}",
            holds=share > 0.5,
        )
    return out


# ---------------------------------------------------------------------------------------
# Figures A-3/A-4 (and their twins in the forward experiment).


def measure_params(raws: dict[str, dict[str, Any]]) -> dict[str, Measured]:
    from ccsim.reproduce._heybey_runs import _flows_queue_corr

    figs = [f for f in ("A-3", "A-4") if f in raws]
    if len(figs) < 2:
        return {}
    out: dict[str, Measured] = {}
    l1, l2 = S.HEYBEY_LINKS["link 1"], S.HEYBEY_LINKS["link 2"]
    cs = {f: _flows_queue_corr(raws[f], l1) for f in figs}
    ok = all(c > 0 for c in cs.values())
    out["s324-convoy-in-phase"] = Measured(
        ours=", ".join(f"{f} {c:.2f}" for f, c in cs.items()) + f" (correlation, link 1): {_yes(ok)}", holds=ok
    )

    lows = []
    for f in figs:
        raw = raws[f]
        t, v = _queue(raw, l1)
        tr = _trace(raw, l1)
        for cy in cycles(t, v, raw["sim_time_s"]):
            if not cy["drained"]:
                continue
            w = [
                fl for ts, fl in zip(tr["t_s"], tr["flows"], strict=True) if cy["drain_t"] <= ts <= cy["drain_t"] + 2.0
            ]
            if w:
                lows.append(min(w))
    med = statistics.median(lows) if lows else float("inf")
    out["s324-flows-near-zero-when-drained"] = Measured(
        ours=f"median {med:g} flows in the 2 s after a drain ({len(lows)} drains; from {min(lows, default=0)} "
        f"to {max(lows, default=0)}): {_yes(med <= 2)}",
        holds=med <= 2,
    )

    loads = []
    for f in figs:
        raw = raws[f]
        for here, other in ((l1, l2), (l2, l1)):
            t, v = _queue(raw, here)
            bits = _trace(raw, other)["bits_per_100ms"]
            for k, b in enumerate(bits):
                if _value_at(t, v, 0.1 * k) >= LARGE_PKTS:
                    loads.append(b / 4000.0)
    mean = sum(loads) / len(loads) if loads else float("inf")
    out["s324-other-link-unloaded"] = Measured(
        ours=f"the other link at {mean:.1%} of its capacity on average over {len(loads)} intervals of 0.1 s "
        f"with a queue of 1000 or more: {_yes(mean <= 0.10)}",
        holds=mean <= 0.10,
    )
    return out


# ---------------------------------------------------------------------------------------
# Figures.


def _shape(raw: dict[str, Any]) -> dict[str, float]:
    l1, l2 = S.HEYBEY_LINKS["link 1"], S.HEYBEY_LINKS["link 2"]
    end = raw["sim_time_s"]
    t, v = _queue(raw, l1)
    cy = cycles(t, v, end)
    drains = [c["drain_t"] - c["peak_t"] for c in cy]
    rises = [c["high_t"] - c["low_t"] for link in (l1, l2) for c in cycles(*_queue(raw, link), end)]
    late = max(queue_max_from(*_queue(raw, link), LATE_S) for link in (l1, l2))
    return {
        "cycles": float(len(cy)),
        "max10": queue_max_from(t, v, 10.0),
        "drain": sum(drains) / len(drains) if drains else float("inf"),
        "rise": sum(rises) / len(rises) if rises else float("inf"),
        "late": late,
    }


def measure_forward(raws: dict[str, dict[str, Any]]) -> dict[str, Measured]:
    """A-7/A-8 against the same settings with the rate read at transmission (A-3/A-4's
    runs, made here again so that this experiment stands alone)."""
    from ccsim.reproduce._heybey_runs import FIG_RUNS, _run_fig

    twins = {"A-7": "A-3", "A-8": "A-4"}
    figs = [f for f in twins if f in raws and raws[f]["sim_time_s"] > LATE_S]
    if len(figs) < 2:
        return {}
    base = {r[0]: r for r in FIG_RUNS["params"]}
    sh = {f: _shape(raws[f]) for f in figs}
    tw = {}
    for f in figs:
        _, _, topo, kw, _ = base[twins[f]]
        tw[f] = _shape(_run_fig(topo, kw)[0])
    out: dict[str, Measured] = {}
    unstable = all(sh[f]["late"] >= STABLE_PKTS for f in figs)
    out["a7-a8-still-large-queues"] = Measured(
        ours=", ".join(f"{f} {sh[f]['late']:.0f}" for f in figs)
        + f" packets (largest on either link from 50 s on): {_yes(unstable)}",
        holds=unstable,
    )

    def compare(key: str, more: bool, what: str, fmt: str) -> Measured:
        ok = all((sh[f][key] > tw[f][key]) if more else (sh[f][key] < tw[f][key]) for f in figs)
        words = "; ".join(f"{f} {format(sh[f][key], fmt)} against {twins[f]} {format(tw[f][key], fmt)}" for f in figs)
        return Measured(ours=f"{what}: {words}: {_yes(ok)}", holds=ok)

    out["a7-a8-more-faster-oscillation"] = compare("cycles", True, "queue cycles on link 1", ".0f")
    out["a7-a8-queues-smaller"] = compare("max10", False, "largest queue on link 1 from 10 s (packets)", ".0f")
    out["a7-a8-drain-faster"] = compare("drain", False, "mean time from a cycle's peak to 50 packets (s)", ".1f")
    out["a7-a8-builds-faster"] = compare("rise", False, "mean time from 50 to 500 packets, both links (s)", ".2f")
    return out


# ---------------------------------------------------------------------------------------
# Table 3-1 and the statements about every run (the seed-1 grid).

Key = tuple[bool, str, str, str]  # (slow start, algorithm, "no"/"yes", "fast"/"slow")


def _late_case(case: tuple[bool, str, bool, str, float, int]) -> dict[str, Any]:
    """One run of Heybey's topology judged by the 3.2.1 rule (runs in a worker process):
    the smart links count their largest queue from 50 s, and a phase from 50 s to 150 s
    gives the time-average queue after the startup."""
    ss, alg, protocol, update, a, seed = case
    sc = S.heybey(
        algorithm=alg, protocol=protocol, update=update, a=a, slow_start=ss, seed=seed, queue_after=f"{LATE_S:g}s"
    )
    sc["phases"] = [{"name": "late", "start": f"{LATE_S:g}s", "end": sc["scenario"]["duration"]}]
    chans = set(S.HEYBEY_LINKS.values())
    # The queues in 0.1 s buckets with each bucket's largest value (the level a plot shows).
    sc["measure"] = {"series": [f"{c}.queue" for c in sorted(chans)], "sample": f"{LEVEL_WIDTH_S * 1000:g}ms"}
    raw = ccsim.run(sc).raw
    dur = float(sc["scenario"]["duration"].rstrip("s"))
    series = {s["name"]: s for s in raw["series"]}
    links = [L for L in raw["links"] if L["name"] in chans]
    from ccsim.reproduce._heybey_runs import _elements

    late_max = max(_elements(L)[0]["queue_max_after_pkts"] for L in links)
    late = [L for L in raw["phases"][0]["links"] if L["name"] in chans]
    return {
        "slow_start": ss,
        "algorithm": alg,
        "protocol": "yes" if protocol else "no",
        "update": "fast" if update == "20ms" else "slow",
        "a": a,
        "seed": seed,
        "late_max": int(late_max),
        "stable": late_max < STABLE_PKTS,
        "whole_max": int(max(L["queue_max_pkts"] for L in links)),
        "late_mean": sum(L["queue_mean_pkts"] for L in late) / len(late),
        "late_level": sum(
            queue_level(series[f"{c}.queue"]["t"], series[f"{c}.queue"]["v"], LATE_S, dur, series[f"{c}.queue"]["max"])
            for c in chans
        )
        / len(chans),
        "kbps": sum(L["tx_bits"] for L in links) / dur / 1000.0 / len(links),
    }


def _late_scan(task: tuple[bool, str, bool, str, int, tuple[float, ...]]) -> list[dict[str, Any]]:
    """A row's scan for one seed over the given values of a, up to its first run that is
    unstable by the 3.2.1 rule."""
    ss, alg, protocol, update, seed, grid = task
    out = []
    for a in grid:
        out.append(_late_case((ss, alg, protocol, update, a, seed)))
        if not out[-1]["stable"]:
            break
    return out


def _key(c: dict[str, Any]) -> Key:
    return (c["slow_start"], c["algorithm"], c["protocol"], c["update"])


def late_runs(
    every: list[dict[str, Any]], seeds: list[int], grid: list[float], algorithms: list[str], jobs: int
) -> tuple[list[dict[str, Any]], dict[tuple[Key, int], list[dict[str, Any]]]]:
    """(the seed-1 grid judged by the 3.2.1 rule, each other seed's row scan by that rule).
    ``every``: the table's own runs (judged from 10 s), whose scans for seeds 2-5 give
    where the 3.2.1-rule scans start (every run before a scan's first unstable one is
    stable by both rules, since the 10 s window holds the 50 s one)."""
    import contextlib
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    rows = [
        (ss, alg, proto, upd)
        for ss in (False, True)
        for alg in algorithms
        for proto in (False, True)
        for upd in ("20ms", "100ms")
    ]
    cases = [(*r, a, 1) for r in rows for a in grid] if 1 in seeds else []
    main = (S.START_SPREAD, S.FIRST_CONTROL)
    base = [c for c in every if (c["start_spread"], c["first_control"]) == main]
    tasks: list[tuple[bool, str, bool, str, int, tuple[float, ...]]] = []
    before: dict[tuple[Key, int], list[dict[str, Any]]] = {}
    for ss, alg, proto, upd in rows:
        key = (ss, alg, "yes" if proto else "no", "fast" if upd == "20ms" else "slow")
        for seed in seeds:
            if seed == 1:
                continue
            scan = sorted((c for c in base if _key(c) == key and c["seed"] == seed), key=lambda c: c["a"])
            first = next((c["a"] for c in scan if not c["stable"]), None)
            before[(key, seed)] = [c for c in scan if first is None or c["a"] < first]
            if first is not None:
                tasks.append((ss, alg, proto, upd, seed, tuple(a for a in grid if a >= first - 1e-9)))
    pool = ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) if jobs > 1 else None
    with pool or contextlib.nullcontext():
        if pool:
            scans = list(pool.map(_late_scan, tasks, chunksize=1))
            grid_runs = list(pool.map(_late_case, cases, chunksize=16))
        else:
            scans = [_late_scan(t) for t in tasks]
            grid_runs = [_late_case(c) for c in cases]
    per_seed = {k: [{**c, "stable": True} for c in v] for k, v in before.items()}
    for t, scan in zip(tasks, scans, strict=True):
        ss, alg, proto, upd, seed, _ = t
        key = (ss, alg, "yes" if proto else "no", "fast" if upd == "20ms" else "slow")
        per_seed[(key, seed)] += scan
    return grid_runs, per_seed


def _slug(key: Key) -> str:
    ss, alg, proto, upd = key
    return f"t31-{alg}-{proto}-{upd}{'-ss' if ss else ''}"


def _label(key: Key) -> str:
    ss, alg, proto, upd = key
    return f"{alg.capitalize()}/{proto}/{upd}{' with slow start' if ss else ''}"


def measure_table(
    every: list[dict[str, Any]],
    grid_runs: list[dict[str, Any]],
    per_seed: dict[tuple[Key, int], list[dict[str, Any]]],
    seeds: list[int],
) -> dict[str, Measured]:
    from ccsim.reproduce._heybey_runs import threshold

    out: dict[str, Measured] = {}
    keys = sorted({_key(c) for c in grid_runs} | {k for k, _ in per_seed}, key=lambda k: (k[1], k[2], k[3], k[0]))
    g = {k: sorted((c for c in grid_runs if _key(c) == k), key=lambda c: c["a"]) for k in keys}
    main = (S.START_SPREAD, S.FIRST_CONTROL)
    old = {(_key(c), c["a"]): c for c in every if c["seed"] == 1 and (c["start_spread"], c["first_control"]) == main}

    # Table 3-1 thresholds, per row: mean over the seeds.
    thr: dict[Key, tuple[float, float, float | None]] = {}
    for k in keys:
        a_s, k_s, a1 = [], [], None
        for seed in seeds:
            cases = g[k] if seed == 1 else per_seed.get((k, seed), [])
            if not cases:
                continue
            a, kb, _ = threshold(cases)
            a_s.append(NO_THRESHOLD_A if a is None else a)
            if kb is not None:
                k_s.append(kb)
            if seed == 1:
                a1 = a
        if not a_s:
            continue
        ma, mk = sum(a_s) / len(a_s), (sum(k_s) / len(k_s) if k_s else float("nan"))
        thr[k] = (ma, mk, a1)
        out[f"{_slug(k)}-a"] = Measured(
            ours=f"{ma:.3f} (seeds {seeds[0]}-{seeds[-1]}: {min(a_s):.2f}-{max(a_s):.2f}; seed 1: "
            f"{'-' if a1 is None else f'{a1:.2f}'})",
            value=ma,
            spread=(min(a_s), max(a_s)),
        )
        if k_s:
            out[f"{_slug(k)}-kbps"] = Measured(
                ours=f"{mk:.1f} kbit/s at the threshold (mean over {len(k_s)} seeds)",
                value=mk,
                spread=(min(k_s), max(k_s)),
            )

    if not g or not any(g.values()):
        return out
    rows_ss = [k for k in keys if k[0]]
    prevented = [k for k in rows_ss if all(c["stable"] for c in g[k])]
    out["intro-slow-start-does-not-prevent"] = Measured(
        ours=f"{len(rows_ss) - len(prevented)} of {len(rows_ss)} rows with slow start have an unstable run at some a"
        + (f" (never unstable: {', '.join(_label(k) for k in prevented)})" if prevented else ""),
        holds=not prevented,
    )

    hm = [k for k in keys if not k[0] and k[1] in ("hayden", "mosely")]
    works = [k for k in hm if any(c["stable"] and c["a"] < 0.8 - 1e-9 for c in g[k])]
    out["s31-lower-a-no-large-queues"] = Measured(
        ours=f"{len(works)} of {len(hm)} Hayden and Mosely rows stable at some a below 0.8", holds=len(works) == len(hm)
    )

    jumps, small = 0, []
    for k in keys:
        a, _, _ = threshold(g[k])
        nxt = next((c for c in g[k] if a is not None and c["a"] > a + 1e-9), None)
        if a is None or nxt is None:
            continue
        jumps += 1
        if nxt["late_max"] < LARGE_PKTS:
            small.append(f"{_label(k)} {nxt['late_max']} at {nxt['a']:.2f}")
    out["s321-sudden-jump"] = Measured(
        ours=f"{jumps - len(small)} of {jumps} rows jump to 1000 packets or more one step above the threshold"
        + (f"; not: {', '.join(small)}" if small else ""),
        holds=jumps > 0 and not small,
    )

    stable = [c for c in grid_runs if c["stable"]]
    if stable:
        spike = max(c["whole_max"] for c in stable)
        out["s321-stable-startup-spike"] = Measured(
            ours=f"{spike} packets at most over the {len(stable)} stable runs (median "
            f"{statistics.median(c['whole_max'] for c in stable):.0f})",
            value=float(spike),
        )
        levels = [c["late_level"] for c in stable]
        lvl = statistics.median(levels)
        out["s321-stable-level-five"] = Measured(
            ours=f"{lvl:.1f} packets (median over {len(stable)} stable runs of the queue's level from 50 s, the median "
            f"of its largest value per 0.1 s; from {min(levels):.1f} to {max(levels):.1f}; time average "
            f"{statistics.median(c['late_mean'] for c in stable):.2f})",
            value=lvl,
        )
        top = max(c["late_max"] for c in stable)
        over = sum(1 for c in stable if c["late_max"] > 50)
        out["s321-stable-spikes-50"] = Measured(
            ours=f"{top} packets at most from 50 s on; {over} of {len(stable)} stable runs pass 50", value=float(top)
        )

    rec = [c for c in grid_runs if c["stable"] and old.get((_key(c), c["a"]), {}).get("queue_max_after", 0) >= 700]
    out["s321-one-run-recovers"] = Measured(
        ours=f"{len(rec)} runs reach 700 packets or more after 10 s and are stable from 50 s on", holds=len(rec) >= 2
    )

    nonmono = [k for k in keys if threshold(g[k])[2] > 0]
    out["s321-stable-unstable-stable"] = Measured(
        ours=f"{len(nonmono)} of {len(keys)} rows have a stable a above their first unstable one"
        + (f" ({', '.join(_label(k) for k in nonmono[:4])}{', ...' if len(nonmono) > 4 else ''})" if nonmono else ""),
        holds=bool(nonmono),
    )

    far = []
    for k in keys:
        first = next((c["a"] for c in g[k] if not c["stable"]), None)
        if first is None:
            continue
        far += [f"{_label(k)} at {c['a']:.2f}" for c in g[k] if c["a"] >= first + 0.10 - 1e-9 and c["stable"]]
    out["s321-far-from-threshold-always"] = Measured(
        ours=f"{len(far)} stable runs at 0.10 or more above their row's first unstable a"
        + (f" ({', '.join(far[:4])}{', ...' if len(far) > 4 else ''})" if far else ""),
        holds=not far,
    )

    mid = [c for c in grid_runs if STABLE_PKTS <= c["late_max"] < LARGE_PKTS]
    out["s321-no-intermediate-region"] = Measured(
        ours=f"{len(mid)} of {len(grid_runs)} runs have a largest queue from 50 s on between 100 and 999 packets",
        holds=not mid,
    )

    at08 = {k: next((c for c in g[k] if abs(c["a"] - 0.80) < 1e-9), None) for k in keys if not k[0]}
    if all(c is not None for c in at08.values()):
        jaffe = [k for k, c in at08.items() if k[1] == "jaffe" and c["stable"]]
        others = [k for k, c in at08.items() if k[1] != "jaffe" and c["stable"]]
        ok = bool(jaffe) and not others
        out["s322-only-jaffe-works"] = Measured(
            ours=f"stable at a = 0.80: {', '.join(_label(k) for k in jaffe + others) or 'none'}: {_yes(ok)}", holds=ok
        )

    def best(ss: bool) -> dict[str, float]:
        return {alg: max(thr[k][1] for k in thr if k[0] == ss and k[1] == alg) for alg in sorted({k[1] for k in thr})}

    b = best(False)
    if b and all(v == v for v in b.values()):
        ratio = max(b.values()) / min(b.values())
        out["s322-throughput-hardly-different"] = Measured(
            ours=", ".join(f"{alg.capitalize()} {v:.1f}" for alg, v in b.items())
            + f" kbit/s (largest over smallest {ratio:.2f}): {_yes(ratio <= 1.15)}",
            holds=ratio <= 1.15,
        )

    pairs = [(k, (True, *k[1:])) for k in thr if not k[0] and (True, *k[1:]) in thr]
    if pairs:
        rise = [thr[s][1] - thr[k][1] for k, s in pairs]
        m = sum(rise) / len(rise)
        out["s323-slow-start-raises-throughput"] = Measured(
            ours=f"mean rise {m:+.2f} kbit/s over {len(rise)} rows (from {min(rise):+.1f} to {max(rise):+.1f}): "
            f"{_yes(m >= 2.0)}",
            holds=m >= 2.0,
        )
        per_alg = {}
        for alg in sorted({k[1] for k, _ in pairs}):
            no = [thr[k][0] for k, _ in pairs if k[1] == alg]
            yes = [thr[s][0] for k, s in pairs if k[1] == alg]
            per_alg[alg] = (sum(no) / len(no), sum(yes) / len(yes))
        ok = all(y > n for n, y in per_alg.values())
        out["concl-slow-start-higher-a"] = Measured(
            ours="; ".join(f"{alg.capitalize()} {n:.3f} -> {y:.3f}" for alg, (n, y) in per_alg.items())
            + f" (mean threshold a without -> with slow start): {_yes(ok)}",
            holds=ok,
        )

    entered = [c for c in grid_runs if old.get((_key(c), c["a"]), {}).get("queue_max_after", 0) >= LARGE_PKTS]
    if entered:
        stuck = sum(1 for c in entered if not c["stable"])
        out["s324-does-not-recover"] = Measured(
            ours=f"{stuck} of {len(entered)} runs that reached 1000 packets after 10 s are still unstable from 50 s on "
            f"({stuck / len(entered):.0%}): {_yes(stuck / len(entered) > 0.5)}",
            holds=stuck / len(entered) > 0.5,
        )

        def recovered(ss: bool) -> tuple[int, int]:
            e = [c for c in entered if c["slow_start"] == ss]
            return sum(1 for c in e if c["stable"]), len(e)

        r0, n0 = recovered(False)
        r1, n1 = recovered(True)
        if n0 and n1:
            ok = r1 / n1 <= r0 / n0
            out["s323-slow-start-does-not-help-recover"] = Measured(
                ours=f"recovered: {r1} of {n1} ({r1 / n1:.0%}) with slow start, {r0} of {n0} ({r0 / n0:.0%}) "
                f"without: {_yes(ok)}",
                holds=ok,
            )
    return out
