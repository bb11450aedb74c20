//! Congestion-control policies of the window transport (style.md point 5).
//!
//! A policy owns its state and answers with a window; the transport (`transport::window`)
//! owns sequence numbers, timers and retransmission. The policy sees every data packet
//! sent (`on_packet_sent`, a no-op unless the policy times its own packets, as DA times
//! its head of window), new acks (with the cumulative ack number), duplicate acks and
//! losses split by cause (fast retransmit vs timeout: Tahoe and Reno differ only
//! there). Windows are in bytes, as in 4.3BSD; the transport sends
//! `min(cwnd / data_size, max_window)` packets.
//!
//! Rate-based policies (Packet-Pair) also answer `pacing_rate()` and `burst_pkts()`; the
//! transport then paces bursts at that rate within the window.
//!
//! Adding an algorithm: one file here implementing `CongestionControl`, a variant in
//! `AnyCc` and `CcConfig`, and its name in `CcConfig::from_params` (scenario parsing).

pub mod da;
pub mod generic;
pub mod packet_pair;
pub mod reno;
pub mod tahoe;

use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

pub use da::{Da, DaConfig, NdgSampling, RuleWindow};
pub use generic::{Generic, GenericConfig};
pub use packet_pair::{PacketPair, PacketPairConfig, RateUpdate};
pub use reno::{Reno, RenoConfig};
pub use tahoe::{Tahoe, TahoeConfig};

/// What the transport tells a policy about an ack that acknowledged new data.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: SimTime,
    /// Packets newly acknowledged by this cumulative ack.
    pub acked_pkts: u32,
    /// Round-trip time of the data packet that triggered this ack (timestamp echo).
    pub rtt: SimDuration,
    /// Packets sent and not yet acknowledged, after this ack.
    pub in_flight_pkts: u32,
    /// Send time of the data packet that triggered this ack (the echoed timestamp).
    pub sent: SimTime,
    /// `FLAG_*` bits of that data packet, echoed by the receiver (pair marks, RETX).
    pub flags: u8,
    /// The cumulative ack number: every sequence number below it is acknowledged.
    pub ack_seq: u32,
}

/// What the transport tells a policy about a data packet it just sent.
#[derive(Clone, Copy, Debug)]
pub struct SendSample {
    pub now: SimTime,
    /// Sequence number of the packet (packets, from 0).
    pub seq: u32,
    /// This sequence number was sent before.
    pub retransmission: bool,
}

/// Why the transport decided a packet was lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// The duplicate-ack threshold was reached.
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
}

#[derive(Clone, Copy, Debug)]
pub struct LossSample {
    pub now: SimTime,
    pub kind: LossKind,
    /// Packets sent and not yet acknowledged when the loss was detected.
    pub in_flight_pkts: u32,
}

/// Typed feedback from the receiver or the network, delivered to the flow's sender by
/// a control packet (`meta::Control::Feedback`) and passed to `on_feedback`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Feedback {
    /// An explicit rate, bits/s (a router's control rate, a receiver's computed rate).
    Rate { bps: f64 },
    /// A bottleneck report: its nominal capacity and the traffic measured on it over an
    /// interval (Welzl's PTP: B, lambda and the time between the two stamped packets).
    Bandwidth { capacity_bps: f64, traffic_bps: f64, interval: SimDuration },
}

/// How the transport computes its retransmission timeout for this policy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum RtoStyle {
    /// RFC 793 / Keshav's "generic": srtt = alpha srtt + (1 - alpha) m on every new ack,
    /// timeout = beta srtt, no backoff.
    Generic { alpha: f64, beta: f64 },
    /// Jacobson/Karels (SIGCOMM 1988, appendix A) as in 4.3BSD-Tahoe: one packet timed at
    /// a time, Karn's rule, srtt += (m - srtt)/8, rttvar += (|m - srtt| - rttvar)/4,
    /// rto = srtt + k rttvar clamped to [min, max], doubled on each timeout.
    JacobsonKarels { k: u32, min_rto: SimDuration, max_rto: SimDuration },
}

/// The interface of a congestion-control policy.
pub trait CongestionControl {
    /// A data packet was sent (delay-based policies time their "head of window" here).
    #[inline]
    fn on_packet_sent(&mut self, _s: &SendSample) {}
    /// A cumulative ack acknowledged new data.
    fn on_ack(&mut self, s: &AckSample);
    /// A duplicate ack beyond the fast-retransmit threshold (Reno inflates here).
    fn on_dup_ack(&mut self, _now: SimTime) {}
    /// A loss was detected.
    fn on_loss(&mut self, s: &LossSample);
    /// Congestion window, bytes.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold, bytes, where the policy has one.
    fn ssthresh(&self) -> Option<u64> {
        None
    }
    /// Duplicate acks that trigger fast retransmit; `None` disables it.
    fn dupack_threshold(&self) -> Option<u32> {
        None
    }
    /// Pacing rate, bits/s, for rate-based policies (style.md point 5). `None` (default):
    /// the transport sends whatever the window allows at once. `Some(r)`: it sends bursts
    /// of `burst_pkts()` back-to-back packets, a burst of b packets of size s every
    /// b*s*8/r seconds, within the window.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// Packets per paced burst (2 for Packet-Pair). Only used when pacing.
    fn burst_pkts(&self) -> u32 {
        1
    }
    /// The reference ("no queueing") round-trip time, for delay-based policies.
    fn reference_rtt(&self) -> Option<SimDuration> {
        None
    }
}

/// Slow start or additive increase for one ack, in 4.3BSD integer arithmetic
/// (`tcp_input.c`): below or at ssthresh the window grows by one segment per ack,
/// above it by mss*mss/cwnd per ack (about one segment per window). Capped at `max`.
pub fn bsd_open_window(cwnd: u64, ssthresh: u64, mss: u64, max: u64) -> u64 {
    let incr = if cwnd > ssthresh { (mss * mss / cwnd).max(1) } else { mss };
    (cwnd + incr).min(max)
}

/// The 4.3BSD loss threshold: ssthresh = max(min(cwnd, max) / 2, 2 segments), rounded
/// down to whole segments.
pub fn bsd_ssthresh_after_loss(cwnd: u64, mss: u64, max: u64) -> u64 {
    let win = (cwnd.min(max) / 2 / mss).max(2);
    win * mss
}

/// Configuration of the built-in policies (serde, so scenario files and Python build it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cc", rename_all = "snake_case")]
pub enum CcConfig {
    Generic(GenericConfig),
    Tahoe(TahoeConfig),
    Reno(RenoConfig),
    PacketPair(PacketPairConfig),
    Da(DaConfig),
}

impl CcConfig {
    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::Generic(_) => "generic",
            CcConfig::Tahoe(_) => "tahoe",
            CcConfig::Reno(_) => "reno",
            CcConfig::PacketPair(_) => "pp",
            CcConfig::Da(_) => "da",
        }
    }

    /// Builds the per-flow state for segments of `mss` bytes and a window cap in packets.
    pub fn build(&self, mss: u64, max_window: u32) -> AnyCc {
        match self {
            CcConfig::Generic(c) => AnyCc::Generic(Generic::new(c, mss, max_window)),
            CcConfig::Tahoe(c) => AnyCc::Tahoe(Tahoe::new(c, mss, max_window)),
            CcConfig::Reno(c) => AnyCc::Reno(Reno::new(c, mss, max_window)),
            CcConfig::PacketPair(c) => AnyCc::PacketPair(PacketPair::new(c, mss, max_window)),
            CcConfig::Da(c) => AnyCc::Da(Da::new(c, mss, max_window)),
        }
    }

    pub fn rto_style(&self) -> RtoStyle {
        match self {
            CcConfig::Generic(c) => RtoStyle::Generic { alpha: c.alpha, beta: c.beta },
            CcConfig::Tahoe(c) => c.rto.style(),
            CcConfig::Reno(c) => c.rto.style(),
            CcConfig::PacketPair(c) => c.rto.style(),
            CcConfig::Da(c) => c.rto.style(),
        }
    }

    pub fn initial_rto(&self) -> SimDuration {
        match self {
            CcConfig::Generic(c) => c.initial_rto,
            CcConfig::Tahoe(c) => c.rto.initial_rto,
            CcConfig::Reno(c) => c.rto.initial_rto,
            CcConfig::PacketPair(c) => c.rto.initial_rto,
            CcConfig::Da(c) => c.rto.initial_rto,
        }
    }
}

/// Jacobson/Karels timer parameters shared by Tahoe and Reno.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JkRtoConfig {
    /// Timeout before the first RTT sample. Default 3 s (RFC 1122).
    pub initial_rto: SimDuration,
    /// Lower bound. Default 1 s (RFC 6298).
    pub min_rto: SimDuration,
    /// Upper bound, also the cap of exponential backoff. Default 64 s (4.3BSD TCPTV_REXMTMAX).
    pub max_rto: SimDuration,
    /// Weight of the mean deviation: rto = srtt + k rttvar. Default 4 (RFC 6298; the
    /// 1988 paper's appendix used 2 and later code 4).
    pub k: u32,
}

impl Default for JkRtoConfig {
    fn default() -> Self {
        JkRtoConfig {
            initial_rto: SimDuration::from_secs(3),
            min_rto: SimDuration::from_secs(1),
            max_rto: SimDuration::from_secs(64),
            k: 4,
        }
    }
}

impl JkRtoConfig {
    pub fn style(&self) -> RtoStyle {
        RtoStyle::JacobsonKarels { k: self.k, min_rto: self.min_rto, max_rto: self.max_rto }
    }
}

/// Enum dispatch of the built-in policies (smoltcp `AnyController`): no vtable, no box.
#[derive(Clone, Debug)]
pub enum AnyCc {
    Generic(Generic),
    Tahoe(Tahoe),
    Reno(Reno),
    PacketPair(PacketPair),
    Da(Da),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::Generic($c) => $e,
            AnyCc::Tahoe($c) => $e,
            AnyCc::Reno($c) => $e,
            AnyCc::PacketPair($c) => $e,
            AnyCc::Da($c) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    #[inline]
    fn on_packet_sent(&mut self, s: &SendSample) {
        dispatch!(self, c => c.on_packet_sent(s))
    }
    #[inline]
    fn on_ack(&mut self, s: &AckSample) {
        dispatch!(self, c => c.on_ack(s))
    }
    #[inline]
    fn on_dup_ack(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_dup_ack(now))
    }
    #[inline]
    fn on_loss(&mut self, s: &LossSample) {
        dispatch!(self, c => c.on_loss(s))
    }
    #[inline]
    fn cwnd(&self) -> u64 {
        dispatch!(self, c => c.cwnd())
    }
    fn ssthresh(&self) -> Option<u64> {
        dispatch!(self, c => c.ssthresh())
    }
    #[inline]
    fn dupack_threshold(&self) -> Option<u32> {
        dispatch!(self, c => c.dupack_threshold())
    }
    #[inline]
    fn pacing_rate(&self) -> Option<u64> {
        dispatch!(self, c => c.pacing_rate())
    }
    #[inline]
    fn burst_pkts(&self) -> u32 {
        dispatch!(self, c => c.burst_pkts())
    }
    fn reference_rtt(&self) -> Option<SimDuration> {
        dispatch!(self, c => c.reference_rtt())
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::*;

    pub fn ack(cc: &mut impl CongestionControl, t_ms: u64) {
        cc.on_ack(&AckSample {
            now: SimTime::from_millis(t_ms),
            acked_pkts: 1,
            rtt: SimDuration::from_millis(100),
            in_flight_pkts: 0,
            sent: SimTime::from_millis(t_ms.saturating_sub(100)),
            flags: 0,
            ack_seq: 0,
        });
    }

    pub fn loss(cc: &mut impl CongestionControl, kind: LossKind) {
        cc.on_loss(&LossSample { now: SimTime::ZERO, kind, in_flight_pkts: 0 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_window_is_one_segment_per_ack_up_to_and_at_ssthresh() {
        assert_eq!(bsd_open_window(1000, 4000, 1000, 40_000), 2000);
        assert_eq!(bsd_open_window(4000, 4000, 1000, 40_000), 5000);
    }

    #[test]
    fn open_window_above_ssthresh_is_mss_squared_over_cwnd() {
        // 1000*1000/5000 = 200 bytes per ack.
        assert_eq!(bsd_open_window(5000, 4000, 1000, 40_000), 5200);
        // 39_990 + 1000*1000/39_990 (= 25) = 40_015, capped at the maximum window.
        assert_eq!(bsd_open_window(39_990, 4000, 1000, 40_000), 40_000);
    }

    #[test]
    fn ssthresh_after_loss_is_half_window_but_at_least_two_segments() {
        assert_eq!(bsd_ssthresh_after_loss(10_500, 1000, 40_000), 5000);
        assert_eq!(bsd_ssthresh_after_loss(3000, 1000, 40_000), 2000);
        // The receiver's (maximum) window limits the halving base.
        assert_eq!(bsd_ssthresh_after_loss(100_000, 1000, 40_000), 20_000);
    }
}
