//! Merged arrivals: the packets propagating towards a channel fed by many channels, in
//! one time-ordered ring with one pending event, instead of one pipe and one event per
//! feeding channel.
//!
//! In the dumbbell every sender's access channel feeds the bottleneck and every
//! receiver's ack channel the reverse bottleneck. With a pipe per feeder, each packet's
//! arrival there is an event of its own that reads the feeder's channel line, a pipe
//! node and an event node, all per flow: at 10^4 flows each is a cache miss. Here the
//! feeder appends the packet, with its arrival time, to the fed channel's `Merge` when it
//! sends it (`Channel::to_pipe`), and the fed channel takes its arrivals from the ring's
//! front, one event at a time: the ring, the fed channel and the event's bucket (one
//! transmission time ahead, not one propagation delay) stay in the cache.
//!
//! Order: by event key (`EventQueue::arrival_key`: arrival time, then the feeder's
//! channel id, as for any arrival event), and packets of one feeder arriving at the same
//! instant in the order they were sent. Packets leave a feeder in arrival order (its pipe is FIFO), and
//! with equal access delays most sends append at the back; a packet that arrives before
//! some already in the ring (its feeder had a backlog) is inserted among them, walking
//! back at most `MAX_WALK` entries. Where it would have to walk further (feeders of very
//! different delays), the feeder keeps the packet in its own pipe, with its own event,
//! and so every later one until that pipe is empty (they must not overtake it).
//!
//! Nothing changes against a pipe per feeder: an arrival's key does not depend on when it
//! was scheduled (`net/event.rs`, the rule for simultaneous events).

use crate::base::ring::Ring;
use crate::packet::Packet;

/// How far back from the ring's end an early packet may be inserted.
pub const MAX_WALK: usize = 16;

/// At most this many channels get merged arrivals (those fed by the most channels):
/// the run loop looks at the front of each after every merged arrival.
pub const MAX_MERGES: usize = 8;

/// One fed channel's ring of arriving packets, each with its event key
/// (`EventQueue::arrival_key`).
#[derive(Debug)]
pub struct Merge {
    ring: Ring<(u128, Packet)>,
}

impl Default for Merge {
    fn default() -> Self {
        Merge { ring: Ring::new() }
    }
}

impl Merge {
    /// Packets in the ring.
    pub fn len(&self) -> usize {
        self.ring.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    /// Adds a packet with event key `key`; `false` (nothing added) if it would have to
    /// be inserted more than `MAX_WALK` entries before the end.
    #[inline(always)]
    pub fn push(&mut self, key: u128, pkt: &Packet) -> bool {
        match self.ring.back() {
            Some(&(last, _)) if last > key => self.ring.insert_sorted(MAX_WALK, (key, *pkt), |e| e.0),
            _ => {
                self.ring.push_back((key, *pkt));
                true
            }
        }
    }

    /// Gives back the ring's memory it no longer needs (`Ring::trim`).
    pub fn trim(&mut self) {
        self.ring.trim();
    }

    /// The key of the first packet, `u128::MAX` if none.
    #[inline(always)]
    pub fn front_key(&self) -> u128 {
        self.ring.front().map_or(u128::MAX, |e| e.0)
    }

    /// Removes the first packet.
    #[inline(always)]
    pub fn pop(&mut self) -> Packet {
        self.ring.pop_front().expect("merged arrival without packet").1
    }

    /// The packet at the front (for prefetching).
    #[inline(always)]
    pub fn front(&self) -> Option<&Packet> {
        self.ring.front().map(|e| &e.1)
    }

    /// The packets in arrival order.
    pub fn packets(&self) -> impl Iterator<Item = Packet> + '_ {
        self.ring.iter().map(|e| e.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    fn pkt(seq: u32) -> Packet {
        Packet { seq, ..Packet::new(PacketKind::Data, 0, 1000) }
    }

    fn key(t: u64, feeder: u64) -> u128 {
        ((t as u128) << 64) | feeder as u128
    }

    #[test]
    fn packets_leave_in_key_order_and_a_long_walk_back_is_refused() {
        let mut m = Merge::default();
        assert_eq!(m.front_key(), u128::MAX);
        // Sent in sequence order 1..: arrivals 50, 30, 30, 70, 10.
        assert!(m.push(key(50, 1), &pkt(1)));
        assert!(m.push(key(30, 2), &pkt(2))); // before 50
        assert!(m.push(key(30, 3), &pkt(3))); // the same time, from feeder 3: after feeder 2's
        assert!(m.push(key(70, 4), &pkt(4)));
        assert!(m.push(key(30, 2), &pkt(7))); // feeder 2 again at 30: after its first (FIFO)
        assert_eq!(m.front_key(), key(30, 2));
        assert_eq!(m.packets().map(|p| p.seq).collect::<Vec<_>>(), [2, 7, 3, 1, 4]);
        assert_eq!(m.pop().seq, 2);
        assert_eq!(m.pop().seq, 7);
        assert!(m.push(key(30, 2), &pkt(2)));
        assert_eq!(m.packets().map(|p| p.seq).collect::<Vec<_>>(), [2, 3, 1, 4]);
        // 10 would go before all four: a walk of 4, allowed; then MAX_WALK + 1 later
        // packets make the walk too long.
        assert!(m.push(key(10, 5), &pkt(5)));
        assert_eq!(m.pop().seq, 5);
        for s in 0..MAX_WALK as u64 {
            assert!(m.push(key(100 + s, 6 + s), &pkt(6 + s as u32)));
        }
        // Behind 30, 30 and 50: MAX_WALK + 1 packets arrive later (70 and the run).
        assert!(!m.push(key(60, 99), &pkt(99)));
        assert!(m.push(key(75, 99), &pkt(99)), "a walk of exactly MAX_WALK is allowed");
        assert_eq!(m.len(), 4 + MAX_WALK + 1);
        let order: Vec<u32> = std::iter::from_fn(|| (!m.is_empty()).then(|| m.pop().seq)).collect();
        assert_eq!(order[..5], [2, 3, 1, 4, 99]);
        assert_eq!(order.len(), 4 + MAX_WALK + 1);
    }
}
