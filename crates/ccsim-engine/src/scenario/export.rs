//! A validated `Scenario` written back in the scenario-file schema: names instead of
//! indices, quantities as unit strings, every default filled in and every route
//! explicit. Parsing the result gives the same `Scenario` (a test checks it for every
//! file in `scenarios/`), so `Scenario.check()` in Python returns something that can be
//! edited and run again, as a dict or as TOML.

use super::{Flow, FlowSpec, Link, QdiscConfig, Scenario};
use crate::units::{fmt_bits, fmt_rate, fmt_time};
use toml::{Table, Value};

fn s(v: impl Into<String>) -> Value {
    Value::String(v.into())
}

fn int(v: u64) -> Value {
    Value::Integer(v as i64)
}

fn names(sc: &Scenario, path: &[usize]) -> Value {
    Value::Array(path.iter().map(|&n| s(sc.nodes[n].name.as_str())).collect())
}

/// One value, or [a->b, b->a] when the directions differ.
fn per_dir<T: PartialEq>(v: [&T; 2], f: impl Fn(&T) -> Value) -> Value {
    if v[0] == v[1] {
        f(v[0])
    } else {
        Value::Array(vec![f(v[0]), f(v[1])])
    }
}

fn qdisc(q: &QdiscConfig) -> Value {
    match q {
        QdiscConfig::Fcfs => s("fcfs"),
        QdiscConfig::Fq(c) => {
            let mut t = Table::try_from(c).expect("FQ config serialises");
            t.insert("kind".into(), s("fq"));
            Value::Table(t)
        }
        QdiscConfig::Red(c) => {
            let mut t = Table::try_from(c).expect("RED config serialises");
            t.insert("kind".into(), s("red"));
            Value::Table(t)
        }
    }
}

fn link(sc: &Scenario, l: &Link) -> Table {
    let [d0, d1] = &l.dirs;
    let mut t = Table::new();
    t.insert("name".into(), s(l.name.as_str()));
    t.insert("between".into(), names(sc, &[l.a, l.b]));
    t.insert("rate".into(), per_dir([&d0.rate_bps, &d1.rate_bps], |r| s(fmt_rate(*r))));
    t.insert("delay".into(), per_dir([&d0.delay, &d1.delay], |d| s(fmt_time(*d))));
    t.insert("buffer".into(), per_dir([&d0.buffer, &d1.buffer], |b| s(b.to_string())));
    t.insert("qdisc".into(), per_dir([&d0.qdisc, &d1.qdisc], qdisc));
    t
}

fn periods(on: &[(crate::time::SimDuration, crate::time::SimDuration)]) -> Value {
    Value::Array(on.iter().map(|(a, b)| Value::Array(vec![s(fmt_time(*a)), s(fmt_time(*b))])).collect())
}

fn flow(sc: &Scenario, f: &Flow) -> Table {
    let mut t = Table::new();
    t.insert("name".into(), s(f.name.as_str()));
    t.insert("kind".into(), s(f.spec.kind()));
    t.insert("from".into(), s(sc.nodes[f.from].name.as_str()));
    t.insert("to".into(), s(sc.nodes[f.to].name.as_str()));
    t.insert("start".into(), s(fmt_time(f.start)));
    if f.start_jitter.as_ps() > 0 {
        t.insert("start_jitter".into(), s(fmt_time(f.start_jitter)));
    }
    t.insert("path".into(), names(sc, &f.path));
    let reverse: Vec<usize> = f.path.iter().rev().copied().collect();
    if f.ack_path != reverse {
        t.insert("ack_path".into(), names(sc, &f.ack_path));
    }
    match &f.spec {
        FlowSpec::Window { cc, data_size, ack_size, max_window, receiver, sender } => {
            if let Some(stop) = f.stop {
                t.insert("stop".into(), s(fmt_time(stop)));
            }
            t.insert("cc".into(), s(cc.name()));
            t.insert("data_size".into(), s(format!("{data_size}B")));
            t.insert("ack_size".into(), s(format!("{ack_size}B")));
            t.insert("max_window".into(), s(format!("{max_window}pkt")));
            t.insert("out_of_order".into(), s(if receiver.keep_out_of_order { "keep" } else { "discard" }));
            t.insert("delayed_ack".into(), Value::Boolean(receiver.delayed_ack.is_some()));
            if let Some(d) = receiver.delayed_ack {
                t.insert("ack_delay".into(), s(fmt_time(d.delay)));
                if let Some(m) = d.min_delay {
                    t.insert("ack_delay_min".into(), s(fmt_time(m)));
                }
            }
            t.insert("sack".into(), Value::Boolean(sender.sack));
            t.insert("ecn".into(), Value::Boolean(sender.ecn));
            t.insert("rtt_sample".into(), Value::try_from(sender.rtt_sample).expect("enum serialises"));
            if receiver.handshake {
                t.insert("handshake".into(), Value::Boolean(true));
            }
            if let Some(x) = sender.tso {
                let mut tso = Table::new();
                tso.insert("defer".into(), s(fmt_time(x.defer)));
                tso.insert("segment".into(), s(format!("{}B", x.segment_bytes)));
                tso.insert("divisor".into(), int(x.divisor as u64));
                t.insert("tso".into(), Value::Table(tso));
            }
            t.insert("fast_retransmit".into(), Value::try_from(sender.fast_retransmit).expect("enum serialises"));
            t.insert("params".into(), Value::Table(cc.params()));
        }
        FlowSpec::Cbr { rate_bps, packet_bits, on } => {
            t.insert("rate".into(), s(fmt_rate(*rate_bps)));
            t.insert("packet_size".into(), s(fmt_bits(*packet_bits as u64)));
            t.insert("on".into(), periods(on));
        }
        FlowSpec::Poisson { mean_gap, packet_bits, on } => {
            t.insert("mean_gap".into(), s(fmt_time(*mean_gap)));
            t.insert("packet_size".into(), s(fmt_bits(*packet_bits as u64)));
            t.insert("on".into(), periods(on));
        }
        FlowSpec::Cadpc { packet_bits, cfg } => {
            if let Some(stop) = f.stop {
                t.insert("stop".into(), s(fmt_time(stop)));
            }
            t.insert("packet_size".into(), s(fmt_bits(*packet_bits as u64)));
            t.insert("params".into(), Value::try_from(cfg).expect("config serialises"));
        }
        FlowSpec::Rap { packet_bits, cfg } => {
            if let Some(stop) = f.stop {
                t.insert("stop".into(), s(fmt_time(stop)));
            }
            t.insert("packet_size".into(), s(fmt_bits(*packet_bits as u64)));
            t.insert("params".into(), Value::try_from(cfg).expect("config serialises"));
        }
        FlowSpec::Tear { packet_bits, cfg } => {
            if let Some(stop) = f.stop {
                t.insert("stop".into(), s(fmt_time(stop)));
            }
            t.insert("packet_size".into(), s(fmt_bits(*packet_bits as u64)));
            t.insert("params".into(), Value::try_from(cfg).expect("config serialises"));
        }
        FlowSpec::Tfrc { packet_bits, cfg } => {
            if let Some(stop) = f.stop {
                t.insert("stop".into(), s(fmt_time(stop)));
            }
            t.insert("packet_size".into(), s(fmt_bits(*packet_bits as u64)));
            t.insert("params".into(), Value::try_from(cfg).expect("config serialises"));
        }
        FlowSpec::Voice { voice, .. } => {
            t.insert("voice".into(), Value::try_from(voice).expect("voice config serialises"));
        }
    }
    t
}

/// The channel name "a->b" of channel `c`.
fn channel(sc: &Scenario, c: usize) -> String {
    let l = &sc.links[c / 2];
    let (a, b) = if c % 2 == 0 { (l.a, l.b) } else { (l.b, l.a) };
    format!("{}->{}", sc.nodes[a].name, sc.nodes[b].name)
}

/// The scenario as a scenario file (a TOML table).
pub fn to_file(sc: &Scenario) -> Table {
    let mut doc = Table::new();
    let mut head = Table::new();
    head.insert("name".into(), s(sc.name.as_str()));
    if !sc.description.is_empty() {
        head.insert("description".into(), s(sc.description.as_str()));
    }
    head.insert("duration".into(), s(fmt_time(sc.duration)));
    head.insert("seed".into(), int(sc.seed));
    if let Some(m) = sc.max_events {
        head.insert("max_events".into(), int(m));
    }
    if let Some(w) = sc.max_wall {
        head.insert("max_wall".into(), s(fmt_time(w)));
    }
    doc.insert("scenario".into(), Value::Table(head));

    let mut nodes = Table::new();
    let of = |router: bool| Value::Array(sc.nodes.iter().filter(|n| n.router == router).map(|n| s(n.name.as_str())).collect());
    nodes.insert("hosts".into(), of(false));
    nodes.insert("routers".into(), of(true));
    let pd: Table = sc
        .nodes
        .iter()
        .filter(|n| n.processing_delay.as_ps() > 0)
        .map(|n| (n.name.clone(), s(fmt_time(n.processing_delay))))
        .collect();
    if !pd.is_empty() {
        nodes.insert("processing_delay".into(), Value::Table(pd));
    }
    let pj: Table = sc
        .nodes
        .iter()
        .filter(|n| n.processing_jitter.as_ps() > 0)
        .map(|n| (n.name.clone(), s(fmt_time(n.processing_jitter))))
        .collect();
    if !pj.is_empty() {
        nodes.insert("processing_jitter".into(), Value::Table(pj));
    }
    doc.insert("nodes".into(), Value::Table(nodes));

    let mut tables = |key: &str, v: Vec<Table>| {
        if !v.is_empty() {
            doc.insert(key.into(), Value::Array(v.into_iter().map(Value::Table).collect()));
        }
    };
    tables("links", sc.links.iter().map(|l| link(sc, l)).collect());
    tables("flows", sc.flows.iter().map(|f| flow(sc, f)).collect());
    let phases = sc
        .phases
        .iter()
        .map(|p| {
            let mut t = Table::new();
            t.insert("name".into(), s(p.name.as_str()));
            t.insert("start".into(), s(fmt_time(p.start)));
            t.insert("end".into(), s(fmt_time(p.end)));
            t
        })
        .collect();
    tables("phases", phases);


    let changes = sc
        .changes
        .iter()
        .map(|c| {
            let mut t = Table::new();
            t.insert("at".into(), s(fmt_time(c.at)));
            match c.channels.as_slice() {
                [a, b] if a / 2 == b / 2 && a != b => t.insert("link".into(), s(sc.links[a / 2].name.as_str())),
                [a] => t.insert("channel".into(), s(channel(sc, *a))),
                _ => unreachable!("a change applies to a link or one channel"),
            };
            if let Some(r) = c.rate_bps {
                t.insert("rate".into(), s(fmt_rate(r)));
            }
            if let Some(d) = c.delay {
                t.insert("delay".into(), s(fmt_time(d)));
            }
            t
        })
        .collect();
    tables("changes", changes);

    let elements = sc
        .elements
        .iter()
        .map(|e| {
            let mut t = Table::try_from(&e.config).expect("element configs serialise");
            t.insert("at".into(), s(channel(sc, e.channel)));
            t
        })
        .collect();
    tables("elements", elements);

    let mut measure = Table::new();
    if let Some(i) = sc.interval {
        measure.insert("interval".into(), s(fmt_time(i)));
    }
    if !sc.series.is_empty() {
        measure.insert("series".into(), Value::Array(sc.series.iter().map(|x| s(x.as_str())).collect()));
    }
    if !sc.delays.is_empty() {
        measure.insert("delays".into(), Value::Array(sc.delays.iter().map(|&i| s(sc.flows[i].name.as_str())).collect()));
    }
    if !sc.windows.is_empty() {
        measure.insert("windows".into(), Value::Array(sc.windows.iter().map(|&i| s(sc.flows[i].name.as_str())).collect()));
    }
    if sc.measure_start > crate::time::SimDuration::ZERO {
        measure.insert("start".into(), s(fmt_time(sc.measure_start)));
    }
    if !measure.is_empty() {
        doc.insert("measure".into(), Value::Table(measure));
    }
    doc
}
