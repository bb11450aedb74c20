//! Runs the `ccsim bench` dumbbell from Rust and prints wall time and rates (a
//! development aid for profiling; the user-facing command is `ccsim bench`).
//! Usage: cargo run --release --example bench -- [FLOWS] [BOTTLENECK_BPS] [SECONDS]
use ccsim_engine::{bench::dumbbell, sim::Simulation, time::SimDuration};
use std::time::Instant;

fn main() {
    let a: Vec<u64> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
    let flows = a.first().copied().unwrap_or(100) as u32;
    let rate = a.get(1).copied().unwrap_or(100_000_000);
    let secs = a.get(2).copied().unwrap_or(60);
    let sc = dumbbell(flows, rate, SimDuration::from_secs(secs)).expect("valid bench arguments");
    let t0 = Instant::now();
    let mut sim = Simulation::new(sc, None);
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let r = sim.results(wall);
    let d = r.delivered_pkts();
    let util = r.links.iter().find(|l| l.name == "left->right").map(|l| l.utilization).unwrap_or(0.0);
    println!(
        "flows={flows} wall={wall:.3}s events={} ev/s={:.3e} delivered={d} delivered/s={:.3e} util={util:.3}",
        r.events,
        r.events as f64 / wall,
        d as f64 / wall
    );
}
