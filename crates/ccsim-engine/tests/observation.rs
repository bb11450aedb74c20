//! Observation invariance and the order of simultaneous events (docs/architecture.md,
//! "Simultaneous events").
//!
//! Generated scenarios on a lattice of round numbers (rates of whole Mbit/s, delays of
//! whole milliseconds, packet sizes of round bytes, phases and changes on round times),
//! so that simultaneous events abound: arrivals at a router from several channels at one
//! picosecond, a departure at the instant of an arrival, an ack at the instant of a
//! timer. Every queue discipline, element and flow kind appears. Each case runs three
//! ways and must give the same results, field for field (counters of every flow, channel,
//! node, phase and interval; the event count may differ):
//!
//! - the default run (timed FIFOs and disciplines that admit on the channel's queue, RED and
//!   random drop; cut-through, merged arrivals, acks taken at send time
//!   where the scenario allows them);
//! - the plain path (`set_timed_fifo(false)`: every departure a `TxDone` event, every
//!   arrival an event), with ties, not only with processing jitter;
//! - the default run with observers added: time series of every metric of every flow
//!   and channel (sampled or not), delay statistics, window histograms, `counter`,
//!   `flow_stats` and `capture` elements (a random subset of them, so each is tried alone
//!   too).
//!
//! `cargo test` runs `CASES` cases (fewer in a debug build); the ignored
//! `observation_invariance_many` runs 5000 (`cargo test --release --test observation --
//! --ignored`).

use ccsim_engine::{parse, Simulation};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

/// Cases per `cargo test` run: 500 optimised (a few seconds), 60 unoptimised
/// (`debug_profile`, build.rs).
const CASES: u32 = if cfg!(debug_profile) { 60 } else { 500 };

#[derive(Clone, Debug)]
struct Flow {
    kind: &'static str,
    cc: &'static str,
    from: usize,
    to: usize,
    /// Start in tens of milliseconds.
    start: u32,
    extra: &'static str,
}

#[derive(Clone, Debug)]
struct Case {
    senders: usize,
    sinks: usize,
    /// Mbit/s of each sender's access link, the bottleneck and each sink's link.
    access: Vec<u32>,
    bottleneck: u32,
    egress: Vec<u32>,
    /// Milliseconds.
    access_delay: Vec<u32>,
    bottleneck_delay: u32,
    egress_delay: Vec<u32>,
    qdisc: &'static str,
    buffer: &'static str,
    data_size: u32,
    flows: Vec<Flow>,
    /// Tenths of a second.
    duration: u32,
    interval: Option<&'static str>,
    phase: Option<(u32, u32)>,
    change: Option<(u32, &'static str)>,
    loss: bool,
    delayed_ack: bool,
    /// Observers to add (bits: series, delays, windows, counter, flow_stats, capture,
    /// sampled series).
    observers: u8,
}

const QDISCS: &[&str] = &[
    "\"fcfs\"",
    "\"fcfs\"",
    "\"fq\"",
    "{ kind = \"fq\", drop_rule = \"rollback\" }",
    "\"red\"",
    "{ kind = \"red\", min_th = \"2pkt\", max_th = \"6pkt\", ecn = true }",
    "{ kind = \"red\", w_q = 1.0, min_th = \"3pkt\", max_th = \"3pkt\", ecn = true, ecn_above_max_th = true }",
    "{ kind = \"red\", w_q = 0.2, gentle = true, byte_mode = true, min_th = \"2pkt\", max_th = \"4pkt\" }",
    "{ kind = \"random_drop\", threshold = \"2pkt\", p = 0.3 }",
    "\"codel\"",
    "\"fq_codel\"",
    "{ kind = \"pie\", ecn = true }",
];
/// The names of the own series (`QdiscPolicy::SERIES`) of the discipline `q` (an entry
/// of `QDISCS`: `"name"` or `{ kind = "name", ... }`).
fn qdisc_series(q: &str) -> Vec<&'static str> {
    let name = q.split('"').nth(1).expect("a quoted name");
    let info =
        ccsim_engine::qdisc::QdiscConfig::ALL.iter().find(|i| i.answers_to(name)).expect("a registered discipline");
    info.series.iter().map(|s| s.0).collect()
}
const BUFFERS: &[&str] = &["\"4pkt\"", "\"10pkt\"", "\"25pkt\"", "\"6000B\""];
/// Every policy of the congestion-control registry.
fn ccs() -> &'static [&'static str] {
    static CCS: std::sync::LazyLock<Vec<&'static str>> =
        std::sync::LazyLock::new(|| ccsim_engine::cc::CcConfig::ALL.iter().map(|i| i.name).collect());
    &CCS
}
const KINDS: &[&str] = &["window", "window", "window", "cbr", "poisson", "cadpc", "rap", "tfrc", "tear", "voice"];
const EXTRAS: &[&str] = &["", "", "sack = true", "ecn = true", "max_window = \"8pkt\""];
const CHANGES: &[&str] = &["delay = \"5ms\"", "rate = \"2Mbps\"", "delay = \"1ms\""];

fn case() -> impl Strategy<Value = Case> {
    let rate = || prop::sample::select(&[1u32, 2, 4, 5, 10][..]);
    let delay = || prop::sample::select(&[0u32, 1, 2, 5, 10][..]);
    (1usize..=3, 1usize..=2)
        .prop_flat_map(move |(senders, sinks)| {
            let flow = (
                prop::sample::select(KINDS),
                prop::sample::select(ccs()),
                0..senders,
                0..sinks,
                0u32..20,
                prop::sample::select(EXTRAS),
            )
                .prop_map(|(kind, cc, from, to, start, extra)| Flow { kind, cc, from, to, start, extra });
            (
                (
                    Just(senders),
                    Just(sinks),
                    prop::collection::vec(rate(), senders),
                    rate(),
                    prop::collection::vec(rate(), sinks),
                    prop::collection::vec(delay(), senders),
                    delay(),
                    prop::collection::vec(delay(), sinks),
                ),
                (
                    prop::sample::select(QDISCS),
                    prop::sample::select(BUFFERS),
                    prop::sample::select(&[200u32, 500, 1000][..]),
                    prop::collection::vec(flow, 1..=4),
                    prop::sample::select(&[4u32, 6, 10][..]),
                    prop::option::of(prop::sample::select(&["\"0.1s\"", "\"0.25s\""][..])),
                    prop::option::of((1u32..4, 1u32..4)),
                    prop::option::of((1u32..6, prop::sample::select(CHANGES))),
                    prop::bool::weighted(0.2),
                    prop::bool::weighted(0.3),
                    1u8..128,
                ),
            )
        })
        .prop_map(|(t, o)| Case {
            senders: t.0,
            sinks: t.1,
            access: t.2,
            bottleneck: t.3,
            egress: t.4,
            access_delay: t.5,
            bottleneck_delay: t.6,
            egress_delay: t.7,
            qdisc: o.0,
            buffer: o.1,
            data_size: o.2,
            flows: o.3,
            duration: o.4,
            interval: o.5,
            phase: o.6,
            change: o.7,
            loss: o.8,
            delayed_ack: o.9,
            observers: o.10,
        })
}

const SERIES: u8 = 1;
const DELAYS: u8 = 2;
const WINDOWS: u8 = 4;
const COUNTER: u8 = 8;
const FLOW_STATS: u8 = 16;
const CAPTURE: u8 = 32;
const SAMPLED: u8 = 64;

/// The scenario text of `c`, with its observers if `observed`.
fn text(c: &Case, observed: bool) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let senders: Vec<String> = (0..c.senders).map(|i| format!("\"h{i}\"")).collect();
    let sinks: Vec<String> = (0..c.sinks).map(|i| format!("\"d{i}\"")).collect();
    let _ = writeln!(s, "[scenario]\nname = \"obs\"\nduration = \"{}.{}s\"", c.duration / 10, c.duration % 10);
    let _ = writeln!(
        s,
        "[defaults]\nqdisc = {}\nbuffer = {}\ndata_size = \"{}B\"\ndelayed_ack = {}",
        c.qdisc, c.buffer, c.data_size, c.delayed_ack
    );
    let _ = writeln!(s, "[nodes]\nhosts = [{}, {}]\nrouters = [\"r1\", \"r2\"]", senders.join(", "), sinks.join(", "));
    for i in 0..c.senders {
        let _ = writeln!(
            s,
            "[[links]]\nbetween = [\"h{i}\", \"r1\"]\nrate = \"{}Mbps\"\ndelay = \"{}ms\"",
            c.access[i], c.access_delay[i]
        );
    }
    let _ = writeln!(
        s,
        "[[links]]\nbetween = [\"r1\", \"r2\"]\nname = \"bottleneck\"\nrate = \"{}Mbps\"\ndelay = \"{}ms\"",
        c.bottleneck, c.bottleneck_delay
    );
    for i in 0..c.sinks {
        let _ = writeln!(
            s,
            "[[links]]\nbetween = [\"r2\", \"d{i}\"]\nrate = \"{}Mbps\"\ndelay = \"{}ms\"",
            c.egress[i], c.egress_delay[i]
        );
    }
    let mut window_flows = Vec::new();
    let mut cadpc = false;
    for (k, f) in c.flows.iter().enumerate() {
        let name = format!("f{k}");
        let start = format!("start = \"{}ms\"", f.start * 10);
        let (from, to) = (format!("h{}", f.from), format!("d{}", f.to));
        match f.kind {
            "window" => {
                window_flows.push(name.clone());
                // (SACK recovery is for the policies that declare it.)
                let reno_family = ccsim_engine::cc::CcConfig::ALL.iter().any(|i| i.name == f.cc && i.sack);
                let extra = if f.extra.starts_with("sack") && !reno_family { "" } else { f.extra };
                // (Generic's fixed window is the maximum window: keep it small.)
                let extra = if f.cc == "generic" && !extra.starts_with("max_window") {
                    "max_window = \"12pkt\""
                } else {
                    extra
                };
                let _ = writeln!(
                    s,
                    "[[flows]]\nname = \"{name}\"\nfrom = \"{from}\"\nto = \"{to}\"\ncc = \"{}\"\n{start}\n{extra}",
                    f.cc
                );
            }
            "cbr" => {
                let _ = writeln!(s, "[[flows]]\nname = \"{name}\"\nkind = \"cbr\"\nfrom = \"{from}\"\nto = \"{to}\"\nrate = \"{}00kbps\"\n{start}", 1 + f.from + f.to * 3);
            }
            "poisson" => {
                let _ = writeln!(s, "[[flows]]\nname = \"{name}\"\nkind = \"poisson\"\nfrom = \"{from}\"\nto = \"{to}\"\nmean_gap = \"{}ms\"\n{start}", 2 + f.from);
            }
            "voice" => {
                let _ = writeln!(
                    s,
                    "[[flows]]\nname = \"{name}\"\nkind = \"voice\"\nfrom = \"{from}\"\nto = \"{to}\"\n{start}\nvoice = {{ partner = \"{name}b\", starts_active = true, endless = {} }}",
                    f.cc == "reno"
                );
                let _ = writeln!(s, "[[flows]]\nname = \"{name}b\"\nkind = \"voice\"\nfrom = \"{to}\"\nto = \"{from}\"\n{start}\nvoice = {{ partner = \"{name}\" }}");
            }
            kind => {
                cadpc |= kind == "cadpc";
                let _ = writeln!(
                    s,
                    "[[flows]]\nname = \"{name}\"\nkind = \"{kind}\"\nfrom = \"{from}\"\nto = \"{to}\"\n{start}"
                );
            }
        }
    }
    let mut measure = String::new();
    if let Some(iv) = c.interval {
        let _ = writeln!(measure, "interval = {iv}");
    }
    if observed && c.observers & SERIES != 0 {
        let mut series = Vec::new();
        for f in &window_flows {
            for m in ["cwnd", "outstanding", "rtt", "ssthresh", "rate"] {
                series.push(format!("\"{f}.{m}\""));
            }
        }
        let mut channels = vec!["r1->r2".to_string(), "r2->r1".to_string()];
        for i in 0..c.senders {
            channels.push(format!("h{i}->r1"));
            channels.push(format!("r1->h{i}"));
        }
        for i in 0..c.sinks {
            channels.push(format!("r2->d{i}"));
            channels.push(format!("d{i}->r2"));
        }
        // Every channel has the scenario's default discipline: its own series too.
        let own = qdisc_series(c.qdisc);
        for ch in &channels {
            series.push(format!("\"{ch}.queue\""));
            series.push(format!("\"{ch}.sojourn\""));
            for m in &own {
                series.push(format!("\"{ch}.{m}\""));
            }
        }
        let _ = writeln!(measure, "series = [{}]", series.join(", "));
    }
    if observed && c.observers & SAMPLED != 0 {
        // Buckets of a round width (their edges fall on the lattice, among simultaneous
        // events), or of the duration over 7 rounded up to a picosecond.
        let _ = writeln!(measure, "{}", if c.flows.len() % 2 == 0 { "sample = \"10ms\"" } else { "max_points = 7" });
    }
    if observed && c.observers & DELAYS != 0 {
        let _ = writeln!(measure, "delays = true");
    }
    if observed && c.observers & WINDOWS != 0 && !window_flows.is_empty() {
        let _ = writeln!(measure, "windows = true");
    }
    if !measure.is_empty() {
        let _ = write!(s, "[measure]\n{measure}");
    }
    if let Some((a, b)) = c.phase {
        let end = (a + b + 1).min(c.duration);
        let _ = writeln!(s, "[[phases]]\nname = \"p\"\nstart = \"{a}00ms\"\nend = \"{end}00ms\"");
    }
    if let Some((at, what)) = c.change.filter(|&(at, _)| at < c.duration) {
        let _ = writeln!(s, "[[changes]]\nat = \"{at}00ms\"\nlink = \"bottleneck\"\n{what}");
    }
    // The scenario's own elements (they turn the fast paths off everywhere).
    if c.loss {
        let _ = writeln!(s, "[[elements]]\nkind = \"random_loss\"\nat = \"r1->r2\"\np = 0.02");
    }
    if cadpc {
        let outs: Vec<String> =
            std::iter::once("\"r1->r2\"".to_string()).chain((0..c.sinks).map(|i| format!("\"r2->d{i}\""))).collect();
        let _ = writeln!(s, "[[elements]]\nkind = \"ptp\"\nat = [{}]", outs.join(", "));
    }
    if c.flows.iter().any(|f| f.kind == "voice") && c.flows.len() % 2 == 0 {
        let _ = writeln!(s, "[[elements]]\nkind = \"smart_link\"\nat = \"bottleneck\"\nalgorithm = \"hayden\"\na = 0.8\nupdate = \"20ms\"");
    }
    // Observers come after the scenario's own elements on a channel.
    if observed && c.observers & COUNTER != 0 {
        let _ = writeln!(s, "[[elements]]\nkind = \"counter\"\nat = \"bottleneck\"");
    }
    if observed && c.observers & FLOW_STATS != 0 {
        let _ = writeln!(s, "[[elements]]\nkind = \"flow_stats\"\nat = \"r2->d0\"");
    }
    if observed && c.observers & CAPTURE != 0 {
        let _ = writeln!(s, "[[elements]]\nkind = \"capture\"\nat = [\"h0->r1\", \"r1->r2\"]");
    }
    s
}

/// Runs `text` (plain path if `plain`); returns the results JSON without the fields
/// that may differ (event count, wall time, series) and the event count.
fn run(text: &str, plain: bool) -> Value {
    let sc = parse(text, "obs.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut sim = Simulation::new(sc, Some(7));
    if plain {
        sim.set_timed_fifo(false);
    }
    sim.run();
    let r = sim.results(0.0);
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
    }
    let mut v: Value = serde_json::from_str(&r.to_json()).unwrap();
    let o = v.as_object_mut().unwrap();
    for k in ["events", "wall_time_s", "series"] {
        o.remove(k);
    }
    v
}

/// Fields that only observers fill in (delay statistics, window histograms).
fn observers_own(key: &str) -> bool {
    key.starts_with("owd_") || key.starts_with("qdelay_") || key == "window_time_s"
}

/// `observed` restricted to what `reference` has: the keys of its objects (less the
/// observers' own fields), the first elements of a channel's `elements` (observers come
/// after the scenario's own).
fn project(observed: &Value, reference: &Value) -> Value {
    match (observed, reference) {
        (Value::Object(o), Value::Object(r)) => Value::Object(
            r.keys()
                .filter(|k| !observers_own(k))
                .filter_map(|k| o.get(k).map(|v| (k.clone(), project(v, &r[k]))))
                .collect(),
        ),
        (Value::Array(o), Value::Array(r)) => Value::Array(o.iter().zip(r).map(|(a, b)| project(a, b)).collect()),
        _ => observed.clone(),
    }
}

/// The first path (as `a.b[3].c`) where `a` and `b` differ.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (p, q) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                if let Some(d) = first_difference(p, q, &format!("{at}.{k}")) {
                    return Some(d);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]")))
        }
        _ if a == b => None,
        _ => Some(format!("{at}: {a} against {b}")),
    }
}

fn check(c: &Case) -> Result<(), TestCaseError> {
    let plain_text = text(c, false);
    let default = run(&plain_text, false);
    let plain = run(&plain_text, true);
    if let Some(d) = first_difference(&default, &plain, "results") {
        return Err(TestCaseError::fail(format!("default and plain path differ at {d}\n{plain_text}")));
    }
    let observed_text = text(c, true);
    let observed = run(&observed_text, false);
    if let Some(d) = first_difference(&project(&observed, &default), &project(&default, &default), "results") {
        return Err(TestCaseError::fail(format!("observed and unobserved runs differ at {d}\n{observed_text}")));
    }
    Ok(())
}

fn many(cases: u32, deterministic: bool) {
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut runner = if deterministic {
        TestRunner::new_with_rng(
            config.clone(),
            proptest::test_runner::TestRng::deterministic_rng(config.rng_algorithm),
        )
    } else {
        TestRunner::new(config)
    };
    if let Err(e) = runner.run(&case(), |c| check(&c)) {
        panic!("{e}");
    }
}

#[test]
fn observers_and_fast_paths_leave_every_counter_unchanged() {
    many(CASES, true);
}

#[test]
#[ignore = "5000 cases: cargo test --release --test observation -- --ignored"]
fn observation_invariance_many() {
    many(5000, false);
}
