//! Packet-voice users in pairs (Heybey 1990, section 2.1.1, after Mosely 1984): the
//! endpoint of a `kind = "voice"` flow. Each voice flow is one *user*; its data route
//! leads to its partner (another voice flow whose route leads back), so the two
//! directions of a pair may take different links (section 2.1.5).
//!
//! - An active user sends `packet_rate` (50) data packets per second; the data rate is
//!   set by the packet *length*: rate / packet_rate bits.
//! - Each data packet is the last of its talk spurt with probability 1/`spurt_mean`
//!   (geometric, mean 60 packets = 1.2 s) and then carries the end-of-spurt flag; the
//!   sender becomes inactive, and its partner becomes active when that packet arrives.
//!   `endless = true` is Mosely's static network (the user talks without stopping).
//! - Every packet carries a control rate (infinity when created, lowered by each smart
//!   link: `element::smart_link`), the feedback rate (the control rate this user last
//!   received, i.e. the rate its partner should use) and, in data packets, the sender's
//!   current rate (`Control::Voice` in the packet's metadata).
//! - An inactive user sends a `control_size` (10-bit) control packet every
//!   `control_interval` (100 ms).
//! - On receiving any packet a user sets its rate to the packet's feedback rate and its
//!   control value to the packet's control rate.
//! - Slow start (section 3.2.3, `slow_start = true`): a new spurt sends at rate/10 until
//!   its first control packet arrives, while still reporting the full rate.
//!
//! Choices where the text is silent (parameters, written down in
//! docs/reproductions/heybey.md): a user starts at `initial_rate` (default 40 kbps,
//! the links' capacity) until feedback arrives; a feedback of infinity (the partner has
//! not heard from any link yet) leaves the rate alone; an inactive user's first control
//! packet leaves one `control_interval` after it became inactive (at its start time if
//! it starts inactive); a user that becomes active sends its first data packet at once;
//! packet lengths are rounded to whole bits (at least one); the rate field stays exact.

use super::endpoint::{First, Io, Pass, ReceiverMetrics, ReceiverPolicy, SenderMetrics, SenderPolicy};
use super::FlowCounters;
use crate::base::rng::Rng;
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::serde_units;
use crate::packet::meta::{Control, MetaSlab};
use crate::packet::{Packet, PacketKind};
use serde::{Deserialize, Serialize};

/// Defined with the packet metadata that carries it (`meta::Control::Voice`).
pub use crate::packet::meta::VoiceStamp;

/// `voice = { ... }` of a voice flow (scenario-file schema).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoiceConfig {
    /// The partner's flow name (its route must lead back: its `from` is this flow's `to`).
    pub partner: String,
    /// Data packets per second while active (Heybey: 50).
    #[serde(default = "d_packet_rate")]
    pub packet_rate: f64,
    /// Mean talk spurt, packets (geometric; Heybey: 60, i.e. 1.2 s).
    #[serde(default = "d_spurt_mean")]
    pub spurt_mean: f64,
    /// Talk without stopping (Mosely's static network).
    #[serde(default)]
    pub endless: bool,
    /// The user talks first.
    #[serde(default)]
    pub starts_active: bool,
    /// Interval of the inactive user's control packets (Heybey: 100 ms).
    #[serde(default = "d_control_interval", with = "serde_units::time")]
    pub control_interval: SimDuration,
    /// Size of a control packet (Heybey: 10 bits).
    #[serde(default = "d_control_size", with = "serde_units::bits")]
    pub control_size: u32,
    /// Rate before any feedback has arrived.
    #[serde(default = "d_initial_rate", with = "serde_units::rate")]
    pub initial_rate: u64,
    /// Slow start (section 3.2.3).
    #[serde(default)]
    pub slow_start: bool,
    /// Slow start sends at rate / this (Heybey: 10).
    #[serde(default = "d_slow_divisor")]
    pub slow_start_divisor: f64,
}

fn d_packet_rate() -> f64 {
    50.0
}
fn d_spurt_mean() -> f64 {
    60.0
}
fn d_control_interval() -> SimDuration {
    SimDuration::from_millis(100)
}
fn d_control_size() -> u32 {
    10
}
fn d_initial_rate() -> u64 {
    40_000
}
fn d_slow_divisor() -> f64 {
    10.0
}

impl VoiceConfig {
    /// Checks the values: (field, message).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.packet_rate.is_finite() && self.packet_rate > 0.0 && self.packet_rate <= 1e6) {
            return Err(("packet_rate", format!("must be in (0, 1e6] packets/s, got {}", self.packet_rate)));
        }
        if !(self.spurt_mean.is_finite() && self.spurt_mean >= 1.0) {
            return Err(("spurt_mean", format!("must be at least 1 packet, got {}", self.spurt_mean)));
        }
        if self.control_interval < SimDuration::from_micros(1) {
            return Err(("control_interval", "must be at least 1us".into()));
        }
        if self.control_size == 0 {
            return Err(("control_size", "must be at least 1 bit".into()));
        }
        if self.initial_rate == 0 {
            return Err(("initial_rate", "must be positive".into()));
        }
        if !(self.slow_start_divisor.is_finite() && self.slow_start_divisor >= 1.0) {
            return Err(("slow_start_divisor", format!("must be at least 1, got {}", self.slow_start_divisor)));
        }
        Ok(())
    }
}

/// One voice user.
#[derive(Clone, Debug)]
pub struct VoiceUser {
    cfg: VoiceConfig,
    /// Data packet template (flow and route set).
    template: Packet,
    start: SimTime,
    gap: SimDuration,
    rng: Rng,
    pub active: bool,
    /// Current transmission rate, bits/s.
    pub rate_bps: f64,
    /// Control value to send back to the partner (last control rate received).
    pub control_bps: f64,
    /// In slow start (until the spurt's first control packet).
    pub slow: bool,
    /// Time of the next tick (a tick event at another time is stale).
    next: SimTime,
    seq: u32,
    /// Talk spurts begun.
    pub spurts: u64,
    /// Control packets sent.
    pub control_sent: u64,
}

impl VoiceUser {
    pub fn new(cfg: VoiceConfig, template: Packet, start: SimTime, rng: Rng) -> Self {
        let gap = SimDuration::from_secs_f64(1.0 / cfg.packet_rate);
        let rate_bps = cfg.initial_rate as f64;
        VoiceUser {
            cfg,
            template,
            start,
            gap,
            rng,
            active: false,
            rate_bps,
            control_bps: f64::INFINITY,
            slow: false,
            next: SimTime::MAX,
            seq: 0,
            spurts: 0,
            control_sent: 0,
        }
    }

    /// The first tick (at the user's start time).
    pub fn first(&mut self) -> Option<SimTime> {
        if self.cfg.starts_active {
            self.begin_spurt();
        }
        self.next = self.start;
        Some(self.start)
    }

    fn begin_spurt(&mut self) {
        self.active = true;
        self.slow = self.cfg.slow_start;
        self.spurts += 1;
    }

    /// Bits of the next data packet: the rate over the packet rate (a tenth of it in
    /// slow start), rounded, at least one bit.
    pub fn data_bits(&self) -> u32 {
        let r = if self.slow { self.rate_bps / self.cfg.slow_start_divisor } else { self.rate_bps };
        (r / self.cfg.packet_rate).round().clamp(1.0, u32::MAX as f64) as u32
    }

    /// The tick scheduled for `now`: a data packet (active) or a control packet
    /// (inactive). Returns the next tick, or `None` if this event was stale.
    pub fn tick(
        &mut self,
        now: SimTime,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        meta: &mut MetaSlab,
    ) -> Option<SimTime> {
        if now != self.next {
            return None;
        }
        let mut p = self.template;
        p.ts = now;
        let h = meta.alloc();
        p.meta = h;
        if self.active {
            p.seq = self.seq;
            self.seq = self.seq.wrapping_add(1);
            p.bits = self.data_bits();
            let eos = !self.cfg.endless && self.rng.next_f64() * self.cfg.spurt_mean < 1.0;
            meta.get_mut(h).control = Control::Voice(VoiceStamp {
                control_bps: f64::INFINITY,
                feedback_bps: self.control_bps,
                rate_bps: self.rate_bps,
                data: true,
                end_of_spurt: eos,
            });
            c.sent += 1;
            if eos {
                self.active = false;
                self.slow = false;
                self.next = now + self.cfg.control_interval;
            } else {
                self.next = now + self.gap;
            }
        } else {
            p.kind = PacketKind::Control;
            p.bits = self.cfg.control_size;
            meta.get_mut(h).control = Control::Voice(VoiceStamp {
                control_bps: f64::INFINITY,
                feedback_bps: self.control_bps,
                rate_bps: 0.0,
                data: false,
                end_of_spurt: false,
            });
            self.control_sent += 1;
            self.next = now + self.cfg.control_interval;
        }
        out.push(p);
        Some(self.next)
    }

    /// A packet from the partner arrived. Returns the time of a tick to schedule (the
    /// user just became active and sends at once).
    pub fn on_receive(&mut self, now: SimTime, s: &VoiceStamp) -> Option<SimTime> {
        if s.feedback_bps.is_finite() {
            self.rate_bps = s.feedback_bps;
        }
        self.control_bps = s.control_bps;
        if !s.data && self.active {
            self.slow = false;
        }
        if s.data && s.end_of_spurt && !self.active {
            self.begin_spurt();
            self.next = now;
            return Some(now);
        }
        None
    }
}

impl SenderPolicy for VoiceUser {
    const DESCRIPTION: &'static str =
        "a packet-voice user (Heybey): talk spurts and silences, rates fed back by its partner";
    fn first(&mut self, _start: SimTime) -> First {
        VoiceUser::first(self).map_or(First::Never, First::Tick)
    }
    fn on_tick(&mut self, io: Io<'_>) -> Option<SimTime> {
        self.tick(io.now, io.counters, io.out, io.meta)
    }
    /// A packet of the partner's reached this user (`VoiceReceiver`).
    fn on_pass(&mut self, now: SimTime, c: &Control) -> Option<SimTime> {
        match c {
            Control::Voice(s) => self.on_receive(now, s),
            _ => None,
        }
    }
    fn metrics(&self) -> SenderMetrics {
        SenderMetrics { srtt: None, rate_bps: Some(self.rate_bps) }
    }
}

/// The receiving end of a voice flow, at its partner's host: counts the user's packets
/// and hands each one's stamp to the partner (`Pass`), who adopts its rates and may
/// start a talk spurt.
#[derive(Clone, Copy, Debug)]
pub struct VoiceReceiver {
    /// The partner's flow index.
    pub partner: u32,
    /// Bits of the user's data packets that reached the partner.
    pub delivered_bits: u64,
}

impl VoiceReceiver {
    pub fn new(partner: u32) -> Self {
        VoiceReceiver { partner, delivered_bits: 0 }
    }

    /// The packet's stamp, for the partner.
    fn pass(&self, p: &Packet, meta: &MetaSlab) -> Option<Pass> {
        match meta.get(p.meta).map(|m| m.control) {
            Some(c @ Control::Voice(_)) => Some(Pass { flow: self.partner, control: c }),
            _ => None,
        }
    }
}

impl ReceiverPolicy for VoiceReceiver {
    const DESCRIPTION: &'static str = "a voice user's partner: counts the user's packets and hands their stamps over";
    fn on_data(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
        io.counters.arrived += 1;
        io.counters.delivered += 1;
        self.delivered_bits += p.bits as u64;
        self.pass(p, io.meta)
    }
    fn on_control(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
        self.pass(p, io.meta)
    }
    fn metrics(&self) -> ReceiverMetrics {
        ReceiverMetrics { delivered_bits: Some(self.delivered_bits) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> VoiceConfig {
        VoiceConfig {
            partner: "b".into(),
            packet_rate: 50.0,
            spurt_mean: 60.0,
            endless: false,
            starts_active: true,
            control_interval: SimDuration::from_millis(100),
            control_size: 10,
            initial_rate: 40_000,
            slow_start: false,
            slow_start_divisor: 10.0,
        }
    }

    fn stamp(m: &MetaSlab, p: &Packet) -> VoiceStamp {
        match m.get(p.meta).unwrap().control {
            Control::Voice(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn active_user_sends_rate_over_fifty_bits_every_20ms() {
        let mut c = cfg();
        c.endless = true;
        let mut u = VoiceUser::new(c, Packet::new(PacketKind::Data, 0, 0), SimTime::ZERO, Rng::new(1, 0));
        let (mut m, mut out, mut k) = (MetaSlab::default(), Vec::new(), FlowCounters::default());
        let mut t = u.first().unwrap();
        for _ in 0..3 {
            t = u.tick(t, &mut k, &mut out, &mut m).unwrap();
        }
        assert_eq!(t, SimTime::from_millis(60));
        // 40 kbps / 50 = 800 bits.
        assert!(out.iter().all(|p| p.bits == 800 && p.kind == PacketKind::Data));
        assert_eq!(out.iter().map(|p| p.ts.as_secs_f64()).collect::<Vec<_>>(), vec![0.0, 0.02, 0.04]);
        let s = stamp(&m, &out[0]);
        assert_eq!((s.control_bps, s.feedback_bps, s.rate_bps, s.data), (f64::INFINITY, f64::INFINITY, 40_000.0, true));
        assert_eq!(k.sent, 3);
        // A stale event (not the scheduled time) does nothing.
        assert_eq!(u.tick(SimTime::from_millis(50), &mut k, &mut out, &mut m), None);
    }

    #[test]
    fn receiving_sets_rate_and_control_value_and_end_of_spurt_activates() {
        let mut c = cfg();
        c.starts_active = false;
        c.slow_start = true;
        let mut u = VoiceUser::new(c, Packet::new(PacketKind::Data, 0, 0), SimTime::ZERO, Rng::new(1, 0));
        let (mut m, mut out, mut k) = (MetaSlab::default(), Vec::new(), FlowCounters::default());
        let t0 = u.first().unwrap();
        // Inactive: a 10-bit control packet, the next one 100 ms later, carrying the
        // control value it holds as feedback.
        assert_eq!(u.tick(t0, &mut k, &mut out, &mut m), Some(SimTime::from_millis(100)));
        assert_eq!((out[0].kind, out[0].bits), (PacketKind::Control, 10));
        let data = |eos| VoiceStamp {
            control_bps: 15_000.0,
            feedback_bps: 22_000.0,
            rate_bps: 30_000.0,
            data: true,
            end_of_spurt: eos,
        };
        assert_eq!(u.on_receive(SimTime::from_millis(30), &data(false)), None);
        assert_eq!((u.rate_bps, u.control_bps, u.active), (22_000.0, 15_000.0, false));
        let t = SimTime::from_millis(50);
        assert_eq!(u.on_receive(t, &data(true)), Some(t));
        assert!(u.active && u.slow);
        // Slow start: 22000 / 10 / 50 = 44 bits, but the packet reports 22000.
        u.tick(t, &mut k, &mut out, &mut m).unwrap();
        assert_eq!(out[1].bits, 44);
        let s = stamp(&m, &out[1]);
        assert_eq!((s.rate_bps, s.feedback_bps), (22_000.0, 15_000.0));
        // The old control tick at 100 ms is stale now.
        assert_eq!(u.tick(SimTime::from_millis(100), &mut k, &mut out, &mut m), None);
        // The first control packet ends slow start; infinite feedback leaves the rate.
        let ctl = VoiceStamp {
            control_bps: 9_000.0,
            feedback_bps: f64::INFINITY,
            rate_bps: 0.0,
            data: false,
            end_of_spurt: false,
        };
        u.on_receive(SimTime::from_millis(60), &ctl);
        assert!(!u.slow);
        assert_eq!(u.data_bits(), 440);
        assert_eq!(u.control_bps, 9_000.0);
    }

    #[test]
    fn spurts_are_geometric_with_mean_60_packets() {
        let mut u = VoiceUser::new(cfg(), Packet::new(PacketKind::Data, 0, 0), SimTime::ZERO, Rng::new(9, 3));
        let (mut m, mut out, mut k) = (MetaSlab::default(), Vec::new(), FlowCounters::default());
        let mut t = u.first().unwrap();
        let mut spurts = 0u64;
        let eos_packet = |s: &VoiceStamp| s.end_of_spurt;
        while spurts < 20_000 {
            t = u.tick(t, &mut k, &mut out, &mut m).unwrap();
            let p = out.pop().unwrap();
            let s = stamp(&m, &p);
            m.free(p.meta);
            if eos_packet(&s) {
                spurts += 1;
                // Reactivate at once (as if the partner answered immediately).
                t = u.on_receive(t, &VoiceStamp { end_of_spurt: true, ..s }).unwrap();
            }
        }
        let mean = k.sent as f64 / spurts as f64;
        // Geometric mean 60, sd ~59.5: the mean of 20000 spurts is within 60 +- 1.3 (3 sd).
        assert!((mean - 60.0).abs() < 1.3, "{mean}");
    }
}
