//! Workloads: window flows generated from distributions instead of listed one by one
//! (`[[workloads]]`, docs/scenario-format.md "Workloads"). Validation (`validate`) checks
//! a workload and keeps it as a `Workload`; the run expands it into flows with the run's
//! seed (`expand`, called by `Simulation::new`), so each seed of a sweep draws its own
//! flows and the scenario itself stays the same for every seed.
//!
//! Three kinds, as datacenter studies generate traffic:
//! - `poisson`: flows arrive as a Poisson process whose rate offers a target `load`,
//!   lambda = load x C / (8 x mean size), C being the named link's rate or, by default,
//!   the total rate of the hosts' access links (the convention of pFabric's and HPCC's
//!   simulations). Sizes come from an empirical CDF, linearly
//!   interpolated between its points as ns-2's `EmpiricalRandomVariable` does (the
//!   sampler those CDF files were written for), or are fixed. Endpoints: `uniform` (a
//!   uniform source, a uniform other host as destination), `permutation` (the
//!   destination of source h is pi(h) for a random derangement pi drawn once) or
//!   `all_to_one`.
//! - `permutation`: one flow per host at `start`, from h to pi(h) (htsim's permutation
//!   traffic matrix); finite if given a size.
//! - `incast`: `senders` hosts each send `size` to one receiver at the same time, every
//!   `interval`, `rounds` times (the synchronised reads of Vasudevan et al., "Safe and
//!   Effective Fine-grained TCP Retransmissions for Datacenter Communication", SIGCOMM
//!   2009); with `senders = N` a fresh random set of N hosts each round.
//!
//! Deviations and choices: a size in bytes is carried in whole data packets (as for any
//! finite flow), so the load offered on the wire is slightly above `load` (by the
//! rounding, under 1% of the bytes for both shipped distributions with 1500 B packets);
//! the mean in lambda is the CDF's own mean, as ns-3 and htsim users compute it.

use super::raw;
use super::validate::{cat, channels_named, lookup_node, Ctx, Net, RouteCache};
use super::{Flow, FlowSpec, Scenario, ScenarioError};
use crate::base::rng::{stream, Rng};
use crate::base::time::SimDuration;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::Arc;
use toml::Value;

/// Most flows one workload may generate (its expected count is checked).
pub const MAX_GENERATED: u64 = 1_000_000;

/// The size distributions shipped with ccsim (data/workloads/, sources in the files).
pub const BUILTIN_SIZES: [(&str, &str); 2] = [
    ("web_search", include_str!("../../data/workloads/web_search.cdf")),
    ("data_mining", include_str!("../../data/workloads/data_mining.cdf")),
];

/// A validated `[[workloads]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub name: String,
    pub kind: WorkloadKind,
    /// The hosts (node indices) whose flows it generates.
    pub hosts: Vec<usize>,
    /// The window flow each generated flow copies; its name, ends, start, route and size
    /// are set per flow.
    pub template: Flow,
    /// Arrivals (rounds, the permutation's start) at or after `start`, before `stop`.
    pub start: SimDuration,
    pub stop: SimDuration,
    /// The entry as written (overrides applied) but its `flow` keys, which `to_file`
    /// writes back with the template's keys.
    pub raw: toml::Table,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadKind {
    /// Poisson arrivals, `per_s` flows a second.
    Poisson { per_s: f64, sizes: Sizes, pattern: Pattern },
    /// One flow per host, to its image under a random derangement.
    Permutation { sizes: Option<Sizes> },
    /// Rounds of synchronised flows to `to`.
    Incast { to: usize, senders: Senders, sizes: Sizes, interval: SimDuration, rounds: u32 },
}

/// Flow sizes: fixed (in packets) or drawn from an empirical CDF.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Sizes {
    Packets(NonZeroU32),
    /// Points (size in bytes, cumulative probability), sizes and probabilities
    /// non-decreasing, the last probability 1; `data_size` is the flows' packet size.
    Cdf {
        points: Vec<(f64, f64)>,
        data_size: u32,
    },
}

impl Sizes {
    /// The mean flow size in bytes (of the CDF, or of the fixed packets).
    pub fn mean_bytes(&self, data_size: u32) -> f64 {
        match self {
            Sizes::Packets(n) => n.get() as f64 * data_size as f64,
            Sizes::Cdf { points, .. } => cdf_mean(points),
        }
    }

    /// One size in packets (one uniform draw for a CDF, none for a fixed size).
    fn draw(&self, rng: &mut Rng) -> NonZeroU32 {
        match self {
            Sizes::Packets(n) => *n,
            Sizes::Cdf { points, data_size } => {
                let bytes = cdf_sample(points, rng.next_f64());
                let pkts = (bytes / *data_size as f64).ceil().clamp(1.0, u32::MAX as f64) as u32;
                NonZeroU32::new(pkts).unwrap_or(NonZeroU32::MIN)
            }
        }
    }
}

/// A Poisson workload's endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    Uniform,
    Permutation,
    AllToOne(usize),
}

/// An incast's senders.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Senders {
    Listed(Vec<usize>),
    /// This many, drawn afresh each round from the workload's hosts other than the receiver.
    Random(u32),
}

/// The mean of a piecewise-linear CDF: the mass at the first point, then each segment's
/// probability times its midpoint.
pub fn cdf_mean(points: &[(f64, f64)]) -> f64 {
    let first = points[0].0 * points[0].1;
    first + points.windows(2).map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0).sum::<f64>()
}

/// The size at probability `u` in [0, 1): the first point whose probability reaches `u`,
/// interpolated linearly from the point before it (ns-2's `EmpiricalRandomVariable`
/// with interpolation).
pub fn cdf_sample(points: &[(f64, f64)], u: f64) -> f64 {
    let i = points.partition_point(|&(_, c)| c < u);
    if i == 0 {
        return points[0].0;
    }
    let i = i.min(points.len() - 1);
    let ((v0, c0), (v1, c1)) = (points[i - 1], points[i]);
    if c1 <= c0 {
        return v1;
    }
    v0 + (u - c0) * (v1 - v0) / (c1 - c0)
}

/// Reads a CDF file: lines of `size probability` (or ns-2's `size index probability`),
/// `#` comments and blank lines skipped. Sizes are multiplied by `unit` (bytes per size
/// unit). Errors say what is wrong on which line.
pub fn parse_cdf(text: &str, unit: f64) -> Result<Vec<(f64, f64)>, String> {
    let mut points: Vec<(f64, f64)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split(|c: char| c.is_whitespace() || c == ',').filter(|s| !s.is_empty()).collect();
        let (v, c) = match cols.as_slice() {
            [v, c] | [v, _, c] => (v, c),
            _ => return Err(format!("line {}: expected 'size probability', found '{line}'", n + 1)),
        };
        let num = |s: &str| s.parse::<f64>().ok().filter(|x| x.is_finite());
        let (Some(v), Some(c)) = (num(v), num(c)) else {
            return Err(format!("line {}: expected two numbers, found '{line}'", n + 1));
        };
        if v < 0.0 || !(0.0..=1.0).contains(&c) {
            return Err(format!("line {}: sizes are at least 0 and probabilities from 0 to 1, found '{line}'", n + 1));
        }
        if let Some(&(pv, pc)) = points.last() {
            if v * unit < pv || c < pc {
                return Err(format!("line {}: sizes and probabilities must not decrease, found '{line}'", n + 1));
            }
        }
        points.push((v * unit, c));
    }
    match points.last() {
        None => Err("no points; write lines of 'size probability'".into()),
        Some(&(_, c)) if (c - 1.0).abs() > 1e-6 => Err(format!("the last probability is {c}; a CDF ends at 1")),
        Some(&(v, _)) if v <= 0.0 => Err("every size is 0; give sizes above 0".into()),
        Some(_) => {
            if let Some(last) = points.last_mut() {
                last.1 = 1.0;
            }
            Ok(points)
        }
    }
}

/// What validation needs besides the workload entry.
pub(super) struct Cx<'a> {
    pub cx: Ctx<'a>,
    pub net: &'a Net,
    pub duration: SimDuration,
    /// Reads a CDF file named by `sizes` (the front end's reader).
    pub read: super::ReadFile<'a>,
}

/// The flow keys a workload sets for each flow it generates.
pub const SET_PER_FLOW: [&str; 9] = ["name", "kind", "count", "from", "to", "start", "size", "path", "ack_path"];

/// Validates one `[[workloads]]` entry; `template` validates the window flow given by
/// its `flow` keys (as `[[flows]]` would) and names errors inside `workloads.<name>.flow`.
pub(super) fn validate(
    w: &Cx,
    table: &toml::Table,
    template: &mut dyn FnMut(&raw::Flow) -> Result<Flow, ScenarioError>,
) -> Result<Workload, ScenarioError> {
    let cx = w.cx;
    let nodes = &w.net.nodes;
    let name = table.get("name").and_then(Value::as_str).unwrap_or("");
    let p = cat("workloads.", name);
    let r: raw::Workload = cx.from_table(&p, table)?;
    if r.name.trim().is_empty() || r.name.contains('.') || r.name.chars().any(char::is_control) {
        return Err(cx.err(
            "workloads.name",
            format!("invalid workload name '{}': must be non-empty without '.'", r.name.escape_debug()),
        ));
    }
    let field = |k: &str| format!("{p}.{k}");
    let time = |k: &str, v: &Option<Value>, default: SimDuration| match v {
        Some(v) => cx.time(&field(k), v),
        None => Ok(default),
    };
    let start = time("start", &r.start, SimDuration::ZERO)?;
    let stop = time("stop", &r.stop, w.duration)?;
    if start >= w.duration {
        return Err(cx.err(field("start"), "is at or after the end of the run"));
    }
    if stop <= start || stop > w.duration {
        return Err(cx.err(
            field("stop"),
            format!("must be after start ({start}) and at most the run's duration ({})", w.duration),
        ));
    }
    // The hosts.
    let host = |k: &str, n: &str| -> Result<usize, ScenarioError> {
        let i = lookup_node(cx, &w.net.node_idx, &field(k), n)?;
        if nodes[i].router {
            return Err(cx.err(field(k), format!("'{n}' is a router; workloads run between hosts")));
        }
        Ok(i)
    };
    let hosts: Vec<usize> = match &r.hosts {
        Some(list) => {
            let mut v = Vec::with_capacity(list.len());
            for n in list {
                let i = host("hosts", n)?;
                if v.contains(&i) {
                    return Err(cx.err(field("hosts"), format!("'{n}' is listed twice")));
                }
                v.push(i);
            }
            v
        }
        None => (0..nodes.len()).filter(|&i| !nodes[i].router).collect(),
    };
    if hosts.len() < 2 {
        return Err(cx.err(field("hosts"), "needs at least two hosts"));
    }
    let to = match &r.to {
        Some(n) => Some(host("to", n)?),
        None => None,
    };
    connected(w, &field("hosts"), hosts.iter().copied().chain(to))?;

    // The flow every generated flow copies: from the first host to another, which the
    // connectivity check guarantees a route.
    let mut t = r.flow.clone().unwrap_or_default();
    if let Some(k) = SET_PER_FLOW.iter().find(|k| t.contains_key(**k)) {
        return Err(cx.err(format!("{p}.flow.{k}"), "is set by the workload for each flow; remove it"));
    }
    let (a, b) = (hosts[0], hosts[1]);
    t.insert("name".into(), Value::String(r.name.clone()));
    t.insert("from".into(), Value::String(nodes[a].name.to_string()));
    t.insert("to".into(), Value::String(nodes[b].name.to_string()));
    let tmpl_raw: raw::Flow = cx.from_table(&format!("{p}.flow"), &t)?;
    let template = template(&tmpl_raw).map_err(|mut e| {
        if let Some(rest) = e.field.strip_prefix(&cat("flows.", &r.name)) {
            e.field = format!("{p}.flow{rest}");
        }
        e
    })?;
    let FlowSpec::Window { data_size, .. } = *template.spec else {
        unreachable!("a workload's template has no kind key, so it is a window flow")
    };

    let kind = r.kind.as_deref().unwrap_or("poisson");
    let not_for = |k: &str, present: bool| -> Result<(), ScenarioError> {
        if present {
            Err(cx.err(field(k), format!("does not apply to a {kind} workload; remove it")))
        } else {
            Ok(())
        }
    };
    let sizes = sizes(w, &p, &r, data_size)?;
    let kind = match kind {
        "poisson" => {
            for (k, present) in [
                ("from", r.from.is_some()),
                ("senders", r.senders.is_some()),
                ("interval", r.interval.is_some()),
                ("rounds", r.rounds.is_some()),
            ] {
                not_for(k, present)?;
            }
            let sizes = sizes.ok_or_else(|| {
                cx.err(
                    field("sizes"),
                    "missing; give sizes = \"web_search\", \"data_mining\" or a CDF file, or one size = \"100kB\"",
                )
            })?;
            let load = match &r.load {
                Some(Value::Float(x)) => *x,
                Some(Value::Integer(x)) => *x as f64,
                Some(Value::String(s)) if s.trim_end().ends_with('%') => {
                    s.trim_end().trim_end_matches('%').trim().parse::<f64>().map(|x| x / 100.0).unwrap_or(f64::NAN)
                }
                Some(v) => {
                    return Err(cx.err(field("load"), format!("expected a fraction such as 0.6 or \"60%\", found {v}")))
                }
                None => {
                    return Err(
                        cx.err(field("load"), "missing; give the offered load, e.g. 0.6 (60% of the link's rate)")
                    )
                }
            };
            if !(load > 0.0 && load <= 1.0) {
                return Err(cx.err(field("load"), format!("must be above 0 and at most 1 (100%), found {load}; above 1 the flows would pile up without bound")));
            }
            let pattern = match (r.pattern.as_deref().unwrap_or("uniform"), to) {
                ("uniform", None) => Pattern::Uniform,
                ("permutation", None) => Pattern::Permutation,
                ("all_to_one", Some(t)) => Pattern::AllToOne(t),
                ("all_to_one", None) => {
                    return Err(cx.err(field("to"), "missing; all_to_one sends every flow to this host"))
                }
                ("uniform" | "permutation", Some(_)) => {
                    return Err(
                        cx.err(field("to"), "applies to pattern = \"all_to_one\"; remove it or change the pattern")
                    )
                }
                (other, _) => {
                    return Err(cx.err(
                        field("pattern"),
                        format!("unknown pattern '{other}'; use \"uniform\", \"permutation\" or \"all_to_one\""),
                    ))
                }
            };
            if let Pattern::AllToOne(t) = pattern {
                if hosts.iter().all(|&h| h == t) {
                    return Err(cx.err(field("hosts"), "lists no host besides 'to' to send from"));
                }
            }
            let capacity = capacity(w, &p, &r, &hosts, pattern)?;
            let per_s = load * capacity as f64 / (8.0 * sizes.mean_bytes(data_size));
            let expected = per_s * (stop.as_secs_f64() - start.as_secs_f64());
            if expected > MAX_GENERATED as f64 {
                return Err(cx.err(field("load"), format!("offers {expected:.0} flows on average over the run, more than {MAX_GENERATED}; lower the load, shorten stop - start, or use larger sizes")));
            }
            WorkloadKind::Poisson { per_s, sizes, pattern }
        }
        "permutation" => {
            for (k, present) in [
                ("from", r.from.is_some()),
                ("senders", r.senders.is_some()),
                ("interval", r.interval.is_some()),
                ("rounds", r.rounds.is_some()),
                ("load", r.load.is_some()),
                ("link", r.link.is_some()),
                ("pattern", r.pattern.is_some()),
                ("to", r.to.is_some()),
            ] {
                not_for(k, present)?;
            }
            WorkloadKind::Permutation { sizes }
        }
        "incast" => {
            for (k, present) in
                [("load", r.load.is_some()), ("link", r.link.is_some()), ("pattern", r.pattern.is_some())]
            {
                not_for(k, present)?;
            }
            let to = to.ok_or_else(|| cx.err(field("to"), "missing; name the host every sender sends to"))?;
            let sizes =
                sizes.ok_or_else(|| cx.err(field("size"), "missing; give each sender's size, e.g. size = \"64kB\""))?;
            let others = hosts.iter().filter(|&&h| h != to).count() as u32;
            let senders = match (&r.from, &r.senders) {
                (Some(_), Some(_)) => {
                    return Err(cx.err(
                        field("senders"),
                        "give either from (the senders by name) or senders (how many, drawn each round), not both",
                    ))
                }
                (Some(list), None) => {
                    let mut v: Vec<usize> = Vec::with_capacity(list.len());
                    for n in list {
                        let i = host("from", n)?;
                        if i == to {
                            return Err(cx.err(field("from"), format!("'{n}' is the receiver ('to')")));
                        }
                        if v.contains(&i) {
                            return Err(cx.err(field("from"), format!("'{n}' is listed twice")));
                        }
                        v.push(i);
                    }
                    if v.is_empty() {
                        return Err(cx.err(field("from"), "the list is empty; name at least one sender"));
                    }
                    connected(w, &field("from"), v.iter().copied().chain([to]))?;
                    Senders::Listed(v)
                }
                (None, Some(Value::Integer(n))) if *n >= 1 && *n <= others as i64 => Senders::Random(*n as u32),
                (None, Some(v)) => {
                    return Err(cx.err(
                        field("senders"),
                        format!(
                            "expected a whole number of senders from 1 to {others} (the hosts besides 'to'), found {v}"
                        ),
                    ))
                }
                (None, None) => Senders::Random(others),
            };
            let rounds = match &r.rounds {
                None => 1,
                Some(Value::Integer(n)) if *n >= 1 && *n <= MAX_GENERATED as i64 => *n as u32,
                Some(v) => {
                    return Err(
                        cx.err(field("rounds"), format!("expected a whole number of rounds, at least 1, found {v}"))
                    )
                }
            };
            let interval = match &r.interval {
                Some(v) => {
                    let i = cx.time(&field("interval"), v)?;
                    if i == SimDuration::ZERO {
                        return Err(cx.err(field("interval"), "must be above 0"));
                    }
                    i
                }
                None if rounds > 1 => {
                    return Err(cx.err(field("interval"), "missing; give the time between rounds, e.g. \"10ms\""))
                }
                None => w.duration,
            };
            let n = match &senders {
                Senders::Listed(v) => v.len() as u64,
                Senders::Random(n) => *n as u64,
            };
            if n * rounds as u64 > MAX_GENERATED {
                return Err(cx.err(
                    field("rounds"),
                    format!("{n} senders x {rounds} rounds are more than {MAX_GENERATED} flows; give fewer"),
                ));
            }
            WorkloadKind::Incast { to, senders, sizes, interval, rounds }
        }
        other => {
            return Err(cx.err(
                field("kind"),
                format!("unknown workload kind '{other}'; use \"poisson\", \"permutation\" or \"incast\""),
            ))
        }
    };
    let mut raw = table.clone();
    raw.remove("flow");
    Ok(Workload { name: r.name, kind, hosts, template, start, stop, raw })
}

/// The flow sizes a workload gives: `sizes` (a distribution) or `size` (one size), not
/// both; `None` if neither.
fn sizes(w: &Cx, p: &str, r: &raw::Workload, data_size: u32) -> Result<Option<Sizes>, ScenarioError> {
    let cx = w.cx;
    match (&r.sizes, &r.size) {
        (Some(_), Some(_)) => {
            Err(cx.err(format!("{p}.size"), "give either sizes (a distribution) or size (one size), not both"))
        }
        (None, Some(v)) => {
            if r.size_unit.is_some() {
                return Err(cx.err(
                    format!("{p}.size_unit"),
                    "applies to sizes read from a CDF; give size with its unit instead",
                ));
            }
            Ok(Some(Sizes::Packets(super::validate::flow_size(&cx, &format!("{p}.size"), v, data_size)?)))
        }
        (Some(s), None) => {
            let f = format!("{p}.sizes");
            let unit = match r.size_unit.as_deref() {
                None | Some("B") => 1.0,
                Some("pkt") => data_size as f64,
                Some(u) => return Err(cx.err(format!("{p}.size_unit"), format!("unknown unit '{u}'; use \"B\" (bytes, the default) or \"pkt\" (packets of the flows' data_size)"))),
            };
            let (text, what) = match BUILTIN_SIZES.iter().find(|(n, _)| n == s) {
                Some((_, text)) => (std::borrow::Cow::Borrowed(*text), format!("built-in '{s}'")),
                None => match (w.read)(s) {
                    Ok(t) => (std::borrow::Cow::Owned(t), format!("'{s}'")),
                    Err(e) => {
                        let names: Vec<String> = BUILTIN_SIZES.iter().map(|(n, _)| format!("\"{n}\"")).collect();
                        return Err(cx.err(f, format!("{e}; give {} or the path of a CDF file", names.join(" or "))));
                    }
                },
            };
            let points = parse_cdf(&text, unit).map_err(|m| cx.err(&f, format!("{what}: {m}")))?;
            let largest = points.last().map_or(0.0, |p| p.0);
            if (largest / data_size as f64).ceil() > u32::MAX as f64 {
                return Err(cx.err(
                    f,
                    format!(
                        "{what}: the largest size, {largest} B, is more packets than a flow can carry (4294967295)"
                    ),
                ));
            }
            Ok(Some(Sizes::Cdf { points, data_size }))
        }
        (None, None) => {
            if r.size_unit.is_some() {
                return Err(
                    cx.err(format!("{p}.size_unit"), "applies to sizes read from a CDF; add sizes or remove it")
                );
            }
            Ok(None)
        }
    }
}

/// The rate a Poisson workload's load is a fraction of: `link`'s, or the hosts' access
/// links' total (the receiver's access link for all_to_one).
fn capacity(w: &Cx, p: &str, r: &raw::Workload, hosts: &[usize], pattern: Pattern) -> Result<u64, ScenarioError> {
    let net = w.net;
    let rate = |c: usize| net.links[c / 2].dirs[c % 2].rate_bps;
    if let Some(name) = &r.link {
        let f = format!("{p}.link");
        let Some(ch) = channels_named(&net.link_names, &net.node_idx, &net.pairs, &net.links, name) else {
            return Err(w
                .cx
                .err(f, format!("no link or channel named '{name}'; give a link's name or a channel \"a->b\"")));
        };
        let rates: Vec<u64> = ch.iter().map(|&c| rate(c)).collect();
        if rates.iter().any(|&x| x != rates[0]) {
            return Err(w.cx.err(
                f,
                format!("link '{name}' has different rates in its two directions; name one channel, \"a->b\""),
            ));
        }
        return Ok(rates[0]);
    }
    // Channel 2i is link i's a->b, 2i+1 its b->a.
    let out_of = |h: usize| -> u64 {
        net.links
            .iter()
            .map(|l| {
                if l.a == h {
                    l.dirs[0].rate_bps
                } else if l.b == h {
                    l.dirs[1].rate_bps
                } else {
                    0
                }
            })
            .sum()
    };
    let into = |h: usize| -> u64 {
        net.links
            .iter()
            .map(|l| {
                if l.b == h {
                    l.dirs[0].rate_bps
                } else if l.a == h {
                    l.dirs[1].rate_bps
                } else {
                    0
                }
            })
            .sum()
    };
    Ok(match pattern {
        Pattern::AllToOne(t) => into(t),
        _ => hosts.iter().map(|&h| out_of(h)).sum(),
    })
}

/// Every pair of the hosts is joined through routers: each host's routers lie in one
/// group of routers connected to each other (hosts do not forward).
fn connected(w: &Cx, field: &str, hosts: impl Iterator<Item = usize>) -> Result<(), ScenarioError> {
    let Net { nodes, adj, .. } = w.net;
    // Router groups by union-find over router-router links.
    let mut group: Vec<usize> = (0..nodes.len()).collect();
    fn root(g: &mut [usize], mut i: usize) -> usize {
        while g[i] != i {
            g[i] = g[g[i]];
            i = g[i];
        }
        i
    }
    for u in 0..nodes.len() {
        if nodes[u].router {
            for &v in &adj[u] {
                if nodes[v].router {
                    let (a, b) = (root(&mut group, u), root(&mut group, v));
                    group[a] = b;
                }
            }
        }
    }
    let mut seen: Option<(usize, usize)> = None;
    for h in hosts {
        let groups: Vec<usize> = adj[h].iter().filter(|&&r| nodes[r].router).map(|&r| root(&mut group, r)).collect();
        match (groups.as_slice(), seen) {
            ([], _) => {
                return Err(w.cx.err(
                    field,
                    format!(
                        "host '{}' has no link to a router; a workload's hosts reach each other through routers",
                        nodes[h].name
                    ),
                ))
            }
            (g, None) => seen = Some((g[0], h)),
            (g, Some((s, first))) if !g.contains(&s) => {
                return Err(w.cx.err(
                    field,
                    format!(
                        "no route between hosts '{}' and '{}'; link them through routers",
                        nodes[first].name, nodes[h].name
                    ),
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// An upper estimate of the flows a workload adds (for the results' row limits).
pub fn expected_flows(w: &Workload) -> u64 {
    match &w.kind {
        WorkloadKind::Poisson { per_s, .. } => {
            let m = per_s * (w.stop.as_secs_f64() - w.start.as_secs_f64());
            (m + 6.0 * m.sqrt() + 1.0) as u64
        }
        WorkloadKind::Permutation { .. } => w.hosts.len() as u64,
        WorkloadKind::Incast { senders, rounds, .. } => {
            let n = match senders {
                Senders::Listed(v) => v.len() as u64,
                Senders::Random(n) => *n as u64,
            };
            n * *rounds as u64
        }
    }
}

/// Appends the flows of the scenario's workloads, drawn from `seed`: workload `i` draws
/// from its own stream (`stream::workload(i)`), in a fixed order per flow (arrival gap,
/// size, source, destination). Generated flows are named `<workload><k>` (k from 1 in
/// order of generation), routed as path-free flows (ECMP under `routing = "ecmp"`), and
/// kept delay statistics or window histograms if `[measure]` asked for all flows.
pub fn expand(sc: &mut Scenario, seed: u64) {
    if sc.workloads.is_empty() || sc.generated > 0 {
        return;
    }
    let first = sc.flows.len();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); sc.nodes.len()];
    for l in &sc.links {
        adj[l.a].push(l.b);
        adj[l.b].push(l.a);
    }
    let mut routes = RouteCache::default();
    let workloads = std::mem::take(&mut sc.workloads);
    for (wi, w) in workloads.iter().enumerate() {
        let mut rng = Rng::new(seed, stream::workload(wi));
        let mut k = 0u64;
        // The template's spec with each size drawn, built once per size and shared by
        // the flows of that size.
        let mut by_size: HashMap<Option<NonZeroU32>, Arc<FlowSpec>> = HashMap::new();
        // (Under ECMP the build draws each flow's path: none is kept in the flow.)
        let mut template = w.template.clone();
        if sc.routing.is_ecmp() {
            (template.path, template.ack_path) = Default::default();
        }
        let mut add = |sc: &mut Scenario, from: usize, to: usize, at: SimDuration, size: Option<NonZeroU32>| {
            k += 1;
            let mut f = template.clone();
            f.name = format!("{}{k}", w.name).into();
            (f.from, f.to, f.start) = (from, to, at);
            if !sc.routing.is_ecmp() {
                f.path = routes
                    .path(from, to, &sc.nodes, &adj)
                    .expect("validation checked the workload's hosts are connected")
                    .into();
                f.ack_path = f.path.iter().rev().copied().collect();
            }
            f.spec = Arc::clone(by_size.entry(size).or_insert_with(|| {
                let mut spec = Arc::clone(&w.template.spec);
                if let FlowSpec::Window { sender, .. } = Arc::make_mut(&mut spec) {
                    sender.size = size;
                }
                spec
            }));
            if sc.routing.is_ecmp() {
                sc.ecmp_flows.push(sc.flows.len());
            }
            sc.flows.push(f);
        };
        let draw_sizes = |s: &Option<Sizes>, rng: &mut Rng| s.as_ref().map(|s| s.draw(rng));
        match &w.kind {
            WorkloadKind::Poisson { per_s, sizes, pattern } => {
                let perm = matches!(pattern, Pattern::Permutation).then(|| derangement(&w.hosts, &mut rng));
                let sources: Vec<usize> = match pattern {
                    Pattern::AllToOne(t) => w.hosts.iter().copied().filter(|h| h != t).collect(),
                    _ => w.hosts.clone(),
                };
                let mean_gap_ps = 1e12 / per_s;
                let mut t = w.start.as_ps() as f64;
                loop {
                    t += -rng.next_f64_open().ln() * mean_gap_ps;
                    if t >= w.stop.as_ps() as f64 {
                        break;
                    }
                    let size = sizes.draw(&mut rng);
                    let si = below(&mut rng, sources.len());
                    let src = sources[si];
                    let dst = match (pattern, &perm) {
                        (Pattern::AllToOne(to), _) => *to,
                        (Pattern::Permutation, Some(p)) => p[si],
                        _ => {
                            // A uniform host other than the source.
                            let j = below(&mut rng, w.hosts.len() - 1);
                            let j = if w.hosts[j] == src { w.hosts.len() - 1 } else { j };
                            w.hosts[j]
                        }
                    };
                    add(sc, src, dst, SimDuration::from_ps(t as u64), Some(size));
                }
            }
            WorkloadKind::Permutation { sizes } => {
                let perm = derangement(&w.hosts, &mut rng);
                for (i, &h) in w.hosts.iter().enumerate() {
                    let size = draw_sizes(sizes, &mut rng);
                    add(sc, h, perm[i], w.start, size);
                }
            }
            WorkloadKind::Incast { to, senders, sizes, interval, rounds } => {
                let mut others: Vec<usize> = w.hosts.iter().copied().filter(|h| h != to).collect();
                for r in 0..*rounds as u64 {
                    let at = w.start + SimDuration::from_ps(interval.as_ps().saturating_mul(r));
                    if at >= w.stop {
                        break;
                    }
                    let chosen: Vec<usize> = match senders {
                        Senders::Listed(v) => v.clone(),
                        Senders::Random(n) => {
                            // A partial Fisher-Yates shuffle: the first n are a uniform
                            // random set, in random order.
                            let n = *n as usize;
                            for i in 0..n {
                                let j = i + below(&mut rng, others.len() - i);
                                others.swap(i, j);
                            }
                            others[..n].to_vec()
                        }
                    };
                    for s in chosen {
                        let size = sizes.draw(&mut rng);
                        add(sc, s, *to, at, Some(size));
                    }
                }
            }
        }
    }
    sc.workloads = workloads;
    sc.generated = sc.flows.len() - first;
    if sc.delays_all {
        sc.delays.extend(first..sc.flows.len());
    }
    if sc.windows_all {
        sc.windows.extend(first..sc.flows.len());
    }
}

/// A uniform index below `n` (n >= 1) by multiplying a 64-bit draw (bias below n/2^64).
fn below(rng: &mut Rng, n: usize) -> usize {
    ((rng.next_u64() as u128 * n as u128) >> 64) as usize
}

/// pi over `hosts` with no fixed point, uniform among such: Fisher-Yates shuffles until
/// one has no fixed point (e/(e-1) ... about 2.7 shuffles on average for many hosts).
/// Returns pi(hosts[i]) at index i.
fn derangement(hosts: &[usize], rng: &mut Rng) -> Vec<usize> {
    let mut p = hosts.to_vec();
    loop {
        for i in (1..p.len()).rev() {
            let j = below(rng, i + 1);
            p.swap(i, j);
        }
        if p.iter().zip(hosts).all(|(a, b)| a != b) {
            return p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_flows_of_one_size_share_one_spec() {
        let text = |sizes: &str, duration: &str| {
            format!(
                "[scenario]\nname = \"w\"\nduration = \"{duration}\"\n[nodes]\nhosts = [\"a\", \"b\"]\nrouters = [\"r\"]\n\
                 [[links]]\nbetween = [\"a\", \"r\"]\nrate = \"1Gbps\"\n[[links]]\nbetween = [\"r\", \"b\"]\nrate = \"1Gbps\"\n\
                 [[workloads]]\nname = \"w\"\nload = 0.5\n{sizes}\n"
            )
        };
        let expanded = |sizes: &str, duration: &str| {
            let mut sc =
                crate::scenario::parse(&text(sizes, duration), "w.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
            expand(&mut sc, 1);
            assert!(sc.flows.len() > 10, "{} flows", sc.flows.len());
            sc
        };
        let size = |f: &Flow| match &*f.spec {
            FlowSpec::Window { sender, .. } => sender.size,
            _ => unreachable!(),
        };
        // One size: one spec for every flow, the template's own left as it was.
        let sc = expanded("size = \"15kB\"", "20ms");
        assert!(size(&sc.flows[0]).is_some());
        assert!(sc.flows.iter().all(|f| Arc::ptr_eq(&f.spec, &sc.flows[0].spec)));
        // Sizes drawn: flows of one size share, flows of different sizes do not.
        let sc = expanded("sizes = \"web_search\"", "2s");
        let mut distinct: Vec<*const FlowSpec> = sc.flows.iter().map(|f| Arc::as_ptr(&f.spec)).collect();
        distinct.sort();
        distinct.dedup();
        let mut sizes: Vec<Option<NonZeroU32>> = sc.flows.iter().map(size).collect();
        sizes.sort();
        sizes.dedup();
        assert_eq!(distinct.len(), sizes.len());
        assert!(sizes.len() > 1 && sizes.len() < sc.flows.len(), "{} sizes", sizes.len());
        for f in &sc.flows {
            let same = sc.flows.iter().find(|g| size(g) == size(f)).unwrap();
            assert!(Arc::ptr_eq(&f.spec, &same.spec));
        }
    }

    #[test]
    fn cdf_points_interpolate_linearly() {
        // 0 B at 0, 1000 B at 0.5, 3000 B at 1: u = 0.25 is halfway up the first segment
        // (500 B), u = 0.75 halfway up the second (2000 B); u = 0 gives the first size.
        let pts = [(0.0, 0.0), (1000.0, 0.5), (3000.0, 1.0)];
        assert_eq!(cdf_sample(&pts, 0.25), 500.0);
        assert_eq!(cdf_sample(&pts, 0.75), 2000.0);
        assert_eq!(cdf_sample(&pts, 0.0), 0.0);
        assert_eq!(cdf_sample(&pts, 0.5), 1000.0);
        // Mean: 0.5 x 500 + 0.5 x 2000 = 1250.
        assert_eq!(cdf_mean(&pts), 1250.0);
        // A step (two points at one probability) and a mass at the first point: 20% at
        // exactly 100 B, then uniform to 200 B: mean 0.2 x 100 + 0.8 x 150 = 140.
        let step = [(100.0, 0.2), (200.0, 1.0)];
        assert_eq!(cdf_sample(&step, 0.1), 100.0);
        assert_eq!(cdf_sample(&step, 0.6), 150.0);
        assert!((cdf_mean(&step) - 140.0).abs() < 1e-9);
    }

    #[test]
    fn shipped_distributions_have_their_stated_means() {
        // web_search: 0.15 x 5000 + 0.05 x 15000 + 0.1 x 25000 + 0.1 x 40000 + 0.13 x 65000
        // + 0.07 x 140000 + 0.1 x 600000 + 0.1 x 1.5e6 + 0.1 x 3.5e6 + 0.07 x 7.5e6
        // + 0.03 x 2e7 = 1,711,250 B.
        let ws = parse_cdf(BUILTIN_SIZES[0].1, 1.0).unwrap();
        assert!((cdf_mean(&ws) - 1_711_250.0).abs() < 1e-3, "{}", cdf_mean(&ws));
        let dm = parse_cdf(BUILTIN_SIZES[1].1, 1.0).unwrap();
        // data_mining: ... + 0.03 x 51.58e6 + 0.02 x 550e6 = 12,658,198.6 B.
        assert!((cdf_mean(&dm) - 12_658_198.6).abs() < 1e-2, "{}", cdf_mean(&dm));
    }

    #[test]
    fn cdf_files_are_read_in_both_layouts_and_checked() {
        let two = parse_cdf("# c\n0 0\n\n10 0.5 # half\n20,1\n", 1000.0).unwrap();
        assert_eq!(two, vec![(0.0, 0.0), (10_000.0, 0.5), (20_000.0, 1.0)]);
        let three = parse_cdf("6 1 0\n13 1 0.5\n20 1 1\n", 1.0).unwrap();
        assert_eq!(three, vec![(6.0, 0.0), (13.0, 0.5), (20.0, 1.0)]);
        assert!(parse_cdf("0 0\n10 0.9\n", 1.0).unwrap_err().contains("ends at 1"));
        assert!(parse_cdf("0 0\n10 0.6\n5 1\n", 1.0).unwrap_err().contains("line 3"));
        assert!(parse_cdf("0 0\nten 1\n", 1.0).unwrap_err().contains("two numbers"));
        assert!(parse_cdf("# nothing\n", 1.0).unwrap_err().contains("no points"));
        assert!(parse_cdf("0 0\n0 1\n", 1.0).unwrap_err().contains("above 0"));
    }

    #[test]
    fn derangements_move_every_host_and_indices_stay_below() {
        let hosts: Vec<usize> = (10..18).collect();
        let mut rng = Rng::new(1, 0);
        for _ in 0..100 {
            let p = derangement(&hosts, &mut rng);
            assert!(p.iter().zip(&hosts).all(|(a, b)| a != b));
            let mut sorted = p.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, hosts);
        }
        let mut counts = [0u32; 3];
        for _ in 0..3000 {
            counts[below(&mut rng, 3)] += 1;
        }
        assert!(counts.iter().all(|&c| (900..1100).contains(&c)), "{counts:?}");
    }
}
