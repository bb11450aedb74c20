//! DCTCP: M. Alizadeh, A. Greenberg, D. A. Maltz, J. Padhye, P. Patel, B. Prabhakar,
//! S. Sengupta and M. Sridharan, "Data Center TCP (DCTCP)", SIGCOMM 2010; as specified
//! by RFC 8257 (S. Bensley et al., 2017). Where the RFC leaves a choice open, Linux's
//! `tcp_dctcp.c` decides.
//!
//! **Estimating the marked fraction (RFC 8257 section 3.3, steps 1-8).** For every ack
//! of new data, the packets it acknowledges (`AckSample::acked_pkts`; duplicate acks and
//! SACK blocks count nothing, step 1) are added to the window's acked count, and to its
//! marked count if the ack carries ECE (`FLAG_ECE` in `AckSample::flags`). An
//! observation window ends when the cumulative ack reaches the highest packet sent when
//! it began (Linux's `next_seq`: ack >= one past it; step 4 of the RFC reads "greater
//! than"); then
//!
//! ```text
//!     F     = marked / acked                       (step 5)
//!     alpha = (1 - g) alpha + g F                  (step 6, equation 1 of the paper)
//! ```
//!
//! and the next window ends one past the highest packet sent so far (step 7). The first
//! window is empty: the first ack ends it (as Linux, whose window starts at the
//! connection's first sequence number).
//!
//! **Reacting to ECE (step 9, paper equation 2).** At most once per window of data and
//! not during loss recovery (RFC 3168 section 6.1.2; the transport's `Cause::Ecn`,
//! raised after the ack's `on_ack`, so alpha includes a window that ack ended, as
//! Linux's `in_ack_event` runs before its `tcp_enter_cwr`):
//!
//! ```text
//!     cwnd = max(cwnd (1 - alpha / 2), 2 segments),   ssthresh = cwnd
//! ```
//!
//! and cwnd then holds until the cumulative ack passes the highest packet sent when it
//! was cut (the transport's end of the reduction window): no growth in that round trip,
//! as Linux's CWR state (`tcp_cong_control` raises cwnd only outside CWR and recovery;
//! the state ends when `snd_una` passes `high_seq`). The RFC leaves this open;
//! `cwr_hold = false` grows through that round trip instead (below).
//!
//! **Loss (RFC 8257 section 3.4: as conventional TCP).** Reno with NewReno's
//! partial-ack recovery (RFC 6582; Linux recovers so without SACK) or SACK recovery
//! (RFC 6675, `sack = true`): fast retransmit sets ssthresh = max(FlightSize / 2, 2)
//! segments (`ssthresh_rule = "rfc5681"`, the default; `"bsd"` halves min(cwnd,
//! maxwin)) and cwnd = ssthresh + 3 segments, inflated by each further duplicate ack
//! and set to ssthresh when recovery ends (with SACK: cwnd = ssthresh at once); a
//! timeout sets cwnd to one segment. An ECE during recovery is ignored.
//!
//! **Growth (RFC 5681 section 3.1).** Slow start while cwnd < ssthresh: one segment
//! per ack of new data; cwnd = ssthresh is congestion avoidance (the RFC allows either;
//! Linux's `tcp_in_slow_start`). With `cwr_hold = false`, cwnd = ssthresh is slow start
//! and the window grows in the round trip after an ECN reduction too: one packet at
//! once, then one a round trip, nearest to the paper's section 3.3 model (a window
//! that grows one packet every round trip), whose closed forms crates/ccsim-engine/tests/dctcp.rs checks. Congestion avoidance counts bytes acknowledged, as RFC 5681
//! recommends and Linux's `tcp_cong_avoid_ai` does: one segment once a window's worth
//! has been acknowledged, so about one segment per round trip with delayed acks too
//! (the paper's analysis, section 3.3, assumes that).
//!
//! **Defaults.** `g` = 1/16 (RFC 8257 section 3.3; the paper's section 3.4 bound
//! gives g < 1.386 / sqrt(2 (C x RTT + K)); Linux `dctcp_shift_g` = 4; ns-3
//! `DctcpShiftG` 0.0625). `initial_alpha` = 1 (RFC 8257 section 3.3, conservative: the
//! first ECE halves the window; Linux `dctcp_alpha_on_init` = 1024/1024; ns-3
//! `DctcpAlphaOnInit` 1.0). `initial_window` = 10 (RFC 6928; Linux). Timer and fast
//! retransmit are the transport's, as Reno's (RFC 6298 timer, three duplicate acks).
//!
//! **Receiver and network.** DCTCP needs ECN (`CcPolicy::ECN_ECHO`): a flow with this
//! policy is ECN-capable and its receiver echoes each ack's marks exactly
//! (`ecn_echo = "dctcp"`, transport/receiver.rs) unless the scenario says otherwise,
//! as Linux's `TCP_CONG_NEEDS_ECN` turns ECN on whatever the system setting. The
//! bottleneck marks at a step: RED with min_th = max_th = K, w_q = 1, `ecn` and
//! `ecn_above_max_th` (qdisc/red.rs).
//!
//! Deviations: alpha is a float (Linux keeps it in 1/1024 units); the reduction is in
//! bytes as the RFC writes it (Linux rounds the decrease down to whole packets, so a
//! small window times a small alpha does not reduce at all there); no undo of spurious
//! reductions; windows are whole packets of the flow's data size at the transport.

use super::{
    check_window_start, fast_recovery_window, partial_ack_window, ssthresh_after_congestion, AckSample, Cause, CcMetrics, CcPolicy, CongestionControl,
    CongestionSample, LossRecoveryParams, Recovery, RecoveryAck, SsthreshRule,
};
use crate::base::time::SimTime;
use crate::packet::FLAG_ECE;
use super::EcnEcho;
use serde::{Deserialize, Serialize};

/// Parameters of DCTCP (`[flows.params]`, by these names; the transport's loss-recovery
/// parameters go in the same table, after `initial_ssthresh`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// Initial window, packets. Default 10 (RFC 6928; Linux).
    pub initial_window: u32,
    /// Initial slow-start threshold, packets; `None` means the maximum window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
    /// Gain of the marked-fraction average. Default 1/16 (RFC 8257 section 3.3).
    pub g: f64,
    /// Alpha before the first window ends. Default 1 (RFC 8257; Linux; ns-3).
    pub initial_alpha: f64,
    /// Which window a loss halves; `None`: `rfc5681` (FlightSize).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssthresh_rule: Option<SsthreshRule>,
    /// No window growth in the round trip after an ECN reduction (Linux's CWR state),
    /// and cwnd = ssthresh is congestion avoidance (Linux). Default true. False: the
    /// window grows through that round trip and cwnd = ssthresh is slow start (RFC
    /// 5681 allows either): closest to the paper's section 3.3 model, which grows one
    /// packet every round trip (crates/ccsim-engine/tests/dctcp.rs checks its closed forms so).
    pub cwr_hold: bool,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { initial_window: 10, initial_ssthresh: None, g: 1.0 / 16.0, initial_alpha: 1.0, ssthresh_rule: None, cwr_hold: true }
    }
}

impl DctcpConfig {
    /// Checks the values; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        check_window_start(self.initial_window, self.initial_ssthresh)?;
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g", format!("{} is not a gain in (0, 1]; RFC 8257 uses 1/16 = 0.0625", self.g)));
        }
        if !(0.0..=1.0).contains(&self.initial_alpha) {
            return Err((
                "initial_alpha",
                format!("{} is not a fraction in [0, 1]; RFC 8257 and Linux start at 1", self.initial_alpha),
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    /// Segment size, bytes.
    mss: u64,
    /// Congestion window, bytes (inflated during fast recovery without SACK).
    cwnd: u64,
    /// Slow-start threshold, bytes.
    ssthresh: u64,
    /// Maximum window, bytes.
    max: u64,
    /// Bytes acknowledged towards the next segment of congestion avoidance.
    ca_bytes: u64,
    /// In fast recovery.
    recovering: bool,
    /// The current recovery uses SACK's pipe (no inflation).
    pipe: bool,
    ssthresh_rule: SsthreshRule,
    /// DCTCP.Alpha.
    alpha: f64,
    g: f64,
    /// Packets acknowledged in this observation window, and those by acks with ECE.
    acked: u64,
    marked: u64,
    /// The window ends when the cumulative ack reaches this.
    window_end: u32,
    /// One past the highest packet sent, as of the last ack of new data.
    snd_nxt: u32,
    /// After an ECN reduction: cwnd holds while the cumulative ack is at most this.
    cwr_until: Option<u32>,
    cwr_hold: bool,
}

impl Dctcp {
    pub fn new(cfg: &DctcpConfig, mss: u64, max_window: u32) -> Self {
        let max = max_window as u64 * mss;
        Dctcp {
            mss,
            cwnd: (cfg.initial_window.max(1) as u64 * mss).min(max),
            ssthresh: cfg.initial_ssthresh.unwrap_or(max_window) as u64 * mss,
            max,
            ca_bytes: 0,
            recovering: false,
            pipe: false,
            ssthresh_rule: cfg.ssthresh_rule.unwrap_or(SsthreshRule::Rfc5681),
            alpha: cfg.initial_alpha,
            g: cfg.g,
            acked: 0,
            marked: 0,
            window_end: 0,
            snd_nxt: 0,
            cwr_until: None,
            cwr_hold: cfg.cwr_hold,
        }
    }

    /// DCTCP.Alpha, the estimated fraction of marked packets.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// RFC 8257 section 3.3 steps 1-8 for one ack of new data.
    fn observe(&mut self, s: &AckSample) {
        let n = s.acked_pkts as u64;
        self.acked += n;
        if s.flags & FLAG_ECE != 0 {
            self.marked += n;
        }
        if s.ack_seq >= self.window_end {
            let f = if self.acked > 0 { self.marked as f64 / self.acked as f64 } else { 0.0 };
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.window_end = s.ack_seq + s.in_flight_pkts;
            self.acked = 0;
            self.marked = 0;
        }
    }

    /// RFC 5681 section 3.1: slow start, or congestion avoidance by bytes acknowledged.
    fn open(&mut self, acked_pkts: u32) {
        if self.cwnd < self.ssthresh || (!self.cwr_hold && self.cwnd == self.ssthresh) {
            self.cwnd += self.mss;
        } else {
            self.ca_bytes += acked_pkts as u64 * self.mss;
            if self.ca_bytes >= self.cwnd {
                self.ca_bytes -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
        self.cwnd = self.cwnd.min(self.max);
    }
}

impl CcPolicy for Dctcp {
    type Config = DctcpConfig;
    const NAME: &'static str = "dctcp";
    const DESCRIPTION: &'static str =
        "DCTCP (Alizadeh et al. 2010, RFC 8257): cwnd x (1 - alpha/2) on ECN echo, alpha the marked fraction per window";
    const EXTRA_SERIES: &'static [&'static str] = &["dctcp_alpha"];
    const SACK: bool = true;
    const ECN_ECHO: Option<EcnEcho> = Some(EcnEcho::Dctcp);
    fn build(cfg: &DctcpConfig, mss: u64, max_window: u32) -> Self {
        Dctcp::new(cfg, mss, max_window)
    }
    fn check(cfg: &DctcpConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    const LOSS_RECOVERY: LossRecoveryParams = LossRecoveryParams {
        after: Some("initial_ssthresh"),
        recovery: Recovery::NewReno,
        ..LossRecoveryParams::RFC6298
    };
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, s: &AckSample) {
        self.observe(s);
        self.snd_nxt = s.ack_seq + s.in_flight_pkts;
        if self.recovering {
            if s.recovery == RecoveryAck::Partial {
                if !self.pipe {
                    self.cwnd = partial_ack_window(self.cwnd, s.acked_pkts, self.mss);
                }
                return;
            }
            self.cwnd = self.ssthresh;
            self.recovering = false;
            self.ca_bytes = 0;
        } else if self.cwr_until.is_some_and(|end| s.ack_seq <= end) {
            // Linux's CWR state: no growth until the reduced window is acknowledged.
        } else {
            self.cwr_until = None;
            self.open(s.acked_pkts);
        }
    }
    fn on_dup_ack(&mut self, _now: SimTime) {
        if self.recovering && !self.pipe {
            self.cwnd += self.mss;
        }
    }
    fn on_congestion(&mut self, s: &CongestionSample) {
        if s.cause == Cause::Ecn {
            if self.recovering {
                return;
            }
            let cut = (self.cwnd as f64 * self.alpha / 2.0) as u64;
            self.cwnd = self.cwnd.saturating_sub(cut).max(2 * self.mss);
            self.ssthresh = self.cwnd;
            self.ca_bytes = 0;
            self.cwr_until = self.cwr_hold.then_some(self.snd_nxt);
            return;
        }
        self.cwr_until = None;
        self.ssthresh = ssthresh_after_congestion(
            self.ssthresh_rule,
            s,
            self.cwnd,
            self.ssthresh,
            self.recovering,
            self.mss,
            self.max,
        );
        self.ca_bytes = 0;
        if s.cause == Cause::FastRetransmit {
            self.pipe = s.pipe;
            self.cwnd = fast_recovery_window(s, self.ssthresh, self.mss);
            self.recovering = true;
        } else {
            self.cwnd = self.mss;
            self.recovering = false;
        }
    }
    #[inline]
    fn metrics(&self) -> CcMetrics {
        CcMetrics::window(self.cwnd).with_ssthresh(self.ssthresh).with_extra(0, "dctcp_alpha", self.alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::time::{SimDuration, SimTime};
    use crate::cc::test_util::loss_in_flight;

    const MSS: u64 = 1000;

    /// An ack of `n` packets up to `ack_seq`, `in_flight` packets left outstanding.
    fn ack(d: &mut Dctcp, n: u32, ack_seq: u32, in_flight: u32, ece: bool, recovery: RecoveryAck) {
        d.on_ack(&AckSample {
            now: SimTime::ZERO,
            acked_pkts: n,
            rtt: SimDuration::from_micros(100),
            in_flight_pkts: in_flight,
            sent: SimTime::ZERO,
            flags: if ece { FLAG_ECE } else { 0 },
            ack_seq,
            recovery,
        });
    }

    fn ecn(d: &mut Dctcp) {
        loss_in_flight(d, Cause::Ecn, 0);
    }

    fn dctcp(initial_window: u32, initial_ssthresh: Option<u32>) -> Dctcp {
        Dctcp::new(&DctcpConfig { initial_window, initial_ssthresh, ..Default::default() }, MSS, 1000)
    }

    #[test]
    fn defaults_are_rfc_8257s_and_linuxs() {
        let c = DctcpConfig::default();
        assert_eq!((c.initial_window, c.g, c.initial_alpha), (10, 0.0625, 1.0));
        let d = Dctcp::new(&c, MSS, 1000);
        assert_eq!((d.cwnd(), d.alpha()), (10_000, 1.0));
        assert_eq!(d.metrics().extra[0], Some(("dctcp_alpha", 1.0)));
        assert_eq!(Dctcp::check(&c), Ok(()));
        for (bad, field) in [
            (DctcpConfig { g: 0.0, ..c.clone() }, "g"),
            (DctcpConfig { g: 1.5, ..c.clone() }, "g"),
            (DctcpConfig { initial_alpha: -0.1, ..c.clone() }, "initial_alpha"),
            (DctcpConfig { initial_window: 0, ..c.clone() }, "initial_window"),
        ] {
            assert_eq!(Dctcp::check(&bad).unwrap_err().0, field);
        }
    }

    #[test]
    fn alpha_is_the_ewma_of_the_marked_fraction_per_window() {
        let mut d = dctcp(10, Some(1000));
        // The first ack ends the (empty) first window: F = 0 (1 of 1 packet unmarked),
        // alpha = 15/16 x 1 = 0.9375. Next window ends at ack 1 + 9 in flight = 10.
        ack(&mut d, 1, 1, 9, false, RecoveryAck::None);
        assert_eq!(d.alpha(), 0.9375);
        // Acks 2..=10, one packet each, 3 of them with ECE: the ack of 10 ends the window
        // (ack 10 >= 10) with F = 3 / 9; alpha = 15/16 x 0.9375 + 1/16 x 1/3
        // = 0.87890625 + 0.02083333... = 0.89973958...
        for s in 2..=10u32 {
            ack(&mut d, 1, s, 10, s % 3 == 0, RecoveryAck::None);
            if s < 10 {
                assert_eq!(d.alpha(), 0.9375, "window not over at ack {s}");
            }
        }
        let want = 15.0 / 16.0 * 0.9375 + 1.0 / 16.0 * (3.0 / 9.0);
        assert!((d.alpha() - want).abs() < 1e-12, "{} vs {want}", d.alpha());
        // The next window ends at 10 + 10 = 20; one ack of 10 packets, all marked:
        // alpha = 15/16 x 0.8997... + 1/16.
        ack(&mut d, 10, 20, 10, true, RecoveryAck::None);
        assert!((d.alpha() - (15.0 / 16.0 * want + 1.0 / 16.0)).abs() < 1e-12);
    }

    #[test]
    fn unmarked_windows_decay_alpha_geometrically() {
        // Windows of one ack each with nothing in flight: every ack ends a window with
        // F = 0, so alpha = (15/16)^k after k acks.
        let mut d = dctcp(10, Some(1000));
        for k in 1..=16u32 {
            ack(&mut d, 1, k, 0, false, RecoveryAck::None);
        }
        assert!((d.alpha() - (15.0f64 / 16.0).powi(16)).abs() < 1e-12);
    }

    #[test]
    fn ece_cuts_the_window_by_half_alpha() {
        // alpha 1 (the default start): cwnd 10 -> 10 x (1 - 1/2) = 5 segments.
        let mut d = dctcp(10, None);
        ecn(&mut d);
        assert_eq!((d.cwnd(), d.ssthresh()), (5000, Some(5000)));
        // alpha 0.25: 20 segments -> 20000 x (1 - 0.125) = 17500 bytes.
        let mut d = Dctcp::new(&DctcpConfig { initial_window: 20, initial_alpha: 0.25, ..Default::default() }, MSS, 100);
        ecn(&mut d);
        assert_eq!((d.cwnd(), d.ssthresh()), (17_500, Some(17_500)));
        // Never below two segments: 3 segments at alpha 1 -> 1500, raised to 2000.
        let mut d = dctcp(3, None);
        ecn(&mut d);
        assert_eq!(d.cwnd(), 2000);
        // alpha 0 (nothing marked for long): no reduction.
        let mut d = Dctcp::new(&DctcpConfig { initial_alpha: 0.0, ..Default::default() }, MSS, 100);
        ecn(&mut d);
        assert_eq!(d.cwnd(), 10_000);
    }

    #[test]
    fn slow_start_adds_a_segment_per_ack_and_avoidance_one_per_window_of_bytes() {
        let mut d = dctcp(4, Some(5));
        // cwnd 4 < ssthresh 5: slow start, +1 segment for an ack of 2 packets.
        ack(&mut d, 2, 2, 2, false, RecoveryAck::None);
        assert_eq!(d.cwnd(), 5000);
        // Above ssthresh: delayed acks of 2 packets; 5000 bytes must be acknowledged:
        // 2000, 4000, 6000 -> +1 segment at the third (1000 bytes carried over).
        ack(&mut d, 2, 4, 3, false, RecoveryAck::None);
        ack(&mut d, 2, 6, 3, false, RecoveryAck::None);
        assert_eq!(d.cwnd(), 5000);
        ack(&mut d, 2, 8, 3, false, RecoveryAck::None);
        assert_eq!(d.cwnd(), 6000);
        // 1000 + 2000 x 3 = 7000 >= 6000: the next segment after three more acks.
        ack(&mut d, 2, 10, 3, false, RecoveryAck::None);
        ack(&mut d, 2, 12, 3, false, RecoveryAck::None);
        assert_eq!(d.cwnd(), 6000);
        ack(&mut d, 2, 14, 3, false, RecoveryAck::None);
        assert_eq!(d.cwnd(), 7000);
    }

    #[test]
    fn the_window_holds_for_a_round_trip_after_an_ecn_reduction() {
        // Congestion avoidance: cwnd 20 > ssthresh 10. An ack with ECE of packet 0
        // (ack 1, 19 in flight: packets 1..19 sent, one past the highest is 20) cuts at
        // alpha 1: cwnd = ssthresh = 20 x (1 - 1/2) = 10 segments.
        let mut d = dctcp(20, Some(10));
        ack(&mut d, 1, 1, 19, true, RecoveryAck::None);
        ecn(&mut d);
        assert_eq!((d.cwnd(), d.ssthresh()), (10_000, Some(10_000)));
        // Acks 2..=20 are of packets sent before the cut: cwnd holds (growing, 19 acks
        // of 1000 bytes would add one segment by slow start at cwnd = ssthresh and
        // another once 11000 bytes were counted).
        for a in 2..=20 {
            ack(&mut d, 1, a, 10, false, RecoveryAck::None);
        }
        assert_eq!(d.cwnd(), 10_000);
        // Ack 21 passes 20: congestion avoidance (cwnd = ssthresh is not slow start),
        // one segment once 10 x 1000 bytes = cwnd have been acknowledged.
        for a in 21..=29 {
            ack(&mut d, 1, a, 10, false, RecoveryAck::None);
        }
        assert_eq!(d.cwnd(), 10_000);
        ack(&mut d, 1, 30, 10, false, RecoveryAck::None);
        assert_eq!(d.cwnd(), 11_000);
        // cwr_hold = false: ack 2 finds cwnd = ssthresh, slow start: 11 segments; acks
        // 3..=20 count 18000 bytes >= 11000: 12 segments (7000 bytes carried over).
        let cfg = DctcpConfig { initial_window: 20, initial_ssthresh: Some(10), cwr_hold: false, ..Default::default() };
        let mut d = Dctcp::new(&cfg, MSS, 1000);
        ack(&mut d, 1, 1, 19, true, RecoveryAck::None);
        ecn(&mut d);
        for a in 2..=20 {
            ack(&mut d, 1, a, 10, false, RecoveryAck::None);
        }
        assert_eq!(d.cwnd(), 12_000);
    }

    #[test]
    fn loss_is_renos_and_ece_is_ignored_in_recovery() {
        let mut d = dctcp(10, Some(5));
        // FlightSize 10: ssthresh 5, cwnd 5 + 3 (RFC 5681); each further duplicate +1.
        loss_in_flight(&mut d, Cause::FastRetransmit, 10);
        assert_eq!((d.cwnd(), d.ssthresh()), (8000, Some(5000)));
        d.on_dup_ack(SimTime::ZERO);
        assert_eq!(d.cwnd(), 9000);
        ecn(&mut d);
        assert_eq!(d.cwnd(), 9000, "no ECN reduction in recovery");
        // NewReno partial ack of 3: 9 - 3 + 1 = 7; the full ack deflates to ssthresh.
        ack(&mut d, 3, 3, 7, false, RecoveryAck::Partial);
        assert_eq!(d.cwnd(), 7000);
        ack(&mut d, 7, 10, 0, false, RecoveryAck::Exit);
        assert_eq!(d.cwnd(), 5000);
        // Timeout with 6 in flight: ssthresh 3, cwnd 1 segment.
        loss_in_flight(&mut d, Cause::Timeout, 6);
        assert_eq!((d.cwnd(), d.ssthresh()), (1000, Some(3000)));
        assert_eq!(<Dctcp as CcPolicy>::LOSS_RECOVERY.recovery, Recovery::NewReno);
    }
}
