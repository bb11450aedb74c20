//! FQ-CoDel, the FlowQueue-CoDel packet scheduler and AQM: T. Hoeiland-Joergensen,
//! P. McKenney, D. Taht, J. Gettys and E. Dumazet, RFC 8290 (2018), sections 4 and 5,
//! with the choices the RFC leaves open taken from Linux (`net/sched/sch_fq_codel.c`).
//!
//! - Classification (RFC 8290 section 4.1.1): a packet goes to one of `flows` queues
//!   (default 1024) by a hash of its flow with a perturbation, so unrelated flows may
//!   collide. ccsim's conversation id (`conv`, `[scenario].conversations`; by default one
//!   per flow's data and another for its acks) stands for the 5-tuple: the bucket is
//!   `reciprocal_scale(h, flows)` = (h x flows) >> 32 (Linux's) of a 32-bit hash h, the
//!   high half of a SplitMix64 finaliser of (conv xor perturbation). The perturbation is
//!   drawn once from the discipline's own `Rng` (Linux seeds its flow hash randomly once),
//!   or fixed with `perturbation` (ns-3's `Perturbation` attribute, default 0 there).
//! - Scheduling (section 4.2): deficit round robin over two lists. A queue that receives
//!   a packet while on neither list joins the tail of new_flows with a deficit of
//!   `quantum` (default 1514 B). Dequeue serves the head of new_flows, else of
//!   old_flows: a queue with a non-positive deficit gets `quantum` more and moves to the
//!   tail of old_flows; a queue whose CoDel yields no packet leaves its list, except that
//!   an empty new queue moves to the tail of old_flows when old_flows is not empty
//!   (Linux's condition; the RFC moves it there always); otherwise the packet is sent and
//!   its size taken from the deficit. Deficits count bits (so 10-bit control packets are
//!   charged exactly); with whole-byte packets this is Linux's byte arithmetic.
//! - AQM (section 4.3): each queue runs CoDel (`codel::CodelVars`, the same state
//!   machine and control law as `qdisc = "codel"`) with shared parameters; the backlog
//!   CoDel compares with the MTU is the whole discipline's (Linux passes
//!   `sch->qstats.backlog`). CoDel drops are `DropReason::FqCodel`.
//! - Overload (section 4.1): the arrival is queued first; if then more packets are
//!   queued than the link's `buffer` allows (Linux's `limit`, 10240 packets there and in
//!   ns-3: set `buffer = "10240pkt"` to match), or more bytes than `memory_limit`, the
//!   queue with the largest backlog in bytes (lowest index among equals, Linux's linear
//!   scan) loses packets from its head: up to `drop_batch_size` (64) packets, stopping
//!   once at least half of its backlog is gone (Linux's `fq_codel_drop`; the RFC drops
//!   one), and its CoDel count grows by the number dropped (Linux). These drops are
//!   `DropReason::FqCodelOverlimit`; the arrival itself is one of them only if its whole
//!   queue was dropped (it is that queue's tail).
//! - ECN on by default (`ecn = true`, Linux's and ns-3's fq_codel), `ce_threshold` off.
//! - `memory_limit` counts packet sizes; Linux counts the kernel's buffer sizes
//!   (`truesize`, 32 MB by default), which have no counterpart here, so it is off by
//!   default.
//!
//! Storage: the packets of all queues live in one arena (a `Vec` of slots linked into
//! per-queue lists, freed slots reused), and the queues with their CoDel state in a
//! `Vec` allocated on the first packet: after the arena has grown to the largest backlog
//! nothing is allocated per packet.
//!
//! Shortcuts with the same results: a packet that reaches an idle line with nothing
//! queued takes `Qdisc::pass_idle` (the list steps of its enqueue and dequeue, without
//! the arena); the bucket of a conversation comes from a direct-mapped cache of 256
//! (conversation, bucket) entries, the hash running only on a miss.

use super::codel::{CodelParams, CodelQueue, CodelSqrt, CodelVars};
use super::{DropReason, IdlePass, Qdisc, QdiscPolicy, Verdict};
use crate::base::rng::Rng;
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::{serde_units, Limit};
use crate::packet::Packet;
use serde::{Deserialize, Serialize};

/// FQ-CoDel parameters (`qdisc = { kind = "fq_codel", quantum = "1514B" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelConfig {
    /// CoDel's target. Default 5 ms (RFC 8290 section 5.2.1, Linux, ns-3).
    #[serde(with = "serde_units::time")]
    pub target: SimDuration,
    /// CoDel's interval. Default 100 ms (RFC 8290 section 5.2.2, Linux, ns-3).
    #[serde(with = "serde_units::time")]
    pub interval: SimDuration,
    /// DRR quantum. Default 1514 B (RFC 8290 section 5.1.1, Linux).
    #[serde(with = "serde_units::bytes")]
    pub quantum: u32,
    /// Number of queues. Default 1024 (RFC 8290 section 5.1.2, Linux, ns-3).
    pub flows: u32,
    /// Most packets dropped from the fattest queue per overload. Default 64 (Linux, ns-3).
    pub drop_batch_size: u32,
    /// Bytes queued beyond which the fattest queue is cut. Default none.
    #[serde(default, with = "serde_units::opt_bytes", skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<u64>,
    /// CoDel's MTU (no drop while at most this is queued). Default 1514 B (Linux).
    #[serde(with = "serde_units::bytes")]
    pub mtu: u32,
    /// Mark ECN-capable packets instead of dropping. Default true (RFC 8290 section 5.1.5, Linux, ns-3).
    pub ecn: bool,
    /// Mark every ECN-capable packet whose sojourn exceeds this (Linux). Default off.
    #[serde(default, with = "serde_units::opt_time", skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<SimDuration>,
    /// CoDel's square root: `exact` (default) or `newton` (Linux, ns-3).
    pub sqrt: CodelSqrt,
    /// Fixed hash perturbation; default none: drawn from the discipline's random stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perturbation: Option<u32>,
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        FqCodelConfig {
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            quantum: 1514,
            flows: 1024,
            drop_batch_size: 64,
            memory_limit: None,
            mtu: 1514,
            ecn: true,
            ce_threshold: None,
            sqrt: CodelSqrt::Exact,
            perturbation: None,
        }
    }
}

impl FqCodelConfig {
    /// The CoDel part, checked and read as `qdisc = "codel"`'s.
    fn codel(&self) -> super::CodelConfig {
        super::CodelConfig {
            target: self.target,
            interval: self.interval,
            mtu: self.mtu,
            ecn: self.ecn,
            ce_threshold: self.ce_threshold,
            sqrt: self.sqrt,
        }
    }

    /// Checks the parameters; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        self.codel().check()?;
        if self.flows == 0 || self.flows > 65536 {
            return Err(("flows", format!("{} queues: give between 1 and 65536, e.g. 1024", self.flows)));
        }
        if self.drop_batch_size == 0 {
            return Err(("drop_batch_size", "0 would drop nothing when full; give at least 1, e.g. 64".into()));
        }
        Ok(())
    }
}

/// No slot, queue or list entry.
const NIL: u32 = u32::MAX;

/// A queued packet in the arena.
#[derive(Debug, Clone, Copy)]
struct Slot {
    pkt: Packet,
    at: SimTime,
    /// Next slot of the same queue (or of the free list).
    next: u32,
}

/// One queue's packets: a list through the arena.
#[derive(Debug, Clone, Copy)]
struct PktList {
    head: u32,
    tail: u32,
    len: u32,
    bits: u64,
}

/// Which scheduling list a queue is on (the index of the list in `FqCodel::lists`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum On {
    New = 0,
    Old = 1,
    None = 2,
}

#[derive(Debug, Clone, Copy)]
struct Flow {
    q: PktList,
    vars: CodelVars,
    /// DRR deficit, bits.
    deficit: i64,
    on: On,
    /// Next queue on the same scheduling list.
    next: u32,
}

/// A scheduling list of queues (indices into `FqCodel::flows`).
#[derive(Debug, Clone, Copy)]
struct FlowList {
    head: u32,
    tail: u32,
}

impl FlowList {
    const EMPTY: FlowList = FlowList { head: NIL, tail: NIL };
}

/// The queues and the scheduling lists, borrowed as slices (one length check per
/// index, no reload of the vectors' fields between the steps of a list operation).
struct Sched<'a> {
    flows: &'a mut [Flow],
    lists: &'a mut [FlowList; 3],
}

impl Sched<'_> {
    /// The list dequeue serves: new_flows if not empty, else old_flows.
    #[inline(always)]
    fn serving(&self) -> On {
        if self.lists[On::New as usize].head != NIL {
            On::New
        } else {
            On::Old
        }
    }

    #[inline(always)]
    fn push_tail(&mut self, on: On, f: u32) {
        debug_assert!(on != On::None, "a queue on no list has no list");
        let flow = &mut self.flows[f as usize];
        flow.on = on;
        flow.next = NIL;
        let l = &mut self.lists[on as usize];
        let tail = l.tail;
        l.tail = f;
        if tail == NIL {
            l.head = f;
        } else {
            self.flows[tail as usize].next = f;
        }
    }

    /// Takes queue `f`, the head of list `on`, off it.
    #[inline(always)]
    fn pop_head(&mut self, on: On, f: u32) {
        let flow = &mut self.flows[f as usize];
        let next = flow.next;
        flow.on = On::None;
        flow.next = NIL;
        let l = &mut self.lists[on as usize];
        debug_assert_eq!(l.head, f);
        l.head = next;
        if next == NIL {
            l.tail = NIL;
        }
    }

    /// Moves queue `f`, the head of list `on`, to the tail of old_flows.
    #[inline(always)]
    fn to_old_tail(&mut self, on: On, f: u32) {
        self.pop_head(on, f);
        self.push_tail(On::Old, f);
    }

    /// `to_old_tail(On::Old, f)`: queue `f`, the head of old_flows, moves to its tail
    /// and stays on it (nothing moves if it is alone there).
    #[inline(always)]
    fn rotate_old(&mut self, f: u32) {
        let next = self.flows[f as usize].next;
        if next == NIL {
            return;
        }
        self.flows[f as usize].next = NIL;
        let l = &mut self.lists[On::Old as usize];
        debug_assert_eq!(l.head, f);
        let tail = l.tail;
        l.head = next;
        l.tail = f;
        self.flows[tail as usize].next = f;
    }
}

/// The arena of packet slots with its free list.
#[derive(Debug, Clone)]
struct Arena {
    slots: Vec<Slot>,
    free: u32,
}

impl Arena {
    #[inline(always)]
    fn push(&mut self, l: &mut PktList, pkt: Packet, at: SimTime) {
        let slot = Slot { pkt, at, next: NIL };
        let i = if self.free != NIL {
            let i = self.free;
            self.free = self.slots[i as usize].next;
            self.slots[i as usize] = slot;
            i
        } else {
            self.grow(slot)
        };
        if l.tail == NIL {
            l.head = i;
        } else {
            self.slots[l.tail as usize].next = i;
        }
        l.tail = i;
        l.len += 1;
        l.bits += pkt.bits as u64;
    }

    /// A new slot holding `slot` (the free list is empty): its index.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, slot: Slot) -> u32 {
        self.slots.push(slot);
        (self.slots.len() - 1) as u32
    }

    fn pop(&mut self, l: &mut PktList) -> Option<(Packet, SimTime)> {
        self.unlink(l).map(|s| (s.pkt, s.at))
    }

    /// Takes the head slot off list `l` onto the free list and returns it: its packet
    /// and time stay in it until the slot is reused.
    #[inline(always)]
    fn unlink(&mut self, l: &mut PktList) -> Option<&Slot> {
        let i = l.head;
        if i == NIL {
            return None;
        }
        let free = self.free;
        let s = &mut self.slots[i as usize];
        l.head = s.next;
        if l.head == NIL {
            l.tail = NIL;
        }
        l.len -= 1;
        l.bits -= s.pkt.bits as u64;
        s.next = free;
        self.free = i;
        Some(s)
    }
}

/// One queue seen by CoDel: pops update the discipline's totals.
struct FlowQueue<'a> {
    arena: &'a mut Arena,
    q: &'a mut PktList,
    pkts: &'a mut usize,
    bits: &'a mut u64,
}

impl CodelQueue for FlowQueue<'_> {
    #[inline]
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let r = self.arena.pop(self.q)?;
        *self.pkts -= 1;
        *self.bits -= r.0.bits as u64;
        Some(r)
    }
    #[inline]
    fn backlog_bits(&self) -> u64 {
        *self.bits
    }
}

#[derive(Debug, Clone)]
pub struct FqCodel {
    limit: Limit,
    params: CodelParams,
    quantum_bits: i64,
    n_flows: u32,
    drop_batch: u32,
    /// The buffer in packets (`u64::MAX` for a buffer in bytes).
    limit_pkts: u64,
    /// The buffer in bits, or `memory_limit` if smaller (`u64::MAX` for neither).
    limit_bits: u64,
    perturbation: u64,
    /// The queues (empty until the first packet).
    flows: Vec<Flow>,
    arena: Arena,
    /// new_flows, old_flows, and a list no queue is on (so that `On` indexes it).
    lists: [FlowList; 3],
    pkts: usize,
    bits: u64,
    /// The last dequeue marked the packet it returned.
    marked: bool,
    /// Classifications seen last: entry `c % CONV_CACHE` holds (c, `bucket(c)`) for the
    /// last conversation c of that residue (at first c = the entry's index).
    conv_cache: [(u32, u32); CONV_CACHE],
}

/// Entries of `FqCodel::conv_cache`.
const CONV_CACHE: usize = 256;

// Named like the enum variants they stand beside (`DropReason::Overflow`).
#[allow(non_upper_case_globals)]
impl DropReason {
    /// Dropped at dequeue by a queue's CoDel.
    pub const FqCodel: DropReason = DropReason::named("fq_codel");
    /// Dropped from the head of the fattest queue when the buffer (or memory) was full.
    pub const FqCodelOverlimit: DropReason = DropReason::named("fq_codel_overlimit");
}

impl QdiscPolicy for FqCodel {
    type Config = FqCodelConfig;
    const NAME: &'static str = "fq_codel";
    const DESCRIPTION: &'static str =
        "FQ-CoDel (RFC 8290): flows hashed into queues served by deficit round robin with new flows first, CoDel on each queue";
    const TITLE: &'static str = "FQ-CoDel";
    const DROP_REASONS: &'static [&'static str] = &["fq_codel", "fq_codel_overlimit"];
    fn build(cfg: &FqCodelConfig, limit: Limit, _rate_bps: u64, rng: Rng) -> Self {
        FqCodel::new(cfg, limit, rng)
    }
    fn check(cfg: &FqCodelConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    fn limit(&self) -> Limit {
        self.limit
    }
}

/// SplitMix64's finaliser: a 64-bit mix whose high half serves as the flow hash.
#[inline]
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl FqCodel {
    pub fn new(cfg: &FqCodelConfig, limit: Limit, mut rng: Rng) -> Self {
        let perturbation = match cfg.perturbation {
            Some(p) => p as u64,
            None => rng.next_u64(),
        };
        let mut q = FqCodel {
            limit,
            params: cfg.codel().params(),
            quantum_bits: cfg.quantum as i64 * 8,
            n_flows: cfg.flows,
            drop_batch: cfg.drop_batch_size,
            limit_pkts: match limit {
                Limit::Packets(n) => n,
                Limit::Bytes(_) => u64::MAX,
            },
            limit_bits: match limit {
                Limit::Packets(_) => u64::MAX,
                Limit::Bytes(b) => b.saturating_mul(8),
            }
            .min(cfg.memory_limit.map_or(u64::MAX, |b| b.saturating_mul(8))),
            perturbation,
            flows: Vec::new(),
            arena: Arena { slots: Vec::new(), free: NIL },
            lists: [FlowList::EMPTY; 3],
            pkts: 0,
            bits: 0,
            marked: false,
            conv_cache: [(0, 0); CONV_CACHE],
        };
        for c in 0..CONV_CACHE as u32 {
            q.conv_cache[c as usize] = (c, q.bucket(c));
        }
        q
    }

    /// `bucket(conv)`, from the cache when `conv` was the last of its residue.
    #[inline(always)]
    fn classify(&mut self, conv: u32) -> u32 {
        let k = conv as usize % CONV_CACHE;
        let (c, b) = self.conv_cache[k];
        if c == conv {
            return b;
        }
        let b = self.bucket(conv);
        self.conv_cache[k] = (conv, b);
        b
    }

    /// The queue conversation `conv` hashes to.
    #[inline]
    pub fn bucket(&self, conv: u32) -> u32 {
        let h = mix(conv as u64 ^ self.perturbation) >> 32;
        ((h * self.n_flows as u64) >> 32) as u32
    }

    #[inline(always)]
    fn over_limit(&self) -> bool {
        self.over(self.pkts, self.bits)
    }

    /// Whether `pkts` packets of `bits` in all exceed the buffer or the memory limit.
    #[inline(always)]
    fn over(&self, pkts: usize, bits: u64) -> bool {
        pkts as u64 > self.limit_pkts || bits > self.limit_bits
    }

    /// The queues, allocated on the first packet.
    #[inline(always)]
    fn ensure_flows(&mut self) {
        if self.flows.is_empty() {
            self.alloc_flows();
        }
    }

    #[cold]
    #[inline(never)]
    fn alloc_flows(&mut self) {
        let empty = PktList { head: NIL, tail: NIL, len: 0, bits: 0 };
        let flow = Flow { q: empty, vars: CodelVars::default(), deficit: 0, on: On::None, next: NIL };
        self.flows = vec![flow; self.n_flows as usize];
    }

    /// Linux's `fq_codel_drop`: cuts the queue with the largest backlog (the lowest
    /// index among equals) from its head, up to `drop_batch` packets or until half its
    /// backlog is gone. Returns the queue.
    fn drop_from_fattest(&mut self, drops: &mut Vec<(Packet, DropReason)>) -> u32 {
        let mut fat = 0;
        let mut max = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.q.bits > max {
                max = f.q.bits;
                fat = i;
            }
        }
        let threshold = max / 2;
        let f = &mut self.flows[fat];
        let (mut n, mut bits) = (0u32, 0u64);
        while let Some((p, _)) = self.arena.pop(&mut f.q) {
            bits += p.bits as u64;
            n += 1;
            drops.push((p, DropReason::FqCodelOverlimit));
            if n >= self.drop_batch || bits >= threshold {
                break;
            }
        }
        f.vars.count = f.vars.count.wrapping_add(n);
        self.pkts -= n as usize;
        self.bits -= bits;
        fat as u32
    }

    /// The queues on new_flows and on old_flows in order, each with its deficit in bytes
    /// (tests).
    #[cfg(test)]
    fn lists(&self) -> [Vec<(u32, i64)>; 2] {
        [self.lists[0], self.lists[1]].map(|l| {
            let mut out = Vec::new();
            let mut i = l.head;
            while i != NIL {
                out.push((i, self.flows[i as usize].deficit / 8));
                i = self.flows[i as usize].next;
            }
            out
        })
    }

    /// Everything but the arena's slots, which an idle pass leaves as they were (tests).
    #[cfg(test)]
    fn state(&self) -> String {
        format!("{:?}", (&self.flows, self.lists, self.pkts, self.bits, self.marked))
    }

    /// Cuts the fattest queues until the buffer holds what is queued; the verdict for
    /// the arrival `pkt`, queued in queue `idx`.
    #[cold]
    #[inline(never)]
    fn overload(&mut self, idx: u32, pkt: Packet, drops: &mut Vec<(Packet, DropReason)>) -> Verdict {
        let mut verdict = Verdict::Queued;
        while self.over_limit() {
            let before = drops.len();
            let fat = self.drop_from_fattest(drops);
            if fat == idx && self.flows[idx as usize].q.len == 0 && drops.len() > before {
                // The arrival was its queue's tail: it went with the rest.
                let (p, reason) = drops.pop().expect("the batch dropped the arrival last");
                debug_assert_eq!(p, pkt);
                verdict = Verdict::Dropped(reason);
            }
        }
        verdict
    }

    /// CoDel's control law on queue `i` once a drop is due for `first`, the packet taken
    /// out of it (`CodelVars::dequeue_law`).
    #[cold]
    #[inline(never)]
    fn dequeue_law(
        &mut self,
        i: u32,
        now: SimTime,
        drops: &mut Vec<(Packet, DropReason)>,
        first: (Packet, SimTime),
    ) -> Option<(Packet, SimTime)> {
        let f = &mut self.flows[i as usize];
        let mut q = FlowQueue { arena: &mut self.arena, q: &mut f.q, pkts: &mut self.pkts, bits: &mut self.bits };
        f.vars.dequeue_law(&self.params, &mut q, now, drops, DropReason::FqCodel, first, &mut self.marked)
    }

    /// `pass_idle` past its two common cases: the dequeue's walk over the lists (the
    /// queue `idx` the packet hashed to is on old_flows, or behind others on new_flows,
    /// or joins new_flows behind a queue that is not the last one served).
    #[inline(never)]
    fn pass_idle_walk(&mut self, idx: u32, bits: u32) -> IdlePass {
        let quantum = self.quantum_bits;
        let mut sched = Sched { flows: &mut self.flows, lists: &mut self.lists };
        if sched.flows[idx as usize].on == On::None {
            sched.flows[idx as usize].deficit = quantum;
            sched.push_tail(On::New, idx);
        }
        // Nothing joins new_flows during the walk, so the dequeue serves new_flows until
        // it sends from the packet's queue there (or moves that queue, out of deficit, to
        // old_flows), then old_flows.
        if sched.flows[idx as usize].on == On::New {
            loop {
                let i = sched.lists[On::New as usize].head;
                let f = &mut sched.flows[i as usize];
                if f.deficit <= 0 {
                    f.deficit += quantum;
                    sched.to_old_tail(On::New, i);
                    if i == idx {
                        break;
                    }
                    continue;
                }
                f.vars.dropping = false;
                if i == idx {
                    return Self::pass_sent(f, bits);
                }
                sched.pop_head(On::New, i);
                if sched.lists[On::Old as usize].head != NIL {
                    sched.push_tail(On::Old, i);
                }
            }
        }
        // The packet's queue is on old_flows, so old_flows is not empty: every queue on
        // new_flows goes to its tail, with a quantum more if out of deficit.
        loop {
            let i = sched.lists[On::New as usize].head;
            if i == NIL {
                break;
            }
            let f = &mut sched.flows[i as usize];
            if f.deficit <= 0 {
                f.deficit += quantum;
            } else {
                f.vars.dropping = false;
            }
            sched.to_old_tail(On::New, i);
        }
        // The walk over old_flows, its head held until the packet's queue is reached
        // (old_flows never empties: the packet's queue stays on it).
        let mut i = sched.lists[On::Old as usize].head;
        loop {
            let f = &mut sched.flows[i as usize];
            if f.deficit <= 0 {
                f.deficit += quantum;
                sched.lists[On::Old as usize].head = i;
                sched.rotate_old(i);
                i = sched.lists[On::Old as usize].head;
                continue;
            }
            f.vars.dropping = false;
            if i == idx {
                sched.lists[On::Old as usize].head = i;
                return Self::pass_sent(f, bits);
            }
            let next = f.next;
            f.on = On::None;
            f.next = NIL;
            i = next;
        }
    }

    /// The packet's queue `idx`, on no list, joins new_flows alone with `quantum` and
    /// pays for the packet (`pass_idle`'s two-step case).
    #[inline(always)]
    fn pass_to_new_alone(sched: Sched<'_>, idx: u32, quantum: i64, bits: u32) -> IdlePass {
        sched.lists[On::New as usize] = FlowList { head: idx, tail: idx };
        let f = &mut sched.flows[idx as usize];
        f.on = On::New;
        f.next = NIL;
        f.deficit = quantum;
        f.vars.dropping = false;
        Self::pass_sent(f, bits)
    }

    /// The end of an idle pass at the packet's queue `f`, its deficit positive: CoDel sees
    /// a sojourn of 0 with nothing left queued, and the deficit pays for the packet.
    #[inline(always)]
    fn pass_sent(f: &mut Flow, bits: u32) -> IdlePass {
        f.vars.ldelay = SimDuration::ZERO;
        f.vars.first_above_time = None;
        f.deficit -= bits as i64;
        IdlePass::Sent
    }

    /// (packets, bits) queued in queue `i` (tests).
    #[cfg(test)]
    fn backlog(&self, i: u32) -> (u32, u64) {
        let q = &self.flows[i as usize].q;
        (q.len, q.bits)
    }
}

impl Qdisc for FqCodel {
    #[inline(always)]
    fn enqueue(&mut self, now: SimTime, pkt: Packet, conv: u32, drops: &mut Vec<(Packet, DropReason)>) -> Verdict {
        self.ensure_flows();
        let idx = self.classify(conv);
        let mut sched = Sched { flows: &mut self.flows, lists: &mut self.lists };
        let f = &mut sched.flows[idx as usize];
        self.arena.push(&mut f.q, pkt, now);
        if f.on == On::None {
            f.deficit = self.quantum_bits;
            sched.push_tail(On::New, idx);
        }
        self.pkts += 1;
        self.bits += pkt.bits as u64;
        if self.over_limit() {
            return self.overload(idx, pkt, drops);
        }
        Verdict::Queued
    }

    #[inline(always)]
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)> {
        self.marked = false;
        let quantum = self.quantum_bits;
        loop {
            let mut sched = Sched { flows: &mut self.flows, lists: &mut self.lists };
            let on = sched.serving();
            let i = sched.lists[on as usize].head;
            if i == NIL {
                return None;
            }
            let f = &mut sched.flows[i as usize];
            if f.deficit <= 0 {
                f.deficit += quantum;
                sched.to_old_tail(on, i);
                continue;
            }
            // CoDel's dequeue (`CodelVars::dequeue`) on this queue: the head slot is
            // unlinked, its time and size read; the packet is copied out of the slot
            // (which keeps it until reused) only once it is sent.
            let sent = match self.arena.unlink(&mut f.q) {
                None => {
                    f.vars.dropping = false;
                    None
                }
                Some(slot) => {
                    let (at, bits) = (slot.at, slot.pkt.bits as u64);
                    self.pkts -= 1;
                    self.bits -= bits;
                    if f.vars.no_drop_due(&self.params, at, self.bits, now) {
                        f.deficit -= bits as i64;
                        // (Without a CE threshold, the default, the packet goes as it came,
                        // copied out of its slot once: as in `CodelVars::dequeue`.)
                        if self.params.ce_threshold.is_none() {
                            return Some((slot.pkt, at));
                        }
                        return Some(f.vars.ce_threshold_mark(&self.params, slot.pkt, at, &mut self.marked));
                    }
                    let first = (slot.pkt, at);
                    self.dequeue_law(i, now, drops, first)
                }
            };
            if let Some(sent) = sent {
                self.flows[i as usize].deficit -= sent.0.bits as i64;
                return Some(sent);
            }
            let mut sched = Sched { flows: &mut self.flows, lists: &mut self.lists };
            sched.pop_head(on, i);
            if on == On::New && sched.lists[On::Old as usize].head != NIL {
                sched.push_tail(On::Old, i);
            }
        }
    }

    /// `enqueue` then `dequeue` of the one packet, all queues empty, without the
    /// arena: the packet's queue joins new_flows if it was on no list (deficit
    /// `quantum`); the dequeue walks the lists as `dequeue` does (a queue out of deficit
    /// gets `quantum` more and goes to the tail of old_flows; an empty queue's CoDel
    /// leaves the dropping state and the queue its list, to old_flows from new_flows
    /// when old_flows is not empty) until it reaches the packet's queue with a positive
    /// deficit; there CoDel sees a sojourn of 0 with nothing left queued (first_above_time
    /// cleared, the dropping state left, no mark) and the deficit pays for the packet.
    /// The queue stays on its list (RFC 8290 section 4.2: a queue leaves a list only when
    /// a dequeue finds it empty). A buffer too small for the one packet takes the
    /// general path (the arrival is dropped by `drop_from_fattest`).
    #[inline(always)]
    fn pass_idle(&mut self, _now: SimTime, bits: u32, conv: impl FnOnce() -> u32) -> IdlePass {
        debug_assert_eq!(self.pkts, 0);
        if self.over(1, bits as u64) {
            return IdlePass::Unsupported;
        }
        self.ensure_flows();
        self.marked = false;
        let idx = self.classify(conv());
        let quantum = self.quantum_bits;
        let mut sched = Sched { flows: &mut self.flows, lists: &mut self.lists };
        let new = sched.lists[On::New as usize];
        match sched.flows[idx as usize].on {
            // The common case in two steps: new_flows holds at most one queue, with a
            // positive deficit (the one the last pass served). The walk takes that queue
            // off (to old_flows's tail if old_flows is not empty) and reaches the
            // packet's queue, alone on new_flows with a deficit of `quantum`.
            On::None
                if quantum > 0
                    && (new.head == NIL || (new.head == new.tail && sched.flows[new.head as usize].deficit > 0)) =>
            {
                let x = new.head;
                if x != NIL {
                    sched.flows[x as usize].vars.dropping = false;
                    if sched.lists[On::Old as usize].head != NIL {
                        sched.push_tail(On::Old, x);
                    } else {
                        sched.flows[x as usize].on = On::None;
                    }
                }
                Self::pass_to_new_alone(sched, idx, quantum, bits)
            }
            // The packet's queue heads new_flows with a positive deficit (the last pass
            // served it): the dequeue sends from it at once.
            On::New if new.head == idx && sched.flows[idx as usize].deficit > 0 => {
                let f = &mut sched.flows[idx as usize];
                f.vars.dropping = false;
                Self::pass_sent(f, bits)
            }
            _ => self.pass_idle_walk(idx, bits),
        }
    }
    fn dequeue_marked(&mut self) -> bool {
        self.marked
    }
    fn len_pkts(&self) -> usize {
        self.pkts
    }
    fn len_bits(&self) -> u64 {
        self.bits
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        for flow in &self.flows {
            let mut i = flow.q.head;
            while i != NIL {
                let s = &self.arena.slots[i as usize];
                f(&s.pkt);
                i = s.next;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{FLAG_CE, FLAG_ECT};
    use crate::qdisc::test_util::pkt;

    /// FQ-CoDel with a fixed perturbation, and two conversation ids that hash to
    /// different queues under it.
    fn fq(cfg: FqCodelConfig, limit: Limit) -> (FqCodel, u32, u32) {
        let q = FqCodel::new(&FqCodelConfig { perturbation: Some(7), ..cfg }, limit, Rng::new(1, 1));
        let a = 0;
        let b = (1..).find(|&c| q.bucket(c) != q.bucket(a)).unwrap();
        (q, a, b)
    }

    fn order(q: &mut FqCodel, t: SimTime) -> Vec<(u32, u32)> {
        let mut d = Vec::new();
        let mut out = Vec::new();
        while let Some((p, _)) = q.dequeue(t, &mut d) {
            out.push((p.flow, p.seq));
        }
        assert!(d.is_empty(), "no sojourn above target: no CoDel drop");
        out
    }

    #[test]
    fn drr_serves_two_backlogged_flows_a_quantum_at_a_time() {
        // Quantum 1500 B. Flow 0 sends 1000 B packets, flow 1 500 B packets, all queued
        // at t = 0 (flow 0 first), dequeued at once (sojourn 0).
        // Both start on new_flows with deficit 1500.
        //   flow 0: sends 0 (1500 -> 500), 1 (500 -> -500): deficit <= 0, +1500 = 1000,
        //           to old_flows.
        //   flow 1: sends 0, 1, 2 (1500 -> 0): to old_flows with 1500.
        //   old: flow 0 (1000): sends 2 (0): deficit 0 -> +1500, to the tail.
        //        flow 1 (1500): sends 3, 4, 5 (0) -> 1500, tail.
        //        flow 0 (1500): sends 3 (500), 4 (-500) -> 1000, tail.
        //        flow 1 (1500): sends 6, 7 (its last).
        //        flow 0: sends 5 (its last).
        let (mut q, a, b) = fq(FqCodelConfig { quantum: 1500, ..Default::default() }, Limit::Packets(1000));
        let mut d = Vec::new();
        for s in 0..6 {
            q.enqueue(SimTime::ZERO, pkt(0, s, 1000), a, &mut d);
        }
        for s in 0..8 {
            q.enqueue(SimTime::ZERO, pkt(1, s, 500), b, &mut d);
        }
        let want = [
            (0, 0),
            (0, 1),
            (1, 0),
            (1, 1),
            (1, 2),
            (0, 2),
            (1, 3),
            (1, 4),
            (1, 5),
            (0, 3),
            (0, 4),
            (1, 6),
            (1, 7),
            (0, 5),
        ];
        assert_eq!(order(&mut q, SimTime::ZERO), want);
        assert_eq!((q.len_pkts(), q.len_bits()), (0, 0));
    }

    #[test]
    fn rotating_old_flows_moves_its_head_to_its_tail() {
        // Queues 0..5; old_flows = [3, 1, 4] built by push_tail, new_flows = [2].
        let mut q = FqCodel::new(&FqCodelConfig { flows: 5, ..Default::default() }, Limit::Packets(10), Rng::new(1, 1));
        q.ensure_flows();
        let mut sched = Sched { flows: &mut q.flows, lists: &mut q.lists };
        for f in [3, 1, 4] {
            sched.push_tail(On::Old, f);
        }
        sched.push_tail(On::New, 2);
        // [3, 1, 4] -> [1, 4, 3] -> [4, 3, 1]: the head goes behind the tail, and the
        // tail's link and the new tail's end of list follow.
        let mut sched = Sched { flows: &mut q.flows, lists: &mut q.lists };
        sched.rotate_old(3);
        sched.rotate_old(1);
        let ids = |q: &FqCodel| q.lists().map(|l| l.iter().map(|&(i, _)| i).collect::<Vec<_>>());
        assert_eq!(ids(&q), [vec![2], vec![4, 3, 1]]);
        assert_eq!((q.lists[1].head, q.lists[1].tail, q.flows[1].next, q.flows[3].next), (4, 1, NIL, 1));
        assert!([4, 3, 1].iter().all(|&f| q.flows[f as usize].on == On::Old));
        // The same as taking the head off and pushing it to the tail.
        let mut other = q.clone();
        let mut sched = Sched { flows: &mut q.flows, lists: &mut q.lists };
        sched.rotate_old(4);
        Sched { flows: &mut other.flows, lists: &mut other.lists }.to_old_tail(On::Old, 4);
        assert_eq!(q.state(), other.state());
        assert_eq!(ids(&q), [vec![2], vec![3, 1, 4]]);
        // Alone on old_flows: it stays head and tail.
        let mut q = FqCodel::new(&FqCodelConfig { flows: 5, ..Default::default() }, Limit::Packets(10), Rng::new(1, 1));
        q.ensure_flows();
        let mut sched = Sched { flows: &mut q.flows, lists: &mut q.lists };
        sched.push_tail(On::Old, 0);
        sched.rotate_old(0);
        assert_eq!((q.lists[1].head, q.lists[1].tail, q.flows[0].next, q.flows[0].on), (0, 0, NIL, On::Old));
    }

    #[test]
    fn a_sparse_flow_is_served_before_the_backlogged_one() {
        // Flow 0 has ten packets queued and has been served (it is on old_flows); a
        // single packet of flow 1 arriving then joins new_flows and goes next.
        let (mut q, a, b) = fq(FqCodelConfig::default(), Limit::Packets(1000));
        let mut d = Vec::new();
        for s in 0..10 {
            q.enqueue(SimTime::ZERO, pkt(0, s, 1000), a, &mut d);
        }
        // Deficit 1514: packets 0 and 1 (1514 -> 514 -> -486), then flow 0 goes to
        // old_flows with 1028 on the next dequeue, which sends 2 (1028 -> 28).
        assert_eq!(order_n(&mut q, 3), [(0, 0), (0, 1), (0, 2)]);
        q.enqueue(SimTime::ZERO, pkt(1, 0, 100), b, &mut d);
        assert_eq!(order_n(&mut q, 3), [(1, 0), (0, 3), (0, 4)]);
    }

    fn order_n(q: &mut FqCodel, n: usize) -> Vec<(u32, u32)> {
        let mut d = Vec::new();
        (0..n).map(|_| q.dequeue(SimTime::ZERO, &mut d).map(|(p, _)| (p.flow, p.seq)).unwrap()).collect()
    }

    #[test]
    fn a_full_buffer_cuts_half_of_the_fattest_queue_from_its_head() {
        // Buffer 10 packets: flow 0 queues 8 x 1000 B, flow 1 2 x 1000 B. The 11th packet
        // (flow 1) overflows: the fattest queue is flow 0's (8000 B); half of it, 4000 B,
        // goes from its head: packets 0..3 (batch limit 64 not reached). Flow 0's CoDel
        // count grows by 4; the arrival stays.
        let (mut q, a, b) = fq(FqCodelConfig::default(), Limit::Packets(10));
        let mut d = Vec::new();
        for s in 0..8 {
            assert_eq!(q.enqueue(SimTime::ZERO, pkt(0, s, 1000), a, &mut d), Verdict::Queued);
        }
        for s in 0..2 {
            q.enqueue(SimTime::ZERO, pkt(1, s, 1000), b, &mut d);
        }
        assert_eq!(q.enqueue(SimTime::ZERO, pkt(1, 2, 1000), b, &mut d), Verdict::Queued);
        let dropped: Vec<(u32, u32, DropReason)> = d.iter().map(|(p, r)| (p.flow, p.seq, *r)).collect();
        let r = DropReason::FqCodelOverlimit;
        assert_eq!(dropped, [(0, 0, r), (0, 1, r), (0, 2, r), (0, 3, r)]);
        assert_eq!(q.backlog(q.bucket(a)), (4, 32_000));
        assert_eq!(q.backlog(q.bucket(b)), (3, 24_000));
        assert_eq!(q.flows[q.bucket(a) as usize].vars.count, 4);
        assert_eq!(q.len_pkts(), 7);
        // A batch of one (drop_batch_size 1) drops just the head of the fattest queue.
        let (mut q, a, _) = fq(FqCodelConfig { drop_batch_size: 1, ..Default::default() }, Limit::Packets(3));
        let mut d = Vec::new();
        for s in 0..4 {
            q.enqueue(SimTime::ZERO, pkt(0, s, 1000), a, &mut d);
        }
        assert_eq!(d.iter().map(|(p, _)| p.seq).collect::<Vec<_>>(), [0]);
    }

    #[test]
    fn the_arrival_is_dropped_when_its_own_queue_is_the_one_emptied() {
        // Buffer 1 packet: flow 0 holds one 1000 B packet; flow 1's 1500 B arrival makes
        // flow 1 the fattest (1500 B): its head, the arrival itself, is dropped (1500 B
        // >= half of 1500 B).
        let (mut q, a, b) = fq(FqCodelConfig::default(), Limit::Packets(1));
        let mut d = Vec::new();
        q.enqueue(SimTime::ZERO, pkt(0, 0, 1000), a, &mut d);
        assert_eq!(q.enqueue(SimTime::ZERO, pkt(1, 0, 1500), b, &mut d), Verdict::Dropped(DropReason::FqCodelOverlimit));
        assert!(d.is_empty());
        assert_eq!((q.len_pkts(), q.len_bits()), (1, 8000));
    }

    #[test]
    fn each_queue_runs_codel_and_marks_ect_packets_by_default() {
        // One flow of ECT packets queued at 0: at 10 ms first_above_time = 110 ms; the
        // dequeue at 110 ms marks instead of dropping (ecn = true by default).
        let (mut q, a, _) = fq(FqCodelConfig::default(), Limit::Packets(1000));
        let mut d = Vec::new();
        for s in 0..50 {
            let mut p = pkt(0, s, 1000);
            p.flags |= FLAG_ECT;
            q.enqueue(SimTime::ZERO, p, a, &mut d);
        }
        let (p, _) = q.dequeue(SimTime::from_millis(10), &mut d).unwrap();
        assert!(!p.has(FLAG_CE) && !q.dequeue_marked());
        let (p, _) = q.dequeue(SimTime::from_millis(110), &mut d).unwrap();
        assert!(p.has(FLAG_CE) && q.dequeue_marked());
        assert!(d.is_empty());
        // Without ECN the same packet is dropped (DropReason::FqCodel) and the next sent.
        let (mut q, a, _) = fq(FqCodelConfig { ecn: false, ..Default::default() }, Limit::Packets(1000));
        for s in 0..50 {
            q.enqueue(SimTime::ZERO, pkt(0, s, 1000), a, &mut d);
        }
        q.dequeue(SimTime::from_millis(10), &mut d);
        let (p, _) = q.dequeue(SimTime::from_millis(110), &mut d).unwrap();
        assert_eq!(p.seq, 2);
        assert_eq!(d.iter().map(|(p, r)| (p.seq, *r)).collect::<Vec<_>>(), [(1, DropReason::FqCodel)]);
    }

    #[test]
    fn an_idle_pass_leaves_the_lists_deficits_and_codel_states_an_enqueue_and_dequeue_leave() {
        // Three conversations in three queues A, B, C; quantum 1514 B; 100 B packets pass.
        let (mut q, a, b) = fq(FqCodelConfig::default(), Limit::Packets(100));
        let c = (1..).find(|&c| ![q.bucket(a), q.bucket(b)].contains(&q.bucket(c))).unwrap();
        let (qa, qb, qc) = (q.bucket(a), q.bucket(b), q.bucket(c));
        let mut d = Vec::new();
        // A sends two 1000 B packets: 1514 -> 514 -> -486, and stays at the head of
        // new_flows with its queue empty.
        for s in 0..2 {
            q.enqueue(SimTime::ZERO, pkt(0, s, 1000), a, &mut d);
        }
        assert_eq!(order_n(&mut q, 2), [(0, 0), (0, 1)]);
        assert_eq!(q.lists(), [vec![(qa, -486)], vec![]]);
        let t = SimTime::from_millis(1);
        // Each pass: (conversation, new_flows after, old_flows after).
        //   B: joins new_flows (1514) behind A; A is out of deficit: 1028, to old_flows;
        //      B sends: 1414.
        //   A: on old_flows already. B, at the head of new_flows, is empty: it leaves
        //      new_flows for the tail of old_flows (not empty); A sends: 928.
        //   C: joins the empty new_flows and sends: 1414.
        //   C again: at the head of new_flows, sends: 1314.
        let steps = [
            (b, vec![(qb, 1414)], vec![(qa, 1028)]),
            (a, vec![], vec![(qa, 928), (qb, 1414)]),
            (c, vec![(qc, 1414)], vec![(qa, 928), (qb, 1414)]),
            (c, vec![(qc, 1314)], vec![(qa, 928), (qb, 1414)]),
        ];
        for (k, (conv, new, old)) in steps.into_iter().enumerate() {
            // A is in the dropping state with first_above_time set before its pass; the
            // pass takes it out (sojourn 0, nothing left queued).
            q.flows[qa as usize].vars.dropping = true;
            q.flows[qa as usize].vars.first_above_time = Some(SimTime::ZERO);
            q.flows[qa as usize].vars.ldelay = SimDuration::from_millis(7);
            q.marked = true;
            let mut general = q.clone();
            let p = pkt(9, k as u32, 100);
            assert_eq!(general.enqueue(t, p, conv, &mut d), Verdict::Queued);
            assert_eq!(general.dequeue(t, &mut d), Some((p, t)));
            assert!(d.is_empty());
            assert_eq!(q.pass_idle(t, p.bits, || conv), IdlePass::Sent);
            assert_eq!(q.lists(), [new, old], "pass {k}");
            assert_eq!(q.state(), general.state(), "pass {k}");
            assert_eq!((q.len_pkts(), q.len_bits(), q.dequeue_marked()), (0, 0, false));
        }
        // A's own pass (the second) cleared its CoDel state; in the later passes A was
        // not reached, so it keeps the dropping state it was given.
        let va = q.flows[qa as usize].vars;
        assert!(va.dropping && va.first_above_time == Some(SimTime::ZERO));
        // B was found empty in the second pass: it left the dropping state there.
        assert!(!q.flows[qb as usize].vars.dropping);
    }

    #[test]
    fn a_pass_past_one_served_queue_on_new_flows_takes_two_steps() {
        // Queues A, B, C; quantum 1514 B; 100 B packets pass. Each pass of a queue on no
        // list whose new_flows holds at most one queue, with a positive deficit, is the
        // two-step case; each is compared with a clone that enqueues and dequeues.
        let (mut q, a, b) = fq(FqCodelConfig::default(), Limit::Packets(100));
        let c = (1..).find(|&c| ![q.bucket(a), q.bucket(b)].contains(&q.bucket(c))).unwrap();
        let (qa, qb, qc) = (q.bucket(a), q.bucket(b), q.bucket(c));
        let t = SimTime::from_millis(1);
        let mut d = Vec::new();
        let pass = |q: &mut FqCodel, conv: u32, k: u32| {
            let (mut general, mut d) = (q.clone(), Vec::new());
            let p = pkt(9, k, 100);
            assert_eq!(general.enqueue(t, p, conv, &mut d), Verdict::Queued);
            assert_eq!(general.dequeue(t, &mut d), Some((p, t)));
            assert_eq!(q.pass_idle(t, p.bits, || conv), IdlePass::Sent);
            assert_eq!(q.state(), general.state(), "pass {k}");
        };
        // A: new_flows empty; A joins it and sends: 1514 - 100.
        pass(&mut q, a, 0);
        assert_eq!(q.lists(), [vec![(qa, 1414)], vec![]]);
        // B: A, alone on new_flows with 1414, is empty and old_flows is empty: A leaves
        // the lists; B joins new_flows and sends.
        q.flows[qa as usize].vars.dropping = true;
        pass(&mut q, b, 1);
        assert_eq!(q.lists(), [vec![(qb, 1414)], vec![]]);
        assert!(!q.flows[qa as usize].vars.dropping);
        // C sends two 1000 B packets (B leaves new_flows at the first dequeue): C is at
        // the head of new_flows with 1514 - 2000 = -486.
        for s in 0..2 {
            q.enqueue(SimTime::ZERO, pkt(0, s, 1000), c, &mut d);
        }
        assert_eq!(order_n(&mut q, 2), [(0, 0), (0, 1)]);
        assert_eq!(q.lists(), [vec![(qc, -486)], vec![]]);
        // A: C is out of deficit (not the two-step case): C to old_flows with 1028, A
        // joins new_flows and sends.
        pass(&mut q, a, 2);
        assert_eq!(q.lists(), [vec![(qa, 1414)], vec![(qc, 1028)]]);
        // B: A, alone on new_flows with 1414, goes to the tail of old_flows (not empty);
        // B joins new_flows and sends.
        q.flows[qa as usize].vars.dropping = true;
        pass(&mut q, b, 3);
        assert_eq!(q.lists(), [vec![(qb, 1414)], vec![(qc, 1028), (qa, 1414)]]);
        assert!(!q.flows[qa as usize].vars.dropping);
    }

    #[test]
    fn idle_passes_leave_what_an_enqueue_and_dequeue_leave_over_random_traffic() {
        // Eight queues, a quantum of 300 B (deficits run out within a packet or two),
        // twelve conversations (some share a queue), packets of 40 to 1499 B, CoDel with
        // target 1 ms and interval 10 ms (so bursts served over up to 40 ms drop and
        // leave queues in the dropping state). Bursts of 1-8 packets are queued and
        // served; between bursts, 1-6 packets pass the idle discipline one by one, and
        // each pass must leave the lists, deficits and CoDel states that an enqueue and
        // a dequeue of the packet leave (the queues on both lists are then empty, in any
        // order and deficit the traffic left).
        let cfg = FqCodelConfig {
            quantum: 300,
            flows: 8,
            target: SimDuration::from_millis(1),
            interval: SimDuration::from_millis(10),
            ecn: false,
            perturbation: Some(3),
            ..Default::default()
        };
        let mut q = FqCodel::new(&cfg, Limit::Packets(1000), Rng::new(1, 1));
        let mut rng = Rng::new(9, 9);
        let (mut d, mut t, mut seq, mut passes, mut codel_drops) = (Vec::new(), SimTime::ZERO, 0, 0, 0);
        let mut draw = |n: u64| rng.next_u64() % n;
        for _ in 0..3000 {
            if draw(2) == 0 {
                for _ in 0..1 + draw(8) {
                    let conv = draw(12) as u32;
                    seq += 1;
                    q.enqueue(t, pkt(conv, seq, 40 + draw(1460) as u32), conv, &mut d);
                }
                while q.len_pkts() > 0 {
                    t += SimDuration::from_micros(draw(10_000));
                    q.dequeue(t, &mut d);
                }
                codel_drops += d.len();
                d.clear();
            } else {
                for _ in 0..1 + draw(6) {
                    t += SimDuration::from_micros(draw(3000));
                    let conv = draw(12) as u32;
                    seq += 1;
                    let p = pkt(conv, seq, 40 + draw(1460) as u32);
                    let mut general = q.clone();
                    assert_eq!(general.enqueue(t, p, conv, &mut d), Verdict::Queued);
                    assert_eq!(general.dequeue(t, &mut d), Some((p, t)));
                    assert_eq!(q.pass_idle(t, p.bits, || conv), IdlePass::Sent);
                    assert_eq!(q.state(), general.state(), "pass {passes}");
                    passes += 1;
                }
            }
        }
        assert!(d.is_empty());
        // About 1500 rounds of passes, 3.5 each on average; CoDel dropped in bursts.
        assert!(passes > 4000 && codel_drops > 0, "{passes} passes, {codel_drops} drops");
    }

    #[test]
    fn an_idle_pass_of_a_packet_larger_than_the_buffer_takes_the_general_path() {
        // Buffer 50 B: a 100 B arrival is over the limit on its own; the pass declines
        // and changes nothing, and the general path drops it.
        let (mut q, a, _) = fq(FqCodelConfig::default(), Limit::Bytes(50));
        let before = q.state();
        assert_eq!(q.pass_idle(SimTime::ZERO, 800, || a), IdlePass::Unsupported);
        assert_eq!(q.state(), before);
        let mut d = Vec::new();
        let v = q.enqueue(SimTime::ZERO, pkt(0, 0, 100), a, &mut d);
        assert_eq!(v, Verdict::Dropped(DropReason::FqCodelOverlimit));
    }

    #[test]
    fn the_hash_spreads_conversations_over_the_queues_with_collisions_as_chance_has_them() {
        // 100 conversations into 1024 buckets: about 100 x 99 / 2 / 1024 = 4.8 colliding
        // pairs are expected; a hash that did not spread would leave far fewer buckets.
        let q = FqCodel::new(&FqCodelConfig::default(), Limit::Packets(10), Rng::new(3, 3));
        let mut used: Vec<u32> = (0..100).map(|c| q.bucket(c)).collect();
        used.sort();
        used.dedup();
        assert!((85..=100).contains(&used.len()), "{} distinct buckets", used.len());
        assert!((0..1000).all(|c| q.bucket(c) < 1024));
        // The cache of classifications gives the hash's bucket, for conversations of one
        // residue modulo its size in turn too.
        let mut q = q;
        for c in [5, 5 + 256, 5, 1 << 20 | 5, 7, 5 + 256, 5, 0, 256, 0] {
            assert_eq!(q.classify(c), q.bucket(c), "{c}");
        }
        // Another perturbation, another assignment.
        let r = FqCodel::new(&FqCodelConfig::default(), Limit::Packets(10), Rng::new(4, 3));
        assert!((0..100).any(|c| q.bucket(c) != r.bucket(c)));
    }
}
