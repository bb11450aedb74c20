//! Measuring and signalling elements: a packet counter, per-flow channel statistics and
//! a beacon that emits periodic control packets.

use super::{ChannelView, ElemCx, ElemVerdict, Element, QueueEvent};
use crate::meta::Control;
use crate::packet::{Packet, PacketKind, FLAG_CE, NO_FLOW};
use crate::time::{SimDuration, SimTime};
use crate::units::serde_units;
use serde::{Deserialize, Serialize};

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
