//! Jacobson/Karels congestion control as in 4.3BSD-Tahoe ("JK" in Keshav 1991 and
//! Dabbous): V. Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988.
//!
//! - Slow start: cwnd starts at `initial_window` segments and grows one segment per ack
//!   while cwnd <= ssthresh; above, congestion avoidance adds mss*mss/cwnd per ack
//!   (4.3BSD `tcp_input.c`, integer bytes). cwnd never exceeds the maximum window.
//! - Any loss (three duplicate acks or a timeout): ssthresh = max(min(cwnd, maxwin)/2, 2)
//!   segments (`ssthresh_rule = "bsd"`, the default; `"rfc5681"` halves FlightSize,
//!   `SsthreshRule`), cwnd = 1 segment. The transport retransmits (one packet on fast
//!   retransmit; go-back from the first unacknowledged packet on timeout).
//! - The timer is Jacobson/Karels with Karn's rule and exponential backoff, the
//!   transport's (`LossRecoveryConfig`: every parameter, RFC 6298's defaults).
//!
//! Deviations from the BSD code: no 500 ms timer granularity, no delayed acks, windows
//! counted in whole packets of the flow's data size.

use super::{
    check_window_start, bsd_open_window, ssthresh_after_congestion, AckSample, Cause, CcMetrics, CcPolicy,
    CongestionControl, CongestionSample, LossRecoveryParams, SsthreshRule,
};
use serde::{Deserialize, Serialize};

/// Parameters of Tahoe, Reno and NewReno (`[flows.params]`, by these names; the
/// transport's loss-recovery parameters go in the same table, after
/// `initial_ssthresh`: `TAHOE_LOSS_RECOVERY`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TahoeConfig {
    /// Initial window, packets. Default 1.
    pub initial_window: u32,
    /// Initial slow-start threshold, packets; `None` means the maximum window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
    /// Which window a congestion signal halves; `None`: the policy's default (`bsd`
    /// for tahoe, `rfc5681` for reno and newreno).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssthresh_rule: Option<SsthreshRule>,
}

impl Default for TahoeConfig {
    fn default() -> Self {
        TahoeConfig {
            initial_window: 1,
            initial_ssthresh: None,
            ssthresh_rule: None,
        }
    }
}

impl TahoeConfig {
    /// Checks the values; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        check_window_start(self.initial_window, self.initial_ssthresh)?;
        Ok(())
    }
}

/// The transport's loss recovery for Tahoe, Reno and NewReno: every parameter, RFC
/// 6298's timer (`rto = "jk"`, 4.3BSD, or `"linux"`), fast retransmit at three duplicate
/// acks; listed after `initial_ssthresh`.
pub const TAHOE_LOSS_RECOVERY: LossRecoveryParams =
    LossRecoveryParams { after: Some("initial_ssthresh"), ..LossRecoveryParams::RFC6298 };

#[derive(Clone, Debug)]
pub struct Tahoe {
    /// Segment size, bytes.
    mss: u64,
    /// Congestion window, bytes.
    cwnd: u64,
    /// Slow-start threshold, bytes.
    ssthresh: u64,
    /// Maximum window, bytes.
    max: u64,
    ssthresh_rule: SsthreshRule,
}

impl Tahoe {
    pub fn new(cfg: &TahoeConfig, mss: u64, max_window: u32) -> Self {
        let max = max_window as u64 * mss;
        Tahoe {
            mss,
            cwnd: (cfg.initial_window.max(1) as u64 * mss).min(max),
            ssthresh: cfg.initial_ssthresh.unwrap_or(max_window) as u64 * mss,
            max,
            ssthresh_rule: cfg.ssthresh_rule.unwrap_or(SsthreshRule::Bsd),
        }
    }
}

impl CcPolicy for Tahoe {
    type Config = TahoeConfig;
    const NAME: &'static str = "tahoe";
    const ALIASES: &'static [&'static str] = &["jk"];
    const DESCRIPTION: &'static str = "Jacobson/Karels as 4.3BSD-Tahoe: slow start, congestion avoidance, window 1 on any loss";
    fn build(cfg: &TahoeConfig, mss: u64, max_window: u32) -> Self {
        Tahoe::new(cfg, mss, max_window)
    }
    fn check(cfg: &TahoeConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    const LOSS_RECOVERY: LossRecoveryParams = TAHOE_LOSS_RECOVERY;
}

impl CongestionControl for Tahoe {
    fn on_ack(&mut self, _s: &AckSample) {
        self.cwnd = bsd_open_window(self.cwnd, self.ssthresh, self.mss, self.max);
    }
    fn on_congestion(&mut self, s: &CongestionSample) {
        self.ssthresh =
            ssthresh_after_congestion(self.ssthresh_rule, s, self.cwnd, self.ssthresh, false, self.mss, self.max);
        // RFC 3168 section 6.1.2: an ECN echo halves the window without a loss.
        self.cwnd = if s.cause == Cause::Ecn { self.ssthresh } else { self.mss };
    }
    #[inline]
    fn metrics(&self) -> CcMetrics {
        CcMetrics::window(self.cwnd).with_ssthresh(self.ssthresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{ack, loss};
    use crate::cc::Cause;

    fn tahoe(max_window: u32) -> Tahoe {
        Tahoe::new(&TahoeConfig::default(), 1000, max_window)
    }

    #[test]
    fn slow_start_doubles_per_round_trip() {
        let mut t = tahoe(64);
        // Round trip 1: one ack -> 2; round trip 2: two acks -> 4; 3: four acks -> 8.
        let mut w = 1;
        for _ in 0..3 {
            for _ in 0..w {
                ack(&mut t, 0);
            }
            w *= 2;
            assert_eq!(t.cwnd(), w * 1000);
        }
    }

    #[test]
    fn loss_sets_ssthresh_to_half_and_window_to_one() {
        let mut t = tahoe(64);
        for _ in 0..9 {
            ack(&mut t, 0);
        } // cwnd = 10 segments
        loss(&mut t, Cause::FastRetransmit);
        assert_eq!(t.cwnd(), 1000);
        assert_eq!(t.ssthresh(), Some(5000));
    }

    #[test]
    fn congestion_avoidance_adds_about_one_segment_per_window() {
        let mut t = tahoe(64);
        for _ in 0..9 {
            ack(&mut t, 0);
        }
        loss(&mut t, Cause::Timeout); // ssthresh 5000, cwnd 1000
        for _ in 0..4 {
            ack(&mut t, 0);
        } // 2000, 3000, 4000, 5000: slow start up to and at ssthresh
        assert_eq!(t.cwnd(), 5000);
        ack(&mut t, 0); // at ssthresh: still +1 segment (BSD tests cwnd > ssthresh)
        assert_eq!(t.cwnd(), 6000);
        ack(&mut t, 0); // 6000 + 1000*1000/6000 = 6166
        assert_eq!(t.cwnd(), 6166);
    }

    #[test]
    fn window_never_exceeds_maximum_window() {
        let mut t = tahoe(4);
        for _ in 0..20 {
            ack(&mut t, 0);
        }
        assert_eq!(t.cwnd(), 4000);
    }

    #[test]
    fn repeated_losses_hold_ssthresh_at_two_segments() {
        let mut t = tahoe(64);
        loss(&mut t, Cause::Timeout);
        loss(&mut t, Cause::Timeout);
        assert_eq!(t.ssthresh(), Some(2000));
        assert_eq!(t.cwnd(), 1000);
    }
}
