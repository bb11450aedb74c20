//! Dabbous's Delay Algorithm (DA): W. Dabbous, "Analysis of a delay based congestion
//! avoidance algorithm" (INRIA, 1992; section numbers below are the paper's).
//!
//! The window is driven by round-trip delays instead of losses.
//!
//! **Start-up (section 3).** Window 1, +1 per acknowledged packet (slow start), until the
//! normalized delay gradient of Jain (CCR 1989)
//!
//! ```text
//!     NDG = (dD / dW) / (D / W)
//! ```
//!
//! reaches the threshold (0.5); then congestion avoidance. After a detected loss
//! (duplicate acks or a timeout) the window is set to 1 and slow start begins again.
//! How dD and dW are sampled is not given by the paper; two samplings are offered
//! (`NdgSampling`):
//!
//! - `Ack` (default): one sample per new ack, D = that ack's timestamp-echo RTT and
//!   W = the window (packets) when the ack arrived, before it is opened. dD and dW are
//!   the differences to the previous ack's sample (dW = packets acknowledged by the
//!   previous ack, normally 1). The ack whose NDG reaches the threshold does not open
//!   the window: avoidance starts with W.
//! - `Epoch`: one sample per epoch, using the same pairing as the avoidance rule: when
//!   the head of window X_j is acknowledged, D = its RTT D_a^j and W = the number of
//!   packets sent in epoch j-1 (the packets queued ahead of X_j). dD and dW are the
//!   differences to the sample of the previous epoch.
//!
//! **Congestion avoidance (section 3).** Time is divided into epochs of one round trip;
//! the first packet sent in an epoch is its head of window X_i (`on_packet_sent`), and
//! the epoch ends when the cumulative ack covers X_i, whose RTT D_a is measured from
//! its send time. Let W^i be the window in force during epoch i. When X_{i+1} is
//! acknowledged:
//!
//! ```text
//!     D_t^{i+1} = min(D_t^i, D_a^{i+1})                                   (reference)
//!     W^{i+2}   = W^i * D_t^{i+1} / D_a^{i+1}   if D_a^{i+1} > K D_t^i      (decrease)
//!               = W^i                          if D_t^i < D_a^{i+1} <= K D_t^i  (hold)
//!               = W^i + 1                      otherwise                   (increase)
//! ```
//!
//! Note that W^{i+2} follows from W^i, two epochs back: D_a^{i+1} measures the queueing
//! caused by the W^i - 1 packets sent between X_i and X_{i+1}. When the rule runs is a
//! reading (`RuleWindow`, parameter `rule_window`):
//!
//! - `Alternate` (default): the window changes at most every other epoch. A head's
//!   delay is used only if the epoch before it ran with the current window, so
//!   W^i = W^{i+1} and the equation scales the window that caused the delay; the head
//!   that follows a change only updates D_t. Jain's CARD (the paper's reference [12],
//!   its stated inspiration) likewise adjusts the window "once every two round-trip
//!   delays" (as Brakmo and Peterson describe it in the TCP Vegas paper).
//! - `TwoBack`: the equation applied at every epoch, literally. Odd and even epochs
//!   then form two independent controllers; with two sources on the Figure 4 network
//!   they lock into period-2 oscillations that starve one source (window 1-2, under
//!   10% of the bottleneck), which nothing in the paper shows
//!   (docs/reproductions/dabbous.md).
//! - `Last`: every epoch, scaling the window in force (W^{i+1}) with a delay caused by
//!   W^i; one packet of overshoot on a single path (settles at 24, not 22-23).
//!
//! The window never exceeds the flow's maximum window (the receiver's credit W_c) and
//! never falls below 1.
//!
//! **Variants (section 5), each a parameter:**
//! - `max_reduce` (5.1): after MAX-REDUCE consecutive decreases the reference is raised
//!   to the last measured D_a (a route change made the path longer). Default off.
//! - `min_buffer` (5.2): 1 or 2 packets added to the decreased window ("minimal buffer"
//!   occupation at the bottleneck instead of zero queueing). Default 0.
//! - `optimistic` (5.2): the hold case increases the window too, so the source probes
//!   until D_a > K D_t and then decreases (the saw teeth of Figure 8). Default off.
//! - `reference_window` (5.1, rejected by the paper): the reference is the minimum of
//!   the last M head RTTs instead of the minimum ever seen. Default off.
//!
//! **Defaults.** K = 1.125, the lower end of the paper's range 1.125 <= K <= 1.25.
//! Figure 9 (two sources with minimal buffer 2 share equally) needs decreases at their
//! operating delay of about 27 packets, 270 ms = 1.22 D_t, so K < 1.22; the windows of
//! Figures 5 and 6 (9/15 and 13/10 packets) are what K = 1.125 gives. Table 1's steady
//! 260 ms (1.174 D_t) would need K > 1.174 but also contradicts the paper's own window
//! of 22-23 packets (230 ms); see docs/reproductions/dabbous.md.
//! NDG threshold 0.5. Loss detection as in JK: 3 duplicate acks or the Jacobson/Karels
//! timer (the transport's `LossRecoveryConfig`, `rto = "jk"`).
//!
//! **Deviations and readings.**
//! - The paper says the algorithm leaves slow start "if NDG is smaller than 0.5". Taken
//!   literally the first sample ends slow start, since the delay does not grow at all
//!   while the pipe is not full (NDG = 0). We leave slow start when NDG >= threshold
//!   (the delay grows at least half as fast, relatively, as the window: "medium gain in
//!   the delay increase"), which also gives the paper's exit window of about 13.
//! - D_a = K D_t exactly is taken as hold (the paper's strict inequalities leave it in
//!   the increase case).
//! - Windows are kept in bytes; the decrease W D_t / D_a is rounded down to a byte, and
//!   the transport sends whole packets (floor of cwnd / packet size).
//! - In slow start the reference D_t is the minimum of every RTT sample; in avoidance
//!   only heads of window update it, as in the paper. D_t survives a loss.
//! - A retransmission or a loss ends the current epoch without a measurement (Karn's
//!   rule for the head of window).
//! - With `min_buffer`, the offset is added to the decreased window even if the result
//!   is not below W^i (the paper does not say; it calls the offset "a more aggressive
//!   increase condition").

use super::{AckSample, CcMetrics, CcPolicy, CongestionControl, CongestionSample, LossRecoveryParams, SendSample};
use crate::base::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Which window the avoidance rule scales (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleWindow {
    /// W^{i+2} from W^i, the window that caused the measured delay (the paper's equation).
    TwoBack,
    /// W^{i+2} from W^{i+1}, the window in force when the measurement arrives.
    Last,
    /// The window changes at most every other epoch: a head's delay is used only if the
    /// epoch before it had the current window (so W^i = W^{i+1} in the equation), as
    /// in Jain's CARD, which adjusts the window every two round trips.
    Alternate,
}

/// How the slow-start exit test samples dD and dW (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NdgSampling {
    /// One sample per new ack.
    Ack,
    /// One sample per epoch (head of window).
    Epoch,
}

/// The largest `reference_window` accepted (it is a count of remembered RTTs).
pub const MAX_REFERENCE_WINDOW: u32 = 100_000;

/// Parameters of DA (`[flows.params]`, by these names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DaConfig {
    /// Decrease when D_a > K D_t. Default 1.125 (see the module documentation).
    pub k: f64,
    /// Slow start ends when NDG >= this. Default 0.5 (section 3).
    pub ndg_threshold: f64,
    /// How NDG is sampled. Default `Ack`.
    pub ndg_sampling: NdgSampling,
    /// Which window the rule scales and how often. Default `Alternate`.
    pub rule_window: RuleWindow,
    /// Raise the reference after this many consecutive decreases (5.1). Default off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_reduce: Option<u32>,
    /// Packets added to a decreased window (5.2: 1 or 2). Default 0.
    pub min_buffer: u32,
    /// Increase instead of hold while D_t < D_a <= K D_t (5.2). Default false.
    pub optimistic: bool,
    /// Reference = minimum of the last M head RTTs (5.1, rejected). Default off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_window: Option<u32>,
}

impl Default for DaConfig {
    fn default() -> Self {
        DaConfig {
            k: 1.125,
            ndg_threshold: 0.5,
            ndg_sampling: NdgSampling::Ack,
            rule_window: RuleWindow::Alternate,
            max_reduce: None,
            min_buffer: 0,
            optimistic: false,
            reference_window: None,
        }
    }
}

impl DaConfig {
    /// Checks the values; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.k >= 1.0 && self.k.is_finite()) {
            return Err(("k", format!("{} must be at least 1 (the paper uses 1.125 to 1.25)", self.k)));
        }
        if !(self.ndg_threshold > 0.0 && self.ndg_threshold.is_finite()) {
            return Err(("ndg_threshold", format!("expected a positive number, found {}", self.ndg_threshold)));
        }
        if self.max_reduce == Some(0) {
            return Err(("max_reduce", "must be a whole number of at least 1".into()));
        }
        if let Some(m) = self.reference_window {
            if !(1..=MAX_REFERENCE_WINDOW).contains(&m) {
                return Err((
                    "reference_window",
                    format!("{m} head RTTs: give 1 to {MAX_REFERENCE_WINDOW} (the paper's M is small)"),
                ));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    SlowStart,
    Avoidance,
}

#[derive(Clone, Debug)]
pub struct Da {
    /// Packet size, bytes.
    mss: u64,
    /// Maximum window, bytes.
    max: u64,
    /// Congestion window, bytes.
    cwnd: u64,
    phase: Phase,
    k: f64,
    ndg_threshold: f64,
    ndg_sampling: NdgSampling,
    rule_window: RuleWindow,
    max_reduce: Option<u32>,
    /// Minimal-buffer offset, bytes.
    min_buffer: u64,
    optimistic: bool,
    /// Reference delay D_t, ps; `None` before the first sample.
    d_t: Option<u64>,
    /// Last head RTTs (ps) for the min-of-last-M reference; allocated once.
    recent: Vec<u64>,
    /// Capacity M of `recent` (0: the reference is the minimum ever seen).
    recent_cap: usize,
    /// Next slot of `recent` to overwrite once it is full.
    recent_pos: usize,
    /// Head of window of the current epoch: (sequence number, send time).
    head: Option<(u32, SimTime)>,
    /// A head must be chosen at the next new transmission.
    need_head: bool,
    /// New packets sent in the current epoch and in the previous one.
    sent_cur: u32,
    sent_prev: u32,
    /// W^i and W^{i+1} of the avoidance rule, bytes: the windows of the previous epoch
    /// and of the current one.
    win_prev: u64,
    win_cur: u64,
    /// Consecutive decreases (MAX-REDUCE).
    reductions: u32,
    /// `Alternate` only: the epoch that just ended had the current window throughout, so
    /// the next head measures it.
    settled: bool,
    /// Previous NDG sample: (window in packets, RTT in ps).
    ndg_last: Option<(u64, u64)>,
}

impl Da {
    pub fn new(cfg: &DaConfig, mss: u64, max_window: u32) -> Self {
        let max = max_window.max(1) as u64 * mss;
        let m = cfg.reference_window.unwrap_or(0) as usize;
        Da {
            mss,
            max,
            cwnd: mss,
            phase: Phase::SlowStart,
            k: cfg.k,
            ndg_threshold: cfg.ndg_threshold,
            ndg_sampling: cfg.ndg_sampling,
            rule_window: cfg.rule_window,
            max_reduce: cfg.max_reduce,
            min_buffer: cfg.min_buffer as u64 * mss,
            optimistic: cfg.optimistic,
            d_t: None,
            recent: Vec::new(),
            recent_cap: m,
            recent_pos: 0,
            head: None,
            need_head: true,
            sent_cur: 0,
            sent_prev: 0,
            win_prev: mss,
            win_cur: mss,
            reductions: 0,
            settled: false,
            ndg_last: None,
        }
    }

    /// Whether the policy is in congestion avoidance (for tests and traces).
    pub fn in_avoidance(&self) -> bool {
        self.phase == Phase::Avoidance
    }

    /// NDG of a new sample against the previous one; `None` if dW <= 0.
    fn ndg(prev: (u64, u64), w: u64, d: u64) -> Option<f64> {
        let (w0, d0) = prev;
        if w <= w0 || d == 0 {
            return None;
        }
        let dd = d as f64 - d0 as f64;
        let dw = (w - w0) as f64;
        Some((dd / dw) / (d as f64 / w as f64))
    }

    /// Feeds one NDG sample; returns true if slow start must end.
    fn ndg_exit(&mut self, w: u64, d: u64) -> bool {
        let exit = match self.ndg_last {
            Some(prev) => Self::ndg(prev, w, d).is_some_and(|g| g >= self.ndg_threshold),
            None => false,
        };
        self.ndg_last = Some((w, d));
        exit
    }

    fn enter_avoidance(&mut self) {
        self.phase = Phase::Avoidance;
        self.win_prev = self.cwnd;
        self.win_cur = self.cwnd;
        self.reductions = 0;
        self.settled = false;
        self.head = None;
        self.need_head = true;
    }

    /// Updates the reference with a head RTT; returns (old reference, new reference).
    fn update_reference(&mut self, d_a: u64) -> (u64, u64) {
        let old = self.d_t.unwrap_or(d_a);
        let new = if self.recent_cap > 0 {
            if self.recent.len() < self.recent_cap {
                self.recent.push(d_a);
            } else {
                self.recent[self.recent_pos] = d_a;
                self.recent_pos = (self.recent_pos + 1) % self.recent_cap;
            }
            *self.recent.iter().min().expect("just pushed")
        } else {
            old.min(d_a)
        };
        self.d_t = Some(new);
        (old, new)
    }

    /// The three-case rule of section 3 (with the section 5 variants), for the head
    /// RTT `d_a` (ps) that closes an epoch. Returns W^{i+2}, bytes.
    fn avoidance_window(&mut self, d_a: u64) -> u64 {
        let (old, new) = self.update_reference(d_a);
        let w = match self.rule_window {
            RuleWindow::TwoBack => self.win_prev,
            RuleWindow::Last | RuleWindow::Alternate => self.win_cur,
        };
        let next = if d_a as f64 > self.k * old as f64 {
            self.reductions += 1;
            let reduced = (w as u128 * new as u128 / d_a as u128) as u64 + self.min_buffer;
            if self.max_reduce.is_some_and(|m| self.reductions >= m) {
                // 5.1: the path itself got longer; take the last measure as reference.
                self.d_t = Some(d_a);
                self.reductions = 0;
            }
            reduced
        } else {
            self.reductions = 0;
            if d_a > old && !self.optimistic {
                w
            } else {
                w + self.mss
            }
        };
        next.clamp(self.mss, self.max)
    }
}

impl CcPolicy for Da {
    type Config = DaConfig;
    const NAME: &'static str = "da";
    const DESCRIPTION: &'static str = "Dabbous's Delay Algorithm: the window driven by round-trip delays";
    const EXTRA_SERIES: &'static [&'static str] = &["reference_rtt"];
    fn build(cfg: &DaConfig, mss: u64, max_window: u32) -> Self {
        Da::new(cfg, mss, max_window)
    }
    fn check(cfg: &DaConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    /// Jacobson/Karels only (no `rto`).
    const LOSS_RECOVERY: LossRecoveryParams = LossRecoveryParams::JACOBSON_KARELS;
}

impl CongestionControl for Da {
    fn on_packet_sent(&mut self, s: &SendSample) {
        if s.retransmission {
            // Karn: an epoch with a retransmission gives no head measurement.
            self.head = None;
            self.need_head = true;
            return;
        }
        if self.need_head {
            self.need_head = false;
            self.head = Some((s.seq, s.now));
            self.sent_prev = self.sent_cur;
            self.sent_cur = 0;
        }
        self.sent_cur += 1;
    }

    fn on_ack(&mut self, s: &AckSample) {
        let rtt = s.rtt.as_ps();
        // The head of window is acknowledged: the epoch ends.
        let head_rtt = match self.head {
            Some((seq, sent)) if s.ack_seq > seq => {
                self.head = None;
                self.need_head = true;
                Some((s.now - sent).as_ps())
            }
            _ => None,
        };
        match self.phase {
            Phase::SlowStart => {
                self.d_t = Some(self.d_t.map_or(rtt, |d| d.min(rtt)));
                let exit = match self.ndg_sampling {
                    NdgSampling::Ack => self.ndg_exit(self.cwnd / self.mss, rtt),
                    NdgSampling::Epoch => match head_rtt {
                        Some(d) => self.ndg_exit(self.sent_prev as u64, d),
                        None => false,
                    },
                };
                if exit {
                    self.enter_avoidance();
                } else {
                    self.cwnd = (self.cwnd + s.acked_pkts as u64 * self.mss).min(self.max);
                }
            }
            Phase::Avoidance => {
                if let Some(d_a) = head_rtt {
                    if self.rule_window == RuleWindow::Alternate && !self.settled {
                        // This head was queued behind packets of an older window: its
                        // delay still lowers the reference, but the window holds.
                        self.update_reference(d_a);
                        self.settled = true;
                        return;
                    }
                    let next = self.avoidance_window(d_a);
                    self.settled = next == self.cwnd;
                    self.win_prev = self.win_cur;
                    self.win_cur = next;
                    self.cwnd = next;
                }
            }
        }
    }

    /// Any congestion signal (a loss, or an ECN echo: the paper has no ECN, so it gets
    /// the loss response) returns to slow start with one packet.
    fn on_congestion(&mut self, _s: &CongestionSample) {
        self.cwnd = self.mss;
        self.phase = Phase::SlowStart;
        self.ndg_last = None;
        self.head = None;
        self.need_head = true;
        self.reductions = 0;
    }

    fn metrics(&self) -> CcMetrics {
        let m = CcMetrics::window(self.cwnd);
        match self.d_t {
            Some(d) => m.with_extra(0, "reference_rtt", d as f64 / 1e12),
            None => m,
        }
    }
}

impl Da {
    /// The reference ("no queueing") round-trip time D_t.
    pub fn reference_rtt(&self) -> Option<SimDuration> {
        self.d_t.map(SimDuration::from_ps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Cause;

    const MSS: u64 = 1000;

    /// Most tests use K = 1.25 (the round numbers 200 ms -> 250 ms).
    fn k125() -> DaConfig {
        DaConfig { k: 1.25, ..Default::default() }
    }

    #[test]
    fn default_k_is_one_and_one_eighth() {
        // 224 <= 1.125 * 200 = 225: hold; 226 > 225: decrease to 10 * 200 / 226 = 8.849.
        let mut da = in_avoidance(DaConfig::default(), 10, 200);
        assert_eq!(epoch(&mut da, 0, 0, 224), 10_000);
        assert_eq!(epoch(&mut da, 1, 1000, 226), 8849);
    }

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    fn send(da: &mut Da, seq: u32, t_ms: u64) {
        da.on_packet_sent(&SendSample { now: ms(t_ms), seq, retransmission: false });
    }

    /// An ack at `t_ms` acknowledging everything below `ack_seq`, echoing an RTT.
    fn ack(da: &mut Da, ack_seq: u32, t_ms: u64, rtt_ms: u64) {
        da.on_ack(&AckSample {
            now: ms(t_ms),
            acked_pkts: 1,
            rtt: SimDuration::from_millis(rtt_ms),
            in_flight_pkts: 0,
            ack_seq,
            sent: SimTime::ZERO + SimDuration::from_millis(t_ms.saturating_sub(rtt_ms)),
            flags: 0,
            recovery: Default::default(),
        });
    }

    /// A policy already in avoidance with window `w` packets in both remembered epochs
    /// and reference `d_t_ms`.
    fn in_avoidance(cfg: DaConfig, w: u64, d_t_ms: u64) -> Da {
        let mut da = Da::new(&cfg, MSS, 64);
        da.cwnd = w * MSS;
        da.d_t = Some(SimDuration::from_millis(d_t_ms).as_ps());
        da.enter_avoidance();
        // As if the epoch before had this window throughout.
        da.settled = true;
        da
    }

    /// One epoch: a head sent at `t_ms` with sequence `seq`, acknowledged `d_ms` later.
    /// Returns the window after the epoch, packets (may be fractional in bytes).
    fn epoch(da: &mut Da, seq: u32, t_ms: u64, d_ms: u64) -> u64 {
        send(da, seq, t_ms);
        ack(da, seq + 1, t_ms + d_ms, d_ms);
        da.cwnd()
    }

    #[test]
    fn increase_when_head_sees_no_queueing() {
        // D_a = D_t = 200 ms: the "otherwise" case, W^{i+2} = W^i + 1.
        let mut da = in_avoidance(k125(), 10, 200);
        assert_eq!(epoch(&mut da, 0, 0, 200), 11_000);
    }

    #[test]
    fn hold_between_reference_and_k_times_reference() {
        // 200 < 240 <= 1.25 * 200 = 250: hold at W^i = 10.
        let mut da = in_avoidance(k125(), 10, 200);
        assert_eq!(epoch(&mut da, 0, 0, 240), 10_000);
        // Exactly K D_t = 250 ms is also a hold (our reading of the boundary).
        assert_eq!(epoch(&mut da, 1, 1000, 250), 10_000);
    }

    #[test]
    fn decrease_to_zero_queueing_window_above_k_times_reference() {
        // 300 > 250: W = 10 * 200 / 300 = 6.666 packets = 6666 bytes.
        let mut da = in_avoidance(k125(), 10, 200);
        assert_eq!(epoch(&mut da, 0, 0, 300), 6666);
    }

    #[test]
    fn alternate_skips_the_epoch_after_a_window_change() {
        let mut da = in_avoidance(k125(), 10, 200);
        // Rule applied: 10 -> 11.
        assert_eq!(epoch(&mut da, 0, 0, 200), 11_000);
        // This head was queued behind the 10-packet epoch: no change, even at 300 ms.
        assert_eq!(epoch(&mut da, 1, 1000, 300), 11_000);
        // Now 300 ms > 250 ms measures W = 11: 11 * 200 / 300 = 7.333 packets.
        assert_eq!(epoch(&mut da, 2, 2000, 300), 7333);
        // A hold leaves the window unchanged, so the next epoch is measured again.
        let mut da = in_avoidance(k125(), 10, 200);
        assert_eq!(epoch(&mut da, 0, 0, 240), 10_000);
        assert_eq!(epoch(&mut da, 1, 1000, 200), 11_000);
    }

    #[test]
    fn last_variant_scales_the_window_in_force() {
        let cfg = DaConfig { rule_window: RuleWindow::Last, ..k125() };
        let mut da = in_avoidance(cfg, 10, 200);
        assert_eq!(epoch(&mut da, 0, 0, 200), 11_000);
        // Every epoch applies the rule to the current window: 11 + 1 = 12.
        assert_eq!(epoch(&mut da, 1, 1000, 200), 12_000);
        // 12 * 200 / 300 = 8 packets.
        assert_eq!(epoch(&mut da, 2, 2000, 300), 8000);
    }

    #[test]
    fn new_window_follows_the_window_of_two_epochs_back() {
        // The paper's equation applied every epoch: W^{i+2} from W^i.
        // Start with W^i = W^{i+1} = 10, D_t = 200.
        let cfg = DaConfig { rule_window: RuleWindow::TwoBack, ..k125() };
        let mut da = in_avoidance(cfg, 10, 200);
        // X_{i+1} sees 200 ms: W^{i+2} = W^i + 1 = 11.
        assert_eq!(epoch(&mut da, 0, 0, 200), 11_000);
        // X_{i+2} sees 200 ms: W^{i+3} = W^{i+1} + 1 = 11 (not 12).
        assert_eq!(epoch(&mut da, 1, 1000, 200), 11_000);
        // X_{i+3} sees 200 ms: W^{i+4} = W^{i+2} + 1 = 12.
        assert_eq!(epoch(&mut da, 2, 2000, 200), 12_000);
        // X_{i+4} sees 300 ms: W^{i+5} = W^{i+3} * 200/300 = 11 * 2/3 = 7.333 packets.
        assert_eq!(epoch(&mut da, 3, 3000, 300), 7333);
    }

    #[test]
    fn reference_is_lowered_by_a_smaller_delay() {
        // D_a = 150 < D_t = 200: increase, and D_t becomes 150. The next epoch is skipped
        // (window changed). Then 190 > 1.25 * 150 = 187.5: a decrease to
        // 11 * 150 / 190 = 8.684 packets.
        let mut da = in_avoidance(k125(), 10, 200);
        assert_eq!(epoch(&mut da, 0, 0, 150), 11_000);
        assert_eq!(da.reference_rtt(), Some(SimDuration::from_millis(150)));
        assert_eq!(epoch(&mut da, 1, 1000, 190), 11_000);
        assert_eq!(epoch(&mut da, 2, 2000, 190), 8684);
    }

    #[test]
    fn only_the_head_of_window_closes_an_epoch() {
        let mut da = in_avoidance(k125(), 10, 200);
        send(&mut da, 0, 0); // head
        send(&mut da, 1, 1);
        send(&mut da, 2, 2);
        // Acks of later packets with large RTTs change nothing until the head is acked...
        ack(&mut da, 0, 150, 400);
        assert_eq!(da.cwnd(), 10_000);
        // ... and the head's own RTT is measured from its send time (0 -> 200 ms).
        ack(&mut da, 1, 200, 999);
        assert_eq!(da.cwnd(), 11_000);
        // Packet 3 is the next head; packet 2's ack does not close that epoch.
        send(&mut da, 3, 200);
        ack(&mut da, 3, 202, 200);
        assert_eq!(da.cwnd(), 11_000);
    }

    #[test]
    fn max_reduce_raises_reference_after_consecutive_decreases() {
        // D_t = 100 ms; the path becomes 200 ms long. MAX-REDUCE = 2.
        let cfg = DaConfig { max_reduce: Some(2), ..k125() };
        let mut da = in_avoidance(cfg, 16, 100);
        // 1st decrease: 16 * 100 / 200 = 8; the next epoch is skipped.
        assert_eq!(epoch(&mut da, 0, 0, 200), 8000);
        assert_eq!(epoch(&mut da, 1, 1000, 200), 8000);
        // 2nd decrease: 8 -> 4; now the reference is raised to 200 ms.
        assert_eq!(epoch(&mut da, 2, 2000, 200), 4000);
        assert_eq!(da.reference_rtt(), Some(SimDuration::from_millis(200)));
        // Skipped epoch, then 200 ms is no queueing: 4 + 1 = 5.
        assert_eq!(epoch(&mut da, 3, 3000, 200), 4000);
        assert_eq!(epoch(&mut da, 4, 4000, 200), 5000);
    }

    #[test]
    fn without_max_reduce_a_longer_path_keeps_cutting_the_window() {
        let mut da = in_avoidance(k125(), 16, 100);
        let windows: Vec<u64> = (0..6).map(|i| epoch(&mut da, i, 1000 * i as u64, 200)).collect();
        // Halved on every measured epoch (every other one): 16 -> 8 -> 4 -> 2.
        assert_eq!(windows, vec![8000, 8000, 4000, 4000, 2000, 2000]);
        assert_eq!(da.reference_rtt(), Some(SimDuration::from_millis(100)));
    }

    #[test]
    fn max_reduce_needs_consecutive_decreases() {
        let cfg = DaConfig { max_reduce: Some(2), ..k125() };
        let mut da = in_avoidance(cfg, 16, 100);
        epoch(&mut da, 0, 0, 200); // decrease 1
        epoch(&mut da, 1, 1000, 200); // skipped (window changed)
        epoch(&mut da, 2, 2000, 110); // hold: the count restarts
        epoch(&mut da, 3, 3000, 200); // decrease 1 again
        assert_eq!(da.cwnd(), 4000);
        assert_eq!(da.reference_rtt(), Some(SimDuration::from_millis(100)));
    }

    #[test]
    fn min_buffer_adds_packets_to_a_decreased_window() {
        // 10 * 200 / 300 = 6.666 packets + 2 = 8.666 packets.
        let cfg = DaConfig { min_buffer: 2, ..k125() };
        let mut da = in_avoidance(cfg, 10, 200);
        assert_eq!(epoch(&mut da, 0, 0, 300), 8666);
    }

    #[test]
    fn optimistic_variant_increases_instead_of_holding() {
        let cfg = DaConfig { optimistic: true, ..k125() };
        let mut da = in_avoidance(cfg, 10, 200);
        assert_eq!(epoch(&mut da, 0, 0, 240), 11_000);
    }

    #[test]
    fn min_of_last_m_reference_forgets_old_minimum() {
        // M = 2: after 200 and 230, the 150 ms sample is forgotten and D_t = 200.
        let cfg = DaConfig { reference_window: Some(2), ..k125() };
        let mut da = in_avoidance(cfg, 10, 150);
        epoch(&mut da, 0, 0, 200); // recent = [200]: D_t = 200 (the 150 was from slow start)
        assert_eq!(da.reference_rtt(), Some(SimDuration::from_millis(200)));
        epoch(&mut da, 1, 1000, 230); // [200, 230]: 200
        epoch(&mut da, 2, 2000, 240); // [240, 230]: 230
        assert_eq!(da.reference_rtt(), Some(SimDuration::from_millis(230)));
    }

    #[test]
    fn window_is_capped_by_max_window_and_floored_at_one_packet() {
        let mut da = Da::new(&k125(), MSS, 4);
        da.cwnd = 4 * MSS;
        da.d_t = Some(SimDuration::from_millis(100).as_ps());
        da.enter_avoidance();
        da.settled = true;
        assert_eq!(epoch(&mut da, 0, 0, 100), 4000);
        // 4 + 1 = 5 was capped at 4 (no change, so the next epoch counts). Then 1000 ms > 125 ms: 4 * 100 / 1000 = 0.4
        // packets, floored at 1 packet.
        assert_eq!(epoch(&mut da, 1, 1000, 1000), 1000);
    }

    #[test]
    fn slow_start_opens_one_packet_per_ack_while_delay_is_flat() {
        let mut da = Da::new(&k125(), MSS, 64);
        for i in 0..10u32 {
            send(&mut da, i, 0);
            ack(&mut da, i + 1, 200, 200);
        }
        assert_eq!(da.cwnd(), 11_000);
        assert!(!da.in_avoidance());
    }

    #[test]
    fn ndg_per_ack_ends_slow_start_at_half() {
        // Window W before each ack and the ack's RTT D. NDG = (dD/dW)/(D/W).
        // W = 1..=4 with D = 200 ms: NDG = 0, windows grow to 5.
        // W = 5, D = 210: NDG = (10/1)/(210/5) = 0.238: grow to 6.
        // W = 6, D = 230: NDG = (20/1)/(230/6) = 0.522 >= 0.5: avoidance at W = 6.
        let mut da = Da::new(&k125(), MSS, 64);
        for (i, d) in [200, 200, 200, 200, 210].into_iter().enumerate() {
            ack(&mut da, i as u32 + 1, 1000 * i as u64, d);
            assert!(!da.in_avoidance(), "ack {i}");
        }
        assert_eq!(da.cwnd(), 6000);
        ack(&mut da, 6, 6000, 230);
        assert!(da.in_avoidance());
        assert_eq!(da.cwnd(), 6000);
    }

    #[test]
    fn ndg_just_below_threshold_keeps_slow_start() {
        // W = 2 -> D 200; W = 3 (after one ack), D = 200 + x with (x/1)/((200+x)/3) < 0.5:
        // x = 38 gives 38*3/238 = 0.479.
        let mut da = Da::new(&k125(), MSS, 64);
        ack(&mut da, 1, 0, 200); // W = 1
        ack(&mut da, 2, 1, 200); // W = 2: NDG 0
        ack(&mut da, 3, 2, 238); // W = 3: NDG 0.479
        assert!(!da.in_avoidance());
        assert_eq!(da.cwnd(), 4000);
    }

    #[test]
    fn ndg_per_epoch_pairs_head_delay_with_previous_epoch_size() {
        let cfg = DaConfig { ndg_sampling: NdgSampling::Epoch, ..k125() };
        let mut da = Da::new(&cfg, MSS, 64);
        // Epoch 0: head 0 alone; acked at 200 ms (sample W = 0 packets before: ignored
        // as dW <= 0 later). Epoch 1: packets 1, 2; head 1 acked with 200 ms.
        send(&mut da, 0, 0);
        ack(&mut da, 1, 200, 200); // closes epoch 0: sample (sent_prev = 0, 200)
        send(&mut da, 1, 200);
        send(&mut da, 2, 200);
        ack(&mut da, 2, 400, 200); // closes epoch 1: sample (1, 200): dW = 1, dD = 0
        assert!(!da.in_avoidance());
        for s in 3..7 {
            send(&mut da, s, 400); // epoch 2: packets 3..6 (4 packets)
        }
        ack(&mut da, 3, 410, 210); // not the head (3)
                                   // Head 3 sent at 400, acked at 700: D = 300 ms, paired with epoch 1's 2 packets:
                                   // NDG = ((300 - 200)/(2 - 1)) / (300/2) = 0.667 >= 0.5.
        ack(&mut da, 4, 700, 300);
        assert!(da.in_avoidance());
    }

    #[test]
    fn loss_returns_to_slow_start_with_one_packet_and_keeps_reference() {
        let mut da = in_avoidance(k125(), 20, 200);
        da.on_congestion(&CongestionSample {
            now: ms(0),
            cause: Cause::FastRetransmit,
            in_flight_pkts: 0,
            pipe: false,
            rto_repeat: false,
            dupack_threshold: 3,
        });
        assert_eq!(da.cwnd(), 1000);
        assert!(!da.in_avoidance());
        assert_eq!(da.reference_rtt(), Some(SimDuration::from_millis(200)));
        assert!(<Da as CcPolicy>::LOSS_RECOVERY.fast_retransmit());
    }

    #[test]
    fn retransmission_cancels_the_head_measurement() {
        let mut da = in_avoidance(k125(), 10, 200);
        send(&mut da, 5, 0);
        da.on_packet_sent(&SendSample { now: ms(50), seq: 4, retransmission: true });
        ack(&mut da, 6, 200, 200);
        assert_eq!(da.cwnd(), 10_000);
    }
}
