//! Queue disciplines behind one interface (ns-3 `QueueDisc`, style.md point 8).
//!
//! A discipline only orders and drops packets. The shared layer in `link.rs` owns the
//! counters (offered, dropped, dequeued, queue-length integral) and checks the identity
//! `offered = dropped + dequeued + queued` in debug builds. Adding a discipline is one
//! file here plus a variant of `AnyQdisc` and of `QdiscKind` in the scenario.

pub mod fcfs;
pub mod fq;

use crate::packet::Packet;
use crate::time::SimTime;
use crate::units::Limit;

pub use fcfs::Fcfs;
pub use fq::FairQueueing;

/// The interface every discipline implements.
pub trait Qdisc {
    /// Offers `pkt` at time `now`. Every packet the discipline drops because of this
    /// arrival (the arrival itself, or victims already queued) is pushed to `dropped`.
    fn enqueue(&mut self, now: SimTime, pkt: Packet, dropped: &mut Vec<Packet>);
    /// Removes the next packet to transmit.
    fn dequeue(&mut self, now: SimTime) -> Option<Packet>;
    /// Packets queued (not counting one in transmission).
    fn len_pkts(&self) -> usize;
    /// Bytes queued.
    fn len_bytes(&self) -> u64;
    /// Calls `f` on every queued packet (used for end-of-run conservation counts).
    fn for_each(&self, f: &mut dyn FnMut(&Packet));
}

/// Whether one more packet of `size` bytes fits a buffer holding `pkts`/`bytes`.
#[inline]
pub fn fits(limit: Limit, pkts: usize, bytes: u64, size: u32) -> bool {
    match limit {
        Limit::Packets(n) => (pkts as u64) < n,
        Limit::Bytes(b) => bytes + size as u64 <= b,
    }
}

/// Enum dispatch of the built-in disciplines: no vtable on the per-packet path. Large
/// disciplines are boxed so that a channel's hot fields stay on few cache lines.
#[derive(Debug, Clone)]
pub enum AnyQdisc {
    Fcfs(Fcfs),
    Fq(Box<FairQueueing>),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQdisc::Fcfs($q) => $e,
            AnyQdisc::Fq($q) => $e,
        }
    };
}

impl Qdisc for AnyQdisc {
    #[inline]
    fn enqueue(&mut self, now: SimTime, pkt: Packet, dropped: &mut Vec<Packet>) {
        dispatch!(self, q => q.enqueue(now, pkt, dropped))
    }
    #[inline]
    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        dispatch!(self, q => q.dequeue(now))
    }
    #[inline]
    fn len_pkts(&self) -> usize {
        dispatch!(self, q => q.len_pkts())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        dispatch!(self, q => q.for_each(f))
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use crate::packet::{Packet, PacketKind};
    use crate::time::SimTime;

    pub fn pkt(conv: u32, seq: u32, size: u32) -> Packet {
        Packet {
            flow: conv,
            seq,
            size,
            conv,
            route: 0,
            hop: 0,
            kind: PacketKind::Data,
            flags: 0,
            ts: SimTime::ZERO,
        }
    }
}
