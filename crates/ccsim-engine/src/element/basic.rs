//! Measuring and signalling elements: a packet counter, per-flow channel statistics and
//! a beacon that emits periodic control packets.

use super::Names;
use super::{ChannelView, ElemCx, ElemVerdict, Element, ElementPolicy, QueueEvent};
use crate::base::rng::Rng;
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::serde_units;
use crate::packet::meta::Control;
use crate::packet::{Packet, PacketKind, FLAG_CE, NO_FLOW};
use serde::{Deserialize, Serialize};

/// The counter takes no parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterConfig {}

/// Packets by kind, in a report.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct KindCounts {
    pub data: u64,
    pub ack: u64,
    pub control: u64,
}

impl KindCounts {
    fn of(a: &[u64; 3]) -> Self {
        KindCounts { data: a[0], ack: a[1], control: a[2] }
    }
}

/// What a counter reports.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CounterReport {
    pub arrived: KindCounts,
    pub transmitted: KindCounts,
    pub tx_bits: u64,
}

impl ElementPolicy for Counter {
    type Config = CounterConfig;
    type Report<'a> = CounterReport;
    const NAME: &'static str = "counter";
    const DESCRIPTION: &'static str = "counts the packets that arrive at and leave the channel, by kind";
    fn build(_cfg: &CounterConfig, _rng: Rng, _to: Option<u32>) -> Self {
        Counter::default()
    }
    fn report(&self, _names: &dyn Names) -> CounterReport {
        CounterReport {
            arrived: KindCounts::of(&self.arrived),
            transmitted: KindCounts::of(&self.transmitted),
            tx_bits: self.tx_bits,
        }
    }
}

/// Counts packets arriving at and leaving the channel, by kind (data, ack, control).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counter {
    /// Arrivals by `PacketKind` (before the discipline and any later element).
    pub arrived: [u64; 3],
    /// Transmissions started, by kind.
    pub transmitted: [u64; 3],
    /// Bits transmitted.
    pub tx_bits: u64,
}

impl Element for Counter {
    fn on_arrival(&mut self, _cx: &mut ElemCx, pkt: &mut Packet) -> ElemVerdict {
        self.arrived[pkt.kind as usize] += 1;
        ElemVerdict::Pass
    }
    fn on_transmit(&mut self, _cx: &mut ElemCx, pkt: &mut Packet, _ch: &ChannelView) {
        self.transmitted[pkt.kind as usize] += 1;
        self.tx_bits += pkt.bits as u64;
    }
}

/// One flow's counters on one channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowStatsRow {
    /// Packets of the flow (any kind) whose transmission started.
    pub forwarded: u64,
    /// Bits forwarded.
    pub forwarded_bits: u64,
    /// Packets of the flow dropped at this channel (by its discipline or a later element).
    pub dropped: u64,
    /// Packets of the flow ECN-marked by this channel's discipline.
    pub marked: u64,
}

/// Per-flow forwarded / dropped / marked counters of a channel. Rows are allocated as
/// flows are first seen (indexed by flow id), so a channel that asks for none, or a
/// flow that never crosses it, costs nothing.
#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    pub rows: Vec<FlowStatsRow>,
}

/// Per-flow statistics take no parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowStatsConfig {}

/// One flow's row in a report (flows that crossed the channel).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FlowStatsReportRow<'a> {
    pub flow: &'a str,
    pub forwarded_pkts: u64,
    pub forwarded_bits: u64,
    pub dropped_pkts: u64,
    pub marked_pkts: u64,
}

/// What per-flow statistics report.
#[derive(Clone, Debug, Serialize)]
pub struct FlowStatsReport<'a> {
    pub flows: Vec<FlowStatsReportRow<'a>>,
}

impl ElementPolicy for FlowStats {
    type Config = FlowStatsConfig;
    type Report<'a> = FlowStatsReport<'a>;
    const NAME: &'static str = "flow_stats";
    const DESCRIPTION: &'static str = "per-flow forwarded, dropped and marked packets of the channel";
    fn build(_cfg: &FlowStatsConfig, _rng: Rng, _to: Option<u32>) -> Self {
        FlowStats::default()
    }
    fn report<'a>(&'a self, names: &'a dyn Names) -> FlowStatsReport<'a> {
        let flows = self
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.forwarded + r.dropped + r.marked > 0)
            .map(|(i, r)| FlowStatsReportRow {
                flow: names.flow(i),
                forwarded_pkts: r.forwarded,
                forwarded_bits: r.forwarded_bits,
                dropped_pkts: r.dropped,
                marked_pkts: r.marked,
            })
            .collect();
        FlowStatsReport { flows }
    }
}

impl FlowStats {
    fn row(&mut self, flow: u32) -> Option<&mut FlowStatsRow> {
        if flow == NO_FLOW {
            return None;
        }
        let i = flow as usize;
        if i >= self.rows.len() {
            self.rows.resize(i + 1, FlowStatsRow::default());
        }
        Some(&mut self.rows[i])
    }
}

impl Element for FlowStats {
    fn on_transmit(&mut self, _cx: &mut ElemCx, pkt: &mut Packet, _ch: &ChannelView) {
        if let Some(r) = self.row(pkt.flow) {
            r.forwarded += 1;
            r.forwarded_bits += pkt.bits as u64;
        }
    }
    fn on_queue_event(&mut self, _cx: &mut ElemCx, pkt: &Packet, ev: QueueEvent) {
        if let Some(r) = self.row(pkt.flow) {
            match ev {
                QueueEvent::Dropped(_) => r.dropped += 1,
                QueueEvent::Marked => {
                    debug_assert!(pkt.has(FLAG_CE));
                    r.marked += 1
                }
            }
        }
    }
}

/// A beacon: every `period` from `start`, a control packet of `size` from the channel's
/// sending node to host `to`, tagged with its sequence number (`Control::Tag`). Used to
/// model router-generated signalling and to check that emitted packets arrive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeaconConfig {
    /// Destination host.
    pub to: String,
    #[serde(with = "serde_units::time")]
    pub period: SimDuration,
    /// First packet. Default: one period after the start.
    #[serde(default, with = "serde_units::opt_time", skip_serializing_if = "Option::is_none")]
    pub start: Option<SimDuration>,
    /// Size on the wire. Default 40 B.
    #[serde(default = "default_beacon_bits", with = "serde_units::bits")]
    pub size: u32,
}

fn default_beacon_bits() -> u32 {
    320
}

#[derive(Clone, Debug)]
pub struct Beacon {
    cfg: BeaconConfig,
    to: u32,
    /// Packets emitted so far.
    pub sent: u64,
}

impl Beacon {
    pub fn new(cfg: BeaconConfig, to: u32) -> Self {
        Beacon { cfg, to, sent: 0 }
    }
}

/// What a beacon reports.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct BeaconReport {
    pub sent_pkts: u64,
}

impl ElementPolicy for Beacon {
    type Config = BeaconConfig;
    type Report<'a> = BeaconReport;
    const NAME: &'static str = "beacon";
    const DESCRIPTION: &'static str = "periodic control packets from the channel's sending node to a host";
    const REQUIRED: &'static str = "to = \"sink\"\nperiod = \"1s\"";
    fn build(cfg: &BeaconConfig, _rng: Rng, to: Option<u32>) -> Self {
        Beacon::new(cfg.clone(), to.expect("beacon destination resolved"))
    }
    fn check(cfg: &BeaconConfig) -> Result<(), (&'static str, String)> {
        if cfg.period < SimDuration::from_micros(1) {
            return Err(("period", "must be at least 1us".into()));
        }
        Ok(())
    }
    fn destination(cfg: &BeaconConfig) -> Option<&str> {
        Some(&cfg.to)
    }
    fn report(&self, _names: &dyn Names) -> BeaconReport {
        BeaconReport { sent_pkts: self.sent }
    }
}

impl Element for Beacon {
    fn first_timer(&self) -> Option<SimTime> {
        Some(SimTime::ZERO + self.cfg.start.unwrap_or(self.cfg.period))
    }
    fn on_timer(&mut self, cx: &mut ElemCx) -> Option<SimTime> {
        let mut p = Packet::new(PacketKind::Control, NO_FLOW, 0);
        p.bits = self.cfg.size;
        p.seq = self.sent as u32;
        p.ts = cx.now;
        let h = cx.meta.alloc();
        cx.meta.get_mut(h).control = Control::Tag(self.sent);
        p.meta = h;
        cx.emit(self.to, p);
        self.sent += 1;
        Some(cx.now + self.cfg.period)
    }
}
