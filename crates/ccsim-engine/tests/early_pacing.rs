//! Sender timers fired ahead of the clock (`Simulation::set_early_pacing`): a pacing or
//! retransmission timer due before the next ack of its flow fires at its own time when
//! that ack is handed over at send time, and a pacing timer's event comes ahead of its
//! deadline by the flow's lead (the ack route's hand-over chain's delays). Each case runs
//! three ways, which must give the same results field for field (the event count aside):
//! the default, the default with early timers off, and the plain path
//! (`set_timed_fifo(false)`: every departure and arrival an event). The default must
//! have fired timers early and run fewer events than with them off, or the test would
//! compare a path with itself.

use ccsim_engine::bench::{bottleneck_qdisc, cc_by_name, dumbbell_cc};
use ccsim_engine::time::SimDuration;
use ccsim_engine::{parse, Scenario, Simulation};
use serde_json::Value;

/// Results JSON of `sc` run one of three ways (0: default, 1: early timers off, 2: plain
/// path), without the fields that may differ (events, wall time), with the run's event
/// count and timers fired early.
fn run(sc: Scenario, way: u8) -> (Value, u64, u64) {
    let mut sim = Simulation::new(sc, Some(3));
    match way {
        1 => sim.set_early_pacing(false),
        2 => sim.set_timed_fifo(false),
        _ => {}
    }
    sim.run();
    let early = sim.timers_early();
    let r = sim.results(0.0);
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
    }
    let mut v: Value = serde_json::from_str(&r.to_json()).unwrap();
    let events = v["events"].as_u64().expect("an event count");
    let o = v.as_object_mut().unwrap();
    for k in ["events", "wall_time_s"] {
        o.remove(k);
    }
    (v, events, early)
}

/// Runs `make()` three ways and checks the results agree; returns the default run's
/// (events, timers fired early) and the events with early timers off.
fn three_ways(make: impl Fn() -> Scenario) -> (u64, u64, u64) {
    let (default, events, early) = run(make(), 0);
    let (off, events_off, early_off) = run(make(), 1);
    let (plain, _, early_plain) = run(make(), 2);
    assert_eq!(early_off, 0, "switched off");
    assert_eq!(early_plain, 0, "no hand-overs on the plain path");
    assert!(default == off, "early timers changed a result");
    assert!(default == plain, "the default run and the plain path differ");
    (events, early, events_off)
}

/// The speed dumbbell (`ccsim bench`): 20 BBR flows on a 20 Mbit/s drop-tail bottleneck
/// for 3 s. Acks reach each sender 40 + 5 ms after the reverse bottleneck sends them,
/// its pacing timer about one pacing gap ahead: nearly every pacing timer fires early.
#[test]
fn bbr_dumbbell_same_results_with_fewer_events() {
    let make = || {
        let cc = cc_by_name("bbr").unwrap();
        let q = bottleneck_qdisc(&cc, 20_000_000, Some("fcfs")).unwrap();
        dumbbell_cc(20, 20_000_000, SimDuration::from_secs_f64(3.0), q, cc).unwrap()
    };
    let (events, early, events_off) = three_ways(make);
    assert!(early > 1000, "timers fired early: {early}");
    assert!(events < events_off, "events {events} against {events_off} with early timers off");
}

/// Losses and retransmission timeouts (a 6-packet buffer), BBR and SACK Reno flows of
/// different round trips, measurement phases and intervals (the horizon), and, with
/// `change`, a scheduled change of the bottleneck's delay (both directions: the lead of
/// every flow's chain is off, timers still fire early when an ack is handed over).
fn lossy(change: bool) -> Scenario {
    let mut text = String::from(
        r#"
[scenario]
name = "early-timers"
duration = "4s"
[defaults]
data_size = "1000B"
ack_size = "40B"
[nodes]
hosts = ["s1", "s2", "s3", "d1", "d2"]
routers = ["r1", "r2"]
[[links]]
between = ["s1", "r1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
between = ["s2", "r1"]
rate = "100Mbps"
delay = "7ms"
[[links]]
between = ["s3", "r1"]
rate = "50Mbps"
delay = "3ms"
[[links]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "8Mbps"
delay = "10ms"
buffer = "6pkt"
[[links]]
between = ["r2", "d1"]
rate = "100Mbps"
delay = "2ms"
[[links]]
between = ["r2", "d2"]
rate = "100Mbps"
delay = "1ms"
[[flows]]
name = "b1"
from = "s1"
to = "d1"
cc = "bbr"
[[flows]]
name = "b2"
from = "s2"
to = "d2"
cc = "bbr"
start = "0.3s"
[[flows]]
name = "b3"
from = "s3"
to = "d1"
cc = "bbr"
start = "0.7s"
[[flows]]
name = "r1"
from = "s3"
to = "d2"
cc = "reno"
sack = true
[[phases]]
name = "middle"
start = "1.25s"
end = "2.5s"
[measure]
interval = "0.5s"
"#,
    );
    if change {
        text.push_str("[[changes]]\nat = \"2s\"\nlink = \"bottleneck\"\ndelay = \"4ms\"\n");
    }
    parse(&text, "early.toml", &[]).unwrap()
}

#[test]
fn losses_timeouts_and_snapshots_same_results() {
    let (events, early, events_off) = three_ways(|| lossy(false));
    assert!(early > 100, "timers fired early: {early}");
    assert!(events < events_off, "events {events} against {events_off} with early timers off");
}

#[test]
fn a_change_on_the_ack_path_same_results() {
    let (_, early, _) = three_ways(|| lossy(true));
    assert!(early > 0, "timers fired early when acks were handed over: {early}");
}
