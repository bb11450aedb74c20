//! Endpoints: a sender policy and a receiver policy per flow. Senders: the window-based
//! reliable transport parameterised by a congestion-control policy (`sender`), and the
//! unresponsive sources (`source`). Receivers: the acknowledging receiver with its
//! options (delayed ack, SACK, ECN echo, out-of-order handling) and the counting sink
//! (`receiver`).
//!
//! Endpoints are sans-IO state machines: they are given the time and an arriving packet
//! and push the packets they send into an output buffer owned by the simulation, and
//! expose timer deadlines that the simulation schedules (lazily). Their interface is
//! `SenderPolicy` and `ReceiverPolicy` (`endpoint`).
//!
//! Adding a sender or receiver: a type implementing `SenderPolicy` or `ReceiverPolicy`
//! (in its own file here) and one line in `endpoints!` below, which generates the
//! `Sender` and `Receiver` enums with their dispatch and the tables `Sender::ALL` and
//! `Receiver::ALL`. A rate-sender flow kind pairing them is one `RateFlow` and one line in
//! `rate_flows!` below (`rate_flow`); the other flow kinds are built in `sim/flows.rs`
//! and listed in `FlowSpec::KINDS` (`scenario/kinds.rs`).

#[macro_use]
pub mod endpoint;
#[macro_use]
pub mod rate_flow;
pub mod cadpc;
pub mod prr;
pub mod rap;
pub mod rate_sample;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod seqmap;
pub mod source;
pub mod tear;
pub mod tfrc;
pub mod timer;
pub mod voice;

use crate::base::time::SimTime;
use crate::base::trace::Recorder;
use crate::packet::meta::{Control, Feedback, MetaSlab};
use crate::packet::Packet;
pub use endpoint::{
    First, Io, Pass, ReceiverInfo, ReceiverMetrics, ReceiverPolicy, SenderInfo, SenderMetrics, SenderPolicy,
};
use timer::LazyTimer;

endpoints! {
    // Variant: module::Type [in Box: stored boxed, so every flow does not pay for the
    // largest]; `hot`: the kind tested first per packet
    senders (hot Window) {
        Window: sender::WindowSender,
        Source: source::Source,
        Cadpc: cadpc::CadpcSender in Box,
        Rap: rap::RapSender in Box,
        Tear: tear::TearSender in Box,
        Tfrc: tfrc::TfrcSender in Box,
        Voice: voice::VoiceUser in Box,
    }
    receivers (hot Ack) {
        Ack: receiver::AckReceiver,
        Sink: receiver::Sink,
        Ptp: cadpc::PtpReceiver in Box,
        AckEach: rap::AckEach,
        Tear: tear::TearReceiver in Box,
        Tfrc: tfrc::TfrcReceiver in Box,
        Voice: voice::VoiceReceiver,
    }
}

/// The rate-sender flow kinds, one `Variant: module::Config` per line, the `Config`
/// implementing `rate_flow::RateFlow`, in the order `ccsim list flow` shows them. Hands
/// the list to the macro `$then` (`RateFlowConfig` below, `FlowSpec::KINDS`).
macro_rules! rate_flows {
    ($then:ident) => {
        $then! {
            Cadpc: cadpc::CadpcConfig,
            Rap: rap::RapConfig,
            Tfrc: tfrc::TfrcConfig,
            Tear: tear::TearConfig,
        }
    };
}
pub(crate) use rate_flows;
rate_flows!(rate_flow_config);

/// The shortest gap a rate sender (CADPC, RAP, TFRC, TEAR) leaves between packets, as a
/// CBR source: at a rate above one packet per picosecond the gap rounded to zero and
/// simulated time stopped (only max_events ended the run).
pub(crate) const MIN_PACING_GAP: crate::base::time::SimDuration = crate::base::time::SimDuration::from_ps(1);

/// Per-flow counters. Data packets unless named otherwise.
///
/// `repr(C)`, in this order: what a sender updates per ack (and per new packet sent)
/// first, then what a receiver updates per data packet: together the first 64 bytes (40
/// and 24), one cache line at the start of an `Endpoint`, rather than spread by the
/// compiler's own order; at 10^4 flows and more each line an endpoint touches is a
/// cache miss.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct FlowCounters {
    /// Sum of the RTT samples, picoseconds (mean delay per phase or interval).
    pub rtt_sum_ps: u128,
    pub acks_arrived: u64,
    /// RTT samples taken at the sender (one per arriving ack, window flows).
    pub rtt_samples: u64,
    /// Data transmissions, including retransmissions.
    pub sent: u64,
    /// Data packets that reached the receiver (including duplicates).
    pub arrived: u64,
    /// Distinct packets delivered in order to the receiving application.
    pub delivered: u64,
    pub acks_sent: u64,
    // (64 bytes: the line an `Endpoint` starts with.)
    /// Retransmissions (transmissions of a sequence number sent before).
    pub retransmitted: u64,
    /// Data packets dropped in the network.
    pub dropped: u64,
    /// Data arrivals measured for delay statistics (`[measure].delays`): sums of their
    /// one-way and queueing delays, ps, and their number (`delay_samples`).
    pub owd_sum_ps: u128,
    pub qdelay_sum_ps: u128,
    pub delay_samples: u64,
    pub acks_dropped: u64,
    /// Control packets of the flow dropped in the network.
    pub control_dropped: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Control packets of this flow that reached one of its end points.
    pub control_arrived: u64,
    /// Data packets that arrived marked CE (ECN).
    pub ce_received: u64,
    /// Window reductions in response to ECN echoes.
    pub ecn_reductions: u64,
}

impl FlowCounters {
    /// Counter-wise difference (for phases and intervals).
    pub fn minus(&self, o: &FlowCounters) -> FlowCounters {
        FlowCounters {
            sent: self.sent - o.sent,
            retransmitted: self.retransmitted - o.retransmitted,
            arrived: self.arrived - o.arrived,
            delivered: self.delivered - o.delivered,
            dropped: self.dropped - o.dropped,
            acks_sent: self.acks_sent - o.acks_sent,
            acks_arrived: self.acks_arrived - o.acks_arrived,
            acks_dropped: self.acks_dropped - o.acks_dropped,
            control_dropped: self.control_dropped - o.control_dropped,
            timeouts: self.timeouts - o.timeouts,
            fast_retransmits: self.fast_retransmits - o.fast_retransmits,
            control_arrived: self.control_arrived - o.control_arrived,
            ce_received: self.ce_received - o.ce_received,
            ecn_reductions: self.ecn_reductions - o.ecn_reductions,
            rtt_samples: self.rtt_samples - o.rtt_samples,
            rtt_sum_ps: self.rtt_sum_ps - o.rtt_sum_ps,
            delay_samples: self.delay_samples - o.delay_samples,
            owd_sum_ps: self.owd_sum_ps - o.owd_sum_ps,
            qdelay_sum_ps: self.qdelay_sum_ps - o.qdelay_sum_ps,
        }
    }
}

impl FlowCounters {
    /// A packet of this flow was dropped in the network.
    #[inline]
    pub fn on_drop(&mut self, p: &crate::packet::Packet) {
        match p.kind {
            crate::packet::PacketKind::Data => self.dropped += 1,
            crate::packet::PacketKind::Ack => self.acks_dropped += 1,
            crate::packet::PacketKind::Control => self.control_dropped += 1,
        }
    }
}

/// Running RTT statistics over per-packet samples.
#[derive(Clone, Copy, Debug, Default)]
pub struct RttStats {
    pub n: u64,
    /// Sum of samples, picoseconds (u128: no overflow).
    pub sum_ps: u128,
    /// Sum of squares, in (microseconds)^2 to keep the range (for standard deviations).
    pub sum_sq_us2: f64,
    pub min_ps: u64,
    pub max_ps: u64,
}

impl RttStats {
    #[inline]
    pub fn add(&mut self, ps: u64) {
        if self.n == 0 || ps < self.min_ps {
            self.min_ps = ps;
        }
        if ps > self.max_ps {
            self.max_ps = ps;
        }
        self.n += 1;
        self.sum_ps += ps as u128;
        let us = ps as f64 / 1e6;
        self.sum_sq_us2 += us * us;
    }
    pub fn mean_s(&self) -> Option<f64> {
        (self.n > 0).then(|| (self.sum_ps as f64 / self.n as f64) / 1e12)
    }
    pub fn std_s(&self) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let mean_us = self.sum_ps as f64 / self.n as f64 / 1e6;
        let var = (self.sum_sq_us2 / self.n as f64 - mean_us * mean_us).max(0.0);
        Some(var.sqrt() / 1e6)
    }
}

/// What a window sender keeps of its RTT samples besides their count and sum (which
/// the flow's counters hold, `FlowCounters::rtt_samples` and `rtt_sum_ps`): `RttStats`
/// without the 24 bytes an ack would write twice.
#[derive(Clone, Copy, Debug)]
pub struct RttSpread {
    /// Sum of squares, in (microseconds)^2 to keep the range (for standard deviations).
    pub sum_sq_us2: f64,
    /// Smallest sample, ps (`u64::MAX` before the first).
    pub min_ps: u64,
    pub max_ps: u64,
}

impl Default for RttSpread {
    fn default() -> Self {
        RttSpread { sum_sq_us2: 0.0, min_ps: u64::MAX, max_ps: 0 }
    }
}

impl RttSpread {
    /// The same updates as `RttStats::add` makes to these three.
    #[inline]
    pub fn add(&mut self, ps: u64) {
        self.min_ps = self.min_ps.min(ps);
        self.max_ps = self.max_ps.max(ps);
        let us = ps as f64 / 1e6;
        self.sum_sq_us2 += us * us;
    }

    /// The statistics of `n` samples summing to `sum_ps` (`min_ps` 0 when there are none,
    /// as `RttStats::default`).
    pub fn with(&self, n: u64, sum_ps: u128) -> RttStats {
        RttStats {
            n,
            sum_ps,
            sum_sq_us2: self.sum_sq_us2,
            min_ps: if n == 0 { 0 } else { self.min_ps },
            max_ps: self.max_ps,
        }
    }
}

#[cfg(test)]
mod sizes;

impl Sender {
    /// The window sender, if this is one.
    pub fn window(&self) -> Option<&sender::WindowSender> {
        match self {
            Sender::Window(w) => Some(w),
            _ => None,
        }
    }
}
