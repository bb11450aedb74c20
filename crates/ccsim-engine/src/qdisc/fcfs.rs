//! First-come first-served with drop-tail: an arriving packet that does not fit the
//! buffer (in packets or bytes) is dropped; nothing queued is ever dropped.

use super::{fits, Qdisc};
use crate::packet::Packet;
use crate::time::SimTime;
use crate::units::Limit;
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct Fcfs {
    limit: Limit,
    queue: VecDeque<Packet>,
    bytes: u64,
}

impl Fcfs {
    pub fn new(limit: Limit) -> Self {
        let cap = match limit {
            Limit::Packets(n) => n.min(1 << 16) as usize,
            Limit::Bytes(b) => (b / 1000).min(1 << 16) as usize,
        };
        Fcfs { limit, queue: VecDeque::with_capacity(cap), bytes: 0 }
    }
}

impl Qdisc for Fcfs {
    #[inline]
    fn enqueue(&mut self, _now: SimTime, pkt: Packet, dropped: &mut Vec<Packet>) {
        if fits(self.limit, self.queue.len(), self.bytes, pkt.size) {
            self.bytes += pkt.size as u64;
            self.queue.push_back(pkt);
        } else {
            dropped.push(pkt);
        }
    }
    #[inline]
    fn dequeue(&mut self, _now: SimTime) -> Option<Packet> {
        let p = self.queue.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    fn len_pkts(&self) -> usize {
        self.queue.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.queue.iter().for_each(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::test_util::pkt;

    #[test]
    fn drops_arrivals_beyond_packet_limit_and_serves_in_order() {
        let mut q = Fcfs::new(Limit::Packets(2));
        let mut dropped = Vec::new();
        for s in 0..4 {
            q.enqueue(SimTime::ZERO, pkt(0, s, 100), &mut dropped);
        }
        assert_eq!(dropped.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(q.len_pkts(), 2);
        assert_eq!(q.len_bytes(), 200);
        assert_eq!(q.dequeue(SimTime::ZERO).unwrap().seq, 0);
        assert_eq!(q.dequeue(SimTime::ZERO).unwrap().seq, 1);
        assert!(q.dequeue(SimTime::ZERO).is_none());
    }

    #[test]
    fn byte_limit_admits_small_packet_after_large_one_is_refused() {
        let mut q = Fcfs::new(Limit::Bytes(1040));
        let mut dropped = Vec::new();
        q.enqueue(SimTime::ZERO, pkt(0, 0, 1000), &mut dropped);
        q.enqueue(SimTime::ZERO, pkt(0, 1, 1000), &mut dropped);
        q.enqueue(SimTime::ZERO, pkt(0, 2, 40), &mut dropped);
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].seq, 1);
        assert_eq!(q.len_bytes(), 1040);
    }
}
