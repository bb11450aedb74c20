//! ccsim engine: a packet-level discrete-event network simulator for congestion-control
//! research. Sans-IO and deterministic: no files, no printing, no wall clock, no thread
//! RNG; the same scenario and seed give bit-identical results.
//!
//! Layers, in order: each module uses only modules listed before it (`tests/lint/imports.py`
//! checks that no top-level modules import each other, directly or around a circle):
//! - `base`: time, units, random streams, ring buffer, statistics, the series recorder.
//! - `packet`: the 32-byte packet and its metadata slab (`packet::meta`).
//! - the components, each a registry of plug-ins: `cc` (congestion-control policies),
//!   `qdisc` (queue disciplines, the disciplines' drop reasons), `element` (per-channel
//!   actors: loss, statistics, stamping), `transport` (sender and receiver policies).
//! - `net`: channels (elements + qdisc + transmitter + pipe), the pipes' pool, merged
//!   arrivals, the (time, seq)-ordered event queue and the state channels share (`Net`).
//! - `scenario`: TOML text + overrides -> validated, typed `Scenario` (units resolved).
//! - `sim`: builds the arenas (channels, routes, flows) from a `Scenario` and runs the
//!   event loop; `sim::slices` sizes a front end's slices of a run from their wall time.
//! - `results`: per-flow / per-channel summaries, phases, intervals, time series, and
//!   their columns; `bench`: the speed benchmark's scenarios.
//!
//! Time is integer picoseconds (`time`), sizes bytes, rates bits/s.

pub mod bench;

/// The Rust blocks of docs/extending.md (a congestion control defined from the docs'
/// own text), compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/extending.md")]
pub struct ExtendingDocs;

pub mod base;
pub mod cc;
pub mod element;
pub mod net;
pub mod packet;
pub mod qdisc;
pub mod results;
pub mod scenario;
pub mod sim;
pub mod transport;

// The foundations the public API names most, at the crate's root
// (`ccsim_engine::time::SimTime`).
pub use base::{rng, time, units};

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
