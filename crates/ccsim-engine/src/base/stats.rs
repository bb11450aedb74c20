//! Fixed-memory statistics: a log-linear histogram (HdrHistogram's idea, 5 bits of
//! mantissa: every value is kept to within 1/32 = 3.1% relative error) and the per-flow
//! delay statistics built on it.
//!
//! Values are nanoseconds. Below 32 ns each value has its own bucket; above, each
//! power of two is split into 32 equal buckets, up to 2^40 ns (18 minutes); larger
//! values fall in the last bucket (the exact maximum is kept separately). A histogram
//! is 1,152 `u32` counters (4.5 KiB), allocated only for flows that ask for it.

/// Mantissa bits: 32 sub-buckets per power of two.
const SUB: u32 = 5;
/// Largest exponent kept apart.
const MAX_EXP: u32 = 40;
const N_BUCKETS: usize = ((MAX_EXP - SUB + 1) << SUB) as usize + (1 << SUB);

#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Box<[u32]>,
    n: u64,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; N_BUCKETS].into_boxed_slice(), n: 0, sum_ns: 0, min_ns: u64::MAX, max_ns: 0 }
    }
}

fn bucket(v: u64) -> usize {
    if v < (1 << SUB) {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // v in [2^e, 2^(e+1))
    if e > MAX_EXP {
        return N_BUCKETS - 1;
    }
    let sub = (v >> (e - SUB)) as usize & ((1 << SUB) - 1);
    (((e - SUB + 1) as usize) << SUB) + sub
}

/// The range [lo, hi) of values in bucket `i`.
fn bucket_range(i: usize) -> (u64, u64) {
    if i < (1 << SUB) {
        return (i as u64, i as u64 + 1);
    }
    let e = (i >> SUB) as u32 + SUB - 1;
    let sub = (i & ((1 << SUB) - 1)) as u64;
    let width = 1u64 << (e - SUB);
    let lo = (1u64 << e) + sub * width;
    (lo, lo + width)
}

impl Histogram {
    #[inline]
    pub fn add(&mut self, ns: u64) {
        self.counts[bucket(ns)] += 1;
        self.n += 1;
        self.sum_ns += ns as u128;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn mean_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ns as f64 / self.n as f64 / 1e9)
    }

    pub fn max_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.max_ns as f64 / 1e9)
    }

    pub fn min_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.min_ns as f64 / 1e9)
    }

    /// The q-quantile (0 < q <= 1), seconds: the middle of the bucket holding the
    /// ceil(q n)-th smallest value, clamped to the exact minimum and maximum.
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                let (lo, hi) = bucket_range(i);
                let mid = (lo + (hi - 1)) / 2;
                return Some(mid.clamp(self.min_ns, self.max_ns) as f64 / 1e9);
            }
        }
        Some(self.max_ns as f64 / 1e9)
    }
}

/// One flow's delays: one-way (send to arrival at the receiver) and queueing (the
/// one-way delay minus the path's propagation and transmission times for the packet).
#[derive(Clone, Debug, Default)]
pub struct DelayStats {
    pub one_way: Histogram,
    pub queueing: Histogram,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_values_without_gaps_and_within_three_percent() {
        let mut prev_hi = 0;
        for i in 0..N_BUCKETS - 1 {
            let (lo, hi) = bucket_range(i);
            assert_eq!(lo, prev_hi, "bucket {i}");
            assert!(hi > lo);
            assert_eq!(bucket(lo), i);
            assert_eq!(bucket(hi - 1), i);
            assert!((hi - lo) as f64 / lo.max(1) as f64 <= 1.0 / 32.0 + 1e-12 || lo < 32);
            prev_hi = hi;
        }
        assert_eq!(bucket(u64::MAX), N_BUCKETS - 1);
    }

    #[test]
    fn quantiles_of_a_uniform_sample() {
        // 1..=1000 microseconds: p50 = 500 us, p95 = 950 us, p99 = 990 us, within the
        // bucket resolution (3.1%).
        let mut h = Histogram::default();
        for us in 1..=1000u64 {
            h.add(us * 1000);
        }
        for (q, want) in [(0.5, 500e-6), (0.95, 950e-6), (0.99, 990e-6), (1.0, 1000e-6)] {
            let got = h.quantile_s(q).unwrap();
            assert!((got - want).abs() <= want / 32.0, "q={q}: {got} vs {want}");
        }
        assert_eq!(h.mean_s(), Some(500.5e-6));
        assert_eq!(h.max_s(), Some(1e-3));
        assert_eq!(h.min_s(), Some(1e-6));
    }

    #[test]
    fn a_constant_is_its_own_quantile() {
        let mut h = Histogram::default();
        for _ in 0..10 {
            h.add(123_456_789);
        }
        assert_eq!(h.quantile_s(0.5), Some(0.123456789));
        assert_eq!(h.quantile_s(0.99), Some(0.123456789));
    }

    #[test]
    fn empty_histogram_has_no_statistics() {
        let h = Histogram::default();
        assert_eq!((h.mean_s(), h.quantile_s(0.5), h.max_s()), (None, None, None));
    }
}
