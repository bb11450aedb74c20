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
//! Adding an element is one file here with a type implementing `Element` (the hooks) and
//! `ElementPolicy` (its name, parameters with their checks, how to build it, its drop
//! reasons and its report), and one line in the `registry!` below. The `ElementConfig`
//! and `AnyElement` enums, their dispatch, the scenario file's kinds and the registry
//! table `ElementConfig::ALL` (read by validation and `ccsim list element`) all derive
//! from that line. See docs/extending.md.

pub mod basic;
pub mod capture;
pub mod loss;
pub mod ptp;
pub mod smart_link;

use crate::base::rng::Rng;
use crate::base::time::SimTime;
use crate::packet::meta::MetaSlab;
use crate::packet::Packet;
use crate::qdisc::{count_names, flatten_names, position, DropReason, N_QDISC_DROP_REASONS};
use serde::{Deserialize, Serialize};

#[macro_use]
mod registry;
pub use registry::{ElementConfigOf, ElementInfo, ElementPolicy, Names, ParamDefault, ReadParams};

pub use basic::{Beacon, BeaconConfig, Counter, CounterConfig, FlowStats, FlowStatsConfig, FlowStatsRow};
pub use capture::{Capture, CaptureConfig};
pub use loss::{LossConfig, RandomLoss};
pub use ptp::{PtpConfig, PtpStamp};
pub use smart_link::{SmartLink, SmartLinkConfig};

/// The elements' part of the drop-reason table (after the disciplines', see
/// `qdisc::DropReason`): each element's reasons in registration order, then `element`.
const ELEMENT_DROP_REASON_GROUPS: [&[&[&str]]; 2] = [ELEMENT_DROP_REASONS, &[&["element"]]];

/// The number of the elements' drop reasons.
pub const N_ELEMENT_DROP_REASONS: usize = count_names(&ELEMENT_DROP_REASON_GROUPS);

/// The elements' reason names, in table order.
pub(crate) const ELEMENT_DROP_REASON_NAMES: [&str; N_ELEMENT_DROP_REASONS] = flatten_names(&ELEMENT_DROP_REASON_GROUPS);

// Named like the enum variants they stand beside (`DropReason::Overflow`).
#[allow(non_upper_case_globals)]
impl DropReason {
    /// Dropped by an element that declares no reason of its own.
    pub const Element: DropReason = DropReason::element_named("element");

    /// The element's reason declared as `name`; a name no element declares fails the
    /// build (the constant is evaluated at compile time).
    pub const fn element_named(name: &str) -> DropReason {
        DropReason::at(N_QDISC_DROP_REASONS + position(&ELEMENT_DROP_REASON_NAMES, name))
    }
}

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

registry! {
    // Variant: module :: element type [, state in Box: its state boxed in `AnyElement`]
    Counter: basic::Counter;
    FlowStats: basic::FlowStats, state in Box;
    RandomLoss: loss::RandomLoss;
    Beacon: basic::Beacon;
    Capture: capture::Capture, state in Box;
    Ptp: ptp::PtpStamp;
    SmartLink: smart_link::SmartLink, state in Box;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_registered_element_is_named_as_its_scenario_kind() {
        let names: Vec<&str> = ElementConfig::ALL.iter().map(|i| i.name).collect();
        assert_eq!(names, ["counter", "flow_stats", "random_loss", "beacon", "capture", "ptp", "smart_link"]);
        for info in ElementConfig::ALL {
            let cfg = (info.example)().unwrap();
            assert_eq!(cfg.name(), info.name);
            // The serde tag (the variant's name in snake case) is the element's name.
            let t = toml::Table::try_from(&cfg).unwrap();
            assert_eq!(t.get("kind").and_then(|v| v.as_str()), Some(info.name));
            assert_eq!(cfg.check(), Ok(()), "{}: the example passes the checks", info.name);
        }
    }

    #[test]
    fn parameters_list_the_required_ones_with_the_example_and_the_others_with_their_defaults() {
        let beacon = ElementConfig::ALL.iter().find(|i| i.name == "beacon").unwrap();
        let s = |v: &str| toml::Value::String(v.into());
        assert_eq!(
            beacon.parameter_defaults(),
            [
                ("to", ParamDefault::Required(s("sink"))),
                ("period", ParamDefault::Required(s("1s"))),
                ("start", ParamDefault::Unset),
                ("size", ParamDefault::Default(s("40B"))),
            ]
        );
        let counter = &ElementConfig::ALL[0];
        assert!(counter.parameter_defaults().is_empty());
        let loss = ElementConfig::ALL.iter().find(|i| i.name == "random_loss").unwrap();
        assert_eq!(loss.drop_reasons, ["random_loss"]);
    }

    #[test]
    fn a_smart_link_takes_the_channel_s_rate_unless_given_a_capacity() {
        let mut cfg: ElementConfig = toml::from_str("kind = \"smart_link\"\nalgorithm = \"hayden\"\na = 1.0").unwrap();
        assert_eq!(cfg.destination(), None);
        cfg.on_channel(2_000_000);
        let ElementConfig::SmartLink(c) = &cfg else { panic!("a smart link") };
        assert_eq!(c.capacity, Some(2_000_000));
        cfg.on_channel(5_000_000);
        let ElementConfig::SmartLink(c) = &cfg else { panic!("a smart link") };
        assert_eq!(c.capacity, Some(2_000_000), "a capacity already set stays");
    }
}
