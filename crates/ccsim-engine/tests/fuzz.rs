//! Property test: any scenario text built from plausible and implausible pieces, with
//! any overrides, gives a clear `ScenarioError` or a run that completes (under an event
//! cap) with packets conserved; never a panic, an abort or a hang.

use ccsim_engine::{run_text, Results};
use proptest::prelude::*;

fn pick(options: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(options).prop_map(|s| s.to_string())
}

/// Mostly a valid piece, sometimes a broken one, so that most cases run.
fn mix(good: &'static [&'static str], bad: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![9 => pick(good), 1 => pick(bad)]
}

const RATES: &[&str] = &["\"1bps\"", "\"64kbps\"", "\"1Mbps\"", "\"10Mbps\"", "\"10Gbps\"", "[\"1Mbps\", \"64kbps\"]"];
const BAD_RATES: &[&str] = &["\"0bps\"", "10", "\"-1Mbps\""];
const TIMES: &[&str] = &["\"0s\"", "\"1ps\"", "\"1us\"", "\"5ms\"", "\"2s\""];
const BAD_TIMES: &[&str] = &["\"-1s\"", "5", "\"1000000000s\""];
const BUFFERS: &[&str] = &["\"1pkt\"", "\"20pkt\"", "\"1B\"", "\"30000B\"", "[\"5pkt\", \"50pkt\"]"];
const BAD_BUFFERS: &[&str] = &["\"0pkt\"", "\"4294967296pkt\""];
const QDISCS: &[&str] = &[
    "\"fcfs\"",
    "\"fq\"",
    "\"red\"",
    "{ kind = \"red\", min_th = \"2pkt\", max_th = \"4pkt\", ecn = true, gentle = true }",
    "{ kind = \"red\", min_th = \"3000B\", byte_mode = true, max_p = 1.0 }",
];
const BAD_QDISCS: &[&str] = &["\"codel\"", "{ kind = \"red\", w_q = 0.0 }", "{ kind = \"fq\", x = 1 }"];
/// Every name and alias of the congestion-control registry.
fn ccs() -> &'static [&'static str] {
    static CCS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        ccsim_engine::cc::CcConfig::ALL
            .iter()
            .flat_map(|i| std::iter::once(&i.name).chain(i.aliases))
            .copied()
            .collect()
    });
    &CCS
}
const BAD_CCS: &[&str] = &["westwood"];
const PARAMS: &[&str] = &["", "", "", "initial_rto = \"200ms\"", "initial_rto = \"1us\""];
/// A policy with parameters of its own (valid ones, at their extremes).
const CC_PARAMS: &[&str] = &[
    "reno\"\n[flows.params]\nrto_k = 1\ndupack_threshold = 1\ninitial_window = 64\nrto = \"linux\"\nmin_rto = \"1us\"\nmax_rto = \"1us\"",
    "tahoe\"\n[flows.params]\ninitial_ssthresh = 2\nrto_k = 4294967295",
    "delay_aimd\"\n[flows.params]\ntau0 = \"1ps\"\nsrtt_gain = 1e-300\nper_packet = true\ngamma = 0\ndelayed_ack = \"detect\"",
    "delay_aimd\"\n[flows.params]\nalpha = 1e300\nbeta_min = 0.999999\nbeta_max = 0.999999\ndelayed_ack = \"on\"",
    "vegas\"\n[flows.params]\nalpha = 1e-300\nbeta = 1e300\ngamma = 0\nrtt = \"min\"\nslow_start_exit = \"eighth\"",
    "da\"\n[flows.params]\nk = 1e300\nndg_threshold = 1e-300\nrule_window = \"two_back\"\nmax_reduce = 1\nndg_sampling = \"epoch\"",
    "da\"\n[flows.params]\nk = 1\nmin_buffer = 4294967295\noptimistic = true\nreference_window = 100000",
    "pp\"\n[flows.params]\nsetpoint = 1e-300\nalpha = 0.999999\nupdate = \"probe\"",
    "generic\"\n[flows.params]\nbeta = 1\nalpha = 1e-300\nwindow = 1",
];
const BAD_PARAMS: &[&str] = &[
    "initial_rto = \"0s\"",
    "initial_rto = \"1ns\"",
    "min_rto = \"1ps\"\nmax_rto = \"1ps\"",
    "beta = 1e-300",
    "beta = 2.0\nalpha = 0.5",
    "window = 4294967295",
    "initial_window = 1000",
    "reference_window = 4294967295",
    "k = 0.5",
    "setpoint = -1.0",
    "alpha = 3\nbeta = 1",
    "update = \"probe\"",
    "min_buffer = 2\noptimistic = true",
    "dupack_threshold = 0",
    "nonsense = 1",
    "rto_k = 0",
];
const OPTIONS: &[&str] = &[
    "",
    "delayed_ack = true",
    "sack = true",
    "ecn = true",
    "rtt_sample = \"newest\"",
    "out_of_order = \"discard\"",
    "max_window = \"3pkt\"",
    "start_jitter = \"50ms\"",
    "ack_path = [\"b\", \"r\", \"a\"]",
    "data_size = \"1B\"",
    "handshake = true",
    "tso = true",
    "tso = { defer = \"1ps\", segment = \"1B\", divisor = 1000 }",
    "delayed_ack = true\nack_delay_min = \"1ps\"\nack_delay = \"1us\"",
    "fast_retransmit = \"go_back_n\"",
    "count = 3",
    "stop = \"1ps\"",
];
const BAD_OPTIONS: &[&str] = &[
    "max_window = \"200000000pkt\"",
    "data_size = \"600000000B\"",
    "start_jitter = \"100s\"",
    "count = 0",
    "ack_delay_min = \"1s\"",
];
const SOURCES: &[&str] = &[
    "kind = \"cbr\"\nrate = \"1Mbps\"",
    "kind = \"cbr\"\nrate = \"1000Gbps\"\npacket_size = \"1bit\"",
    "kind = \"poisson\"\nmean_gap = \"1ms\"",
    "kind = \"poisson\"\nmean_gap = \"1ps\"",
    "kind = \"cadpc\"\nparams = { a = 1e-300, update = 1, initial_rate = \"1bps\", ptp_size = \"1B\", ptp_timeout = \"1ps\" }",
    "kind = \"rap\"\nparams = { alpha = 1e300, beta = 1e-300, dupthresh = 1, initial_rtt = \"1ps\" }",
    "kind = \"tfrc\"\npacket_size = \"1B\"\nparams = { initial_nofeedback = \"1ps\", t_mbi = \"1ps\" }",
    "kind = \"tear\"\nparams = { t_mbi = \"1ps\", initial_ssthresh = 1e300 }",
    "kind = \"voice\"\nvoice = { partner = \"v\", starts_active = true, packet_rate = 1e6, initial_rate = \"1000Gbps\", control_interval = \"1us\" }\n\
     [[flows]]\nname = \"v\"\nfrom = \"b\"\nto = \"c\"\nkind = \"voice\"\nvoice = { partner = \"s\", endless = true, slow_start = true }",
];
const BAD_SOURCES: &[&str] = &[
    "kind = \"cbr\"\nrate = \"1Mbps\"\non = [[\"0.1s\", \"0.2s\"], [\"0.15s\", \"0.3s\"]]",
    "kind = \"voice\"",
    "kind = \"tfrc\"\nsack = true",
    "kind = \"cadpc\"\nparams = { update = 0.5 }",
];
const ELEMENTS: &[&str] = &[
    "",
    "[[elements]]\nkind = \"random_loss\"\nat = \"r->b\"\np = 0.1",
    "[[elements]]\nkind = \"random_loss\"\nat = \"r-b\"\nmodel = \"gilbert_elliott\"\np_gb = 0.1\np_bg = 0.3",
    "[[elements]]\nkind = \"beacon\"\nat = \"r->b\"\nto = \"a\"\nperiod = \"1us\"",
    "[[elements]]\nkind = \"beacon\"\nat = \"r->b\"\nto = \"a\"\nperiod = \"10ms\"",
    "[[elements]]\nkind = \"counter\"\nat = [\"a->r\", \"r->a\"]",
    "[[elements]]\nkind = \"ptp\"\nat = [\"r->b\", \"a->r\", \"c->r\"]\nrecord_size = \"536870911B\"",
    "[[elements]]\nkind = \"capture\"\nat = \"r-b\"\nmax_packets = 1",
    "[[elements]]\nkind = \"flow_stats\"\nat = \"r-b\"\n[[elements]]\nkind = \"random_loss\"\nat = \"r-b\"\np = 1\nonly = \"ack\"",
    "[[elements]]\nkind = \"smart_link\"\nat = \"r-b\"\nalgorithm = \"mosely\"\nprotocol = true\na = 10\nupdate = \"1us\"\nretry = \"1us\"\ncapacity = \"1bps\"\nrecord = true",
];
const BAD_ELEMENTS: &[&str] = &[
    "[[elements]]\nkind = \"flow_stats\"\nat = \"nowhere\"",
    "[[elements]]\nkind = \"beacon\"\nat = \"r->b\"\nto = \"a\"\nperiod = \"1ps\"",
];
const OVERRIDES: &[&str] = &[
    "defaults.qdisc=fq",
    "defaults.cc=vegas",
    "scenario.duration=50ms",
    "links.0.rate=1bps",
    "links.r-b.delay=1ps",
    "flows.w.cc=pp",
    "defaults.sack=true",
    "measure.delays=true",
    "nodes.processing_jitter={ r = \"1ms\" }",
    "measure.interval=10ms",
    "measure.windows=true",
    "measure.series=[\"r->b.sojourn\", \"r->b.queue\"]",
    "changes=[{ at = \"1ms\", link = \"r-b\", rate = \"1bps\", delay = \"1s\" }]",
    "phases=[{ name = \"p\", start = \"1ps\", end = \"50ms\" }]",
    "links.r-b.qdisc={ kind = \"fq\", drop_rule = \"rollback\" }",
];
const BAD_OVERRIDES: &[&str] = &[
    "scenario.duration=0s",
    "flows.w.params.initial_rto=0s",
    "measure.interval=1us",
    "no.such.key=1",
    "flows=[]",
    "links=7",
    "defaults.cc=westwood",
    "flows.w.params.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x=1",
];

/// The window flow's policy and its `[flows.params]` (the lines after `cc = "`): a policy
/// with common parameters, or one with parameters of its own.
fn cc_and_params() -> impl Strategy<Value = (String, String)> {
    let common = (mix(ccs(), BAD_CCS), mix(PARAMS, BAD_PARAMS))
        .prop_map(|(cc, p)| (format!("{cc}\""), format!("[flows.params]\n{p}")));
    prop_oneof![3 => common, 1 => pick(CC_PARAMS).prop_map(|c| (c, String::new()))]
}

/// A scenario of three hosts and a router around pieces drawn at random. Windows
/// default to 64 packets: an event cap bounds the events, not the work of one event, and
/// a Generic flow with a million-packet window sends it in one go (slow, not wrong).
fn scenario() -> impl Strategy<Value = (String, Vec<String>)> {
    (
        (mix(&["\"100ms\"", "\"1s\"", "\"3s\""], &["\"0s\""]), mix(RATES, BAD_RATES), mix(TIMES, BAD_TIMES), mix(BUFFERS, BAD_BUFFERS), mix(QDISCS, BAD_QDISCS)),
        (cc_and_params(), mix(OPTIONS, BAD_OPTIONS), mix(OPTIONS, BAD_OPTIONS), mix(SOURCES, BAD_SOURCES), mix(ELEMENTS, BAD_ELEMENTS)),
        prop::collection::vec(mix(OVERRIDES, BAD_OVERRIDES), 0..3),
    )
        .prop_map(|((duration, rate, delay, buffer, qdisc), ((cc, params), opt1, opt2, source, element), overrides)| {
            let text = format!(
                "[scenario]\nname = \"fuzz\"\nduration = {duration}\nmax_events = 20000\n\
                 [defaults]\nmax_window = \"64pkt\"\n\
                 [nodes]\nhosts = [\"a\", \"b\", \"c\"]\nrouters = [\"r\"]\n\
                 [[links]]\nbetween = [\"a\", \"r\"]\nrate = \"10Mbps\"\n\
                 [[links]]\nbetween = [\"c\", \"r\"]\nrate = \"10Mbps\"\n\
                 [[links]]\nbetween = [\"r\", \"b\"]\nrate = {rate}\ndelay = {delay}\nbuffer = {buffer}\nqdisc = {qdisc}\n\
                 [[flows]]\nname = \"w\"\nfrom = \"a\"\nto = \"b\"\n{opt1}\n{opt2}\ncc = \"{cc}\n{params}\n\
                 [[flows]]\nname = \"s\"\nfrom = \"c\"\nto = \"b\"\n{source}\n\
                 {element}\n"
            );
            (text, overrides)
        })
}

fn check(r: &Results) {
    for f in &r.flows {
        assert_eq!(f.sent_pkts, f.arrived_pkts + f.dropped_pkts + f.in_network_pkts, "flow {}", f.name);
        assert!(f.delivered_pkts <= f.arrived_pkts);
    }
    for l in &r.links {
        assert_eq!(l.offered_pkts, l.tx_pkts + l.drops + l.queued_pkts, "channel {}", l.name);
        assert_eq!(l.drops, l.drops_by_reason.total());
    }
    assert!(r.meta.events <= 20_000);
}

#[test]
fn any_scenario_is_an_error_or_a_conserving_run() {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    use std::cell::Cell;
    let (ran, tried) = (Cell::new(0u32), Cell::new(0u32));
    // A fixed stream of cases, so CI sees the same 2500 every time (PROPTEST_CASES may
    // raise the count locally).
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2500);
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    runner
        .run(&scenario(), |(text, overrides)| {
            tried.set(tried.get() + 1);
            match run_text(&text, "fuzz.toml", &overrides, Some(1)) {
                Err(e) => {
                    let msg = e.to_string();
                    prop_assert!(msg.starts_with("fuzz.toml") || msg.starts_with("--set"), "{msg}");
                    prop_assert!(!msg.contains('\n'), "one line: {msg}");
                }
                Ok(mut sim) => {
                    check(&sim.results(0.0));
                    ran.set(ran.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
    // Most cases are meant to run, so the runs are exercised as well as the errors.
    assert!(ran.get() * 5 > tried.get(), "{} of {} ran", ran.get(), tried.get());
    eprintln!("{} of {} cases ran", ran.get(), tried.get());
}

#[test]
fn the_inputs_that_used_to_abort_or_hang_are_errors_now() {
    let base = "[scenario]\nname = \"x\"\nduration = \"10s\"\n[nodes]\nhosts = [\"a\", \"b\"]\n\
                [[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n";
    for (o, field) in [
        (vec!["flows.f.cc=da", "flows.f.params.reference_window=4294967295"], "flows.f.params.reference_window"),
        (vec!["defaults.cc=generic", "defaults.max_window=200000000pkt"], "defaults.max_window"),
        (vec!["flows.f.params.initial_rto=0s"], "flows.f.params.initial_rto"),
        (vec!["flows.f.cc=generic", "flows.f.params.beta=1e-300"], "flows.f.params.beta"),
        (vec!["flows.f.cc=generic", "flows.f.params.initial_rto=1ns"], "flows.f.params.initial_rto"),
        (vec!["flows.f.params.min_rto=1ps", "flows.f.params.max_rto=1ps"], "flows.f.params.min_rto"),
        // Accepted silently when every window flow names its own cc.
        (vec!["defaults.cc=westwood", "flows.f.cc=reno"], "defaults.cc"),
    ] {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        let e = run_text(base, "x.toml", &o, None).err().unwrap_or_else(|| panic!("{o:?} accepted"));
        assert_eq!(e.field, field, "{o:?}: {e}");
    }
}

#[test]
fn an_override_key_of_thousands_of_parts_is_an_error_not_a_stack_overflow() {
    // `--set flows.f.params.x.x...=1` with 5000 parts nested 5000 tables and reading the
    // document overflowed the stack (a segfault); 100000 parts took a minute first.
    let base = "[scenario]\nname = \"x\"\nduration = \"10s\"\n[nodes]\nhosts = [\"a\", \"b\"]\n\
                [[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n";
    for parts in [5_000, 100_000] {
        let o = vec![format!("flows.f.params{}=1", ".x".repeat(parts))];
        let e = run_text(base, "x.toml", &o, None).err().expect("accepted");
        assert!(e.field.starts_with("--set flows.f.params.x.x") && e.field.ends_with("..."), "{e}");
        assert!(e.message.contains(&format!("the key has {} parts", parts + 3)), "{e}");
    }
}

#[test]
fn names_with_control_characters_are_errors_on_one_line() {
    // A line break in a node, flow, link or phase name was accepted, and every message
    // naming it (a field path, a route) was split over two lines.
    let base = "[scenario]\nname = \"x\"\nduration = \"10s\"\n[nodes]\nhosts = [\"a\", \"b\"]\n\
                [[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n";
    for (o, field) in [
        (r#"nodes.hosts=["a", "b", "c\nd"]"#, "nodes.hosts"),
        (r#"flows.f.name="f\ng""#, "flows.name"),
        (r#"links.a-b.name="l\u0007""#, "links.name"),
        (r#"phases=[{ name = "p\r", start = "0s", end = "1s" }]"#, "phases.name"),
    ] {
        let e = run_text(base, "x.toml", &[o.to_string()], None).err().unwrap_or_else(|| panic!("{o} accepted"));
        assert_eq!(e.field, field, "{o}: {e}");
        assert!(!e.to_string().contains(['\n', '\r']) && e.message.contains("control characters"), "{o}: {e}");
    }
}

#[test]
fn periods_are_bounded_by_their_rows_and_checked_in_linear_time() {
    // 1000 flows with 100000 one-microsecond intervals aborted ("memory allocation of
    // 136000 bytes failed") within 20000 events: every interval boundary copies a row per
    // flow and channel. 100000 phases took 26 s to check (a quadratic duplicate test).
    let base = "[scenario]\nname = \"x\"\nduration = \"100ms\"\nmax_events = 20000\n[nodes]\nhosts = [\"a\", \"b\"]\n\
                [[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nkind = \"cbr\"\nrate = \"1kbps\"\n";
    let o = vec!["flows.f.count=1000".to_string(), "measure.interval=1us".to_string()];
    let e = run_text(base, "x.toml", &o, None).err().expect("accepted");
    assert_eq!(e.field, "measure.interval", "{e}");
    assert!(e.message.contains("100000 intervals of 1000 flows and 2 channels are 100200000 rows"), "{e}");
    let phases: String =
        (0..100).map(|i| format!("[[phases]]\nname = \"p{i}\"\nstart = \"0s\"\nend = \"1ms\"\n")).collect();
    let e = run_text(&format!("{base}{phases}"), "x.toml", &["flows.f.count=100000".to_string()], None)
        .err()
        .expect("accepted");
    assert_eq!(e.field, "phases", "{e}");
    // Linear, not quadratic: four times the phases take about four times as long, not
    // sixteen. A ratio of two runs in one process, each the fastest of three, so that a
    // loaded machine slows both alike (no bound on the wall time itself).
    let fastest = |n: usize| {
        let phases: String = (0..n)
            .map(|i| format!("[[phases]]\nname = \"p{i}\"\nstart = \"{i}ns\"\nend = \"{}ns\"\n", i + 1))
            .collect();
        let text = format!("{base}{phases}");
        (0..3)
            .map(|_| {
                let t = std::time::Instant::now();
                let sc = ccsim_engine::scenario::parse(&text, "x.toml", &[]).unwrap();
                assert_eq!(sc.phases.len(), n);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let (small, large) = (fastest(10_000), fastest(40_000));
    assert!(large / small < 9.0, "40000 phases took {large:.3} s, 10000 took {small:.3} s: more than linear");
}

#[test]
fn rate_senders_faster_than_a_packet_per_picosecond_still_advance_time() {
    // A CADPC flow with initial_rate = "18446744073709551615bps" and 1-byte packets, or a
    // RAP flow whose rate grows by 1e300 packets per RTT, paced at a gap that rounded to
    // 0 ps: 200000 events passed at t = 0 (RAP: 1 ps), and without max_events the run
    // would never have ended.
    let base = "[scenario]\nname = \"x\"\nduration = \"1s\"\nmax_events = 200000\n[nodes]\nhosts = [\"a\", \"b\"]\n\
                [[links]]\nbetween = [\"a\", \"b\"]\nrate = \"18446744073709551615bps\"\n[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\npacket_size = \"1B\"\n";
    for flow in [
        "kind = \"cadpc\"\nparams = { initial_rate = \"18446744073709551615bps\" }",
        "kind = \"rap\"\nparams = { alpha = 1e300, initial_rtt = \"1ps\" }",
    ] {
        let mut sim = run_text(&format!("{base}{flow}\n"), "x.toml", &[], None).unwrap();
        let r = sim.results(0.0);
        assert!(r.meta.sim_time_s > 5e-8, "{flow}: {} s after {} events", r.meta.sim_time_s, r.meta.events);
    }
}
