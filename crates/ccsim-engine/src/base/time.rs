//! Integer simulated time (after smoltcp `base/time.rs` and htsim `simtime_picosec`).
//!
//! `SimTime` is an instant and `SimDuration` a span, both in picoseconds held in a
//! `u64` (about 213 days). Floating point appears only for output (`as_secs_f64`).
//! Transmission times are computed exactly in `u128` integer arithmetic.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per second.
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// An instant of simulated time, in picoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct SimTime(pub u64);

/// A span of simulated time, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct SimDuration(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);
    pub const fn from_ps(ps: u64) -> Self {
        SimTime(ps)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * PS_PER_S)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const fn from_ps(ps: u64) -> Self {
        SimDuration(ps)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * PS_PER_S)
    }
    /// Rounds to the nearest picosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            return SimDuration(0);
        }
        SimDuration((s * PS_PER_S as f64).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    pub fn saturating_mul(self, k: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(k))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    fn sub(self, earlier: SimTime) -> SimDuration {
        debug_assert!(self >= earlier, "time went backwards");
        SimDuration(self.0 - earlier.0)
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.as_secs_f64())
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.as_secs_f64())
    }
}

/// Time to serialise `bits` onto a line of `rate_bps`, rounded up to a whole picosecond:
/// ceil(bits * 1e12 / rate) in `u128` integer arithmetic (docs/architecture.md).
pub fn tx_time(bits: u32, rate_bps: u64) -> SimDuration {
    debug_assert!(rate_bps > 0);
    let num = bits as u128 * PS_PER_S as u128;
    let r = rate_bps as u128;
    SimDuration(num.div_ceil(r) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_of_1000_bytes_at_80kbps_is_100ms() {
        assert_eq!(tx_time(8000, 80_000), SimDuration::from_millis(100));
    }

    #[test]
    fn tx_time_of_64_byte_ack_at_400gbps_is_exact() {
        // 64 B * 8 / 400e9 = 1.28 ns = 1280 ps, exactly representable.
        assert_eq!(tx_time(512, 400_000_000_000), SimDuration::from_ps(1280));
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1 byte at 3 bps = 8/3 s = 2.666.. s -> rounded up to the next picosecond.
        assert_eq!(tx_time(8, 3).as_ps(), 2_666_666_666_667);
        // Heybey's 10-bit control packet at 40 kbps: 250 us exactly.
        assert_eq!(tx_time(10, 40_000), SimDuration::from_micros(250));
    }

    #[test]
    fn secs_f64_round_trip() {
        assert_eq!(SimDuration::from_secs_f64(1.5), SimDuration::from_millis(1500));
        assert_eq!(SimDuration::from_secs_f64(-1.0), SimDuration::ZERO);
    }
}
