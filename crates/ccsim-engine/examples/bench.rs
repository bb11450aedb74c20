//! Runs the `ccsim bench` dumbbell from Rust and prints build and run time, rates and
//! peak memory (a development aid for profiling; the user-facing command is `ccsim bench`).
//! Usage: cargo run --release --example bench -- [FLOWS] [BOTTLENECK_BPS] [SECONDS] [QDISC] [CC]
//! [prefetch|noprefetch|prefetch1|prefetch2] [sack] (QDISC and CC: names of the registries, default
//! drop-tail, or DCTCP's step marking for a policy that needs ECN, and reno; the prefetch word overrides `Simulation::set_prefetch`'s
//! default; the digit sets how many events ahead, `Simulation::set_prefetch_ahead`; `sack`
//! gives every flow SACK, `ccsim bench --sack`).
//! (SECONDS may be fractional: `0.001` times the build of an idle network.) Besides the
//! peaks it prints the resident memory after the scenario (`rss_scenario`) and after the
//! build (`rss_built`), and the size of the results' columns (`columns`).
use ccsim_engine::{
    bench::{bottleneck_qdisc, cc_by_name, dumbbell_sack},
    sim::Simulation,
    time::SimDuration,
};
use std::time::Instant;

/// Peak resident set size in MiB (Linux `VmHWM`), or 0 where unavailable.
fn peak_rss_mib() -> f64 {
    status_mib("VmHWM:")
}

/// Resident set size now in MiB (Linux `VmRSS`), or 0 where unavailable.
fn rss_mib() -> f64 {
    status_mib("VmRSS:")
}

fn status_mib(key: &str) -> f64 {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = text
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a: Vec<f64> = args.iter().filter_map(|s| s.parse().ok()).collect();
    let flows = a.first().copied().unwrap_or(100.0) as u32;
    let rate = a.get(1).copied().unwrap_or(1e8) as u64;
    let secs = a.get(2).copied().unwrap_or(60.0);
    let words: Vec<&str> = args.iter().filter(|s| s.parse::<f64>().is_err()).map(String::as_str).collect();
    let is_prefetch = |w: &str| w.ends_with("prefetch") || w.starts_with("prefetch");
    let is_cc = |w: &str| cc_by_name(w).is_ok();
    let cc = cc_by_name(words.iter().copied().find(|w| is_cc(w)).unwrap_or("reno")).expect("a registered policy");
    let sack = words.contains(&"sack");
    let qdisc = words.iter().copied().find(|w| !is_prefetch(w) && !is_cc(w) && *w != "sack");
    let qdisc = bottleneck_qdisc(&cc, rate, qdisc).expect("a registered discipline");
    let prefetch = words.iter().copied().find(|w| is_prefetch(w));
    let t_sc = Instant::now();
    let sc =
        dumbbell_sack(flows, rate, SimDuration::from_secs_f64(secs), qdisc, cc, sack).expect("valid bench arguments");
    let scenario = t_sc.elapsed().as_secs_f64();
    let rss_scenario = rss_mib();
    let t0 = Instant::now();
    let mut sim = Simulation::new(sc, None);
    match prefetch {
        Some("prefetch") => sim.set_prefetch(true),
        Some("noprefetch") => sim.set_prefetch(false),
        Some(w) => sim.set_prefetch_ahead(w.trim_start_matches("prefetch").parse().expect("prefetch1 or prefetch2")),
        None => {}
    }
    let build = t0.elapsed().as_secs_f64();
    let rss_build = rss_mib();
    let t1 = Instant::now();
    sim.run();
    let wall = t1.elapsed().as_secs_f64();
    let rss_run = peak_rss_mib();
    let t2 = Instant::now();
    let r = sim.into_results_columns(build + wall);
    let results = t2.elapsed().as_secs_f64();
    let d = r.delivered_pkts();
    let util = r.link_f64("left->right", "utilization").unwrap_or(0.0);
    println!(
        "flows={flows} scenario={scenario:.3}s build={build:.3}s run={wall:.3}s events={} ev/s={:.3e} delivered={d} delivered/s={:.3e} util={util:.3} results={results:.3}s columns={:.0}MB rss_scenario={rss_scenario:.0}MiB rss_built={rss_build:.0}MiB peak_rss_run={rss_run:.0}MiB peak_rss={:.0}MiB",
        r.meta.events,
        r.meta.events as f64 / wall,
        d as f64 / wall,
        r.bytes() as f64 / 1e6,
        peak_rss_mib()
    );
}
