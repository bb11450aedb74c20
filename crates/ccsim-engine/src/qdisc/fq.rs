//! Fair Queueing after Demers, Keshav and Shenker, "Analysis and Simulation of a Fair
//! Queueing Algorithm" (SIGCOMM 1989), the discipline of Keshav's and Dabbous's papers.
//!
//! - One queue per conversation. The engine gives each route a dense conversation id
//!   (stored with the route, `sim::ConvIds`), chosen by `[scenario].conversations`:
//!   - `flow` (default): a flow's data packets are one conversation and its acks (or
//!     feedback) another; packets of no flow (control packets elements emit) are one
//!     conversation per (sending node, destination host) pair.
//!   - `host_pair`: a conversation is a (source host, destination host) pair, DKS's
//!     "conversation" and the classification of Keshav's and Dabbous's simulations, so
//!     two flows between the same hosts share one queue (and a flow's acks share one
//!     with data flowing the other way between the same hosts).
//! - Round number R(t) of the emulated bit-by-bit round robin: dR/dt = mu / N_ac(t), with
//!   mu the line rate in bits/s and N_ac the number of conversations active in the fluid
//!   system (those whose last finish number exceeds R). R is advanced exactly, crossing
//!   each fluid departure in turn (DKS section 2.2).
//! - A packet of P bits arriving at t on conversation a gets start S = max(F_a, R(t)) and
//!   finish F = S + P; packets are sent in increasing F (ties: earlier arrival first).
//! - Buffer full: the packet dropped is the last one of the conversation with the most
//!   bits queued (which is the arrival itself when its own conversation is longest:
//!   `DropReason::Overflow`; another conversation's tail: `DropReason::PushedOut`).
//! - What a drop does to the victim's numbers (`FqConfig::drop_rule`):
//!   - `DropRule::Dks` (default): nothing. DKS keep F and S unchanged when a packet is
//!     dropped, so a conversation is charged for every packet it sends, dropped or not,
//!     and an ill-behaved source that overruns its share pushes its own later packets
//!     back (DKS section 2.2). The dropped packet's bits stay in the fluid system: the
//!     conversation stays active in R until R passes its last finish number.
//!   - `DropRule::Rollback`: the victim conversation's finish number goes back to the
//!     dropped packet's start, as if it had never been sent (our earlier behaviour).
//! - Every packet passes through the discipline, also one that finds the line idle and
//!   the queue empty: the channel's idle shortcut is off for FQ (`AnyQdisc::idle_bypass`),
//!   so that packet too gets its finish number and advances its conversation's F.
//!
//! Arithmetic is integer: R and finish numbers are in units of 1e-12 bit (bits x
//! `PS_PER_S`), so that one picosecond at mu bits/s advances R by mu / N_ac units.
//!
//! Scale: each channel keeps only the conversations it has seen. A conversation gets a
//! local slot on its first packet (a hash map from the global id to the slot, only looked
//! up, never iterated, so memory is O(conversations seen here), not O(largest id)); the
//! fluid system keeps one live heap entry per active conversation, refreshed lazily, not
//! one per packet (`FairQueueing::fluid`); the backlogged conversations sit in an indexed
//! max-heap keyed by (bits queued, lowest global id), so the victim of a drop is found in
//! O(1) and every change of a backlog costs O(log n).
//! - Both lazy heaps (fluid finishes and queue heads) hold at most 2 x (live entries) +
//!   `COMPACT_SLACK` entries: an entry a drop makes stale is skipped when it comes to the
//!   top, and the heap is rebuilt from its live entries when the stale ones would
//!   outnumber them, so the cost of an event does not grow with the length of a run
//!   (`FairQueueing::sizes`). Rebuilding changes no order: entries are totally ordered by
//!   their keys.
//!
//! Deviations from DKS: no preference parameter delta (their "FQ with delta = 0" is what
//! Keshav simulates); the round number is exact rather than approximated; `rollback`
//! (not the default) is a deviation kept for comparison.

use super::{DropReason, Qdisc, QdiscPolicy, Verdict};
use crate::base::rng::Rng;
use crate::packet::Packet;
use crate::base::time::{SimTime, PS_PER_S};
use crate::base::units::Limit;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// What a drop does to the victim conversation's finish number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropRule {
    /// Demers-Keshav-Shenker: F and S unchanged; the dropped packet is charged.
    #[default]
    Dks,
    /// The conversation's finish number returns to the dropped packet's start.
    Rollback,
}

/// Fair Queueing parameters (`qdisc = { kind = "fq", drop_rule = "dks" }`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqConfig {
    /// What a drop does to the victim's finish number. Default `dks` (DKS section 2.2).
    pub drop_rule: DropRule,
}

#[derive(Debug, Clone)]
struct Queued {
    pkt: Packet,
    /// Enqueue time.
    at: SimTime,
    start: u128,
    finish: u128,
    uid: u64,
}

/// Hashes a conversation id with one multiplication (Fibonacci hashing). `slot_of` is
/// only looked up, never iterated, so its order cannot reach a result.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = (n as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// No position in the backlog heap.
const NOT_BACKLOGGED: u32 = u32::MAX;

/// Stale entries a lazy heap may hold beyond as many as it has live ones before it is
/// rebuilt (so that a handful of conversations does not rebuild on every drop).
pub const COMPACT_SLACK: usize = 32;

/// Sizes of Fair Queueing's internal structures (`FairQueueing::sizes`): the lazy heaps'
/// entries, stale ones included, against their live entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FqSizes {
    /// Entries in the fluid heap.
    pub fluid_heap: usize,
    /// Conversations active in the fluid system: one live fluid entry each.
    pub fluid_live: usize,
    /// Entries in the heap of queue heads.
    pub heads_heap: usize,
    /// Conversations with packets queued: one live head entry each.
    pub heads_live: usize,
    /// Conversations this channel has seen.
    pub conversations: usize,
}

#[derive(Debug, Clone)]
struct Conv {
    /// Global conversation id (ties in `longest` go to the lowest).
    id: u32,
    /// Index in `FairQueueing::backlog`, or `NOT_BACKLOGGED` when nothing is queued.
    heap_pos: u32,
    queue: VecDeque<Queued>,
    /// Finish number of the conversation's last packet (fluid system).
    last_finish: u128,
    /// Whether the conversation is active in the fluid system (last_finish > R).
    fluid_active: bool,
    /// Generation of the conversation's live fluid entry: an entry carrying another
    /// generation (or one of an inactive conversation) is stale.
    fluid_gen: u64,
    /// Finish number of the live fluid entry (at most `last_finish` while active).
    fluid_at: u128,
    /// Bits queued.
    bits: u64,
}

#[derive(Debug, Clone)]
pub struct FairQueueing {
    limit: Limit,
    drop_rule: DropRule,
    rate_bps: u64,
    /// Conversations seen by this channel, by local slot (dense, in order of first packet).
    convs: Vec<Conv>,
    /// Global conversation id -> local slot.
    slot_of: HashMap<u32, u32, BuildHasherDefault<IdHasher>>,
    /// Max-heap of the backlogged conversations' local slots, by (bits, lowest id);
    /// `Conv::heap_pos` indexes it.
    backlog: Vec<u32>,
    /// (finish, uid, slot) of each non-empty conversation's head; stale entries skipped.
    heads: BinaryHeap<Reverse<(u128, u64, u32)>>,
    /// (finish, slot, generation) entries: one live entry per fluid-active conversation,
    /// at `Conv::fluid_at` <= its `last_finish`, pushed when the conversation becomes
    /// active, not on every packet. A live entry that comes to the top below its
    /// conversation's `last_finish` moves up to it; a stale one (an inactive
    /// conversation's, or one a rollback below it replaced) is dropped. So the top, once
    /// checked, is the conversation that leaves the fluid system first. (Entries with
    /// equal finish numbers retire at the same instant, so their order is immaterial.)
    fluid: BinaryHeap<Reverse<(u128, u32, u64)>>,
    /// Round number R at `round_time`, in 1e-12 bit units.
    round: u128,
    round_time: SimTime,
    /// Number of fluid-active conversations.
    active: u64,
    pkts: usize,
    bits: u64,
    next_uid: u64,
}

// Named like the enum variants they stand beside (`DropReason::Overflow`).
#[allow(non_upper_case_globals)]
impl DropReason {
    /// Evicted from a full buffer to make room for another conversation.
    pub const PushedOut: DropReason = DropReason::named("pushed_out");
}

impl QdiscPolicy for FairQueueing {
    type Config = FqConfig;
    const NAME: &'static str = "fq";
    const DESCRIPTION: &'static str =
        "Fair Queueing (Demers, Keshav and Shenker): packets served in order of their conversation's finish number";
    const TITLE: &'static str = "Fair Queueing";
    const DROP_REASONS: &'static [&'static str] = &["pushed_out"];
    fn build(cfg: &FqConfig, limit: Limit, rate_bps: u64, _rng: Rng) -> Self {
        FairQueueing::with_config(*cfg, limit, rate_bps)
    }
    fn limit(&self) -> Limit {
        self.limit
    }
}

impl FairQueueing {
    pub fn new(limit: Limit, rate_bps: u64) -> Self {
        Self::with_config(FqConfig::default(), limit, rate_bps)
    }

    pub fn with_config(cfg: FqConfig, limit: Limit, rate_bps: u64) -> Self {
        FairQueueing {
            limit,
            drop_rule: cfg.drop_rule,
            rate_bps,
            convs: Vec::new(),
            slot_of: HashMap::default(),
            backlog: Vec::new(),
            heads: BinaryHeap::new(),
            fluid: BinaryHeap::new(),
            round: 0,
            round_time: SimTime::ZERO,
            active: 0,
            pkts: 0,
            bits: 0,
            next_uid: 0,
        }
    }

    /// Current round number, in bits (for tests and traces).
    pub fn round_bits(&mut self, now: SimTime) -> f64 {
        self.advance(now);
        self.round as f64 / PS_PER_S as f64
    }

    /// Advances R(t) to `now`, retiring fluid conversations whose finish R passes.
    fn advance(&mut self, now: SimTime) {
        let rate = self.rate_bps as u128;
        while self.active > 0 {
            let Some(&Reverse((f, c, g))) = self.fluid.peek() else { break };
            let conv = &mut self.convs[c as usize];
            if !conv.fluid_active || conv.fluid_gen != g {
                self.fluid.pop(); // stale
                continue;
            }
            debug_assert!(f <= conv.last_finish, "a live fluid entry is at most its conversation's finish");
            if conv.last_finish > f {
                // Sent more since the entry was pushed: its turn comes later.
                let later = conv.last_finish;
                conv.fluid_at = later;
                self.fluid.pop();
                self.fluid.push(Reverse((later, c, g)));
                continue;
            }
            let n = self.active as u128;
            let need_ps = ((f - self.round) * n).div_ceil(rate);
            let have_ps = (now - self.round_time).as_ps() as u128;
            if need_ps <= have_ps {
                self.round = f;
                self.round_time += crate::base::time::SimDuration::from_ps(need_ps as u64);
                self.fluid.pop();
                self.convs[c as usize].fluid_active = false;
                self.active -= 1;
            } else {
                self.round += have_ps * rate / n;
                break;
            }
        }
        self.round_time = now;
    }

    fn over_limit(&self) -> bool {
        match self.limit {
            Limit::Packets(n) => self.pkts as u64 > n,
            Limit::Bytes(b) => self.bits > b.saturating_mul(8),
        }
    }

    /// The conversation (local slot) with the most bits queued; ties go to `prefer`, then
    /// the lowest global id. O(1): the backlog heap's top.
    fn longest(&self, prefer: u32) -> u32 {
        let top = self.backlog[0];
        if self.convs[prefer as usize].bits == self.convs[top as usize].bits {
            prefer
        } else {
            top
        }
    }

    /// Whether backlog entry `a` ranks above `b`: more bits, then lower global id.
    fn above(&self, a: u32, b: u32) -> bool {
        let (ca, cb) = (&self.convs[a as usize], &self.convs[b as usize]);
        ca.bits > cb.bits || (ca.bits == cb.bits && ca.id < cb.id)
    }

    fn heap_set(&mut self, i: usize, slot: u32) {
        self.backlog[i] = slot;
        self.convs[slot as usize].heap_pos = i as u32;
    }

    /// Restores the heap order around position `i` after its conversation's bits changed.
    fn heap_fix(&mut self, mut i: usize) {
        let slot = self.backlog[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.backlog[parent];
            if !self.above(slot, p) {
                break;
            }
            self.heap_set(i, p);
            i = parent;
        }
        let n = self.backlog.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let child = if r < n && self.above(self.backlog[r], self.backlog[l]) { r } else { l };
            let c = self.backlog[child];
            if !self.above(c, slot) {
                break;
            }
            self.heap_set(i, c);
            i = child;
        }
        self.heap_set(i, slot);
    }

    /// Slot `s` gained `bits` queued (its packet was appended).
    fn backlog_grew(&mut self, s: u32, bits: u64) {
        let c = &mut self.convs[s as usize];
        c.bits += bits;
        if c.heap_pos == NOT_BACKLOGGED {
            let i = self.backlog.len();
            self.backlog.push(s);
            self.convs[s as usize].heap_pos = i as u32;
            self.heap_fix(i);
        } else {
            let i = c.heap_pos as usize;
            self.heap_fix(i);
        }
    }

    /// Slot `s` lost `bits` queued (a packet left or was dropped).
    fn backlog_shrank(&mut self, s: u32, bits: u64) {
        let c = &mut self.convs[s as usize];
        c.bits -= bits;
        let i = c.heap_pos as usize;
        if !c.queue.is_empty() {
            self.heap_fix(i);
            return;
        }
        c.heap_pos = NOT_BACKLOGGED;
        let last = self.backlog.pop().expect("a backlogged conversation is in the heap");
        if last != s {
            self.heap_set(i, last);
            self.heap_fix(i);
        }
    }

    /// The local slot of global conversation `conv`, created on its first packet.
    fn slot(&mut self, conv: u32) -> u32 {
        let next = self.convs.len() as u32;
        let s = *self.slot_of.entry(conv).or_insert(next);
        if s == next {
            self.convs.push(Conv {
                id: conv,
                heap_pos: NOT_BACKLOGGED,
                queue: VecDeque::new(),
                last_finish: 0,
                fluid_active: false,
                fluid_gen: 0,
                fluid_at: 0,
                bits: 0,
            });
        }
        s
    }

    /// Enqueue for conversation `conv` (the `Qdisc` impl's body; tests call it directly).
    pub fn enqueue_conv(
        &mut self,
        now: SimTime,
        pkt: Packet,
        conv: u32,
        drops: &mut Vec<(Packet, DropReason)>,
    ) -> Verdict {
        self.advance(now);
        let slot = self.slot(conv);
        let round = self.round;
        let cv = &mut self.convs[slot as usize];
        let start = cv.last_finish.max(round);
        let finish = start + pkt.bits as u128 * PS_PER_S as u128;
        cv.last_finish = finish;
        if !cv.fluid_active {
            cv.fluid_active = true;
            cv.fluid_gen += 1;
            cv.fluid_at = finish;
            self.active += 1;
            self.fluid.push(Reverse((finish, slot, cv.fluid_gen)));
        }
        let uid = self.next_uid;
        self.next_uid += 1;
        cv.queue.push_back(Queued { pkt, at: now, start, finish, uid });
        if cv.queue.len() == 1 {
            self.heads.push(Reverse((finish, uid, slot)));
        }
        self.backlog_grew(slot, pkt.bits as u64);
        self.pkts += 1;
        self.bits += pkt.bits as u64;

        let mut verdict = Verdict::Queued;
        // Whether a drop left a stale entry in a lazy heap.
        let mut stale = false;
        while self.over_limit() {
            let v = self.longest(slot);
            let cv = &mut self.convs[v as usize];
            let q = cv.queue.pop_back().expect("longest conversation has packets");
            // The head of the queue dropped: its entry in `heads` is stale.
            stale |= cv.queue.is_empty();
            if self.drop_rule == DropRule::Rollback {
                cv.last_finish = q.start;
                if cv.last_finish <= self.round {
                    // Out of the fluid system; its entry is now stale.
                    if cv.fluid_active {
                        cv.fluid_active = false;
                        self.active -= 1;
                        stale = true;
                    }
                } else if cv.fluid_at > cv.last_finish {
                    // The live entry is above the new finish: a new one replaces it.
                    // (A conversation with a packet that starts above R is active.)
                    debug_assert!(cv.fluid_active);
                    cv.fluid_gen += 1;
                    cv.fluid_at = cv.last_finish;
                    self.fluid.push(Reverse((cv.last_finish, v, cv.fluid_gen)));
                    stale = true;
                }
            }
            self.backlog_shrank(v, q.pkt.bits as u64);
            self.pkts -= 1;
            self.bits -= q.pkt.bits as u64;
            if q.uid == uid {
                verdict = Verdict::Dropped(DropReason::Overflow);
            } else {
                drops.push((q.pkt, DropReason::PushedOut));
            }
        }
        if stale {
            self.compact();
        }
        verdict
    }

    /// Rebuilds a lazy heap from its live entries once its stale ones outnumber them by
    /// more than `COMPACT_SLACK`. Stale entries arise only from drops, so this runs after
    /// a drop that made one; each rebuild removes more entries than it keeps, so its cost
    /// is amortised over the drops that made them stale.
    fn compact(&mut self) {
        let convs = &self.convs;
        if self.fluid.len() > 2 * self.active as usize + COMPACT_SLACK {
            self.fluid.retain(|&Reverse((_, c, g))| {
                let cv = &convs[c as usize];
                cv.fluid_active && cv.fluid_gen == g
            });
        }
        if self.heads.len() > 2 * self.backlog.len() + COMPACT_SLACK {
            self.heads.retain(|&Reverse((_, uid, c))| convs[c as usize].queue.front().map(|q| q.uid) == Some(uid));
        }
    }

    /// Sizes of the lazy heaps and their live entries (for tests and benchmarks).
    pub fn sizes(&self) -> FqSizes {
        FqSizes {
            fluid_heap: self.fluid.len(),
            fluid_live: self.active as usize,
            heads_heap: self.heads.len(),
            heads_live: self.backlog.len(),
            conversations: self.convs.len(),
        }
    }
}

impl Qdisc for FairQueueing {
    fn enqueue(&mut self, now: SimTime, pkt: Packet, conv: u32, drops: &mut Vec<(Packet, DropReason)>) -> Verdict {
        self.enqueue_conv(now, pkt, conv, drops)
    }

    fn dequeue(&mut self, _now: SimTime, _drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)> {
        while let Some(Reverse((_, uid, c))) = self.heads.pop() {
            let conv = &mut self.convs[c as usize];
            if conv.queue.front().map(|q| q.uid) != Some(uid) {
                continue; // stale: that head was dropped
            }
            let q = conv.queue.pop_front().expect("checked");
            if let Some(next) = conv.queue.front() {
                self.heads.push(Reverse((next.finish, next.uid, c)));
            }
            self.backlog_shrank(c, q.pkt.bits as u64);
            self.pkts -= 1;
            self.bits -= q.pkt.bits as u64;
            return Some((q.pkt, q.at));
        }
        None
    }

    fn len_pkts(&self) -> usize {
        self.pkts
    }
    fn len_bits(&self) -> u64 {
        self.bits
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        for c in &self.convs {
            for q in &c.queue {
                f(&q.pkt)
            }
        }
    }
    /// The line rate changed (scheduled change): advance R under the old rate first.
    fn set_rate(&mut self, now: SimTime, rate_bps: u64) {
        self.advance(now);
        self.rate_bps = rate_bps;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::test_util::pkt;

    const T0: SimTime = SimTime::ZERO;

    fn drain(q: &mut FairQueueing) -> Vec<(u32, u32)> {
        std::iter::from_fn(|| q.dequeue(T0, &mut Vec::new())).map(|(p, _)| (p.flow, p.seq)).collect()
    }

    /// Enqueue with the conversation = the test packet's flow; returns the verdict.
    fn put(q: &mut FairQueueing, t: SimTime, p: Packet, d: &mut Vec<(Packet, DropReason)>) -> Verdict {
        q.enqueue_conv(t, p, p.flow, d)
    }

    #[test]
    fn equal_packets_from_two_backlogged_conversations_alternate() {
        let mut q = FairQueueing::new(Limit::Packets(100), 8000);
        let mut d = Vec::new();
        // Conversation 0 arrives first with three packets, then conversation 1 with three.
        for s in 0..3 {
            put(&mut q, T0, pkt(0, s, 1000), &mut d);
        }
        for s in 0..3 {
            put(&mut q, T0, pkt(1, s, 1000), &mut d);
        }
        // Finish numbers: conv 0: 8000, 16000, 24000 bits; conv 1 the same; ties by arrival.
        assert_eq!(drain(&mut q), vec![(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]);
        assert!(d.is_empty());
    }

    #[test]
    fn small_packets_are_served_in_proportion_to_bits() {
        let mut q = FairQueueing::new(Limit::Packets(100), 8000);
        let mut d = Vec::new();
        // Conv 0: two 1000 B packets (F = 8000, 16000 bits). Conv 1: four 500 B packets
        // (F = 4000, 8000, 12000, 16000). Order by F, ties by arrival (conv 0 first).
        put(&mut q, T0, pkt(0, 0, 1000), &mut d);
        put(&mut q, T0, pkt(0, 1, 1000), &mut d);
        for s in 0..4 {
            put(&mut q, T0, pkt(1, s, 500), &mut d);
        }
        assert_eq!(drain(&mut q), vec![(1, 0), (0, 0), (1, 1), (1, 2), (0, 1), (1, 3)]);
    }

    #[test]
    fn round_number_advances_at_rate_over_active_conversations() {
        // 8000 bps line. Two conversations each get one 1000 B (8000 bit) packet at t=0:
        // both fluid-active, so R grows at 8000/2 = 4000 bits/s; after 1 s R = 4000.
        let mut q = FairQueueing::new(Limit::Packets(100), 8000);
        let mut d = Vec::new();
        put(&mut q, T0, pkt(0, 0, 1000), &mut d);
        put(&mut q, T0, pkt(1, 0, 1000), &mut d);
        assert_eq!(q.round_bits(SimTime::from_secs(1)), 4000.0);
        // At t = 2 s both reach F = 8000 and leave the fluid system; R stays at 8000.
        assert_eq!(q.round_bits(SimTime::from_secs(3)), 8000.0);
    }

    #[test]
    fn newcomer_is_not_penalised_for_idle_time() {
        // Conv 0 keeps the line busy from t=0; conv 1 arrives at t=3 s with one packet.
        // R(3 s) = 3 * 8000 / 1 = 24000 bits (conv 0 alone), so conv 1's packet gets
        // F = 32000 and precedes conv 0's packets whose F exceeds 32000.
        let mut q = FairQueueing::new(Limit::Packets(100), 8000);
        let mut d = Vec::new();
        for s in 0..10 {
            put(&mut q, T0, pkt(0, s, 1000), &mut d); // F = 8000 * (s + 1)
        }
        for _ in 0..3 {
            q.dequeue(T0, &mut d);
        }
        put(&mut q, SimTime::from_secs(3), pkt(1, 0, 1000), &mut d);
        let order = drain(&mut q);
        // conv 0 seq 3 has F = 32000 (tie with conv 1; conv 0 arrived first), then conv 1.
        assert_eq!(&order[..3], &[(0, 3), (1, 0), (0, 4)]);
    }

    #[test]
    fn full_buffer_drops_from_the_conversation_with_most_bytes() {
        let mut q = FairQueueing::new(Limit::Packets(4), 8000);
        let mut d = Vec::new();
        for s in 0..3 {
            put(&mut q, T0, pkt(0, s, 1000), &mut d);
        }
        put(&mut q, T0, pkt(1, 0, 1000), &mut d);
        // Buffer full (4). A packet of conversation 1 arrives: conversation 0 is longest,
        // so conv 0's last packet (seq 2) is dropped and the arrival is kept.
        put(&mut q, T0, pkt(1, 1, 1000), &mut d);
        assert_eq!(d.iter().map(|(p, _)| (p.flow, p.seq)).collect::<Vec<_>>(), vec![(0, 2)]);
        // Now conv 0 and conv 1 hold two each; a conv-1 arrival ties: its own tail goes.
        assert_eq!(put(&mut q, T0, pkt(1, 2, 1000), &mut d), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(d.len(), 1, "the arrival itself is the verdict, not an eviction");
        assert_eq!(d[0].1, DropReason::PushedOut);
        assert_eq!(q.len_pkts(), 4);
        assert_eq!(drain(&mut q), vec![(0, 0), (1, 0), (0, 1), (1, 1)]);
    }

    /// A conversation's last finish number, in bits.
    fn finish_bits(q: &FairQueueing, conv: u32) -> f64 {
        q.convs[q.slot_of[&conv] as usize].last_finish as f64 / PS_PER_S as f64
    }

    fn rollback(limit: Limit) -> FairQueueing {
        FairQueueing::with_config(FqConfig { drop_rule: DropRule::Rollback }, limit, 8000)
    }

    #[test]
    fn dks_rule_charges_dropped_packets_to_their_conversation() {
        // 8000 bps, 1000 B = 8000 bits, all at t = 0 (R = 0), two buffers.
        let mut q = FairQueueing::new(Limit::Packets(2), 8000);
        let mut d = Vec::new();
        put(&mut q, T0, pkt(0, 0, 1000), &mut d); // S = 0, F = 8000
        put(&mut q, T0, pkt(0, 1, 1000), &mut d); // S = 8000, F = 16000
                                                  // Third packet: F = 24000, buffer over, conv 0 longest: the arrival is dropped
                                                  // and F_0 stays 24000 (DKS: F and S unchanged).
        assert_eq!(put(&mut q, T0, pkt(0, 2, 1000), &mut d), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(finish_bits(&q, 0), 24000.0);
        q.dequeue(T0, &mut d); // seq 0 leaves
        put(&mut q, T0, pkt(0, 3, 1000), &mut d); // S = 24000, F = 32000
        assert_eq!(finish_bits(&q, 0), 32000.0);
        // Conv 1 arrives: F = 8000; conv 0 (seq 1, 3) is longest and loses its tail, seq 3;
        // F_0 stays 32000.
        put(&mut q, T0, pkt(1, 0, 1000), &mut d);
        assert_eq!(d.iter().map(|(p, r)| (p.seq, *r)).collect::<Vec<_>>(), vec![(3, DropReason::PushedOut)]);
        assert_eq!(finish_bits(&q, 0), 32000.0);
        assert_eq!(drain(&mut q), vec![(1, 0), (0, 1)]);
        // Conv 0's next packet carries the charge: F = 40000 (rollback: 24000).
        put(&mut q, T0, pkt(0, 4, 1000), &mut d);
        assert_eq!(finish_bits(&q, 0), 40000.0);
        put(&mut q, T0, pkt(1, 1, 1000), &mut d);
        assert_eq!(finish_bits(&q, 1), 16000.0);
        assert_eq!(drain(&mut q), vec![(1, 1), (0, 4)]);
    }

    #[test]
    fn rollback_rule_returns_finish_number_to_the_dropped_packets_start() {
        // The same arrivals as above with `drop_rule = "rollback"`.
        let mut q = rollback(Limit::Packets(2));
        let mut d = Vec::new();
        put(&mut q, T0, pkt(0, 0, 1000), &mut d); // F = 8000
        put(&mut q, T0, pkt(0, 1, 1000), &mut d); // F = 16000
        assert_eq!(put(&mut q, T0, pkt(0, 2, 1000), &mut d), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(finish_bits(&q, 0), 16000.0, "back to the dropped packet's start");
        q.dequeue(T0, &mut d);
        put(&mut q, T0, pkt(0, 3, 1000), &mut d); // S = 16000, F = 24000
        assert_eq!(finish_bits(&q, 0), 24000.0);
        put(&mut q, T0, pkt(1, 0, 1000), &mut d); // pushes seq 3 out: F_0 back to 16000
        assert_eq!(finish_bits(&q, 0), 16000.0);
        assert_eq!(drain(&mut q), vec![(1, 0), (0, 1)]);
        // Conv 0's next packet: F = 24000; conv 1's next F = 16000.
        put(&mut q, T0, pkt(0, 4, 1000), &mut d);
        assert_eq!(finish_bits(&q, 0), 24000.0);
        put(&mut q, T0, pkt(1, 1, 1000), &mut d);
        assert_eq!(drain(&mut q), vec![(1, 1), (0, 4)]);
    }

    #[test]
    fn dks_rule_keeps_the_dropped_bits_in_the_round_number() {
        // One buffer. Conv 0 queues seq 0 (F = 8000); seq 1 (F = 16000) is dropped.
        // DKS: conv 0 stays active in the fluid system until R = 16000, so R grows at
        // 8000 bits/s for 2 s: R(1.5 s) = 12000, and conv 1 arriving then gets
        // F = 12000 + 8000 = 20000. Rollback: F_0 = 8000, conv 0 leaves the fluid system
        // at 1 s, R stays 8000, and conv 1 gets F = 16000.
        for (mut q, round, f1) in [
            (FairQueueing::new(Limit::Packets(1), 8000), 12000.0, 20000.0),
            (rollback(Limit::Packets(1)), 8000.0, 16000.0),
        ] {
            let mut d = Vec::new();
            put(&mut q, T0, pkt(0, 0, 1000), &mut d);
            assert_eq!(put(&mut q, T0, pkt(0, 1, 1000), &mut d), Verdict::Dropped(DropReason::Overflow));
            q.dequeue(T0, &mut d);
            let t = SimTime::from_millis(1500);
            assert_eq!(q.round_bits(t), round);
            put(&mut q, t, pkt(1, 0, 1000), &mut d);
            assert_eq!(finish_bits(&q, 1), f1);
        }
    }

    fn sizes(q: &FairQueueing) -> (usize, usize) {
        let s = q.sizes();
        (s.fluid_heap, s.fluid_live)
    }

    #[test]
    fn rollback_below_the_live_fluid_entry_leaves_a_stale_entry_that_is_skipped() {
        // 8000 bps line, 1000 B = 8000 bits, buffer of 3 packets, rollback.
        let mut q = rollback(Limit::Packets(3));
        let mut d = Vec::new();
        // t = 0: conv 0 queues F = 8000, 16000, 24000; one fluid entry, at 8000.
        for s in 0..3 {
            put(&mut q, T0, pkt(0, s, 1000), &mut d);
        }
        assert_eq!(sizes(&q), (1, 1));
        // t = 1 s: R = 8000 (one active conversation, 8000 bits/s); the entry comes to the
        // top below conv 0's finish (24000) and moves up to it.
        assert_eq!(q.round_bits(SimTime::from_secs(1)), 8000.0);
        assert_eq!(sizes(&q), (1, 1));
        // Conv 1 arrives: S = R = 8000, F = 16000. Buffer over: conv 0 (24000 bits queued)
        // loses its tail (S = 16000), so F_0 = 16000, below its entry at 24000: a new
        // entry at 16000 replaces it and the one at 24000 is stale. Three entries, two live.
        put(&mut q, SimTime::from_secs(1), pkt(1, 0, 1000), &mut d);
        assert_eq!(d.iter().map(|(p, r)| (p.flow, p.seq, *r)).collect::<Vec<_>>(), vec![(0, 2, DropReason::PushedOut)]);
        assert_eq!(finish_bits(&q, 0), 16000.0);
        assert_eq!(sizes(&q), (3, 2));
        // Two active: R grows at 4000 bits/s, 14000 at 2.5 s; both leave at 16000 (3 s).
        assert_eq!(q.round_bits(SimTime::from_millis(2500)), 14000.0);
        assert_eq!(q.round_bits(SimTime::from_secs(5)), 16000.0);
        assert_eq!(sizes(&q), (1, 0), "the stale entry at 24000 waits: nothing is active");
        // The line serves the three queued packets (the fluid system is not involved):
        // F = 8000, then 16000 twice, the earlier arrival first.
        assert_eq!(drain(&mut q), vec![(0, 0), (0, 1), (1, 0)]);
        // t = 5 s: conv 0 sends 2000 B: S = 16000, F = 32000, a live entry at 32000. The
        // stale one (24000) comes first and is dropped, not moved up to 32000: at 5.5 s
        // R = 16000 + 0.5 s x 8000 = 20000 with one entry left.
        put(&mut q, SimTime::from_secs(5), pkt(0, 3, 2000), &mut d);
        assert_eq!(sizes(&q), (2, 1));
        assert_eq!(q.round_bits(SimTime::from_millis(5500)), 20000.0);
        assert_eq!(sizes(&q), (1, 1));
        // Conv 0 leaves the fluid system at R = 32000 (7 s); the heap is empty.
        assert_eq!(q.round_bits(SimTime::from_secs(8)), 32000.0);
        assert_eq!(sizes(&q), (0, 0));
    }

    #[test]
    fn stale_entries_are_compacted_once_they_outnumber_the_live_ones() {
        // One buffer. Conv 0 holds it (F = 8000, fluid-active). At t = 0 conv 1 sends,
        // again and again: its packet ties with conv 0's (8000 bits each), the tie goes to
        // the arrival's own conversation, so the arrival is dropped; rollback takes F_1
        // back to S = R = 0 and conv 1 leaves the fluid system. Each arrival leaves one
        // stale fluid entry and one stale head entry behind, next to conv 0's live ones.
        let mut q = rollback(Limit::Packets(1));
        let mut d = Vec::new();
        put(&mut q, T0, pkt(0, 0, 1000), &mut d);
        for k in 1..=COMPACT_SLACK + 2 {
            let v = put(&mut q, T0, pkt(1, k as u32, 1000), &mut d);
            assert_eq!(v, Verdict::Dropped(DropReason::Overflow));
            let s = q.sizes();
            assert_eq!((s.fluid_live, s.heads_live), (1, 1));
            // Rebuilt when the heap would exceed 2 x 1 live + COMPACT_SLACK = 34 entries.
            let expect = if k <= COMPACT_SLACK + 1 { 1 + k } else { 1 };
            assert_eq!((s.fluid_heap, s.heads_heap), (expect, expect), "after {k} drops");
        }
        // The survivor is conv 0's: its packet is served, and R reaches its finish.
        assert_eq!(drain(&mut q), vec![(0, 0)]);
        assert_eq!(q.round_bits(SimTime::from_secs(2)), 8000.0);
        assert_eq!(q.sizes(), FqSizes { fluid_heap: 0, fluid_live: 0, heads_heap: 0, heads_live: 0, conversations: 2 });
    }

    #[test]
    fn dropped_tail_rolls_back_finish_number() {
        let mut q = rollback(Limit::Packets(2));
        let mut d = Vec::new();
        put(&mut q, T0, pkt(0, 0, 1000), &mut d); // F = 8000
        put(&mut q, T0, pkt(0, 1, 1000), &mut d); // F = 16000
                                                  // Dropped (own conv longest), F back to 16000.
        assert_eq!(put(&mut q, T0, pkt(0, 2, 1000), &mut d), Verdict::Dropped(DropReason::Overflow));
        q.dequeue(T0, &mut d);
        put(&mut q, T0, pkt(0, 3, 1000), &mut d); // F = 24000, not 32000
        put(&mut q, T0, pkt(1, 0, 1000), &mut d); // full: conv 0 longest -> seq 3 pushed out
        assert_eq!(d.iter().map(|(p, r)| (p.seq, *r)).collect::<Vec<_>>(), vec![(3, DropReason::PushedOut)]);
        // conv 1's packet F = 8000 precedes conv 0's seq 1 (F = 16000).
        assert_eq!(drain(&mut q), vec![(1, 0), (0, 1)]);
    }
}

#[cfg(test)]
mod scale_tests {
    use super::*;
    use crate::qdisc::test_util::pkt;

    #[test]
    fn conversations_are_dense_per_channel() {
        // Two conversations with large global ids: two slots, not a table of 4 million.
        let mut q = FairQueueing::new(Limit::Packets(10), 8000);
        let mut d = Vec::new();
        q.enqueue_conv(SimTime::ZERO, pkt(0, 0, 100), 4_000_000, &mut d);
        q.enqueue_conv(SimTime::ZERO, pkt(1, 0, 100), 3_999_999, &mut d);
        q.enqueue_conv(SimTime::ZERO, pkt(0, 1, 100), 4_000_000, &mut d);
        assert_eq!(q.convs.len(), 2);
        assert_eq!(q.slot_of.get(&4_000_000), Some(&0));
        assert_eq!(q.slot_of.get(&3_999_999), Some(&1));
    }

    #[test]
    fn push_out_tie_goes_to_the_lowest_global_id_not_the_first_seen() {
        // Buffer of 4. Conversation 9 arrives first with two packets, then conversation 5
        // with two: both hold 2000 bits. A packet of conversation 7 arrives: the buffer is
        // over, the longest are 5 and 9 (tie), and the lower id, 5, loses its tail.
        let mut q = FairQueueing::new(Limit::Packets(4), 8000);
        let mut d = Vec::new();
        for (conv, flow) in [(9, 0), (9, 0), (5, 1), (5, 1)] {
            q.enqueue_conv(SimTime::ZERO, pkt(flow, 0, 250), conv, &mut d);
        }
        assert_eq!(q.enqueue_conv(SimTime::ZERO, pkt(2, 0, 250), 7, &mut d), Verdict::Queued);
        assert_eq!(d.iter().map(|(p, r)| (p.flow, *r)).collect::<Vec<_>>(), vec![(1, DropReason::PushedOut)]);
    }

    /// The heap's victim equals the definition (most bits; ties to the arrival's own
    /// conversation, then the lowest id) checked by a scan, over a long pseudo-random mix
    /// of arrivals of different sizes, departures and drops.
    #[test]
    fn longest_matches_a_scan_under_random_traffic() {
        let mut q = FairQueueing::new(Limit::Packets(40), 1_000_000);
        let mut d = Vec::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut t = 0u64;
        for _ in 0..20_000 {
            t += rnd(1000);
            let now = SimTime::from_ps(t * 1000);
            if rnd(3) == 0 {
                q.dequeue(now, &mut d);
                continue;
            }
            let conv = rnd(60) as u32 * 7;
            let size = [40, 500, 1000][rnd(3) as usize];
            q.advance(now);
            q.slot(conv);
            // Expected victim if this arrival overflows, from the definition.
            let mut bits: Vec<(u32, u64)> = q.slot_of.iter().map(|(&id, &s)| (id, q.convs[s as usize].bits)).collect();
            bits.sort(); // by id: ties in the longest go to the lowest
            for e in bits.iter_mut().filter(|e| e.0 == conv) {
                e.1 += size as u64 * 8;
            }
            let own = bits.iter().find(|e| e.0 == conv).unwrap().1;
            let max = bits.iter().map(|e| e.1).max().unwrap();
            let expect = if own == max { conv } else { bits.iter().find(|e| e.1 == max).unwrap().0 };
            let before = q.pkts;
            d.clear();
            let v = q.enqueue_conv(now, pkt(conv, 0, size), conv, &mut d);
            if before + 1 > 40 {
                let victim = match v {
                    Verdict::Dropped(_) => conv,
                    _ => d[0].0.flow,
                };
                assert_eq!(victim, expect);
            }
            for (i, &s) in q.backlog.iter().enumerate() {
                assert_eq!(q.convs[s as usize].heap_pos as usize, i);
                assert!(!q.convs[s as usize].queue.is_empty());
            }
        }
    }
}
