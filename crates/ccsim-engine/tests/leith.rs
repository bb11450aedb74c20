//! Scenario tests of delay-based AIMD (McCullagh and Leith, "Delay-based congestion
//! control: sampling and correlation issues revisited"): one flow backs off before the
//! queue fills; n flows stay within bound (5); beyond B (RTT + tau0) flows every window
//! is one packet and the queue holds the rest; with delayed acks the delay backoff stops
//! at two packets. Expected values are derived by hand in the comments; every run is
//! checked for packet conservation. Each run is short (debug builds run these too).

use ccsim_engine::results::FlowResult;
use ccsim_engine::{run_text, Results};

fn run(text: &str, overrides: &[&str]) -> Results {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = run_text(text, "leith.toml", &o, None).unwrap_or_else(|e| panic!("{e}"));
    let r = sim.results(0.0);
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
    }
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
    }
    r
}

/// n delay-based AIMD flows s -> r1 -> r2 -> d: a 10 Mbps bottleneck with a 250-packet
/// buffer, 1 Gbps access links, the 50 ms one-way delay after the bottleneck (RTT 100 ms
/// plus 1.2 ms to send 1500 B at 10 Mbps); 1500-byte packets, 52-byte acks; handshake,
/// so every flow measures its base RTT before the queue builds; SACK; all start within
/// 10 ms. Delay statistics and window histograms from 20 s.
///
/// B = 10^7 / 12000 = 833.3 packets/s; the pipe holds P = 833.3 x 0.1 = 83.3 packets and
/// tau0 = 50 ms of queue is q0 = 41.7 packets.
fn dumbbell(n: u32, duration_s: u32) -> String {
    format!(
        r#"
[scenario]
name = "leith-test"
duration = "{duration_s}s"
[defaults]
cc = "delay_aimd"
data_size = "1500B"
ack_size = "52B"
sack = true
handshake = true
start_jitter = "10ms"
[nodes]
hosts = ["s", "d"]
routers = ["r1", "r2"]
[[links]]
between = ["s", "r1"]
rate = "1Gbps"
buffer = "10000pkt"
[[links]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "10Mbps"
buffer = "250pkt"
[[links]]
between = ["r2", "d"]
rate = "1Gbps"
delay = "50ms"
buffer = "10000pkt"
[[flows]]
name = "f"
count = {n}
from = "s"
to = "d"
[[phases]]
name = "steady"
start = "20s"
end = "{duration_s}s"
[measure]
start = "20s"
delays = true
windows = true
"#
    )
}

const PKT_S: f64 = 1500.0 * 8.0 / 10e6; // 1.2 ms per packet at the bottleneck
const PIPE: f64 = 0.1 / PKT_S; // 83.3 packets
const TAU0: f64 = 0.05;

fn peak_qdelay(r: &Results) -> f64 {
    r.flows.iter().filter_map(|f| f.qdelay_max_s).fold(0.0, f64::max)
}

/// Fraction of the flows' time (from [measure].start) at a window of at most `w` packets.
fn at_most(flows: &[FlowResult], w: usize) -> f64 {
    let (mut low, mut all) = (0.0, 0.0);
    for f in flows {
        let h = f.window_time_s.as_ref().expect("window histogram");
        low += h.iter().take(w).sum::<f64>();
        all += h.iter().sum::<f64>();
    }
    low / all
}

fn steady_drops(r: &Results) -> u64 {
    let p = r.phases.iter().find(|p| p.name == "steady").unwrap();
    p.links.iter().find(|l| l.name == "r1->r2").unwrap().drops
}

#[test]
fn one_flow_backs_off_before_the_queue_fills() {
    // Figure 2/3 in small: one flow, tau0 = 20 ms (q0 = 16.7 packets) against a 250-packet
    // buffer. Once past slow start the flow backs off when its packets show tau0 of
    // queueing: its base RTT is the 52-byte SYN's, 1.16 ms shorter than a data packet's
    // (1.2 ms - 0.04 ms at 10 Mbps), so at 18.8 ms of queue. A window grows by one packet
    // per round trip and the backoff is seen one round trip late, so the queue peaks one
    // packet (1.2 ms) above that: about 20 ms, within one packet of tau0 either way
    // (bound (5) with n = 1). Nothing is lost and the first backoff halves the window.
    let r = run(&dumbbell(1, 60), &["flows.f.params.tau0=\"20ms\"", "measure.series=[\"f1.cwnd\"]"]);
    let f = &r.flows[0];
    assert_eq!(f.dropped_pkts, 0);
    let peak = peak_qdelay(&r);
    assert!((peak - 0.020).abs() <= PKT_S, "peak queueing {peak} s: tau0 within one packet");
    let cwnd = r.series.iter().find(|s| s.name == "f1.cwnd").unwrap();
    let first_cut = cwnd.v.windows(2).find(|w| w[1] < w[0]).expect("a backoff");
    assert_eq!(first_cut[1], (first_cut[0] / 2.0).floor(), "the first backoff halves: {first_cut:?}");
    assert!(r.links.iter().all(|l| l.queue_max_pkts < 250));
}

#[test]
fn forty_flows_stay_within_bound_5() {
    // Bound (5): q <= q0 + sum max(alpha_i, 1) = 41.7 + 40 packets, a queueing delay of
    // tau0 + 40 x 1.2 ms = 98 ms; one more packet time of slack for the packet being sent.
    let r = run(&dumbbell(40, 50), &[]);
    let peak = peak_qdelay(&r);
    let bound = TAU0 + 40.0 * PKT_S;
    assert!(peak <= bound + PKT_S, "peak {peak} s above bound (5) {bound} s");
    assert!(peak > TAU0, "the queue does overshoot tau0 ({peak} s)");
    assert_eq!(steady_drops(&r), 0);
}

#[test]
fn beyond_b_rtt_plus_tau0_flows_every_window_is_one_packet() {
    // B (RTT + tau0) = 833.3 x 0.15 = 125 flows of one packet fill the pipe and q0. With
    // 140 flows every window is one packet (the backoff cannot go lower and no flow
    // grows while its delay is above tau0), so the queue holds 140 - 83.3 = 56.7 packets:
    // a steady queueing delay of 68 ms, above tau0, and no loss.
    let r = run(&dumbbell(140, 40), &[]);
    let frac = at_most(&r.flows, 1);
    assert!(frac > 0.999, "time at one packet: {frac}");
    let q = (140.0 - PIPE) * PKT_S;
    for f in &r.flows {
        let m = f.qdelay_mean_s.unwrap();
        assert!((m - q).abs() < 2.0 * PKT_S, "flow {}: mean queueing {m} s, expected {q} s", f.name);
    }
    assert_eq!(steady_drops(&r), 0);
    // Below 125 flows the windows are not all one packet: 100 flows x 1 = 100 packets
    // leave the queue (16.7 packets, 20 ms) below tau0, so flows grow to two.
    let r = run(&dumbbell(100, 40), &[]);
    assert!(at_most(&r.flows, 1) < 0.9);
}

#[test]
fn with_delayed_acks_the_delay_backoff_stops_at_two_packets() {
    // Delayed acks (Linux timer from 40 ms), the newest packet's RTT, single-packet acks
    // ignored: 80 flows x 2 packets = 160 > 125, so every window sits at the two-packet
    // floor and the queue holds 160 - 83.3 = 76.7 packets (92 ms).
    let dack = [
        "defaults.delayed_ack=true",
        "defaults.ack_delay_min=\"40ms\"",
        "defaults.rtt_sample=\"newest\"",
        "flows.f.params.delayed_ack=\"on\"",
    ];
    let r = run(&dumbbell(80, 40), &dack);
    assert!(at_most(&r.flows, 1) < 0.001, "no time at one packet: {}", at_most(&r.flows, 1));
    assert!(at_most(&r.flows, 2) > 0.99, "time at two packets: {}", at_most(&r.flows, 2));
    let q = (160.0 - PIPE) * PKT_S;
    let m = r.flows[0].qdelay_mean_s.unwrap();
    assert!((m - q).abs() < 3.0 * PKT_S, "mean queueing {m} s, expected {q} s");
    // Without the handling (every sample used, floor 1) the same flows sit at one packet.
    let plain = [&dack[..3], &["flows.f.params.delayed_ack=\"off\""]].concat();
    let r = run(&dumbbell(80, 40), &plain);
    assert!(at_most(&r.flows, 1) > 0.5, "time at one packet: {}", at_most(&r.flows, 1));
}
