//! Scenario tests of TFRC (RFC 3448; transport/tfrc.rs): one flow under random loss
//! sends near the throughput equation's rate, flows share a drop-tail bottleneck,
//! packets are conserved and runs are deterministic.

use ccsim_engine::transport::tfrc::tcp_equation;
use ccsim_engine::{run_text, Results};

/// `n` TFRC flows s -> r1 -> r2 -> d, 50 ms per link (RTT 300 ms), a `bneck` bottleneck
/// with a 50-packet drop-tail buffer, optionally a random loss of data packets on r1->r2.
fn dumbbell(n: usize, bneck: &str, loss: Option<f64>, secs: u32, from: u32) -> String {
    let mut t = format!(
        "[scenario]\nname = \"tfrc\"\nduration = \"{secs}s\"\n[defaults]\nbuffer = \"50pkt\"\n\
         [nodes]\nhosts = [\"s\", \"d\"]\nrouters = [\"r1\", \"r2\"]\n\
         [[links]]\nbetween = [\"s\", \"r1\"]\nrate = \"1000Mbps\"\ndelay = \"50ms\"\nbuffer = \"10000pkt\"\n\
         [[links]]\nbetween = [\"r1\", \"r2\"]\nrate = \"{bneck}\"\ndelay = \"50ms\"\n\
         [[links]]\nbetween = [\"r2\", \"d\"]\nrate = \"1000Mbps\"\ndelay = \"50ms\"\nbuffer = \"10000pkt\"\n\
         [[flows]]\nname = \"t\"\nkind = \"tfrc\"\ncount = {n}\nfrom = \"s\"\nto = \"d\"\npacket_size = \"1000B\"\n\
         [[phases]]\nname = \"steady\"\nstart = \"{from}s\"\nend = \"{secs}s\"\n"
    );
    if let Some(p) = loss {
        t += &format!("[[elements]]\nkind = \"random_loss\"\nat = \"r1->r2\"\np = {p}\nonly = \"data\"\n");
    }
    t
}

fn run(text: &str, seed: Option<u64>) -> Results {
    let mut sim = run_text(text, "test.toml", &[], seed).unwrap_or_else(|e| panic!("{e}"));
    let r = sim.results(0.0);
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
        assert_eq!(f.retransmitted_pkts, 0, "TFRC does not retransmit");
    }
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
    }
    r
}

fn goodput(r: &Results) -> Vec<f64> {
    r.phases.iter().find(|p| p.name == "steady").unwrap().flows.iter().map(|f| f.goodput_bps).collect()
}

#[test]
fn one_flow_under_random_loss_sends_near_the_equation_rate() {
    // p = 1 % Bernoulli on an uncongested 100 Mbps path, R = 300 ms, s = 1000 B:
    // X = 1000 / (0.3 sqrt(0.02/3) + 1.2 * 3 sqrt(0.00375) * 0.01 * 1.0032) = 37 443 B/s
    // (0.2996 Mbit/s). The loss event rate is a little below p (two losses within one
    // RTT are one event), so TFRC may send a little above that.
    let want = tcp_equation(1000.0, 0.3, 0.01, 1.2) * 8.0;
    assert!((want - 299_546.0).abs() < 50.0, "{want}");
    let mut got = Vec::new();
    for seed in [1, 2, 3] {
        let r = run(&dumbbell(1, "100Mbps", Some(0.01), 400, 100), Some(seed));
        got.push(goodput(&r)[0]);
    }
    let mean = got.iter().sum::<f64>() / got.len() as f64;
    eprintln!("TFRC under 1 % loss: {got:?}, mean {mean}, equation {want}");
    assert!(mean > 0.9 * want && mean < 1.2 * want, "{got:?} vs {want}");
}

#[test]
fn flows_share_a_drop_tail_bottleneck_and_runs_are_deterministic() {
    let text = dumbbell(4, "10Mbps", None, 120, 60);
    let a = run(&text, None);
    let b = run(&text, None);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let g = goodput(&a);
    eprintln!("4 TFRC flows on 10 Mbps: {g:?}");
    let total: f64 = g.iter().sum();
    assert!(total > 5e6, "{g:?}");
    let (lo, hi) = g.iter().fold((f64::MAX, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
    assert!(lo > 0.4 * hi, "{g:?}");
    assert!(a.flows.iter().all(|f| f.dropped_pkts > 0 && f.control_pkts > 0));
}

#[test]
fn bad_parameters_name_the_field() {
    let text = dumbbell(1, "10Mbps", None, 10, 5)
        .replace("packet_size = \"1000B\"\n", "packet_size = \"1000B\"\nparams = { t_mbi = \"0s\" }\n");
    let e = run_text(&text, "t.toml", &[], None).err().expect("rejected").to_string();
    assert!(e.contains("flows.t1.params.t_mbi") || e.contains("params.t_mbi"), "{e}");
    let text = dumbbell(1, "10Mbps", None, 10, 5).replace("kind = \"tfrc\"\n", "kind = \"tfrc\"\nsack = true\n");
    let e = run_text(&text, "t.toml", &[], None).err().expect("rejected").to_string();
    assert!(e.contains("sack"), "{e}");
}
