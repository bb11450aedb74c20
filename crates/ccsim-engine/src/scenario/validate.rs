//! Validation of a raw scenario file into a typed `Scenario`. Field paths in errors use
//! the same dotted names as `--set` (`links.bottleneck.rate`, `flows.ftp1.cc`).

use super::raw;
use super::workload;
use super::{
    Change, ChannelSpec, Conversations, ElementSpec, Flow, FlowSpec, Link, Node, Phase, QdiscConfig, Routing, Sampling,
    Scenario, ScenarioError,
};
use crate::base::suggest::{nearest, with_serde_hint, with_value_hint};
use crate::base::time::SimDuration;
use crate::base::units::{self, Limit};
use crate::cc::{CcConfig, LossRecoveryConfig};
use crate::element::ElementConfig;
use crate::transport::receiver::{DelayedAck, EcnEcho, ReceiverConfig};
use crate::transport::sender::{
    FastRetransmit, LostRetransmissions, RttSample, SackRecovery, SackTimeout, SenderConfig, Tso,
};
use crate::transport::RateFlowConfig;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::num::NonZeroU32;
use std::sync::Arc;
use toml::Value;

const DEFAULT_BUFFER: Limit = Limit::Packets(100);
const DEFAULT_DATA_SIZE: u64 = 1000;
const DEFAULT_ACK_SIZE: u64 = 40;
const DEFAULT_MAX_WINDOW: u64 = 1_000_000;
/// The most rows (flows and channels) that phases, and intervals, may add to the results.
const MAX_PERIOD_ROWS: u64 = 10_000_000;

/// Turns a serde path like `links[3].rate` into `links.<name>.rate`.
pub fn readable_path(table: &toml::Table, path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out: Vec<String> = Vec::new();
    let mut cur: Option<&Value> = None;
    let mut first = true;
    for seg in path.iter() {
        match seg {
            Segment::Map { key } => {
                cur = if first { table.get(key) } else { cur.and_then(|v| v.get(key)) };
                out.push(key.clone());
            }
            Segment::Seq { index } => {
                let el = cur.and_then(|v| v.get(*index));
                let name = el.and_then(|e| {
                    e.get("name").and_then(Value::as_str).map(str::to_string).or_else(|| {
                        let b = e.get("between")?.as_array()?;
                        Some(format!("{}-{}", b.first()?.as_str()?, b.get(1)?.as_str()?))
                    })
                });
                cur = el;
                out.push(name.unwrap_or_else(|| index.to_string()));
            }
            _ => {}
        }
        first = false;
    }
    out.join(".")
}

/// Whether a name holds a control character (a line break would split every message that
/// names it, and the file names written from it).
fn has_control(name: &str) -> bool {
    name.chars().any(char::is_control)
}

#[derive(Clone, Copy)]
pub(super) struct Ctx<'a> {
    source: &'a str,
}

impl Ctx<'_> {
    pub(super) fn err(&self, field: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.source, field, with_value_hint(&msg.into()))
    }

    fn text<'v>(&self, field: &str, v: &'v Value, example: &str) -> Result<&'v str, ScenarioError> {
        match v {
            Value::String(s) => Ok(s),
            Value::Integer(_) | Value::Float(_) => Err(self
                .err(field, format!("{v} has no unit; write it as a quoted string with a unit, e.g. \"{example}\""))),
            _ => Err(self.err(field, format!("expected a quoted quantity such as \"{example}\", found {v}"))),
        }
    }

    pub(super) fn time(&self, field: &str, v: &Value) -> Result<SimDuration, ScenarioError> {
        units::parse_time(self.text(field, v, "100ms")?).map_err(|m| self.err(field, m))
    }
    pub(super) fn rate(&self, field: &str, v: &Value) -> Result<u64, ScenarioError> {
        units::parse_rate(self.text(field, v, "10Mbps")?).map_err(|m| self.err(field, m))
    }
    fn bits(&self, field: &str, v: &Value) -> Result<u32, ScenarioError> {
        units::parse_bits(self.text(field, v, "1000B")?).map(|b| b as u32).map_err(|m| self.err(field, m))
    }
    fn size(&self, field: &str, v: &Value) -> Result<u32, ScenarioError> {
        let b = units::parse_size(self.text(field, v, "1000B")?).map_err(|m| self.err(field, m))?;
        if b * 8 > u32::MAX as u64 {
            return Err(self.err(field, "too large: a packet is at most 536870911B"));
        }
        Ok(b as u32)
    }
    fn packets(&self, field: &str, v: &Value) -> Result<u32, ScenarioError> {
        let n = units::parse_packets(self.text(field, v, "40pkt")?).map_err(|m| self.err(field, m))?;
        u32::try_from(n).map_err(|_| self.err(field, "too many packets (at most 4294967295)"))
    }
    /// A window limit: at most `DEFAULT_MAX_WINDOW` packets (a window is held in memory
    /// and may be sent in one burst).
    fn window(&self, field: &str, v: &Value) -> Result<u32, ScenarioError> {
        let n = self.packets(field, v)?;
        if n as u64 > DEFAULT_MAX_WINDOW {
            return Err(self.err(field, format!("{n} packets is more than the largest window, {DEFAULT_MAX_WINDOW}pkt (the default, unlimited in practice)")));
        }
        Ok(n)
    }
    pub(super) fn limit(&self, field: &str, v: &Value) -> Result<Limit, ScenarioError> {
        units::parse_limit(self.text(field, v, "40pkt")?).map_err(|m| self.err(field, m))
    }
    /// A queue discipline: a name (or alias) of the registry, or a table with `kind` and
    /// the discipline's parameters.
    pub(super) fn qdisc(&self, field: &str, v: &Value) -> Result<QdiscConfig, ScenarioError> {
        let kind_field = cat(field, ".kind");
        let (name, table) = match v {
            Value::String(s) => (s.clone(), toml::Table::new()),
            Value::Table(t) => {
                let mut t = t.clone();
                match t.remove("kind") {
                    Some(Value::String(k)) => (k, t),
                    Some(k) => {
                        return Err(
                            self.err(kind_field, format!("expected a discipline name, found {k}; {}", qdisc_names()))
                        )
                    }
                    None => return Err(self.err(kind_field, format!("missing; {}", qdisc_names()))),
                }
            }
            _ => {
                return Err(
                    self.err(field, format!("expected a discipline name or table, found {v}; {}", qdisc_names()))
                )
            }
        };
        let Some(info) = QdiscConfig::ALL.iter().find(|i| i.answers_to(&name)) else {
            let all = QdiscConfig::ALL.iter().flat_map(|i| std::iter::once(&i.name).chain(i.aliases)).copied();
            let hint = nearest(&name, all).map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default();
            return Err(self.err(kind_field, format!("unknown queue discipline '{name}'{hint}; {}", qdisc_names())));
        };
        if (info.parameters)().is_empty() {
            if let Some(k) = table.keys().next() {
                return Err(self.err(format!("{field}.{k}"), format!("'{}' takes no parameters", info.name)));
            }
        }
        struct Read<'a> {
            cx: &'a Ctx<'a>,
            field: &'a str,
            table: &'a toml::Table,
        }
        impl crate::qdisc::ReadParams for Read<'_> {
            type Error = ScenarioError;
            fn read<T: serde::de::DeserializeOwned>(&self) -> Result<T, ScenarioError> {
                self.cx.from_table(self.field, self.table)
            }
        }
        let q = QdiscConfig::from_params(&name, &Read { cx: self, field, table: &table })
            .expect("the name was found in the registry")?;
        q.check().map_err(|(f, m)| self.err(format!("{field}.{f}"), m))?;
        Ok(q)
    }

    /// Deserialises a config table with serde (from one copy: the toml crate reads only
    /// owned values); errors name the field inside `field`.
    pub(super) fn from_table<T: serde::de::DeserializeOwned>(
        &self,
        field: &str,
        table: &toml::Table,
    ) -> Result<T, ScenarioError> {
        serde_path_to_error::deserialize(Value::Table(table.clone())).map_err(|e| {
            let inner = readable_path(table, e.path());
            let path = if inner.is_empty() || inner == "?" { field.to_string() } else { format!("{field}.{inner}") };
            // serde quotes names with backticks; scenario files write strings in quotes.
            let msg = with_serde_hint(e.inner().message().trim()).replace('`', "\"");
            let msg = if msg.starts_with("unknown field") || msg.starts_with("missing field") {
                format!("{msg}; see docs/scenario-format.md")
            } else {
                msg
            };
            self.err(path, msg)
        })
    }
}

pub fn validate(mut f: raw::File, source: &str, read: super::ReadFile) -> Result<Scenario, ScenarioError> {
    let cx = Ctx { source };
    let topology = f.topology.take();
    if let Some(t) = &topology {
        super::topology::expand(cx, t, &mut f)?;
    }
    let duration = header(cx, &f)?;
    let mut defs = defaults(cx, &f)?;
    let (nodes, node_idx) = nodes(cx, &f)?;
    // Read after [nodes]: a file with errors in both reports the node error.
    let d = &f.defaults;
    let def_jitter = match &d.start_jitter {
        Some(v) => cx.time("defaults.start_jitter", v)?,
        None => SimDuration::ZERO,
    };
    defs.jitter = def_jitter;
    let net = links(cx, &f, &defs, nodes, node_idx)?;
    let (listed, flow_names, free_routes) = flows(cx, &f.defaults, &f.flows, &defs, &net, duration)?;
    let wcx = workload::Cx { cx, net: &net, duration, read };
    let mut workloads = Vec::with_capacity(f.workloads.len());
    for t in &f.workloads {
        let mut template = |fl: &raw::Flow| {
            flows(cx, &f.defaults, std::slice::from_ref(fl), &defs, &net, duration).map(|(mut v, ..)| v.remove(0))
        };
        let w = workload::validate(&wcx, t, &mut template)?;
        if workloads.iter().any(|x: &workload::Workload| x.name == w.name) {
            return Err(cx.err(cat("workloads.", &w.name), format!("workload name '{}' is used twice", w.name)));
        }
        workloads.push(w);
    }
    let flows = listed;
    let routing = match f.scenario.routing.as_deref() {
        // A fabric's flows spread over its equal-cost paths unless told otherwise.
        None if topology.is_some() => Routing::Ecmp,
        None | Some("shortest") => Routing::Shortest,
        Some("ecmp") => Routing::Ecmp,
        Some("ecmp_per_hop") => Routing::EcmpPerHop,
        Some(v) => {
            return Err(cx.err(
                "scenario.routing",
                format!(
                    "unknown value '{v}'; use \"shortest\" (the fewest-hops path, the default), \"ecmp\" \
                     (one of the equal-cost fewest-hops paths per flow, chosen from the seed) or \"ecmp_per_hop\" \
                     (one of the equal-cost next hops at each router, as switches hash)"
                ),
            ))
        }
    };
    let ecmp_flows = if routing.is_ecmp() { free_routes } else { Vec::new() };
    let phases = phases(cx, &f, duration)?;
    let measured = measure(cx, &f, duration, &phases, &flows, &workloads, &flow_names, &net)?;
    let changes = changes(cx, &f, duration, &net)?;
    let elements = elements(cx, &f, &net)?;
    let Net { nodes, links, .. } = net;

    let measure_start_given = f.measure.start.is_some();
    let mut sc = Scenario {
        name: f.scenario.name,
        description: f.scenario.description,
        duration,
        seed: f.scenario.seed.unwrap_or(1),
        max_events: match f.scenario.max_events {
            Some(0) => return Err(cx.err("scenario.max_events", "must be at least 1")),
            m => m,
        },
        max_wall: match &f.scenario.max_wall {
            Some(v) => Some(positive_time(&cx, "scenario.max_wall", v)?),
            None => None,
        },
        conversations: match f.scenario.conversations.as_deref() {
            None | Some("flow") => Conversations::Flow,
            Some("host_pair") => Conversations::HostPair,
            Some(v) => {
                return Err(cx.err(
                    "scenario.conversations",
                    format!(
                        "unknown value '{v}'; use \"flow\" (a flow's data and its acks are two conversations, \
                         the default) or \"host_pair\" (one conversation per source-destination host pair)"
                    ),
                ))
            }
        },
        routing,
        ecmp_flows,
        nodes,
        links,
        flows,
        workloads,
        generated: 0,
        phases,
        interval: measured.interval,
        series: f.measure.series,
        sampling: measured.sampling,
        delays: measured.delays,
        windows: measured.windows,
        delays_all: matches!(f.measure.delays, Some(Value::Boolean(true))),
        windows_all: matches!(f.measure.windows, Some(Value::Boolean(true))),
        measure_start: measured.measure_start,
        changes,
        elements,
        warnings: Vec::new(),
    };
    sc.warnings = super::warnings::collect(&sc, measure_start_given);
    Ok(sc)
}

/// `[scenario]`: the name and the duration (the other header fields are read last).
fn header(cx: Ctx, f: &raw::File) -> Result<SimDuration, ScenarioError> {
    // [scenario]
    if f.scenario.name.trim().is_empty() {
        return Err(cx.err("scenario.name", "must not be empty"));
    }
    let duration = cx.time("scenario.duration", &f.scenario.duration)?;
    if duration == SimDuration::ZERO {
        return Err(cx.err("scenario.duration", "must be positive, e.g. \"100s\""));
    }
    Ok(duration)
}

/// `[defaults]`, read: what links and flows take when they do not say.
struct Defaults {
    qdisc: QdiscConfig,
    buffer: Limit,
    cc: String,
    data_size: u32,
    ack_size: u32,
    max_window: u32,
    out_of_order: bool,
    ack_delay: Option<SimDuration>,
    rtt_sample: RttSample,
    ack_delay_min: Option<SimDuration>,
    tso: Option<Tso>,
    fast_retransmit: FastRetransmit,
    sack_timeout: SackTimeout,
    lost_retransmissions: LostRetransmissions,
    sack_recovery: SackRecovery,
    /// `ecn_echo`, for flows whose policy does not need ECN.
    ecn_echo: Option<EcnEcho>,
    /// `start_jitter` (read after `[nodes]`, in `validate`).
    jitter: SimDuration,
}

fn defaults(cx: Ctx, f: &raw::File) -> Result<Defaults, ScenarioError> {
    // [defaults]
    let d = &f.defaults;
    let def_qdisc = match &d.qdisc {
        Some(q) => cx.qdisc("defaults.qdisc", q)?,
        None => QdiscConfig::Fcfs(Default::default()),
    };
    let def_buffer = match &d.buffer {
        Some(v) => cx.limit("defaults.buffer", v)?,
        None => DEFAULT_BUFFER,
    };
    let def_cc = d.cc.clone().unwrap_or_else(|| "reno".to_string());
    // Checked here as well, so that a misspelt default is an error also when every window
    // flow names its own cc (or there is none).
    if d.cc.is_some() {
        cc_config(&cx, "defaults.cc", "defaults.cc", &def_cc, &toml::Table::new())?;
    }
    let def_data = match &d.data_size {
        Some(v) => cx.size("defaults.data_size", v)?,
        None => DEFAULT_DATA_SIZE as u32,
    };
    let def_ack = match &d.ack_size {
        Some(v) => cx.size("defaults.ack_size", v)?,
        None => DEFAULT_ACK_SIZE as u32,
    };
    let def_maxw = match &d.max_window {
        Some(v) => cx.window("defaults.max_window", v)?,
        None => DEFAULT_MAX_WINDOW as u32,
    };

    let def_ooo = match &d.out_of_order {
        Some(v) => out_of_order(&cx, "defaults.out_of_order", v)?,
        None => true,
    };
    let def_ack_delay = match &d.ack_delay {
        Some(v) => Some(positive_time(&cx, "defaults.ack_delay", v)?),
        None => None,
    };
    let def_rtt_sample = match &d.rtt_sample {
        Some(v) => rtt_sample(&cx, "defaults.rtt_sample", v)?,
        None => RttSample::Oldest,
    };
    let def_ack_delay_min = match &d.ack_delay_min {
        Some(v) => Some(positive_time(&cx, "defaults.ack_delay_min", v)?),
        None => None,
    };
    let def_tso = match &d.tso {
        Some(v) => tso(&cx, "defaults.tso", v)?,
        None => None,
    };
    let def_fast_retransmit = match &d.fast_retransmit {
        Some(v) => fast_retransmit(&cx, "defaults.fast_retransmit", v)?,
        None => FastRetransmit::Bsd,
    };
    let def_sack_timeout = match &d.sack_timeout {
        Some(v) => sack_timeout(&cx, "defaults.sack_timeout", v)?,
        None => SackTimeout::Keep,
    };
    let def_lost_retransmissions = match &d.lost_retransmissions {
        Some(v) => lost_retransmissions(&cx, "defaults.lost_retransmissions", v)?,
        None => LostRetransmissions::Detect,
    };
    let def_sack_recovery = match &d.sack_recovery {
        Some(v) => sack_recovery(&cx, "defaults.sack_recovery", v)?,
        None => SackRecovery::Rfc6675,
    };
    let def_ecn_echo = match &d.ecn_echo {
        Some(v) => Some(ecn_echo(&cx, "defaults.ecn_echo", v)?),
        None => None,
    };
    Ok(Defaults {
        qdisc: def_qdisc,
        buffer: def_buffer,
        cc: def_cc,
        data_size: def_data,
        ack_size: def_ack,
        max_window: def_maxw,
        out_of_order: def_ooo,
        ack_delay: def_ack_delay,
        rtt_sample: def_rtt_sample,
        ack_delay_min: def_ack_delay_min,
        tso: def_tso,
        fast_retransmit: def_fast_retransmit,
        sack_timeout: def_sack_timeout,
        lost_retransmissions: def_lost_retransmissions,
        sack_recovery: def_sack_recovery,
        ecn_echo: def_ecn_echo,
        jitter: SimDuration::ZERO,
    })
}

/// The nodes and their index by name.
fn nodes(cx: Ctx, f: &raw::File) -> Result<(Vec<Node>, HashMap<String, usize>), ScenarioError> {
    // [nodes]
    let mut nodes: Vec<Node> = Vec::new();
    let mut node_idx: HashMap<String, usize> = HashMap::with_capacity(f.nodes.hosts.len() + f.nodes.routers.len());
    for (list, router, field) in [(&f.nodes.hosts, false, "nodes.hosts"), (&f.nodes.routers, true, "nodes.routers")] {
        for n in list {
            if n.trim().is_empty() || n.contains('.') || n.contains("->") || has_control(n) {
                let n = n.escape_debug();
                return Err(cx.err(field, format!("invalid node name '{n}': names must be non-empty and contain no '.', '->' or control characters")));
            }
            if node_idx.insert(n.clone(), nodes.len()).is_some() {
                return Err(cx.err(field, format!("node '{n}' is declared twice")));
            }
            nodes.push(Node {
                name: n.as_str().into(),
                router,
                processing_delay: SimDuration::ZERO,
                processing_jitter: SimDuration::ZERO,
            });
        }
    }
    if nodes.is_empty() {
        return Err(cx.err("nodes", "no nodes declared; add hosts = [...] and routers = [...]"));
    }
    // Name -> index maps are hash maps (constant-time lookups at 10^5 nodes, links and
    // flows); they are only looked up, and listed sorted, so hash order reaches nothing.
    let find_node = |field: &str, n: &str| lookup_node(cx, &node_idx, field, n);
    for (n, v) in &f.nodes.processing_delay {
        let field = format!("nodes.processing_delay.{n}");
        let i = find_node(&field, n)?;
        nodes[i].processing_delay = cx.time(&field, v)?;
    }
    for (n, v) in &f.nodes.processing_jitter {
        let field = format!("nodes.processing_jitter.{n}");
        let i = find_node(&field, n)?;
        nodes[i].processing_jitter = cx.time(&field, v)?;
    }
    Ok((nodes, node_idx))
}

/// Name -> index maps are hash maps (constant-time lookups at 10^5 nodes, links and
/// flows); they are only looked up, and listed sorted, so hash order reaches nothing.
fn known(names: &HashMap<String, usize>) -> String {
    let mut v: Vec<&str> = names.keys().map(String::as_str).collect();
    v.sort_unstable();
    v.join(", ")
}

/// The index of node `n`, or an error at `field` listing the nodes declared.
pub(super) fn lookup_node(
    cx: Ctx,
    node_idx: &HashMap<String, usize>,
    field: &str,
    n: &str,
) -> Result<usize, ScenarioError> {
    node_idx
        .get(n)
        .copied()
        .ok_or_else(|| cx.err(field, format!("unknown node '{n}'; declare it in [nodes] (known: {})", known(node_idx))))
}

/// The network the sections after `[[links]]` look names up in.
pub(super) struct Net {
    pub nodes: Vec<Node>,
    pub node_idx: HashMap<String, usize>,
    pub links: Vec<Link>,
    pub link_names: HashMap<String, usize>,
    /// Link index by its (lower, higher) node pair.
    pub pairs: HashMap<(usize, usize), usize>,
    /// Neighbours of each node, in link-declaration order.
    pub adj: Vec<Vec<usize>>,
}

fn links(
    cx: Ctx,
    f: &raw::File,
    defs: &Defaults,
    nodes: Vec<Node>,
    node_idx: HashMap<String, usize>,
) -> Result<Net, ScenarioError> {
    let (def_buffer, def_qdisc) = (defs.buffer, &defs.qdisc);
    let find_node = |field: &str, n: &str| lookup_node(cx, &node_idx, field, n);

    // [[links]]
    let mut links: Vec<Link> = Vec::new();
    // Link index by name and by its (lower, higher) node pair: every later lookup of a
    // link or channel by name is a map lookup, so validation stays linear in the number
    // of links and flows (10^5 flows through one router).
    let mut link_names: HashMap<String, usize> = HashMap::new();
    let mut pairs: HashMap<(usize, usize), usize> = HashMap::new();
    for (i, l) in f.links.iter().enumerate() {
        let default_name = match l.between.as_slice() {
            [a, b] => format!("{a}-{b}"),
            _ => i.to_string(),
        };
        let name = l.name.clone().unwrap_or(default_name);
        if has_control(&name) {
            return Err(cx.err(
                "links.name",
                format!("invalid link name '{}': names contain no control characters", name.escape_debug()),
            ));
        }
        let p = cat("links.", &name);
        let [a, b] = l.between.as_slice() else {
            return Err(cx.err(cat(&p, ".between"), "must name exactly two nodes, e.g. [\"sw\", \"sink\"]"));
        };
        let (a, b) = (find_node(&cat(&p, ".between"), a)?, find_node(&cat(&p, ".between"), b)?);
        if a == b {
            return Err(cx.err(cat(&p, ".between"), "a link must join two different nodes"));
        }
        if pairs.insert((a.min(b), a.max(b)), links.len()).is_some() {
            return Err(cx.err(
                cat(&p, ".between"),
                "these two nodes are already joined by another link; ccsim allows one link per pair",
            ));
        }
        if link_names.insert(name.clone(), links.len()).is_some() {
            return Err(cx.err(cat(&p, ".name"), format!("link name '{name}' is used twice")));
        }
        let rate = per_dir(&cx, &cat(&p, ".rate"), Some(&l.rate), |f, v| cx.rate(f, v), None)?;
        let delay = per_dir(&cx, &cat(&p, ".delay"), l.delay.as_ref(), |f, v| cx.time(f, v), Some(SimDuration::ZERO))?;
        let buffer = per_dir(&cx, &cat(&p, ".buffer"), l.buffer.as_ref(), |f, v| cx.limit(f, v), Some(def_buffer))?;
        let qdisc = match &l.qdisc {
            Some(Value::Array(a)) => match a.as_slice() {
                [x, y] => [cx.qdisc(&format!("{p}.qdisc.0"), x)?, cx.qdisc(&format!("{p}.qdisc.1"), y)?],
                _ => return Err(cx.err(cat(&p, ".qdisc"), "give one discipline, or two: [a->b, b->a]")),
            },
            Some(q) => {
                let q = cx.qdisc(&cat(&p, ".qdisc"), q)?;
                [q.clone(), q]
            }
            None => [def_qdisc.clone(), def_qdisc.clone()],
        };
        let [q0, q1] = qdisc;
        let dirs = [
            ChannelSpec { rate_bps: rate[0], delay: delay[0], buffer: buffer[0], qdisc: q0 },
            ChannelSpec { rate_bps: rate[1], delay: delay[1], buffer: buffer[1], qdisc: q1 },
        ];
        // Equal to the previous link's directions (a topology's links of one tier):
        // share them.
        let dirs = match links.last() {
            Some(prev) if *prev.dirs == dirs => Arc::clone(&prev.dirs),
            _ => Arc::new(dirs),
        };
        links.push(Link { name: name.into(), a, b, dirs });
    }

    // Adjacency in link-declaration order (deterministic tie-breaking for routes).
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for l in &links {
        adj[l.a].push(l.b);
        adj[l.b].push(l.a);
    }
    Ok(Net { nodes, node_idx, links, link_names, pairs, adj })
}

/// The flows (copies of `count` expanded, voice partners resolved) and their index by name.
/// The flows, their indices by name, and the flows given neither `path` nor `ack_path`.
type FlowsOut = (Vec<Flow>, HashMap<String, usize>, Vec<usize>);

fn flows(
    cx: Ctx,
    d: &raw::Defaults,
    raw_flows: &[raw::Flow],
    defs: &Defaults,
    net: &Net,
    duration: SimDuration,
) -> Result<FlowsOut, ScenarioError> {
    let Net { nodes, node_idx, pairs, adj, .. } = net;
    let find_node = |field: &str, n: &str| lookup_node(cx, node_idx, field, n);
    let (def_data, def_ack, def_maxw, def_ooo) = (defs.data_size, defs.ack_size, defs.max_window, defs.out_of_order);
    let (def_ack_delay, def_ack_delay_min, def_tso) = (defs.ack_delay, defs.ack_delay_min, defs.tso);
    let (def_rtt_sample, def_fast_retransmit, def_jitter, def_cc) =
        (defs.rtt_sample, defs.fast_retransmit, defs.jitter, &defs.cc);

    // [[flows]]
    let mut flows: Vec<Flow> = Vec::new();
    // Flow index by name (voice partners, [measure] lists and series look flows up).
    let mut flow_names: HashMap<String, usize> = HashMap::new();
    let mut routes = RouteCache::default();
    // The last window policy built, by name and parameter table: flows written out with
    // the same parameters (10^5 in a generated file) reuse it instead of deserialising.
    let no_params = toml::Table::new();
    let mut last_cc: Option<(String, toml::Table, CcConfig, LossRecoveryConfig)> = None;
    let expanded = expand_flows(&cx, raw_flows)?;
    let mut voice_partners: Vec<(usize, String, String)> = Vec::new();
    for fl in &expanded {
        let p = cat("flows.", &fl.name);
        if fl.name.trim().is_empty() || fl.name.contains('.') || has_control(&fl.name) {
            return Err(cx.err(
                "flows.name",
                format!(
                    "invalid flow name '{}': must be non-empty without '.' or control characters",
                    fl.name.escape_debug()
                ),
            ));
        }
        if flow_names.insert(fl.name.clone(), flows.len()).is_some() {
            return Err(cx.err(cat(&p, ".name"), format!("flow name '{}' is used twice", fl.name)));
        }
        let from = find_node(&cat(&p, ".from"), fl.from.get(0))?;
        let to = find_node(&cat(&p, ".to"), fl.to.get(0))?;
        for (i, field) in [(from, "from"), (to, "to")] {
            if nodes[i].router {
                return Err(cx.err(
                    format!("{p}.{field}"),
                    format!("'{}' is a router; flows start and end at hosts", nodes[i].name),
                ));
            }
        }
        if from == to {
            return Err(cx.err(cat(&p, ".to"), "a flow must go to a different host"));
        }
        let start = match &fl.start {
            Some(v) => cx.time(&cat(&p, ".start"), v)?,
            None => SimDuration::ZERO,
        };
        if start >= duration {
            return Err(cx.err(cat(&p, ".start"), "starts at or after the end of the run"));
        }
        let start_jitter = match &fl.start_jitter {
            Some(v) => cx.time(&cat(&p, ".start_jitter"), v)?,
            None => def_jitter,
        };
        if start + start_jitter > duration {
            let f = if fl.start_jitter.is_some() { cat(&p, ".start_jitter") } else { "defaults.start_jitter".into() };
            return Err(cx.err(
                f,
                format!(
                    "start + start_jitter ({}) reaches past the end of the run ({duration}); shorten it",
                    start + start_jitter
                ),
            ));
        }
        let stop = match &fl.stop {
            Some(v) => Some(cx.time(&cat(&p, ".stop"), v)?),
            None => None,
        };
        let path = match &fl.path {
            Some(names) => explicit_path(&cx, &cat(&p, ".path"), names, from, to, node_idx, nodes, pairs)?,
            None => routes.path(from, to, nodes, adj).ok_or_else(|| {
                cx.err(
                    cat(&p, ".to"),
                    format!(
                        "no route from '{}' to '{}' (routers forward, hosts do not); add a link or give an explicit path",
                        nodes[from].name, nodes[to].name
                    ),
                )
            })?,
        };
        let kind = fl.kind.as_deref().unwrap_or("window");
        if kind != "voice" && fl.voice.is_some() {
            return Err(cx.err(cat(&p, ".voice"), "applies only to voice flows; remove it or set kind = \"voice\""));
        }
        let only = |what: &str, present: bool, kinds: &str| -> Result<(), ScenarioError> {
            if present {
                Err(cx.err(format!("{p}.{what}"), format!("applies only to {kinds} flows; remove it or change kind")))
            } else {
                Ok(())
            }
        };
        let spec = match kind {
            "window" => {
                only("rate", fl.rate.is_some(), "cbr")?;
                only("mean_gap", fl.mean_gap.is_some(), "poisson")?;
                only("on", fl.on.is_some(), "cbr and poisson")?;
                only("packet_size", fl.packet_size.is_some(), "cbr and poisson (window flows use data_size)")?;
                let data_size = match &fl.data_size {
                    Some(v) => cx.size(&cat(&p, ".data_size"), v)?,
                    None => def_data,
                };
                let ack_size = match &fl.ack_size {
                    Some(v) => cx.size(&cat(&p, ".ack_size"), v)?,
                    None => def_ack,
                };
                let max_window = match &fl.max_window {
                    Some(v) => cx.window(&cat(&p, ".max_window"), v)?,
                    None => def_maxw,
                };
                let keep_out_of_order = match &fl.out_of_order {
                    Some(v) => out_of_order(&cx, &cat(&p, ".out_of_order"), v)?,
                    None => def_ooo,
                };
                let ack_delay = match &fl.ack_delay {
                    Some(v) => Some(positive_time(&cx, &cat(&p, ".ack_delay"), v)?),
                    None => def_ack_delay,
                };
                let delayed = fl.delayed_ack.or(d.delayed_ack).unwrap_or(false);
                if fl.ack_delay.is_some() && !delayed {
                    return Err(cx.err(cat(&p, ".ack_delay"), "applies to delayed acks; add delayed_ack = true"));
                }
                if fl.ack_delay_min.is_some() && !delayed {
                    return Err(cx.err(cat(&p, ".ack_delay_min"), "applies to delayed acks; add delayed_ack = true"));
                }
                let ack_delay_min = match &fl.ack_delay_min {
                    Some(v) => Some(positive_time(&cx, &cat(&p, ".ack_delay_min"), v)?),
                    None => def_ack_delay_min,
                };
                let delayed_ack = delayed.then(|| {
                    let mut d = DelayedAck::default();
                    if let Some(t) = ack_delay {
                        d.delay = t;
                    }
                    d.min_delay = ack_delay_min;
                    d
                });
                if let Some(d) = delayed_ack.filter(|d| d.min_delay.is_some_and(|m| m > d.delay)) {
                    let f = if fl.ack_delay_min.is_some() {
                        cat(&p, ".ack_delay_min")
                    } else {
                        "defaults.ack_delay_min".into()
                    };
                    return Err(cx.err(
                        f,
                        format!(
                            "must not exceed ack_delay ({}), the longest wait",
                            crate::base::units::fmt_time(d.delay)
                        ),
                    ));
                }
                let tso = match &fl.tso {
                    Some(v) => tso(&cx, &cat(&p, ".tso"), v)?,
                    None => def_tso,
                };
                let sack = fl.sack.or(d.sack).unwrap_or(false);
                let rtt_sample = match &fl.rtt_sample {
                    Some(v) => rtt_sample(&cx, &cat(&p, ".rtt_sample"), v)?,
                    None => def_rtt_sample,
                };
                let handshake = fl.handshake.or(d.handshake).unwrap_or(false);
                let cc_name = fl.cc.clone().unwrap_or_else(|| def_cc.clone());
                let field = if fl.cc.is_some() { cat(&p, ".cc") } else { "defaults.cc".to_string() };
                // [defaults].params under the flow's own keys.
                let params: Cow<toml::Table> = match (&d.params, &fl.params) {
                    (None, own) => Cow::Borrowed(own.as_ref().unwrap_or(&no_params)),
                    (Some(all), None) => Cow::Borrowed(all),
                    (Some(all), Some(own)) => {
                        let mut t = all.clone();
                        t.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
                        Cow::Owned(t)
                    }
                };
                let params = params.as_ref();
                let (cc, loss) = match &last_cc {
                    Some((name, t, cc, loss)) if *name == cc_name && same_table(t, params) => (cc.clone(), *loss),
                    _ => {
                        let pfield = cat(&p, ".params");
                        // A key from [defaults].params is named there.
                        let (cc, loss) = cc_config(&cx, &field, &pfield, &cc_name, params).map_err(|mut e| {
                            if let Some(key) = e.field.strip_prefix(&format!("{pfield}.")) {
                                let top = key.split('.').next().unwrap_or(key);
                                if !fl.params.as_ref().is_some_and(|t| t.contains_key(top)) && d.params.is_some() {
                                    e.field = format!("defaults.params.{key}");
                                }
                            }
                            e
                        })?;
                        last_cc = Some((cc_name.clone(), params.clone(), cc.clone(), loss));
                        (cc, loss)
                    }
                };
                // A policy that needs ECN (DCTCP) has it, with its echo, unless the flow
                // itself says otherwise; [defaults] applies to the other flows.
                let needs = cc.info().ecn_echo;
                let ecn = fl.ecn.or(needs.map(|_| true)).or(d.ecn).unwrap_or(false);
                let echo = match &fl.ecn_echo {
                    Some(v) => Some(ecn_echo(&cx, &cat(&p, ".ecn_echo"), v)?),
                    None => needs.or(defs.ecn_echo),
                };
                if fl.ecn_echo.is_some() && !ecn {
                    return Err(cx.err(cat(&p, ".ecn_echo"), "applies with ECN; add ecn = true"));
                }
                let receiver = ReceiverConfig {
                    keep_out_of_order,
                    delayed_ack,
                    sack_blocks: if sack { 3 } else { 0 },
                    ecn,
                    ecn_echo: if ecn { echo.unwrap_or_default() } else { EcnEcho::default() },
                    handshake,
                };
                if sack && !cc.info().sack {
                    let with = CcConfig::sack_names();
                    return Err(cx.err(
                        cat(&p, ".sack"),
                        format!(
                            "SACK recovery works with the Reno family; cc '{cc_name}' is not one (use {})",
                            or_list(&with)
                        ),
                    ));
                }
                let fast_retransmit = match &fl.fast_retransmit {
                    Some(v) => fast_retransmit(&cx, &cat(&p, ".fast_retransmit"), v)?,
                    // [defaults] applies where it can: Reno recovery without SACK.
                    None if sack || cc.loss_recovery_params().recovery == crate::cc::Recovery::NewReno => {
                        FastRetransmit::Bsd
                    }
                    None => def_fast_retransmit,
                };
                let sack_timeout = sack_option(
                    &cx,
                    &p,
                    "sack_timeout",
                    fl.sack_timeout.as_deref(),
                    sack,
                    defs.sack_timeout,
                    sack_timeout,
                )?;
                let lost_retransmissions = sack_option(
                    &cx,
                    &p,
                    "lost_retransmissions",
                    fl.lost_retransmissions.as_deref(),
                    sack,
                    defs.lost_retransmissions,
                    lost_retransmissions,
                )?;
                let sack_recovery = sack_option(
                    &cx,
                    &p,
                    "sack_recovery",
                    fl.sack_recovery.as_deref(),
                    sack,
                    defs.sack_recovery,
                    sack_recovery,
                )?;
                if sack_recovery == SackRecovery::Prr && cc.info().pace_recovery {
                    return Err(cx.err(
                        cat(&p, ".sack_recovery"),
                        format!("cc '{cc_name}' paces its recovery and sets its own window there (Linux leaves PRR out for it); remove sack_recovery"),
                    ));
                }
                // A size in bytes is carried in whole data packets of data_size each.
                let size = match &fl.size {
                    Some(v) => Some(flow_size(&cx, &cat(&p, ".size"), v, data_size)?),
                    None => None,
                };
                let sender = SenderConfig {
                    size,
                    sack,
                    ecn,
                    rtt_sample,
                    tso,
                    handshake: NonZeroU32::new(ack_size).filter(|_| handshake),
                    fast_retransmit,
                    sack_timeout,
                    lost_retransmissions,
                    sack_recovery,
                };
                if fast_retransmit == FastRetransmit::GoBackN && (sack || matches!(cc, CcConfig::NewReno(_))) {
                    return Err(cx.err(
                        cat(&p, ".fast_retransmit"),
                        "\"go_back_n\" applies to Reno recovery; not with sack = true or cc = \"newreno\"",
                    ));
                }
                FlowSpec::Window { cc, loss, data_size, ack_size, max_window, receiver, sender }
            }
            "cbr" | "poisson" => {
                let extra = [("stop", fl.stop.is_some())];
                for (what, present) in [("cc", fl.cc.is_some()), ("params", fl.params.is_some())]
                    .into_iter()
                    .chain(window_fields(fl))
                    .chain(extra)
                {
                    let hint = if what == "data_size" {
                        " (use packet_size)"
                    } else if what == "stop" {
                        " (use on periods)"
                    } else {
                        ""
                    };
                    if present {
                        return Err(cx.err(format!("{p}.{what}"), format!("applies only to window flows{hint}")));
                    }
                }
                let packet_bits = match &fl.packet_size {
                    Some(v) => cx.bits(&cat(&p, ".packet_size"), v)?,
                    None => def_data * 8,
                };
                let on = on_periods(&cx, &p, fl.on.as_deref(), start, duration)?;
                if kind == "cbr" {
                    only("mean_gap", fl.mean_gap.is_some(), "poisson")?;
                    let rate = fl
                        .rate
                        .as_ref()
                        .ok_or_else(|| cx.err(cat(&p, ".rate"), "a cbr flow needs a rate, e.g. rate = \"40kbps\""))?;
                    FlowSpec::Cbr { rate_bps: cx.rate(&cat(&p, ".rate"), rate)?, packet_bits, on }
                } else {
                    only("rate", fl.rate.is_some(), "cbr")?;
                    let g = fl.mean_gap.as_ref().ok_or_else(|| {
                        cx.err(cat(&p, ".mean_gap"), "a poisson flow needs mean_gap, e.g. mean_gap = \"0.5s\"")
                    })?;
                    let mean_gap = cx.time(&cat(&p, ".mean_gap"), g)?;
                    if mean_gap == SimDuration::ZERO {
                        return Err(cx.err(cat(&p, ".mean_gap"), "must be positive"));
                    }
                    FlowSpec::Poisson { mean_gap, packet_bits, on }
                }
            }
            kind if RateFlowConfig::NAMES.contains(&kind) => {
                let extra = [("rate", fl.rate.is_some()), ("mean_gap", fl.mean_gap.is_some()), ("on", fl.on.is_some())];
                for (what, present) in [("cc", fl.cc.is_some())].into_iter().chain(window_fields(fl)).chain(extra) {
                    let hint = if what == "data_size" { " (use packet_size)" } else { "" };
                    if present {
                        return Err(cx.err(
                            format!("{p}.{what}"),
                            format!("does not apply to {kind} flows{hint}; its parameters go in params"),
                        ));
                    }
                }
                let packet_bits = match &fl.packet_size {
                    Some(v) => cx.bits(&cat(&p, ".packet_size"), v)?,
                    None => def_data * 8,
                };
                if packet_bits == 0 {
                    return Err(cx.err(cat(&p, ".packet_size"), "must be positive"));
                }
                let empty = toml::Table::new();
                struct Read<'a> {
                    cx: &'a Ctx<'a>,
                    field: &'a str,
                    table: &'a toml::Table,
                }
                impl crate::transport::rate_flow::ReadParams for Read<'_> {
                    type Error = ScenarioError;
                    fn read<T: serde::de::DeserializeOwned>(&self) -> Result<T, ScenarioError> {
                        self.cx.from_table(self.field, self.table)
                    }
                }
                let read = Read { cx: &cx, field: &cat(&p, ".params"), table: fl.params.as_ref().unwrap_or(&empty) };
                let cfg = RateFlowConfig::from_params(kind, &read).expect("the kind was found in the registry")?;
                cfg.check().map_err(|(f, m)| cx.err(format!("{p}.params.{f}"), m))?;
                FlowSpec::Rate { packet_bits, cfg }
            }
            "voice" => {
                let extra = [
                    ("stop", fl.stop.is_some()),
                    ("rate", fl.rate.is_some()),
                    ("mean_gap", fl.mean_gap.is_some()),
                    ("packet_size", fl.packet_size.is_some()),
                    ("on", fl.on.is_some()),
                ];
                for (what, present) in [("cc", fl.cc.is_some()), ("params", fl.params.is_some())]
                    .into_iter()
                    .chain(window_fields(fl))
                    .chain(extra)
                {
                    if present {
                        return Err(cx.err(
                            format!("{p}.{what}"),
                            "does not apply to voice flows (their parameters go in voice = { ... })",
                        ));
                    }
                }
                let t = fl.voice.as_ref().ok_or_else(|| {
                    cx.err(cat(&p, ".voice"), "a voice flow needs voice = { partner = \"<flow name>\" }")
                })?;
                let voice: crate::transport::voice::VoiceConfig = cx.from_table(&cat(&p, ".voice"), t)?;
                voice.check().map_err(|(f, m)| cx.err(format!("{p}.voice.{f}"), m))?;
                voice_partners.push((flows.len(), voice.partner.clone(), p.clone()));
                FlowSpec::Voice { voice, partner: usize::MAX }
            }
            other => return Err(cx.err(cat(&p, ".kind"), format!("unknown flow kind '{other}'; use {}", kind_names()))),
        };
        let ack_path = match &fl.ack_path {
            Some(names) => explicit_path(&cx, &cat(&p, ".ack_path"), names, to, from, node_idx, nodes, pairs)?,
            None => path.iter().rev().copied().collect(),
        };
        // Equal to the previous flow's spec (a `count`'s copies, a generated file's flows
        // written alike): share it.
        let spec = match flows.last() {
            Some(prev) if *prev.spec == spec => Arc::clone(&prev.spec),
            _ => Arc::new(spec),
        };
        flows.push(Flow {
            name: fl.name.as_str().into(),
            from,
            to,
            start,
            stop,
            start_jitter,
            path: path.into(),
            ack_path: ack_path.into(),
            spec,
        });
    }

    // Voice partners: each names another voice flow whose route leads back.
    for (i, name, p) in voice_partners {
        let Some(&j) = flow_names.get(&name) else {
            return Err(
                cx.err(format!("{p}.voice.partner"), format!("no flow named '{name}'; name the partner's flow"))
            );
        };
        let ok = matches!(&*flows[j].spec, FlowSpec::Voice { voice, .. } if voice.partner == flows[i].name);
        if j == i || !ok {
            return Err(cx.err(
                format!("{p}.voice.partner"),
                format!("'{name}' must be another voice flow whose partner is '{}'", flows[i].name),
            ));
        }
        if flows[j].from != flows[i].to || flows[j].to != flows[i].from {
            return Err(cx.err(
                format!("{p}.voice.partner"),
                format!("'{name}' must go back from this flow's 'to' to its 'from'"),
            ));
        }
        if let FlowSpec::Voice { partner, .. } = Arc::make_mut(&mut flows[i].spec) {
            *partner = j;
        }
    }
    // The flows whose route is theirs to choose: no `path`, no `ack_path`.
    let free: Vec<usize> = expanded
        .iter()
        .enumerate()
        .filter(|(_, fl)| fl.path.is_none() && fl.ack_path.is_none())
        .map(|(i, _)| i)
        .collect();
    Ok((flows, flow_names, free))
}

fn phases(cx: Ctx, f: &raw::File, duration: SimDuration) -> Result<Vec<Phase>, ScenarioError> {
    // [[phases]]
    let mut phases = Vec::new();
    // A set, not a scan of the phases so far: 100000 phases took 26 s to check.
    let mut phase_names: BTreeSet<&str> = BTreeSet::new();
    for ph in &f.phases {
        if has_control(&ph.name) {
            return Err(cx.err(
                "phases.name",
                format!("invalid phase name '{}': names contain no control characters", ph.name.escape_debug()),
            ));
        }
        let p = format!("phases.{}", ph.name);
        if !phase_names.insert(&ph.name) {
            return Err(cx.err(cat(&p, ".name"), "phase name used twice"));
        }
        let start = cx.time(&cat(&p, ".start"), &ph.start)?;
        let end = cx.time(&cat(&p, ".end"), &ph.end)?;
        if end <= start {
            return Err(cx.err(cat(&p, ".end"), "must be after start"));
        }
        if end > duration {
            return Err(cx.err(cat(&p, ".end"), format!("is after the end of the run ({duration})")));
        }
        phases.push(Phase { name: ph.name.clone(), start, end });
    }
    Ok(phases)
}

/// `[measure]`, read (its `series` are checked here and taken as written).
struct Measure {
    interval: Option<SimDuration>,
    sampling: Option<Sampling>,
    delays: Vec<usize>,
    windows: Vec<usize>,
    measure_start: SimDuration,
}

#[allow(clippy::too_many_arguments)]
fn measure(
    cx: Ctx,
    f: &raw::File,
    duration: SimDuration,
    phases: &[Phase],
    flows: &[Flow],
    workloads: &[workload::Workload],
    flow_names: &HashMap<String, usize>,
    net: &Net,
) -> Result<Measure, ScenarioError> {
    let Net { node_idx, pairs, links, .. } = net;
    // [measure]
    let interval = match &f.measure.interval {
        Some(v) => {
            let i = cx.time("measure.interval", v)?;
            if i == SimDuration::ZERO {
                return Err(cx.err("measure.interval", "must be positive"));
            }
            if duration.as_ps() / i.as_ps() > 100_000 {
                return Err(cx.err("measure.interval", "gives more than 100000 intervals; choose a longer one"));
            }
            Some(i)
        }
        None => None,
    };
    // Every phase and interval keeps a row per flow and per channel, and its boundary
    // copies them all in one event: 1000 flows with 100000 intervals aborted for want of
    // memory within 20000 events, 100 flows took 10 s and 1.7 GB for 20000 events.
    let generated: u64 = workloads.iter().map(workload::expected_flows).sum();
    let per_period = flows.len() as u64 + generated + 2 * links.len() as u64;
    if let Some(i) = interval {
        let n = duration.as_ps().div_ceil(i.as_ps());
        if n * per_period > MAX_PERIOD_ROWS {
            let (nf, nc) = (flows.len() as u64 + generated, 2 * links.len());
            return Err(cx.err("measure.interval", format!("{n} intervals of {nf} flows and {nc} channels are {} rows of results, more than {MAX_PERIOD_ROWS}; choose a longer interval", n * per_period)));
        }
    }
    if phases.len() as u64 * per_period > MAX_PERIOD_ROWS {
        let (np, nf, nc) = (phases.len(), flows.len() as u64 + generated, 2 * links.len());
        return Err(cx.err("phases", format!("{np} phases of {nf} flows and {nc} channels are {} rows of results, more than {MAX_PERIOD_ROWS}; give fewer phases", np as u64 * per_period)));
    }
    for s in &f.measure.series {
        check_series(&cx, s, flows, flow_names, node_idx, pairs, links)?;
    }
    let sampling =
        match (&f.measure.sample, &f.measure.max_points) {
            (Some(_), Some(_)) => return Err(cx.err(
                "measure.max_points",
                "give either sample (the width of a bucket, e.g. \"10ms\") or max_points (points per series), not both",
            )),
            (Some(v), None) => Some(Sampling::Every(positive_time(&cx, "measure.sample", v)?)),
            (None, Some(Value::Integer(n))) if *n >= 1 => Some(Sampling::MaxPoints(*n as u64)),
            (None, Some(v)) => {
                return Err(cx.err(
                    "measure.max_points",
                    format!("expected a whole number of points per series, at least 1 (e.g. 10000), found {v}"),
                ))
            }
            (None, None) => None,
        };
    let flow_list = |field: &str, v: &Option<Value>, window_only: bool| -> Result<Vec<usize>, ScenarioError> {
        let ok = |f: &Flow| !window_only || matches!(*f.spec, FlowSpec::Window { .. });
        match v {
            None | Some(Value::Boolean(false)) => Ok(vec![]),
            Some(Value::Boolean(true)) => Ok((0..flows.len()).filter(|&i| ok(&flows[i])).collect()),
            Some(Value::Array(names)) => {
                let mut out = Vec::with_capacity(names.len());
                for v in names {
                    let name = v.as_str().unwrap_or("");
                    let i = *flow_names.get(name).ok_or_else(|| {
                        cx.err(field, format!("no flow named {v}; list flow names, or write true for all flows"))
                    })?;
                    if !ok(&flows[i]) {
                        return Err(
                            cx.err(field, format!("flow {v} is not a window flow; only window flows have a window"))
                        );
                    }
                    out.push(i);
                }
                out.sort_unstable();
                out.dedup();
                Ok(out)
            }
            Some(v) => Err(cx.err(field, format!("expected true, false or a list of flow names, found {v}"))),
        }
    };
    let delays = flow_list("measure.delays", &f.measure.delays, false)?;
    let windows = flow_list("measure.windows", &f.measure.windows, true)?;
    let measure_start = match &f.measure.start {
        Some(v) => {
            let t = cx.time("measure.start", v)?;
            if t >= duration {
                return Err(cx.err("measure.start", "is at or after the end of the run"));
            }
            t
        }
        None => SimDuration::ZERO,
    };
    Ok(Measure { interval, sampling, delays, windows, measure_start })
}

fn changes(cx: Ctx, f: &raw::File, duration: SimDuration, net: &Net) -> Result<Vec<Change>, ScenarioError> {
    let Net { node_idx, pairs, links, link_names, .. } = net;
    // [[changes]]
    let mut changes = Vec::new();
    for (i, c) in f.changes.iter().enumerate() {
        let p = format!("changes.{i}");
        let channels = match (&c.link, &c.channel) {
            (Some(link), None) => {
                let &l = link_names.get(link.as_str()).ok_or_else(|| {
                    let names: Vec<&str> = links.iter().map(|l| l.name.as_str()).collect();
                    cx.err(cat(&p, ".link"), format!("unknown link '{link}'; known: {}", names.join(", ")))
                })?;
                vec![2 * l, 2 * l + 1]
            }
            (None, Some(ch)) => match channels_named(link_names, node_idx, pairs, links, ch) {
                Some(v) if ch.contains("->") => v,
                _ => {
                    return Err(cx.err(
                        cat(&p, ".channel"),
                        format!("no channel '{ch}'; write it as \"a->b\" for a link between a and b"),
                    ))
                }
            },
            (Some(_), Some(_)) => {
                return Err(cx.err(cat(&p, ".channel"), "give a link (both directions) or a channel, not both"))
            }
            (None, None) => {
                return Err(
                    cx.err(cat(&p, ".link"), "missing; name the link (or give channel = \"a->b\" for one direction)")
                )
            }
        };
        let at = cx.time(&cat(&p, ".at"), &c.at)?;
        if at > duration {
            return Err(cx.err(cat(&p, ".at"), "is after the end of the run"));
        }
        let rate_bps = c.rate.as_ref().map(|v| cx.rate(&cat(&p, ".rate"), v)).transpose()?;
        let delay = c.delay.as_ref().map(|v| cx.time(&cat(&p, ".delay"), v)).transpose()?;
        if rate_bps.is_none() && delay.is_none() {
            return Err(cx.err(&p, "a change needs a new delay and/or rate"));
        }
        changes.push(Change { at, channels, rate_bps, delay });
    }
    Ok(changes)
}

fn elements(cx: Ctx, f: &raw::File, net: &Net) -> Result<Vec<ElementSpec>, ScenarioError> {
    let Net { nodes, node_idx, pairs, links, link_names, adj } = net;
    let find_node = |field: &str, n: &str| lookup_node(cx, node_idx, field, n);
    // [[elements]]
    let mut elements = Vec::new();
    let mut per_channel: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, t) in f.elements.iter().enumerate() {
        let kind = t.get("kind").and_then(Value::as_str).unwrap_or("");
        let p = format!("elements.{i}");
        let mut table = t.clone();
        let at = table.remove("at").ok_or_else(|| {
            cx.err(cat(&p, ".at"), "missing; name a channel (\"a->b\"), a link (both directions) or a list of them")
        })?;
        table.remove("kind");
        let known = || {
            let names: Vec<&str> = ElementConfig::ALL.iter().map(|i| i.name).collect();
            format!("use {}", or_list(&names))
        };
        let Some(info) = ElementConfig::ALL.iter().find(|i| i.name == kind) else {
            if kind.is_empty() {
                return Err(cx.err(cat(&p, ".kind"), format!("missing; {}", known())));
            }
            let hint = nearest(kind, ElementConfig::ALL.iter().map(|i| i.name))
                .map(|n| format!(" (did you mean '{n}'?)"))
                .unwrap_or_default();
            return Err(cx.err(cat(&p, ".kind"), format!("unknown element '{kind}'{hint}; {}", known())));
        };
        if (info.parameters)().is_empty() {
            if let Some(k) = table.keys().next() {
                return Err(cx.err(format!("{p}.{k}"), format!("'{kind}' takes no parameters")));
            }
        }
        struct Read<'a> {
            cx: Ctx<'a>,
            field: &'a str,
            table: &'a toml::Table,
        }
        impl crate::element::ReadParams for Read<'_> {
            type Error = ScenarioError;
            fn read<T: serde::de::DeserializeOwned>(&self) -> Result<T, ScenarioError> {
                self.cx.from_table(self.field, self.table)
            }
        }
        let config = ElementConfig::from_params(kind, &Read { cx, field: &p, table: &table })
            .expect("the kind was found in the registry")?;
        // An element that sends packets: its destination must be a host.
        let mut to = None;
        if let Some(host) = config.destination() {
            let n = find_node(&cat(&p, ".to"), host)?;
            if nodes[n].router {
                return Err(cx.err(cat(&p, ".to"), format!("'{host}' is a router; packets are sent to hosts")));
            }
            to = Some(n);
        }
        config.check().map_err(|(f, m)| cx.err(format!("{p}.{f}"), m))?;
        let names: Vec<&Value> = match &at {
            Value::Array(a) => a.iter().collect(),
            v => vec![v],
        };
        for v in names {
            let Some(name) = v.as_str() else {
                return Err(cx.err(cat(&p, ".at"), format!("expected a channel or link name, found {v}")));
            };
            for ch in channels_named(link_names, node_idx, pairs, links, name).ok_or_else(|| {
                cx.err(
                    cat(&p, ".at"),
                    format!("no channel or link named '{name}'; write a channel as \"a->b\" or give a link's name"),
                )
            })? {
                if let (Some(n), Some(host)) = (to, config.destination()) {
                    let from = if ch % 2 == 0 { links[ch / 2].a } else { links[ch / 2].b };
                    if shortest_path(from, n, nodes, adj).is_none() {
                        return Err(cx.err(cat(&p, ".to"), format!("no route from '{}' to '{host}'", nodes[from].name)));
                    }
                }
                let n = per_channel.entry(ch).or_insert(0usize);
                if *n >= 255 {
                    return Err(cx.err(cat(&p, ".at"), "at most 255 elements per channel"));
                }
                *n += 1;
                let mut config = config.clone();
                config.on_channel(links[ch / 2].dirs[ch % 2].rate_bps);
                elements.push(ElementSpec { channel: ch, config, to });
            }
        }
    }
    Ok(elements)
}

/// The channels a name stands for: "a->b" is one channel, a link's name both.
pub(super) fn channels_named(
    link_names: &HashMap<String, usize>,
    node_idx: &HashMap<String, usize>,
    pairs: &HashMap<(usize, usize), usize>,
    links: &[Link],
    name: &str,
) -> Option<Vec<usize>> {
    if let Some((a, b)) = name.split_once("->") {
        let ia = *node_idx.get(a)?;
        let ib = *node_idx.get(b)?;
        let i = *pairs.get(&(ia.min(ib), ia.max(ib)))?;
        return Some(vec![if links[i].a == ia { 2 * i } else { 2 * i + 1 }]);
    }
    let i = *link_names.get(name)?;
    Some(vec![2 * i, 2 * i + 1])
}

/// Shortest paths with one breadth-first search per first router: every host with a
/// single link reaches the rest of the network through that router, so the search from
/// the host and the one from its router find the same paths (hosts do not forward, and
/// the host itself is no one's way through). Validation stays linear in the number of
/// flows for dumbbells of 10^5 hosts. Multi-homed hosts search on their own.
#[derive(Default)]
pub(super) struct RouteCache {
    /// BFS parent arrays by the router they were grown from.
    trees: BTreeMap<usize, Vec<usize>>,
}

impl RouteCache {
    pub(super) fn path(&mut self, from: usize, to: usize, nodes: &[Node], adj: &[Vec<usize>]) -> Option<Vec<usize>> {
        let via = match adj[from].as_slice() {
            [r] if nodes[*r].router && *r != to => *r,
            _ => return shortest_path(from, to, nodes, adj),
        };
        let parent = self.trees.entry(via).or_insert_with(|| bfs_tree(via, nodes, adj));
        if parent[to] == usize::MAX {
            return None;
        }
        let mut path = vec![to];
        let mut u = to;
        while u != via {
            u = parent[u];
            if u == from {
                // The tree reaches `to` only through `from` (a host): no route.
                return None;
            }
            path.push(u);
        }
        path.push(from);
        path.reverse();
        Some(path)
    }
}

/// The BFS parent array from `root` (hosts other than the root are not expanded).
fn bfs_tree(root: usize, nodes: &[Node], adj: &[Vec<usize>]) -> Vec<usize> {
    let mut parent = vec![usize::MAX; nodes.len()];
    parent[root] = root;
    let mut q = VecDeque::from([root]);
    while let Some(u) = q.pop_front() {
        if u != root && !nodes[u].router {
            continue;
        }
        for &v in &adj[u] {
            if parent[v] == usize::MAX {
                parent[v] = u;
                q.push_back(v);
            }
        }
    }
    parent
}

/// Fewest-hops path by breadth-first search; neighbours are explored in link
/// declaration order, so ties go to the link declared first. Hosts do not forward.
pub fn shortest_path(from: usize, to: usize, nodes: &[Node], adj: &[Vec<usize>]) -> Option<Vec<usize>> {
    let mut parent = vec![usize::MAX; nodes.len()];
    parent[from] = from;
    let mut q = VecDeque::from([from]);
    while let Some(u) = q.pop_front() {
        if u == to {
            break;
        }
        if u != from && !nodes[u].router {
            continue;
        }
        for &v in &adj[u] {
            if parent[v] == usize::MAX {
                parent[v] = u;
                q.push_back(v);
            }
        }
    }
    if parent[to] == usize::MAX {
        return None;
    }
    let mut path = vec![to];
    let mut u = to;
    while u != from {
        u = parent[u];
        path.push(u);
    }
    path.reverse();
    Some(path)
}

#[allow(clippy::too_many_arguments)]
fn explicit_path(
    cx: &Ctx,
    field: &str,
    names: &[String],
    from: usize,
    to: usize,
    idx: &HashMap<String, usize>,
    nodes: &[Node],
    pairs: &HashMap<(usize, usize), usize>,
) -> Result<Vec<usize>, ScenarioError> {
    let mut path = Vec::new();
    for n in names {
        path.push(*idx.get(n).ok_or_else(|| cx.err(field, format!("unknown node '{n}'")))?);
    }
    if path.first() != Some(&from) || path.last() != Some(&to) {
        return Err(cx.err(field, format!("must start at '{}' and end at '{}'", nodes[from].name, nodes[to].name)));
    }
    for w in path.windows(2) {
        if !pairs.contains_key(&(w[0].min(w[1]), w[0].max(w[1]))) {
            return Err(cx.err(field, format!("no link joins '{}' and '{}'", nodes[w[0]].name, nodes[w[1]].name)));
        }
    }
    for &n in &path[1..path.len() - 1] {
        if !nodes[n].router {
            return Err(cx.err(field, format!("'{}' is a host; only routers forward", nodes[n].name)));
        }
    }
    let mut seen = BTreeSet::new();
    if !path.iter().all(|n| seen.insert(*n)) {
        return Err(cx.err(field, "visits a node twice"));
    }
    Ok(path)
}

fn on_periods(
    cx: &Ctx,
    p: &str,
    on: Option<&[Vec<Value>]>,
    start: SimDuration,
    duration: SimDuration,
) -> Result<Vec<(SimDuration, SimDuration)>, ScenarioError> {
    let field = cat(&p, ".on");
    let Some(on) = on else { return Ok(vec![(start, duration)]) };
    let mut out: Vec<(SimDuration, SimDuration)> = Vec::new();
    for pair in on {
        let [a, b] = pair.as_slice() else {
            return Err(cx.err(&field, "each on period is [start, end], e.g. [\"0s\", \"300s\"]"));
        };
        let (a, b) = (cx.time(&field, a)?, cx.time(&field, b)?);
        if b <= a {
            return Err(cx.err(&field, format!("period [{a}, {b}] must end after it starts")));
        }
        if let Some(&(_, prev_end)) = out.last() {
            if a < prev_end {
                return Err(cx.err(&field, "periods must be in time order and must not overlap"));
            }
        }
        out.push((a.max(start), b.min(duration)));
    }
    out.retain(|(a, b)| a < b);
    Ok(out)
}

/// A link parameter given once for both directions or as [a->b, b->a].
/// `a` followed by `b`: a field name such as "flows.f1.start", built without the
/// formatting machinery (validation names fields for 10^5 flows and links).
pub(super) fn cat(a: &str, b: &str) -> String {
    let mut s = String::with_capacity(a.len() + b.len());
    s.push_str(a);
    s.push_str(b);
    s
}

fn per_dir<T: Copy>(
    cx: &Ctx,
    field: &str,
    v: Option<&Value>,
    parse: impl Fn(&str, &Value) -> Result<T, ScenarioError>,
    default: Option<T>,
) -> Result<[T; 2], ScenarioError> {
    match v {
        Some(Value::Array(a)) => match a.as_slice() {
            [x, y] => Ok([parse(&cat(field, ".0"), x)?, parse(&cat(field, ".1"), y)?]),
            _ => Err(cx.err(field, "give one value, or two: [a->b, b->a]")),
        },
        Some(x) => {
            let t = parse(field, x)?;
            Ok([t, t])
        }
        None => default.map(|d| [d, d]).ok_or_else(|| cx.err(field, "missing; add it (see docs/scenario-format.md)")),
    }
}

fn positive_time(cx: &Ctx, field: &str, v: &Value) -> Result<SimDuration, ScenarioError> {
    let t = cx.time(field, v)?;
    if t == SimDuration::ZERO {
        return Err(cx.err(field, "must be positive, e.g. \"200ms\""));
    }
    Ok(t)
}

fn rtt_sample(cx: &Ctx, field: &str, v: &str) -> Result<RttSample, ScenarioError> {
    match v {
        "oldest" => Ok(RttSample::Oldest),
        "newest" => Ok(RttSample::Newest),
        _ => Err(cx.err(field, format!("unknown value '{v}'; use \"oldest\" (RFC 1323 timestamp echo) or \"newest\" (newest packet acknowledged)"))),
    }
}

/// `tso`: `false`, `true` (Linux 2.6.18 as the paper describes it) or a table
/// `{ defer = "40ms", segment = "65536B", divisor = 3 }` (each optional).
fn tso(cx: &Ctx, field: &str, v: &Value) -> Result<Option<Tso>, ScenarioError> {
    let mut t = Tso { defer: SimDuration::from_millis(40), segment_bytes: 65_536, divisor: 3 };
    match v {
        Value::Boolean(false) => return Ok(None),
        Value::Boolean(true) => {}
        Value::Table(tab) => {
            for (k, x) in tab {
                let f = format!("{field}.{k}");
                match k.as_str() {
                    "defer" => t.defer = positive_time(cx, &f, x)?,
                    "segment" => t.segment_bytes = cx.size(&f, x)?,
                    "divisor" => match x.as_integer() {
                        Some(n) if (1..=1000).contains(&n) => t.divisor = n as u32,
                        _ => {
                            return Err(
                                cx.err(f, format!("expected a whole number from 1 to 1000 (Linux: 3), found {x}"))
                            )
                        }
                    },
                    _ => return Err(cx.err(f, "unknown key; tso takes defer, segment and divisor")),
                }
            }
        }
        _ => {
            return Err(cx.err(
                field,
                format!(
                "expected true, false or a table {{ defer = \"40ms\", segment = \"65536B\", divisor = 3 }}, found {v}"
            ),
            ))
        }
    }
    Ok(Some(t))
}

fn fast_retransmit(cx: &Ctx, field: &str, v: &str) -> Result<FastRetransmit, ScenarioError> {
    match v {
        "bsd" => Ok(FastRetransmit::Bsd),
        "go_back_n" => Ok(FastRetransmit::GoBackN),
        _ => Err(cx.err(field, format!("unknown value '{v}'; use \"bsd\" (resend the lost packet, resume where it was) or \"go_back_n\" (resend from the lost packet on)"))),
    }
}

/// A sender option of SACK recovery (`sack_timeout`, `lost_retransmissions`): the flow's
/// own value (refused without `sack = true`), else `[defaults]`' for a SACK flow, else
/// the built-in default (it means nothing without SACK, and export leaves it out).
fn sack_option<T: Copy + Default>(
    cx: &Ctx,
    flow: &str,
    key: &str,
    own: Option<&str>,
    sack: bool,
    from_defaults: T,
    parse: fn(&Ctx, &str, &str) -> Result<T, ScenarioError>,
) -> Result<T, ScenarioError> {
    match own {
        Some(v) => {
            let field = format!("{flow}.{key}");
            let value = parse(cx, &field, v)?;
            if !sack {
                return Err(cx.err(field, format!("applies to SACK recovery only; set sack = true or remove {key}")));
            }
            Ok(value)
        }
        None if sack => Ok(from_defaults),
        None => Ok(T::default()),
    }
}

fn sack_timeout(cx: &Ctx, field: &str, v: &str) -> Result<SackTimeout, ScenarioError> {
    match v {
        "keep" => Ok(SackTimeout::Keep),
        "clear" => Ok(SackTimeout::Clear),
        _ => Err(cx.err(field, format!("unknown value '{v}'; use \"keep\" (after a timeout resend only what the receiver has not SACKed: Linux, ns-3) or \"clear\" (forget the SACK blocks and resend everything: RFC 2018, ns-2)"))),
    }
}

fn lost_retransmissions(cx: &Ctx, field: &str, v: &str) -> Result<LostRetransmissions, ScenarioError> {
    match v {
        "detect" => Ok(LostRetransmissions::Detect),
        "timer" => Ok(LostRetransmissions::Timer),
        _ => Err(cx.err(field, format!("unknown value '{v}'; use \"detect\" (a retransmission is lost once data sent after it is SACKed: Linux) or \"timer\" (only the retransmission timer finds it: RFC 6675, ns-2)"))),
    }
}

fn sack_recovery(cx: &Ctx, field: &str, v: &str) -> Result<SackRecovery, ScenarioError> {
    match v {
        "rfc6675" => Ok(SackRecovery::Rfc6675),
        "prr" => Ok(SackRecovery::Prr),
        _ => Err(cx.err(field, format!("unknown value '{v}'; use \"rfc6675\" (send while the pipe is below cwnd: RFC 6675, ns-2) or \"prr\" (Proportional Rate Reduction: RFC 9937, Linux)"))),
    }
}

fn ecn_echo(cx: &Ctx, field: &str, v: &str) -> Result<EcnEcho, ScenarioError> {
    match v {
        "rfc3168" => Ok(EcnEcho::Rfc3168),
        "dctcp" => Ok(EcnEcho::Dctcp),
        _ => Err(cx.err(field, format!("unknown value '{v}'; use \"rfc3168\" (ECE from a CE mark until CWR) or \"dctcp\" (each ack's ECE is the mark of the packets it acknowledges, RFC 8257)"))),
    }
}

fn out_of_order(cx: &Ctx, field: &str, v: &str) -> Result<bool, ScenarioError> {
    match v {
        "keep" => Ok(true),
        "discard" => Ok(false),
        _ => {
            Err(cx
                .err(field, format!("unknown value '{v}'; use \"keep\" (buffer out-of-order packets) or \"discard\"")))
        }
    }
}

/// Most copies of one `[[flows]]` entry (`count`).
const MAX_FLOW_COUNT: i64 = 100_000;

/// `[[flows]]` entries with their copies: an entry with `count = N` (or with a list of
/// hosts in `from` or `to`, N = the longest list) becomes flows `<name>1` ... `<name>N`,
/// copy i going from `from[i]` to `to[i]` (lists cycle); the others stay as written.
fn expand_flows<'a>(cx: &Ctx, flows: &'a [raw::Flow]) -> Result<Vec<Cow<'a, raw::Flow>>, ScenarioError> {
    let mut out = Vec::with_capacity(flows.len());
    for fl in flows {
        let p = cat("flows.", &fl.name);
        for (field, h) in [("from", &fl.from), ("to", &fl.to)] {
            if h.list_len() == Some(0) {
                return Err(cx.err(format!("{p}.{field}"), "the list of hosts is empty; give at least one"));
            }
        }
        let lists = fl.from.list_len().max(fl.to.list_len());
        let count = match &fl.count {
            // A single flow is borrowed, not copied (10^5 flows in a generated file).
            None if lists.is_none() => {
                out.push(Cow::Borrowed(fl));
                continue;
            }
            None => lists.unwrap_or(1) as i64,
            Some(Value::Integer(n)) if (1..=MAX_FLOW_COUNT).contains(n) => *n,
            Some(v) => {
                return Err(cx.err(
                    cat(&p, ".count"),
                    format!("expected a whole number of flows from 1 to {MAX_FLOW_COUNT}, found {v}"),
                ))
            }
        };
        for i in 0..count as usize {
            let mut c = fl.clone();
            c.name = format!("{}{}", fl.name, i + 1);
            c.count = None;
            c.from = raw::Hosts::One(fl.from.get(i).to_string());
            c.to = raw::Hosts::One(fl.to.get(i).to_string());
            out.push(Cow::Owned(c));
        }
    }
    Ok(out)
}

/// Tables equal key by key in order, floats bit for bit (so 0.0 and -0.0 differ).
fn same_table(a: &toml::Table, b: &toml::Table) -> bool {
    a.len() == b.len() && a.iter().zip(b.iter()).all(|((ka, va), (kb, vb))| ka == kb && same_value(va, vb))
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Table(x), Value::Table(y)) => same_table(x, y),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y)),
        _ => a == b,
    }
}

/// The congestion-control policy `name` with its `[flows.params]` (serde, by the
/// parameter names of docs/scenario-format.md; every value checked): the policy's own
/// parameters and the transport's loss-recovery parameters given among them.
fn cc_config(
    cx: &Ctx,
    field: &str,
    pfield: &str,
    name: &str,
    params: &toml::Table,
) -> Result<(CcConfig, LossRecoveryConfig), ScenarioError> {
    // serde's "unknown field "x", expected one of "a", "b"" in our words, with every
    // parameter the policy accepts (its own and the transport's).
    let named = |mut e: ScenarioError| {
        if e.message.starts_with("unknown field ") {
            let info = CcConfig::ALL.iter().find(|i| i.answers_to(name));
            let params = info.map(|i| i.parameters()).unwrap_or_default();
            let given = e.field.rsplit('.').next().unwrap_or_default();
            let hint =
                nearest(given, params.iter().copied()).map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default();
            e.message = format!("unknown parameter for cc '{name}'{hint}; valid: {}", params.join(", "));
        }
        e
    };
    struct Read<'a> {
        cx: &'a Ctx<'a>,
        pfield: &'a str,
    }
    impl crate::cc::ReadParams for Read<'_> {
        type Error = ScenarioError;
        fn read<T: serde::de::DeserializeOwned>(&self, params: &toml::Table) -> Result<T, ScenarioError> {
            self.cx.from_table(self.pfield, params)
        }
    }
    if crate::cc::ExternalConfig::is_external(name) {
        return external_cc(cx, field, pfield, name, params, &Read { cx, pfield });
    }
    let (cfg, loss) = match CcConfig::from_params(name, params, &Read { cx, pfield }) {
        Some(r) => r.map_err(named)?,
        None => {
            let all = CcConfig::ALL.iter().flat_map(|i| std::iter::once(&i.name).chain(i.aliases)).copied();
            let hint = nearest(name, all).map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default();
            return Err(cx.err(field, format!(
                    "unknown congestion control '{name}'{hint}; use one of {}, or a class written in Python as \"module:Class\"",
                    cc_names()
                )));
        }
    };
    cfg.check(&loss).map_err(|(f, m)| cx.err(format!("{pfield}.{f}"), m))?;
    Ok((cfg, loss))
}

/// A policy the front end defines (`cc = "module:Class"`, `cc::external`): the
/// transport's parameters read here, the policy's own checked by the front end.
fn external_cc<R: crate::cc::ReadParams<Error = ScenarioError>>(
    cx: &Ctx,
    field: &str,
    pfield: &str,
    name: &str,
    params: &toml::Table,
    read: &R,
) -> Result<(CcConfig, LossRecoveryConfig), ScenarioError> {
    let lr = crate::cc::LossRecoveryParams::RFC6298;
    let (own, transport) = lr.split(params);
    let loss = lr.read(transport, read)?;
    loss.check().map_err(|(f, m)| cx.err(format!("{pfield}.{f}"), m))?;
    let Some(cfg) = crate::cc::ExternalConfig::checked(name, own, cx.source) else {
        return Err(cx.err(
            field,
            format!(
                "'{name}' names a congestion control defined in Python (module:Class); \
                 run the scenario from the Python package (`ccsim run`, `ccsim.run`) or use one of {}",
                cc_names()
            ),
        ));
    };
    let cfg = cfg.map_err(|m| cx.err(field, m))?;
    Ok((CcConfig::External(Box::new(cfg)), loss))
}

/// "a", "a or b", "a, b or c".
fn or_list<S: AsRef<str>>(names: &[S]) -> String {
    match names {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} or {}", rest.join(", "), last.as_ref())
        }
    }
}

/// The disciplines of the registry for an error message: "use "fcfs" (drop-tail), "fq"
/// (Fair Queueing) or "red" (RED)".
fn qdisc_names() -> String {
    let all: Vec<String> = QdiscConfig::ALL.iter().map(|i| format!("\"{}\" ({})", i.name, i.title)).collect();
    format!("use {}", or_list(&all))
}

/// The flow kinds (`FlowSpec::KINDS`) as a message lists them: "a", "b" or "c".
fn kind_names() -> String {
    let q: Vec<String> = FlowSpec::KINDS.iter().map(|k| format!("\"{}\"", k.name)).collect();
    or_list(&q)
}

/// The registry's names, with aliases in parentheses: "generic, tahoe (jk), reno, ...".
fn cc_names() -> String {
    let name = |i: &crate::cc::CcInfo| match i.aliases {
        [] => i.name.to_string(),
        a => format!("{} ({})", i.name, a.join(", ")),
    };
    CcConfig::ALL.iter().map(name).collect::<Vec<_>>().join(", ")
}

fn cc_extra(f: &Flow) -> String {
    match &*f.spec {
        FlowSpec::Window { cc, .. } if !cc.extra_series().is_empty() => cc.extra_series().join(", "),
        _ => "none".into(),
    }
}

fn check_series(
    cx: &Ctx,
    s: &str,
    flows: &[Flow],
    flow_names: &HashMap<String, usize>,
    node_idx: &HashMap<String, usize>,
    pairs: &HashMap<(usize, usize), usize>,
    links: &[Link],
) -> Result<(), ScenarioError> {
    let field = "measure.series";
    let Some((entity, metric)) = s.rsplit_once('.') else {
        return Err(cx.err(field, format!("'{s}' should be \"<flow>.<metric>\" or \"<a>-><b>.queue\"")));
    };
    if let Some(f) = flow_names.get(entity).map(|&i| &flows[i]) {
        let ok = match &*f.spec {
            FlowSpec::Window { cc, .. } => {
                crate::cc::external::WINDOW_SERIES.contains(&metric)
                    || cc.extra_series().contains(&metric)
                    || CcConfig::all_extra_series().contains(&metric)
            }
            _ => false,
        };
        if !ok && !matches!(*f.spec, FlowSpec::Window { .. }) {
            return Err(cx.err(
                field,
                format!(
                    "'{s}': flow '{entity}' is a {} flow, which records no time series (only window flows do); \
                     its goodput is in the flows table, and over time with [measure].interval",
                    f.spec.kind()
                ),
            ));
        }
        if !ok {
            return Err(cx.err(field, format!("'{s}': flow '{entity}' has no series '{metric}' (window flows: cwnd, ssthresh, outstanding, rtt, rate, and their policy's own: {})", cc_extra(f))));
        }
        return Ok(());
    }
    if let Some((a, b)) = entity.split_once("->") {
        let spec = match (node_idx.get(a), node_idx.get(b)) {
            (Some(&x), Some(&y)) => {
                pairs.get(&(x.min(y), x.max(y))).map(|&l| &links[l].dirs[usize::from(links[l].a != x)])
            }
            _ => None,
        };
        let Some(spec) = spec else {
            return Err(cx.err(field, format!("'{s}': no channel '{entity}'")));
        };
        let own = spec.qdisc.info().series;
        if metric != "queue" && metric != "sojourn" && !own.iter().any(|&(n, _)| n == metric) {
            let extra: String = own.iter().map(|(n, _)| format!(", '{n}'")).collect();
            return Err(cx.err(field, format!("'{s}': channel '{entity}' ({} discipline) has the series 'queue' (packets waiting), 'sojourn' (each packet's time in the queue){extra}", spec.qdisc.name())));
        }
        return Ok(());
    }
    Err(cx.err(field, format!("'{s}': no flow or channel named '{entity}'")))
}

/// A finite flow's size in data packets: "70pkt", or bytes ("100kB") carried in whole
/// packets of `data_size` bytes.
pub(super) fn flow_size(cx: &Ctx, field: &str, v: &Value, data_size: u32) -> Result<NonZeroU32, ScenarioError> {
    let text = cx.text(field, v, "100kB")?;
    let n = if text.trim_end().ends_with("pkt") || text.trim_end().ends_with("pkts") {
        cx.packets(field, v)?
    } else {
        let b = units::parse_size(text).map_err(|m| {
            cx.err(field, format!("{m} (a flow's size is bytes like \"100kB\" or packets like \"70pkt\")"))
        })?;
        b.div_ceil(data_size as u64) as u32
    };
    // Both parsers refuse zero; a positive size is at least one packet.
    NonZeroU32::new(n).ok_or_else(|| cx.err(field, "must be at least one packet"))
}

/// The fields of a flow that only the window transport reads (in the order their
/// errors are checked), with whether each is set: other kinds reject them.
fn window_fields(fl: &raw::Flow) -> [(&'static str, bool); 18] {
    [
        ("size", fl.size.is_some()),
        ("max_window", fl.max_window.is_some()),
        ("ack_size", fl.ack_size.is_some()),
        ("data_size", fl.data_size.is_some()),
        ("out_of_order", fl.out_of_order.is_some()),
        ("delayed_ack", fl.delayed_ack.is_some()),
        ("ack_delay", fl.ack_delay.is_some()),
        ("sack", fl.sack.is_some()),
        ("ecn", fl.ecn.is_some()),
        ("rtt_sample", fl.rtt_sample.is_some()),
        ("ack_delay_min", fl.ack_delay_min.is_some()),
        ("tso", fl.tso.is_some()),
        ("handshake", fl.handshake.is_some()),
        ("fast_retransmit", fl.fast_retransmit.is_some()),
        ("sack_timeout", fl.sack_timeout.is_some()),
        ("lost_retransmissions", fl.lost_retransmissions.is_some()),
        ("sack_recovery", fl.sack_recovery.is_some()),
        ("ecn_echo", fl.ecn_echo.is_some()),
    ]
}
