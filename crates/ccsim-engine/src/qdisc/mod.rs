//! Queue disciplines behind one interface (ns-3 `QueueDisc`).
//!
//! The contract:
//! - `enqueue` answers with a `Verdict` for the arriving packet: queued, queued and
//!   ECN-marked (the discipline set `FLAG_CE` itself), or dropped with a reason (the
//!   channel then counts and discards it). Packets already queued that the discipline
//!   evicts to make room (Fair Queueing drops from the longest queue) are pushed to
//!   `drops` with their reason.
//! - `dequeue` returns the next packet with the time it was enqueued (so every packet's
//!   sojourn time is known) and may drop packets on the way out (pushed to `drops`).
//! - The shared layer in `link.rs` owns the counters (offered, transmitted, dropped per
//!   reason, marked, queue-length integral, sojourn) and checks
//!   `offered = dropped + transmitted + queued`.
//! - A discipline that needs randomness owns its RNG stream (`rng::Rng`, seeded from the
//!   run seed and the channel id), so adding one never perturbs another.
//!
//! Adding a discipline is one file here, a variant of `AnyQdisc` (with its `dispatch!`
//! arm) and of `QdiscConfig` (scenario). See docs/extending.md.

pub mod fcfs;
pub mod fq;
pub mod red;

use crate::packet::Packet;
use crate::time::SimTime;
use crate::units::Limit;

pub use fcfs::Fcfs;
pub use fq::{DropRule, FairQueueing, FqConfig, FqSizes};
pub use red::{Red, RedConfig};

/// Why a packet was dropped (counted per reason on each channel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum DropReason {
    /// The buffer was full (drop-tail).
    Overflow = 0,
    /// Evicted from a full buffer to make room for another conversation (Fair Queueing).
    PushedOut = 1,
    /// RED's probabilistic early drop (average queue between the thresholds).
    RedEarly = 2,
    /// RED's forced drop (average queue above max_th, or the hard limit).
    RedForced = 3,
    /// A random-loss element.
    RandomLoss = 4,
    /// Dropped by another element.
    Element = 5,
}

pub const N_DROP_REASONS: usize = 6;

impl DropReason {
    pub const ALL: [DropReason; N_DROP_REASONS] = [
        DropReason::Overflow,
        DropReason::PushedOut,
        DropReason::RedEarly,
        DropReason::RedForced,
        DropReason::RandomLoss,
        DropReason::Element,
    ];
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::PushedOut => "pushed_out",
            DropReason::RedEarly => "red_early",
            DropReason::RedForced => "red_forced",
            DropReason::RandomLoss => "random_loss",
            DropReason::Element => "element",
        }
    }
}

/// The answer to an enqueue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Queued,
    /// Queued with `FLAG_CE` set (ECN mark instead of a drop).
    Marked,
    Dropped(DropReason),
}

/// The interface every discipline implements.
pub trait Qdisc {
    /// Offers `pkt` at `now`. `conv` is the packet's conversation (Fair Queueing: one per
    /// (source, destination) pair of the route). Queued packets evicted by this arrival
    /// are pushed to `drops`.
    fn enqueue(&mut self, now: SimTime, pkt: Packet, conv: u32, drops: &mut Vec<(Packet, DropReason)>) -> Verdict;
    /// Removes the next packet to transmit, with its enqueue time. Packets dropped on the
    /// way out are pushed to `drops`.
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)>;
    /// Packets queued (not counting one in transmission).
    fn len_pkts(&self) -> usize;
    /// Bits queued.
    fn len_bits(&self) -> u64;
    /// Calls `f` on every queued packet (used for end-of-run conservation counts).
    fn for_each(&self, f: &mut dyn FnMut(&Packet));
    /// The line rate changed (scheduled change); disciplines that depend on it adjust.
    fn set_rate(&mut self, _now: SimTime, _rate_bps: u64) {}
}

/// Whether one more packet of `bits` fits a buffer holding `pkts` packets / `bits_q` bits.
#[inline]
pub fn fits(limit: Limit, pkts: usize, bits_q: u64, bits: u32) -> bool {
    match limit {
        Limit::Packets(n) => (pkts as u64) < n,
        Limit::Bytes(b) => bits_q + bits as u64 <= b.saturating_mul(8),
    }
}

/// Enum dispatch of the built-in disciplines: no vtable on the per-packet path. Large
/// disciplines are boxed so that a channel's hot fields stay on few cache lines.
#[derive(Debug, Clone)]
pub enum AnyQdisc {
    Fcfs(Fcfs),
    Fq(Box<FairQueueing>),
    Red(Box<Red>),
}

impl AnyQdisc {
    /// Whether a packet that finds the line idle and the queue empty may skip the
    /// discipline (the channel's shortcut). Not for RED (its average must see every
    /// arrival) nor FQ (every packet needs its finish number, DKS).
    pub fn idle_bypass(&self) -> bool {
        matches!(self, AnyQdisc::Fcfs(_))
    }

    /// The buffer limit (the link's buffer).
    #[inline]
    pub fn limit(&self) -> Limit {
        match self {
            AnyQdisc::Fcfs(q) => q.limit(),
            AnyQdisc::Fq(q) => q.limit(),
            AnyQdisc::Red(q) => q.limit(),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            AnyQdisc::Fcfs(_) => "fcfs",
            AnyQdisc::Fq(_) => "fq",
            AnyQdisc::Red(_) => "red",
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQdisc::Fcfs($q) => $e,
            AnyQdisc::Fq($q) => $e,
            AnyQdisc::Red($q) => $e,
        }
    };
}

impl Qdisc for AnyQdisc {
    #[inline(always)]
    fn enqueue(&mut self, now: SimTime, pkt: Packet, conv: u32, drops: &mut Vec<(Packet, DropReason)>) -> Verdict {
        dispatch!(self, q => q.enqueue(now, pkt, conv, drops))
    }
    #[inline(always)]
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)> {
        dispatch!(self, q => q.dequeue(now, drops))
    }
    #[inline(always)]
    fn len_pkts(&self) -> usize {
        dispatch!(self, q => q.len_pkts())
    }
    #[inline]
    fn len_bits(&self) -> u64 {
        dispatch!(self, q => q.len_bits())
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        dispatch!(self, q => q.for_each(f))
    }
    fn set_rate(&mut self, now: SimTime, rate_bps: u64) {
        dispatch!(self, q => q.set_rate(now, rate_bps))
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use crate::packet::{Packet, PacketKind};

    /// A data packet of `bytes` bytes, flow `flow`, sequence `seq`.
    pub fn pkt(flow: u32, seq: u32, bytes: u32) -> Packet {
        let mut p = Packet::new(PacketKind::Data, flow, bytes);
        p.seq = seq;
        p
    }
}
