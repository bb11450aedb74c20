//! The simulation: builds arenas from a `Scenario` and runs the event loop.
//!
//! All state lives in one owned `Simulation` value (no globals), in vectors indexed by
//! dense ids: channels, routes (lists of channel ids), flows. All routes are stored in
//! one flat array: each route is its conversation id (its Fair Queueing class: by default
//! one per flow route, so a flow's data and its acks are two conversations; with
//! `[scenario].conversations = "host_pair"` one per (first node, last node) pair; see
//! `ConvIds`), then its channel ids, then the sentinel `ROUTE_END`.
//! A packet carries the offset of its route's first channel and its hop index, so
//! forwarding is one load, `route_chans[p.route + p.hop]`, and the conversation is
//! `route_chans[p.route - 1]`.
//!
//! Packets that reach the end of their route go to the flow's endpoint (data to the
//! receiver side, acks to the sender side); control packets of no flow are counted by
//! the host they reach. Either way their metadata slot is given back, as it is for every
//! dropped packet.

use crate::element::Element;
use crate::event::{Event, EventQueue};
use crate::link::{end_counted, Channel, ChannelCounters, EndCut, Handover, Net, NOT_CUT, RX_CUT, TX_CUT};
use crate::meta::MetaSlab;
use crate::packet::{Packet, PacketKind, FLAG_GHOST, NO_FLOW};
use crate::pipe::PipePool;
use crate::qdisc::{AnyQdisc, FairQueueing, Fcfs, Red};
use crate::results::{self, Results};
use crate::rng::{stream, Rng};
use crate::scenario::{Conversations, QdiscConfig, Scenario};
use crate::stats::DelayStats;
use crate::time::{tx_time, SimDuration, SimTime};
use crate::trace::Recorder;
use crate::transport::endpoint::{self, BuildCx};
use crate::transport::sender::WindowSender;
use crate::transport::timer::Fired;
use crate::transport::{First, FlowCounters, Io, Pass};
pub use crate::transport::{Receiver, Sender};
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

/// Marks the end of a route in `Simulation::route_chans`.
pub(crate) const ROUTE_END: u32 = u32::MAX;

/// Route analysis (`set_cut_through`, `set_merged_arrivals`): a value not yet seen, the
/// host before a route's first hop, and routes that disagree (`ROUTE_END` too: no channel
/// after a last hop).
const HOP_NONE: u32 = u32::MAX - 2;
const HOP_HOST: u32 = u32::MAX - 1;
const HOP_MANY: u32 = u32::MAX;

/// Conversation ids (the word before each route), dense from 0 in the order routes ask
/// for them.
///
/// - `Conversations::Flow`: every flow route (a flow's data route, its ack route) is a
///   conversation of its own; packets of no flow (those elements emit) share one per
///   (sending node, destination host) pair, numbered after the flows'.
/// - `Conversations::HostPair`: one per (first node, last node) pair, flow routes and
///   emitted packets alike (Demers, Keshav and Shenker's source-destination pair).
#[derive(Debug)]
struct ConvIds {
    per_flow: bool,
    by_pair: BTreeMap<(usize, usize), u32>,
    next: u32,
}

impl ConvIds {
    fn new(c: Conversations) -> Self {
        ConvIds { per_flow: c == Conversations::Flow, by_pair: BTreeMap::new(), next: 0 }
    }

    /// The conversation of a flow route from `a` to `b`.
    fn route(&mut self, a: usize, b: usize) -> u32 {
        if self.per_flow {
            self.next += 1;
            self.next - 1
        } else {
            self.pair(a, b)
        }
    }

    /// The conversation of packets of no flow from node `a` to host `b`.
    fn pair(&mut self, a: usize, b: usize) -> u32 {
        let n = self.next;
        let id = *self.by_pair.entry((a, b)).or_insert(n);
        if id == n {
            self.next += 1;
        }
        id
    }
}

/// Calls `f(before, c, after)` for every hop of every route: `c` the channel, `before`
/// the channel before it (`HOP_HOST` on a first hop), `after` the one after it
/// (`ROUTE_END` on a last hop).
fn for_each_hop(routes: &[u32], mut f: impl FnMut(u32, usize, u32)) {
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
fn agree(slot: &mut u32, v: u32) {
    *slot = match *slot {
        HOP_NONE => v,
        x if x == v => x,
        _ => HOP_MANY,
    }
}

/// State size (channels and endpoints) above which the event loop prefetches
/// (`Simulation::set_prefetch`): 1 MiB, twice the 512 KiB second-level cache of a core
/// of the machine it was measured on. Bench dumbbell (docs/performance.md): 100 flows
/// (0.27 MB) no faster with all hints (they add instructions), 300 and 600 flows no
/// difference measurable, 1000 flows (2.7 MB) 8 % faster, 10^4 flows 36 % faster.
/// Below it the loop still hints the one line that misses there too: the next event's
/// pipe node, when that event is in the current bucket (`EventQueue::peek_near`).
pub const PREFETCH_ABOVE_BYTES: usize = 1 << 20;

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
/// update per packet, `FlowCounters`) fill line 0; the sender starts on line 3, the
/// receiver follows it. At 10^4 flows and more every line a round trip touches is a
/// cache miss; unaligned (a boxed endpoint started anywhere on a 16-byte boundary), the
/// per-packet counters spanned two lines in three endpoints out of four.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Endpoint {
    pub counters: FlowCounters,
    /// Delay statistics, for flows that ask for them (`[measure].delays`).
    pub delay: Option<Box<FlowDelay>>,
    /// The flow's source host (control packets arriving there go to the sender).
    pub src: u32,
    pub sender: Sender,
    pub receiver: Receiver,
}

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
    /// Routes of element-emitted packets, by (from node, to node): route offset.
    emit_routes: BTreeMap<(u32, u32), u32>,
    /// Conversation ids of routes (`[scenario].conversations`).
    convs: ConvIds,
    /// Adjacency (node -> neighbours, in link order) for routing emitted packets.
    adj: Vec<Vec<usize>>,
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

/// The channel from one node to a neighbour: each node's outgoing channels in one
/// array, sorted by far end (a binary search per hop). Built once per simulation; at
/// 10^5 flows a hash map of the 4 x 10^5 (from, to) pairs cost a cache miss and a
/// SipHash per lookup (a third of the build). Validation allows one link per pair of
/// nodes, so a pair names one channel.
struct ChannelIndex {
    /// Node `u`'s channels are `out[start[u]..start[u + 1]]`, as (to, channel).
    start: Vec<u32>,
    out: Vec<(u32, u32)>,
}

impl ChannelIndex {
    fn new(nodes: usize, channels: &[Channel]) -> Self {
        let mut start = vec![0u32; nodes + 1];
        for c in channels {
            start[c.from as usize + 1] += 1;
        }
        for u in 0..nodes {
            start[u + 1] += start[u];
        }
        let mut next = start.clone();
        let mut out = vec![(0, 0); channels.len()];
        for (id, c) in channels.iter().enumerate() {
            let k = &mut next[c.from as usize];
            out[*k as usize] = (c.to, id as u32);
            *k += 1;
        }
        for u in 0..nodes {
            out[start[u] as usize..start[u + 1] as usize].sort_unstable();
        }
        ChannelIndex { start, out }
    }

    /// The channel `from -> to` (the route's nodes are adjacent: validation made it).
    fn get(&self, from: usize, to: usize) -> u32 {
        let r = &self.out[self.start[from] as usize..self.start[from + 1] as usize];
        let k = r
            .binary_search_by_key(&(to as u32), |&(t, _)| t)
            .expect("a route's consecutive nodes are joined by a link");
        r[k].1
    }
}

/// The `Io` of an endpoint callback of `ep` (borrowed from `$sim.flows`) at `$now`:
/// its counters, the simulation's output buffer, metadata and recorder.
macro_rules! io {
    ($sim:ident, $ep:ident, $now:expr) => {
        Io {
            now: $now,
            counters: &mut $ep.counters,
            out: &mut $sim.out,
            meta: &mut $sim.net.meta,
            rec: &mut $sim.net.rec,
        }
    };
}

impl Simulation {
    /// Name of channel `i` ("from->to"), built on demand: channels keep no strings.
    pub fn channel_name(&self, i: usize) -> String {
        channel_name(&self.scenario, &self.channels[i])
    }

    /// Name of the duplex link channel `i` belongs to (link k gives channels 2k, 2k+1).
    pub fn channel_link(&self, i: usize) -> &str {
        &self.scenario.links[i / 2].name
    }

    /// Builds the network and schedules the initial events. `seed` overrides the
    /// scenario's seed.
    pub fn new(scenario: Scenario, seed: Option<u64>) -> Self {
        let seed = seed.unwrap_or(scenario.seed);
        let mut rec = Recorder::new(scenario.sampling.map(|s| s.width(scenario.duration)), scenario.duration);

        // Channels: link i gives channels 2i (a->b) and 2i+1 (b->a).
        let mut channels = Vec::with_capacity(scenario.links.len() * 2);
        for l in &scenario.links {
            for (d, (from, to)) in l.dirs.iter().zip([(l.a, l.b), (l.b, l.a)]) {
                let id = channels.len();
                let q = match &d.qdisc {
                    QdiscConfig::Fcfs => AnyQdisc::Fcfs(Fcfs::new(d.buffer)),
                    QdiscConfig::Fq(c) => AnyQdisc::Fq(Box::new(FairQueueing::with_config(*c, d.buffer, d.rate_bps))),
                    QdiscConfig::Red(c) => AnyQdisc::Red(Box::new(Red::new(
                        (**c).clone(),
                        d.buffer,
                        d.rate_bps,
                        Rng::new(seed, stream::qdisc(id)),
                    ))),
                };
                let delay = d.delay + scenario.nodes[to].processing_delay;
                let mut ch = Channel::new(from as u32, to as u32, d.rate_bps, delay, q);
                let jitter = scenario.nodes[to].processing_jitter;
                if jitter > SimDuration::ZERO {
                    ch.set_jitter(jitter, Rng::new(seed, stream::processing_jitter(id)));
                }
                channels.push(ch);
            }
        }
        for e in &scenario.elements {
            let k = channels[e.channel].elements().len();
            let el = e.config.build(Rng::new(seed, stream::element(e.channel, k)), e.to.map(|n| n as u32));
            channels[e.channel].add_element(el);
        }
        let chan_of = ChannelIndex::new(scenario.nodes.len(), &channels);
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); scenario.nodes.len()];
        for l in &scenario.links {
            adj[l.a].push(l.b);
            adj[l.b].push(l.a);
        }

        // Conversations (Fair Queueing), numbered in the order flows need them.
        let mut convs = ConvIds::new(scenario.conversations);
        let conv = |convs: &mut ConvIds, a: usize, b: usize| convs.route(a, b);

        let n_hops: usize = scenario.flows.iter().map(|f| f.path.len() + f.ack_path.len() + 2).sum();
        let mut route_chans: Vec<u32> = Vec::with_capacity(n_hops);
        let mut flows = Vec::with_capacity(scenario.flows.len());
        let mut wanted = Wanted::new(&scenario.series);
        let mut measured = vec![(false, false); scenario.flows.len()];
        for &fi in &scenario.delays {
            measured[fi].0 = true;
        }
        for &fi in &scenario.windows {
            measured[fi].1 = true;
        }
        // Measurement boundaries (phase edges, fixed intervals) and scheduled changes are
        // scheduled before anything else, so at equal times they run first.
        let end = SimTime::ZERO + scenario.duration;
        let mut b: Vec<SimTime> = Vec::new();
        for p in &scenario.phases {
            b.push(SimTime::ZERO + p.start);
            b.push(SimTime::ZERO + p.end);
        }
        if let Some(iv) = scenario.interval {
            let mut t = SimTime::ZERO;
            while t < end {
                b.push(t);
                t += iv;
            }
            b.push(end);
        }
        b.sort();
        b.dedup();
        let mut events = EventQueue::with_capacity(channels.len() * 2 + scenario.flows.len() * 2 + b.len() + 16);
        for (k, &t) in b.iter().enumerate() {
            events.schedule(t, Event::Snapshot(k as u32));
        }
        for (i, c) in scenario.changes.iter().enumerate() {
            events.schedule(SimTime::ZERO + c.at, Event::Change(i as u32));
        }
        // Ack routes of flows that send no acks get their conversation after all others.
        let mut unnumbered: Vec<(usize, usize, usize)> = Vec::new();
        let mut starts = Vec::with_capacity(scenario.flows.len());
        for (fi, f) in scenario.flows.iter().enumerate() {
            route_chans.push(ROUTE_END); // the data route's conversation, set below
            let data_route = route_chans.len() as u32;
            route_chans.extend(f.path.windows(2).map(|w| chan_of.get(w[0], w[1])));
            route_chans.push(ROUTE_END);
            route_chans.push(ROUTE_END); // the ack route's conversation
            let ack_route = route_chans.len() as u32;
            route_chans.extend(f.ack_path.windows(2).map(|w| chan_of.get(w[0], w[1])));
            route_chans.push(ROUTE_END);
            route_chans[data_route as usize - 1] = conv(&mut convs, f.from, f.to);
            // Start-time jitter: a uniform offset in [0, start_jitter) from the flow's own
            // stream (drawn only when asked for, so other runs are unchanged).
            let offset = if f.start_jitter > SimDuration::ZERO {
                let u = Rng::new(seed, stream::start_jitter(fi)).next_f64();
                SimDuration::from_ps((u * f.start_jitter.as_ps() as f64) as u64)
            } else {
                SimDuration::ZERO
            };
            let start = SimTime::ZERO + f.start + offset;
            let stop = f.stop.map(|s| SimTime::ZERO + s).unwrap_or(SimTime::MAX);
            let name = f.name.as_str();
            let mut series = |m: &str, unit: &str, every: bool| series(&mut rec, &mut wanted, name, m, unit, every);
            let built = endpoint::build(
                &f.spec,
                BuildCx {
                    flow: fi,
                    seed,
                    start,
                    offset,
                    stop,
                    data_route,
                    ack_route,
                    series: &mut series,
                    window_hist: measured[fi].1.then_some(SimTime::ZERO + scenario.measure_start),
                },
            );
            if built.answers {
                route_chans[ack_route as usize - 1] = conv(&mut convs, f.to, f.from);
            } else {
                unnumbered.push((ack_route as usize - 1, f.to, f.from));
            }
            starts.push(start);
            let (sender, receiver) = (built.sender, built.receiver);
            // (A kind whose data is not measured keeps empty statistics.)
            let from = if built.measures_delay { SimTime::ZERO + scenario.measure_start } else { SimTime::MAX };
            let delay = measured[fi].0.then(|| Box::new(FlowDelay { key: (u32::MAX, 0), from, ..Default::default() }));
            flows.push(Endpoint { counters: FlowCounters::default(), delay, src: f.from as u32, sender, receiver });
        }
        for (slot, a, b) in unnumbered {
            route_chans[slot] = conv(&mut convs, a, b);
        }
        for (fi, (ep, &start)) in flows.iter_mut().zip(&starts).enumerate() {
            match ep.sender.first(start) {
                First::Start(t) => events.schedule(t, Event::FlowStart(fi as u32)),
                First::Tick(t) => events.schedule(t, Event::SourceTick(fi as u32)),
                First::Never => {}
            }
        }

        if !wanted.names.is_empty() {
            for c in channels.iter_mut() {
                let name = channel_name(&scenario, c);
                let queue = wanted.has(&name, "queue").then(|| rec.add(&name, "queue", "pkts", false));
                let sojourn = wanted.has(&name, "sojourn").then(|| rec.add(&name, "sojourn", "s", true));
                c.set_traces(queue, sojourn);
            }
        }
        for (ci, c) in channels.iter().enumerate() {
            for (k, e) in c.elements().iter().enumerate() {
                if let Some(t) = e.first_timer() {
                    events.schedule(t, Event::ElementTimer(ci as u32, k as u32));
                }
            }
        }
        let n_nodes = scenario.nodes.len();

        let n_b = b.len();
        let mut sim = Simulation {
            scenario,
            seed,
            net: Net {
                ev: events,
                drops: Vec::with_capacity(8),
                rec,
                meta: MetaSlab::default(),
                emitted: Vec::new(),
                routes: route_chans,
                pending: false,
                pipes: PipePool::new(),
                held: Vec::new(),
                cut_next: Handover::default(),
                cut: Vec::with_capacity(8),
                ends: Vec::new(),
                horizon: SimTime::ZERO,
                merges: Vec::new(),
                merge_of: Vec::new(),
                merge_first: u128::MAX,
                merge_next: 0,
                merge_refused: 0,
            },
            channels,
            flows,
            out: Vec::with_capacity(64),
            rx_out: Vec::with_capacity(4),
            parked: Vec::new(),
            parked_free: Vec::new(),
            acks_parked: 0,
            emit_routes: BTreeMap::new(),
            convs,
            adj,
            node_control_rx: vec![0; n_nodes],
            unroutable: 0,
            changes_applied: 0,
            boundaries: b,
            snapshots: vec![None; n_b],
            end,
            next_snapshot: 0,
            cut_cap: SimTime::MAX,
            prefetch_ahead: 0,
            finished: false,
            stopped: None,
        };
        // Drop-tail FIFOs schedule departures at enqueue (no `TxDone` events), and take
        // packets from their one feeding channel at send time where they can.
        sim.set_timed_fifo(true);
        sim.update_horizon();
        sim.set_prefetch(true);
        sim
    }

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
    /// and an event per feeding channel (`true`, the default; `merge.rs`): a channel
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
        most.truncate(crate::merge::MAX_MERGES);
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
    /// channel is a timed drop-tail FIFO (`set_timed_fifo`) fed by that one channel
    /// alone, no channel has elements (which may emit packets anywhere), and the arrival
    /// comes before the next measurement snapshot (`Net::horizon`). Such a channel's
    /// state depends only on its arrivals, in order, so offering a packet early for its
    /// arrival time gives the same departures, drops and counters; it saves one event per
    /// packet per such hop (the access link towards each receiver and each sender of a
    /// dumbbell). The next pipe-head event is scheduled earlier, but events at one
    /// instant run in an order that does not depend on when they were scheduled
    /// (`event.rs`), so the results are those of the plain path. A run stopped early
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
        let mut early = Vec::new();
        for (f, ep) in self.flows.iter().enumerate() {
            let (Some(ack_route), Some(data_route)) = (ep.receiver.ack_route(), ep.sender.early_data_route()) else {
                continue;
            };
            let ack_first = routes[ack_route as usize];
            let data_route = data_route as usize;
            let mut last = data_route;
            while routes[last + 1] != ROUTE_END {
                last += 1;
            }
            // (Delay statistics read the rates in force when the packet arrives: not early
            // if scheduled changes may move them.)
            let changes = !self.scenario.changes.is_empty() && ep.delay.is_some();
            if !ep.receiver.takes_data_early() || changes || ack_first == ROUTE_END || routes[data_route] == ROUTE_END {
                continue;
            }
            let (a, c) = (ack_first as usize, routes[last] as usize);
            if only_start(a) && self.channels[a].is_timed() {
                early.push((f, a, c));
            }
        }
        for (f, a, c) in early {
            self.net.ends[f].rx = a as u32;
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
        for (f, ep) in self.flows.iter().enumerate() {
            let (Some(ack_route), Some(data_route)) = (ep.receiver.ack_route(), ep.sender.early_data_route()) else {
                continue;
            };
            let (ack_route, data_route) = (ack_route as usize, data_route as usize);
            if routes[ack_route] == ROUTE_END || routes[data_route] == ROUTE_END {
                continue;
            }
            let d = routes[data_route] as usize;
            let mut last = ack_route;
            while routes[last + 1] != ROUTE_END {
                last += 1;
            }
            let closed = self.net.ends[f].rx != NOT_CUT && cut_from(data_route) && cut_from(ack_route);
            if only_start(d) && self.channels[d].is_timed() && !closed {
                early.push((f, d, routes[last] as usize));
            }
        }
        for (f, d, c) in early {
            self.net.ends[f].tx = d as u32;
            self.net.held[d] = 0;
            self.channels[c].set_feeds_cut(true);
        }
    }

    /// Sets the cut-through horizon (`Net::horizon`): the next snapshot's time, or just
    /// past the end (arrivals at the end still count), or just past the end of a
    /// `run_until`.
    fn update_horizon(&mut self) {
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
        while budget > 0 {
            let Some((now, e)) = self.pop_next(end) else {
                self.finished = true;
                return true;
            };
            self.dispatch(now, e);
            budget -= 1;
        }
        false
    }

    /// The next event not later than `until`: from the queue, or the first of the merged
    /// arrivals (`merge.rs`) if its key comes first.
    #[inline(always)]
    fn pop_next(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        let bound = self.net.merge_first;
        if let Some(x) = self.net.ev.pop_before(until, bound) {
            return Some(x);
        }
        let t = EventQueue::key_time(bound);
        if bound == u128::MAX || t > until {
            return None;
        }
        self.net.ev.pass_to(t);
        Some((t, Event::Merged(self.net.merge_next)))
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
        while let Some((now, e)) = self.pop_next(until) {
            self.dispatch(now, e);
        }
        self.cut_cap = SimTime::MAX;
        self.update_horizon();
    }

    /// Starts loading what the next event will read first (its channel's pipe line and
    /// pipe node), so that its cache misses overlap this event's work.
    /// (Out of line: below the threshold the hot path keeps its shape.)
    #[inline(never)]
    fn prefetch_next(&self) {
        if let Some(Event::PipeHead(c, n)) = self.net.ev.peek_event() {
            self.prefetch_pipe_head(c, n);
        }
    }

    /// What a pipe-head event of channel `c` reads first: the channel's pipe line and
    /// the pipe node `n`.
    #[inline(always)]
    fn prefetch_pipe_head(&self, c: u32, n: u32) {
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
    fn prefetch_two_ahead(&self) {
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
    fn prefetch_packet(&self, p: &Packet) {
        let hot = |c: u32| {
            if let Some(ch) = self.channels.get(c as usize) {
                ch.prefetch_arrival();
                if let Some(h) = self.net.held.get(c as usize) {
                    crate::prefetch::line(h);
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
            hot(if data { e.rx } else { e.tx });
        }
        if let Some(ep) = self.flows.get(p.flow as usize) {
            crate::prefetch::line(&ep.counters);
            if data {
                crate::prefetch::lines(&ep.receiver, 4);
            } else {
                crate::prefetch::lines(&ep.sender, 7);
            }
        }
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
            Event::Merged(m) => {
                let p = self.net.merge_pop(m);
                if self.prefetch_ahead > 0 {
                    if let Some(q) = self.net.merges[self.net.merge_next as usize].front() {
                        self.prefetch_packet(q);
                    }
                }
                let c = self.net.routes[p.route as usize + p.hop as usize];
                self.arrive(c, now, p);
            }
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
                    Fired::Reschedule(t, g) => self.net.ev.schedule(t, Event::PaceTimer(f, g)),
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

    /// A packet reached the far end of channel `c`.
    #[inline(always)]
    fn arrive(&mut self, c: u32, now: SimTime, mut p: Packet) {
        p.hop += 1;
        let next = self.net.routes[p.route as usize + p.hop as usize];
        if next != ROUTE_END {
            let held = &mut self.net.held[next as usize];
            if *held != NOT_CUT {
                if p.flags & FLAG_GHOST != 0 {
                    return; // handed over at a snapshot already (`release_held`)
                }
                *held -= 1;
            }
            self.enqueue(next, now, p);
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
            self.sender_timers(f);
        } else {
            self.control(c, now, &p);
            self.net.meta.free(p.meta);
            self.flush(f, now);
        }
    }

    #[inline(always)]
    fn enqueue(&mut self, c: u32, now: SimTime, p: Packet) {
        self.channels[c as usize].enqueue(c, now, &p, &mut self.net);
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

    /// Offers the packets released after a snapshot (`Channel::release_held`) to their
    /// next channel, each at its arrival time (`set_cut_through`). That channel may hand
    /// its own on in turn: the packet joins the end of the list.
    #[inline(never)]
    fn cut_through(&mut self) {
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
    fn take_over(&mut self, target: u32, at: SimTime, mut p: Packet) {
        p.hop += 1;
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
    fn send_early(&mut self, at: SimTime, p: Packet) {
        let f = p.flow as usize;
        let d = self.net.ends[f].tx as usize;
        let ep = &mut self.flows[f];
        // The sender's state now reflects every ack before this one, unless one is parked
        // (then this one waits behind it). A timer of its due first, or at the same
        // time, sends the ack to an event after all, ordered with the timer's.
        let io = Io {
            now: at,
            counters: &mut ep.counters,
            out: &mut self.rx_out,
            meta: &mut self.net.meta,
            rec: &mut self.net.rec,
        };
        if self.net.held[d] != 0 || !ep.sender.on_ack_early(io, &p) {
            self.park(d, at, p);
            return;
        }
        self.net.meta.free(p.meta);
        self.early_out(at);
        self.sender_timers(f as u32);
    }

    /// An ack its sender cannot take at send time (`send_early`) waits in a slot for an
    /// `Event::Parked` at its arrival time, counted in `Net::held` of the sender's data
    /// channel `d` like an ack still in its pipe.
    #[cold]
    fn park(&mut self, d: usize, at: SimTime, mut p: Packet) {
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
    fn early_out(&mut self, at: SimTime) {
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
    fn receive_early(&mut self, at: SimTime, p: Packet) {
        let f = p.flow as usize;
        let ep = &mut self.flows[f];
        if let Some(d) = ep.delay.as_deref_mut() {
            Self::measure_delay(d, &mut ep.counters, &self.channels, &self.net.routes, self.changes_applied, at, &p);
        }
        let io = Io {
            now: at,
            counters: &mut ep.counters,
            out: &mut self.rx_out,
            meta: &mut self.net.meta,
            rec: &mut self.net.rec,
        };
        let pass = ep.receiver.on_data(io, &p);
        debug_assert!(pass.is_none(), "a receiver taking packets early hands nothing over");
        debug_assert!(
            ep.receiver.timer().is_none_or(|t| t.deadline.is_none()),
            "a receiver taking packets early has no timer"
        );
        self.net.meta.free(p.meta);
        self.early_out(at);
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
            self.enqueue(c, now, p);
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
        let path = crate::scenario::shortest_path(from as usize, to as usize, &self.scenario.nodes, &self.adj)?;
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

    /// Records a data packet's one-way and queueing delay. The base delay (propagation
    /// and transmission along the route at the current rates) is cached per packet size
    /// and recomputed after a scheduled change.
    #[cold]
    fn measure_delay(
        d: &mut FlowDelay,
        c: &mut FlowCounters,
        channels: &[Channel],
        routes: &[u32],
        gen: u32,
        now: SimTime,
        p: &Packet,
    ) {
        if now < d.from {
            return;
        }
        if d.key != (p.bits, gen) {
            let mut base = 0u64;
            let mut i = p.route as usize;
            while routes[i] != ROUTE_END {
                let ch = &channels[routes[i] as usize];
                base += tx_time(p.bits, ch.rate_bps).as_ps() + ch.delay.as_ps();
                i += 1;
            }
            d.key = (p.bits, gen);
            d.base_ps = base;
        }
        let owd = (now - p.ts).as_ps();
        let q = owd.saturating_sub(d.base_ps);
        d.stats.one_way.add(owd / 1000);
        d.stats.queueing.add(q / 1000);
        c.delay_samples += 1;
        c.owd_sum_ps += owd as u128;
        c.qdelay_sum_ps += q as u128;
    }

    /// A control packet of flow `p.flow` reached the end of channel `c`: its feedback
    /// goes to the flow's sender if it arrived at the flow's source, anything else to
    /// the flow's receiver.
    #[cold]
    fn control(&mut self, c: u32, now: SimTime, p: &Packet) {
        let at = self.channels[c as usize].to;
        let ep = &mut self.flows[p.flow as usize];
        ep.counters.control_arrived += 1;
        if at == ep.src {
            if let Some(crate::meta::Control::Feedback(fb)) = self.net.meta.get(p.meta).map(|m| m.control) {
                ep.sender.on_feedback(now, &fb, p.ts);
            }
        } else if let Some(x) = ep.receiver.on_control(io!(self, ep, now), p) {
            self.pass(now, x);
        }
    }

    /// A receiver handed a payload to the sender of flow `x.flow` (a voice user's
    /// partner), who may schedule a tick.
    #[cold]
    fn pass(&mut self, now: SimTime, x: Pass) {
        if let Some(t) = self.flows[x.flow as usize].sender.on_pass(now, &x.control) {
            self.net.ev.schedule(t, Event::SourceTick(x.flow));
        }
        self.sender_timers(x.flow);
    }

    /// Injects the packets flow `f` just emitted and (re)schedules its timers.
    #[inline]
    fn flush(&mut self, f: u32, now: SimTime) {
        self.send_out(now);
        self.sender_timers(f);
        self.receiver_timer(f);
    }

    /// (Re)schedules flow `f`'s receiver timer if it moved.
    #[inline(always)]
    fn receiver_timer(&mut self, f: u32) {
        if let Some((t, g)) = self.flows[f as usize].receiver.timer().and_then(|t| t.needs_event()) {
            self.net.ev.schedule(t, Event::RecvTimer(f, g));
        }
    }

    /// Injects the packets an endpoint just emitted (`out`).
    #[inline(always)]
    fn send_out(&mut self, now: SimTime) {
        for i in 0..self.out.len() {
            let p = self.out[i];
            let c = self.net.routes[p.route as usize];
            self.enqueue(c, now, p);
        }
        self.out.clear();
    }

    /// (Re)schedules flow `f`'s sender timers if they moved.
    #[inline(always)]
    fn sender_timers(&mut self, f: u32) {
        let (timer, pace) = self.flows[f as usize].sender.timers();
        if let Some((t, g)) = timer.and_then(|t| t.needs_event()) {
            self.net.ev.schedule(t, Event::FlowTimer(f, g));
        }
        if let Some((t, g)) = pace.and_then(|t| t.needs_event()) {
            self.net.ev.schedule(t, Event::PaceTimer(f, g));
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
            flows: self.flows.iter().map(|f| *f.counters()).collect(),
            channels: self.channels.iter().map(|c| c.counters).collect(),
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
        let mut n = vec![0u64; self.flows.len()];
        for c in &self.channels {
            c.for_each_packet(&self.net.pipes, &mut |p| {
                if p.is_data() {
                    n[p.flow as usize] += 1;
                }
            });
        }
        for p in self.net.merges.iter().flat_map(|m| m.packets()) {
            if p.is_data() {
                n[p.flow as usize] += 1;
            }
        }
        n
    }

    /// Summarises the run (call after `run`). `wall_time_s` is supplied by the caller:
    /// the engine reads no clock.
    pub fn results(&mut self, wall_time_s: f64) -> Results {
        let now = self.now();
        for c in self.channels.iter_mut() {
            c.settle(now);
        }
        results::summarise(self, now, wall_time_s)
    }

    pub fn end(&self) -> SimTime {
        self.end
    }
}

fn series(rec: &mut Recorder, wanted: &mut Wanted, entity: &str, metric: &str, unit: &str, every: bool) -> Option<u32> {
    wanted.has(entity, metric).then(|| rec.add(entity, metric, unit, every))
}

/// The series a scenario asks for (`[measure].series`), looked up by entity and metric
/// in constant time and without allocating (a 10^5-flow build asks about 10^6 names).
/// Only membership is asked, so the hash set's order cannot reach the results.
struct Wanted<'a> {
    names: HashSet<&'a str>,
    buf: String,
}

impl<'a> Wanted<'a> {
    fn new(series: &'a [String]) -> Self {
        Wanted { names: series.iter().map(String::as_str).collect(), buf: String::new() }
    }

    /// Is "entity.metric" asked for?
    fn has(&mut self, entity: &str, metric: &str) -> bool {
        if self.names.is_empty() {
            return false;
        }
        self.buf.clear();
        let _ = write!(self.buf, "{entity}.{metric}");
        self.names.contains(self.buf.as_str())
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
    use crate::meta::Control;
    use std::sync::{Arc, Mutex};

    #[test]
    fn conversation_ids_by_flow_and_by_host_pair() {
        // Flows 0 (a -> b) and 1 (a -> b again) with acks, then an emitted packet a -> b
        // and one r -> b. By flow: routes 0, 1, 2, 3 in turn, and the emitted pairs 4 and 5
        // (the second packet a -> b reuses 4).
        let mut by_flow = ConvIds::new(Conversations::Flow);
        let ids: Vec<u32> = [(0, 1), (1, 0), (0, 1), (1, 0)].iter().map(|&(a, b)| by_flow.route(a, b)).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        assert_eq!([by_flow.pair(0, 1), by_flow.pair(2, 1), by_flow.pair(0, 1)], [4, 5, 4]);
        // By host pair: both flows' data are 0 and both flows' acks 1; the emitted packet
        // a -> b joins the flows' 0; r -> b is new.
        let mut by_pair = ConvIds::new(Conversations::HostPair);
        let ids: Vec<u32> = [(0, 1), (1, 0), (0, 1), (1, 0)].iter().map(|&(a, b)| by_pair.route(a, b)).collect();
        assert_eq!(ids, [0, 1, 0, 1]);
        assert_eq!([by_pair.pair(0, 1), by_pair.pair(2, 1), by_pair.pair(0, 1)], [0, 2, 0]);
    }

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
        sim.enqueue(3, now, p);
        sim.run();
        assert_eq!(*got.lock().unwrap(), vec![(SimTime::from_ps(110_064_000_000), fb)]);
        assert_eq!(sim.flows[0].counters.control_arrived, 1);
        assert_eq!(sim.net.meta.live(), 0, "the slot was given back");
    }
}
