//! Results of a run: plain serde data, the JSON of `docs/architecture.md`; `columns`
//! gives the same results as columns for the Python binding.
//!
//! Each table's row (flow, channel, node, and the flow and channel rows of a period) is
//! declared once, with `record!`: the struct, whose serde derive gives its JSON object,
//! and its columns (`columns::Record`), both in the order the fields are written. A
//! channel's drops by reason come from the drop-reason table (`DropReason::ALL`).

pub mod columns;

use crate::base::time::{tx_time, SimTime, PS_PER_S};
use crate::base::trace::Series;
use crate::base::units::Limit;
use crate::element::AnyElement;
use crate::net::{Channel, ChannelCounters};
use crate::net::{N_DROP_REASONS, ROUTE_END};
use crate::qdisc::DropReason;
use crate::scenario::FlowSpec;
use crate::scenario::Scenario;
use crate::sim::{FlowView, Simulation};
use crate::transport::FlowCounters;
use serde::Serialize;

/// The version of the results schema (the JSON below and its columns), written as
/// `schema_version`. It goes up when a key is renamed or removed or its meaning or
/// unit changes; keys added leave it.
pub const SCHEMA_VERSION: u32 = 1;

/// Declares a result row once: the struct (its serde derive gives the JSON object) and
/// its columns (`columns::Record`: one per field, through the field type's
/// `columns::ColumnValue`), in the order the fields are written.
macro_rules! record {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $field:ident: $ty:ty,)* }) => {
        $(#[$m])*
        #[derive(Clone, Debug, Serialize)]
        pub struct $name {
            $($(#[$fm])* pub $field: $ty,)*
        }

        impl columns::Record for $name {
            fn write_columns(w: &mut columns::Writer, rows: &mut [Self]) {
                $(<$ty as columns::ColumnValue>::write(w, stringify!($field), rows, |r| &mut r.$field);)*
            }
        }
    };
}

record! {
pub struct FlowResult {
    pub name: String,
    pub kind: String,
    /// Size of the flow's data packets, bits.
    pub packet_bits: u32,
    pub cc: Option<String>,
    /// The window sender runs SACK loss recovery (RFC 6675; `sack = true`); false for
    /// every other flow.
    pub sack: bool,
    pub from: String,
    pub to: String,
    pub sent_pkts: u64,
    pub delivered_pkts: u64,
    pub retransmitted_pkts: u64,
    pub dropped_pkts: u64,
    pub arrived_pkts: u64,
    pub in_network_pkts: u64,
    pub acks_sent: u64,
    pub acks_arrived: u64,
    pub acks_dropped: u64,
    /// Control packets of this flow that reached one of its end points, and dropped.
    pub control_pkts: u64,
    pub control_dropped: u64,
    /// Data packets that arrived marked CE, and the sender's ECN window reductions.
    pub ce_marked_pkts: u64,
    pub ecn_reductions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub goodput_bps: f64,
    pub goodput_pps: f64,
    pub rtt_min_s: Option<f64>,
    pub rtt_mean_s: Option<f64>,
    pub rtt_max_s: Option<f64>,
    pub rtt_std_s: Option<f64>,
    /// One-way delay of the data packets that arrived (send to arrival at the
    /// receiver) and their queueing delay (the one-way delay minus the path's
    /// propagation and transmission times), for flows listed in `[measure].delays`.
    pub owd_mean_s: Option<f64>,
    pub owd_p50_s: Option<f64>,
    pub owd_p95_s: Option<f64>,
    pub owd_p99_s: Option<f64>,
    pub owd_max_s: Option<f64>,
    pub qdelay_mean_s: Option<f64>,
    pub qdelay_p50_s: Option<f64>,
    pub qdelay_p95_s: Option<f64>,
    pub qdelay_p99_s: Option<f64>,
    pub qdelay_max_s: Option<f64>,
    /// Seconds the flow's window was 1, 2, ... packets (from `[measure].start`), for
    /// window flows listed in `[measure].windows`.
    pub window_time_s: Option<Vec<f64>>,
    /// A finite window flow (`size`): its data in bytes (whole packets of `data_size`),
    /// whether its last packet was acknowledged, its completion time (from its start,
    /// jitter included, to that ack), the ideal completion time and the slowdown (the
    /// ratio of the two). Null (completed false) for other flows.
    pub size_bytes: Option<u64>,
    pub completed: bool,
    pub fct_s: Option<f64>,
    pub ideal_fct_s: Option<f64>,
    pub slowdown: Option<f64>,
}
}

record! {
pub struct LinkResult {
    pub name: String,
    pub link: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    pub qdisc: String,
    pub buffer_pkts: Option<u64>,
    pub buffer_bytes: Option<u64>,
    pub offered_pkts: u64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub tx_bits: u64,
    pub drops: u64,
    /// Drops by reason.
    pub drops_by_reason: DropsByReason,
    /// Packets ECN-marked by the discipline.
    pub marks: u64,
    pub queued_pkts: u64,
    pub in_pipe_pkts: u64,
    pub utilization: f64,
    pub queue_mean_pkts: f64,
    pub queue_max_pkts: u64,
    /// Mean time a transmitted packet spent in the discipline (0 for packets that found
    /// the line idle), and the longest.
    pub sojourn_mean_s: Option<f64>,
    pub sojourn_max_s: f64,
    /// What the channel's elements measured, in chain order.
    pub elements: Vec<serde_json::Value>,
    /// Scheduled rate changes of the channel: `rate_bps` from `at_s` on (empty without
    /// changes; `rate_bps` above is the rate at the end).
    pub rate_history: Vec<RateChange>,
}
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct RateChange {
    pub at_s: f64,
    pub rate_bps: u64,
}

/// A channel's drops by `DropReason`: in the JSON an object with one key per reason
/// (`DropReason::name`, in the order of `DropReason::ALL`); in the columns one column
/// per reason, `drops_by_reason.<name>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropsByReason(pub [u64; N_DROP_REASONS]);

impl DropsByReason {
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

impl std::ops::Index<DropReason> for DropsByReason {
    type Output = u64;
    fn index(&self, r: DropReason) -> &u64 {
        &self.0[r.index()]
    }
}

impl Serialize for DropsByReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("DropsByReason", N_DROP_REASONS)?;
        for r in DropReason::ALL {
            st.serialize_field(r.name(), &self[r])?;
        }
        st.end()
    }
}

record! {
pub struct NodeResult {
    pub name: String,
    pub router: bool,
    /// Control packets of no flow that reached this node (emitted by elements).
    pub control_received_pkts: u64,
}
}

record! {
pub struct PhaseFlow {
    pub name: String,
    pub sent_pkts: u64,
    pub delivered_pkts: u64,
    pub retransmitted_pkts: u64,
    pub dropped_pkts: u64,
    pub goodput_pps: f64,
    pub goodput_bps: f64,
    pub loss_pps: f64,
    pub retransmission_pps: f64,
    /// Mean round-trip delay of the acks that arrived in the period (window flows).
    pub delay_mean_s: Option<f64>,
    /// Mean one-way and queueing delay of the data that arrived in the period (flows
    /// in `[measure].delays`).
    pub owd_mean_s: Option<f64>,
    pub qdelay_mean_s: Option<f64>,
}
}

record! {
pub struct PhaseLink {
    pub name: String,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    pub marks: u64,
    pub utilization: f64,
    pub queue_mean_pkts: f64,
    pub sojourn_mean_s: Option<f64>,
}
}

#[derive(Clone, Debug, Serialize)]
pub struct PhaseResult {
    pub name: String,
    pub start_s: f64,
    pub end_s: f64,
    pub flows: Vec<PhaseFlow>,
    pub links: Vec<PhaseLink>,
}

/// The results JSON's scalars, in its key order.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Meta {
    /// `SCHEMA_VERSION`.
    pub schema_version: u32,
    pub ccsim_version: String,
    pub scenario: String,
    pub seed: u64,
    pub sim_time_s: f64,
    pub wall_time_s: f64,
    /// The run stopped before the scenario's end (`stop_reason` says why); counters
    /// cover [0, sim_time_s), and phases not reached are left out.
    pub partial: bool,
    pub stop_reason: Option<crate::sim::StopReason>,
    pub events: u64,
}

impl Meta {
    pub(crate) fn of(sim: &Simulation, now: SimTime, wall_time_s: f64) -> Meta {
        Meta {
            schema_version: SCHEMA_VERSION,
            ccsim_version: crate::VERSION.to_string(),
            scenario: sim.scenario.name.clone(),
            seed: sim.seed,
            sim_time_s: now.as_secs_f64(),
            wall_time_s,
            partial: sim.stop_reason().is_some(),
            stop_reason: sim.stop_reason(),
            events: sim.events_processed(),
        }
    }
}

/// The results JSON: the scalars, then the tables. `Results` holds every row; the JSON
/// written a row at a time (`write_json`) is the same object with rows made as they are
/// written.
#[derive(Clone, Debug, Serialize)]
pub struct ResultsOf<F, L, S> {
    #[serde(flatten)]
    pub meta: Meta,
    pub flows: F,
    pub links: L,
    pub nodes: Vec<NodeResult>,
    pub phases: Vec<PhaseResult>,
    pub intervals: Vec<PhaseResult>,
    pub series: S,
}

/// The results of a run, every row held.
pub type Results = ResultsOf<Vec<FlowResult>, Vec<LinkResult>, Vec<Series>>;

impl Results {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results serialise")
    }
    /// Total data packets delivered in order, over all flows.
    pub fn delivered_pkts(&self) -> u64 {
        self.flows.iter().map(|f| f.delivered_pkts).sum()
    }
}

/// A flow's data packet size in bytes (fractional for sizes in bits).
fn flow_size(spec: &FlowSpec) -> f64 {
    match spec {
        FlowSpec::Window { data_size, .. } => *data_size as f64,
        FlowSpec::Cbr { packet_bits, .. } | FlowSpec::Poisson { packet_bits, .. } => *packet_bits as f64 / 8.0,
        FlowSpec::Rate { packet_bits, .. } => *packet_bits as f64 / 8.0,
        // Voice packets vary in length: goodput comes from the bits delivered.
        FlowSpec::Voice { .. } => 0.0,
    }
}

fn phase(sim: &Simulation, name: String, a: usize, b: usize) -> Option<PhaseResult> {
    let (sa, sb) = (sim.snapshots[a].as_ref()?, sim.snapshots[b].as_ref()?);
    let dur_ps = (sb.time - sa.time).as_ps();
    let dur = dur_ps as f64 / PS_PER_S as f64;
    let per_s = |n: u64| if dur > 0.0 { n as f64 / dur } else { 0.0 };
    let flows = sim
        .scenario
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let c: FlowCounters = sb.flows[i].minus(&sa.flows[i]);
            PhaseFlow {
                name: f.name.to_string(),
                sent_pkts: c.sent,
                delivered_pkts: c.delivered,
                retransmitted_pkts: c.retransmitted,
                dropped_pkts: c.dropped,
                goodput_pps: per_s(c.delivered),
                goodput_bps: per_s(c.delivered) * flow_size(&f.spec) * 8.0,
                loss_pps: per_s(c.dropped),
                retransmission_pps: per_s(c.retransmitted),
                delay_mean_s: (c.rtt_samples > 0).then(|| c.rtt_sum_ps as f64 / c.rtt_samples as f64 / PS_PER_S as f64),
                owd_mean_s: (c.delay_samples > 0)
                    .then(|| c.owd_sum_ps as f64 / c.delay_samples as f64 / PS_PER_S as f64),
                qdelay_mean_s: (c.delay_samples > 0)
                    .then(|| c.qdelay_sum_ps as f64 / c.delay_samples as f64 / PS_PER_S as f64),
            }
        })
        .collect();
    let links = sim
        .channels
        .iter()
        .enumerate()
        .map(|(i, ch)| {
            let c: ChannelCounters = sb.channels[i].minus(&sa.channels[i]);
            PhaseLink {
                name: sim.channel_name(i),
                tx_pkts: c.tx_pkts,
                tx_bytes: c.tx_bytes(),
                drops: c.drops(),
                marks: c.marks,
                utilization: if dur <= 0.0 {
                    0.0
                } else if c.rate_changes == 0 && ch.rate_history().iter().all(|&(t, _)| t <= sa.time) {
                    // One rate throughout the period (the same formula as always).
                    (c.tx_bits as f64 / (ch.rate_bps as f64 * dur)).min(1.0)
                } else {
                    // The rate changed: divide by the capacity actually offered.
                    (c.tx_bits as f64 * PS_PER_S as f64 / c.capacity as f64).min(1.0)
                },
                queue_mean_pkts: if dur_ps > 0 { c.queue_integral as f64 / dur_ps as f64 } else { 0.0 },
                sojourn_mean_s: (c.tx_pkts > 0).then(|| c.sojourn_ps as f64 / c.tx_pkts as f64 / PS_PER_S as f64),
            }
        })
        .collect();
    Some(PhaseResult { name, start_s: sa.time.as_secs_f64(), end_s: sb.time.as_secs_f64(), flows, links })
}

/// The result row of flow `i` (`in_net`: `Simulation::in_network`).
pub(crate) fn flow_result(sim: &Simulation, i: usize, now: SimTime, in_net: &[u64]) -> FlowResult {
    let sc = &sim.scenario;
    let ep = sim.flow_views().view(i);
    let f = &sc.flows[i];
    let node = |i: usize| sc.nodes[i].name.to_string();
    FlowResult {
        name: f.name.to_string(),
        kind: f.spec.kind().to_string(),
        cc: flow_cc(ep, &f.spec).map(str::to_string),
        from: node(f.from),
        to: node(f.to),
        ..flow_numbers(sc, ep, i, now, in_net[i], ideal_fct(sc, ep, i, &sim.channels, &sim.net.routes))
    }
}

/// Flow `i`'s congestion control (window flows).
pub(crate) fn flow_cc<'a>(ep: FlowView<'_>, spec: &'a FlowSpec) -> Option<&'a str> {
    match (ep.is_window(), spec) {
        (true, FlowSpec::Window { cc, .. }) => Some(cc.name()),
        _ => None,
    }
}

/// The result row of flow `i` (endpoint `ep`, `in_net` of its packets in the network)
/// without its strings: `name`, `kind`, `from` and `to` empty, `cc` `None` (the columns
/// encode those from the scenario; `flow_result` fills them in).
/// `finite`: `ideal_fct`'s answer for the flow.
pub(crate) fn flow_numbers(
    sc: &Scenario,
    ep: FlowView<'_>,
    i: usize,
    now: SimTime,
    in_net: u64,
    finite: Option<(u32, f64)>,
) -> FlowResult {
    let f = &sc.flows[i];
    let fct = ep.completed_at().map(|t| (t - ep.start()).as_secs_f64());
    let c = &ep.counters();
    let active_s = (now.as_secs_f64() - f.start.as_secs_f64()).max(0.0);
    let size = flow_size(&f.spec);
    let rate = |n: u64| if active_s > 0.0 { n as f64 / active_s } else { 0.0 };
    let rtt = match &*f.spec {
        FlowSpec::Window { .. } => ep.rtt_stats(),
        _ => None,
    };
    let rtt = rtt.filter(|r| r.n > 0);
    let d = ep.delay();
    FlowResult {
        name: String::new(),
        kind: String::new(),
        packet_bits: (flow_size(&f.spec) * 8.0) as u32,
        cc: None,
        sack: matches!(&*f.spec, FlowSpec::Window { sender, .. } if sender.sack),
        from: String::new(),
        to: String::new(),
        sent_pkts: c.sent,
        delivered_pkts: c.delivered,
        retransmitted_pkts: c.retransmitted,
        dropped_pkts: c.dropped,
        arrived_pkts: c.arrived,
        in_network_pkts: in_net,
        acks_sent: c.acks_sent,
        acks_arrived: c.acks_arrived,
        acks_dropped: c.acks_dropped,
        control_pkts: c.control_arrived,
        control_dropped: c.control_dropped,
        ce_marked_pkts: c.ce_received,
        ecn_reductions: c.ecn_reductions,
        timeouts: c.timeouts,
        fast_retransmits: c.fast_retransmits,
        goodput_bps: match ep.delivered_bits() {
            Some(bits) => rate(bits),
            None => rate(c.delivered) * size * 8.0,
        },
        goodput_pps: rate(c.delivered),
        rtt_min_s: rtt.map(|r| r.min_ps as f64 / PS_PER_S as f64),
        rtt_mean_s: rtt.and_then(|r| r.mean_s()),
        rtt_max_s: rtt.map(|r| r.max_ps as f64 / PS_PER_S as f64),
        rtt_std_s: rtt.and_then(|r| r.std_s()),
        owd_mean_s: d.and_then(|d| d.one_way.mean_s()),
        owd_p50_s: d.and_then(|d| d.one_way.quantile_s(0.5)),
        owd_p95_s: d.and_then(|d| d.one_way.quantile_s(0.95)),
        owd_p99_s: d.and_then(|d| d.one_way.quantile_s(0.99)),
        owd_max_s: d.and_then(|d| d.one_way.max_s()),
        qdelay_mean_s: d.and_then(|d| d.queueing.mean_s()),
        qdelay_p50_s: d.and_then(|d| d.queueing.quantile_s(0.5)),
        qdelay_p95_s: d.and_then(|d| d.queueing.quantile_s(0.95)),
        qdelay_p99_s: d.and_then(|d| d.queueing.quantile_s(0.99)),
        qdelay_max_s: d.and_then(|d| d.queueing.max_s()),
        window_time_s: ep.window_times(now),
        size_bytes: finite.map(|(size_pkts, _)| size_pkts as u64 * size as u64),
        completed: fct.is_some(),
        fct_s: fct,
        ideal_fct_s: finite.map(|(_, ideal)| ideal),
        slowdown: fct.zip(finite).map(|(t, (_, ideal))| t / ideal),
    }
}

/// A finite window flow's size in data packets and its ideal completion time, s: its
/// data at the slowest rate of its data route, plus the base round trip (propagation
/// and one packet's transmission per hop, data route out, ack route back) less one data
/// packet's transmission at that slowest hop, which the first term already counts (so a
/// flow alone on its path, whose window covers its size, has a slowdown of exactly 1);
/// plus one more base round trip of a SYN-sized packet for a handshake. Rates are the
/// channels' current ones. `None` for other flows.
pub(crate) fn ideal_fct(
    sc: &Scenario,
    ep: FlowView<'_>,
    i: usize,
    channels: &[Channel],
    routes: &[u32],
) -> Option<(u32, f64)> {
    let FlowSpec::Window { data_size, ack_size, sender, .. } = &*sc.flows[i].spec else { return None };
    let size = sender.size?.get();
    let (data_route, ack_route) = ep.routes()?;
    // (propagation + transmission of one packet of `bits` over the route, ps; the
    // slowest rate on it)
    let walk = |route: u32, bits: u32| {
        let (mut base, mut slowest, mut i) = (0u64, u64::MAX, route as usize);
        while routes[i] != ROUTE_END {
            let ch = &channels[routes[i] as usize];
            base += tx_time(bits, ch.rate_bps).as_ps() + ch.delay.as_ps();
            slowest = slowest.min(ch.rate_bps);
            i += 1;
        }
        (base, slowest)
    };
    let bits = data_size * 8;
    let (out, slowest) = walk(data_route, bits);
    let (back, _) = walk(ack_route, ack_size * 8);
    let mut ps = (out + back - tx_time(bits, slowest).as_ps()) as f64
        + size as f64 * bits as f64 / slowest as f64 * PS_PER_S as f64;
    if sender.handshake.is_some() {
        let (syn, _) = walk(data_route, ack_size * 8);
        ps += (syn + back) as f64;
    }
    Some((size, ps / PS_PER_S as f64))
}

/// The result row of channel `i` at `now`.
pub(crate) fn link_result(sim: &Simulation, i: usize, merged: &[u32], now: SimTime) -> LinkResult {
    let sc = &sim.scenario;
    let node = |i: usize| sc.nodes[i].name.to_string();
    let ch = &sim.channels[i];
    LinkResult {
        name: sim.channel_name(i),
        link: sim.channel_link(i).to_string(),
        from: node(ch.from as usize),
        to: node(ch.to as usize),
        qdisc: ch.qdisc.name().into(),
        ..link_numbers(sc, ch, merged[i] as usize, now)
    }
}

/// The result row of channel `ch` at `now` without its strings (`name`, `link`,
/// `from`, `to` and `qdisc` empty: the columns encode those; `link_result` fills them).
pub(crate) fn link_numbers(sc: &Scenario, ch: &Channel, merged: usize, now: SimTime) -> LinkResult {
    let total_ps = now.as_ps().max(1);
    let c = ch.counters();
    let (bp, bb) = match ch.limit() {
        Limit::Packets(n) => (Some(n), None),
        Limit::Bytes(b) => (None, Some(b)),
    };
    let busy = (c.busy_ps as f64 / total_ps as f64).min(1.0);
    LinkResult {
        name: String::new(),
        link: String::new(),
        from: String::new(),
        to: String::new(),
        rate_bps: ch.rate_bps,
        delay_s: ch.delay.as_secs_f64(),
        qdisc: String::new(),
        buffer_pkts: bp,
        buffer_bytes: bb,
        offered_pkts: c.offered,
        tx_pkts: c.tx_pkts,
        tx_bytes: c.tx_bytes(),
        tx_bits: c.tx_bits,
        drops: c.drops(),
        drops_by_reason: DropsByReason(c.drops_by_reason),
        marks: c.marks,
        queued_pkts: ch.queued_pkts() as u64,
        in_pipe_pkts: ch.in_pipe(merged) as u64,
        utilization: busy,
        queue_mean_pkts: c.queue_integral as f64 / total_ps as f64,
        queue_max_pkts: ch.queue_max,
        sojourn_mean_s: (c.tx_pkts > 0).then(|| c.sojourn_ps as f64 / c.tx_pkts as f64 / PS_PER_S as f64),
        sojourn_max_s: ch.sojourn_max_ps as f64 / PS_PER_S as f64,
        elements: ch.elements().iter().map(|e| element_result(e, sc)).collect(),
        rate_history: ch
            .rate_history()
            .iter()
            .map(|&(t, r)| RateChange { at_s: t.as_secs_f64(), rate_bps: r })
            .collect(),
    }
}

/// The named phases and the fixed intervals that were reached.
pub(crate) fn periods(sim: &Simulation) -> (Vec<PhaseResult>, Vec<PhaseResult>) {
    let sc = &sim.scenario;
    let idx = |t: SimTime| sim.boundaries.binary_search(&t).ok();
    let phases = sc
        .phases
        .iter()
        .filter_map(|p| {
            let a = idx(SimTime::ZERO + p.start)?;
            let b = idx(SimTime::ZERO + p.end)?;
            phase(sim, p.name.clone(), a, b)
        })
        .collect();
    let mut intervals = Vec::new();
    if let Some(iv) = sc.interval {
        let mut t = SimTime::ZERO;
        let mut k = 0;
        while t < sim.end() {
            let e = (t + iv).min(sim.end());
            if let (Some(a), Some(b)) = (idx(t), idx(e)) {
                if let Some(p) = phase(sim, k.to_string(), a, b) {
                    intervals.push(p);
                }
            }
            t = e;
            k += 1;
        }
    }
    (phases, intervals)
}

pub(crate) fn node_results(sim: &Simulation) -> Vec<NodeResult> {
    (0..sim.scenario.nodes.len())
        .map(|i| NodeResult { name: sim.scenario.nodes[i].name.to_string(), ..node_numbers(sim, i) })
        .collect()
}

/// The result row of node `i` without its name (empty: the columns encode it;
/// `node_results` fills it in).
pub(crate) fn node_numbers(sim: &Simulation, i: usize) -> NodeResult {
    NodeResult {
        name: String::new(),
        router: sim.scenario.nodes[i].router,
        control_received_pkts: sim.node_control_rx[i],
    }
}

impl Simulation {
    /// Summarises the run (call after `run`). `wall_time_s` is supplied by the caller:
    /// the engine reads no clock.
    pub fn results(&mut self, wall_time_s: f64) -> Results {
        let now = self.now();
        for c in self.channels.iter_mut() {
            c.settle(now);
        }
        summarise(self, now, wall_time_s)
    }
}

pub(crate) fn summarise(sim: &Simulation, now: SimTime, wall_time_s: f64) -> Results {
    let in_net = sim.in_network();
    let flows = (0..sim.scenario.flows.len()).map(|i| flow_result(sim, i, now, &in_net)).collect();
    let merged = sim.merged_per_channel();
    let links = (0..sim.channels.len()).map(|i| link_result(sim, i, &merged, now)).collect();
    let (phases, intervals) = periods(sim);
    Results {
        meta: Meta::of(sim, now, wall_time_s),
        flows,
        links,
        nodes: node_results(sim),
        phases,
        intervals,
        series: sim.net.rec.series.clone(),
    }
}

/// What an element measured, as JSON (`kind` plus its report).
fn element_result(e: &AnyElement, sc: &Scenario) -> serde_json::Value {
    e.report(sc)
}

/// Writes the results JSON to `w` one row at a time: the same text as
/// `summarise(sim, now, wall_time_s).to_json()`, without holding every row at once (at
/// 10^5 flows the flow and channel rows are hundreds of MB as structs). The channels
/// must be settled at `now` (`Simulation::write_results_json` does).
pub(crate) fn write_json<W: std::io::Write>(
    sim: &Simulation,
    now: SimTime,
    wall_time_s: f64,
    w: W,
) -> serde_json::Result<()> {
    let in_net = sim.in_network();
    let merged = sim.merged_per_channel();
    let (phases, intervals) = periods(sim);
    let streamed = ResultsOf {
        meta: Meta::of(sim, now, wall_time_s),
        flows: Rows(sim.scenario.flows.len(), |i| flow_result(sim, i, now, &in_net)),
        links: Rows(sim.channels.len(), |i| link_result(sim, i, &merged, now)),
        nodes: node_results(sim),
        phases,
        intervals,
        series: &sim.net.rec.series,
    };
    serde_json::to_writer(w, &streamed)
}

/// `n` rows made one at a time by a function of the row index: a JSON array.
struct Rows<F>(usize, F);

impl<R: Serialize, F: Fn(usize) -> R> Serialize for Rows<F> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0))?;
        for i in 0..self.0 {
            seq.serialize_element(&(self.1)(i))?;
        }
        seq.end()
    }
}
