//! Scenario tests of BBR v1 (Linux 4.9 `tcp_bbr.c`): a single flow on a dumbbell with a
//! deep buffer fills the bottleneck with a standing queue below one BDP, its bandwidth
//! estimate is the bottleneck rate and its min RTT the propagation and transmission
//! times; it goes through STARTUP, DRAIN, PROBE_BW and, 10 s on, ProbeRTT. Expected
//! values are derived by hand in the comments; every run is checked for packet
//! conservation.

use ccsim_engine::results::PhaseLink;
use ccsim_engine::{run_text, Results};

mod common;
use common::{flow, series};

fn run(text: &str, overrides: &[&str]) -> Results {
    common::run_conserving(text, "bbr.toml", overrides)
}

fn bottleneck(r: &Results, phase: &str) -> PhaseLink {
    common::phase_link(r, phase, "r1->r2")
}

/// (time, value) at each change of a series.
fn changes(r: &Results, name: &str) -> Vec<(f64, f64)> {
    let (t, v) = series(r, name);
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (&t, &v) in t.iter().zip(v) {
        if out.last().is_none_or(|&(_, last)| last != v) {
            out.push((t, v));
        }
    }
    out
}

/// One BBR flow a -> r1 -> r2 -> b: a 10 Mbps, 20 ms bottleneck with a 1000-packet
/// drop-tail buffer (18 BDP: deep), 100 Mbps, 1 ms access links; 1000-byte packets,
/// 40-byte acks, an ack per packet.
///
/// Round trip without queueing: 2 x (1 + 20 + 1) ms of propagation, the data packet's
/// transmission at 100, 10 and 100 Mbps (80 + 800 + 80 us) and the ack's (3.2 + 32 +
/// 3.2 us): 44.9984 ms. The bottleneck carries 1250 packets/s: one BDP is 1250 x
/// 0.0449984 = 56.248 packets.
const SINGLE: &str = r#"
[scenario]
name = "bbr-single"
duration = "25s"
[defaults]
cc = "bbr"
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
buffer = "1000pkt"
[[links]]
between = ["r2", "b"]
rate = "100Mbps"
delay = "1ms"
[[flows]]
name = "f"
from = "a"
to = "b"
[[phases]]
name = "probe_bw"
start = "2s"
end = "10s"
[[phases]]
name = "steady"
start = "5s"
end = "25s"
[measure]
series = ["f.cwnd", "f.rate", "f.rtt", "f.bbr_bw", "f.bbr_state"]
"#;

const BASE_RTT_S: f64 = 0.0449984;
const BDP_PKTS: f64 = 56.248;

#[test]
fn a_single_bbr_flow_fills_the_bottleneck_with_less_than_a_bdp_queued() {
    let r = run(SINGLE, &[]);
    let f = flow(&r, "f");
    assert_eq!((f.dropped_pkts, f.retransmitted_pkts, f.timeouts), (0, 0, 0));
    // Between ProbeRTTs the link is busy all the time. The 3/4 phase of the gain cycle
    // ends once in flight is down to one BDP with the burst allowance: ceil(56.248) +
    // 3 x 2 = 63, even: 64 packets, 7.75 above the pipe; the 5/4 phase adds up to a
    // quarter BDP, 14 packets: the mean queue is a few packets above 8, well below one
    // BDP. (Measured: utilisation 1.0, mean queue 9.4 packets.)
    let p = bottleneck(&r, "probe_bw");
    assert!(p.utilization > 0.999, "utilisation {}", p.utilization);
    assert!(p.queue_mean_pkts > 7.0 && p.queue_mean_pkts < BDP_PKTS, "mean queue {}", p.queue_mean_pkts);
    // Over 20 s with two ProbeRTTs of about 0.28 s each at 4 packets (under a tenth of
    // the pipe): about 2 x 0.28 x 0.9 / 20 = 2.5 % lost. (Measured: 0.9745.)
    let s = bottleneck(&r, "steady");
    assert!(s.utilization > 0.96, "utilisation {}", s.utilization);
    // The estimates: bw within 1 % of 10 Mbit/s; min RTT exactly the unloaded round trip
    // (the first packet's, and again in ProbeRTT with 4 packets in flight: below).
    let (_, bw) = series(&r, "f.bbr_bw");
    assert!((bw.last().unwrap() / 10e6 - 1.0).abs() < 0.01, "bw {:?}", bw.last());
    assert!((f.rtt_min_s.unwrap() - BASE_RTT_S).abs() < 1e-12);
    // cwnd in PROBE_BW: 2 BDP, ceil(112.496) = 113, + 3 x 2 packets of burst allowance
    // (pacing at 7.5 to 12.5 Mbit/s: 2-packet bursts) = 119, even: 120.
    let (_, cwnd) = series(&r, "f.cwnd");
    assert_eq!(*cwnd.last().unwrap(), 120.0);
}

#[test]
fn bbr_goes_through_startup_drain_probe_bw_and_probe_rtt() {
    let r = run(SINGLE, &[]);
    let states = changes(&r, "f.bbr_state");
    let order: Vec<f64> = states.iter().map(|s| s.1).collect();
    // STARTUP (0), DRAIN (1), PROBE_BW (2), then ProbeRTT (3) and back, twice in 25 s.
    assert_eq!(order, [0.0, 1.0, 2.0, 3.0, 2.0, 3.0, 2.0], "{states:?}");
    // STARTUP doubles the delivery rate per round and needs 3 rounds without 25 %
    // growth once the pipe is full: well within the first second at a 45 ms RTT.
    // (Measured: DRAIN at 0.881 s, PROBE_BW at 1.053 s.)
    assert!(states[1].0 < 1.0 && states[2].0 < 1.2, "{states:?}");
    // ProbeRTT once the min RTT is 10 s old (it was last matched in STARTUP, before
    // the queue grew) and again 10 s after the first ProbeRTT restamped it; each lasts
    // 200 ms from when in flight is down to 4 packets, plus the drain to 4.
    // (Measured: 10.255 to 10.532 s, 20.625 to 20.902 s.)
    let (in1, out1, in2) = (states[3].0, states[4].0, states[5].0);
    assert!(in1 > 10.0 && in1 < 10.0 + states[2].0, "{states:?}");
    assert!(out1 - in1 >= 0.2 && out1 - in1 < 0.2 + 3.0 * BASE_RTT_S, "{states:?}");
    assert!(in2 > out1 + 10.0 - 0.01 && in2 < out1 + 10.2, "{states:?}");
    let (t, cwnd) = series(&r, "f.cwnd");
    let during: Vec<f64> = t.iter().zip(cwnd).filter(|(t, _)| **t >= in1 && **t < out1).map(|(_, c)| *c).collect();
    assert!(!during.is_empty() && during.iter().all(|&c| c == 4.0), "{during:?}");
    // With 4 packets in flight the queue drains and the RTT falls back to the unloaded
    // one, exactly.
    let (t, rtt) = series(&r, "f.rtt");
    let probe_min = t.iter().zip(rtt).filter(|(t, _)| **t > in1 && **t <= out1).map(|(_, v)| *v).fold(1.0, f64::min);
    assert!((probe_min - BASE_RTT_S).abs() < 1e-12, "{probe_min}");
    // The gain cycle in PROBE_BW: the pacing rate (the `rate` series, packets/s) over the
    // bandwidth estimate (packets/s: bit/s / 8000) is one of its three gains.
    let bw = changes(&r, "f.bbr_bw");
    let bw_at = |t: f64| bw.iter().rev().find(|b| b.0 <= t).unwrap().1 / 8000.0;
    let gains: Vec<f64> = changes(&r, "f.rate")
        .iter()
        .filter(|p| p.0 > states[2].0)
        .map(|p| (p.1 / bw_at(p.0) * 1000.0).round() / 1000.0)
        .collect();
    assert!(gains.iter().all(|g| [1.25, 0.75, 1.0].contains(g)), "{gains:?}");
    assert!(gains.windows(2).any(|w| w == [1.25, 0.75]), "5/4 is followed by 3/4: {gains:?}");
}

#[test]
fn bbr_parameter_errors_name_the_field() {
    let err = |o: &str| run_text(SINGLE, "t.toml", &[o.to_string()], None).err().expect("an error").to_string();
    let e = err("flows.f.params={ high_gain = 0.5 }");
    assert!(e.contains("flows.f.params.high_gain") && e.contains("2.885"), "{e}");
    let e = err("flows.f.params={ min_cwnd = 0 }");
    assert!(e.contains("flows.f.params.min_cwnd"), "{e}");
    let e = err("flows.f.params={ lt_bw = true }");
    assert!(e.contains("flows.f.params.lt_bw"), "{e}");
}

#[test]
fn bbr_runs_are_deterministic() {
    let loss = "elements=[{ kind = \"random_loss\", at = \"r1->r2\", p = 0.01 }]";
    let a = run(SINGLE, &[loss, "defaults.sack=true"]);
    assert!(flow(&a, "f").dropped_pkts > 0);
    assert_eq!(a.to_json(), run(SINGLE, &[loss, "defaults.sack=true"]).to_json());
}
