//! ccsim engine: a packet-level discrete-event network simulator for congestion-control
//! research. Sans-IO and deterministic: no files, no printing, no wall clock, no thread
//! RNG; the same scenario and seed give bit-identical results.
//!
//! Layers (data flows down, results flow up):
//! - `scenario`: TOML text + overrides -> validated, typed `Scenario` (units resolved).
//! - `sim`: builds arenas (channels, routes, flows) and runs the event loop
//!   (`event`: (time, seq)-ordered queue; `link`: channel = elements + qdisc +
//!   transmitter + pipe; `element`: per-channel actors (loss, statistics, stamping);
//!   `qdisc`: FCFS, Fair Queueing, RED; `packet` + `meta`: the 32-byte packet and its
//!   metadata slab; `transport`: window transport and sources; `cc`:
//!   congestion-control policies).
//! - `results`: per-flow / per-channel summaries, phases, intervals, time series.
//! - `slices`: how a front end sizes the slices of a run (`Simulation::run_slice`) from
//!   their wall time, which it measures, so that it can react every ~10 ms.
//!
//! Time is integer picoseconds (`time`), sizes bytes, rates bits/s.

pub mod bench;

/// The Rust blocks of docs/extending.md (a congestion control defined from the docs'
/// own text), compiled and run as doctests in debug builds (`debug_profile`, build.rs).
#[cfg(all(doctest, debug_profile))]
#[doc = include_str!("../../../docs/extending.md")]
pub struct ExtendingDocs;

pub mod cc;
pub mod element;
pub mod event;
pub(crate) mod fields;
pub mod link;
pub mod merge;
pub mod meta;
pub mod packet;
pub mod pipe;
pub(crate) mod prefetch;
pub mod qdisc;
pub mod results;
pub mod ring;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod slices;
pub mod stats;
pub mod time;
pub mod trace;
pub mod transport;
pub mod units;

pub use results::Results;
pub use scenario::{parse, Scenario, ScenarioError};
pub use sim::Simulation;

/// The engine version (also reported in results as `ccsim_version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Parses, validates and runs a scenario; `seed` overrides the scenario's seed.
pub fn run_text(
    text: &str,
    source: &str,
    overrides: &[String],
    seed: Option<u64>,
) -> Result<Simulation, ScenarioError> {
    let sc = scenario::parse(text, source, overrides)?;
    Ok(sim::run_scenario(sc, seed))
}
