//! Thin PyO3 binding of the ccsim engine: the API of `docs/architecture.md`.
//!
//! Strings in; results out as columns (`columns_to_py`: NumPy-ready byte buffers and
//! lists of strings, a few scalars as JSON), other answers as JSON strings. Simulations
//! run with the GIL released. Scenario errors
//! become `ccsim.ScenarioError` (a `ValueError`); an engine panic is caught and raised as
//! `RuntimeError` so nothing unwinds across the boundary.

use ccsim_engine::results::columns::{Column, Columns, Dict, Periods, Table};
use ccsim_engine::sim::slices;
use ccsim_engine::{scenario, sim, units, ScenarioError as EngineError};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

mod pycc;
mod stepper;

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
/// Files a scenario names (a workload's CDF file) are read relative to the scenario
/// file's directory (the working directory for a scenario from a string or a dict).
fn parse(text: &str, source: &str, overrides: &[String], fmt: &str) -> Result<scenario::Scenario, EngineError> {
    let read = |name: &str| -> Result<String, String> {
        let path = std::path::Path::new(name);
        let full = match std::path::Path::new(source).parent() {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        };
        std::fs::read_to_string(&full).map_err(|e| format!("cannot read '{}' ({e})", full.display()))
    };
    match fmt {
        "toml" => scenario::parse_reading(text, source, overrides, &read),
        "json" => scenario::parse_json_reading(text, source, overrides, &read),
        other => {
            Err(EngineError::new(source, "", format!("unknown scenario format '{other}'; use \"toml\" or \"json\"")))
        }
    }
}

/// Validates a scenario; returns it in the scenario-file schema with every default
/// filled in, as JSON (`out = "json"`) or TOML text (`out = "toml"`), or nothing
/// (`out = "none"`: validation only, what `ccsim.loads` needs).
#[pyfunction]
#[pyo3(signature = (text, source, overrides=Vec::new(), fmt="toml", out="json"))]
fn check(
    py: Python<'_>,
    text: String,
    source: String,
    overrides: Vec<String>,
    fmt: &str,
    out: &str,
) -> PyResult<String> {
    let (fmt, out) = (fmt.to_string(), out.to_string());
    py.detach(|| {
        guarded(|| {
            let sc = parse(&text, &source, &overrides, &fmt)?;
            match out.as_str() {
                "toml" => Ok(sc.to_toml()),
                "none" => Ok(String::new()),
                "warnings" => Ok(serde_json::to_string(&sc.warnings).expect("warnings serialise")),
                _ => Ok(scenario::to_json(&sc)),
            }
        })
    })
}

/// Runs a scenario; returns the results as columns (`columns_to_py`), or with
/// `out = "json"` the results JSON (the engine's own export). The run goes in slices of
/// about 10 ms of wall time each, whatever an event costs (`ccsim_engine::sim::slices`): between them
/// Python signal handlers run (Ctrl-C stops the run: the results come back marked
/// partial with `stop_reason = "interrupted"`; so does a `KeyboardInterrupt` raised in
/// the callback), `progress(sim_time_s, end_s, events)` is called if given, and
/// `max_wall_s` (or the scenario's `max_wall`) is enforced.
#[pyfunction]
#[pyo3(signature = (text, source, overrides=Vec::new(), seed=None, fmt="toml", progress=None, max_events=None, max_wall_s=None, out="columns", warn=None))]
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
    out: &str,
    warn: Option<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let json = match out {
        "columns" => false,
        "json" => true,
        other => {
            return Err(ScenarioError::new_err(format!(
                "out: unknown results format '{other}'; use \"columns\" or \"json\""
            )))
        }
    };
    let fmt = fmt.to_string();
    let t0 = Instant::now();
    pycc::clear_failure();
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
    // The scenario's warnings (JSON), to `warn` before the run starts.
    if let (Some(cb), false) = (&warn, sim.scenario.warnings.is_empty()) {
        cb.call1(py, (serde_json::to_string(&sim.scenario.warnings).expect("warnings serialise"),))?;
    }
    let wall_limit = max_wall_s.or(sim.scenario.max_wall.map(|d| d.as_secs_f64()));
    let end_s = sim.end().as_secs_f64();
    let mut sizes = slices::Slices::default();
    loop {
        let (events, before) = (sizes.next(), sim.events_processed());
        let (done, took) = py.detach(|| {
            let start = Instant::now();
            let done = guarded(|| Ok(sim.run_slice(events)));
            (done, start.elapsed())
        });
        // A congestion control written in Python that raised ends the run with its
        // error (its exception the cause).
        if let Some(f) = pycc::take_failure() {
            if f.is_interrupt() {
                // Ctrl-C while a Python policy ran: the same stop as between slices.
                sim.stop(sim::StopReason::Interrupted);
                break;
            }
            return Err(f.into_err(py));
        }
        if done? {
            break;
        }
        sizes.record(sim.events_processed() - before, took);
        // Ctrl-C raises KeyboardInterrupt in the signal handler, or in the callback if
        // it comes while the callback runs: either way the run stops with its results.
        let mut checks = py.check_signals();
        if let (Ok(()), Some(cb)) = (&checks, &progress) {
            checks = cb.call1(py, (sim.now().as_secs_f64(), end_s, sim.events_processed())).map(|_| ());
        }
        if let Err(e) = checks {
            if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                sim.stop(sim::StopReason::Interrupted);
                break;
            }
            return Err(e);
        }
        if wall_limit.is_some_and(|w| t0.elapsed().as_secs_f64() >= w) {
            sim.stop(sim::StopReason::MaxWall);
            break;
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    if json {
        // Written a row at a time (the same text as `sim.results(wall).to_json()`).
        let text = py.detach(|| {
            guarded(|| {
                let mut buf = Vec::new();
                sim.write_results_json(&mut buf, wall).expect("results serialise");
                Ok(String::from_utf8(buf).expect("JSON is UTF-8"))
            })
        })?;
        return Ok(text.into_pyobject(py)?.into_any().unbind());
    }
    let cols = py.detach(|| {
        guarded(|| {
            // Consumes the simulation, freeing its parts as the columns are built.
            Ok(sim.into_results_columns(wall))
        })
    })?;
    Ok(columns_to_py(py, cols)?.into_any().unbind())
}

/// A column's values as the bytes of a native-endian array (read in Python with
/// `numpy.frombuffer`); a `bytearray`, so the arrays are writable.
/// (One copy: `memcpy` of the values' bytes.)
fn buffer<'py, T: Plain>(py: Python<'py>, v: &[T]) -> PyResult<Bound<'py, PyByteArray>> {
    // SAFETY: `Plain` types (u8, u32, u64, f64) have no padding and every byte pattern
    // is initialised, so their memory read as bytes is `size_of_val(v)` valid bytes.
    let bytes = unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) };
    Ok(PyByteArray::new(py, bytes))
}

/// Number types whose memory is their native-endian bytes, with no padding.
trait Plain: Copy {}
impl Plain for u8 {}
impl Plain for u32 {}
impl Plain for u64 {}
impl Plain for f64 {}

fn u64s<'py>(py: Python<'py>, v: &[u64]) -> PyResult<Bound<'py, PyByteArray>> {
    buffer(py, v)
}

fn f64s<'py>(py: Python<'py>, v: &[f64]) -> PyResult<Bound<'py, PyByteArray>> {
    buffer(py, v)
}

/// Whether a float column holds a null (NaN), so Python checks no value when it does not.
fn has_nan(v: &[f64]) -> bool {
    v.iter().any(|x| x.is_nan())
}

/// Strings as one `str` joined by NUL with their count, `(count, text)`, which Python
/// splits in one call (much faster than one object per string from here); a list of
/// `str` if one of them holds a NUL.
fn joined<'py>(py: Python<'py>, v: &[String]) -> PyResult<Bound<'py, PyAny>> {
    if v.iter().any(|s| s.contains('\0')) {
        return Ok(strs(py, v)?.into_any());
    }
    Ok((v.len(), v.join("\0")).into_pyobject(py)?.into_any())
}

fn strs<'py>(py: Python<'py>, v: &[String]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, v)
}

/// A table as `{"rows": n, "columns": [(name, kind, [payload...]), ...]}`; kinds and
/// payloads: `u64`, `bool` (u8): one buffer; `f64`: the buffer and whether it holds a
/// NaN (null); `opt_u64`: values and validity (u8); `str`: the dictionary (`joined`)
/// and the codes (u32, 2^32-1 = null); `ref`: the index of a shared dictionary (the
/// `dicts` of `columns_to_py`) and the codes; `list_f64`: offsets (u64), values, validity, and
/// whether a value is NaN; `json`: the JSON of the empty value and the JSON of the
/// `[row, value]` pairs of the other rows.
/// Each column is freed once copied (the table is consumed), so the engine's columns and
/// their Python copies are not all held at once.
fn table_to_py<'py>(py: Python<'py>, t: Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("rows", t.rows)?;
    let cols = PyList::empty(py);
    for (name, c) in t.columns {
        let c = &c;
        let (kind, payload): (&str, Vec<Bound<'py, PyAny>>) = match c {
            Column::U64(v) => ("u64", vec![u64s(py, v)?.into_any()]),
            Column::F64(v) => {
                ("f64", vec![f64s(py, v)?.into_any(), has_nan(v).into_pyobject(py)?.to_owned().into_any()])
            }
            Column::OptU64(v, m) => ("opt_u64", vec![u64s(py, v)?.into_any(), PyByteArray::new(py, m).into_any()]),
            Column::Bool(v) => ("bool", vec![PyByteArray::new(py, v).into_any()]),
            Column::Str { dict, codes } => ("str", vec![joined(py, dict)?, buffer(py, codes)?.into_any()]),
            Column::Ref { dict, codes } => {
                ("ref", vec![dict.into_pyobject(py)?.into_any(), buffer(py, codes)?.into_any()])
            }
            Column::ListF64 { offsets, values, valid } => {
                let null = has_nan(values).into_pyobject(py)?.to_owned().into_any();
                (
                    "list_f64",
                    vec![
                        u64s(py, offsets)?.into_any(),
                        f64s(py, values)?.into_any(),
                        PyByteArray::new(py, valid).into_any(),
                        null,
                    ],
                )
            }
            Column::Json { empty, rows } => {
                let rows = serde_json::to_string(rows).expect("json column serialises");
                ("json", vec![empty.to_string().into_pyobject(py)?.into_any(), rows.into_pyobject(py)?.into_any()])
            }
        };
        cols.append((name.as_str(), kind, PyList::new(py, payload)?))?;
    }
    d.set_item("columns", cols)?;
    Ok(d)
}

fn periods_to_py<'py>(py: Python<'py>, p: Periods) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", strs(py, &p.name)?)?;
    d.set_item("start_s", f64s(py, &p.start_s)?)?;
    d.set_item("end_s", f64s(py, &p.end_s)?)?;
    d.set_item("flows", table_to_py(py, p.flows)?)?;
    d.set_item("links", table_to_py(py, p.links)?)?;
    Ok(d)
}

/// The results as columns (what `ccsim.Results` is built from; python/ccsim/results.py
/// reads it): `meta` (the scalars as JSON), the tables `flows`, `links`, `nodes`, the
/// periods `phases` and `intervals`, `series`, and `dicts`: the dictionaries the `ref`
/// columns share (each `joined`). Consumes the columns, freeing each once copied.
fn columns_to_py<'py>(py: Python<'py>, c: Columns) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("meta", c.meta_json())?;
    let dicts = PyList::empty(py);
    for dict in c.dicts {
        dicts.append(match dict {
            Dict::Joined { count, text } => (count, text).into_pyobject(py)?.into_any(),
            Dict::List(v) => strs(py, &v)?.into_any(),
        })?;
    }
    d.set_item("dicts", dicts)?;
    d.set_item("flows", table_to_py(py, c.flows)?)?;
    d.set_item("links", table_to_py(py, c.links)?)?;
    d.set_item("nodes", table_to_py(py, c.nodes)?)?;
    d.set_item("phases", periods_to_py(py, c.phases)?)?;
    d.set_item("intervals", periods_to_py(py, c.intervals)?)?;
    let s = PyDict::new(py);
    s.set_item("name", strs(py, &c.series.name)?)?;
    s.set_item("entity", strs(py, &c.series.entity)?)?;
    s.set_item("metric", strs(py, &c.series.metric)?)?;
    s.set_item("unit", strs(py, &c.series.unit)?)?;
    s.set_item("offsets", u64s(py, &c.series.offsets)?)?;
    s.set_item("t", f64s(py, &c.series.t)?)?;
    s.set_item("v", f64s(py, &c.series.v)?)?;
    s.set_item("t_null", has_nan(&c.series.t))?;
    s.set_item("v_null", has_nan(&c.series.v))?;
    s.set_item("sample_s", c.series.sample_s)?;
    s.set_item("min", f64s(py, &c.series.min)?)?;
    s.set_item("max", f64s(py, &c.series.max)?)?;
    s.set_item("min_null", has_nan(&c.series.min))?;
    s.set_item("max_null", has_nan(&c.series.max))?;
    d.set_item("series", s)?;
    Ok(d)
}

/// Counts the bytes written to it (the size of an export not kept in memory).
struct CountingSink(usize);

impl std::io::Write for CountingSink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs the dumbbell benchmark; returns its JSON report, or with `full_results` the pair
/// (report, the run's results as columns: what `ccsim.run` hands to Python).
/// Build (scenario to simulation), run and results are timed apart: `build_time_s`,
/// `run_time_s`, `results_time_s` (the results as the columns `run` hands over);
/// the rates are per run time. With `full_results` the report also gives
/// `results_columns_bytes`, `results_to_py_s` (columns to Python objects) and the JSON
/// export's time and size (`results_json_time_s`, `results_json_bytes`: written to a
/// byte counter, not kept).
#[pyfunction]
#[pyo3(name = "bench", signature = (flows, bottleneck_bps, time_s, seed=1, qdisc=None, full_results=false, cc="reno", sack=false))]
#[allow(clippy::too_many_arguments)]
fn bench_dumbbell(
    py: Python<'_>,
    flows: u32,
    bottleneck_bps: u64,
    time_s: f64,
    seed: u64,
    qdisc: Option<&str>,
    full_results: bool,
    cc: &str,
    sack: bool,
) -> PyResult<Py<PyAny>> {
    let qdisc = qdisc.map(str::to_string);
    let cc_name = cc.to_string();
    let (mut v, cols) = py.detach(|| {
        guarded(|| {
            if !(time_s > 0.0) || !time_s.is_finite() {
                return Err(EngineError::new("bench", "time", format!("must be a positive time, got {time_s}")));
            }
            // The bound of a time in a scenario: 1e300 s used to saturate to about 213
            // days of simulated time, a run of hours.
            if time_s * 1e12 > ccsim_engine::units::MAX_TIME_PS {
                return Err(EngineError::new(
                    "bench",
                    "time",
                    format!("{time_s:e} s is too large; give at most about 100 days (8000000 s)"),
                ));
            }
            let cc = ccsim_engine::bench::cc_by_name(&cc_name)?;
            let q = ccsim_engine::bench::bottleneck_qdisc(&cc, bottleneck_bps, qdisc.as_deref())?;
            let qdisc_name = q.name();
            let sc = ccsim_engine::bench::dumbbell_sack(
                flows,
                bottleneck_bps,
                ccsim_engine::time::SimDuration::from_secs_f64(time_s),
                q,
                cc.clone(),
                sack,
            )?;
            let t0 = Instant::now();
            pycc::clear_failure();
            let calls0 = pycc::calls();
            let mut sim = sim::Simulation::new(sc, Some(seed));
            let build = t0.elapsed().as_secs_f64();
            let t1 = Instant::now();
            sim.run();
            let run = t1.elapsed().as_secs_f64();
            let py_calls = pycc::calls() - calls0;
            // With `full_results`, the JSON export first, timed apart (written a row at a
            // time to a byte counter, as `run(out="json")` writes it: no table of rows).
            let json_export = full_results.then(|| {
                let t3 = Instant::now();
                let mut sink = CountingSink(0);
                sim.write_results_json(&mut sink, build + run).expect("results serialise");
                (t3.elapsed().as_secs_f64(), sink.0)
            });
            // What `run` hands over: the columns, built straight from the simulation (no
            // table of row structs, no string per row), consuming it: its parts are freed
            // as the columns grow.
            let t2 = Instant::now();
            let c = sim.into_results_columns(build + run);
            let results_time = t2.elapsed().as_secs_f64();
            let delivered = c.delivered_pkts();
            let per = run.max(1e-9);
            let mut v = serde_json::json!({
                "flows": flows,
                "bottleneck_bps": bottleneck_bps,
                "qdisc": qdisc_name,
                "cc": cc.name(),
                "sack": sack,
                "sim_time_s": c.meta.sim_time_s,
                "wall_time_s": build + run,
                "build_time_s": build,
                "run_time_s": run,
                "events": c.meta.events,
                "events_per_s": c.meta.events as f64 / per,
                "delivered_pkts": delivered,
                "delivered_pkts_per_s": delivered as f64 / per,
                // Sent counts retransmissions: a policy that resends much (BBR v1 here)
                // does more work per packet delivered.
                "sent_pkts": c.flows_sum("sent_pkts"),
                "retransmitted_pkts": c.flows_sum("retransmitted_pkts"),
                "bottleneck_utilization": c.link_f64("left->right", "utilization"),
                "ccsim_version": ccsim_engine::VERSION,
            });
            if py_calls > 0 {
                // Calls into congestion control written in Python (its events).
                v["py_calls"] = py_calls.into();
                v["py_calls_per_pkt"] = (py_calls as f64 / delivered.max(1) as f64).into();
            }
            let mut cols = None;
            if let Some((t, bytes)) = json_export {
                v["results_json_time_s"] = t.into();
                v["results_json_bytes"] = bytes.into();
                v["results_columns_bytes"] = c.bytes().into();
                cols = Some(c);
            }
            v["results_time_s"] = results_time.into();
            Ok((v, cols))
        })
    })?;
    if let Some(f) = pycc::take_failure() {
        return Err(f.into_err(py));
    }
    match cols {
        None => Ok(v.to_string().into_pyobject(py)?.into_any().unbind()),
        Some(c) => {
            let t = Instant::now();
            let obj = columns_to_py(py, c)?;
            v["results_to_py_s"] = t.elapsed().as_secs_f64().into();
            Ok((v.to_string(), obj).into_pyobject(py)?.into_any().unbind())
        }
    }
}

/// Speed benchmark of a scenario (the datacenter cases of `ccsim bench --case`): parses
/// it, builds the simulation (its workloads expanded, timed as the build), runs it to
/// the end (timed as the run) and returns JSON: `flows` (listed and generated),
/// `sim_time_s`, `wall_time_s`, `build_time_s`, `run_time_s`, `events`, `events_per_s`,
/// `delivered_pkts`, `delivered_pkts_per_s`, `events_per_pkt`, `completed_flows`,
/// `ccsim_version`.
#[pyfunction]
#[pyo3(signature = (text, source, seed=None, fmt="toml"))]
fn bench_scenario(py: Python<'_>, text: String, source: String, seed: Option<u64>, fmt: &str) -> PyResult<String> {
    let fmt = fmt.to_string();
    pycc::clear_failure();
    let v = py.detach(|| {
        guarded(|| {
            let sc = parse(&text, &source, &[], &fmt)?;
            let t0 = Instant::now();
            let mut sim = sim::Simulation::new(sc, seed);
            let build = t0.elapsed().as_secs_f64();
            let t1 = Instant::now();
            sim.run();
            let run = t1.elapsed().as_secs_f64();
            let flows = sim.scenario.flows.len();
            let c = sim.into_results_columns(build + run);
            let r = &c.meta;
            let delivered = c.delivered_pkts();
            let completed = match c.flows.column("completed") {
                Some(ccsim_engine::results::columns::Column::Bool(v)) => v.iter().filter(|&&b| b != 0).count(),
                _ => 0,
            };
            let per = run.max(1e-9);
            Ok(serde_json::json!({
                "flows": flows,
                "sim_time_s": r.sim_time_s,
                "wall_time_s": build + run,
                "build_time_s": build,
                "run_time_s": run,
                "events": r.events,
                "events_per_s": r.events as f64 / per,
                "delivered_pkts": delivered,
                "delivered_pkts_per_s": delivered as f64 / per,
                // Sent counts retransmissions: a policy that resends much (BBR v1 here)
                // does more work per packet delivered.
                "sent_pkts": c.flows_sum("sent_pkts"),
                "retransmitted_pkts": c.flows_sum("retransmitted_pkts"),
                "events_per_pkt": r.events as f64 / (delivered.max(1) as f64),
                "completed_flows": completed,
                "ccsim_version": ccsim_engine::VERSION,
            }))
        })
    })?;
    if let Some(f) = pycc::take_failure() {
        return Err(f.into_err(py));
    }
    Ok(v.to_string())
}

/// The registry of congestion controls as JSON: a list, in registration order, of
/// `{name, aliases, description, extra_series, needs_ecn, sack, parameters: [{name,
/// default, transport}]}` (`needs_ecn`: its flows are ECN-capable by default, as DCTCP's;
/// `sack`: it has SACK recovery, so its flows may set `sack = true`; a
/// default of `null`: unset by default; `transport`: a parameter of the transport's loss
/// recovery, `cc::LossRecoveryConfig`, that the policy accepts in its table).
#[pyfunction]
fn cc_registry() -> String {
    let list: Vec<serde_json::Value> = ccsim_engine::cc::CcConfig::ALL
        .iter()
        .map(|i| {
            let params: Vec<serde_json::Value> = i
                .parameter_defaults()
                .into_iter()
                .map(|(n, v)| serde_json::json!({ "name": n, "default": v, "transport": i.is_transport_parameter(n) }))
                .collect();
            serde_json::json!({
                "name": i.name,
                "aliases": i.aliases,
                "description": i.description,
                "extra_series": i.extra_series,
                "needs_ecn": i.ecn_echo.is_some(),
                "sack": i.sack,
                "parameters": params,
            })
        })
        .collect();
    serde_json::Value::from(list).to_string()
}

/// The registry of queue disciplines as JSON: a list, in registration order, of
/// `{name, aliases, description, drop_reasons, series: [{name, unit}], parameters:
/// [{name, default}]}`.
#[pyfunction]
fn qdisc_registry() -> String {
    let list: Vec<serde_json::Value> = ccsim_engine::qdisc::QdiscConfig::ALL
        .iter()
        .map(|i| {
            let params: Vec<serde_json::Value> = i
                .parameter_defaults()
                .into_iter()
                .map(|(n, v)| serde_json::json!({ "name": n, "default": v }))
                .collect();
            serde_json::json!({
                "name": i.name,
                "aliases": i.aliases,
                "description": i.description,
                "drop_reasons": i.drop_reasons,
                "series": i.series.iter().map(|&(n, u)| serde_json::json!({ "name": n, "unit": u })).collect::<Vec<_>>(),
                "parameters": params,
            })
        })
        .collect();
    serde_json::Value::from(list).to_string()
}

/// The registry of network elements as JSON: a list, in registration order, of
/// `{name, description, drop_reasons, parameters: [{name, required, default}]}` (a
/// required parameter's `default` is an example value; `null`: unset by default).
#[pyfunction]
fn element_registry() -> String {
    use ccsim_engine::element::ParamDefault;
    let list: Vec<serde_json::Value> = ccsim_engine::element::ElementConfig::ALL
        .iter()
        .map(|i| {
            let params: Vec<serde_json::Value> = i
                .parameter_defaults()
                .into_iter()
                .map(|(n, d)| match d {
                    ParamDefault::Required(v) => serde_json::json!({ "name": n, "required": true, "default": v }),
                    ParamDefault::Default(v) => serde_json::json!({ "name": n, "required": false, "default": v }),
                    ParamDefault::Unset => serde_json::json!({ "name": n, "required": false, "default": null }),
                })
                .collect();
            serde_json::json!({
                "name": i.name,
                "description": i.description,
                "drop_reasons": i.drop_reasons,
                "parameters": params,
            })
        })
        .collect();
    serde_json::Value::from(list).to_string()
}

/// The flow kinds of a scenario file as JSON: a list, in the validator's order, of
/// `{name, description, sender: {name, description}, receiver: {name, description},
/// common_keys, keys: [{name, required, default, in_defaults}], params_key, cc_params,
/// parameters: [{name, required, default}]}`: `keys` are the `[[flows]]` keys the kind
/// takes besides those every flow takes (`common_keys`), `in_defaults` where
/// `[defaults]` sets them too; `params_key` names the table of its own `parameters`
/// (`null`: none), or with `cc_params` (window flows) the table of its congestion
/// control's (`cc_registry`). A required key's or parameter's `default` is an example
/// value; `null`: unset by default.
#[pyfunction]
fn flow_registry() -> String {
    use ccsim_engine::element::ParamDefault;
    use ccsim_engine::scenario::{FlowSpec, KeyDefault};
    use ccsim_engine::transport::{Receiver, Sender};
    let endpoint = |all: &[ccsim_engine::transport::SenderInfo], name: &str| {
        let d = all.iter().find(|e| e.name == name).map_or("", |e| e.description);
        serde_json::json!({ "name": name, "description": d })
    };
    let list: Vec<serde_json::Value> = FlowSpec::KINDS
        .iter()
        .map(|k| {
            let keys: Vec<serde_json::Value> = k
                .keys
                .iter()
                .map(|key| {
                    let (required, default) = match key.default {
                        KeyDefault::Required(_) => (true, Some(key.value())),
                        KeyDefault::Default(_) => (false, Some(key.value())),
                        KeyDefault::Unset(_) => (false, None),
                    };
                    serde_json::json!({
                        "name": key.name,
                        "required": required,
                        "default": default,
                        "in_defaults": key.in_defaults(),
                    })
                })
                .collect();
            let params: Vec<serde_json::Value> = k
                .parameter_defaults()
                .into_iter()
                .map(|(n, d)| match d {
                    ParamDefault::Required(v) => serde_json::json!({ "name": n, "required": true, "default": v }),
                    ParamDefault::Default(v) => serde_json::json!({ "name": n, "required": false, "default": v }),
                    ParamDefault::Unset => serde_json::json!({ "name": n, "required": false, "default": null }),
                })
                .collect();
            let cc_params = k.keys.iter().any(|key| key.name == "cc");
            serde_json::json!({
                "name": k.name,
                "description": k.description,
                "sender": endpoint(Sender::ALL, k.sender),
                "receiver": endpoint(Receiver::ALL, k.receiver),
                "common_keys": ccsim_engine::scenario::COMMON_KEYS,
                "keys": keys,
                "params_key": k.params.map(|p| p.key).or(cc_params.then_some("params")),
                "cc_params": cc_params,
                "parameters": params,
            })
        })
        .collect();
    serde_json::Value::from(list).to_string()
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
    m.add_function(wrap_pyfunction!(bench_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(cc_registry, m)?)?;
    m.add_function(wrap_pyfunction!(qdisc_registry, m)?)?;
    m.add_function(wrap_pyfunction!(element_registry, m)?)?;
    m.add_function(wrap_pyfunction!(flow_registry, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_time, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    pycc::register(m)?;
    m.add_class::<stepper::Stepper>()?;
    Ok(())
}
