//! Heybey's (1990) "smart link" (sections 2.1.4 and 2.2, after Mosely 1984): a channel
//! element that keeps a table of the voice flows crossing it and computes a control
//! rate p_j that it writes into every voice packet it sends (min of the packet's value
//! and its own), so that the receiver can feed it back to the sender.
//!
//! - The table is keyed by destination user (here: by flow, which is one-to-one with
//!   its destination, the flow's partner) and holds the rate r_ij each data packet
//!   reports. A flow enters on its first data packet and leaves on its end-of-spurt
//!   packet; W_j is the table's size and f_j = sum_i r_ij.
//! - The rate is read when the packet starts transmission (`read_rate = "transmit"`,
//!   the paper's simulator) or when it arrives at the queue (`"enqueue"`, the "forward
//!   queueing" change of section 3.3, Figs. A-7/A-8). The control value is always
//!   written at transmission.
//! - Every `update` (20 ms "fast", 100 ms "slow") the link computes, with c_j = a*C_j:
//!   Hayden: p(t+1) = max[c/W, min[c, p(t) + (c - f(t))/W]]
//!   Mosely: p(t+1) = max[c/W, min[c, max_i r_ij(t) + (c - f(t))/W]]
//!   Jaffe:  p(t+1) = max[c/(W+1), min[c, p(t) + (c - f(t) - p(t))/(W+1)]]
//!   With an empty table (W = 0, where Hayden's and Mosely's c/W is undefined) the
//!   value is c (the bound every formula tends to; a choice, see the notes).
//! - Mosely's "protocol" (`protocol = true`): an update happens only if every flow in
//!   the table reports r_ij <= p_j(t); otherwise the link tries again after `retry`
//!   (20 ms).
//!
//! The initial control value is c_j (a choice: the paper does not say).

use super::Names;
use super::{ChannelView, ElemCx, ElemVerdict, Element, ElementPolicy};
use crate::base::rng::Rng;
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::serde_units;
use crate::packet::meta::{Control, NO_META};
use crate::packet::{Packet, NO_FLOW};
use serde::{Deserialize, Serialize};

/// The control-value formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    Hayden,
    Mosely,
    Jaffe,
}

/// When the link reads a data packet's reported rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadRate {
    /// When the packet starts transmission (Heybey's simulator).
    Transmit,
    /// When the packet joins the queue (section 3.3, "forward queueing" change).
    Enqueue,
}

fn d_update() -> SimDuration {
    SimDuration::from_millis(20)
}
fn d_retry() -> SimDuration {
    SimDuration::from_millis(20)
}
fn d_queue_after() -> SimDuration {
    SimDuration::from_secs(10)
}
fn d_read() -> ReadRate {
    ReadRate::Transmit
}

/// `[[elements]] kind = "smart_link"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmartLinkConfig {
    pub algorithm: Algorithm,
    /// Effective capacity fraction a (c_j = a*C_j).
    pub a: f64,
    /// C_j, bits/s. Default: the channel's rate (filled in by validation).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_rate")]
    pub capacity: Option<u64>,
    /// Interval between update attempts (Heybey: 20 ms fast, 100 ms slow).
    #[serde(default = "d_update", with = "serde_units::time")]
    pub update: SimDuration,
    /// Mosely's protocol.
    #[serde(default)]
    pub protocol: bool,
    /// Retry interval when the protocol forbids an update (Heybey: 20 ms).
    #[serde(default = "d_retry", with = "serde_units::time")]
    pub retry: SimDuration,
    #[serde(default = "d_read")]
    pub read_rate: ReadRate,
    /// The largest queue is also measured from this time on (startup spike excluded).
    #[serde(default = "d_queue_after", with = "serde_units::time")]
    pub queue_after: SimDuration,
    /// Record the table size and control value at every update attempt, and the bits
    /// sent per 100 ms (the paper's figures).
    #[serde(default)]
    pub record: bool,
}

mod opt_rate {
    use serde::{Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(r) => s.serialize_str(&crate::base::units::fmt_rate(*r)),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        crate::base::units::serde_units::rate::deserialize(d).map(Some)
    }
}

impl SmartLinkConfig {
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.a.is_finite() && self.a > 0.0 && self.a <= 10.0) {
            return Err(("a", format!("must be in (0, 10], got {}", self.a)));
        }
        if self.capacity == Some(0) {
            return Err(("capacity", "must be positive".into()));
        }
        if self.update < SimDuration::from_micros(1) {
            return Err(("update", "must be at least 1us".into()));
        }
        if self.retry < SimDuration::from_micros(1) {
            return Err(("retry", "must be at least 1us".into()));
        }
        Ok(())
    }
}

/// One control-value step of `alg` (section 2.2) from p = p_j(t), c = c_j, W = W_j,
/// f = f_j(t) and rmax = max_i r_ij(t).
pub fn control_value(alg: Algorithm, p: f64, c: f64, w: usize, f: f64, rmax: f64) -> f64 {
    let wf = w as f64;
    match alg {
        _ if w == 0 && alg != Algorithm::Jaffe => c,
        Algorithm::Hayden => (c / wf).max(c.min(p + (c - f) / wf)),
        Algorithm::Mosely => (c / wf).max(c.min(rmax + (c - f) / wf)),
        Algorithm::Jaffe => (c / (wf + 1.0)).max(c.min(p + (c - f - p) / (wf + 1.0))),
    }
}

/// Trace of a recording smart link.
#[derive(Clone, Debug, Default)]
pub struct SmartTrace {
    pub t_s: Vec<f64>,
    pub flows: Vec<u32>,
    pub control_bps: Vec<f64>,
    /// Bits whose transmission started in each 100 ms bucket.
    pub bits_per_100ms: Vec<u64>,
}

#[derive(Clone, Debug)]
pub struct SmartLink {
    pub cfg: SmartLinkConfig,
    c: f64,
    /// r_ij by flow; `NAN` = not in the table.
    rates: Vec<f64>,
    /// p_j.
    pub control_bps: f64,
    pub attempts: u64,
    pub updates: u64,
    /// Largest number of packets waiting when a transmission started, from `queue_after`.
    pub queue_max_after: u64,
    pub trace: Option<Box<SmartTrace>>,
}

/// The trace of a recording smart link, in a report.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SmartTraceReport<'a> {
    pub t_s: &'a [f64],
    pub flows: &'a [u32],
    pub control_bps: &'a [f64],
    pub bits_per_100ms: &'a [u64],
}

/// What a smart link reports.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SmartLinkReport<'a> {
    pub control_bps: f64,
    /// W_j at the end of the run.
    pub flows: usize,
    pub attempts: u64,
    pub updates: u64,
    pub queue_max_after_pkts: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<SmartTraceReport<'a>>,
}

impl ElementPolicy for SmartLink {
    type Config = SmartLinkConfig;
    type Report<'a> = SmartLinkReport<'a>;
    const NAME: &'static str = "smart_link";
    const DESCRIPTION: &'static str = "Heybey's smart link: per-flow rate table and a control value for voice users";
    const REQUIRED: &'static str = "algorithm = \"hayden\"\na = 1.0";
    fn build(cfg: &SmartLinkConfig, _rng: Rng, _to: Option<u32>) -> Self {
        SmartLink::new(cfg.clone(), cfg.capacity.expect("smart link capacity filled in by validation"))
    }
    fn check(cfg: &SmartLinkConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    /// C_j defaults to the rate of the channel the link is on.
    fn on_channel(cfg: &mut SmartLinkConfig, rate_bps: u64) {
        cfg.capacity.get_or_insert(rate_bps);
    }
    fn report<'a>(&'a self, _names: &'a dyn Names) -> SmartLinkReport<'a> {
        SmartLinkReport {
            control_bps: self.control_bps,
            flows: self.flows(),
            attempts: self.attempts,
            updates: self.updates,
            queue_max_after_pkts: self.queue_max_after,
            trace: self.trace.as_deref().map(|t| SmartTraceReport {
                t_s: &t.t_s,
                flows: &t.flows,
                control_bps: &t.control_bps,
                bits_per_100ms: &t.bits_per_100ms,
            }),
        }
    }
}

impl SmartLink {
    pub fn new(cfg: SmartLinkConfig, capacity_bps: u64) -> Self {
        let c = cfg.a * cfg.capacity.unwrap_or(capacity_bps) as f64;
        let trace = cfg.record.then(Box::default);
        SmartLink { cfg, c, rates: Vec::new(), control_bps: c, attempts: 0, updates: 0, queue_max_after: 0, trace }
    }

    /// W_j.
    pub fn flows(&self) -> usize {
        self.rates.iter().filter(|r| !r.is_nan()).count()
    }

    fn read(&mut self, cx: &mut ElemCx, pkt: &Packet) {
        if pkt.flow == NO_FLOW || pkt.meta == NO_META {
            return;
        }
        let Some(Control::Voice(s)) = cx.meta.get(pkt.meta).map(|m| m.control) else { return };
        if !s.data {
            return;
        }
        let i = pkt.flow as usize;
        if i >= self.rates.len() {
            self.rates.resize(i + 1, f64::NAN);
        }
        self.rates[i] = if s.end_of_spurt { f64::NAN } else { s.rate_bps };
    }
}

impl Element for SmartLink {
    fn on_arrival(&mut self, cx: &mut ElemCx, pkt: &mut Packet) -> ElemVerdict {
        if self.cfg.read_rate == ReadRate::Enqueue {
            self.read(cx, pkt);
        }
        ElemVerdict::Pass
    }

    fn on_transmit(&mut self, cx: &mut ElemCx, pkt: &mut Packet, ch: &ChannelView) {
        if self.cfg.read_rate == ReadRate::Transmit {
            self.read(cx, pkt);
        }
        if pkt.meta != NO_META {
            if let Control::Voice(s) = &mut cx.meta.get_mut(pkt.meta).control {
                s.control_bps = s.control_bps.min(self.control_bps);
            }
        }
        if cx.now >= SimTime::ZERO + self.cfg.queue_after {
            self.queue_max_after = self.queue_max_after.max(ch.queued_pkts as u64);
        }
        if let Some(tr) = self.trace.as_deref_mut() {
            let k = (cx.now.as_ps() / 100_000_000_000) as usize;
            if k >= tr.bits_per_100ms.len() {
                tr.bits_per_100ms.resize(k + 1, 0);
            }
            tr.bits_per_100ms[k] += pkt.bits as u64;
        }
    }

    fn first_timer(&self) -> Option<SimTime> {
        Some(SimTime::ZERO + self.cfg.update)
    }

    fn on_timer(&mut self, cx: &mut ElemCx) -> Option<SimTime> {
        self.attempts += 1;
        let mut w = 0usize;
        let (mut f, mut rmax) = (0.0f64, 0.0f64);
        let mut allowed = true;
        for &r in self.rates.iter().filter(|r| !r.is_nan()) {
            w += 1;
            f += r;
            rmax = rmax.max(r);
            allowed &= r <= self.control_bps;
        }
        let next = if self.cfg.protocol && !allowed {
            cx.now + self.cfg.retry
        } else {
            self.control_bps = control_value(self.cfg.algorithm, self.control_bps, self.c, w, f, rmax);
            self.updates += 1;
            cx.now + self.cfg.update
        };
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.t_s.push(cx.now.as_secs_f64());
            tr.flows.push(w as u32);
            tr.control_bps.push(self.control_bps);
        }
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Algorithm::*;

    #[test]
    fn hayden_by_hand() {
        // c = 0.55 * 40000 = 22000. W = 10 flows reporting f = 25000 in all, p = 2500:
        // p + (c - f)/W = 2500 - 300 = 2200; bounds c/W = 2200 and c: 2200.
        assert_eq!(control_value(Hayden, 2500.0, 22_000.0, 10, 25_000.0, 2500.0), 2200.0);
        // f = 20000: 2500 + 200 = 2700 (inside [2200, 22000]).
        assert_eq!(control_value(Hayden, 2500.0, 22_000.0, 10, 20_000.0, 2500.0), 2700.0);
        // Overload far above capacity: floored at c/W = 22000/4 = 5500.
        assert_eq!(control_value(Hayden, 6000.0, 22_000.0, 4, 80_000.0, 20_000.0), 5500.0);
        // One flow, empty link: capped at c.
        assert_eq!(control_value(Hayden, 21_000.0, 22_000.0, 1, 1000.0, 1000.0), 22_000.0);
        // Empty table: c.
        assert_eq!(control_value(Hayden, 3000.0, 22_000.0, 0, 0.0, 0.0), 22_000.0);
    }

    #[test]
    fn mosely_uses_the_largest_reported_rate() {
        // c = 32000, W = 4, rates 4000, 4000, 4000, 12000: f = 24000, max = 12000;
        // 12000 + 8000/4 = 14000 (p(t) plays no part).
        assert_eq!(control_value(Mosely, 1.0, 32_000.0, 4, 24_000.0, 12_000.0), 14_000.0);
        // 4 flows of 10000: 10000 + (32000 - 40000)/4 = 8000 = c/W.
        assert_eq!(control_value(Mosely, 1.0, 32_000.0, 4, 40_000.0, 10_000.0), 8000.0);
    }

    #[test]
    fn jaffe_divides_by_w_plus_one_and_subtracts_p() {
        // c = 32000, W = 3, f = 9000, p = 3000: 3000 + (32000 - 9000 - 3000)/4 = 8000;
        // bounds c/4 = 8000: 8000.
        assert_eq!(control_value(Jaffe, 3000.0, 32_000.0, 3, 9000.0, 3000.0), 8000.0);
        // W = 3, f = 30000, p = 10000: 10000 + (32000 - 30000 - 10000)/4 = 8000.
        assert_eq!(control_value(Jaffe, 10_000.0, 32_000.0, 3, 30_000.0, 10_000.0), 8000.0);
        // W = 1, f = 4000, p = 4000: 4000 + 24000/2 = 16000 (c/2 = 16000).
        assert_eq!(control_value(Jaffe, 4000.0, 32_000.0, 1, 4000.0, 4000.0), 16_000.0);
        // W = 0: c/1 bounds it: c.
        assert_eq!(control_value(Jaffe, 4000.0, 32_000.0, 0, 0.0, 0.0), 32_000.0);
        // Jaffe's fixed point with W flows all at p: p = c/(W+1) (here 6400, W = 4).
        assert_eq!(control_value(Jaffe, 6400.0, 32_000.0, 4, 25_600.0, 6400.0), 6400.0);
    }
}
