//! TEAR, TCP Emulation At Receivers (Rhee, Ozdemir, Yi, "TEAR: TCP emulation at
//! receivers - flow control for multimedia streaming", NCSU technical report, 2000), the
//! version Welzl 2003 compared against. Our reading of it, written down in
//! docs/reproductions/welzl.md:
//!
//! - The receiver emulates a TCP Reno congestion window `cwnd` (packets) driven by the
//!   data packets it receives: per arriving packet cwnd += 1 in slow start (cwnd <
//!   ssthresh), cwnd += 1/cwnd in congestion avoidance. A loss event (a sequence gap; the
//!   losses within one RTT of the first are one event, RFC 3448 5.2, `tfrc::LossEvents`)
//!   halves it: ssthresh = cwnd = max(cwnd/2, 1) (Reno's fast recovery).
//! - Emulated timeout (`emulated_timeout`, on by default; the report's text on it was not
//!   reachable, so this is our reading of "emulating TCP" applied to Reno's timeout): the
//!   emulated sender can fast-retransmit only with 3 duplicate acks (RFC 5681 3.2), and
//!   after the first lost packet of a loss event its window of floor(cwnd) packets holds
//!   floor(cwnd) - 1 more, less the other packets lost in the same gap. If that leaves
//!   fewer than 3, the emulated sender times out instead (the case Padhye et al.'s
//!   equation, RFC 3448 3.1, charges t_RTO for): ssthresh = max(cwnd/2, 2), cwnd = 1
//!   (RFC 5681 eq. 4 and 3.1), a new round, and the emulated idle time counts in the new
//!   epoch as a round of length T = backoff * `rto_rtts` * R (default 4R, the t_RTO of
//!   RFC 3448 4.3) at one packet per T, weighted T/R rounds. The backoff doubles (up to
//!   64, Padhye et al.) for a timeout before a full round after the previous one has
//!   ended, and returns to 1 when one has. Losses after the packet that reveals the
//!   event are not known then and do not count against the duplicate acks.
//! - A round is one window of packets: it ends when as many packets as cwnd at its start
//!   have arrived or been detected lost. At the end of a round its rate is cwnd/R
//!   packets per second (R: the sender's RTT estimate carried in the data packets, as in
//!   `tfrc`).
//! - An epoch is the time between two loss events. The epoch's rate is the mean of its
//!   rounds' rates. The rate fed back is the weighted average of the last 8 epochs with
//!   TFRC's weights (1,1,1,1,0.8,0.6,0.4,0.2), the open epoch counted like TFRC's open
//!   interval (the larger of the averages with and without it; `tfrc::weighted_mean`).
//!   Before the first loss (slow start), the last round's rate is fed back (assumption).
//! - Feedback (the rate and the echo of the last data packet's timestamp) goes back once
//!   per R, driven by arrivals as in `tfrc`.
//! - The sender paces at the fed-back rate, never below one packet per `t_mbi` (64 s, as
//!   TFRC); before the first feedback it sends one packet per second (assumption: TFRC's
//!   start). Its R is the EWMA (q = 0.9) of the feedback round trips. No nofeedback
//!   timer (assumption: the paper describes none).

use super::endpoint::{Io, Pass, ReceiverMetrics, ReceiverPolicy, SenderMetrics, SenderPolicy};
use super::rate_flow::RateFlow;
use super::tfrc::{carried_rtt, carry_rtt, weighted_mean, LossEvents, WEIGHTS};
use super::timer::LazyTimer;
use super::FlowCounters;
use super::{Receiver, Sender};
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::serde_units;
use crate::cc::Feedback;
use crate::packet::meta::{Control, MetaSlab};
use crate::packet::{Packet, PacketKind};
use serde::{Deserialize, Serialize};

/// Parameters of a TEAR flow (`params` of a `kind = "tear"` flow).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TearConfig {
    /// Size of the feedback packets.
    #[serde(default = "d_fb", with = "serde_units::bytes")]
    pub feedback_size: u32,
    /// The lowest rate is one packet per `t_mbi`.
    #[serde(default = "d_mbi", with = "serde_units::time")]
    pub t_mbi: SimDuration,
    /// The emulated window's initial slow-start threshold, packets.
    #[serde(default = "d_ssthresh")]
    pub initial_ssthresh: f64,
    /// Emulate Reno's retransmission timeout (fewer than 3 duplicate acks possible).
    #[serde(default = "d_true")]
    pub emulated_timeout: bool,
    /// The emulated timeout's length in RTTs (RFC 3448 4.3's t_RTO = 4R).
    #[serde(default = "d_rto")]
    pub rto_rtts: f64,
}

fn d_fb() -> u32 {
    40
}
fn d_mbi() -> SimDuration {
    SimDuration::from_secs(64)
}
fn d_ssthresh() -> f64 {
    1e9
}
fn d_true() -> bool {
    true
}
fn d_rto() -> f64 {
    4.0
}

impl Default for TearConfig {
    fn default() -> Self {
        TearConfig {
            feedback_size: d_fb(),
            t_mbi: d_mbi(),
            initial_ssthresh: d_ssthresh(),
            emulated_timeout: true,
            rto_rtts: d_rto(),
        }
    }
}

impl RateFlow for TearConfig {
    const NAME: &'static str = "tear";
    const DESCRIPTION: &'static str = "TEAR rate sender fed by a receiver emulating TCP (Rhee, Ozdemir, Yi 2000)";
    const SENDER: &'static str = "Tear";
    const RECEIVER: &'static str = "Tear";

    fn check(&self) -> Result<(), (&'static str, String)> {
        if self.feedback_size == 0 {
            return Err(("feedback_size", "must be at least 1 byte".into()));
        }
        if self.t_mbi == SimDuration::ZERO {
            return Err(("t_mbi", "must be positive (64s)".into()));
        }
        if !(self.initial_ssthresh >= 2.0) {
            return Err(("initial_ssthresh", format!("{} must be at least 2 packets", self.initial_ssthresh)));
        }
        if !(self.rto_rtts.is_finite() && self.rto_rtts >= 1.0) {
            return Err(("rto_rtts", format!("{} must be at least 1 RTT (RFC 3448 4.3: 4)", self.rto_rtts)));
        }
        Ok(())
    }

    fn build(&self, data: Packet, answer: &dyn Fn(PacketKind, u32) -> Packet, stop: SimTime) -> (Sender, Receiver) {
        let feedback = answer(PacketKind::Control, self.feedback_size);
        let r = TearReceiver::new(feedback, self);
        (Sender::Tear(Box::new(TearSender::new(self.clone(), data, stop))), Receiver::Tear(Box::new(r)))
    }
}

/// The TEAR sender: paces at the rate its receiver feeds back.
#[derive(Clone, Debug)]
pub struct TearSender {
    pub cfg: TearConfig,
    data: Packet,
    s: f64,
    /// Sending rate, bytes/s.
    pub x: f64,
    pub rtt: Option<SimDuration>,
    last_data: Option<SimTime>,
    seq: u32,
    stop: SimTime,
    pub feedbacks: u64,
    pub pace: LazyTimer,
}

impl TearSender {
    pub fn new(cfg: TearConfig, data: Packet, stop: SimTime) -> Self {
        let s = data.bits as f64 / 8.0;
        TearSender {
            cfg,
            data,
            s,
            x: s,
            rtt: None,
            last_data: None,
            seq: 0,
            stop,
            feedbacks: 0,
            pace: LazyTimer::default(),
        }
    }

    fn gap(&self) -> SimDuration {
        SimDuration::from_secs_f64(self.s / self.x).max(super::MIN_PACING_GAP)
    }

    pub fn start(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        self.on_pace(now, c, out, meta);
    }

    pub fn on_pace(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        if now >= self.stop {
            self.pace.set_deadline(None);
            return;
        }
        let mut p = self.data;
        p.seq = self.seq;
        p.ts = now;
        carry_rtt(&mut p, meta, self.rtt);
        self.seq = self.seq.wrapping_add(1);
        out.push(p);
        c.sent += 1;
        self.last_data = Some(now);
        self.pace.set_deadline(Some(now + self.gap()));
    }

    /// The receiver's rate (bits/s) echoing the data packet sent at `echo`.
    pub fn on_feedback(&mut self, now: SimTime, bps: f64, echo: SimTime) {
        self.feedbacks += 1;
        let sample = now.saturating_since(echo);
        self.rtt = Some(match self.rtt {
            None => sample,
            Some(r) => SimDuration::from_secs_f64(0.9 * r.as_secs_f64() + 0.1 * sample.as_secs_f64()),
        });
        self.x = (bps / 8.0).max(self.s / self.cfg.t_mbi.as_secs_f64());
        if self.pace.deadline().is_some() {
            if let Some(last) = self.last_data {
                self.pace.set_deadline(Some((last + self.gap()).max(now)));
            }
        }
    }
}

/// The TEAR receiver: the emulated Reno window, rounds, epochs and the fed-back rate.
#[derive(Clone, Debug)]
pub struct TearReceiver {
    feedback: Packet,
    loss: LossEvents,
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Packets of the current round still to come, and the round's size.
    round_left: f64,
    /// Sum of the round rates (packets/s) of the open epoch, each times its weight, and
    /// the sum of the weights (1 per round; an emulated timeout weighs T/R).
    epoch_sum: f64,
    epoch_rounds: f64,
    /// The last round's rate, packets/s.
    last_round: f64,
    /// Closed epochs' rates, packets/s, most recent first (at most 8).
    epochs: Vec<f64>,
    last_feedback: Option<SimTime>,
    pub rate_pps: f64,
    pub feedbacks: u64,
    /// Emulated timeouts: on, their length in RTTs, the backoff and whether the round
    /// the last one started is still open.
    timeout_on: bool,
    rto_rtts: f64,
    backoff: f64,
    timeout_round: bool,
    pub timeouts: u64,
}

impl TearReceiver {
    pub fn new(feedback: Packet, cfg: &TearConfig) -> Self {
        TearReceiver {
            feedback,
            loss: LossEvents::default(),
            cwnd: 1.0,
            ssthresh: cfg.initial_ssthresh,
            round_left: 1.0,
            epoch_sum: 0.0,
            epoch_rounds: 0.0,
            last_round: 0.0,
            epochs: Vec::with_capacity(9),
            last_feedback: None,
            rate_pps: 0.0,
            feedbacks: 0,
            timeout_on: cfg.emulated_timeout,
            rto_rtts: cfg.rto_rtts,
            backoff: 1.0,
            timeout_round: false,
            timeouts: 0,
        }
    }

    fn end_round(&mut self, r: f64) {
        self.last_round = self.cwnd / r;
        self.epoch_sum += self.last_round;
        self.epoch_rounds += 1.0;
        self.round_left += self.cwnd.floor().max(1.0);
        if self.timeout_round {
            self.timeout_round = false;
        } else {
            self.backoff = 1.0;
        }
    }

    /// Counts one packet of the current round (arrived or lost).
    fn count(&mut self, r: f64) {
        self.round_left -= 1.0;
        if self.round_left <= 0.0 {
            self.end_round(r);
        }
    }

    /// The rate to feed back, packets/s.
    fn rate(&self, r: f64) -> f64 {
        let open = if self.epoch_rounds > 0.0 { self.epoch_sum / self.epoch_rounds } else { self.cwnd / r };
        weighted_mean(open, &self.epochs).unwrap_or(if self.last_round > 0.0 { self.last_round } else { self.cwnd / r })
    }

    pub fn on_data(
        &mut self,
        now: SimTime,
        p: &Packet,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        meta: &mut MetaSlab,
    ) {
        c.arrived += 1;
        c.delivered += 1;
        let rd = carried_rtt(p, meta, SimDuration::from_secs(1));
        let r = rd.as_secs_f64();
        let before = self.loss.losses;
        let event = self.loss.on_data(p.seq, p.ts, rd);
        for _ in before..self.loss.losses {
            self.count(r);
        }
        if let Some(k) = event {
            // A loss event: close the epoch, back off the window, start a new round.
            let epoch = if self.epoch_rounds > 0.0 { self.epoch_sum / self.epoch_rounds } else { self.cwnd / r };
            self.epochs.insert(0, epoch);
            self.epochs.truncate(WEIGHTS.len());
            self.epoch_sum = 0.0;
            self.epoch_rounds = 0.0;
            // Duplicate acks the emulated sender could get: the rest of its window after
            // the first lost packet, less the packets lost after it in this gap.
            let w = self.cwnd.floor().max(1.0);
            let lost_after = p.seq.wrapping_sub(k).wrapping_sub(1) as f64;
            let dupacks = w - 1.0 - lost_after.min(w - 1.0);
            if self.timeout_on && dupacks < 3.0 {
                self.ssthresh = (self.cwnd / 2.0).max(2.0);
                self.cwnd = 1.0;
                self.round_left = 1.0;
                // The idle time T = backoff * rto_rtts * R at one packet per T, weighing
                // T/R rounds: rate * weight = 1/R.
                let weight = self.backoff * self.rto_rtts;
                self.epoch_sum += 1.0 / r;
                self.epoch_rounds += weight;
                self.backoff = (2.0 * self.backoff).min(64.0);
                self.timeout_round = true;
                self.timeouts += 1;
            } else {
                self.cwnd = (self.cwnd / 2.0).max(1.0);
                self.ssthresh = self.cwnd;
                self.round_left = self.cwnd.floor().max(1.0);
            }
        }
        // The arriving packet opens the window (Reno per ack) and counts in the round.
        if self.cwnd < self.ssthresh {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
        self.count(r);
        self.rate_pps = self.rate(r);
        if self.last_feedback.is_none_or(|t| now.saturating_since(t) >= rd) {
            self.last_feedback = Some(now);
            let mut f = self.feedback;
            f.seq = p.seq;
            f.ts = p.ts;
            let h = meta.alloc();
            let s_bits = p.bits as f64;
            meta.get_mut(h).control = Control::Feedback(Feedback::Rate { bps: self.rate_pps * s_bits });
            f.meta = h;
            out.push(f);
            self.feedbacks += 1;
        }
    }
}

impl SenderPolicy for TearSender {
    const DESCRIPTION: &'static str = "TEAR rate sender: sends at the rate its receiver computes";
    fn start(&mut self, io: Io<'_>) {
        TearSender::start(self, io.now, io.counters, io.out, io.meta)
    }
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback, echo: SimTime) {
        if let Feedback::Rate { bps } = *fb {
            TearSender::on_feedback(self, now, bps, echo)
        }
    }
    fn timers(&mut self) -> (Option<&mut LazyTimer>, Option<&mut LazyTimer>) {
        (None, Some(&mut self.pace))
    }
    fn on_pace(&mut self, io: Io<'_>) {
        TearSender::on_pace(self, io.now, io.counters, io.out, io.meta)
    }
    fn metrics(&self) -> SenderMetrics {
        SenderMetrics { srtt: self.rtt, rate_bps: Some(self.x * 8.0) }
    }
}

impl ReceiverPolicy for TearReceiver {
    const DESCRIPTION: &'static str =
        "TEAR's receiver: emulates TCP's window per round and reports a rate once per RTT";
    fn on_data(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
        TearReceiver::on_data(self, io.now, p, io.counters, io.out, io.meta);
        None
    }
    fn metrics(&self) -> ReceiverMetrics {
        ReceiverMetrics::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    fn arrive(r: &mut TearReceiver, seq: u32, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        let mut p = Packet::new(PacketKind::Data, 0, 1000);
        p.seq = seq;
        p.ts = SimTime::from_millis(seq as u64);
        carry_rtt(&mut p, meta, Some(SimDuration::from_millis(100)));
        let mut c = FlowCounters::default();
        r.on_data(SimTime::from_millis(seq as u64 + 50), &p, &mut c, out, meta);
        meta.free(p.meta);
    }

    #[test]
    fn slow_start_rounds_then_halving_and_epoch_average() {
        let cfg = TearConfig::default();
        let mut r = TearReceiver::new(Packet::new(PacketKind::Control, 0, 40), &cfg);
        let (mut out, mut meta) = (Vec::new(), MetaSlab::default());
        // Slow start: rounds of 1, 2, 4, 8 packets (15 packets); cwnd 1 -> 16.
        // Round ends: after packet 0 (cwnd 2), 2 (cwnd 4), 6 (cwnd 8), 14 (cwnd 16).
        for k in 0..15 {
            arrive(&mut r, k, &mut out, &mut meta);
        }
        assert_eq!(r.cwnd, 16.0);
        // R = 100 ms: the last round's rate 16/0.1 = 160 packets/s is fed back.
        assert_eq!(r.rate_pps, 160.0);
        // Rates of the rounds: 20, 40, 80, 160 pkt/s: the epoch's mean is 75.
        // Packet 15 lost: a loss event when 16 arrives. The lost packet ends nothing
        // (round of 16 still open); the epoch (75 pkt/s) closes; cwnd = ssthresh = 8,
        // then packet 16 adds 1/8 (congestion avoidance).
        arrive(&mut r, 16, &mut out, &mut meta);
        assert_eq!(r.ssthresh, 8.0);
        assert_eq!(r.cwnd, 8.125);
        // Rate: closed epochs [75], open epoch without rounds: cwnd/R = 81.25 pkt/s.
        // weighted_mean(81.25, [75]) = max(81.25, 75)/1 = 81.25.
        assert!((r.rate_pps - 81.25).abs() < 1e-9, "{}", r.rate_pps);
        // Feedback goes out once per R (100 ms): packet k arrives at k + 50 ms, so only
        // packet 0 (at 50 ms) has sent one so far, with the first round's 20 pkt/s.
        assert_eq!(r.feedbacks, 1);
        match meta.get(out[0].meta).unwrap().control {
            Control::Feedback(Feedback::Rate { bps }) => assert_eq!(bps, 8000.0 * 20.0),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sender_follows_the_fed_back_rate() {
        let mut s = TearSender::new(TearConfig::default(), Packet::new(PacketKind::Data, 0, 1000), SimTime::MAX);
        let (mut c, mut out, mut meta) = (FlowCounters::default(), Vec::new(), MetaSlab::default());
        s.start(SimTime::ZERO, &mut c, &mut out, &mut meta);
        assert_eq!(s.pace.deadline(), Some(SimTime::from_secs(1)));
        s.on_feedback(SimTime::from_millis(300), 800_000.0, SimTime::ZERO);
        assert_eq!(s.x, 100_000.0);
        assert_eq!(s.rtt, Some(SimDuration::from_millis(300)));
        // The next packet one new gap (10 ms) after the last, not before now.
        assert_eq!(s.pace.deadline(), Some(SimTime::from_millis(300)));
        // Never below one packet per 64 s.
        s.on_feedback(SimTime::from_millis(600), 0.0, SimTime::from_millis(300));
        assert_eq!(s.x, 1000.0 / 64.0);
    }

    fn arrive_at(r: &mut TearReceiver, seq: u32, ts_ms: u64, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        let mut p = Packet::new(PacketKind::Data, 0, 1000);
        p.seq = seq;
        p.ts = SimTime::from_millis(ts_ms);
        carry_rtt(&mut p, meta, Some(SimDuration::from_millis(100)));
        let mut c = FlowCounters::default();
        r.on_data(SimTime::from_millis(ts_ms + 50), &p, &mut c, out, meta);
        meta.free(p.meta);
    }

    #[test]
    fn a_loss_with_fewer_than_three_duplicate_acks_times_out() {
        let cfg = TearConfig::default();
        let mut r = TearReceiver::new(Packet::new(PacketKind::Control, 0, 40), &cfg);
        let (mut out, mut meta) = (Vec::new(), MetaSlab::default());
        // R = 100 ms. Rounds of 1 (packet 0, cwnd -> 2, 20 pkt/s) and 2 (packets 1, 2,
        // cwnd -> 4, 40 pkt/s); the epoch's mean is 30 pkt/s.
        for (k, ts) in [(0, 0), (1, 10), (2, 20)] {
            arrive_at(&mut r, k, ts, &mut out, &mut meta);
        }
        assert_eq!(r.cwnd, 4.0);
        // 3 and 4 lost, 5 arrives: window 4, after the first lost packet 3 more, one of
        // them lost: 2 duplicate acks < 3, a timeout. ssthresh = max(4/2, 2) = 2, cwnd = 1,
        // the idle T = 4R = 0.4 s weighs 4 rounds at 1/0.4 = 2.5 pkt/s (sum 10).
        // Packet 5 then opens the window (slow start, cwnd 1 < 2: cwnd = 2) and ends the
        // one-packet round at 2/0.1 = 20 pkt/s: open epoch (10 + 20)/5 = 6 pkt/s.
        // Fed back: max(6*1 + 0, 30*1)/1 = 30 pkt/s.
        arrive_at(&mut r, 5, 50, &mut out, &mut meta);
        assert_eq!((r.timeouts, r.ssthresh, r.cwnd), (1, 2.0, 2.0));
        assert!((r.rate_pps - 30.0).abs() < 1e-9, "{}", r.rate_pps);
        // 6 lost (interpolated send time 175 ms, more than R after 30 ms: a new event),
        // 7 arrives: window 2, one more after the lost one, 1 duplicate ack: a timeout
        // again, before a full round since the last: T = 2 * 4R = 0.8 s, weight 8 (sum 10).
        // Closed epochs [6, 30]; packet 7: cwnd 1 -> 2, round at 20 pkt/s: open epoch
        // 30/9 = 3.33 pkt/s. Fed back: max(3.33 + 6, 6 + 30)/2 = 18 pkt/s.
        arrive_at(&mut r, 7, 300, &mut out, &mut meta);
        assert_eq!(r.timeouts, 2);
        assert!((r.rate_pps - 18.0).abs() < 1e-9, "{}", r.rate_pps);
        assert_eq!(r.backoff, 4.0);
        // A full round (2 packets) without loss resets the backoff.
        arrive_at(&mut r, 8, 310, &mut out, &mut meta);
        arrive_at(&mut r, 9, 320, &mut out, &mut meta);
        assert_eq!(r.backoff, 1.0);
    }

    #[test]
    fn three_duplicate_acks_halve_and_timeouts_can_be_off() {
        // Window 4 with only packet 3 lost: 3 duplicate acks, Reno halves (cwnd = 2).
        let cfg = TearConfig::default();
        let mut r = TearReceiver::new(Packet::new(PacketKind::Control, 0, 40), &cfg);
        let (mut out, mut meta) = (Vec::new(), MetaSlab::default());
        for (k, ts) in [(0, 0), (1, 10), (2, 20), (4, 40)] {
            arrive_at(&mut r, k, ts, &mut out, &mut meta);
        }
        assert_eq!((r.timeouts, r.ssthresh), (0, 2.0));
        // The same losses as the timeout case with emulated_timeout = false: halving.
        let cfg = TearConfig { emulated_timeout: false, ..Default::default() };
        let mut r = TearReceiver::new(Packet::new(PacketKind::Control, 0, 40), &cfg);
        for (k, ts) in [(0, 0), (1, 10), (2, 20), (5, 50)] {
            arrive_at(&mut r, k, ts, &mut out, &mut meta);
        }
        assert_eq!((r.timeouts, r.ssthresh), (0, 2.0));
        let bad = TearConfig { rto_rtts: 0.5, ..Default::default() };
        assert_eq!(bad.check().unwrap_err().0, "rto_rtts");
    }
}
