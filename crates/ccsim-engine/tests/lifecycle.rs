//! Workload flows built at their start in reused slots (`sim/lifecycle.rs`): every result
//! equals that of the same run with every flow built at the start, and the slots follow
//! the flows that are active, not all flows of the run.

use ccsim_engine::base::time::{SimDuration, SimTime};
use ccsim_engine::sim::Simulation;
use ccsim_engine::{parse, Scenario};

/// A leaf-spine of 2 leaves of 4 hosts and 2 spines, 10 Gbps hosts, 40 Gbps uplinks, 1 us
/// links, and the `[[workloads]]` and extra sections given.
fn fabric(rest: &str, duration: &str, qdisc: &str) -> Scenario {
    let text = format!(
        r#"
[scenario]
name = "lifecycle"
duration = "{duration}"
seed = 3
[defaults]
data_size = "1500B"
ack_size = "64B"
params = {{ min_rto = "2ms" }}
[topology]
kind = "leaf_spine"
leaves = 2
hosts_per_leaf = 4
spines = 2
host_rate = "10Gbps"
uplink_rate = "40Gbps"
delay = "1us"
buffer = "40pkt"
qdisc = {qdisc}
{rest}
"#
    );
    parse(&text, "lifecycle.toml", &[]).unwrap_or_else(|e| panic!("{e}"))
}

const STEP: &str =
    r#"{ kind = "red", w_q = 1.0, min_th = "20pkt", max_th = "20pkt", ecn = true, ecn_above_max_th = true }"#;

/// Runs `sc` both ways to `until` (the end if `None`) and compares every table; returns
/// (flows, slots the lazy run used).
fn same_both_ways(sc: &Scenario, until: Option<SimTime>) -> (usize, usize) {
    let mut lazy = Simulation::new(sc.clone(), None);
    let mut all = Simulation::new_all_built(sc.clone(), None);
    for s in [&mut lazy, &mut all] {
        match until {
            Some(t) => s.run_until(t),
            None => s.run(),
        }
    }
    let slots = lazy.flows.len();
    assert_eq!(all.flows.len(), lazy.scenario.flows.len());
    assert_eq!(lazy.events_processed(), all.events_processed());
    let (a, b) = (lazy.results(0.0).to_json(), all.results(0.0).to_json());
    assert!(a == b, "the results differ:\n{}", first_difference(&a, &b));
    // (Tables compared as text: their NaNs (no value) are equal there.)
    let text =
        |c: &ccsim_engine::results::columns::Columns| format!("{:?}", (&c.flows, &c.links, &c.intervals, &c.phases));
    let (a, b) = (lazy.results_columns(0.0), all.results_columns(0.0));
    assert!(text(&a) == text(&b), "the columns differ");
    let flows = lazy.scenario.flows.len();
    let (a, b) = (lazy.into_results_columns(0.0), all.into_results_columns(0.0));
    assert!(format!("{:?}", a.flows) == format!("{:?}", b.flows), "the hand-off's flow columns differ");
    (flows, slots)
}

fn first_difference(a: &str, b: &str) -> String {
    let i = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    let from = i.saturating_sub(200);
    format!("... {} ...\nagainst\n... {} ...", &a[from..(i + 200).min(a.len())], &b[from..(i + 200).min(b.len())])
}

#[test]
fn poisson_flows_of_web_search_sizes_read_the_same_in_reused_slots() {
    let sc = fabric(
        r#"
[measure]
interval = "1ms"
delays = true
[[workloads]]
name = "ws"
load = 0.6
sizes = "web_search"
flow = { cc = "dctcp" }
"#,
        "40ms",
        STEP,
    );
    let (flows, slots) = same_both_ways(&sc, None);
    eprintln!("{flows} flows {slots} slots");
    assert!(flows > 100, "{flows} flows");
    assert!(slots < flows / 2, "{slots} slots for {flows} flows");
}

#[test]
fn small_flows_on_drop_tail_use_few_slots() {
    // 15 kB flows (10 packets) at 60% of 80 Gbps of host links: 400,000 flows a second,
    // each done in tens of microseconds, so a few hundred are active at once.
    let sc = fabric(
        r#"
[[workloads]]
name = "s"
load = 0.6
size = "15kB"
flow = { cc = "reno", sack = true }
"#,
        "3ms",
        r#""fcfs""#,
    );
    let (flows, slots) = same_both_ways(&sc, None);
    assert!(flows > 1000, "{flows} flows");
    assert!(slots * 4 < flows, "{slots} slots for {flows} flows");
}

#[test]
fn incast_rounds_reuse_the_slots_of_the_rounds_before() {
    // 7 senders of 64 kB to one host every 4 ms: each round is done (a timeout of 2 ms
    // included) before the next, whose flows take the slots the round before left.
    let sc = fabric(
        r#"
[[workloads]]
name = "in"
kind = "incast"
to = "h0-0"
size = "64kB"
interval = "4ms"
rounds = 8
flow = { cc = "dctcp" }
"#,
        "35ms",
        STEP,
    );
    let (flows, slots) = same_both_ways(&sc, None);
    assert_eq!(flows, 56);
    assert!(slots <= 14, "{slots} slots for 8 rounds of 7");
}

#[test]
fn a_run_stopped_early_reads_the_same_with_flows_not_started() {
    let sc = fabric(
        r#"
[measure]
interval = "1ms"
[[workloads]]
name = "ws"
load = 0.5
sizes = "web_search"
flow = { cc = "dctcp" }
"#,
        "6ms",
        STEP,
    );
    same_both_ways(&sc, Some(SimTime::ZERO + SimDuration::from_secs_f64(0.0025)));
}

#[test]
fn paced_flows_read_the_same_in_reused_slots() {
    // BBR paces (its timers may fire ahead of the clock: `Simulation::set_early_pacing`),
    // and a reused slot's pacing lead is the new flow's.
    let sc = fabric(
        r#"
[[workloads]]
name = "b"
load = 0.4
size = "60kB"
flow = { cc = "bbr", sack = true }
"#,
        "4ms",
        r#""fcfs""#,
    );
    let (flows, slots) = same_both_ways(&sc, None);
    assert!(flows > 100, "{flows} flows");
    assert!(slots * 2 < flows, "{slots} slots for {flows} flows");
}

#[test]
fn two_workloads_start_in_time_order_not_id_order() {
    // Workload "a"'s flows take the lower ids and "b"'s the higher, while their starts
    // interleave: the lazy starts are scheduled one at a time in time order.
    let sc = fabric(
        r#"
[[workloads]]
name = "a"
load = 0.3
size = "15kB"
flow = { cc = "reno" }
[[workloads]]
name = "b"
kind = "incast"
to = "h1-0"
size = "30kB"
interval = "500us"
rounds = 6
flow = { cc = "dctcp" }
"#,
        "3ms",
        STEP,
    );
    let n_a = sc.flows.len();
    let (flows, slots) = same_both_ways(&sc, None);
    assert!(n_a == 0 && flows > 6 * 7 + 100, "{flows} flows");
    assert!(slots * 2 < flows, "{slots} slots for {flows} flows");
}
