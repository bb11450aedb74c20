//! Scenarios and helpers shared by the integration tests (each test crate uses a part).
#![allow(dead_code)]

use ccsim_engine::results::{FlowResult, PhaseLink};
use ccsim_engine::{run_text, Results};

/// Runs `text` (named `source` in errors) with `overrides` and checks packet
/// conservation: per flow sent = arrived + dropped + in the network and delivered <=
/// arrived; per channel offered = transmitted + dropped + queued.
pub fn run_conserving(text: &str, source: &str, overrides: &[&str]) -> Results {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = run_text(text, source, &o, None).unwrap_or_else(|e| panic!("{e}"));
    let r = sim.results(0.0);
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
        assert!(f.delivered_pkts <= f.arrived_pkts, "flow {}", f.name);
    }
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
    }
    r
}

/// The flow named `name`.
pub fn flow<'a>(r: &'a Results, name: &str) -> &'a FlowResult {
    r.flows.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no flow {name}"))
}

/// Channel `channel` in phase `phase`.
pub fn phase_link(r: &Results, phase: &str, channel: &str) -> PhaseLink {
    let p = r.phases.iter().find(|p| p.name == phase).unwrap_or_else(|| panic!("no phase {phase}"));
    p.links.iter().find(|l| l.name == channel).cloned().unwrap_or_else(|| panic!("no channel {channel}"))
}

/// A series' times and values.
pub fn series<'a>(r: &'a Results, name: &str) -> (&'a [f64], &'a [f64]) {
    let s = r.series.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no series {name}"));
    (&s.t, &s.v)
}

/// Four senders at 1, 3, 7 and 2 ms from r1 (three Reno flows, one on/off CBR source)
/// into a 4 Mbps bottleneck of 12 packets that drops and queues, with processing jitter
/// on every node (no two events coincide), measurement intervals and two phases. The
/// timed-FIFO, cut-through and merged-arrival tests compare their paths on it.
pub const DUMBBELL: &str = r#"
[scenario]
name = "timed-fifo"
duration = "20s"
[measure]
interval = "0.37s"
[defaults]
cc = "reno"
buffer = "12pkt"
[nodes]
hosts = ["a", "b", "c", "d", "sink"]
routers = ["r1", "r2"]
processing_jitter = { r1 = "50us", r2 = "50us", sink = "30us", a = "20us", b = "20us", c = "20us", d = "20us" }
[[links]]
between = ["a", "r1"]
rate = "20Mbps"
delay = "1ms"
[[links]]
between = ["b", "r1"]
rate = "20Mbps"
delay = "3ms"
[[links]]
between = ["c", "r1"]
rate = "20Mbps"
delay = "7ms"
[[links]]
between = ["d", "r1"]
rate = "20Mbps"
delay = "2ms"
[[links]]
between = ["r1", "r2"]
rate = "4Mbps"
delay = "10ms"
name = "bottleneck"
[[links]]
between = ["r2", "sink"]
rate = "20Mbps"
delay = "1ms"
[[flows]]
name = "fa"
from = "a"
to = "sink"
[[flows]]
name = "fb"
from = "b"
to = "sink"
start = "0.3s"
[[flows]]
name = "fc"
from = "c"
to = "sink"
start = "1.1s"
data_size = "576B"
[[flows]]
name = "fd"
kind = "cbr"
from = "d"
to = "sink"
rate = "1Mbps"
on = [["0.5s", "1.2s"], ["3s", "3.9s"], ["8.1s", "11s"]]
[[phases]]
name = "early"
start = "0.2s"
end = "4.9s"
[[phases]]
name = "late"
start = "7.3s"
end = "19.1s"
"#;
