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
//!
//! Linux 2.6.23 (`tcp_rtt_estimator`, `tcp_set_rto`), on every ack's timestamp echo:
//! err = m - srtt, srtt += err/8; the mean deviation mdev += (|err| - mdev)/4, or
//! (|err| - mdev)/32 when the RTT fell and |err| > mdev; rttvar follows the largest
//! 4 mdev of the round trip (mdev_max, reset to min_rto at each round trip's end) and
//! decays by a quarter of its excess per round trip; rto = srtt + rttvar, at most
//! max_rto. The first sample sets srtt = m, mdev = m/2, rttvar = max(2m, min_rto).

use crate::base::time::SimDuration;
use crate::cc::RtoStyle;

/// `repr(C)`, in this order: what every ack reads (the timeout in force, whether one
/// packet is timed) first, then what a sample updates, then the style.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct RtoEstimator {
    /// The timeout in force (`rto()`), ps: recomputed whenever a sample or a timeout
    /// changes it, so an ack that re-arms the timer reads one word.
    rto_ps: u64,
    /// Number of consecutive timeouts (backoff exponent, at most 16).
    backoff: u8,
    /// One packet at a time is timed (Jacobson/Karels, `timed_sampling`).
    timed: bool,
    /// Linux: the sequence number that ends the round trip (`rtt_seq`).
    rtt_seq: u32,
    /// Timeout before backoff, ps.
    base_rto: u64,
    /// Smoothed RTT, ps; `NO_SRTT` before the first sample.
    srtt: u64,
    /// Mean deviation, ps (Jacobson/Karels only).
    rttvar: u64,
    /// Linux: 4 x the mean deviation (Linux's `mdev`), ps.
    mdev4: u64,
    /// Linux: the largest 4 x mdev of this round trip, ps (`mdev_max`).
    mdev_max: u64,
    style: RtoStyle,
}

/// `srtt` before the first sample (no RTT reaches 2^64 ps, 213 days).
const NO_SRTT: u64 = u64::MAX;

impl RtoEstimator {
    pub fn new(style: RtoStyle, initial_rto: SimDuration) -> Self {
        let mut e = RtoEstimator {
            rto_ps: 0,
            backoff: 0,
            timed: matches!(style, RtoStyle::JacobsonKarels { .. }),
            rtt_seq: 0,
            base_rto: initial_rto.as_ps(),
            srtt: NO_SRTT,
            rttvar: 0,
            mdev4: 0,
            mdev_max: 0,
            style,
        };
        e.refresh();
        e
    }

    /// Where what every ack reads lies in the estimator: (offset, bytes), the timeout in
    /// force and the sampling style (`transport::sizes`'s layout test).
    #[cfg(test)]
    pub(crate) fn hot_span() -> (usize, usize) {
        use std::mem::offset_of;
        let a = offset_of!(RtoEstimator, rto_ps);
        (a, offset_of!(RtoEstimator, timed) + 1 - a)
    }

    /// Recomputes the timeout in force after `base_rto` or `backoff` changed.
    fn refresh(&mut self) {
        self.rto_ps = self.raw_rto().max(crate::cc::MIN_TIMEOUT).as_ps();
    }

    /// Feeds one RTT sample with the sender's `snd_una` and `snd_nxt` (the Linux
    /// estimator's round trips; the others ignore them).
    pub fn sample_at(&mut self, m: SimDuration, snd_una: u32, snd_nxt: u32) {
        let RtoStyle::Linux { min_rto, max_rto } = self.style else {
            self.sample(m);
            return;
        };
        self.backoff = 0;
        let m = m.as_ps().max(1) as i128;
        let min = min_rto.as_ps() as i128;
        // mdev is kept as Linux keeps it, times 4 (`self.rttvar` is Linux's rttvar).
        match (self.srtt != NO_SRTT).then_some(self.srtt) {
            None => {
                self.srtt = m as u64;
                self.mdev4 = (2 * m) as u64;
                self.mdev_max = (2 * m).max(min) as u64;
                self.rttvar = self.mdev_max;
                self.rtt_seq = snd_nxt;
            }
            Some(s) => {
                let err = m - s as i128;
                self.srtt = (s as i128 + err / 8) as u64;
                let mdev = self.mdev4 as i128 / 4;
                let mut e = err.abs() - mdev;
                if err < 0 && e > 0 {
                    e /= 8;
                }
                self.mdev4 = (self.mdev4 as i128 + e).max(0) as u64;
                if self.mdev4 > self.mdev_max {
                    self.mdev_max = self.mdev4;
                    self.rttvar = self.rttvar.max(self.mdev_max);
                }
                if snd_una > self.rtt_seq {
                    if self.mdev_max < self.rttvar {
                        self.rttvar -= (self.rttvar - self.mdev_max) / 4;
                    }
                    self.rtt_seq = snd_nxt;
                    self.mdev_max = min as u64;
                }
            }
        }
        let rto = self.srtt + self.rttvar;
        self.base_rto = rto.min(max_rto.as_ps());
        self.refresh();
    }

    /// Feeds one RTT sample `m` and resets the backoff.
    pub fn sample(&mut self, m: SimDuration) {
        let m = m.as_ps();
        self.backoff = 0;
        match self.style {
            RtoStyle::JacobsonKarels { k, min_rto, max_rto } => {
                match (self.srtt != NO_SRTT).then_some(self.srtt) {
                    None => {
                        self.srtt = m;
                        self.rttvar = m / 2;
                    }
                    Some(s) => {
                        let err = m as i128 - s as i128;
                        let s = (s as i128 + err / 8) as u64;
                        let v = self.rttvar as i128;
                        self.rttvar = (v + (err.abs() - v) / 4) as u64;
                        self.srtt = s;
                    }
                }
                let rto = self.srtt + k as u64 * self.rttvar;
                self.base_rto = rto.clamp(min_rto.as_ps(), max_rto.as_ps());
            }
            RtoStyle::Linux { .. } => self.sample_at(SimDuration::from_ps(m), 0, 0),
            RtoStyle::Generic { alpha, beta } => {
                let s = match (self.srtt != NO_SRTT).then_some(self.srtt) {
                    None => m as f64,
                    Some(s) => alpha * s as f64 + (1.0 - alpha) * m as f64,
                };
                let s = s.round() as u64;
                self.srtt = s;
                self.base_rto = (beta * s as f64).round().max(1.0) as u64;
            }
        }
        self.refresh();
    }

    /// The retransmission timer expired: double the timeout (Jacobson/Karels and Linux).
    pub fn on_timeout(&mut self) {
        if matches!(self.style, RtoStyle::JacobsonKarels { .. } | RtoStyle::Linux { .. }) {
            self.backoff = (self.backoff + 1).min(16);
            self.refresh();
        }
    }

    /// The current timeout, with backoff applied.
    /// The timeout in force, never below `cc::MIN_TIMEOUT`.
    #[inline]
    pub fn rto(&self) -> SimDuration {
        SimDuration::from_ps(self.rto_ps)
    }

    fn raw_rto(&self) -> SimDuration {
        match self.style {
            RtoStyle::JacobsonKarels { max_rto, .. } | RtoStyle::Linux { max_rto, .. } => {
                let r = self.base_rto.saturating_mul(1u64 << self.backoff);
                SimDuration::from_ps(r.min(max_rto.as_ps().max(self.base_rto)))
            }
            RtoStyle::Generic { .. } => SimDuration::from_ps(self.base_rto),
        }
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        (self.srtt != NO_SRTT).then(|| SimDuration::from_ps(self.srtt))
    }

    /// Whether this estimator follows Karn's rule with one timed packet at a time (the
    /// others sample every ack's timestamp echo).
    #[inline]
    pub fn timed_sampling(&self) -> bool {
        self.timed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jk() -> RtoEstimator {
        RtoEstimator::new(
            RtoStyle::JacobsonKarels {
                k: 4,
                min_rto: SimDuration::from_millis(200),
                max_rto: SimDuration::from_secs(64),
            },
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

    fn linux() -> RtoEstimator {
        RtoEstimator::new(
            RtoStyle::Linux { min_rto: SimDuration::from_millis(200), max_rto: SimDuration::from_secs(120) },
            SimDuration::from_secs(3),
        )
    }

    #[test]
    fn linux_rto_is_srtt_plus_at_least_min_rto() {
        // First sample 100 ms: srtt 100, mdev 50 (4 mdev = 200), rttvar = max(200, 200):
        // rto 300 ms (= 3 RTT, as Linux says).
        let mut e = linux();
        let ms = SimDuration::from_millis;
        e.sample_at(ms(100), 0, 10);
        assert_eq!(e.rto(), ms(300));
        // Steady 100 ms samples: mdev decays, but rttvar never goes below min_rto: after
        // many round trips rto = 100 + 200 = 300 ms.
        for k in 1..200u32 {
            e.sample_at(ms(100), 10 * k, 10 * (k + 1));
        }
        assert_eq!(e.rto(), ms(300));
        // A 20 ms path: Jacobson/Karels would give max(20 + 4 x dev, 200) = 200 ms; Linux
        // 20 + 200 = 220 ms.
        let mut e = linux();
        for k in 0..100u32 {
            e.sample_at(ms(20), k, k + 1);
        }
        assert_eq!(e.rto(), ms(220));
    }

    #[test]
    fn linux_rttvar_follows_the_largest_deviation_and_decays_per_round_trip() {
        let ms = SimDuration::from_millis;
        let mut e = linux();
        e.sample_at(ms(100), 0, 10); // srtt 100, 4 mdev 200, rttvar 200
                                     // 500 ms (err 400): srtt 150; 4 mdev = 200 + (400 - 50) = 550 > 200: rttvar 550,
                                     // within the first round trip (snd_una 5 <= rtt_seq 10): rto 150 + 550 = 700 ms.
        e.sample_at(ms(500), 5, 12);
        assert_eq!(e.srtt(), Some(ms(150)));
        assert_eq!(e.rto(), ms(700));
        // The round trip ends (snd_una 11 > 10), 150 ms sample (err 0): 4 mdev = 550 -
        // 137.5 = 412.5 < mdev_max 550: rttvar stays 550 this round; mdev_max resets to 200.
        e.sample_at(ms(150), 11, 20);
        assert_eq!(e.rto(), ms(700));
        // Next round trip ends: 4 mdev = 412.5 - 103.125 = 309.375 > 200: mdev_max 309.375;
        // rttvar decays by (550 - 309.375)/4 = 60.15625 to 489.84375 ms.
        e.sample_at(ms(150), 21, 30);
        assert_eq!(e.rto(), SimDuration::from_micros(639_843) + SimDuration::from_ps(750_000));
        e.on_timeout();
        assert_eq!(e.rto(), SimDuration::from_micros(1_279_687) + SimDuration::from_ps(500_000));
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
