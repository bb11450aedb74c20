//! A unidirectional channel: a chain of elements, a queue discipline, a transmitter of
//! fixed rate and a propagation pipe of fixed delay (htsim `Queue` + `Pipe`).
//!
//! The path of a packet through a channel:
//!
//! 1. `enqueue`: counted as offered; each element's `on_arrival` may rewrite or drop it;
//!    then, if the transmitter is idle and nothing waits (and the discipline allows the
//!    shortcut), it starts transmission at once; otherwise the discipline answers with a
//!    verdict (queued / marked / dropped with a reason) and may evict queued packets.
//! 2. `start_tx`: each element's `on_transmit` sees the packet and the channel; the
//!    transmission time is computed from the packet's size in bits; the packet enters the
//!    pipe with its arrival time at the far end.
//! 3. `on_pipe_head`: the packet leaves the pipe and is handed back to the simulation.
//!
//! A channel whose next channel is fed by several puts its packets into that channel's
//! merged arrivals (`net/merge.rs`) instead of its own pipe (`set_merges`).
//!
//! The channel keeps at most two events in the simulation's queue: `TxDone` (the
//! transmitter frees up while packets wait) and `PipeHead` (the first packet in the pipe
//! arrives at the far end). A packet that finds the transmitter idle and nothing queued
//! starts at once and goes straight into the pipe with its arrival time, so an
//! uncongested hop costs a single event per packet. Disciplines that must see every
//! arrival (RED's average) do not take that shortcut: the packet is enqueued and, the
//! transmitter being idle, dequeued at once, still without an event.
//!
//! A drop-tail FIFO channel without elements, series or scheduled changes is *timed*
//! (`set_timed`, the default for those): every packet's start of transmission is known
//! when it is enqueued (when the line frees up), so it goes into the pipe at once with
//! its arrival time and no `TxDone` event is needed. So is a channel whose discipline
//! admits on the queue the channel keeps (`QdiscPolicy::ADMITS`: RED, random drop):
//! FIFO too, it decides an arrival from the packets waiting ahead (`Qdisc::admit`); the counters a departure updates
//! are brought up to date lazily (`catch_up`), so they read as on the queued path. An
//! arrival at the instant a waiting packet starts sees that packet gone, as on the queued
//! path, where the `TxDone` event comes first (departures run before arrivals at the same
//! instant: `net/event.rs`); crates/ccsim-engine/tests/observation.rs compares the two with
//! ties.
//!
//! The pipe is FIFO: if the delay is lowered by a scheduled change, a packet never
//! overtakes one sent before it (its arrival is max(own arrival, previous arrival)).
//!
//! The buffer limit counts packets waiting in the discipline, not the one being
//! transmitted (as in ns-2's drop-tail).
//!
//! Counters (shared by every discipline): offered = dropped + transmitted +
//! queued, checked in debug builds after every enqueue and departure; drops are also
//! counted per reason, and every packet's sojourn time in the discipline is summed.

use super::{end_counted, Handover, Net, NOT_CUT, ROUTE_END};
use crate::base::ring::Ring;
use crate::base::rng::Rng;
use crate::base::time::{tx_time, SimDuration, SimTime};
use crate::base::trace::SeriesId;
use crate::base::units::Limit;
use crate::element::{AnyElement, ChannelView, ElemCx, ElemVerdict, Element, Emit, QueueEvent};
use crate::element::{ELEMENT_DROP_REASON_NAMES, N_ELEMENT_DROP_REASONS};
use crate::net::event::{Event, EventQueue};
use crate::net::pipe::{Pipe, PipePool};
use crate::packet::meta::MetaSlab;
use crate::packet::{Packet, FLAG_CE};
use crate::qdisc::{
    flatten_names, Ahead, AnyQdisc, DropReason, IdlePass, Qdisc, Verdict, MAX_QDISC_DROP_REASONS, MAX_QDISC_SERIES,
    N_QDISC_DROP_REASONS, QDISC_DROP_REASON_NAMES,
};

/// A channel's counters (`Channel::counters`), with its drops per reason of the whole
/// table (`DropReason::ALL`): what results, phases and intervals read.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChannelCounters {
    /// Time the transmitter was busy, ps (counted at the start of each transmission; at
    /// most the simulated time, which is a u64 of picoseconds).
    pub busy_ps: u64,
    /// Packets offered to the channel.
    pub offered: u64,
    /// Packets whose transmission started.
    pub tx_pkts: u64,
    pub tx_bits: u64,
    /// Integral of the queue length over time, packet-picoseconds.
    pub queue_integral: u128,
    /// Sum of the sojourn times in the discipline of the packets transmitted, ps.
    pub sojourn_ps: u128,
    /// Integral of the line rate over time, bits/s x ps (the capacity offered; with
    /// scheduled rate changes, not rate x duration).
    pub capacity: u128,
    /// Drops per `DropReason` (their sum: `drops`).
    pub drops_by_reason: [u64; N_DROP_REASONS],
    /// Packets ECN-marked by the discipline.
    pub marks: u64,
    /// Scheduled rate changes applied.
    pub rate_changes: u32,
}

/// The counters every packet updates, inline in the channel's idle-path line (`Channel`'s
/// layout); the others live where their path is (`Channel::counters` gathers them as
/// `ChannelCounters`): the queue integral, the sojourn sum, the marks and the drops for
/// `overflow` and the discipline's own reasons in `ChannelQueue` (they change only where
/// packets wait; the marks and drops in its `ChannelLosses`), the elements' drops, the rate changes and the capacity integral of a
/// channel whose rate changes in `ChannelExtras` (otherwise the capacity is the rate
/// times the last settle's time, `Channel::settled`). So a reason registered by a
/// discipline or an element does not grow every channel.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub(crate) struct LocalCounters {
    busy_ps: u64,
    offered: u64,
    tx_pkts: u64,
    tx_bits: u64,
}

impl ChannelCounters {
    pub fn minus(&self, o: &ChannelCounters) -> ChannelCounters {
        let mut by_reason = self.drops_by_reason;
        for (a, b) in by_reason.iter_mut().zip(o.drops_by_reason) {
            *a -= b;
        }
        ChannelCounters {
            offered: self.offered - o.offered,
            tx_pkts: self.tx_pkts - o.tx_pkts,
            tx_bits: self.tx_bits - o.tx_bits,
            drops_by_reason: by_reason,
            marks: self.marks - o.marks,
            busy_ps: self.busy_ps - o.busy_ps,
            queue_integral: self.queue_integral - o.queue_integral,
            sojourn_ps: self.sojourn_ps - o.sojourn_ps,
            capacity: self.capacity - o.capacity,
            rate_changes: self.rate_changes - o.rate_changes,
        }
    }

    /// Packets dropped (all reasons).
    pub fn drops(&self) -> u64 {
        self.drops_by_reason.iter().sum()
    }

    /// Bytes transmitted (bits / 8, rounded down).
    pub fn tx_bytes(&self) -> u64 {
        self.tx_bits / 8
    }
}

/// The number of drop reasons: the disciplines' and the elements' (`qdisc::DropReason`).
pub const N_DROP_REASONS: usize = N_QDISC_DROP_REASONS + N_ELEMENT_DROP_REASONS;

/// Every drop reason's name, in table order (a name both a discipline and an element
/// declare fails the build).
const DROP_REASON_NAMES: [&str; N_DROP_REASONS] =
    flatten_names(&[&[&QDISC_DROP_REASON_NAMES], &[&ELEMENT_DROP_REASON_NAMES]]);

impl DropReason {
    /// Every reason, in table order (the order of the results' columns).
    pub const ALL: [DropReason; N_DROP_REASONS] = {
        let mut out = [DropReason::Overflow; N_DROP_REASONS];
        let mut i = 0;
        while i < N_DROP_REASONS {
            out[i] = DropReason::at(i);
            i += 1;
        }
        out
    };

    /// Its name (the results' column `drops_by_reason.<name>`).
    pub fn name(self) -> &'static str {
        DROP_REASON_NAMES[self.index()]
    }
}

/// A direction of a link: transmitter, discipline, elements and propagation pipe.
///
/// `repr(C, align(64))` with the fields laid out by cache line (`Channel` is 192 B = 3
/// lines, so the alignment costs no padding and every channel of the array starts on a
/// line): line 0 everything an arrival at an idle timed channel touches (line busy time,
/// delay, the transmission-time cache's first entry, the flags of its path, and the
/// counters every packet updates: busy time, offered, transmitted packets and bits);
/// line 1 the propagation pipe, the pointer to the queue state, the longest sojourn,
/// the cache's second entry and the untimed paths' flags; line 2 the discipline (24
/// bytes: FCFS keeps its limit inline and its queue behind a pointer), the longest
/// queue, and what set-up and results read (ends, rate, extras, the last settle's
/// time). An arrival at an idle timed channel touches line 0 only (line 1 too when its
/// packet goes into the pipe, not when it is handed over at send time or merged); a
/// pipe-head event line 1 only (line 0 too, for a merging channel, when the pipe
/// empties); a packet that waits lines 0-2 and the queue state.
///
/// What only a waiting packet needs (the timed queue, its bits, the queue and sojourn
/// sums, marks and drops: `ChannelQueue`) is boxed, and the box is made the first time a
/// packet waits, is dropped or is marked (a one-time allocation per channel, never per
/// packet); a channel with processing jitter has it from `set_jitter`, which keeps the
/// jitter's stream there. Most channels of a large network never have one: an access
/// channel fed at the bottleneck's pace, an ack channel. At 10^4 flows and more the
/// channels do not fit in the cache, so lines touched per packet are the cost; at 10^5
/// flows (4 x 10^5 channels) every 64 bytes are 25.6 MB (`sizes.rs` pins the size and
/// the offsets).
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct Channel {
    // Line 0 (0-63): the idle path.
    busy_until: SimTime,
    /// Propagation delay (plus the receiving node's processing delay).
    pub delay: SimDuration,
    /// Last two packet sizes (bits) and their transmission times: sizes repeat (data,
    /// acks), and the exact u128 division is the costliest arithmetic on the per-packet
    /// path. A channel that carries one size (most do) never reads the second entry.
    tx_time0: SimDuration,
    tx_bits0: u32,
    /// Departures scheduled at enqueue (see `Waiting`): a plain drop-tail FIFO, or a
    /// discipline that admits on the queue the channel keeps (`PATH_ADMIT`), without
    /// series or scheduled changes needs no `TxDone` event.
    timed: bool,
    /// The timed queue (`ChannelQueue::waiting`) is not empty (here, so that an arrival
    /// at an idle timed channel need not read the queue).
    waiting_any: bool,
    /// For a merging channel (`PATH_MERGES`): a `PipeHead` event is pending, that is,
    /// the pipe is not empty (here, so that a packet merged need not read the pipe's
    /// line). Other channels never read it.
    pipe_pending: bool,
    /// `PATH_*` bits: where `to_pipe` may put a packet other than the pipe, whether it
    /// must keep arrivals in order by hand, and whether a timed channel's discipline
    /// admits its arrivals.
    path: u8,
    counters: LocalCounters,
    // Line 1 (64-127): the pipe and the queued path.
    pipe: Pipe,
    /// The queue state, made when first needed (see above).
    queue: Option<Box<ChannelQueue>>,
    /// Longest sojourn of a packet in the discipline, ps.
    pub sojourn_max_ps: u64,
    /// The transmission-time cache's second entry (`tx_bits0`).
    tx_time1: SimDuration,
    tx_bits1: u32,
    /// No elements and the shortcut allowed: the hot path needs no other check.
    plain: bool,
    /// An arrival to an idle, empty channel may skip the discipline.
    bypass: bool,
    tx_pending: bool,
    /// `PATH_MERGES` again, on the pipe's line: a pipe-head event reads it to know
    /// whether `pipe_pending` is kept.
    merges: bool,
    // Line 2 (128-191): the discipline (whose buffer limit a waiting packet reads), the
    // longest queue, and what set-up and results read. No name strings here (10^5 flows
    // have 4 x 10^5 channels): the simulation builds a channel's name ("from->to") and
    // its link's name from the scenario when asked (`Simulation::channel_name`,
    // `Simulation::channel_link`).
    pub qdisc: AnyQdisc,
    pub queue_max: u64,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    /// Elements, rate history, series and the capacity integral of a channel whose rate
    /// changes, which most channels never have: one pointer here.
    extras: Option<Box<ChannelExtras>>,
    /// The time of the last `settle`: without extras (one rate from time 0) the
    /// capacity integral is the rate times it (`Channel::capacity`).
    settled: SimTime,
}

/// What a channel needs only once packets wait in it (`Channel::queue`): made at the
/// first packet that waits, is dropped or is marked (or at `set_jitter`, for the jitter's
/// stream); until then every field is zero (or empty), which is what `Channel::counters`
/// reads in its absence. The marks and drops are boxed once more (`ChannelLosses`): many
/// channels where packets wait never drop or mark one (an access channel where slow
/// start's pairs wait), and without them the box is 128 bytes, not 176 (at 10^6 flows,
/// about 6.6 x 10^5 channels have one).
#[derive(Debug, Clone, Default)]
pub(crate) struct ChannelQueue {
    /// Integral of the queue length over time, packet-picoseconds.
    queue_integral: u128,
    /// Sum of the sojourn times in the discipline of the packets transmitted, ps.
    sojourn_ps: u128,
    /// Packets of a timed channel whose transmission has not started yet.
    waiting: Ring<Waiting>,
    /// Bits of the packets in `waiting`.
    waiting_bits: u64,
    /// Packets in the discipline, counted by the channel as it offers and takes them
    /// (`enqueue_queued`, `serve`), so that the per-packet path does not ask the
    /// discipline (`Qdisc::len_pkts`, checked against it in debug builds).
    qdisc_len: usize,
    /// Time up to which the queue integral was counted (on a timed channel: the last
    /// `settle`). Its absence reads as any time: without the box the queue is empty, so
    /// the integral grows by nothing until it is made.
    queue_last_change: SimTime,
    /// Marks and drops, made at the first packet marked or dropped (all zero until then).
    losses: Option<Box<ChannelLosses>>,
    /// Per-packet processing jitter at the far end: its stream and bound, ps (made at
    /// `set_jitter`, with the queue state).
    jitter: Option<Box<(Rng, u64)>>,
}

/// A channel's marks and drops (`ChannelQueue::losses`).
#[derive(Debug, Clone, Default)]
pub(crate) struct ChannelLosses {
    /// Packets ECN-marked by the discipline.
    marks: u64,
    /// Drops for `overflow` (the buffer full: only a channel where packets wait).
    overflow: u64,
    /// Drops for the discipline's own reasons: slot k is its reason k
    /// (`QdiscPolicy::DROP_REASONS`).
    drops: [u64; MAX_QDISC_DROP_REASONS],
}

/// `Channel::path`: its packets propagate in the `Merge` of the channel after it
/// (`Net::merges`) while its own pipe is empty.
const PATH_MERGES: u8 = 1;
/// `Channel::path`: some channel after this one on a route takes its packets at send
/// time (cut-through: `Net::held`); only then does `to_pipe` look at the next hop.
const PATH_FEEDS_CUT: u8 = 2;
/// `Channel::path`: arrivals get processing jitter, so `to_pipe` keeps them in order by
/// hand (`Pipe::not_before`). Without jitter a timed channel's arrivals (line free time
/// plus a fixed delay) are in order by themselves.
const PATH_JITTER: u8 = 4;
/// `Channel::path`: a timed channel whose discipline admits on the queue the channel
/// keeps (`QdiscPolicy::ADMITS`): `enqueue` asks it (`enqueue_admitted`).
const PATH_ADMIT: u8 = 8;

/// (field, offset, size, cache line it must lie in) of the fields the per-packet paths
/// touch, for the layout test in `transport/sizes.rs`.
#[cfg(test)]
pub(crate) fn hot_field_spans() -> Vec<(&'static str, usize, usize, usize)> {
    use std::mem::{offset_of, size_of, size_of_val};
    let c = Channel::new(0, 0, 1, SimDuration::ZERO, AnyQdisc::Fcfs(crate::qdisc::Fcfs::new(Limit::Packets(1))));
    let k = offset_of!(Channel, counters);
    vec![
        ("busy_until", offset_of!(Channel, busy_until), 8, 0),
        ("delay", offset_of!(Channel, delay), 8, 0),
        ("tx_time0", offset_of!(Channel, tx_time0), 8, 0),
        ("tx_bits0", offset_of!(Channel, tx_bits0), 4, 0),
        ("timed", offset_of!(Channel, timed), 1, 0),
        ("waiting_any", offset_of!(Channel, waiting_any), 1, 0),
        ("pipe_pending", offset_of!(Channel, pipe_pending), 1, 0),
        ("path", offset_of!(Channel, path), 1, 0),
        ("counters.busy_ps", k + offset_of!(LocalCounters, busy_ps), 8, 0),
        ("counters.offered", k + offset_of!(LocalCounters, offered), 8, 0),
        ("counters.tx_pkts", k + offset_of!(LocalCounters, tx_pkts), 8, 0),
        ("counters.tx_bits", k + offset_of!(LocalCounters, tx_bits), 8, 0),
        ("pipe", offset_of!(Channel, pipe), size_of::<Pipe>(), 1),
        ("merges", offset_of!(Channel, merges), 1, 1),
        ("tx_time1", offset_of!(Channel, tx_time1), 8, 1),
        ("tx_bits1", offset_of!(Channel, tx_bits1), 4, 1),
        ("plain", offset_of!(Channel, plain), 1, 1),
        ("tx_pending", offset_of!(Channel, tx_pending), 1, 1),
        ("queue", offset_of!(Channel, queue), size_of_val(&c.queue), 1),
        ("sojourn_max_ps", offset_of!(Channel, sojourn_max_ps), 8, 1),
        ("qdisc", offset_of!(Channel, qdisc), size_of_val(&c.qdisc), 2),
        ("queue_max", offset_of!(Channel, queue_max), 8, 2),
    ]
}

/// What a channel has only when the scenario gives it elements, rate changes or
/// series.
#[derive(Debug, Clone, Default)]
struct ChannelExtras {
    /// The chain of elements, in order (`add_element`).
    elements: Vec<AnyElement>,
    /// Scheduled rate changes: (time, new rate).
    rate_history: Vec<(SimTime, u64)>,
    /// Scheduled rate changes applied (`ChannelCounters::rate_changes`).
    rate_changes: u32,
    /// Time up to which the capacity integral was counted (`account_capacity`).
    rate_since: SimTime,
    /// Integral of the line rate over time up to `rate_since`, bits/s x ps.
    capacity: u128,
    /// Queue length series (packets, at each change).
    trace_queue: Option<SeriesId>,
    /// Sojourn time of each packet leaving the discipline, seconds.
    trace_sojourn: Option<SeriesId>,
    /// The discipline's own series (`QdiscPolicy::SERIES`), by slot.
    trace_qdisc: [Option<SeriesId>; MAX_QDISC_SERIES],
    /// Drops per element reason (the table's entries from `N_QDISC_DROP_REASONS` on).
    element_drops: [u64; N_ELEMENT_DROP_REASONS],
}

/// A packet in a timed FIFO's queue: it is already in the pipe with its arrival time;
/// this record keeps what its departure will count (the counters are brought up to date
/// lazily: at the next enqueue and at `settle`, so they read exactly as if each packet
/// had been dequeued at its start time).
///
/// Why: a FIFO line's departure times are fixed at enqueue (start = when the line frees
/// up, plus the transmission time), so the per-packet `TxDone` event (one in seven of
/// the benchmark's events) and the discipline's queue are not needed. The only visible
/// difference in bookkeeping: a packet arriving exactly when a queued packet starts
/// transmission sees that packet as already gone, as the queued path does (departures
/// come first among simultaneous events).
///
/// No transmission time: each waiting packet starts when the one before it ends (a
/// timed channel's line frees up only at `busy_until`, which the last packet queued
/// set), so a packet's transmission time is the next one's start minus its own, and the
/// last one's is `busy_until` minus its start (`catch_up`). 24 bytes, not 32.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Waiting {
    start: SimTime,
    enqueued: SimTime,
    bits: u32,
}

/// A channel's queue state, made once (`Channel::queue_mut`): out of the hot path.
#[cold]
#[inline(never)]
fn new_queue() -> Box<ChannelQueue> {
    Box::default()
}

/// A channel's marks and drops, made once (`Channel::losses_mut`).
#[cold]
#[inline(never)]
fn new_losses() -> Box<ChannelLosses> {
    Box::default()
}

impl Channel {
    pub fn new(from: u32, to: u32, rate_bps: u64, delay: SimDuration, qdisc: AnyQdisc) -> Self {
        let bypass = qdisc.idle_bypass();
        Channel {
            from,
            to,
            rate_bps,
            delay,
            qdisc,
            extras: None,
            bypass,
            plain: bypass,
            busy_until: SimTime::ZERO,
            tx_pending: false,
            pipe: Pipe::default(),
            pipe_pending: false,
            merges: false,
            counters: LocalCounters::default(),
            settled: SimTime::ZERO,
            queue_max: 0,
            sojourn_max_ps: 0,
            tx_bits0: 0,
            tx_time0: SimDuration::ZERO,
            tx_bits1: 0,
            tx_time1: SimDuration::ZERO,
            waiting_any: false,
            queue: None,
            timed: false,
            path: 0,
        }
    }

    /// Hints the cache to load the line a pipe-head event reads (`pipe`, line 1).
    #[inline(always)]
    pub(crate) fn prefetch_pipe(&self) {
        crate::base::prefetch::line(&self.pipe);
    }

    /// Hints the cache to load the line an arrival at an idle timed channel reads (line
    /// 0: line busy time, delay, transmission time, flags, per-packet counters).
    #[inline(always)]
    pub(crate) fn prefetch_arrival(&self) {
        crate::base::prefetch::line(&self.busy_until);
    }

    /// Hints the cache to load the lines a packet that waits reads besides line 0: the
    /// queue state's pointer (line 1) and the discipline's buffer limit (line 2).
    #[inline(always)]
    pub(crate) fn prefetch_waiting(&self) {
        crate::base::prefetch::line(&self.queue);
        crate::base::prefetch::line(&self.qdisc);
    }

    /// Sets or clears a `PATH_*` bit.
    fn set_path(&mut self, bit: u8, on: bool) {
        if on {
            self.path |= bit;
        } else {
            self.path &= !bit;
        }
    }

    /// Sets whether this channel's packets propagate in the `Merge` of the channel after
    /// it (`Simulation::set_cut_through`).
    pub fn set_merges(&mut self, on: bool) {
        debug_assert!(self.pipe.is_empty(), "set_merges with packets in the pipe");
        self.set_path(PATH_MERGES, on);
        self.merges = on;
        self.pipe_pending = false;
    }

    /// Whether `to_pipe` may hand packets to the next channel of their route at send time
    /// (`Simulation::set_cut_through`).
    pub fn set_feeds_cut(&mut self, on: bool) {
        self.set_path(PATH_FEEDS_CUT, on);
    }

    /// Schedules departures at enqueue if the channel allows it: drop-tail FIFO, no
    /// elements, no queue or sojourn series, and no scheduled change (`changes`: a rate
    /// change would re-time the queued packets). Call once the channel is set up and
    /// before the run; `false` turns it off (the reference path, for tests).
    pub fn set_timed(&mut self, on: bool, changes: bool) {
        debug_assert!(self.counters.offered == 0, "set_timed after the run started");
        let may = on
            && self.elements().is_empty()
            && self.trace_queue().is_none()
            && self.trace_sojourn().is_none()
            && !self.extras.as_deref().is_some_and(|x| x.trace_qdisc.iter().any(Option::is_some))
            && !changes;
        let fifo = may && self.plain && self.qdisc.fifo();
        let admit = may && !fifo && self.qdisc.admits();
        self.timed = fifo || admit;
        self.set_path(PATH_ADMIT, admit);
    }

    /// Whether departures are scheduled at enqueue (`set_timed`).
    pub fn is_timed(&self) -> bool {
        self.timed
    }

    /// Adds a uniform random delay in [0, bound) to every packet (processing jitter of
    /// the receiving node). Packets keep their order: a packet never arrives before the
    /// one sent ahead of it.
    pub fn set_jitter(&mut self, bound: SimDuration, rng: Rng) {
        self.queue_mut().jitter = Some(Box::new((rng, bound.as_ps())));
        self.path |= PATH_JITTER;
    }

    /// Appends an element to the chain.
    pub fn add_element(&mut self, e: AnyElement) {
        self.extras_mut().elements.push(e);
        self.plain = false;
    }

    /// The chain of elements, in order.
    pub fn elements(&self) -> &[AnyElement] {
        self.extras.as_deref().map_or(&[], |x| &x.elements)
    }

    fn elements_mut(&mut self) -> &mut [AnyElement] {
        match self.extras.as_deref_mut() {
            Some(x) => &mut x.elements,
            None => &mut [],
        }
    }

    /// Scheduled rate changes applied: (time, new rate).
    pub fn rate_history(&self) -> &[(SimTime, u64)] {
        self.extras.as_deref().map_or(&[], |x| &x.rate_history)
    }

    /// The extras, made the first time they are needed, with the capacity integral
    /// counted so far (without extras: the rate times the last settle's time).
    fn extras_mut(&mut self) -> &mut ChannelExtras {
        let (rate, settled) = (self.rate_bps, self.settled);
        self.extras.get_or_insert_with(|| {
            Box::new(ChannelExtras {
                rate_since: settled,
                capacity: rate as u128 * settled.as_ps() as u128,
                ..Default::default()
            })
        })
    }

    /// The capacity integral up to the last `settle` (`ChannelCounters::capacity`).
    fn capacity(&self) -> u128 {
        match self.extras.as_deref() {
            Some(x) => x.capacity,
            // One rate since time 0: the same sum, taken at once.
            None => self.rate_bps as u128 * self.settled.as_ps() as u128,
        }
    }

    /// The queue state, made the first time it is needed (`ChannelQueue`).
    #[inline(always)]
    fn queue_mut(&mut self) -> &mut ChannelQueue {
        self.queue.get_or_insert_with(new_queue)
    }

    /// The marks and drops, made (with the queue state) the first time one is counted.
    fn losses_mut(&mut self) -> &mut ChannelLosses {
        self.queue_mut().losses.get_or_insert_with(new_losses)
    }

    /// Counts the queue length (the discipline's) from the last change until `now`;
    /// returns the length.
    #[inline]
    fn account_queue(&mut self, now: SimTime) -> usize {
        debug_assert_eq!(self.queue.as_ref().map_or(0, |q| q.qdisc_len), self.qdisc.len_pkts());
        let q = self.queue_mut();
        let len = q.qdisc_len;
        q.queue_integral += len as u128 * (now - q.queue_last_change).as_ps() as u128;
        q.queue_last_change = now;
        len
    }

    /// Brings the queue-length and capacity integrals up to `now` (before reading them).
    pub fn settle(&mut self, now: SimTime) {
        // Without the queue state nothing has waited: the queue integral is 0 until now.
        debug_assert!(self.queue.is_some() || self.qdisc.len_pkts() == 0);
        if self.queue.is_some() {
            if self.timed {
                self.catch_up(now);
                let q = self.queue_mut();
                // Packets still waiting have been queued from their enqueue time (or the
                // last settle, `queue_last_change`) until now.
                let mark = q.queue_last_change;
                // (`saturating_sub`: a run stopped early may hold packets taken at send
                // time for a later arrival; they have not waited yet.)
                let waited: u128 = q
                    .waiting
                    .iter()
                    .map(|w: Waiting| now.as_ps().saturating_sub(w.enqueued.max(mark).as_ps()) as u128)
                    .sum();
                q.queue_integral += waited;
            }
            self.account_queue(now);
        }
        self.account_capacity(now);
    }

    /// Counts the departures of the waiting packets whose transmission started by `now`,
    /// as `serve` + `start_tx` would have counted them at their start times; whether
    /// packets still wait (`waiting_any`).
    #[inline(always)]
    fn catch_up(&mut self, now: SimTime) -> bool {
        let Some(q) = self.queue.as_deref_mut() else { return false };
        // The packets started back to back from `first`: their transmission times sum to
        // the start of the first still waiting (or, if none waits, the line's free time).
        let first = q.waiting.front().map_or(self.busy_until, |w| w.start);
        let mut next = self.busy_until;
        while let Some(&w) = q.waiting.front() {
            if w.start > now {
                next = w.start;
                break;
            }
            q.waiting.pop_front();
            q.waiting_bits -= w.bits as u64;
            let sojourn = (w.start - w.enqueued).as_ps();
            q.sojourn_ps += sojourn as u128;
            self.sojourn_max_ps = self.sojourn_max_ps.max(sojourn);
            q.queue_integral += (w.start - w.enqueued.max(q.queue_last_change)).as_ps() as u128;
            self.counters.tx_pkts += 1;
            self.counters.tx_bits += w.bits as u64;
        }
        self.counters.busy_ps += (next - first).as_ps();
        self.waiting_any = !q.waiting.is_empty();
        self.waiting_any
    }

    /// Enqueue on a timed channel (`set_timed`): the packet starts now if the line is
    /// idle, or else is dropped if the buffer is full, or else goes into the pipe at
    /// once with the arrival time its place in the FIFO gives it.
    #[inline(always)]
    fn enqueue_timed(&mut self, id: u32, now: SimTime, pkt: &Packet, cx: &mut Net) {
        // (A value, not a second read of `waiting_any`: the idle path, where nothing
        // waits, then tests the line's busy time alone.)
        let waits = self.waiting_any && self.catch_up(now);
        if !waits && now >= self.busy_until {
            self.start_tx::<false>(id, now, pkt, cx);
            return;
        }
        let limit = self.limit();
        let q = self.queue_mut();
        if !crate::qdisc::fits(limit, q.waiting.len(), q.waiting_bits, pkt.bits) {
            self.drop_pkt(id, now, *pkt, DropReason::Overflow, cx);
            debug_assert!(
                self.check_conservation(),
                "channel {}->{}: offered != drops + transmitted + queued",
                self.from,
                self.to
            );
            return;
        }
        self.wait_timed(id, now, pkt, cx);
    }

    /// A packet admitted to a timed channel whose line is busy: it waits, starting when
    /// the line frees up, and goes into the pipe now with the arrival time that gives.
    #[inline(always)]
    fn wait_timed(&mut self, id: u32, now: SimTime, pkt: &Packet, cx: &mut Net) {
        let start = self.busy_until;
        let d = self.tx_time(pkt.bits);
        self.busy_until = start + d;
        let q = self.queue_mut();
        q.waiting.push_back(Waiting { start, enqueued: now, bits: pkt.bits });
        q.waiting_bits += pkt.bits as u64;
        let len = q.waiting.len() as u64;
        self.waiting_any = true;
        self.queue_max = self.queue_max.max(len);
        self.to_pipe(id, pkt, cx);
        debug_assert!(
            self.check_conservation(),
            "channel {}->{}: offered != drops + transmitted + queued",
            self.from,
            self.to
        );
    }

    /// Enqueue on a channel that keeps its discipline's queue (`PATH_ADMIT`): as
    /// `enqueue_timed`, with the discipline's verdict (`Qdisc::admit`) in place of the
    /// buffer check. Every arrival asks it, at an idle line too (RED's average sees every
    /// arrival), as `enqueue_hooked` offers every arrival to the discipline.
    #[inline(never)]
    fn enqueue_admitted(&mut self, id: u32, now: SimTime, mut pkt: Packet, cx: &mut Net) {
        let waits = self.waiting_any && self.catch_up(now);
        let (pkts, bits) = self.queue.as_deref().map_or((0, 0), |q| (q.waiting.len(), q.waiting_bits));
        let idle = !waits && now >= self.busy_until;
        let start = if idle { now } else { self.busy_until };
        match self.qdisc.admit(now, &mut pkt, Ahead { pkts, bits, start }) {
            Verdict::Queued => {}
            // (No elements on a timed channel: nothing else to tell.)
            Verdict::Marked => self.losses_mut().marks += 1,
            Verdict::Dropped(reason) => {
                self.drop_pkt(id, now, pkt, reason, cx);
                debug_assert!(self.check_conservation(), "channel {}->{}: conservation", self.from, self.to);
                return;
            }
        }
        if idle {
            self.start_tx::<false>(id, now, &pkt, cx);
        } else {
            self.wait_timed(id, now, &pkt, cx);
        }
    }

    fn account_capacity(&mut self, now: SimTime) {
        if let Some(x) = self.extras.as_deref_mut() {
            x.capacity += self.rate_bps as u128 * (now - x.rate_since).as_ps() as u128;
            x.rate_since = now;
        }
        self.settled = now;
    }

    /// The buffer limit (the discipline's).
    pub fn limit(&self) -> Limit {
        self.qdisc.limit()
    }

    /// The discipline's own series, `(name, unit)` (`QdiscPolicy::SERIES`).
    pub fn qdisc_series(&self) -> &'static [(&'static str, &'static str)] {
        self.qdisc.series()
    }

    /// Records the queue length (`queue`), each packet's sojourn time (`sojourn`) and
    /// the discipline's own series (`qdisc`, by slot of `QdiscPolicy::SERIES`) in these
    /// series. Before the run.
    pub fn set_traces(
        &mut self,
        queue: Option<SeriesId>,
        sojourn: Option<SeriesId>,
        qdisc: [Option<SeriesId>; MAX_QDISC_SERIES],
    ) {
        if queue.is_some() || sojourn.is_some() || qdisc.iter().any(Option::is_some) {
            let x = self.extras_mut();
            (x.trace_queue, x.trace_sojourn, x.trace_qdisc) = (queue, sojourn, qdisc);
        }
    }

    /// Records the discipline's own series, if any is recorded (after each enqueue and
    /// dequeue).
    #[inline]
    fn record_qdisc(&self, now: SimTime, cx: &mut Net) {
        if let Some(x) = self.extras.as_deref() {
            if x.trace_qdisc.iter().any(Option::is_some) {
                self.record_qdisc_series(x.trace_qdisc, now, cx);
            }
        }
    }

    /// The channel's series after the discipline's enqueue or dequeue, if any is
    /// recorded (one test of the extras on the packet's path): the discipline's own,
    /// and with `after` (the sojourn of a packet sent, the queue length) the sojourn
    /// and queue series. The series are apart, so recording them after the packet
    /// started (`start_tx`) records the same points.
    #[inline(always)]
    fn record_series(&self, now: SimTime, after: Option<(Option<u64>, usize)>, cx: &mut Net) {
        if self.extras.is_some() {
            self.record_series_on(now, after, cx);
        }
    }

    #[cold]
    #[inline(never)]
    fn record_series_on(&self, now: SimTime, after: Option<(Option<u64>, usize)>, cx: &mut Net) {
        self.record_qdisc(now, cx);
        if let Some((sojourn, len)) = after {
            if let Some(sojourn) = sojourn {
                cx.rec.record(self.trace_sojourn(), now, || sojourn as f64 / 1e12);
            }
            cx.rec.record(self.trace_queue(), now, || len as f64);
        }
    }

    #[cold]
    #[inline(never)]
    fn record_qdisc_series(&self, ids: [Option<SeriesId>; MAX_QDISC_SERIES], now: SimTime, cx: &mut Net) {
        for (slot, id) in ids.into_iter().enumerate() {
            cx.rec.record(id, now, || self.qdisc.series_value(slot));
        }
    }

    /// The queue length series, if recorded.
    #[inline]
    fn trace_queue(&self) -> Option<SeriesId> {
        self.extras.as_deref().and_then(|x| x.trace_queue)
    }

    /// The sojourn time series, if recorded.
    #[inline]
    fn trace_sojourn(&self) -> Option<SeriesId> {
        self.extras.as_deref().and_then(|x| x.trace_sojourn)
    }

    #[inline(always)]
    fn tx_time(&mut self, bits: u32) -> SimDuration {
        if self.tx_bits0 == bits {
            return self.tx_time0;
        }
        if self.tx_bits1 == bits {
            return self.tx_time1;
        }
        let d = tx_time(bits, self.rate_bps);
        (self.tx_bits1, self.tx_time1) = (self.tx_bits0, self.tx_time0);
        (self.tx_bits0, self.tx_time0) = (bits, d);
        d
    }

    /// Starts transmitting `pkt`; `HOOKS`: the channel may have elements.
    #[inline(always)]
    fn start_tx<const HOOKS: bool>(&mut self, id: u32, now: SimTime, pkt: &Packet, cx: &mut Net) {
        let mut stamped;
        let pkt = if HOOKS && !self.elements().is_empty() {
            stamped = *pkt;
            self.transmit_elements(id, now, &mut stamped, cx);
            &stamped
        } else {
            pkt
        };
        let d = self.tx_time(pkt.bits);
        self.busy_until = now + d;
        self.counters.tx_pkts += 1;
        self.counters.tx_bits += pkt.bits as u64;
        self.counters.busy_ps += d.as_ps();
        self.to_pipe(id, pkt, cx);
    }

    /// Puts a packet whose transmission ends at `busy_until` into the pipe.
    #[inline(always)]
    fn to_pipe(&mut self, id: u32, pkt: &Packet, cx: &mut Net) {
        let mut arrival = self.busy_until + self.delay;
        // Arrivals in order by themselves (a timed channel without jitter: the line's
        // free time only grows and the delay is fixed): the pipe's line is read only if
        // the packet goes into the pipe.
        let ordered = self.timed && self.path & PATH_JITTER == 0;
        if !ordered {
            arrival = self.arrival_in_order(arrival);
        }
        if self.path & PATH_MERGES != 0 && !self.pipe_pending {
            // Into the next channel's merged arrivals (`net/merge.rs`), keyed as its arrival
            // event would be.
            let next = cx.routes[pkt.route as usize + pkt.hop as usize + 1];
            let m = cx.merge_of[next as usize];
            let key = EventQueue::arrival_key(arrival, id);
            if cx.merges[m as usize].push(key, pkt) {
                if key < cx.merge_first {
                    (cx.merge_first, cx.merge_next) = (key, m);
                }
                if !ordered {
                    self.pipe.set_not_before(arrival);
                }
                return;
            }
            cx.merge_refused += 1;
        }
        if self.path & PATH_FEEDS_CUT != 0 {
            // Cut-through: the next channel is fed by this one alone and is a timed FIFO
            // (its state depends only on its arrivals, in order), so the packet can be
            // offered to it now for its arrival time, saving the pipe-head event here.
            let next = cx.routes[pkt.route as usize + pkt.hop as usize + 1];
            // The next channel, or at the route's end the receiver (counted in the held
            // packets of its ack channel) or the window sender (counted on its data
            // channel; it checks its timers when it takes the ack).
            let target = if next != ROUTE_END { Some((next, next)) } else { end_counted(&cx.ends, pkt) };
            if let Some((next, counted)) = target {
                let held = &mut cx.held[counted as usize];
                if *held != NOT_CUT {
                    if *held == 0 && arrival < cx.horizon {
                        // Later packets must still arrive after this one.
                        if !ordered {
                            self.pipe.set_not_before(arrival);
                        }
                        debug_assert!(cx.cut_next.is_empty(), "two hand-overs at once");
                        cx.cut_next = Handover { pkt: *pkt, at: arrival, to: next };
                        return;
                    }
                    *held += 1;
                }
            }
        }
        self.pipe.push_back(&mut cx.pipes, arrival, pkt);
        if self.pipe.len() == 1 {
            self.pipe_pending = true;
            cx.ev.schedule(arrival, Event::PipeHead(id, self.pipe.head_node()));
        }
    }

    /// `arrival` with the channel's processing jitter added, and no earlier than the
    /// last arrival (a lowered delay or the jitter must not reorder the packets).
    #[inline]
    fn arrival_in_order(&mut self, mut arrival: SimTime) -> SimTime {
        if self.path & PATH_JITTER != 0 {
            if let Some(j) = self.queue.as_deref_mut().and_then(|q| q.jitter.as_deref_mut()) {
                arrival += SimDuration::from_ps((j.0.next_f64() * j.1 as f64) as u64);
            }
        }
        arrival.max(self.pipe.not_before())
    }

    /// Runs the elements' `on_arrival` in order until one drops the packet.
    #[inline(never)]
    fn arrival_elements(&mut self, id: u32, now: SimTime, pkt: &mut Packet, cx: &mut Net) -> ElemVerdict {
        cx.pending = true;
        let mut ecx = ElemCx { now, channel: id, node: self.from, meta: &mut cx.meta, emitted: &mut cx.emitted };
        for e in self.elements_mut().iter_mut() {
            let v = e.on_arrival(&mut ecx, pkt);
            if v != ElemVerdict::Pass {
                return v;
            }
        }
        ElemVerdict::Pass
    }

    /// Runs the elements' `on_transmit` in order.
    #[inline(never)]
    fn transmit_elements(&mut self, id: u32, now: SimTime, pkt: &mut Packet, cx: &mut Net) {
        let view = ChannelView {
            rate_bps: self.rate_bps,
            tx_bytes: self.counters.tx_bits / 8,
            tx_pkts: self.counters.tx_pkts,
            queued_pkts: self.qdisc.len_pkts(),
            queued_bits: self.qdisc.len_bits(),
        };
        cx.pending = true;
        let mut ecx = ElemCx { now, channel: id, node: self.from, meta: &mut cx.meta, emitted: &mut cx.emitted };
        for e in self.elements_mut().iter_mut() {
            e.on_transmit(&mut ecx, pkt, &view);
        }
    }

    /// Counts a drop and tells the elements; the packet goes to `cx.drops`.
    #[cold]
    #[inline(never)]
    fn drop_pkt(&mut self, id: u32, now: SimTime, pkt: Packet, reason: DropReason, cx: &mut Net) {
        self.count_drop(reason);
        self.queue_event(id, now, &pkt, QueueEvent::Dropped(reason), cx);
        cx.drops.push((pkt, reason));
        cx.pending = true;
    }

    fn queue_event(&mut self, id: u32, now: SimTime, pkt: &Packet, ev: QueueEvent, cx: &mut Net) {
        if !self.elements().is_empty() {
            cx.pending = true;
            let mut ecx = ElemCx { now, channel: id, node: self.from, meta: &mut cx.meta, emitted: &mut cx.emitted };
            for e in self.elements_mut().iter_mut() {
                e.on_queue_event(&mut ecx, pkt, ev);
            }
        }
    }

    /// Offers a packet; drops (if any) are appended to `cx.drops`.
    #[inline(always)]
    pub fn enqueue(&mut self, id: u32, now: SimTime, pkt: &Packet, cx: &mut Net) {
        self.counters.offered += 1;
        if self.timed {
            if self.path & PATH_ADMIT == 0 {
                self.enqueue_timed(id, now, pkt, cx);
            } else {
                self.enqueue_admitted(id, now, *pkt, cx);
            }
        } else if self.plain {
            if now >= self.busy_until && !self.tx_pending && self.qdisc.len_pkts() == 0 {
                self.start_tx::<false>(id, now, pkt, cx);
                return;
            }
            self.enqueue_plain_queued(id, now, pkt, cx);
        } else {
            self.enqueue_hooked(id, now, pkt, cx);
        }
    }

    /// Enqueue on a plain channel that is not timed, while it is busy: out of line, so
    /// that the discipline's path is not copied into every caller of `enqueue` (timed
    /// channels, the common case, never take it).
    #[inline(never)]
    fn enqueue_plain_queued(&mut self, id: u32, now: SimTime, pkt: &Packet, cx: &mut Net) {
        self.enqueue_queued(id, now, pkt, false, cx);
    }

    /// Enqueue on a channel with elements or without the idle shortcut.
    #[inline(never)]
    fn enqueue_hooked(&mut self, id: u32, now: SimTime, pkt: &Packet, cx: &mut Net) {
        // The packet as the elements leave it (a copy only if there are elements: the
        // discipline's enqueue makes the one copy of the common path).
        let own;
        let pkt = if self.elements().is_empty() {
            pkt
        } else {
            let mut p = *pkt;
            if let ElemVerdict::Drop(reason) = self.arrival_elements(id, now, &mut p, cx) {
                self.drop_pkt(id, now, p, reason, cx);
                return;
            }
            own = p;
            &own
        };
        // (Idle means empty: packets queued always have a departure pending, `serve`.)
        let idle = now >= self.busy_until && !self.tx_pending;
        debug_assert!(!idle || self.qdisc.len_pkts() == 0, "packets queued with no departure pending");
        if idle {
            if self.bypass {
                self.start_tx::<true>(id, now, pkt, cx);
                return;
            }
            // Without extras (no elements, no series) nothing sees the packet between
            // the discipline's enqueue and dequeue: the discipline may do both at once.
            if self.extras.is_none() {
                match self.qdisc.pass_idle(now, pkt.bits, || cx.routes[pkt.route as usize - 1]) {
                    IdlePass::Unsupported => {}
                    IdlePass::Sent => {
                        // As `enqueue_queued` + `serve`: the queue was empty until now
                        // (`account_queue` would add 0 to its integral), the sojourn is 0.
                        self.idle_pass_mark(now);
                        self.start_tx::<false>(id, now, pkt, cx);
                        return;
                    }
                    IdlePass::Dropped(reason) => {
                        self.idle_pass_mark(now);
                        self.drop_pkt(id, now, *pkt, reason, cx);
                        return;
                    }
                }
            }
        }
        self.enqueue_queued(id, now, pkt, idle && !self.bypass, cx);
    }

    /// The queue's integral counted up to `now` after a packet passed an idle
    /// discipline: the queue was empty, so without the queue state there is nothing to
    /// count.
    #[inline]
    fn idle_pass_mark(&mut self, now: SimTime) {
        if let Some(q) = self.queue.as_deref_mut() {
            q.queue_last_change = now;
        }
    }

    /// Offers the packet to the discipline; `serve_now`: the transmitter is idle and the
    /// discipline saw the arrival, so start the next packet at once.
    #[inline(always)]
    fn enqueue_queued(&mut self, id: u32, now: SimTime, pkt: &Packet, serve_now: bool, cx: &mut Net) {
        let mut len = self.account_queue(now) + 1;
        let before = cx.drops.len();
        let conv = cx.routes[pkt.route as usize - 1];
        let verdict = self.qdisc.enqueue(now, *pkt, conv, &mut cx.drops);
        if cx.drops.len() > before {
            cx.pending = true;
            len -= cx.drops.len() - before;
            self.evicted(id, now, before, cx);
        }
        match verdict {
            Verdict::Queued => {}
            Verdict::Marked => {
                self.losses_mut().marks += 1;
                self.queue_event(id, now, pkt, QueueEvent::Marked, cx);
            }
            Verdict::Dropped(reason) => {
                len -= 1;
                self.drop_pkt(id, now, *pkt, reason, cx)
            }
        }
        // The discipline's length, counted here: it queued the arrival unless it dropped
        // it, and every packet it evicted went to `cx.drops`.
        debug_assert_eq!(len, self.qdisc.len_pkts(), "a discipline's queue changed unseen");
        self.queue_mut().qdisc_len = len;
        if serve_now {
            self.record_series(now, None, cx);
            self.serve(id, now, len, cx);
        } else {
            self.record_series(now, Some((None, len)), cx);
            let len = len as u64;
            self.queue_max = self.queue_max.max(len);
            if !self.tx_pending && len > 0 {
                self.tx_pending = true;
                cx.schedule_departure(self.busy_until.max(now), id);
            }
        }
        debug_assert!(
            self.check_conservation(),
            "channel {}->{}: offered != drops + transmitted + queued",
            self.from,
            self.to
        );
    }

    /// Counts the packets the discipline pushed to `cx.drops` from index `from` on.
    #[cold]
    fn evicted(&mut self, id: u32, now: SimTime, from: usize, cx: &mut Net) {
        for i in from..cx.drops.len() {
            let (p, reason) = cx.drops[i];
            self.count_drop(reason);
            self.queue_event(id, now, &p, QueueEvent::Dropped(reason), cx);
        }
    }

    /// Counts an ECN mark the discipline set at dequeue (CoDel) and tells the elements.
    #[cold]
    fn dequeue_mark(&mut self, id: u32, now: SimTime, pkt: &Packet, cx: &mut Net) {
        self.losses_mut().marks += 1;
        self.queue_event(id, now, pkt, QueueEvent::Marked, cx);
    }

    /// The transmitter is free: start the next queued packet.
    #[inline(never)]
    pub fn on_tx_done(&mut self, id: u32, now: SimTime, cx: &mut Net) {
        self.on_tx_done_inline(id, now, cx);
    }

    /// `on_tx_done`, inlined into the caller (the run loop's departure from the slot,
    /// `Simulation::departure`, one call fewer per departure).
    #[inline(always)]
    pub fn on_tx_done_inline(&mut self, id: u32, now: SimTime, cx: &mut Net) {
        self.tx_pending = false;
        let len = self.account_queue(now);
        self.serve(id, now, len, cx);
    }

    /// Starts the next packet the discipline gives (the transmitter is free); `len`:
    /// the packets queued in the discipline.
    #[inline(always)]
    fn serve(&mut self, id: u32, now: SimTime, mut len: usize, cx: &mut Net) {
        let before = cx.drops.len();
        let next = self.qdisc.dequeue(now, &mut cx.drops);
        if cx.drops.len() > before {
            cx.pending = true;
            len -= cx.drops.len() - before;
            self.queue_mut().qdisc_len = len;
            self.evicted(id, now, before, cx);
        }
        // Every discipline gives a packet while it holds one, so a channel whose
        // discipline is not empty always has a departure pending (`enqueue` reads an idle
        // line as an empty discipline).
        debug_assert!(next.is_some() || len == 0, "a discipline held packets and gave none");
        if let Some((p, enqueued)) = next {
            // A discipline that marks at dequeue sets CE on the packet it returns
            // (`Qdisc::dequeue_marked`): a packet without CE was not marked here.
            debug_assert!(p.has(FLAG_CE) || !self.qdisc.dequeue_marked());
            if p.has(FLAG_CE) && self.qdisc.dequeue_marked() {
                self.dequeue_mark(id, now, &p, cx);
            }
            let sojourn = (now - enqueued).as_ps();
            self.queue_mut().sojourn_ps += sojourn as u128;
            self.sojourn_max_ps = self.sojourn_max_ps.max(sojourn);
            if self.plain {
                self.start_tx::<false>(id, now, &p, cx);
            } else {
                self.start_tx::<true>(id, now, &p, cx);
            }
            len -= 1;
            debug_assert_eq!(len, self.qdisc.len_pkts(), "a discipline's queue changed unseen");
            self.queue_mut().qdisc_len = len;
            self.record_series(now, Some((Some(sojourn), len)), cx);
            if len > 0 {
                self.tx_pending = true;
                cx.schedule_departure(self.busy_until, id);
            }
        } else {
            self.record_series(now, None, cx);
        }
        debug_assert!(
            self.check_conservation(),
            "channel {}->{}: offered != drops + transmitted + queued",
            self.from,
            self.to
        );
    }

    /// The head of the pipe arrives at the far end: returns it.
    #[inline]
    pub fn on_pipe_head(&mut self, id: u32, now: SimTime, cx: &mut Net) -> Packet {
        let (t, p) = self.pipe.pop_front(&mut cx.pipes);
        debug_assert_eq!(t, now);
        if self.pipe.is_empty() {
            // (Line 0 only for a merging channel, the one that reads the flag.)
            if self.merges {
                self.pipe_pending = false;
            }
        } else {
            // The new head's node is read at its event (and, with hints two events
            // ahead, one event before: `Simulation::prefetch_two_ahead`): start loading
            // it now.
            cx.pipes.prefetch(self.pipe.head_node());
            cx.ev.schedule(self.pipe.head_at(), Event::PipeHead(id, self.pipe.head_node()));
        }
        p
    }

    /// An element's timer fired.
    pub fn on_element_timer(
        &mut self,
        id: u32,
        k: u32,
        now: SimTime,
        meta: &mut MetaSlab,
        emit: &mut Vec<Emit>,
    ) -> Option<SimTime> {
        let mut ecx = ElemCx { now, channel: id, node: self.from, meta, emitted: emit };
        self.elements_mut()[k as usize].on_timer(&mut ecx)
    }

    /// Scheduled change of rate and/or delay. A packet in transmission keeps its timing.
    pub fn change(&mut self, now: SimTime, rate_bps: Option<u64>, delay: Option<SimDuration>) {
        debug_assert!(
            !self.timed,
            "channel {}->{}: a changed channel must not be timed (set_timed)",
            self.from, self.to
        );
        if let Some(r) = rate_bps {
            self.account_capacity(now);
            let x = self.extras_mut();
            x.rate_changes += 1;
            x.rate_since = now;
            x.rate_history.push((now, r));
            self.qdisc.set_rate(now, r);
            self.rate_bps = r;
            (self.tx_bits0, self.tx_time0) = (0, SimDuration::ZERO);
            (self.tx_bits1, self.tx_time1) = (0, SimDuration::ZERO);
        }
        if let Some(d) = delay {
            self.delay = d;
        }
    }

    /// Calls `f` on every packet queued, in transmission or propagating (a timed
    /// channel's waiting packets are in its pipe).
    pub fn for_each_packet(&self, pipes: &PipePool, f: &mut dyn FnMut(&Packet)) {
        self.qdisc.for_each(f);
        self.pipe.for_each(pipes, &mut |_, p| {
            if p.flags & crate::packet::FLAG_GHOST == 0 {
                f(p)
            }
        });
    }

    /// Hands over, in order, the packets of this channel's pipe that wait for their
    /// arrival event only because a snapshot came first (`Net::held`), if they now
    /// arrive before the horizon: each goes to `cx.cut` and stays in the pipe as a ghost
    /// (ignored when it arrives). Called right after a snapshot.
    pub fn release_held(&mut self, cx: &mut Net) {
        if self.path & PATH_FEEDS_CUT == 0 {
            return;
        }
        let Net { pipes, routes, held, cut, horizon, pending, ends, .. } = cx;
        self.pipe.for_each_mut(pipes, &mut |at, p| {
            if p.flags & crate::packet::FLAG_GHOST != 0 {
                return;
            }
            let mut next = routes[p.route as usize + p.hop as usize + 1];
            let mut counted = next;
            if next == ROUTE_END {
                // (An ack to its sender is released whatever the sender's timers: the
                // sender checks them when it takes the ack.)
                let Some((target, c)) = end_counted(ends, p) else { return };
                (next, counted) = (target, c);
            }
            let h = &mut held[counted as usize];
            if *h != NOT_CUT && *h > 0 && at < *horizon {
                *h -= 1;
                cut.push((next, at, *p));
                p.flags |= crate::packet::FLAG_GHOST;
                *pending = true;
            }
        });
    }

    /// Packets waiting for the transmitter (after `settle` for a timed channel).
    pub fn queued_pkts(&self) -> usize {
        self.qdisc.len_pkts() + self.waiting()
    }

    /// Packets in the timed queue.
    fn waiting(&self) -> usize {
        self.queue.as_deref().map_or(0, |q| q.waiting.len())
    }

    /// Packets in the pipe (including the one being serialised; a timed channel's pipe
    /// also holds its waiting packets, which are not counted here), given the number of
    /// its packets propagating in the next channel's `Merge` (`set_merges`).
    pub fn in_pipe(&self, merged: usize) -> usize {
        // (Saturating: in a run stopped early, waiting packets may already have been
        // handed to the next channel at send time, `set_feeds_cut`.)
        (self.pipe.len() + merged).saturating_sub(self.waiting())
    }

    /// Counts a drop for `reason` in its slot: `overflow` inline, the discipline's
    /// reasons in the queue state, an element's in the extras.
    #[inline]
    fn count_drop(&mut self, reason: DropReason) {
        let i = reason.index();
        if i == DropReason::Overflow.index() {
            self.losses_mut().overflow += 1;
        } else if i < N_QDISC_DROP_REASONS {
            let first = self.qdisc.first_drop_reason();
            debug_assert!(
                (first..first + self.qdisc.drop_reasons().len()).contains(&i),
                "channel {}->{}: the {} discipline dropped for '{}', not one of its reasons",
                self.from,
                self.to,
                self.qdisc.name(),
                reason.name()
            );
            self.losses_mut().drops[i - first] += 1;
        } else {
            self.extras_mut().element_drops[i - N_QDISC_DROP_REASONS] += 1;
        }
    }

    /// Packets dropped (all reasons).
    pub fn drops(&self) -> u64 {
        let elements: u64 = self.extras.as_deref().map_or(0, |x| x.element_drops.iter().sum());
        let own: u64 = self
            .queue
            .as_deref()
            .and_then(|q| q.losses.as_deref())
            .map_or(0, |l| l.overflow + l.drops.iter().sum::<u64>());
        own + elements
    }

    /// The counters, with the drops per reason of the whole table (`DropReason::ALL`)
    /// from the channel's local slots.
    pub fn counters(&self) -> ChannelCounters {
        let c = &self.counters;
        let mut by_reason = [0; N_DROP_REASONS];
        let (mut queue_integral, mut sojourn_ps, mut marks) = (0, 0, 0);
        if let Some(q) = self.queue.as_deref() {
            (queue_integral, sojourn_ps) = (q.queue_integral, q.sojourn_ps);
            if let Some(l) = q.losses.as_deref() {
                by_reason[DropReason::Overflow.index()] = l.overflow;
                let first = self.qdisc.first_drop_reason();
                let n = self.qdisc.drop_reasons().len();
                by_reason[first..first + n].copy_from_slice(&l.drops[..n]);
                marks = l.marks;
            }
        }
        let mut rate_changes = 0;
        if let Some(x) = self.extras.as_deref() {
            by_reason[N_QDISC_DROP_REASONS..].copy_from_slice(&x.element_drops);
            rate_changes = x.rate_changes;
        }
        ChannelCounters {
            busy_ps: c.busy_ps,
            offered: c.offered,
            tx_pkts: c.tx_pkts,
            tx_bits: c.tx_bits,
            queue_integral,
            sojourn_ps,
            capacity: self.capacity(),
            drops_by_reason: by_reason,
            marks,
            rate_changes,
        }
    }

    /// The conservation identity: offered = drops (of all reasons) + transmitted + queued.
    pub fn check_conservation(&self) -> bool {
        self.counters.offered == self.drops() + self.counters.tx_pkts + self.queued_pkts() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;
    use crate::qdisc::Fcfs;

    fn pkt(seq: u32) -> Packet {
        Packet {
            flow: 0,
            seq,
            bits: 1000,
            route: 0,
            hop: 0,
            kind: PacketKind::Data,
            flags: 0,
            meta: 0,
            ts: SimTime::ZERO,
        }
    }

    #[test]
    fn the_queue_state_is_made_only_when_a_packet_waits() {
        // 1 Mbit/s: a 1000-bit packet takes 1 ms = 10^9 ps.
        let mut c =
            Channel::new(0, 1, 1_000_000, SimDuration::from_millis(1), AnyQdisc::Fcfs(Fcfs::new(Limit::Packets(10))));
        c.set_timed(true, false);
        let mut cx = Net::default();
        // Packets at the line's pace (0 and 1 ms) find the line free: no queue state.
        c.enqueue(0, SimTime::ZERO, &pkt(0), &mut cx);
        c.enqueue(0, SimTime::from_millis(1), &pkt(1), &mut cx);
        assert!(c.queue.is_none());
        // At 1.5 ms the line is busy until 2 ms: the packet waits 0.5 ms.
        c.enqueue(0, SimTime::from_ps(1_500_000_000), &pkt(2), &mut cx);
        assert!(c.queue.is_some());
        c.settle(SimTime::from_millis(3));
        let k = c.counters();
        // Three packets of 1 ms each; the third waited 0.5 ms = 5 x 10^8 ps (its
        // sojourn, and one packet queued for it: the queue integral); the capacity is
        // 10^6 bit/s x 3 x 10^9 ps.
        assert_eq!((k.offered, k.tx_pkts, k.tx_bits, k.busy_ps), (3, 3, 3000, 3_000_000_000));
        assert_eq!((k.sojourn_ps, k.queue_integral), (500_000_000, 500_000_000));
        assert_eq!(k.capacity, 3_000_000_000_000_000);
        assert_eq!((c.queue_max, c.sojourn_max_ps, k.drops()), (1, 500_000_000, 0));
    }

    #[test]
    fn the_capacity_integral_carries_over_into_the_extras_at_a_rate_change() {
        let mut c = Channel::new(0, 1, 1_000_000, SimDuration::ZERO, AnyQdisc::Fcfs(Fcfs::new(Limit::Packets(10))));
        // 10^6 bit/s for 1 s = 10^12 ps: 10^18; then 2 x 10^6 bit/s for 1 s: 2 x 10^18.
        c.settle(SimTime::from_secs(1));
        assert_eq!(c.counters().capacity, 1_000_000_000_000_000_000);
        c.change(SimTime::from_secs(1), Some(2_000_000), None);
        c.settle(SimTime::from_secs(2));
        let k = c.counters();
        assert_eq!((k.capacity, k.rate_changes), (3_000_000_000_000_000_000, 1));
        assert!(c.queue.is_none(), "nothing waited");
    }
}
