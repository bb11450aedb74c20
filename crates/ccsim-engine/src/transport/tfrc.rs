//! TFRC, TCP-Friendly Rate Control (Floyd, Handley, Padhye, Widmer, "Equation-Based
//! Congestion Control for Unicast Applications", SIGCOMM 2000), as specified in RFC 3448
//! (the version Welzl 2003 compared against).
//!
//! - Sender (RFC 3448 section 4): paces packets of s bytes at the allowed rate X. Each
//!   data packet carries the send time and the sender's RTT estimate R (in the packet's
//!   metadata as `Control::Tag(R in ps)`). R is the EWMA of samples with q = 0.9 (4.3
//!   step 2); t_RTO = 4R (4.3 step 3, "the simple heuristic"); b = 1.
//!   On feedback (4.3 step 4): if p > 0, X = max(min(X_calc, 2 X_recv), s/t_mbi); else
//!   (slow start) once per R: X = max(min(2X, 2 X_recv), s/R). t_mbi = 64 s.
//!   X starts at one packet per second (4.2). The nofeedback timer (4.4) starts at 2 s;
//!   on expiry X_recv is halved (if X_calc > 2 X_recv, or p = 0) or set to X_calc/4,
//!   X recomputed from it, and the timer restarted at max(4R, 2s/X).
//! - Receiver (RFC 3448 sections 5 and 6): detects lost packets from sequence gaps;
//!   a lost packet whose interpolated send time is more than R after the start of the
//!   current loss event starts a new loss event (5.2). Loss intervals are counted in
//!   packets between the starts of loss events (5.3); the loss event rate is
//!   p = 1/I_mean with I_mean the weighted average of the last 8 intervals, weights
//!   1,1,1,1,0.8,0.6,0.4,0.2, taking the larger of the averages with and without the
//!   open interval (5.4). Feedback (X_recv, p, the echo of the last data packet's
//!   timestamp) goes back once per R and at once when p grows (6.1, 6.2).
//! - The first loss interval (6.3.1): the target rate is approximated by X_recv, the
//!   receive rate over the most recent round trip (not since the first packet); the
//!   receiver inverts the equation (s, R, t_RTO = 4R) on that rate and seeds the history
//!   with 1/p. The rate is
//!   the bytes that arrived in the last R (the packet revealing the loss included)
//!   divided by R, what ns-2's TFRC sink (the simulator Welzl used) computes for its
//!   first-loss history when its last report is less than R old (its `est_thput`). The
//!   arrivals of the last R are kept only until the first loss event; R is the one the
//!   arriving packet carries, so a window that R later outgrows has already lost its
//!   oldest arrivals.
//! - History discounting (5.5, optional in the RFC; `history_discounting`, on by default
//!   as in ns-2, whose TFRC sink sets `discount_ 1` with a 0.5 floor): each closed
//!   interval I_i carries a discount DF_i (1 when it closes); on every arrival the receiver
//!   computes I_mean = sum(I_i w_(i-1) DF_i) / sum(w_(i-1) DF_i) over the closed ones and
//!   DF = max(2 I_mean / I_0, 0.5) if I_0 > 2 I_mean, else 1; the loss event rate is
//!   p = min(W_tot0/I_tot0, W_tot1/I_tot1) with I_tot0 = I_0 w_0 + sum_(i=1..n-1) I_i w_i
//!   DF_i DF (W_tot0 the same weights) and I_tot1 = sum_(i=1..n) I_i w_(i-1) DF_i. At a new
//!   loss event every DF_i is multiplied by DF, the history shifts and DF = 1. Off, p is
//!   5.4's undiscounted average.
//! - Oscillation prevention (4.5, optional in the RFC; `oscillation_prevention`, on by
//!   default as in ns-2, whose TFRC sender sets `ca_ 1`, "sqrt(RTT) congestion
//!   avoidance"): the sender keeps R_sqmean = q2 R_sqmean + (1 - q2) sqrt(R_sample)
//!   (q2 = 0.9, the RFC's recommendation; the first sample sets it) and paces at
//!   X_inst = X R_sqmean / sqrt(R_sample), R_sample the latest RTT sample. The rate it
//!   reports (`rate_bps`) is X.
//!
//! Assumptions and deviations (written down in docs/reproductions/welzl.md):
//! - Losses are declared on the first packet after a gap, not after 3 later packets
//!   (NDUPACK): our paths never reorder, so a gap is a loss; the loss's time is
//!   interpolated from the send times either side, as 5.2 describes.
//! - The feedback "timer" is driven by arrivals: feedback is sent with the first data
//!   packet that arrives at least R after the previous feedback. The RFC's timer sends
//!   nothing either when no data arrived, so this delays a report by at most one packet
//!   gap; t_delay is then zero.
//! - There is no retransmission (TFRC has none).

use super::endpoint::{Io, Pass, ReceiverMetrics, ReceiverPolicy, SenderMetrics, SenderPolicy};
use super::rate_flow::RateFlow;
use super::timer::LazyTimer;
use super::FlowCounters;
use super::{Receiver, Sender};
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::serde_units;
use crate::cc::Feedback;
use crate::packet::meta::{Control, MetaSlab};
use crate::packet::{Packet, PacketKind};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Parameters of a TFRC flow (`params` of a `kind = "tfrc"` flow).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TfrcConfig {
    /// Size of the feedback packets.
    #[serde(default = "d_fb", with = "serde_units::bytes")]
    pub feedback_size: u32,
    /// Initial nofeedback timeout (RFC 3448 4.2: 2 s).
    #[serde(default = "d_nofb", with = "serde_units::time")]
    pub initial_nofeedback: SimDuration,
    /// t_mbi, the longest back-off interval (RFC 3448: 64 s).
    #[serde(default = "d_mbi", with = "serde_units::time")]
    pub t_mbi: SimDuration,
    /// History discounting (RFC 3448 5.5; ns-2's TFRC sink default `discount_ 1`).
    #[serde(default = "d_true")]
    pub history_discounting: bool,
    /// Oscillation prevention (RFC 3448 4.5; ns-2's TFRC default `ca_ 1`).
    #[serde(default = "d_true")]
    pub oscillation_prevention: bool,
}

fn d_fb() -> u32 {
    40
}
fn d_nofb() -> SimDuration {
    SimDuration::from_secs(2)
}
fn d_mbi() -> SimDuration {
    SimDuration::from_secs(64)
}
fn d_true() -> bool {
    true
}

impl Default for TfrcConfig {
    fn default() -> Self {
        TfrcConfig {
            feedback_size: d_fb(),
            initial_nofeedback: d_nofb(),
            t_mbi: d_mbi(),
            history_discounting: true,
            oscillation_prevention: true,
        }
    }
}

impl RateFlow for TfrcConfig {
    const NAME: &'static str = "tfrc";
    const DESCRIPTION: &'static str = "TFRC equation-based rate sender (RFC 3448)";
    const SENDER: &'static str = "Tfrc";
    const RECEIVER: &'static str = "Tfrc";

    fn check(&self) -> Result<(), (&'static str, String)> {
        if self.feedback_size == 0 {
            return Err(("feedback_size", "must be at least 1 byte".into()));
        }
        if self.initial_nofeedback == SimDuration::ZERO {
            return Err(("initial_nofeedback", "must be positive (RFC 3448: 2s)".into()));
        }
        if self.t_mbi == SimDuration::ZERO {
            return Err(("t_mbi", "must be positive (RFC 3448: 64s)".into()));
        }
        Ok(())
    }

    fn build(&self, data: Packet, answer: &dyn Fn(PacketKind, u32) -> Packet, stop: SimTime) -> (Sender, Receiver) {
        let feedback = answer(PacketKind::Control, self.feedback_size);
        (
            Sender::Tfrc(Box::new(TfrcSender::new(self.clone(), data, stop))),
            Receiver::Tfrc(Box::new(TfrcReceiver::new(feedback, self.history_discounting))),
        )
    }
}

/// The TCP throughput equation (RFC 3448 section 3.1), bytes/s, with b = 1:
/// X = s / (R sqrt(2bp/3) + t_RTO (3 sqrt(3bp/8)) p (1 + 32 p^2)).
pub fn tcp_equation(s: f64, r: f64, p: f64, t_rto: f64) -> f64 {
    let b = 1.0;
    s / (r * (2.0 * b * p / 3.0).sqrt() + t_rto * (3.0 * (3.0 * b * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p))
}

/// The loss event rate p with `tcp_equation(s, r, p, 4r) == x` (RFC 3448 6.3.1), by
/// bisection (the equation falls monotonically in p). 1 if even p = 1 allows more.
pub fn invert_equation(s: f64, r: f64, x: f64) -> f64 {
    if tcp_equation(s, r, 1.0, 4.0 * r) >= x {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if tcp_equation(s, r, mid, 4.0 * r) > x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// RFC 3448 5.4 weights, most recent first.
pub const WEIGHTS: [f64; 8] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

/// The weighted average of RFC 3448 5.4. `open` is I_0 (the interval since the most
/// recent loss event), `closed[0]` is I_1 (the most recent closed one). With k closed
/// intervals (k <= 8): I_tot0 = sum_{i=0}^{k-1} I_i w_i, I_tot1 = sum_{i=1}^{k} I_i
/// w_{i-1}, W_tot = sum_{i=0}^{k-1} w_i, I_mean = max(I_tot0, I_tot1)/W_tot.
/// `None` with no closed interval. Also used for TEAR's epoch rates (`transport::tear`).
pub fn weighted_mean(open: f64, closed: &[f64]) -> Option<f64> {
    let k = closed.len().min(WEIGHTS.len());
    if k == 0 {
        return None;
    }
    let mut tot0 = open * WEIGHTS[0];
    let mut tot1 = 0.0;
    let mut wtot = 0.0;
    for i in 0..k {
        if i + 1 < k {
            tot0 += closed[i] * WEIGHTS[i + 1];
        }
        tot1 += closed[i] * WEIGHTS[i];
        wtot += WEIGHTS[i];
    }
    Some(tot0.max(tot1) / wtot)
}

/// RFC 3448 5.5, the general discount factor DF: with I_mean the average of the closed
/// intervals weighted by w_(i-1) DF_i, DF = max(2 I_mean / I_0, THRESHOLD = 0.5) when the
/// open interval I_0 exceeds 2 I_mean, else 1. `closed[0]` is I_1, `df_closed[i]` its DF.
pub fn discount_factor(open: f64, closed: &[f64], df_closed: &[f64]) -> f64 {
    let (mut itot, mut wtot) = (0.0, 0.0);
    for (i, (&l, &d)) in closed.iter().zip(df_closed).take(WEIGHTS.len()).enumerate() {
        itot += l * WEIGHTS[i] * d;
        wtot += WEIGHTS[i] * d;
    }
    if wtot == 0.0 {
        return 1.0;
    }
    let mean = itot / wtot;
    if open > 2.0 * mean {
        (2.0 * mean / open).max(0.5)
    } else {
        1.0
    }
}

/// RFC 3448 5.5, the average loss interval with discounting: I_tot0 = I_0 w_0 +
/// sum_(i=1..k-1) I_i w_i DF_i DF over W_tot0 = w_0 + sum w_i DF_i DF, I_tot1 =
/// sum_(i=1..k) I_i w_(i-1) DF_i over W_tot1 = sum w_(i-1) DF_i; the larger of the two
/// averages (p = min(W_tot0/I_tot0, W_tot1/I_tot1)). `None` with no closed interval.
pub fn discounted_mean(open: f64, closed: &[f64], df_closed: &[f64], df: f64) -> Option<f64> {
    let k = closed.len().min(WEIGHTS.len());
    if k == 0 {
        return None;
    }
    let (mut tot0, mut w0) = (open * WEIGHTS[0], WEIGHTS[0]);
    let (mut tot1, mut w1) = (0.0, 0.0);
    for i in 0..k {
        if i + 1 < k {
            tot0 += closed[i] * WEIGHTS[i + 1] * df_closed[i] * df;
            w0 += WEIGHTS[i + 1] * df_closed[i] * df;
        }
        tot1 += closed[i] * WEIGHTS[i] * df_closed[i];
        w1 += WEIGHTS[i] * df_closed[i];
    }
    Some((tot0 / w0).max(tot1 / w1))
}

/// Loss-event detection at a receiver (RFC 3448 5.2), shared by TFRC and TEAR.
#[derive(Clone, Debug, Default)]
pub struct LossEvents {
    /// Highest sequence number received and its send time.
    high: Option<(u32, SimTime)>,
    /// Interpolated send time of the first loss of the current loss event.
    event_start: Option<SimTime>,
    pub losses: u64,
    pub events: u64,
}

impl LossEvents {
    /// Data packet `seq` sent at `ts` arrived; `rtt` is the sender's R. Returns the
    /// sequence number of the first lost packet of a new loss event, if one began.
    pub fn on_data(&mut self, seq: u32, ts: SimTime, rtt: SimDuration) -> Option<u32> {
        let mut new_event = None;
        match self.high {
            Some((h, hts)) if seq > h.wrapping_add(1) => {
                let n = (seq - h) as u128;
                let span = ts.saturating_since(hts).as_ps() as u128;
                for k in h + 1..seq {
                    self.losses += 1;
                    // Nominal send time of the lost packet, interpolated.
                    let t = hts + SimDuration::from_ps((span * (k - h) as u128 / n) as u64);
                    if self.event_start.is_none_or(|s| t > s + rtt) {
                        self.event_start = Some(t);
                        self.events += 1;
                        new_event.get_or_insert(k);
                    }
                }
                self.high = Some((seq, ts));
            }
            Some((h, _)) if seq <= h => {} // duplicate or late: ignored
            _ => self.high = Some((seq, ts)),
        }
        new_event
    }

    pub fn high_seq(&self) -> Option<u32> {
        self.high.map(|(h, _)| h)
    }
}

/// The sender's R carried in a data packet (`Control::Tag`, ps); `fallback` without one.
pub fn carried_rtt(p: &Packet, meta: &MetaSlab, fallback: SimDuration) -> SimDuration {
    match meta.get(p.meta).map(|m| m.control) {
        Some(Control::Tag(ps)) if ps > 0 => SimDuration::from_ps(ps),
        _ => fallback,
    }
}

/// Puts R into a data packet's metadata.
pub fn carry_rtt(p: &mut Packet, meta: &mut MetaSlab, rtt: Option<SimDuration>) {
    if let Some(r) = rtt {
        let h = meta.alloc();
        meta.get_mut(h).control = Control::Tag(r.as_ps());
        p.meta = h;
    }
}

/// The TFRC sender.
#[derive(Clone, Debug)]
pub struct TfrcSender {
    pub cfg: TfrcConfig,
    data: Packet,
    /// Packet size s, bytes.
    s: f64,
    /// Allowed sending rate X, bytes/s.
    pub x: f64,
    pub x_recv: f64,
    pub p: f64,
    pub rtt: Option<SimDuration>,
    /// Oscillation prevention (RFC 3448 4.5): R_sqmean and sqrt(R_sample), seconds^0.5.
    r_sqmean: Option<f64>,
    sqrt_sample: f64,
    /// Time of the last doubling in slow start (tld).
    tld: Option<SimTime>,
    last_data: Option<SimTime>,
    seq: u32,
    stop: SimTime,
    pub feedbacks: u64,
    pub nofeedback_expiries: u64,
    pub pace: LazyTimer,
    pub nofeedback: LazyTimer,
}

impl TfrcSender {
    pub fn new(cfg: TfrcConfig, data: Packet, stop: SimTime) -> Self {
        let s = data.bits as f64 / 8.0;
        TfrcSender {
            cfg,
            data,
            s,
            x: s, // one packet per second (RFC 3448 4.2)
            x_recv: 0.0,
            p: 0.0,
            rtt: None,
            r_sqmean: None,
            sqrt_sample: 0.0,
            tld: None,
            last_data: None,
            seq: 0,
            stop,
            feedbacks: 0,
            nofeedback_expiries: 0,
            pace: LazyTimer::default(),
            nofeedback: LazyTimer::default(),
        }
    }

    fn gap(&self) -> SimDuration {
        SimDuration::from_secs_f64(self.s / self.x_inst()).max(super::MIN_PACING_GAP)
    }

    /// The pacing rate: X, or with oscillation prevention X_inst = X R_sqmean /
    /// sqrt(R_sample) (RFC 3448 4.5).
    pub fn x_inst(&self) -> f64 {
        match self.r_sqmean {
            Some(m) if self.sqrt_sample > 0.0 => self.x * m / self.sqrt_sample,
            _ => self.x,
        }
    }

    fn x_calc(&self) -> Option<f64> {
        let r = self.rtt?.as_secs_f64();
        (self.p > 0.0).then(|| tcp_equation(self.s, r, self.p, 4.0 * r))
    }

    pub fn start(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        self.nofeedback.set_deadline(Some(now + self.cfg.initial_nofeedback));
        self.on_pace(now, c, out, meta);
    }

    pub fn on_pace(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        if now >= self.stop {
            self.pace.set_deadline(None);
            self.nofeedback.set_deadline(None);
            return;
        }
        let mut p = self.data;
        p.seq = self.seq;
        p.ts = now;
        carry_rtt(&mut p, meta, self.rtt);
        self.seq = self.seq.wrapping_add(1);
        out.push(p);
        c.sent += 1;
        self.last_data = Some(now);
        self.pace.set_deadline(Some(now + self.gap()));
    }

    fn repace(&mut self, now: SimTime) {
        if self.pace.deadline().is_some() {
            if let Some(last) = self.last_data {
                self.pace.set_deadline(Some((last + self.gap()).max(now)));
            }
        }
    }

    fn restart_nofeedback(&mut self, now: SimTime) {
        if now >= self.stop {
            self.nofeedback.set_deadline(None);
            return;
        }
        let r4 = self.rtt.map_or(0.0, |r| 4.0 * r.as_secs_f64());
        self.nofeedback.set_deadline(Some(now + SimDuration::from_secs_f64(r4.max(2.0 * self.s / self.x))));
    }

    /// Feedback (X_recv bytes/s, p) echoing the data packet sent at `echo` (RFC 3448 4.3).
    pub fn on_feedback(&mut self, now: SimTime, x_recv: f64, p: f64, echo: SimTime) {
        self.feedbacks += 1;
        let sample = now.saturating_since(echo);
        if self.cfg.oscillation_prevention && sample > SimDuration::ZERO {
            let sq = sample.as_secs_f64().sqrt();
            self.sqrt_sample = sq;
            self.r_sqmean = Some(self.r_sqmean.map_or(sq, |m| 0.9 * m + 0.1 * sq));
        }
        let r = match self.rtt {
            None => sample,
            Some(r) => SimDuration::from_secs_f64(0.9 * r.as_secs_f64() + 0.1 * sample.as_secs_f64()),
        };
        self.rtt = Some(r);
        self.x_recv = x_recv;
        self.p = p;
        let rs = r.as_secs_f64();
        let t_mbi = self.cfg.t_mbi.as_secs_f64();
        if let Some(xc) = self.x_calc() {
            self.x = xc.min(2.0 * x_recv).max(self.s / t_mbi);
        } else if self.tld.is_none_or(|t| now.saturating_since(t) >= r) {
            self.x = (2.0 * self.x).min(2.0 * x_recv).max(self.s / rs);
            self.tld = Some(now);
        }
        self.restart_nofeedback(now);
        self.repace(now);
    }

    /// The nofeedback timer expired (RFC 3448 4.4).
    pub fn on_nofeedback(&mut self, now: SimTime) {
        self.nofeedback_expiries += 1;
        let t_mbi = self.cfg.t_mbi.as_secs_f64();
        if self.feedbacks == 0 {
            // No feedback yet: halve the rate.
            self.x = (self.x / 2.0).max(self.s / t_mbi);
        } else {
            match self.x_calc() {
                Some(xc) if xc <= 2.0 * self.x_recv => self.x_recv = xc / 4.0,
                _ => self.x_recv = (self.x_recv / 2.0).max(self.s / (2.0 * t_mbi)),
            }
            let cap = self.x_calc().unwrap_or(self.x);
            self.x = cap.min(2.0 * self.x_recv).max(self.s / t_mbi);
        }
        self.restart_nofeedback(now);
        self.repace(now);
    }
}

/// The TFRC receiver (RFC 3448 sections 5 and 6).
#[derive(Clone, Debug)]
pub struct TfrcReceiver {
    feedback: Packet,
    loss: LossEvents,
    /// Closed loss intervals, most recent first (at most 8 kept), packets.
    closed: Vec<f64>,
    /// History discounting (RFC 3448 5.5): on, DF_i of each closed interval and DF.
    discounting: bool,
    df_closed: Vec<f64>,
    df: f64,
    /// Sequence number of the first loss of the most recent loss event.
    last_event_seq: Option<u32>,
    /// A data packet has arrived.
    seen: bool,
    /// Until the first loss event: arrivals (time, bytes) of the last R and their sum,
    /// for X_recv over the most recent round trip (RFC 3448 6.3.1).
    recent: VecDeque<(SimTime, f64)>,
    recent_bytes: f64,
    last_feedback: Option<SimTime>,
    bytes_since_feedback: f64,
    pub x_recv: f64,
    pub p: f64,
    pub feedbacks: u64,
}

impl TfrcReceiver {
    /// `feedback`: template control packet on the flow's ack route with its size.
    pub fn new(feedback: Packet, discounting: bool) -> Self {
        TfrcReceiver {
            feedback,
            loss: LossEvents::default(),
            closed: Vec::with_capacity(9),
            discounting,
            df_closed: Vec::with_capacity(9),
            df: 1.0,
            last_event_seq: None,
            seen: false,
            recent: VecDeque::new(),
            recent_bytes: 0.0,
            last_feedback: None,
            bytes_since_feedback: 0.0,
            x_recv: 0.0,
            p: 0.0,
            feedbacks: 0,
        }
    }

    /// A loss interval of `len` packets closes (RFC 3448 5.3): the history shifts; with
    /// discounting every older DF_i is multiplied by DF, the new one gets 1, DF = 1 (5.5).
    fn close_interval(&mut self, len: f64) {
        self.closed.insert(0, len);
        self.closed.truncate(WEIGHTS.len());
        if self.discounting {
            for d in self.df_closed.iter_mut() {
                *d *= self.df;
            }
            self.df_closed.insert(0, 1.0);
            self.df_closed.truncate(WEIGHTS.len());
            self.df = 1.0;
        }
    }

    /// The loss event rate from the intervals (RFC 3448 5.4; with discounting 5.5, which
    /// first updates DF from the open interval, as on every arrival).
    fn loss_event_rate(&mut self) -> f64 {
        let (Some(h), Some(e)) = (self.loss.high_seq(), self.last_event_seq) else {
            return 0.0;
        };
        let open = (h.wrapping_sub(e) + 1) as f64;
        if self.discounting {
            self.df = discount_factor(open, &self.closed, &self.df_closed);
            discounted_mean(open, &self.closed, &self.df_closed, self.df).map_or(0.0, |m| 1.0 / m)
        } else {
            weighted_mean(open, &self.closed).map_or(0.0, |m| 1.0 / m)
        }
    }

    pub fn on_data(
        &mut self,
        now: SimTime,
        p: &Packet,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        meta: &mut MetaSlab,
    ) {
        c.arrived += 1;
        c.delivered += 1;
        let bytes = p.bits as f64 / 8.0;
        let first = !self.seen;
        self.seen = true;
        self.bytes_since_feedback += bytes;
        // R from the packet; before the sender has one, one second (its initial pace).
        let r = carried_rtt(p, meta, SimDuration::from_secs(1));
        if self.last_event_seq.is_none() {
            self.recent.push_back((now, bytes));
            self.recent_bytes += bytes;
            while let Some(&(t, b)) = self.recent.front() {
                if now.saturating_since(t) < r {
                    break;
                }
                self.recent.pop_front();
                self.recent_bytes -= b;
            }
        }
        let mut grew = false;
        if let Some(k) = self.loss.on_data(p.seq, p.ts, r) {
            match self.last_event_seq {
                None => {
                    // The first loss event: the synthetic first interval (6.3.1) from
                    // X_recv over the most recent round trip.
                    let rs = r.as_secs_f64();
                    let pf = invert_equation(bytes, rs, self.recent_bytes / rs);
                    self.close_interval(1.0 / pf);
                    self.recent = VecDeque::new();
                }
                Some(e) => self.close_interval(k.wrapping_sub(e) as f64),
            }
            self.last_event_seq = Some(k);
        }
        let p_new = self.loss_event_rate();
        if p_new > self.p {
            grew = true;
        }
        self.p = p_new;
        let due = first || grew || self.last_feedback.is_none_or(|t| now.saturating_since(t) >= r);
        if due {
            let interval = self.last_feedback.map_or(SimDuration::ZERO, |t| now.saturating_since(t)).as_secs_f64();
            if interval > 0.0 {
                self.x_recv = self.bytes_since_feedback / interval;
            }
            self.bytes_since_feedback = 0.0;
            self.last_feedback = Some(now);
            let mut f = self.feedback;
            f.seq = p.seq;
            f.ts = p.ts;
            let h = meta.alloc();
            meta.get_mut(h).control = Control::Feedback(Feedback::LossRate { recv_bps: self.x_recv * 8.0, p: self.p });
            f.meta = h;
            out.push(f);
            self.feedbacks += 1;
        }
    }
}

impl SenderPolicy for TfrcSender {
    const DESCRIPTION: &'static str =
        "TFRC rate sender (RFC 3448): the TCP throughput equation fed by loss event rates";
    fn start(&mut self, io: Io<'_>) {
        TfrcSender::start(self, io.now, io.counters, io.out, io.meta)
    }
    /// The report's receive rate is in bits/s; the sender works in bytes/s (RFC 3448's
    /// X_recv).
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback, echo: SimTime) {
        if let Feedback::LossRate { recv_bps, p } = *fb {
            TfrcSender::on_feedback(self, now, recv_bps / 8.0, p, echo)
        }
    }
    fn timers(&mut self) -> (Option<&mut LazyTimer>, Option<&mut LazyTimer>) {
        (Some(&mut self.nofeedback), Some(&mut self.pace))
    }
    fn on_timer(&mut self, io: Io<'_>) {
        self.on_nofeedback(io.now)
    }
    fn on_pace(&mut self, io: Io<'_>) {
        TfrcSender::on_pace(self, io.now, io.counters, io.out, io.meta)
    }
    fn metrics(&self) -> SenderMetrics {
        SenderMetrics { srtt: self.rtt, rate_bps: Some(self.x * 8.0) }
    }
}

impl ReceiverPolicy for TfrcReceiver {
    const DESCRIPTION: &'static str = "TFRC's receiver: loss intervals, reports once per RTT (RFC 3448 section 6)";
    fn on_data(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
        TfrcReceiver::on_data(self, io.now, p, io.counters, io.out, io.meta);
        None
    }
    fn metrics(&self) -> ReceiverMetrics {
        ReceiverMetrics::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    #[test]
    fn equation_by_hand() {
        // s = 1000 B, R = 0.1 s, p = 0.01, t_RTO = 0.4 s:
        // sqrt(2*0.01/3) = 0.0816497; 0.1 * that = 0.00816497;
        // 3*sqrt(3*0.01/8) = 3*0.0612372 = 0.1837117; *0.01*(1+32e-4) = 0.00184300;
        // *0.4 = 0.00073720; X = 1000/(0.00816497+0.00073720) = 112331.7 B/s.
        let x = tcp_equation(1000.0, 0.1, 0.01, 0.4);
        assert!((x - 112_331.7).abs() < 1.0, "{x}");
        // p = 0.1, R = 0.3, t_RTO = 1.2: 0.3*0.2581989 = 0.0774597;
        // 3*sqrt(0.0375) = 0.5809475 * 0.1 * 1.32 = 0.0766851 * 1.2 = 0.0920221;
        // X = 1000 / 0.1694818 = 5900.34 B/s.
        let x = tcp_equation(1000.0, 0.3, 0.1, 1.2);
        assert!((x - 5900.34).abs() < 0.1, "{x}");
        let p = invert_equation(1000.0, 0.1, 112_331.7);
        assert!((p - 0.01).abs() < 1e-6, "{p}");
    }

    #[test]
    fn weighted_mean_by_hand() {
        // Closed I_1..I_8 = 100..800 (I_1 = 100), open I_0 = 50.
        let closed = [100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0];
        // I_tot1 = 100+200+300+400 + 0.8*500 + 0.6*600 + 0.4*700 + 0.2*800
        //        = 1000 + 400 + 360 + 280 + 160 = 2200; W_tot = 6.
        // I_tot0 = 50 + 100+200+300 + 0.8*400 + 0.6*500 + 0.4*600 + 0.2*700
        //        = 650 + 320 + 300 + 240 + 140 = 1650. I_mean = 2200/6.
        assert!((weighted_mean(50.0, &closed).unwrap() - 2200.0 / 6.0).abs() < 1e-9);
        // A long open interval counts: I_0 = 5000: I_tot0 = 5000+600+320+300+240+140 = 6600.
        assert!((weighted_mean(5000.0, &closed).unwrap() - 1100.0).abs() < 1e-9);
        // Two closed intervals: W_tot = 2; I_tot0 = 10 + 100; I_tot1 = 100 + 200.
        assert_eq!(weighted_mean(10.0, &[100.0, 200.0]), Some(150.0));
        assert_eq!(weighted_mean(10.0, &[]), None);
    }

    #[test]
    fn loss_events_group_losses_within_one_rtt() {
        let mut l = LossEvents::default();
        let ms = SimTime::from_millis;
        let r = SimDuration::from_millis(100);
        for k in 0..5u32 {
            assert_eq!(l.on_data(k, ms(10 * k as u64), r), None);
        }
        // 5 lost (sent ~50 ms): a loss event starting at packet 5.
        assert_eq!(l.on_data(6, ms(60), r), Some(5));
        // 7 and 8 lost (sent ~70 and ~80 ms, within R of 50 ms): the same event.
        assert_eq!(l.on_data(9, ms(90), r), None);
        // 20 lost (sent ~200 ms, more than R after 50 ms): a new event.
        for k in 10..20u32 {
            l.on_data(k, ms(10 * k as u64), r);
        }
        assert_eq!(l.on_data(21, ms(210), r), Some(20));
        assert_eq!((l.losses, l.events), (4, 2));
    }

    #[test]
    fn slow_start_doubles_once_per_rtt_then_the_equation_rules() {
        let d = Packet::new(PacketKind::Data, 0, 1000);
        let cfg = TfrcConfig { oscillation_prevention: false, ..Default::default() };
        let mut s = TfrcSender::new(cfg, d, SimTime::MAX);
        let (mut c, mut out, mut meta) = (FlowCounters::default(), Vec::new(), MetaSlab::default());
        s.start(SimTime::ZERO, &mut c, &mut out, &mut meta);
        assert_eq!(s.x, 1000.0);
        // First feedback after 100 ms, X_recv = 0: X = max(min(2000, 0), s/R) = 10000.
        s.on_feedback(SimTime::from_millis(100), 0.0, 0.0, SimTime::ZERO);
        assert_eq!(s.rtt, Some(SimDuration::from_millis(100)));
        assert!((s.x - 10_000.0).abs() < 1e-6);
        // Feedback 50 ms later (< R): no doubling.
        s.on_feedback(SimTime::from_millis(150), 50_000.0, 0.0, SimTime::from_millis(50));
        assert!((s.x - 10_000.0).abs() < 1e-6);
        // One R after the last doubling: X = min(2X, 2 X_recv) = 20000.
        s.on_feedback(SimTime::from_millis(200), 50_000.0, 0.0, SimTime::from_millis(100));
        assert!((s.x - 20_000.0).abs() < 1e-6);
        // A loss report: X = min(X_calc, 2 X_recv) with R = 100 ms, p = 0.01.
        s.on_feedback(SimTime::from_millis(300), 200_000.0, 0.01, SimTime::from_millis(200));
        assert!((s.x - 112_331.7).abs() < 1.0, "{}", s.x);
        // Nofeedback: X_calc <= 2 X_recv, so X_recv = X_calc/4 and X = 2 X_recv = X_calc/2.
        s.on_nofeedback(SimTime::from_millis(800));
        assert!((s.x - 112_331.7 / 2.0).abs() < 1.0, "{}", s.x);
    }

    #[test]
    fn receiver_reports_the_loss_event_rate_of_the_intervals() {
        let route = Packet::new(PacketKind::Control, 0, 40);
        let mut r = TfrcReceiver::new(route, false);
        let (mut c, mut out, mut meta) = (FlowCounters::default(), Vec::new(), MetaSlab::default());
        let mut send = |r: &mut TfrcReceiver, seq: u32, out: &mut Vec<Packet>, meta: &mut MetaSlab| {
            let mut p = Packet::new(PacketKind::Data, 0, 1000);
            p.seq = seq;
            p.ts = SimTime::from_millis(seq as u64);
            carry_rtt(&mut p, meta, Some(SimDuration::from_millis(10)));
            let now = SimTime::from_millis(seq as u64 + 50);
            r.on_data(now, &p, &mut c, out, meta);
            meta.free(p.meta);
        };
        for k in 0..100 {
            send(&mut r, k, &mut out, &mut meta);
        }
        assert_eq!(r.p, 0.0);
        // Losses at 100, 200 and 300 (one packet per ms, R = 10 ms: separate events).
        for k in (101..200).chain(201..300).chain(301..350) {
            send(&mut r, k, &mut out, &mut meta);
        }
        // Closed intervals: I_2 = synthetic, I_1 = 100 (200 - 100), and after the third
        // event the closed ones are [100, 100, synthetic]; open I_0 = 349 - 300 + 1 = 50.
        // The synthetic one from X_recv over the last R = 10 ms when 101 arrives (151 ms):
        // arrivals after 141 ms are 92..=99 and 101 (100 is lost), 9000 B / 0.01 s.
        let syn = 1.0 / invert_equation(1000.0, 0.01, 900_000.0);
        let want = weighted_mean(50.0, &[100.0, 100.0, syn]).unwrap();
        assert!((r.p - 1.0 / want).abs() < 1e-12, "{} vs {}", r.p, 1.0 / want);
        // The last feedback carries it.
        let last = out.last().unwrap();
        match meta.get(last.meta).unwrap().control {
            Control::Feedback(Feedback::LossRate { p, .. }) => assert_eq!(p, r.p),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn first_interval_inverts_the_receive_rate_of_the_last_rtt() {
        // RFC 3448 6.3.1: the first loss interval is the one the equation gives for X_recv,
        // the receive rate over the most recent round trip. R = 100 ms throughout.
        // Seq 0..=29 arrive every 10 ms (50..=340 ms), seq 30..=129 every 1 ms
        // (350..=449 ms); 130 is lost and 131 arrives at 451 ms.
        let mut r = TfrcReceiver::new(Packet::new(PacketKind::Control, 0, 40), true);
        let (mut c, mut out, mut meta) = (FlowCounters::default(), Vec::new(), MetaSlab::default());
        let mut arrive = |r: &mut TfrcReceiver, seq: u32, at_ms: u64| {
            let mut p = Packet::new(PacketKind::Data, 0, 1000);
            p.seq = seq;
            p.ts = SimTime::from_millis(at_ms - 50);
            carry_rtt(&mut p, &mut meta, Some(SimDuration::from_millis(100)));
            r.on_data(SimTime::from_millis(at_ms), &p, &mut c, &mut out, &mut meta);
            meta.free(p.meta);
        };
        for k in 0..30u32 {
            arrive(&mut r, k, 50 + 10 * k as u64);
        }
        for k in 30..130u32 {
            arrive(&mut r, k, 350 + (k - 30) as u64);
        }
        assert_eq!(r.p, 0.0);
        arrive(&mut r, 131, 451);
        // The last R is (351, 451] ms: seq 32..=129 (98 packets) and 131, 99000 B, so
        // X_recv = 99000 B / 0.1 s = 990000 B/s. (The mean since the first arrival,
        // 131000 B over 0.401 s = 326683 B/s, is what this rule replaces.)
        // Only the synthetic interval I is closed and the open one is 131 - 130 + 1 = 2,
        // so p = 1/max(2, I) = 1/I, and the equation at p must give X_recv back.
        let x = tcp_equation(1000.0, 0.1, r.p, 0.4);
        assert!((x - 990_000.0).abs() < 1e-3, "{x}");
        // By hand: p ~ 1.5 (s/(R X))^2 = 1.5 (1000/99000)^2 = 1.5305e-4; the t_RTO term
        // (0.4 * 3 sqrt(3p/8) * p = 1.39e-6 s against R sqrt(2p/3) = 1.0101e-3 s) lowers it
        // by about 2 * 0.138 %: p ~ 1.5263e-4, I ~ 6552 packets (326683 B/s would give ~711).
        let i = 1.0 / r.p;
        assert!((i - 6552.0).abs() < 10.0, "{i}");
    }

    #[test]
    fn history_discounting_by_hand() {
        // RFC 3448 5.5. Closed I_1 = I_2 = 100 with DF_i = 1: I_mean = (100 + 100)/2 = 100.
        let (closed, ones) = ([100.0, 100.0], [1.0, 1.0]);
        // I_0 = 150 <= 2 I_mean: no discount.
        assert_eq!(discount_factor(150.0, &closed, &ones), 1.0);
        // I_0 = 300 > 200: DF = 2 * 100 / 300 = 2/3.
        assert!((discount_factor(300.0, &closed, &ones) - 2.0 / 3.0).abs() < 1e-15);
        // I_0 = 500: 200/500 = 0.4, floored at THRESHOLD = 0.5.
        assert_eq!(discount_factor(500.0, &closed, &ones), 0.5);
        // The average at I_0 = 300, DF = 2/3: I_tot0 = 300*1 + 100*1*1*(2/3) = 366.67 over
        // W_tot0 = 1 + 2/3 = 1.6667: 220; I_tot1 = 100 + 100 = 200 over 2: 100. I_mean = 220
        // (undiscounted: (300 + 100)/2 = 200).
        let m = discounted_mean(300.0, &closed, &ones, 2.0 / 3.0).unwrap();
        assert!((m - 220.0).abs() < 1e-12, "{m}");
        assert_eq!(weighted_mean(300.0, &closed), Some(200.0));
        // With every DF 1 it is 5.4's average.
        let c8 = [100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0];
        assert!((discounted_mean(50.0, &c8, &[1.0; 8], 1.0).unwrap() - 2200.0 / 6.0).abs() < 1e-9);
    }

    #[test]
    fn a_new_loss_event_folds_the_discount_into_the_history() {
        let mut r = TfrcReceiver::new(Packet::new(PacketKind::Control, 0, 40), true);
        r.closed = vec![100.0, 100.0];
        r.df_closed = vec![1.0, 1.0];
        r.df = 2.0 / 3.0; // as computed at I_0 = 300 (above)
        r.close_interval(300.0);
        assert_eq!(r.closed, vec![300.0, 100.0, 100.0]);
        assert_eq!(r.df_closed, vec![1.0, 2.0 / 3.0, 2.0 / 3.0]);
        assert_eq!(r.df, 1.0);
        // Open I_0 = 10: I_mean for DF = (300 + 100*(2/3) + 100*(2/3)) / (1 + 2/3 + 2/3)
        // = 433.33/2.3333 = 185.71 and 10 < 2 * 185.71: DF = 1.
        // I_tot0 = 10 + 300*1*1 + 100*1*(2/3) = 376.67 over 1 + 1 + 2/3: 141.25;
        // I_tot1 = 433.33 over 2.3333: 185.714. p = 1/185.714 = 0.0053846
        // (undiscounted: max(410, 500)/3 = 166.67, p = 0.006).
        assert_eq!(discount_factor(10.0, &r.closed, &r.df_closed), 1.0);
        let m = discounted_mean(10.0, &r.closed, &r.df_closed, 1.0).unwrap();
        assert!((m - 1300.0 / 7.0).abs() < 1e-9, "{m}");
        // Off, nothing is discounted.
        let mut r = TfrcReceiver::new(Packet::new(PacketKind::Control, 0, 40), false);
        r.df = 0.5;
        r.close_interval(300.0);
        assert!(r.df_closed.is_empty());
    }

    #[test]
    fn oscillation_prevention_paces_at_x_times_r_sqmean_over_sqrt_r_sample() {
        // RFC 3448 4.5 with q2 = 0.9. First sample R = 0.16 s: R_sqmean = sqrt(0.16) = 0.4,
        // X_inst = X. Then a sample of 0.36 s: R_sqmean = 0.9*0.4 + 0.1*0.6 = 0.42,
        // X_inst = X * 0.42/0.6 = 0.7 X: the queue grew, the pace slows at once.
        let d = Packet::new(PacketKind::Data, 0, 1000);
        let mut s = TfrcSender::new(TfrcConfig::default(), d, SimTime::MAX);
        s.on_feedback(SimTime::from_millis(160), 0.0, 0.0, SimTime::ZERO);
        // Slow start without X_recv: X = max(min(2000, 0), s/R) = 1000/0.16 = 6250 B/s.
        assert!((s.x - 6250.0).abs() < 1e-9);
        assert!((s.x_inst() - 6250.0).abs() < 1e-9);
        s.on_feedback(SimTime::from_millis(1360), 0.0, 0.0, SimTime::from_millis(1000));
        // R = 0.9*0.16 + 0.1*0.36 = 0.18 s; one R after the last doubling: X =
        // max(min(12500, 0), 1000/0.18) = 5555.6 B/s; X_inst = 0.7 of it = 3888.9 B/s.
        assert!((s.x - 1000.0 / 0.18).abs() < 1e-6, "{}", s.x);
        assert!((s.x_inst() - 0.7 * 1000.0 / 0.18).abs() < 1e-6, "{}", s.x_inst());
        // Paced at X_inst: 1000 B / 3888.9 B/s = 257.14 ms between packets.
        let gap = s.gap().as_secs_f64();
        assert!((gap - 0.257_142_857).abs() < 1e-9, "{gap}");
        // Off, the pace is X.
        let cfg = TfrcConfig { oscillation_prevention: false, ..Default::default() };
        let mut s = TfrcSender::new(cfg, d, SimTime::MAX);
        s.on_feedback(SimTime::from_millis(160), 0.0, 0.0, SimTime::ZERO);
        s.on_feedback(SimTime::from_millis(1360), 0.0, 0.0, SimTime::from_millis(1000));
        assert_eq!(s.x_inst(), s.x);
    }
}
