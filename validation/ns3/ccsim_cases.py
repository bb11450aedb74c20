"""Run the dumbbell cases in ccsim (run with the ccsim virtual environment)."""

from __future__ import annotations

import json
import sys

import ccsim
from cases import ACCESS_BPS, DELAY_MS, DURATION_S, HEADERS, PAYLOAD, RATE_BPS, WARMUP_S, WIRE, cases, sawtooth_period


def scenario(case: dict) -> dict:
    n = case["flows"]
    hosts = [f"s{i}" for i in range(n)] + [f"d{i}" for i in range(n)]
    links = [
        {"between": [f"s{i}", "r1"], "rate": f"{ACCESS_BPS}bps", "delay": f"{case['access_ms'][i]}ms", "buffer": "10000pkt"}
        for i in range(n)
    ]
    links.append({"name": "bottleneck", "between": ["r1", "r2"], "rate": f"{RATE_BPS}bps", "delay": f"{DELAY_MS}ms", "buffer": f"{case['buffer_pkts']}pkt"})
    links += [{"between": ["r2", f"d{i}"], "rate": f"{ACCESS_BPS}bps", "delay": "1ms", "buffer": "10000pkt"} for i in range(n)]
    flows = [
        {
            "name": f"f{i}",
            "from": f"s{i}",
            "to": f"d{i}",
            "cc": "newreno",
            "sack": case["sack"],
            "params": {"initial_window": 1, "min_rto": "1s"},
        }
        for i in range(n)
    ]
    return {
        "scenario": {"name": case["name"], "duration": f"{DURATION_S}s"},
        "defaults": {"data_size": f"{WIRE}B", "ack_size": f"{HEADERS}B", "qdisc": "fcfs", "out_of_order": "keep"},
        "nodes": {"hosts": hosts, "routers": ["r1", "r2"]},
        "links": links,
        "flows": flows,
    }


def loss_events(r: ccsim.Results, flow: str) -> int:
    f = next(x for x in r.raw["flows"] if x["name"] == flow)
    return f["fast_retransmits"] + f["timeouts"]


def run(case: dict) -> dict:
    sc = scenario(case)
    r = ccsim.run(sc)
    # Flow 0's loss events after the warm-up: the run is deterministic, so those of a run
    # cut at WARMUP_S are exactly the ones before it.
    prefix = ccsim.run({**sc, "scenario": {**sc["scenario"], "duration": f"{WARMUP_S}s"}})
    after = loss_events(r, "f0") - loss_events(prefix, "f0")
    goodput = [f["delivered_pkts"] * PAYLOAD * 8 / DURATION_S / 1e6 for f in r.raw["flows"]]
    link = next(ch for ch in r.raw["links"] if ch["name"] == "r1->r2")
    return {
        "goodput_mbps": goodput,
        "drops": link["drops"],
        "queue_mean_pkts": link["queue_mean_pkts"],
        "loss_events_f0_after_warmup": after,
        "period_s": sawtooth_period(after),
        "timeouts": sum(f["timeouts"] for f in r.raw["flows"]),
    }


def main() -> int:
    out = {c["name"]: {**c, **run(c)} for c in cases()}
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
    print(f"ccsim: {len(out)} cases -> {sys.argv[1]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
