//! RAP (Rejaie, Handley, Estrin, "RAP: An End-to-end Rate-based Congestion Control
//! Mechanism for Realtime Streams in the Internet", Infocom 1999) and GAIMD (Yang, Lam,
//! "General AIMD Congestion Control", TR-2000-09) as RAP with other parameters, the way
//! Welzl 2003 ran it ("realized by tuning RAP parameters").
//!
//! - The sender paces packets at rate r (the inter-packet gap IPG = 1/r).
//! - Decisions once per step of one SRTT: if no loss was detected in the step, the rate
//!   grows by `alpha` packets per SRTT (RAP: IPG <- IPG*C/(IPG + C) with C = SRTT/alpha,
//!   i.e. r <- r + alpha/SRTT).
//! - On a detected loss the rate is multiplied by `beta` (RAP: 1/2, GAIMD: 7/8), at most
//!   once per cluster: losses of packets sent before the last decrease are ignored.
//! - Loss detection: the receiver acknowledges every packet with its own sequence number
//!   (`AckEach`). Ack-based: a packet is lost when a packet `dupthresh` (3) or more
//!   sequence numbers later has been acknowledged (the paper's gap rule, with TCP's
//!   threshold; assumption). Timeout-based: a packet is lost when no ack came within
//!   SRTT + 4 RTTVAR of its sending (TCP's estimator, RFC 6298 gains; assumption).
//! - RAP does not retransmit; the initial rate is one packet per `initial_rtt` (1 s
//!   before the first sample; assumption).

use super::endpoint::{Io, Pass, ReceiverMetrics, ReceiverPolicy, SenderMetrics, SenderPolicy};
use super::rate_flow::RateFlow;
use super::timer::LazyTimer;
use super::FlowCounters;
use super::{Receiver, Sender};
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::serde_units;
use crate::packet::{Packet, PacketKind};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Parameters of a RAP/GAIMD flow (`params` of a `kind = "rap"` flow).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RapConfig {
    /// Additive increase, packets per SRTT per SRTT (RAP: 1; Welzl's GAIMD: 0.31).
    #[serde(default = "d_alpha")]
    pub alpha: f64,
    /// Multiplicative decrease factor (RAP: 0.5; Welzl's GAIMD: 7/8).
    #[serde(default = "d_beta")]
    pub beta: f64,
    /// Later packets acknowledged before a hole counts as a loss.
    #[serde(default = "d_dupthresh")]
    pub dupthresh: u32,
    /// RTT assumed before the first sample (the first rate is one packet per it).
    #[serde(default = "d_rtt", with = "serde_units::time")]
    pub initial_rtt: SimDuration,
    /// Size of the acknowledgements.
    #[serde(default = "d_ack", with = "serde_units::bytes")]
    pub ack_size: u32,
}

fn d_alpha() -> f64 {
    1.0
}
fn d_beta() -> f64 {
    0.5
}
fn d_dupthresh() -> u32 {
    3
}
fn d_rtt() -> SimDuration {
    SimDuration::from_secs(1)
}
fn d_ack() -> u32 {
    40
}

impl Default for RapConfig {
    fn default() -> Self {
        RapConfig {
            alpha: d_alpha(),
            beta: d_beta(),
            dupthresh: d_dupthresh(),
            initial_rtt: d_rtt(),
            ack_size: d_ack(),
        }
    }
}

impl RateFlow for RapConfig {
    const NAME: &'static str = "rap";
    const DESCRIPTION: &'static str = "RAP / GAIMD rate sender (Rejaie, Handley, Estrin 1999)";
    const SENDER: &'static str = "Rap";
    const RECEIVER: &'static str = "AckEach";

    fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.alpha.is_finite() && self.alpha > 0.0) {
            return Err(("alpha", format!("{} must be positive (RAP: 1, GAIMD: 0.31)", self.alpha)));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(("beta", format!("{} is outside (0, 1) (RAP: 0.5, GAIMD: 0.875)", self.beta)));
        }
        if self.dupthresh == 0 {
            return Err(("dupthresh", "must be at least 1".into()));
        }
        if self.initial_rtt == SimDuration::ZERO {
            return Err(("initial_rtt", "must be positive".into()));
        }
        if self.ack_size == 0 {
            return Err(("ack_size", "must be at least 1 byte".into()));
        }
        Ok(())
    }

    fn build(&self, data: Packet, answer: &dyn Fn(PacketKind, u32) -> Packet, stop: SimTime) -> (Sender, Receiver) {
        let ack = answer(PacketKind::Ack, self.ack_size);
        (Sender::Rap(Box::new(RapSender::new(self.clone(), data, stop))), Receiver::AckEach(AckEach::new(ack)))
    }
}

/// The RAP/GAIMD sender.
#[derive(Clone, Debug)]
pub struct RapSender {
    pub cfg: RapConfig,
    data: Packet,
    /// Rate, packets per second.
    pub rate_pps: f64,
    pub srtt: Option<SimDuration>,
    rttvar: SimDuration,
    /// Packets sent and not yet acknowledged or declared lost: (seq, sent at), in order.
    outstanding: VecDeque<(u32, SimTime)>,
    /// Highest sequence number acknowledged.
    high_ack: Option<u32>,
    /// Time of the last decrease (losses of packets sent before it are the same cluster).
    last_decrease: Option<SimTime>,
    /// A loss was detected in the current step.
    loss_in_step: bool,
    seq: u32,
    stop: SimTime,
    pub decreases: u64,
    pub losses: u64,
    pub pace: LazyTimer,
    /// The step timer (one SRTT), also the timeout check.
    pub step: LazyTimer,
}

impl RapSender {
    pub fn new(cfg: RapConfig, data: Packet, stop: SimTime) -> Self {
        let rate_pps = 1.0 / cfg.initial_rtt.as_secs_f64();
        RapSender {
            cfg,
            data,
            rate_pps,
            srtt: None,
            rttvar: SimDuration::ZERO,
            outstanding: VecDeque::new(),
            high_ack: None,
            last_decrease: None,
            loss_in_step: false,
            seq: 0,
            stop,
            decreases: 0,
            losses: 0,
            pace: LazyTimer::default(),
            step: LazyTimer::default(),
        }
    }

    fn srtt_or_initial(&self) -> SimDuration {
        self.srtt.unwrap_or(self.cfg.initial_rtt)
    }

    /// SRTT + 4 RTTVAR (before a sample: 3 initial RTTs).
    fn timeout(&self) -> SimDuration {
        match self.srtt {
            Some(s) => s + SimDuration::from_ps(4 * self.rttvar.as_ps()),
            None => SimDuration::from_ps(3 * self.cfg.initial_rtt.as_ps()),
        }
    }

    pub fn start(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>) {
        self.on_pace(now, c, out);
        self.step.set_deadline(Some(now + self.srtt_or_initial()));
    }

    pub fn on_pace(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>) {
        if now >= self.stop {
            self.pace.set_deadline(None);
            self.step.set_deadline(None);
            return;
        }
        let mut p = self.data;
        p.seq = self.seq;
        p.ts = now;
        out.push(p);
        c.sent += 1;
        self.outstanding.push_back((self.seq, now));
        self.seq = self.seq.wrapping_add(1);
        self.pace.set_deadline(Some(now + SimDuration::from_secs_f64(1.0 / self.rate_pps).max(super::MIN_PACING_GAP)));
    }

    fn lost(&mut self, now: SimTime, sent: SimTime) {
        self.losses += 1;
        if self.last_decrease.is_some_and(|d| sent < d) {
            return; // the same cluster as the last decrease
        }
        self.rate_pps *= self.cfg.beta;
        self.decreases += 1;
        self.last_decrease = Some(now);
        self.loss_in_step = true;
    }

    /// An ack of packet `seq` (sent at `sent`) arrived.
    pub fn on_ack(&mut self, now: SimTime, seq: u32, sent: SimTime) {
        // RTT estimator (RFC 6298 gains).
        let r = now.saturating_since(sent);
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimDuration::from_ps(r.as_ps() / 2);
            }
            Some(s) => {
                let diff = s.as_ps().abs_diff(r.as_ps());
                self.rttvar = SimDuration::from_ps((3 * self.rttvar.as_ps() + diff) / 4);
                self.srtt = Some(SimDuration::from_ps((7 * s.as_ps() + r.as_ps()) / 8));
            }
        }
        if let Some(i) = self.outstanding.iter().position(|&(s, _)| s == seq) {
            self.outstanding.remove(i);
        }
        self.high_ack = Some(self.high_ack.map_or(seq, |h| h.max(seq)));
        // Ack-based detection: holes dupthresh or more below the highest ack.
        let h = self.high_ack.unwrap_or(0);
        while let Some(&(s, t)) = self.outstanding.front() {
            if s.saturating_add(self.cfg.dupthresh) <= h {
                self.outstanding.pop_front();
                self.lost(now, t);
            } else {
                break;
            }
        }
    }

    /// The step timer fired: timeouts, then the once-per-SRTT increase.
    pub fn on_step(&mut self, now: SimTime) {
        let to = self.timeout();
        while let Some(&(_, t)) = self.outstanding.front() {
            if t + to <= now {
                self.outstanding.pop_front();
                self.lost(now, t);
            } else {
                break;
            }
        }
        if !self.loss_in_step {
            self.rate_pps += self.cfg.alpha / self.srtt_or_initial().as_secs_f64();
        }
        self.loss_in_step = false;
        if now < self.stop {
            self.step.set_deadline(Some(now + self.srtt_or_initial()));
        }
    }
}

impl SenderPolicy for RapSender {
    const DESCRIPTION: &'static str =
        "RAP / GAIMD rate sender (additive increase per step, multiplicative decrease per loss)";
    fn start(&mut self, io: Io<'_>) {
        RapSender::start(self, io.now, io.counters, io.out)
    }
    fn on_ack(&mut self, io: Io<'_>, ack: &Packet) {
        io.counters.acks_arrived += 1;
        RapSender::on_ack(self, io.now, ack.seq, ack.ts)
    }
    fn timers(&mut self) -> (Option<&mut LazyTimer>, Option<&mut LazyTimer>) {
        (Some(&mut self.step), Some(&mut self.pace))
    }
    fn on_timer(&mut self, io: Io<'_>) {
        self.on_step(io.now)
    }
    fn on_pace(&mut self, io: Io<'_>) {
        RapSender::on_pace(self, io.now, io.counters, io.out)
    }
    fn metrics(&self) -> SenderMetrics {
        SenderMetrics { srtt: self.srtt, rate_bps: Some(self.rate_pps * self.data.bits as f64) }
    }
}

impl ReceiverPolicy for AckEach {
    const DESCRIPTION: &'static str = "acknowledges every data packet with its own sequence number (RAP)";
    fn on_data(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
        AckEach::on_data(self, p, io.counters, io.out);
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

    fn sender(cfg: RapConfig) -> (RapSender, FlowCounters, Vec<Packet>) {
        let s = RapSender::new(cfg, Packet::new(PacketKind::Data, 0, 1000), SimTime::MAX);
        (s, FlowCounters::default(), Vec::new())
    }

    #[test]
    fn additive_increase_once_per_srtt_and_halving_on_loss() {
        let (mut s, mut c, mut out) = sender(RapConfig::default());
        s.start(SimTime::ZERO, &mut c, &mut out);
        assert_eq!(s.rate_pps, 1.0);
        assert_eq!(s.pace.deadline(), Some(SimTime::from_secs(1)));
        // An ack after 250 ms: SRTT 250 ms; the step adds alpha/SRTT = 4 pkt/s.
        s.on_ack(SimTime::from_millis(250), 0, SimTime::ZERO);
        s.on_step(SimTime::from_secs(1));
        assert_eq!(s.rate_pps, 5.0);
        assert_eq!(s.step.deadline(), Some(SimTime::from_millis(1250)));
        // Packets 1..=5 sent; 2, 3, 4 acked: packet 1 is 3 below the highest ack: lost.
        for k in 1..=5u32 {
            s.on_pace(SimTime::from_millis(1000 + 10 * k as u64), &mut c, &mut out);
        }
        for k in 2..=3u32 {
            s.on_ack(SimTime::from_millis(1260 + k as u64), k, SimTime::from_millis(1000 + 10 * k as u64));
        }
        assert_eq!(s.losses, 0, "2 later acks: not yet");
        s.on_ack(SimTime::from_millis(1270), 4, SimTime::from_millis(1040));
        assert_eq!((s.losses, s.decreases), (1, 1), "the third later ack declares packet 1 lost");
        s.on_ack(SimTime::from_millis(1275), 5, SimTime::from_millis(1050));
        assert_eq!(s.losses, 1);
        assert_eq!(s.rate_pps, 2.5);
        // No increase in a step with a loss.
        s.on_step(SimTime::from_millis(1300));
        assert_eq!(s.rate_pps, 2.5);
    }

    #[test]
    fn one_decrease_per_cluster_and_timeouts() {
        let (mut s, mut c, mut out) = sender(RapConfig { beta: 0.875, alpha: 0.31, ..Default::default() });
        s.rate_pps = 100.0;
        for k in 0..4u64 {
            s.on_pace(SimTime::from_millis(k), &mut c, &mut out);
        }
        // Timeout before any sample: 3 s. At 3.002 s packets 0..=2 are lost: one decrease.
        s.on_step(SimTime::from_millis(3002));
        assert_eq!((s.losses, s.decreases), (3, 1));
        assert_eq!(s.rate_pps, 87.5);
        // Packet 3 (sent before the decrease) times out later: same cluster.
        s.on_step(SimTime::from_millis(3003));
        assert_eq!((s.losses, s.decreases), (4, 1));
        assert_eq!(s.rate_pps, 87.5 + 0.31);
    }
}

/// The receiver of a RAP flow: acknowledges every data packet with its own sequence
/// number and send time (no cumulative ack, no retransmission).
#[derive(Clone, Debug)]
pub struct AckEach {
    ack: Packet,
}

impl AckEach {
    /// `ack`: template ack on the flow's ack route with its size.
    pub fn new(ack: Packet) -> Self {
        AckEach { ack }
    }

    pub fn on_data(&mut self, p: &Packet, c: &mut FlowCounters, out: &mut Vec<Packet>) {
        c.arrived += 1;
        c.delivered += 1;
        let mut a = self.ack;
        a.seq = p.seq;
        a.ts = p.ts;
        out.push(a);
        c.acks_sent += 1;
    }
}
