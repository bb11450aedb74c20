//! Validation looks links, channels, nodes and flows up by name in maps (linear
//! in flows and links at 10^5 flows). These tests pin what each lookup finds and the
//! errors it gives, and that a large dumbbell written out by `Scenario.check()` (every
//! route explicit through a router with thousands of links) validates back to itself.

use ccsim_engine::bench::dumbbell;
use ccsim_engine::scenario::{parse, FlowSpec};
use ccsim_engine::time::SimDuration;

const NET: &str = r#"
[scenario]
name = "lookups"
duration = "2s"
[nodes]
hosts = ["a", "b", "c"]
routers = ["r1", "r2"]
[[links]]
between = ["a", "r1"]
rate = "10Mbps"
[[links]]
name = "core"
between = ["r1", "r2"]
rate = "5Mbps"
delay = "10ms"
[[links]]
between = ["r2", "b"]
rate = "10Mbps"
[[links]]
between = ["c", "r2"]
rate = "10Mbps"
[[flows]]
name = "f1"
from = "a"
to = "b"
path = ["a", "r1", "r2", "b"]
[[flows]]
name = "f2"
from = "c"
to = "a"
"#;

fn with(extra: &str) -> String {
    format!("{NET}{extra}")
}

#[test]
fn names_find_the_right_link_channel_and_flow() {
    let text = with(
        r#"
[measure]
delays = ["f2", "f1", "f2"]
windows = ["f2"]
series = ["f1.cwnd", "r2->r1.queue", "core.queue"]
[[changes]]
at = "1s"
link = "core"
rate = "1Mbps"
[[changes]]
at = "1s"
channel = "r2->r1"
delay = "20ms"
[[elements]]
kind = "counter"
at = ["r2->r1", "a-r1"]
"#,
    );
    // "core.queue" is neither a flow nor a channel ("a->b"): an error naming it.
    let e = parse(&text, "t.toml", &[]).unwrap_err();
    assert_eq!(e.field, "measure.series");
    assert!(e.message.contains("'core.queue'"), "{}", e.message);

    let sc = parse(&text.replace(", \"core.queue\"", ""), "t.toml", &[]).unwrap();
    // Listed flows: sorted, each once.
    assert_eq!(sc.delays, vec![0, 1]);
    assert_eq!(sc.windows, vec![1]);
    // Link "core" is links[1]: channels 2 (r1->r2) and 3 (r2->r1).
    assert_eq!(sc.changes[0].channels, vec![2, 3]);
    assert_eq!(sc.changes[1].channels, vec![3]);
    let at: Vec<usize> = sc.elements.iter().map(|e| e.channel).collect();
    assert_eq!(at, vec![3, 0, 1]);
    // f2's route is found by search: c -> r2 -> r1 -> a.
    // Nodes: a 0, b 1, c 2, r1 3, r2 4.
    assert_eq!(sc.flows[1].path, vec![2, 4, 3, 0]);
}

#[test]
fn unknown_names_and_missing_links_are_errors_naming_the_field() {
    let cases = [
        (
            r#"
[[flows]]
name = "f3"
from = "a"
to = "b"
path = ["a", "r2", "b"]
"#,
            "flows.f3.path",
            "no link joins 'a' and 'r2'",
        ),
        (
            r#"
[[changes]]
at = "1s"
channel = "r1->b"
rate = "1Mbps"
"#,
            "changes.0.channel",
            "no channel 'r1->b'",
        ),
        (
            r#"
[[changes]]
at = "1s"
link = "nope"
rate = "1Mbps"
"#,
            "changes.0.link",
            "unknown link 'nope'",
        ),
        (
            r#"
[measure]
delays = ["f9"]
"#,
            "measure.delays",
            "no flow named \"f9\"",
        ),
        (
            r#"
[measure]
series = ["a->b.queue"]
"#,
            "measure.series",
            "no channel 'a->b'",
        ),
        (
            r#"
[[elements]]
kind = "counter"
at = "b->r1"
"#,
            "elements.0.at",
            "no channel or link named 'b->r1'",
        ),
    ];
    for (extra, field, msg) in cases {
        let e = parse(&with(extra), "t.toml", &[]).unwrap_err();
        assert_eq!(e.field, field, "{extra}");
        assert!(e.message.contains(msg), "{}: {}", field, e.message);
    }
    // At most 255 elements per channel: the 256th on the same channel is refused, the
    // same number spread over two channels is not.
    let many = |at: &str, n: usize| {
        (0..n).map(|_| format!("[[elements]]\nkind = \"counter\"\nat = \"{at}\"\n")).collect::<String>()
    };
    let e = parse(&with(&many("r1->r2", 256)), "t.toml", &[]).unwrap_err();
    assert_eq!(e.field, "elements.255.at");
    assert!(e.message.contains("at most 255"), "{}", e.message);
    let ok = format!("{}{}", many("r1->r2", 255), many("r2->r1", 255));
    assert_eq!(parse(&with(&ok), "t.toml", &[]).unwrap().elements.len(), 510);
}

#[test]
fn a_large_dumbbell_validates_back_to_itself() {
    // 4000 flows: 8000 access links on two routers, every path explicit in the text.
    let sc = dumbbell(4000, 10_000_000_000, SimDuration::from_secs(2)).unwrap();
    let again = parse(&sc.to_toml(), "dumbbell.toml", &[]).unwrap();
    assert_eq!(again.flows.len(), 4000);
    assert_eq!(again.links.len(), 8001);
    // The export lists hosts before routers, so compare node names, not indices.
    let names = |s: &ccsim_engine::scenario::Scenario, p: &[usize]| {
        p.iter().map(|&n| s.nodes[n].name.clone()).collect::<Vec<_>>()
    };
    for (a, b) in again.flows.iter().zip(&sc.flows) {
        assert_eq!(a.name, b.name);
        assert_eq!(names(&again, &[a.from, a.to]), names(&sc, &[b.from, b.to]));
        assert_eq!(names(&again, &a.path), names(&sc, &b.path));
        assert_eq!(names(&again, &a.ack_path), names(&sc, &b.ack_path));
        assert!(matches!(*a.spec, FlowSpec::Window { .. }));
    }
}
