//! Congestion control written in Python: the engine's external policies
//! (`ccsim_engine::cc::external`) as classes named by import path (`module:Class`).
//!
//! The lookup and the checks are Python's (`ccsim._pycc`); here each flow's instance is
//! wrapped as a `CongestionControl`. Every event takes the GIL back (the simulation
//! runs with it released), calls the instance's method with a sample object and reads
//! its outputs (`cwnd`, `ssthresh`, `pacing_rate`, `send_quantum`, its own series)
//! once, so `metrics` (read by the transport several times per packet) stays in Rust.
//!
//! An exception in a method, or an output of the wrong type, fails the policy: it
//! keeps its last outputs and ignores further events, and the failure (the first of
//! the run) waits in a per-thread slot until the run loop takes it after its slice
//! (`take_failure`) and raises it, with the flow, the event and the simulated time, the
//! Python exception as its cause (so its traceback shows).

use ccsim_engine::cc::external::{ExternalFlow, ExternalInfo, ExternalPolicies};
use ccsim_engine::cc::{
    AckSample, Cause, CcMetrics, CongestionControl, CongestionSample, ExternalConfig, RateSample, Recovery,
    RecoveryAck, SendSample, EXTRA_SLOTS,
};
use ccsim_engine::time::{SimTime, PS_PER_S};
use pyo3::create_exception;
use pyo3::exceptions::PyRuntimeError;
use pyo3::intern;
use pyo3::prelude::*;
use std::cell::RefCell;

create_exception!(
    _ccsim,
    CongestionControlError,
    PyRuntimeError,
    "A congestion control written in Python raised (its exception is the cause)."
);

fn secs(t: u64) -> f64 {
    t as f64 / PS_PER_S as f64
}

/// The table as JSON text (what `ccsim._pycc` reads).
fn json(t: &toml::Table) -> String {
    serde_json::to_string(t).expect("a TOML table serialises to JSON")
}

/// The registered external policies: Python classes.
pub struct PyPolicies;

pub static POLICIES: PyPolicies = PyPolicies;

fn message(py: Python<'_>, e: &PyErr) -> String {
    let v = e.value(py);
    let ty = v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "Exception".into());
    match ty.as_str() {
        "ValueError" | "TypeError" | "AttributeError" | "ModuleNotFoundError" | "ImportError" => v.to_string(),
        _ => format!("{ty}: {v}"),
    }
}

impl ExternalPolicies for PyPolicies {
    fn check(&self, name: &str, params: &toml::Table, source: &str) -> Result<ExternalInfo, String> {
        Python::attach(|py| {
            let r = (|| -> PyResult<(Vec<String>, String, bool)> {
                let m = py.import("ccsim._pycc")?;
                m.call_method1("check", (name, json(params), source))?.extract()
            })();
            match r {
                Ok((series, recovery, rate_sample)) => Ok(ExternalInfo {
                    series,
                    recovery: if recovery == "newreno" { Recovery::NewReno } else { Recovery::Reno },
                    rate_sample,
                }),
                Err(e) => Err(format!("congestion control '{name}': {}", message(py, &e))),
            }
        })
    }

    fn build(&self, cfg: &ExternalConfig, flow: ExternalFlow<'_>) -> Box<dyn CongestionControl + Send> {
        Python::attach(|py| {
            let mut p = PyPolicy {
                obj: py.None(),
                name: cfg.name.clone(),
                flow: flow.flow.to_string(),
                sent: false,
                dup: false,
                rs: cfg.rate_sample,
                series: cfg.series,
                m: CcMetrics::window(flow.mss),
                failed: false,
            };
            let built = (|| -> PyResult<(Py<PyAny>, bool, bool)> {
                let m = py.import("ccsim._pycc")?;
                m.call_method1(
                    "build",
                    (&cfg.name, json(&cfg.params), flow.flow, flow.mss, flow.max_window, flow.seed),
                )?
                .extract()
            })();
            match built {
                Ok((obj, sent, dup)) => {
                    (p.obj, p.sent, p.dup) = (obj, sent, dup);
                    if let Err(e) = p.read(py) {
                        p.fail(py, e, "__init__", SimTime::ZERO);
                    }
                }
                Err(e) => p.fail(py, e, "__init__", SimTime::ZERO),
            }
            Box::new(p) as Box<dyn CongestionControl + Send>
        })
    }
}

/// A failure waiting to be raised: the exception and where it happened.
pub struct Failure {
    err: PyErr,
    what: String,
    /// A `KeyboardInterrupt` (Ctrl-C while the policy's Python ran): the user's stop,
    /// not the policy's failure.
    interrupt: bool,
}

impl Failure {
    /// Whether it is the user's Ctrl-C, which stops a run with its partial results.
    pub fn is_interrupt(&self) -> bool {
        self.interrupt
    }

    /// The exception to raise: `CongestionControlError` with the original as its cause
    /// (a `KeyboardInterrupt` as it is).
    pub fn into_err(self, py: Python<'_>) -> PyErr {
        if self.interrupt {
            return self.err;
        }
        let e = CongestionControlError::new_err(self.what);
        e.set_cause(py, Some(self.err));
        e
    }
}

thread_local! {
    static FAILED: RefCell<Option<Failure>> = const { RefCell::new(None) };
    static CALLS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Calls into Python policies on this thread so far (what `ccsim bench` reports).
pub fn calls() -> u64 {
    CALLS.with(|c| c.get())
}

/// The first failure of a Python policy on this thread since the last call, if any.
pub fn take_failure() -> Option<Failure> {
    FAILED.with(|f| f.borrow_mut().take())
}

/// Forgets a failure left by a run that did not take it (a run abandoned by another
/// error).
pub fn clear_failure() {
    drop(take_failure());
}

struct PyPolicy {
    obj: Py<PyAny>,
    name: String,
    flow: String,
    /// It defines `on_packet_sent` / `on_dup_ack`; it takes rate samples.
    sent: bool,
    dup: bool,
    rs: bool,
    series: &'static [&'static str],
    /// Its outputs, read after each call.
    m: CcMetrics,
    failed: bool,
}

#[pyclass(frozen, get_all, module = "ccsim", name = "AckSample")]
struct PyAck {
    now: f64,
    now_ps: u64,
    acked_pkts: u32,
    rtt: f64,
    rtt_ps: u64,
    in_flight_pkts: u32,
    sent: f64,
    sent_ps: u64,
    flags: u8,
    ece: bool,
    ack_seq: u32,
    recovery: &'static str,
}

#[pyclass(frozen, get_all, module = "ccsim", name = "CongestionSample")]
struct PyCongestion {
    now: f64,
    now_ps: u64,
    cause: &'static str,
    in_flight_pkts: u32,
    pipe: bool,
    rto_repeat: bool,
    dupack_threshold: u32,
}

#[pyclass(frozen, get_all, module = "ccsim", name = "RateSample")]
struct PyRate {
    now: f64,
    now_ps: u64,
    total_delivered: u64,
    delivered_time: f64,
    acked_sacked: u32,
    prior_delivered: Option<u64>,
    delivered: u64,
    interval: Option<f64>,
    is_app_limited: bool,
    rtt: Option<f64>,
    prior_in_flight: u32,
    in_flight: u32,
    /// Packets per second when the sample is valid (`RateSample::rate_pps`).
    rate_pps: Option<f64>,
}

#[pyclass(frozen, get_all, module = "ccsim", name = "SendSample")]
struct PySend {
    now: f64,
    now_ps: u64,
    seq: u32,
    retransmission: bool,
}

impl PyPolicy {
    /// Reads the instance's outputs.
    fn read(&mut self, py: Python<'_>) -> PyResult<()> {
        let o = self.obj.bind(py);
        let cwnd = bytes(&o.getattr(intern!(py, "cwnd"))?, "cwnd")?
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("cwnd is None; set it to a window in bytes"))?;
        if cwnd == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err("cwnd is 0; a window is at least 1 byte"));
        }
        let mut m = CcMetrics::window(cwnd);
        // The optional outputs: absent means None (and a quantum of 1).
        let opt = |name| opt_attr(o, name);
        if let Some(v) = opt(intern!(py, "ssthresh"))? {
            if let Some(s) = bytes(&v, "ssthresh")? {
                m = m.with_ssthresh(s);
            }
        }
        if let Some(v) = opt(intern!(py, "pacing_rate"))? {
            if let Some(r) = bytes(&v, "pacing_rate")? {
                let q: u32 = match opt(intern!(py, "send_quantum"))? {
                    None => 1,
                    Some(q) => q.extract().map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(
                            "send_quantum should be a whole number of packets, at least 1",
                        )
                    })?,
                };
                m = m.with_pacing(r.max(1), q.max(1));
            }
        }
        for (i, &n) in self.series.iter().enumerate().take(EXTRA_SLOTS) {
            let v: f64 = o.getattr(n)?.extract().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(format!("the series value '{n}' should be a number"))
            })?;
            m = m.with_extra(i, n, v);
        }
        self.m = m;
        Ok(())
    }

    fn fail(&mut self, py: Python<'_>, err: PyErr, event: &str, now: SimTime) {
        // Ctrl-C lands in whatever Python runs: here, the policy's method. The run stops
        // after its slice; the policy goes on meanwhile.
        let interrupt = err.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py);
        self.failed = !interrupt;
        let what = format!(
            "congestion control '{}' of flow '{}' failed in {event} at t = {:.9} s: {}",
            self.name,
            self.flow,
            now.as_secs_f64(),
            message(py, &err)
        );
        FAILED.with(|f| {
            let mut f = f.borrow_mut();
            if f.is_none() {
                *f = Some(Failure { err, what, interrupt });
            }
        });
    }

    /// Calls `method` with the sample `arg` and reads the outputs; its return value,
    /// `None` if it failed.
    fn call<'py, A: IntoPyObject<'py>>(
        &mut self,
        method: &Bound<'py, pyo3::types::PyString>,
        arg: A,
        now: SimTime,
    ) -> Option<Py<PyAny>> {
        let py = method.py();
        CALLS.with(|c| c.set(c.get() + 1));
        let r = self.obj.call_method1(py, method, (arg,)).and_then(|v| self.read(py).map(|_| v));
        r.map_err(|e| self.fail(py, e, &method.to_string(), now)).ok()
    }
}

/// The attribute `name` of `o`, `None` if it has none.
fn opt_attr<'py>(
    o: &Bound<'py, PyAny>,
    name: &Bound<'py, pyo3::types::PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    match o.getattr(name) {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(o.py()) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A non-negative whole number of bytes (or bits/s) from an int or a float (floored);
/// `None` for None.
fn bytes(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<u64>> {
    if v.is_none() {
        return Ok(None);
    }
    if let Ok(n) = v.extract::<u64>() {
        return Ok(Some(n));
    }
    match v.extract::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(Some(x as u64)),
        _ => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{what} should be a non-negative number, found {}",
            v.repr().map(|r| r.to_string()).unwrap_or_default()
        ))),
    }
}

impl CongestionControl for PyPolicy {
    fn on_packet_sent(&mut self, s: &SendSample) {
        if self.failed || !self.sent {
            return;
        }
        Python::attach(|py| {
            let arg = PySend {
                now: secs(s.now.as_ps()),
                now_ps: s.now.as_ps(),
                seq: s.seq,
                retransmission: s.retransmission,
            };
            self.call(intern!(py, "on_packet_sent"), arg, s.now);
        });
    }

    fn on_ack(&mut self, s: &AckSample) {
        if self.failed {
            return;
        }
        Python::attach(|py| {
            let arg = PyAck {
                now: secs(s.now.as_ps()),
                now_ps: s.now.as_ps(),
                acked_pkts: s.acked_pkts,
                rtt: secs(s.rtt.as_ps()),
                rtt_ps: s.rtt.as_ps(),
                in_flight_pkts: s.in_flight_pkts,
                sent: secs(s.sent.as_ps()),
                sent_ps: s.sent.as_ps(),
                flags: s.flags,
                ece: s.flags & ccsim_engine::packet::FLAG_ECE != 0,
                ack_seq: s.ack_seq,
                recovery: match s.recovery {
                    RecoveryAck::None => "none",
                    RecoveryAck::Partial => "partial",
                    RecoveryAck::Exit => "exit",
                },
            };
            self.call(intern!(py, "on_ack"), arg, s.now);
        });
    }

    fn on_dup_ack(&mut self, now: SimTime) {
        if self.failed || !self.dup {
            return;
        }
        Python::attach(|py| self.call(intern!(py, "on_dup_ack"), secs(now.as_ps()), now));
    }

    fn on_congestion(&mut self, s: &CongestionSample) {
        if self.failed {
            return;
        }
        Python::attach(|py| {
            let arg = PyCongestion {
                now: secs(s.now.as_ps()),
                now_ps: s.now.as_ps(),
                cause: match s.cause {
                    Cause::FastRetransmit => "fast_retransmit",
                    Cause::Timeout => "timeout",
                    Cause::Ecn => "ecn",
                },
                in_flight_pkts: s.in_flight_pkts,
                pipe: s.pipe,
                rto_repeat: s.rto_repeat,
                dupack_threshold: s.dupack_threshold,
            };
            self.call(intern!(py, "on_congestion"), arg, s.now);
        });
    }

    fn on_rate_sample(&mut self, rs: &RateSample) -> bool {
        if self.failed || !self.rs {
            return false;
        }
        Python::attach(|py| {
            let arg = PyRate {
                now: secs(rs.now.as_ps()),
                now_ps: rs.now.as_ps(),
                total_delivered: rs.total_delivered,
                delivered_time: secs(rs.delivered_time.as_ps()),
                acked_sacked: rs.acked_sacked,
                prior_delivered: rs.prior_delivered,
                delivered: rs.delivered,
                interval: rs.interval.map(|d| secs(d.as_ps())),
                is_app_limited: rs.is_app_limited,
                rtt: rs.rtt.map(|d| secs(d.as_ps())),
                prior_in_flight: rs.prior_in_flight,
                in_flight: rs.in_flight,
                rate_pps: rs.rate_pps(),
            };
            let Some(v) = self.call(intern!(py, "on_rate_sample"), arg, rs.now) else { return false };
            v.is_truthy(py).unwrap_or_else(|e| {
                self.fail(py, e, "on_rate_sample", rs.now);
                false
            })
        })
    }

    #[inline]
    fn metrics(&self) -> CcMetrics {
        self.m
    }
}

/// Registers the Python policies with the engine and the sample classes in the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    ccsim_engine::cc::external::set_external_policies(&POLICIES);
    m.add("CongestionControlError", m.py().get_type::<CongestionControlError>())?;
    m.add_class::<PyAck>()?;
    m.add_class::<PyCongestion>()?;
    m.add_class::<PySend>()?;
    m.add_class::<PyRate>()?;
    Ok(())
}
