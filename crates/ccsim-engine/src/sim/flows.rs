//! A flow's two ends built from its scenario spec (`FlowSpec`): the sender and the
//! receiver its kind pairs, their packet templates on the flow's routes, and the series
//! it asks for. The simulation's builder (`sim/build.rs`) calls `build` once per flow;
//! the endpoints themselves (`transport`) know nothing of the scenario.

use crate::base::rng::{stream, Rng};
use crate::base::time::{tx_time, SimDuration, SimTime};
use crate::base::trace::SeriesId;
use crate::cc::CcConfig;
use crate::packet::{Packet, PacketKind};
use crate::scenario::FlowSpec;
use crate::transport::receiver::{AckReceiver, Sink};
use crate::transport::sender::{FlowTrace, WindowSender};
use crate::transport::source::{Gaps, Source};
use crate::transport::voice::{VoiceReceiver, VoiceUser};
use crate::transport::{Receiver, Sender};

/// What building a flow's two ends needs from the simulation (`build`).
pub(crate) struct BuildCx<'a> {
    /// The flow's index (its random streams) and name.
    pub flow: usize,
    /// The slot its two ends take in the simulation's array (`Simulation::flows`), which
    /// its packets carry: the flow's index, but for a flow built at its start in a
    /// reused slot (`sim/lifecycle.rs`).
    pub slot: u32,
    pub name: &'a str,
    pub seed: u64,
    /// Its start time (start jitter included) and the jitter alone.
    pub start: SimTime,
    pub offset: SimDuration,
    /// When it stops sending (`SimTime::MAX`: never).
    pub stop: SimTime,
    /// Route offsets of its data and of its acks or feedback.
    pub data_route: u32,
    pub ack_route: u32,
    /// A series of the flow's asked for: (metric, unit, one point per sample); its id
    /// if the scenario asks for it.
    pub series: &'a mut dyn FnMut(&str, &str, bool) -> Option<SeriesId>,
    /// Record the window's time histogram from this time (`[measure].windows`).
    pub window_hist: Option<SimTime>,
}

/// A flow's two ends, built.
pub(crate) struct Built {
    pub sender: Sender,
    pub receiver: Receiver,
    /// The receiver sends on the flow's ack route (acks or feedback): its conversation
    /// is numbered right after the data route's.
    pub answers: bool,
    /// Data arrivals are measured for delay statistics if the scenario asks.
    pub measures_delay: bool,
}

/// Builds the sender and receiver a flow kind pairs.
pub(crate) fn build(spec: &FlowSpec, cx: BuildCx<'_>) -> Built {
    let data = |bits: u32| {
        let mut p = Packet::new(PacketKind::Data, cx.slot, 0);
        p.bits = bits;
        p.route = cx.data_route;
        p
    };
    // The template of the receiver's answers: acks or control packets of `bytes` on
    // the ack route.
    let answer = |d: Packet, kind: PacketKind, bytes: u32| {
        let mut a = d;
        a.kind = kind;
        a.bits = bytes * 8;
        a.route = cx.ack_route;
        a
    };
    let built = |sender, receiver, answers| Built { sender, receiver, answers, measures_delay: true };
    match spec {
        FlowSpec::Window { cc, loss, data_size, ack_size, max_window, receiver, sender } => {
            let d = data(*data_size * 8);
            let a = answer(d, PacketKind::Ack, *ack_size);
            let rng = Rng::new(cx.seed, stream::cc(cx.flow));
            let mut w = WindowSender::new(cx.name, cc, loss, *sender, d, *max_window, cx.stop, rng);
            let series = cx.series;
            let mut trace = FlowTrace {
                cwnd: series("cwnd", "pkts", false),
                ssthresh: series("ssthresh", "pkts", false),
                outstanding: series("outstanding", "pkts", false),
                rtt: series("rtt", "s", true),
                rate: series("rate", "pkts/s", false),
                extra: [None; crate::cc::EXTRA_SLOTS],
            };
            // The policy's own series: every known name requested gets a series (empty
            // unless this policy produces it), in a fixed order.
            let own = cc.extra_series();
            let mut names: Vec<&str> = CcConfig::all_extra_series();
            for n in own {
                if !names.contains(n) {
                    names.push(n);
                }
            }
            for m in names {
                let id = series(m, extra_unit(m), false);
                if let Some(slot) = own.iter().position(|n| *n == m) {
                    trace.extra[slot] = id;
                }
            }
            w.set_trace(trace);
            if let Some(from) = cx.window_hist {
                w.set_window_hist(from);
            }
            // The receiver's record of out-of-order packets starts small and grows to the
            // largest window seen.
            let r = AckReceiver::new(*receiver, a, 64);
            built(Sender::Window(w), Receiver::Ack(r), true)
        }
        FlowSpec::Cbr { rate_bps, packet_bits, on } => {
            let gap = tx_time(*packet_bits, *rate_bps);
            let s = Source::new(data(*packet_bits), Gaps::Constant(gap), periods(on, cx.offset));
            built(Sender::Source(s), Receiver::Sink(Sink), false)
        }
        FlowSpec::Poisson { mean_gap, packet_bits, on } => {
            let rng = Rng::new(cx.seed, stream::flow(cx.flow));
            let gaps = Gaps::Exponential { mean: *mean_gap, rng };
            let s = Source::new(data(*packet_bits), gaps, periods(on, cx.offset));
            built(Sender::Source(s), Receiver::Sink(Sink), false)
        }
        FlowSpec::Rate { packet_bits, cfg } => {
            let d = data(*packet_bits);
            let (sender, receiver) = cfg.build(d, &|kind, bytes| answer(d, kind, bytes), cx.stop);
            built(sender, receiver, true)
        }
        FlowSpec::Voice { voice, partner } => {
            // Data and control packets both go on the data route (to the partner); the
            // packets are not measured for delay statistics.
            let rng = Rng::new(cx.seed, stream::flow(cx.flow));
            let u = VoiceUser::new(voice.clone(), data(1), cx.start, rng);
            let r = VoiceReceiver::new(*partner as u32);
            Built {
                sender: Sender::Voice(Box::new(u)),
                receiver: Receiver::Voice(r),
                answers: false,
                measures_delay: false,
            }
        }
    }
}

/// On periods as instants, each start delayed by `offset` (start jitter); periods that
/// the offset empties are left out.
fn periods(on: &[(SimDuration, SimDuration)], offset: SimDuration) -> Vec<(SimTime, SimTime)> {
    on.iter().map(|&(a, b)| (SimTime::ZERO + a + offset, SimTime::ZERO + b)).filter(|(a, b)| a < b).collect()
}

/// Unit of a policy's own series.
fn extra_unit(name: &str) -> &'static str {
    match name {
        "bbr_bw" => "bit/s",
        "bbr_state" => "1",
        n if n.ends_with("rtt") => "s",
        _ => "pkts",
    }
}
