//! CADPC (Welzl 2003, "Router Aided Congestion Avoidance with Scalable Performance
//! Signaling", section 3) and the receiver half of PTP forward packet stamping
//! (section 2).
//!
//! - The sender (`CadpcSender`) is a rate-based source paced at rate x. It sends a PTP
//!   request (a control packet of `ptp_size` bytes on the data route) now and then;
//!   routers with a `ptp` element append a record (element/ptp.rs).
//! - The receiver (`PtpReceiver`) keeps the previous PTP packet's table; from two
//!   consecutive tables it computes per hop the traffic lambda = dbytes*8/dt and the
//!   available bandwidth B - lambda, picks the hop with the least, and returns
//!   (B, lambda, delta) in a feedback packet (`Feedback::Bandwidth`) on the ack route.
//!   The first PTP packet has no predecessor: its feedback carries `interval = 0`
//!   ("no measurement yet"), which only gives the sender an RTT.
//! - On feedback the sender updates x <- x + a*x*(1 - x/B - lambda/B) (eq. 1 is a = 1;
//!   the smoothness factor a defaults to 0.5, Table 1). x never reaches zero: it is kept
//!   at or above `min_rate`. Section 3.1: "The old rate, x(t), can be arbitrarily small
//!   but it must not reach zero", since x = 0 is the unstable equilibrium of eq. 2 ("hence
//!   the rule that the rate must not reach zero"). The mechanism sets no other lower
//!   bound, so `min_rate` defaults to the smallest positive rate the parameter holds,
//!   1 bit/s; it binds only when an update would end at or below it (with a = 0.5, when
//!   x/B + lambda/B approaches 3). `initial_rate` is only the starting rate.
//! - Update frequency (section 3.2): the RTT is measured from the PTP packet's departure
//!   to its feedback's arrival; the next PTP packet departs `update` RTTs after the
//!   previous one (default 4, Table 1), so feedback arrives about every `update` RTTs and
//!   each measurement spans about that long. A lost PTP or feedback packet is covered by
//!   a guard: if no feedback came `2*update` RTTs (before the first RTT: `ptp_timeout`)
//!   after a PTP departure, another is sent.
//! - Startup enhancement: described only in the paper's reference [1]. Reconstruction
//!   from the paper's words ("temporarily allows a flow to be slightly more aggressive",
//!   "almost degrades to regular logistic growth" when updates are rare, some flows
//!   "were capable of using the startup mechanism while others were not"): while in
//!   startup the update uses a = 1 (eq. 1 as printed, at most doubling the rate per
//!   update instead of x1.5); startup ends at the first feedback whose update would lower
//!   the rate (1 - x/B - lambda/B < 0). Off with `startup = false`.
//!
//! CADPC does not acknowledge data packets: the receiver counts them (like a sink).

use super::endpoint::{Io, Pass, ReceiverMetrics, ReceiverPolicy, SenderMetrics, SenderPolicy};
use super::rate_flow::RateFlow;
use super::timer::LazyTimer;
use super::FlowCounters;
use super::{Receiver, Sender};
use crate::base::time::{SimDuration, SimTime};
use crate::base::units::serde_units;
use crate::cc::Feedback;
use crate::packet::meta::{Control, MetaSlab, Stamp};
use crate::packet::{Packet, PacketKind};
use serde::{Deserialize, Serialize};

/// Parameters of a CADPC flow (`params` of a `kind = "cadpc"` flow).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CadpcConfig {
    /// Smoothness factor a (Table 1: 0.5; eq. 1 is a = 1).
    #[serde(default = "d_a")]
    pub a: f64,
    /// PTP update interval in RTTs (Table 1: 4).
    #[serde(default = "d_update")]
    pub update: f64,
    /// The startup enhancement (Table 1: active); see the module comment.
    #[serde(default = "d_true")]
    pub startup: bool,
    /// Initial rate, bits/s. Default 8 kbps: one 1000-byte packet per second,
    /// "arbitrarily small" next to every bottleneck of the paper.
    #[serde(default = "d_initial", with = "serde_units::rate")]
    pub initial_rate: u64,
    /// Floor of the rate, bits/s: section 3.1's rate "can be arbitrarily small but it
    /// must not reach zero"; default the smallest positive value, 1 bit/s.
    #[serde(default = "d_min", with = "serde_units::rate")]
    pub min_rate: u64,
    /// Size of a PTP request leaving the sender (the paper's mode: 32 bytes, growing by
    /// the `ptp` element's record size at each router).
    #[serde(default = "d_ptp", with = "serde_units::bytes")]
    pub ptp_size: u32,
    /// Size of the feedback packet (B, lambda, delta over IP): 40 bytes.
    #[serde(default = "d_fb", with = "serde_units::bytes")]
    pub feedback_size: u32,
    /// Guard before the first RTT is known: resend a PTP request if no feedback came.
    #[serde(default = "d_timeout", with = "serde_units::time")]
    pub ptp_timeout: SimDuration,
}

fn d_a() -> f64 {
    0.5
}
fn d_update() -> f64 {
    4.0
}
fn d_true() -> bool {
    true
}
fn d_initial() -> u64 {
    8_000
}
fn d_min() -> u64 {
    1
}
fn d_ptp() -> u32 {
    32
}
fn d_fb() -> u32 {
    40
}
fn d_timeout() -> SimDuration {
    SimDuration::from_secs(3)
}

impl Default for CadpcConfig {
    fn default() -> Self {
        CadpcConfig {
            a: d_a(),
            update: d_update(),
            startup: true,
            initial_rate: d_initial(),
            min_rate: d_min(),
            ptp_size: d_ptp(),
            feedback_size: d_fb(),
            ptp_timeout: d_timeout(),
        }
    }
}

impl RateFlow for CadpcConfig {
    const NAME: &'static str = "cadpc";
    const DESCRIPTION: &'static str = "Welzl's CADPC rate sender; needs ptp elements on the routers' outgoing channels";
    const SENDER: &'static str = "Cadpc";
    const RECEIVER: &'static str = "Ptp";

    /// Checks the values: (field, message) of the first bad one.
    fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.a > 0.0 && self.a <= 1.0) {
            return Err(("a", format!("{} is outside (0, 1]; the paper uses 0.5", self.a)));
        }
        if !(self.update.is_finite() && self.update >= 1.0) {
            return Err((
                "update",
                format!("{} RTTs is less than one RTT, which the paper says oscillates; use 4", self.update),
            ));
        }
        if self.initial_rate == 0 {
            return Err(("initial_rate", "must be positive: the rate must never reach zero (section 3.1)".into()));
        }
        if self.min_rate == 0 {
            return Err((
                "min_rate",
                "must be positive: the rate must never reach zero (section 3.1); use 1bps".into(),
            ));
        }
        if self.min_rate > self.initial_rate {
            return Err((
                "min_rate",
                format!(
                    "{} bps is above initial_rate ({} bps): lower it or raise initial_rate",
                    self.min_rate, self.initial_rate
                ),
            ));
        }
        if self.ptp_size == 0 || self.feedback_size == 0 {
            let f = if self.ptp_size == 0 { "ptp_size" } else { "feedback_size" };
            return Err((f, "must be at least 1 byte".into()));
        }
        if self.ptp_timeout == SimDuration::ZERO {
            return Err(("ptp_timeout", "must be positive".into()));
        }
        Ok(())
    }

    fn build(&self, data: Packet, answer: &dyn Fn(PacketKind, u32) -> Packet, stop: SimTime) -> (Sender, Receiver) {
        let feedback = answer(PacketKind::Control, self.feedback_size);
        (
            Sender::Cadpc(Box::new(CadpcSender::new(self.clone(), data, stop))),
            Receiver::Ptp(Box::new(PtpReceiver::new(feedback))),
        )
    }
}

/// Equation 1 with the smoothness factor: x + a*x*(1 - x/B - lambda/B).
pub fn cadpc_update(x: f64, capacity: f64, traffic: f64, a: f64) -> f64 {
    x + a * x * (1.0 - x / capacity - traffic / capacity)
}

/// The bottleneck of two consecutive PTP tables: for each hop of `cur` with a record of
/// the same interface in `prev`, lambda = dbytes*8/dt and B - lambda; returns
/// (B, lambda, dt) of the hop with the least available bandwidth (the first on ties).
pub fn bottleneck(prev: &[Stamp], cur: &[Stamp]) -> Option<(f64, f64, SimDuration)> {
    let mut best: Option<(f64, f64, SimDuration)> = None;
    for c in cur {
        let Some(p) = prev.iter().find(|p| p.channel == c.channel) else { continue };
        if c.time_ps <= p.time_ps {
            continue;
        }
        let dt = SimDuration::from_ps(c.time_ps - p.time_ps);
        let lambda = c.out_bytes.saturating_sub(p.out_bytes) as f64 * 8.0 / dt.as_secs_f64();
        let b = c.rate_bps as f64;
        if best.is_none_or(|(bb, bl, _)| b - lambda < bb - bl) {
            best = Some((b, lambda, dt));
        }
    }
    best
}

/// The CADPC sender.
#[derive(Clone, Debug)]
pub struct CadpcSender {
    pub cfg: CadpcConfig,
    data: Packet,
    ptp: Packet,
    /// Current rate, bits/s (on the wire: the data packets' size).
    pub rate_bps: f64,
    /// Still in the startup phase.
    pub in_startup: bool,
    /// Last RTT measured from a PTP request and its feedback.
    pub rtt: Option<SimDuration>,
    /// Rate updates applied, PTP requests sent.
    pub updates: u64,
    pub ptp_sent: u64,
    seq: u32,
    last_data: Option<SimTime>,
    stop: SimTime,
    /// Pacing timer (next data packet) and PTP timer (next request or guard).
    pub pace: LazyTimer,
    pub ptp_timer: LazyTimer,
}

impl CadpcSender {
    /// `data`: template data packet (flow, route, size); `ptp_route`: the data route.
    pub fn new(cfg: CadpcConfig, data: Packet, stop: SimTime) -> Self {
        let mut ptp = data;
        ptp.kind = PacketKind::Control;
        ptp.bits = cfg.ptp_size * 8;
        let rate_bps = cfg.initial_rate as f64;
        let in_startup = cfg.startup;
        CadpcSender {
            cfg,
            data,
            ptp,
            rate_bps,
            in_startup,
            rtt: None,
            updates: 0,
            ptp_sent: 0,
            seq: 0,
            last_data: None,
            stop,
            pace: LazyTimer::default(),
            ptp_timer: LazyTimer::default(),
        }
    }

    fn gap(&self) -> SimDuration {
        SimDuration::from_secs_f64(self.data.bits as f64 / self.rate_bps).max(super::MIN_PACING_GAP)
    }

    /// The flow starts: a PTP request and the first data packet.
    pub fn start(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        self.send_ptp(now, out, meta);
        self.on_pace(now, c, out);
    }

    fn send_ptp(&mut self, now: SimTime, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        let mut p = self.ptp;
        p.seq = self.ptp_sent as u32;
        p.ts = now;
        let h = meta.alloc();
        meta.get_mut(h).control = Control::PtpRequest;
        p.meta = h;
        out.push(p);
        self.ptp_sent += 1;
        let guard = match self.rtt {
            Some(r) => SimDuration::from_secs_f64(2.0 * self.cfg.update * r.as_secs_f64()),
            None => self.cfg.ptp_timeout,
        };
        self.ptp_timer.set_deadline(Some(now + guard));
    }

    /// The pacing timer fired: one data packet, then the next one a gap later.
    pub fn on_pace(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>) {
        if now >= self.stop {
            self.pace.set_deadline(None);
            return;
        }
        let mut p = self.data;
        p.seq = self.seq;
        p.ts = now;
        self.seq = self.seq.wrapping_add(1);
        out.push(p);
        c.sent += 1;
        self.last_data = Some(now);
        self.pace.set_deadline(Some(now + self.gap()));
    }

    /// The PTP timer fired: the next request (or the guard after a lost one).
    pub fn on_ptp_timer(&mut self, now: SimTime, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        if now < self.stop {
            self.send_ptp(now, out, meta);
        }
    }

    /// Feedback for the PTP request sent at `sent`.
    pub fn on_feedback(&mut self, now: SimTime, fb: &Feedback, sent: SimTime) {
        let rtt = now.saturating_since(sent);
        self.rtt = Some(rtt);
        if let Feedback::Bandwidth { capacity_bps, traffic_bps, interval } = *fb {
            if interval > SimDuration::ZERO && capacity_bps > 0.0 {
                let x = self.rate_bps;
                let grow = 1.0 - x / capacity_bps - traffic_bps / capacity_bps;
                if grow < 0.0 {
                    self.in_startup = false;
                }
                let a = if self.in_startup { 1.0 } else { self.cfg.a };
                self.rate_bps = cadpc_update(x, capacity_bps, traffic_bps, a).max(self.cfg.min_rate as f64);
                self.updates += 1;
                // The next data packet one new gap after the last one.
                if self.pace.deadline().is_some() {
                    if let Some(last) = self.last_data {
                        self.pace.set_deadline(Some((last + self.gap()).max(now)));
                    }
                }
            }
        }
        let next = sent + SimDuration::from_secs_f64(self.cfg.update * rtt.as_secs_f64());
        self.ptp_timer.set_deadline(Some(next.max(now)));
    }
}

/// The PTP receiver of a CADPC flow: counts data, answers PTP requests with feedback.
#[derive(Clone, Debug)]
pub struct PtpReceiver {
    feedback: Packet,
    prev: Vec<Stamp>,
    have_prev: bool,
    /// Feedback packets carrying a measurement.
    pub measurements: u64,
}

impl PtpReceiver {
    /// `feedback`: template control packet on the ack route with its size.
    pub fn new(feedback: Packet) -> Self {
        PtpReceiver { feedback, prev: Vec::new(), have_prev: false, measurements: 0 }
    }

    /// A PTP request `p` arrived: feedback from its table and the previous one.
    pub fn on_ptp(&mut self, p: &Packet, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        let stamps: &[Stamp] = meta.get(p.meta).map(|m| m.stamps.as_slice()).unwrap_or(&[]);
        let got = if self.have_prev { bottleneck(&self.prev, stamps) } else { None };
        self.prev.clear();
        self.prev.extend_from_slice(stamps);
        self.have_prev = true;
        let fb = match got {
            Some((b, l, dt)) => {
                self.measurements += 1;
                Feedback::Bandwidth { capacity_bps: b, traffic_bps: l, interval: dt }
            }
            None => Feedback::Bandwidth { capacity_bps: 0.0, traffic_bps: 0.0, interval: SimDuration::ZERO },
        };
        let mut f = self.feedback;
        f.seq = p.seq;
        f.ts = p.ts;
        let h = meta.alloc();
        meta.get_mut(h).control = Control::Feedback(fb);
        f.meta = h;
        out.push(f);
    }

    /// A data packet arrived.
    #[inline]
    pub fn on_data(&mut self, c: &mut FlowCounters) {
        c.arrived += 1;
        c.delivered += 1;
    }
}

impl SenderPolicy for CadpcSender {
    const DESCRIPTION: &'static str = "Welzl's CADPC rate sender, fed by PTP bottleneck reports";
    fn start(&mut self, io: Io<'_>) {
        CadpcSender::start(self, io.now, io.counters, io.out, io.meta)
    }
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback, echo: SimTime) {
        CadpcSender::on_feedback(self, now, fb, echo)
    }
    fn timers(&mut self) -> (Option<&mut LazyTimer>, Option<&mut LazyTimer>) {
        (Some(&mut self.ptp_timer), Some(&mut self.pace))
    }
    fn on_timer(&mut self, io: Io<'_>) {
        self.on_ptp_timer(io.now, io.out, io.meta)
    }
    fn on_pace(&mut self, io: Io<'_>) {
        CadpcSender::on_pace(self, io.now, io.counters, io.out)
    }
    fn metrics(&self) -> SenderMetrics {
        SenderMetrics { srtt: self.rtt, rate_bps: Some(self.rate_bps) }
    }
}

impl ReceiverPolicy for PtpReceiver {
    const DESCRIPTION: &'static str = "counts data and answers PTP requests with bottleneck feedback (CADPC)";
    fn on_data(&mut self, io: Io<'_>, _p: &Packet) -> Option<Pass> {
        PtpReceiver::on_data(self, io.counters);
        None
    }
    fn on_control(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
        if matches!(io.meta.get(p.meta).map(|m| m.control), Some(Control::PtpRequest)) {
            self.on_ptp(p, io.out, io.meta);
        }
        None
    }
    fn metrics(&self) -> ReceiverMetrics {
        ReceiverMetrics::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(channel: u32, t_ms: u64, rate: u64, bytes: u64) -> Stamp {
        Stamp { channel, time_ps: t_ms * 1_000_000_000, rate_bps: rate, out_bytes: bytes }
    }

    #[test]
    fn update_is_equation_one_with_smoothness() {
        // x = 1 Mbps, B = 10 Mbps, lambda = 4 Mbps: 1 - 0.1 - 0.4 = 0.5;
        // a = 0.5 adds 0.25 Mbps; a = 1 (eq. 1: x(2 - x/B - lambda/B)) adds 0.5 Mbps.
        assert!((cadpc_update(1e6, 10e6, 4e6, 0.5) - 1.25e6).abs() < 1e-6);
        assert!((cadpc_update(1e6, 10e6, 4e6, 1.0) - 1.5e6).abs() < 1e-6);
        // At the fluid equilibrium of n = 10 flows (x = B/11, lambda = 10 B/11) it stays.
        let x = 10e6 / 11.0;
        assert!((cadpc_update(x, 10e6, 10.0 * x, 0.5) - x).abs() < 1e-6);
    }

    #[test]
    fn bottleneck_picks_the_hop_with_least_available_bandwidth() {
        // Hop 4 (10 Mbps): 500000 B in 1 s = 4 Mbps, 6 Mbps free.
        // Hop 6 (1 Gbps): 600000 B in 1 s = 4.8 Mbps, 995.2 Mbps free.
        let prev = [st(4, 1000, 10_000_000, 1_000_000), st(6, 1050, 1_000_000_000, 5_000_000)];
        let cur = [st(4, 2000, 10_000_000, 1_500_000), st(6, 2050, 1_000_000_000, 5_600_000)];
        let (b, l, dt) = bottleneck(&prev, &cur).unwrap();
        assert_eq!(b, 10e6);
        assert!((l - 4e6).abs() < 1e-6);
        assert_eq!(dt, SimDuration::from_secs(1));
        // No common interface: no measurement.
        assert!(bottleneck(&prev[..1], &cur[1..]).is_none());
        // Matched by interface, not position (a path change reorders the table).
        let swapped = [cur[1], cur[0]];
        assert_eq!(bottleneck(&prev, &swapped).unwrap().0, 10e6);
    }

    fn sender(cfg: CadpcConfig) -> CadpcSender {
        CadpcSender::new(cfg, Packet::new(PacketKind::Data, 0, 1000), SimTime::MAX)
    }

    #[test]
    fn sender_paces_at_its_rate_and_requests_ptp() {
        let mut s = sender(CadpcConfig { initial_rate: 80_000, ..Default::default() });
        let (mut c, mut out, mut meta) = (FlowCounters::default(), Vec::new(), MetaSlab::default());
        s.start(SimTime::ZERO, &mut c, &mut out, &mut meta);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].kind, PacketKind::Control);
        assert_eq!(out[0].bits, 32 * 8);
        assert_eq!(meta.get(out[0].meta).unwrap().control, Control::PtpRequest);
        // 8000 bits at 80 kbps: 100 ms.
        assert_eq!(s.pace.deadline(), Some(SimTime::from_millis(100)));
        assert_eq!(s.ptp_timer.deadline(), Some(SimTime::from_secs(3)));
        // First feedback (no measurement) after 300 ms: RTT only; next PTP at 4 RTTs.
        let none = Feedback::Bandwidth { capacity_bps: 0.0, traffic_bps: 0.0, interval: SimDuration::ZERO };
        s.on_feedback(SimTime::from_millis(300), &none, SimTime::ZERO);
        assert_eq!(s.rate_bps, 80_000.0);
        assert_eq!(s.ptp_timer.deadline(), Some(SimTime::from_millis(1200)));
        // A measurement: startup uses a = 1: 80k * (2 - 0.008 - 0.5) = 119360.
        let fb = Feedback::Bandwidth { capacity_bps: 10e6, traffic_bps: 5e6, interval: SimDuration::from_secs(1) };
        s.on_feedback(SimTime::from_millis(1500), &fb, SimTime::from_millis(1200));
        assert!((s.rate_bps - 119_360.0).abs() < 1e-6, "{}", s.rate_bps);
        assert!(s.in_startup);
        // The next data packet one new gap after the last one (at 0): 8000/119360 s.
        assert_eq!(s.pace.deadline(), Some(SimTime::from_millis(1500)), "the new gap ended already: now");
        // Overload ends startup and uses a = 0.5: 119360 * (1 + 0.5 * (1 - 0.011936 - 1.1)).
        let over = Feedback::Bandwidth { capacity_bps: 10e6, traffic_bps: 11e6, interval: SimDuration::from_secs(1) };
        s.on_feedback(SimTime::from_millis(2900), &over, SimTime::from_millis(2600));
        assert!(!s.in_startup);
        let want = 119_360.0 * (1.0 + 0.5 * (1.0 - 0.011936 - 1.1));
        assert!((s.rate_bps - want).abs() < 1e-6, "{} vs {want}", s.rate_bps);
    }

    #[test]
    fn rate_never_reaches_zero() {
        // a = 1, x = 5 Mbps, B = lambda = 1 Mbps: 5e6 * (2 - 5 - 1) = -2e7 < 0: the floor.
        let mut s = sender(CadpcConfig { startup: false, a: 1.0, ..Default::default() });
        s.rate_bps = 5e6;
        let fb = Feedback::Bandwidth { capacity_bps: 1e6, traffic_bps: 1e6, interval: SimDuration::from_secs(1) };
        s.on_feedback(SimTime::from_secs(2), &fb, SimTime::from_secs(1));
        assert_eq!(s.rate_bps, 1.0, "floored at min_rate, 1 bit/s by default");
        // The floor is min_rate, not the initial rate: x = 6 kbps below the 8 kbps start,
        // B = 1 Mbps, lambda = 1.1 Mbps, a = 0.5: 6000 * (1 + 0.5 * (1 - 0.006 - 1.1))
        // = 6000 * 0.947 = 5682 bps, above a 5 kbps floor and kept.
        let mut s = sender(CadpcConfig { startup: false, min_rate: 5_000, ..Default::default() });
        s.rate_bps = 6_000.0;
        let fb = Feedback::Bandwidth { capacity_bps: 1e6, traffic_bps: 1.1e6, interval: SimDuration::from_secs(1) };
        s.on_feedback(SimTime::from_secs(2), &fb, SimTime::from_secs(1));
        assert!((s.rate_bps - 5_682.0).abs() < 1e-9, "{}", s.rate_bps);
        // The next one, 5682 * (1 + 0.5 * (1 - 0.005682 - 1.5)) = 5682 * 0.747159 = 4245.4,
        // is floored at 5 kbps.
        let fb = Feedback::Bandwidth { capacity_bps: 1e6, traffic_bps: 1.5e6, interval: SimDuration::from_secs(1) };
        s.on_feedback(SimTime::from_secs(3), &fb, SimTime::from_secs(2));
        assert_eq!(s.rate_bps, 5_000.0);
    }

    #[test]
    fn receiver_feeds_back_from_two_consecutive_tables() {
        let mut r = PtpReceiver::new(Packet::new(PacketKind::Control, 0, 40));
        let mut meta = MetaSlab::default();
        let mut out = Vec::new();
        let ptp = |stamps: &[Stamp], ts: u64, meta: &mut MetaSlab| {
            let mut p = Packet::new(PacketKind::Control, 0, 64);
            p.ts = SimTime::from_millis(ts);
            p.meta = meta.alloc();
            meta.get_mut(p.meta).stamps.extend_from_slice(stamps);
            p
        };
        let p1 = ptp(&[st(4, 1000, 10_000_000, 0)], 900, &mut meta);
        r.on_ptp(&p1, &mut out, &mut meta);
        let p2 = ptp(&[st(4, 2000, 10_000_000, 750_000)], 1900, &mut meta);
        r.on_ptp(&p2, &mut out, &mut meta);
        assert_eq!(out.len(), 2);
        let fb = |p: &Packet| match meta.get(p.meta).unwrap().control {
            Control::Feedback(f) => f,
            c => panic!("{c:?}"),
        };
        assert_eq!(
            fb(&out[0]),
            Feedback::Bandwidth { capacity_bps: 0.0, traffic_bps: 0.0, interval: SimDuration::ZERO }
        );
        assert_eq!(
            fb(&out[1]),
            Feedback::Bandwidth { capacity_bps: 10e6, traffic_bps: 6e6, interval: SimDuration::from_secs(1) }
        );
        assert_eq!(out[1].ts, SimTime::from_millis(1900), "echoes the request's departure");
        assert_eq!(out[1].bits, 320);
        assert_eq!(r.measurements, 1);
    }

    #[test]
    fn config_errors_name_the_field() {
        let bad = |c: CadpcConfig| c.check().unwrap_err().0;
        assert_eq!(bad(CadpcConfig { a: 0.0, ..Default::default() }), "a");
        assert_eq!(bad(CadpcConfig { update: 0.5, ..Default::default() }), "update");
        assert_eq!(bad(CadpcConfig { initial_rate: 0, ..Default::default() }), "initial_rate");
        assert_eq!(bad(CadpcConfig { min_rate: 0, ..Default::default() }), "min_rate");
        assert_eq!(bad(CadpcConfig { min_rate: 9_000, ..Default::default() }), "min_rate");
        assert!(CadpcConfig::default().check().is_ok());
    }
}
