//! The simulation: builds arenas from a `Scenario` and runs the event loop.
//!
//! All state lives in one owned `Simulation` value (no globals), in vectors indexed by
//! dense ids: channels, routes (lists of channel ids), flows. All routes are stored in
//! one flat array: each route is its conversation id (its Fair Queueing class: by default
//! one per flow route, so a flow's data and its acks are two conversations; with
//! `[scenario].conversations = "host_pair"` one per (first node, last node) pair; see
//! `ConvIds`), then its channel ids, then the sentinel `ROUTE_END`.
//! A packet carries the offset of its route's first channel and its hop index, so
//! forwarding is one load, `net.routes[p.route + p.hop]`, and the conversation is
//! `net.routes[p.route - 1]`.
//!
//! Packets that reach the end of their route go to the flow's endpoint (data to the
//! receiver side, acks to the sender side); control packets of no flow are counted by
//! the host they reach. Either way their metadata slot is given back, as it is for every
//! dropped packet.
//!
//! This file holds the state and the event loop; `build` builds a simulation from a
//! scenario (`flows`: each flow's two ends from its spec), `endpoints` delivers to the
//! flows' ends what the loop does not, `fast` has the fast paths (merged arrivals,
//! hand-over at send time, prefetch hints), and `slices` sizes a front end's slices of a
//! run.

use crate::base::stats::DelayStats;
use crate::base::time::{SimDuration, SimTime};
use crate::net::event::{Event, EventQueue};
use crate::net::{end_counted, Channel, ChannelCounters, Handover, Net, DEPARTURE, NOT_CUT};
use crate::packet::{Packet, PacketKind, FLAG_GHOST, NO_FLOW};
use crate::scenario::Scenario;
use crate::transport::sender::WindowSender;
use crate::transport::timer::Fired;
use crate::transport::{FlowCounters, Io};
pub use crate::transport::{Receiver, Sender};
use std::collections::BTreeMap;

pub(crate) use crate::net::ROUTE_END;

/// State size (channels and endpoints) above which the event loop prefetches
/// (`Simulation::set_prefetch`): 1 MiB, twice the 512 KiB second-level cache of a core
/// of the machine it was measured on. Bench dumbbell (docs/performance.md): 100 flows
/// (0.27 MB) no faster with all hints (they add instructions), 300 and 600 flows no
/// difference measurable, 1000 flows (2.7 MB) 8 % faster, 10^4 flows 36 % faster.
/// Below it the loop still hints the one line that misses there too: the next event's
/// pipe node, when that event is in the current bucket (`EventQueue::peek_near`).
pub const PREFETCH_ABOVE_BYTES: usize = 1 << 20;

/// Events a run takes between two looks at the merged arrivals' rings
/// (`Net::trim_merges`).
const TRIM_EVERY: u64 = 1 << 16;

/// State size above which the hints reach two events ahead instead of one
/// (`Simulation::set_prefetch_ahead`): 8 MiB, a quarter of the machine's shared 32 MiB
/// last-level cache, where most misses go to memory and one event's work is too short to
/// hide them. Bench dumbbell (docs/performance.md): 10^4 flows (27 MB) 14 %
/// faster with two, 1000 flows (2.7 MB) 3 % slower.
pub const PREFETCH_TWO_AHEAD_ABOVE_BYTES: usize = 8 << 20;

/// A flow's two ends: a sender policy and a receiver policy, and the counters both
/// keep.
///
/// `repr(C, align(64))`, in this order: the counters' first 64 bytes (what both ends
/// update per packet, `FlowCounters`) fill line 0; the start time and the source host
/// complete line 2 and the sender's enum tag begins line 3, so a window sender starts 8
/// bytes into it (its hot fields `WindowSender` lays out for that, in lines 3 to 6); the
/// delay statistics' pointer (read per data packet) begins line 10 and the receiver
/// follows it, its hot fields first (`AckReceiver`), so a data packet's own lines are 0,
/// 10 and 11. At 10^4 flows and more every line a
/// round trip touches is a cache miss; unaligned (a boxed endpoint started anywhere on a
/// 16-byte boundary), the per-packet counters spanned two lines in three endpoints out
/// of four.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Endpoint {
    pub counters: FlowCounters,
    /// When the flow starts (its `start` plus its start jitter).
    pub start: SimTime,
    /// The flow's source host (control packets arriving there go to the sender).
    pub src: u32,
    pub sender: Sender,
    /// Delay statistics, for flows that ask for them (`[measure].delays`).
    pub delay: Option<Box<FlowDelay>>,
    pub receiver: Receiver,
}

/// Lines from `Endpoint::sender`'s first that hold what a plain window sender's ack
/// path reads and writes (`transport::sender::hot_field_spans`), and from
/// `Endpoint::receiver`'s first that hold an ack receiver's data path with the delay
/// statistics' pointer: what `prefetch_packet` hints (checked in `transport/sizes.rs`).
pub(crate) const SENDER_HOT_LINES: usize = 4;
pub(crate) const RECEIVER_HOT_LINES: usize = 2;

/// A flow's delay statistics and the cached base delay of its data route.
#[derive(Debug, Default)]
pub struct FlowDelay {
    pub stats: DelayStats,
    /// (packet size in bits, change generation) the base delay was computed for.
    key: (u32, u32),
    /// Propagation plus transmission time of a packet of that size along the route, ps.
    base_ps: u64,
    /// Packets arriving before this time are not counted (`[measure].start`).
    from: SimTime,
}

impl FlowDelay {
    /// Empty statistics counting packets that arrive from `from` on (`SimTime::MAX`:
    /// none, for a kind whose data is not measured); no base delay cached yet.
    pub(super) fn counting_from(from: SimTime) -> Box<Self> {
        Box::new(FlowDelay { key: (u32::MAX, 0), from, ..Default::default() })
    }
}

impl Endpoint {
    pub fn counters(&self) -> &FlowCounters {
        &self.counters
    }

    /// The window sender, if this flow has one.
    pub fn window(&self) -> Option<&WindowSender> {
        self.sender.window()
    }
}

/// Counters at one measurement boundary.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub time: SimTime,
    pub flows: Vec<FlowCounters>,
    pub channels: Vec<ChannelCounters>,
}

pub struct Simulation {
    pub scenario: Scenario,
    pub seed: u64,
    /// Events, routes, metadata, recorder and scratch buffers shared with the channels.
    pub net: Net,
    pub channels: Vec<Channel>,
    pub flows: Vec<Endpoint>,
    /// Scratch: packets emitted by an endpoint, injected right after the call.
    out: Vec<Packet>,
    /// Scratch: the acks of a receiver that took a packet at send time, or the packets of
    /// a sender that took an ack at send time (apart from `out`, which may be being sent
    /// when that happens).
    rx_out: Vec<Packet>,
    /// Acks a sender could not take at send time, waiting for their `Event::Parked`
    /// (`send_early`), and the free slots.
    parked: Vec<Packet>,
    parked_free: Vec<u32>,
    acks_parked: u64,
    /// Whether pacing timers may fire ahead of the clock (`set_early_pacing`).
    early_pacing: bool,
    /// Per flow, how far ahead of the clock its pacing timer may fire
    /// (`Simulation::set_early_pacing`), found when first needed (`pace_lead_of`).
    pace_lead: Vec<PaceLead>,
    /// Sender timers fired ahead of the clock so far.
    timers_early: u64,
    /// Routes of element-emitted packets, by (from node, to node): route offset.
    emit_routes: BTreeMap<(u32, u32), u32>,
    /// Conversation ids of routes (`[scenario].conversations`).
    convs: ConvIds,
    /// Adjacency (node -> neighbours, in link order) for routing emitted packets: built
    /// at the first such route (or for ECMP at build), never for a scenario without.
    adj: Option<Vec<Vec<usize>>>,
    /// Control packets of no flow received, per node.
    pub node_control_rx: Vec<u64>,
    /// Emitted packets for which no route existed.
    pub unroutable: u64,
    /// Scheduled changes applied so far (invalidates cached path delays).
    changes_applied: u32,
    /// Boundary times of phases and intervals, sorted, with their snapshots once taken.
    pub boundaries: Vec<SimTime>,
    pub snapshots: Vec<Option<Snapshot>>,
    end: SimTime,
    /// Index in `boundaries` of the next snapshot (for the cut-through horizon).
    next_snapshot: usize,
    /// `run_until`'s limit on the cut-through horizon (`SimTime::MAX`: none).
    cut_cap: SimTime,
    /// How many events ahead the loop issues cache prefetch hints: 0 (only the near
    /// pipe node), 1 or 2 (`set_prefetch_ahead`).
    prefetch_ahead: u8,
    finished: bool,
    /// Stopped before the end (max_events, max_wall, interrupted).
    stopped: Option<StopReason>,
    /// The flows built at their start (`sim/lifecycle.rs`), if any.
    life: Option<Box<Lifecycle>>,
    /// The first slot of those (`Lifecycle::first`), `u32::MAX` without.
    lazy_slot: u32,
}

/// Why a run stopped before the end of its scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// `[scenario].max_events` (or the front end's `--max-events`) was reached.
    MaxEvents,
    /// `[scenario].max_wall` (or `--max-wall`) was reached.
    MaxWall,
    /// The user interrupted the run (Ctrl-C).
    Interrupted,
}

/// The `Io` of an endpoint callback of `ep` (borrowed from `$sim.flows`) at `$now`:
/// its counters, the simulation's output buffer, metadata and recorder.
macro_rules! io {
    ($sim:ident, $ep:ident, $now:expr) => {
        io!($sim, $ep, $now, out)
    };
    // Into another output buffer of the simulation (`rx_out`: endpoints' steps taken at
    // send time, `sim/fast.rs`).
    ($sim:ident, $ep:ident, $now:expr, $out:ident) => {
        Io {
            now: $now,
            counters: &mut $ep.counters,
            out: &mut $sim.$out,
            meta: &mut $sim.net.meta,
            rec: &mut $sim.net.rec,
        }
    };
}

// (After `io!`, which they use.)
mod build;
mod endpoints;
mod fast;
mod flows;
pub(crate) mod lifecycle;
pub mod slices;

use build::ConvIds;
use fast::PaceLead;
use lifecycle::Lifecycle;
pub(crate) use lifecycle::{FlowView, Flows};

impl Simulation {
    /// Name of channel `i` ("from->to"), built on demand: channels keep no strings.
    pub fn channel_name(&self, i: usize) -> String {
        channel_name(&self.scenario, &self.channels[i])
    }

    /// Name of the duplex link channel `i` belongs to (link k gives channels 2k, 2k+1).
    pub fn channel_link(&self, i: usize) -> &str {
        &self.scenario.links[i / 2].name
    }

    /// Number of events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.net.ev.events_processed()
    }

    /// Runs until the end of the scenario (events at exactly the end time included), or
    /// until `[scenario].max_events`.
    pub fn run(&mut self) {
        while !self.run_slice(u64::MAX) {}
    }

    /// Runs at most `max_events` more events. Returns true when the run is over: the end
    /// of the scenario was reached, `[scenario].max_events` stopped it, or `stop` was
    /// called. Front ends run in slices to show progress and to stop on Ctrl-C.
    pub fn run_slice(&mut self, max_events: u64) -> bool {
        if self.finished || self.stopped.is_some() {
            return true;
        }
        let mut budget = max_events;
        if let Some(limit) = self.scenario.max_events {
            let left = limit.saturating_sub(self.events_processed());
            if left == 0 {
                self.stopped = Some(StopReason::MaxEvents);
                return true;
            }
            budget = budget.min(left);
        }
        let end = self.end;
        // In chunks of `TRIM_EVERY` events, between which the merged arrivals' rings give
        // back memory they no longer need (`Net::trim_merges`; the rings' sizes change
        // no result).
        while budget > 0 {
            let chunk = budget.min(TRIM_EVERY);
            for _ in 0..chunk {
                if !self.step(end) {
                    self.finished = true;
                    self.measure_end_again();
                    return true;
                }
            }
            budget -= chunk;
            self.net.trim_merges();
        }
        false
    }

    /// Runs the next event not later than `until`, from the queue or, if its key comes
    /// first, the first of the merged arrivals (`net/merge.rs`); false if there is none.
    ///
    /// A merged arrival goes to `merged` directly rather than as an `Event::Merged`
    /// value: built on the stack (its tag and index written as two 4-byte stores) and
    /// read back as one 8-byte word beside the queue's events, the value cannot be
    /// forwarded from the store buffer, and the load waited for the stores to reach the
    /// cache, about a tenth of the run loop's time at 1000 flows (sampled with `perf`).
    #[inline(always)]
    fn step(&mut self, until: SimTime) -> bool {
        let bound = self.net.merge_first;
        if let Some((now, e)) = self.net.ev.pop_before(until, bound) {
            self.dispatch(now, e);
            return true;
        }
        let t = EventQueue::key_time(bound);
        if bound == u128::MAX || t > until {
            return false;
        }
        self.net.ev.pass_to(t);
        self.merged(t, self.net.merge_next);
        true
    }

    /// Stops the run before its end (the results are then partial, with this reason).
    pub fn stop(&mut self, reason: StopReason) {
        if !self.finished {
            self.stopped = Some(reason);
        }
    }

    /// Why the run stopped early, if it did.
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.stopped
    }

    /// Simulated time reached so far.
    pub fn now(&self) -> SimTime {
        if self.finished {
            self.end
        } else {
            self.net.ev.now()
        }
    }

    /// Runs all events up to and including `until` (capped at the scenario's end).
    pub fn run_until(&mut self, until: SimTime) {
        let until = until.min(self.end);
        // Nothing may be handed over at send time for an arrival after `until` (the
        // caller may read the state there).
        self.cut_cap = until + SimDuration::from_ps(1);
        self.update_horizon();
        while self.step(until) {}
        self.cut_cap = SimTime::MAX;
        self.update_horizon();
    }

    #[inline(always)]
    fn dispatch(&mut self, now: SimTime, e: Event) {
        match e {
            Event::TxDone(c) => {
                self.channels[c as usize].on_tx_done(c, now, &mut self.net);
                self.after_channel(now);
            }
            Event::PipeHead(c, _) => {
                if self.prefetch_ahead == 2 {
                    self.prefetch_two_ahead();
                } else if self.prefetch_ahead == 1 {
                    self.prefetch_next();
                } else if let Some(Event::PipeHead(_, n)) = self.net.ev.peek_near() {
                    // The next event's pipe node (written one propagation delay ago, out
                    // of the first-level cache at any scale): a cheap look, no search.
                    self.net.pipes.prefetch(n);
                }
                let p = self.channels[c as usize].on_pipe_head(c, now, &mut self.net);
                if self.prefetch_ahead == 1 {
                    self.prefetch_packet(&p);
                }
                self.arrive(c, now, p);
            }
            // (Never from the queue: `step` takes merged arrivals itself.)
            Event::Merged(m) => self.merged_out_of_line(now, m),
            Event::ElementTimer(c, k) => {
                let next =
                    self.channels[c as usize].on_element_timer(c, k, now, &mut self.net.meta, &mut self.net.emitted);
                self.net.pending = true;
                if let Some(t) = next {
                    self.net.ev.schedule(t.max(now), Event::ElementTimer(c, k));
                }
                self.after_channel(now);
            }
            Event::FlowTimer(f, gen) => {
                let ep = &mut self.flows[f as usize];
                let Some(timer) = ep.sender.timers().0 else { return };
                match timer.fire(gen, now) {
                    Fired::Ignore => {}
                    Fired::Reschedule(t, g) => self.net.ev.schedule(t, Event::FlowTimer(f, g)),
                    Fired::Expire => {
                        ep.sender.on_timer(io!(self, ep, now));
                        self.flush(f, now);
                    }
                }
            }
            Event::PaceTimer(f, gen) => {
                let ep = &mut self.flows[f as usize];
                let Some(pace) = ep.sender.timers().1 else { return };
                match pace.fire(gen, now) {
                    Fired::Ignore => {}
                    Fired::Reschedule(t, g) => self.pace_ahead(f, now, t, g),
                    Fired::Expire => {
                        ep.sender.on_pace(io!(self, ep, now));
                        self.flush(f, now);
                    }
                }
            }
            Event::RecvTimer(f, gen) => {
                let ep = &mut self.flows[f as usize];
                let Some(timer) = ep.receiver.timer() else { return };
                match timer.fire(gen, now) {
                    Fired::Ignore => {}
                    Fired::Reschedule(t, g) => self.net.ev.schedule(t, Event::RecvTimer(f, g)),
                    Fired::Expire => {
                        ep.receiver.on_timer(io!(self, ep, now));
                        self.flush(f, now);
                    }
                }
            }
            Event::FlowStart(f) => {
                let f = if f >= self.lazy_slot {
                    if let Some((t, next)) = self.life.as_deref_mut().and_then(|l| l.next_start()) {
                        self.net.ev.schedule(t, Event::FlowStart(next));
                    }
                    self.start_lazy(f, now)
                } else {
                    f
                };
                let ep = &mut self.flows[f as usize];
                ep.sender.start(io!(self, ep, now));
                self.flush(f, now);
            }
            Event::SourceTick(f) => {
                let ep = &mut self.flows[f as usize];
                if let Some(t) = ep.sender.on_tick(io!(self, ep, now)) {
                    self.net.ev.schedule(t, Event::SourceTick(f));
                }
                self.flush(f, now);
            }
            Event::Snapshot(k) => self.snapshot(k as usize, now),
            Event::Parked(i, _) => {
                let p = self.parked[i as usize];
                self.parked_free.push(i);
                let c = self.net.routes[p.route as usize + p.hop as usize];
                self.arrive(c, now, p);
            }
            Event::Change(i) => {
                self.changes_applied += 1;
                let c = &self.scenario.changes[i as usize];
                for &ch in &c.channels {
                    let extra = self.scenario.nodes[self.channels[ch].to as usize].processing_delay;
                    self.channels[ch].change(now, c.rate_bps, c.delay.map(|d| d + extra));
                }
            }
        }
    }

    /// The first of merged arrivals `m` (`Net::merges`), or the departure in the slot
    /// (`DEPARTURE`).
    #[inline(always)]
    fn merged(&mut self, now: SimTime, m: u32) {
        if m == DEPARTURE {
            return self.departure(now);
        }
        let p = self.net.merge_pop(m);
        if self.prefetch_ahead > 0 {
            if let Some(q) = self.net.merges.get(self.net.merge_next as usize).and_then(|g| g.front()) {
                self.prefetch_packet(q);
            }
        }
        let c = self.net.routes[p.route as usize + p.hop as usize];
        self.arrive(c, now, p);
    }

    /// `merged` for an `Event::Merged` reaching `dispatch` (none does: `step` takes them
    /// itself); out of line, so that the run loop holds one copy of the merged path.
    #[inline(never)]
    fn merged_out_of_line(&mut self, now: SimTime, m: u32) {
        self.merged(now, m);
    }

    /// Channel `c`'s departure from the slot (`Net::schedule_departure`). Out of line:
    /// inlined, it would grow the run loop enough to push other steps out of line.
    #[inline(never)]
    fn departure(&mut self, now: SimTime) {
        let c = self.net.take_departure();
        self.channels[c as usize].on_tx_done_inline(c, now, &mut self.net);
        self.after_channel(now);
    }

    /// A packet reached the far end of channel `c`.
    #[inline(always)]
    fn arrive(&mut self, c: u32, now: SimTime, mut p: Packet) {
        p.advance_hop();
        let next = self.net.routes[p.route as usize + p.hop as usize];
        if next != ROUTE_END {
            let held = &mut self.net.held[next as usize];
            if *held != NOT_CUT {
                if p.flags & FLAG_GHOST != 0 {
                    return; // handed over at a snapshot already (`release_held`)
                }
                *held -= 1;
            }
            self.enqueue(next, now, &p);
            return;
        }
        let f = p.flow;
        if let Some((_, a)) = end_counted(&self.net.ends, &p) {
            if p.flags & FLAG_GHOST != 0 {
                return; // handed over at a snapshot already (`release_held`)
            }
            self.net.held[a as usize] -= 1;
        }
        if f == NO_FLOW {
            self.node_control_rx[self.channels[c as usize].to as usize] += 1;
            self.net.meta.free(p.meta);
            return;
        }
        let ep = &mut self.flows[f as usize];
        // Each packet touches only the side of the endpoint it concerns (at 10^4 flows
        // and more each cache line of an endpoint is a miss), and only that side's
        // timers can have changed: data to the receiver, an ack to the sender.
        if p.kind == PacketKind::Data {
            if let Some(d) = ep.delay.as_deref_mut() {
                Self::measure_delay(
                    d,
                    &mut ep.counters,
                    &self.channels,
                    &self.net.routes,
                    self.changes_applied,
                    now,
                    &p,
                );
            }
            let pass = ep.receiver.on_data(io!(self, ep, now), &p);
            self.net.meta.free(p.meta);
            self.send_out(now);
            self.receiver_timer(f);
            if let Some(x) = pass {
                self.pass(now, x);
            }
        } else if p.kind == PacketKind::Ack {
            ep.sender.on_ack(io!(self, ep, now), &p);
            self.net.meta.free(p.meta);
            self.send_out(now);
            self.sender_timers(f, now);
        } else {
            self.control(c, now, &p);
            self.net.meta.free(p.meta);
            self.flush(f, now);
        }
    }

    #[inline(always)]
    fn enqueue(&mut self, c: u32, now: SimTime, p: &Packet) {
        self.channels[c as usize].enqueue(c, now, p, &mut self.net);
        self.after_channel(now);
    }

    /// Settles what a channel left behind: offers a packet it handed over at send time
    /// to the next channel, notifies the flows of drops and sends the packets its
    /// elements emitted.
    #[inline(always)]
    fn after_channel(&mut self, now: SimTime) {
        // A packet handed over at send time first: its next channel may hand it on in
        // turn (the chain ends at a channel that is not cut through, or a drop).
        // (Copied out, then only `to` cleared: the rest of an empty slot is never read.)
        while !self.net.cut_next.is_empty() {
            let Handover { pkt, at, to } = self.net.cut_next;
            self.net.cut_next.to = Handover::EMPTY;
            self.take_over(to, at, pkt);
        }
        if self.net.pending {
            self.after_channel_rest(now);
        }
    }

    #[inline(never)]
    fn after_channel_rest(&mut self, now: SimTime) {
        while self.net.pending {
            self.net.pending = false;
            if !self.net.cut.is_empty() {
                self.cut_through();
            }
            if !self.net.drops.is_empty() {
                self.drops_out();
            }
            if !self.net.emitted.is_empty() {
                self.send_emitted(now);
            }
        }
    }

    #[cold]
    fn drops_out(&mut self) {
        for i in 0..self.net.drops.len() {
            let (d, _) = self.net.drops[i];
            self.net.meta.free(d.meta);
            if d.flow == NO_FLOW {
                continue;
            }
            self.flows[d.flow as usize].counters.on_drop(&d);
        }
        self.net.drops.clear();
    }

    /// Routes and injects the packets elements emitted (from the sending node of the
    /// element's channel to the host they name, on the fewest-hops path).
    #[cold]
    fn send_emitted(&mut self, now: SimTime) {
        let emitted = std::mem::take(&mut self.net.emitted);
        for e in &emitted {
            let mut p = e.pkt;
            if e.from == e.to {
                self.node_control_rx[e.to as usize] += 1;
                self.net.meta.free(p.meta);
                continue;
            }
            let Some(route) = self.emit_route(e.from, e.to) else {
                self.unroutable += 1;
                self.net.meta.free(p.meta);
                continue;
            };
            p.route = route;
            p.hop = 0;
            let c = self.net.routes[route as usize];
            self.enqueue(c, now, &p);
        }
        // Keep the scratch buffer's capacity (nothing was emitted meanwhile: emitted
        // packets are injected with `enqueue`, whose own emissions land in `emitted`).
        if self.net.emitted.is_empty() {
            let mut v = emitted;
            v.clear();
            self.net.emitted = v;
        }
    }

    /// The route from node `from` to host `to` (computed once per pair).
    fn emit_route(&mut self, from: u32, to: u32) -> Option<u32> {
        if let Some(&r) = self.emit_routes.get(&(from, to)) {
            return Some(r);
        }
        let adj = self.adj.get_or_insert_with(|| build::adjacency(&self.scenario));
        let path = crate::scenario::shortest_path(from as usize, to as usize, &self.scenario.nodes, adj)?;
        let conv = self.convs.pair(from as usize, to as usize);
        self.net.routes.push(conv);
        let route = self.net.routes.len() as u32;
        for w in path.windows(2) {
            let c =
                self.channels.iter().position(|c| c.from as usize == w[0] && c.to as usize == w[1]).expect("adjacent");
            self.net.routes.push(c as u32);
        }
        self.net.routes.push(ROUTE_END);
        self.emit_routes.insert((from, to), route);
        Some(route)
    }

    /// Measures the boundaries at the run's end time again once every event of that
    /// instant has run: the run's totals take the events of its last picosecond, so the
    /// last phase or interval ending there takes them too, and intervals add up to the
    /// totals (as the last bucket of a sampled series takes the samples at the end
    /// time). A boundary before the end sees that instant's departures and none of its
    /// other events (docs/architecture.md, "Simultaneous events").
    fn measure_end_again(&mut self) {
        let end = self.end;
        for k in 0..self.boundaries.len() {
            if self.boundaries[k] != end || self.snapshots[k].is_none() {
                continue;
            }
            for c in self.channels.iter_mut() {
                c.settle(end);
            }
            self.snapshots[k] = Some(Snapshot {
                time: end,
                flows: self.counters_by_flow(),
                channels: self.channels.iter().map(Channel::counters).collect(),
            });
        }
    }

    fn snapshot(&mut self, k: usize, now: SimTime) {
        self.next_snapshot = k + 1;
        self.update_horizon();
        for c in self.channels.iter_mut() {
            c.settle(now);
        }
        self.snapshots[k] = Some(Snapshot {
            time: now,
            flows: self.counters_by_flow(),
            channels: self.channels.iter().map(Channel::counters).collect(),
        });
        // Packets held back for this snapshot (arriving at or after it) may now be
        // handed over, if they arrive before the next one.
        for c in self.channels.iter_mut() {
            c.release_held(&mut self.net);
        }
        self.after_channel(now);
    }

    /// Per channel: how many of its packets propagate in the next channel's `Merge`.
    pub fn merged_per_channel(&self) -> Vec<u32> {
        let mut n = vec![0u32; self.channels.len()];
        for p in self.net.merges.iter().flat_map(|m| m.packets()) {
            n[self.net.routes[p.route as usize + p.hop as usize] as usize] += 1;
        }
        n
    }

    /// Data packets of each flow currently queued or propagating.
    pub fn in_network(&self) -> Vec<u64> {
        let mut n = vec![0u64; self.scenario.flows.len()];
        for c in &self.channels {
            c.for_each_packet(&self.net.pipes, &mut |p| {
                if p.is_data() {
                    n[self.flow_of_slot(p.flow) as usize] += 1;
                }
            });
        }
        for p in self.net.merges.iter().flat_map(|m| m.packets()) {
            if p.is_data() {
                n[self.flow_of_slot(p.flow) as usize] += 1;
            }
        }
        n
    }

    pub fn end(&self) -> SimTime {
        self.end
    }
}

/// A channel's name: "from->to" (node names), as results, series and `[[elements]]`
/// call it.
fn channel_name(scenario: &Scenario, c: &Channel) -> String {
    [scenario.nodes[c.from as usize].name.as_str(), "->", scenario.nodes[c.to as usize].name.as_str()].concat()
}

/// Parses, builds and runs a scenario in one call.
pub fn run_scenario(scenario: Scenario, seed: Option<u64>) -> Simulation {
    let mut sim = Simulation::new(scenario, seed);
    sim.run();
    sim
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{AckSample, AnyCc, CcMetrics, CongestionControl, CongestionSample, CustomCc, Feedback};
    use crate::packet::meta::Control;
    use std::sync::{Arc, Mutex};

    const LINE: &str = r#"
[scenario]
name = "line"
duration = "2s"
[nodes]
hosts = ["a", "b"]
routers = ["r"]
[[links]]
between = ["a", "r"]
rate = "10Mbps"
delay = "5ms"
[[links]]
between = ["r", "b"]
rate = "10Mbps"
delay = "5ms"
[[flows]]
name = "f"
from = "a"
to = "b"
cc = "generic"
max_window = "2pkt"
"#;

    /// A policy that records the feedback it gets.
    struct Listener(Arc<Mutex<Vec<(SimTime, Feedback)>>>);

    impl CongestionControl for Listener {
        fn on_ack(&mut self, _s: &AckSample) {}
        fn on_congestion(&mut self, _s: &CongestionSample) {}
        fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
            self.0.lock().unwrap().push((now, *fb));
        }
        fn metrics(&self) -> CcMetrics {
            CcMetrics::window(2000)
        }
    }

    #[test]
    fn feedback_in_a_control_packet_reaches_the_senders_policy() {
        let sc = crate::scenario::parse(LINE, "t.toml", &[]).unwrap();
        let mut sim = Simulation::new(sc, None);
        let got = Arc::new(Mutex::new(Vec::new()));
        if let Sender::Window(w) = &mut sim.flows[0].sender {
            w.cc = AnyCc::Custom(CustomCc(Box::new(Listener(got.clone()))));
        }
        sim.run_until(SimTime::from_millis(100));
        // The receiver sends feedback to the sender on the flow's ack route (b -> r -> a):
        // 2 x 5 ms of propagation and 2 x 32 us to send 40 B at 10 Mbps.
        let mut p = Packet::new(PacketKind::Control, 0, 40);
        let ack_route = sim.net.routes.iter().position(|&c| c == 3).unwrap() as u32; // b->r
        p.route = ack_route;
        let h = sim.net.meta.alloc();
        let fb = Feedback::Rate { bps: 1.5e6 };
        sim.net.meta.get_mut(h).control = Control::Feedback(fb);
        p.meta = h;
        let now = SimTime::from_millis(100);
        sim.enqueue(3, now, &p);
        sim.run();
        assert_eq!(*got.lock().unwrap(), vec![(SimTime::from_ps(110_064_000_000), fb)]);
        assert_eq!(sim.flows[0].counters.control_arrived, 1);
        assert_eq!(sim.net.meta.live(), 0, "the slot was given back");
    }
}
