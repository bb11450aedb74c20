//! First-come first-served with drop-tail: an arriving packet that does not fit the
//! buffer (in packets or bytes) is dropped (`DropReason::Overflow`); nothing queued is
//! ever dropped.

use super::{fits, DropReason, Qdisc, QdiscPolicy, Verdict};
use crate::packet::Packet;
use crate::base::rng::Rng;
use crate::base::time::SimTime;
use crate::base::units::Limit;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// First-come first-served takes no parameters (`qdisc = "fcfs"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FcfsConfig {}

/// Inline in every channel's discipline (`AnyQdisc`, 24 bytes): the buffer limit and a
/// pointer to the queue, made at the first packet queued. A timed channel
/// (`Channel::set_timed`) keeps its waiting packets itself and reads only the limit.
#[derive(Debug, Clone)]
pub struct Fcfs {
    limit: Limit,
    queue: Option<Box<FcfsQueue>>,
}

/// The queued packets with their enqueue times, and their bits.
#[derive(Debug, Clone, Default)]
struct FcfsQueue {
    packets: VecDeque<(SimTime, Packet)>,
    bits: u64,
}

impl Fcfs {
    /// The queue grows as it is used (to its longest backlog, then no more allocation),
    /// so a channel whose buffer is never filled costs no memory for it.
    pub fn new(limit: Limit) -> Self {
        Fcfs { limit, queue: None }
    }
}

impl QdiscPolicy for Fcfs {
    type Config = FcfsConfig;
    const NAME: &'static str = "fcfs";
    const ALIASES: &'static [&'static str] = &["droptail"];
    const DESCRIPTION: &'static str = "first-come first-served with drop-tail: an arrival that does not fit the buffer is dropped";
    const TITLE: &'static str = "drop-tail";
    const IDLE_BYPASS: bool = true;
    const FIFO: bool = true;
    fn build(_cfg: &FcfsConfig, limit: Limit, _rate_bps: u64, _rng: Rng) -> Self {
        Fcfs::new(limit)
    }
    #[inline]
    fn limit(&self) -> Limit {
        self.limit
    }
}

impl Qdisc for Fcfs {
    #[inline]
    fn enqueue(&mut self, now: SimTime, pkt: Packet, _conv: u32, _drops: &mut Vec<(Packet, DropReason)>) -> Verdict {
        if fits(self.limit, self.len_pkts(), self.len_bits(), pkt.bits) {
            let q = self.queue.get_or_insert_with(Default::default);
            q.bits += pkt.bits as u64;
            q.packets.push_back((now, pkt));
            Verdict::Queued
        } else {
            Verdict::Dropped(DropReason::Overflow)
        }
    }
    #[inline]
    fn dequeue(&mut self, _now: SimTime, _drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)> {
        let q = self.queue.as_deref_mut()?;
        let (t, p) = q.packets.pop_front()?;
        q.bits -= p.bits as u64;
        Some((p, t))
    }
    #[inline]
    fn len_pkts(&self) -> usize {
        self.queue.as_deref().map_or(0, |q| q.packets.len())
    }
    fn len_bits(&self) -> u64 {
        self.queue.as_deref().map_or(0, |q| q.bits)
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        if let Some(q) = self.queue.as_deref() {
            q.packets.iter().for_each(|(_, p)| f(p))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::test_util::pkt;

    #[test]
    fn drops_arrivals_beyond_packet_limit_and_serves_in_order() {
        let mut q = Fcfs::new(Limit::Packets(2));
        let mut d = Vec::new();
        let verdicts: Vec<Verdict> = (0..4).map(|s| q.enqueue(SimTime(s as u64), pkt(0, s, 100), 0, &mut d)).collect();
        assert_eq!(
            verdicts,
            vec![
                Verdict::Queued,
                Verdict::Queued,
                Verdict::Dropped(DropReason::Overflow),
                Verdict::Dropped(DropReason::Overflow)
            ]
        );
        assert!(d.is_empty(), "drop-tail never evicts a queued packet");
        assert_eq!(q.len_pkts(), 2);
        assert_eq!(q.len_bits(), 1600);
        assert_eq!(q.dequeue(SimTime(9), &mut d).map(|(p, t)| (p.seq, t)), Some((0, SimTime(0))));
        assert_eq!(q.dequeue(SimTime(9), &mut d).map(|(p, t)| (p.seq, t)), Some((1, SimTime(1))));
        assert!(q.dequeue(SimTime(9), &mut d).is_none());
    }

    #[test]
    fn byte_limit_admits_small_packet_after_large_one_is_refused() {
        let mut q = Fcfs::new(Limit::Bytes(1040));
        let mut d = Vec::new();
        assert_eq!(q.enqueue(SimTime::ZERO, pkt(0, 0, 1000), 0, &mut d), Verdict::Queued);
        assert_eq!(q.enqueue(SimTime::ZERO, pkt(0, 1, 1000), 0, &mut d), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(q.enqueue(SimTime::ZERO, pkt(0, 2, 40), 0, &mut d), Verdict::Queued);
        assert_eq!(q.len_bits(), 1040 * 8);
    }
}
