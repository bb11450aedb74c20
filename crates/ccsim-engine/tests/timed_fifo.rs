//! Departures scheduled at enqueue (`Channel::set_timed`) against the reference path
//! (discipline queue + `TxDone` event per queued packet).
//!
//! The two may differ only in the order of simultaneous events: a packet arriving at
//! the instant a queued packet starts transmission sees it as gone on the timed path.
//! With processing jitter on every node, arrival times are random to the picosecond, so
//! no two events of a channel coincide and every result must be identical, field for
//! field: counters, queue integrals split at phase and interval boundaries, sojourns,
//! drops, per-flow figures. The timed runs must also have fewer events (no `TxDone`).

use ccsim_engine::{parse, Simulation};

const DUMBBELL: &str = r#"
[scenario]
name = "timed-fifo"
duration = "20s"
[measure]
interval = "0.37s"
[defaults]
cc = "reno"
buffer = "12pkt"
[nodes]
hosts = ["a", "b", "c", "d", "sink"]
routers = ["r1", "r2"]
processing_jitter = { r1 = "50us", r2 = "50us", sink = "30us", a = "20us", b = "20us", c = "20us", d = "20us" }
[[links]]
between = ["a", "r1"]
rate = "20Mbps"
delay = "1ms"
[[links]]
between = ["b", "r1"]
rate = "20Mbps"
delay = "3ms"
[[links]]
between = ["c", "r1"]
rate = "20Mbps"
delay = "7ms"
[[links]]
between = ["d", "r1"]
rate = "20Mbps"
delay = "2ms"
[[links]]
between = ["r1", "r2"]
rate = "4Mbps"
delay = "10ms"
name = "bottleneck"
[[links]]
between = ["r2", "sink"]
rate = "20Mbps"
delay = "1ms"
[[flows]]
name = "fa"
from = "a"
to = "sink"
[[flows]]
name = "fb"
from = "b"
to = "sink"
start = "0.3s"
[[flows]]
name = "fc"
from = "c"
to = "sink"
start = "1.1s"
data_size = "576B"
[[flows]]
name = "fd"
kind = "cbr"
from = "d"
to = "sink"
rate = "1Mbps"
on = [["0.5s", "1.2s"], ["3s", "3.9s"], ["8.1s", "11s"]]
[[phases]]
name = "early"
start = "0.2s"
end = "4.9s"
[[phases]]
name = "late"
start = "7.3s"
end = "19.1s"
"#;

/// Runs `text` with departures scheduled at enqueue or not; returns the results JSON
/// (wall time zeroed) and the number of events.
fn run(text: &str, overrides: &[&str], timed: bool) -> (serde_json::Value, u64) {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let sc = parse(text, "timed.toml", &o).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(sc, None);
    sim.set_timed_fifo(timed);
    sim.run();
    let events = sim.events_processed();
    let r = sim.results(0.0);
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
    }
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
    }
    let mut v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    v["events"] = serde_json::Value::Null;
    (v, events)
}

fn assert_same(text: &str, overrides: &[&str]) {
    let (timed, ev_timed) = run(text, overrides, true);
    let (reference, ev_ref) = run(text, overrides, false);
    let bottleneck = timed["links"].as_array().unwrap().iter().find(|l| l["name"] == "r1->r2").unwrap();
    assert!(bottleneck["drops"].as_u64().unwrap() > 0, "the case should overflow the buffer: {bottleneck}");
    assert!(bottleneck["queue_mean_pkts"].as_f64().unwrap() > 1.0, "the case should queue: {bottleneck}");
    assert!(ev_timed < ev_ref, "no TxDone events on the timed path: {ev_timed} vs {ev_ref}");
    if timed != reference {
        // Name the first differing field for the failure message.
        let (a, b) = (timed.to_string(), reference.to_string());
        let i = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(0);
        panic!("timed and reference results differ at ...{}... vs ...{}...", &a[i.saturating_sub(200)..(i + 80).min(a.len())], &b[i.saturating_sub(200)..(i + 80).min(b.len())]);
    }
}

#[test]
fn timed_fifo_gives_the_reference_results_in_packets() {
    assert_same(DUMBBELL, &[]);
}

#[test]
fn timed_fifo_gives_the_reference_results_with_a_byte_buffer() {
    assert_same(DUMBBELL, &["defaults.buffer=9000B"]);
}

#[test]
fn channels_with_elements_series_or_changes_are_not_timed() {
    let text = DUMBBELL.replace("interval = \"0.37s\"", "interval = \"0.37s\"\nseries = [\"r2->sink.queue\"]")
        + "\n[[changes]]\nat = \"5s\"\nlink = \"bottleneck\"\nrate = \"3Mbps\"\n";
    let sc = parse(&text, "timed.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulation::new(sc, None);
    let timed = |name: &str| (0..sim.channels.len()).find(|&i| sim.channel_name(i) == name).map(|i| sim.channels[i].is_timed()).unwrap();
    assert!(timed("a->r1") && timed("sink->r2"), "plain drop-tail channels are timed");
    assert!(!timed("r1->r2") && !timed("r2->r1"), "a changed link keeps the reference path");
    assert!(!timed("r2->sink"), "a channel with a queue series keeps the reference path");
}
