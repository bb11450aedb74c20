//! Equal-cost multipath routing (`[scenario].routing = "ecmp"`): every flow without a
//! path takes one of the fewest-hops paths, each path equally likely, fixed by the seed.
//!
//! Leaf-spine: hosts a0..a3 on leaf la, b0..b3 on leaf lb, spines s0 and s1: every
//! a -> b pair has two fewest-hops paths (via s0 or s1). CBR flows send 10 packets a
//! second each for 1 s, so a spine channel's transmitted packets count 10 per flow
//! routed through it.

use ccsim_engine::scenario::{parse, Routing};
use ccsim_engine::{run_text, Results};

fn leaf_spine(routing: &str, flows: usize) -> String {
    let mut s = format!(
        "[scenario]\nname = \"ls\"\nduration = \"1s\"\n{routing}\n[defaults]\nbuffer = \"1000pkt\"\n\
         [nodes]\nhosts = [\"a0\", \"a1\", \"a2\", \"a3\", \"b0\", \"b1\", \"b2\", \"b3\"]\n\
         routers = [\"la\", \"lb\", \"s0\", \"s1\"]\n"
    );
    for (h, l) in [("a0", "la"), ("a1", "la"), ("a2", "la"), ("a3", "la")].into_iter().chain([
        ("b0", "lb"),
        ("b1", "lb"),
        ("b2", "lb"),
        ("b3", "lb"),
    ]) {
        s += &format!("[[links]]\nbetween = [\"{h}\", \"{l}\"]\nrate = \"1Gbps\"\n");
    }
    for (l, sp) in [("la", "s0"), ("la", "s1"), ("lb", "s0"), ("lb", "s1")] {
        s += &format!("[[links]]\nbetween = [\"{l}\", \"{sp}\"]\nrate = \"1Gbps\"\n");
    }
    s += &format!(
        "[[flows]]\nname = \"f\"\ncount = {flows}\nkind = \"cbr\"\nrate = \"80kbps\"\npacket_size = \"1000B\"\n\
         from = [\"a0\", \"a1\", \"a2\", \"a3\"]\nto = [\"b0\", \"b1\", \"b2\", \"b3\", \"b1\"]\n"
    );
    s
}

fn run(text: &str, seed: Option<u64>) -> Results {
    let mut sim = run_text(text, "ls.toml", &[], seed).unwrap_or_else(|e| panic!("{e}"));
    sim.results(0.0)
}

/// Packets sent up from leaf la to spines s0 and s1.
fn up(r: &Results) -> (u64, u64) {
    let tx = |n: &str| r.links.iter().find(|l| l.name == n).unwrap().tx_pkts;
    (tx("la->s0"), tx("la->s1"))
}

#[test]
fn shortest_routing_puts_every_flow_on_one_spine() {
    // 200 flows of 10 packets: all 2000 over the first declared spine.
    let r = run(&leaf_spine("", 200), None);
    assert_eq!(up(&r), (2000, 0));
}

#[test]
fn ecmp_spreads_flows_over_both_spines_and_the_seed_fixes_the_split() {
    let text = leaf_spine("routing = \"ecmp\"", 200);
    let mut splits = Vec::new();
    for seed in 1..=5 {
        let (s0, s1) = up(&run(&text, Some(seed)));
        // Whole flows: 10 packets each, 200 flows in all.
        assert_eq!((s0 % 10, s1 % 10, s0 + s1), (0, 0, 2000), "seed {seed}");
        // Binomial(200, 1/2): fewer than 60 on one side has probability below 1e-8.
        assert!(s0 >= 600 && s1 >= 600, "seed {seed}: {s0} / {s1}");
        splits.push(s0);
        // Same seed, same routes.
        assert_eq!(up(&run(&text, Some(seed))), (s0, s1));
    }
    assert!(splits.windows(2).any(|w| w[0] != w[1]), "the seed moves the split: {splits:?}");
    // Acks (none for CBR) aside, the reverse direction carries nothing.
    let r = run(&text, Some(1));
    let down: u64 = r.links.iter().filter(|l| l.name == "s0->la" || l.name == "s1->la").map(|l| l.tx_pkts).sum();
    assert_eq!(down, 0);
}

#[test]
fn ecmp_weighs_branches_by_their_paths() {
    // Every flow's one packet leaves at t = 0 (a deep buffer holds them all).
    // a -> r0; r0's neighbours r1 and r2; r1 -> rz; r2 -> rz and r2 -> ry; rz and ry ->
    // z. The fewest-hops paths (5 hops): via r1-rz, r2-rz and r2-ry: three, equally
    // likely, so r0 -> r1 carries 1/3 of the flows and r0 -> r2 2/3 (a choice per
    // branch would give 1/2 each).
    let mut s = String::from(
        "[scenario]\nname = \"w\"\nduration = \"1s\"\nrouting = \"ecmp\"\n[defaults]\nbuffer = \"10000pkt\"\n\
         [nodes]\nhosts = [\"a\", \"z\"]\nrouters = [\"r0\", \"r1\", \"r2\", \"rz\", \"ry\"]\n",
    );
    for (x, y) in
        [("a", "r0"), ("r0", "r1"), ("r0", "r2"), ("r1", "rz"), ("r2", "rz"), ("r2", "ry"), ("rz", "z"), ("ry", "z")]
    {
        s += &format!("[[links]]\nbetween = [\"{x}\", \"{y}\"]\nrate = \"1Gbps\"\n");
    }
    s += "[[flows]]\nname = \"f\"\ncount = 3000\nkind = \"cbr\"\nrate = \"8kbps\"\npacket_size = \"1000B\"\nfrom = \"a\"\nto = \"z\"\n";
    let r = run(&s, None);
    let tx = |n: &str| r.links.iter().find(|l| l.name == n).unwrap().tx_pkts;
    let (via1, via2) = (tx("r0->r1"), tx("r0->r2"));
    assert_eq!(via1 + via2, 3000);
    // Binomial(3000, 1/3): mean 1000, sd 25.8; 6 sd either side.
    assert!((845..=1155).contains(&via1), "{via1} of 3000 via r1");
    // r2 splits its flows evenly between rz and ry (one path each).
    let (rz, ry) = (tx("r2->rz"), tx("r2->ry"));
    assert!((rz as i64 - ry as i64).abs() < 200, "{rz} / {ry}");
}

#[test]
fn explicit_paths_stay_and_the_export_keeps_ecmp_routes_free() {
    let text = leaf_spine("routing = \"ecmp\"", 4)
        + "[[flows]]\nname = \"pinned\"\nkind = \"cbr\"\nrate = \"80kbps\"\nfrom = \"a0\"\nto = \"b0\"\n\
           path = [\"a0\", \"la\", \"s1\", \"lb\", \"b0\"]\n";
    let sc = parse(&text, "ls.toml", &[]).unwrap();
    assert_eq!(sc.routing, Routing::Ecmp);
    assert_eq!(sc.ecmp_flows, vec![0, 1, 2, 3]);
    let toml = sc.to_toml();
    assert!(toml.contains("routing = \"ecmp\""), "{toml}");
    assert_eq!(toml.matches("path = ").count(), 1, "only the pinned flow's path: {toml}");
    let again = parse(&toml, "export.toml", &[]).unwrap();
    assert_eq!((again.routing, again.ecmp_flows.clone()), (Routing::Ecmp, vec![0, 1, 2, 3]));
    // The same routes after the round trip.
    let (a, b) = (run(&text, Some(3)), run(&toml, Some(3)));
    assert_eq!(up(&a), up(&b));
}

#[test]
fn an_unknown_routing_names_the_field_and_the_choices() {
    let e = parse(&leaf_spine("routing = \"random\"", 1), "ls.toml", &[]).unwrap_err();
    assert_eq!(e.field, "scenario.routing");
    assert!(
        e.to_string().contains("\"ecmp\"")
            && e.to_string().contains("\"shortest\"")
            && e.to_string().contains("\"ecmp_per_hop\""),
        "{e}"
    );
}

/// The weighted topology of `ecmp_weighs_branches_by_their_paths`, with `routing`.
fn weighted(routing: &str) -> String {
    let mut s = format!(
        "[scenario]\nname = \"w\"\nduration = \"1s\"\nrouting = \"{routing}\"\n[defaults]\nbuffer = \"10000pkt\"\n\
         [nodes]\nhosts = [\"a\", \"z\"]\nrouters = [\"r0\", \"r1\", \"r2\", \"rz\", \"ry\"]\n"
    );
    for (x, y) in
        [("a", "r0"), ("r0", "r1"), ("r0", "r2"), ("r1", "rz"), ("r2", "rz"), ("r2", "ry"), ("rz", "z"), ("ry", "z")]
    {
        s += &format!("[[links]]\nbetween = [\"{x}\", \"{y}\"]\nrate = \"1Gbps\"\n");
    }
    s + "[[flows]]\nname = \"f\"\ncount = 3000\nkind = \"cbr\"\nrate = \"8kbps\"\npacket_size = \"1000B\"\nfrom = \"a\"\nto = \"z\"\n"
}

#[test]
fn per_hop_hashing_weighs_every_branch_alike() {
    // The same three paths as above, chosen hop by hop: r0 sends half its flows to r1
    // (one path on) and half to r2 (two paths on), where the per-path choice gave 1/3
    // and 2/3; r2 again splits its half evenly between rz and ry.
    let text = weighted("ecmp_per_hop");
    let r = run(&text, Some(1));
    let tx = |n: &str| r.links.iter().find(|l| l.name == n).unwrap().tx_pkts;
    let (via1, via2) = (tx("r0->r1"), tx("r0->r2"));
    assert_eq!(via1 + via2, 3000);
    // Binomial(3000, 1/2): mean 1500, sd 27.4; 6 sd either side.
    assert!((1336..=1664).contains(&via1), "{via1} of 3000 via r1");
    let (rz, ry) = (tx("r2->rz"), tx("r2->ry"));
    assert_eq!(rz + ry, via2);
    // Binomial(via2, 1/2) around via2 / 2, sd about 19.4: 6 sd.
    assert!((rz as i64 - ry as i64).abs() <= 2 * 117, "{rz} / {ry}");
    // The seed fixes the hashes: again the same, another seed another split.
    let again = run(&text, Some(1));
    assert_eq!(again.links.iter().find(|l| l.name == "r0->r1").unwrap().tx_pkts, via1);
    let other = run(&text, Some(2));
    assert_ne!(other.links.iter().find(|l| l.name == "r0->r1").unwrap().tx_pkts, via1);
    // Exported as it was given, and parsed back to the same routes.
    let sc = parse(&text, "w.toml", &[]).unwrap();
    assert_eq!(sc.routing, Routing::EcmpPerHop);
    let toml = sc.to_toml();
    assert!(toml.contains("routing = \"ecmp_per_hop\""), "{toml}");
    let back = run(&toml, Some(1));
    assert_eq!(back.links.iter().find(|l| l.name == "r0->r1").unwrap().tx_pkts, via1);
}
