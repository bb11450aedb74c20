//! Scenario tests of Welzl's CADPC with PTP forward packet stamping (transport/cadpc.rs,
//! element/ptp.rs): the fluid-model facts of section 3 on a packet network, PTP packet
//! growth, feedback counts, conservation and determinism.

use ccsim_engine::results::PhaseFlow;
use ccsim_engine::{run_text, Results};

/// A dumbbell of `n` CADPC flows s_i -> r1 -> r2 -> d_i, 50 ms per link (RTT 300 ms),
/// a `bneck` bottleneck r1->r2, 1000 Mbps elsewhere, PTP elements on the routers'
/// outgoing channels, and optionally a CBR background flow of `bg` across r1->r2.
fn dumbbell(n: usize, bneck: &str, bg: Option<&str>, secs: u32, phase: (u32, u32)) -> String {
    let mut hosts: Vec<String> = (0..n).flat_map(|i| [format!("s{i}"), format!("d{i}")]).collect();
    hosts.push("bs".into());
    hosts.push("bd".into());
    let hl = hosts.iter().map(|h| format!("\"{h}\"")).collect::<Vec<_>>().join(", ");
    let mut t = format!(
        "[scenario]\nname = \"welzl-test\"\nduration = \"{secs}s\"\n[defaults]\nbuffer = \"50pkt\"\n\
         [nodes]\nhosts = [{hl}]\nrouters = [\"r1\", \"r2\"]\n\
         [[links]]\nbetween = [\"r1\", \"r2\"]\nrate = \"{bneck}\"\ndelay = \"50ms\"\n"
    );
    let mut at = vec!["\"r1->r2\"".to_string()];
    for h in &hosts {
        let r = if h.starts_with('s') || h == "bs" { "r1" } else { "r2" };
        t += &format!("[[links]]\nbetween = [\"{h}\", \"{r}\"]\nrate = \"1000Mbps\"\ndelay = \"50ms\"\n");
        if r == "r2" {
            at.push(format!("\"r2->{h}\""));
        }
    }
    for i in 0..n {
        t += &format!(
            "[[flows]]\nname = \"c{i}\"\nkind = \"cadpc\"\nfrom = \"s{i}\"\nto = \"d{i}\"\npacket_size = \"1000B\"\n"
        );
    }
    if let Some(rate) = bg {
        t += &format!("[[flows]]\nname = \"bg\"\nkind = \"cbr\"\nfrom = \"bs\"\nto = \"bd\"\nrate = \"{rate}\"\npacket_size = \"1000B\"\n");
    }
    t += &format!("[[elements]]\nkind = \"ptp\"\nat = [{}]\n", at.join(", "));
    t += &format!("[[phases]]\nname = \"steady\"\nstart = \"{}s\"\nend = \"{}s\"\n", phase.0, phase.1);
    t
}

fn run(text: &str, seed: Option<u64>) -> Results {
    let mut sim = run_text(text, "test.toml", &[], seed).unwrap_or_else(|e| panic!("{e}"));
    let r = sim.results(0.0);
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
    }
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
    }
    r
}

fn steady(r: &Results) -> &[PhaseFlow] {
    &r.phases.iter().find(|p| p.name == "steady").unwrap().flows
}

#[test]
fn n_flows_converge_to_one_over_one_plus_n_of_the_bottleneck() {
    // Section 3.1: x = B/(1+n). n = 2 on 10 Mbps: 3.333 Mbps each, 6.667 Mbps total.
    let r = run(&dumbbell(2, "10Mbps", None, 120, (60, 120)), None);
    for f in &steady(&r)[..2] {
        let want = 10e6 / 3.0;
        assert!((f.goodput_bps - want).abs() < 0.03 * want, "{} got {} want {want}", f.name, f.goodput_bps);
    }
    // CADPC avoids congestion: nothing is lost and PTP/feedback flowed both ways.
    assert!(r.flows.iter().all(|f| f.dropped_pkts == 0));
    assert!(r.flows[0].control_pkts > 50, "{}", r.flows[0].control_pkts);
}

#[test]
fn with_constant_background_each_flow_gets_one_minus_b_over_one_plus_n() {
    // b = 3 Mbps of 10 (0.3): each of n = 2 flows gets (1 - 0.3)/3 of 10 Mbps = 2.333 Mbps.
    let r = run(&dumbbell(2, "10Mbps", Some("3Mbps"), 120, (60, 120)), None);
    let s = steady(&r);
    for f in &s[..2] {
        let want = 10e6 * 0.7 / 3.0;
        assert!((f.goodput_bps - want).abs() < 0.03 * want, "{} got {} want {want}", f.name, f.goodput_bps);
    }
    assert!((s[2].goodput_bps - 3e6).abs() < 0.01 * 3e6, "the CBR background is untouched");
}

#[test]
fn ptp_packets_grow_by_a_record_per_router_and_runs_are_deterministic() {
    let text = dumbbell(1, "10Mbps", None, 20, (10, 20));
    let a = run(&text, Some(3));
    let b = run(&text, Some(3));
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    // Two routers stamp: one record each on r1->r2 and r2->d0.
    let stamped: Vec<u64> =
        a.links.iter().filter_map(|l| l.elements.first()).map(|e| e["stamped_pkts"].as_u64().unwrap()).collect();
    assert_eq!(stamped.len(), 3, "r1->r2, r2->d0 and r2->bd carry the element");
    let ptp = stamped[0];
    assert!(ptp > 3, "{ptp}");
    assert_eq!(stamped, vec![ptp, ptp, 0]);
    // Bits on the bottleneck: data packets, plus PTP requests of 32 + 16 bytes (the
    // record is appended before serialisation).
    let l = a.links.iter().find(|l| l.name == "r1->r2").unwrap();
    let extra = l.tx_bits - (l.tx_pkts - ptp) * 8000;
    assert_eq!(extra, ptp * 48 * 8);
}

#[test]
fn bad_parameters_name_the_field() {
    let text = dumbbell(1, "10Mbps", None, 20, (10, 20))
        .replace("packet_size = \"1000B\"\n", "packet_size = \"1000B\"\nparams = { a = 2.0 }\n");
    let e = run_text(&text, "t.toml", &[], None).err().expect("rejected").to_string();
    assert!(e.contains("flows.c0.params.a"), "{e}");
    let text = dumbbell(1, "10Mbps", None, 20, (10, 20)).replace("kind = \"cadpc\"", "kind = \"cadpc\"\ncc = \"reno\"");
    let e = run_text(&text, "t.toml", &[], None).err().expect("rejected").to_string();
    assert!(e.contains("flows.c0.cc") && e.contains("cadpc"), "{e}");
    let text = dumbbell(1, "10Mbps", None, 20, (10, 20)).replace("kind = \"ptp\"", "kind = \"ptp\"\nrecord = \"16B\"");
    let e = run_text(&text, "t.toml", &[], None).err().expect("rejected").to_string();
    assert!(e.contains("elements.0"), "{e}");
}

/// `n` RAP flows s -> r1 -> r2 -> d on the Table 1 dumbbell (`params` as given).
fn rap(n: usize, params: &str, secs: u32) -> String {
    format!(
        "[scenario]\nname = \"rap\"\nduration = \"{secs}s\"\n[defaults]\nbuffer = \"50pkt\"\n\
         [nodes]\nhosts = [\"s\", \"d\"]\nrouters = [\"r1\", \"r2\"]\n\
         [[links]]\nbetween = [\"s\", \"r1\"]\nrate = \"1000Mbps\"\ndelay = \"50ms\"\nbuffer = \"10000pkt\"\n\
         [[links]]\nbetween = [\"r1\", \"r2\"]\nrate = \"10Mbps\"\ndelay = \"50ms\"\n\
         [[links]]\nbetween = [\"r2\", \"d\"]\nrate = \"1000Mbps\"\ndelay = \"50ms\"\nbuffer = \"10000pkt\"\n\
         [[flows]]\nname = \"r\"\nkind = \"rap\"\ncount = {n}\nfrom = \"s\"\nto = \"d\"\npacket_size = \"1000B\"\nparams = {{ {params} }}\n\
         [[phases]]\nname = \"steady\"\nstart = \"{}s\"\nend = \"{secs}s\"\n",
        secs / 2
    )
}

#[test]
fn rap_flows_share_the_bottleneck_and_back_off_on_loss() {
    let r = run(&rap(2, "alpha = 1.0, beta = 0.5", 200), None);
    let s = steady(&r);
    let (a, b) = (s[0].goodput_bps, s[1].goodput_bps);
    // AIMD with equal RTTs: equal shares (within 25 %) and most of the 10 Mbps used.
    assert!((a - b).abs() < 0.25 * a.max(b), "{a} {b}");
    assert!(a + b > 6e6, "{}", a + b);
    for f in &r.flows {
        assert!(f.dropped_pkts > 0, "AIMD probes until it loses");
        assert_eq!(f.acks_sent, f.arrived_pkts, "every packet is acknowledged");
        assert_eq!(f.retransmitted_pkts, 0, "RAP does not retransmit");
    }
}

#[test]
fn gaimd_parameters_keep_the_link_fuller_than_rap() {
    // The buffer (50 packets) is far below the path's 375-packet BDP, so after RAP halves
    // the link idles; GAIMD (alpha 0.31, beta 7/8) backs off by 1/8 and stays busier.
    let rap_r = run(&rap(4, "alpha = 1.0, beta = 0.5", 200), None);
    let gaimd = run(&rap(4, "alpha = 0.31, beta = 0.875", 200), None);
    let total = |r: &Results| steady(r).iter().map(|f| f.goodput_bps).sum::<f64>();
    assert!(total(&gaimd) > total(&rap_r), "{} vs {}", total(&gaimd), total(&rap_r));
    assert!(gaimd.flows.iter().all(|f| f.dropped_pkts > 0));
    let e = run_text(&rap(1, "beta = 1.5", 10), "t.toml", &[], None).err().expect("rejected").to_string();
    assert!(e.contains("flows.r1.params.beta"), "{e}");
}
