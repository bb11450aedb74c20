//! Random Early Detection: S. Floyd and V. Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), 1993 (FJ93 below), with ECN marking
//! (RFC 3168 section 7) and the "gentle" variant (Floyd, 2000).
//!
//! For each arriving packet (FJ93 Figure 2):
//!
//! ```text
//!     avg <- (1 - w_q) avg + w_q q               if the queue is not empty
//!     avg <- (1 - w_q)^m avg,  m = idle / s      if it is empty (idle since q_time)
//!     min_th <= avg < max_th:  count += 1
//!                              p_b = max_p (avg - min_th) / (max_th - min_th)
//!                              [byte mode: p_b = p_b * size / max_packet_size]
//!                              p_a = p_b / (1 - count p_b)
//!                              with probability p_a: mark or drop, count = 0
//!     avg >= max_th:           drop (gentle: p_b = max_p + (1 - max_p)(avg - max_th)/max_th
//!                              up to 2 max_th, treated as above; beyond, drop)
//!     avg < min_th:            count = -1
//! ```
//!
//! `q` is the instantaneous queue in packets (packet mode) or bytes (byte mode), not
//! counting the packet in transmission (as `net/channel.rs`'s buffer). `s` is the transmission
//! time of a packet of `mean_packet_size` at the line rate (ns-2's `ptc`).
//!
//! ECN: with `ecn` on, an ECN-capable packet (`FLAG_ECT`) that would be dropped early
//! is marked (`FLAG_CE`) and queued instead; above max_th (forced drops, gentle region
//! included) it is dropped unless `ecn_above_max_th` is on. A packet that does not fit
//! the hard buffer limit is always dropped (`DropReason::Overflow`), as is a non-ECT one.
//!
//! Step marking (DCTCP: Alizadeh et al., SIGCOMM 2010, section 3.1; RFC 8257 section
//! 3.1): min_th = max_th = K and w_q = 1, with `ecn` and `ecn_above_max_th`, as ns-3's
//! DCTCP examples configure its RedQueueDisc (QW = 1, UseEcn, UseHardDrop = false).
//! Equal thresholds leave no probabilistic region: every arrival that finds K or more
//! packets queued is in the forced region, where an ECT packet is marked and queued (ns-3
//! `RedQueueDisc::DoEnqueue`: a forced drop becomes a mark unless UseHardDrop) and a
//! non-ECT one dropped (`red_forced`); below K everything is queued. With `gentle` the
//! region from K to 2K is probabilistic as usual.
//!
//! Defaults are FJ93's simulation values: w_q = 0.002, max_p = 1/50, min_th = 5 and
//! max_th = 15 packets; gentle off; mean packet size 500 B for the idle correction
//! (ns-2's default).
//!
//! Deviations: `count` is kept as in FJ93's Figure 2 (not ns-2's "wait" option); the
//! uniform draw compares `u < p_a` with u in [0, 1) from the channel's own RNG stream.

use super::{fits, Ahead, DropReason, IdlePass, Qdisc, QdiscPolicy, Verdict};
use crate::packet::{Packet, FLAG_CE, FLAG_ECT};
use crate::base::rng::Rng;
use crate::base::time::{tx_time, SimTime};
use crate::base::units::{serde_units, Limit};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// RED parameters. Thresholds are in packets or bytes (`Limit`); in packet mode a byte
/// threshold is converted with `mean_packet_size`, and in byte mode a packet threshold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedConfig {
    /// Queue weight of the average. Default 0.002 (FJ93).
    pub w_q: f64,
    /// Lower threshold of the average queue. Default 5 packets (FJ93).
    pub min_th: Limit,
    /// Upper threshold. Default 15 packets (FJ93).
    pub max_th: Limit,
    /// Marking probability at max_th. Default 0.02 (FJ93's 1/50).
    pub max_p: f64,
    /// Gentle RED: the probability rises from max_p to 1 between max_th and 2 max_th.
    pub gentle: bool,
    /// Byte mode: the queue is measured in bytes and p_b is scaled by size / max size.
    pub byte_mode: bool,
    /// Mark ECN-capable packets instead of dropping them early.
    pub ecn: bool,
    /// With `ecn`, mark ECN-capable packets above max_th as well (instead of dropping).
    pub ecn_above_max_th: bool,
    /// Packet size for the idle-time correction (and for converting units). Default 500 B.
    #[serde(with = "serde_units::bytes")]
    pub mean_packet_size: u32,
    /// Largest packet size, bytes, for byte mode. Default 1500 B.
    #[serde(with = "serde_units::bytes")]
    pub max_packet_size: u32,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            w_q: 0.002,
            min_th: Limit::Packets(5),
            max_th: Limit::Packets(15),
            max_p: 0.02,
            gentle: false,
            byte_mode: false,
            ecn: false,
            ecn_above_max_th: false,
            mean_packet_size: 500,
            max_packet_size: 1500,
        }
    }
}

impl RedConfig {
    /// Checks the parameters; returns (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.w_q > 0.0 && self.w_q <= 1.0) {
            return Err(("w_q", format!("{} is not a weight; give a number in (0, 1], e.g. 0.002", self.w_q)));
        }
        if !(self.max_p > 0.0 && self.max_p <= 1.0) {
            return Err(("max_p", format!("{} is not a probability; give a number in (0, 1], e.g. 0.02", self.max_p)));
        }
        if self.threshold(self.min_th) > self.threshold(self.max_th) {
            return Err((
                "max_th",
                format!(
                    "must not be below min_th ({} is below {}); equal thresholds mark or drop at a step",
                    self.max_th, self.min_th
                ),
            ));
        }
        Ok(())
    }

    /// A threshold in the queue's unit (packets or bytes).
    fn threshold(&self, l: Limit) -> f64 {
        match (l, self.byte_mode) {
            (Limit::Packets(n), false) => n as f64,
            (Limit::Packets(n), true) => n as f64 * self.mean_packet_size as f64,
            (Limit::Bytes(b), true) => b as f64,
            (Limit::Bytes(b), false) => b as f64 / self.mean_packet_size as f64,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Red {
    cfg: RedConfig,
    min_th: f64,
    max_th: f64,
    /// Hard buffer limit (the link's buffer).
    limit: Limit,
    queue: VecDeque<(SimTime, Packet)>,
    bits: u64,
    /// Average queue (packets or bytes).
    avg: f64,
    /// Packets since the last mark or drop (-1: avg below min_th).
    count: i64,
    /// Start of the current idle period, if the queue is empty.
    q_time: Option<SimTime>,
    /// Transmission time of a `mean_packet_size` packet, seconds.
    s: f64,
    rng: Rng,
}

// Named like the enum variants they stand beside (`DropReason::Overflow`).
#[allow(non_upper_case_globals)]
impl DropReason {
    /// RED's probabilistic early drop (average queue between the thresholds).
    pub const RedEarly: DropReason = DropReason::named("red_early");
    /// RED's forced drop (average queue above max_th, or the hard limit).
    pub const RedForced: DropReason = DropReason::named("red_forced");
}

impl QdiscPolicy for Red {
    type Config = RedConfig;
    const NAME: &'static str = "red";
    const DESCRIPTION: &'static str =
        "Random Early Detection (Floyd and Jacobson 1993): early drop or ECN mark with a probability rising with the average queue";
    const TITLE: &'static str = "RED";
    const DROP_REASONS: &'static [&'static str] = &["red_early", "red_forced"];
    /// The average queue (FJ93's avg), in packets (in byte mode, bytes divided by
    /// `mean_packet_size`), as of the last arrival.
    const SERIES: &'static [(&'static str, &'static str)] = &[("avg", "pkts")];
    const ADMITS: bool = true;
    fn build(cfg: &RedConfig, limit: Limit, rate_bps: u64, rng: Rng) -> Self {
        Red::new(cfg.clone(), limit, rate_bps, rng)
    }
    fn check(cfg: &RedConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    /// The hard buffer limit.
    fn limit(&self) -> Limit {
        self.limit
    }
}

impl Red {
    pub fn new(cfg: RedConfig, limit: Limit, rate_bps: u64, rng: Rng) -> Self {
        let s = tx_time(cfg.mean_packet_size.saturating_mul(8), rate_bps).as_secs_f64();
        Red {
            min_th: cfg.threshold(cfg.min_th),
            max_th: cfg.threshold(cfg.max_th),
            cfg,
            limit,
            queue: VecDeque::new(),
            bits: 0,
            avg: 0.0,
            count: -1,
            q_time: Some(SimTime::ZERO),
            s,
            rng,
        }
    }

    /// The average queue (packets or bytes, as configured).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The queue `q` of FJ93 for `pkts` packets of `bits` bits in all.
    fn q(&self, pkts: usize, bits: u64) -> f64 {
        if self.cfg.byte_mode {
            (bits / 8) as f64
        } else {
            pkts as f64
        }
    }

    /// Updates the average for an arrival at `now` that finds `pkts` packets of `bits`
    /// waiting.
    fn update_avg(&mut self, now: SimTime, pkts: usize, bits: u64) {
        let w = self.cfg.w_q;
        match self.q_time {
            Some(idle_since) if pkts == 0 => {
                let m = if self.s > 0.0 { (now - idle_since).as_secs_f64() / self.s } else { 0.0 };
                self.avg *= idle_decay(1.0 - w, m);
            }
            _ => self.avg = (1.0 - w) * self.avg + w * self.q(pkts, bits),
        }
    }

    /// FJ93's decision on an arrival at `now` that finds `pkts` packets of `bits`
    /// waiting: the average updated, and the verdict (`FLAG_CE` set on a marked
    /// packet); the caller queues an admitted packet.
    fn decide(&mut self, now: SimTime, pkt: &mut Packet, pkts: usize, bits: u64) -> Verdict {
        self.update_avg(now, pkts, bits);
        // Early-detection decision: None = accept, Some(forced) = mark or drop.
        let mut decision: Option<bool> = None;
        if self.avg >= self.min_th {
            match self.p_b(pkt.bytes()) {
                Some(pb) => {
                    self.count += 1;
                    let denom = 1.0 - self.count as f64 * pb;
                    let pa = if denom <= 0.0 { 1.0 } else { (pb / denom).min(1.0) };
                    let u = self.rng.next_f64();
                    if u < pa {
                        decision = Some(self.avg >= self.max_th);
                        self.count = 0;
                    }
                }
                None => {
                    decision = Some(true);
                    self.count = 0;
                }
            }
        } else {
            self.count = -1;
        }
        let fits = fits(self.limit, pkts, bits, pkt.bits);
        match decision {
            None if fits => Verdict::Queued,
            None => Verdict::Dropped(DropReason::Overflow),
            Some(forced) => {
                let may_mark = self.cfg.ecn && pkt.has(FLAG_ECT) && (!forced || self.cfg.ecn_above_max_th);
                if may_mark && fits {
                    pkt.flags |= FLAG_CE;
                    Verdict::Marked
                } else if may_mark {
                    Verdict::Dropped(DropReason::Overflow)
                } else if forced {
                    Verdict::Dropped(DropReason::RedForced)
                } else {
                    Verdict::Dropped(DropReason::RedEarly)
                }
            }
        }
    }

    /// The marking/dropping probability p_b for the current average, if in the
    /// probabilistic region; `None` above it (forced).
    fn p_b(&self, bytes: u32) -> Option<f64> {
        let (min, max, maxp) = (self.min_th, self.max_th, self.cfg.max_p);
        let mut pb = if self.avg < max {
            maxp * (self.avg - min) / (max - min)
        } else if self.cfg.gentle && self.avg < 2.0 * max {
            maxp + (1.0 - maxp) * (self.avg - max) / max
        } else {
            return None;
        };
        if self.cfg.byte_mode {
            pb *= bytes as f64 / self.cfg.max_packet_size as f64;
        }
        Some(pb)
    }

    fn accept(&mut self, now: SimTime, pkt: Packet) {
        self.bits += pkt.bits as u64;
        self.queue.push_back((now, pkt));
        self.q_time = None;
    }
}

/// FJ93's idle decay `base^m` (`base` = 1 - w_q, m >= 0). With w_q = 1 (step marking)
/// the base is 0, and 0^m is 0 for m > 0 and 1 for m = 0 (C99 Annex F.9.4.4, which
/// `powf` follows): the same value without the call.
#[inline]
fn idle_decay(base: f64, m: f64) -> f64 {
    if base == 0.0 {
        if m == 0.0 {
            1.0
        } else {
            0.0
        }
    } else {
        base.powf(m)
    }
}

impl Qdisc for Red {
    fn series_value(&self, _slot: usize) -> f64 {
        if self.cfg.byte_mode {
            self.avg / self.cfg.mean_packet_size as f64
        } else {
            self.avg
        }
    }
    fn enqueue(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        _conv: u32,
        _drops: &mut Vec<(Packet, DropReason)>,
    ) -> Verdict {
        let v = self.decide(now, &mut pkt, self.queue.len(), self.bits);
        if !matches!(v, Verdict::Dropped(_)) {
            self.accept(now, pkt);
        }
        v
    }

    /// `decide` on the queue the channel keeps; an admitted packet empties the queue
    /// when it starts, unless another is admitted first, so the idle period the next
    /// arrival may find began at its start (`q_time`, read only when nothing waits).
    fn admit(&mut self, now: SimTime, pkt: &mut Packet, ahead: Ahead) -> Verdict {
        let v = self.decide(now, pkt, ahead.pkts, ahead.bits);
        if !matches!(v, Verdict::Dropped(_)) {
            self.q_time = Some(ahead.start);
        }
        v
    }

    /// Enqueue then dequeue of the one packet, when the average (decayed over the idle
    /// time) stays below min_th: no early decision (count = -1, no draw); the packet is
    /// sent, or dropped if it does not fit the buffer; sent, it leaves the queue empty
    /// at `now`, where the next idle period starts. With the average at min_th or above
    /// (a decision that may draw, mark or drop) the state is left as it was and the
    /// channel enqueues and dequeues the packet.
    #[inline]
    fn pass_idle(&mut self, now: SimTime, bits: u32, _conv: impl FnOnce() -> u32) -> IdlePass {
        let before = self.avg;
        self.update_avg(now, 0, 0);
        if self.avg >= self.min_th {
            self.avg = before;
            return IdlePass::Unsupported;
        }
        self.count = -1;
        if !fits(self.limit, 0, 0, bits) {
            return IdlePass::Dropped(DropReason::Overflow);
        }
        self.q_time = Some(now);
        IdlePass::Sent
    }

    fn dequeue(&mut self, now: SimTime, _drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)> {
        let (t, p) = self.queue.pop_front()?;
        self.bits -= p.bits as u64;
        if self.queue.is_empty() {
            self.q_time = Some(now);
        }
        Some((p, t))
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
    fn set_rate(&mut self, _now: SimTime, rate_bps: u64) {
        self.s = tx_time(self.cfg.mean_packet_size.saturating_mul(8), rate_bps).as_secs_f64();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::test_util::pkt;

    fn red(cfg: RedConfig) -> Red {
        Red::new(cfg, Limit::Packets(1000), 10_000_000, Rng::new(1, 1))
    }

    #[test]
    fn average_follows_the_ewma_by_hand_under_constant_overload() {
        // Arrivals only (no departures): the queue before the k-th arrival holds k-1
        // packets (k >= 2), so avg_k = (1-w) avg_{k-1} + w (k-1); the first arrival finds
        // the queue empty at t = 0 (m = 0: avg stays 0).
        let cfg =
            RedConfig { w_q: 0.5, min_th: Limit::Packets(100), max_th: Limit::Packets(200), ..Default::default() };
        let mut q = red(cfg);
        let mut d = Vec::new();
        let mut want = 0.0;
        for k in 1..=6u32 {
            q.enqueue(SimTime::ZERO, pkt(0, k, 1000), 0, &mut d);
            if k >= 2 {
                want = 0.5 * want + 0.5 * (k - 1) as f64;
            }
            assert!((q.avg() - want).abs() < 1e-12, "k={k}: {} vs {want}", q.avg());
        }
        // By hand: 0, 0.5, 1.25, 2.125, 3.0625, 4.03125.
        assert!((q.avg() - 4.03125).abs() < 1e-12);
    }

    #[test]
    fn an_idle_pass_leaves_the_state_an_enqueue_and_dequeue_leave() {
        // 10 Mbps, mean packet 500 B: s = 400 us. Twenty packets queued at 0 (avg by
        // w_q = 0.1), all sent by 1 ms; the arrival comes at 5 ms: m = 10 idle slots.
        let loaded = |min_th: u64, limit: u64| {
            let cfg = RedConfig {
                w_q: 0.1,
                min_th: Limit::Packets(min_th),
                max_th: Limit::Packets(200),
                ecn: true,
                ..Default::default()
            };
            let mut q = Red::new(cfg, Limit::Packets(1000), 10_000_000, Rng::new(1, 1));
            let mut d = Vec::new();
            for k in 0..20 {
                q.enqueue(SimTime::ZERO, pkt(0, k, 1000), 0, &mut d);
            }
            while q.dequeue(SimTime::from_millis(1), &mut d).is_some() {}
            q.limit = Limit::Packets(limit);
            q
        };
        // avg before the arrival: the k-th of 20 arrivals finds k - 1 queued (the first
        // none, at m = 0), so avg = sum_{j=1}^{19} 0.1 j 0.9^(19-j)
        // = 19 - 9 (1 - 0.9^19) = 19 - 9 (1 - 0.135085) = 11.2158; after 10 idle slots,
        // times 0.9^10 = 0.348678: 3.9107.
        let before = loaded(100, 1000).avg();
        assert!((before - 11.2158).abs() < 1e-4, "{before}");
        let t = SimTime::from_millis(5);
        for (min_th, limit, want) in [(100, 1000, IdlePass::Sent), (100, 0, IdlePass::Dropped(DropReason::Overflow))] {
            let mut q = loaded(min_th, limit);
            let mut general = q.clone();
            let mut d = Vec::new();
            let mut p = pkt(0, 99, 1000);
            p.flags |= FLAG_ECT;
            let v = general.enqueue(t, p, 0, &mut d);
            let sent = general.dequeue(t, &mut d);
            assert_eq!(q.pass_idle(t, p.bits, || 0), want);
            assert_eq!((v == Verdict::Queued, sent.is_some()), (want == IdlePass::Sent, want == IdlePass::Sent));
            assert_eq!(format!("{q:?}"), format!("{general:?}"));
            assert!((q.avg() - before * 0.9f64.powi(10)).abs() < 1e-9);
        }
        // min_th = 2: the decayed average (3.91) is above it, a decision to take: the
        // pass declines and leaves the state untouched.
        let mut q = loaded(2, 1000);
        let untouched = format!("{q:?}");
        assert_eq!(q.pass_idle(t, 8000, || 0), IdlePass::Unsupported);
        assert_eq!(format!("{q:?}"), untouched);
    }

    #[test]
    fn the_idle_decay_without_pow_is_pow_s_value() {
        // w_q = 1: 0^m is +0 for any m > 0 (fractional, tiny, huge) and 1 for m = 0,
        // as powf gives them; other bases go to powf itself.
        for m in [0.0, 1e-300, 0.5, 1.0, 2.5, 1e9, f64::INFINITY] {
            assert_eq!(idle_decay(0.0, m).to_bits(), 0.0f64.powf(m).to_bits(), "m = {m}");
        }
        assert_eq!(idle_decay(0.0, 0.0), 1.0);
        assert_eq!(idle_decay(0.0, 3.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(idle_decay(0.998, 10.0), 0.998f64.powf(10.0));
    }

    #[test]
    fn idle_period_decays_the_average_by_w_to_the_m() {
        // 10 Mbps, mean packet 500 B: s = 400 us. After 4 ms idle, m = 10.
        let cfg =
            RedConfig { w_q: 0.1, min_th: Limit::Packets(100), max_th: Limit::Packets(200), ..Default::default() };
        let mut q = red(cfg);
        let mut d = Vec::new();
        for k in 0..20 {
            q.enqueue(SimTime::ZERO, pkt(0, k, 1000), 0, &mut d);
        }
        while q.dequeue(SimTime::from_millis(1), &mut d).is_some() {}
        let before = q.avg();
        q.enqueue(SimTime::from_millis(5), pkt(0, 99, 1000), 0, &mut d);
        let want = before * 0.9f64.powi(10);
        assert!((q.avg() - want).abs() < 1e-9 * before, "{} vs {want}", q.avg());
    }

    #[test]
    fn below_min_th_nothing_is_dropped_and_above_max_th_everything_is() {
        let cfg = RedConfig { w_q: 1.0, min_th: Limit::Packets(3), max_th: Limit::Packets(6), ..Default::default() };
        let mut q = red(cfg);
        let mut d = Vec::new();
        // With w_q = 1 the average is the queue seen by the arrival.
        let verdicts: Vec<Verdict> = (0..12).map(|k| q.enqueue(SimTime::ZERO, pkt(0, k, 1000), 0, &mut d)).collect();
        assert!(verdicts[..4].iter().all(|v| *v == Verdict::Queued), "{verdicts:?}");
        // Once six are queued, every arrival is a forced drop and the queue stays at six.
        assert_eq!(q.len_pkts(), 6);
        assert_eq!(verdicts.last(), Some(&Verdict::Dropped(DropReason::RedForced)));
    }

    #[test]
    fn measured_drop_probability_follows_the_red_curve() {
        // Hold the average at a fixed point between the thresholds (w_q = 1 and a queue
        // kept at 10 packets): p_b = 0.1 (10 - 5) / (15 - 5) = 0.05. With count raised
        // before p_a = p_b / (1 - count p_b) (FJ93 Figure 2), the gap X between drops
        // has P(X = n) = p_b / (1 - p_b) for n = 1 .. 1/p_b - 1 = 19: uniform, mean 10,
        // so a drop rate of 0.1 (twice p_b, the point of the count spacing).
        let cfg = RedConfig { w_q: 1.0, max_p: 0.1, ..Default::default() };
        let mut q = red(cfg);
        let mut d = Vec::new();
        for k in 0..10 {
            q.enqueue(SimTime::ZERO, pkt(0, k, 1000), 0, &mut d);
        }
        // Reset the count: the fill-up above may have dropped at 5..9.
        while q.len_pkts() < 10 {
            q.enqueue(SimTime::ZERO, pkt(0, 0, 1000), 0, &mut d);
        }
        let n = 200_000;
        let mut drops = 0;
        for k in 0..n {
            match q.enqueue(SimTime::ZERO, pkt(0, k, 1000), 0, &mut d) {
                Verdict::Dropped(DropReason::RedEarly) => drops += 1,
                Verdict::Queued => {
                    q.dequeue(SimTime::ZERO, &mut d);
                }
                v => panic!("{v:?}"),
            }
        }
        let rate = drops as f64 / n as f64;
        // Binomial-like bound: sd about sqrt(p/n) = 0.0007; allow 5 sd.
        assert!((rate - 0.1).abs() < 0.0035, "{rate}");
    }

    #[test]
    fn ecn_capable_packets_are_marked_not_dropped_below_max_th() {
        let cfg = RedConfig { w_q: 1.0, max_p: 0.5, ecn: true, ..Default::default() };
        let mut q = red(cfg);
        let mut d = Vec::new();
        let mut marked = 0;
        for k in 0..14 {
            let mut p = pkt(0, k, 1000);
            p.flags |= FLAG_ECT;
            match q.enqueue(SimTime::ZERO, p, 0, &mut d) {
                Verdict::Marked => marked += 1,
                Verdict::Queued => {}
                v => panic!("an ECT packet below max_th must not be dropped: {v:?}"),
            }
        }
        assert!(marked > 0);
        let mut ce = 0;
        while let Some((p, _)) = q.dequeue(SimTime::ZERO, &mut d) {
            ce += p.has(FLAG_CE) as u32;
        }
        assert_eq!(ce, marked);
    }

    #[test]
    fn equal_thresholds_mark_every_ect_arrival_at_or_above_k_and_drop_the_others() {
        // DCTCP's step at K = 3 (w_q = 1, ecn above max_th): arrivals 0..=2 find 0, 1, 2
        // queued and are queued; from then on each finds 3 or more: ECT ones are marked
        // and queued, the non-ECT (odd k >= 3) dropped as forced.
        let cfg = RedConfig {
            w_q: 1.0,
            min_th: Limit::Packets(3),
            max_th: Limit::Packets(3),
            ecn: true,
            ecn_above_max_th: true,
            ..Default::default()
        };
        assert_eq!(cfg.check(), Ok(()));
        let mut q = red(cfg.clone());
        let mut d = Vec::new();
        let verdicts: Vec<Verdict> = (0..8u32)
            .map(|k| {
                let mut p = pkt(0, k, 1000);
                if k < 3 || k % 2 == 0 {
                    p.flags |= FLAG_ECT;
                }
                q.enqueue(SimTime::ZERO, p, 0, &mut d)
            })
            .collect();
        let (m, f) = (Verdict::Marked, Verdict::Dropped(DropReason::RedForced));
        assert_eq!(verdicts, vec![Verdict::Queued, Verdict::Queued, Verdict::Queued, f, m, f, m, f]);
        // Queue 5 (3 + the 2 marked); one leaves, the next ECT arrival finds 4 >= 3.
        assert_eq!(q.len_pkts(), 5);
        q.dequeue(SimTime::ZERO, &mut d);
        let mut p = pkt(0, 9, 1000);
        p.flags |= FLAG_ECT;
        assert_eq!(q.enqueue(SimTime::ZERO, p, 0, &mut d), Verdict::Marked);
        // Drained below K: the next arrival finds 2 queued and is not marked.
        while q.len_pkts() > 2 {
            q.dequeue(SimTime::ZERO, &mut d);
        }
        assert_eq!(q.enqueue(SimTime::ZERO, p, 0, &mut d), Verdict::Queued);
        // Without ecn_above_max_th the step drops instead (RED's forced drop).
        let mut q = red(RedConfig { ecn_above_max_th: false, ..cfg.clone() });
        for k in 0..3 {
            q.enqueue(SimTime::ZERO, pkt(0, k, 1000), 0, &mut d);
        }
        assert_eq!(q.enqueue(SimTime::ZERO, p, 0, &mut d), f);
        // max_th below min_th is still refused, naming max_th.
        let bad = RedConfig { max_th: Limit::Packets(2), ..cfg };
        assert_eq!(bad.check().unwrap_err().0, "max_th");
    }

    #[test]
    fn gentle_red_drops_with_rising_probability_between_max_th_and_twice_it() {
        let cfg = RedConfig { w_q: 1.0, gentle: true, max_p: 0.1, ..Default::default() };
        let mut q = red(cfg);
        assert_eq!(q.p_b(1000), Some(-0.05), "below min_th the formula is not used");
        q.avg = 22.5;
        // max_p + (1 - max_p) (22.5 - 15) / 15 = 0.1 + 0.9 * 0.5 = 0.55
        assert!((q.p_b(1000).unwrap() - 0.55).abs() < 1e-12);
        q.avg = 30.0;
        assert_eq!(q.p_b(1000), None);
    }
}
