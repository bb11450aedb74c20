//! Scenario tests of TCP Vegas (Brakmo and Peterson 1995): alone on a bottleneck it
//! keeps between alpha and beta packets queued without loss; its series; SACK recovery
//! of its slow-start losses; parameter errors. Expected values are derived by hand in the
//! comments; every run is checked for packet conservation.

use ccsim_engine::results::{FlowResult, PhaseLink};
use ccsim_engine::{run_text, Results};

fn run(text: &str, overrides: &[&str]) -> Results {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = run_text(text, "vegas.toml", &o, None).unwrap_or_else(|e| panic!("{e}"));
    let r = sim.results(0.0);
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
        assert!(f.delivered_pkts <= f.arrived_pkts, "flow {}", f.name);
    }
    let mut drops = 0;
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
        drops += l.drops;
    }
    let flow_drops: u64 = r.flows.iter().map(|f| f.dropped_pkts + f.acks_dropped + f.control_dropped).sum();
    assert_eq!(drops, flow_drops, "every drop belongs to a flow");
    r
}

fn flow<'a>(r: &'a Results, name: &str) -> &'a FlowResult {
    r.flows.iter().find(|f| f.name == name).unwrap()
}

fn steady_bottleneck(r: &Results) -> PhaseLink {
    let p = r.phases.iter().find(|p| p.name == "steady").unwrap();
    p.links.iter().find(|l| l.name == "r1->r2").cloned().unwrap()
}

fn series<'a>(r: &'a Results, name: &str) -> (&'a [f64], &'a [f64]) {
    let s = r.series.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no series {name}"));
    (&s.t, &s.v)
}

/// One Vegas flow a -> r1 -> r2 -> b: a 10 Mbps, 20 ms bottleneck with a 200-packet
/// drop-tail buffer, 100 Mbps, 1 ms access links; 1000-byte packets, 40-byte acks.
///
/// Round trip without queueing: 2 x (1 + 20 + 1) ms of propagation, the data packet's
/// transmission at 100, 10 and 100 Mbps (80 + 800 + 80 us) and the ack's (3.2 + 32 +
/// 3.2 us): 44.9984 ms. The bottleneck carries 1250 packets/s, so the pipe holds
/// 1250 x 0.0449984 = 56.2 packets.
const SINGLE: &str = r#"
[scenario]
name = "vegas-single"
duration = "8s"
[defaults]
cc = "vegas"
[nodes]
hosts = ["a", "b"]
routers = ["r1", "r2"]
[[links]]
between = ["a", "r1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "10Mbps"
delay = "20ms"
buffer = "200pkt"
[[links]]
between = ["r2", "b"]
rate = "100Mbps"
delay = "1ms"
[[flows]]
name = "f"
from = "a"
to = "b"
[[phases]]
name = "steady"
start = "4s"
end = "8s"
[measure]
series = ["f.cwnd", "f.base_rtt", "f.diff"]
"#;

const BASE_RTT_S: f64 = 0.0449984;
/// Packets in flight with the bottleneck busy and nothing queued: 1250 x 0.0449984.
const PIPE_PKTS: f64 = 56.248;

/// The window over the steady phase (it must not change there), packets.
fn steady_window(r: &Results) -> f64 {
    let (t, w) = series(r, "f.cwnd");
    let from = t.iter().position(|&x| x >= 4.0).map_or(w.len() - 1, |i| i.saturating_sub(1));
    let steady = &w[from..];
    assert!(steady.iter().all(|&x| x == steady[0]), "the window moves in the steady phase: {steady:?}");
    steady[0]
}

/// With a constant window W and the bottleneck busy, W packets circulate at 1250
/// packets/s, so the RTT is W / 1250 s (Little) and the mean queue W - PIPE_PKTS; every
/// RTT sample is the same, so Diff = W (RTT - BaseRTT) / RTT = W - PIPE_PKTS too. Vegas
/// holds Diff in [alpha, beta]: W in [PIPE_PKTS + alpha, PIPE_PKTS + beta].
fn check_holds(r: &Results, alpha: f64, beta: f64) -> f64 {
    let f = flow(r, "f");
    assert_eq!(f.dropped_pkts, 0);
    assert_eq!(f.retransmitted_pkts + f.timeouts + f.fast_retransmits, 0);
    let w = steady_window(r);
    assert!(w >= PIPE_PKTS + alpha && w <= PIPE_PKTS + beta, "window {w}");
    let b = steady_bottleneck(r);
    assert!((b.queue_mean_pkts - (w - PIPE_PKTS)).abs() < 0.01, "mean queue {} packets, window {w}", b.queue_mean_pkts);
    assert!((alpha..=beta).contains(&b.queue_mean_pkts), "mean queue {} packets", b.queue_mean_pkts);
    assert!(b.utilization > 0.999, "utilization {}", b.utilization);
    let (_, diff) = series(r, "f.diff");
    assert!((diff.last().unwrap() - (w - PIPE_PKTS)).abs() < 0.01, "Diff {:?}, window {w}", diff.last());
    b.queue_mean_pkts
}

#[test]
fn vegas_alone_holds_between_alpha_and_beta_packets_queued() {
    // alpha = 1, beta = 3: the window is 58 or 59 packets, 1.752 or 2.752 queued; the
    // 200-packet buffer never fills. (Measured: window 58, mean queue 1.752.)
    let r = run(SINGLE, &[]);
    check_holds(&r, 1.0, 3.0);
    assert!((flow(&r, "f").rtt_min_s.unwrap() - BASE_RTT_S).abs() < 1e-9, "{:?}", flow(&r, "f").rtt_min_s);
    let (_, base) = series(&r, "f.base_rtt");
    assert!((base.last().unwrap() - BASE_RTT_S).abs() < 1e-9, "{:?}", base.last());
}

#[test]
fn larger_alpha_and_beta_keep_more_packets_queued() {
    // Vegas-2,4 (Linux's defaults): window 59 or 60, 2.752 or 3.752 queued. (Measured: 60.)
    let r = run(SINGLE, &["flows.f.params={ alpha = 2, beta = 4 }"]);
    check_holds(&r, 2.0, 4.0);
}

#[test]
fn the_linux_min_rtt_and_ns2_slow_start_exit_readings_also_hold_the_queue() {
    // (Measured: window 59, mean queue 2.752, for both exit rules.)
    for exit in ["target", "eighth"] {
        let r = run(SINGLE, &[&format!("flows.f.params={{ rtt = \"min\", slow_start_exit = \"{exit}\" }}")]);
        check_holds(&r, 1.0, 3.0);
    }
}

#[test]
fn reno_on_the_same_path_fills_the_buffer() {
    // The contrast: Reno grows until the buffer overflows. (Measured: mean queue 100.)
    let r = run(SINGLE, &["defaults.cc=reno"]);
    assert!(flow(&r, "f").dropped_pkts > 0);
    assert!(steady_bottleneck(&r).queue_mean_pkts > 20.0);
}

#[test]
fn sack_repairs_the_losses_of_vegas_slow_start_without_a_timeout() {
    // In the growing round from 8 to 16 packets every ack (spaced by the bottleneck's
    // 0.8 ms) releases two packets, so the k-th pair finds k packets waiting: a buffer
    // of 8 holds the round, a buffer of 5 drops the second packet of pairs 6, 7 and 8,
    // three losses in one window. Reno recovery ends at the first new ack and needs the
    // timer for the last hole; SACK repairs all three in one recovery.
    let small = "links.bottleneck.buffer=5pkt";
    assert_eq!(flow(&run(SINGLE, &["links.bottleneck.buffer=8pkt"]), "f").dropped_pkts, 0);
    let reno = run(SINGLE, &[small]);
    let sack = run(SINGLE, &[small, "defaults.sack=true"]);
    let (a, b) = (flow(&reno, "f"), flow(&sack, "f"));
    assert_eq!((a.dropped_pkts, b.dropped_pkts), (3, 3));
    assert!(a.timeouts >= 1);
    assert_eq!((b.timeouts, b.fast_retransmits, b.retransmitted_pkts), (0, 1, 3), "each hole once");
    // (Measured: 8279 against 6546 packets delivered.)
    assert!(b.delivered_pkts > a.delivered_pkts);
}

#[test]
fn vegas_parameter_errors_name_the_field() {
    let err = |o: &str| run_text(SINGLE, "t.toml", &[o.to_string()], None).err().expect("an error").to_string();
    let e = err("flows.f.params={ alpha = 3, beta = 2 }");
    assert!(e.contains("flows.f.params.beta") && e.contains("must not be below alpha"), "{e}");
    let e = err("flows.f.params={ rtt = \"max\" }");
    assert!(e.contains("flows.f.params.rtt") && e.contains("\"mean\""), "{e}");
    let e = err("flows.f.params={ delta = 1 }");
    assert!(e.contains("flows.f.params.delta") && e.contains("alpha, beta, gamma"), "{e}");
    let e = err("flows.f.params={ gamma = 0 }");
    assert!(e.contains("flows.f.params.gamma"), "{e}");
    let e = err("flows.f.cc=vegass");
    assert!(e.contains("vegas"), "{e}");
}

#[test]
fn vegas_runs_are_deterministic() {
    let loss = "elements=[{ kind = \"random_loss\", at = \"r1->r2\", p = 0.01 }]";
    assert_eq!(run(SINGLE, &[loss]).to_json(), run(SINGLE, &[loss]).to_json());
}
