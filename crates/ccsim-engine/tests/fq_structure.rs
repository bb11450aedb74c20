//! Fair Queueing's lazy heaps stay bounded over a long run: a structural counter, so the
//! cost of an event cannot grow with simulated time (no wall clock here).
//!
//! Two CBR sources overload a Fair Queueing link (8 Mbps of 1500 B and 8 Mbps of 500 B
//! into 6 Mbps, 200-packet buffer): every arrival finds the buffer full, so every
//! arrival drops a packet. With `drop_rule = "rollback"` each drop moves a conversation's
//! finish number back, which is what leaves stale entries in the fluid heap. The run is
//! sampled every 10 ms for T = 5 s and for 4T; at every sample each heap holds at most
//! 2 x (its live entries) + `COMPACT_SLACK`, and the largest heap of the long run is no
//! larger than the largest of its first T.

use ccsim_engine::qdisc::fq::COMPACT_SLACK;
use ccsim_engine::qdisc::{AnyQdisc, FqSizes};
use ccsim_engine::time::{SimDuration, SimTime};
use ccsim_engine::{parse, Simulation};

const TWO_CBR: &str = r#"
[scenario]
name = "fq-two-cbr"
duration = "5s"

[nodes]
hosts = ["a", "b", "sink"]
routers = ["sw"]

[[links]]
between = ["a", "sw"]
rate = "100Mbps"
delay = "1ms"

[[links]]
between = ["b", "sw"]
rate = "100Mbps"
delay = "1ms"

[[links]]
between = ["sw", "sink"]
rate = "6Mbps"
delay = "10ms"
buffer = "200pkt"
qdisc = { kind = "fq", drop_rule = "rollback" }
name = "bottleneck"

[[flows]]
name = "big"
kind = "cbr"
from = "a"
to = "sink"
rate = "8Mbps"
packet_size = "1500B"

[[flows]]
name = "small"
kind = "cbr"
from = "b"
to = "sink"
rate = "8Mbps"
packet_size = "500B"
"#;

/// The Fair Queueing channel's sizes.
fn fq_sizes(sim: &Simulation) -> FqSizes {
    let i = (0..sim.channels.len()).find(|&i| sim.channel_name(i) == "sw->sink").expect("channel sw->sink");
    match &sim.channels[i].qdisc {
        AnyQdisc::Fq(q) => q.sizes(),
        other => panic!("sw->sink runs {}, not fq", other.name()),
    }
}

/// Runs until the clock passes `t`, in slices of 64 events (`run_until` would stop the
/// hand-over of packets at send time at every sample, so the run would not be a plain
/// one).
fn run_to(sim: &mut Simulation, t: SimTime) {
    while sim.now() < t && !sim.run_slice(64) {}
}

/// Runs the scenario for `secs` simulated seconds under `rule`, sampling every 10 ms;
/// returns the samples and the number of drops at the bottleneck.
fn run(rule: &str, secs: u64) -> (Vec<(SimTime, FqSizes)>, u64) {
    let overrides = [format!("scenario.duration={secs}s"), format!("links.bottleneck.qdisc.drop_rule={rule}")];
    let sc = parse(TWO_CBR, "fq_structure.toml", &overrides).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(sc, None);
    let step = SimDuration::from_millis(10);
    let end = SimTime::from_secs(secs);
    let mut samples = Vec::new();
    let mut t = SimTime::ZERO;
    while t < end {
        t += step;
        run_to(&mut sim, t);
        samples.push((t, fq_sizes(&sim)));
    }
    sim.run();
    let r = sim.results(0.0);
    let drops = r.links.iter().find(|l| l.name == "sw->sink").expect("sw->sink results").drops;
    (samples, drops)
}

fn check(rule: &str) {
    const T: u64 = 5;
    let (short, short_drops) = run(rule, T);
    let (long, long_drops) = run(rule, 4 * T);
    // Overloaded from the first second on: some thousands of drops, four times as many
    // in the long run (so the rollbacks happen all along).
    assert!(short_drops > 1000, "{rule}: {short_drops} drops in {T} s");
    assert!(long_drops > 3 * short_drops, "{rule}: {long_drops} drops in {} s", 4 * T);
    for (t, s) in short.iter().chain(&long) {
        assert!(s.fluid_heap <= 2 * s.fluid_live + COMPACT_SLACK, "{rule} at {t:?}: fluid heap {s:?}");
        assert!(s.heads_heap <= 2 * s.heads_live + COMPACT_SLACK, "{rule} at {t:?}: heads heap {s:?}");
        assert_eq!(s.conversations, 2, "{rule} at {t:?}: two sources, one sink");
    }
    let largest = |v: &[(SimTime, FqSizes)]| {
        v.iter().map(|(_, s)| (s.fluid_heap, s.heads_heap)).fold((0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)))
    };
    let first = largest(&short);
    let whole = largest(&long);
    assert!(
        whole.0 <= first.0 && whole.1 <= first.1,
        "{rule}: heaps grew over the run: first {T} s {first:?}, {} s {whole:?}",
        4 * T
    );
    // The short run is the long run's prefix (same events up to T).
    assert_eq!(&long[..short.len()], &short[..], "{rule}: the first {T} s differ");
}

#[test]
fn rollback_heaps_stay_bounded_over_four_times_the_run() {
    check("rollback");
}

#[test]
fn dks_heaps_stay_bounded_over_four_times_the_run() {
    check("dks");
}
