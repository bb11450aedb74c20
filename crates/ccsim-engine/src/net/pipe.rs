//! Propagation pipes: one FIFO of (arrival time, packet) per channel, all kept in one
//! shared pool of nodes linked by index.
//!
//! Why a pool: a per-channel ring keeps the capacity of its longest burst for the rest of
//! the run. With 10^5 flows, slow start grows each access pipe to 16-32 packets once, and
//! the rings then held about 170 MB for the 250,000 packets (10 MB) actually in flight.
//! Pooled, the pipes' memory follows the packets in flight (a node is freed when its
//! packet arrives, and reused by the next packet sent anywhere), and a channel keeps only
//! 16 bytes for its pipe.
//!
//! Each node stores the arrival time of the node after it, written when that one is
//! linked in, so popping the head gives the next arrival time without touching a second
//! node (at scale, every node touched is a cache miss).

use crate::base::time::SimTime;
use crate::packet::Packet;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    pkt: Packet,
    /// Arrival time of `next` (valid when `next != NIL`).
    next_at: SimTime,
    next: u32,
}

/// The shared node pool. Its free list is LIFO, so a node freed by one arrival is the
/// next one used (warm in the cache).
#[derive(Debug)]
pub struct PipePool {
    nodes: Vec<Node>,
    free: u32,
}

impl Default for PipePool {
    fn default() -> Self {
        Self::new()
    }
}

impl PipePool {
    pub fn new() -> Self {
        PipePool { nodes: Vec::new(), free: NIL }
    }

    /// Asks the processor to load node `n` into the cache (a hint: nothing is read).
    #[inline(always)]
    pub fn prefetch(&self, n: u32) {
        if let Some(node) = self.nodes.get(n as usize) {
            crate::base::prefetch::line(node);
        }
    }

    /// The packet node `n` holds (for prefetching: any node, in use or free).
    #[inline(always)]
    pub fn packet(&self, n: u32) -> Option<&Packet> {
        self.nodes.get(n as usize).map(|node| &node.pkt)
    }

    /// Nodes ever allocated: the most packets that were in flight at once.
    pub fn capacity(&self) -> usize {
        self.nodes.len()
    }

    /// A new node (the free list is empty).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, pkt: Packet) -> u32 {
        assert!(self.nodes.len() < NIL as usize, "more than 2^32 - 1 packets in flight");
        self.nodes.push(Node { pkt, next_at: SimTime::ZERO, next: NIL });
        (self.nodes.len() - 1) as u32
    }
}

/// One channel's pipe: head and tail node, the arrival time of the head and of the tail,
/// and the length. 32 bytes.
#[derive(Clone, Copy, Debug)]
pub struct Pipe {
    head: u32,
    tail: u32,
    len: u32,
    head_at: SimTime,
    tail_at: SimTime,
}

impl Default for Pipe {
    fn default() -> Self {
        Pipe { head: NIL, tail: NIL, len: 0, head_at: SimTime::ZERO, tail_at: SimTime::ZERO }
    }
}

impl Pipe {
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Node of the first packet (meaningless when the pipe is empty).
    #[inline(always)]
    pub fn head_node(&self) -> u32 {
        self.head
    }

    /// Arrival time of the first packet (meaningless when the pipe is empty).
    #[inline(always)]
    pub fn head_at(&self) -> SimTime {
        self.head_at
    }

    /// The earliest time a new packet may arrive at: the last packet's arrival, or once
    /// the pipe is empty, the last arrival it had (which lies in the past): no branch.
    #[inline(always)]
    pub fn not_before(&self) -> SimTime {
        self.tail_at
    }

    /// Records a packet that arrives at `at` without entering the pipe (handed to the
    /// next channel at send time): later packets still arrive no earlier.
    #[inline(always)]
    pub fn set_not_before(&mut self, at: SimTime) {
        debug_assert!(at >= self.tail_at, "pipe out of order");
        self.tail_at = at;
    }

    /// Appends a packet arriving at `at` (not earlier than the last one).
    #[inline(always)]
    pub fn push_back(&mut self, pool: &mut PipePool, at: SimTime, pkt: &Packet) {
        debug_assert!(self.len == 0 || at >= self.tail_at, "pipe out of order");
        // A node's `next` and `next_at` are read only while a later node exists, and
        // written when it is linked in: a new node needs only its packet.
        let n = if pool.free != NIL {
            let n = pool.free;
            let node = &mut pool.nodes[n as usize];
            pool.free = node.next;
            node.pkt = *pkt;
            n
        } else {
            pool.grow(*pkt)
        };
        if self.len == 0 {
            self.head = n;
            self.head_at = at;
        } else {
            let t = &mut pool.nodes[self.tail as usize];
            t.next = n;
            t.next_at = at;
        }
        self.tail = n;
        self.tail_at = at;
        self.len += 1;
    }

    /// Removes the first packet: (its arrival time, the packet). The pipe must not be
    /// empty (a pipe-head event is scheduled only for a packet in the pipe).
    #[inline(always)]
    pub fn pop_front(&mut self, pool: &mut PipePool) -> (SimTime, Packet) {
        assert!(self.len > 0, "pipe event without packet");
        let n = self.head;
        let at = self.head_at;
        let node = &mut pool.nodes[n as usize];
        let pkt = node.pkt;
        self.head = node.next;
        self.head_at = node.next_at;
        node.next = pool.free;
        pool.free = n;
        self.len -= 1;
        (at, pkt)
    }

    /// The packets, first to last, with their arrival times, mutably.
    pub fn for_each_mut(&mut self, pool: &mut PipePool, f: &mut dyn FnMut(SimTime, &mut Packet)) {
        let (mut n, mut at) = (self.head, self.head_at);
        for _ in 0..self.len {
            let node = &mut pool.nodes[n as usize];
            f(at, &mut node.pkt);
            at = node.next_at;
            n = node.next;
        }
    }

    /// The packets, first to last, with their arrival times.
    pub fn for_each(&self, pool: &PipePool, f: &mut dyn FnMut(SimTime, &Packet)) {
        let (mut n, mut at) = (self.head, self.head_at);
        for _ in 0..self.len {
            let node = &pool.nodes[n as usize];
            f(at, &node.pkt);
            at = node.next_at;
            n = node.next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    fn pkt(seq: u32) -> Packet {
        Packet {
            flow: 0,
            seq,
            bits: 8000,
            route: 0,
            hop: 0,
            kind: PacketKind::Data,
            flags: 0,
            meta: 0,
            ts: SimTime::ZERO,
        }
    }

    #[test]
    fn pipes_share_the_pool_and_keep_fifo_order() {
        let mut pool = PipePool::new();
        let (mut a, mut b) = (Pipe::default(), Pipe::default());
        a.push_back(&mut pool, SimTime(10), &pkt(1));
        b.push_back(&mut pool, SimTime(5), &pkt(100));
        a.push_back(&mut pool, SimTime(20), &pkt(2));
        a.push_back(&mut pool, SimTime(20), &pkt(3));
        assert_eq!((a.len(), b.len(), pool.capacity()), (3, 1, 4));
        assert_eq!((a.head_at(), a.not_before()), (SimTime(10), SimTime(20)));
        let mut seen = Vec::new();
        a.for_each(&pool, &mut |t, p| seen.push((t.0, p.seq)));
        assert_eq!(seen, [(10, 1), (20, 2), (20, 3)]);
        a.for_each_mut(&mut pool, &mut |_, p| p.seq += 10);
        let mut seen = Vec::new();
        a.for_each(&pool, &mut |_, p| seen.push(p.seq));
        assert_eq!(seen, [11, 12, 13]);
        a.for_each_mut(&mut pool, &mut |_, p| p.seq -= 10);
        assert_eq!(a.pop_front(&mut pool), (SimTime(10), pkt(1)));
        assert_eq!(a.head_at(), SimTime(20));
        // The node just freed is the next one used (LIFO free list), here by pipe b.
        b.push_back(&mut pool, SimTime(7), &pkt(101));
        assert_eq!(pool.capacity(), 4);
        assert_eq!(b.pop_front(&mut pool), (SimTime(5), pkt(100)));
        assert_eq!(b.pop_front(&mut pool), (SimTime(7), pkt(101)));
        assert!(b.is_empty() && b.not_before() == SimTime(7));
        assert_eq!(a.pop_front(&mut pool).1.seq, 2);
        assert_eq!(a.pop_front(&mut pool).1.seq, 3);
        assert!(a.is_empty() && a.not_before() == SimTime(20));
        assert_eq!(a.len(), 0);
        assert_eq!(pool.capacity(), 4);
        // Refilled after emptying.
        a.push_back(&mut pool, SimTime(30), &pkt(4));
        assert_eq!(a.pop_front(&mut pool), (SimTime(30), pkt(4)));
    }
}
