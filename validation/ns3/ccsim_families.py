"""Run one case family of families.py in ccsim, every case with every seed (run with the
ccsim virtual environment).

    python ccsim_families.py FAMILY out/ccsim-FAMILY.json [SEEDS] [--only TEXT] [PARAM=JSON ...]

--only runs the cases whose name contains TEXT; PARAM=JSON settings go into every
window flow's params (a model-difference check, e.g. reno_friendly=false), and
flow.KEY=JSON settings into every window flow itself (e.g. flow.sack_recovery='"prr"').
"""

from __future__ import annotations

import json
import sys
import time

import ccsim
from families import HEADERS, PAYLOAD, SEEDS, WIRE, cases


def _qdisc(case: dict) -> dict | str:
    q = case["qdisc"]
    if q == "none":
        return "fcfs"
    if q == "codel":
        # ns-3's CoDel computes interval / sqrt(count) with Linux's Newton step
        return {"kind": "codel", "sqrt": "newton"}
    if q == "fq_codel":
        return {"kind": "fq_codel", "sqrt": "newton"}
    if q == "pie":
        return {"kind": "pie"}
    if q == "red_step":
        k = f"{case['k_pkts']}pkt"
        return {"kind": "red", "w_q": 1.0, "min_th": k, "max_th": k, "ecn": True, "ecn_above_max_th": True}
    raise ValueError(q)


def scenario(case: dict, seed: int, extra: dict | None = None) -> dict:
    n = case["flows"]
    cbr = case["cbr_bps"] > 0
    m = n + 1 if cbr else n
    hosts = [f"s{i}" for i in range(m)] + [f"d{i}" for i in range(m)]
    access = case["access_ms"] + ([1.0] if cbr else [])
    links = [
        {"between": [f"s{i}", "r1"], "rate": f"{case['access_bps']}bps", "delay": f"{access[i] * 1000}us", "buffer": "10000pkt"}
        for i in range(m)
    ]
    links.append(
        {
            "name": "bottleneck",
            "between": ["r1", "r2"],
            "rate": f"{case['rate_bps']}bps",
            "delay": f"{case['delay_us']}us",
            "buffer": f"{case['buffer_pkts']}pkt",
            "qdisc": _qdisc(case),
        }
    )
    links += [
        {"between": ["r2", f"d{i}"], "rate": f"{case['access_bps']}bps", "delay": f"{case['last_ms'] * 1000}us", "buffer": "10000pkt"}
        for i in range(m)
    ]
    params: dict = {"initial_window": 10, "min_rto": f"{case['min_rto_s']}s"}
    if case["cc"] == "cubic":
        params.update({"c": 0.4, "beta": 0.7, "fast_convergence": True, "reno_friendly": True, "hystart": False})
    params.update({k: v for k, v in (extra or {}).items() if not k.startswith("flow.")})
    own = {k[len("flow.") :]: v for k, v in (extra or {}).items() if k.startswith("flow.")}
    flows = [
        {"name": f"f{i}", "from": f"s{i}", "to": f"d{i}", "cc": case["cc"], "sack": True, "start_jitter": f"{case['jitter_s']}s", "params": params, **own}
        for i in range(n)
    ]
    if cbr:
        flows.append({"name": "cbr", "kind": "cbr", "from": f"s{n}", "to": f"d{n}", "rate": f"{case['cbr_bps']}bps", "packet_size": f"{WIRE}B"})
    return {
        "scenario": {"name": case["name"], "duration": f"{case['duration_s']}s", "seed": seed},
        "defaults": {"data_size": f"{WIRE}B", "ack_size": f"{HEADERS}B", "qdisc": "fcfs", "out_of_order": "keep"},
        "nodes": {"hosts": hosts, "routers": ["r1", "r2"]},
        "links": links,
        "flows": flows,
        "measure": {"interval": f"{case['warmup_s']}s"},
    }


def run(case: dict, seed: int, extra: dict | None = None) -> dict:
    t = time.time()
    r = ccsim.run(scenario(case, seed, extra)).raw
    span = case["duration_s"] - case["warmup_s"]
    after = [iv for iv in r["intervals"] if iv["start_s"] >= case["warmup_s"] - 1e-9]
    delivered = {f["name"]: 0 for f in r["flows"]}
    soj, pkts = 0.0, 0
    for iv in after:
        for f in iv["flows"]:
            delivered[f["name"]] += f["delivered_pkts"]
        link = next(ch for ch in iv["links"] if ch["name"] == "r1->r2")
        soj += (link["sojourn_mean_s"] or 0.0) * link["tx_pkts"]
        pkts += link["tx_pkts"]
    n = case["flows"]
    return {
        "seed": seed,
        "goodput_mbps": [delivered[f"f{i}"] * PAYLOAD * 8 / span / 1e6 for i in range(n)],
        "cbr_mbps": delivered.get("cbr", 0) * WIRE * 8 / span / 1e6,
        "sojourn_s": soj / pkts if pkts else 0.0,
        "sojourn_pkts": pkts,
        "timeouts": sum(f["timeouts"] for f in r["flows"] if f["kind"] == "window"),
        "wall_s": time.time() - t,
    }


def main() -> int:
    args = sys.argv[1:]
    only = ""
    if "--only" in args:
        k = args.index("--only")
        only = args[k + 1]
        del args[k : k + 2]
    extra = {k: json.loads(v) for k, v in (a.split("=", 1) for a in args if "=" in a)}
    args = [a for a in args if "=" not in a]
    family, path = args[0], args[1]
    seeds = SEEDS[: int(args[2]) if len(args) > 2 else 5]
    t0 = time.time()
    out = {}
    for c in cases(family):
        if only not in c["name"]:
            continue
        out[c["name"]] = {**c, "overrides": extra, "runs": [run(c, s, extra) for s in seeds]}
        print(f"ccsim: {c['name']}: {sum(sum(x['goodput_mbps']) for x in out[c['name']]['runs']) / len(seeds):.3f} Mbps", file=sys.stderr)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
    print(f"ccsim: {family}: {len(out)} cases x {len(seeds)} seeds in {time.time() - t0:.0f} s -> {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
