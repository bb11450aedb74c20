//! A workload flow's state lives only while the flow is active: its sender and
//! receiver are built when it starts, in a slot of `Simulation::flows` that a completed
//! flow left, and a finished flow's results are kept in a compact record
//! (`RetiredFlow`), so the simulation's memory follows the active flows, not all flows of
//! a run.
//!
//! Which flows: those workloads generate (`Scenario::generated`, the last flows), in a
//! scenario where nothing outside a flow reads its state by flow id during the run
//! (`lazy_first`). The others are built at the start of the run in slots equal to their
//! ids, as before.
//!
//! Slots and ids: packets and the endpoints' timer events carry the slot
//! (`Packet::flow`), `Event::FlowStart` the flow id (scheduled at build, in flow order,
//! so the order of events is that of a build with every flow made at once). A flow's
//! random streams stay keyed by its id.
//!
//! When a slot is reused: a flow is *retirable* once its sender completed and it is
//! quiescent: every data packet and ack it sent was received or dropped (its counters
//! balance) and its timers are stopped. Nothing can reach it after that but events its
//! timers left in the queue, which the next flow in the slot ignores as stale (its
//! timers take over the old ones' generations: `LazyTimer::follow`). An endpoint may
//! take a packet before the clock reaches its arrival (cut-through, `sim/fast.rs`), so
//! a flow found retirable at time `t` is only replaced once the clock has reached `t`:
//! by then every packet it counted has arrived.
//!
//! Results: a flow reads the same whether it ran in a reused slot or was built at the
//! start (`crates/ccsim-engine/tests/lifecycle.rs` compares the two for whole runs).

use super::*;
use crate::net::EndCut;
use crate::transport::{FlowCounters, RttStats};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A flow built at its start: what the build leaves for then.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LazyFlow {
    /// Route offsets of its data and acks (`Net::routes`).
    pub data_route: u32,
    pub ack_route: u32,
    /// When it starts (start jitter included) and stops sending.
    pub start: SimTime,
    pub stop: SimTime,
    /// Its data arrivals are measured for delay statistics.
    pub delay: bool,
}

/// What results read of a flow that has left its slot.
#[derive(Debug)]
pub(crate) struct RetiredFlow {
    pub counters: FlowCounters,
    pub start: SimTime,
    pub completed_at: SimTime,
    pub rtt: RttStats,
    pub delivered_bits: Option<u64>,
    pub delay: Option<Box<FlowDelay>>,
}

/// A lazy flow not started yet.
pub(crate) const NOT_STARTED: u32 = u32::MAX;
/// Marks an index into `Lifecycle::retired` in `Lifecycle::state`.
pub(crate) const RETIRED: u32 = 1 << 31;

/// The lazily built flows of a simulation.
#[derive(Debug)]
pub(crate) struct Lifecycle {
    /// The first lazy flow's id, which is also the first slot lazy flows take (the
    /// flows before it are built at the start in slots equal to their ids).
    pub first: u32,
    /// By flow id - `first`.
    pub flows: Vec<LazyFlow>,
    /// By flow id - `first`: where its endpoints take packets at send time (set with
    /// cut-through, `Simulation::set_cut_through`; copied to `Net::ends` at its start).
    pub ends: Vec<EndCut>,
    /// By flow id - `first`: its slot, `NOT_STARTED`, or `RETIRED` | index in `retired`.
    pub state: Vec<u32>,
    /// By slot - `first`: the flow in it.
    pub slot_flow: Vec<u32>,
    /// By slot - `first`: found retirable (queued in `retirable`).
    pub queued: Vec<bool>,
    /// Retirable slots by the time they were found so.
    pub retirable: BinaryHeap<Reverse<(SimTime, u32)>>,
    pub retired: Vec<RetiredFlow>,
}

/// The first flow built at its start, or `scenario.flows.len()` when every flow is
/// built at the start: workload flows, unless something reads flows by id during the
/// run (elements, series; the window histogram, which reads the time of the end) or
/// their policy is defined outside the engine (`cc = "module:Class"`).
pub(crate) fn lazy_first(sc: &Scenario) -> usize {
    let n = sc.flows.len();
    let first = n - sc.generated;
    let reads_flows = !sc.elements.is_empty() || !sc.series.is_empty() || sc.windows_all || !sc.windows.is_empty();
    if sc.generated == 0 || reads_flows {
        return n;
    }
    // (A policy defined outside the engine is built by its front end, once per flow, in
    // flow order at the build: kept so, whatever its constructor does.)
    let lazy = |f: &crate::scenario::Flow| match &*f.spec {
        crate::scenario::FlowSpec::Window { cc, .. } => !matches!(cc, crate::cc::CcConfig::External(_)),
        _ => false,
    };
    if !sc.flows[first..].iter().all(lazy) {
        return n;
    }
    first
}

impl Lifecycle {
    pub(crate) fn new(first: usize, flows: Vec<LazyFlow>) -> Self {
        let n = flows.len();
        Lifecycle {
            first: first as u32,
            flows,
            ends: vec![EndCut::OFF; n],
            state: vec![NOT_STARTED; n],
            slot_flow: Vec::new(),
            queued: Vec::new(),
            retirable: BinaryHeap::new(),
            retired: Vec::new(),
        }
    }

    /// The flow in slot `s` (a lazy slot).
    #[inline]
    pub(crate) fn flow_of(&self, s: u32) -> u32 {
        self.slot_flow[(s - self.first) as usize]
    }
}

impl Simulation {
    /// Builds lazy flow `f`'s two ends at its start (`now`) in a free slot: one whose
    /// flow was found retirable no later than now, or a new one. Returns the slot.
    #[cold]
    pub(super) fn start_lazy(&mut self, f: u32, now: SimTime) -> u32 {
        let life = self.life.as_deref_mut().expect("a lazy flow's start");
        let reuse = match life.retirable.peek() {
            Some(&Reverse((t, s))) if t <= now => {
                life.retirable.pop();
                Some(s)
            }
            _ => None,
        };
        let slot = reuse.unwrap_or(self.flows.len() as u32);
        let lf = life.flows[(f - life.first) as usize];
        let seed = self.seed;
        let fi = f as usize;
        let spec = &self.scenario.flows[fi];
        let built = flows::build(
            &spec.spec,
            flows::BuildCx {
                flow: fi,
                slot,
                name: spec.name.as_str(),
                seed,
                start: lf.start,
                offset: lf.start - (SimTime::ZERO + spec.start),
                stop: lf.stop,
                data_route: lf.data_route,
                ack_route: lf.ack_route,
                series: &mut |_, _, _| None,
                window_hist: None,
            },
        );
        let from = if built.measures_delay { SimTime::ZERO + self.scenario.measure_start } else { SimTime::MAX };
        let delay = lf.delay.then(|| FlowDelay::counting_from(from));
        let mut ep = Endpoint {
            counters: FlowCounters::default(),
            delay,
            src: spec.from as u32,
            start: lf.start,
            sender: built.sender,
            receiver: built.receiver,
        };
        let life = self.life.as_deref_mut().expect("a lazy flow's start");
        let k = (slot - life.first) as usize;
        match reuse {
            Some(s) => {
                let old = &mut self.flows[s as usize];
                let (t0, p0) = old.sender.timers();
                let (t0, p0) = (t0.copied(), p0.copied());
                let r0 = old.receiver.timer().copied();
                let (t1, p1) = ep.sender.timers();
                if let (Some(a), Some(b)) = (t1, t0) {
                    a.follow(&b);
                }
                if let (Some(a), Some(b)) = (p1, p0) {
                    a.follow(&b);
                }
                if let (Some(a), Some(b)) = (ep.receiver.timer(), r0) {
                    a.follow(&b);
                }
                let old_f = life.slot_flow[k];
                let old = std::mem::replace(&mut self.flows[s as usize], ep);
                let record = RetiredFlow::of(old);
                life.state[(old_f - life.first) as usize] = RETIRED | life.retired.len() as u32;
                life.retired.push(record);
                life.slot_flow[k] = f;
                life.queued[k] = false;
                self.net.ends[s as usize] = life.ends[(f - life.first) as usize];
                // (The pacing lead follows the flow's ack route: found again.)
                if let Some(l) = self.pace_lead.get_mut(s as usize) {
                    *l = super::fast::PaceLead::UNKNOWN;
                }
            }
            None => {
                self.flows.push(ep);
                life.slot_flow.push(f);
                life.queued.push(false);
                self.net.ends.push(life.ends[(f - life.first) as usize]);
            }
        }
        life.state[(f - life.first) as usize] = slot;
        slot
    }

    /// After lazy slot `s`'s sender took an ack or a timer at `now`: queues the slot for
    /// reuse if its flow completed and is quiescent.
    #[cold]
    #[inline(never)]
    pub(super) fn maybe_retire(&mut self, s: u32, now: SimTime) {
        let Some(life) = self.life.as_deref_mut() else { return };
        let k = (s - life.first) as usize;
        if life.queued[k] {
            return;
        }
        let ep = &mut self.flows[s as usize];
        let Some(w) = ep.window() else { return };
        if w.completed_at().is_none() {
            return;
        }
        let c = &ep.counters;
        if c.sent != c.arrived + c.dropped || c.acks_sent != c.acks_arrived + c.acks_dropped {
            return;
        }
        let (t, p) = ep.sender.timers();
        let stopped = |x: Option<&mut crate::transport::timer::LazyTimer>| x.is_none_or(|x| x.deadline().is_none());
        if !stopped(t) || !stopped(p) || !stopped(ep.receiver.timer()) {
            return;
        }
        life.queued[k] = true;
        life.retirable.push(Reverse((now, s)));
    }
}

impl RetiredFlow {
    fn of(ep: Endpoint) -> Self {
        let w = ep.window().expect("a retired flow is a window flow");
        RetiredFlow {
            counters: ep.counters,
            start: ep.start,
            completed_at: w.completed_at().expect("a retired flow completed"),
            rtt: w.rtt_stats(&ep.counters),
            delivered_bits: ep.receiver.metrics().delivered_bits,
            delay: ep.delay,
        }
    }
}

/// A flow as results read it: its endpoints, the record it left, or a flow built at its
/// start that has not started.
#[derive(Clone, Copy)]
pub(crate) enum FlowView<'a> {
    Live(&'a Endpoint),
    Retired(&'a RetiredFlow, &'a LazyFlow),
    NotStarted(&'a LazyFlow),
}

impl<'a> FlowView<'a> {
    pub fn counters(&self) -> FlowCounters {
        match self {
            FlowView::Live(ep) => ep.counters,
            FlowView::Retired(r, _) => r.counters,
            FlowView::NotStarted(_) => FlowCounters::default(),
        }
    }

    /// When it starts (start jitter included).
    pub fn start(&self) -> SimTime {
        match self {
            FlowView::Live(ep) => ep.start,
            FlowView::Retired(r, _) => r.start,
            FlowView::NotStarted(lf) => lf.start,
        }
    }

    /// A window flow (lazy flows are).
    pub fn is_window(&self) -> bool {
        match self {
            FlowView::Live(ep) => ep.window().is_some(),
            _ => true,
        }
    }

    pub fn completed_at(&self) -> Option<SimTime> {
        match self {
            FlowView::Live(ep) => ep.window().and_then(|w| w.completed_at()),
            FlowView::Retired(r, _) => Some(r.completed_at),
            FlowView::NotStarted(_) => None,
        }
    }

    /// A window flow's RTT statistics.
    pub fn rtt_stats(&self) -> Option<RttStats> {
        match self {
            FlowView::Live(ep) => ep.window().map(|w| w.rtt_stats(&ep.counters)),
            FlowView::Retired(r, _) => Some(r.rtt),
            FlowView::NotStarted(_) => Some(RttStats::default()),
        }
    }

    /// Its delay statistics, if measured (a flow not started has none yet).
    pub fn delay(&self) -> Option<&'a crate::base::stats::DelayStats> {
        match self {
            FlowView::Live(ep) => ep.delay.as_deref().map(|d| &d.stats),
            FlowView::Retired(r, _) => r.delay.as_deref().map(|d| &d.stats),
            FlowView::NotStarted(_) => None,
        }
    }

    /// `ReceiverMetrics::delivered_bits`.
    pub fn delivered_bits(&self) -> Option<u64> {
        match self {
            FlowView::Live(ep) => ep.receiver.metrics().delivered_bits,
            FlowView::Retired(r, _) => r.delivered_bits,
            FlowView::NotStarted(_) => None,
        }
    }

    /// The window's time histogram up to `now` (`[measure].windows`; never for lazy flows).
    pub fn window_times(&self, now: SimTime) -> Option<Vec<f64>> {
        match self {
            FlowView::Live(ep) => ep.window().and_then(|w| w.window_times(now)),
            _ => None,
        }
    }

    /// A window flow's (data route, ack route), if it acknowledges on one.
    pub fn routes(&self) -> Option<(u32, u32)> {
        match self {
            FlowView::Live(ep) => Some((ep.window()?.data_route(), ep.receiver.ack_route()?)),
            FlowView::Retired(_, lf) | FlowView::NotStarted(lf) => Some((lf.data_route, lf.ack_route)),
        }
    }
}

/// Every flow by id, as results read them (`FlowView`).
#[derive(Clone, Copy)]
pub(crate) struct Flows<'a> {
    pub(crate) eps: &'a [Endpoint],
    pub(crate) life: Option<&'a Lifecycle>,
}

impl<'a> Flows<'a> {
    /// Flow `i`'s view.
    pub fn view(&self, i: usize) -> FlowView<'a> {
        match self.life {
            Some(life) if i >= life.first as usize => {
                let k = i - life.first as usize;
                let lf = &life.flows[k];
                match life.state[k] {
                    NOT_STARTED => FlowView::NotStarted(lf),
                    s if s & RETIRED != 0 => FlowView::Retired(&life.retired[(s & !RETIRED) as usize], lf),
                    s => FlowView::Live(&self.eps[s as usize]),
                }
            }
            _ => FlowView::Live(&self.eps[i]),
        }
    }
}

impl Simulation {
    /// Every flow by id, as results read them.
    pub(crate) fn flow_views(&self) -> Flows<'_> {
        Flows { eps: &self.flows, life: self.life.as_deref() }
    }

    /// The lazily built flows' state, taken (results built while freeing the simulation).
    pub(crate) fn take_lifecycle(&mut self) -> Option<Box<Lifecycle>> {
        self.lazy_slot = u32::MAX;
        self.life.take()
    }

    /// Each flow's counters, by id.
    pub(super) fn counters_by_flow(&self) -> Vec<FlowCounters> {
        let v = self.flow_views();
        (0..self.scenario.flows.len()).map(|i| v.view(i).counters()).collect()
    }

    /// The flow in slot `s`.
    #[inline]
    pub(super) fn flow_of_slot(&self, s: u32) -> u32 {
        match self.life.as_deref() {
            Some(life) if s >= life.first => life.flow_of(s),
            _ => s,
        }
    }
}
