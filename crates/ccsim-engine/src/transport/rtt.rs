//! Retransmission-timeout estimators (see `cc::RtoStyle` for the two styles).
//!
//! Jacobson/Karels, "Congestion Avoidance and Control" (SIGCOMM 1988) appendix A, as in
//! 4.3BSD-Tahoe `tcp_xmit_timer`: with error e = m - srtt, srtt += e/8,
//! rttvar += (|e| - rttvar)/4; the first sample sets srtt = m, rttvar = m/2 (RFC 6298
//! 2.2, the same as BSD's initial scaled values). rto = srtt + k rttvar, clamped to
//! [min_rto, max_rto], doubled on every timeout (backoff) and recomputed from the next
//! valid sample (Karn's rule is applied by the caller, which never samples a
//! retransmitted packet). All arithmetic in integer picoseconds.
//!
//! Generic (RFC 793 section 3.7): srtt = alpha srtt + (1 - alpha) m, rto = beta srtt.

use crate::cc::RtoStyle;
use crate::time::SimDuration;

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    style: RtoStyle,
    /// Smoothed RTT, ps; `None` before the first sample.
    srtt: Option<u64>,
    /// Mean deviation, ps (Jacobson/Karels only).
    rttvar: u64,
    /// Timeout before backoff, ps.
    base_rto: u64,
    /// Number of consecutive timeouts (backoff exponent).
    backoff: u32,
}

impl RtoEstimator {
    pub fn new(style: RtoStyle, initial_rto: SimDuration) -> Self {
        RtoEstimator { style, srtt: None, rttvar: 0, base_rto: initial_rto.as_ps(), backoff: 0 }
    }

    /// Feeds one RTT sample `m` and resets the backoff.
    pub fn sample(&mut self, m: SimDuration) {
        let m = m.as_ps();
        self.backoff = 0;
        match self.style {
            RtoStyle::JacobsonKarels { k, min_rto, max_rto } => {
                match self.srtt {
                    None => {
                        self.srtt = Some(m);
                        self.rttvar = m / 2;
                    }
                    Some(s) => {
                        let err = m as i128 - s as i128;
                        let s = (s as i128 + err / 8) as u64;
                        let v = self.rttvar as i128;
                        self.rttvar = (v + (err.abs() - v) / 4) as u64;
                        self.srtt = Some(s);
                    }
                }
                let rto = self.srtt.unwrap() + k as u64 * self.rttvar;
                self.base_rto = rto.clamp(min_rto.as_ps(), max_rto.as_ps());
            }
            RtoStyle::Generic { alpha, beta } => {
                let s = match self.srtt {
                    None => m as f64,
                    Some(s) => alpha * s as f64 + (1.0 - alpha) * m as f64,
                };
                let s = s.round() as u64;
                self.srtt = Some(s);
                self.base_rto = (beta * s as f64).round().max(1.0) as u64;
            }
        }
    }

    /// The retransmission timer expired: double the timeout (Jacobson/Karels only).
    pub fn on_timeout(&mut self) {
        if matches!(self.style, RtoStyle::JacobsonKarels { .. }) {
            self.backoff = (self.backoff + 1).min(16);
        }
    }

    /// The current timeout, with backoff applied.
    /// The timeout in force, never below `cc::MIN_TIMEOUT`.
    pub fn rto(&self) -> SimDuration {
        self.raw_rto().max(crate::cc::MIN_TIMEOUT)
    }

    fn raw_rto(&self) -> SimDuration {
        match self.style {
            RtoStyle::JacobsonKarels { max_rto, .. } => {
                let r = self.base_rto.saturating_mul(1u64 << self.backoff);
                SimDuration::from_ps(r.min(max_rto.as_ps().max(self.base_rto)))
            }
            RtoStyle::Generic { .. } => SimDuration::from_ps(self.base_rto),
        }
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt.map(SimDuration::from_ps)
    }

    /// Whether this estimator follows Karn's rule with one timed packet at a time.
    pub fn timed_sampling(&self) -> bool {
        matches!(self.style, RtoStyle::JacobsonKarels { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jk() -> RtoEstimator {
        RtoEstimator::new(
            RtoStyle::JacobsonKarels { k: 4, min_rto: SimDuration::from_millis(200), max_rto: SimDuration::from_secs(64) },
            SimDuration::from_secs(3),
        )
    }

    #[test]
    fn initial_rto_before_any_sample() {
        assert_eq!(jk().rto(), SimDuration::from_secs(3));
    }

    #[test]
    fn first_sample_gives_three_times_rtt() {
        // srtt = 1 s, rttvar = 0.5 s, rto = 1 + 4 * 0.5 = 3 s.
        let mut e = jk();
        e.sample(SimDuration::from_secs(1));
        assert_eq!(e.rto(), SimDuration::from_secs(3));
    }

    #[test]
    fn second_sample_updates_by_eighth_and_quarter() {
        // After 1 s: srtt 1000 ms, rttvar 500 ms. Sample 1800 ms: err 800 ms,
        // srtt = 1100 ms, rttvar = 500 + (800 - 500)/4 = 575 ms, rto = 1100 + 2300 = 3400 ms.
        let mut e = jk();
        e.sample(SimDuration::from_secs(1));
        e.sample(SimDuration::from_millis(1800));
        assert_eq!(e.srtt(), Some(SimDuration::from_millis(1100)));
        assert_eq!(e.rto(), SimDuration::from_millis(3400));
    }

    #[test]
    fn timeouts_double_until_max_and_a_sample_resets() {
        let mut e = jk();
        e.sample(SimDuration::from_secs(1)); // rto 3 s
        e.on_timeout();
        assert_eq!(e.rto(), SimDuration::from_secs(6));
        for _ in 0..10 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(64));
        e.sample(SimDuration::from_secs(1)); // srtt 1 s, rttvar = 0.5 + (0 - 0.5)/4 = 0.375
        assert_eq!(e.rto(), SimDuration::from_millis(2500));
    }

    #[test]
    fn small_rtt_is_clamped_to_min_rto() {
        let mut e = jk();
        e.sample(SimDuration::from_millis(10));
        assert_eq!(e.rto(), SimDuration::from_millis(200));
    }

    #[test]
    fn generic_is_beta_times_smoothed_rtt_without_backoff() {
        let mut e = RtoEstimator::new(RtoStyle::Generic { alpha: 0.875, beta: 2.0 }, SimDuration::from_secs(3));
        e.sample(SimDuration::from_secs(4)); // srtt 4 s
        assert_eq!(e.rto(), SimDuration::from_secs(8));
        e.sample(SimDuration::from_secs(12)); // srtt = 3.5 + 1.5 = 5 s
        assert_eq!(e.rto(), SimDuration::from_secs(10));
        e.on_timeout();
        assert_eq!(e.rto(), SimDuration::from_secs(10));
    }
}
