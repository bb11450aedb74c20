//! `[topology]`: the leaf-spine and fat-tree sections, their sizes counted by hand, the
//! file's own nodes and links added after them, and their errors.

use ccsim_engine::scenario::Routing;
use ccsim_engine::{parse, Scenario};

fn with(topology: &str, rest: &str) -> Result<Scenario, String> {
    let text = format!("[scenario]\nname = \"t\"\nduration = \"1ms\"\n{rest}\n[topology]\n{topology}\n");
    parse(&text, "t.toml", &[]).map_err(|e| e.to_string())
}

fn counts(sc: &Scenario) -> (usize, usize, usize) {
    let hosts = sc.nodes.iter().filter(|n| !n.router).count();
    (hosts, sc.nodes.len() - hosts, sc.links.len())
}

#[test]
fn a_leaf_spine_has_its_hosts_routers_and_links_counted_by_hand() {
    // Defaults: 8 leaves x 16 hosts = 128 hosts; 8 + 4 routers; 128 + 8 x 4 = 160 links.
    let sc = with("kind = \"leaf_spine\"", "").unwrap();
    assert_eq!(counts(&sc), (128, 12, 160));
    assert_eq!(sc.routing, Routing::Ecmp, "a fabric routes by ECMP unless told otherwise");
    assert_eq!((sc.nodes[0].name.as_str(), sc.nodes[127].name.as_str()), ("h0-0", "h7-15"));
    let (host, up) = (&sc.links[0], &sc.links[159]);
    assert_eq!(
        (host.name.as_str(), host.dirs[0].rate_bps, host.dirs[0].delay.as_ps()),
        ("h0-0-leaf0", 10_000_000_000, 1_000_000)
    );
    assert_eq!((up.name.as_str(), up.dirs[1].rate_bps), ("leaf7-spine3", 40_000_000_000));
    // 2 leaves of 3, 2 spines, and an extra host on spine0 from the file's own sections:
    // 6 + 1 hosts, 4 routers, 6 + 4 + 1 links; explicit routing kept.
    let sc = with(
        "kind = \"leaf_spine\"\nleaves = 2\nhosts_per_leaf = 3\nspines = 2\nhost_rate = \"1Gbps\"\nbuffer = \"20pkt\"\nqdisc = \"fq\"",
        "routing = \"shortest\"\n[nodes]\nhosts = [\"x\"]\n[[links]]\nbetween = [\"x\", \"spine0\"]\nrate = \"1Gbps\"",
    )
    .unwrap();
    assert_eq!(counts(&sc), (7, 4, 11));
    assert_eq!(sc.routing, Routing::Shortest);
    assert_eq!(sc.links[0].dirs[0].buffer, ccsim_engine::units::Limit::Packets(20));
    assert_eq!(sc.links[0].dirs[0].qdisc.name(), "fq");
    assert_eq!(sc.links[10].name, "x-spine0");
}

#[test]
fn a_fat_tree_is_the_papers_k_cubed_over_four_hosts() {
    // k = 4: 16 hosts, 4 pods x 4 + 4 cores = 20 routers, 16 + 16 + 16 = 48 links.
    let sc = with("kind = \"fat_tree\"\nk = 4", "").unwrap();
    assert_eq!(counts(&sc), (16, 20, 48));
    // k = 8 (the default): 128 hosts, 80 routers, 384 links.
    let sc = with("kind = \"fat_tree\"", "").unwrap();
    assert_eq!(counts(&sc), (128, 80, 384));
    // Core c1-2 links to aggregation router 1 of every pod.
    let to_core: Vec<&str> = sc.links.iter().filter(|l| l.name.ends_with("-c1-2")).map(|l| l.name.as_str()).collect();
    assert_eq!(to_core, (0..8).map(|p| format!("a{p}-1-c1-2")).collect::<Vec<_>>());
}

#[test]
fn bad_topologies_are_errors_naming_the_field() {
    for (t, want) in [
        ("kind = \"torus\"", "topology.kind: unknown topology 'torus'"),
        ("kind = \"fat_tree\"\nk = 5", "topology.k: expected an even number"),
        ("kind = \"fat_tree\"\nleaves = 2", "topology.leaves: does not apply to kind = \"fat_tree\""),
        ("kind = \"leaf_spine\"\nk = 4", "topology.k: does not apply"),
        ("kind = \"leaf_spine\"\nleaves = 0", "topology.leaves: expected a whole number from 1"),
        ("kind = \"leaf_spine\"\nhost_rate = \"fast\"", "topology.host_rate"),
        ("kind = \"leaf_spine\"\ndelay = 5", "topology.delay: 5 has no unit"),
        ("kind = \"leaf_spine\"\nqdisc = \"fifo9\"", "topology.qdisc.kind: unknown queue discipline"),
        ("kind = \"leaf_spine\"\ncolour = 1", "topology.colour: unknown field"),
    ] {
        let e = with(t, "").map(|_| ()).unwrap_err();
        assert!(e.contains(&format!("t.toml: {want}")), "{t}\n  gave: {e}\n  want: {want}");
    }
    // A file's own node of a topology's name is declared twice.
    let e = with("kind = \"leaf_spine\"", "[nodes]\nhosts = [\"h0-0\"]").map(|_| ()).unwrap_err();
    assert!(e.contains("nodes.hosts: node 'h0-0' is declared twice"), "{e}");
}
