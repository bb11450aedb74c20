//! The fast paths, each matched to the bit by the plain path it stands for
//! (crates/ccsim-engine/tests/observation.rs): merged arrivals, packets handed over at
//! send time (cut-through) to channels and to endpoints, and the cache prefetch hints.

use super::*;
use crate::net::{EndCut, RX_CUT, TX_CUT};

/// Route analysis (`set_cut_through`, `set_merged_arrivals`): a value not yet seen, the
/// host before a route's first hop, and routes that disagree (`ROUTE_END` too: no channel
/// after a last hop).
pub(super) const HOP_NONE: u32 = u32::MAX - 2;
pub(super) const HOP_HOST: u32 = u32::MAX - 1;
pub(super) const HOP_MANY: u32 = u32::MAX;

/// Calls `f(before, c, after)` for every hop of every route: `c` the channel, `before`
/// the channel before it (`HOP_HOST` on a first hop), `after` the one after it
/// (`ROUTE_END` on a last hop).
pub(super) fn for_each_hop(routes: &[u32], mut f: impl FnMut(u32, usize, u32)) {
    let mut i = 0;
    while i < routes.len() {
        i += 1; // the route's conversation id
        let mut before = HOP_HOST;
        while routes[i] != ROUTE_END {
            f(before, routes[i] as usize, routes[i + 1]);
            before = routes[i];
            i += 1;
        }
        i += 1;
    }
}

/// Folds one route's value into `slot`: the value every route agrees on, else `HOP_MANY`.
pub(super) fn agree(slot: &mut u32, v: u32) {
    *slot = match *slot {
        HOP_NONE => v,
        x if x == v => x,
        _ => HOP_MANY,
    }
}

/// How far ahead of the clock a flow's pacing timer may fire (`Simulation::
/// set_early_pacing`): `lead` in picoseconds (0: not at all), and the route offsets
/// `from..=to` of the channels of its ack route's hand-over chain whose `Net::held` must
/// be 0 (`from > to`: none).
#[derive(Clone, Copy, Debug)]
pub(super) struct PaceLead {
    pub lead: u64,
    pub from: u32,
    pub to: u32,
}

impl PaceLead {
    pub const NONE: PaceLead = PaceLead { lead: 0, from: 1, to: 0 };
    /// Not yet found (`Simulation::pace_lead_of`).
    pub const UNKNOWN: PaceLead = PaceLead { lead: u64::MAX, from: 1, to: 0 };
}

impl Simulation {
    /// Bytes of the per-channel and per-flow state the packet paths touch (channels and
    /// endpoints), the measure `set_prefetch`'s default compares with
    /// `PREFETCH_ABOVE_BYTES`.
    pub fn state_bytes(&self) -> usize {
        self.channels.len() * std::mem::size_of::<Channel>() + self.flows.len() * std::mem::size_of::<Endpoint>()
    }

    /// Whether the event loop issues cache prefetch hints: at each pipe-head event, for
    /// the next event's channel line and pipe node, and for the state the arriving
    /// packet will reach (the channels after its next one, its flow's endpoint side and
    /// the channel its endpoint answers into), and at each merged arrival, for the state
    /// the next merged arrival's packet will reach; or, two events ahead
    /// (`set_prefetch_ahead`), for the channel line and pipe node of the event after the
    /// next and the state the next event's packet will reach. On by default where the
    /// state is larger than `PREFETCH_ABOVE_BYTES` (about 1000 dumbbell flows and more),
    /// where those lines are usually not in the cache; below, these hints cost
    /// instructions and gain nothing, and only the next event's pipe node is hinted (when
    /// that event is in the current bucket: written one propagation delay earlier, it has
    /// left the first-level cache even at 100 flows). `true` chooses how far ahead by the
    /// state's size (two events above `PREFETCH_TWO_AHEAD_ABOVE_BYTES`). Hints never
    /// change a result (a test runs all three ways).
    pub fn set_prefetch(&mut self, on: bool) {
        let bytes = self.state_bytes();
        self.prefetch_ahead = if !on || bytes <= PREFETCH_ABOVE_BYTES {
            0
        } else if bytes <= PREFETCH_TWO_AHEAD_ABOVE_BYTES {
            1
        } else {
            2
        };
    }

    /// Sets how many events ahead the hints reach (capped at 2; 0 turns them off but
    /// for the near pipe node), whatever the state's size. The lead of two events hides
    /// misses that go to memory, at the cost of a second look into the event queue and
    /// of reading the next event's packet early (`prefetch_two_ahead`).
    pub fn set_prefetch_ahead(&mut self, events: u8) {
        self.prefetch_ahead = events.min(2);
    }

    /// Whether the event loop issues prefetch hints (`set_prefetch`).
    pub fn prefetching(&self) -> bool {
        self.prefetch_ahead > 0
    }

    /// How many events ahead the hints reach (`set_prefetch_ahead`).
    pub fn prefetch_ahead(&self) -> u8 {
        self.prefetch_ahead
    }

    /// Keeps the packets propagating towards a channel fed by several channels in one
    /// time-ordered ring per such channel, with one event at a time, instead of a pipe
    /// and an event per feeding channel (`true`, the default; `net/merge.rs`): a channel
    /// whose every route continues to the same channel, one of the `MAX_MERGES` fed by
    /// the most, puts each packet into that channel's ring when it sends it, keyed as its
    /// arrival event would be (`EventQueue::arrival_key`), so the results are those of
    /// the plain path. No channel may have elements (they emit packets anywhere). Before
    /// the first event only; `set_cut_through` calls it with its own flag; `false` is
    /// the reference path for tests.
    pub fn set_merged_arrivals(&mut self, on: bool) {
        assert_eq!(self.events_processed(), 0, "set_merged_arrivals after the run started");
        let n = self.channels.len();
        self.net.merges.clear();
        self.net.merge_of = vec![NOT_CUT; n];
        (self.net.merge_first, self.net.merge_next) = (u128::MAX, 0);
        for c in self.channels.iter_mut() {
            c.set_merges(false);
        }
        if !on || self.channels.iter().any(|c| !c.elements().is_empty()) {
            return;
        }
        // Per channel: the channel after it on every route (`HOP_MANY` where routes
        // disagree or one ends there).
        let mut next = vec![HOP_NONE; n];
        for_each_hop(&self.net.routes, |_, c, after| agree(&mut next[c], after));
        // Feeders per channel (channels whose every route continues to it); of those fed
        // by two or more, the `MAX_MERGES` fed by the most (ties: the lower id) get a ring.
        let mut fed = vec![0u32; n];
        for &x in &next {
            if x < HOP_NONE {
                fed[x as usize] += 1;
            }
        }
        let mut most: Vec<usize> = (0..n).filter(|&x| fed[x] >= 2).collect();
        most.sort_by_key(|&x| (std::cmp::Reverse(fed[x]), x));
        most.truncate(crate::net::merge::MAX_MERGES);
        most.sort_unstable();
        for x in most {
            self.net.merge_of[x] = self.net.merges.len() as u32;
            self.net.merges.push(Default::default());
        }
        for (c, &x) in next.iter().enumerate() {
            if x < HOP_NONE && self.net.merge_of[x as usize] != NOT_CUT {
                self.channels[c].set_merges(true);
            }
        }
    }

    /// Channels whose arrivals are merged (`set_merged_arrivals`).
    pub fn merged_channels(&self) -> usize {
        self.net.merges.len()
    }

    /// Packets sent so far into a channel's own pipe because the merged arrivals of the
    /// next channel refused them (`merge::MAX_WALK`).
    pub fn merge_refused(&self) -> u64 {
        self.net.merge_refused
    }

    /// Hands packets to the next channel of their route when they are sent, not when
    /// they arrive (`true`, the default), wherever that cannot change a result: the next
    /// channel is timed (`set_timed_fifo`: a drop-tail FIFO, or a discipline that
    /// admits on the channel's queue, RED or random drop) fed by that one channel
    /// alone, no channel has elements (which may emit packets anywhere), and the arrival
    /// comes before the next measurement snapshot (`Net::horizon`). Such a channel's
    /// state depends only on its arrivals, in order, so offering a packet early for its
    /// arrival time gives the same departures, drops and counters; it saves one event per
    /// packet per such hop (the access link towards each receiver and each sender of a
    /// dumbbell). The next pipe-head event is scheduled earlier, but events at one
    /// instant run in an order that does not depend on when they were scheduled
    /// (`net/event.rs`), so the results are those of the plain path. A run stopped early
    /// (Ctrl-C, a guard) may count such packets on the next channel up to one hop early.
    ///
    /// The same holds for an acknowledging receiver without a timer (no delayed acks)
    /// whose acks are all that enters their first channel, a timed FIFO: the receiver
    /// and that channel depend only on the data arrivals, in order, so the last channel
    /// of the data route offers it each data packet at send time (`Net::ends`; its
    /// held packets are counted on that ack channel). Not for a flow with delay
    /// statistics in a scenario with scheduled changes (the base delay reads the rates
    /// in force at the arrival). A stopped run may count such packets as delivered up
    /// to one hop early.
    ///
    /// And for a window sender (with an acknowledging receiver) whose data packets are
    /// all that enters their first channel, a timed FIFO: between two acks only its own
    /// timers act on it, so the last channel of the ack route offers it each ack at
    /// send time (`Net::ends`, `send_early`); if the ack arrives before the sender's
    /// earliest timer deadline (and behind no parked ack), the sender takes it then and
    /// the packets it releases enter their channel at its arrival time; if not, it is
    /// parked for an `Event::Parked` at its arrival time. Not where every hop of the
    /// round trip and the receiver are handed over too (an ack could then reach the
    /// sender while it still sends the packets it came from). A stopped run may count
    /// such acks up to one hop early.
    /// Before the first event only; `set_timed_fifo` calls it with its own flag;
    /// `false` is the reference path for tests.
    pub fn set_cut_through(&mut self, on: bool) {
        assert_eq!(self.events_processed(), 0, "set_cut_through after the run started");
        let n = self.channels.len();
        self.net.held = vec![NOT_CUT; n];
        self.net.ends = vec![EndCut::OFF; self.flows.len()];
        self.pace_lead.clear();
        if let Some(life) = self.life.as_deref_mut() {
            life.ends.fill(EndCut::OFF);
        }
        self.set_merged_arrivals(on);
        for c in self.channels.iter_mut() {
            c.set_feeds_cut(false);
        }
        if !on || self.channels.iter().any(|c| !c.elements().is_empty()) {
            return;
        }
        // Each channel's feeder: the channel before it on every route, `HOP_HOST` if it is
        // the first hop of every route through it, `HOP_MANY` if routes disagree; and the
        // number of routes that start on it.
        let mut feeder = vec![HOP_NONE; n];
        let mut starts = vec![0u32; n];
        for_each_hop(&self.net.routes, |before, c, _| {
            if before == HOP_HOST {
                starts[c] += 1;
            }
            agree(&mut feeder[c], before);
        });
        let routes = &self.net.routes;
        // The first channel of one route and on no other route: a host's sends on that
        // route are all that enters it.
        let only_start = |c: usize| starts[c] == 1 && feeder[c] == HOP_HOST;
        assert!(
            n < TX_CUT as usize && self.flows.len() < TX_CUT as usize,
            "hand-over targets: channel and flow ids below 2^30"
        );
        for c in 0..n {
            let f = feeder[c];
            if f < HOP_NONE && self.channels[c].is_timed() {
                self.net.held[c] = 0;
                self.channels[f as usize].set_feeds_cut(true);
            }
        }
        // Receivers: an acknowledging receiver without a timer whose acks are all that
        // enters their first channel (a timed FIFO) takes its data packets at send time,
        // for their arrival time, from the last channel of the data route: the receiver
        // and that channel together depend only on the data arrivals, in order. (A route's
        // first channel is never a cut-through channel: its feeder is `HOP_HOST` or `HOP_MANY`.)
        let ends_of = self.end_routes();
        let mut ends = vec![EndCut::OFF; ends_of.len()];
        let mut early = Vec::new();
        for (f, e) in ends_of.iter().enumerate() {
            let Some((ack_route, data_route)) = e.routes else { continue };
            let ack_first = routes[ack_route as usize];
            let data_route = data_route as usize;
            let mut last = data_route;
            while routes[last + 1] != ROUTE_END {
                last += 1;
            }
            // (Delay statistics read the rates in force when the packet arrives: not early
            // if scheduled changes may move them.)
            let changes = !self.scenario.changes.is_empty() && e.delay;
            if !e.takes_data_early || changes || ack_first == ROUTE_END || routes[data_route] == ROUTE_END {
                continue;
            }
            let (a, c) = (ack_first as usize, routes[last] as usize);
            if only_start(a) && self.channels[a].is_timed() {
                early.push((f, a, c));
            }
        }
        for (f, a, c) in early {
            ends[f].rx = a as u32;
            self.net.held[a] = 0;
            self.channels[c].set_feeds_cut(true);
        }
        // Window senders: one whose data is all that enters their first channel (a timed
        // FIFO) takes its acks at send time from the last channel of the ack route, if
        // they arrive before its next timer deadline (checked when it takes them): between
        // two acks only its timers act on it, and with none due first, the sender and
        // that channel depend only on the ack arrivals, in order. Not where the whole
        // round trip is handed over (every later hop and the receiver): there an ack
        // would reach the sender while it is still sending the packets it came from.
        let routes = &self.net.routes;
        let cut_from = |r: usize| {
            (r + 1..).take_while(|&i| routes[i] != ROUTE_END).all(|i| self.net.held[routes[i] as usize] != NOT_CUT)
        };
        let mut early = Vec::new();
        for (f, e) in ends_of.iter().enumerate() {
            let Some((ack_route, data_route)) = e.routes else { continue };
            let (ack_route, data_route) = (ack_route as usize, data_route as usize);
            if routes[ack_route] == ROUTE_END || routes[data_route] == ROUTE_END {
                continue;
            }
            let d = routes[data_route] as usize;
            let mut last = ack_route;
            while routes[last + 1] != ROUTE_END {
                last += 1;
            }
            let closed = ends[f].rx != NOT_CUT && cut_from(data_route) && cut_from(ack_route);
            if only_start(d) && self.channels[d].is_timed() && !closed {
                early.push((f, d, routes[last] as usize));
            }
        }
        for (f, d, c) in early {
            ends[f].tx = d as u32;
            self.net.held[d] = 0;
            self.channels[c].set_feeds_cut(true);
        }
        // Flows built at their start take theirs then (`Simulation::start_lazy`).
        let built = self.flows.len().min(ends.len());
        if let Some(life) = self.life.as_deref_mut() {
            life.ends.copy_from_slice(&ends[life.first as usize..]);
        }
        self.net.ends[..built].copy_from_slice(&ends[..built]);
    }

    /// Per flow (by id), what cut-through to its endpoints depends on: its (ack route,
    /// data route) if its receiver acknowledges on a route and its sender may take acks
    /// early; whether the receiver may take data early; whether its delays are measured.
    /// Flows built at their start (`sim/lifecycle.rs`) answer from their spec and routes.
    fn end_routes(&self) -> Vec<EndRoutes> {
        let of = |ep: &Endpoint| EndRoutes {
            routes: ep.receiver.ack_route().zip(ep.sender.early_data_route()),
            takes_data_early: ep.receiver.takes_data_early(),
            delay: ep.delay.is_some(),
        };
        let mut out: Vec<EndRoutes> = self.flows.iter().map(of).collect();
        if let Some(life) = self.life.as_deref() {
            out.truncate(life.first as usize);
            for (k, lf) in life.flows.iter().enumerate() {
                // (A lazy flow is a window flow with an acknowledging receiver.)
                let spec = &self.scenario.flows[life.first as usize + k].spec;
                let takes = matches!(&**spec, crate::scenario::FlowSpec::Window { receiver, .. } if receiver.takes_data_early());
                out.push(EndRoutes {
                    routes: Some((lf.ack_route, lf.data_route)),
                    takes_data_early: takes,
                    delay: lf.delay,
                });
            }
        }
        out
    }

    /// Sets the cut-through horizon (`Net::horizon`): the next snapshot's time, or just
    /// past the end (arrivals at the end still count), or just past the end of a
    /// `run_until`.
    pub(super) fn update_horizon(&mut self) {
        let last = (self.end + SimDuration::from_ps(1)).min(self.cut_cap);
        self.net.horizon = self.boundaries.get(self.next_snapshot).map_or(last, |&t| t.min(last));
    }

    /// Turns departure scheduling at enqueue off (`false`) or back on for every channel
    /// that allows it (`Channel::set_timed`), and with it cut-through and merged
    /// arrivals. Before the first event only: `false` is the plain path, which every
    /// fast path must match to the bit (crates/ccsim-engine/tests/observation.rs).
    pub fn set_timed_fifo(&mut self, on: bool) {
        assert_eq!(self.events_processed(), 0, "set_timed_fifo after the run started");
        let mut changed = vec![false; self.channels.len()];
        for c in &self.scenario.changes {
            for &ch in &c.channels {
                changed[ch] = true;
            }
        }
        for (c, &ch) in self.channels.iter_mut().zip(&changed) {
            c.set_timed(on, ch);
        }
        self.set_cut_through(on);
    }

    /// Acks handed over to a sender at send time that it could not take (a timer of its
    /// due first, `send_early`), so far: they reached it through an event after all.
    pub fn acks_parked(&self) -> u64 {
        self.acks_parked
    }

    /// Starts loading what the next event will read first (its channel's pipe line and
    /// pipe node), so that its cache misses overlap this event's work.
    /// (Out of line: below the threshold the hot path keeps its shape.)
    #[inline(never)]
    pub(super) fn prefetch_next(&self) {
        if let Some(Event::PipeHead(c, n)) = self.net.ev.peek_event() {
            self.prefetch_pipe_head(c, n);
        }
    }

    /// What a pipe-head event of channel `c` reads first: the channel's pipe line and
    /// the pipe node `n`.
    #[inline(always)]
    pub(super) fn prefetch_pipe_head(&self, c: u32, n: u32) {
        if let Some(ch) = self.channels.get(c as usize) {
            ch.prefetch_pipe();
        }
        self.net.pipes.prefetch(n);
    }

    /// A two-stage pipeline of hints, so that each event's misses overlap the work of
    /// the one or two events before it: for the event after the next, what it reads
    /// first (its channel's pipe line and its pipe node); for the next event, whose pipe
    /// node was hinted at the event before this one (or when it became its pipe's head,
    /// `Channel::on_pipe_head`), the per-flow state its packet will reach
    /// (`prefetch_packet`). Events scheduled meanwhile may come first: a hint is then
    /// wasted, never wrong. (Out of line: below the threshold the hot path keeps its
    /// shape.)
    #[inline(never)]
    pub(super) fn prefetch_two_ahead(&self) {
        let (next, after) = self.net.ev.peek_two();
        if let Some(Event::PipeHead(c, n)) = after {
            self.prefetch_pipe_head(c, n);
        }
        if let Some(Event::PipeHead(c, n)) = next {
            // (Its pipe line again: an event scheduled since the last look may have come
            // between, and then this one was not the event after the next.)
            if let Some(ch) = self.channels.get(c as usize) {
                ch.prefetch_pipe();
            }
            if let Some(p) = self.net.pipes.packet(n) {
                self.prefetch_packet(p);
            }
        }
    }

    /// Starts loading the per-flow state the packet will reach (its route's next hops,
    /// its flow's hand-over entry, and the side of its endpoint it concerns) before the
    /// serial work that reads them one after another.
    #[inline(never)]
    pub(super) fn prefetch_packet(&self, p: &Packet) {
        let hot = |c: u32| {
            if let Some(ch) = self.channels.get(c as usize) {
                ch.prefetch_arrival();
                if let Some(h) = self.net.held.get(c as usize) {
                    crate::base::prefetch::line(h);
                }
            }
        };
        // The channel after the next one (the next is the shared channel the packet
        // arrives at, in the cache anyway).
        if let Some(&x) = self.net.routes.get(p.route as usize + p.hop as usize + 2) {
            hot(x);
        }
        let data = p.kind == PacketKind::Data;
        // The channel its endpoint sends the answer into (an ack, or released data).
        if let Some(e) = self.net.ends.get(p.flow as usize) {
            if data {
                hot(e.rx);
            } else {
                hot(e.tx);
                // The sender's access channel, where what the ack releases waits while
                // the line is busy (of two packets released at once, the second).
                if let Some(ch) = self.channels.get(e.tx as usize) {
                    ch.prefetch_waiting();
                }
            }
        }
        if let Some(ep) = self.flows.get(p.flow as usize) {
            crate::base::prefetch::line(&ep.counters);
            // The lines a window sender's ack path and an ack receiver's data path reach
            // (`Endpoint`'s layout; other kinds and features reach further, unhinted).
            if data {
                crate::base::prefetch::lines(&ep.receiver, super::RECEIVER_HOT_LINES);
            } else {
                crate::base::prefetch::lines(&ep.sender, super::SENDER_HOT_LINES);
            }
        }
    }

    /// Offers the packets released after a snapshot (`Channel::release_held`) to their
    /// next channel, each at its arrival time (`set_cut_through`). That channel may hand
    /// its own on in turn: the packet joins the end of the list.
    #[inline(never)]
    pub(super) fn cut_through(&mut self) {
        let mut i = 0;
        while i < self.net.cut.len() {
            let (c, at, p) = self.net.cut[i];
            self.take_over(c, at, p);
            self.net.defer_cut_next();
            i += 1;
        }
        self.net.cut.clear();
    }

    /// A packet handed over at send time reaches `target` (a channel, or with `RX_CUT`
    /// a receiver) at `at`.
    #[inline(always)]
    pub(super) fn take_over(&mut self, target: u32, at: SimTime, mut p: Packet) {
        p.advance_hop();
        if target & (RX_CUT | TX_CUT) == 0 {
            self.channels[target as usize].enqueue(target, at, &p, &mut self.net);
        } else if target & RX_CUT != 0 {
            self.receive_early(at, p);
        } else {
            self.send_early(at, p);
        }
    }

    /// An ack reaches its window sender at `at` (taken at send time, `set_cut_through`,
    /// before the sender's next timer deadline): the same work as its arrival event
    /// (`arrive`), the packets it releases entering their first channel at `at`
    /// (`early_out`).
    #[inline(never)]
    pub(super) fn send_early(&mut self, at: SimTime, p: Packet) {
        let f = p.flow as usize;
        let d = self.net.ends[f].tx as usize;
        let ep = &mut self.flows[f];
        // The sender's state now reflects every ack before this one, unless one is parked
        // (then this one waits behind it). A timer of its due first, or at the same
        // time, sends the ack to an event after all, ordered with the timer's.
        let io = io!(self, ep, at, rx_out);
        if self.net.held[d] != 0 || !ep.sender.on_ack_early(io, &p) {
            self.ack_not_taken(d, at, p);
            return;
        }
        self.net.meta.free(p.meta);
        self.early_out(at);
        self.sender_timers(f as u32, at);
    }

    /// An ack handed over at send time that its sender did not take (`send_early`): if
    /// its timers are what came first, they fire first, each at its own time, as often
    /// as one is due before the ack (`timers_before`), and the sender takes the ack
    /// then; else (an ack of the flow parked or in a pipe before it, or a timer due at
    /// the ack's instant) the ack is parked.
    #[cold]
    #[inline(never)]
    fn ack_not_taken(&mut self, d: usize, at: SimTime, p: Packet) {
        let f = p.flow as usize;
        if self.net.held[d] == 0 && self.early_pacing && self.timers_before(f, at) {
            let ep = &mut self.flows[f];
            let io = io!(self, ep, at, rx_out);
            if ep.sender.on_ack_early(io, &p) {
                self.net.meta.free(p.meta);
                self.early_out(at);
                self.sender_timers(f as u32, at);
                return;
            }
            // (The sends may have armed the retransmission timer.)
            self.sender_timers(f as u32, at);
        }
        self.park(d, at, p);
    }

    /// Fires flow `f`'s sender timers (pacing and retransmission), each at its deadline,
    /// while one is due before `at`, the arrival of the ack its sender is handed
    /// (`send_early`, with no ack of the flow waiting for an event); returns whether one
    /// fired. Exact: every later ack of the flow arrives at `at` or after (the last
    /// channel of the ack route is FIFO), `at` is before the horizon (no snapshot
    /// between), and a sender's state between two of its acks depends only on its own
    /// timers, taken here in the event queue's order (by deadline; at one instant the
    /// retransmission timer first, `Event::rank`); the packets enter the sender's first
    /// channel, a timed FIFO fed by it alone, at the timer's time, in the order of the
    /// sender's steps. (An ack and a timer at one instant: the ack first, so only a
    /// deadline strictly before `at` fires.)
    fn timers_before(&mut self, f: usize, at: SimTime) -> bool {
        let mut fired = false;
        loop {
            let ep = &mut self.flows[f];
            let (timer, pace) = ep.sender.timers();
            let r = timer.as_ref().and_then(|x| x.deadline()).unwrap_or(SimTime::MAX);
            let t = pace.as_ref().and_then(|x| x.deadline()).unwrap_or(SimTime::MAX);
            if r.min(t) >= at {
                break;
            }
            let io = io!(self, ep, r.min(t), rx_out);
            if r <= t {
                timer.expect("a deadline").expire_early();
                ep.sender.on_timer(io);
            } else {
                pace.expect("a deadline").expire_early();
                ep.sender.on_pace(io);
            }
            self.timers_early += 1;
            self.early_out(r.min(t));
            fired = true;
        }
        fired
    }

    /// Flow `f`'s pacing timer event, at `now`, found its deadline `t` later (`Fired::
    /// Reschedule`, generation `g`). Where the flow allows it (`set_early_pacing`), the
    /// timer fires now for its time `t` if `t` is within the flow's lead and nothing
    /// else can reach the sender first: no ack of the flow waits in a pipe of the ack
    /// route's hand-over chain or parked (`Net::held` of the chain's channels and of the
    /// data channel all 0), so every ack not yet handed over leaves the chain's first
    /// channel at `now` or later and arrives after `now` + lead (the chain's delays less
    /// 1 ps) >= `t`; its retransmission timer is due after `t`; `t` is before the
    /// horizon. Otherwise the event moves to `t` less the lead (if that is after
    /// `now`), or to `t`.
    #[inline(never)]
    pub(super) fn pace_ahead(&mut self, f: u32, now: SimTime, t: SimTime, g: u32) {
        let lead = self.pace_lead_of(f as usize);
        if lead == 0 {
            self.net.ev.schedule(t, Event::PaceTimer(f, g));
            return;
        }
        let ahead = SimTime(t.0.saturating_sub(lead));
        if ahead <= now && t < self.net.horizon && self.acks_all_ahead(f as usize) {
            let ep = &mut self.flows[f as usize];
            let (timer, pace) = ep.sender.timers();
            if timer.and_then(|r| r.deadline()).is_none_or(|r| r > t) {
                pace.expect("a pacing timer fired").expire_instead();
                let io = io!(self, ep, t, rx_out);
                ep.sender.on_pace(io);
                self.timers_early += 1;
                self.early_out(t);
                self.sender_timers(f, t);
                self.after_channel(now);
                return;
            }
        }
        let at = if ahead > now { ahead } else { t };
        if at != t {
            if let Some(p) = self.flows[f as usize].sender.timers().1 {
                p.rescheduled_at(at);
            }
        }
        self.net.ev.schedule(at, Event::PaceTimer(f, g));
    }

    /// Whether no ack of flow `f` waits in a pipe of its ack route's hand-over chain or
    /// parked (`pace_ahead`).
    fn acks_all_ahead(&self, f: usize) -> bool {
        let l = self.pace_lead[f];
        let held = &self.net.held;
        held[self.net.ends[f].tx as usize] == 0
            && self.net.routes[l.from as usize..=l.to as usize].iter().all(|&c| held[c as usize] == 0)
    }

    /// Lets sender timers fire ahead of the clock, at their own time (`true`, the
    /// default; with `set_cut_through`), where a window sender takes its acks at send
    /// time: when an ack is handed over to its sender, its pacing and retransmission
    /// timers first fire as often as one is due before that ack (`timers_before`); and
    /// the pacing timer's event comes ahead of its deadline by the flow's lead
    /// (`pace_ahead`): the propagation delays of the ack route's hand-over chain (from
    /// the last channel that is not handed its packets at send time to the route's end)
    /// less 1 ps, if no scheduled change touches those channels. Acks taken at send
    /// time enter the sender at their arrival, up to that lead ahead of the clock; a
    /// paced send made at the clock would reach a merged arrivals' ring behind them, out
    /// of key order, and an ack behind a due timer was parked. The order of everything
    /// the sender does (its acks and timers, in time order, an ack before a timer of the
    /// same instant, the retransmission timer before the pacing timer) is the event
    /// queue's, so results are those of the plain path; only event counts change. A run
    /// stopped early (Ctrl-C, a guard) may count a sender's packets up to its lead
    /// early. Before the first event only; `false` is the reference path for tests.
    pub fn set_early_pacing(&mut self, on: bool) {
        assert_eq!(self.events_processed(), 0, "set_early_pacing after the run started");
        self.early_pacing = on;
        self.pace_lead.clear();
    }

    /// Sender timers fired ahead of the clock so far (`set_early_pacing`).
    pub fn timers_early(&self) -> u64 {
        self.timers_early
    }

    /// Flow `f`'s pacing lead in picoseconds (`set_early_pacing`; 0: none), found from the
    /// hand-overs `set_cut_through` set up when first asked (a flow whose pacing timer
    /// is never armed costs nothing).
    #[inline(always)]
    pub(super) fn pace_lead_of(&mut self, f: usize) -> u64 {
        match self.pace_lead.get(f) {
            Some(l) if l.lead != PaceLead::UNKNOWN.lead => l.lead,
            _ => self.first_pace_lead(f),
        }
    }

    /// `pace_lead_of` the first time for flow `f`.
    #[cold]
    #[inline(never)]
    fn first_pace_lead(&mut self, f: usize) -> u64 {
        if self.pace_lead.len() <= f {
            // (Slots of flows built at their start come after the build: `sim/lifecycle.rs`.)
            self.pace_lead.resize(self.flows.len(), PaceLead::UNKNOWN);
        }
        let cut = self.early_pacing && self.net.ends.get(f).is_some_and(|e| e.tx != NOT_CUT);
        self.pace_lead[f] = if cut { self.find_pace_lead(f) } else { PaceLead::NONE };
        self.pace_lead[f].lead
    }

    /// `pace_lead_of` for a flow whose sender takes its acks at send time.
    fn find_pace_lead(&self, f: usize) -> PaceLead {
        let routes = &self.net.routes;
        let Some(first) = self.flows[f].receiver.ack_route().map(|r| r as usize) else { return PaceLead::NONE };
        if routes[first] == ROUTE_END {
            return PaceLead::NONE;
        }
        let mut last = first;
        while routes[last + 1] != ROUTE_END {
            last += 1;
        }
        // The chain: the last channel not handed its packets at send time (or the
        // route's first), and every one after it.
        let mut j = last;
        while j > first && self.net.held[routes[j] as usize] != NOT_CUT {
            j -= 1;
        }
        let chain = &routes[j..=last];
        // (A scheduled change may lower a delay.)
        if self.scenario.changes.iter().any(|c| c.channels.iter().any(|&ch| chain.contains(&(ch as u32)))) {
            return PaceLead::NONE;
        }
        let delay: u64 = chain.iter().map(|&c| self.channels[c as usize].delay.as_ps()).sum();
        if delay <= 1 {
            return PaceLead::NONE;
        }
        PaceLead { lead: delay - 1, from: (j + 1) as u32, to: last as u32 }
    }

    /// An ack its sender cannot take at send time (`send_early`) waits in a slot for an
    /// `Event::Parked` at its arrival time, counted in `Net::held` of the sender's data
    /// channel `d` like an ack still in its pipe.
    #[cold]
    pub(super) fn park(&mut self, d: usize, at: SimTime, mut p: Packet) {
        self.net.held[d] += 1;
        p.hop -= 1; // as in the last channel's pipe: `arrive` steps to the route's end
        let slot = match self.parked_free.pop() {
            Some(i) => {
                self.parked[i as usize] = p;
                i
            }
            None => {
                self.parked.push(p);
                (self.parked.len() - 1) as u32
            }
        };
        let c = self.net.routes[p.route as usize + p.hop as usize];
        self.net.ev.schedule(at, Event::Parked(slot, c));
        self.acks_parked += 1;
    }

    /// Injects the packets an endpoint emitted when it took a packet at send time
    /// (`rx_out`) at `at`. A hand-over they cause joins the end of `Net::cut`, behind
    /// the packets released after a snapshot that may be bound for the same channel
    /// (following it at once could overtake them).
    #[inline(always)]
    pub(super) fn early_out(&mut self, at: SimTime) {
        for i in 0..self.rx_out.len() {
            // By reference: the channel copies the packet once, into its pipe or the
            // hand-over slot, from where the endpoint wrote it.
            let q = &self.rx_out[i];
            let c = self.net.routes[q.route as usize];
            self.channels[c as usize].enqueue(c, at, q, &mut self.net);
            self.net.defer_cut_next();
        }
        self.rx_out.clear();
    }

    /// A data packet reaches its acknowledging receiver at `at` (taken at send time,
    /// `set_cut_through`): the same work as its arrival event (`arrive`), with the acks
    /// entering their first channel at `at` (`early_out`).
    #[inline(never)]
    pub(super) fn receive_early(&mut self, at: SimTime, p: Packet) {
        let f = p.flow as usize;
        let ep = &mut self.flows[f];
        if let Some(d) = ep.delay.as_deref_mut() {
            Self::measure_delay(d, &mut ep.counters, &self.channels, &self.net.routes, self.changes_applied, at, &p);
        }
        let io = io!(self, ep, at, rx_out);
        let pass = ep.receiver.on_data(io, &p);
        debug_assert!(pass.is_none(), "a receiver taking packets early hands nothing over");
        debug_assert!(
            ep.receiver.timer().is_none_or(|t| t.deadline().is_none()),
            "a receiver taking packets early has no timer"
        );
        self.net.meta.free(p.meta);
        self.early_out(at);
    }
}

/// What cut-through to a flow's endpoints depends on (`Simulation::end_routes`).
struct EndRoutes {
    routes: Option<(u32, u32)>,
    takes_data_early: bool,
    delay: bool,
}
