//! PIE, Proportional Integral controller Enhanced: R. Pan, P. Natarajan, F. Baker and
//! G. White, RFC 8033 (2017), sections 4 and 5, with the queue delay measured from
//! per-packet timestamps (Linux's `net/sched/sch_pie.c` default, also ns-3's).
//!
//! Every `tupdate` (section 4.2) the drop probability p moves by
//!
//! ```text
//!     d = alpha (qdelay - target) + beta (qdelay - qdelay_old)          (seconds, Hz)
//!     d <- d / 2048, / 512, / 128, / 32, / 8, / 2 for p below 1e-6, 1e-5, 1e-4, 1e-3,
//!          1e-2, 0.1 (the auto-tuning of section 5.2; Linux's shifts give the same table)
//!     d <- 0.02 if p >= 0.1 and d > 0.02                (section 5.5, `cap_drop_adjustment`)
//!     p <- p + d;  p <- 0.98 p if qdelay = qdelay_old = 0;  p bounded to [0, 1]
//!     burst_allowance <- max_burst if p = 0 and qdelay, qdelay_old < target / 2   (4.4)
//!     burst_allowance <- max(0, burst_allowance - tupdate);  qdelay_old <- qdelay
//! ```
//!
//! qdelay is the sojourn of the last packet dequeued, or 0 if that dequeue emptied the
//! queue (Linux's and ns-3's timestamp mode). On arrival (section 4.1, 5.1, 5.4):
//!
//! ```text
//!     buffer full                                   -> drop (DropReason::Overflow)
//!     burst_allowance > 0                           -> enqueue
//!     qdelay_old < target / 2 and p < 0.2           -> enqueue
//!     backlog <= 2 mean_pkt_size                    -> enqueue
//!     derandomisation (section 5.4, `derandomize`): accu_prob += p (reset when p = 0);
//!         accu_prob < 0.85 -> enqueue;  accu_prob >= 8.5 -> drop
//!     u < p (u uniform in [0, 1) from the discipline's own stream) -> drop, else enqueue
//!     a drop of an ECN-capable packet with p <= mark_ecnth and `ecn` on is a mark
//! ```
//!
//! Each drop resets accu_prob (Linux; ns-3 too), overflow drops included.
//!
//! The update without events: Linux and ns-3 run it from a timer. Here the updates due
//! at k x tupdate (k = 1, 2, ...) up to now are performed at the next enqueue or dequeue,
//! before that packet is handled (`catch_up`). An update reads qdelay (set only by a
//! dequeue), p, qdelay_old and the burst allowance (set only by updates) and parameters;
//! none of these changes between two packet events, so the updates performed late read
//! exactly what they would have read on time, and nothing a packet event reads is written
//! by an update between events other than by the updates caught up first. The result is
//! the same as with a timer (a timer tick at the same instant as a packet event counts as
//! before it); the test `lazy_updates_equal_updates_on_every_tick` checks it. When an update
//! leaves (p, qdelay_old, burst allowance) unchanged, every later one until the next packet
//! event does too (same inputs), so the remaining ones are skipped in O(1): a long idle
//! period costs the few updates p needs to decay to 0.
//!
//! Choices where the RFC leaves them open, and differences from Linux and ns-3:
//! - p is an f64 in [0, 1] (the RFC's pseudocode, ns-3); Linux keeps a u64 fraction with
//!   the same table, decays with 1 - 1/64 rather than 0.98, and adds 2% when qdelay exceeds
//!   250 ms (not in the RFC, not here).
//! - The early-exit test uses qdelay_old (RFC, ns-3); Linux uses the current qdelay.
//! - `mean_pkt_size` defaults to 1514 B (Linux tests backlog < 2 x its 1514 B MTU; ns-3
//!   compares 2 packets in packet mode, 2 x 1000 B in byte mode).
//! - Derandomisation is on by default (Linux has it always); ns-3's `UseDerandomization`
//!   defaults to false: set `derandomize = false` to match.
//! - The burst allowance follows section 4.4 (ns-3 follows it too, with an extra burst
//!   state; Linux counts down the time between dequeues instead of tupdate).
//! - The first update is at tupdate (Linux: 500 ms after setup; ns-3: at 0).
//! - The departure-rate estimator (section 4.3, Linux's `dq_rate_estimator`) and byte
//!   mode are not implemented.
//! - The buffer limit is the link's `buffer` (Linux's default limit is 1000 packets,
//!   ns-3's `MaxSize` 25 packets).

use super::{fits, DropReason, IdlePass, Qdisc, QdiscPolicy, Verdict};
use crate::base::rng::Rng;
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::{serde_units, Limit};
use crate::packet::{Packet, FLAG_CE, FLAG_ECT};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// PIE parameters (`qdisc = { kind = "pie", target = "15ms" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PieConfig {
    /// Target queue delay (QDELAY_REF). Default 15 ms (RFC 8033 section 5.1, Linux, ns-3).
    #[serde(with = "serde_units::time")]
    pub target: SimDuration,
    /// Period of the probability update (T_UPDATE). Default 15 ms (RFC 8033 section 5.1,
    /// Linux, ns-3's `Tupdate`).
    #[serde(with = "serde_units::time")]
    pub tupdate: SimDuration,
    /// Weight of the delay error, Hz. Default 0.125 (RFC 8033 section 5.1; Linux's 2/16; ns-3 `A`).
    pub alpha: f64,
    /// Weight of the delay trend, Hz. Default 1.25 (RFC 8033 section 5.1; Linux's 20/16; ns-3 `B`).
    pub beta: f64,
    /// Burst allowance (MAX_BURST). Default 150 ms (RFC 8033 section 5.1, Linux, ns-3).
    #[serde(with = "serde_units::time")]
    pub max_burst: SimDuration,
    /// Mark ECN-capable packets instead of dropping while p <= mark_ecnth. Default false (Linux, ns-3).
    pub ecn: bool,
    /// Highest p at which ECN-capable packets are marked. Default 0.1 (RFC 8033 section 5.1, Linux, ns-3).
    pub mark_ecnth: f64,
    /// Derandomised drops (RFC 8033 section 5.4). Default true (Linux); ns-3's default is false.
    pub derandomize: bool,
    /// Steps of p above 10% capped at 2% (RFC 8033 section 5.5). Default true (Linux, ns-3).
    pub cap_drop_adjustment: bool,
    /// No early drop while at most twice this is queued. Default 1514 B (Linux's MTU).
    #[serde(with = "serde_units::bytes")]
    pub mean_pkt_size: u32,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: SimDuration::from_millis(15),
            tupdate: SimDuration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimDuration::from_millis(150),
            ecn: false,
            mark_ecnth: 0.1,
            derandomize: true,
            cap_drop_adjustment: true,
            mean_pkt_size: 1514,
        }
    }
}

impl PieConfig {
    /// Checks the parameters; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.target == SimDuration::ZERO {
            return Err(("target", "0s is no target delay; give a positive time, e.g. \"15ms\"".into()));
        }
        if self.tupdate < SimDuration::from_micros(1) {
            return Err((
                "tupdate",
                format!("{} is too short an update period; give at least 1us, e.g. \"15ms\"", self.tupdate),
            ));
        }
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err((name, format!("{v} is not a weight; give a number >= 0, e.g. 0.125 (alpha) or 1.25 (beta)")));
            }
        }
        if !(0.0..=1.0).contains(&self.mark_ecnth) {
            return Err(("mark_ecnth", format!("{} is not a probability; give a number in [0, 1], e.g. 0.1", self.mark_ecnth)));
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct Pie {
    cfg: PieConfig,
    limit: Limit,
    queue: VecDeque<(SimTime, Packet)>,
    bits: u64,
    /// Drop probability.
    prob: f64,
    /// Sojourn of the last packet dequeued (0 if it left the queue empty).
    qdelay: SimDuration,
    /// qdelay at the last update.
    qdelay_old: SimDuration,
    burst_allowance: SimDuration,
    /// Accumulated probability (derandomisation).
    accu_prob: f64,
    /// When the next update is due.
    next_update: SimTime,
    rng: Rng,
}

// Named like the enum variants they stand beside (`DropReason::Overflow`).
#[allow(non_upper_case_globals)]
impl DropReason {
    /// PIE's random early drop.
    pub const Pie: DropReason = DropReason::named("pie");
}

impl QdiscPolicy for Pie {
    type Config = PieConfig;
    const NAME: &'static str = "pie";
    const DESCRIPTION: &'static str =
        "PIE (RFC 8033): random early drop or ECN mark with a probability a PI controller updates every tupdate from the queue delay";
    const TITLE: &'static str = "PIE";
    const DROP_REASONS: &'static [&'static str] = &["pie"];
    const SERIES: &'static [(&'static str, &'static str)] = &[("drop_prob", "p"), ("qdelay", "s")];
    fn build(cfg: &PieConfig, limit: Limit, _rate_bps: u64, rng: Rng) -> Self {
        Pie::new(cfg.clone(), limit, rng)
    }
    fn check(cfg: &PieConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    fn limit(&self) -> Limit {
        self.limit
    }
}

impl Pie {
    pub fn new(cfg: PieConfig, limit: Limit, rng: Rng) -> Self {
        Pie {
            limit,
            queue: VecDeque::new(),
            bits: 0,
            prob: 0.0,
            qdelay: SimDuration::ZERO,
            qdelay_old: SimDuration::ZERO,
            burst_allowance: cfg.max_burst,
            accu_prob: 0.0,
            next_update: SimTime::ZERO + cfg.tupdate,
            cfg,
            rng,
        }
    }

    /// The drop probability.
    pub fn prob(&self) -> f64 {
        self.prob
    }

    /// One update of the probability and the burst allowance (RFC 8033 sections 4.2,
    /// 4.4, 5.2, 5.5).
    fn update(&mut self) {
        let c = &self.cfg;
        let (cur, old, target) = (self.qdelay.as_secs_f64(), self.qdelay_old.as_secs_f64(), c.target.as_secs_f64());
        let mut d = c.alpha * (cur - target) + c.beta * (cur - old);
        let p = self.prob;
        d /= if p < 1e-6 {
            2048.0
        } else if p < 1e-5 {
            512.0
        } else if p < 1e-4 {
            128.0
        } else if p < 1e-3 {
            32.0
        } else if p < 1e-2 {
            8.0
        } else if p < 0.1 {
            2.0
        } else {
            1.0
        };
        if c.cap_drop_adjustment && p >= 0.1 && d > 0.02 {
            d = 0.02;
        }
        let mut p = p + d;
        if self.qdelay == SimDuration::ZERO && self.qdelay_old == SimDuration::ZERO {
            p *= 0.98;
        }
        self.prob = p.clamp(0.0, 1.0);
        let half = SimDuration::from_ps(c.target.as_ps() / 2);
        if self.prob == 0.0 && self.qdelay < half && self.qdelay_old < half {
            self.burst_allowance = c.max_burst;
        }
        self.burst_allowance = SimDuration::from_ps(self.burst_allowance.as_ps().saturating_sub(c.tupdate.as_ps()));
        self.qdelay_old = self.qdelay;
    }

    /// Performs the updates due at or before `now` (see the module header).
    #[inline(always)]
    fn catch_up(&mut self, now: SimTime) {
        if self.next_update <= now {
            self.run_updates(now);
        }
    }

    /// `catch_up`'s updates (at most one per `tupdate`, so out of line: the per-packet
    /// steps stay small).
    #[inline(never)]
    fn run_updates(&mut self, now: SimTime) {
        while self.next_update <= now {
            let before = (self.prob, self.qdelay_old, self.burst_allowance);
            self.update();
            self.next_update += self.cfg.tupdate;
            if (self.prob, self.qdelay_old, self.burst_allowance) == before && self.next_update <= now {
                // A fixed point: the updates left before `now` change nothing.
                let t = self.cfg.tupdate.as_ps();
                let skip = (now - self.next_update).as_ps() / t + 1;
                self.next_update += SimDuration::from_ps(skip * t);
            }
        }
    }

    /// RFC 8033's drop_early for an arrival of `bits`.
    fn drop_early(&mut self) -> bool {
        let c = &self.cfg;
        if self.burst_allowance > SimDuration::ZERO {
            return false;
        }
        if self.qdelay_old.as_ps() < c.target.as_ps() / 2 && self.prob < 0.2 {
            return false;
        }
        if self.bits <= 2 * 8 * c.mean_pkt_size as u64 {
            return false;
        }
        if c.derandomize {
            if self.prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        self.rng.next_f64() < self.prob
    }

    fn accept(&mut self, now: SimTime, pkt: Packet) {
        self.bits += pkt.bits as u64;
        self.queue.push_back((now, pkt));
    }
}

impl Qdisc for Pie {
    fn enqueue(&mut self, now: SimTime, mut pkt: Packet, _conv: u32, _drops: &mut Vec<(Packet, DropReason)>) -> Verdict {
        self.catch_up(now);
        if !fits(self.limit, self.queue.len(), self.bits, pkt.bits) {
            self.accu_prob = 0.0;
            return Verdict::Dropped(DropReason::Overflow);
        }
        if self.drop_early() {
            if self.cfg.ecn && self.prob <= self.cfg.mark_ecnth && pkt.has(FLAG_ECT) {
                pkt.flags |= FLAG_CE;
                self.accept(now, pkt);
                return Verdict::Marked;
            }
            self.accu_prob = 0.0;
            return Verdict::Dropped(DropReason::Pie);
        }
        self.accept(now, pkt);
        Verdict::Queued
    }

    /// Enqueue then dequeue of the one packet: `drop_early` keeps it (the backlog, 0, is
    /// not above 2 mean_pkt_size) and touches no state; the dequeue leaves the queue
    /// empty, so qdelay = 0. A full buffer drops it (resetting the accumulated
    /// probability) and the dequeue finds nothing.
    #[inline(always)]
    fn pass_idle(&mut self, now: SimTime, bits: u32, _conv: impl FnOnce() -> u32) -> IdlePass {
        self.catch_up(now);
        if !fits(self.limit, 0, 0, bits) {
            self.accu_prob = 0.0;
            return IdlePass::Dropped(DropReason::Overflow);
        }
        self.qdelay = SimDuration::ZERO;
        IdlePass::Sent
    }

    fn dequeue(&mut self, now: SimTime, _drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)> {
        self.catch_up(now);
        let (t, p) = self.queue.pop_front()?;
        self.bits -= p.bits as u64;
        self.qdelay = if self.queue.is_empty() { SimDuration::ZERO } else { now - t };
        Some((p, t))
    }
    /// Slot 0: the drop probability; slot 1: qdelay (the sojourn of the last packet
    /// dequeued, 0 if it left the queue empty) in seconds.
    fn series_value(&self, slot: usize) -> f64 {
        match slot {
            0 => self.prob,
            _ => self.qdelay.as_secs_f64(),
        }
    }
    fn len_pkts(&self) -> usize {
        self.queue.len()
    }
    fn len_bits(&self) -> u64 {
        self.bits
    }
    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.queue.iter().for_each(|(_, p)| f(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::test_util::pkt;

    fn pie(cfg: PieConfig) -> Pie {
        Pie::new(cfg, Limit::Packets(10_000), Rng::new(1, 1))
    }

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    #[test]
    fn an_idle_pass_leaves_the_state_an_enqueue_and_dequeue_leave() {
        // A probability raised by 100 ms of a standing queue, then the queue drained at
        // 100 ms; the packet arrives at 140 ms (two updates due). A buffer of 10 packets
        // (sent) or of 0 (dropped, the accumulated probability reset).
        for (limit, want) in [(10, IdlePass::Sent), (0, IdlePass::Dropped(DropReason::Overflow))] {
            let mut q = Pie::new(PieConfig::default(), Limit::Packets(10_000), Rng::new(1, 1));
            let mut d = Vec::new();
            for s in 0..10 {
                q.enqueue(SimTime::ZERO, pkt(0, s, 1000), 0, &mut d);
            }
            for t in [10, 20, 40, 60, 80, 100, 100, 100, 100, 100] {
                q.dequeue(ms(t), &mut d);
            }
            assert!(q.prob() > 0.0 && q.queue.is_empty());
            q.limit = Limit::Packets(limit);
            q.accu_prob = 0.5;
            let mut general = q.clone();
            let v = general.enqueue(ms(140), pkt(0, 10, 1000), 0, &mut d);
            let sent = general.dequeue(ms(140), &mut d);
            assert!(d.is_empty());
            assert_eq!(q.pass_idle(ms(140), 8000, || 0), want);
            assert_eq!((v == Verdict::Queued, sent.is_some()), (want == IdlePass::Sent, want == IdlePass::Sent));
            assert_eq!(format!("{q:?}"), format!("{general:?}"));
            assert_eq!(q.next_update, ms(150), "the updates due at 105, 120 and 135 ms are done");
        }
    }

    #[test]
    fn one_update_from_a_measured_delay_scales_a_small_probability_by_2048() {
        let mut q = pie(PieConfig::default());
        let mut d = Vec::new();
        for s in 0..10 {
            q.enqueue(SimTime::ZERO, pkt(0, s, 1000), 0, &mut d);
        }
        // Dequeue at 10 ms: qdelay = 10 ms (packets remain).
        q.dequeue(ms(10), &mut d);
        assert_eq!(q.prob(), 0.0, "no update before 15 ms");
        // The event at 16 ms performs the update due at 15 ms:
        // d = 0.125 (0.010 - 0.015) + 1.25 (0.010 - 0) = -0.000625 + 0.0125 = 0.011875;
        // p = 0 < 1e-6: d / 2048 = 5.798339843750e-6.
        q.dequeue(ms(16), &mut d);
        assert!(close(q.prob(), 0.011875 / 2048.0), "{}", q.prob());
        assert_eq!(q.qdelay_old, SimDuration::from_millis(10));
        // p != 0: the burst allowance is not restored; 150 - 15 = 135 ms left.
        assert_eq!(q.burst_allowance, SimDuration::from_millis(135));
    }

    #[test]
    fn the_update_scales_by_the_range_of_p_and_caps_steps_above_ten_percent() {
        let mut q = pie(PieConfig::default());
        // p = 0.05 (in [0.01, 0.1): halved), qdelay 25 ms, qdelay_old 20 ms:
        // d = 0.125 x 0.010 + 1.25 x 0.005 = 0.00125 + 0.00625 = 0.0075; / 2 = 0.00375.
        q.prob = 0.05;
        q.qdelay = SimDuration::from_millis(25);
        q.qdelay_old = SimDuration::from_millis(20);
        q.update();
        assert!(close(q.prob(), 0.05375), "{}", q.prob());
        // p = 0.005 (in [0.001, 0.01): / 8), same delays (qdelay_old is now 25 ms, reset):
        // d = 0.0075 / 8 = 0.0009375.
        q.prob = 0.005;
        q.qdelay_old = SimDuration::from_millis(20);
        q.update();
        assert!(close(q.prob(), 0.0059375), "{}", q.prob());
        // p = 0.2, qdelay 100 ms, qdelay_old 15 ms: d = 0.125 x 0.085 + 1.25 x 0.085
        // = 0.116875 > 0.02 with p >= 0.1: capped, p = 0.22.
        q.prob = 0.2;
        q.qdelay = SimDuration::from_millis(100);
        q.qdelay_old = SimDuration::from_millis(15);
        q.update();
        assert!(close(q.prob(), 0.22), "{}", q.prob());
        // Queue empty twice running: d = 0.125 x (0 - 0.015) = -0.001875 (p >= 0.1:
        // unscaled), then x 0.98: (0.22 - 0.001875) x 0.98 = 0.2137625.
        q.qdelay = SimDuration::ZERO;
        q.qdelay_old = SimDuration::ZERO;
        q.update();
        assert!(close(q.prob(), 0.2137625), "{}", q.prob());
    }

    /// A PIE with 200 packets queued at 0 and one dequeued at 100 ms (qdelay 100 ms).
    fn congested(cfg: PieConfig) -> Pie {
        let mut q = Pie::new(cfg, Limit::Packets(10_000), Rng::new(5, 5));
        let mut d = Vec::new();
        for s in 0..200 {
            q.enqueue(SimTime::ZERO, pkt(0, s, 1000), 0, &mut d);
        }
        q.dequeue(ms(100), &mut d);
        q
    }

    #[test]
    fn the_burst_allowance_holds_off_drops_until_it_is_used_up() {
        let mut q = congested(PieConfig { derandomize: false, ..Default::default() });
        let mut d = Vec::new();
        // The updates at 15 .. 90 ms see an empty history (p = 0, both delays 0): each
        // restores the allowance to 150 ms and takes 15 ms off: 135 ms. From the update at
        // 105 ms on (qdelay 100 ms) p > 0, so it only falls: after the 8 updates at
        // 105 .. 210 ms, 135 - 8 x 15 = 15 ms remain, and no arrival is dropped.
        for t in [140, 170, 200, 220] {
            for k in 0..100 {
                let v = q.enqueue(ms(t), pkt(1, k, 1000), 0, &mut d);
                assert_eq!(v, Verdict::Queued, "t = {t} ms: no early drop while burst allowance remains");
            }
        }
        assert_eq!(q.burst_allowance, SimDuration::from_millis(15));
        assert!(q.prob() > 0.0);
        // The update at 225 ms uses it up; from then on arrivals are dropped with p.
        q.catch_up(ms(225));
        assert_eq!(q.burst_allowance, SimDuration::ZERO);
        let p = q.prob();
        let n = 20_000;
        let mut drops = 0;
        for k in 0..n {
            if let Verdict::Dropped(DropReason::Pie) = q.enqueue(ms(225), pkt(1, k, 1000), 0, &mut d) {
                drops += 1;
            } else {
                q.queue.pop_back();
                q.bits -= 8000;
            }
        }
        let rate = drops as f64 / n as f64;
        // Binomial: sd = sqrt(p (1 - p) / n); allow 5 sd.
        let sd = (p * (1.0 - p) / n as f64).sqrt();
        assert!((rate - p).abs() < 5.0 * sd, "{rate} vs p = {p}");
    }

    #[test]
    fn ecn_capable_packets_are_marked_while_p_is_at_most_mark_ecnth() {
        let mut q = congested(PieConfig { ecn: true, derandomize: false, max_burst: SimDuration::ZERO, ..Default::default() });
        let mut d = Vec::new();
        q.catch_up(ms(150));
        assert!(q.prob() > 0.0 && q.prob() <= 0.1, "{}", q.prob());
        q.prob = 0.05;
        let (mut marked, mut dropped) = (0, 0);
        for k in 0..2000 {
            let mut p = pkt(1, k, 1000);
            p.flags |= FLAG_ECT;
            match q.enqueue(ms(150), p, 0, &mut d) {
                Verdict::Marked => marked += 1,
                Verdict::Dropped(_) => dropped += 1,
                Verdict::Queued => {}
            }
        }
        assert!(marked > 0 && dropped == 0, "{marked} {dropped}");
        // Above mark_ecnth ECT packets are dropped.
        q.prob = 0.5;
        let mut ect = pkt(1, 0, 1000);
        ect.flags |= FLAG_ECT;
        let v: Vec<Verdict> = (0..50).map(|_| q.enqueue(ms(150), ect, 0, &mut d)).collect();
        assert!(v.contains(&Verdict::Dropped(DropReason::Pie)) && !v.contains(&Verdict::Marked));
    }

    #[test]
    fn derandomisation_drops_once_the_accumulated_probability_reaches_8_5() {
        // With p = 0.5 fixed, accu_prob reaches 8.5 after at most 17 arrivals without a
        // random drop (17 x 0.5 = 8.5), so no gap between drops exceeds 17 arrivals; and
        // under 0.85 (the first arrival after a drop, accu 0.5) nothing is dropped, so no
        // two drops are adjacent.
        let mut q = congested(PieConfig { max_burst: SimDuration::ZERO, tupdate: SimDuration::from_secs(1000), ..Default::default() });
        let mut d = Vec::new();
        q.prob = 0.5;
        q.qdelay_old = SimDuration::from_millis(100);
        let mut gap = 0;
        let mut gaps = Vec::new();
        for k in 0..5000 {
            match q.enqueue(ms(150), pkt(1, k, 1000), 0, &mut d) {
                Verdict::Dropped(_) => {
                    gaps.push(gap);
                    gap = 0;
                }
                _ => {
                    gap += 1;
                    q.queue.pop_back();
                    q.bits -= 8000;
                }
            }
        }
        assert!(gaps.len() > 100);
        assert!(gaps[1..].iter().all(|&g| (1..=16).contains(&g)), "{gaps:?}");
    }

    #[test]
    fn lazy_updates_equal_updates_on_every_tick() {
        // The same arrivals and departures into two PIEs with the same stream; the second
        // is also caught up at every tick (k x 15 ms), as a timer would. Every verdict,
        // departure and probability agrees, including across idle periods where the lazy
        // one skips the updates that change nothing.
        let cfg = PieConfig { max_burst: SimDuration::from_millis(30), ..Default::default() };
        let mut lazy = Pie::new(cfg.clone(), Limit::Packets(300), Rng::new(9, 9));
        let mut timed = Pie::new(cfg, Limit::Packets(300), Rng::new(9, 9));
        let (mut d1, mut d2) = (Vec::new(), Vec::new());
        let tick = 15_000_000_000u64;
        let mut last_tick = 0;
        let mut t = 0u64;
        let mut step = 0u64;
        let (mut early, mut p_max, mut p_after_idle) = (0, 0.0f64, None);
        // Bursts of 12 arrivals every 9.6 ms against one departure per 1.2 ms for 3 s;
        // no arrivals from 3 s, and once the queue has drained nothing until 8 s; then
        // again: the queue builds, p rises, the queue drains, p decays.
        while t < 10_000_000_000_000 {
            let quiet = (3_000_000_000_000..8_000_000_000_000).contains(&t);
            if quiet && lazy.len_pkts() == 0 {
                // The queue has drained: nothing happens until 8 s.
                t = 8_000_000_000_000;
                lazy.catch_up(SimTime(t));
                p_after_idle = Some(lazy.prob());
            }
            while last_tick + tick <= t {
                last_tick += tick;
                timed.catch_up(SimTime(last_tick));
            }
            let now = SimTime(t);
            if !quiet && step % 8 == 0 {
                for k in 0..12 {
                    let p = pkt(0, (step * 12 + k) as u32, 1000);
                    let v = lazy.enqueue(now, p, 0, &mut d1);
                    assert_eq!(v, timed.enqueue(now, p, 0, &mut d2));
                    early += (v == Verdict::Dropped(DropReason::Pie)) as u32;
                }
            }
            let a = lazy.dequeue(now, &mut d1).map(|(p, _)| p.seq);
            let b = timed.dequeue(now, &mut d2).map(|(p, _)| p.seq);
            assert_eq!(a, b);
            assert_eq!(lazy.prob().to_bits(), timed.prob().to_bits(), "t = {t}");
            p_max = p_max.max(lazy.prob());
            assert_eq!((lazy.burst_allowance, lazy.qdelay_old), (timed.burst_allowance, timed.qdelay_old));
            step += 1;
            t += 1_200_000_000;
        }
        // The trace exercised the controller: early drops, p well up, and back to 0 after
        // the idle period.
        assert!(early > 100 && p_max > 0.05, "{early} early drops, p up to {p_max}");
        assert_eq!(p_after_idle, Some(0.0));
    }

    #[test]
    fn checks_name_the_bad_field() {
        assert_eq!(PieConfig { alpha: -1.0, ..Default::default() }.check().unwrap_err().0, "alpha");
        assert_eq!(PieConfig { mark_ecnth: 2.0, ..Default::default() }.check().unwrap_err().0, "mark_ecnth");
        assert_eq!(PieConfig { tupdate: SimDuration::ZERO, ..Default::default() }.check().unwrap_err().0, "tupdate");
        let mut q = Pie::new(PieConfig::default(), Limit::Packets(1), Rng::new(1, 1));
        let mut d = Vec::new();
        q.enqueue(SimTime::ZERO, pkt(0, 0, 1000), 0, &mut d);
        assert_eq!(q.enqueue(SimTime::ZERO, pkt(0, 1, 1000), 0, &mut d), Verdict::Dropped(DropReason::Overflow));
    }
}
