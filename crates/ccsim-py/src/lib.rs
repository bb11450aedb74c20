//! Thin PyO3 binding of the ccsim engine: the API of `docs/architecture.md`.
//!
//! Strings in, JSON strings out. Simulations run with the GIL released. Scenario errors
//! become `ccsim.ScenarioError` (a `ValueError`); an engine panic is caught and raised as
//! `RuntimeError` so nothing unwinds across the boundary.

use ccsim_engine::{scenario, sim, units, ScenarioError as EngineError};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

create_exception!(_ccsim, ScenarioError, PyValueError, "A scenario (or argument) the user can fix.");

fn scenario_err(e: EngineError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

fn guarded<T>(f: impl FnOnce() -> Result<T, EngineError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(scenario_err(e)),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(PyRuntimeError::new_err(format!("internal error in the ccsim engine (please report): {msg}")))
        }
    }
}

/// Parses `text` as TOML (`fmt = "toml"`) or as JSON in the same schema (`"json"`).
fn parse(text: &str, source: &str, overrides: &[String], fmt: &str) -> Result<scenario::Scenario, EngineError> {
    match fmt {
        "toml" => scenario::parse(text, source, overrides),
        "json" => scenario::parse_json(text, source, overrides),
        other => Err(EngineError::new(source, "", format!("unknown scenario format '{other}'; use \"toml\" or \"json\""))),
    }
}

/// Validates a scenario; returns it in the scenario-file schema with every default
/// filled in, as JSON (`out = "json"`) or TOML text (`out = "toml"`).
#[pyfunction]
#[pyo3(signature = (text, source, overrides=Vec::new(), fmt="toml", out="json"))]
fn check(py: Python<'_>, text: String, source: String, overrides: Vec<String>, fmt: &str, out: &str) -> PyResult<String> {
    let (fmt, out) = (fmt.to_string(), out.to_string());
    py.detach(|| {
        guarded(|| {
            let sc = parse(&text, &source, &overrides, &fmt)?;
            match out.as_str() {
                "toml" => Ok(sc.to_toml()),
                _ => Ok(serde_json::to_string(&scenario::to_file(&sc)).expect("scenario serialises")),
            }
        })
    })
}

/// Events per slice of a run: the GIL is taken back between slices (about every 10 ms
/// of wall time) to check for Ctrl-C, report progress and enforce `max_wall`.
const SLICE_EVENTS: u64 = 200_000;

/// Runs a scenario; returns the results JSON. The run goes in slices: between them
/// Python signal handlers run (Ctrl-C stops the run: the results come back marked
/// partial with `stop_reason = "interrupted"`), `progress(sim_time_s, end_s, events)` is
/// called if given, and `max_wall_s` (or the scenario's `max_wall`) is enforced.
#[pyfunction]
#[pyo3(signature = (text, source, overrides=Vec::new(), seed=None, fmt="toml", progress=None, max_events=None, max_wall_s=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    text: String,
    source: String,
    overrides: Vec<String>,
    seed: Option<u64>,
    fmt: &str,
    progress: Option<Py<PyAny>>,
    max_events: Option<u64>,
    max_wall_s: Option<f64>,
) -> PyResult<String> {
    let fmt = fmt.to_string();
    let t0 = Instant::now();
    let mut sim = py.detach(|| {
        guarded(|| {
            let mut sc = parse(&text, &source, &overrides, &fmt)?;
            if let Some(m) = max_events {
                if m == 0 {
                    return Err(EngineError::new(&source, "max_events", "must be at least 1"));
                }
                sc.max_events = Some(sc.max_events.map_or(m, |s| s.min(m)));
            }
            Ok(sim::Simulation::new(sc, seed))
        })
    })?;
    let wall_limit = max_wall_s.or(sim.scenario.max_wall.map(|d| d.as_secs_f64()));
    let end_s = sim.end().as_secs_f64();
    loop {
        let done = py.detach(|| guarded(|| Ok(sim.run_slice(SLICE_EVENTS))))?;
        if done {
            break;
        }
        if let Err(e) = py.check_signals() {
            if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                sim.stop(sim::StopReason::Interrupted);
                break;
            }
            return Err(e);
        }
        if let Some(cb) = &progress {
            cb.call1(py, (sim.now().as_secs_f64(), end_s, sim.events_processed()))?;
        }
        if wall_limit.is_some_and(|w| t0.elapsed().as_secs_f64() >= w) {
            sim.stop(sim::StopReason::MaxWall);
            break;
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    py.detach(|| guarded(|| Ok(sim.results(wall).to_json())))
}

/// Runs the dumbbell benchmark; returns its JSON report, or with `full_results` the pair
/// (report, the run's full results JSON: what `ccsim.run` hands to Python).
/// Build (scenario to simulation), run and results (results plus their JSON) are timed
/// apart: `build_time_s`, `run_time_s`, `results_time_s`; the rates are per run time.
#[pyfunction]
#[pyo3(name = "bench", signature = (flows, bottleneck_bps, time_s, seed=1, qdisc="fcfs", full_results=false))]
fn bench_dumbbell(py: Python<'_>, flows: u32, bottleneck_bps: u64, time_s: f64, seed: u64, qdisc: &str, full_results: bool) -> PyResult<Py<PyAny>> {
    let qdisc = qdisc.to_string();
    let (report, text) = py.detach(|| {
        guarded(|| {
            if !(time_s > 0.0) || !time_s.is_finite() {
                return Err(EngineError::new("bench", "time", format!("must be a positive time, got {time_s}")));
            }
            let q = ccsim_engine::bench::qdisc_by_name(&qdisc)?;
            let sc = ccsim_engine::bench::dumbbell_with(flows, bottleneck_bps, ccsim_engine::time::SimDuration::from_secs_f64(time_s), q)?;
            let t0 = Instant::now();
            let mut sim = sim::Simulation::new(sc, Some(seed));
            let build = t0.elapsed().as_secs_f64();
            let t1 = Instant::now();
            sim.run();
            let run = t1.elapsed().as_secs_f64();
            let t2 = Instant::now();
            let r = sim.results(build + run);
            let text = if full_results { r.to_json() } else { String::new() };
            let results_time = t2.elapsed().as_secs_f64();
            drop(sim);
            let delivered = r.delivered_pkts();
            let per = run.max(1e-9);
            let v = serde_json::json!({
                "flows": flows,
                "bottleneck_bps": bottleneck_bps,
                "qdisc": qdisc,
                "sim_time_s": r.sim_time_s,
                "wall_time_s": build + run,
                "build_time_s": build,
                "run_time_s": run,
                "results_time_s": results_time,
                "events": r.events,
                "events_per_s": r.events as f64 / per,
                "delivered_pkts": delivered,
                "delivered_pkts_per_s": delivered as f64 / per,
                "bottleneck_utilization": r.links.iter().find(|l| l.name == "left->right").map(|l| l.utilization),
                "ccsim_version": r.ccsim_version,
            });
            Ok((v.to_string(), text))
        })
    })?;
    Ok(if full_results { (report, text).into_pyobject(py)?.into_any().unbind() } else { report.into_pyobject(py)?.into_any().unbind() })
}

fn unit<T>(r: Result<T, String>, what: &str) -> PyResult<T> {
    r.map_err(|m| ScenarioError::new_err(format!("{what}: {m}")))
}

/// "10Mbps" -> 10000000 (bits per second).
#[pyfunction]
fn parse_rate(s: &str) -> PyResult<u64> {
    unit(units::parse_rate(s), "rate")
}

/// "100ms" -> 0.1 (seconds).
#[pyfunction]
fn parse_time(s: &str) -> PyResult<f64> {
    unit(units::parse_time(s).map(|d| d.as_secs_f64()), "time")
}

/// "1.5kB" -> 1500 (bytes).
#[pyfunction]
fn parse_size(s: &str) -> PyResult<u64> {
    unit(units::parse_size(s), "size")
}

#[pymodule]
fn _ccsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", ccsim_engine::VERSION)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(bench_dumbbell, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_time, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    Ok(())
}
