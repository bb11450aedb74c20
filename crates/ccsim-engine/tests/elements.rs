//! Scenario tests of the v2 engine's network hooks: elements on channels (counting,
//! random loss, per-flow statistics, emitted control packets), RED, drop reasons and
//! sojourn times. Expected values are derived by hand in the comments.

use ccsim_engine::qdisc::DropReason;
use ccsim_engine::results::LinkResult;
use ccsim_engine::{run_text, Results};

fn run(text: &str, overrides: &[&str], seed: Option<u64>) -> Results {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = run_text(text, "test.toml", &o, seed).unwrap_or_else(|e| panic!("{e}"));
    let r = sim.results(0.0);
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
    }
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
        assert_eq!(l.drops, l.drops_by_reason.total(), "channel {}", l.name);
    }
    r
}

fn link<'a>(r: &'a Results, name: &str) -> &'a LinkResult {
    r.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no channel {name}"))
}

/// One CBR source a -> r -> b at 80% of a 1 Mbps bottleneck, plus a Reno flow c -> b.
const LINE: &str = r#"
[scenario]
name = "line"
duration = "20s"
[nodes]
hosts = ["a", "b", "c"]
routers = ["r"]
[[links]]
between = ["a", "r"]
rate = "10Mbps"
delay = "1ms"
[[links]]
between = ["c", "r"]
rate = "10Mbps"
delay = "1ms"
[[links]]
name = "bottleneck"
between = ["r", "b"]
rate = "1Mbps"
delay = "10ms"
buffer = "20pkt"
[[flows]]
name = "cbr"
kind = "cbr"
from = "a"
to = "b"
rate = "800kbps"
packet_size = "1000B"
[[flows]]
name = "tcp"
from = "c"
to = "b"
cc = "reno"
"#;

#[test]
fn a_counting_element_sees_every_packet_of_its_channel() {
    let text = format!("{LINE}[[elements]]\nkind = \"counter\"\nat = \"r->b\"\n[[elements]]\nkind = \"counter\"\nat = \"bottleneck\"\n");
    let r = run(&text, &[], None);
    let fwd = link(&r, "r->b");
    let c = &fwd.elements[0];
    assert_eq!(c["kind"], "counter");
    let arrived: u64 = ["data", "ack", "control"].iter().map(|k| c["arrived"][k].as_u64().unwrap()).sum();
    let transmitted: u64 = ["data", "ack", "control"].iter().map(|k| c["transmitted"][k].as_u64().unwrap()).sum();
    assert_eq!(arrived, fwd.offered_pkts, "the counter runs first, before any drop");
    assert_eq!(transmitted, fwd.tx_pkts);
    assert_eq!(c["tx_bits"].as_u64().unwrap(), fwd.tx_bits);
    assert_eq!(c["arrived"]["ack"], 0, "only data flows forward");
    // The link name puts a counter on both directions: the reverse one sees the acks.
    let back = link(&r, "b->r");
    assert_eq!(back.elements.len(), 1);
    assert_eq!(back.elements[0]["transmitted"]["ack"].as_u64().unwrap(), back.tx_pkts);
    assert!(back.tx_pkts > 0);
}

#[test]
fn an_element_on_a_channel_costs_no_change_to_the_results() {
    // A channel with elements takes the reference path (queue + TxDone events), which a
    // plain channel takes only with departure scheduling off: compare on that path.
    let reference = |text: &str| {
        let mut sim = ccsim_engine::Simulation::new(ccsim_engine::parse(text, "test.toml", &[]).unwrap(), None);
        sim.set_timed_fifo(false);
        sim.run();
        sim.results(0.0)
    };
    let plain = reference(LINE);
    let counted = reference(&format!("{LINE}[[elements]]\nkind = \"counter\"\nat = \"r->b\"\n"));
    assert_eq!(plain.meta.events, counted.meta.events);
    for (a, b) in plain.flows.iter().zip(&counted.flows) {
        assert_eq!((a.sent_pkts, a.delivered_pkts, a.dropped_pkts), (b.sent_pkts, b.delivered_pkts, b.dropped_pkts));
    }
}

#[test]
fn a_control_packet_emitted_by_an_element_reaches_its_host_and_is_counted() {
    // A beacon on r->b sends a 40 B packet from r to host a every 100 ms from t = 100 ms:
    // 199 packets by t = 19.9 s (the one at 20 s is emitted at the end, 20 s, and is
    // still on its way). It travels r->a (10 Mbps, 1 ms): 1.032 ms.
    let text = format!("{LINE}[[elements]]\nkind = \"beacon\"\nat = \"r->b\"\nto = \"a\"\nperiod = \"100ms\"\n");
    let r = run(&text, &[], None);
    let b = &link(&r, "r->b").elements[0];
    assert_eq!(b["sent_pkts"], 200);
    let a = r.nodes.iter().find(|n| n.name == "a").unwrap();
    assert_eq!(a.control_received_pkts, 199);
    let ra = link(&r, "r->a");
    assert_eq!(ra.tx_pkts, 200, "the channel carried every beacon packet");
    assert_eq!(ra.tx_bits, 200 * 320);
    let plain = run(LINE, &[], None);
    assert_eq!(
        link(&r, "r->b").offered_pkts,
        link(&plain, "r->b").offered_pkts,
        "nothing emitted onto the beacon's own channel"
    );
}

#[test]
fn a_lossy_channel_loses_a_fraction_p_within_a_binomial_bound() {
    // CBR 800 kbps of 1000 B = 100 pkt/s for 20 s: 2000 packets; p = 0.2 loses 400 with
    // a binomial standard deviation sqrt(2000 * 0.2 * 0.8) = 17.9.
    let text = format!("{LINE}[[elements]]\nkind = \"random_loss\"\nat = \"a->r\"\np = 0.2\n");
    for seed in [1u64, 2, 3] {
        let r = run(&text, &[], Some(seed));
        let ar = link(&r, "a->r");
        let lost = ar.drops_by_reason[DropReason::RandomLoss];
        assert_eq!(lost, ar.drops, "all drops on a->r are the element's");
        assert_eq!(ar.elements[0]["lost_pkts"].as_u64().unwrap(), lost);
        let n = ar.offered_pkts as f64;
        assert_eq!(n, 2000.0);
        assert!((lost as f64 - 0.2 * n).abs() < 4.0 * (n * 0.2 * 0.8f64).sqrt(), "seed {seed}: {lost}");
        let cbr = r.flows.iter().find(|f| f.name == "cbr").unwrap();
        assert!(cbr.dropped_pkts >= lost);
    }
    let a = run(&text, &[], Some(1));
    let b = run(&text, &[], Some(2));
    assert_ne!(link(&a, "a->r").drops, link(&b, "a->r").drops, "the seed drives the loss stream");
}

#[test]
fn per_flow_statistics_of_a_channel_add_up_to_the_channel_and_the_flows() {
    let text = format!("{LINE}[[elements]]\nkind = \"flow_stats\"\nat = \"r->b\"\n");
    let r = run(&text, &["flows.cbr.rate=1Mbps"], None);
    let ch = link(&r, "r->b");
    let rows = ch.elements[0]["flows"].as_array().unwrap();
    let fwd: u64 = rows.iter().map(|f| f["forwarded_pkts"].as_u64().unwrap()).sum();
    let dropped: u64 = rows.iter().map(|f| f["dropped_pkts"].as_u64().unwrap()).sum();
    assert_eq!(fwd, ch.tx_pkts);
    assert_eq!(dropped, ch.drops);
    assert!(dropped > 0, "the 1 Mbps CBR saturates the bottleneck");
    for row in rows {
        let f = r.flows.iter().find(|f| f.name == row["flow"].as_str().unwrap()).unwrap();
        // Every drop of these flows happens here (their access links are fast).
        assert_eq!(row["dropped_pkts"].as_u64().unwrap(), f.dropped_pkts, "{}", f.name);
    }
}

#[test]
fn red_drops_early_and_keeps_the_average_queue_between_its_thresholds() {
    // A 1.2 Mbps CBR into a 1 Mbps RED queue (min_th 5, max_th 15, w_q 0.002, max_p 0.1,
    // 100-packet buffer): 1/6 of the packets must go, and RED takes them before the
    // buffer fills: no overflow, the mean queue between the thresholds.
    let text = format!("{LINE}\n[defaults.qdisc]\nkind = \"red\"\nmax_p = 0.1\n");
    let r = run(&text, &["flows.cbr.rate=1.2Mbps", "links.bottleneck.buffer=100pkt", "flows.tcp.start=19s"], None);
    let ch = link(&r, "r->b");
    assert_eq!(ch.qdisc, "red");
    assert_eq!(ch.drops_by_reason[DropReason::Overflow], 0);
    let red = ch.drops_by_reason[DropReason::RedEarly] + ch.drops_by_reason[DropReason::RedForced];
    assert!(red > 0 && red == ch.drops);
    let frac = ch.drops as f64 / ch.offered_pkts as f64;
    assert!((frac - 1.0 / 6.0).abs() < 0.02, "{frac}");
    assert!(ch.queue_mean_pkts > 5.0 && ch.queue_mean_pkts < 15.0 * 1.5, "{}", ch.queue_mean_pkts);
    assert!(ch.queue_max_pkts < 100);
}

#[test]
fn sojourn_time_of_a_cbr_queue_matches_its_backlog() {
    // 1.2 Mbps into 1 Mbps through a 20-packet drop-tail queue: the queue fills and
    // stays full, so a transmitted packet waited behind 19 others (20 once the buffer is
    // full and the line busy): 19-20 services of 8 ms. The mean over the run is a little
    // lower (the first second fills it).
    let r = run(LINE, &["flows.cbr.rate=1.2Mbps", "flows.tcp.start=19.9s", "measure.series=[\"r->b.sojourn\"]"], None);
    let ch = link(&r, "r->b");
    assert!(ch.sojourn_max_s <= 20.0 * 0.008 + 1e-9 && ch.sojourn_max_s >= 19.0 * 0.008, "{}", ch.sojourn_max_s);
    let mean = ch.sojourn_mean_s.unwrap();
    assert!(mean > 0.14 && mean < 0.16, "{mean}");
    let s = r.series.iter().find(|s| s.name == "r->b.sojourn").unwrap();
    assert_eq!(s.v.len() as u64, ch.tx_pkts - 1, "every packet but the first waited");
}

#[test]
fn element_and_red_errors_name_the_field() {
    let err =
        |extra: &str| run_text(&format!("{LINE}{extra}"), "t.toml", &[], None).err().expect("an error").to_string();
    let e = err("[[elements]]\nkind = \"random_loss\"\nat = \"r->b\"\np = 1.5\n");
    assert!(e.contains("elements.0.p") && e.contains("probability"), "{e}");
    let e = err("[[elements]]\nkind = \"teleport\"\nat = \"r->b\"\n");
    assert!(e.contains("elements.0.kind") && e.contains("unknown element 'teleport'"), "{e}");
    assert!(e.contains("use counter, flow_stats, random_loss, beacon, capture, ptp or smart_link"), "{e}");
    let e = err("[[elements]]\nkind = \"countr\"\nat = \"r->b\"\n");
    assert!(e.contains("unknown element 'countr' (did you mean 'counter'?)"), "{e}");
    let e = err("[[elements]]\nkind = \"flow_stats\"\nat = \"r->b\"\nflows = 3\n");
    assert!(e.contains("elements.0.flows") && e.contains("'flow_stats' takes no parameters"), "{e}");
    let e = err("[[elements]]\nkind = \"beacon\"\nat = \"r->b\"\nto = \"a\"\nperiod = \"0s\"\n");
    assert!(e.contains("elements.0.period") && e.contains("at least 1us"), "{e}");
    let e = err("[[elements]]\nkind = \"counter\"\nat = \"r->x\"\n");
    assert!(e.contains("elements.0.at") && e.contains("'r->x'"), "{e}");
    let e = err("[[elements]]\nkind = \"counter\"\n");
    assert!(e.contains("elements.0.at") && e.contains("missing"), "{e}");
    let e = err("[[elements]]\nkind = \"beacon\"\nat = \"r->b\"\nto = \"r\"\nperiod = \"1s\"\n");
    assert!(e.contains("elements.0.to") && e.contains("router"), "{e}");
    let e = err("[[elements]]\nkind = \"beacon\"\nat = \"r->b\"\nto = \"a\"\nperiod = 1\n");
    assert!(e.contains("elements.0.period") && e.contains("no unit"), "{e}");
    let e = err("[defaults.qdisc]\nkind = \"red\"\nmin_th = \"20pkt\"\n");
    assert!(e.contains("defaults.qdisc.max_th") && e.contains("below min_th"), "{e}");
    let e = err("[defaults.qdisc]\nkind = \"red\"\nw_q = 2.0\n");
    assert!(e.contains("defaults.qdisc.w_q"), "{e}");
    let e = err("[defaults.qdisc]\nkind = \"red\"\nmin_tresh = \"2pkt\"\n");
    assert!(e.contains("defaults.qdisc.min_tresh") && e.contains("unknown field"), "{e}");
    let e = err("[defaults]\nqdisc = \"sfq\"\n");
    assert!(e.contains("unknown queue discipline 'sfq'"), "{e}");
    assert!(
        e.contains(r#"use "fcfs" (drop-tail), "fq" (Fair Queueing), "red" (RED), "codel" (CoDel), "fq_codel" (FQ-CoDel), "pie" (PIE) or "random_drop" (random-drop)"#),
        "{e}"
    );
    let e = err("[defaults]\nqdisc = \"fqq\"\n");
    assert!(e.contains("defaults.qdisc.kind") && e.contains("'fqq' (did you mean 'fq'?)"), "{e}");
    let e = err("[defaults.qdisc]\nkind = \"fcfs\"\nlimit = \"3pkt\"\n");
    assert!(e.contains("defaults.qdisc.limit") && e.contains("'fcfs' takes no parameters"), "{e}");
    let e = err("[defaults.qdisc]\nmax_p = 0.1\n");
    assert!(e.contains("defaults.qdisc.kind") && e.contains("missing"), "{e}");
    // An alias names the same discipline as a string or as a table's kind.
    for q in ["qdisc = \"droptail\"\n", "qdisc = { kind = \"droptail\" }\n"] {
        assert!(run_text(&format!("{LINE}[defaults]\n{q}"), "t.toml", &[], None).is_ok(), "{q}");
    }
}

/// A Poisson source of 1000 B packets at half the rate of a 1 Mbps link (8 ms per
/// packet) through a 10 Mbps access link, with delay statistics.
const MD1: &str = r#"
[scenario]
name = "md1"
duration = "4000s"
seed = 3
[nodes]
hosts = ["a", "b"]
routers = ["r"]
[[links]]
between = ["a", "r"]
rate = "10Mbps"
delay = "1ms"
buffer = "1000pkt"
[[links]]
between = ["r", "b"]
rate = "1Mbps"
delay = "5ms"
buffer = "1000pkt"
[[flows]]
name = "p"
kind = "poisson"
from = "a"
to = "b"
mean_gap = "16ms"
packet_size = "1000B"
[measure]
delays = ["p"]
"#;

#[test]
fn queueing_delay_of_poisson_traffic_matches_the_md1_waiting_time() {
    // M/D/1 at rho = 0.5, service S = 8 ms: mean wait W = rho S / (2 (1 - rho)) = 4 ms.
    // The access link (rho = 0.05, S = 0.8 ms) adds 0.05 * 0.8 / 1.9 = 0.02 ms.
    // One-way delay = the wait + 0.8 + 1 + 8 + 5 ms = W + 14.8 ms.
    let r = run(MD1, &[], None);
    let p = r.flows.iter().find(|f| f.name == "p").unwrap();
    let w = p.qdelay_mean_s.unwrap();
    assert!((w - 0.00402).abs() < 0.0003, "{w}");
    assert!((p.owd_mean_s.unwrap() - (w + 0.0148)).abs() < 1e-6);
    // Half the packets find the line idle (P(wait = 0) = 1 - rho): the median is ~0.
    assert!(p.qdelay_p50_s.unwrap() < 0.0005, "{:?}", p.qdelay_p50_s);
    assert!(p.qdelay_p95_s.unwrap() > w && p.qdelay_p99_s.unwrap() > p.qdelay_p95_s.unwrap());
    assert!(p.qdelay_max_s.unwrap() >= p.qdelay_p99_s.unwrap());
    assert!((p.owd_p50_s.unwrap() - 0.0148).abs() < 0.0008, "{:?}", p.owd_p50_s);
}

#[test]
fn delay_statistics_are_off_unless_asked_for() {
    let r = run(&MD1.replace("delays = [\"p\"]", ""), &["scenario.duration=10s"], None);
    assert!(r.flows[0].owd_mean_s.is_none() && r.flows[0].qdelay_p99_s.is_none());
    let e = run_text(MD1, "t.toml", &["measure.delays=[\"q\"]".into()], None).err().unwrap().to_string();
    assert!(e.contains("measure.delays") && e.contains("\"q\""), "{e}");
}
