//! Prefetch hints (`Simulation::set_prefetch`) change speed only: the same run with and
//! without them gives the same results, field for field and event for event. And the
//! default follows the size of the state (`PREFETCH_ABOVE_BYTES`,
//! `PREFETCH_TWO_AHEAD_ABOVE_BYTES`).

use ccsim_engine::{
    bench::{dumbbell_with, qdisc_by_name},
    sim::{Simulation, PREFETCH_ABOVE_BYTES, PREFETCH_TWO_AHEAD_ABOVE_BYTES},
    time::SimDuration,
};

fn sim(flows: u32, rate_bps: u64, secs: f64, qdisc: &str) -> Simulation {
    let sc = dumbbell_with(flows, rate_bps, SimDuration::from_secs_f64(secs), qdisc_by_name(qdisc).unwrap()).unwrap();
    Simulation::new(sc, None)
}

fn results(mut s: Simulation) -> (serde_json::Value, u64) {
    s.run();
    let events = s.events_processed();
    let mut v: serde_json::Value = serde_json::from_str(&s.results(0.0).to_json()).unwrap();
    v["events"] = serde_json::Value::Null;
    (v, events)
}

#[test]
fn prefetching_is_on_only_for_state_larger_than_the_threshold() {
    let small = sim(100, 100_000_000, 0.001, "fcfs");
    assert!(small.state_bytes() < PREFETCH_ABOVE_BYTES, "{}", small.state_bytes());
    assert!(!small.prefetching());
    let large = sim(1000, 1_000_000_000, 0.001, "fcfs");
    assert!(large.state_bytes() > PREFETCH_ABOVE_BYTES, "{}", large.state_bytes());
    assert!(large.prefetching());
    assert_eq!(large.prefetch_ahead(), 1);
    let larger = sim(8000, 8_000_000_000, 0.001, "fcfs");
    assert!(larger.state_bytes() > PREFETCH_TWO_AHEAD_ABOVE_BYTES, "{}", larger.state_bytes());
    assert_eq!(larger.prefetch_ahead(), 2);
    let mut off = larger;
    off.set_prefetch(false);
    assert_eq!((off.prefetching(), off.prefetch_ahead()), (false, 0));
    off.set_prefetch_ahead(7);
    assert_eq!(off.prefetch_ahead(), 2, "capped at two events");
}

#[test]
fn prefetch_hints_do_not_change_results() {
    for qdisc in ["fcfs", "fq"] {
        let (on, ev_on) = results(sim(1000, 1_000_000_000, 1.2, qdisc));
        let mut off = sim(1000, 1_000_000_000, 1.2, qdisc);
        off.set_prefetch(false);
        let (off, ev_off) = results(off);
        assert!(on["flows"].as_array().unwrap().iter().any(|f| f["delivered_pkts"].as_u64().unwrap() > 0));
        assert_eq!(ev_on, ev_off, "{qdisc}");
        assert!(on == off, "{qdisc}: results differ with prefetch hints");
        let mut two = sim(1000, 1_000_000_000, 1.2, qdisc);
        two.set_prefetch_ahead(2);
        let (two, ev_two) = results(two);
        assert_eq!(ev_two, ev_off, "{qdisc}");
        assert!(two == off, "{qdisc}: results differ with hints two events ahead");
    }
}
