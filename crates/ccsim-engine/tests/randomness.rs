//! What the seed drives beyond Poisson sources: start-time jitter per flow and
//! processing jitter at nodes, each from its own stream.

use ccsim_engine::{run_text, Results};

fn run(text: &str, overrides: &[&str], seed: Option<u64>) -> Results {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = run_text(text, "test.toml", &o, seed).unwrap_or_else(|e| panic!("{e}"));
    sim.results(0.0)
}

/// Three Reno flows on a drop-tail dumbbell: deterministic without jitter.
const DUMBBELL: &str = r#"
[scenario]
name = "jitter"
duration = "20s"
[nodes]
hosts = ["a0", "a1", "a2", "b"]
routers = ["r1", "r2"]
[[links]]
between = ["a0", "r1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
between = ["a1", "r1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
between = ["a2", "r1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "10Mbps"
delay = "20ms"
buffer = "30pkt"
[[links]]
between = ["r2", "b"]
rate = "100Mbps"
delay = "1ms"
[[flows]]
name = "f0"
from = "a0"
to = "b"
[[flows]]
name = "f1"
from = "a1"
to = "b"
[[flows]]
name = "f2"
from = "a2"
to = "b"
"#;

fn delivered(r: &Results) -> Vec<u64> {
    r.flows.iter().map(|f| f.delivered_pkts).collect()
}

#[test]
fn without_jitter_the_seed_changes_nothing_in_a_deterministic_scenario() {
    assert_eq!(delivered(&run(DUMBBELL, &[], Some(1))), delivered(&run(DUMBBELL, &[], Some(2))));
}

#[test]
fn start_jitter_makes_replications_differ_and_each_seed_repeatable() {
    let j = ["defaults.start_jitter=1s"];
    let (a, b) = (run(DUMBBELL, &j, Some(1)), run(DUMBBELL, &j, Some(2)));
    assert_ne!(delivered(&a), delivered(&b));
    assert_eq!(delivered(&a), delivered(&run(DUMBBELL, &j, Some(1))));
    // A flow that starts late has its first RTT sample late: the first packet leaves in
    // [0, 1 s) and is acked one round trip (about 46 ms) later.
    for r in [&a, &b] {
        for f in &r.flows {
            assert!(f.sent_pkts > 0 && f.delivered_pkts > 0, "{}", f.name);
        }
    }
    let e = run_text(DUMBBELL, "t.toml", &["flows.f0.start=19.5s".into(), "flows.f0.start_jitter=1s".into()], None)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("flows.f0.start_jitter") && e.contains("past the end"), "{e}");
}

#[test]
fn start_jitter_shifts_a_cbr_source_within_its_on_period() {
    // A 1 Mbps CBR of 1000 B packets (8 ms apart) on from 5 s: with a 40 ms jitter its
    // first packet leaves in [5.000, 5.040) s, so 5 to 0 packets of the first 40 ms are
    // not sent; over a 10 s on period it sends 1250 - (0..5) packets.
    let text = format!(
        "{DUMBBELL}[[flows]]\nname = \"c\"\nkind = \"cbr\"\nfrom = \"a0\"\nto = \"b\"\nrate = \"1Mbps\"\non = [[\"5s\", \"15s\"]]\nstart_jitter = \"40ms\"\n"
    );
    let mut counts = std::collections::BTreeSet::new();
    for seed in 1..=8 {
        let r = run(&text, &[], Some(seed));
        let c = r.flows.iter().find(|f| f.name == "c").unwrap();
        assert!((1245..=1250).contains(&c.sent_pkts), "{}", c.sent_pkts);
        counts.insert(c.sent_pkts);
    }
    assert!(counts.len() > 1, "the seeds give different phases");
}

#[test]
fn processing_jitter_varies_delays_but_keeps_packets_in_order() {
    // 2 ms of jitter at each router: a packet crosses r1 and r2 (data) and r2, r1 (acks),
    // so round trips vary by up to 8 ms. Windows of at most 25 packets (75 in all) fit a
    // 100-packet buffer even when all are queued: no loss, and a discarding receiver
    // delivers every packet that arrives only if nothing was reordered.
    let j = [
        "nodes.processing_jitter={ r1 = \"2ms\", r2 = \"2ms\" }",
        "defaults.out_of_order=discard",
        "defaults.max_window=25pkt",
        "links.bottleneck.buffer=100pkt",
    ];
    let r = run(DUMBBELL, &j, Some(3));
    let plain = run(
        DUMBBELL,
        &["defaults.out_of_order=discard", "defaults.max_window=25pkt", "links.bottleneck.buffer=100pkt"],
        Some(3),
    );
    for (f, p) in r.flows.iter().zip(&plain.flows) {
        assert_eq!(f.dropped_pkts, 0);
        assert_eq!(f.delivered_pkts, f.arrived_pkts, "{}: in order", f.name);
        assert!(f.rtt_min_s.unwrap() >= p.rtt_min_s.unwrap());
        assert!(f.rtt_min_s.unwrap() < p.rtt_min_s.unwrap() + 0.008);
    }
    assert_ne!(delivered(&r), delivered(&run(DUMBBELL, &j, Some(4))));
}
