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
//! - The shared layer in `net/channel.rs` owns the counters (offered, transmitted, dropped per
//!   reason, marked, queue-length integral, sojourn) and checks
//!   `offered = dropped + transmitted + queued`.
//! - A discipline that needs randomness owns its RNG stream (`rng::Rng`, seeded from the
//!   run seed and the channel id), so adding one never perturbs another.
//!
//! Adding a discipline is one file here with a type implementing `Qdisc` (the packet
//! operations) and `QdiscPolicy` (its name, parameters with their checks and defaults,
//! how to build it, its drop reasons and capabilities), and one line in the
//! `registry!` below. The `QdiscConfig` and `AnyQdisc` enums, their dispatch, the
//! scenario file's names and the registry table `QdiscConfig::ALL` (read by
//! validation, export, `ccsim list qdisc` and the bench's `--qdisc`) all derive from
//! that line. docs/extending.md walks through it.

use crate::base::rng::Rng;
use crate::base::time::SimTime;
use crate::base::units::Limit;
use crate::packet::Packet;
use serde::{Deserialize, Serialize};

#[macro_use]
mod registry;
pub use registry::{QdiscInfo, QdiscPolicy, ReadParams};

pub use codel::{CodelConfig, CodelSqrt};
pub use fcfs::FcfsConfig;
pub use fq::{DropRule, FqConfig, FqSizes};
pub use fq_codel::FqCodelConfig;
pub use pie::PieConfig;
pub use random_drop::RandomDropConfig;
pub use red::RedConfig;

registry! {
    // Variant: module :: discipline type [, config in Box: its parameters boxed in
    // every channel's spec] [, state in Box: its state boxed, so that a channel's hot
    // fields stay on few cache lines]
    Fcfs: fcfs::Fcfs;
    Fq: fq::FairQueueing, state in Box;
    Red: red::Red, config in Box, state in Box;
    Codel: codel::Codel, config in Box, state in Box;
    FqCodel: fq_codel::FqCodel, config in Box, state in Box;
    Pie: pie::Pie, config in Box, state in Box;
    RandomDrop: random_drop::RandomDrop, config in Box, state in Box;
}

/// Why a packet was dropped (counted per reason on each channel): an index into the
/// table of every reason's name. Each discipline and element declares the reasons it
/// drops for in its own file (`QdiscPolicy::DROP_REASONS`, an element's
/// `DROP_REASONS`) and names each as a constant of `DropReason` there
/// (`DropReason::named` here for a discipline's, `DropReason::element_named` in
/// `element/` for an element's). The table, and so the results' `drops_by_reason`
/// columns, is `overflow` (every channel's buffer), the disciplines' reasons in
/// registration order (`N_QDISC_DROP_REASONS` in all), then the elements' and `element`
/// (any other element's drop). The whole table (`DropReason::ALL`, `name`,
/// `N_DROP_REASONS`) is read in `net/channel.rs`, the layer that holds both disciplines and
/// elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DropReason(u8);

/// The disciplines' part of the table: `overflow`, then each discipline's reasons.
const QDISC_DROP_REASON_GROUPS: [&[&[&str]]; 2] = [&[&["overflow"]], QDISC_DROP_REASONS];

/// The most drop reasons a discipline may declare (`QdiscPolicy::DROP_REASONS`): a
/// channel counts its drops in `1 + MAX_QDISC_DROP_REASONS` slots of its own (`overflow`,
/// then its discipline's reasons), so that a discipline added to the registry does not
/// grow every channel.
pub const MAX_QDISC_DROP_REASONS: usize = 5;

/// The table index of each discipline's first drop reason (1, for `overflow`, plus the
/// reasons of the disciplines before it), in registration order; a discipline with more
/// than `MAX_QDISC_DROP_REASONS` fails the build.
const fn first_drop_reasons<const N: usize>(groups: &[&[&str]]) -> [usize; N] {
    let mut out = [0; N];
    let mut first = 1;
    let mut k = 0;
    while k < N {
        assert!(
            groups[k].len() <= MAX_QDISC_DROP_REASONS,
            "a discipline declares more drop reasons than a channel has slots for"
        );
        out[k] = first;
        first += groups[k].len();
        k += 1;
    }
    out
}

/// The number of the disciplines' drop reasons (the elements' follow them).
pub const N_QDISC_DROP_REASONS: usize = count_names(&QDISC_DROP_REASON_GROUPS);

/// The disciplines' reason names, in table order (each once: checked at compile time).
pub(crate) const QDISC_DROP_REASON_NAMES: [&str; N_QDISC_DROP_REASONS] = flatten_names(&QDISC_DROP_REASON_GROUPS);

/// The number of names in groups of lists of names.
pub(crate) const fn count_names(groups: &[&[&[&str]]]) -> usize {
    let mut n = 0;
    let mut g = 0;
    while g < groups.len() {
        let mut l = 0;
        while l < groups[g].len() {
            n += groups[g][l].len();
            l += 1;
        }
        g += 1;
    }
    assert!(n <= u8::MAX as usize, "more drop reasons than a DropReason holds");
    n
}

/// The names of groups of lists of names, in order; a name given twice fails the build.
pub(crate) const fn flatten_names<const N: usize>(groups: &[&[&[&'static str]]]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut n = 0;
    let mut g = 0;
    while g < groups.len() {
        let mut l = 0;
        while l < groups[g].len() {
            let mut i = 0;
            while i < groups[g][l].len() {
                let name = groups[g][l][i];
                let mut k = 0;
                while k < n {
                    assert!(!same(out[k], name), "a drop reason is declared twice");
                    k += 1;
                }
                out[n] = name;
                n += 1;
                i += 1;
            }
            l += 1;
        }
        g += 1;
    }
    out
}

/// The position of `name` in `names`; a name not there fails the build when evaluated
/// at compile time.
pub(crate) const fn position(names: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < names.len() {
        if same(names[i], name) {
            return i;
        }
        i += 1;
    }
    panic!("no discipline or element declares this drop reason")
}

/// String equality at compile time.
pub(crate) const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

// The reasons are named like enum variants: they are the cases of one closed set, and
// read as such in `match`.
#[allow(non_upper_case_globals)]
impl DropReason {
    /// The buffer was full (drop-tail).
    pub const Overflow: DropReason = DropReason::named("overflow");

    /// The discipline's reason declared as `name`; a name no discipline declares fails
    /// the build (the constant is evaluated at compile time).
    pub const fn named(name: &str) -> DropReason {
        DropReason(position(&QDISC_DROP_REASON_NAMES, name) as u8)
    }

    /// The reason at position `i` of the table.
    pub(crate) const fn at(i: usize) -> DropReason {
        assert!(i <= u8::MAX as usize, "more drop reasons than a DropReason holds");
        DropReason(i as u8)
    }

    /// Its position in the table (a channel's counter index).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The answer to `Qdisc::pass_idle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdlePass {
    /// The discipline has no shortcut: the channel enqueues and dequeues the packet.
    Unsupported,
    /// Accepted and dequeued at once: the channel transmits it.
    Sent,
    /// Dropped on arrival.
    Dropped(DropReason),
}

/// What a channel that keeps a discipline's queue itself (`QdiscPolicy::ADMITS`) tells
/// it about an arrival (`Qdisc::admit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ahead {
    /// Packets waiting (not counting one in transmission) and their bits.
    pub pkts: usize,
    pub bits: u64,
    /// When the packet starts transmission if admitted: now if the line is idle and
    /// nothing waits, else when the packets ahead are sent. It is also when the queue
    /// empties, if no later packet is admitted before.
    pub start: SimTime,
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
    /// way out are pushed to `drops`. Work-conserving: while the discipline holds a
    /// packet after those drops, it returns one (the channel reads a free line as an empty
    /// discipline and counts the queue's length from the verdicts and `drops`; debug
    /// builds assert both).
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)>;
    /// A packet of `bits` arrives at an idle line with the queue empty (`conv` gives its
    /// conversation, as for `enqueue`, for a discipline that classifies): the discipline's state becomes what `enqueue` at `now`
    /// followed at once by `dequeue` at `now` would leave (neither marking nor evicting),
    /// without queueing the packet; the answer says whether the packet is sent or
    /// dropped. Default: `IdlePass::Unsupported` (the channel then calls `enqueue` and
    /// `dequeue`).
    #[inline(always)]
    fn pass_idle(&mut self, _now: SimTime, _bits: u32, _conv: impl FnOnce() -> u32) -> IdlePass {
        IdlePass::Unsupported
    }
    /// The verdict on an arrival at a channel that keeps the queue (`QdiscPolicy::ADMITS`):
    /// the state becomes what `enqueue` would leave, and, the packet admitted, what its
    /// `dequeue` at `ahead.start` would. `FLAG_CE` is set on a marked packet. Called only
    /// for a discipline that declares `ADMITS`.
    fn admit(&mut self, _now: SimTime, _pkt: &mut Packet, _ahead: Ahead) -> Verdict {
        unreachable!("admit on a discipline that does not declare ADMITS")
    }
    /// Whether the last `dequeue` set `FLAG_CE` on the packet it returned (disciplines
    /// that mark at dequeue, CoDel; the channel counts the mark).
    fn dequeue_marked(&mut self) -> bool {
        false
    }
    /// Packets queued (not counting one in transmission).
    fn len_pkts(&self) -> usize;
    /// Bits queued.
    fn len_bits(&self) -> u64;
    /// Calls `f` on every queued packet (used for end-of-run conservation counts).
    fn for_each(&self, f: &mut dyn FnMut(&Packet));
    /// The line rate changed (scheduled change); disciplines that depend on it adjust.
    fn set_rate(&mut self, _now: SimTime, _rate_bps: u64) {}
    /// The current value of the discipline's own series `slot` (`QdiscPolicy::SERIES`).
    fn series_value(&self, _slot: usize) -> f64 {
        0.0
    }
}

/// The most series of its own a discipline may declare (`QdiscPolicy::SERIES`).
pub const MAX_QDISC_SERIES: usize = 2;

/// Whether one more packet of `bits` fits a buffer holding `pkts` packets / `bits_q` bits.
#[inline]
pub fn fits(limit: Limit, pkts: usize, bits_q: u64, bits: u32) -> bool {
    match limit {
        Limit::Packets(n) => (pkts as u64) < n,
        Limit::Bytes(b) => bits_q + bits as u64 <= b.saturating_mul(8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_reasons_are_the_channel_s_then_each_discipline_s_then_the_elements_in_order() {
        let names: Vec<&str> = DropReason::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(
            names,
            [
                "overflow",
                "pushed_out",
                "red_early",
                "red_forced",
                "codel",
                "fq_codel",
                "fq_codel_overlimit",
                "pie",
                "random_drop",
                "random_loss",
                "element"
            ]
        );
        let declared = [
            DropReason::Overflow,
            DropReason::PushedOut,
            DropReason::RedEarly,
            DropReason::RedForced,
            DropReason::Codel,
            DropReason::FqCodel,
            DropReason::FqCodelOverlimit,
            DropReason::Pie,
            DropReason::RandomDrop,
            DropReason::RandomLoss,
            DropReason::Element,
        ];
        assert_eq!(declared, DropReason::ALL);
        assert_eq!(declared.map(DropReason::index), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!((N_QDISC_DROP_REASONS, crate::net::N_DROP_REASONS), (9, 11));
    }

    #[test]
    fn each_discipline_s_first_drop_reason_is_one_plus_the_reasons_registered_before_it() {
        // overflow (0); fq: pushed_out (1); red: red_early, red_forced (2, 3); codel:
        // codel (4); fq_codel: fq_codel, fq_codel_overlimit (5, 6); pie: pie (7);
        // random_drop: random_drop (8). fcfs has none: 1, where fq's start.
        let mut firsts = Vec::new();
        for info in QdiscConfig::ALL {
            let q = (info.default)().build(Limit::Packets(1), 1_000_000, Rng::new(1, 0));
            assert_eq!(q.drop_reasons(), info.drop_reasons);
            let first = q.first_drop_reason();
            for (k, name) in info.drop_reasons.iter().enumerate() {
                assert_eq!(DropReason::ALL[first + k].name(), *name, "{}", info.name);
            }
            firsts.push(first);
        }
        assert_eq!(firsts, [1, 1, 2, 4, 5, 7, 8]);
    }

    #[test]
    fn the_registry_builds_each_discipline_with_its_name_limit_and_capabilities() {
        let names: Vec<&str> = QdiscConfig::ALL.iter().map(|i| i.name).collect();
        assert_eq!(names, ["fcfs", "fq", "red", "codel", "fq_codel", "pie", "random_drop"]);
        let limit = Limit::Packets(7);
        for info in QdiscConfig::ALL {
            let cfg = (info.default)();
            assert_eq!((cfg.name(), cfg.info().name), (info.name, info.name));
            assert_eq!(cfg.check(), Ok(()), "{}: the defaults pass the checks", info.name);
            let q = cfg.build(limit, 1_000_000, Rng::new(1, 0));
            assert_eq!((q.name(), q.limit(), q.len_pkts()), (info.name, limit, 0));
            // Only drop-tail may be skipped by an idle channel and timed at enqueue.
            assert_eq!((q.idle_bypass(), q.fifo()), (info.name == "fcfs", info.name == "fcfs"), "{}", info.name);
        }
        assert!(QdiscConfig::ALL[0].answers_to("droptail"));
        assert_eq!((QdiscConfig::ALL[1].parameters)(), ["drop_rule"]);
        assert_eq!(QdiscConfig::ALL[1].parameter_defaults(), [("drop_rule", Some(toml::Value::String("dks".into())))]);
        assert!((QdiscConfig::ALL[0].parameters)().is_empty());
        let codel = QdiscConfig::ALL[3].parameter_defaults();
        assert_eq!(codel[0], ("target", Some(toml::Value::String("5ms".into()))));
        assert_eq!(codel[4], ("ce_threshold", None), "unset by default");
        assert_eq!((QdiscConfig::ALL[4].parameters)()[..4], ["target", "interval", "quantum", "flows"]);
        let pie = QdiscConfig::ALL[5].parameter_defaults();
        assert_eq!(pie[1], ("tupdate", Some(toml::Value::String("15ms".into()))));
        assert_eq!(pie[2], ("alpha", Some(toml::Value::Float(0.125))));
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
