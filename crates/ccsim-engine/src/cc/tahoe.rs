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
//! - The timer is Jacobson/Karels with Karn's rule and exponential backoff
//!   (`JkRtoConfig`, implemented by the transport's estimator).
//!
//! Deviations from the BSD code: no 500 ms timer granularity, no delayed acks, windows
//! counted in whole packets of the flow's data size.

use super::{LossRecovery, Recovery};
use super::{CcPolicy, 
    at_least_one, bsd_open_window, ssthresh_after_congestion, AckSample, Cause, CcMetrics, CongestionControl,
    CongestionSample, JkRtoConfig, RtoKind, RtoStyle, SsthreshRule,
};
use crate::time::SimDuration;
use crate::units::serde_units;
use serde::{Deserialize, Serialize};

/// Parameters of Tahoe, Reno and NewReno (`[flows.params]`, by these names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TahoeConfig {
    /// Initial window, packets. Default 1.
    pub initial_window: u32,
    /// Initial slow-start threshold, packets; `None` means the maximum window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
    /// Duplicate acks that trigger fast retransmit. Default 3.
    pub dupack_threshold: u32,
    /// Timeout before the first RTT sample. Default 3 s (RFC 1122).
    #[serde(with = "serde_units::time")]
    pub initial_rto: SimDuration,
    /// Lower bound of the Jacobson/Karels timeout. Default 1 s (RFC 6298).
    #[serde(with = "serde_units::time")]
    pub min_rto: SimDuration,
    /// Upper bound, also the cap of exponential backoff. Default 64 s.
    #[serde(with = "serde_units::time")]
    pub max_rto: SimDuration,
    /// rto = srtt + rto_k rttvar. Default 4 (RFC 6298).
    pub rto_k: u32,
    /// The timer: `jk` (default, 4.3BSD) or `linux` (Linux 2.6: srtt + max(4 rttvar,
    /// min_rto), every ack sampled; `rto_k` unused).
    #[serde(skip_serializing_if = "RtoKind::is_jk")]
    pub rto: RtoKind,
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
            dupack_threshold: 3,
            initial_rto: JkRtoConfig::DEFAULT.initial_rto,
            min_rto: JkRtoConfig::DEFAULT.min_rto,
            max_rto: JkRtoConfig::DEFAULT.max_rto,
            rto_k: JkRtoConfig::DEFAULT.k,
            rto: RtoKind::Jk,
            ssthresh_rule: None,
        }
    }
}

impl TahoeConfig {
    /// The Jacobson/Karels timer parameters.
    pub fn rto(&self) -> JkRtoConfig {
        JkRtoConfig { initial_rto: self.initial_rto, min_rto: self.min_rto, max_rto: self.max_rto, k: self.rto_k }
    }

    /// The window transport's timer and loss recovery: these parameters' timer and
    /// fast retransmit, with `recovery`.
    pub fn loss_recovery(&self, recovery: Recovery) -> LossRecovery {
        LossRecovery {
            rto: self.rto_style(),
            initial_rto: self.initial_rto,
            dupack_threshold: Some(self.dupack_threshold),
            recovery,
        }
    }

    /// The retransmission timer's style.
    pub fn rto_style(&self) -> RtoStyle {
        match self.rto {
            RtoKind::Jk => self.rto().style(),
            RtoKind::Linux => RtoStyle::Linux { min_rto: self.min_rto, max_rto: self.max_rto },
        }
    }

    /// Checks the values; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        at_least_one(&[
            ("initial_window", self.initial_window),
            ("dupack_threshold", self.dupack_threshold),
            ("rto_k", self.rto_k),
        ])?;
        if self.initial_ssthresh == Some(0) {
            return Err(("initial_ssthresh", "must be a whole number of at least 1".into()));
        }
        self.rto().check()
    }
}

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
    fn loss_recovery(cfg: &TahoeConfig) -> LossRecovery {
        cfg.loss_recovery(Recovery::Reno)
    }
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
