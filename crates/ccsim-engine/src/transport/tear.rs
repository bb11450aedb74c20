//! TEAR, TCP Emulation At Receivers (Rhee, Ozdemir, Yi, "TEAR: TCP emulation at
//! receivers - flow control for multimedia streaming", NCSU technical report, 2000), the
//! version Welzl 2003 compared against. Our reading of it, written down in
//! docs/reproductions/welzl.md:
//!
//! - The receiver emulates a TCP Reno congestion window `cwnd` (packets) driven by the
//!   data packets it receives: per arriving packet cwnd += 1 in slow start (cwnd <
//!   ssthresh), cwnd += 1/cwnd in congestion avoidance. A loss event (a sequence gap; the
//!   losses within one RTT of the first are one event, RFC 3448 5.2, `tfrc::LossEvents`)
//!   halves it: ssthresh = cwnd = max(cwnd/2, 1) (Reno's fast recovery). Assumption: no
//!   emulated timeout (the paper's cwnd = 1 after a long gap) -- our paths never lose a
//!   whole window.
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

impl Default for TearConfig {
    fn default() -> Self {
        TearConfig { feedback_size: d_fb(), t_mbi: d_mbi(), initial_ssthresh: d_ssthresh() }
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
            self.pace.deadline = None;
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
        self.pace.deadline = Some(now + self.gap());
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
        if self.pace.deadline.is_some() {
            if let Some(last) = self.last_data {
                self.pace.deadline = Some((last + self.gap()).max(now));
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
    /// Sum and count of the round rates (packets/s) of the open epoch.
    epoch_sum: f64,
    epoch_rounds: u32,
    /// The last round's rate, packets/s.
    last_round: f64,
    /// Closed epochs' rates, packets/s, most recent first (at most 8).
    epochs: Vec<f64>,
    last_feedback: Option<SimTime>,
    pub rate_pps: f64,
    pub feedbacks: u64,
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
            epoch_rounds: 0,
            last_round: 0.0,
            epochs: Vec::with_capacity(9),
            last_feedback: None,
            rate_pps: 0.0,
            feedbacks: 0,
        }
    }

    fn end_round(&mut self, r: f64) {
        self.last_round = self.cwnd / r;
        self.epoch_sum += self.last_round;
        self.epoch_rounds += 1;
        self.round_left += self.cwnd.floor().max(1.0);
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
        let open = if self.epoch_rounds > 0 { self.epoch_sum / self.epoch_rounds as f64 } else { self.cwnd / r };
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
        if event.is_some() {
            // A loss event: close the epoch, halve the window, start a new round.
            let epoch = if self.epoch_rounds > 0 { self.epoch_sum / self.epoch_rounds as f64 } else { self.cwnd / r };
            self.epochs.insert(0, epoch);
            self.epochs.truncate(WEIGHTS.len());
            self.epoch_sum = 0.0;
            self.epoch_rounds = 0;
            self.cwnd = (self.cwnd / 2.0).max(1.0);
            self.ssthresh = self.cwnd;
            self.round_left = self.cwnd.floor().max(1.0);
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
        assert_eq!(s.pace.deadline, Some(SimTime::from_secs(1)));
        s.on_feedback(SimTime::from_millis(300), 800_000.0, SimTime::ZERO);
        assert_eq!(s.x, 100_000.0);
        assert_eq!(s.rtt, Some(SimDuration::from_millis(300)));
        // The next packet one new gap (10 ms) after the last, not before now.
        assert_eq!(s.pace.deadline, Some(SimTime::from_millis(300)));
        // Never below one packet per 64 s.
        s.on_feedback(SimTime::from_millis(600), 0.0, SimTime::from_millis(300));
        assert_eq!(s.x, 1000.0 / 64.0);
    }
}
