//! Network elements: per-channel actors that act on packets (htsim's `PacketSink`
//! chain). A channel carries an ordered chain of elements, dispatched
//! through `AnyElement` (no vtable on the packet path). Hooks:
//!
//! - `on_arrival`: a packet arrives at the channel, before the queue discipline. The
//!   element may read and write the packet (header fields, flags, metadata) and may
//!   drop it with a reason (counted as a drop of the channel).
//! - `on_transmit`: the packet starts transmission; the element sees the channel
//!   (`ChannelView`: rate, byte counter, queue) and may write the packet.
//! - `on_queue_event`: the channel's discipline dropped or ECN-marked a packet.
//! - `on_timer`: the element's own periodic timer (event `ElementTimer`); it returns the
//!   time of its next firing. `first_timer` gives the first.
//!
//! Any hook may emit packets (control packets) through `ElemCx::emit`: the simulation
//! routes each one from the channel's sending node to the host named, on the shortest
//! path. A channel with no elements pays one length check per packet.
//!
//! Adding an element is one file here (config + state + `Element` impl), a variant in
//! `AnyElement` and `ElementConfig` (with its `dispatch!` arm). See docs/extending.md.

pub mod basic;
pub mod capture;
pub mod loss;
pub mod ptp;
pub mod smart_link;

use crate::meta::MetaSlab;
use crate::packet::Packet;
use crate::qdisc::DropReason;
use crate::rng::Rng;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

pub use basic::{Beacon, BeaconConfig, Counter, FlowStats, FlowStatsRow};
pub use capture::{Capture, CaptureConfig};
pub use loss::{LossConfig, RandomLoss};
pub use ptp::{PtpConfig, PtpStamp};
pub use smart_link::{SmartLink, SmartLinkConfig};

/// The drop reasons of the elements, in the order of `ElementConfig`'s variants (the
/// order of the results' columns).
pub(crate) const ELEMENT_DROP_REASONS: &[&[&str]] = &[loss::DROP_REASONS];

/// A packet an element wants sent: from the channel's sending node to host `to`.
#[derive(Clone, Copy, Debug)]
pub struct Emit {
    /// Origin node index (the sending node of the element's channel).
    pub from: u32,
    /// Destination node index (a host).
    pub to: u32,
    /// The packet (its route and hop are set by the simulation).
    pub pkt: Packet,
}

/// What an element may use besides the packet.
pub struct ElemCx<'a> {
    pub now: SimTime,
    /// The channel the element is on.
    pub channel: u32,
    /// The channel's sending node (where emitted packets start).
    pub node: u32,
    pub meta: &'a mut MetaSlab,
    pub emitted: &'a mut Vec<Emit>,
}

impl ElemCx<'_> {
    /// Sends `pkt` from this channel's sending node to host `to`; the simulation sets
    /// its route. Its metadata, if any, must be a slot of `meta`.
    pub fn emit(&mut self, to: u32, pkt: Packet) {
        self.emitted.push(Emit { from: self.node, to, pkt });
    }
}

/// What an element sees of its channel when a packet starts transmission.
#[derive(Clone, Copy, Debug)]
pub struct ChannelView {
    /// Nominal rate, bits/s (the rate in force now).
    pub rate_bps: u64,
    /// Bytes transmitted before this packet (an interface's octet counter).
    pub tx_bytes: u64,
    /// Packets sent before this one.
    pub tx_pkts: u64,
    /// Packets waiting in the discipline (not counting this one).
    pub queued_pkts: usize,
    /// Bits waiting in the discipline.
    pub queued_bits: u64,
}

/// An element's answer to an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemVerdict {
    Pass,
    Drop(DropReason),
}

/// Something the queue discipline did to a packet of this channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueEvent {
    Dropped(DropReason),
    Marked,
}

/// The hooks of an element; all but the ones an element needs are no-ops.
pub trait Element {
    fn on_arrival(&mut self, _cx: &mut ElemCx, _pkt: &mut Packet) -> ElemVerdict {
        ElemVerdict::Pass
    }
    fn on_transmit(&mut self, _cx: &mut ElemCx, _pkt: &mut Packet, _ch: &ChannelView) {}
    fn on_queue_event(&mut self, _cx: &mut ElemCx, _pkt: &Packet, _ev: QueueEvent) {}
    /// The first firing of the element's timer, if it has one.
    fn first_timer(&self) -> Option<SimTime> {
        None
    }
    /// The timer fired; returns the next firing.
    fn on_timer(&mut self, _cx: &mut ElemCx) -> Option<SimTime> {
        None
    }
}

/// Configuration of the built-in elements (`[[elements]]` in a scenario, tagged by `kind`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ElementConfig {
    /// Counts the packets that arrive at and leave the channel, by kind.
    Counter,
    /// Per-flow forwarded / dropped / marked counters of the channel.
    FlowStats,
    /// Random loss of arriving packets (Bernoulli or Gilbert-Elliott).
    RandomLoss(LossConfig),
    /// Periodic control packets from the channel's sending node to a host.
    Beacon(BeaconConfig),
    /// Records every packet transmitted (for pcap files).
    Capture(CaptureConfig),
    /// PTP forward packet stamping (Welzl): appends a record to PTP requests.
    Ptp(PtpConfig),
    /// Heybey's smart link: per-flow rate table and control value for voice users.
    SmartLink(SmartLinkConfig),
}

impl ElementConfig {
    pub fn name(&self) -> &'static str {
        match self {
            ElementConfig::Counter => "counter",
            ElementConfig::FlowStats => "flow_stats",
            ElementConfig::RandomLoss(_) => "random_loss",
            ElementConfig::Beacon(_) => "beacon",
            ElementConfig::Capture(_) => "capture",
            ElementConfig::Ptp(_) => "ptp",
            ElementConfig::SmartLink(_) => "smart_link",
        }
    }

    /// Builds the element; `rng` is its own stream, `to` the resolved destination node
    /// of elements that send packets.
    pub fn build(&self, rng: Rng, to: Option<u32>) -> AnyElement {
        match self {
            ElementConfig::Counter => AnyElement::Counter(Counter::default()),
            ElementConfig::FlowStats => AnyElement::FlowStats(Box::default()),
            ElementConfig::RandomLoss(c) => AnyElement::RandomLoss(RandomLoss::new(c.clone(), rng)),
            ElementConfig::Beacon(c) => {
                AnyElement::Beacon(Beacon::new(c.clone(), to.expect("beacon destination resolved")))
            }
            ElementConfig::Capture(c) => AnyElement::Capture(Box::new(Capture::new(c))),
            ElementConfig::Ptp(c) => AnyElement::Ptp(PtpStamp::new(c)),
            ElementConfig::SmartLink(c) => AnyElement::SmartLink(Box::new(SmartLink::new(
                c.clone(),
                c.capacity.expect("smart link capacity filled in by validation"),
            ))),
        }
    }
}

/// Enum dispatch of the built-in elements.
#[derive(Clone, Debug)]
pub enum AnyElement {
    Counter(Counter),
    FlowStats(Box<FlowStats>),
    RandomLoss(RandomLoss),
    Beacon(Beacon),
    Capture(Box<Capture>),
    Ptp(PtpStamp),
    SmartLink(Box<SmartLink>),
}

macro_rules! dispatch {
    ($self:ident, $e:ident => $body:expr) => {
        match $self {
            AnyElement::Counter($e) => $body,
            AnyElement::FlowStats($e) => $body,
            AnyElement::RandomLoss($e) => $body,
            AnyElement::Beacon($e) => $body,
            AnyElement::Capture($e) => $body,
            AnyElement::Ptp($e) => $body,
            AnyElement::SmartLink($e) => $body,
        }
    };
}

impl Element for AnyElement {
    #[inline]
    fn on_arrival(&mut self, cx: &mut ElemCx, pkt: &mut Packet) -> ElemVerdict {
        dispatch!(self, e => e.on_arrival(cx, pkt))
    }
    #[inline]
    fn on_transmit(&mut self, cx: &mut ElemCx, pkt: &mut Packet, ch: &ChannelView) {
        dispatch!(self, e => e.on_transmit(cx, pkt, ch))
    }
    fn on_queue_event(&mut self, cx: &mut ElemCx, pkt: &Packet, ev: QueueEvent) {
        dispatch!(self, e => e.on_queue_event(cx, pkt, ev))
    }
    fn first_timer(&self) -> Option<SimTime> {
        dispatch!(self, e => e.first_timer())
    }
    fn on_timer(&mut self, cx: &mut ElemCx) -> Option<SimTime> {
        dispatch!(self, e => e.on_timer(cx))
    }
}
