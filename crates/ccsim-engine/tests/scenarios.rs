//! Scenario tests: whole runs checked against closed forms, plus determinism and packet
//! conservation. Expected values are derived by hand in the comments.

use ccsim_engine::{run_text, Results};

fn run(text: &str, overrides: &[&str], seed: Option<u64>) -> Results {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = run_text(text, "test.toml", &o, seed).unwrap_or_else(|e| panic!("{e}"));
    let r = sim.results(0.0);
    check_conservation(&r);
    r
}

/// sent = arrived + dropped + in network, for every flow; per channel
/// offered = transmitted + dropped + queued.
fn check_conservation(r: &Results) {
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
        assert!(f.delivered_pkts <= f.arrived_pkts, "flow {}", f.name);
    }
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
    }
}

fn flow_result<'a>(r: &'a Results, name: &str) -> &'a ccsim_engine::results::FlowResult {
    r.flows.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no flow {name}"))
}

fn phase_goodput(r: &Results, phase: &str, flow: &str) -> f64 {
    let p = r.phases.iter().find(|p| p.name == phase).unwrap();
    p.flows.iter().find(|f| f.name == flow).unwrap().goodput_pps
}

const FQ_MAXMIN: &str = r#"
# Three CBR sources of 2, 4 and 8 units share a 9-unit Fair Queueing link
# (1 unit = 80 kbps = 10 packets/s of 1000 B).
[scenario]
name = "fq-maxmin"
duration = "200s"
[defaults]
qdisc = "fq"
buffer = "60pkt"
[nodes]
hosts = ["a", "b", "c", "sink"]
routers = ["sw"]
[[links]]
between = ["a", "sw"]
rate = "10Mbps"
[[links]]
between = ["b", "sw"]
rate = "10Mbps"
[[links]]
between = ["c", "sw"]
rate = "10Mbps"
[[links]]
between = ["sw", "sink"]
rate = "720kbps"
delay = "10ms"
[[flows]]
name = "two"
kind = "cbr"
from = "a"
to = "sink"
rate = "160kbps"
[[flows]]
name = "four"
kind = "cbr"
from = "b"
to = "sink"
rate = "320kbps"
[[flows]]
name = "eight"
kind = "cbr"
from = "c"
to = "sink"
rate = "640kbps"
[[phases]]
name = "steady"
start = "20s"
end = "200s"
"#;

#[test]
fn fair_queueing_with_rollback_gives_max_min_shares() {
    // Max-min fair shares of 9 units among demands 2, 4, 8: the 2-unit source gets its
    // demand, the other two split the remaining 7: (2, 3.5, 3.5) units = (20, 35, 35) pkt/s.
    // This holds when a dropped packet is not charged (drop_rule = "rollback").
    let r = run(FQ_MAXMIN, &[r#"defaults.qdisc={kind = "fq", drop_rule = "rollback"}"#], None);
    for (flow, want) in [("two", 20.0), ("four", 35.0), ("eight", 35.0)] {
        let got = phase_goodput(&r, "steady", flow);
        assert!((got - want).abs() / want < 0.01, "{flow}: {got} pkt/s, want {want} within 1%");
    }
}

#[test]
fn fair_queueing_dks_rule_charges_the_heaviest_overload() {
    // DKS rule (the default): every packet sent, dropped or not, advances its
    // conversation's finish number. R grows at 9 units / 3 = 3 units per second per
    // active conversation; "four" sends 4 and "eight" 8, so both finish numbers run ahead
    // of R, but "eight"'s by 5 units/s and "four"'s by 1: "four"'s packets always carry
    // the smaller F and it gets its whole demand (40 pkt/s); "two" (below R's pace) gets
    // its 20; "eight", charged for its drops, the remaining 30.
    let r = run(FQ_MAXMIN, &[], None);
    for (flow, want) in [("two", 20.0), ("four", 40.0), ("eight", 30.0)] {
        let got = phase_goodput(&r, "steady", flow);
        assert!((got - want).abs() / want < 0.01, "{flow}: {got} pkt/s, want {want} within 1%");
    }
}

#[test]
fn fcfs_shares_poisson_load_in_proportion_to_offered_load() {
    // Poisson arrivals see the time-average queue (PASTA), so every source meets the same
    // drop probability at a full drop-tail FCFS queue and gets throughput proportional to
    // its offered load: 90 pkt/s split 2:4:8 -> 12.86, 25.71, 51.43 pkt/s. Within 5%
    // (about 2300 to 9300 packets each over 180 s: sampling error near 2%).
    // (With periodic CBR arrivals the split is set by their phases instead.)
    let text = FQ_MAXMIN
        .replace("kind = \"cbr\"", "kind = \"poisson\"")
        .replace("rate = \"160kbps\"", "mean_gap = \"50ms\"")
        .replace("rate = \"320kbps\"", "mean_gap = \"25ms\"")
        .replace("rate = \"640kbps\"", "mean_gap = \"12.5ms\"");
    let r = run(&text, &["defaults.qdisc=fcfs"], None);
    for (flow, want) in [("two", 90.0 * 2.0 / 14.0), ("four", 90.0 * 4.0 / 14.0), ("eight", 90.0 * 8.0 / 14.0)] {
        let got = phase_goodput(&r, "steady", flow);
        assert!((got - want).abs() / want < 0.05, "{flow}: {got} pkt/s, want {want} within 5%");
    }
}

const TAHOE_SAWTOOTH: &str = r#"
[scenario]
name = "tahoe-sawtooth"
duration = "120s"
[defaults]
cc = "tahoe"
buffer = "20pkt"
[nodes]
hosts = ["src", "dst"]
routers = ["sw"]
[[links]]
between = ["src", "sw"]
rate = "8Mbps"
buffer = "200pkt"
[[links]]
between = ["sw", "dst"]
rate = "800kbps"
delay = "50ms"
[[flows]]
name = "f"
from = "src"
to = "dst"
[measure]
series = ["f.cwnd"]
"#;

#[test]
fn single_tahoe_flow_sawtooth_matches_buffer_and_pipe() {
    // Bottleneck C = 100 pkt/s (1000 B at 800 kbps). Minimum RTT = 1 ms (access) + 10 ms
    // (bottleneck tx) + 2 x 50 ms + 0.4 + 0.04 ms (ack tx) = 111.44 ms, so the pipe holds
    // P = 11.14 packets. The queue holds B = 20 packets besides the one in transmission,
    // so the first loss comes when the window exceeds P + B = 31.1 packets: the peak
    // window is 32, plus at most one more during the round trip before three duplicate
    // acks arrive -> 32..33.
    // One cycle: recovery with a full queue (RTT about 31/C = 0.31 s), slow start from 1
    // to ssthresh = 16 (4 round trips near the minimum RTT: about 0.45 s), then
    // congestion avoidance from 16 to 32 at one packet per round trip where the RTT is
    // W/C: sum_{W=16}^{32} W/100 = 4.08 s. Period about 0.31 + 0.45 + 4.08 = 4.84 s.
    let r = run(TAHOE_SAWTOOTH, &[], None);
    let s = r.series.iter().find(|s| s.name == "f.cwnd").unwrap();
    // Collapses: cwnd drops to 1 after being above 8.
    let mut peaks = Vec::new();
    let mut collapses = Vec::new();
    for i in 1..s.v.len() {
        if s.v[i] == 1.0 && s.v[i - 1] > 8.0 {
            peaks.push(s.v[i - 1]);
            collapses.push(s.t[i]);
        }
    }
    assert!(collapses.len() > 10, "expected a steady sawtooth, got {} cycles", collapses.len());
    // Skip the first cycle (the initial slow start overshoots the buffer).
    let peaks = &peaks[1..];
    for p in peaks {
        assert!((31.0..=34.0).contains(p), "peak window {p} outside 31..34; peaks {peaks:?}");
    }
    let gaps: Vec<f64> = collapses.windows(2).skip(1).map(|w| w[1] - w[0]).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    assert!((mean - 4.84).abs() / 4.84 < 0.15, "mean period {mean} s, predicted 4.84 s");
    // Long-run throughput close to the bottleneck rate (the queue rarely empties).
    let f = &r.flows[0];
    assert!(f.goodput_pps > 90.0 && f.goodput_pps <= 100.0, "goodput {}", f.goodput_pps);
}

const POISSON_MIX: &str = r#"
[scenario]
name = "mix"
duration = "60s"
[defaults]
cc = "reno"
buffer = "30pkt"
[nodes]
hosts = ["s1", "s2", "x", "d"]
routers = ["r"]
[[links]]
between = ["s1", "r"]
rate = "10Mbps"
[[links]]
between = ["s2", "r"]
rate = "10Mbps"
[[links]]
between = ["x", "r"]
rate = "10Mbps"
[[links]]
between = ["r", "d"]
rate = "1Mbps"
delay = "20ms"
[[flows]]
name = "w1"
from = "s1"
to = "d"
[[flows]]
name = "w2"
from = "s2"
to = "d"
cc = "tahoe"
start = "1s"
[[flows]]
name = "px"
kind = "poisson"
from = "x"
to = "d"
mean_gap = "20ms"
[measure]
interval = "10s"
series = ["w1.cwnd", "r->d.queue"]
"#;

fn strip_wall(r: &Results) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    v["wall_time_s"] = serde_json::Value::Null;
    v.to_string()
}

#[test]
fn same_seed_gives_identical_results() {
    for q in ["fcfs", "fq"] {
        let o = [format!("defaults.qdisc={q}")];
        let o: Vec<&str> = o.iter().map(|s| s.as_str()).collect();
        let a = run(POISSON_MIX, &o, Some(7));
        let b = run(POISSON_MIX, &o, Some(7));
        assert_eq!(strip_wall(&a), strip_wall(&b));
        let c = run(POISSON_MIX, &o, Some(8));
        assert_ne!(strip_wall(&a), strip_wall(&c), "a different seed should change the Poisson arrivals");
    }
}

#[test]
fn intervals_add_up_to_the_whole_run() {
    let r = run(POISSON_MIX, &[], None);
    assert_eq!(r.intervals.len(), 6);
    for (i, f) in r.flows.iter().enumerate() {
        let sum: u64 = r.intervals.iter().map(|iv| iv.flows[i].delivered_pkts).sum();
        assert_eq!(sum, f.delivered_pkts, "flow {}", f.name);
        let drops: u64 = r.intervals.iter().map(|iv| iv.flows[i].dropped_pkts).sum();
        assert_eq!(drops, f.dropped_pkts, "flow {}", f.name);
    }
}

#[test]
fn keshav_s1_conserves_packets_for_every_protocol_pair() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/keshav-s1.toml")).unwrap();
    for cc in ["generic", "tahoe", "reno", "pp"] {
        for q in ["fcfs", "fq"] {
            let r = run(&text, &[&format!("defaults.cc={cc}"), &format!("defaults.qdisc={q}")], None);
            // The bottleneck never carries more than its rate (10 pkt/s): at most 9000
            // packets in 900 s.
            let b = r.links.iter().find(|l| l.name == "sw->sink").unwrap();
            assert!(b.tx_pkts <= 9001, "{cc}/{q}: {} packets", b.tx_pkts);
        }
    }
}

#[test]
fn route_change_moves_the_round_trip_time() {
    // One flow over a 100 ms path whose bottleneck delay grows from 50 to 150 ms at 10 s:
    // the minimum RTT rises by 200 ms (both directions cross the changed link).
    let text = TAHOE_SAWTOOTH.replace(
        "[measure]\nseries = [\"f.cwnd\"]",
        "[measure]\nseries = [\"f.rtt\"]\n[[changes]]\nat = \"10s\"\nlink = \"sw-dst\"\ndelay = \"150ms\"\n",
    );
    let r = run(&text, &["defaults.max_window=4pkt", "scenario.duration=20s"], None);
    let s = r.series.iter().find(|s| s.name == "f.rtt").unwrap();
    let before = s.t.iter().zip(&s.v).filter(|(t, _)| **t < 10.0).map(|(_, v)| *v).fold(f64::MAX, f64::min);
    let after = s.t.iter().zip(&s.v).filter(|(t, _)| **t > 11.0).map(|(_, v)| *v).fold(f64::MAX, f64::min);
    assert!((before - 0.11144).abs() < 1e-6, "{before}");
    assert!((after - 0.31144).abs() < 1e-6, "{after}");
}

const PP_ALONE: &str = r#"
# One Packet-Pair source alone on a Fair Queueing bottleneck: Keshav Scenario 1's line
# (80 kbps = 10 pkt/s, 2 s each way) without the other sources. The window limit (60)
# exceeds pipe + setpoint (41 + 4), so only the rate limits the source; the initial
# timeout (6 s, 4.3BSD's initial value) exceeds the 4.1 s round trip, so the first pair
# is not retransmitted before its acks return.
[scenario]
name = "pp-alone"
duration = "400s"
[defaults]
cc = "pp"
qdisc = "fq"
buffer = "40pkt"
max_window = "60pkt"
[nodes]
hosts = ["src", "dst"]
routers = ["sw"]
[[links]]
between = ["src", "sw"]
rate = "800kbps"
[[links]]
between = ["sw", "dst"]
rate = "80kbps"
delay = "2s"
[[flows]]
name = "pp"
from = "src"
to = "dst"
[flows.params]
initial_rto = "6s"
[[phases]]
name = "after-three-rtts"
start = "12.8s"
end = "400s"
[measure]
series = ["pp.outstanding", "pp.rate"]
"#;

#[test]
fn packet_pair_alone_reaches_the_bottleneck_rate_within_three_round_trips() {
    // Round trip: 10 ms (access tx) + 100 ms (bottleneck tx) + 2 x 2 s + 0.4 + 4 ms (ack tx
    // on 800 kbps and 80 kbps) = 4.1144 s. The first pair's acks return ~4.21 s after the
    // start, 100 ms apart (one bottleneck service time), so the probe is 10 pkt/s and the
    // source sends at 10 pkt/s from then on: the bottleneck is busy from ~4.3 s. Three
    // round trips (12.35 s) later it must be fully used: goodput 10 pkt/s, no loss.
    let r = run(PP_ALONE, &[], None);
    let p = r.phases.iter().find(|p| p.name == "after-three-rtts").unwrap();
    let f = &p.flows[0];
    assert!((f.goodput_pps - 10.0).abs() < 0.05, "goodput {} pkt/s", f.goodput_pps);
    assert_eq!(r.flows[0].dropped_pkts, 0);
    assert_eq!(r.flows[0].retransmitted_pkts, 0);
    // Queue: the control law aims at the setpoint of 4 packets. Sampled at every change,
    // the outstanding count in steady state is the pipe (10 pkt/s x 4.1144 s = 41.1) plus
    // the queue, so it stays between 41 + 4 - 2 and 41 + 4 + 2 (a pair adds two at once).
    let bott = p.links.iter().find(|l| l.name == "sw->dst").unwrap();
    assert!(bott.utilization > 0.995, "utilisation {}", bott.utilization);
    assert!((bott.queue_mean_pkts - 4.0).abs() < 1.5, "mean queue {} packets", bott.queue_mean_pkts);
    let s = r.series.iter().find(|s| s.name == "pp.outstanding").unwrap();
    for (t, v) in s.t.iter().zip(&s.v) {
        if *t > 40.0 {
            assert!((42.0..=48.0).contains(v), "outstanding {v} at {t} s");
        }
    }
    // The rate series starts at the measured 10 pkt/s and ends within 5% of it (the
    // queue correction (B - n) / H is at most a packet per round trip once settled).
    let rate = r.series.iter().find(|s| s.name == "pp.rate").unwrap();
    assert!((rate.v[0] - 10.0).abs() < 1e-6, "first rate {}", rate.v[0]);
    let last = *rate.v.last().unwrap();
    assert!((last - 10.0).abs() < 0.5, "last rate {last}");
}

#[test]
fn packet_pair_parameters_are_checked_by_name() {
    let text = PP_ALONE.replace("initial_rto = \"6s\"", "alpha = 1.5");
    let o: Vec<String> = vec![];
    let e = run_text(&text, "t.toml", &o, None).err().expect("alpha 1.5 must be refused").to_string();
    assert!(e.contains("flows.pp.params.alpha") && e.contains("below 1"), "{e}");
    let text = PP_ALONE.replace("initial_rto = \"6s\"", "update = \"sometimes\"");
    let e = run_text(&text, "t.toml", &o, None).err().expect("bad update must be refused").to_string();
    assert!(e.contains("flows.pp.params.update") && e.contains("\"probe\""), "{e}");
    let text = PP_ALONE.replace("initial_rto = \"6s\"", "window = 3");
    let e = run_text(&text, "t.toml", &o, None).err().expect("unknown parameter must be refused").to_string();
    assert!(e.contains("flows.pp.params.window") && e.contains("setpoint"), "{e}");
}

#[test]
fn packet_pair_per_probe_update_also_fills_the_bottleneck() {
    // The same single source with the rate recomputed at every pair: the law's fixed
    // point is the same (rate = service rate, queue = setpoint), so the bottleneck is
    // full and the queue near 4 packets.
    let r = run(PP_ALONE, &["flows.pp.params.update=probe"], None);
    let p = r.phases.iter().find(|p| p.name == "after-three-rtts").unwrap();
    assert!((p.flows[0].goodput_pps - 10.0).abs() < 0.05, "goodput {}", p.flows[0].goodput_pps);
    assert_eq!(r.flows[0].dropped_pkts, 0);
    let bott = p.links.iter().find(|l| l.name == "sw->dst").unwrap();
    assert!((bott.queue_mean_pkts - 4.0).abs() < 1.5, "mean queue {}", bott.queue_mean_pkts);
}

fn scenario_file(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn keshav_s2_s3_conserve_packets_for_every_protocol_pair() {
    for name in ["keshav-s2", "keshav-s3"] {
        let text = scenario_file(name);
        for (cc, q) in [("generic", "fcfs"), ("generic", "fq"), ("tahoe", "fcfs"), ("tahoe", "fq"), ("pp", "fq")] {
            // `run` checks per-flow and per-channel conservation; each slow line carries
            // at most 10 pkt/s over the 6000 s run.
            let r = run(&text, &[&format!("defaults.cc={cc}"), &format!("defaults.qdisc={q}")], None);
            for l in r.links.iter().filter(|l| ["b1", "b2", "b3"].contains(&l.link.as_str())) {
                assert!(l.tx_pkts <= 60_001, "{name} {cc}/{q} {}: {}", l.name, l.tx_pkts);
            }
        }
    }
}

#[test]
fn keshav_s2_s3_packet_pair_shares_fairly_without_loss_after_start_up() {
    // Six conversations share every slow line (2 FTP + 4 Poisson offering 2 pkt/s each,
    // more than the fair share), so Fair Queueing's max-min share of each FTP source is
    // 10/6 = 1.67 pkt/s. After the first 1000 s interval (start-up), PP must lose nothing
    // and each source must get within 5% of that share, in Scenario 3 too, where source 2's
    // round trip is twice source 1's. Max-min shares need the rollback drop rule: with
    // DKS's (the default) the Poisson sources, which offer more than their share, are
    // charged for their drops and fall behind, and PP's probes see spare capacity
    // (docs/reproductions/keshav.md).
    for name in ["keshav-s2", "keshav-s3"] {
        let fq = r#"defaults.qdisc={kind = "fq", drop_rule = "rollback"}"#;
        let r = run(&scenario_file(name), &["defaults.cc=pp", fq], None);
        assert_eq!(r.intervals.len(), 6);
        for flow in ["ftp1", "ftp2"] {
            let later: Vec<_> =
                r.intervals[1..].iter().map(|iv| iv.flows.iter().find(|f| f.name == flow).unwrap()).collect();
            let dropped: u64 = later.iter().map(|f| f.dropped_pkts).sum();
            assert_eq!(dropped, 0, "{name} {flow}");
            let mean = later.iter().map(|f| f.goodput_pps).sum::<f64>() / later.len() as f64;
            assert!((mean - 10.0 / 6.0).abs() < 0.05 * 10.0 / 6.0, "{name} {flow}: {mean} pkt/s");
        }
    }
}

/// Two CBR conversations on an 8 kbps Fair Queueing line (1000 B = 1 s on the line);
/// access lines of 8 Mbps (1 ms per packet), no propagation delay. A sends at 0 and
/// 0.5 s, B once at 0.75 s.
const FQ_IDLE_LINE: &str = r#"
[scenario]
name = "fq-idle-line"
duration = "2.1s"
[defaults]
buffer = "10pkt"
[nodes]
hosts = ["a", "b", "sink"]
routers = ["sw"]
[[links]]
between = ["a", "sw"]
rate = "8Mbps"
[[links]]
between = ["b", "sw"]
rate = "8Mbps"
[[links]]
between = ["sw", "sink"]
rate = "8kbps"
qdisc = "fq"
[[flows]]
name = "a"
kind = "cbr"
from = "a"
to = "sink"
rate = "16kbps"
on = [["0s", "0.6s"]]
[[flows]]
name = "b"
kind = "cbr"
from = "b"
to = "sink"
rate = "16kbps"
on = [["0.75s", "0.8s"]]
"#;

#[test]
fn fair_queueing_numbers_a_packet_that_finds_the_line_idle() {
    // a0 reaches sw at 1 ms and finds the line idle. It still gets a finish number:
    // F = 8000 bits, so A is active in the fluid system and R grows at 8000 bits/s.
    // a1 (0.501 s): R = 4000, S = max(8000, 4000), F = 16000. b0 (0.751 s): R = 6000,
    // F = 14000 < 16000, so b0 follows a0 on the line (1.001-2.001 s) and reaches the
    // sink by 2.1 s; a1 waits. Before the fix a0 skipped the discipline: a1 got F = 8000
    // (R = 0 with no active conversation), b0 F = 10000, and a1 went first.
    let r = run(FQ_IDLE_LINE, &[], None);
    let delivered = |name: &str| flow_result(&r, name).delivered_pkts;
    assert_eq!((delivered("a"), delivered("b")), (1, 1));
}

const FQ_SAME_HOSTS: &str = r#"
# Two unresponsive sources on the same host pair share a 4-unit Fair Queueing link
# (1 unit = 80 kbps = 10 packets/s of 1000 B): "one" offers 1 unit, "eight" 8.
[scenario]
name = "fq-same-hosts"
duration = "200s"
[defaults]
qdisc = "fq"
buffer = "60pkt"
[nodes]
hosts = ["a", "sink"]
routers = ["sw"]
[[links]]
between = ["a", "sw"]
rate = "10Mbps"
[[links]]
between = ["sw", "sink"]
rate = "320kbps"
delay = "10ms"
[[flows]]
name = "one"
kind = "cbr"
from = "a"
to = "sink"
rate = "80kbps"
[[flows]]
name = "eight"
kind = "cbr"
from = "a"
to = "sink"
rate = "640kbps"
[[phases]]
name = "steady"
start = "20s"
end = "200s"
"#;

#[test]
fn fair_queueing_classifies_by_flow_by_default() {
    // By flow (the default) the two flows are two conversations, each with a fair share
    // of 2 units. "one" offers 1 unit, below its share: its finish numbers grow more
    // slowly than R, its packets go out ahead of "eight"'s, and a full buffer always drops
    // from "eight" (the conversation with the most bits queued). So "one" gets its whole
    // 10 pkt/s and loses nothing, and "eight" the remaining 4 - 1 = 3 units = 30 pkt/s.
    // (By host pair the split of these periodic arrivals is set by their phases, so the
    // next test compares the two classifications with Poisson arrivals.)
    let r = run(FQ_SAME_HOSTS, &[], None);
    for (flow, want) in [("one", 10.0), ("eight", 30.0)] {
        let got = phase_goodput(&r, "steady", flow);
        assert!((got - want).abs() / want < 0.01, "{flow}: {got} pkt/s, want {want} within 1%");
    }
    let one = flow_result(&r, "one");
    assert_eq!(one.dropped_pkts, 0);
}

#[test]
fn fair_queueing_by_host_pair_puts_flows_between_the_same_hosts_in_one_queue() {
    // By host pair both flows are one conversation: one first-in first-out queue with a
    // drop-tail buffer, 90 pkt/s offered to 40 pkt/s. With Poisson arrivals every source
    // sees the time-average queue (PASTA), so both meet the same drop probability and the
    // 40 pkt/s split 1:8 as offered: 4.44 and 35.56 pkt/s ("one" far below the 10 pkt/s
    // it gets by flow). Within 5% on "eight" (about 6400 packets) and 10% on "one"
    // (about 800 packets over 180 s: sampling error near 3.5%).
    let text = FQ_SAME_HOSTS
        .replace("kind = \"cbr\"", "kind = \"poisson\"")
        .replace("rate = \"80kbps\"", "mean_gap = \"100ms\"")
        .replace("rate = \"640kbps\"", "mean_gap = \"12.5ms\"");
    let r = run(&text, &["scenario.conversations=host_pair"], None);
    for (flow, want, tol) in [("one", 40.0 / 9.0, 0.10), ("eight", 40.0 * 8.0 / 9.0, 0.05)] {
        let got = phase_goodput(&r, "steady", flow);
        assert!((got - want).abs() / want < tol, "{flow}: {got} pkt/s, want {want} within {tol}");
    }
    // The same arrivals by flow: "one" (1 unit, below its 2-unit share) loses nothing.
    let r = run(&text, &[], None);
    let one = flow_result(&r, "one");
    assert_eq!(one.dropped_pkts, 0);
    assert!(one.sent_pkts > 1500, "{}", one.sent_pkts);
}

const FQ_ACKS: &str = r#"
# A window flow a -> sink, and a CBR source sink -> a that offers twice the rate of the
# sink -> sw channel its acks share (both directions Fair Queueing).
[scenario]
name = "fq-acks"
duration = "100s"
[defaults]
qdisc = "fq"
buffer = "60pkt"
max_window = "20pkt"
cc = "reno"
[nodes]
hosts = ["a", "sink"]
routers = ["sw"]
[[links]]
between = ["a", "sw"]
rate = "10Mbps"
[[links]]
between = ["sw", "sink"]
rate = "800kbps"
delay = "10ms"
[[flows]]
name = "win"
from = "a"
to = "sink"
[[flows]]
name = "back"
kind = "cbr"
from = "sink"
to = "a"
rate = "1600kbps"
[[phases]]
name = "steady"
start = "20s"
end = "100s"
"#;

#[test]
fn fair_queueing_gives_a_flows_acks_a_conversation_of_their_own() {
    // The bottleneck is 800 kbps = 100 pkt/s of 1000 B each way. Forward, "win" is alone:
    // its 20-packet window exceeds the pipe (a round trip of about 20 ms propagation plus
    // 10 ms + 0.4 ms transmission holds about 3 packets) and the 60-packet buffer holds
    // the rest, so it keeps the line busy without loss: 100 pkt/s.
    // Backward, its acks (100/s x 40 B = 32 kbps) are a conversation of their own, far
    // below their 400 kbps share: never dropped, never queued behind more than the one
    // "back" packet in service. "back" gets the rest: (800 - 32) kbps = 96 pkt/s.
    let r = run(FQ_ACKS, &[], None);
    for (flow, want) in [("win", 100.0), ("back", 96.0)] {
        let got = phase_goodput(&r, "steady", flow);
        assert!((got - want).abs() / want < 0.01, "{flow}: {got} pkt/s, want {want} within 1%");
    }
    let win = flow_result(&r, "win");
    assert_eq!(win.dropped_pkts, 0);
    // By host pair the acks (sink -> a) share the conversation of "back" (sink -> a): one
    // queue overloaded twice over, kept full with about 60 packets of 1000 B, so every
    // ack waits about 60 x 10 ms = 0.6 s and the window of 20 packets allows at most
    // 20 / 0.6 s = 33 pkt/s (fewer still when acks are dropped: then "win" waits for
    // its retransmission timer).
    let r = run(FQ_ACKS, &["scenario.conversations=host_pair"], None);
    let got = phase_goodput(&r, "steady", "win");
    assert!(got < 34.0, "win by host pair: {got} pkt/s, want at most 33");
}

/// A window of 10 packets leaves the sender back to back over a 100 Mbit/s access link
/// (80 us apart) into a 1 Mbit/s RED bottleneck (8 ms a packet) with queue weight 1, so
/// RED's average is the queue found by each arrival (FJ93 with w_q = 1): the first
/// arrival finds the line idle (0), the second finds the first in transmission and the
/// queue empty (0), the k-th (k >= 2) finds k - 1 waiting. Recorded on change, the
/// discipline's `avg` series starts 0, 1, ..., 8, the k-th value at arrival k + 1:
/// sent at k x 80 us, through the 80 us access transmission and 1 ms of delay.
const RED_AVG: &str = r#"
[scenario]
name = "red-avg"
duration = "50ms"
[defaults]
data_size = "1000B"
[nodes]
hosts = ["a", "b"]
routers = ["r1", "r2"]
[[links]]
between = ["a", "r1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
between = ["r1", "r2"]
rate = "1Mbps"
buffer = "100pkt"
qdisc = { kind = "red", w_q = 1.0, min_th = "50pkt", max_th = "90pkt" }
[[links]]
between = ["r2", "b"]
rate = "100Mbps"
[[flows]]
name = "f"
from = "a"
to = "b"
cc = "reno"
[flows.params]
initial_window = 10
[measure]
series = ["r1->r2.avg", "r1->r2.queue"]
"#;

#[test]
fn reds_average_is_a_series_of_the_channel_and_with_weight_one_the_queue_found() {
    let r = run(RED_AVG, &[], None);
    let s = r.series.iter().find(|s| s.name == "r1->r2.avg").expect("the avg series");
    assert_eq!(s.unit, "pkts");
    assert_eq!(&s.v[..9], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    for (k, &t) in s.t[1..9].iter().enumerate() {
        // Value k + 1 at arrival k + 2: sent at (k + 2) x 80 us, arriving 80 us + 1 ms later.
        let want = ((k as f64 + 3.0) * 80e-6) + 1e-3;
        assert!((t - want).abs() < 1e-12, "point {}: {t} s, want {want} s", k + 1);
    }
    // The discipline's series is the channel's only: a drop-tail channel has none.
    let e = ccsim_engine::parse(&RED_AVG.replace("r1->r2.avg", "r2->b.avg"), "t.toml", &[]).unwrap_err();
    assert_eq!(e.field, "measure.series");
    assert!(e.message.contains("channel 'r2->b' (fcfs discipline) has the series 'queue'"), "{}", e.message);
    // The reverse direction of the RED link is RED too.
    assert!(ccsim_engine::parse(&RED_AVG.replace("r1->r2.avg", "r2->r1.avg"), "t.toml", &[]).is_ok());
}

/// A beacon on r->b sends to a every 10 ms, the last at the run's end (100 ms): its
/// packet starts on r->a at that instant. The totals count it; the last interval, which
/// ends there, must count it too, so the ten intervals add up to the totals (the
/// boundary at the end time is measured after every event of that instant).
#[test]
fn intervals_add_up_to_the_totals_with_an_event_at_the_end_time() {
    let text = "[scenario]\nname = \"end\"\nduration = \"100ms\"\n[nodes]\nhosts = [\"a\", \"b\"]\nrouters = [\"r\"]\n\
                [[links]]\nbetween = [\"a\", \"r\"]\nrate = \"10Mbps\"\n[[links]]\nbetween = [\"r\", \"b\"]\nrate = \"64kbps\"\n\
                [[flows]]\nname = \"w\"\nfrom = \"a\"\nto = \"b\"\n\
                [[elements]]\nkind = \"beacon\"\nat = \"r->b\"\nto = \"a\"\nperiod = \"10ms\"\n";
    let r = run(text, &["measure.interval=10ms"], None);
    for l in &r.links {
        let by_interval: u64 =
            r.intervals.iter().map(|iv| iv.links.iter().find(|x| x.name == l.name).unwrap().tx_pkts).sum();
        assert_eq!(by_interval, l.tx_pkts, "channel {}", l.name);
    }
    let ra = r.links.iter().find(|l| l.name == "r->a").unwrap();
    assert_eq!(ra.tx_pkts, 10, "a beacon packet at 10, 20, ..., 100 ms");
}
