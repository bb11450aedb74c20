"""The claims of Keshav 1991 (``claims/keshav.toml``) measured on the reproductions' runs.

Each ``measure_*`` function takes the runs a Keshav reproduction already makes and
returns ``{claim id: Measured}`` for the claims of its experiment ("s1", "s2", "s3").
Every statistic is the one the inventory states; the thresholds below are the words'
rules of the inventory's ``[tolerance].text`` ('nearly equal' = the smaller at least 85%
of the larger, 'exactly' / 'the same' = within 0.05 pkt/s, 'much more' = more than 1.5
times, 'unfair' = differ by more than 0.05 pkt/s).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

import ccsim
from ccsim.reproduce.claims import Measured, load

PAPER = "keshav"

# The words' rules of the inventory's [tolerance].text.
NEARLY = 0.85  # 'nearly / approximately / almost equal': smaller >= 85% of larger
EXACT = 0.05  # 'exactly', 'the same': within 0.05 pkt/s
MUCH = 1.5  # 'much more', 'much better', 'considerably': more than 1.5 times
UNFAIR = 0.05  # 'some unfairness': shares differ by more than 0.05 pkt/s
REL, FLOOR = 0.15, 0.3  # the value tolerance of rates (15% or 0.3 pkt/s)

PAIRS = ["G/FCFS", "G/FQ", "JK/FCFS", "JK/FQ", "PP/FQ"]


def _slug(pair: str) -> str:
    return pair.lower().replace("/", "-")


_MET = {"throughput": "thr", "loss": "loss", "retransmission": "retx", "delay": "delay"}


def _f(x: float) -> str:
    return f"{x:.2f}"


def _keep(measured: dict[str, Measured]) -> dict[str, Measured]:
    """Only the claims the inventory has (a measurement of an unknown id is an error)."""
    ids = load(PAPER).by_id()
    return {k: v for k, v in measured.items() if k in ids}


# ---------------------------------------------------------------- series helpers


def _steps(results: ccsim.Results, name: str) -> tuple[list[float], list[float]]:
    df = results.series(name)
    return [float(x) for x in df["t"]], [float(x) for x in df["v"]]


def _segments(t: list[float], v: list[float], a: float, b: float) -> list[tuple[float, float]]:
    """(value, duration) of a step series (each point holds until the next) over [a, b)."""
    out = []
    for i, (ti, vi) in enumerate(zip(t, v, strict=True)):
        end = t[i + 1] if i + 1 < len(t) else b
        lo, hi = max(ti, a), min(end, b)
        if hi > lo:
            out.append((vi, hi - lo))
    return out


def _time_mean(t: list[float], v: list[float], a: float, b: float) -> float:
    seg = _segments(t, v, a, b)
    return sum(x * d for x, d in seg) / sum(d for _, d in seg)


def _time_quantile(t: list[float], v: list[float], a: float, b: float, q: float) -> float:
    """The value below which a fraction ``q`` of [a, b) is spent."""
    seg = sorted(_segments(t, v, a, b))
    total = sum(d for _, d in seg)
    acc = 0.0
    for x, d in seg:
        acc += d
        if acc >= q * total:
            return x
    return seg[-1][0]


def _value_at(t: list[float], v: list[float], at: float) -> float:
    before = [x for ti, x in zip(t, v, strict=True) if ti <= at]
    return before[-1] if before else 0.0


def _first_reach(t: list[float], v: list[float], after: float, level: float) -> float | None:
    """First time >= ``after`` at which the step series is at or above ``level``."""
    if _value_at(t, v, after) >= level:
        return after
    return next((ti for ti, x in zip(t, v, strict=True) if ti > after and x >= level), None)


def _falls_to_one(t: list[float], v: list[float], a: float, b: float) -> int:
    """How often the series falls from above 1 to 1 or below within [a, b) (shutdowns)."""
    n = 0
    prev = _value_at(t, v, a)
    for ti, x in zip(t, v, strict=True):
        if a < ti < b:
            if prev > 1 and x <= 1:
                n += 1
            prev = x
    return n


def _rise_time(t: list[float], v: list[float], start: float, settle: tuple[float, float]) -> float | None:
    """Seconds after ``start`` until the series first reaches 90% of its time-weighted
    median over ``settle``."""
    median = _time_quantile(t, v, *settle, 0.5)
    reached = _first_reach(t, v, start, 0.9 * median)
    return None if reached is None else reached - start


def _ratio(a: float, b: float) -> float:
    """min/max of two shares (1 when both are 0)."""
    hi = max(a, b)
    return min(a, b) / hi if hi > 0 else 1.0


# ---------------------------------------------------------------- Scenario 1

RTT1 = 4.0  # Scenario 1's round trip (2 x 2 s), as keshav_s1.figure_units derives it
DEPTH1 = 40.0
OFF = (300.0, 600.0)  # the background's off period (phase bg-off)
ON = (600.0, 900.0)  # its second on period (phase bg-on)


def measure_s1(
    phased: dict[str, list[ccsim.Results]],
    unjittered: dict[str, ccsim.Results],
    flow_value: Callable[[ccsim.Results, str, str, str], float],
) -> dict[str, Measured]:
    """Scenario 1's claims: ``phased`` holds the 40 background phases of every pair,
    ``unjittered`` the runs that draw the figures, ``flow_value(run, phase, flow, key)`` one
    counter of one flow in one phase."""
    flows = {"1": "ftp1", "2": "ftp2", "bkg": "bkg"}
    keys = {"throughput": "goodput_pps", "loss": "loss_pps", "retransmission": "retransmission_pps"}

    def per_phase(pair: str, phase: str, metric: str, source: str) -> list[float]:
        return [flow_value(r, phase, flows[source], keys[metric]) for r in phased[pair]]

    def mean(pair: str, phase: str, metric: str, source: str) -> float:
        return statistics.fmean(per_phase(pair, phase, metric, source))

    m: dict[str, Measured] = {}
    n = len(phased["PP/FQ"])
    # Table 2, cell by cell.
    for pair in PAIRS:
        for phase, tag, sources in (("bg-off", "bgoff", ("1", "2")), ("bg-on", "bgon", ("1", "2", "bkg"))):
            for metric in keys:
                for source in sources:
                    values = per_phase(pair, phase, metric, source)
                    mu = statistics.fmean(values)
                    m[f"t2-{_slug(pair)}-{tag}-{_MET[metric]}-{source}"] = Measured(
                        ours=f"{_f(mu)} pkt/s (mean of {n} phases, {_f(min(values))}-{_f(max(values))})",
                        value=mu,
                        spread=(min(values), max(values)),
                    )

    # Section 4.1, the text.
    bad = []
    for pair in PAIRS:
        for source in ("1", "2", "bkg"):
            first = mean(pair, "bg-on-first", "throughput", source)
            second = mean(pair, "bg-on", "throughput", source)
            if abs(first - second) > max(REL * abs(second), FLOOR):
                bad.append(f"{pair} {source} {_f(first)} vs {_f(second)}")
    m["s1-periods-nearly-identical"] = Measured(
        ours=f"{15 - len(bad)} of 15 pair/source throughputs of 0-300 s within 15% or 0.3 pkt/s of 600-900 s"
        + (f"; not: {'; '.join(bad)}" if bad else ""),
        holds=not bad,
    )

    a, b = mean("G/FCFS", "bg-off", "throughput", "1"), mean("G/FCFS", "bg-off", "throughput", "2")
    m["s1-gfcfs-bgoff-exact-half"] = Measured(
        ours=f"{_f(a)} and {_f(b)} pkt/s (differ by {abs(a - b):.3f})", holds=abs(a - b) <= EXACT
    )

    lost = per_phase("G/FCFS", "bg-on", "loss", "bkg")
    got = per_phase("G/FCFS", "bg-on", "throughput", "bkg")
    locked = sum(1 for x in got if x < 0.5)
    m["s1-gfcfs-background-starved"] = Measured(
        ours=f"background loses {_f(statistics.fmean(lost))} of its 5 pkt/s and delivers {_f(statistics.fmean(got))} "
        f"(mean of {n} phases); locked out (under 0.5 pkt/s) in {locked} of {n} phases",
        holds=statistics.fmean(lost) >= 0.9 * 5.0,
    )

    g = {s: mean("G/FQ", "bg-on", "throughput", s) for s in ("1", "2", "bkg")}
    m["s1-gfq-bgon-background-most"] = Measured(
        ours=f"background {_f(g['bkg'])} against FTPs {_f(g['1'])} + {_f(g['2'])} = {_f(g['1'] + g['2'])} pkt/s",
        holds=g["bkg"] > g["1"] + g["2"],
    )

    r = mean("G/FQ", "bg-off", "retransmission", "1") + mean("G/FQ", "bg-off", "retransmission", "2")
    m["s1-gfq-bgoff-few-retransmissions"] = Measured(
        ours=f"FTPs' retransmission rates add up to {_f(r)} pkt/s", holds=0 < r <= FLOOR
    )

    jk = unjittered["JK/FCFS"]
    t, v = _steps(jk, "ftp1.cwnd")
    falls = _falls_to_one(t, v, *ON)
    m["s1-jkfcfs-cycle-repeats"] = Measured(
        ours=f"source 1's window falls to 1 packet {falls} times in 600-900 s", holds=falls >= 2
    )
    full = _first_reach(t, v, OFF[0], DEPTH1)
    if full is None or full >= OFF[1]:
        m["s1-fig2-window-full-from-75"] = Measured(
            ours="the window does not reach 40 packets in the off period", value=OFF[1] / RTT1
        )
        m["s1-fig2-window-stable"] = Measured(ours="never at 40 packets in the off period", holds=False)
    else:
        m["s1-fig2-window-full-from-75"] = Measured(
            ours=f"at 40 packets from round trip {full / RTT1:.1f} ({full:.0f} s)", value=full / RTT1
        )
        dips = [ti for ti, x in zip(t, v, strict=True) if full < ti < OFF[1] and x < DEPTH1]
        m["s1-fig2-window-stable"] = Measured(
            ours=f"at 40 from {full:.0f} s; "
            + (f"falls below 40 at {dips[0]:.0f} s" if dips else "stays at 40 until 600 s"),
            holds=not dips,
        )

    a, b = mean("JK/FCFS", "bg-off", "throughput", "1"), mean("JK/FCFS", "bg-off", "throughput", "2")
    m["s1-jkfcfs-bgoff-equal"] = Measured(
        ours=f"{_f(a)} and {_f(b)} pkt/s (ratio {_ratio(a, b):.3f})", holds=_ratio(a, b) >= NEARLY
    )

    j = {s: mean("JK/FCFS", "bg-on", "throughput", s) for s in ("1", "2", "bkg")}
    top = max(j["1"], j["2"])
    m["s1-jkfcfs-bgon-background-much-more"] = Measured(
        ours=f"background {_f(j['bkg'])} against FTPs {_f(j['1'])}/{_f(j['2'])} pkt/s ({j['bkg'] / top:.2f} times the larger)",
        holds=j["bkg"] > MUCH * top,
    )

    for pair, cid in (("JK/FQ", "s1-jkfq-bgon-nearly-equal"), ("PP/FQ", "s1-ppfq-bgon-almost-equal")):
        s = [mean(pair, "bg-on", "throughput", x) for x in ("1", "2", "bkg")]
        ratio = min(s) / max(s)
        m[cid] = Measured(
            ours=f"{'/'.join(_f(x) for x in s)} pkt/s (smallest/largest {ratio:.3f})", holds=ratio >= NEARLY
        )

    jq = [mean("JK/FQ", "bg-on", "throughput", x) for x in ("1", "2")]
    ideal = 10.0 / 3.0
    m["s1-jkfq-bgon-small-throughput-loss"] = Measured(
        ours=f"FTPs {_f(jq[0])}/{_f(jq[1])} pkt/s against the ideal 3.33 ({min(jq) / ideal:.0%} at worst)",
        holds=min(jq) >= NEARLY * ideal,
    )

    qt, qv = _steps(unjittered["JK/FQ"], "sw->sink.queue")
    empty = sum(d for x, d in _segments(qt, qv, *ON) if x <= 0) / (ON[1] - ON[0])
    m["s1-jkfq-bottleneck-never-idle"] = Measured(
        ours=f"bottleneck queue empty {empty:.1%} of 600-900 s", holds=empty <= 0.05
    )

    def ftp_avg(pair: str, phase: str) -> float:
        return (mean(pair, phase, "throughput", "1") + mean(pair, phase, "throughput", "2")) / 2

    pp_off, jk_off = ftp_avg("PP/FQ", "bg-off"), ftp_avg("JK/FQ", "bg-off")
    m["s1-ppfq-bgoff-same-as-jk"] = Measured(
        ours=f"PP/FQ {_f(pp_off)}, JK/FQ {_f(jk_off)} pkt/s per FTP (differ by {abs(pp_off - jk_off):.3f})",
        holds=abs(pp_off - jk_off) <= EXACT,
    )
    pp_on, jk_on = ftp_avg("PP/FQ", "bg-on"), ftp_avg("JK/FQ", "bg-on")
    gains = [
        ((p1 + p2) / (j1 + j2) - 1)
        for p1, p2, j1, j2 in zip(
            per_phase("PP/FQ", "bg-on", "throughput", "1"),
            per_phase("PP/FQ", "bg-on", "throughput", "2"),
            per_phase("JK/FQ", "bg-on", "throughput", "1"),
            per_phase("JK/FQ", "bg-on", "throughput", "2"),
            strict=True,
        )
    ]
    m["s1-ppfq-bgon-10pct-more"] = Measured(
        ours=f"PP/FQ {_f(pp_on)}, JK/FQ {_f(jk_on)} pkt/s per FTP: {pp_on / jk_on - 1:+.1%}",
        value=pp_on / jk_on - 1,
        spread=(min(gains), max(gains)),
    )

    pp = unjittered["PP/FQ"]
    pt, pv = _steps(pp, "ftp1.outstanding")
    settle = (450.0, OFF[1])
    pp_rise = _rise_time(pt, pv, OFF[0], settle)
    m["s1-ppfq-two-rtts"] = Measured(
        ours=(
            f"{pp_rise / RTT1:.2f} round trips ({pp_rise:.1f} s) to 90% of the settled "
            f"{_time_quantile(pt, pv, *settle, 0.5):.0f} packets"
            if pp_rise is not None
            else "never reaches 90% of its settled value"
        ),
        value=(pp_rise if pp_rise is not None else OFF[1] - OFF[0]) / RTT1,
    )
    out_mean = _time_mean(pt, pv, *ON)
    m["s1-fig3-outstanding-18"] = Measured(
        ours=f"{out_mean:.1f} packets ({out_mean / DEPTH1:.2f} pipeline depths), time-weighted over 600-900 s",
        value=out_mean,
    )
    lo, hi = _time_quantile(pt, pv, *ON, 0.05), _time_quantile(pt, pv, *ON, 0.95)
    m["s1-fig3-small-oscillation"] = Measured(
        ours=f"5th-95th percentile {lo:.0f}-{hi:.0f} packets (band {hi - lo:.0f})", holds=hi - lo <= 4
    )
    peak = max([x for ti, x in zip(pt, pv, strict=True) if OFF[0] <= ti <= OFF[0] + 5 * RTT1], default=0.0)
    p95 = _time_quantile(pt, pv, 400.0, OFF[1], 0.95)
    m["s1-fig3-spike-at-75"] = Measured(
        ours=f"peak {peak:.0f} packets in 300-320 s against a 95th percentile of {p95:.0f} over 400-600 s",
        holds=peak > p95,
    )

    jk_rise = _rise_time(t, v, OFF[0], settle)
    m["concl-s1-jk-slow-pp-immediate"] = Measured(
        ours=f"after the background stops: JK/FCFS's window {_rt(jk_rise)}, PP/FQ's packets outstanding {_rt(pp_rise)}",
        holds=(jk_rise if jk_rise is not None else float("inf")) > (pp_rise if pp_rise is not None else float("inf")),
    )

    sums = {
        p: sum(mean(p, ph, "throughput", s) for ph in ("bg-off", "bg-on") for s in ("1", "2"))
        for p in ("JK/FQ", "PP/FQ")
    }
    m["concl-s1-jkfq-nearly-as-well-as-pp"] = Measured(
        ours=f"FTP throughputs over both periods: JK/FQ {_f(sums['JK/FQ'])}, PP/FQ {_f(sums['PP/FQ'])} "
        f"({sums['JK/FQ'] / sums['PP/FQ']:.0%})",
        holds=sums["JK/FQ"] >= NEARLY * sums["PP/FQ"],
    )
    return _keep(m)


def _rt(rise: float | None) -> str:
    return "never reaches 90% of its settled value" if rise is None else f"{rise / RTT1:.1f} round trips"


# ---------------------------------------------------------------- Scenarios 2 and 3

FAIR = 10.0 / 6.0  # one of six conversations on a 10 pkt/s slow line


def measure_tandem(
    experiment: str,
    cell: Callable[[str, str], float],
    results: dict[str, ccsim.Results],
    rtt_s: float,
    depth: float,
    probe_run: ccsim.Results | None = None,
) -> dict[str, Measured]:
    """Scenario 2 (experiment "s2", Table 3) or 3 ("s3", Table 4): ``cell(pair, column)``
    is our table value (interval mean or sd), ``results`` the run of each pair."""
    tab = "t3" if experiment == "s2" else "t4"
    m: dict[str, Measured] = {}
    for pair in PAIRS:
        for metric in ("throughput", "delay", "loss", "retransmission"):
            for source in ("1", "2"):
                for sd in (False, True):
                    col = f"{metric} {source}{' sd' if sd else ''}"
                    x = cell(pair, col)
                    unit = "s" if metric == "delay" else "pkt/s"
                    m[f"{tab}-{_slug(pair)}-{_MET[metric]}-{source}{'-sd' if sd else ''}"] = Measured(
                        ours=f"{x:.2f} {unit}" if abs(x) >= 0.005 or x == 0 else f"{x:.4f} {unit}", value=x
                    )

    thr = {p: (cell(p, "throughput 1"), cell(p, "throughput 2")) for p in PAIRS}
    tot = {p: sum(v) for p, v in thr.items()}

    def shares(p: str) -> str:
        return f"{p} {_f(thr[p][0])}/{_f(thr[p][1])}"

    poor = [p for p in ("G/FCFS", "G/FQ") if tot[p] < NEARLY * 2 * FAIR]
    m[f"{experiment}-generic-poor"] = Measured(
        ours=f"{shares('G/FCFS')} (sum {_f(tot['G/FCFS'])}), {shares('G/FQ')} (sum {_f(tot['G/FQ'])}) pkt/s "
        f"against {_f(NEARLY * 2 * FAIR)} (85% of 2 x 1.67)",
        holds=len(poor) == 2,
    )

    if experiment == "s2":
        m["s2-jkfcfs-much-better-than-gfcfs"] = Measured(
            ours=f"JK/FCFS {_f(tot['JK/FCFS'])} against G/FCFS {_f(tot['G/FCFS'])} pkt/s ({tot['JK/FCFS'] / tot['G/FCFS']:.2f} times)",
            holds=tot["JK/FCFS"] > MUCH * tot["G/FCFS"],
        )
        m["s2-jkfq-improves-considerably"] = Measured(
            ours=f"JK/FQ {_f(tot['JK/FQ'])} against JK/FCFS {_f(tot['JK/FCFS'])} pkt/s ({tot['JK/FQ'] / tot['JK/FCFS']:.2f} times)",
            holds=tot["JK/FQ"] > MUCH * tot["JK/FCFS"],
        )
        for pair, cid in (("JK/FCFS", "s2-fig5"), ("JK/FQ", "s2-fig6")):
            t, v = _steps(results[pair], "ftp1.cwnd")
            top = max(v)
            name = "max-window-018" if pair == "JK/FCFS" else "max-window-030"
            m[f"{cid}-{name}"] = Measured(
                ours=f"{top / depth:.3f} pipeline depths ({top:.0f} packets)", value=top / depth
            )
            if pair == "JK/FCFS":
                start, end = 10 * rtt_s, results[pair].sim_time_s
                n = _falls_to_one(t, v, start, end)
                per100 = n / ((end - start) / rtt_s) * 100
                m["s2-fig5-few-shutdowns"] = Measured(
                    ours=f"{n} shutdowns in {(end - start) / rtt_s:.0f} round trips ({per100:.1f} per 100)",
                    holds=per100 <= 5,
                )
        jq = thr["JK/FQ"]
        m["s2-jkfq-almost-fair-share"] = Measured(
            ours=f"{shares('JK/FQ')} pkt/s against the fair 1.66",
            holds=all(abs(x - FAIR) <= REL * FAIR for x in jq),
        )
        m["s2-jkfq-some-unfairness"] = Measured(
            ours=f"{shares('JK/FQ')} pkt/s (differ by {abs(jq[0] - jq[1]):.3f})", holds=abs(jq[0] - jq[1]) > UNFAIR
        )
        m["s2-pp-more-than-fair-share"] = Measured(
            ours=f"{shares('PP/FQ')} pkt/s; the smaller {_f(min(thr['PP/FQ']))}", value=min(thr["PP/FQ"])
        )
        t, v = _steps(results["PP/FQ"], "ftp1.outstanding")
        late = max([x for ti, x in zip(t, v, strict=True) if ti >= 10 * rtt_s], default=0.0)
        m["s2-fig7-window-limit-excursion"] = Measured(
            ours=f"after 120 s source 1's packets outstanding peak at {late:.0f} (window limit 60)", holds=late >= 60
        )
        if probe_run is not None:
            dev, n = probe_deviation(probe_run, PROBE_CHANNEL, 10 * rtt_s)
            m["concl-s2-probe-changes"] = Measured(
                ours=f"95th percentile of |probe / median - 1| = {dev:.2f} over {n} probes", value=dev
            )
        m["concl-s2-jkfq-nearly-as-well-as-pp"] = Measured(
            ours=f"JK/FQ {_f(tot['JK/FQ'])} against PP/FQ {_f(tot['PP/FQ'])} pkt/s ({tot['JK/FQ'] / tot['PP/FQ']:.0%})",
            holds=tot["JK/FQ"] >= NEARLY * tot["PP/FQ"],
        )
    else:
        ftp2 = next(f for f in results["G/FCFS"].raw["flows"] if f["name"] == "ftp2")
        share = ftp2["retransmitted_pkts"] / ftp2["sent_pkts"] if ftp2["sent_pkts"] else 0.0
        m["s3-generic-90pct-retransmissions"] = Measured(
            ours=f"{ftp2['retransmitted_pkts']} of {ftp2['sent_pkts']} packets source 2 sent are retransmissions ({share:.0%})",
            value=share,
        )
        for pair, cid in (("JK/FCFS", "s3-jkfcfs-unfair-to-long-rtt"), ("JK/FQ", "s3-jkfq-unfair-to-long-rtt")):
            a, b = thr[pair]
            m[cid] = Measured(
                ours=f"source 1 (12 s) {_f(a)}, source 2 (24 s) {_f(b)} pkt/s ({b / a:.0%})", holds=b < NEARLY * a
            )
        fair = {p: _ratio(*thr[p]) for p in PAIRS}
        m["s3-pp-almost-fair"] = Measured(
            ours=f"{shares('PP/FQ')} pkt/s (smaller/larger {fair['PP/FQ']:.3f})", holds=fair["PP/FQ"] >= NEARLY
        )
        others = [p for p in PAIRS if p != "PP/FQ" and fair[p] >= NEARLY]
        m["concl-s3-only-pp-fair"] = Measured(
            ours="smaller/larger: " + ", ".join(f"{p} {fair[p]:.2f}" for p in PAIRS),
            holds=fair["PP/FQ"] >= NEARLY and not others,
        )
    return _keep(m)


# The channel that brings Scenario 2's source 1 its acks (their last hop).
PROBE_CHANNEL = "sw1->ftp1"

# Pair marks echoed by acks (crates/ccsim-engine/src/packet/mod.rs).
FLAG_PAIR_FIRST, FLAG_PAIR_SECOND = 2, 4


def probe_deviation(results: ccsim.Results, channel: str, after_s: float) -> tuple[float, int]:
    """Packet-Pair's probes from the acks captured on ``channel`` (the switch's channel to
    the source): a probe is one packet over the spacing of the ack of a pair's first packet
    and the ack that follows it of the pair's second, when that one acknowledges exactly one
    more packet. Returns the 95th percentile of
    |probe / median - 1| over the probes after ``after_s``, and their number."""
    ch = next(c for c in results.raw["links"] if c["name"] == channel)
    cap = next(e for e in ch["elements"] if e["kind"] == "capture")
    if cap["truncated"]:
        raise ValueError(f"{channel}: the capture was truncated; raise its max_packets")
    probes = []
    first: tuple[float, int] | None = None
    for t_ps, flags, kind, seq in zip(cap["t_ps"], cap["flags"], cap["packet_kind"], cap["seq"], strict=True):
        if kind != 1:  # acks only
            continue
        t = t_ps * 1e-12
        if flags & FLAG_PAIR_FIRST:
            first = (t, seq)
        elif flags & FLAG_PAIR_SECOND and first is not None:
            # The second ack acknowledges exactly the next packet (as the policy requires).
            if seq == first[1] + 1 and t > first[0] and first[0] >= after_s:
                probes.append(1.0 / (t - first[0]))
            first = None
        else:
            first = None
    med = statistics.median(probes)
    devs = sorted(abs(p / med - 1) for p in probes)
    return devs[min(len(devs) - 1, int(0.95 * len(devs)))], len(probes)
