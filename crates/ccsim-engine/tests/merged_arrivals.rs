//! Merged arrivals (`Simulation::set_merged_arrivals`, `net/merge.rs`) against a pipe and an
//! event per feeding channel.
//!
//! The two may differ only in the order of simultaneous events (an arrival is ordered
//! as if scheduled when its packet was sent). With processing jitter on every node no
//! two events coincide, so every result must be identical, field for field, and so must
//! the number of events (a merged arrival is one event, as a pipe-head event was).

use ccsim_engine::{parse, Simulation};

mod common;

/// The shared dumbbell (`common::DUMBBELL`) with sender c `far` from r1: packets sent
/// later often arrive earlier than others already on their way, and are inserted before
/// them.
fn dumbbell(far: &str) -> String {
    let near = "between = [\"c\", \"r1\"]\nrate = \"20Mbps\"\ndelay = \"7ms\"";
    assert!(common::DUMBBELL.contains(near));
    common::DUMBBELL.replace(near, &format!("between = [\"c\", \"r1\"]\nrate = \"20Mbps\"\ndelay = \"{far}\""))
}

/// Runs `text` with merged arrivals on or off: (results JSON, events, channels merged,
/// packets refused by a merge).
fn run(text: &str, merged: bool) -> (serde_json::Value, u64, usize, u64) {
    let sc = parse(text, "merged.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(sc, None);
    if !merged {
        sim.set_merged_arrivals(false);
    }
    let n = sim.merged_channels();
    sim.run();
    let (events, refused) = (sim.events_processed(), sim.merge_refused());
    let r = sim.results(0.0);
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
    }
    (serde_json::from_str(&r.to_json()).unwrap(), events, n, refused)
}

fn assert_same(text: &str) -> u64 {
    let (merged, ev_merged, n, refused) = run(text, true);
    let (reference, ev_ref, n_ref, _) = run(text, false);
    assert_eq!((n, n_ref), (1, 0), "r1->r2 alone is fed by many");
    let bottleneck = merged["links"].as_array().unwrap().iter().find(|l| l["name"] == "r1->r2").unwrap();
    assert!(bottleneck["drops"].as_u64().unwrap() > 0, "the case should overflow the buffer: {bottleneck}");
    assert_eq!(ev_merged, ev_ref, "one event per arrival either way");
    if merged != reference {
        let (a, b) = (merged.to_string(), reference.to_string());
        let i = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(0);
        panic!(
            "merged and reference results differ at ...{}... vs ...{}...",
            &a[i.saturating_sub(200)..(i + 80).min(a.len())],
            &b[i.saturating_sub(200)..(i + 80).min(b.len())]
        );
    }
    refused
}

#[test]
fn merged_arrivals_give_the_reference_results() {
    assert_same(&dumbbell("7ms"));
}

#[test]
fn packets_a_merge_refuses_keep_their_order_through_their_own_pipe() {
    // Sender c 400 ms away and sending at a constant 1 Mbps (about 100 packets on its
    // way at any time): the others' packets, sent later but arriving earlier, would have
    // to be inserted before more than `MAX_WALK` of c's.
    let cbr = |far: &str| {
        dumbbell(far).replace(
            "name = \"fc\"\nfrom = \"c\"\nto = \"sink\"\nstart = \"1.1s\"\ndata_size = \"576B\"",
            "name = \"fc\"\nkind = \"cbr\"\nfrom = \"c\"\nto = \"sink\"\nrate = \"1Mbps\"\npacket_size = \"576B\"\non = [[\"0.1s\", \"15s\"]]",
        )
    };
    assert!(cbr("7ms").contains("kind = \"cbr\"\nfrom = \"c\""));
    let (near, far) = (assert_same(&cbr("7ms")), assert_same(&cbr("400ms")));
    assert!(far > 100 && far > 10 * near, "many packets should have been refused: {far} (at 7 ms: {near})");
}

#[test]
fn a_run_stopped_with_packets_in_a_merge_counts_them_in_flight() {
    let text = dumbbell("7ms").replace("interval = \"0.37s\"\n", "");
    for max in [2_000u64, 9_001, 30_000] {
        let sc = parse(&text, "merged.toml", &[format!("scenario.max_events={max}")]).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulation::new(sc, None);
        sim.run();
        let r = sim.results(0.0);
        let in_pipes: u64 = ["a->r1", "b->r1", "c->r1", "d->r1"]
            .iter()
            .map(|n| r.links.iter().find(|l| &l.name == n).unwrap().in_pipe_pkts)
            .sum();
        let in_network: u64 = r.flows.iter().map(|f| f.in_network_pkts).sum();
        assert!(in_pipes > 0, "packets should be on their way to r1 at {max} events");
        for f in &r.flows {
            assert_eq!(
                f.sent_pkts,
                f.arrived_pkts + f.dropped_pkts + f.in_network_pkts,
                "flow {} at {max} events",
                f.name
            );
        }
        assert!(in_network >= in_pipes, "at {max} events");
    }
}
