//! Delay-based AIMD: D. J. Leith, J. Heffner, R. N. Shorten and G. D. McCullagh,
//! "Delay-based AIMD congestion control", PFLDnet 2007 (reference [4] of McCullagh and
//! Leith, "Delay-based congestion control: sampling and correlation issues revisited",
//! whose section III states the algorithm and section IV-D the filtered variant).
//!
//! Standard AIMD with queueing delay as a second congestion signal (section III):
//!
//! ```text
//!     cwnd <- cwnd + alpha/cwnd        on each ack (tau < tau0)
//!     cwnd <- beta x cwnd              if tau >= tau0 (at most once per round trip)
//!     cwnd <- beta x cwnd              on packet loss
//!     tau  = sRTT - RTT_min,           beta = RTT_min / RTT_backoff in [beta_min, beta_max]
//! ```
//!
//! - **RTT_min** is the smallest RTT sample seen; **sRTT** is the RTT filter
//!   sRTT += `srtt_gain` (sample - sRTT). The default gain 1 uses each ack's own sample,
//!   as the analysis of section IV-A assumes ("a flow backs off whenever one or more
//!   packets measures queueing delay above threshold") and as the experiments describe
//!   (section V-A: "queueing delay is then estimated as RTT - RTT_min").
//! - **Once per round trip**: after a delay backoff the next one waits for an ack of a
//!   packet sent after it. Acks whose tau is at or above tau0 never increase the window
//!   (section V-D: "when the delay is persistently above tau0, delay-based AIMD flows will
//!   not increase their cwnd").
//! - **Adaptive backoff** (section III, after [4] and H-TCP): beta = RTT_min / RTT_backoff,
//!   RTT_backoff being the sRTT that triggered the backoff, bounded to [`beta_min`,
//!   `beta_max`] = [0.5, 0.8], the bounds of the Hamilton adaptive backoff (H-TCP,
//!   Linux `tcp_htcp.c` BETA_MIN/BETA_MAX). A fixed beta: set both bounds to it. The
//!   first backoff of a flow uses beta_min, as H-TCP's first backoff does (its
//!   `modeswitch`): Figure 3's "first backoff where cwnd is reduced by half".
//! - **Slow start** (Linux 2.6.23, which the paper's implementation extends): one packet
//!   per ack while cwnd < ssthresh (initially the maximum window). A delay backoff ends
//!   slow start (ssthresh = the new cwnd); the first backoff after slow start's overshoot
//!   has a large RTT_backoff and so halves the window (Figure 3).
//! - **Loss** (Linux conventions): fast retransmit: ssthresh = max(beta cwnd, 2), cwnd =
//!   ssthresh (SACK pipe) or ssthresh + 3 with Reno inflation and deflation (without
//!   SACK); timeout: ssthresh as for a loss, cwnd = 1; ECN echo: cwnd = ssthresh. No delay
//!   reaction during loss recovery.
//!
//! **Filtered variant** (section IV-D, `per_packet = true`): every ack whose own sample
//! exceeds RTT_min + tau0 subtracts gamma per packet acknowledged (`gamma`, default
//! 1 - beta with beta = RTT_min / that sample, bounded as above) and adds it to the
//! running total S_gamma; a full backoff sets cwnd = min(beta (cwnd + S_gamma), cwnd)
//! and resets S_gamma (so does a loss backoff). With a smoothing `srtt_gain` < 1 the
//! full backoff is the filtered signal and the per-packet decrease the safety net.
//!
//! **Delayed acks** (section V-F, `delayed_ack`): the congestion-control RTT should be
//! that of the newest packet acknowledged (the sender's `rtt_sample = "newest"`; the
//! retransmission timer keeps the RFC 1323 echo). When delayed acking is declared
//! (`"on"`) or detected (`"detect"`: an ack of two or more packets that echoes a first
//! transmission), acks of a single packet (a timer-released delayed ack; not the ack
//! of the first packet, a handshake's SYN, which is acknowledged at once) give no RTT
//! sample (and no delay decision: the window grows on them as on an ack below tau0, so
//! a flow at one packet after a timeout gets back to two, where its acks carry samples
//! again), and a delay backoff never takes cwnd below 2 packets (loss and timeout
//! behaviour unchanged), "because with delayed acking enabled we need at least two
//! packets in flight in order to obtain a clean delay measurement".
//!
//! Detection can fail under heavy multiplexing: a flow that loses a packet at start-up
//! before any ack of two packets reaches it times out to one packet; from then on every
//! ack is a timer-released single ack (other flows spread its packets further apart than
//! the receiver's timer), it never sees a two-packet ack, and its inflated samples hold
//! it at one packet (docs/reproductions/leith.md, Figure 14: 74% of 100 flows detect,
//! 40% of 200). `"off"` is the default (section III's algorithm); the paper's runs with
//! delayed acks detect (`"detect"`), and `"on"` declares it from the start.
//!
//! **Defaults**: alpha = 1 packet per RTT, tau0 = 50 ms (section V-A), beta in [0.5,
//! 0.8], srtt_gain = 1, per_packet off, delayed_ack off, initial window 3 (Linux 2.6.23 for a 1448-byte
//! MSS), three duplicate acks, Linux's retransmission timer (srtt + max(4 rttvar, 200 ms),
//! at most 120 s; `rto = "jk"` for the 4.3BSD one).
//!
//! Deviations and readings:
//! - cwnd is a real number of packets (the transport sends floor(cwnd), at least 1, as
//!   Linux's integer snd_cwnd with its snd_cwnd_cnt); the per-ack increase alpha/cwnd
//!   is exact rather than Linux's +1 every cwnd acks.
//! - Delayed acking is detected once and for all (an every-packet receiver whose acks
//!   are lost on the way back would also be taken for a delayed-ack one).
//! - Linux's timer without its undo and F-RTO machinery (a spurious timeout is not
//!   undone).

use super::{CcPolicy, 
    check_window_start, AckSample, Cause, CcMetrics, CongestionControl, CongestionSample, LossRecoveryConfig, LossRecoveryParams,
    RecoveryAck, SendSample,
};
use crate::packet::FLAG_RETX;
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::serde_units;
use serde::{Deserialize, Serialize};

/// Delayed-ack handling of section V-F (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DelayedAckMode {
    /// Switch the handling on at the first ack of two or more first transmissions.
    Detect,
    /// Assume a delayed-ack receiver from the start.
    On,
    /// Never: every ack's sample counts and delay backoffs stop at 1 packet.
    Off,
}

/// Parameters of delay-based AIMD (`[flows.params]`, by these names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DelayAimdConfig {
    /// Additive increase, packets per round trip (alpha/cwnd per ack). Default 1.
    pub alpha: f64,
    /// Queueing-delay threshold of a delay backoff. Default 50 ms (section V-A; 20 ms
    /// in Figure 2).
    #[serde(with = "serde_units::time")]
    pub tau0: SimDuration,
    /// Lower bound of the adaptive backoff factor. Default 0.5 (H-TCP).
    pub beta_min: f64,
    /// Upper bound of the adaptive backoff factor. Default 0.8 (H-TCP).
    pub beta_max: f64,
    /// Gain of the sRTT filter, in (0, 1]; 1 (default) = each ack's own sample.
    pub srtt_gain: f64,
    /// The filtered variant of section IV-D. Default false.
    pub per_packet: bool,
    /// Per-packet decrease of the filtered variant, packets; default 1 - beta.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gamma: Option<f64>,
    /// Delayed-ack handling (section V-F). Default `Off`.
    pub delayed_ack: DelayedAckMode,
    /// Initial window, packets. Default 3 (Linux 2.6.23, 1448-byte MSS).
    pub initial_window: u32,
    /// Initial slow-start threshold, packets; `None` means the maximum window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
}

impl Default for DelayAimdConfig {
    fn default() -> Self {
        DelayAimdConfig {
            alpha: 1.0,
            tau0: SimDuration::from_millis(50),
            beta_min: 0.5,
            beta_max: 0.8,
            srtt_gain: 1.0,
            per_packet: false,
            gamma: None,
            delayed_ack: DelayedAckMode::Off,
            initial_window: 3,
            initial_ssthresh: None,
        }
    }
}

impl DelayAimdConfig {
    /// Checks the values; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.alpha > 0.0 && self.alpha.is_finite()) {
            return Err((
                "alpha",
                format!("expected a positive number of packets per round trip, found {}", self.alpha),
            ));
        }
        if self.tau0 == SimDuration::ZERO {
            return Err(("tau0", "must be positive (the paper uses \"50ms\", \"20ms\" in Figure 2)".into()));
        }
        for (name, b) in [("beta_min", self.beta_min), ("beta_max", self.beta_max)] {
            if !(b > 0.0 && b < 1.0) {
                return Err((name, format!("{b} is not a backoff factor in (0, 1) (the paper's bounds: 0.5 and 0.8)")));
            }
        }
        if self.beta_max < self.beta_min {
            return Err(("beta_max", format!("must not be below beta_min ({})", self.beta_min)));
        }
        if !(self.srtt_gain > 0.0 && self.srtt_gain <= 1.0) {
            return Err((
                "srtt_gain",
                format!("{} is not a filter gain in (0, 1]; 1 uses each sample as it is", self.srtt_gain),
            ));
        }
        if let Some(g) = self.gamma {
            if !(g >= 0.0 && g.is_finite()) {
                return Err(("gamma", format!("expected a non-negative number of packets, found {g}")));
            }
        }
        check_window_start(self.initial_window, self.initial_ssthresh)?;
        Ok(())
    }
}

/// The smallest window a delay backoff leaves once delayed acking is in force, packets.
pub const DELAYED_ACK_FLOOR: f64 = 2.0;

#[derive(Clone, Debug)]
pub struct DelayAimd {
    /// Segment size, bytes.
    mss: u64,
    /// Congestion window, packets (real; the transport sends its integer part).
    cwnd: f64,
    /// Slow-start threshold, packets.
    ssthresh: f64,
    /// Maximum window, packets.
    max: f64,
    alpha: f64,
    /// tau0, ps.
    tau0: f64,
    beta_min: f64,
    beta_max: f64,
    srtt_gain: f64,
    per_packet: bool,
    gamma: Option<f64>,
    dack_mode: DelayedAckMode,
    /// Delayed acking is in force (declared or detected).
    dack: bool,
    /// RTT_min, ps; `None` before the first sample.
    rtt_min: Option<f64>,
    /// sRTT, ps; `None` before the first sample.
    srtt: Option<f64>,
    /// S_gamma: packets subtracted by the filtered variant since the last full backoff.
    s_gamma: f64,
    /// One past the highest sequence number sent.
    next_seq: u32,
    /// No delay backoff until the cumulative ack covers this sequence number (the first
    /// packet sent after the last backoff).
    guard: Option<u32>,
    /// In fast recovery.
    recovering: bool,
    /// The current recovery uses SACK's pipe (no inflation, no deflation).
    pipe: bool,
    /// The last sample used (s), and the last RFC 1323 echo RTT (s), for series.
    cc_rtt_s: Option<f64>,
    echo_rtt_s: Option<f64>,
    /// A backoff (delay or loss) has happened: later ones use the adaptive beta.
    backed_off: bool,
    /// Delay backoffs so far.
    pub delay_backoffs: u64,
}

impl DelayAimd {
    pub fn new(cfg: &DelayAimdConfig, mss: u64, max_window: u32) -> Self {
        let max = max_window.max(1) as f64;
        DelayAimd {
            mss,
            cwnd: (cfg.initial_window.max(1) as f64).min(max),
            ssthresh: cfg.initial_ssthresh.unwrap_or(max_window) as f64,
            max,
            alpha: cfg.alpha,
            tau0: cfg.tau0.as_ps() as f64,
            beta_min: cfg.beta_min,
            beta_max: cfg.beta_max,
            srtt_gain: cfg.srtt_gain,
            per_packet: cfg.per_packet,
            gamma: cfg.gamma,
            dack_mode: cfg.delayed_ack,
            dack: cfg.delayed_ack == DelayedAckMode::On,
            rtt_min: None,
            srtt: None,
            s_gamma: 0.0,
            next_seq: 0,
            guard: None,
            recovering: false,
            pipe: false,
            cc_rtt_s: None,
            echo_rtt_s: None,
            backed_off: false,
            delay_backoffs: 0,
        }
    }

    /// The congestion window, packets (real).
    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd
    }

    /// Delayed acking is in force (declared or detected).
    pub fn delayed_ack(&self) -> bool {
        self.dack
    }

    pub fn in_recovery(&self) -> bool {
        self.recovering
    }

    /// The queueing-delay estimate tau = sRTT - RTT_min.
    pub fn tau(&self) -> Option<SimDuration> {
        Some(SimDuration::from_ps((self.srtt? - self.rtt_min?).max(0.0).round() as u64))
    }

    /// beta = RTT_min / rtt, bounded.
    fn beta_for(&self, rtt_ps: f64) -> f64 {
        match self.rtt_min {
            Some(m) if rtt_ps > 0.0 => (m / rtt_ps).clamp(self.beta_min, self.beta_max),
            _ => self.beta_min,
        }
    }

    /// The backoff factor now: RTT_min / sRTT, bounded; beta_min at the first backoff.
    fn beta_now(&self) -> f64 {
        if !self.backed_off {
            return self.beta_min;
        }
        self.srtt.map_or(self.beta_min, |s| self.beta_for(s))
    }

    /// Floor of a delay-triggered decrease, packets.
    fn delay_floor(&self) -> f64 {
        if self.dack {
            DELAYED_ACK_FLOOR
        } else {
            1.0
        }
    }

    /// The loss backoff (Linux: ssthresh = max(beta cwnd, 2)).
    fn loss_ssthresh(&self) -> f64 {
        (self.beta_now() * self.cwnd).max(2.0)
    }

    /// Section V-F: an ack of two or more packets echoing a first transmission means
    /// the receiver delays its acks.
    fn detect_delayed_ack(&mut self, s: &AckSample) {
        if self.dack_mode == DelayedAckMode::Detect
            && !self.dack
            && s.acked_pkts >= 2
            && s.flags & FLAG_RETX == 0
            && !self.recovering
        {
            self.dack = true;
        }
    }

    /// Feeds one RTT sample to RTT_min and the sRTT filter.
    fn sample(&mut self, rtt_ps: f64) {
        self.rtt_min = Some(self.rtt_min.map_or(rtt_ps, |m| m.min(rtt_ps)));
        self.srtt = Some(match self.srtt {
            None => rtt_ps,
            Some(s) => s + self.srtt_gain * (rtt_ps - s),
        });
        self.cc_rtt_s = Some(rtt_ps / 1e12);
    }

    /// Section IV-D: this ack's own packet waited more than tau0: subtract gamma per
    /// packet acknowledged (not below the delay floor) and add it to S_gamma.
    fn per_packet_decrease(&mut self, rtt_ps: f64, acked: u32) {
        let Some(m) = self.rtt_min else { return };
        if rtt_ps - m <= self.tau0 {
            return;
        }
        let gamma = self.gamma.unwrap_or_else(|| 1.0 - self.beta_for(rtt_ps));
        let floor = self.delay_floor().min(self.cwnd);
        let new = (self.cwnd - gamma * acked as f64).max(floor);
        self.s_gamma += self.cwnd - new;
        self.cwnd = new;
    }

    /// A full delay backoff: cwnd = min(beta (cwnd + S_gamma), cwnd), not below the
    /// delay floor (unless cwnd already is), leaving slow start.
    fn delay_backoff(&mut self) {
        let beta = self.beta_now();
        let target = (beta * (self.cwnd + self.s_gamma)).min(self.cwnd);
        self.cwnd = target.max(self.delay_floor().min(self.cwnd));
        self.ssthresh = self.cwnd;
        self.s_gamma = 0.0;
        self.guard = Some(self.next_seq);
        self.backed_off = true;
        self.delay_backoffs += 1;
    }
}

impl CcPolicy for DelayAimd {
    type Config = DelayAimdConfig;
    const NAME: &'static str = "delay_aimd";
    const DESCRIPTION: &'static str = "Delay-based AIMD (Leith et al.): AIMD with queueing delay as a second congestion signal";
    const SACK: bool = true;
    const EXTRA_SERIES: &'static [&'static str] = &["cc_rtt", "echo_rtt"];
    fn build(cfg: &DelayAimdConfig, mss: u64, max_window: u32) -> Self {
        DelayAimd::new(cfg, mss, max_window)
    }
    fn check(cfg: &DelayAimdConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    /// Linux's timer by default: 200 ms to 120 s (`TCP_RTO_MIN`, `TCP_RTO_MAX`), every
    /// ack sampled; `rto = "jk"` for the 4.3BSD one.
    const LOSS_RECOVERY: LossRecoveryParams = LossRecoveryParams {
        defaults: LossRecoveryConfig::LINUX,
        ..LossRecoveryParams::RFC6298
    };
}

impl CongestionControl for DelayAimd {
    fn on_packet_sent(&mut self, s: &SendSample) {
        self.next_seq = self.next_seq.max(s.seq + 1);
    }

    fn on_ack(&mut self, s: &AckSample) {
        self.echo_rtt_s = Some((s.now - s.sent).as_secs_f64());
        self.detect_delayed_ack(s);
        // Section V-F: with delayed acking a single-packet ack was held by the timer. Not
        // the first packet's (a handshake's SYN, or a Linux receiver in quick-ack mode):
        // it is acknowledged at once, and it is the flow's base-RTT sample.
        let use_sample = !(self.dack && s.acked_pkts == 1 && s.ack_seq > 1);
        let rtt = s.rtt.as_ps() as f64;
        if use_sample {
            self.sample(rtt);
        }
        if self.recovering {
            if s.recovery == RecoveryAck::Partial {
                if !self.pipe {
                    // Reno-style recovery partial ack (NewReno only): deflate by the amount
                    // acknowledged, add one back.
                    let acked = s.acked_pkts as f64;
                    self.cwnd = (self.cwnd - acked).max(1.0) + if acked >= 1.0 { 1.0 } else { 0.0 };
                }
                return;
            }
            self.cwnd = self.ssthresh;
            self.recovering = false;
            return;
        }
        if use_sample && self.per_packet {
            self.per_packet_decrease(rtt, s.acked_pkts);
        }
        // An ack without a sample of its own (a single-packet delayed ack) carries no
        // delay information: the window grows as below tau0 (else a flow at one packet,
        // all of whose acks are single, would hold forever on a stale estimate).
        let tau = self.srtt.zip(self.rtt_min).map(|(srtt, m)| srtt - m).filter(|_| use_sample);
        if tau.is_some_and(|tau| tau >= self.tau0) {
            if self.guard.is_none_or(|g| s.ack_seq > g) {
                self.delay_backoff();
            }
            // Held: no increase while the queueing delay is at or above tau0.
            return;
        }
        if self.cwnd < self.ssthresh {
            self.cwnd += 1.0;
        } else {
            self.cwnd += self.alpha / self.cwnd;
        }
        self.cwnd = self.cwnd.min(self.max);
    }

    fn on_dup_ack(&mut self, _now: SimTime) {
        if self.recovering && !self.pipe {
            self.cwnd += 1.0;
        }
    }

    fn on_congestion(&mut self, s: &CongestionSample) {
        self.ssthresh = self.loss_ssthresh();
        self.backed_off = true;
        self.s_gamma = 0.0;
        self.guard = Some(self.next_seq);
        match s.cause {
            Cause::FastRetransmit => {
                self.pipe = s.pipe;
                self.cwnd = if s.pipe { self.ssthresh } else { self.ssthresh + s.dupack_threshold as f64 };
                self.recovering = true;
            }
            Cause::Ecn => self.cwnd = self.ssthresh.min(self.cwnd),
            Cause::Timeout => {
                self.cwnd = 1.0;
                self.recovering = false;
            }
        }
    }

    #[inline]
    fn metrics(&self) -> CcMetrics {
        let w = (self.cwnd.floor() as u64).max(1);
        let ss = self.ssthresh.floor().min(u32::MAX as f64) as u64;
        let mut m = CcMetrics::window(w * self.mss).with_ssthresh(ss * self.mss);
        if let Some(r) = self.cc_rtt_s {
            m = m.with_extra(0, "cc_rtt", r);
        }
        if let Some(r) = self.echo_rtt_s {
            m = m.with_extra(1, "echo_rtt", r);
        }
        m
    }

}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::loss;

    const MSS: u64 = 1000;

    fn ms(v: f64) -> SimDuration {
        SimDuration::from_ps((v * 1e9) as u64)
    }

    fn cc(cfg: DelayAimdConfig) -> DelayAimd {
        DelayAimd::new(&cfg, MSS, 1000)
    }

    /// In congestion avoidance at `w` packets, after an earlier backoff.
    fn avoiding(cfg: DelayAimdConfig, w: f64) -> DelayAimd {
        let mut c = cc(DelayAimdConfig { initial_ssthresh: Some(1), ..cfg });
        c.cwnd = w;
        c.ssthresh = 1.0;
        c.backed_off = true;
        c
    }

    /// Sends packets up to `upto` (exclusive).
    fn sent(c: &mut DelayAimd, upto: u32) {
        for seq in c.next_seq..upto {
            c.on_packet_sent(&SendSample { now: SimTime::ZERO, seq, retransmission: false });
        }
    }

    /// An ack of `acked` first transmissions up to `ack_seq`, with RTT `rtt_ms`.
    fn ack_n(c: &mut DelayAimd, ack_seq: u32, acked: u32, rtt_ms: f64) {
        c.on_ack(&AckSample {
            now: SimTime::from_secs(10),
            acked_pkts: acked,
            rtt: ms(rtt_ms),
            in_flight_pkts: 0,
            sent: SimTime::from_ps(SimTime::from_secs(10).as_ps() - ms(rtt_ms).as_ps()),
            flags: 0,
            ack_seq,
            recovery: RecoveryAck::None,
        });
    }

    fn ack(c: &mut DelayAimd, ack_seq: u32, rtt_ms: f64) {
        ack_n(c, ack_seq, 1, rtt_ms);
    }

    #[test]
    fn additive_increase_is_alpha_over_cwnd_per_ack() {
        let mut c = avoiding(DelayAimdConfig::default(), 4.0);
        sent(&mut c, 10);
        ack(&mut c, 1, 100.0);
        assert_eq!(c.cwnd_pkts(), 4.25);
        let mut c = avoiding(DelayAimdConfig { alpha: 2.0, ..Default::default() }, 4.0);
        ack(&mut c, 1, 100.0);
        assert_eq!(c.cwnd_pkts(), 4.5);
        assert_eq!(c.cwnd(), 4 * MSS, "the transport sees whole packets");
    }

    #[test]
    fn slow_start_adds_one_packet_per_ack_from_three() {
        let mut c = cc(DelayAimdConfig::default());
        assert_eq!(c.cwnd(), 3 * MSS);
        sent(&mut c, 3);
        ack(&mut c, 1, 100.0);
        ack(&mut c, 2, 100.0);
        assert_eq!(c.cwnd_pkts(), 5.0);
    }

    #[test]
    fn queueing_delay_at_tau0_backs_off_by_rtt_min_over_rtt() {
        // RTT_min 100 ms; a sample of 150 ms: tau = 50 ms = tau0: beta = 100/150 = 2/3.
        let mut c = avoiding(DelayAimdConfig::default(), 30.0);
        sent(&mut c, 40);
        ack(&mut c, 1, 100.0); // 30 + 1/30
        let w = c.cwnd_pkts();
        ack(&mut c, 2, 150.0);
        assert!((c.cwnd_pkts() - w * 2.0 / 3.0).abs() < 1e-9, "{}", c.cwnd_pkts());
        assert_eq!(c.delay_backoffs, 1);
        assert_eq!(c.tau(), Some(SimDuration::from_millis(50)));
    }

    #[test]
    fn below_tau0_increases() {
        let mut c = avoiding(DelayAimdConfig::default(), 10.0);
        sent(&mut c, 20);
        ack(&mut c, 1, 100.0);
        ack(&mut c, 2, 149.0); // tau 49 ms < 50 ms
        assert!((c.cwnd_pkts() - (10.1 + 1.0 / 10.1)).abs() < 1e-12);
        assert_eq!(c.delay_backoffs, 0);
    }

    #[test]
    fn beta_is_bounded_to_half_and_four_fifths() {
        // RTT 20 ms base, 70 ms at backoff: 20/70 = 0.29 -> 0.5.
        let mut c = avoiding(DelayAimdConfig::default(), 20.0);
        sent(&mut c, 40);
        ack(&mut c, 1, 20.0);
        let w = c.cwnd_pkts();
        ack(&mut c, 2, 70.0);
        assert!((c.cwnd_pkts() - 0.5 * w).abs() < 1e-9);
        // RTT 400 ms base, 450 ms: 0.89 -> 0.8.
        let mut c = avoiding(DelayAimdConfig::default(), 20.0);
        sent(&mut c, 40);
        ack(&mut c, 1, 400.0);
        let w = c.cwnd_pkts();
        ack(&mut c, 2, 450.0);
        assert!((c.cwnd_pkts() - 0.8 * w).abs() < 1e-9);
    }

    #[test]
    fn at_most_one_delay_backoff_per_round_trip_and_no_increase_meanwhile() {
        let mut c = avoiding(DelayAimdConfig::default(), 20.0);
        sent(&mut c, 20); // 0..19 in flight
        ack(&mut c, 1, 100.0);
        ack(&mut c, 2, 160.0); // backoff: the next needs an ack of packet 20 or later
        let after = c.cwnd_pkts();
        for a in 3..=19 {
            ack(&mut c, a, 160.0);
        }
        assert_eq!(c.delay_backoffs, 1, "acks of packets sent before the backoff do not back off again");
        assert_eq!(c.cwnd_pkts(), after, "held while tau >= tau0");
        sent(&mut c, 25);
        ack(&mut c, 20, 160.0); // covers packet 19, sent before: still the same round
        assert_eq!(c.delay_backoffs, 1);
        ack(&mut c, 21, 160.0); // covers packet 20, sent after the backoff
        assert_eq!(c.delay_backoffs, 2);
    }

    #[test]
    fn delay_backoff_stops_at_one_packet() {
        // beta = 100/300 -> 0.5: 1.5 x 0.5 = 0.75, floored at 1.
        let mut c = avoiding(DelayAimdConfig::default(), 1.5);
        c.rtt_min = Some(ms(100.0).as_ps() as f64);
        sent(&mut c, 5);
        ack(&mut c, 1, 300.0);
        assert_eq!(c.cwnd_pkts(), 1.0);
        assert_eq!(c.cwnd(), MSS);
    }

    #[test]
    fn first_backoff_from_slow_start_halves_and_ends_it() {
        let mut c = cc(DelayAimdConfig::default());
        sent(&mut c, 3);
        ack(&mut c, 1, 100.0); // cwnd 4
        ack(&mut c, 2, 160.0); // tau 60 ms: RTT_min/RTT = 0.625, but the first backoff halves
        assert_eq!(c.cwnd_pkts(), 2.0);
        assert_eq!(c.ssthresh(), Some(2 * MSS));
        ack(&mut c, 3, 100.0);
        assert_eq!(c.cwnd_pkts(), 2.5, "congestion avoidance after the backoff");
    }

    #[test]
    fn loss_backs_off_adaptively_with_a_two_packet_floor() {
        let mut c = avoiding(DelayAimdConfig::default(), 10.0);
        sent(&mut c, 10);
        ack(&mut c, 1, 100.0);
        ack(&mut c, 2, 125.0); // below tau0: sRTT 125, beta = 0.8
        let w = c.cwnd_pkts();
        c.on_congestion(&CongestionSample {
            now: SimTime::ZERO,
            cause: Cause::FastRetransmit,
            in_flight_pkts: 10,
            pipe: true,
            rto_repeat: false,
            dupack_threshold: 3,
        });
        assert!((c.cwnd_pkts() - 0.8 * w).abs() < 1e-9);
        assert!(c.in_recovery());
        let mut c = avoiding(DelayAimdConfig::default(), 2.0);
        loss(&mut c, Cause::Timeout);
        assert_eq!((c.cwnd_pkts(), c.ssthresh()), (1.0, Some(2 * MSS)));
    }

    #[test]
    fn filtered_variant_subtracts_gamma_per_delayed_packet_and_avoids_double_counting() {
        // gamma = 0.25 fixed, fixed beta 0.5; tau0 50 ms, RTT_min 100 ms; smoothing
        // gain 1/8 so that single delayed packets do not trigger a full backoff.
        let cfg = DelayAimdConfig {
            per_packet: true,
            gamma: Some(0.25),
            beta_min: 0.5,
            beta_max: 0.5,
            srtt_gain: 0.125,
            ..Default::default()
        };
        let mut c = avoiding(cfg, 10.0);
        sent(&mut c, 30);
        ack(&mut c, 1, 100.0); // 10.1
        ack(&mut c, 2, 200.0); // own delay 100 ms > tau0: -0.25; sRTT 112.5 (tau 12.5): increase
        let want = 10.1 - 0.25;
        assert!((c.cwnd_pkts() - (want + 1.0 / want)).abs() < 1e-9, "{}", c.cwnd_pkts());
        assert!((c.s_gamma - 0.25).abs() < 1e-12);
        // More 200 ms samples: sRTT 123.44, 133.01, 141.38, 148.71 (tau < 50 ms: each
        // -0.25 and an increase), then 155.12 at the sixth delayed ack (packet 7): tau
        // 55 ms, a full backoff from cwnd + S_gamma = (w - 0.25) + 6 x 0.25.
        for a in 3..=6 {
            ack(&mut c, a, 200.0);
        }
        assert_eq!(c.delay_backoffs, 0);
        assert!((c.s_gamma - 1.25).abs() < 1e-12);
        let w = c.cwnd_pkts();
        ack(&mut c, 7, 200.0);
        assert_eq!(c.delay_backoffs, 1);
        assert!((c.cwnd_pkts() - 0.5 * (w - 0.25 + 1.5)).abs() < 1e-9, "{} from {w}", c.cwnd_pkts());
        assert_eq!(c.s_gamma, 0.0, "reset by the full backoff");
    }

    #[test]
    fn full_backoff_uses_cwnd_plus_s_gamma_and_never_increases_the_window() {
        let cfg =
            DelayAimdConfig { per_packet: true, gamma: Some(1.0), beta_min: 0.5, beta_max: 0.5, ..Default::default() };
        let mut c = avoiding(cfg.clone(), 10.0);
        c.rtt_min = Some(ms(100.0).as_ps() as f64);
        c.srtt = c.rtt_min;
        sent(&mut c, 30);
        // Gain 1: one 160 ms packet subtracts 1 (cwnd 9, S 1) and then backs off:
        // min(0.5 (9 + 1), 9) = 5.
        ack(&mut c, 1, 160.0);
        assert_eq!(c.cwnd_pkts(), 5.0);
        // With gamma = 0.8 and beta 0.5 at cwnd 2: 2 - 0.8 = 1.2, S = 0.8;
        // min(0.5 x 2.0, 1.2) = 1.0.
        let mut c = avoiding(DelayAimdConfig { gamma: Some(0.8), ..cfg }, 2.0);
        c.rtt_min = Some(ms(100.0).as_ps() as f64);
        sent(&mut c, 5);
        ack(&mut c, 1, 160.0);
        assert!((c.cwnd_pkts() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn default_gamma_is_one_minus_the_packets_beta() {
        // RTT_min 100, sample 200: beta 0.5 -> gamma 0.5; sRTT gain 1/8 keeps tau low.
        let cfg = DelayAimdConfig { per_packet: true, srtt_gain: 0.125, ..Default::default() };
        let mut c = avoiding(cfg, 10.0);
        sent(&mut c, 5);
        ack(&mut c, 1, 100.0); // 10.1
        ack(&mut c, 2, 200.0);
        let w = 10.1 - 0.5;
        assert!((c.cwnd_pkts() - (w + 1.0 / w)).abs() < 1e-9);
    }

    #[test]
    fn delayed_acking_is_detected_and_single_packet_acks_are_ignored() {
        let mut c = avoiding(DelayAimdConfig { delayed_ack: DelayedAckMode::Detect, ..Default::default() }, 10.0);
        sent(&mut c, 20);
        ack(&mut c, 1, 100.0);
        assert!(!c.delayed_ack());
        ack_n(&mut c, 3, 2, 100.0);
        assert!(c.delayed_ack());
        // A single-packet ack held 200 ms by the receiver's timer: ignored, so no backoff;
        // the window grows on it as on any ack without a delay signal.
        let w = c.cwnd_pkts();
        ack(&mut c, 4, 300.0);
        assert_eq!(c.delay_backoffs, 0);
        assert_eq!(c.tau(), Some(SimDuration::ZERO));
        assert_eq!(c.cwnd_pkts(), w + 1.0 / w);
        // A two-packet ack with the same RTT is a real sample.
        ack_n(&mut c, 6, 2, 300.0);
        assert_eq!(c.delay_backoffs, 1);
    }

    #[test]
    fn a_flow_at_one_packet_with_delayed_acks_grows_back_to_two() {
        // After a timeout: cwnd 1, the last estimate far above tau0. Every ack is then a
        // single-packet (timer) ack: no sample, no hold: slow start takes it to 2.
        let mut c = avoiding(DelayAimdConfig { delayed_ack: DelayedAckMode::On, ..Default::default() }, 10.0);
        sent(&mut c, 10);
        ack_n(&mut c, 2, 2, 100.0);
        ack_n(&mut c, 4, 2, 400.0); // backoff; sRTT 400: tau 300 ms
        loss(&mut c, Cause::Timeout);
        assert_eq!(c.cwnd_pkts(), 1.0);
        ack(&mut c, 5, 440.0);
        assert_eq!(c.cwnd_pkts(), 2.0, "slow start (cwnd < ssthresh) on an ack without a sample");
    }

    #[test]
    fn retransmission_acks_do_not_count_as_delayed_acks() {
        let mut c = avoiding(DelayAimdConfig { delayed_ack: DelayedAckMode::Detect, ..Default::default() }, 10.0);
        c.on_ack(&AckSample {
            now: SimTime::from_secs(1),
            acked_pkts: 5,
            rtt: ms(100.0),
            in_flight_pkts: 0,
            sent: SimTime::ZERO,
            flags: FLAG_RETX,
            ack_seq: 5,
            recovery: RecoveryAck::None,
        });
        assert!(!c.delayed_ack());
        let c = cc(DelayAimdConfig { delayed_ack: DelayedAckMode::On, ..Default::default() });
        assert!(c.delayed_ack());
        let mut c = avoiding(DelayAimdConfig::default(), 10.0);
        ack_n(&mut c, 2, 2, 100.0);
        assert!(!c.delayed_ack(), "off by default: no detection");
        // The first packet's ack (a SYN's) is a sample even with delayed acking declared.
        let mut c = cc(DelayAimdConfig { delayed_ack: DelayedAckMode::On, ..Default::default() });
        sent(&mut c, 1);
        ack(&mut c, 1, 100.0);
        assert_eq!(c.tau(), Some(SimDuration::ZERO));
        ack(&mut c, 2, 300.0);
        assert_eq!(c.tau(), Some(SimDuration::ZERO), "a later single ack is not");
    }

    #[test]
    fn with_delayed_acks_a_delay_backoff_stops_at_two_packets_a_loss_does_not() {
        let cfg = DelayAimdConfig { delayed_ack: DelayedAckMode::On, ..Default::default() };
        let mut c = avoiding(cfg.clone(), 3.0);
        sent(&mut c, 10);
        ack_n(&mut c, 2, 2, 100.0); // 3 + 1/3
        ack_n(&mut c, 4, 2, 300.0); // beta 0.5: 1.67 -> 2
        assert_eq!(c.cwnd_pkts(), 2.0);
        let mut c = avoiding(cfg, 3.0);
        loss(&mut c, Cause::Timeout);
        assert_eq!(c.cwnd_pkts(), 1.0);
    }

    #[test]
    fn smoothing_filter_delays_the_backoff() {
        // Gain 1/2: samples 100, 200: sRTT 150 -> tau 50: backoff on the second
        // delayed sample only with gain 1/2 (100 -> 150).
        let mut c = avoiding(DelayAimdConfig { srtt_gain: 0.5, ..Default::default() }, 10.0);
        sent(&mut c, 10);
        ack(&mut c, 1, 100.0);
        ack(&mut c, 2, 180.0); // sRTT 140: tau 40
        assert_eq!(c.delay_backoffs, 0);
        ack(&mut c, 3, 180.0); // sRTT 160: tau 60
        assert_eq!(c.delay_backoffs, 1);
    }

    #[test]
    fn checks_name_the_bad_parameter() {
        let bad = |c: DelayAimdConfig| c.check().unwrap_err().0;
        assert_eq!(bad(DelayAimdConfig { alpha: 0.0, ..Default::default() }), "alpha");
        assert_eq!(bad(DelayAimdConfig { tau0: SimDuration::ZERO, ..Default::default() }), "tau0");
        assert_eq!(bad(DelayAimdConfig { beta_min: 1.0, ..Default::default() }), "beta_min");
        assert_eq!(bad(DelayAimdConfig { beta_min: 0.7, beta_max: 0.6, ..Default::default() }), "beta_max");
        assert_eq!(bad(DelayAimdConfig { srtt_gain: 1.5, ..Default::default() }), "srtt_gain");
        assert_eq!(bad(DelayAimdConfig { gamma: Some(-1.0), ..Default::default() }), "gamma");
        assert!(DelayAimdConfig::default().check().is_ok());
        // The transport's parameters are checked with the transport's.
        let cc = crate::cc::CcConfig::DelayAimd(DelayAimdConfig::default());
        let l = LossRecoveryConfig { min_rto: SimDuration::ZERO, ..cc.default_loss_recovery() };
        assert_eq!(cc.check(&l).unwrap_err().0, "min_rto");
    }
}
