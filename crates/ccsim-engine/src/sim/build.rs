//! Building a simulation from a `Scenario`: channels and their elements, routes and
//! their conversation ids, the flows' two ends (`sim/flows.rs`), series and
//! the initial events.

use super::flows::{self, BuildCx};
use super::*;
use crate::base::rng::{stream, Rng};
use crate::base::trace::Recorder;
use crate::element::Element;
use crate::net::pipe::PipePool;
use crate::packet::meta::MetaSlab;
use crate::scenario::Conversations;
use crate::transport::First;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// Conversation ids (the word before each route), dense from 0 in the order routes ask
/// for them.
///
/// - `Conversations::Flow`: every flow route (a flow's data route, its ack route) is a
///   conversation of its own; packets of no flow (those elements emit) share one per
///   (sending node, destination host) pair, numbered after the flows'.
/// - `Conversations::HostPair`: one per (first node, last node) pair, flow routes and
///   emitted packets alike (Demers, Keshav and Shenker's source-destination pair).
#[derive(Debug)]
pub(super) struct ConvIds {
    per_flow: bool,
    by_pair: BTreeMap<(usize, usize), u32>,
    next: u32,
}

impl ConvIds {
    pub(super) fn new(c: Conversations) -> Self {
        ConvIds { per_flow: c == Conversations::Flow, by_pair: BTreeMap::new(), next: 0 }
    }

    /// The conversation of a flow route from `a` to `b`.
    pub(super) fn route(&mut self, a: usize, b: usize) -> u32 {
        if self.per_flow {
            self.next += 1;
            self.next - 1
        } else {
            self.pair(a, b)
        }
    }

    /// The conversation of packets of no flow from node `a` to host `b`.
    pub(super) fn pair(&mut self, a: usize, b: usize) -> u32 {
        let n = self.next;
        let id = *self.by_pair.entry((a, b)).or_insert(n);
        if id == n {
            self.next += 1;
        }
        id
    }
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

impl Simulation {
    /// Builds the network and schedules the initial events. `seed` overrides the
    /// scenario's seed.
    pub fn new(scenario: Scenario, seed: Option<u64>) -> Self {
        Self::build(scenario, seed, true)
    }

    /// `new` with every flow built at the start, none in a reused slot
    /// (`sim/lifecycle.rs`): the reference its results are compared with in tests.
    #[doc(hidden)]
    pub fn new_all_built(scenario: Scenario, seed: Option<u64>) -> Self {
        Self::build(scenario, seed, false)
    }

    fn build(mut scenario: Scenario, seed: Option<u64>, lazy: bool) -> Self {
        let seed = seed.unwrap_or(scenario.seed);
        crate::scenario::workload::expand(&mut scenario, seed);
        let mut rec = Recorder::new(scenario.sampling.map(|s| s.width(scenario.duration)), scenario.duration);

        // Channels: link i gives channels 2i (a->b) and 2i+1 (b->a).
        let mut channels = Vec::with_capacity(scenario.links.len() * 2);
        for l in &scenario.links {
            for (d, (from, to)) in l.dirs.iter().zip([(l.a, l.b), (l.b, l.a)]) {
                let id = channels.len();
                let q = d.qdisc.build(d.buffer, d.rate_bps, Rng::new(seed, stream::qdisc(id)));
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
        // The adjacency serves ECMP's paths here and the routes of emitted packets later
        // (`Simulation::emit_route`, which builds it on first use): a scenario with
        // neither never builds it (two small heap blocks per host at 10^6 flows).
        let adj = (!scenario.ecmp_flows.is_empty()).then(|| adjacency(&scenario));

        // Conversations (Fair Queueing), numbered in the order flows need them.
        let mut convs = ConvIds::new(scenario.conversations);
        let conv = |convs: &mut ConvIds, a: usize, b: usize| convs.route(a, b);

        // Flows from `lazy_first` on are built at their start (`sim/lifecycle.rs`).
        let lazy_first = if lazy { lifecycle::lazy_first(&scenario) } else { scenario.flows.len() };
        let n_hops: usize = scenario.flows.iter().map(|f| f.path.len() + f.ack_path.len() + 2).sum();
        let mut route_chans: Vec<u32> = Vec::with_capacity(n_hops);
        let mut flows = Vec::with_capacity(lazy_first);
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
        let mut events = EventQueue::with_capacity(channels.len() * 2 + lazy_first * 2 + b.len() + 16);
        for (k, &t) in b.iter().enumerate() {
            events.schedule(t, Event::Snapshot(k as u32));
        }
        for (i, c) in scenario.changes.iter().enumerate() {
            events.schedule(SimTime::ZERO + c.at, Event::Change(i as u32));
        }
        // Ack routes of flows that send no acks get their conversation after all others.
        let mut unnumbered: Vec<(usize, usize, usize)> = Vec::new();
        let mut starts = Vec::with_capacity(scenario.flows.len());
        let mut ecmp = adj.as_ref().map(|adj| Ecmp::new(&scenario.nodes, adj));
        let per_hop = (scenario.routing == crate::scenario::Routing::EcmpPerHop).then(|| {
            (0..scenario.nodes.len()).map(|n| Rng::new(seed, stream::router_hash(n)).next_u64()).collect::<Vec<u64>>()
        });
        let mut ecmp_next = scenario.ecmp_flows.iter().peekable();
        let (mut path, mut ack_path) = (Vec::new(), Vec::new());
        let mut lazy = Vec::with_capacity(scenario.flows.len() - lazy_first);
        for (fi, f) in scenario.flows.iter().enumerate() {
            let by_ecmp = ecmp_next.next_if(|&&i| i == fi).is_some();
            let (path, ack_path) = if let (true, Some(ecmp)) = (by_ecmp, ecmp.as_mut()) {
                let mut rng = Rng::new(seed, stream::ecmp(fi));
                match &per_hop {
                    None => ecmp.path(f.from, f.to, &mut rng, &mut path),
                    Some(salts) => ecmp.path_per_hop(f.from, f.to, rng.next_u64(), salts, &mut path),
                }
                ack_path.clear();
                ack_path.extend(path.iter().rev());
                (&path[..], &ack_path[..])
            } else {
                (&f.path[..], &f.ack_path[..])
            };
            route_chans.push(ROUTE_END); // the data route's conversation, set below
            let data_route = route_chans.len() as u32;
            route_chans.extend(path.windows(2).map(|w| chan_of.get(w[0], w[1])));
            route_chans.push(ROUTE_END);
            route_chans.push(ROUTE_END); // the ack route's conversation
            let ack_route = route_chans.len() as u32;
            route_chans.extend(ack_path.windows(2).map(|w| chan_of.get(w[0], w[1])));
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
            if fi >= lazy_first {
                // (A window flow: it acknowledges, as `flows::build` would report.)
                route_chans[ack_route as usize - 1] = conv(&mut convs, f.to, f.from);
                starts.push(start);
                lazy.push(lifecycle::LazyFlow { data_route, ack_route, start, stop, delay: measured[fi].0 });
                continue;
            }
            let name = f.name.as_str();
            let mut series = |m: &str, unit: &str, every: bool| series(&mut rec, &mut wanted, name, m, unit, every);
            let built = flows::build(
                &f.spec,
                BuildCx {
                    flow: fi,
                    slot: fi as u32,
                    name,
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
            let delay = measured[fi].0.then(|| FlowDelay::counting_from(from));
            flows.push(Endpoint {
                counters: FlowCounters::default(),
                delay,
                src: f.from as u32,
                start,
                sender,
                receiver,
            });
        }
        for (slot, a, b) in unnumbered {
            route_chans[slot] = conv(&mut convs, a, b);
        }
        for (fi, ep) in flows.iter_mut().enumerate() {
            match ep.sender.first(starts[fi]) {
                First::Start(t) => events.schedule(t, Event::FlowStart(fi as u32)),
                First::Tick(t) => events.schedule(t, Event::SourceTick(fi as u32)),
                First::Never => {}
            }
        }
        // Lazy flows (window flows, whose first event is their start) are scheduled one
        // at a time, each start scheduling the next (`Lifecycle::next_start`).
        let mut life = (!lazy.is_empty()).then(|| Box::new(lifecycle::Lifecycle::new(lazy_first, lazy)));
        if let Some((t, f)) = life.as_deref_mut().and_then(|l| l.next_start()) {
            events.schedule(t, Event::FlowStart(f));
        }
        let lazy_slot = if life.is_some() { lazy_first as u32 } else { u32::MAX };

        if !wanted.names.is_empty() {
            for c in channels.iter_mut() {
                let name = channel_name(&scenario, c);
                let queue = wanted.has(&name, "queue").then(|| rec.add(&name, "queue", "pkts", false));
                let sojourn = wanted.has(&name, "sojourn").then(|| rec.add(&name, "sojourn", "s", true));
                let mut own = [None; crate::qdisc::MAX_QDISC_SERIES];
                for (slot, &(metric, unit)) in c.qdisc_series().iter().enumerate() {
                    own[slot] = wanted.has(&name, metric).then(|| rec.add(&name, metric, unit, false));
                }
                c.set_traces(queue, sojourn, own);
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
                departure_key: u128::MAX,
                departure_channel: 0,
                merge_refused: 0,
            },
            channels,
            flows,
            out: Vec::with_capacity(64),
            rx_out: Vec::with_capacity(4),
            parked: Vec::new(),
            parked_free: Vec::new(),
            acks_parked: 0,
            early_pacing: true,
            pace_lead: Vec::new(),
            timers_early: 0,
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
            life,
            lazy_slot,
        };
        // Drop-tail FIFOs schedule departures at enqueue (no `TxDone` events), and take
        // packets from their one feeding channel at send time where they can.
        sim.set_timed_fifo(true);
        sim.update_horizon();
        sim.set_prefetch(true);
        sim
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

/// Equal-cost multipath (`Routing::Ecmp`): the fewest-hops paths from a host to a host
/// through routers (hosts never forward), each equally likely. Per destination (cached),
/// a breadth-first search from it gives every node's distance and its number of
/// fewest-hops paths to it; one uniform draw k in [0, paths from the source) then picks
/// the k-th path in neighbour order (a neighbour's share is its own count). Counts
/// saturate at `u64::MAX` (far beyond any topology built here), which would only skew
/// the choice. Per hop (`Routing::EcmpPerHop`): at each node, one of the next hops on a
/// fewest-hops path, each equally likely, by the flow's hash mixed with the node's salt.
struct Ecmp<'a> {
    nodes: &'a [crate::scenario::Node],
    /// Neighbours, each once, in link order.
    adj: Vec<Vec<usize>>,
    /// Per destination: (distance, fewest-hops path count) of every node.
    trees: HashMap<usize, (Vec<u32>, Vec<u64>)>,
}

/// Each node's neighbours, in link order (a node joined by two links to one neighbour
/// lists it twice).
pub(super) fn adjacency(scenario: &Scenario) -> Vec<Vec<usize>> {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); scenario.nodes.len()];
    for l in &scenario.links {
        adj[l.a].push(l.b);
        adj[l.b].push(l.a);
    }
    adj
}

impl<'a> Ecmp<'a> {
    fn new(nodes: &'a [crate::scenario::Node], adj: &[Vec<usize>]) -> Self {
        let adj = adj
            .iter()
            .map(|n| {
                let mut seen = HashSet::new();
                n.iter().copied().filter(|&v| seen.insert(v)).collect()
            })
            .collect();
        Ecmp { nodes, adj, trees: HashMap::new() }
    }

    fn tree(&mut self, to: usize) -> &(Vec<u32>, Vec<u64>) {
        let (nodes, adj) = (self.nodes, &self.adj);
        self.trees.entry(to).or_insert_with(|| {
            let n = nodes.len();
            let (mut dist, mut count) = (vec![u32::MAX; n], vec![0u64; n]);
            dist[to] = 0;
            count[to] = 1;
            let mut q = std::collections::VecDeque::from([to]);
            while let Some(u) = q.pop_front() {
                // Only the destination and routers pass paths on; a host is an end.
                if u != to && !nodes[u].router {
                    continue;
                }
                for &v in &adj[u] {
                    if dist[v] == u32::MAX {
                        dist[v] = dist[u] + 1;
                        q.push_back(v);
                    }
                    if dist[v] == dist[u] + 1 {
                        count[v] = count[v].saturating_add(count[u]);
                    }
                }
            }
            (dist, count)
        })
    }

    /// The next hops of `u` on a fewest-hops path to the destination whose tree is
    /// `dist`, in neighbour order.
    fn next_hops<'s>(&'s self, u: usize, to: usize, dist: &'s [u32]) -> impl Iterator<Item = usize> + 's {
        let nodes = self.nodes;
        self.adj[u]
            .iter()
            .copied()
            .filter(move |&v| dist[v] != u32::MAX && dist[v] + 1 == dist[u] && (v == to || nodes[v].router))
    }

    /// A fewest-hops path from `from` to `to` into `out`, chosen hop by hop: at node u
    /// the next hop of index splitmix64(hash ^ salts[u]) x n >> 64 among its n equal-cost
    /// next hops (a switch's hash of the flow's 5-tuple, each switch salted).
    fn path_per_hop(&mut self, from: usize, to: usize, hash: u64, salts: &[u64], out: &mut Vec<usize>) {
        self.tree(to);
        let dist = &self.trees[&to].0;
        out.clear();
        out.push(from);
        let mut u = from;
        while u != to {
            let n = self.next_hops(u, to, dist).count() as u64;
            let h = crate::base::rng::splitmix64(hash ^ salts[u]);
            let i = ((h as u128 * n as u128) >> 64) as usize;
            let next = self.next_hops(u, to, dist).nth(i).expect("a fewest-hops path continues");
            out.push(next);
            u = next;
        }
    }

    /// A fewest-hops path from `from` to `to` into `out` (the validated scenario has
    /// one, so there is one).
    fn path(&mut self, from: usize, to: usize, rng: &mut Rng, out: &mut Vec<usize>) {
        let nodes = self.nodes;
        self.tree(to);
        let (dist, count) = &self.trees[&to];
        // k uniform in [0, count[from]) by multiply-shift.
        let mut k = ((rng.next_u64() as u128 * count[from] as u128) >> 64) as u64;
        out.clear();
        out.push(from);
        let mut u = from;
        while u != to {
            let next = self.adj[u]
                .iter()
                .copied()
                .filter(|&v| dist[v] != u32::MAX && dist[v] + 1 == dist[u] && (v == to || nodes[v].router))
                .find(|&v| {
                    if k < count[v] {
                        true
                    } else {
                        k -= count[v];
                        false
                    }
                })
                .expect("a fewest-hops path continues");
            out.push(next);
            u = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
