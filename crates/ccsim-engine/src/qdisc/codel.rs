//! CoDel, Controlled Delay: K. Nichols, V. Jacobson, A. McGregor and J. Iyengar,
//! RFC 8289 (2018), section 5 and its pseudocode (sections 5.4-5.7), with the choices
//! the RFC leaves open taken from Linux (`include/net/codel.h`, `net/sched/sch_codel.c`).
//!
//! Every packet is stamped with its enqueue time; its sojourn time is measured when it
//! is dequeued (`Qdisc::dequeue` returns the stamp, so the channel sees the same
//! sojourn). At each dequeue (RFC 8289 section 5.5, `dodequeue`):
//!
//! ```text
//!     sojourn < target or backlog <= mtu:  first_above_time <- none        (ok_to_drop false)
//!     else if first_above_time is none:    first_above_time <- now + interval
//!     else:                                ok_to_drop <- now >= first_above_time
//! ```
//!
//! and (section 5.6, `dequeue`, with the Linux re-entry rule the RFC gives):
//!
//! ```text
//!     dropping:      not ok_to_drop  -> leave the dropping state
//!                    while now >= drop_next and dropping:
//!                        count += 1; drop (or ECN-mark and stop) the packet; take the next;
//!                        not ok_to_drop -> leave, else drop_next <- control_law(drop_next)
//!     not dropping:  ok_to_drop -> drop (or mark) the packet, take the next; dropping;
//!                    delta = count - lastcount
//!                    count <- delta if delta > 1 and now - drop_next < 16 interval, else 1
//!                    lastcount <- count; drop_next <- control_law(now)
//!     control_law(t) = t + interval / sqrt(count)
//! ```
//!
//! `backlog` is the bytes still queued after the packet was taken out (Linux passes the
//! backlog after `dequeue_func`); with at most one MTU queued CoDel never drops (RFC
//! 8289 section 5.4's `maxpacket`, Linux's `mtu`).
//!
//! Choices and where they come from:
//! - sqrt: `sqrt = "exact"` (default) computes interval / sqrt(count) in f64 and rounds
//!   to the picosecond, the RFC's control law as written. `sqrt = "newton"` keeps Linux's
//!   16-bit reciprocal square root updated by one Newton step per change of count
//!   (`codel_Newton_step`, `codel_control_law`), as ns-3's CoDelQueueDisc does: its first
//!   steps are coarse (count 2 gives interval / 2 rather than interval / 1.414).
//! - ok_to_drop once now >= first_above_time (RFC 8289's `>=`; Linux and ns-3 test
//!   `now > first_above_time`).
//! - ECN (`ecn`, default off as Linux's codel): an ECN-capable packet (`FLAG_ECT`) that
//!   would be dropped is marked (`FLAG_CE`) and sent instead; in the dropping state the
//!   marked packet ends the dequeue (Linux). The packet returned by a dequeue that marked
//!   it is reported to the channel through `Qdisc::dequeue_marked`.
//! - `ce_threshold` (Linux's, default off): an ECN-capable packet whose sojourn exceeds it
//!   is marked at dequeue whatever the control law says.
//! - `mtu` defaults to 1514 B (Linux's `psched_mtu` on Ethernet); ns-3's `MinBytes` is 1500.
//! - The buffer limit is the link's `buffer` (Linux's codel `limit` defaults to 1000
//!   packets, ns-3's `MaxSize` to 1500 packets): an arrival that does not fit is dropped
//!   (`DropReason::Overflow`). Drops by the control law are `DropReason::Codel`.
//!
//! Time is integer picoseconds (`SimTime`); ns-3 and Linux quantise to 1024 ns, which no
//! choice here reproduces.

use super::{fits, DropReason, IdlePass, Qdisc, QdiscPolicy, Verdict};
use crate::base::rng::Rng;
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::{serde_units, Limit};
use crate::packet::{Packet, FLAG_CE, FLAG_ECT};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How the control law's interval / sqrt(count) is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodelSqrt {
    /// f64 square root, rounded to the picosecond (RFC 8289's control law).
    #[default]
    Exact,
    /// Linux's 16-bit reciprocal square root with one Newton step per count (also ns-3).
    Newton,
}

/// CoDel parameters (`qdisc = { kind = "codel", target = "5ms", interval = "100ms" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    /// Acceptable standing sojourn time. Default 5 ms (RFC 8289 section 4.4, Linux, ns-3).
    #[serde(with = "serde_units::time")]
    pub target: SimDuration,
    /// Sliding window of the minimum sojourn, and the control law's base. Default 100 ms
    /// (RFC 8289 section 4.4, Linux, ns-3).
    #[serde(with = "serde_units::time")]
    pub interval: SimDuration,
    /// No drop while at most this many bytes stay queued. Default 1514 B (Linux).
    #[serde(with = "serde_units::bytes")]
    pub mtu: u32,
    /// Mark ECN-capable packets instead of dropping them. Default false (Linux, ns-3).
    pub ecn: bool,
    /// Mark every ECN-capable packet whose sojourn exceeds this (Linux). Default off.
    #[serde(default, with = "serde_units::opt_time", skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<SimDuration>,
    /// `exact` (default, the RFC's formula) or `newton` (Linux's and ns-3's approximation).
    pub sqrt: CodelSqrt,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig {
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            mtu: 1514,
            ecn: false,
            ce_threshold: None,
            sqrt: CodelSqrt::Exact,
        }
    }
}

impl CodelConfig {
    /// Checks the parameters; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.interval == SimDuration::ZERO {
            return Err(("interval", "0s is no interval; give a positive time, e.g. \"100ms\"".into()));
        }
        if self.target == SimDuration::ZERO {
            return Err(("target", "0s would drop whenever the queue holds a packet; give a positive time, e.g. \"5ms\"".into()));
        }
        if self.target >= self.interval {
            return Err((
                "target",
                format!(
                    "{} is not below interval ({}); give a target a few percent of the interval, e.g. \"5ms\" with \"100ms\"",
                    self.target, self.interval
                ),
            ));
        }
        if let Some(ce) = self.ce_threshold {
            if ce == SimDuration::ZERO {
                return Err(("ce_threshold", "0s would mark every packet; give a positive time, e.g. \"1ms\", or leave it out".into()));
            }
        }
        Ok(())
    }

    /// The parameters the control law reads.
    pub(crate) fn params(&self) -> CodelParams {
        CodelParams {
            target: self.target,
            interval: self.interval,
            mtu_bits: self.mtu as u64 * 8,
            ecn: self.ecn,
            ce_threshold: self.ce_threshold,
            newton: self.sqrt == CodelSqrt::Newton,
        }
    }
}

/// CoDel's parameters as the state machine reads them (shared by FQ-CoDel's queues).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CodelParams {
    pub target: SimDuration,
    pub interval: SimDuration,
    pub mtu_bits: u64,
    pub ecn: bool,
    pub ce_threshold: Option<SimDuration>,
    pub newton: bool,
}

/// A queue the control law takes packets from.
pub(crate) trait CodelQueue {
    /// Takes the head packet out, with its enqueue time.
    fn pop(&mut self) -> Option<(Packet, SimTime)>;
    /// Bits left queued (after `pop`): compared with the MTU.
    fn backlog_bits(&self) -> u64;
}

/// Linux's `REC_INV_SQRT_SHIFT`: the reciprocal square root is kept in 16 bits of a Q0.32.
const REC_INV_SQRT_SHIFT: u32 = 16;

/// One CoDel queue's state (RFC 8289 section 5.2's variables; Linux's `codel_vars`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct CodelVars {
    /// Drops (or marks) since entering the dropping state, with the re-entry rule.
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    pub dropping: bool,
    /// Linux's 1/sqrt(count) in Q0.16 (`sqrt = "newton"` only).
    rec_inv_sqrt: u16,
    /// When the sojourn will have stayed above target for an interval; none while below.
    pub first_above_time: Option<SimTime>,
    /// Time of the next drop in the dropping state.
    pub drop_next: SimTime,
    /// Sojourn of the last packet examined.
    pub ldelay: SimDuration,
}

impl CodelVars {
    /// `codel_Newton_step`: one Newton iteration of 1/sqrt(count) in Linux's fixed point.
    fn newton_step(&mut self) {
        let invsqrt = (self.rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
        let invsqrt2 = ((invsqrt as u64 * invsqrt as u64) >> 32) as u32;
        let mut val = (3u64 << 32).wrapping_sub(self.count as u64 * invsqrt2 as u64);
        val >>= 2;
        val = (val * invsqrt as u64) >> (32 - 2 + 1);
        self.rec_inv_sqrt = (val >> REC_INV_SQRT_SHIFT) as u16;
    }

    /// t + interval / sqrt(count).
    fn control_law(&self, t: SimTime, p: &CodelParams) -> SimTime {
        let i = p.interval.as_ps();
        let d = if p.newton {
            ((i as u128 * ((self.rec_inv_sqrt as u128) << REC_INV_SQRT_SHIFT)) >> 32) as u64
        } else {
            (i as f64 / (self.count.max(1) as f64).sqrt()).round() as u64
        };
        t + SimDuration::from_ps(d)
    }

    /// RFC 8289's `dodequeue` verdict for the packet just taken out (`item`), with the
    /// backlog left behind.
    fn ok_to_drop(&mut self, p: &CodelParams, item: Option<&(Packet, SimTime)>, backlog_bits: u64, now: SimTime) -> bool {
        let Some(&(_, at)) = item else {
            self.first_above_time = None;
            return false;
        };
        self.ok_to_drop_at(p, at, backlog_bits, now)
    }

    /// `ok_to_drop` for a packet enqueued at `at`.
    #[inline(always)]
    fn ok_to_drop_at(&mut self, p: &CodelParams, at: SimTime, backlog_bits: u64, now: SimTime) -> bool {
        self.ldelay = now - at;
        if self.ldelay < p.target || backlog_bits <= p.mtu_bits {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + p.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// Whether CoDel marks `pkt` instead of dropping it (and marks it).
    #[inline]
    fn mark(p: &CodelParams, pkt: &mut Packet) -> bool {
        if p.ecn && pkt.has(FLAG_ECT) {
            pkt.flags |= FLAG_CE;
            true
        } else {
            false
        }
    }

    /// RFC 8289's `dequeue` on `q` at `now`: the packet to send, with its enqueue time;
    /// `marked` is set if this dequeue ECN-marked it (and left as it was otherwise);
    /// packets dropped on the way are pushed to `drops` with `reason`.
    #[inline(always)]
    pub(crate) fn dequeue<Q: CodelQueue>(
        &mut self,
        p: &CodelParams,
        q: &mut Q,
        now: SimTime,
        drops: &mut Vec<(Packet, DropReason)>,
        reason: DropReason,
        marked: &mut bool,
    ) -> Option<(Packet, SimTime)> {
        let Some((pkt, at)) = q.pop() else {
            self.dropping = false;
            return None;
        };
        if self.no_drop_due(p, at, q.backlog_bits(), now) {
            // (Without a CE threshold, the default, the packet goes as it came. The test
            // is here, not only in `ce_threshold_mark`: there the packet passes through a
            // by-value argument and return, and the bench's dequeue costs 5-13
            // instructions more a packet, docs/performance.md, FQ-CoDel fifth round.)
            if p.ce_threshold.is_none() {
                return Some((pkt, at));
            }
            return Some(self.ce_threshold_mark(p, pkt, at, marked));
        }
        self.dequeue_law(p, q, now, drops, reason, (pkt, at), marked)
    }

    /// The two common cases of `dequeue` for the packet taken out (enqueued at `at`,
    /// `backlog_bits` left behind): no drop is due when the sojourn is below target (the
    /// dropping state, if any, ends: section 5.6) or when dropping with the next drop not
    /// yet due. The packet is then sent (`ce_threshold_mark`); otherwise `dequeue_law`.
    #[inline(always)]
    pub(crate) fn no_drop_due(&mut self, p: &CodelParams, at: SimTime, backlog_bits: u64, now: SimTime) -> bool {
        if !self.ok_to_drop_at(p, at, backlog_bits, now) {
            self.dropping = false;
            return true;
        }
        self.dropping && now < self.drop_next
    }

    /// The rest of `dequeue` when a drop is due for `first`, the packet taken out.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn dequeue_law<Q: CodelQueue>(
        &mut self,
        p: &CodelParams,
        q: &mut Q,
        now: SimTime,
        drops: &mut Vec<(Packet, DropReason)>,
        reason: DropReason,
        first: (Packet, SimTime),
        marked: &mut bool,
    ) -> Option<(Packet, SimTime)> {
        let (item, marked_here) = self.dequeue_ok_to_drop(p, q, now, drops, reason, first);
        *marked |= marked_here;
        item
    }

    /// The rest of `dequeue` once `ok_to_drop` holds for the packet taken out (`first`):
    /// the packet to send and whether this dequeue marked it.
    #[inline(never)]
    fn dequeue_ok_to_drop<Q: CodelQueue>(
        &mut self,
        p: &CodelParams,
        q: &mut Q,
        now: SimTime,
        drops: &mut Vec<(Packet, DropReason)>,
        reason: DropReason,
        first: (Packet, SimTime),
    ) -> (Option<(Packet, SimTime)>, bool) {
        let mut item = Some(first);
        let mut marked = false;
        if self.dropping {
            while self.dropping && now >= self.drop_next {
                self.count = self.count.wrapping_add(1);
                if p.newton {
                    self.newton_step();
                }
                let (pkt, _) = item.as_mut().expect("the dropping loop holds a packet");
                if Self::mark(p, pkt) {
                    marked = true;
                    self.drop_next = self.control_law(self.drop_next, p);
                    break;
                }
                drops.push((*pkt, reason));
                item = q.pop();
                if self.ok_to_drop(p, item.as_ref(), q.backlog_bits(), now) {
                    self.drop_next = self.control_law(self.drop_next, p);
                } else {
                    self.dropping = false;
                }
            }
        } else {
            let (pkt, _) = item.as_mut().expect("a packet was taken");
            if Self::mark(p, pkt) {
                marked = true;
            } else {
                drops.push((*pkt, reason));
                item = q.pop();
                // For its effect on first_above_time and ldelay (the RFC's dodequeue).
                self.ok_to_drop(p, item.as_ref(), q.backlog_bits(), now);
            }
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            let since = now.as_ps() as i128 - self.drop_next.as_ps() as i128;
            if delta > 1 && since < 16 * p.interval.as_ps() as i128 {
                self.count = delta;
                if p.newton {
                    self.newton_step();
                }
            } else {
                self.count = 1;
                self.rec_inv_sqrt = (!0u32 >> REC_INV_SQRT_SHIFT) as u16;
            }
            self.lastcount = self.count;
            self.drop_next = self.control_law(now, p);
        }
        let Some((pkt, at)) = item else { return (None, marked) };
        (Some(self.ce_threshold_mark(p, pkt, at, &mut marked)), marked)
    }

    /// The packet to send, ECN-marked if its sojourn (`ldelay`) exceeds `ce_threshold`
    /// (Linux; `marked` is then set).
    #[inline(always)]
    pub(crate) fn ce_threshold_mark(&self, p: &CodelParams, mut pkt: Packet, at: SimTime, marked: &mut bool) -> (Packet, SimTime) {
        if let Some(ce) = p.ce_threshold {
            if self.ldelay > ce && pkt.has(FLAG_ECT) {
                pkt.flags |= FLAG_CE;
                *marked = true;
            }
        }
        (pkt, at)
    }
}

/// The packets of a single CoDel queue.
#[derive(Debug, Clone, Default)]
struct Fifo {
    queue: VecDeque<(SimTime, Packet)>,
    bits: u64,
}

impl CodelQueue for Fifo {
    #[inline]
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let (t, p) = self.queue.pop_front()?;
        self.bits -= p.bits as u64;
        Some((p, t))
    }
    #[inline]
    fn backlog_bits(&self) -> u64 {
        self.bits
    }
}

#[derive(Debug, Clone)]
pub struct Codel {
    limit: Limit,
    params: CodelParams,
    vars: CodelVars,
    q: Fifo,
    /// The last dequeue marked the packet it returned.
    marked: bool,
}

// Named like the enum variants they stand beside (`DropReason::Overflow`).
#[allow(non_upper_case_globals)]
impl DropReason {
    /// Dropped at dequeue by CoDel's control law.
    pub const Codel: DropReason = DropReason::named("codel");
}

impl QdiscPolicy for Codel {
    type Config = CodelConfig;
    const NAME: &'static str = "codel";
    const DESCRIPTION: &'static str =
        "CoDel (RFC 8289): drops or ECN-marks at dequeue once the sojourn time has stayed above target for an interval, at intervals shrinking as 1/sqrt(count)";
    const TITLE: &'static str = "CoDel";
    const DROP_REASONS: &'static [&'static str] = &["codel"];
    const SERIES: &'static [(&'static str, &'static str)] = &[("dropping", "bool"), ("drop_next", "s")];
    fn build(cfg: &CodelConfig, limit: Limit, _rate_bps: u64, _rng: Rng) -> Self {
        Codel::new(cfg, limit)
    }
    fn check(cfg: &CodelConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    fn limit(&self) -> Limit {
        self.limit
    }
}

impl Codel {
    pub fn new(cfg: &CodelConfig, limit: Limit) -> Self {
        Codel { limit, params: cfg.params(), vars: CodelVars::default(), q: Fifo::default(), marked: false }
    }

    /// Drops (or marks) in the current dropping cycle, and whether CoDel is dropping.
    pub fn count(&self) -> (u32, bool) {
        (self.vars.count, self.vars.dropping)
    }
}

impl Qdisc for Codel {
    fn enqueue(&mut self, now: SimTime, pkt: Packet, _conv: u32, _drops: &mut Vec<(Packet, DropReason)>) -> Verdict {
        if fits(self.limit, self.q.queue.len(), self.q.bits, pkt.bits) {
            self.q.bits += pkt.bits as u64;
            self.q.queue.push_back((now, pkt));
            Verdict::Queued
        } else {
            Verdict::Dropped(DropReason::Overflow)
        }
    }
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)> {
        self.marked = false;
        self.vars.dequeue(&self.params, &mut self.q, now, drops, DropReason::Codel, &mut self.marked)
    }
    fn dequeue_marked(&mut self) -> bool {
        self.marked
    }
    /// Enqueue then dequeue of the one packet: its sojourn is 0, below target, so
    /// `ok_to_drop` clears first_above_time and the dropping state ends; nothing is
    /// marked (0 exceeds no ce_threshold). A full buffer drops it and the dequeue finds
    /// the queue empty, which also ends the dropping state.
    #[inline]
    fn pass_idle(&mut self, _now: SimTime, bits: u32, _conv: impl FnOnce() -> u32) -> IdlePass {
        self.marked = false;
        self.vars.dropping = false;
        if !fits(self.limit, 0, 0, bits) {
            return IdlePass::Dropped(DropReason::Overflow);
        }
        self.vars.ldelay = SimDuration::ZERO;
        self.vars.first_above_time = None;
        IdlePass::Sent
    }
    /// Slot 0: 1 in the dropping state, else 0; slot 1: the time of the next drop in
    /// seconds while dropping, else 0.
    fn series_value(&self, slot: usize) -> f64 {
        match (slot, self.vars.dropping) {
            (0, d) => d as u8 as f64,
            (_, true) => self.vars.drop_next.as_secs_f64(),
            (_, false) => 0.0,
        }
    }
    fn len_pkts(&self) -> usize {
        self.q.queue.len()
    }
    fn len_bits(&self) -> u64 {
        self.q.bits
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.queue.iter().for_each(|(_, p)| f(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::test_util::pkt;

    const MS: u64 = 1_000_000_000;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn ps(x: u64) -> SimTime {
        SimTime(x)
    }

    /// Dequeues at `t` and returns (seq sent, seqs dropped).
    fn deq(q: &mut Codel, t: SimTime) -> (Option<u32>, Vec<u32>) {
        let mut d = Vec::new();
        let sent = q.dequeue(t, &mut d).map(|(p, _)| p.seq);
        assert!(d.iter().all(|(_, r)| *r == DropReason::Codel));
        (sent, d.iter().map(|(p, _)| p.seq).collect())
    }

    #[test]
    fn an_idle_pass_leaves_the_state_an_enqueue_and_dequeue_leave() {
        // In the dropping state with first_above_time set and a dequeue mark pending;
        // a buffer of 10 packets (the packet is sent) or of 0 (it is dropped).
        for (limit, want) in [(10, IdlePass::Sent), (0, IdlePass::Dropped(DropReason::Overflow))] {
            let cfg = CodelConfig { ecn: true, ce_threshold: Some(SimDuration::from_millis(1)), ..Default::default() };
            let mut q = Codel::new(&cfg, Limit::Packets(limit));
            q.vars = CodelVars {
                count: 3,
                lastcount: 2,
                dropping: true,
                first_above_time: Some(ms(50)),
                drop_next: ms(300),
                ldelay: SimDuration::from_millis(7),
                ..Default::default()
            };
            q.marked = true;
            let mut general = q.clone();
            let mut d = Vec::new();
            let mut p = pkt(0, 1, 1000);
            p.flags |= FLAG_ECT;
            let v = general.enqueue(ms(200), p, 0, &mut d);
            let sent = general.dequeue(ms(200), &mut d);
            assert!(d.is_empty() && !general.dequeue_marked());
            assert_eq!(q.pass_idle(ms(200), p.bits, || 0), want);
            assert_eq!((v == Verdict::Queued, sent.is_some()), (want == IdlePass::Sent, want == IdlePass::Sent));
            assert_eq!(format!("{q:?}"), format!("{general:?}"));
            assert!(!q.vars.dropping && q.vars.first_above_time.is_none() == (limit > 0));
        }
    }

    /// A CoDel queue holding 1000 packets of 1000 B, all enqueued at time 0, so the
    /// sojourn of whatever is dequeued at t is t, and the backlog stays far above the MTU.
    fn standing(cfg: CodelConfig) -> Codel {
        let mut q = Codel::new(&cfg, Limit::Packets(10_000));
        let mut d = Vec::new();
        for s in 0..1000 {
            assert_eq!(q.enqueue(SimTime::ZERO, pkt(0, s, 1000), 0, &mut d), Verdict::Queued);
        }
        q
    }

    #[test]
    fn first_drop_comes_an_interval_after_the_sojourn_went_above_target_then_at_interval_over_sqrt_count() {
        let mut q = standing(CodelConfig::default());
        // t = 4 ms: sojourn 4 ms < target 5 ms: sent, nothing armed.
        assert_eq!(deq(&mut q, ms(4)), (Some(0), vec![]));
        // t = 10 ms: sojourn 10 ms >= 5 ms: first_above_time = 10 + 100 = 110 ms.
        assert_eq!(deq(&mut q, ms(10)), (Some(1), vec![]));
        assert_eq!(q.vars.first_above_time, Some(ms(110)));
        // t = 109.999999 ms: not yet an interval above target.
        assert_eq!(deq(&mut q, ps(110 * MS - 1)), (Some(2), vec![]));
        // t = 110 ms: now >= first_above_time: packet 3 dropped, 4 sent; count = 1,
        // drop_next = 110 + 100/sqrt(1) = 210 ms.
        assert_eq!(deq(&mut q, ms(110)), (Some(4), vec![3]));
        assert_eq!(q.count(), (1, true));
        assert_eq!(q.vars.drop_next, ms(210));
        // Before drop_next nothing is dropped.
        assert_eq!(deq(&mut q, ps(210 * MS - 1)), (Some(5), vec![]));
        // t = 210 ms: count = 2, drop 6, send 7; drop_next = 210 + 100/sqrt(2)
        // = 210 + 70.710678118... ms = 280.710678119 ms (rounded to the picosecond).
        assert_eq!(deq(&mut q, ms(210)), (Some(7), vec![6]));
        assert_eq!(q.count(), (2, true));
        assert_eq!(q.vars.drop_next, ps(280_710_678_119));
        // Next: + 100/sqrt(3) = 57.735026919 ms -> 338.445705038 ms; then
        // + 100/sqrt(4) = 50 ms -> 388.445705038 ms.
        assert_eq!(deq(&mut q, ps(280_710_678_119)), (Some(9), vec![8]));
        assert_eq!(q.vars.drop_next, ps(338_445_705_038));
        assert_eq!(deq(&mut q, ps(338_445_705_038)), (Some(11), vec![10]));
        assert_eq!(q.vars.drop_next, ps(388_445_705_038));
        assert_eq!(q.count(), (4, true));
    }

    #[test]
    fn a_late_dequeue_drops_every_packet_whose_drop_time_has_passed() {
        let mut q = standing(CodelConfig::default());
        deq(&mut q, ms(10));
        assert_eq!(deq(&mut q, ms(110)), (Some(2), vec![1]));
        // At t = 400 ms the drop times 210, 280.71 and 338.45 ms have passed (the next,
        // 388.45 ms, too; then + 100/sqrt(5) = 44.72 ms -> 433.17 ms has not): four drops
        // in one dequeue (counts 2, 3, 4, 5), then the fifth packet is sent.
        assert_eq!(deq(&mut q, ms(400)), (Some(7), vec![3, 4, 5, 6]));
        assert_eq!(q.count(), (5, true));
        assert_eq!(q.vars.drop_next, ps(388_445_705_038 + 44_721_359_550));
    }

    #[test]
    fn the_dropping_state_ends_when_the_sojourn_falls_below_target_and_re_entry_resumes_the_count() {
        let mut q = Codel::new(&CodelConfig::default(), Limit::Packets(10_000));
        let mut d = Vec::new();
        // Ten packets queued at 0 and ten at 300 ms.
        for s in 0..10 {
            q.enqueue(SimTime::ZERO, pkt(0, s, 1000), 0, &mut d);
        }
        deq(&mut q, ms(10)); // first_above_time = 110 ms
        assert_eq!(deq(&mut q, ms(110)), (Some(2), vec![1])); // count 1, drop_next 210
        assert_eq!(deq(&mut q, ms(210)), (Some(4), vec![3])); // count 2, drop_next 280.71
        assert_eq!(deq(&mut q, ps(280_710_678_119)), (Some(6), vec![5])); // count 3
        assert_eq!(q.count(), (3, true));
        for s in 10..20 {
            q.enqueue(ms(300), pkt(0, s, 1000), 0, &mut d);
        }
        // Packets 7..9 (enqueued at 0) are still above target at 300 ms but before
        // drop_next (338.45 ms): sent.
        for s in 7..10 {
            assert_eq!(deq(&mut q, ms(300)), (Some(s), vec![]));
        }
        // t = 302 ms: packet 10 has waited 2 ms < 5 ms: leave the dropping state.
        assert_eq!(deq(&mut q, ms(302)), (Some(10), vec![]));
        assert_eq!(q.count(), (3, false));
        assert_eq!(q.vars.first_above_time, None);
        // t = 310 ms: sojourn 10 ms: first_above_time = 410 ms.
        assert_eq!(deq(&mut q, ms(310)), (Some(11), vec![]));
        // t = 410 ms: drop again. delta = count - lastcount = 3 - 1 = 2 > 1 and
        // now - drop_next = 410 - 338.45 = 71.55 ms < 16 intervals: count = 2 (not 1),
        // drop_next = 410 + 100/sqrt(2) = 480.710678119 ms.
        assert_eq!(deq(&mut q, ms(410)), (Some(13), vec![12]));
        assert_eq!(q.count(), (2, true));
        assert_eq!(q.vars.lastcount, 2);
        assert_eq!(q.vars.drop_next, ps(480_710_678_119));
    }

    #[test]
    fn re_entry_long_after_the_last_drop_restarts_the_count_at_one() {
        let mut q = standing(CodelConfig::default());
        deq(&mut q, ms(10));
        deq(&mut q, ms(110)); // count 1
        deq(&mut q, ms(210)); // count 2
        deq(&mut q, ps(280_710_678_119)); // count 3, drop_next 338.45 ms
        q.vars.dropping = false;
        q.vars.first_above_time = Some(ms(2000));
        // now - drop_next = 2000 - 338.45 ms > 16 x 100 ms: count = 1, drop_next = now + 100 ms.
        let (_, dropped) = deq(&mut q, ms(2000));
        assert_eq!(dropped.len(), 1);
        assert_eq!(q.count(), (1, true));
        assert_eq!(q.vars.drop_next, ms(2100));
    }

    #[test]
    fn no_drop_while_at_most_one_mtu_is_queued() {
        let mut q = Codel::new(&CodelConfig::default(), Limit::Packets(100));
        let mut d = Vec::new();
        // Two 1000 B packets: after taking the first out, 1000 B <= 1514 B remain.
        q.enqueue(SimTime::ZERO, pkt(0, 0, 1000), 0, &mut d);
        q.enqueue(SimTime::ZERO, pkt(0, 1, 1000), 0, &mut d);
        assert_eq!(deq(&mut q, ms(500)), (Some(0), vec![]));
        assert_eq!(q.vars.first_above_time, None);
        assert_eq!(deq(&mut q, ms(900)), (Some(1), vec![]));
        assert_eq!(deq(&mut q, ms(900)), (None, vec![]));
    }

    #[test]
    fn ecn_capable_packets_are_marked_and_sent_instead_of_dropped() {
        let mut q = Codel::new(&CodelConfig { ecn: true, ..Default::default() }, Limit::Packets(10_000));
        let mut d = Vec::new();
        for s in 0..100 {
            let mut p = pkt(0, s, 1000);
            p.flags |= FLAG_ECT;
            q.enqueue(SimTime::ZERO, p, 0, &mut d);
        }
        let mut take = |t| {
            let r = q.dequeue(t, &mut d).map(|(p, _)| (p.seq, p.has(FLAG_CE)));
            (r, q.dequeue_marked())
        };
        assert_eq!(take(ms(10)), (Some((0, false)), false));
        // t = 110 ms: packet 1 would be dropped: marked and sent instead; count 1.
        assert_eq!(take(ms(110)), (Some((1, true)), true));
        assert_eq!(take(ms(150)), (Some((2, false)), false));
        // t = 210 ms (drop_next): marked, count 2, drop_next = 280.71 ms.
        assert_eq!(take(ms(210)), (Some((3, true)), true));
        assert!(d.is_empty(), "nothing dropped");
        assert_eq!(q.count(), (2, true));
        assert_eq!(q.vars.drop_next, ps(280_710_678_119));
    }

    #[test]
    fn newton_square_root_follows_linux_s_fixed_point() {
        let cfg = CodelConfig { sqrt: CodelSqrt::Newton, ..Default::default() };
        let mut q = standing(cfg);
        deq(&mut q, ms(10));
        deq(&mut q, ms(110));
        // count 1: rec_inv_sqrt = 0xffff, control law 100 ms x 0xffff0000 / 2^32
        // = 100 ms x (1 - 2^-16) = 99.998474121 ms (to the picosecond, rounded down).
        assert_eq!(q.vars.drop_next, ps(110 * MS + 99_998_474_121));
        let t = q.vars.drop_next;
        deq(&mut q, t);
        // count 2: one Newton step from x = 1 - 2^-16 gives x (3 - 2 x^2) / 2 ~ 0.5
        // (Linux's coarse first step, not 1/sqrt(2)): the next drop comes about 50 ms on.
        let step = (q.vars.drop_next - t).as_secs_f64();
        assert!((step - 0.05).abs() < 0.0001, "{step}");
    }

    #[test]
    fn a_full_buffer_drops_the_arrival_and_checks_name_the_field() {
        let mut q = Codel::new(&CodelConfig::default(), Limit::Packets(1));
        let mut d = Vec::new();
        assert_eq!(q.enqueue(SimTime::ZERO, pkt(0, 0, 1000), 0, &mut d), Verdict::Queued);
        assert_eq!(q.enqueue(SimTime::ZERO, pkt(0, 1, 1000), 0, &mut d), Verdict::Dropped(DropReason::Overflow));
        let bad = CodelConfig { target: SimDuration::from_millis(200), ..Default::default() };
        assert_eq!(bad.check().unwrap_err().0, "target");
        let bad = CodelConfig { interval: SimDuration::ZERO, ..Default::default() };
        assert_eq!(bad.check().unwrap_err().0, "interval");
    }
}
