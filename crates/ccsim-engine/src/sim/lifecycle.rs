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
//! (`Packet::flow`), `Event::FlowStart` the flow id. The starts are scheduled one at a
//! time in the order of their keys (time, then flow id: `Lifecycle::next_start`), each
//! scheduling the next, so the event queue holds one for all lazy flows; since no two
//! starts share a key, the order of events is that of a build with every flow made and
//! scheduled at once. A flow's random streams stay keyed by its id.
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

/// What results read of a flow that has left its slot (decoded from `Retired`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RetiredFlow {
    pub counters: FlowCounters,
    pub start: SimTime,
    pub completed_at: SimTime,
    pub rtt: RttStats,
    pub delivered_bits: Option<u64>,
}

/// The records of the flows that left their slots, packed: each a run of LEB128
/// varints (`RetiredFlow::encode`), so a short flow's record takes tens of bytes where
/// the struct takes 256 (most of its counters are small numbers; docs/performance.md
/// "Memory that follows the active flows"). Delay statistics, kept only for flows
/// `[measure].delays` names, stay boxed beside them.
#[derive(Debug, Default)]
pub(crate) struct Retired {
    bytes: Vec<u8>,
    /// By record: where it starts in `bytes`.
    at: Vec<u64>,
    /// (record, its delay statistics), in record order.
    delays: Vec<(u32, Box<FlowDelay>)>,
}

impl Retired {
    /// Stores a record; returns its index.
    fn push(&mut self, r: &RetiredFlow, delay: Option<Box<FlowDelay>>) -> u32 {
        let i = self.at.len() as u32;
        self.at.push(self.bytes.len() as u64);
        r.encode(&mut self.bytes);
        if let Some(d) = delay {
            self.delays.push((i, d));
        }
        i
    }

    /// Record `i`.
    pub(crate) fn get(&self, i: u32) -> RetiredFlow {
        RetiredFlow::decode(&self.bytes[self.at[i as usize] as usize..])
    }

    /// Record `i`'s delay statistics, if its flow measured them.
    pub(crate) fn delay(&self, i: u32) -> Option<&FlowDelay> {
        let k = self.delays.binary_search_by_key(&i, |d| d.0).ok()?;
        Some(&self.delays[k].1)
    }

    /// Bytes held (records, offsets and delay statistics' pointers).
    #[cfg(test)]
    fn footprint(&self) -> usize {
        self.bytes.len() + 8 * self.at.len() + 16 * self.delays.len()
    }
}

/// Appends `v` as an unsigned LEB128 varint (7 bits a byte, low first).
fn put(out: &mut Vec<u8>, mut v: u128) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads an unsigned LEB128 varint at `*at`, moving `*at` past it.
fn take(b: &[u8], at: &mut usize) -> u128 {
    let (mut v, mut shift) = (0u128, 0);
    loop {
        let x = b[*at];
        *at += 1;
        v |= ((x & 0x7f) as u128) << shift;
        if x < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// The counters' part of a record: `put_counters` and `take_counters` store and read
/// the fields listed, the u128 sums first; the pattern names every field, so a field
/// added to `FlowCounters` fails to compile here until it is listed.
macro_rules! packed_counters {
    ($($wide:ident),* ; $($n:ident),*) => {
        fn put_counters(c: &FlowCounters, out: &mut Vec<u8>) {
            let FlowCounters { $($wide,)* $($n,)* } = *c;
            $(put(out, $wide);)*
            $(put(out, $n as u128);)*
        }

        fn take_counters(b: &[u8], at: &mut usize) -> FlowCounters {
            $(let $wide = take(b, at);)*
            $(let $n = take(b, at) as u64;)*
            FlowCounters { $($wide,)* $($n,)* }
        }
    };
}

packed_counters!(
    rtt_sum_ps, owd_sum_ps, qdelay_sum_ps;
    acks_arrived, rtt_samples, sent, arrived, delivered, acks_sent, retransmitted, dropped, delay_samples,
    acks_dropped, control_dropped, timeouts, fast_retransmits, control_arrived, ce_received, ecn_reductions
);

impl RetiredFlow {
    /// Appends the record as varints: the counters (`packed_counters`), the start, the
    /// completion time less the start, the RTT statistics (the sum of squares as its 8
    /// bytes, little-endian), `delivered_bits` plus one (0: none). `RttStats`'s pattern
    /// names every field, as the counters' does.
    fn encode(&self, out: &mut Vec<u8>) {
        put_counters(&self.counters, out);
        put(out, self.start.0 as u128);
        put(out, (self.completed_at.0 - self.start.0) as u128);
        let RttStats { n, sum_ps, sum_sq_us2, min_ps, max_ps } = self.rtt;
        put(out, n as u128);
        put(out, sum_ps);
        out.extend_from_slice(&sum_sq_us2.to_bits().to_le_bytes());
        put(out, min_ps as u128);
        put(out, max_ps as u128);
        put(out, self.delivered_bits.map_or(0, |b| b as u128 + 1));
    }

    /// The record `encode` wrote at the start of `b`.
    fn decode(b: &[u8]) -> RetiredFlow {
        let at = &mut 0;
        let counters = take_counters(b, at);
        let start = SimTime(take(b, at) as u64);
        let completed_at = SimTime(start.0 + take(b, at) as u64);
        let n = take(b, at) as u64;
        let sum_ps = take(b, at);
        let sq = u64::from_le_bytes(b[*at..*at + 8].try_into().expect("8 bytes"));
        *at += 8;
        let (min_ps, max_ps) = (take(b, at) as u64, take(b, at) as u64);
        let rtt = RttStats { n, sum_ps, sum_sq_us2: f64::from_bits(sq), min_ps, max_ps };
        let delivered_bits = match take(b, at) {
            0 => None,
            v => Some((v - 1) as u64),
        };
        RetiredFlow { counters, start, completed_at, rtt, delivered_bits }
    }
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
    pub retired: Retired,
    /// Lazy flows by id - `first` in the order they start (time, then id), or `None`
    /// when that is id order (no start before the one of a lower id).
    start_order: Option<Vec<u32>>,
    /// How many starts `next_start` has given.
    started: usize,
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
        let start_order = (!flows.windows(2).all(|w| w[0].start <= w[1].start)).then(|| {
            let mut v: Vec<u32> = (0..n as u32).collect();
            v.sort_by_key(|&k| flows[k as usize].start);
            v
        });
        Lifecycle {
            start_order,
            started: 0,
            first: first as u32,
            flows,
            ends: vec![EndCut::OFF; n],
            state: vec![NOT_STARTED; n],
            slot_flow: Vec::new(),
            queued: Vec::new(),
            retirable: BinaryHeap::new(),
            retired: Retired::default(),
        }
    }

    /// The next lazy flow to start and when, in the order of their events' keys (the
    /// sort is stable: equal times in id order).
    pub(crate) fn next_start(&mut self) -> Option<(SimTime, u32)> {
        let k = match &self.start_order {
            Some(v) => *v.get(self.started)? as usize,
            None => self.started,
        };
        let lf = self.flows.get(k)?;
        self.started += 1;
        Some((lf.start, self.first + k as u32))
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
                let (record, delay) = RetiredFlow::of(old);
                let i = life.retired.push(&record, delay);
                life.state[(old_f - life.first) as usize] = RETIRED | i;
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
    /// The record a flow leaves, and its delay statistics.
    fn of(ep: Endpoint) -> (Self, Option<Box<FlowDelay>>) {
        let w = ep.window().expect("a retired flow is a window flow");
        let r = RetiredFlow {
            counters: ep.counters,
            start: ep.start,
            completed_at: w.completed_at().expect("a retired flow completed"),
            rtt: w.rtt_stats(&ep.counters),
            delivered_bits: ep.receiver.metrics().delivered_bits,
        };
        (r, ep.delay)
    }
}

/// A flow as results read it: its endpoints, the record it left, or a flow built at its
/// start that has not started.
#[derive(Clone, Copy)]
pub(crate) enum FlowView<'a> {
    Live(&'a Endpoint),
    Retired(RetiredFlow, Option<&'a FlowDelay>, &'a LazyFlow),
    NotStarted(&'a LazyFlow),
}

impl<'a> FlowView<'a> {
    pub fn counters(&self) -> FlowCounters {
        match self {
            FlowView::Live(ep) => ep.counters,
            FlowView::Retired(r, ..) => r.counters,
            FlowView::NotStarted(_) => FlowCounters::default(),
        }
    }

    /// When it starts (start jitter included).
    pub fn start(&self) -> SimTime {
        match self {
            FlowView::Live(ep) => ep.start,
            FlowView::Retired(r, ..) => r.start,
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
            FlowView::Retired(r, ..) => Some(r.completed_at),
            FlowView::NotStarted(_) => None,
        }
    }

    /// A window flow's RTT statistics.
    pub fn rtt_stats(&self) -> Option<RttStats> {
        match self {
            FlowView::Live(ep) => ep.window().map(|w| w.rtt_stats(&ep.counters)),
            FlowView::Retired(r, ..) => Some(r.rtt),
            FlowView::NotStarted(_) => Some(RttStats::default()),
        }
    }

    /// Its delay statistics, if measured (a flow not started has none yet).
    pub fn delay(&self) -> Option<&'a crate::base::stats::DelayStats> {
        match self {
            FlowView::Live(ep) => ep.delay.as_deref().map(|d| &d.stats),
            FlowView::Retired(_, d, _) => d.map(|d| &d.stats),
            FlowView::NotStarted(_) => None,
        }
    }

    /// `ReceiverMetrics::delivered_bits`.
    pub fn delivered_bits(&self) -> Option<u64> {
        match self {
            FlowView::Live(ep) => ep.receiver.metrics().delivered_bits,
            FlowView::Retired(r, ..) => r.delivered_bits,
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
            FlowView::Retired(.., lf) | FlowView::NotStarted(lf) => Some((lf.data_route, lf.ack_route)),
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
                    s if s & RETIRED != 0 => {
                        let i = s & !RETIRED;
                        FlowView::Retired(life.retired.get(i), life.retired.delay(i), lf)
                    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A 15 kB flow's record: ten packets and acks, RTTs of 11-13 us.
    fn short_flow() -> RetiredFlow {
        let counters = FlowCounters {
            rtt_sum_ps: 120_000_000,
            acks_arrived: 10,
            rtt_samples: 10,
            sent: 10,
            arrived: 10,
            delivered: 10,
            acks_sent: 10,
            ..FlowCounters::default()
        };
        RetiredFlow {
            counters,
            start: SimTime(1_000_000_000),
            completed_at: SimTime(1_040_000_000),
            rtt: RttStats { n: 10, sum_ps: 120_000_000, sum_sq_us2: 1440.0, min_ps: 11_000_000, max_ps: 13_000_000 },
            delivered_bits: Some(120_000),
        }
    }

    fn same(a: &RetiredFlow, b: &RetiredFlow) {
        assert_eq!(a.counters, b.counters);
        assert_eq!((a.start, a.completed_at, a.delivered_bits), (b.start, b.completed_at, b.delivered_bits));
        let (x, y) = (a.rtt, b.rtt);
        assert_eq!(
            (x.n, x.sum_ps, x.sum_sq_us2.to_bits(), x.min_ps, x.max_ps),
            (y.n, y.sum_ps, y.sum_sq_us2.to_bits(), y.min_ps, y.max_ps)
        );
    }

    #[test]
    fn a_short_flows_record_takes_55_bytes_and_reads_back_the_same() {
        let r = short_flow();
        let mut s = Retired::default();
        assert_eq!(s.push(&r, None), 0);
        // Varints of 7 bits a byte: the RTT sum (1.2e8 < 2^28) 4 bytes, the two delay
        // sums 1 each, the 16 small counters 16, the start (1e9 < 2^35) 5, the time to
        // completion (4e7) 4, the RTT count 1, sum 4, the sum of squares 8 raw, the
        // minimum and maximum (1.1e7, 1.3e7 < 2^28) 4 each, delivered bits + 1 (120001
        // < 2^21) 3: 55 bytes, and 8 for its offset.
        assert_eq!(s.bytes.len(), 55);
        assert_eq!(s.footprint(), 63);
        same(&s.get(0), &r);
        assert!(s.delay(0).is_none());
    }

    #[test]
    fn records_read_back_exactly_at_the_extremes_and_in_order() {
        let mut big = short_flow();
        big.counters = FlowCounters {
            rtt_sum_ps: u128::MAX,
            owd_sum_ps: u128::MAX - 1,
            qdelay_sum_ps: 1 << 100,
            sent: u64::MAX,
            ecn_reductions: u64::MAX - 7,
            timeouts: 1 << 63,
            ..big.counters
        };
        big.start = SimTime(u64::MAX - 5);
        big.completed_at = SimTime(u64::MAX);
        big.rtt = RttStats { n: u64::MAX, sum_ps: u128::MAX, sum_sq_us2: -0.0, min_ps: 0, max_ps: u64::MAX };
        big.delivered_bits = Some(u64::MAX);
        let mut none = short_flow();
        none.delivered_bits = None;
        none.rtt.sum_sq_us2 = f64::NAN;
        let mut s = Retired::default();
        let d = FlowDelay::counting_from(SimTime(7));
        for (k, r) in [&big, &none, &short_flow()].into_iter().enumerate() {
            let delay = (k == 1).then(|| FlowDelay::counting_from(SimTime(7)));
            assert_eq!(s.push(r, delay), k as u32);
        }
        same(&s.get(0), &big);
        same(&s.get(1), &none);
        same(&s.get(2), &short_flow());
        assert!(s.delay(0).is_none() && s.delay(2).is_none());
        assert_eq!(format!("{:?}", s.delay(1).expect("kept")), format!("{d:?}"));
    }
}
