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

mod common;
use common::DUMBBELL;

#[derive(Clone, Copy, PartialEq)]
enum Path {
    /// Discipline queue and `TxDone` events everywhere.
    Reference,
    /// Departures scheduled at enqueue, every packet arriving through an event.
    Timed,
    /// Timed, and packets handed to a singly fed next channel at send time (the default).
    CutThrough,
}

/// Runs `text` on one path; returns the results JSON (wall time zeroed) and the number
/// of events.
fn run(text: &str, overrides: &[&str], path: Path) -> (serde_json::Value, u64) {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let sc = parse(text, "timed.toml", &o).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(sc, None);
    sim.set_timed_fifo(path != Path::Reference);
    if path == Path::Timed {
        sim.set_cut_through(false);
    }
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

fn assert_same(text: &str, overrides: &[&str], path: Path) {
    let (timed, ev_timed) = run(text, overrides, path);
    let (reference, ev_ref) = run(text, overrides, Path::Reference);
    let bottleneck = timed["links"].as_array().unwrap().iter().find(|l| l["name"] == "r1->r2").unwrap();
    assert!(bottleneck["drops"].as_u64().unwrap() > 0, "the case should overflow the buffer: {bottleneck}");
    assert!(bottleneck["queue_mean_pkts"].as_f64().unwrap() > 1.0, "the case should queue: {bottleneck}");
    assert!(ev_timed < ev_ref, "no TxDone events on the timed path: {ev_timed} vs {ev_ref}");
    assert_equal(&timed, &reference);
}

fn assert_equal(timed: &serde_json::Value, reference: &serde_json::Value) {
    if timed != reference {
        // Name the first differing field for the failure message.
        let (a, b) = (timed.to_string(), reference.to_string());
        let i = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(0);
        panic!(
            "timed and reference results differ at ...{}... vs ...{}...",
            &a[i.saturating_sub(200)..(i + 80).min(a.len())],
            &b[i.saturating_sub(200)..(i + 80).min(b.len())]
        );
    }
}

#[test]
fn timed_fifo_gives_the_reference_results_in_packets() {
    assert_same(DUMBBELL, &[], Path::Timed);
}

#[test]
fn timed_fifo_gives_the_reference_results_with_a_byte_buffer() {
    assert_same(DUMBBELL, &["defaults.buffer=9000B"], Path::Timed);
}

// Cut-through: here `r2->sink` is fed by the bottleneck alone, `r2->r1` by `sink->r2`
// alone and `r1->a` .. `r1->d` by `r2->r1` alone, so data skip one pipe-head event and
// acks two; with the phase and
// interval snapshots every 0.37 s, packets arriving after the next snapshot must wait
// for their event (`Net::horizon`).

#[test]
fn cut_through_gives_the_reference_results_in_packets() {
    assert_same(DUMBBELL, &[], Path::CutThrough);
}

#[test]
fn cut_through_gives_the_reference_results_with_a_byte_buffer() {
    assert_same(DUMBBELL, &["defaults.buffer=9000B"], Path::CutThrough);
}

/// `text` with a slow, short access link from r2 to `host`, which overflows too (drops
/// on a channel that takes packets at send time): the results must still equal the
/// reference path's.
fn assert_same_when_the_access_link_drops(text: &str, host: &str) {
    let fast = format!("between = [\"r2\", \"{host}\"]\nrate = \"20Mbps\"");
    assert!(text.contains(&fast), "no 20 Mbps link r2-{host}");
    let text = text.replace(&fast, &format!("between = [\"r2\", \"{host}\"]\nrate = \"3Mbps\"\nbuffer = \"3pkt\""));
    let (v, _) = run(&text, &[], Path::CutThrough);
    let name = format!("r2->{host}");
    let link = v["links"].as_array().unwrap().iter().find(|l| l["name"] == name.as_str()).unwrap();
    assert!(link["drops"].as_u64().unwrap() > 0, "the access link should drop: {link}");
    assert_equal(&v, &run(&text, &[], Path::Reference).0);
}

#[test]
fn cut_through_gives_the_reference_results_when_the_access_link_drops() {
    assert_same_when_the_access_link_drops(DUMBBELL, "sink");
}

/// Cut-through must save one event for every packet offered to the channels `hops`,
/// every data packet arriving at the flows `receivers` and every ack arriving at the
/// flows `senders`, except those held back at a snapshot (at most a few per snapshot)
/// and acks due at or after their sender's next timer deadline (a few per timeout).
fn assert_saves(text: &str, hops: &[&str], receivers: &[&str], senders: &[&str]) {
    let (cut, ev_cut) = run(text, &[], Path::CutThrough);
    let (_, ev_timed) = run(text, &[], Path::Timed);
    let count = |kind: &str, name: &str, field: &str| {
        cut[kind].as_array().unwrap().iter().find(|x| x["name"] == name).unwrap()[field].as_u64().unwrap()
    };
    let arrived: u64 = receivers.iter().map(|n| count("flows", n, "arrived_pkts")).sum();
    assert!(receivers.is_empty() || arrived > 1000, "{arrived}");
    let acks: u64 = senders.iter().map(|n| count("flows", n, "acks_arrived")).sum();
    assert!(acks > 1000, "{acks}");
    let timeouts: u64 = senders.iter().map(|n| count("flows", n, "timeouts")).sum();
    let saved = hops.iter().map(|n| count("links", n, "offered_pkts")).sum::<u64>() + arrived + acks;
    let snapshots = 2 * 2 + (20.0f64 / 0.37).ceil() as u64 + 1;
    assert!(ev_timed - ev_cut <= saved, "{ev_timed} - {ev_cut} > {saved}");
    let allowed = 50 * snapshots + 50 * timeouts;
    assert!(ev_timed - ev_cut + allowed >= saved, "{ev_timed} - {ev_cut} saved far fewer than {saved} events");
}

#[test]
fn cut_through_saves_one_event_per_packet_per_singly_fed_hop() {
    // Singly fed: r2->sink (by the bottleneck), r2->r1 (by sink->r2), r1->{a,b,c,d} (by
    // r2->r1). The sink's receivers share its channel out, so they keep their events;
    // the senders a, b and c have a host each, so they take their acks at send time.
    assert_saves(DUMBBELL, &["r2->sink", "r2->r1", "r1->a", "r1->b", "r1->c", "r1->d"], &[], &["fa", "fb", "fc"]);
}

#[test]
fn channels_with_elements_series_or_changes_are_not_timed() {
    let text = DUMBBELL.replace("interval = \"0.37s\"", "interval = \"0.37s\"\nseries = [\"r2->sink.queue\"]")
        + "\n[[changes]]\nat = \"5s\"\nlink = \"bottleneck\"\nrate = \"3Mbps\"\n";
    let sc = parse(&text, "timed.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulation::new(sc, None);
    let timed = |name: &str| {
        (0..sim.channels.len()).find(|&i| sim.channel_name(i) == name).map(|i| sim.channels[i].is_timed()).unwrap()
    };
    assert!(timed("a->r1") && timed("sink->r2"), "plain drop-tail channels are timed");
    assert!(!timed("r1->r2") && !timed("r2->r1"), "a changed link keeps the reference path");
    assert!(!timed("r2->sink"), "a channel with a queue series keeps the reference path");
}

#[test]
fn a_run_stopped_early_with_packets_handed_over_ahead_reads_consistently() {
    // Stopped by the event guard mid-run, with no snapshot to hold packets back: the
    // access channels may hold packets whose arrival lies after the stop. Their partial
    // results must still read without panics and keep every identity.
    // (Also with receivers that take their packets at send time, `split`: those may count
    // a packet as delivered before its arrival.)
    for base in [DUMBBELL.to_string(), split()] {
        let text = base.replace("interval = \"0.37s\"\n", "").replace("[[phases]]", "[[ignored]]");
        let text = text.split("[[ignored]]").next().unwrap().to_string();
        let total = run(&text, &[], Path::CutThrough).1;
        for max in [3_000u64, total / 3 + 1, total * 5 / 6] {
            let sc =
                parse(&text, "timed.toml", &[format!("scenario.max_events={max}")]).unwrap_or_else(|e| panic!("{e}"));
            let mut sim = Simulation::new(sc, None);
            sim.run();
            assert_eq!(sim.events_processed(), max);
            let r = sim.results(0.0);
            for l in &r.links {
                assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
                assert!(l.queue_mean_pkts.is_finite() && l.queue_mean_pkts >= 0.0, "channel {}", l.name);
            }
            for f in &r.flows {
                assert_eq!(
                    f.sent_pkts,
                    f.arrived_pkts + f.dropped_pkts + f.in_network_pkts,
                    "flow {} at {max} events",
                    f.name
                );
            }
        }
    }
}

// Receivers that take their data packets at send time: each Reno flow has a host of its
// own (x, y, z), whose one channel out carries only its acks, so the receiver and that
// channel depend only on the data arrivals, in order (`Simulation::set_cut_through`).
// The CBR flow's sink and the shared paths keep their events.
fn split() -> String {
    let text = DUMBBELL
        .replace(
            "hosts = [\"a\", \"b\", \"c\", \"d\", \"sink\"]",
            "hosts = [\"a\", \"b\", \"c\", \"d\", \"sink\", \"x\", \"y\", \"z\"]",
        )
        .replace("sink = \"30us\",", "sink = \"30us\", x = \"30us\", y = \"25us\", z = \"35us\",")
        .replace("name = \"fa\"\nfrom = \"a\"\nto = \"sink\"", "name = \"fa\"\nfrom = \"a\"\nto = \"x\"")
        .replace("name = \"fb\"\nfrom = \"b\"\nto = \"sink\"", "name = \"fb\"\nfrom = \"b\"\nto = \"y\"")
        .replace("name = \"fc\"\nfrom = \"c\"\nto = \"sink\"", "name = \"fc\"\nfrom = \"c\"\nto = \"z\"");
    let links: String = [("x", "1ms"), ("y", "2ms"), ("z", "4ms")]
        .iter()
        .map(|(h, d)| format!("[[links]]\nbetween = [\"r2\", \"{h}\"]\nrate = \"20Mbps\"\ndelay = \"{d}\"\n"))
        .collect();
    let text = text.replacen("[[flows]]", &format!("{links}[[flows]]"), 1);
    assert_eq!(text.matches("to = \"sink\"").count(), 1, "only the CBR flow goes to the sink");
    text
}

#[test]
fn receivers_taking_packets_at_send_time_give_the_reference_results() {
    assert_same(&split(), &[], Path::CutThrough);
    assert_same(&split(), &["defaults.buffer=9000B"], Path::CutThrough);
}

#[test]
fn receivers_taking_packets_at_send_time_give_the_reference_results_when_their_link_drops() {
    assert_same_when_the_access_link_drops(&split(), "x");
}

#[test]
fn receivers_taking_packets_at_send_time_save_their_arrival_events() {
    // Singly fed: r2->{x,y,z,sink} (by the bottleneck), r1->{a,b,c,d} (by r2->r1); plus
    // every data packet of fa, fb and fc at its receiver.
    let hops = ["r2->x", "r2->y", "r2->z", "r2->sink", "r1->a", "r1->b", "r1->c", "r1->d"];
    assert_saves(&split(), &hops, &["fa", "fb", "fc"], &["fa", "fb", "fc"]);
}

// Window senders that take their acks at send time (`Simulation::set_cut_through`): the
// senders a, b and c have a host each. With a timeout close to the round-trip time
// (`min_rto` 1 ms or 60 ms, `rto_k` 1) timers expire among the acks, and with a snapshot
// every 30 ms acks held back at a snapshot are released whatever the sender's timers:
// some reach a sender after its timer's deadline, so it parks them for an event. The
// results must still equal the reference path's.
#[test]
fn senders_taking_acks_at_send_time_give_the_reference_results_among_timeouts() {
    for min_rto in ["1ms", "60ms"] {
        let mut o: Vec<String> = ["fa", "fb", "fc"]
            .iter()
            .flat_map(|f| [format!("flows.{f}.params.min_rto={min_rto}"), format!("flows.{f}.params.rto_k=1")])
            .collect();
        o.push("measure.interval=0.03s".into());
        let o: Vec<&str> = o.iter().map(|s| s.as_str()).collect();
        let sc = parse(&split(), "timed.toml", &o.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulation::new(sc, None);
        sim.run();
        assert!(sim.acks_parked() > 0, "the case should park acks");
        let (v, _) = run(&split(), &o, Path::CutThrough);
        let timeouts: u64 = v["flows"].as_array().unwrap().iter().map(|f| f["timeouts"].as_u64().unwrap()).sum();
        assert!(timeouts > 30, "the case should time out: {timeouts}");
        assert_equal(&v, &run(&split(), &o, Path::Reference).0);
    }
}
