//! The interface of a flow's two ends: `SenderPolicy` and `ReceiverPolicy`, with
//! event-named callbacks (the flow starts, a packet arrives, a timer fires, feedback
//! comes in) and one metrics struct each, as `cc::CongestionControl` is for a window
//! sender's congestion control. The simulation only schedules and delivers: it calls
//! these, injects the packets they push into `Io::out` and (re)schedules the lazy
//! timers they expose.
//!
//! The built-in kinds are registered with one line each in `transport/mod.rs`
//! (`endpoints!`), which generates the `Sender` and `Receiver` enums, their enum dispatch
//! (a `match`, no vtable: the per-packet cost of the window sender and the acknowledging
//! receiver stays that of a direct call) and the tables `Sender::ALL` and
//! `Receiver::ALL`.

use super::timer::LazyTimer;
use super::FlowCounters;
use crate::base::time::{SimDuration, SimTime};
use crate::base::trace::Recorder;
use crate::packet::meta::{Control, Feedback, MetaSlab};
use crate::packet::Packet;

/// What an endpoint callback works with: the time, the flow's counters, the buffer its
/// packets go into (injected after the call), packet metadata and the series recorder.
pub struct Io<'a> {
    pub now: SimTime,
    pub counters: &'a mut FlowCounters,
    pub out: &'a mut Vec<Packet>,
    pub meta: &'a mut MetaSlab,
    pub rec: &'a mut Recorder,
}

/// A flow's first event (`SenderPolicy::first`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum First {
    /// `Event::FlowStart` at this time (`SenderPolicy::start`).
    Start(SimTime),
    /// A first tick (`Event::SourceTick`, `SenderPolicy::on_tick`) at this time.
    Tick(SimTime),
    /// Nothing: the sender never sends.
    Never,
}

/// A payload a receiver hands to the sender of another flow (a voice user's partner):
/// the simulation calls that sender's `on_pass`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pass {
    pub flow: u32,
    pub control: Control,
}

/// A sender's outputs, for results and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct SenderMetrics {
    /// Smoothed round-trip time, where the sender estimates one.
    pub srtt: Option<SimDuration>,
    /// Sending rate, bits/s, for rate-based senders.
    pub rate_bps: Option<f64>,
}

/// A receiver's outputs, for results and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ReceiverMetrics {
    /// Bits of data delivered, where packets differ in size (a voice user's partner);
    /// `None`: delivered packets times the flow's packet size.
    pub delivered_bits: Option<u64>,
}

/// The sending end of a flow. Every callback but `metrics` is optional.
pub trait SenderPolicy {
    /// One line for the docs (`Sender::ALL`).
    const DESCRIPTION: &'static str;
    /// The flow's first event, given the flow's start time (with its start jitter).
    /// Default: `Event::FlowStart` then.
    fn first(&mut self, start: SimTime) -> First {
        First::Start(start)
    }
    /// The flow starts (`Event::FlowStart`).
    fn start(&mut self, _io: Io<'_>) {}
    /// A tick (`Event::SourceTick`): returns the next one.
    fn on_tick(&mut self, _io: Io<'_>) -> Option<SimTime> {
        None
    }
    /// An ack of this flow arrived.
    fn on_ack(&mut self, _io: Io<'_>, _ack: &Packet) {}
    /// An ack taken at send time (`Simulation::set_cut_through`) reaches it at
    /// `io.now`: taken as by `on_ack`, unless a timer of its is due at or before then
    /// (the ack then waits for an event of its own, ordered with the timer's). Returns
    /// whether it took the ack.
    #[inline(always)]
    fn on_ack_early(&mut self, io: Io<'_>, ack: &Packet) -> bool {
        let now = io.now;
        let due = |t: Option<&mut LazyTimer>| t.is_some_and(|t| t.deadline().is_some_and(|d| d <= now));
        let (timer, pace) = self.timers();
        if due(timer) || due(pace) {
            return false;
        }
        self.on_ack(io, ack);
        true
    }
    /// Feedback reached the flow's source in a control packet sent at `echo` (its
    /// timestamp).
    fn on_feedback(&mut self, _now: SimTime, _fb: &Feedback, _echo: SimTime) {}
    /// A payload from another flow's receiver (`Pass`): returns a tick to schedule.
    fn on_pass(&mut self, _now: SimTime, _c: &Control) -> Option<SimTime> {
        None
    }
    /// The two lazy timers: the one `Event::FlowTimer` fires (retransmission, no
    /// feedback, rate step, PTP request; `on_timer`) and the one `Event::PaceTimer`
    /// fires (`on_pace`).
    fn timers(&mut self) -> (Option<&mut LazyTimer>, Option<&mut LazyTimer>) {
        (None, None)
    }
    /// The first timer expired.
    fn on_timer(&mut self, _io: Io<'_>) {}
    /// The pacing timer expired.
    fn on_pace(&mut self, _io: Io<'_>) {}
    /// The route offset of its data packets, if it may take its acks at send time
    /// (`Simulation::set_cut_through`): between two acks only its own timers act on it.
    fn early_data_route(&self) -> Option<u32> {
        None
    }
    fn metrics(&self) -> SenderMetrics;
}

/// The receiving end of a flow. Every callback but `metrics` is optional.
pub trait ReceiverPolicy {
    /// One line for the docs (`Receiver::ALL`).
    const DESCRIPTION: &'static str;
    /// A data packet of this flow arrived.
    fn on_data(&mut self, _io: Io<'_>, _p: &Packet) -> Option<Pass> {
        None
    }
    /// A control packet of this flow arrived at the receiving end.
    fn on_control(&mut self, _io: Io<'_>, _p: &Packet) -> Option<Pass> {
        None
    }
    /// The receiver's lazy timer (`Event::RecvTimer`), if it has one.
    fn timer(&mut self) -> Option<&mut LazyTimer> {
        None
    }
    /// The timer expired.
    fn on_timer(&mut self, _io: Io<'_>) {}
    /// The route offset of the acks it sends for a window sender's data, if it sends
    /// such acks (the sender may then take them at send time,
    /// `Simulation::set_cut_through`).
    fn ack_route(&self) -> Option<u32> {
        None
    }
    /// Whether it may take its data at send time (`Simulation::set_cut_through`): it
    /// has no timer, and what it sends depends only on its data arrivals, in order.
    fn takes_data_early(&self) -> bool {
        false
    }
    fn metrics(&self) -> ReceiverMetrics;
}

/// One registered sender or receiver kind (`Sender::ALL`, `Receiver::ALL`).
#[derive(Clone, Copy, Debug)]
pub struct EndpointInfo {
    /// The variant's name.
    pub name: &'static str,
    /// `SenderPolicy::DESCRIPTION` or `ReceiverPolicy::DESCRIPTION`.
    pub description: &'static str,
}

/// A sender kind of the registry.
pub type SenderInfo = EndpointInfo;
/// A receiver kind of the registry.
pub type ReceiverInfo = EndpointInfo;

/// The storage of a kind in its enum: inline, or boxed (`in Box`).
macro_rules! endpoint_stored {
    ($m:ident :: $t:ident) => { $m::$t };
    ($m:ident :: $t:ident, Box) => { Box<$m::$t> };
}

/// Declares the built-in senders and receivers, one `Variant: module::Type` line each (`in
/// Box` to store it boxed, so every flow does not pay for the largest). Generates the
/// `Sender` and `Receiver` enums, their enum dispatch of `SenderPolicy` and
/// `ReceiverPolicy`, and the tables `Sender::ALL` and `Receiver::ALL`. The `hot` kind
/// of each side is tested first on the per-packet calls (an ack to a sender, data to a
/// receiver, their timers), the others dispatched out of line: a test and a branch
/// where a jump table would cost several instructions per packet.
macro_rules! endpoints {
    (
        senders (hot $shot:ident) { $( $sv:ident : $sm:ident :: $st:ident $(in $sb:ident)? ),+ $(,)? }
        receivers (hot $rhot:ident) { $( $rv:ident : $rm:ident :: $rt:ident $(in $rb:ident)? ),+ $(,)? }
    ) => {
        /// Sender policies: one variant per registered kind. `repr(u8)`: the tag is a
        /// word of its own before the variant, so the window sender starts 8 bytes into
        /// a line of an `Endpoint` whatever niches its fields leave (the layout test in
        /// `transport/sizes.rs`).
        #[derive(Debug)]
        #[repr(u8)]
        pub enum Sender {
            $( $sv(endpoint_stored!($sm::$st $(, $sb)?)), )+
        }

        /// Receiver policies: one variant per registered kind.
        #[derive(Debug)]
        pub enum Receiver {
            $( $rv(endpoint_stored!($rm::$rt $(, $rb)?)), )+
        }

        impl Sender {
            /// Every registered sender kind, in registration order.
            pub const ALL: &'static [SenderInfo] = &[
                $( SenderInfo { name: stringify!($sv), description: <$sm::$st as SenderPolicy>::DESCRIPTION }, )+
            ];
        }

        impl Receiver {
            /// Every registered receiver kind, in registration order.
            pub const ALL: &'static [ReceiverInfo] = &[
                $( ReceiverInfo { name: stringify!($rv), description: <$rm::$rt as ReceiverPolicy>::DESCRIPTION }, )+
            ];
        }

        impl Sender {
            #[inline(always)]
            pub fn first(&mut self, start: SimTime) -> First {
                match self { $( Sender::$sv(s) => SenderPolicy::first(s, start), )+ }
            }
            #[inline(always)]
            pub fn start(&mut self, io: Io<'_>) {
                match self { $( Sender::$sv(s) => SenderPolicy::start(s, io), )+ }
            }
            #[inline(always)]
            pub fn on_tick(&mut self, io: Io<'_>) -> Option<SimTime> {
                match self { $( Sender::$sv(s) => SenderPolicy::on_tick(s, io), )+ }
            }
            #[inline(always)]
            pub fn on_ack(&mut self, io: Io<'_>, ack: &Packet) {
                if let Sender::$shot(s) = self {
                    return SenderPolicy::on_ack(s, io, ack);
                }
                // (In parts: an `Io` passed whole out of line is built in memory first,
                // on the hot path too.)
                let Io { now, counters, out, meta, rec } = io;
                self.on_ack_other(now, counters, out, meta, rec, ack)
            }
            #[inline(always)]
            pub fn on_ack_early(&mut self, io: Io<'_>, ack: &Packet) -> bool {
                if let Sender::$shot(s) = self {
                    return SenderPolicy::on_ack_early(s, io, ack);
                }
                let Io { now, counters, out, meta, rec } = io;
                self.on_ack_early_other(now, counters, out, meta, rec, ack)
            }
            #[inline(never)]
            fn on_ack_early_other(
                &mut self,
                now: SimTime,
                counters: &mut FlowCounters,
                out: &mut Vec<Packet>,
                meta: &mut MetaSlab,
                rec: &mut Recorder,
                ack: &Packet,
            ) -> bool {
                let io = Io { now, counters, out, meta, rec };
                match self { $( Sender::$sv(s) => SenderPolicy::on_ack_early(s, io, ack), )+ }
            }
            #[inline(never)]
            fn on_ack_other(
                &mut self,
                now: SimTime,
                counters: &mut FlowCounters,
                out: &mut Vec<Packet>,
                meta: &mut MetaSlab,
                rec: &mut Recorder,
                ack: &Packet,
            ) {
                let io = Io { now, counters, out, meta, rec };
                match self { $( Sender::$sv(s) => SenderPolicy::on_ack(s, io, ack), )+ }
            }
            #[inline(always)]
            pub fn on_feedback(&mut self, now: SimTime, fb: &Feedback, echo: SimTime) {
                match self { $( Sender::$sv(s) => SenderPolicy::on_feedback(s, now, fb, echo), )+ }
            }
            #[inline(always)]
            pub fn on_pass(&mut self, now: SimTime, c: &Control) -> Option<SimTime> {
                match self { $( Sender::$sv(s) => SenderPolicy::on_pass(s, now, c), )+ }
            }
            #[inline(always)]
            pub fn timers(&mut self) -> (Option<&mut LazyTimer>, Option<&mut LazyTimer>) {
                if let Sender::$shot(s) = self {
                    return SenderPolicy::timers(s);
                }
                self.timers_other()
            }
            #[inline(never)]
            fn timers_other(&mut self) -> (Option<&mut LazyTimer>, Option<&mut LazyTimer>) {
                match self { $( Sender::$sv(s) => SenderPolicy::timers(s), )+ }
            }
            #[inline(always)]
            pub fn on_timer(&mut self, io: Io<'_>) {
                match self { $( Sender::$sv(s) => SenderPolicy::on_timer(s, io), )+ }
            }
            #[inline(always)]
            pub fn on_pace(&mut self, io: Io<'_>) {
                match self { $( Sender::$sv(s) => SenderPolicy::on_pace(s, io), )+ }
            }
            pub fn early_data_route(&self) -> Option<u32> {
                match self { $( Sender::$sv(s) => SenderPolicy::early_data_route(s), )+ }
            }
            pub fn metrics(&self) -> SenderMetrics {
                match self { $( Sender::$sv(s) => SenderPolicy::metrics(s), )+ }
            }
            /// The registry entry of this sender's kind.
            pub fn info(&self) -> &'static SenderInfo {
                let mut i = 0;
                $(
                    if let Sender::$sv(_) = self {
                        return &Self::ALL[i];
                    }
                    i += 1;
                )+
                unreachable!("{i} kinds, each with an entry")
            }
        }

        impl Receiver {
            #[inline(always)]
            pub fn on_data(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
                if let Receiver::$rhot(r) = self {
                    return ReceiverPolicy::on_data(r, io, p);
                }
                let Io { now, counters, out, meta, rec } = io;
                self.on_data_other(now, counters, out, meta, rec, p)
            }
            #[inline(never)]
            fn on_data_other(
                &mut self,
                now: SimTime,
                counters: &mut FlowCounters,
                out: &mut Vec<Packet>,
                meta: &mut MetaSlab,
                rec: &mut Recorder,
                p: &Packet,
            ) -> Option<Pass> {
                let io = Io { now, counters, out, meta, rec };
                match self { $( Receiver::$rv(r) => ReceiverPolicy::on_data(r, io, p), )+ }
            }
            #[inline(always)]
            pub fn on_control(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
                match self { $( Receiver::$rv(r) => ReceiverPolicy::on_control(r, io, p), )+ }
            }
            #[inline(always)]
            pub fn timer(&mut self) -> Option<&mut LazyTimer> {
                if let Receiver::$rhot(r) = self {
                    return ReceiverPolicy::timer(r);
                }
                self.timer_other()
            }
            #[inline(never)]
            fn timer_other(&mut self) -> Option<&mut LazyTimer> {
                match self { $( Receiver::$rv(r) => ReceiverPolicy::timer(r), )+ }
            }
            #[inline(always)]
            pub fn on_timer(&mut self, io: Io<'_>) {
                match self { $( Receiver::$rv(r) => ReceiverPolicy::on_timer(r, io), )+ }
            }
            pub fn ack_route(&self) -> Option<u32> {
                match self { $( Receiver::$rv(r) => ReceiverPolicy::ack_route(r), )+ }
            }
            pub fn takes_data_early(&self) -> bool {
                match self { $( Receiver::$rv(r) => ReceiverPolicy::takes_data_early(r), )+ }
            }
            pub fn metrics(&self) -> ReceiverMetrics {
                match self { $( Receiver::$rv(r) => ReceiverPolicy::metrics(r), )+ }
            }
            /// The registry entry of this receiver's kind.
            pub fn info(&self) -> &'static ReceiverInfo {
                let mut i = 0;
                $(
                    if let Receiver::$rv(_) = self {
                        return &Self::ALL[i];
                    }
                    i += 1;
                )+
                unreachable!("{i} kinds, each with an entry")
            }
        }
    };
}

/// A boxed sender (`in Box` in the registry) forwards to the box's content.
impl<T: SenderPolicy> SenderPolicy for Box<T> {
    const DESCRIPTION: &'static str = T::DESCRIPTION;
    #[inline(always)]
    fn first(&mut self, start: SimTime) -> First {
        SenderPolicy::first(&mut **self, start)
    }
    #[inline(always)]
    fn start(&mut self, io: Io<'_>) {
        SenderPolicy::start(&mut **self, io)
    }
    #[inline(always)]
    fn on_tick(&mut self, io: Io<'_>) -> Option<SimTime> {
        SenderPolicy::on_tick(&mut **self, io)
    }
    #[inline(always)]
    fn on_ack(&mut self, io: Io<'_>, ack: &Packet) {
        SenderPolicy::on_ack(&mut **self, io, ack)
    }
    #[inline(always)]
    fn on_ack_early(&mut self, io: Io<'_>, ack: &Packet) -> bool {
        SenderPolicy::on_ack_early(&mut **self, io, ack)
    }
    #[inline(always)]
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback, echo: SimTime) {
        SenderPolicy::on_feedback(&mut **self, now, fb, echo)
    }
    #[inline(always)]
    fn on_pass(&mut self, now: SimTime, c: &Control) -> Option<SimTime> {
        SenderPolicy::on_pass(&mut **self, now, c)
    }
    #[inline(always)]
    fn timers(&mut self) -> (Option<&mut LazyTimer>, Option<&mut LazyTimer>) {
        SenderPolicy::timers(&mut **self)
    }
    #[inline(always)]
    fn on_timer(&mut self, io: Io<'_>) {
        SenderPolicy::on_timer(&mut **self, io)
    }
    #[inline(always)]
    fn on_pace(&mut self, io: Io<'_>) {
        SenderPolicy::on_pace(&mut **self, io)
    }
    fn early_data_route(&self) -> Option<u32> {
        SenderPolicy::early_data_route(&**self)
    }
    fn metrics(&self) -> SenderMetrics {
        SenderPolicy::metrics(&**self)
    }
}

/// A boxed receiver (`in Box` in the registry) forwards to the box's content.
impl<T: ReceiverPolicy> ReceiverPolicy for Box<T> {
    const DESCRIPTION: &'static str = T::DESCRIPTION;
    #[inline(always)]
    fn on_data(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
        ReceiverPolicy::on_data(&mut **self, io, p)
    }
    #[inline(always)]
    fn on_control(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
        ReceiverPolicy::on_control(&mut **self, io, p)
    }
    #[inline(always)]
    fn timer(&mut self) -> Option<&mut LazyTimer> {
        ReceiverPolicy::timer(&mut **self)
    }
    #[inline(always)]
    fn on_timer(&mut self, io: Io<'_>) {
        ReceiverPolicy::on_timer(&mut **self, io)
    }
    fn ack_route(&self) -> Option<u32> {
        ReceiverPolicy::ack_route(&**self)
    }
    fn takes_data_early(&self) -> bool {
        ReceiverPolicy::takes_data_early(&**self)
    }
    fn metrics(&self) -> ReceiverMetrics {
        ReceiverPolicy::metrics(&**self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::Rng;
    use crate::packet::meta::VoiceStamp;
    use crate::packet::PacketKind;
    use crate::transport::receiver::Sink;
    use crate::transport::tfrc::{TfrcConfig, TfrcSender};
    use crate::transport::voice::{VoiceReceiver, VoiceUser};
    use crate::transport::{Receiver, Sender};

    #[test]
    fn the_registry_lists_every_kind_once_with_a_description() {
        let senders: Vec<&str> = Sender::ALL.iter().map(|i| i.name).collect();
        assert_eq!(senders, ["Window", "Source", "Cadpc", "Rap", "Tear", "Tfrc", "Voice"]);
        let receivers: Vec<&str> = Receiver::ALL.iter().map(|i| i.name).collect();
        assert_eq!(receivers, ["Ack", "Sink", "Ptp", "AckEach", "Tear", "Tfrc", "Voice"]);
        assert!(Sender::ALL.iter().chain(Receiver::ALL).all(|i| !i.description.is_empty()));
        assert_eq!(Receiver::Sink(Sink).info().name, "Sink");
        assert_eq!(Receiver::Voice(VoiceReceiver::new(3)).info().name, "Voice");
    }

    #[test]
    fn a_tfrc_sender_takes_its_receivers_rate_in_bits_per_second() {
        // A report of 80 kbit/s is X_recv = 10 000 bytes/s (RFC 3448 works in bytes).
        let mut s = Sender::Tfrc(Box::new(TfrcSender::new(
            TfrcConfig::default(),
            Packet::new(PacketKind::Data, 0, 1000),
            SimTime::MAX,
        )));
        let fb = Feedback::LossRate { recv_bps: 80_000.0, p: 0.01 };
        s.on_feedback(SimTime::from_millis(100), &fb, SimTime::ZERO);
        let Sender::Tfrc(t) = &s else { unreachable!() };
        assert_eq!((t.x_recv, t.p, t.feedbacks), (10_000.0, 0.01, 1));
        // Feedback of another kind is not this sender's.
        s.on_feedback(SimTime::from_millis(200), &Feedback::Rate { bps: 1.0 }, SimTime::ZERO);
        let Sender::Tfrc(t) = &s else { unreachable!() };
        assert_eq!(t.feedbacks, 1);
    }

    #[test]
    fn a_voice_receiver_counts_the_bits_and_hands_the_stamp_to_the_partner() {
        let mut r = Receiver::Voice(VoiceReceiver::new(7));
        let (mut c, mut out, mut meta) = (FlowCounters::default(), Vec::new(), MetaSlab::default());
        let mut rec = Recorder::new(None, SimDuration::from_secs(1));
        let stamp = VoiceStamp { control_bps: 1e4, feedback_bps: 2e4, rate_bps: 3e4, data: true, end_of_spurt: false };
        let mut p = Packet::new(PacketKind::Data, 2, 0);
        p.bits = 600;
        p.meta = meta.alloc();
        meta.get_mut(p.meta).control = Control::Voice(stamp);
        let io = Io { now: SimTime::ZERO, counters: &mut c, out: &mut out, meta: &mut meta, rec: &mut rec };
        let pass = r.on_data(io, &p);
        assert_eq!(pass, Some(Pass { flow: 7, control: Control::Voice(stamp) }));
        assert_eq!((c.arrived, c.delivered), (1, 1));
        assert_eq!(r.metrics().delivered_bits, Some(600));
        assert!(out.is_empty());
        // The partner's sender adopts the feedback rate as its own.
        let mut u = Sender::Voice(Box::new(VoiceUser::new(
            crate::transport::voice::VoiceConfig {
                partner: "b".into(),
                packet_rate: 50.0,
                spurt_mean: 60.0,
                endless: false,
                starts_active: false,
                control_interval: SimDuration::from_millis(100),
                control_size: 10,
                initial_rate: 40_000,
                slow_start: false,
                slow_start_divisor: 10.0,
            },
            Packet::new(PacketKind::Data, 7, 0),
            SimTime::ZERO,
            Rng::new(1, 0),
        )));
        assert_eq!(u.on_pass(SimTime::ZERO, &pass.unwrap().control), None);
        assert_eq!(u.metrics().rate_bps, Some(2e4));
    }
}
