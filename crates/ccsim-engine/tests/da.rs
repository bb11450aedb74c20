//! Scenario tests of Dabbous's Delay Algorithm on the paper's Figure 2 network
//! (scenarios/dabbous-single.toml): settling at the pipe size without loss, the
//! slow-start exit, and determinism.

use ccsim_engine::{run_text, Results};

const SINGLE: &str = include_str!("../../../scenarios/dabbous-single.toml");

fn run(text: &str, overrides: &[&str], seed: Option<u64>) -> Results {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = run_text(text, "dabbous-single.toml", &o, seed).unwrap_or_else(|e| panic!("{e}"));
    let r = sim.results(0.0);
    // Packet conservation: every data packet sent is delivered, dropped or in flight.
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
    }
    r
}

fn series<'a>(r: &'a Results, name: &str) -> (&'a [f64], &'a [f64]) {
    let s = r.series.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no series {name}"));
    (&s.t, &s.v)
}

/// The pipe of Figure 2 in packets: bottleneck rate (100 pkt/s of 1000 B at 800 kbps)
/// times the round trip without queueing, 2 x (5 + 100) ms + 1 ms + 10 ms (data at
/// 8 Mbps and 800 kbps) + 0.4 ms + 0.04 ms (40 B ack) = 221.44 ms: 22.144 packets.
const PIPE_PKTS: f64 = 100.0 * 0.22144;

#[test]
fn single_da_source_settles_within_one_packet_of_the_pipe_without_loss() {
    let r = run(SINGLE, &["defaults.cc=da"], None);
    let f = &r.flows[0];
    assert_eq!(f.dropped_pkts, 0);
    assert_eq!(f.timeouts + f.fast_retransmits, 0);
    let (t, w) = series(&r, "src.cwnd");
    // The window over the second half of the run (whole packets the transport sends).
    let from = t.iter().position(|&x| x >= 50.0).map_or(w.len() - 1, |i| i.saturating_sub(1));
    for &x in &w[from..] {
        let pkts = x.floor();
        assert!((pkts - PIPE_PKTS).abs() <= 1.0, "window {x} is not within one packet of {PIPE_PKTS}");
    }
    // The minimum RTT is the path length of the paper, 221.44 ms.
    assert!((f.rtt_min_s.unwrap() - 0.22144).abs() < 1e-9);
    // Window 23 > 22.144: the bottleneck is busy, 100 pkt/s, after the start-up.
    assert!(f.goodput_pps > 95.0, "{} pkt/s", f.goodput_pps);
}

#[test]
fn da_leaves_slow_start_before_any_loss_below_the_pipe_size() {
    // Per-ack NDG: the second packet of each slow-start pair waits 9 ms more than the
    // first (10 ms at 800 kbps minus 1 ms at 8 Mbps), so NDG ~ 9 ms x W / D reaches 0.5
    // near W = 0.5 x 221.44 / 9 = 12.3, i.e. the exit at 13 of section 4.1.
    let r = run(SINGLE, &["defaults.cc=da"], None);
    let (t, w) = series(&r, "src.cwnd");
    // In slow start the window opens on every ack, so successive changes are at most one
    // round trip (< 0.3 s) apart; in avoidance it changes at most every other epoch of
    // >= 221 ms. The window before the first gap of more than 0.3 s is the exit window.
    let i = t.windows(2).position(|p| p[1] - p[0] > 0.3).unwrap();
    let exit = w[i];
    assert!((12.0..=14.0).contains(&exit), "left slow start at {exit}");
}

#[test]
fn jk_on_the_same_network_loses_packets() {
    // The contrast of section 4.1: JK (Tahoe) grows until the 15-packet buffer overflows.
    let r = run(SINGLE, &["defaults.cc=tahoe"], None);
    assert!(r.flows[0].dropped_pkts > 0);
    assert!((r.flows[0].rtt_max_s.unwrap() - 0.22144) > 0.1, "JK fills the buffer");
}

#[test]
fn da_runs_are_deterministic() {
    let text = include_str!("../../../scenarios/dabbous-two.toml");
    let a = run(text, &["flows.b.cc=tahoe"], Some(3));
    let b = run(text, &["flows.b.cc=tahoe"], Some(3));
    assert_eq!(a.to_json(), b.to_json());
}
