//! Workloads (`[[workloads]]`): the flows a Poisson, permutation or incast workload
//! generates, against counts and rates computed by hand, and their errors.
//!
//! The network: hosts h0..h3, each on a 1 Gbps, 1 us link to router r; data packets of
//! 1500 B. The hosts' access links total 4 Gbps (the default capacity a load refers to).

mod common;

use ccsim_engine::scenario::workload::expand;
use ccsim_engine::scenario::{parse_reading, FlowSpec};
use ccsim_engine::{parse, Scenario};

fn scenario(workload: &str, duration: &str) -> String {
    format!(
        r#"
[scenario]
name = "workloads"
duration = "{duration}"
[defaults]
data_size = "1500B"
[nodes]
hosts = ["h0", "h1", "h2", "h3"]
routers = ["r"]
[[links]]
between = ["h0", "r"]
rate = "1Gbps"
delay = "1us"
[[links]]
between = ["h1", "r"]
rate = "1Gbps"
delay = "1us"
[[links]]
between = ["h2", "r"]
rate = "1Gbps"
delay = "1us"
[[links]]
between = ["h3", "r"]
rate = "1Gbps"
delay = "1us"
[[workloads]]
name = "w"
{workload}
"#
    )
}

fn expanded(workload: &str, duration: &str, seed: u64) -> Scenario {
    let mut sc = parse(&scenario(workload, duration), "w.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    expand(&mut sc, seed);
    sc
}

fn size(f: &ccsim_engine::scenario::Flow) -> Option<u32> {
    match &*f.spec {
        FlowSpec::Window { sender, .. } => sender.size.map(|s| s.get()),
        _ => panic!("a workload generates window flows"),
    }
}

fn err(workload: &str) -> String {
    parse(&scenario(workload, "1s"), "w.toml", &[]).map(|_| ()).unwrap_err().to_string()
}

#[test]
fn poisson_arrivals_offer_the_load_on_the_access_links() {
    // 15 kB flows are 10 packets of 1500 B. Load 0.5 of 4 Gbps: lambda = 0.5 x 4e9 /
    // (8 x 15000) = 16,666.7 flows/s, so 16,667 in 1 s (sd 129), mean gap 60 us.
    let sc = expanded("load = 0.5\nsize = \"15kB\"", "1s", 1);
    let n = sc.flows.len();
    assert_eq!(sc.generated, n);
    assert!((16_667 - 520..=16_667 + 520).contains(&n), "{n} flows");
    let first = sc.flows[0].start.as_secs_f64();
    let last = sc.flows[n - 1].start.as_secs_f64();
    let gap = (last - first) / (n - 1) as f64;
    assert!((gap - 60e-6).abs() < 60e-6 * 0.04, "mean gap {gap}");
    let mut from = [0usize; 4];
    for (k, f) in sc.flows.iter().enumerate() {
        assert_eq!(f.name, format!("w{}", k + 1));
        assert_ne!(f.from, f.to);
        assert_eq!(size(f), Some(10));
        assert_eq!(f.path.len(), 3, "host, router, host");
        assert!(k == 0 || f.start >= sc.flows[k - 1].start, "arrivals in time order");
        from[f.from] += 1;
    }
    // Sources uniform over the four hosts: n/4 each (sd 56).
    assert!(from.iter().all(|&c| c.abs_diff(n / 4) < 300), "{from:?}");
}

#[test]
fn a_named_link_or_one_receiver_sets_the_capacity() {
    // Against h0-r's 1 Gbps: lambda = 0.5 x 1e9 / (8 x 15000) = 4,166.7/s (sd 65).
    for w in [
        "load = 0.5\nsize = \"15kB\"\nlink = \"h0-r\"",
        "load = \"50%\"\nsize = \"15kB\"\npattern = \"all_to_one\"\nto = \"h0\"",
    ] {
        let sc = expanded(w, "1s", 1);
        let n = sc.flows.len();
        assert!((4167 - 260..=4167 + 260).contains(&n), "{w}: {n} flows");
        if w.contains("all_to_one") {
            assert!(sc.flows.iter().all(|f| sc.nodes[f.to].name == "h0" && f.from != f.to));
        }
    }
}

#[test]
fn web_search_sizes_follow_their_cdf_and_the_load() {
    // lambda = 0.5 x 4e9 / (8 x 1,711,250) = 146.1/s: 14,609 flows in 100 s.
    // P(size <= 10,500 B = 7 packets) = 0.15 + 0.05 x 500/10000 = 0.1525 (sd 0.003).
    let sc = expanded("load = 0.5\nsizes = \"web_search\"", "100s", 3);
    let n = sc.flows.len() as f64;
    assert!((n - 14_609.0).abs() < 500.0, "{n} flows");
    let small = sc.flows.iter().filter(|f| size(f).unwrap() <= 7).count() as f64 / n;
    assert!((small - 0.1525).abs() < 0.012, "{small}");
    // The largest flow is at most 30 MB = 20,000 packets.
    assert!(sc.flows.iter().all(|f| size(f).unwrap() <= 20_000));
    // Offered: sum of sizes over 100 s of 4 Gbps, 0.5 within the heavy tail's spread
    // (about 1.7% sd) plus whole-packet rounding (+0.04%).
    let bits: f64 = sc.flows.iter().map(|f| size(f).unwrap() as f64 * 1500.0 * 8.0).sum();
    let load = bits / (100.0 * 4e9);
    assert!((load - 0.5).abs() < 0.03, "offered {load}");
}

#[test]
fn a_size_unit_of_packets_and_a_cdf_file_next_to_the_scenario() {
    let dir = std::env::temp_dir().join(format!("ccsim-wl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Packets: 2 or 4 packets, half each (a step at each).
    std::fs::write(dir.join("two.cdf"), "# sizes in packets\n2 0.5\n2 0.5\n4 1\n").unwrap();
    let text = scenario("load = 0.1\nsizes = \"two.cdf\"\nsize_unit = \"pkt\"", "1s");
    // The front end's reader (the engine reads no files): relative to `dir`.
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| format!("cannot read '{name}' ({e})"));
    let mut sc = parse_reading(&text, "s.toml", &[], &read).unwrap_or_else(|e| panic!("{e}"));
    expand(&mut sc, 1);
    // Sizes interpolate between 2 and 4 packets of 1500 B: 3000..6000 B, whole packets 2, 3 or 4.
    let sizes: Vec<u32> = sc.flows.iter().map(|f| size(f).unwrap()).collect();
    assert!(sizes.iter().all(|s| (2..=4).contains(s)));
    let twos = sizes.iter().filter(|&&s| s == 2).count() as f64 / sizes.len() as f64;
    assert!((twos - 0.5).abs() < 0.05, "{twos}");
    // Without a reader (`parse`): an error naming the field, the file and the built-ins.
    let e = parse(&text, "s.toml", &[]).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("workloads.w.sizes") && e.contains("two.cdf") && e.contains("\"web_search\""), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_permutation_sends_from_every_host_to_another_once() {
    let sc = expanded("kind = \"permutation\"", "1s", 5);
    assert_eq!(sc.flows.len(), 4);
    let mut to: Vec<usize> = sc.flows.iter().map(|f| f.to).collect();
    assert!(sc.flows.iter().all(|f| f.from != f.to && f.start.as_ps() == 0 && size(f).is_none()));
    assert_eq!(sc.flows.iter().map(|f| f.from).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    to.sort_unstable();
    assert_eq!(to, vec![0, 1, 2, 3]);
    // Poisson arrivals over a permutation: each source always sends to the same host.
    let sc = expanded("load = 0.1\nsize = \"15kB\"\npattern = \"permutation\"", "0.1s", 5);
    let mut dst = [usize::MAX; 4];
    for f in &sc.flows {
        assert!(dst[f.from] == usize::MAX || dst[f.from] == f.to);
        dst[f.from] = f.to;
        assert_ne!(f.from, f.to);
    }
}

#[test]
fn incast_rounds_send_from_fresh_senders_to_one_host_and_complete() {
    // 2 of h1..h3 each round, 3 rounds 1 ms apart, 3 kB = 2 packets each.
    let w = "kind = \"incast\"\nto = \"h0\"\nsenders = 2\nsize = \"3kB\"\nrounds = 3\ninterval = \"1ms\"\nflow = { cc = \"reno\" }";
    let sc = expanded(w, "10ms", 1);
    assert_eq!(sc.flows.len(), 6);
    for (k, f) in sc.flows.iter().enumerate() {
        assert_eq!(f.start.as_ps(), (k as u64 / 2) * 1_000_000_000, "round {}", k / 2);
        assert_eq!((sc.nodes[f.to].name.as_str(), size(f)), ("h0", Some(2)));
        assert_ne!(f.from, 0);
    }
    for r in sc.flows.chunks(2) {
        assert_ne!(r[0].from, r[1].from);
    }
    // Run: every flow completes (2 packets of 1500 B through 1 Gbps links), and the
    // packets are conserved.
    let res = common::run_conserving(&scenario(w, "10ms"), "w.toml", &[]);
    assert_eq!(res.flows.len(), 6);
    assert!(res.flows.iter().all(|f| f.completed && f.delivered_pkts == 2), "{:?}", res.flows);
    // Listed senders, one round (the default): one flow each.
    let sc = expanded("kind = \"incast\"\nto = \"h0\"\nfrom = [\"h3\", \"h1\"]\nsize = \"1pkt\"", "1s", 1);
    assert_eq!(sc.flows.iter().map(|f| f.from).collect::<Vec<_>>(), vec![3, 1]);
}

#[test]
fn the_seed_draws_the_flows_and_export_keeps_the_workload() {
    let w = "load = 0.2\nsizes = \"data_mining\"\nflow = { cc = \"newreno\", sack = true }";
    let a = expanded(w, "1s", 7);
    assert_eq!(a, expanded(w, "1s", 7));
    assert_ne!(a.flows, expanded(w, "1s", 8).flows);
    // The run's seed, not the file's, draws them.
    let sc = parse(&scenario(w, "1s"), "w.toml", &[]).unwrap();
    let text = sc.to_toml();
    assert!(text.contains("[[workloads]]") && !text.contains("[[flows]]"), "{text}");
    assert_eq!(parse(&text, "again.toml", &[]).unwrap(), sc);
    // After a run's expansion the export is unchanged: generated flows are not written.
    assert_eq!(a.to_toml(), text);
    let mut sim = ccsim_engine::sim::Simulation::new(sc, Some(8));
    sim.run();
    assert_eq!(sim.results(0.0).flows.len(), expanded(w, "1s", 8).flows.len());
    // Overrides address a workload by name.
    let sc = parse(&scenario(w, "1s"), "w.toml", &["workloads.w.load=0.4".into()]).unwrap();
    assert!(sc.to_toml().contains("load = 0.4"));
}

#[test]
fn bad_workloads_are_errors_naming_the_field() {
    let cases = [
        ("load = 0.5", "workloads.w.sizes: missing"),
        ("load = 1.5\nsize = \"1pkt\"", "workloads.w.load: must be above 0 and at most 1"),
        (
            "load = \"half\"\nsize = \"1pkt\"",
            "workloads.w.load: expected a fraction such as 0.6 or \"60%\", found \"half\"",
        ),
        ("load = \"150%\"\nsize = \"1pkt\"", "workloads.w.load: must be above 0 and at most 1 (100%), found 1.5"),
        ("load = true\nsize = \"1pkt\"", "workloads.w.load: expected a fraction"),
        ("size = \"1pkt\"", "workloads.w.load: missing"),
        ("load = 0.5\nsizes = \"web\"", "workloads.w.sizes: cannot read"),
        ("load = 0.5\nsize = \"1pkt\"\nsizes = \"web_search\"", "workloads.w.size: give either"),
        ("load = 0.5\nsize = \"1pkt\"\nflow = { size = \"2pkt\" }", "workloads.w.flow.size: is set by the workload"),
        ("load = 0.5\nsize = \"1pkt\"\nflow = { cc = \"renoo\" }", "workloads.w.flow.cc: unknown"),
        ("load = 0.5\nsize = \"1pkt\"\nflow = { colour = 1 }", "workloads.w.flow.colour"),
        ("load = 0.5\nsize = \"1pkt\"\npattern = \"all_to_one\"", "workloads.w.to: missing"),
        ("load = 0.5\nsize = \"1pkt\"\npattern = \"star\"", "workloads.w.pattern: unknown pattern"),
        ("load = 0.5\nsize = \"1pkt\"\nlink = \"h9-r\"", "workloads.w.link: no link or channel"),
        ("load = 0.5\nsize = \"1pkt\"\nhosts = [\"h0\"]", "workloads.w.hosts: needs at least two"),
        ("load = 0.5\nsize = \"1pkt\"\nhosts = [\"h0\", \"r\"]", "workloads.w.hosts: 'r' is a router"),
        ("load = 0.5\nsize = \"1pkt\"\nrounds = 2", "workloads.w.rounds: does not apply to a poisson"),
        ("load = 0.5\nsize = \"1pkt\"\nstop = \"2s\"", "workloads.w.stop: must be after start"),
        ("load = 1.0\nsize = \"1pkt\"\ncolour = 3", "workloads.w.colour: unknown field \"colour\""),
        ("kind = \"burst\"", "workloads.w.kind: unknown workload kind 'burst'"),
        ("kind = \"incast\"\nsize = \"1pkt\"", "workloads.w.to: missing"),
        (
            "kind = \"incast\"\nto = \"h0\"\nsize = \"1pkt\"\nsenders = 4",
            "workloads.w.senders: expected a whole number of senders from 1 to 3",
        ),
        ("kind = \"incast\"\nto = \"h0\"\nsize = \"1pkt\"\nrounds = 2", "workloads.w.interval: missing"),
        ("kind = \"incast\"\nto = \"h0\"\nsize = \"1pkt\"\nfrom = [\"h0\"]", "workloads.w.from: 'h0' is the receiver"),
        ("kind = \"permutation\"\nload = 0.5", "workloads.w.load: does not apply to a permutation"),
    ];
    for (w, want) in cases {
        let e = err(w);
        assert!(e.contains(&format!("w.toml: {want}")), "{w}\n  gave: {e}\n  want: {want}");
    }
    // Full load of 1-packet flows on 4 Gbps: 4e9 / 12000 = 333,333 flows/s, 3.3 M in
    // 10 s (refused), 333,333 in 1 s (accepted).
    let e = parse(&scenario("load = 1.0\nsize = \"1pkt\"", "10s"), "w.toml", &[]).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("workloads.w.load: offers 3333333 flows on average"), "{e}");
    assert!(parse(&scenario("load = 1.0\nsize = \"1pkt\"\nstop = \"1s\"", "10s"), "w.toml", &[]).is_ok());
    // Hosts that routers do not join.
    let text = scenario("load = 0.5\nsize = \"1pkt\"", "1s")
        .replace("routers = [\"r\"]", "routers = [\"r\", \"s\"]")
        .replacen("between = [\"h3\", \"r\"]", "between = [\"h3\", \"s\"]", 1);
    let e = parse(&text, "w.toml", &[]).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("workloads.w.hosts: no route between hosts 'h0' and 'h3'"), "{e}");
}

#[test]
fn defaults_params_reach_every_window_flow_under_its_own() {
    // [defaults].params gives min_rto = 10 ms to the workload's flows and to a listed
    // flow; a flow's own params win key by key.
    let text = scenario("load = 0.1\nsize = \"1pkt\"", "1s")
        .replace("data_size = \"1500B\"", "data_size = \"1500B\"\nparams = { min_rto = \"10ms\", rto_k = 2 }")
        + "[[flows]]\nname = \"own\"\nfrom = \"h0\"\nto = \"h1\"\nparams = { min_rto = \"5ms\" }\n";
    let sc = expanded_text(&text);
    let loss = |f: &ccsim_engine::scenario::Flow| match &*f.spec {
        FlowSpec::Window { loss, .. } => (loss.min_rto.as_ps(), loss.rto_k),
        _ => unreachable!(),
    };
    assert_eq!(loss(&sc.flows[0]), (5_000_000_000, 2), "the flow's own min_rto, the default rto_k");
    assert!(sc.flows[1..].iter().all(|f| loss(f) == (10_000_000_000, 2)));
    // A key the flow's policy does not take is an error naming [defaults].params.
    let bad = text.replace("rto_k = 2", "colour = 2");
    let e = parse(&bad, "w.toml", &[]).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("defaults.params") && e.contains("colour"), "{e}");
}

fn expanded_text(text: &str) -> Scenario {
    let mut sc = parse(text, "w.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    expand(&mut sc, 1);
    sc
}
