//! TCP Vegas: L. S. Brakmo and L. L. Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 13(8), 1995 (and Brakmo, O'Malley and
//! Peterson, SIGCOMM 1994). Sections named below are those of the papers' "Techniques".
//!
//! Vegas keeps a few packets of its own queued at the bottleneck: it compares the rate
//! it would reach with no queueing to the rate it gets, once per round trip.
//!
//! **Round trips.** The first new packet sent after a round ends is the round's
//! distinguished packet (`on_packet_sent`); the round ends when the cumulative ack
//! covers it. The RTT samples of the acks that arrive in a round (`AckSample::rtt`,
//! the closing ack's included) are that round's samples.
//!
//! **Congestion avoidance ("Congestion Avoidance Mechanism").** At the end of each round:
//!
//! ```text
//!     BaseRTT  = min of every RTT sample so far
//!     RTT      = mean (default) or min of the round's samples    (parameter `rtt`)
//!     Expected = cwnd / BaseRTT,   Actual = cwnd / RTT
//!     Diff     = (Expected - Actual) x BaseRTT = cwnd (RTT - BaseRTT) / RTT   [packets]
//!     Diff < alpha:          cwnd += 1 packet
//!     alpha <= Diff <= beta: hold
//!     Diff > beta:           cwnd -= 1 packet (not below 2)
//! ```
//!
//! With the bottleneck busy, Actual is its rate and RTT - BaseRTT the queueing delay, so
//! Diff is the number of this flow's packets queued: Vegas keeps between alpha and beta
//! of them there (the paper counts alpha and beta in buffers).
//!
//! **Modified slow start ("Modified Slow-Start Mechanism").** While cwnd < ssthresh,
//! rounds alternate: a measuring round, in which the window stays fixed, then a growing
//! round, in which it grows by the packets acknowledged (at most 2 per ack, RFC 3465's
//! L) and so doubles. The first round measures. The ack that ends a round counts toward
//! the next one. At the end of a measuring round, Diff > gamma ends slow start, and the
//! window becomes (parameter `slow_start_exit`):
//!
//! - `target` (default, as Linux `tcp_vegas.c`): the window that would give the actual
//!   rate with no queueing, plus one, cwnd = min(cwnd, floor(cwnd BaseRTT / RTT) + 1);
//! - `eighth` (as ns-2 `tcp-vegas.cc`, from the NetBSD port of the Arizona code):
//!   cwnd = cwnd - floor(cwnd / 8).
//!
//! In both cases at least 2 packets (unless the window was smaller), and ssthresh =
//! min(ssthresh, cwnd), so the flow is in congestion avoidance from then on. The end of
//! a growing round does not test gamma: its samples are acks of packets sent under the
//! window before it doubled. Slow start also ends when cwnd reaches ssthresh (after a
//! timeout). In a growing round every ack releases two packets, so the k-th pair finds
//! about k packets queued at a slower bottleneck: with the mean RTT, slow start may end
//! well below the pipe (at 16 packets for a 56-packet pipe in crates/ccsim-engine/tests/vegas.rs), and
//! congestion avoidance adds the rest one packet per round trip.
//!
//! **Loss response: Reno's.** Fast retransmit at `dupack_threshold` duplicate acks:
//! ssthresh = max(FlightSize/2, 2) segments (RFC 5681; `ssthresh_rule = "bsd"` halves
//! min(cwnd, maxwin) instead, as `cc/reno.rs` describes), cwnd = ssthresh + dupack_threshold,
//! inflated by each further duplicate ack and deflated to ssthresh by the first new ack
//! (4.3BSD-Reno). With SACK (`CongestionSample::pipe`, RFC 6675) cwnd = ssthresh at once
//! and partial acks leave it there. ECN echo: cwnd = ssthresh (RFC 3168). Timeout:
//! cwnd = 1 segment, then Vegas slow start. Vegas's own adjustments pause during
//! recovery, and a round starts afresh after a recovery, a timeout or an ECN reduction.
//! ssthresh after a Vegas decrease is min(ssthresh, cwnd), as in Linux.
//!
//! **Defaults.** alpha = 1, beta = 3, gamma = 1 packet (the paper's); the mean RTT;
//! initial window 1; the transport's Jacobson/Karels timer (`LossRecoveryConfig`).
//!
//! **Deviations and readings.**
//! - No fine-grained timeouts ("New Retransmission Mechanism": retransmit on the first
//!   or second duplicate ack, or the first or second new ack after a retransmission,
//!   when the packet's fine-grained timer has expired; cut the window only for a loss
//!   sent after the last cut, by a quarter in ns-2). They need a per-packet send-time
//!   table and their own RTO estimate in the policy, a retransmission request from the
//!   policy on duplicate and new acks, and a handover with the transport's duplicate-ack
//!   counter so that the third duplicate does not retransmit and cut again (ns-2 sets its
//!   counter to the threshold): a second loss-detection path through NewReno and SACK
//!   recovery, not a minimal hook. Loss detection and recovery are the transport's, as in
//!   Linux Vegas.
//! - Actual = cwnd / RTT (as Linux). The SIGCOMM paper divides the bytes sent during
//!   the distinguished segment's round trip by that segment's RTT; ns-2 divides the
//!   packets sent in the round by the mean RTT. Our RTT is the mean of the round's
//!   samples or their minimum (`rtt = "min"`, as Linux, which filters delayed acks).
//! - The +1/-1 is a step at the end of the round (Linux), not spread over the next round
//!   trip ("linearly during the next RTT"; ns-2 spreads the increase).
//! - No Linux-style fallback to Reno growth when a round has fewer than 3 samples, and no
//!   restart after an idle period (the transport has none).
//! - BaseRTT is the minimum ever seen (paper, Linux): a route that becomes longer is not
//!   noticed.
//! - Windows are whole packets of the flow's data size, kept in bytes.

use super::{CcPolicy, 
    check_window_start, fast_recovery_window, ssthresh_after_congestion, AckSample, Cause, CcMetrics, CongestionControl, CongestionSample,
    LossRecoveryParams, RecoveryAck, SendSample, SsthreshRule,
};
use crate::base::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Which RTT of a round trip the Actual rate uses (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VegasRtt {
    /// The mean of the round's samples (ns-2, ported from the Arizona code via NetBSD).
    Mean,
    /// The minimum of the round's samples (Linux `tcp_vegas.c`).
    Min,
}

/// The window when Diff > gamma ends slow start (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlowStartExit {
    /// min(cwnd, floor(cwnd BaseRTT / RTT) + 1) packets (Linux).
    Target,
    /// cwnd - floor(cwnd / 8) packets (ns-2).
    Eighth,
}

/// Parameters of Vegas (`[flows.params]`, by these names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {
    /// Increase while Diff < alpha, packets. Default 1 (the paper).
    #[serde(rename = "alpha")]
    pub alpha_pkts: f64,
    /// Decrease while Diff > beta, packets. Default 3 (the paper).
    #[serde(rename = "beta")]
    pub beta_pkts: f64,
    /// Leave slow start when Diff > gamma, packets. Default 1 (the paper).
    #[serde(rename = "gamma")]
    pub gamma_pkts: f64,
    /// The round's RTT in Actual. Default `Mean`.
    pub rtt: VegasRtt,
    /// The window at the slow-start exit. Default `Target`.
    pub slow_start_exit: SlowStartExit,
    /// Initial window, packets. Default 1.
    pub initial_window: u32,
    /// Initial slow-start threshold, packets; `None` means the maximum window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
    /// Which window a congestion signal halves; `None`: `rfc5681` (`SsthreshRule`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssthresh_rule: Option<SsthreshRule>,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha_pkts: 1.0,
            beta_pkts: 3.0,
            gamma_pkts: 1.0,
            rtt: VegasRtt::Mean,
            slow_start_exit: SlowStartExit::Target,
            initial_window: 1,
            initial_ssthresh: None,
            ssthresh_rule: None,
        }
    }
}

impl VegasConfig {
    /// Checks the values; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        for (name, v) in [("alpha", self.alpha_pkts), ("beta", self.beta_pkts), ("gamma", self.gamma_pkts)] {
            if !(v > 0.0 && v.is_finite()) {
                return Err((name, format!("expected a positive number of packets, found {v}")));
            }
        }
        if self.beta_pkts < self.alpha_pkts {
            return Err((
                "beta",
                format!("must not be below alpha ({} packets; the paper uses alpha 1, beta 3)", self.alpha_pkts),
            ));
        }
        check_window_start(self.initial_window, self.initial_ssthresh)?;
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    /// Segment size, bytes.
    mss: u64,
    /// Congestion window, bytes (inflated during fast recovery).
    cwnd: u64,
    /// Slow-start threshold, bytes.
    ssthresh: u64,
    /// Maximum window, bytes.
    max: u64,
    alpha: f64,
    beta: f64,
    gamma: f64,
    rtt_rule: VegasRtt,
    exit_rule: SlowStartExit,
    /// BaseRTT, ps: the smallest RTT sample; `None` before the first.
    base_rtt: Option<u64>,
    /// Diff of the last round, packets; `None` before the first round ends.
    diff: Option<f64>,
    /// The round's distinguished packet (sequence number), once sent.
    head: Option<u32>,
    /// The next new packet sent starts a round.
    need_head: bool,
    /// RTT samples of the current round: count, sum (ps) and minimum (ps).
    samples: u32,
    sum_ps: u64,
    min_ps: u64,
    /// Slow start: the current round grows the window (else it measures).
    growing: bool,
    /// In fast recovery.
    recovering: bool,
    /// The current recovery uses SACK's pipe (no inflation, no deflation).
    pipe: bool,
    ssthresh_rule: SsthreshRule,
}

impl Vegas {
    pub fn new(cfg: &VegasConfig, mss: u64, max_window: u32) -> Self {
        let max = max_window.max(1) as u64 * mss;
        Vegas {
            mss,
            cwnd: (cfg.initial_window.max(1) as u64 * mss).min(max),
            ssthresh: cfg.initial_ssthresh.unwrap_or(max_window) as u64 * mss,
            max,
            alpha: cfg.alpha_pkts,
            beta: cfg.beta_pkts,
            gamma: cfg.gamma_pkts,
            rtt_rule: cfg.rtt,
            exit_rule: cfg.slow_start_exit,
            base_rtt: None,
            diff: None,
            head: None,
            need_head: true,
            samples: 0,
            sum_ps: 0,
            min_ps: u64::MAX,
            growing: false,
            recovering: false,
            ssthresh_rule: cfg.ssthresh_rule.unwrap_or(SsthreshRule::Rfc5681),
            pipe: false,
        }
    }

    /// In Vegas's modified slow start.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    pub fn in_recovery(&self) -> bool {
        self.recovering
    }

    /// BaseRTT, the smallest RTT seen.
    pub fn base_rtt(&self) -> Option<SimDuration> {
        self.base_rtt.map(SimDuration::from_ps)
    }

    /// Diff of the last round trip, packets.
    pub fn diff(&self) -> Option<f64> {
        self.diff
    }

    /// Forgets the current round; the next new packet sent starts one, measuring.
    fn restart_round(&mut self) {
        self.head = None;
        self.need_head = true;
        self.samples = 0;
        self.sum_ps = 0;
        self.min_ps = u64::MAX;
        self.growing = false;
    }

    /// A Vegas cut to `pkts` packets: not below 2 packets (Linux, ns-2), and never
    /// above the window before the cut.
    fn cut_to(&self, pkts: u64) -> u64 {
        (pkts.max(2) * self.mss).min(self.cwnd)
    }

    /// The round's distinguished packet is acknowledged: compute Diff and adjust.
    fn end_round(&mut self) {
        let base = self.base_rtt.expect("a round ends with a sample");
        let rtt = match self.rtt_rule {
            VegasRtt::Mean => self.sum_ps / self.samples as u64,
            VegasRtt::Min => self.min_ps,
        };
        let w = self.cwnd / self.mss;
        let diff = w as f64 * rtt.saturating_sub(base) as f64 / rtt as f64;
        self.diff = Some(diff);
        if self.in_slow_start() {
            if self.growing {
                self.growing = false;
            } else if diff > self.gamma {
                let pkts = match self.exit_rule {
                    SlowStartExit::Target => w.min((w as u128 * base as u128 / rtt as u128) as u64 + 1),
                    SlowStartExit::Eighth => w - w / 8,
                };
                self.cwnd = self.cut_to(pkts);
                self.ssthresh = self.ssthresh.min(self.cwnd);
            } else {
                self.growing = true;
            }
        } else if diff < self.alpha {
            self.cwnd = (self.cwnd + self.mss).min(self.max);
        } else if diff > self.beta {
            self.cwnd = self.cut_to(w.saturating_sub(1));
            self.ssthresh = self.ssthresh.min(self.cwnd);
        }
        self.head = None;
        self.need_head = true;
        self.samples = 0;
        self.sum_ps = 0;
        self.min_ps = u64::MAX;
    }
}

impl CcPolicy for Vegas {
    type Config = VegasConfig;
    const NAME: &'static str = "vegas";
    const DESCRIPTION: &'static str = "TCP Vegas (Brakmo and Peterson): keeps alpha to beta packets queued at the bottleneck";
    const SACK: bool = true;
    const EXTRA_SERIES: &'static [&'static str] = &["base_rtt", "diff"];
    fn build(cfg: &VegasConfig, mss: u64, max_window: u32) -> Self {
        Vegas::new(cfg, mss, max_window)
    }
    fn check(cfg: &VegasConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    /// Jacobson/Karels only (no `rto`), listed after `initial_ssthresh`.
    const LOSS_RECOVERY: LossRecoveryParams =
        LossRecoveryParams { after: Some("initial_ssthresh"), ..LossRecoveryParams::JACOBSON_KARELS };
}

impl CongestionControl for Vegas {
    fn on_packet_sent(&mut self, s: &SendSample) {
        if self.need_head && !s.retransmission && !self.recovering {
            self.need_head = false;
            self.head = Some(s.seq);
        }
    }

    fn on_ack(&mut self, s: &AckSample) {
        let rtt = s.rtt.as_ps().max(1);
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        if self.recovering {
            if s.recovery == RecoveryAck::Partial {
                // Only SACK recovery has partial acks here (Vegas recovers as Reno):
                // cwnd stays at ssthresh and the pipe decides.
                return;
            }
            self.cwnd = self.ssthresh;
            self.recovering = false;
            self.restart_round();
            return;
        }
        self.samples += 1;
        self.sum_ps += rtt;
        self.min_ps = self.min_ps.min(rtt);
        if self.head.is_some_and(|h| s.ack_seq > h) {
            self.end_round();
        }
        if self.growing && self.in_slow_start() {
            let n = s.acked_pkts.min(2) as u64;
            self.cwnd = (self.cwnd + n * self.mss).min(self.ssthresh).min(self.max);
        }
    }

    fn on_dup_ack(&mut self, _now: SimTime) {
        if self.recovering && !self.pipe {
            self.cwnd += self.mss;
        }
    }

    fn on_congestion(&mut self, s: &CongestionSample) {
        self.ssthresh = ssthresh_after_congestion(
            self.ssthresh_rule,
            s,
            self.cwnd,
            self.ssthresh,
            self.recovering,
            self.mss,
            self.max,
        );
        match s.cause {
            Cause::FastRetransmit => {
                self.pipe = s.pipe;
                self.cwnd = fast_recovery_window(s, self.ssthresh, self.mss);
                self.recovering = true;
            }
            Cause::Ecn => self.cwnd = self.ssthresh,
            Cause::Timeout => {
                self.cwnd = self.mss;
                self.recovering = false;
            }
        }
        self.restart_round();
    }

    fn metrics(&self) -> CcMetrics {
        let mut m = CcMetrics::window(self.cwnd).with_ssthresh(self.ssthresh);
        if let Some(b) = self.base_rtt {
            m = m.with_extra(0, "base_rtt", b as f64 / 1e12);
        }
        if let Some(d) = self.diff {
            m = m.with_extra(1, "diff", d);
        }
        m
    }

}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::loss_in_flight;
    use crate::cc::RecoveryAck;

    const MSS: u64 = 1000;

    fn ps(ms: u64) -> u64 {
        SimDuration::from_millis(ms).as_ps()
    }

    fn send(v: &mut Vegas, seq: u32) {
        v.on_packet_sent(&SendSample { now: SimTime::ZERO, seq, retransmission: false });
    }

    /// An ack of one packet acknowledging everything below `ack_seq`, with an RTT sample.
    fn ack(v: &mut Vegas, ack_seq: u32, rtt_ms: u64) {
        ack_with(v, ack_seq, rtt_ms, RecoveryAck::None);
    }

    fn ack_with(v: &mut Vegas, ack_seq: u32, rtt_ms: u64, recovery: RecoveryAck) {
        v.on_ack(&AckSample {
            now: SimTime::ZERO,
            acked_pkts: 1,
            rtt: SimDuration::from_millis(rtt_ms),
            in_flight_pkts: 0,
            sent: SimTime::ZERO,
            flags: 0,
            ack_seq,
            recovery,
        });
    }

    /// One round trip: the distinguished packet `head` is sent, then one ack per RTT
    /// sample, the last one covering `head`. Returns the window after it, packets.
    fn round(v: &mut Vegas, head: u32, rtts_ms: &[u64]) -> u64 {
        send(v, head);
        let n = rtts_ms.len() as u32;
        for (i, &r) in rtts_ms.iter().enumerate() {
            ack(v, head + 2 + i as u32 - n, r);
        }
        v.cwnd() / MSS
    }

    /// Congestion avoidance (cwnd = ssthresh = `w` packets) with BaseRTT `base_ms`.
    fn in_avoidance(cfg: VegasConfig, w: u32, base_ms: u64) -> Vegas {
        let cfg = VegasConfig { initial_window: w, initial_ssthresh: Some(w), ..cfg };
        let mut v = Vegas::new(&cfg, MSS, 64);
        v.base_rtt = Some(ps(base_ms));
        assert!(!v.in_slow_start());
        v
    }

    /// Slow start at `w` packets, about to end a measuring round, BaseRTT `base_ms`.
    fn in_slow_start(cfg: VegasConfig, w: u32, base_ms: u64) -> Vegas {
        let mut v = Vegas::new(&VegasConfig { initial_window: w, ..cfg }, MSS, 64);
        v.base_rtt = Some(ps(base_ms));
        assert!(v.in_slow_start() && !v.growing);
        v
    }

    /// A sender in front of the policy: sends while the window allows, one ack per
    /// packet, every packet acknowledged one round trip after it was sent.
    struct Flow {
        v: Vegas,
        una: u32,
        nxt: u32,
    }

    impl Flow {
        fn new(v: Vegas) -> Self {
            let mut f = Flow { v, una: 0, nxt: 0 };
            f.fill();
            f
        }
        fn fill(&mut self) {
            while self.nxt < self.una + (self.v.cwnd() / MSS) as u32 {
                send(&mut self.v, self.nxt);
                self.nxt += 1;
            }
        }
        /// Acks every packet outstanding, all with the same RTT. Returns the window.
        fn round(&mut self, rtt_ms: u64) -> u64 {
            for _ in self.una..self.nxt {
                self.una += 1;
                ack(&mut self.v, self.una, rtt_ms);
                self.fill();
            }
            self.v.cwnd() / MSS
        }
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = VegasConfig::default();
        assert_eq!((c.alpha_pkts, c.beta_pkts, c.gamma_pkts), (1.0, 3.0, 1.0));
        assert_eq!(c.rtt, VegasRtt::Mean);
        assert!(<Vegas as CcPolicy>::LOSS_RECOVERY.fast_retransmit());
    }

    #[test]
    fn increases_one_packet_when_diff_is_below_alpha() {
        // Diff = 10 x (105 - 100) / 105 = 0.476 < 1.
        let mut v = in_avoidance(VegasConfig::default(), 10, 100);
        assert_eq!(round(&mut v, 100, &[105]), 11);
    }

    #[test]
    fn holds_while_diff_is_between_alpha_and_beta_inclusive() {
        // Diff = 10 x 20 / 120 = 1.67.
        let mut v = in_avoidance(VegasConfig::default(), 10, 100);
        assert_eq!(round(&mut v, 100, &[120]), 10);
        // Diff = 10 x (100 - 90) / 100 = 1 = alpha: hold.
        let mut v = in_avoidance(VegasConfig::default(), 10, 90);
        assert_eq!(round(&mut v, 100, &[100]), 10);
        assert_eq!(v.diff(), Some(1.0));
        // Diff = 10 x (100 - 70) / 100 = 3 = beta: hold.
        let mut v = in_avoidance(VegasConfig::default(), 10, 70);
        assert_eq!(round(&mut v, 100, &[100]), 10);
        assert_eq!(v.diff(), Some(3.0));
    }

    #[test]
    fn decreases_one_packet_when_diff_is_above_beta() {
        // Diff = 10 x (100 - 60) / 100 = 4 > 3; ssthresh follows the window down.
        let mut v = in_avoidance(VegasConfig::default(), 10, 60);
        assert_eq!(round(&mut v, 100, &[100]), 9);
        assert_eq!(v.ssthresh(), Some(9000));
        assert!(!v.in_slow_start());
        // Again: 9 x 40 / 100 = 3.6 > 3.
        assert_eq!(round(&mut v, 200, &[100]), 8);
    }

    #[test]
    fn the_window_changes_only_when_the_distinguished_packet_is_acknowledged() {
        let mut v = in_avoidance(VegasConfig::default(), 10, 100);
        send(&mut v, 100);
        send(&mut v, 101);
        ack(&mut v, 99, 100);
        ack(&mut v, 100, 100);
        assert_eq!(v.cwnd(), 10_000, "packet 100 is not acknowledged yet");
        ack(&mut v, 101, 100);
        assert_eq!(v.cwnd(), 11_000);
        // Packet 101 was sent in the round that just ended: its ack does not end the next.
        ack(&mut v, 102, 100);
        assert_eq!(v.cwnd(), 11_000);
    }

    #[test]
    fn actual_uses_the_mean_rtt_of_the_round_or_its_minimum() {
        // Samples 100 and 150 ms, BaseRTT 100 ms. Mean 125: Diff = 10 x 25 / 125 = 2,
        // hold. Minimum 100: Diff = 0, increase.
        let mut v = in_avoidance(VegasConfig::default(), 10, 100);
        assert_eq!(round(&mut v, 100, &[100, 150]), 10);
        assert_eq!(v.diff(), Some(2.0));
        let mut v = in_avoidance(VegasConfig { rtt: VegasRtt::Min, ..Default::default() }, 10, 100);
        assert_eq!(round(&mut v, 100, &[100, 150]), 11);
        assert_eq!(v.diff(), Some(0.0));
    }

    #[test]
    fn base_rtt_is_the_smallest_sample_ever_and_both_are_series() {
        // A sample of 80 ms lowers BaseRTT; the round's mean is 90: Diff = 10 x 10 / 90.
        let mut v = in_avoidance(VegasConfig::default(), 10, 100);
        assert_eq!(round(&mut v, 100, &[80, 100]), 10);
        assert_eq!(v.base_rtt(), Some(SimDuration::from_millis(80)));
        round(&mut v, 200, &[300]);
        assert_eq!(v.base_rtt(), Some(SimDuration::from_millis(80)));
        // Diff = 10 x (300 - 80) / 300 = 7.33 > 3: one packet less.
        assert_eq!(v.cwnd(), 9000);
        let m = v.metrics();
        assert_eq!(m.extra[0], Some(("base_rtt", 0.08)));
        let (name, d) = m.extra[1].unwrap();
        assert_eq!(name, "diff");
        assert!((d - 22.0 / 3.0).abs() < 1e-12, "{d}");
    }

    #[test]
    fn no_series_values_before_the_first_sample() {
        let v = Vegas::new(&VegasConfig::default(), MSS, 64);
        assert_eq!(v.metrics().extra, [None; crate::cc::EXTRA_SLOTS]);
    }

    #[test]
    fn decrease_stops_at_two_packets_and_increase_at_the_maximum_window() {
        // alpha = beta = 0.5: Diff = 2 x 50 / 100 = 1 > 0.5 would cut, but 2 is the floor.
        let cfg = VegasConfig { alpha_pkts: 0.5, beta_pkts: 0.5, ..Default::default() };
        let mut v = in_avoidance(cfg, 2, 50);
        assert_eq!(round(&mut v, 100, &[100]), 2);
        let cfg = VegasConfig { initial_window: 4, initial_ssthresh: Some(4), ..Default::default() };
        let mut v = Vegas::new(&cfg, MSS, 4);
        assert_eq!(round(&mut v, 100, &[100]), 4, "Diff = 0, but the maximum window is 4");
    }

    #[test]
    fn slow_start_doubles_the_window_every_other_round_trip() {
        // From 1 packet with no queueing (Diff = 0): the first round measures (1), its
        // last ack opens the growing round (2), which ends with its first ack; the
        // measuring round holds 2; and so on.
        let mut f = Flow::new(Vegas::new(&VegasConfig::default(), MSS, 64));
        let windows: Vec<u64> = (0..8).map(|_| f.round(100)).collect();
        assert_eq!(windows, vec![2, 2, 4, 4, 8, 8, 16, 16]);
        assert!(f.v.in_slow_start());
    }

    #[test]
    fn slow_start_ends_when_diff_exceeds_gamma_at_the_target_window_plus_one() {
        // Measuring round at 8 packets, RTT 125 ms, BaseRTT 100: Diff = 8 x 25 / 125 =
        // 1.6 > 1. Target: floor(8 x 100 / 125) + 1 = 6 + 1 = 7 packets.
        let mut v = in_slow_start(VegasConfig::default(), 8, 100);
        assert_eq!(round(&mut v, 100, &[125]), 7);
        assert_eq!(v.ssthresh(), Some(7000));
        assert!(!v.in_slow_start());
        // In congestion avoidance now: Diff = 7 x 25 / 125 = 1.4, hold.
        assert_eq!(round(&mut v, 200, &[125]), 7);
    }

    #[test]
    fn slow_start_exit_by_an_eighth_is_the_ns2_reading() {
        // 16 packets, Diff = 16 x 25 / 125 = 3.2 > 1: 16 - 16/8 = 14 (target: 12 + 1 = 13).
        let mut v =
            in_slow_start(VegasConfig { slow_start_exit: SlowStartExit::Eighth, ..Default::default() }, 16, 100);
        assert_eq!(round(&mut v, 100, &[125]), 14);
        let mut v = in_slow_start(VegasConfig::default(), 16, 100);
        assert_eq!(round(&mut v, 100, &[125]), 13);
    }

    #[test]
    fn diff_equal_to_gamma_keeps_slow_start() {
        // Diff = 10 x 10 / 100 = 1 = gamma: the growing round starts with this ack (+1).
        let mut v = in_slow_start(VegasConfig::default(), 10, 90);
        assert_eq!(round(&mut v, 100, &[100]), 11);
        assert!(v.in_slow_start() && v.growing);
    }

    #[test]
    fn the_end_of_a_growing_round_does_not_test_gamma() {
        // Diff = 8 x 100 / 200 = 4 > 1 at the end of a growing round: no exit, and the
        // measuring round begins (no growth). At the end of that one, the exit:
        // floor(8 x 100 / 200) + 1 = 5.
        let mut v = in_slow_start(VegasConfig::default(), 8, 100);
        v.growing = true;
        assert_eq!(round(&mut v, 100, &[200]), 8);
        assert!(v.in_slow_start() && !v.growing);
        assert_eq!(round(&mut v, 200, &[200]), 5);
        assert!(!v.in_slow_start());
    }

    #[test]
    fn fast_retransmit_is_renos_and_the_next_round_starts_after_recovery() {
        let mut v = in_avoidance(VegasConfig::default(), 10, 100);
        send(&mut v, 100);
        loss_in_flight(&mut v, Cause::FastRetransmit, 10);
        // ssthresh = FlightSize 10 / 2 = 5; cwnd = 5 + 3; one more duplicate: 9.
        assert_eq!((v.cwnd(), v.ssthresh()), (8000, Some(5000)));
        v.on_dup_ack(SimTime::ZERO);
        assert_eq!(v.cwnd(), 9000);
        // New packets sent during recovery start no round.
        send(&mut v, 110);
        // The first new ack deflates to ssthresh, even past the old head: no Vegas step.
        ack(&mut v, 101, 100);
        assert_eq!(v.cwnd(), 5000);
        assert!(!v.in_recovery() && !v.in_slow_start());
        ack(&mut v, 111, 100);
        assert_eq!(v.cwnd(), 5000, "no round is running");
        // The next round: Diff = 0 < 1, +1.
        assert_eq!(round(&mut v, 120, &[100]), 6);
    }

    #[test]
    fn timeout_restarts_vegas_slow_start_up_to_ssthresh() {
        // From 10 packets: ssthresh 5, cwnd 1. Slow start doubles every other round,
        // stops at ssthresh (5) in the fifth round, then avoidance adds one per round.
        let mut v = in_avoidance(VegasConfig::default(), 10, 100);
        loss_in_flight(&mut v, Cause::Timeout, 10);
        assert_eq!((v.cwnd(), v.ssthresh()), (1000, Some(5000)));
        assert!(v.in_slow_start());
        let mut f = Flow::new(v);
        let windows: Vec<u64> = (0..6).map(|_| f.round(100)).collect();
        assert_eq!(windows, vec![2, 2, 4, 4, 5, 6]);
    }

    #[test]
    fn ecn_echo_halves_the_window_without_recovery() {
        let mut v = in_avoidance(VegasConfig::default(), 10, 100);
        loss_in_flight(&mut v, Cause::Ecn, 10);
        assert_eq!((v.cwnd(), v.ssthresh()), (5000, Some(5000)));
        assert!(!v.in_recovery());
        assert_eq!(round(&mut v, 100, &[100]), 6);
    }

    #[test]
    fn sack_recovery_sets_cwnd_to_ssthresh_without_inflation() {
        let mut v = in_avoidance(VegasConfig::default(), 10, 100);
        v.on_congestion(&CongestionSample {
            now: SimTime::ZERO,
            cause: Cause::FastRetransmit,
            in_flight_pkts: 10,
            pipe: true,
            rto_repeat: false,
            dupack_threshold: 3,
        });
        assert_eq!(v.cwnd(), 5000);
        v.on_dup_ack(SimTime::ZERO);
        ack_with(&mut v, 3, 100, RecoveryAck::Partial);
        assert_eq!(v.cwnd(), 5000);
        assert!(v.in_recovery());
        ack_with(&mut v, 8, 100, RecoveryAck::Exit);
        assert_eq!(v.cwnd(), 5000);
        assert!(!v.in_recovery());
    }

    #[test]
    fn a_retransmission_is_not_a_distinguished_packet() {
        let mut v = in_avoidance(VegasConfig::default(), 10, 100);
        v.on_packet_sent(&SendSample { now: SimTime::ZERO, seq: 50, retransmission: true });
        ack(&mut v, 51, 100);
        assert_eq!(v.cwnd(), 10_000);
        assert_eq!(round(&mut v, 100, &[100]), 11);
    }
}
