//! The simulation: builds arenas from a `Scenario` and runs the event loop.
//!
//! All state lives in one owned `Simulation` value (no globals), in vectors indexed by
//! dense ids: channels, routes (lists of channel ids), flows. All routes are stored in
//! one flat array, each followed by the sentinel `ROUTE_END`; a packet carries the offset
//! of its route and its hop index, so forwarding is one load: `route_chans[p.route + p.hop]`.

use crate::event::{Event, EventQueue};
use crate::link::{Channel, ChannelCounters};
use crate::packet::{Packet, PacketKind};
use crate::qdisc::{AnyQdisc, FairQueueing, Fcfs};
use crate::results::{self, Results};
use crate::rng::Rng;
use crate::scenario::{FlowSpec, QdiscKind, Scenario};
use crate::time::{tx_time, SimDuration, SimTime};
use crate::trace::Recorder;
use crate::transport::source::{Gaps, Source};
use crate::transport::timer::Fired;
use crate::transport::window::{FlowTrace, WindowFlow};
use crate::transport::FlowCounters;
use std::collections::BTreeMap;

/// Marks the end of a route in `Simulation::route_chans`.
const ROUTE_END: u32 = u32::MAX;

/// A flow's endpoint state.
#[derive(Debug, Clone)]
pub enum Endpoint {
    Window(Box<WindowFlow>),
    Source(Source),
}

impl Endpoint {
    pub fn counters(&self) -> &FlowCounters {
        match self {
            Endpoint::Window(w) => &w.counters,
            Endpoint::Source(s) => &s.counters,
        }
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
    events: EventQueue,
    pub channels: Vec<Channel>,
    /// Every route's channel ids, each route terminated by `ROUTE_END`.
    route_chans: Vec<u32>,
    pub flows: Vec<Endpoint>,
    /// Scratch: packets emitted by an endpoint, injected right after the call.
    out: Vec<Packet>,
    /// Scratch: packets dropped by a channel.
    dropped: Vec<Packet>,
    pub recorder: Recorder,
    /// Boundary times of phases and intervals, sorted, with their snapshots once taken.
    pub boundaries: Vec<SimTime>,
    pub snapshots: Vec<Option<Snapshot>>,
    end: SimTime,
    finished: bool,
}

impl Simulation {
    /// Builds the network and schedules the initial events. `seed` overrides the
    /// scenario's seed.
    pub fn new(scenario: Scenario, seed: Option<u64>) -> Self {
        let seed = seed.unwrap_or(scenario.seed);
        let mut rec = Recorder::default();

        // Channels: link i gives channels 2i (a->b) and 2i+1 (b->a).
        let mut channels = Vec::with_capacity(scenario.links.len() * 2);
        let mut chan_of: BTreeMap<(usize, usize), u32> = BTreeMap::new();
        for l in &scenario.links {
            for (from, to) in [(l.a, l.b), (l.b, l.a)] {
                let q = match l.qdisc {
                    QdiscKind::Fcfs => AnyQdisc::Fcfs(Fcfs::new(l.buffer)),
                    QdiscKind::Fq => AnyQdisc::Fq(Box::new(FairQueueing::new(l.buffer, l.rate_bps))),
                };
                let name = format!("{}->{}", scenario.nodes[from].name, scenario.nodes[to].name);
                let delay = l.delay + scenario.nodes[to].processing_delay;
                chan_of.insert((from, to), channels.len() as u32);
                channels.push(Channel::new(name, l.name.clone(), from as u32, to as u32, l.rate_bps, delay, l.buffer, q));
            }
        }

        // Conversations (Fair Queueing): one id per (source host, destination host).
        let mut convs: BTreeMap<(usize, usize), u32> = BTreeMap::new();
        let mut conv = |a: usize, b: usize| -> u32 {
            let n = convs.len() as u32;
            *convs.entry((a, b)).or_insert(n)
        };

        let mut route_chans: Vec<u32> = Vec::new();
        let mut flows = Vec::with_capacity(scenario.flows.len());
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
        for (fi, f) in scenario.flows.iter().enumerate() {
            let data_route = route_chans.len() as u32;
            route_chans.extend(f.path.windows(2).map(|w| chan_of[&(w[0], w[1])]));
            route_chans.push(ROUTE_END);
            let ack_route = route_chans.len() as u32;
            route_chans.extend(f.path.windows(2).rev().map(|w| chan_of[&(w[1], w[0])]));
            route_chans.push(ROUTE_END);
            let start = SimTime::ZERO + f.start;
            let data = |size: u32| Packet {
                flow: fi as u32,
                seq: 0,
                size,
                conv: 0,
                route: data_route,
                hop: 0,
                kind: PacketKind::Data,
                flags: 0,
                ts: SimTime::ZERO,
            };
            match &f.spec {
                FlowSpec::Window { cc, data_size, ack_size, max_window, keep_out_of_order } => {
                    let mut d = data(*data_size);
                    d.conv = conv(f.from, f.to);
                    let mut a = d;
                    a.size = *ack_size;
                    a.kind = PacketKind::Ack;
                    a.route = ack_route;
                    a.conv = conv(f.to, f.from);
                    let stop = f.stop.map(|s| SimTime::ZERO + s).unwrap_or(SimTime::MAX);
                    let mut w = WindowFlow::new(cc, d, a, *max_window, stop, *keep_out_of_order);
                    w.trace = FlowTrace {
                        cwnd: series(&mut rec, &scenario.series, &f.name, "cwnd", "pkts", false),
                        ssthresh: series(&mut rec, &scenario.series, &f.name, "ssthresh", "pkts", false),
                        outstanding: series(&mut rec, &scenario.series, &f.name, "outstanding", "pkts", false),
                        rtt: series(&mut rec, &scenario.series, &f.name, "rtt", "s", true),
                        rate: series(&mut rec, &scenario.series, &f.name, "rate", "pkts/s", false),
                        reference_rtt: series(&mut rec, &scenario.series, &f.name, "reference_rtt", "s", false),
                    };
                    events.schedule(start, Event::FlowStart(fi as u32));
                    flows.push(Endpoint::Window(Box::new(w)));
                }
                FlowSpec::Cbr { rate_bps, packet_size, on } => {
                    let mut d = data(*packet_size);
                    d.conv = conv(f.from, f.to);
                    let gap = tx_time(*packet_size, *rate_bps);
                    flows.push(Endpoint::Source(Source::new(d, Gaps::Constant(gap), periods(on))));
                }
                FlowSpec::Poisson { mean_gap, packet_size, on } => {
                    let mut d = data(*packet_size);
                    d.conv = conv(f.from, f.to);
                    let rng = Rng::new(seed, fi as u64);
                    flows.push(Endpoint::Source(Source::new(d, Gaps::Exponential { mean: *mean_gap, rng }, periods(on))));
                }
            }
        }
        for (fi, ep) in flows.iter_mut().enumerate() {
            if let Endpoint::Source(s) = ep {
                if let Some(t) = s.first() {
                    events.schedule(t, Event::SourceTick(fi as u32));
                }
            }
        }

        for c in channels.iter_mut() {
            let name = format!("{}.queue", c.name);
            if scenario.series.contains(&name) {
                c.trace_queue = Some(rec.add(&c.name, "queue", "pkts", false));
            }
        }

        let n_b = b.len();
        Simulation {
            scenario,
            seed,
            events,
            channels,
            route_chans,
            flows,
            out: Vec::with_capacity(64),
            dropped: Vec::with_capacity(8),
            recorder: rec,
            boundaries: b,
            snapshots: vec![None; n_b],
            end,
            finished: false,
        }
    }

    /// Number of events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.events.events_processed()
    }

    /// Runs until the end of the scenario (events at exactly the end time included).
    pub fn run(&mut self) {
        self.run_until(self.end);
        self.finished = true;
    }

    /// Runs all events up to and including `until` (capped at the scenario's end).
    pub fn run_until(&mut self, until: SimTime) {
        let until = until.min(self.end);
        while let Some((now, e)) = self.events.pop_until(until) {
            self.dispatch(now, e);
        }
    }

    #[inline]
    fn dispatch(&mut self, now: SimTime, e: Event) {
        match e {
            Event::TxDone(c) => self.channels[c as usize].on_tx_done(c, now, &mut self.events, &mut self.recorder),
            Event::PipeHead(c) => {
                let p = self.channels[c as usize].on_pipe_head(c, now, &mut self.events);
                self.arrive(now, p);
            }
            Event::FlowTimer(f, gen) => {
                let Endpoint::Window(w) = &mut self.flows[f as usize] else { return };
                match w.timer.fire(gen, now) {
                    Fired::Ignore => {}
                    Fired::Reschedule(t, g) => self.events.schedule(t, Event::FlowTimer(f, g)),
                    Fired::Expire => {
                        w.on_timeout(now, &mut self.out, &mut self.recorder);
                        self.flush(f, now);
                    }
                }
            }
            Event::PaceTimer(f, gen) => {
                let Endpoint::Window(w) = &mut self.flows[f as usize] else { return };
                match w.pace.fire(gen, now) {
                    Fired::Ignore => {}
                    Fired::Reschedule(t, g) => self.events.schedule(t, Event::PaceTimer(f, g)),
                    Fired::Expire => {
                        w.on_pace(now, &mut self.out, &mut self.recorder);
                        self.flush(f, now);
                    }
                }
            }
            Event::FlowStart(f) => {
                if let Endpoint::Window(w) = &mut self.flows[f as usize] {
                    w.start(now, &mut self.out, &mut self.recorder);
                    self.flush(f, now);
                }
            }
            Event::SourceTick(f) => {
                if let Endpoint::Source(s) = &mut self.flows[f as usize] {
                    let next = s.tick(now, &mut self.out);
                    if let Some(t) = next {
                        self.events.schedule(t, Event::SourceTick(f));
                    }
                    self.flush(f, now);
                }
            }
            Event::Snapshot(k) => self.snapshot(k as usize, now),
            Event::Change(i) => {
                let c = self.scenario.changes[i as usize].clone();
                for ch in [2 * c.link, 2 * c.link + 1] {
                    let extra = self.scenario.nodes[self.channels[ch].to as usize].processing_delay;
                    self.channels[ch].change(now, c.rate_bps, c.delay.map(|d| d + extra));
                }
            }
        }
    }

    /// A packet reached the far end of the channel it was on.
    #[inline]
    fn arrive(&mut self, now: SimTime, mut p: Packet) {
        p.hop += 1;
        let c = self.route_chans[p.route as usize + p.hop as usize];
        if c != ROUTE_END {
            self.enqueue(c, now, p);
            return;
        }
        let f = p.flow;
        match (&mut self.flows[f as usize], p.kind) {
            (Endpoint::Window(w), PacketKind::Data) => w.on_data(now, &p, &mut self.out),
            (Endpoint::Window(w), PacketKind::Ack) => w.on_ack(now, &p, &mut self.out, &mut self.recorder),
            (Endpoint::Source(s), _) => s.on_arrival(),
        }
        self.flush(f, now);
    }

    #[inline]
    fn enqueue(&mut self, c: u32, now: SimTime, p: Packet) {
        self.channels[c as usize].enqueue(c, now, p, &mut self.events, &mut self.dropped, &mut self.recorder);
        if !self.dropped.is_empty() {
            for d in self.dropped.drain(..) {
                match &mut self.flows[d.flow as usize] {
                    Endpoint::Window(w) => w.on_drop(&d),
                    Endpoint::Source(s) => s.on_drop(),
                }
            }
        }
    }

    /// Injects the packets flow `f` just emitted and (re)schedules its timer.
    #[inline]
    fn flush(&mut self, f: u32, now: SimTime) {
        for i in 0..self.out.len() {
            let p = self.out[i];
            let c = self.route_chans[p.route as usize];
            self.enqueue(c, now, p);
        }
        self.out.clear();
        if let Endpoint::Window(w) = &mut self.flows[f as usize] {
            if let Some((t, g)) = w.timer.needs_event() {
                self.events.schedule(t, Event::FlowTimer(f, g));
            }
            if let Some((t, g)) = w.pace.needs_event() {
                self.events.schedule(t, Event::PaceTimer(f, g));
            }
        }
    }

    fn snapshot(&mut self, k: usize, now: SimTime) {
        for c in self.channels.iter_mut() {
            c.settle(now);
        }
        self.snapshots[k] = Some(Snapshot {
            time: now,
            flows: self.flows.iter().map(|f| *f.counters()).collect(),
            channels: self.channels.iter().map(|c| c.counters).collect(),
        });
    }

    /// Data packets of each flow currently queued or propagating.
    pub fn in_network(&self) -> Vec<u64> {
        let mut n = vec![0u64; self.flows.len()];
        for c in &self.channels {
            c.for_each_packet(&mut |p| {
                if p.is_data() {
                    n[p.flow as usize] += 1;
                }
            });
        }
        n
    }

    /// Summarises the run (call after `run`). `wall_time_s` is supplied by the caller:
    /// the engine reads no clock.
    pub fn results(&mut self, wall_time_s: f64) -> Results {
        let now = if self.finished { self.end } else { self.events.now() };
        for c in self.channels.iter_mut() {
            c.settle(now);
        }
        results::summarise(self, now, wall_time_s)
    }

    pub fn end(&self) -> SimTime {
        self.end
    }
}

fn periods(on: &[(SimDuration, SimDuration)]) -> Vec<(SimTime, SimTime)> {
    on.iter().map(|&(a, b)| (SimTime::ZERO + a, SimTime::ZERO + b)).collect()
}

fn series(rec: &mut Recorder, wanted: &[String], entity: &str, metric: &str, unit: &str, every: bool) -> Option<u32> {
    let name = format!("{entity}.{metric}");
    wanted.iter().any(|s| *s == name).then(|| rec.add(entity, metric, unit, every))
}

/// Parses, builds and runs a scenario in one call.
pub fn run_scenario(scenario: Scenario, seed: Option<u64>) -> Simulation {
    let mut sim = Simulation::new(scenario, seed);
    sim.run();
    sim
}
