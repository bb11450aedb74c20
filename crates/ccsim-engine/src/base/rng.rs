//! Seeded random streams, one per component: the stream of component
//! `id` in a run with seed `seed` is PCG64 (MCG variant) seeded from a SplitMix64 mix of
//! both, so adding a component never perturbs the others' streams.

use rand_core::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[derive(Clone, Debug)]
pub struct Rng(Pcg64Mcg);

/// Component ids of the random streams: one namespace per kind of component, so that
/// no two components ever share a stream.
pub mod stream {
    const SHIFT: u32 = 40;
    /// Flow `i`'s own stream (Poisson gaps).
    pub fn flow(i: usize) -> u64 {
        i as u64
    }
    /// The queue discipline of channel `c` (RED).
    pub fn qdisc(c: usize) -> u64 {
        (1 << SHIFT) | c as u64
    }
    /// Element `k` on channel `c` (random loss).
    pub fn element(c: usize, k: usize) -> u64 {
        (2 << SHIFT) | ((c as u64) << 8) | k as u64
    }
    /// Flow `i`'s start-time jitter.
    pub fn start_jitter(i: usize) -> u64 {
        (3 << SHIFT) | i as u64
    }
    /// The processing jitter of the node at the far end of channel `c`.
    pub fn processing_jitter(c: usize) -> u64 {
        (4 << SHIFT) | c as u64
    }
    /// Flow `i`'s congestion-control policy (BBR's gain-cycle phase).
    pub fn cc(i: usize) -> u64 {
        (5 << SHIFT) | i as u64
    }
    /// Flow `i`'s choice among equal-cost paths (`[scenario].routing = "ecmp"`).
    pub fn ecmp(i: usize) -> u64 {
        (6 << SHIFT) | i as u64
    }
    /// Workload `i`'s arrivals, sizes and endpoints (`[[workloads]]`).
    pub fn workload(i: usize) -> u64 {
        (7 << SHIFT) | i as u64
    }
    /// Node `n`'s salt for hashing flows onto equal-cost next hops
    /// (`[scenario].routing = "ecmp_per_hop"`).
    pub fn router_hash(n: usize) -> u64 {
        (8 << SHIFT) | n as u64
    }
}

/// SplitMix64's output function (Steele, Lea and Flood 2014): a bijective 64-bit mix.
pub(crate) fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl Rng {
    pub fn new(seed: u64, component: u64) -> Self {
        let s = splitmix64(splitmix64(seed) ^ component.wrapping_mul(0xD6E8_FEB8_6659_FD93));
        Rng(Pcg64Mcg::seed_from_u64(s))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1) (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in (0, 1]: never zero, so `ln` is finite.
    pub fn next_f64_open(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..3)
            .map({
                let mut r = Rng::new(1, 5);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..3)
            .map({
                let mut r = Rng::new(1, 5);
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..3)
            .map({
                let mut r = Rng::new(1, 6);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn open_unit_interval() {
        let mut r = Rng::new(3, 3);
        for _ in 0..1000 {
            let u = r.next_f64_open();
            assert!(u > 0.0 && u <= 1.0);
        }
    }
}
