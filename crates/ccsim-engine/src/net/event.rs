//! The event queue: a calendar queue ordered by (time, rank, sequence).
//!
//! **Simultaneous events** follow one rule, whatever code path scheduled them
//! (docs/architecture.md, "Simultaneous events"). Events at the same picosecond run by
//! their rank (`Event::rank`): first by class,
//!
//! 1. departures (`TxDone`: a transmitter frees up and starts its next packet),
//! 2. measurement snapshots (`Snapshot`: they see every departure of their instant and
//!    no arrival of it),
//! 3. scheduled network changes (`Change`),
//! 4. element timers (`ElementTimer`),
//! 5. arrivals (a packet reaching the far end of a channel: `PipeHead`, merged
//!    arrivals, `Parked` acks),
//! 6. endpoint events (flow start, retransmission, pacing and receiver timers, source
//!    ticks),
//!
//! then by the id of what they concern: the channel (for an arrival, the channel the
//! packet crossed), the snapshot or change number, or the flow (then the timer's kind).
//! Only events with equal time, class and id fall back on the order they were scheduled
//! in (a sequence number): packets of one channel arriving at the same instant leave it
//! in FIFO order, and they are scheduled in that order on every path. So a fast path
//! (timed FIFOs, cut-through, merged arrivals, acks taken at send time) that schedules
//! an event earlier or later than the plain path, or not at all, cannot change the
//! order, and neither can an observer that turns a fast path off.
//!
//! The (time, rank) pair is one `u128` key, so most comparisons are a single integer
//! compare; the sequence number is kept beside it. Cancellation is lazy: timers carry a
//! generation number that the owner checks when the event fires (see
//! `transport::timer`), so nothing is ever removed from the middle of the queue. Links
//! keep at most two pending events each (transmitter and propagation pipe), so the
//! queue holds O(links + flows) entries, never O(packets).
//!
//! Some events live outside the queue: a channel's merged arrivals (`net/merge.rs`) carry
//! the key an arrival event would have (`arrival_key`), one channel's pending `TxDone`
//! waits in a slot of `Net` with its key (`Net::schedule_departure`), and the run loop
//! pops from the queue only what comes before the first of them (`pop_before`),
//! counting the others as it takes them (`pass_to`), so the order is still that of one
//! queue.
//!
//! The structure is a calendar queue with an overflow heap (see `EventQueue`): push and
//! pop cost O(1) for the events near the present (propagation, transmission) and
//! O(log n) only for those beyond the wheel's horizon (mostly retransmission timers).

use crate::base::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens when an event fires. Ids index the simulation's arenas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The channel finished serialising a packet and may start the next one.
    TxDone(u32),
    /// The packet at the head of the channel's propagation pipe reaches the far end:
    /// (channel, the pipe node that holds it, for prefetching ahead of the event).
    PipeHead(u32, u32),
    /// The first packet of a channel's merged arrivals (`merge::Merge`) reaches it: the
    /// index of the `Merge` in `Net::merges`, or `net::DEPARTURE`: the departure kept
    /// in `Net`'s slot (`Net::schedule_departure`), which runs as its `TxDone`. Never in
    /// the queue: the simulation's run loop takes it when the `Merge`'s (or the slot's)
    /// first key comes before the queue's (`EventQueue::pop_before`).
    Merged(u32),
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
    /// An ack a window sender could not take at send time (a timer of its comes first)
    /// reaches it: (the index of its parking slot, `Simulation::send_early`; the
    /// channel it crossed last, which ranks it among arrivals).
    Parked(u32, u32),
}

/// Classes of simultaneous events, in the order they run (the module's documentation).
pub mod class {
    pub const DEPARTURE: u64 = 0;
    pub const SNAPSHOT: u64 = 1;
    pub const CHANGE: u64 = 2;
    pub const ELEMENT: u64 = 3;
    pub const ARRIVAL: u64 = 4;
    pub const ENDPOINT: u64 = 5;
}

/// Bits of a rank below the class.
const CLASS_SHIFT: u32 = 61;

impl Event {
    /// Where the event runs among events at the same instant: its class (bits 61-63)
    /// then the id of what it concerns (the module's documentation). Never depends on
    /// when or by which path the event was scheduled.
    #[inline(always)]
    pub fn rank(self) -> u64 {
        let (class, id) = match self {
            Event::TxDone(c) => (class::DEPARTURE, c as u64),
            Event::Snapshot(k) => (class::SNAPSHOT, k as u64),
            Event::Change(i) => (class::CHANGE, i as u64),
            Event::ElementTimer(c, k) => (class::ELEMENT, (c as u64) << 32 | k as u64),
            Event::PipeHead(c, _) | Event::Parked(_, c) => (class::ARRIVAL, c as u64),
            // (Not in the queue: its key is its packet's, `arrival_key`.)
            Event::Merged(_) => (class::ARRIVAL, u32::MAX as u64),
            // Per flow: the start, then the sender's timers, the receiver's, a source's tick.
            Event::FlowStart(f) => (class::ENDPOINT, (f as u64) << 3),
            Event::FlowTimer(f, _) => (class::ENDPOINT, (f as u64) << 3 | 1),
            Event::PaceTimer(f, _) => (class::ENDPOINT, (f as u64) << 3 | 2),
            Event::RecvTimer(f, _) => (class::ENDPOINT, (f as u64) << 3 | 3),
            Event::SourceTick(f) => (class::ENDPOINT, (f as u64) << 3 | 4),
        };
        class << CLASS_SHIFT | id
    }
}

/// Overflow entry: an event beyond the wheel's horizon, in a binary min-heap. Its key
/// is not stored: the time and the event's rank (`Event::rank`) give it, and the rank
/// is computed only when two times are equal. 32 bytes, not the 48 a `u128` key
/// (16-byte aligned) beside the sequence and the event would take: at a million flows
/// the heap holds about 1.7 million timers.
#[derive(Clone, Copy, Debug)]
struct Entry {
    at: u64,
    seq: u64,
    event: Event,
}

impl Entry {
    #[inline]
    fn new(key: u128, seq: u64, event: Event) -> Entry {
        debug_assert_eq!(key as u64, event.rank(), "a key is its time and its event's rank");
        Entry { at: (key >> 64) as u64, seq, event }
    }

    /// The event's key (`EventQueue::key_of`).
    #[inline]
    fn key(&self) -> u128 {
        EventQueue::key_of(SimTime(self.at), self.event.rank())
    }
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // By (time, rank, sequence), which is the order of (key, sequence); reversed:
    // BinaryHeap is a max-heap and we want the earliest key on top.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.at.cmp(&self.at).then_with(|| o.event.rank().cmp(&self.event.rank())).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// A wheel entry: a node of its bucket's list, kept sorted by key.
#[derive(Clone, Copy, Debug)]
struct Node {
    key: u128,
    seq: u64,
    event: Event,
    next: u32,
}

const NIL: u32 = u32::MAX;
/// Buckets on the wheel (a power of two).
const WHEEL_BITS: u32 = 14;
const WHEEL: u64 = 1 << WHEEL_BITS;
const WORDS: usize = (WHEEL / 64) as usize;
/// Pops between two checks of the bucket width.
const ADAPT_EVERY: u64 = 4096;
/// Bucket widths allowed: 2^MIN_SHIFT ps (1 ns) to 2^MAX_SHIFT ps (about 1.1 s).
const MIN_SHIFT: u32 = 10;
const MAX_SHIFT: u32 = 40;
/// The width the wheel starts with: 2^20 ps, about 1 us.
const START_SHIFT: u32 = 20;

/// Min-queue of events keyed by (time, rank, sequence).
///
/// A calendar queue (Brown, CACM 1988) with an overflow heap, in the manner of a ladder
/// queue: a wheel of 2^14 buckets, each 2^`shift` ps wide, covers the times from the
/// current bucket `cur` up to `cur + 2^14` buckets; an event in that horizon goes into its
/// bucket's list (kept sorted by key: almost always an append), later ones into a binary
/// heap, moved onto the wheel as the horizon passes them. A two-level bitmap finds the
/// next non-empty bucket. Every `ADAPT_EVERY` pops the width is set from the mean gap
/// between popped events (deterministically: it depends on event times only), and the
/// queue rebuilt when it is off by a factor of four or more. The order is exactly that
/// of a heap on (time, rank, sequence): swapping the structure changes no result.
#[derive(Debug)]
pub struct EventQueue {
    nodes: Vec<Node>,
    free: u32,
    /// Per bucket: (first node, last node), NIL when empty.
    /// (Fixed-size arrays: an index masked to the wheel needs no bounds check.)
    buckets: Box<[(u32, u32); WHEEL as usize]>,
    /// A bit per non-empty bucket, and a bit per non-zero word of `bits`.
    bits: Box<[u64; WORDS]>,
    summary: [u64; WORDS / 64],
    /// Events on the wheel.
    on_wheel: usize,
    overflow: BinaryHeap<Entry>,
    /// Bucket width: 2^shift ps.
    shift: u32,
    /// Absolute number (time >> shift) of the current bucket.
    cur: u64,
    seq: u64,
    now: SimTime,
    popped: u64,
    /// Events taken from outside the queue (`pass_to`).
    passed: u64,
    /// The smallest key in the queue, if known (0: not known). Found when a pop stops at
    /// the bound of `pop_before` after a search for the next bucket, kept by every
    /// schedule, forgotten at every pop: while events outside the queue come first, the
    /// search is not repeated.
    known_min: u128,
    /// Time of the pop that began the current adaptation window.
    window_start: SimTime,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            nodes: Vec::with_capacity(n),
            free: NIL,
            buckets: vec![(NIL, NIL); WHEEL as usize].into_boxed_slice().try_into().expect("WHEEL buckets"),
            bits: Box::new([0; WORDS]),
            summary: [0; WORDS / 64],
            on_wheel: 0,
            overflow: BinaryHeap::new(),
            shift: START_SHIFT,
            cur: 0,
            seq: 0,
            now: SimTime::ZERO,
            popped: 0,
            passed: 0,
            known_min: 0,
            window_start: SimTime::ZERO,
        }
    }

    /// The time of the event most recently popped.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Number of events popped so far (with those taken from outside, `pass_to`).
    pub fn events_processed(&self) -> u64 {
        self.popped + self.passed
    }

    /// The key of an event at `at` with rank `rank` (`Event::rank`).
    #[inline(always)]
    pub fn key_of(at: SimTime, rank: u64) -> u128 {
        ((at.as_ps() as u128) << 64) | rank as u128
    }

    /// The key of a packet arriving at `at` at the far end of channel `c`: what an
    /// arrival event would have. Merged arrivals (`merge::Merge`), kept outside the
    /// queue, are ordered by it.
    #[inline(always)]
    pub fn arrival_key(at: SimTime, c: u32) -> u128 {
        Self::key_of(at, Event::PipeHead(c, 0).rank())
    }

    /// The time of `key`.
    #[inline(always)]
    pub fn key_time(key: u128) -> SimTime {
        SimTime((key >> 64) as u64)
    }

    /// Records an event taken from outside the queue at `t` (its key came before every
    /// key in the queue, `pop_before`): the clock moves to `t` and it is counted.
    #[inline(always)]
    pub fn pass_to(&mut self, t: SimTime) {
        debug_assert!(t >= self.now, "event taken in the past: {t:?} < {:?}", self.now);
        self.now = t;
        self.passed += 1;
    }

    pub fn len(&self) -> usize {
        self.on_wheel + self.overflow.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedules `event` at `at`. Scheduling in the past is a logic error.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at:?} < {:?}", self.now);
        let key = Self::key_of(at, event.rank());
        let seq = self.seq;
        self.seq += 1;
        self.known_min = self.known_min.min(key);
        self.insert::<true>(key, seq, event);
    }

    /// Puts an event onto the wheel or into the overflow. `NEWEST`: its sequence number
    /// is the largest given so far (`schedule`), so it comes after every event of an
    /// equal key and the comparisons look at the keys alone (`before_new`).
    #[inline(always)]
    fn insert<const NEWEST: bool>(&mut self, key: u128, seq: u64, event: Event) {
        let b = ((key >> 64) as u64) >> self.shift;
        if b.wrapping_sub(self.cur) >= WHEEL {
            self.overflow.push(Entry::new(key, seq, event));
            return;
        }
        let n = self.alloc(Node { key, seq, event, next: NIL });
        let i = (b & (WHEEL - 1)) as usize;
        let (head, tail) = self.buckets[i];
        self.on_wheel += 1;
        if tail == NIL {
            self.buckets[i] = (n, n);
            self.bits[i >> 6] |= 1 << (i & 63);
            self.summary[i >> 12] |= 1 << ((i >> 6) & 63);
        } else if Self::before_as::<NEWEST>(&self.nodes[tail as usize], key, seq) {
            self.nodes[tail as usize].next = n;
            self.buckets[i].1 = n;
        } else {
            self.insert_sorted::<NEWEST>(i, head, n, key, seq);
        }
    }

    /// `before`, or for the newest event (`insert`'s `NEWEST`) `node.key <= key`: every
    /// node's sequence number is smaller than its.
    #[inline(always)]
    fn before_as<const NEWEST: bool>(node: &Node, key: u128, seq: u64) -> bool {
        if NEWEST {
            debug_assert!(node.seq < seq, "the newest event has the largest sequence number");
            node.key <= key
        } else {
            Self::before(node, key, seq)
        }
    }

    /// Whether `node` comes before an event with `key` and `seq`.
    #[inline(always)]
    fn before(node: &Node, key: u128, seq: u64) -> bool {
        node.key < key || (node.key == key && node.seq < seq)
    }

    /// Inserts node `n` into bucket `i` before the first node that comes after it (an
    /// event earlier than the bucket's last one: rare).
    #[cold]
    #[inline(never)]
    fn insert_sorted<const NEWEST: bool>(&mut self, i: usize, head: u32, n: u32, key: u128, seq: u64) {
        if !Self::before_as::<NEWEST>(&self.nodes[head as usize], key, seq) {
            self.nodes[n as usize].next = head;
            self.buckets[i].0 = n;
            return;
        }
        let mut p = head;
        loop {
            let next = self.nodes[p as usize].next;
            // The tail comes after the new node, so such a node exists before NIL.
            if !Self::before_as::<NEWEST>(&self.nodes[next as usize], key, seq) {
                self.nodes[n as usize].next = next;
                self.nodes[p as usize].next = n;
                return;
            }
            p = next;
        }
    }

    #[inline(always)]
    fn alloc(&mut self, node: Node) -> u32 {
        if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    /// Index of the first non-empty bucket at or after index `from` (no wrap-around).
    #[inline]
    fn next_set(&self, from: usize) -> Option<usize> {
        let w = from >> 6;
        let m = self.bits[w] & (!0u64 << (from & 63));
        if m != 0 {
            return Some((w << 6) | m.trailing_zeros() as usize);
        }
        let w = w + 1;
        let mut s = w >> 6;
        if s >= self.summary.len() {
            return None;
        }
        let mut sm = if w & 63 == 0 { self.summary[s] } else { self.summary[s] & (!0u64 << (w & 63)) };
        loop {
            if sm != 0 {
                let word = (s << 6) | sm.trailing_zeros() as usize;
                return Some((word << 6) | self.bits[word].trailing_zeros() as usize);
            }
            s += 1;
            if s >= self.summary.len() {
                return None;
            }
            sm = self.summary[s];
        }
    }

    /// Absolute number of the first non-empty bucket after the current one, on the wheel
    /// (all of which lie before every overflow event) or else in the overflow.
    fn next_bucket(&self) -> Option<u64> {
        if self.on_wheel > 0 {
            let i = (self.cur & (WHEEL - 1)) as usize;
            let j = self.next_set(i).or_else(|| self.next_set(0)).expect("events on the wheel");
            let d = (j as u64).wrapping_sub(i as u64) & (WHEEL - 1);
            return Some(self.cur + d);
        }
        self.overflow.peek().map(|e| e.at >> self.shift)
    }

    /// Moves the current bucket to `b` and brings overflow events within the new horizon
    /// onto the wheel (in key order, so each is an append).
    fn advance(&mut self, b: u64) {
        self.cur = b;
        while let Some(e) = self.overflow.peek() {
            let eb = e.at >> self.shift;
            if eb.wrapping_sub(self.cur) >= WHEEL {
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            self.insert::<false>(e.key(), e.seq, e.event);
        }
    }

    /// Pops the earliest event if it is not later than `until`.
    #[inline(always)]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        self.pop_before(until, u128::MAX)
    }

    /// Pops the earliest event if it is not later than `until` and its key is below
    /// `bound` (the first key of events kept outside the queue; `u128::MAX`: none).
    #[inline(always)]
    pub fn pop_before(&mut self, until: SimTime, bound: u128) -> Option<(SimTime, Event)> {
        if self.known_min >= bound {
            return None;
        }
        let i = (self.cur & (WHEEL - 1)) as usize;
        let head = self.buckets[i].0;
        if head == NIL {
            return self.pop_next_bucket(until, bound);
        }
        self.take(i, head, until, bound)
    }

    /// The current bucket is empty: moves to the next non-empty one (if its first event
    /// is not later than `until` and its key below `bound`) and pops from it.
    #[inline(never)]
    fn pop_next_bucket(&mut self, until: SimTime, bound: u128) -> Option<(SimTime, Event)> {
        let b = self.next_bucket()?;
        let first = if self.on_wheel == 0 {
            self.overflow.peek().expect("next bucket").key()
        } else {
            self.nodes[self.buckets[(b & (WHEEL - 1)) as usize].0 as usize].key
        };
        // Look before moving, so that `cur` never passes `until` (nor the bound's time:
        // events taken from outside move the clock, and later ones are scheduled from
        // there).
        if Self::key_time(first) > until || first >= bound {
            self.known_min = first;
            return None;
        }
        self.advance(b);
        let i = (self.cur & (WHEEL - 1)) as usize;
        self.take(i, self.buckets[i].0, until, bound)
    }

    /// Pops the first event of bucket `i` (its first node is `head`).
    #[inline(always)]
    fn take(&mut self, i: usize, head: u32, until: SimTime, bound: u128) -> Option<(SimTime, Event)> {
        let node = &self.nodes[head as usize];
        let t = Self::key_time(node.key);
        if t > until || node.key >= bound {
            return None;
        }
        let (next, event) = (node.next, node.event);
        self.known_min = 0;
        self.buckets[i].0 = next;
        if next == NIL {
            self.buckets[i].1 = NIL;
            self.bits[i >> 6] &= !(1 << (i & 63));
            if self.bits[i >> 6] == 0 {
                self.summary[i >> 12] &= !(1 << ((i >> 6) & 63));
            }
        }
        self.nodes[head as usize].next = self.free;
        self.free = head;
        self.on_wheel -= 1;
        self.now = t;
        self.popped += 1;
        if self.popped % ADAPT_EVERY == 0 {
            self.adapt();
        }
        Some((t, event))
    }

    /// Sets the bucket width from the mean gap between the last `ADAPT_EVERY` pops
    /// (rounded down to a power of two), rebuilding when it is off by 4x or more.
    #[cold]
    #[inline(never)]
    fn adapt(&mut self) {
        let gap = (self.now - self.window_start).as_ps() / ADAPT_EVERY;
        self.window_start = self.now;
        let want = (66 - gap.max(1).leading_zeros()).clamp(MIN_SHIFT, MAX_SHIFT);
        if want.abs_diff(self.shift) >= 2 {
            self.rebuild(want);
        }
    }

    /// Re-files every pending event with bucket width 2^shift, sorting only the
    /// overflow's events that come onto the wheel. The wheel's events are read in order
    /// (its buckets from the current one on, wrapping, each list sorted by key), so each
    /// goes back as an append or, past a narrower horizon, into the overflow (an append
    /// there too: the overflow is empty until then). The overflow's events are all later
    /// than the wheel's: those a wider horizon covers are sorted and appended after them,
    /// the rest go back into the heap in one O(n) build. The same buckets and lists, and
    /// the same order of the heap's pops, as re-filing every event in sorted order.
    fn rebuild(&mut self, shift: u32) {
        let mut wheel: Vec<Node> = Vec::with_capacity(self.on_wheel);
        let start = (self.cur & (WHEEL - 1)) as usize;
        for b in (start..WHEEL as usize).chain(0..start) {
            let mut n = self.buckets[b].0;
            while n != NIL {
                let node = self.nodes[n as usize];
                wheel.push(node);
                n = node.next;
            }
        }
        debug_assert_eq!(wheel.len(), self.on_wheel, "every bucket read once");
        let overflow = std::mem::take(&mut self.overflow).into_vec();
        self.nodes.clear();
        self.free = NIL;
        self.buckets.fill((NIL, NIL));
        self.bits.fill(0);
        self.summary = [0; WORDS / 64];
        self.on_wheel = 0;
        self.shift = shift;
        self.cur = self.now.as_ps() >> shift;
        for node in wheel {
            self.insert::<false>(node.key, node.seq, node.event);
        }
        let (mut near, far): (Vec<Entry>, Vec<Entry>) =
            overflow.into_iter().partition(|e| (e.at >> shift).wrapping_sub(self.cur) < WHEEL);
        // Ascending (`Entry`'s order is reversed for the max-heap).
        near.sort_unstable_by(|a, b| b.cmp(a));
        for e in near {
            self.insert::<false>(e.key(), e.seq, e.event);
        }
        self.overflow.append(&mut BinaryHeap::from(far));
    }

    /// Time of the earliest pending event.
    /// The event that `pop_until` would return next if it is on the wheel (for
    /// prefetching; `None` if the wheel is empty).
    #[inline(always)]
    pub fn peek_event(&self) -> Option<Event> {
        self.first_on_wheel().map(|n| self.nodes[n as usize].event)
    }

    /// The next event if it is in the current bucket (no search: a hint's cheap look).
    #[inline(always)]
    pub fn peek_near(&self) -> Option<Event> {
        let head = self.buckets[(self.cur & (WHEEL - 1)) as usize].0;
        self.nodes.get(head as usize).map(|n| n.event)
    }

    /// The next two events on the wheel, in the order `pop_until` would return them (for
    /// prefetching two events ahead; events in the overflow are not looked at, and the
    /// second is `None` where only the overflow holds it).
    #[inline]
    pub fn peek_two(&self) -> (Option<Event>, Option<Event>) {
        let Some(n) = self.first_on_wheel() else { return (None, None) };
        let node = &self.nodes[n as usize];
        if let Some(second) = self.nodes.get(node.next as usize) {
            return (Some(node.event), Some(second.event));
        }
        // The first event's bucket holds nothing else: the next non-empty bucket after
        // it in the wheel's circular order (the buckets from `cur` to it are empty).
        let i = ((((node.key >> 64) as u64) >> self.shift) & (WHEEL - 1)) as usize;
        let after = if i + 1 < WHEEL as usize { self.next_set(i + 1) } else { None };
        let j = after.or_else(|| self.next_set(0)).filter(|&j| j != i);
        let second = j.and_then(|j| self.nodes.get(self.buckets[j].0 as usize)).map(|s| s.event);
        (Some(node.event), second)
    }

    /// The node of the earliest event on the wheel: the current bucket's first, or the
    /// next non-empty bucket's.
    #[inline(always)]
    fn first_on_wheel(&self) -> Option<u32> {
        let head = self.buckets[(self.cur & (WHEEL - 1)) as usize].0;
        if head != NIL {
            return Some(head);
        }
        if self.on_wheel == 0 {
            return None;
        }
        let b = self.next_bucket()?;
        Some(self.buckets[(b & (WHEEL - 1)) as usize].0)
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        let key = match self.first_on_wheel() {
            Some(n) => self.nodes[n as usize].key,
            None => self.overflow.peek()?.key(),
        };
        Some(SimTime((key >> 64) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overflow_entry_takes_32_bytes() {
        // 8 (time) + 8 (sequence) + 12 (the event: a tag and two u32) = 28, padded to
        // the 8-byte alignment: 32.
        assert_eq!(std::mem::size_of::<Entry>(), 32);
    }

    #[test]
    fn pop_before_stops_at_the_bound_of_events_kept_outside() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(100), Event::PipeHead(5, 0)); // an arrival over channel 5
        q.schedule(SimTime(100), Event::TxDone(1)); // a departure: before every arrival
                                                    // An arrival over channel 3 kept outside: after the departure, before channel 5's.
        let outside = EventQueue::arrival_key(SimTime(100), 3);
        q.schedule(SimTime(1 << 40), Event::TxDone(3)); // another bucket, far on
        assert_eq!(EventQueue::key_time(outside), SimTime(100));
        assert_eq!(q.pop_before(SimTime::MAX, outside), Some((SimTime(100), Event::TxDone(1))));
        assert_eq!(q.pop_before(SimTime::MAX, outside), None);
        // Taken from outside: the clock and the count move, the queue does not.
        q.pass_to(SimTime(100));
        assert_eq!((q.now(), q.events_processed(), q.len()), (SimTime(100), 2, 2));
        assert_eq!(q.pop_before(SimTime::MAX, u128::MAX), Some((SimTime(100), Event::PipeHead(5, 0))));
        // The next event lies in a later bucket: the search finds it, stops at the bound
        // and remembers the smallest key; a schedule before it is still seen first.
        let far = EventQueue::arrival_key(SimTime(1 << 39), 0);
        assert_eq!(q.pop_before(SimTime::MAX, far), None);
        assert_eq!(q.pop_before(SimTime::MAX, far), None);
        q.schedule(SimTime(200), Event::TxDone(4));
        assert_eq!(q.pop_before(SimTime::MAX, far), Some((SimTime(200), Event::TxDone(4))));
        q.pass_to(SimTime(1 << 39));
        // `until` still applies with a bound.
        assert_eq!(q.pop_before(SimTime((1 << 40) - 1), u128::MAX), None);
        assert_eq!(q.pop_until(SimTime::MAX), Some((SimTime(1 << 40), Event::TxDone(3))));
        assert_eq!(q.events_processed(), 6);
    }

    /// The documented order of simultaneous events: by class, then id, then FIFO; the
    /// order in which they were scheduled decides only the last.
    #[test]
    fn simultaneous_events_run_by_class_then_id_then_fifo() {
        let t = SimTime(7_000);
        let in_order = [
            Event::TxDone(0),
            Event::TxDone(9),
            Event::Snapshot(0),
            Event::Change(2),
            Event::ElementTimer(1, 0),
            Event::ElementTimer(1, 1),
            Event::PipeHead(0, 44),
            Event::Parked(3, 1),
            Event::PipeHead(2, 0),
            Event::FlowStart(0),
            Event::FlowTimer(0, 1),
            Event::PaceTimer(0, 1),
            Event::RecvTimer(0, 1),
            Event::SourceTick(0),
            Event::FlowTimer(1, 8),
        ];
        // Scheduled in reverse, and again in a shuffled order: the same pops.
        for perm in
            [(0..in_order.len()).rev().collect::<Vec<_>>(), vec![7, 2, 12, 0, 9, 14, 4, 1, 11, 5, 13, 3, 8, 6, 10]]
        {
            let mut q = EventQueue::new();
            for &i in &perm {
                q.schedule(t, in_order[i]);
            }
            let popped: Vec<Event> = std::iter::from_fn(|| q.pop_until(SimTime::MAX).map(|x| x.1)).collect();
            assert_eq!(popped, in_order);
        }
        // Equal time, class and id (two acks parked from one channel): FIFO, also when
        // the first waited in the overflow and the second went straight onto the wheel.
        let mut q = EventQueue::new();
        let far = SimTime(1 << 45);
        q.schedule(far, Event::Parked(10, 4));
        q.schedule(SimTime(1 << 44), Event::TxDone(0));
        assert_eq!(q.pop_until(SimTime::MAX), Some((SimTime(1 << 44), Event::TxDone(0))));
        q.schedule(far, Event::Parked(11, 4));
        q.schedule(far, Event::Parked(12, 4));
        assert_eq!(q.pop_until(SimTime::MAX), Some((far, Event::Parked(10, 4))));
        assert_eq!(q.pop_until(SimTime::MAX), Some((far, Event::Parked(11, 4))));
        assert_eq!(q.pop_until(SimTime::MAX), Some((far, Event::Parked(12, 4))));
    }

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
    fn peek_two_sees_the_next_two_on_the_wheel() {
        // Buckets are 2^20 ps wide at the start (`START_SHIFT`).
        let b = |k: u64| SimTime(k << START_SHIFT);
        let mut q = EventQueue::new();
        assert_eq!(q.peek_two(), (None, None));
        q.schedule(SimTime(10), Event::TxDone(2));
        q.schedule(SimTime(5), Event::TxDone(1)); // the same bucket, sorted in first
        assert_eq!(q.peek_two(), (Some(Event::TxDone(1)), Some(Event::TxDone(2))));
        q.schedule(b(3), Event::TxDone(3));
        q.pop_until(SimTime::MAX);
        // The first is alone in its bucket: the second is the next bucket's first.
        assert_eq!(q.peek_two(), (Some(Event::TxDone(2)), Some(Event::TxDone(3))));
        q.pop_until(SimTime::MAX);
        // An event beyond the wheel's horizon (in the overflow) is not looked at.
        q.schedule(b(1 << 20), Event::TxDone(9));
        assert_eq!(q.peek_two(), (Some(Event::TxDone(3)), None));
        q.pop_until(SimTime::MAX); // now in bucket 3
                                   // Across the end of the wheel's array: bucket WHEEL - 1 (the last index), then
                                   // bucket WHEEL + 1 (index 1, still within the horizon from bucket 3).
        q.schedule(b(WHEEL + 1), Event::TxDone(5));
        q.schedule(b(WHEEL - 1), Event::TxDone(4));
        assert_eq!(q.peek_two(), (Some(Event::TxDone(4)), Some(Event::TxDone(5))));
        assert_eq!(q.pop_until(SimTime::MAX), Some((b(WHEEL - 1), Event::TxDone(4))));
        assert_eq!(q.peek_two(), (Some(Event::TxDone(5)), None));
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

    /// Interleaved pushes and pops against a reference sort, with times spread over many
    /// scales (ties, the same bucket, across the wheel, far beyond its horizon) so that
    /// appends, sorted inserts, overflow moves and width changes all happen.
    #[test]
    fn matches_a_sort_across_scales_and_rebuilds() {
        let mut q = EventQueue::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut pending = std::collections::BTreeSet::new(); // (time, push index)
        let mut next_id = 0u32;
        let mut now = 0u64;
        let mut popped = 0u64;
        let shifts_seen = std::cell::RefCell::new(std::collections::BTreeSet::new());
        for round in 0..60_000u64 {
            // The typical spread changes every 10,000 rounds (width adaptation).
            let scale = [1_000u64, 10_000_000, 1_000, 100_000_000_000, 50, 1_000_000][(round / 10_000) as usize];
            for _ in 0..(rnd() % 3) {
                let r = rnd();
                let d = match r % 8 {
                    0 => 0,                            // a tie with now
                    1 => r % 4,                        // near ties
                    2 => (r >> 8) % (scale * 100_000), // far: the overflow
                    _ => (r >> 8) % scale,
                };
                let t = now + d;
                q.schedule(SimTime(t), Event::TxDone(next_id));
                pending.insert((t, next_id));
                next_id += 1;
            }
            for _ in 0..(rnd() % 3) {
                let Some((t, Event::TxDone(id))) = q.pop_until(SimTime::MAX) else {
                    assert!(pending.is_empty());
                    break;
                };
                let want = pending.pop_first().unwrap();
                assert_eq!((t.as_ps(), id), want, "pop {popped}");
                assert_eq!(q.peek_time().map(|t| t.as_ps()), pending.first().map(|p| p.0));
                now = t.as_ps();
                popped += 1;
                shifts_seen.borrow_mut().insert(q.shift);
            }
            assert_eq!(q.len(), pending.len());
        }
        while let Some((t, Event::TxDone(id))) = q.pop_until(SimTime::MAX) {
            assert_eq!((t.as_ps(), id), pending.pop_first().unwrap());
        }
        assert!(pending.is_empty() && q.is_empty());
        assert!(shifts_seen.borrow().len() >= 3, "the width should have adapted: {:?}", shifts_seen.borrow());
    }

    /// What a rebuild must leave: each event in its bucket's list (or, past the horizon,
    /// in the overflow), each list in (key, sequence) order, the bitmaps true.
    fn check_layout(q: &EventQueue) {
        let mut on_wheel = 0;
        for (i, &(head, tail)) in q.buckets.iter().enumerate() {
            assert_eq!(q.bits[i >> 6] >> (i & 63) & 1 == 1, head != NIL, "bucket {i}'s bit");
            let mut n = head;
            let mut last = NIL;
            while n != NIL {
                let node = q.nodes[n as usize];
                let b = ((node.key >> 64) as u64) >> q.shift;
                assert!(b.wrapping_sub(q.cur) < WHEEL && (b & (WHEEL - 1)) as usize == i, "node in bucket {i}");
                if last != NIL {
                    assert!(EventQueue::before(&q.nodes[last as usize], node.key, node.seq), "bucket {i} in order");
                }
                on_wheel += 1;
                last = n;
                n = node.next;
            }
            assert_eq!(tail, last, "bucket {i}'s tail");
        }
        assert_eq!(on_wheel, q.on_wheel);
        for e in q.overflow.iter() {
            assert!((e.at >> q.shift).wrapping_sub(q.cur) >= WHEEL, "an overflow event within the horizon");
        }
    }

    /// A rebuild to a narrower and then a wider width, with the current bucket in the
    /// middle of the wheel (so that its events wrap around the array's end), keeps the
    /// layout and pops in (time, push order).
    #[test]
    fn rebuilds_keep_the_layout_and_the_order() {
        let mut q = EventQueue::new();
        let w = 1u64 << START_SHIFT;
        // Move the current bucket to index 10,000 of 16,384.
        q.schedule(SimTime(10_000 * w), Event::Snapshot(0));
        assert_eq!(q.pop_until(SimTime::MAX), Some((SimTime(10_000 * w), Event::Snapshot(0))));
        let mut want = Vec::new();
        for i in 0..3000u64 {
            // Spread over the wheel (wrapping past index 16,383) and beyond its horizon,
            // out of order; i and i + 1500 tie (popped in push order).
            let t = 10_000 * w + (i * 7919 % 1500) * w * 18 + (i % 3);
            q.schedule(SimTime(t), Event::TxDone(i as u32));
            want.push((t, i as u32));
        }
        check_layout(&q);
        assert!(!q.overflow.is_empty() && q.on_wheel > 0);
        q.rebuild(START_SHIFT - 3);
        check_layout(&q);
        q.rebuild(START_SHIFT + 5);
        check_layout(&q);
        assert!(q.overflow.is_empty(), "a 32 times wider wheel holds them all");
        want.sort();
        for (t, id) in want {
            assert_eq!(q.pop_until(SimTime::MAX), Some((SimTime(t), Event::TxDone(id))));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn pop_until_does_not_move_past_the_horizon() {
        // An event far beyond the wheel, a horizon before it, then an earlier event.
        let mut q = EventQueue::new();
        q.schedule(SimTime(1 << 50), Event::Snapshot(0));
        assert_eq!(q.pop_until(SimTime(1000)), None);
        q.schedule(SimTime(500), Event::Snapshot(1));
        assert_eq!(q.pop_until(SimTime(1000)), Some((SimTime(500), Event::Snapshot(1))));
        assert_eq!(q.pop_until(SimTime::MAX), Some((SimTime(1 << 50), Event::Snapshot(0))));
    }
}
