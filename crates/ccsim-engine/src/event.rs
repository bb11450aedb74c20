//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! Ties are broken by the sequence number assigned at schedule time, so events at the
//! same instant run in the order they were scheduled (ns-3 `EventKey`, smoltcp netsim).
//! Both fields are packed into one `u128` key so a comparison is a single integer
//! compare. Cancellation is lazy: timers carry a generation number that the owner checks
//! when the event fires (see `transport::window`), so nothing is ever removed from the
//! middle of the heap. Links keep at most two pending events each (transmitter and
//! propagation pipe), so the heap holds O(links + flows) entries, never O(packets).

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens when an event fires. Ids index the simulation's arenas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The channel finished serialising a packet and may start the next one.
    TxDone(u32),
    /// The packet at the head of the channel's propagation pipe reaches the far end.
    PipeHead(u32),
    /// A flow's timer (retransmission timeout) with its generation.
    FlowTimer(u32, u32),
    /// A flow's pacing timer (rate-based policies) with its generation.
    PaceTimer(u32, u32),
    /// A flow's receiver timer (delayed ack) with its generation.
    RecvTimer(u32, u32),
    /// A window flow starts sending.
    FlowStart(u32),
    /// An unresponsive source emits its next packet.
    SourceTick(u32),
    /// Take a measurement snapshot (phase or interval boundary) with this index.
    Snapshot(u32),
    /// Apply scheduled network change number i.
    Change(u32),
    /// The periodic timer of element k on channel c: (c, k).
    ElementTimer(u32, u32),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest key on top.
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// Min-queue of events keyed by (time, sequence).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    now: SimTime,
    popped: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(n), ..Self::default() }
    }

    /// The time of the event most recently popped.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Number of events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at `at`. Scheduling in the past is a logic error.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at:?} < {:?}", self.now);
        let key = ((at.as_ps() as u128) << 64) | self.seq as u128;
        self.seq += 1;
        self.heap.push(Entry { key, event });
    }

    /// Pops the earliest event if it is not later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        let top = self.heap.peek()?;
        let t = SimTime((top.key >> 64) as u64);
        if t > until {
            return None;
        }
        let e = self.heap.pop().expect("peeked");
        self.now = t;
        self.popped += 1;
        Some((t, e.event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| SimTime((e.key >> 64) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order_and_fifo_on_ties() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), Event::TxDone(0));
        q.schedule(SimTime(10), Event::TxDone(1));
        q.schedule(SimTime(10), Event::TxDone(2));
        q.schedule(SimTime(20), Event::TxDone(3));
        q.schedule(SimTime(10), Event::TxDone(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime::MAX)).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(10), Event::TxDone(1)),
                (SimTime(10), Event::TxDone(2)),
                (SimTime(10), Event::TxDone(4)),
                (SimTime(20), Event::TxDone(3)),
                (SimTime(30), Event::TxDone(0)),
            ]
        );
        assert_eq!(q.events_processed(), 5);
    }

    #[test]
    fn matches_a_sort_by_time_then_insertion_order() {
        // Interleaved pushes and pops with many equal times; the popped sequence must be
        // what sorting the pushed events by (time, push index) and merging gives.
        let mut q = EventQueue::new();
        let mut x: u64 = 12345;
        let mut pending: Vec<(u64, u32)> = Vec::new(); // (time, push index)
        let mut next_id = 0u32;
        let mut now = 0u64;
        for round in 0..2000 {
            for _ in 0..(round % 7) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let t = now + x % 5; // few distinct times: many ties
                q.schedule(SimTime(t), Event::TxDone(next_id));
                pending.push((t, next_id));
                next_id += 1;
            }
            for _ in 0..(round % 5) {
                let Some((t, Event::TxDone(id))) = q.pop_until(SimTime::MAX) else { break };
                let i = (0..pending.len()).min_by_key(|&i| pending[i]).unwrap();
                assert_eq!((t.as_ps(), id), pending.remove(i));
                now = t.as_ps();
            }
        }
    }

    #[test]
    fn pop_until_stops_at_horizon() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), Event::Snapshot(0));
        q.schedule(SimTime(50), Event::Snapshot(1));
        assert_eq!(q.pop_until(SimTime(10)), Some((SimTime(5), Event::Snapshot(0))));
        assert_eq!(q.pop_until(SimTime(10)), None);
        assert_eq!(q.now(), SimTime(5));
        assert_eq!(q.len(), 1);
    }
}
