//! First-come first-served with random drop near the top of the buffer, as htsim's
//! `RandomQueue` (sim/randomqueue.cpp of htsim; its fat-tree drivers' switch ports): an
//! arrival that would make the queue exceed `threshold` is dropped with probability `p`
//! (`DropReason::RandomDrop`), one that does not fit the buffer is dropped
//! (`DropReason::Overflow`), and nothing queued is ever dropped. The random drops spread
//! losses over the flows sharing a full port instead of locking out the ones whose
//! packets arrive just after the buffer fills (docs/performance.md "htsim's fat-tree").
//!
//! The queue here is the waiting packets, the arrival included; htsim counts the packet
//! on the line too, so its 8-packet port with `RANDOM_BUFFER` 3 (random drop above 5)
//! is `buffer = "7pkt"`, `threshold = "4pkt"` here. `p` defaults to htsim's 0.1.

use super::fcfs::Fcfs;
use super::{fits, Ahead, DropReason, Qdisc, QdiscPolicy, Verdict};
use crate::base::rng::Rng;
use crate::base::time::SimTime;
use crate::base::units::Limit;
use crate::packet::Packet;
use serde::{Deserialize, Serialize};

/// `qdisc = { kind = "random_drop", threshold = "4pkt", p = 0.1 }`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RandomDropConfig {
    /// Arrivals that would take the queue above this (packets or bytes) are dropped
    /// with probability `p`.
    pub threshold: Limit,
    /// The drop probability above `threshold`.
    pub p: f64,
}

impl Default for RandomDropConfig {
    fn default() -> Self {
        RandomDropConfig { threshold: Limit::Packets(4), p: 0.1 }
    }
}

// Named like the enum variants they stand beside (`DropReason::Overflow`).
#[allow(non_upper_case_globals)]
impl DropReason {
    /// An arrival above the threshold, dropped at random.
    pub const RandomDrop: DropReason = DropReason::named("random_drop");
}

/// Drop-tail (`Fcfs`) with the random drop in front of it.
#[derive(Debug, Clone)]
pub struct RandomDrop {
    cfg: RandomDropConfig,
    fifo: Fcfs,
    rng: Rng,
}

impl QdiscPolicy for RandomDrop {
    type Config = RandomDropConfig;
    const NAME: &'static str = "random_drop";
    const DESCRIPTION: &'static str =
        "drop-tail that drops arrivals above a threshold with probability p (htsim's RandomQueue)";
    const TITLE: &'static str = "random-drop";
    const DROP_REASONS: &'static [&'static str] = &["random_drop"];
    const ADMITS: bool = true;
    fn build(cfg: &RandomDropConfig, limit: Limit, _rate_bps: u64, rng: Rng) -> Self {
        RandomDrop { cfg: *cfg, fifo: Fcfs::new(limit), rng }
    }
    fn check(cfg: &RandomDropConfig) -> Result<(), (&'static str, String)> {
        if !(0.0..=1.0).contains(&cfg.p) {
            return Err(("p", format!("must be from 0 to 1, found {}", cfg.p)));
        }
        Ok(())
    }
    fn limit(&self) -> Limit {
        self.fifo.limit()
    }
}

impl RandomDrop {
    /// The random drop of an arrival that finds `n` packets of `bits` waiting: one draw
    /// per arrival that fits the buffer but not the threshold (none otherwise).
    fn random_drop(&mut self, n: usize, bits: u64, pkt_bits: u32) -> bool {
        fits(self.fifo.limit(), n, bits, pkt_bits)
            && !fits(self.cfg.threshold, n, bits, pkt_bits)
            && self.rng.next_f64() < self.cfg.p
    }
}

impl Qdisc for RandomDrop {
    fn enqueue(&mut self, now: SimTime, pkt: Packet, conv: u32, drops: &mut Vec<(Packet, DropReason)>) -> Verdict {
        if self.random_drop(self.fifo.len_pkts(), self.fifo.len_bits(), pkt.bits) {
            return Verdict::Dropped(DropReason::RandomDrop);
        }
        // Drop-tail decides the rest.
        self.fifo.enqueue(now, pkt, conv, drops)
    }
    fn admit(&mut self, _now: SimTime, pkt: &mut Packet, ahead: Ahead) -> Verdict {
        if self.random_drop(ahead.pkts, ahead.bits, pkt.bits) {
            Verdict::Dropped(DropReason::RandomDrop)
        } else if fits(self.fifo.limit(), ahead.pkts, ahead.bits, pkt.bits) {
            Verdict::Queued
        } else {
            Verdict::Dropped(DropReason::Overflow)
        }
    }
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)> {
        self.fifo.dequeue(now, drops)
    }
    fn len_pkts(&self) -> usize {
        self.fifo.len_pkts()
    }
    fn len_bits(&self) -> u64 {
        self.fifo.len_bits()
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.fifo.for_each(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::test_util::pkt;

    #[test]
    fn below_the_threshold_nothing_is_dropped_above_it_p_of_the_arrivals() {
        // Buffer 7, threshold 4: the first 4 arrivals always queue (the queue, arrival
        // included, is at most 4); then each arrival that fits is dropped at random.
        let cfg = RandomDropConfig { threshold: Limit::Packets(4), p: 0.5 };
        let mut q = RandomDrop::build(&cfg, Limit::Packets(7), 1_000_000, Rng::new(1, 0));
        let mut d = Vec::new();
        for s in 0..4 {
            assert_eq!(q.enqueue(SimTime::ZERO, pkt(0, s, 100), 0, &mut d), Verdict::Queued);
        }
        // Hold the queue at 4 waiting packets: each arrival finds 4 and would make 5.
        let (mut random, n) = (0, 10_000);
        for s in 0..n {
            match q.enqueue(SimTime::ZERO, pkt(0, 4 + s, 100), 0, &mut d) {
                Verdict::Queued => {
                    q.dequeue(SimTime::ZERO, &mut d);
                }
                Verdict::Dropped(r) => {
                    assert_eq!(r, DropReason::RandomDrop);
                    random += 1;
                }
                Verdict::Marked => panic!("random_drop never marks"),
            }
        }
        // p = 0.5 of 10,000: 5,000 (sd 50).
        assert!((random as i64 - 5_000).abs() < 250, "{random}");
        // A full buffer drops as drop-tail, every arrival.
        let cfg = RandomDropConfig { threshold: Limit::Packets(4), p: 0.0 };
        let mut q = RandomDrop::build(&cfg, Limit::Packets(7), 1_000_000, Rng::new(1, 0));
        let v: Vec<Verdict> = (0..8).map(|s| q.enqueue(SimTime::ZERO, pkt(0, s, 100), 0, &mut d)).collect();
        assert!(v[..7].iter().all(|x| *x == Verdict::Queued));
        assert_eq!(v[7], Verdict::Dropped(DropReason::Overflow));
        assert!(d.is_empty());
        assert_eq!(RandomDrop::check(&RandomDropConfig { threshold: Limit::Packets(1), p: 1.5 }).unwrap_err().0, "p");
    }
}
