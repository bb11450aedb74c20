//! The scenario file as written: serde structs with `deny_unknown_fields`, quantities
//! kept as TOML values so that a bare number gets a "missing unit" message rather than a
//! type error. `validate.rs` turns this into the typed `Scenario`.

use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Value;

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct File {
    pub scenario: Header,
    #[serde(default)]
    pub defaults: Defaults,
    /// `[topology]`: a leaf-spine or fat-tree whose nodes and links come before those of
    /// `[nodes]` and `[[links]]` (`topology.rs`).
    pub topology: Option<toml::Table>,
    #[serde(default)]
    pub nodes: Nodes,
    #[serde(default)]
    pub links: Vec<Link>,
    #[serde(default)]
    pub flows: Vec<Flow>,
    /// `[[workloads]]`: flows generated at run time (`workload.rs`), kept as written for
    /// export and read into `Workload` by validation.
    #[serde(default)]
    pub workloads: Vec<toml::Table>,
    #[serde(default)]
    pub phases: Vec<Phase>,
    #[serde(default)]
    pub measure: Measure,
    #[serde(default)]
    pub changes: Vec<Change>,
    /// `[[elements]]`: `at` (channel "a->b", link name, or a list of them), `kind`, params.
    #[serde(default)]
    pub elements: Vec<toml::Table>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub duration: Value,
    pub seed: Option<u64>,
    /// Stop after this many events (a guard against runaway scenarios).
    pub max_events: Option<u64>,
    /// Stop after this much wall-clock time (enforced by the front end).
    pub max_wall: Option<Value>,
    /// "flow" (default) or "host_pair": how Fair Queueing classifies packets.
    pub conversations: Option<String>,
    /// "shortest" (default) or "ecmp": how a flow without a path is routed.
    pub routing: Option<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// "fcfs", "fq", "red" or a table `{ kind = "red", min_th = "5pkt", ... }`.
    pub qdisc: Option<Value>,
    pub start_jitter: Option<Value>,
    pub buffer: Option<Value>,
    pub cc: Option<String>,
    pub data_size: Option<Value>,
    pub ack_size: Option<Value>,
    pub max_window: Option<Value>,
    pub out_of_order: Option<String>,
    pub delayed_ack: Option<bool>,
    pub ack_delay: Option<Value>,
    pub sack: Option<bool>,
    pub ecn: Option<bool>,
    pub rtt_sample: Option<String>,
    pub ack_delay_min: Option<Value>,
    pub tso: Option<Value>,
    pub handshake: Option<bool>,
    pub fast_retransmit: Option<String>,
    pub sack_timeout: Option<String>,
    pub lost_retransmissions: Option<String>,
    pub sack_recovery: Option<String>,
    pub ecn_echo: Option<String>,
    /// Congestion-control parameters every window flow takes unless its own `params`
    /// gives the key (e.g. a datacenter's `min_rto`).
    pub params: Option<toml::Table>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Nodes {
    #[serde(default)]
    pub hosts: Vec<String>,
    #[serde(default)]
    pub routers: Vec<String>,
    #[serde(default)]
    pub processing_delay: BTreeMap<String, Value>,
    #[serde(default)]
    pub processing_jitter: BTreeMap<String, Value>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub between: Vec<String>,
    /// A value, or [a->b, b->a] for different directions (also delay, buffer, qdisc).
    pub rate: Value,
    pub delay: Option<Value>,
    pub buffer: Option<Value>,
    pub qdisc: Option<Value>,
    pub name: Option<String>,
}

/// A flow's end: one host, or a list of hosts that the copies of a flow cycle through.
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum Hosts {
    One(String),
    Many(Vec<String>),
}

impl Hosts {
    /// The host of copy `i` (lists cycle).
    pub fn get(&self, i: usize) -> &str {
        match self {
            Hosts::One(h) => h,
            Hosts::Many(v) if v.is_empty() => "",
            Hosts::Many(v) => &v[i % v.len()],
        }
    }
    /// The number of hosts listed (`None` for a single host).
    pub fn list_len(&self) -> Option<usize> {
        match self {
            Hosts::One(_) => None,
            Hosts::Many(v) => Some(v.len()),
        }
    }
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    pub name: String,
    pub kind: Option<String>,
    /// Copies of this flow, named `<name>1` ... `<name>N` (default: one, named `<name>`).
    pub count: Option<Value>,
    pub from: Hosts,
    pub to: Hosts,
    pub start: Option<Value>,
    pub start_jitter: Option<Value>,
    pub stop: Option<Value>,
    /// A finite window flow's data: bytes ("100kB") or packets ("70pkt").
    pub size: Option<Value>,
    pub path: Option<Vec<String>>,
    pub ack_path: Option<Vec<String>>,
    // window flows
    pub cc: Option<String>,
    pub data_size: Option<Value>,
    pub ack_size: Option<Value>,
    pub max_window: Option<Value>,
    pub out_of_order: Option<String>,
    pub delayed_ack: Option<bool>,
    pub ack_delay: Option<Value>,
    pub sack: Option<bool>,
    pub ecn: Option<bool>,
    pub rtt_sample: Option<String>,
    pub ack_delay_min: Option<Value>,
    pub tso: Option<Value>,
    pub handshake: Option<bool>,
    pub fast_retransmit: Option<String>,
    pub sack_timeout: Option<String>,
    pub lost_retransmissions: Option<String>,
    pub sack_recovery: Option<String>,
    pub ecn_echo: Option<String>,
    pub params: Option<toml::Table>,
    // unresponsive sources
    pub rate: Option<Value>,
    pub mean_gap: Option<Value>,
    pub packet_size: Option<Value>,
    pub on: Option<Vec<Vec<Value>>>,
    // voice users (Heybey)
    pub voice: Option<toml::Table>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Phase {
    pub name: String,
    pub start: Value,
    pub end: Value,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    pub interval: Option<Value>,
    #[serde(default)]
    pub series: Vec<String>,
    /// Per-flow delay statistics: `true` (all flows), `false`, or a list of flow names.
    pub delays: Option<Value>,
    /// Per-flow window histograms: `true` (all window flows), `false`, or flow names.
    pub windows: Option<Value>,
    /// Delay statistics and window histograms start at this time.
    pub start: Option<Value>,
    /// Sampled series: the bucket width (a time) ...
    pub sample: Option<Value>,
    /// ... or the most points per series (the width is the duration over this, rounded up).
    pub max_points: Option<Value>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Change {
    pub at: Value,
    /// A link's name (both directions) ...
    pub link: Option<String>,
    /// ... or one channel, "a->b".
    pub channel: Option<String>,
    pub delay: Option<Value>,
    pub rate: Option<Value>,
}

/// One `[[workloads]]` entry (docs/scenario-format.md "Workloads").
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    pub name: String,
    /// "poisson" (default), "permutation" or "incast".
    pub kind: Option<String>,
    /// The hosts whose flows it generates (default: every host).
    pub hosts: Option<Vec<String>>,
    /// Arrivals (or rounds) from `start` until `stop` (default: the whole run).
    pub start: Option<Value>,
    pub stop: Option<Value>,
    /// poisson: the offered load, a fraction of `link`'s rate (or of the hosts' access links).
    pub load: Option<Value>,
    pub link: Option<String>,
    /// A size distribution: "web_search", "data_mining" or a CDF file ...
    pub sizes: Option<String>,
    /// ... whose sizes are bytes ("B", the default) or packets ("pkt").
    pub size_unit: Option<String>,
    /// ... or one size for every flow.
    pub size: Option<Value>,
    /// poisson: "uniform" (default), "permutation" or "all_to_one".
    pub pattern: Option<String>,
    /// all_to_one and incast: the receiving host.
    pub to: Option<String>,
    /// incast: the senders, listed ...
    pub from: Option<Vec<String>>,
    /// ... or this many drawn afresh each round from the hosts.
    pub senders: Option<Value>,
    pub interval: Option<Value>,
    pub rounds: Option<Value>,
    /// The window-flow keys every generated flow takes (cc, sack, ecn, params, ...).
    pub flow: Option<toml::Table>,
}

/// `[topology]` (docs/scenario-format.md "Topologies").
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// "leaf_spine" or "fat_tree".
    pub kind: String,
    pub leaves: Option<Value>,
    pub hosts_per_leaf: Option<Value>,
    pub spines: Option<Value>,
    pub host_rate: Option<Value>,
    pub uplink_rate: Option<Value>,
    pub k: Option<Value>,
    pub rate: Option<Value>,
    pub delay: Option<Value>,
    pub buffer: Option<Value>,
    pub qdisc: Option<Value>,
}
