//! A simulation advanced step by step from Python (`_ccsim.Simulation`): what the
//! Gymnasium environment (`ccsim.gym`) drives. It runs the engine's
//! `Simulation::run_until` with the GIL released (a congestion control written in Python
//! takes it back for each of its events), raises a Python policy's failure after each
//! advance as `run` does, and hands over the results as `run`'s columns.
//!
//! Stepping does not change what is simulated: `run_until` stops the hand-over of
//! packets at send time at the step's end (so that the state read there is the state at
//! that time), and the fast paths it turns off give the plain path's results to the bit
//! (crates/ccsim-engine/tests/observation.rs). The count of events may differ from an
//! unstepped run's (an ack handed over at send time is no event of its own).
//! `[scenario].max_events` and `max_wall` are not applied: the caller decides how far
//! to go.

use crate::{columns_to_py, guarded, parse, pycc};
use ccsim_engine::sim;
use ccsim_engine::time::{SimDuration, SimTime};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Mutex;
use std::time::Instant;

/// A scenario's simulation, advanced by `run_until`.
#[pyclass(module = "ccsim._ccsim", name = "Simulation")]
pub struct Stepper {
    /// `None` once `results` has consumed it. (In a mutex only to make the class
    /// `Sync`, as PyO3 asks: every method has `&mut self`, so it is never locked.)
    sim: Mutex<Option<sim::Simulation>>,
    done: bool,
    /// The time run to (every event up to it is done; the engine's clock is at the
    /// last of them).
    at: SimTime,
    /// Wall time spent simulating (the results' `wall_time_s`).
    wall: f64,
}

impl Stepper {
    fn advance(&mut self, py: Python<'_>, until: SimTime) -> PyResult<bool> {
        if self.done {
            self.sim()?;
            return Ok(true);
        }
        let sim = self.sim()?;
        let until = until.min(sim.end());
        let t0 = Instant::now();
        let done = py.detach(|| {
            guarded(|| {
                if until >= sim.end() {
                    // To the end, exactly as `run` ends (the last measurements retaken
                    // at the end time).
                    while !sim.run_slice(u64::MAX) {}
                    Ok(true)
                } else {
                    sim.run_until(until);
                    Ok(false)
                }
            })
        });
        self.wall += t0.elapsed().as_secs_f64();
        // A congestion control written in Python that raised ends the run with its
        // error (its exception the cause).
        if let Some(f) = pycc::take_failure() {
            self.done = true;
            return Err(f.into_err(py));
        }
        self.done = done?;
        self.at = self.at.max(until);
        py.check_signals()?;
        Ok(self.done)
    }

    fn now(&mut self) -> PyResult<SimTime> {
        let at = self.at;
        let sim = self.sim()?;
        Ok(sim.now().max(at).min(sim.end()))
    }

    fn sim(&mut self) -> PyResult<&mut sim::Simulation> {
        self.sim
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("this simulation's results were taken; make a new one"))
    }
}

#[pymethods]
impl Stepper {
    /// Parses and builds the scenario (congestion controls written in Python are built
    /// here: their constructors run).
    #[new]
    #[pyo3(signature = (text, source, overrides=Vec::new(), seed=None, fmt="toml"))]
    fn new(
        py: Python<'_>,
        text: String,
        source: String,
        overrides: Vec<String>,
        seed: Option<u64>,
        fmt: &str,
    ) -> PyResult<Self> {
        let fmt = fmt.to_string();
        pycc::clear_failure();
        let t0 = Instant::now();
        let mut sim =
            py.detach(|| guarded(|| Ok(sim::Simulation::new(parse(&text, &source, &overrides, &fmt)?, seed))))?;
        // The caller decides how far to go: no event limit (the last step would
        // otherwise apply it alone, through `run_slice`).
        sim.scenario.max_events = None;
        if let Some(f) = pycc::take_failure() {
            return Err(f.into_err(py));
        }
        Ok(Stepper { sim: Mutex::new(Some(sim)), done: false, at: SimTime::ZERO, wall: t0.elapsed().as_secs_f64() })
    }

    /// Runs every event up to and including `t_s` seconds (capped at the scenario's
    /// end); returns whether the run is over (its end reached). A time before `now_s`
    /// runs nothing.
    fn run_until(&mut self, py: Python<'_>, t_s: f64) -> PyResult<bool> {
        if !t_s.is_finite() || t_s < 0.0 {
            return Err(PyValueError::new_err(format!("t_s: {t_s} is not a time; give seconds, at least 0")));
        }
        self.advance(py, SimTime::from_ps(SimDuration::from_secs_f64(t_s).as_ps()))
    }

    /// `run_until` with the time in integer picoseconds (exact).
    fn run_until_ps(&mut self, py: Python<'_>, t_ps: u64) -> PyResult<bool> {
        self.advance(py, SimTime::from_ps(t_ps))
    }

    /// Simulated time reached, seconds.
    #[getter]
    fn now_s(&mut self) -> PyResult<f64> {
        Ok(self.now()?.as_secs_f64())
    }

    /// Simulated time reached, integer picoseconds.
    #[getter]
    fn now_ps(&mut self) -> PyResult<u64> {
        Ok(self.now()?.as_ps())
    }

    /// The scenario's end, seconds.
    #[getter]
    fn end_s(&mut self) -> PyResult<f64> {
        Ok(self.sim()?.end().as_secs_f64())
    }

    /// The scenario's end, integer picoseconds.
    #[getter]
    fn end_ps(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.end().as_ps())
    }

    /// Whether the run reached its end.
    #[getter]
    fn done(&self) -> bool {
        self.done
    }

    /// The results as columns (as `run` returns them; `ccsim.Results.from_columns`
    /// reads them). Consumes the simulation; before its end they are partial.
    fn results(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut sim = self
            .sim
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this simulation's results were taken already"))?;
        if !self.done {
            sim.stop(sim::StopReason::Interrupted);
        }
        let wall = self.wall;
        let cols = py.detach(|| guarded(|| Ok(sim.into_results_columns(wall))))?;
        Ok(columns_to_py(py, cols)?.into_any().unbind())
    }
}
