//! Scenario tests of Heybey's packet-voice users and smart links
//! (scenarios/heybey-pair.toml): closed forms of a static pair, talk-spurt statistics,
//! conservation, determinism and the validation of voice flows and smart links.

use ccsim_engine::{run_text, Results};

const PAIR: &str = include_str!("../../../scenarios/heybey-pair.toml");

fn run(overrides: &[&str], seed: Option<u64>) -> Results {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = run_text(PAIR, "heybey-pair.toml", &o, seed).unwrap_or_else(|e| panic!("{e}"));
    let r = sim.results(0.0);
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
        assert_eq!(f.dropped_pkts, 0, "infinite buffers");
    }
    r
}

fn smart(r: &Results, link: &str) -> serde_json::Value {
    r.links.iter().find(|l| l.name == link).unwrap().elements[0].clone()
}

/// Mosely's static network: u1 talks without stopping. With one flow in its table,
/// Hayden's value is max[c/1, min[c, ...]] = c = 0.55 * 40 kbps = 22 kbps from the
/// first update on; once the feedback has gone round, u1 sends 22000/50 = 440-bit
/// packets 50 times a second.
#[test]
fn static_pair_under_hayden_sends_at_the_effective_capacity() {
    let r = run(&["flows.u1.voice.endless=true", "scenario.duration=10s"], None);
    let l = smart(&r, "A->B");
    assert_eq!(l["control_bps"], 22_000.0);
    assert_eq!(l["flows"], 1);
    // Bits sent on A->B in the last 5 s (from the recorded 100 ms buckets).
    let r2 = run(&["flows.u1.voice.endless=true", "scenario.duration=10s", "elements.0.record=true"], None);
    let tr = &smart(&r2, "A->B")["trace"]["bits_per_100ms"];
    let last: u64 = tr.as_array().unwrap()[50..100].iter().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(last, 5 * 50 * 440);
    // u2 never talks: it sends only 10-bit control packets, one per 100 ms.
    let u2 = r.flows.iter().find(|f| f.name == "u2").unwrap();
    assert_eq!(u2.sent_pkts, 0);
    let b = r.links.iter().find(|l| l.name == "B->A").unwrap();
    assert!((99..=101).contains(&b.tx_pkts), "{}", b.tx_pkts);
    assert_eq!(b.tx_bits, 10 * b.tx_pkts);
}

/// Jaffe with one flow converges to c/(W+1) = c/2 = 11 kbps (its fixed point).
#[test]
fn static_pair_under_jaffe_settles_at_half_the_effective_capacity() {
    let r = run(&["flows.u1.voice.endless=true", "elements.0.algorithm=jaffe"], None);
    let p = smart(&r, "A->B")["control_bps"].as_f64().unwrap();
    assert!((p - 11_000.0).abs() < 1.0, "{p}");
}

/// Talk spurts alternate: each user's data packets arrive in spurts of 60 on average,
/// and the two users together keep about one spurt going at a time.
#[test]
fn talk_spurts_alternate_with_mean_sixty_packets() {
    let r = run(&["scenario.duration=600s"], Some(3));
    let sent: u64 = r.flows.iter().map(|f| f.sent_pkts).sum();
    // Exactly one user talks at a time, 50 packets/s: 30000 packets in 600 s, except
    // that a new spurt starts when the end-of-spurt packet arrives (11 ms to send 440
    // bits at 40 kbps + 3 ms), 6 ms sooner than the next packet would have left: about
    // +0.5% (500 spurts of 1.2 s). 3 standard deviations of the spurt count: +-0.2%.
    assert!((29_900..=30_300).contains(&sent), "{sent}");
    for f in &r.flows {
        assert!(f.sent_pkts > 10_000, "both partners talk: {} sent {}", f.name, f.sent_pkts);
        assert!(f.goodput_bps > 0.0);
    }
}

#[test]
fn same_seed_same_run_and_another_seed_differs() {
    let a = run(&[], Some(7));
    let b = run(&[], Some(7));
    let c = run(&[], Some(8));
    let key = |r: &Results| r.links.iter().map(|l| (l.tx_pkts, l.tx_bits)).collect::<Vec<_>>();
    assert_eq!(key(&a), key(&b));
    assert_ne!(key(&a), key(&c));
}

#[test]
fn forward_queueing_and_protocol_options_run() {
    for o in [
        ["elements.0.read_rate=enqueue", "elements.0.protocol=true"],
        ["elements.0.algorithm=mosely", "elements.0.update=100ms"],
    ] {
        let r = run(&o, None);
        assert!(smart(&r, "A->B")["updates"].as_u64().unwrap() > 0);
    }
}

fn err(overrides: &[&str]) -> String {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match run_text(PAIR, "heybey-pair.toml", &o, None) {
        Ok(_) => panic!("accepted {overrides:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_voice_and_smart_link_settings_are_named() {
    let e = err(&["flows.u1.voice.partner=u9"]);
    assert!(e.contains("flows.u1.voice.partner") && e.contains("u9"), "{e}");
    let e = err(&["flows.u2.voice.partner=u2"]);
    assert!(e.contains(".voice.partner") && e.contains("u2"), "{e}");
    let e = err(&["flows.u1.voice.spurt_mean=0.5"]);
    assert!(e.contains("flows.u1.voice.spurt_mean"), "{e}");
    let e = err(&["flows.u1.voice.bogus=1"]);
    assert!(e.contains("bogus"), "{e}");
    let e = err(&["flows.u1.rate=10kbps"]);
    assert!(e.contains("flows.u1.rate") && e.contains("voice"), "{e}");
    let e = err(&["elements.0.a=0"]);
    assert!(e.contains("elements.0.a"), "{e}");
    let e = err(&["elements.0.algorithm=foo"]);
    assert!(e.contains("elements.0.algorithm"), "{e}");
    let e = err(&["elements.0.read_rate=later"]);
    assert!(e.contains("elements.0.read_rate"), "{e}");
}
