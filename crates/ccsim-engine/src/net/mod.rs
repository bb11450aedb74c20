//! The network the channels form: the state they share (`Net`: the event queue, the
//! routes, packet metadata, the pipes' node pool, merged arrivals, the series recorder,
//! scratch buffers of drops and emitted packets) and the hand-over of packets between
//! channels at send time (cut-through: `EndCut`, `Handover`).
//!
//! - `channel`: one unidirectional channel (elements, queue discipline, transmitter,
//!   pipe) and its counters, with the table of drop reasons;
//! - `pipe`: the propagation pipes' shared node pool;
//! - `merge`: merged arrivals of a channel fed by several;
//! - `event`: the (time, sequence)-ordered event queue.

pub mod channel;
pub mod event;
pub mod merge;
pub mod pipe;

pub use channel::{Channel, ChannelCounters, N_DROP_REASONS};

use crate::base::time::SimTime;
use crate::base::trace::Recorder;
use crate::element::Emit;
use crate::packet::meta::MetaSlab;
use crate::packet::Packet;
use crate::qdisc::DropReason;
use event::{Event, EventQueue};
use merge::Merge;
use pipe::PipePool;

/// Marks the end of a route in `Net::routes` (after its last channel id).
pub(crate) const ROUTE_END: u32 = u32::MAX;

/// The simulation's shared state that channels work with, in one struct so that a
/// channel method takes one pointer to it.
#[derive(Debug, Default)]
pub struct Net {
    pub ev: EventQueue,
    /// Scratch: packets dropped by a channel, with the reason (the simulation notifies
    /// the flows and frees their metadata).
    pub drops: Vec<(Packet, DropReason)>,
    pub rec: Recorder,
    /// Metadata of packets in flight.
    pub meta: MetaSlab,
    /// Scratch: packets emitted by elements (the simulation routes them).
    pub emitted: Vec<Emit>,
    /// Every route: its conversation id, its channel ids, then `ROUTE_END`.
    pub routes: Vec<u32>,
    /// Something was pushed to `drops` or `emitted` (one check on the hot path).
    pub pending: bool,
    /// The nodes of every channel's propagation pipe.
    pub pipes: PipePool,
    /// Cut-through (`Simulation::set_cut_through`), per channel: `NOT_CUT` if packets
    /// reach the channel only through events, or else the number of packets bound for it
    /// that are still in its one feeding channel's pipe (a packet may be handed over at
    /// send time only when none is: the channel must see its arrivals in order).
    pub held: Vec<u32>,
    /// The packet a channel just handed over at send time: (next channel, arrival time,
    /// packet). One slot: an enqueue or a departure puts at most one packet into the
    /// pipe, so a hand-over is a chain, followed one link at a time
    /// (`Simulation::after_channel`) without a round trip through a `Vec`.
    pub cut_next: Handover,
    /// Packets handed over at once after a snapshot (`release_held`), in order.
    pub cut: Vec<(u32, SimTime, Packet)>,
    /// Per flow: whether its receiver takes data packets and its window sender acks at
    /// send time (`Simulation::set_cut_through`), each with the channel that counts its
    /// packets not handed over. Both in one array: a round trip reads one line of it.
    pub ends: Vec<EndCut>,
    /// Packets may be handed over only if they arrive before this time: the next
    /// measurement snapshot (which must not see them early) or just after the end.
    pub horizon: SimTime,
    /// The merged arrivals of the channels fed by many (`merge::Merge`,
    /// `Simulation::set_cut_through`).
    pub merges: Vec<Merge>,
    /// Per channel: the index of its `Merge` in `merges`, or `NOT_CUT`.
    pub merge_of: Vec<u32>,
    /// The first key over all `merges` and the departure slot (`u128::MAX` if all are
    /// empty), and its `Merge` (or `DEPARTURE`: the slot's).
    pub merge_first: u128,
    pub merge_next: u32,
    /// One channel's pending departure kept outside the queue, as a merged arrival is
    /// (`schedule_departure`): its key (`u128::MAX`: none) and channel.
    pub departure_key: u128,
    pub departure_channel: u32,
    /// Packets a `Merge` refused (too early to insert, `merge::MAX_WALK`): they went
    /// into their channel's own pipe.
    pub merge_refused: u64,
}

/// `Net::merge_next` of the departure slot (`Net::schedule_departure`): no `Merge` has
/// this index.
pub const DEPARTURE: u32 = u32::MAX;

/// `Net::held` of a channel that takes no packets at send time.
pub const NOT_CUT: u32 = u32::MAX;

/// A hand-over target (`Net::cut_next`) with this bit set is the receiver of flow
/// `target & !RX_CUT`, not a channel.
pub const RX_CUT: u32 = 1 << 31;

/// A hand-over target (`Net::cut_next`) with this bit set (and not `RX_CUT`) is the
/// window sender of flow `target & !TX_CUT`.
pub const TX_CUT: u32 = 1 << 30;

/// Whether a flow's endpoints take their packets at send time (`Net::ends`).
#[derive(Clone, Copy, Debug)]
pub struct EndCut {
    /// The first channel of its acks if its receiver takes data packets at send time
    /// (that channel's `Net::held` counts the flow's data packets not handed over), else
    /// `NOT_CUT`.
    pub rx: u32,
    /// The first channel of its data if its window sender takes acks at send time (that
    /// channel's `Net::held` counts the flow's acks that wait for an event: in the last
    /// ack channel's pipe, or parked by the sender, `Simulation::send_early`), else
    /// `NOT_CUT`.
    pub tx: u32,
}

impl EndCut {
    pub const OFF: EndCut = EndCut { rx: NOT_CUT, tx: NOT_CUT };
}

/// For a packet at the end of its route, if its endpoint takes it at send time: (the
/// hand-over target, the channel whose `Net::held` counts it). A data packet goes to its
/// receiver, an ack to its window sender (`Net::ends`).
#[inline(always)]
pub(crate) fn end_counted(ends: &[EndCut], pkt: &Packet) -> Option<(u32, u32)> {
    use crate::packet::PacketKind;
    let f = pkt.flow;
    let e = ends.get(f as usize)?;
    match pkt.kind {
        PacketKind::Data if e.rx != NOT_CUT => Some((RX_CUT | f, e.rx)),
        PacketKind::Ack if e.tx != NOT_CUT => Some((TX_CUT | f, e.tx)),
        _ => None,
    }
}

/// The hand-over slot (`Net::cut_next`): a packet for `to` (a channel, or a flow's end
/// with `RX_CUT`/`TX_CUT`) at `at`; empty when `to` is `Handover::EMPTY`.
///
/// Flat fields rather than an `Option` of a tuple: the tuple was built on the stack with
/// the packet at an offset of 4 bytes and read back in 16-byte pieces that straddled its
/// stores, so every hand-over waited for its stores to reach the cache (a failed
/// store-to-load forward). Flat and in one cache line, the benchmark's 100-flow case
/// ran 7.6 % faster (docs/performance.md).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Handover {
    pub pkt: Packet,
    pub at: SimTime,
    pub to: u32,
}

impl Handover {
    /// `to` of an empty slot (no channel or flow end has this id: `NOT_CUT`).
    pub const EMPTY: u32 = NOT_CUT;

    /// Whether the slot holds no packet.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.to == Handover::EMPTY
    }
}

impl Default for Handover {
    /// An empty slot (its packet is never read).
    fn default() -> Self {
        Handover {
            pkt: Packet::new(crate::packet::PacketKind::Data, crate::packet::NO_FLOW, 0),
            at: SimTime::ZERO,
            to: Handover::EMPTY,
        }
    }
}

impl Net {
    /// Takes the first packet of `Merge` `m` and finds the next first key over all.
    #[inline(always)]
    pub(crate) fn merge_pop(&mut self, m: u32) -> Packet {
        let p = self.merges[m as usize].pop();
        self.find_merge_first();
        p
    }

    /// Empties the departure slot (`schedule_departure`): its channel.
    #[inline(always)]
    pub(crate) fn take_departure(&mut self) -> u32 {
        self.departure_key = u128::MAX;
        self.find_merge_first();
        self.departure_channel
    }

    /// Sets `merge_first` and `merge_next` to the first key over the merges and the
    /// departure slot.
    #[inline(always)]
    fn find_merge_first(&mut self) {
        (self.merge_first, self.merge_next) = (self.departure_key, DEPARTURE);
        for (i, g) in self.merges.iter().enumerate() {
            let k = g.front_key();
            if k < self.merge_first {
                (self.merge_first, self.merge_next) = (k, i as u32);
            }
        }
    }

    /// Schedules channel `c`'s `TxDone` at `at`: into the departure slot if it is free,
    /// where it costs a compare instead of a push and a pop of the queue (the run loop
    /// takes it as it takes a merged arrival, by its key, so the order of events is that
    /// of one queue), or else into the queue.
    #[inline(always)]
    pub(crate) fn schedule_departure(&mut self, at: SimTime, c: u32) {
        if self.departure_key != u128::MAX {
            self.ev.schedule(at, Event::TxDone(c));
            return;
        }
        debug_assert!(at >= self.ev.now(), "departure scheduled in the past");
        let key = EventQueue::key_of(at, Event::TxDone(c).rank());
        (self.departure_key, self.departure_channel) = (key, c);
        if key < self.merge_first {
            (self.merge_first, self.merge_next) = (key, DEPARTURE);
        }
    }

    /// Gives back the merged arrivals' ring memory they no longer need (`Ring::trim`);
    /// between chunks of events (`Simulation::run_slice`).
    pub(crate) fn trim_merges(&mut self) {
        for m in &mut self.merges {
            m.trim();
        }
    }

    /// Moves a packet handed over at send time (`cut_next`) to the end of `cut`, behind
    /// the packets already there (which it must not overtake).
    #[inline]
    pub(crate) fn defer_cut_next(&mut self) {
        if !self.cut_next.is_empty() {
            let h = self.cut_next;
            self.cut_next.to = Handover::EMPTY;
            self.cut.push((h.to, h.at, h.pkt));
            self.pending = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the simulation's run loop does (`Simulation::step` and its `merged`)
    /// with no merged arrivals: the queue's events before the first
    /// key kept outside, else the departure slot's, which is then emptied.
    fn pop(net: &mut Net) -> Option<(SimTime, Event)> {
        if let Some(x) = net.ev.pop_before(SimTime::MAX, net.merge_first) {
            return Some(x);
        }
        if net.merge_first == u128::MAX {
            return None;
        }
        assert_eq!(net.merge_next, DEPARTURE);
        let t = EventQueue::key_time(net.merge_first);
        net.ev.pass_to(t);
        Some((t, Event::TxDone(net.take_departure())))
    }

    #[test]
    fn departures_in_the_slot_run_in_the_order_of_one_queue() {
        let mut net = Net { merge_first: u128::MAX, departure_key: u128::MAX, ..Default::default() };
        let t = |ps: u64| SimTime(ps);
        // Channel 3's departure at 100 takes the slot; channel 4's at 50, scheduled while
        // the slot is taken, goes into the queue, as does channel 2's at 100.
        net.schedule_departure(t(100), 3);
        net.schedule_departure(t(50), 4);
        net.schedule_departure(t(100), 2);
        // At 100 also: an arrival over channel 0 and a snapshot (classes after departures).
        net.ev.schedule(t(100), Event::PipeHead(0, 0));
        net.ev.schedule(t(100), Event::Snapshot(0));
        assert_eq!(net.departure_channel, 3);
        assert_eq!(pop(&mut net), Some((t(50), Event::TxDone(4))));
        // Departures at one instant by channel: 2 (queue) before 3 (slot).
        assert_eq!(pop(&mut net), Some((t(100), Event::TxDone(2))));
        assert_eq!(pop(&mut net), Some((t(100), Event::TxDone(3))));
        assert_eq!(net.departure_key, u128::MAX, "the slot is free again");
        // Channel 5's next departure, at the same instant, takes the slot and still
        // comes before the snapshot and the arrival.
        net.schedule_departure(t(100), 5);
        assert_eq!(pop(&mut net), Some((t(100), Event::TxDone(5))));
        assert_eq!(pop(&mut net), Some((t(100), Event::Snapshot(0))));
        assert_eq!(pop(&mut net), Some((t(100), Event::PipeHead(0, 0))));
        assert_eq!(pop(&mut net), None);
        // Every one counted: 6 events, 2 of them taken from the slot.
        assert_eq!(net.ev.events_processed(), 6);
    }
}
