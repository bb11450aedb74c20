//! A validated `Scenario` written back in the scenario-file schema: names instead of
//! indices, quantities as unit strings, every default filled in and every route
//! explicit. Parsing the result gives the same `Scenario` (a test checks it for every
//! file in `scenarios/`), so `Scenario.check()` in Python returns something that can be
//! edited and run again, as a dict or as TOML.
//!
//! One description serves both outputs: `File` serialises the scenario (serde map calls,
//! keys in the order below), straight to JSON for `Scenario.check()` (`to_json`: no
//! table per flow built and freed, at 10^5 flows most of the export's time) and into a
//! TOML table (`to_file`, then `to_toml`). A flow's policy parameters are built once per
//! run of equal configurations.

use super::{Conversations, Flow, FlowSpec, Link, QdiscConfig, Routing, Sampling, Scenario};
use crate::base::time::SimDuration;
use crate::base::units::{fmt_bits, fmt_rate, fmt_size, fmt_time};
use crate::cc::{CcConfig, LossRecoveryConfig};
use crate::transport::sender::SackRecovery;
use serde::ser::{Error as _, SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use toml::{Table, Value};

/// The scenario as a scenario file (a TOML table).
pub fn to_file(sc: &Scenario) -> Table {
    Table::try_from(File(sc)).expect("a scenario serialises to a TOML table")
}

/// The scenario as a scenario file in JSON (the same document as `to_file`).
pub fn to_json(sc: &Scenario) -> String {
    serde_json::to_string(&File(sc)).expect("a scenario serialises to JSON")
}

/// The whole document.
struct File<'a>(&'a Scenario);

/// Node names of a list of node indices.
struct Names<'a>(&'a Scenario, &'a [usize]);

impl Serialize for Names<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.1.iter().map(|&n| self.0.nodes[n].name.as_str()))
    }
}

/// One value, or [a->b, b->a] when the directions differ.
enum PerDir<T> {
    One(T),
    Two([T; 2]),
}

fn per_dir<T: PartialEq, U>(v: [&T; 2], f: impl Fn(&T) -> U) -> PerDir<U> {
    if v[0] == v[1] {
        PerDir::One(f(v[0]))
    } else {
        PerDir::Two([f(v[0]), f(v[1])])
    }
}

impl<T: Serialize> Serialize for PerDir<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PerDir::One(v) => v.serialize(s),
            PerDir::Two(v) => v.serialize(s),
        }
    }
}

/// A queue discipline: its name, or a table with `kind` last.
enum Qdisc {
    Name(&'static str),
    Table(Table),
}

impl Serialize for Qdisc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Qdisc::Name(n) => s.serialize_str(n),
            Qdisc::Table(t) => t.serialize(s),
        }
    }
}

fn qdisc(q: &QdiscConfig) -> Qdisc {
    let mut t = q.params();
    if t.is_empty() {
        return Qdisc::Name(q.name());
    }
    t.insert("kind".into(), Value::String(q.name().into()));
    Qdisc::Table(t)
}

struct LinkOut<'a>(&'a Scenario, &'a Link);

impl Serialize for LinkOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (sc, l) = (self.0, self.1);
        let [d0, d1] = &*l.dirs;
        let mut t = s.serialize_map(None)?;
        t.serialize_entry("name", &l.name)?;
        t.serialize_entry("between", &Names(sc, &[l.a, l.b]))?;
        t.serialize_entry("rate", &per_dir([&d0.rate_bps, &d1.rate_bps], |r| fmt_rate(*r)))?;
        t.serialize_entry("delay", &per_dir([&d0.delay, &d1.delay], |d| fmt_time(*d)))?;
        t.serialize_entry("buffer", &per_dir([&d0.buffer, &d1.buffer], |b| b.to_string()))?;
        t.serialize_entry("qdisc", &per_dir([&d0.qdisc, &d1.qdisc], qdisc))?;
        t.end()
    }
}

/// On periods: [[start, end], ...].
struct Periods<'a>(&'a [(SimDuration, SimDuration)]);

impl Serialize for Periods<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|(a, b)| [fmt_time(*a), fmt_time(*b)]))
    }
}

/// A flow; `params` is its window policy's parameter table with the transport's
/// loss-recovery parameters in their place (`CcConfig::params`).
struct FlowOut<'a> {
    sc: &'a Scenario,
    f: &'a Flow,
    params: Option<&'a Table>,
    /// The run picks its route (`Routing::Ecmp`): no path is written.
    routed: bool,
}

fn config<T: Serialize>(cfg: &T) -> Result<Value, String> {
    Value::try_from(cfg).map_err(|e| e.to_string())
}

impl Serialize for FlowOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (sc, f) = (self.sc, self.f);
        let mut t = s.serialize_map(None)?;
        t.serialize_entry("name", &f.name)?;
        t.serialize_entry("kind", f.spec.kind())?;
        t.serialize_entry("from", &sc.nodes[f.from].name)?;
        t.serialize_entry("to", &sc.nodes[f.to].name)?;
        t.serialize_entry("start", &fmt_time(f.start))?;
        if f.start_jitter.as_ps() > 0 {
            t.serialize_entry("start_jitter", &fmt_time(f.start_jitter))?;
        }
        if !self.routed {
            t.serialize_entry("path", &Names(sc, &f.path))?;
        }
        if !self.routed && !f.ack_path.iter().eq(f.path.iter().rev()) {
            t.serialize_entry("ack_path", &Names(sc, &f.ack_path))?;
        }
        let stop = |t: &mut S::SerializeMap| match f.stop {
            Some(stop) => t.serialize_entry("stop", &fmt_time(stop)),
            None => Ok(()),
        };
        match &*f.spec {
            FlowSpec::Window { cc, loss, data_size, ack_size, max_window, receiver, sender } => {
                stop(&mut t)?;
                if let Some(n) = sender.size {
                    t.serialize_entry("size", &format!("{n}pkt"))?;
                }
                t.serialize_entry("cc", cc.name())?;
                t.serialize_entry("data_size", &fmt_size(u64::from(*data_size)))?;
                t.serialize_entry("ack_size", &fmt_size(u64::from(*ack_size)))?;
                t.serialize_entry("max_window", &format!("{max_window}pkt"))?;
                t.serialize_entry("out_of_order", if receiver.keep_out_of_order { "keep" } else { "discard" })?;
                t.serialize_entry("delayed_ack", &receiver.delayed_ack.is_some())?;
                if let Some(d) = receiver.delayed_ack {
                    t.serialize_entry("ack_delay", &fmt_time(d.delay))?;
                    if let Some(m) = d.min_delay {
                        t.serialize_entry("ack_delay_min", &fmt_time(m))?;
                    }
                }
                t.serialize_entry("sack", &sender.sack)?;
                t.serialize_entry("ecn", &sender.ecn)?;
                if receiver.ecn && receiver.ecn_echo != cc.info().ecn_echo.unwrap_or_default() {
                    t.serialize_entry("ecn_echo", receiver.ecn_echo.name())?;
                }
                t.serialize_entry("rtt_sample", &sender.rtt_sample)?;
                if receiver.handshake {
                    t.serialize_entry("handshake", &true)?;
                }
                if let Some(x) = sender.tso {
                    let mut tso = Table::new();
                    tso.insert("defer".into(), Value::String(fmt_time(x.defer)));
                    tso.insert("segment".into(), Value::String(format!("{}B", x.segment_bytes)));
                    tso.insert("divisor".into(), Value::Integer(x.divisor as i64));
                    t.serialize_entry("tso", &tso)?;
                }
                t.serialize_entry("fast_retransmit", &sender.fast_retransmit)?;
                if sender.sack {
                    t.serialize_entry("sack_timeout", &sender.sack_timeout)?;
                    t.serialize_entry("lost_retransmissions", &sender.lost_retransmissions)?;
                    if sender.sack_recovery != SackRecovery::default() {
                        t.serialize_entry("sack_recovery", &sender.sack_recovery)?;
                    }
                }
                match self.params {
                    Some(p) => t.serialize_entry("params", p)?,
                    None => t.serialize_entry("params", &cc.params(loss))?,
                }
            }
            FlowSpec::Cbr { rate_bps, packet_bits, on } => {
                t.serialize_entry("rate", &fmt_rate(*rate_bps))?;
                t.serialize_entry("packet_size", &fmt_bits(*packet_bits as u64))?;
                t.serialize_entry("on", &Periods(on))?;
            }
            FlowSpec::Poisson { mean_gap, packet_bits, on } => {
                t.serialize_entry("mean_gap", &fmt_time(*mean_gap))?;
                t.serialize_entry("packet_size", &fmt_bits(*packet_bits as u64))?;
                t.serialize_entry("on", &Periods(on))?;
            }
            FlowSpec::Rate { packet_bits, cfg } => {
                stop(&mut t)?;
                t.serialize_entry("packet_size", &fmt_bits(*packet_bits as u64))?;
                t.serialize_entry("params", &cfg.params().map_err(S::Error::custom)?)?;
            }
            FlowSpec::Voice { voice, .. } => {
                t.serialize_entry("voice", &config(voice).map_err(S::Error::custom)?)?;
            }
        }
        t.end()
    }
}

/// The flows; equal window policies next to each other share one parameter table.
struct Flows<'a>(&'a Scenario);

impl Serialize for Flows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let sc = self.0;
        // Flows the workloads generated are left out: the workloads are written instead.
        let listed = &sc.flows[..sc.flows.len() - sc.generated];
        let mut seq = s.serialize_seq(Some(listed.len()))?;
        let mut last: Option<(&CcConfig, &LossRecoveryConfig, Table)> = None;
        let mut ecmp = sc.ecmp_flows.iter().peekable();
        for (i, f) in listed.iter().enumerate() {
            let routed = ecmp.next_if(|&&e| e == i).is_some();
            let params = match &*f.spec {
                FlowSpec::Window { cc, loss, .. } => {
                    if !matches!(&last, Some((c, l, _)) if *c == cc && *l == loss) {
                        last = Some((cc, loss, cc.params(loss)));
                    }
                    last.as_ref().map(|(_, _, p)| p)
                }
                _ => None,
            };
            seq.serialize_element(&FlowOut { sc, f, params, routed })?;
        }
        seq.end()
    }
}

/// The channel name "a->b" of channel `c`.
fn channel(sc: &Scenario, c: usize) -> String {
    let l = &sc.links[c / 2];
    let (a, b) = if c % 2 == 0 { (l.a, l.b) } else { (l.b, l.a) };
    format!("{}->{}", sc.nodes[a].name, sc.nodes[b].name)
}

struct Header<'a>(&'a Scenario);

impl Serialize for Header<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let sc = self.0;
        let mut t = s.serialize_map(None)?;
        t.serialize_entry("name", &sc.name)?;
        if !sc.description.is_empty() {
            t.serialize_entry("description", &sc.description)?;
        }
        t.serialize_entry("duration", &fmt_time(sc.duration))?;
        // TOML integers are i64 (a seed above 2^63 is written as its two's complement).
        t.serialize_entry("seed", &(sc.seed as i64))?;
        if let Some(m) = sc.max_events {
            t.serialize_entry("max_events", &(m as i64))?;
        }
        if let Some(w) = sc.max_wall {
            t.serialize_entry("max_wall", &fmt_time(w))?;
        }
        if sc.conversations == Conversations::HostPair {
            t.serialize_entry("conversations", "host_pair")?;
        }
        match sc.routing {
            Routing::Shortest => {}
            Routing::Ecmp => t.serialize_entry("routing", "ecmp")?,
            Routing::EcmpPerHop => t.serialize_entry("routing", "ecmp_per_hop")?,
        }
        t.end()
    }
}

struct NodesOut<'a>(&'a Scenario);

impl Serialize for NodesOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let sc = self.0;
        let mut t = s.serialize_map(None)?;
        let of = |router: bool| sc.nodes.iter().filter(move |n| n.router == router).map(|n| n.name.as_str());
        t.serialize_entry("hosts", &Seq(of(false)))?;
        t.serialize_entry("routers", &Seq(of(true)))?;
        let pd: Vec<(&str, String)> = sc
            .nodes
            .iter()
            .filter(|n| n.processing_delay.as_ps() > 0)
            .map(|n| (n.name.as_str(), fmt_time(n.processing_delay)))
            .collect();
        if !pd.is_empty() {
            t.serialize_entry("processing_delay", &Map(&pd))?;
        }
        let pj: Vec<(&str, String)> = sc
            .nodes
            .iter()
            .filter(|n| n.processing_jitter.as_ps() > 0)
            .map(|n| (n.name.as_str(), fmt_time(n.processing_jitter)))
            .collect();
        if !pj.is_empty() {
            t.serialize_entry("processing_jitter", &Map(&pj))?;
        }
        t.end()
    }
}

/// A sequence from an iterator (serialised once).
struct Seq<I>(I);

impl<I: Iterator<Item = T> + Clone, T: Serialize> Serialize for Seq<I> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.clone())
    }
}

/// A table from (key, value) pairs in order (a later equal key replaces the value in
/// place, as a table insert does).
struct Map<'a>(&'a [(&'a str, String)]);

impl Serialize for Map<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = Table::new();
        for (k, v) in self.0 {
            t.insert((*k).to_string(), Value::String(v.clone()));
        }
        t.serialize(s)
    }
}

struct Change<'a>(&'a Scenario, &'a super::Change);

impl Serialize for Change<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (sc, c) = (self.0, self.1);
        let mut t = s.serialize_map(None)?;
        t.serialize_entry("at", &fmt_time(c.at))?;
        match c.channels.as_slice() {
            [a, b] if a / 2 == b / 2 && a != b => t.serialize_entry("link", &sc.links[a / 2].name)?,
            [a] => t.serialize_entry("channel", &channel(sc, *a))?,
            _ => return Err(S::Error::custom("a change applies to a link or one channel")),
        };
        if let Some(r) = c.rate_bps {
            t.serialize_entry("rate", &fmt_rate(r))?;
        }
        if let Some(d) = c.delay {
            t.serialize_entry("delay", &fmt_time(d))?;
        }
        t.end()
    }
}

struct Measure<'a>(&'a Scenario);

impl Measure<'_> {
    fn is_empty(&self) -> bool {
        let sc = self.0;
        sc.interval.is_none()
            && sc.series.is_empty()
            && sc.sampling.is_none()
            && sc.delays.is_empty()
            && sc.windows.is_empty()
            && !sc.delays_all
            && !sc.windows_all
            && sc.measure_start == SimDuration::ZERO
    }
}

impl Serialize for Measure<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let sc = self.0;
        let mut t = s.serialize_map(None)?;
        if let Some(i) = sc.interval {
            t.serialize_entry("interval", &fmt_time(i))?;
        }
        let flows = |v: &[usize]| Seq(v.iter().map(|&i| sc.flows[i].name.as_str()).collect::<Vec<_>>().into_iter());
        if !sc.series.is_empty() {
            t.serialize_entry("series", &sc.series)?;
        }
        match sc.sampling {
            Some(Sampling::Every(w)) => t.serialize_entry("sample", &fmt_time(w))?,
            Some(Sampling::MaxPoints(n)) => t.serialize_entry("max_points", &n)?,
            None => {}
        }
        // `true` (all flows, generated ones too) stays `true`.
        if sc.delays_all {
            t.serialize_entry("delays", &true)?;
        } else if !sc.delays.is_empty() {
            t.serialize_entry("delays", &flows(&sc.delays))?;
        }
        if sc.windows_all {
            t.serialize_entry("windows", &true)?;
        } else if !sc.windows.is_empty() {
            t.serialize_entry("windows", &flows(&sc.windows))?;
        }
        if sc.measure_start > SimDuration::ZERO {
            t.serialize_entry("start", &fmt_time(sc.measure_start))?;
        }
        t.end()
    }
}

impl Serialize for File<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let sc = self.0;
        let mut doc = s.serialize_map(None)?;
        doc.serialize_entry("scenario", &Header(sc))?;
        doc.serialize_entry("nodes", &NodesOut(sc))?;
        if !sc.links.is_empty() {
            doc.serialize_entry("links", &Seq(sc.links.iter().map(|l| LinkOut(sc, l))))?;
        }
        if sc.flows.len() > sc.generated {
            doc.serialize_entry("flows", &Flows(sc))?;
        }
        if !sc.workloads.is_empty() {
            // Each as written, its flow keys resolved (defaults included) as for a flow.
            let mut out = Vec::with_capacity(sc.workloads.len());
            for w in &sc.workloads {
                let f = FlowOut { sc, f: &w.template, params: None, routed: true };
                let mut flow = Table::try_from(f).map_err(S::Error::custom)?;
                for k in crate::scenario::workload::SET_PER_FLOW {
                    flow.remove(k);
                }
                let mut t = w.raw.clone();
                t.insert("flow".into(), Value::Table(flow));
                out.push(t);
            }
            doc.serialize_entry("workloads", &out)?;
        }
        if !sc.phases.is_empty() {
            let phases = sc.phases.iter().map(|p| {
                let mut t = Table::new();
                t.insert("name".into(), Value::String(p.name.clone()));
                t.insert("start".into(), Value::String(fmt_time(p.start)));
                t.insert("end".into(), Value::String(fmt_time(p.end)));
                t
            });
            doc.serialize_entry("phases", &Seq(phases))?;
        }
        if !sc.changes.is_empty() {
            doc.serialize_entry("changes", &Seq(sc.changes.iter().map(|c| Change(sc, c))))?;
        }
        if !sc.elements.is_empty() {
            let mut elements = Vec::with_capacity(sc.elements.len());
            for e in &sc.elements {
                let mut t = Table::try_from(&e.config).map_err(S::Error::custom)?;
                t.insert("at".into(), Value::String(channel(sc, e.channel)));
                elements.push(t);
            }
            doc.serialize_entry("elements", &elements)?;
        }
        if !Measure(sc).is_empty() {
            doc.serialize_entry("measure", &Measure(sc))?;
        }
        doc.end()
    }
}
