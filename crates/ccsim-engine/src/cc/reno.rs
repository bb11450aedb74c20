//! Reno: Tahoe plus fast recovery (4.3BSD-Reno; Jacobson 1990; RFC 5681 section 3.2).
//!
//! - Slow start and congestion avoidance as Tahoe (`bsd_open_window`).
//! - Third duplicate ack: ssthresh = max(min(cwnd, maxwin)/2, 2) segments, the lost
//!   packet is retransmitted by the transport, cwnd = ssthresh + 3 segments (inflate for
//!   the three packets that left the network); each further duplicate ack adds one
//!   segment; the first new ack deflates cwnd to ssthresh and ends recovery.
//! - Timeout: as Tahoe (cwnd = 1 segment), recovery abandoned.
//!
//! Deviations: plain Reno (no NewReno partial-ack handling): a partial ack ends
//! recovery, as in 4.3BSD-Reno.

use super::{bsd_open_window, bsd_ssthresh_after_loss, AckSample, CongestionControl, LossKind, LossSample, TahoeConfig};
use crate::time::SimTime;

/// Reno takes the same parameters as Tahoe (initial window and ssthresh, duplicate-ack
/// threshold, Jacobson/Karels timer).
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
    dupack_threshold: u32,
    /// In fast recovery.
    recovering: bool,
}

impl Reno {
    pub fn new(cfg: &RenoConfig, mss: u64, max_window: u32) -> Self {
        let max = max_window as u64 * mss;
        Reno {
            mss,
            cwnd: (cfg.initial_window.max(1) as u64 * mss).min(max),
            ssthresh: cfg.initial_ssthresh.unwrap_or(max_window) as u64 * mss,
            max,
            dupack_threshold: cfg.dupack_threshold,
            recovering: false,
        }
    }

    pub fn in_recovery(&self) -> bool {
        self.recovering
    }
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, _s: &AckSample) {
        if self.recovering {
            self.cwnd = self.ssthresh;
            self.recovering = false;
        } else {
            self.cwnd = bsd_open_window(self.cwnd, self.ssthresh, self.mss, self.max);
        }
    }
    fn on_dup_ack(&mut self, _now: SimTime) {
        if self.recovering {
            self.cwnd += self.mss;
        }
    }
    fn on_loss(&mut self, s: &LossSample) {
        self.ssthresh = bsd_ssthresh_after_loss(self.cwnd, self.mss, self.max);
        match s.kind {
            LossKind::FastRetransmit => {
                self.cwnd = self.ssthresh + self.dupack_threshold as u64 * self.mss;
                self.recovering = true;
            }
            LossKind::Timeout => {
                self.cwnd = self.mss;
                self.recovering = false;
            }
        }
    }
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> Option<u64> {
        Some(self.ssthresh)
    }
    fn dupack_threshold(&self) -> Option<u32> {
        Some(self.dupack_threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{ack, loss};

    fn reno_at(window_pkts: u32) -> Reno {
        let mut r = Reno::new(&RenoConfig::default(), 1000, 64);
        for _ in 1..window_pkts {
            ack(&mut r, 0);
        }
        assert_eq!(r.cwnd(), window_pkts as u64 * 1000);
        r
    }

    #[test]
    fn fast_retransmit_halves_and_inflates_by_three() {
        let mut r = reno_at(10);
        loss(&mut r, LossKind::FastRetransmit);
        assert_eq!(r.ssthresh(), Some(5000));
        assert_eq!(r.cwnd(), 8000);
        assert!(r.in_recovery());
    }

    #[test]
    fn duplicate_acks_inflate_and_new_ack_deflates() {
        let mut r = reno_at(10);
        loss(&mut r, LossKind::FastRetransmit);
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
        loss(&mut r, LossKind::FastRetransmit);
        loss(&mut r, LossKind::Timeout);
        assert_eq!(r.cwnd(), 1000);
        assert!(!r.in_recovery());
        // ssthresh computed from the inflated window 8000 -> 4000.
        assert_eq!(r.ssthresh(), Some(4000));
    }

    #[test]
    fn duplicate_acks_outside_recovery_do_nothing() {
        let mut r = reno_at(4);
        r.on_dup_ack(SimTime::ZERO);
        assert_eq!(r.cwnd(), 4000);
    }
}
