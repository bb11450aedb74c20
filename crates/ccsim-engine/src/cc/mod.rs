//! Congestion-control policies of the window transport.
//!
//! A policy owns its state and answers with a window; the transport (`transport::window`)
//! owns sequence numbers, timers and retransmission. The policy sees every data packet
//! sent (`on_packet_sent`, a no-op unless the policy times its own packets, as DA times
//! its head of window), new acks (with the cumulative ack number), duplicate acks and
//! losses split by cause (fast retransmit vs timeout: Tahoe and Reno differ only
//! there). Windows are in bytes, as in 4.3BSD; the transport sends
//! `min(cwnd / data_size, max_window)` packets.
//!
//! The policy's one output is `metrics()` (`CcMetrics`: window, ssthresh, pacing rate and
//! send quantum, and up to two named values of its own for series). Rate-based policies
//! (Packet-Pair) answer a pacing rate and a send quantum; the transport then paces
//! bursts at that rate within the window. Congestion arrives with its cause
//! (`Cause::FastRetransmit`, `Timeout`, `Ecn`); typed feedback from the receiver or the
//! network through `on_feedback`.
//!
//! Adding an algorithm: one file here with a type implementing `CongestionControl` (the
//! events) and `CcPolicy` (its name, parameters with their checks and defaults, how to
//! build it, its timer and its own series), and one line in the `registry!` below. The
//! `CcConfig` and `AnyCc` enums, their dispatch, the scenario file's names and the
//! registry table `CcConfig::ALL` (read by validation, `ccsim list cc` and the bench's
//! `--cc`) all derive from that line. docs/extending.md walks through it.

use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

#[macro_use]
mod registry;
/// Defined with the packet metadata that carries it (`meta::Control::Feedback`).
pub use crate::meta::Feedback;
pub use registry::{CcInfo, CcPolicy, ReadParams};

pub use da::{DaConfig, NdgSampling, RuleWindow};
pub use delay_aimd::{DelayAimdConfig, DelayedAckMode};
pub use generic::GenericConfig;
pub use packet_pair::{PacketPairConfig, RateUpdate};
pub use reno::RenoConfig;
pub use tahoe::TahoeConfig;
pub use vegas::{SlowStartExit, VegasConfig, VegasRtt};

registry! {
    // module :: policy type [in Box: stored boxed in `AnyCc`, so every flow does not pay
    // for the largest policy]
    generic::Generic,
    tahoe::Tahoe,
    reno::Reno,
    newreno::NewReno,
    packet_pair::PacketPair in Box,
    da::Da in Box,
    vegas::Vegas in Box,
    delay_aimd::DelayAimd in Box,
}

/// What the transport tells a policy about an ack that acknowledged new data.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: SimTime,
    /// Packets newly acknowledged by this cumulative ack.
    pub acked_pkts: u32,
    /// Round-trip time sample for the policy: by default the timestamp echo (RFC 1323:
    /// the oldest packet the ack covers); with the sender's `rtt_sample = "newest"`, the
    /// time since the newest packet acknowledged was sent.
    pub rtt: SimDuration,
    /// Packets sent and not yet acknowledged, after this ack.
    pub in_flight_pkts: u32,
    /// Send time of the data packet whose timestamp the ack echoes.
    pub sent: SimTime,
    /// `FLAG_*` bits of that data packet, echoed by the receiver (pair marks, RETX).
    pub flags: u8,
    /// The cumulative ack number: every sequence number below it is acknowledged.
    pub ack_seq: u32,
    /// Where this ack leaves the transport's loss recovery.
    pub recovery: RecoveryAck,
}

/// An ack's place in loss recovery (NewReno and SACK recovery, RFC 6582 / RFC 6675).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RecoveryAck {
    /// Not in recovery, or plain Reno (whose first new ack ends recovery).
    #[default]
    None,
    /// A partial ack: new data acknowledged, recovery goes on (NewReno deflates by the
    /// amount acknowledged and adds one segment back).
    Partial,
    /// The ack covers the recovery point: recovery ends.
    Exit,
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

/// Why the transport signals congestion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The duplicate-ack threshold was reached (or SACK marked the first hole lost).
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
    /// An ack carried an ECN echo (RFC 3168; at most once per window).
    Ecn,
}

#[derive(Clone, Copy, Debug)]
pub struct CongestionSample {
    pub now: SimTime,
    pub cause: Cause,
    /// Packets sent and not yet acknowledged when congestion was detected.
    pub in_flight_pkts: u32,
    /// The transport recovers with the SACK pipe algorithm (RFC 6675): the window is not
    /// inflated by duplicate acks, so a policy sets cwnd = ssthresh at once.
    pub pipe: bool,
    /// A repeated timeout: the retransmission timer already resent the first
    /// unacknowledged packet once (RFC 5681 section 3.1 sets ssthresh from equation 4
    /// only on the first).
    pub rto_repeat: bool,
}

/// How the transport recovers from a fast retransmit (without SACK).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// 4.3BSD-Reno: the first new ack ends recovery.
    Reno,
    /// RFC 6582: partial acks retransmit the next hole and recovery lasts until the
    /// highest packet sent at its start is acknowledged.
    NewReno,
}

/// A policy's outputs, read by the transport and the recorder (quinn's
/// `ControllerMetrics`). Build with `CcMetrics::window(cwnd)` and the `with_*` setters.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct CcMetrics {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes, where the policy has one.
    pub ssthresh: Option<u64>,
    /// Pacing rate, bits/s, for rate-based policies. `None`: the
    /// transport sends whatever the window allows at once. `Some(r)`: bursts of
    /// `send_quantum` back-to-back packets, a burst of b packets of size s every b*s*8/r
    /// seconds, within the window (`u64::MAX`: no spacing).
    pub pacing_rate: Option<u64>,
    /// Packets per paced burst (2 for Packet-Pair). Only used when pacing.
    pub send_quantum: u32,
    /// Named values of the policy's own, recordable as series `<flow>.<name>` (names
    /// listed by `CcConfig::extra_series`).
    pub extra: [Option<(&'static str, f64)>; 2],
}

impl CcMetrics {
    /// A window-based policy's metrics: `cwnd` bytes, nothing else.
    pub const fn window(cwnd: u64) -> Self {
        CcMetrics { cwnd, ssthresh: None, pacing_rate: None, send_quantum: 1, extra: [None, None] }
    }
    pub const fn with_ssthresh(mut self, s: u64) -> Self {
        self.ssthresh = Some(s);
        self
    }
    pub const fn with_pacing(mut self, rate_bps: u64, quantum: u32) -> Self {
        self.pacing_rate = Some(rate_bps);
        self.send_quantum = quantum;
        self
    }
    pub const fn with_extra(mut self, i: usize, name: &'static str, v: f64) -> Self {
        self.extra[i] = Some((name, v));
        self
    }
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
    /// Linux 2.6 (`tcp_rtt_estimator`, `tcp_set_rto`): every ack's timestamp echo is a
    /// sample; srtt += (m - srtt)/8; the deviation (gain 1/4, 1/32 when the RTT falls)
    /// feeds rttvar, the largest 4 x deviation of the round trip but at least
    /// `min_rto`, decaying by a quarter per round trip; rto = srtt + rttvar (so at
    /// least srtt + min_rto), at most `max_rto`, doubled on each timeout.
    Linux { min_rto: SimDuration, max_rto: SimDuration },
}

/// The window transport's retransmission timer and loss recovery: the transport's own
/// settings, kept in the window sender (`transport::sender::WindowSender`), which a
/// scenario file gives among a policy's parameters (`[flows.params]`: `initial_rto`,
/// `min_rto`, `max_rto`, `rto_k`, `rto`, `dupack_threshold`, as each policy's `Config`
/// lists them) and the policy reads out of them (`CcPolicy::loss_recovery`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossRecovery {
    /// How the retransmission timeout is computed.
    pub rto: RtoStyle,
    /// The timeout before the first RTT sample.
    pub initial_rto: SimDuration,
    /// Duplicate acks that trigger fast retransmit (RFC 5681 section 3.2); `None`
    /// disables it.
    pub dupack_threshold: Option<u32>,
    /// How a fast retransmit recovers (without SACK).
    pub recovery: Recovery,
}

impl LossRecovery {
    /// Jacobson/Karels with RFC 6298's constants, no fast retransmit.
    pub const DEFAULT: LossRecovery = LossRecovery {
        rto: JkRtoConfig::DEFAULT.style(),
        initial_rto: JkRtoConfig::DEFAULT.initial_rto,
        dupack_threshold: None,
        recovery: Recovery::Reno,
    };

    /// Jacobson/Karels (`rto`) with fast retransmit at `dupack_threshold` duplicate acks
    /// and Reno's recovery.
    pub const fn jk(rto: JkRtoConfig, dupack_threshold: u32) -> Self {
        LossRecovery {
            rto: rto.style(),
            initial_rto: rto.initial_rto,
            dupack_threshold: Some(dupack_threshold),
            recovery: Recovery::Reno,
        }
    }
}

/// Which retransmission timer a Reno-family or delay-based policy uses (parameter `rto`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoKind {
    /// Jacobson/Karels as 4.3BSD: one timed packet per round trip, rto = srtt + k rttvar
    /// clamped to [min_rto, max_rto].
    #[default]
    Jk,
    /// Linux 2.6: every ack sampled, rto = srtt + max(4 deviation, min_rto).
    Linux,
}

impl RtoKind {
    pub fn is_jk(&self) -> bool {
        *self == RtoKind::Jk
    }
}

/// The interface of a congestion-control policy: event callbacks (all but `on_ack` and
/// `on_congestion` optional) and one required output, `metrics`.
pub trait CongestionControl {
    /// A data packet was sent (delay-based policies time their "head of window" here).
    #[inline]
    fn on_packet_sent(&mut self, _s: &SendSample) {}
    /// A cumulative ack acknowledged new data.
    fn on_ack(&mut self, s: &AckSample);
    /// A duplicate ack beyond the fast-retransmit threshold (Reno inflates here; not
    /// called during SACK recovery).
    fn on_dup_ack(&mut self, _now: SimTime) {}
    /// Congestion was detected (a loss or an ECN echo), with its cause.
    fn on_congestion(&mut self, s: &CongestionSample);
    /// Feedback from the receiver or the network (rate-based and router-fed policies).
    fn on_feedback(&mut self, _now: SimTime, _fb: &Feedback) {}
    /// The policy's outputs.
    fn metrics(&self) -> CcMetrics;
    /// Congestion window, bytes (`metrics().cwnd`).
    #[inline]
    fn cwnd(&self) -> u64 {
        self.metrics().cwnd
    }
    /// Slow-start threshold, bytes (`metrics().ssthresh`).
    fn ssthresh(&self) -> Option<u64> {
        self.metrics().ssthresh
    }
    /// Pacing rate, bits/s (`metrics().pacing_rate`).
    fn pacing_rate(&self) -> Option<u64> {
        self.metrics().pacing_rate
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

/// Which window a loss, a timeout or an ECN echo halves (`ssthresh_rule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshRule {
    /// 4.3BSD (`tcp_input.c`, `tcp_timer.c`; Jacobson 1988, REAL): half of the
    /// congestion window, which Reno's duplicate acks inflate during fast recovery.
    Bsd,
    /// RFC 5681 section 3.1 equation 4 (and RFC 6582 section 3.2, RFC 6675 section 5):
    /// half of FlightSize, the data sent and not cumulatively acknowledged. A timeout
    /// inside a loss recovery sets ssthresh to "no more than" equation 4 by keeping the
    /// lower value the recovery set, since FlightSize has grown with the window
    /// inflation by then (Linux's `tcp_enter_loss` keeps ssthresh in recovery; ns-3
    /// halves its scoreboard's bytes in flight, which leaves duplicate-acked packets
    /// out); a repeated timeout of the same packet leaves ssthresh as it is.
    Rfc5681,
}

impl SsthreshRule {
    pub fn name(self) -> &'static str {
        match self {
            SsthreshRule::Bsd => "bsd",
            SsthreshRule::Rfc5681 => "rfc5681",
        }
    }
}

/// ssthresh after a congestion signal under `rule`, in bytes and whole segments:
/// `cwnd` and `ssthresh` are the policy's current values, `recovering` whether a fast
/// recovery was in progress when the signal came.
pub fn ssthresh_after_congestion(
    rule: SsthreshRule,
    s: &CongestionSample,
    cwnd: u64,
    ssthresh: u64,
    recovering: bool,
    mss: u64,
    max: u64,
) -> u64 {
    match rule {
        SsthreshRule::Bsd => bsd_ssthresh_after_loss(cwnd, mss, max),
        SsthreshRule::Rfc5681 => {
            // Equation 4: max(FlightSize / 2, 2 SMSS), here in whole segments.
            let eq4 = (s.in_flight_pkts as u64 / 2).max(2) * mss;
            match s.cause {
                Cause::Timeout if s.rto_repeat => ssthresh,
                Cause::Timeout if recovering => ssthresh.min(eq4),
                _ => eq4,
            }
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
        JkRtoConfig::DEFAULT
    }
}

impl JkRtoConfig {
    pub const DEFAULT: JkRtoConfig = JkRtoConfig {
        initial_rto: SimDuration::from_secs(3),
        min_rto: SimDuration::from_secs(1),
        max_rto: SimDuration::from_secs(64),
        k: 4,
    };

    pub const fn style(&self) -> RtoStyle {
        RtoStyle::JacobsonKarels { k: self.k, min_rto: self.min_rto, max_rto: self.max_rto }
    }

    /// Checks the bounds; (field, message) if wrong. Every timeout is at least
    /// `MIN_TIMEOUT` (1 us), so a timer always moves time forward.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        for (name, t) in [("initial_rto", self.initial_rto), ("min_rto", self.min_rto), ("max_rto", self.max_rto)] {
            check_timeout(name, t)?;
        }
        if self.max_rto < self.min_rto {
            return Err(("max_rto", "must not be below min_rto".into()));
        }
        Ok(())
    }
}

/// The shortest retransmission timeout accepted or used: 1 us. A shorter one (or zero)
/// would retransmit without letting time advance (zero) or at a rate no network could
/// carry; the estimator also never goes below it.
pub const MIN_TIMEOUT: SimDuration = SimDuration::from_micros(1);

/// Checks a timeout parameter against `MIN_TIMEOUT`.
pub(crate) fn check_timeout(name: &'static str, t: SimDuration) -> Result<(), (&'static str, String)> {
    if t < MIN_TIMEOUT {
        let t = crate::units::fmt_time(t);
        return Err((
            name,
            format!("{t} is shorter than the smallest timeout, 1us; give at least \"1us\" (RFC 6298 uses 1s)"),
        ));
    }
    Ok(())
}

/// Checks that each named count is at least 1; (field, message) for the first that is not.
pub(crate) fn at_least_one(values: &[(&'static str, u32)]) -> Result<(), (&'static str, String)> {
    for &(name, v) in values {
        if v < 1 {
            return Err((name, format!("expected a whole number of at least 1, found {v}")));
        }
    }
    Ok(())
}

/// A policy defined outside the engine (the escape hatch, used by
/// congestion control written in Python): dynamic dispatch, one box.
pub struct CustomCc(pub Box<dyn CongestionControl + Send>);

impl std::fmt::Debug for CustomCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CustomCc(cwnd {})", self.0.metrics().cwnd)
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
            recovery: RecoveryAck::None,
        });
    }

    pub fn loss(cc: &mut impl CongestionControl, cause: Cause) {
        loss_in_flight(cc, cause, 0);
    }

    /// A congestion signal with `in_flight` packets outstanding (FlightSize).
    pub fn loss_in_flight(cc: &mut impl CongestionControl, cause: Cause, in_flight: u32) {
        cc.on_congestion(&CongestionSample {
            now: SimTime::ZERO,
            cause,
            in_flight_pkts: in_flight,
            pipe: false,
            rto_repeat: false,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_lists_every_policy_once_by_name_and_alias() {
        let names: Vec<&str> = CcConfig::ALL.iter().map(|i| i.name).collect();
        assert_eq!(names, ["generic", "tahoe", "reno", "newreno", "pp", "da", "vegas", "delay_aimd"]);
        let mut all: Vec<&str> =
            CcConfig::ALL.iter().flat_map(|i| std::iter::once(&i.name).chain(i.aliases)).copied().collect();
        assert_eq!(all.len(), 10);
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 10, "a name or alias is registered twice");
        assert!(CcConfig::ALL[1].answers_to("jk") && CcConfig::ALL[4].answers_to("packet_pair"));
        for info in CcConfig::ALL {
            // The default configuration is the policy's own, and its entry is this one.
            let cfg = (info.default)();
            assert_eq!(cfg.name(), info.name);
            assert_eq!(cfg.info().name, info.name);
            assert_eq!(cfg.extra_series(), info.extra_series);
            assert!(!info.description.is_empty());
            assert_eq!(cfg.check(), Ok(()), "{}: its defaults pass its checks", info.name);
        }
    }

    #[test]
    fn the_registry_gives_each_policys_defaults() {
        let defaults = |n: &str| CcConfig::ALL.iter().find(|i| i.name == n).unwrap().defaults();
        // Generic: beta 2, alpha 0.875, 3 s initial timeout; no window (the flow's maximum).
        let g = defaults("generic");
        assert_eq!(g.keys().collect::<Vec<_>>(), ["beta", "alpha", "initial_rto"]);
        assert_eq!(g["beta"].as_float(), Some(2.0));
        assert_eq!(g["alpha"].as_float(), Some(0.875));
        assert_eq!(g["initial_rto"].as_str(), Some("3s"));
        // Tahoe, Reno and NewReno share their parameters: window 1, 3 duplicate acks, the
        // RFC 6298 timer (1 s to 64 s, k = 4).
        for n in ["tahoe", "reno", "newreno"] {
            let t = defaults(n);
            assert_eq!(t["initial_window"].as_integer(), Some(1), "{n}");
            assert_eq!(t["dupack_threshold"].as_integer(), Some(3), "{n}");
            assert_eq!(t["min_rto"].as_str(), Some("1s"), "{n}");
            assert_eq!(t["max_rto"].as_str(), Some("64s"), "{n}");
            assert_eq!(t["rto_k"].as_integer(), Some(4), "{n}");
            assert!(!t.contains_key("initial_ssthresh"), "{n}: unset by default");
        }
        // Every parameter, set by default or not, in declaration order.
        let generic = CcConfig::ALL[0].parameter_defaults();
        assert_eq!(
            generic.iter().map(|(n, v)| (*n, v.is_some())).collect::<Vec<_>>(),
            [("window", false), ("beta", true), ("alpha", true), ("initial_rto", true)]
        );
        let tahoe: Vec<&str> = CcConfig::ALL[1].parameter_defaults().iter().map(|p| p.0).collect();
        assert_eq!(
            tahoe,
            [
                "initial_window",
                "initial_ssthresh",
                "dupack_threshold",
                "initial_rto",
                "min_rto",
                "max_rto",
                "rto_k",
                "rto",
                "ssthresh_rule"
            ]
        );
        // Every name a policy's own series may have, each once, in registration order.
        assert_eq!(CcConfig::all_extra_series(), ["reference_rtt", "base_rtt", "diff", "cc_rtt", "echo_rtt"]);
    }

    #[test]
    fn a_name_outside_the_registry_selects_nothing() {
        struct Defaults;
        impl ReadParams for Defaults {
            type Error = ();
            fn read<T: serde::de::DeserializeOwned>(&self) -> Result<T, ()> {
                toml::Value::Table(toml::Table::new()).try_into().map_err(|_| ())
            }
        }
        assert!(CcConfig::from_params("bbr", &Defaults).is_none());
        assert_eq!(CcConfig::from_params("jk", &Defaults), Some(Ok(CcConfig::Tahoe(TahoeConfig::default()))));
        assert_eq!(CcConfig::from_params("newreno", &Defaults), Some(Ok(CcConfig::NewReno(TahoeConfig::default()))));
    }

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

    fn sample(cause: Cause, in_flight_pkts: u32, rto_repeat: bool) -> CongestionSample {
        CongestionSample { now: SimTime::ZERO, cause, in_flight_pkts, pipe: false, rto_repeat }
    }

    #[test]
    fn rfc5681_halves_flight_size_in_whole_segments_at_least_two() {
        let r = SsthreshRule::Rfc5681;
        // cwnd 30 segments, 21 in flight: 21 / 2 = 10 segments; cwnd plays no part.
        assert_eq!(
            ssthresh_after_congestion(
                r,
                &sample(Cause::FastRetransmit, 21, false),
                30_000,
                64_000,
                false,
                1000,
                64_000
            ),
            10_000
        );
        assert_eq!(
            ssthresh_after_congestion(r, &sample(Cause::Ecn, 21, false), 30_000, 64_000, false, 1000, 64_000),
            10_000
        );
        assert_eq!(
            ssthresh_after_congestion(r, &sample(Cause::FastRetransmit, 3, false), 30_000, 64_000, false, 1000, 64_000),
            2000
        );
        // A first timeout outside recovery: 50 / 2 = 25 segments.
        assert_eq!(
            ssthresh_after_congestion(r, &sample(Cause::Timeout, 50, false), 1000, 7000, false, 1000, 64_000),
            25_000
        );
    }

    #[test]
    fn rfc5681_timeouts_in_recovery_and_repeated_ones_do_not_raise_ssthresh() {
        let r = SsthreshRule::Rfc5681;
        // In recovery with ssthresh 10 segments: 100 in flight (inflated) keeps 10; 8 in
        // flight lowers it to 4.
        assert_eq!(
            ssthresh_after_congestion(r, &sample(Cause::Timeout, 100, false), 110_000, 10_000, true, 1000, 640_000),
            10_000
        );
        assert_eq!(
            ssthresh_after_congestion(r, &sample(Cause::Timeout, 8, false), 110_000, 10_000, true, 1000, 640_000),
            4000
        );
        // A repeated timeout keeps 7 segments whatever is in flight.
        assert_eq!(
            ssthresh_after_congestion(r, &sample(Cause::Timeout, 50, true), 1000, 7000, false, 1000, 64_000),
            7000
        );
    }

    #[test]
    fn the_bsd_rule_halves_the_window_whatever_is_in_flight() {
        let b = SsthreshRule::Bsd;
        assert_eq!(
            ssthresh_after_congestion(b, &sample(Cause::FastRetransmit, 3, false), 8000, 64_000, false, 1000, 64_000),
            4000
        );
        assert_eq!(
            ssthresh_after_congestion(b, &sample(Cause::Timeout, 100, false), 110_000, 10_000, true, 1000, 640_000),
            55_000
        );
        // A repeated timeout: cwnd is one segment by then, so 2 segments.
        assert_eq!(
            ssthresh_after_congestion(b, &sample(Cause::Timeout, 50, true), 1000, 7000, false, 1000, 64_000),
            2000
        );
    }
}
