//! Reno and NewReno: Tahoe plus fast recovery (4.3BSD-Reno; Jacobson 1990; RFC 5681
//! section 3.2), and NewReno's partial-ack recovery (RFC 6582).
//!
//! - Slow start and congestion avoidance as Tahoe (`bsd_open_window`).
//! - Fast retransmit (third duplicate ack): ssthresh = max(FlightSize/2, 2) segments
//!   (RFC 5681 equation 4, RFC 6582 section 3.2 step 2; `ssthresh_rule = "rfc5681"`, the
//!   default) or max(min(cwnd, maxwin)/2, 2) segments (4.3BSD, `"bsd"`); the lost
//!   packet is retransmitted by the transport, cwnd = ssthresh + 3 segments (inflate for
//!   the three packets that left the network); each further duplicate ack adds one
//!   segment.
//! - Reno: the first new ack deflates cwnd to ssthresh and ends recovery (a partial ack
//!   too, as in 4.3BSD-Reno).
//! - NewReno (RFC 6582 section 3.2): the transport stays in recovery until the highest
//!   packet sent before it is acknowledged. A partial ack (step 5) retransmits the next
//!   hole (transport) and deflates cwnd by the amount acknowledged, adding back one
//!   segment; the full ack (step 6) sets cwnd = ssthresh (option 2 of the RFC).
//! - SACK recovery (`CongestionSample::pipe`, RFC 6675): cwnd = ssthresh at once and no
//!   inflation: the transport's pipe estimate decides what may be sent.
//! - ECN echo (RFC 3168 section 6.1.2): ssthresh as for a loss, cwnd = ssthresh, no
//!   recovery.
//! - Timeout: cwnd = 1 segment, recovery abandoned. ssthresh as `SsthreshRule` says:
//!   with `rfc5681`, half of FlightSize on a first timeout outside recovery, the lower
//!   of that and the recovery's own ssthresh inside one (FlightSize has grown with the
//!   inflated window by then), unchanged on a repeated timeout; with `bsd`, half of
//!   the (possibly inflated) cwnd, as Tahoe.
//!
//! Deviations: windows are whole packets of the flow's data size (FlightSize/2 is
//! rounded down to whole segments).

use super::{
    bsd_open_window, fast_recovery_window, partial_ack_window, ssthresh_after_congestion, AckSample, Cause, CcMetrics, CcPolicy, CongestionControl,
    CongestionSample, LossRecoveryParams, RecoveryAck, SsthreshRule, TahoeConfig,
};
use crate::base::time::SimTime;

/// Reno and NewReno take the same parameters as Tahoe (initial window and ssthresh,
/// ssthresh rule) and the same transport loss recovery (`TAHOE_LOSS_RECOVERY`).
pub type RenoConfig = TahoeConfig;

#[derive(Clone, Debug)]
pub struct Reno {
    /// Segment size, bytes.
    mss: u64,
    /// Congestion window, bytes (inflated during fast recovery).
    cwnd: u64,
    /// Slow-start threshold, bytes.
    ssthresh: u64,
    /// Maximum window, bytes.
    max: u64,
    /// In fast recovery.
    recovering: bool,
    /// The current recovery uses SACK's pipe (no inflation, no deflation).
    pipe: bool,
    ssthresh_rule: SsthreshRule,
}

impl Reno {
    pub fn new(cfg: &RenoConfig, mss: u64, max_window: u32) -> Self {
        let max = max_window as u64 * mss;
        Reno {
            mss,
            cwnd: (cfg.initial_window.max(1) as u64 * mss).min(max),
            ssthresh: cfg.initial_ssthresh.unwrap_or(max_window) as u64 * mss,
            max,
            recovering: false,
            pipe: false,
            ssthresh_rule: cfg.ssthresh_rule.unwrap_or(SsthreshRule::Rfc5681),
        }
    }

    pub fn in_recovery(&self) -> bool {
        self.recovering
    }
}

impl CcPolicy for Reno {
    type Config = RenoConfig;
    const NAME: &'static str = "reno";
    const DESCRIPTION: &'static str = "Tahoe plus fast recovery (4.3BSD-Reno, RFC 5681)";
    const SACK: bool = true;
    fn build(cfg: &RenoConfig, mss: u64, max_window: u32) -> Self {
        Reno::new(cfg, mss, max_window)
    }
    fn check(cfg: &RenoConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    const LOSS_RECOVERY: LossRecoveryParams = super::tahoe::TAHOE_LOSS_RECOVERY;
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, s: &AckSample) {
        if self.recovering {
            if s.recovery == RecoveryAck::Partial {
                if !self.pipe {
                    self.cwnd = partial_ack_window(self.cwnd, s.acked_pkts, self.mss);
                }
                return;
            }
            self.cwnd = self.ssthresh;
            self.recovering = false;
        } else {
            self.cwnd = bsd_open_window(self.cwnd, self.ssthresh, self.mss, self.max);
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
            Cause::Ecn => {
                self.cwnd = self.ssthresh;
            }
            Cause::Timeout => {
                self.cwnd = self.mss;
                self.recovering = false;
            }
        }
    }
    #[inline]
    fn metrics(&self) -> CcMetrics {
        CcMetrics::window(self.cwnd).with_ssthresh(self.ssthresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{ack, loss_in_flight};
    use crate::cc::CongestionSample;
    use crate::base::time::{SimDuration, SimTime};

    fn reno_at(window_pkts: u32) -> Reno {
        let mut r = Reno::new(&RenoConfig::default(), 1000, 64);
        for _ in 1..window_pkts {
            ack(&mut r, 0);
        }
        assert_eq!(r.cwnd(), window_pkts as u64 * 1000);
        r
    }

    fn ack_with(r: &mut Reno, acked: u32, recovery: RecoveryAck) {
        r.on_ack(&AckSample {
            now: SimTime::ZERO,
            acked_pkts: acked,
            rtt: SimDuration::from_millis(100),
            in_flight_pkts: 0,
            sent: SimTime::ZERO,
            flags: 0,
            ack_seq: 0,
            recovery,
        });
    }

    #[test]
    fn fast_retransmit_halves_flight_size_and_inflates_by_three() {
        // cwnd 10 segments, 9 of them in flight (the window was not full): RFC 5681
        // equation 4 halves the 9, rounded down to whole segments.
        let mut r = reno_at(10);
        loss_in_flight(&mut r, Cause::FastRetransmit, 9);
        assert_eq!(r.ssthresh(), Some(4000));
        assert_eq!(r.cwnd(), 7000);
        assert!(r.in_recovery());
    }

    #[test]
    fn the_bsd_rule_halves_cwnd_whatever_is_in_flight() {
        let cfg = RenoConfig { ssthresh_rule: Some(SsthreshRule::Bsd), ..Default::default() };
        let mut r = Reno::new(&cfg, 1000, 64);
        for _ in 1..10 {
            ack(&mut r, 0);
        }
        loss_in_flight(&mut r, Cause::FastRetransmit, 3);
        assert_eq!(r.ssthresh(), Some(5000));
        assert_eq!(r.cwnd(), 8000);
        assert!(r.in_recovery());
    }

    #[test]
    fn duplicate_acks_inflate_and_new_ack_deflates() {
        let mut r = reno_at(10);
        loss_in_flight(&mut r, Cause::FastRetransmit, 10);
        r.on_dup_ack(SimTime::ZERO);
        r.on_dup_ack(SimTime::ZERO);
        assert_eq!(r.cwnd(), 10_000);
        ack(&mut r, 1);
        assert_eq!(r.cwnd(), 5000);
        assert!(!r.in_recovery());
        ack(&mut r, 2); // congestion avoidance: 5000 > ssthresh? no, equal -> +1 segment
        assert_eq!(r.cwnd(), 6000);
    }

    #[test]
    fn timeout_collapses_window_and_leaves_recovery() {
        let mut r = reno_at(10);
        loss_in_flight(&mut r, Cause::FastRetransmit, 10); // ssthresh 5
        loss_in_flight(&mut r, Cause::Timeout, 8);
        assert_eq!(r.cwnd(), 1000);
        assert!(!r.in_recovery());
        // Inside the recovery: the lower of 5 and 8 / 2 = 4 segments.
        assert_eq!(r.ssthresh(), Some(4000));
    }

    #[test]
    fn a_timeout_inside_a_recovery_keeps_its_ssthresh_when_flight_size_has_grown() {
        let mut r = reno_at(10);
        loss_in_flight(&mut r, Cause::FastRetransmit, 10); // ssthresh 5, cwnd 8
        for _ in 0..30 {
            r.on_dup_ack(SimTime::ZERO); // cwnd 38; the sender has filled it
        }
        loss_in_flight(&mut r, Cause::Timeout, 38);
        assert_eq!((r.cwnd(), r.ssthresh()), (1000, Some(5000)), "not 38 / 2 = 19");
        // The BSD rule halves the inflated window instead.
        let cfg = RenoConfig { ssthresh_rule: Some(SsthreshRule::Bsd), ..Default::default() };
        let mut b = Reno::new(&cfg, 1000, 64);
        for _ in 1..10 {
            ack(&mut b, 0);
        }
        loss_in_flight(&mut b, Cause::FastRetransmit, 10);
        for _ in 0..30 {
            b.on_dup_ack(SimTime::ZERO);
        }
        loss_in_flight(&mut b, Cause::Timeout, 38);
        assert_eq!(b.ssthresh(), Some(19_000));
    }

    #[test]
    fn a_first_timeout_halves_flight_size_and_a_repeated_one_keeps_ssthresh() {
        let mut r = reno_at(10);
        loss_in_flight(&mut r, Cause::Timeout, 10);
        assert_eq!((r.cwnd(), r.ssthresh()), (1000, Some(5000)));
        r.on_congestion(&CongestionSample {
            now: SimTime::ZERO,
            cause: Cause::Timeout,
            in_flight_pkts: 10,
            pipe: false,
            rto_repeat: true,
            dupack_threshold: 3,
        });
        assert_eq!((r.cwnd(), r.ssthresh()), (1000, Some(5000)), "not 2 segments as 4.3BSD's min(cwnd, max) / 2");
    }

    #[test]
    fn duplicate_acks_outside_recovery_do_nothing() {
        let mut r = reno_at(4);
        r.on_dup_ack(SimTime::ZERO);
        assert_eq!(r.cwnd(), 4000);
    }

    #[test]
    fn newreno_partial_ack_deflates_by_the_amount_acked_plus_one_and_stays_in_recovery() {
        let mut r = Reno::new(&RenoConfig::default(), 1000, 64);
        for _ in 1..20 {
            ack(&mut r, 0);
        }
        loss_in_flight(&mut r, Cause::FastRetransmit, 20); // ssthresh 10, cwnd 13
        for _ in 0..4 {
            r.on_dup_ack(SimTime::ZERO); // 17
        }
        ack_with(&mut r, 5, RecoveryAck::Partial); // 17 - 5 + 1 = 13
        assert_eq!(r.cwnd(), 13_000);
        assert!(r.in_recovery());
        ack_with(&mut r, 3, RecoveryAck::Exit);
        assert_eq!(r.cwnd(), 10_000, "the full ack deflates to ssthresh");
        assert!(!r.in_recovery());
        assert_eq!(<crate::cc::NewReno as CcPolicy>::LOSS_RECOVERY.recovery, crate::cc::Recovery::NewReno);
    }

    #[test]
    fn sack_recovery_sets_cwnd_to_ssthresh_without_inflation() {
        let mut r = reno_at(10);
        r.on_congestion(&CongestionSample {
            now: SimTime::ZERO,
            cause: Cause::FastRetransmit,
            in_flight_pkts: 10,
            pipe: true,
            rto_repeat: false,
            dupack_threshold: 3,
        });
        assert_eq!(r.cwnd(), 5000);
        r.on_dup_ack(SimTime::ZERO);
        ack_with(&mut r, 2, RecoveryAck::Partial);
        assert_eq!(r.cwnd(), 5000);
        ack_with(&mut r, 2, RecoveryAck::Exit);
        assert_eq!(r.cwnd(), 5000);
    }

    #[test]
    fn ecn_echo_halves_the_window_without_recovery() {
        let mut r = reno_at(10);
        loss_in_flight(&mut r, Cause::Ecn, 10);
        assert_eq!((r.cwnd(), r.ssthresh()), (5000, Some(5000)));
        assert!(!r.in_recovery());
        ack(&mut r, 1);
        assert_eq!(r.cwnd(), 6000, "congestion avoidance goes on at once");
    }
}
