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
//! build it and its own series), and one line in the `registry!` below. The
//! retransmission timer and fast retransmit are the transport's (`LossRecoveryConfig`,
//! set among the policy's parameters in a scenario file); a policy only declares which
//! of them apply and their defaults (`CcPolicy::LOSS_RECOVERY`). The
//! `CcConfig` and `AnyCc` enums, their dispatch, the scenario file's names and the
//! registry table `CcConfig::ALL` (read by validation, `ccsim list cc` and the bench's
//! `--cc`) all derive from that line. docs/extending.md walks through it.

use crate::base::time::{SimDuration, SimTime};
use crate::base::units::serde_units;
use serde::{Deserialize, Serialize};

#[macro_use]
mod registry;
pub mod external;
/// Defined with the packet metadata that carries it (`meta::Control::Feedback`).
pub use crate::packet::meta::Feedback;
pub use external::ExternalConfig;
/// Defined with the sampler that computes it (`transport::rate_sample`).
pub use registry::{CcInfo, CcPolicy, ReadParams};

pub use bbr::BbrConfig;
pub use cubic::CubicConfig;
pub use da::{DaConfig, NdgSampling, RuleWindow};
pub use dctcp::DctcpConfig;
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
    dctcp::Dctcp in Box,
    cubic::Cubic in Box,
    bbr::Bbr in Box,
}

/// A delivery-rate sample, given to a policy that declares `CcPolicy::RATE_SAMPLE`
/// (`CongestionControl::on_rate_sample`) on every ack that acknowledges new data and
/// on every duplicate ack that SACKs new data. Linux's `struct rate_sample` plus the
/// flow's counters a policy reads from `tcp_sock`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    pub now: SimTime,
    /// The flow's packets delivered so far, after this ack (`tp->delivered`).
    pub total_delivered: u64,
    /// When the last delivery was acknowledged (`tp->delivered_mstamp`).
    pub delivered_time: SimTime,
    /// Packets this ack newly acknowledged or SACKed (`rs->acked_sacked`).
    pub acked_sacked: u32,
    /// P's snapshot of `delivered` (`rs->prior_delivered`); `None`: no newly delivered
    /// packet carried a snapshot.
    pub prior_delivered: Option<u64>,
    /// Packets delivered over the interval: `total_delivered - prior_delivered`.
    pub delivered: u64,
    /// The sampling interval, max(send phase, ack phase); `None` when the sample is not
    /// valid (no P, or an interval below the minimum RTT).
    pub interval: Option<SimDuration>,
    /// P was sent while the flow was application-limited.
    pub is_app_limited: bool,
    /// Time since P was sent; `None` if P was a retransmission.
    pub rtt: Option<SimDuration>,
    /// Packets outstanding before this ack (sent, not cumulatively acknowledged, not
    /// SACKed).
    pub prior_in_flight: u32,
    /// The same after this ack.
    pub in_flight: u32,
}

impl RateSample {
    /// The delivery rate, packets per second, when the sample is valid.
    pub fn rate_pps(&self) -> Option<f64> {
        let i = self.interval?;
        Some(self.delivered as f64 * crate::base::time::PS_PER_S as f64 / i.as_ps() as f64)
    }
}

/// How a receiver echoes CE marks (`ReceiverConfig::ecn_echo`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnEcho {
    /// RFC 3168 section 6.1.3: ECE on every ack from a CE mark until CWR arrives.
    #[default]
    Rfc3168,
    /// RFC 8257 section 3.2: each ack's ECE is the CE mark of the packets it
    /// acknowledges (an immediate ack when the mark changes).
    Dctcp,
}

impl EcnEcho {
    /// The name a scenario file gives (`ecn_echo = "..."`).
    pub fn name(self) -> &'static str {
        match self {
            EcnEcho::Rfc3168 => "rfc3168",
            EcnEcho::Dctcp => "dctcp",
        }
    }
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
    /// `FLAG_*` bits of that data packet, echoed by the receiver (pair marks, RETX), and
    /// the ack's own `FLAG_ECE` (the receiver's ECN echo; DCTCP counts the packets
    /// acknowledged with it).
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
    /// The transport's duplicate-ack threshold (`LossRecoveryConfig::dupack_threshold`;
    /// 0 without fast retransmit): on `Cause::FastRetransmit` that many packets have
    /// left the network (Reno inflates the window by as many segments).
    pub dupack_threshold: u32,
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
    pub extra: [Option<(&'static str, f64)>; EXTRA_SLOTS],
}

/// How many values of its own a policy may report (`CcMetrics::extra`). Each slot costs
/// every policy's `metrics` (Reno's included) about two instructions per packet on the
/// bench dumbbell (callgrind), so there are two.
pub const EXTRA_SLOTS: usize = 2;

impl CcMetrics {
    /// A window-based policy's metrics: `cwnd` bytes, nothing else.
    pub const fn window(cwnd: u64) -> Self {
        CcMetrics { cwnd, ssthresh: None, pacing_rate: None, send_quantum: 1, extra: [None; EXTRA_SLOTS] }
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

/// The window transport's retransmission timer and loss recovery, as the window sender
/// (`transport::sender::WindowSender`) runs them: resolved by `CcConfig::loss_recovery`
/// from the flow's `LossRecoveryConfig` and what its policy declares
/// (`CcPolicy::LOSS_RECOVERY`, `CcPolicy::rto_style`).
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

/// The window transport's loss-recovery parameters: the flow's own settings
/// (`FlowSpec::Window::loss`), which a scenario file gives among its policy's
/// parameters (`[flows.params]`, by these names). They are not the policy's: a policy
/// declares which of them a scenario may set for it, their defaults and where its
/// parameter table lists them (`CcPolicy::LOSS_RECOVERY`), and nothing else.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossRecoveryConfig {
    /// Duplicate acks that trigger fast retransmit (RFC 5681 section 3.2). Default 3.
    pub dupack_threshold: u32,
    /// Timeout before the first RTT sample. Default 3 s (RFC 1122).
    #[serde(with = "serde_units::time")]
    pub initial_rto: SimDuration,
    /// Lower bound of the timeout. Default 1 s (RFC 6298).
    #[serde(with = "serde_units::time")]
    pub min_rto: SimDuration,
    /// Upper bound, also the cap of exponential backoff. Default 64 s.
    #[serde(with = "serde_units::time")]
    pub max_rto: SimDuration,
    /// rto = srtt + rto_k rttvar (Jacobson/Karels). Default 4 (RFC 6298).
    pub rto_k: u32,
    /// The timer: `jk` (4.3BSD) or `linux` (Linux 2.6: srtt + max(4 rttvar, min_rto),
    /// every ack sampled; `rto_k` unused).
    pub rto: RtoKind,
}

impl Default for LossRecoveryConfig {
    fn default() -> Self {
        LossRecoveryConfig::RFC6298
    }
}

impl LossRecoveryConfig {
    /// The parameter names, in the order a policy's parameter table lists them.
    pub const NAMES: [&'static str; 6] = ["dupack_threshold", "initial_rto", "min_rto", "max_rto", "rto_k", "rto"];

    /// Jacobson/Karels with RFC 6298's constants and a 3 s initial timeout; fast
    /// retransmit at three duplicate acks.
    pub const RFC6298: LossRecoveryConfig = LossRecoveryConfig {
        dupack_threshold: 3,
        initial_rto: JkRtoConfig::DEFAULT.initial_rto,
        min_rto: JkRtoConfig::DEFAULT.min_rto,
        max_rto: JkRtoConfig::DEFAULT.max_rto,
        rto_k: JkRtoConfig::DEFAULT.k,
        rto: RtoKind::Jk,
    };

    /// Linux's timer: 200 ms to 120 s (`TCP_RTO_MIN`, `TCP_RTO_MAX`), every ack sampled
    /// (the defaults of `delay_aimd` and `bbr`).
    pub const LINUX: LossRecoveryConfig = LossRecoveryConfig {
        min_rto: SimDuration::from_millis(200),
        max_rto: SimDuration::from_secs(120),
        rto: RtoKind::Linux,
        ..LossRecoveryConfig::RFC6298
    };

    /// The Jacobson/Karels timer parameters.
    pub const fn jk(&self) -> JkRtoConfig {
        JkRtoConfig { initial_rto: self.initial_rto, min_rto: self.min_rto, max_rto: self.max_rto, k: self.rto_k }
    }

    /// The retransmission timer these parameters select (`rto`).
    pub const fn style(&self) -> RtoStyle {
        match self.rto {
            RtoKind::Jk => self.jk().style(),
            RtoKind::Linux => RtoStyle::Linux { min_rto: self.min_rto, max_rto: self.max_rto },
        }
    }

    /// Checks the values; (parameter, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        at_least_one(&[("dupack_threshold", self.dupack_threshold), ("rto_k", self.rto_k)])?;
        self.jk().check()
    }

    /// The parameters as a table, every one of `NAMES`.
    fn table(&self) -> toml::Table {
        toml::Table::try_from(self).expect("loss-recovery parameters serialise to TOML")
    }
}

/// What a policy declares of the transport's loss recovery (`CcPolicy::LOSS_RECOVERY`):
/// which of the `LossRecoveryConfig` parameters a scenario may set for it, their
/// defaults, where its parameter table lists them, and how a fast retransmit recovers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossRecoveryParams {
    /// The defaults (also the values of the parameters not accepted).
    pub defaults: LossRecoveryConfig,
    /// The names (of `LossRecoveryConfig::NAMES`, in that order) a scenario may set. A
    /// policy without `dupack_threshold` has no fast retransmit.
    pub accepts: &'static [&'static str],
    /// The policy's own parameter after which its table lists them; `None`: after all.
    pub after: Option<&'static str>,
    /// How a fast retransmit recovers (without SACK).
    pub recovery: Recovery,
}

impl LossRecoveryParams {
    /// Every parameter, RFC 6298's timer and fast retransmit at three duplicate acks,
    /// Reno's recovery, listed after the policy's own parameters: the default of
    /// `CcPolicy::LOSS_RECOVERY`.
    pub const RFC6298: LossRecoveryParams = LossRecoveryParams {
        defaults: LossRecoveryConfig::RFC6298,
        accepts: &LossRecoveryConfig::NAMES,
        after: None,
        recovery: Recovery::Reno,
    };

    /// As `RFC6298`, without the choice of timer (`rto`): Jacobson/Karels is the only one.
    pub const JACOBSON_KARELS: LossRecoveryParams = LossRecoveryParams {
        accepts: &["dupack_threshold", "initial_rto", "min_rto", "max_rto", "rto_k"],
        ..LossRecoveryParams::RFC6298
    };

    /// Whether a fast retransmit is part of the recovery (`dupack_threshold` accepted).
    pub fn fast_retransmit(&self) -> bool {
        self.accepts.contains(&"dupack_threshold")
    }

    /// The transport's timer and loss recovery for the parameters `l`, with the timer
    /// `rto` (`CcPolicy::rto_style`).
    pub fn resolve(&self, l: &LossRecoveryConfig, rto: RtoStyle) -> LossRecovery {
        LossRecovery {
            rto,
            initial_rto: l.initial_rto,
            dupack_threshold: self.fast_retransmit().then_some(l.dupack_threshold),
            recovery: self.recovery,
        }
    }

    /// Splits a `[flows.params]` table into the policy's own parameters and the
    /// transport's (those it accepts).
    pub fn split(&self, params: &toml::Table) -> (toml::Table, toml::Table) {
        let (mut own, mut transport) = (toml::Table::new(), toml::Table::new());
        for (k, v) in params {
            if self.accepts.contains(&k.as_str()) {
                transport.insert(k.clone(), v.clone());
            } else {
                own.insert(k.clone(), v.clone());
            }
        }
        (own, transport)
    }

    /// Reads the transport's parameters `given` (from `split`) over the defaults.
    pub fn read<R: ReadParams>(&self, given: toml::Table, read: &R) -> Result<LossRecoveryConfig, R::Error> {
        if given.is_empty() {
            return Ok(self.defaults);
        }
        let mut t = self.defaults.table();
        t.extend(given);
        read.read(&t)
    }

    /// The parameters a table lists for `l`: those accepted, but `rto` only where it
    /// differs from a `jk` default.
    fn listed(&self, l: &LossRecoveryConfig) -> impl Iterator<Item = (String, toml::Value)> + '_ {
        let mut t = l.table();
        let skip_rto = l.rto == RtoKind::Jk && self.defaults.rto == RtoKind::Jk;
        self.accepts
            .iter()
            .filter(move |&&n| !(n == "rto" && skip_rto))
            .filter_map(move |&n| t.remove(n).map(|v| (n.to_string(), v)))
    }

    /// The policy's own parameter table `own` (its `Config`'s fields `names`, in
    /// order) with the transport's parameters `l` in their place.
    pub fn merge(&self, names: &[&'static str], mut own: toml::Table, l: &LossRecoveryConfig) -> toml::Table {
        let mut out = toml::Table::new();
        if self.after.is_none() {
            out.extend(own);
            out.extend(self.listed(l));
            return out;
        }
        for &n in names {
            if let Some(v) = own.remove(n) {
                out.insert(n.to_string(), v);
            }
            if Some(n) == self.after {
                out.extend(self.listed(l));
            }
        }
        out.extend(own);
        out
    }

    /// The names of the policy's parameters `names` with the accepted transport
    /// parameters in their place.
    pub fn names(&self, names: &[&'static str]) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::with_capacity(names.len() + self.accepts.len());
        for &n in names {
            out.push(n);
            if Some(n) == self.after {
                out.extend(self.accepts);
            }
        }
        if self.after.is_none() {
            out.extend(self.accepts);
        }
        out
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
    /// A delivery-rate sample (`transport::rate_sample`), only for a policy that
    /// declares `CcPolicy::RATE_SAMPLE`: on every ack that acknowledges new data, right
    /// after `on_ack` for it (so the policy knows where the ack left loss recovery), and
    /// on every duplicate ack that SACKs new data, before the transport acts on the
    /// duplicate. Returns true to mark the flow application-limited until what is in
    /// flight is delivered (Linux BBR sets `tp->app_limited` in ProbeRTT).
    fn on_rate_sample(&mut self, _rs: &RateSample) -> bool {
        false
    }
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

/// cwnd on entering Reno's fast recovery at a fast retransmit (RFC 5681 section 3.2 step
/// 4): ssthresh plus the `dupack_threshold` segments that left the network, or with
/// SACK's pipe (RFC 6675) ssthresh alone. Shared by the Reno-style policies.
pub fn fast_recovery_window(s: &CongestionSample, ssthresh: u64, mss: u64) -> u64 {
    if s.pipe {
        ssthresh
    } else {
        ssthresh + s.dupack_threshold as u64 * mss
    }
}

/// cwnd after a NewReno partial ack outside SACK's pipe (RFC 6582 section 3.2 step 5):
/// deflated by the amount acknowledged, one segment added back if at least one was.
pub fn partial_ack_window(cwnd: u64, acked_pkts: u32, mss: u64) -> u64 {
    let acked = acked_pkts as u64 * mss;
    cwnd.saturating_sub(acked).max(mss) + if acked >= mss { mss } else { 0 }
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

/// Jacobson/Karels timer parameters (`LossRecoveryConfig::jk`).
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
        let t = crate::base::units::fmt_time(t);
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

/// The window-based policies' start: `initial_window` and, when set, `initial_ssthresh`
/// whole numbers of at least 1.
pub(crate) fn check_window_start(
    initial_window: u32,
    initial_ssthresh: Option<u32>,
) -> Result<(), (&'static str, String)> {
    at_least_one(&[("initial_window", initial_window)])?;
    if initial_ssthresh == Some(0) {
        return Err(("initial_ssthresh", "must be a whole number of at least 1".into()));
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
            dupack_threshold: 3,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_lists_every_policy_once_by_name_and_alias() {
        let names: Vec<&str> = CcConfig::ALL.iter().map(|i| i.name).collect();
        assert_eq!(
            names,
            ["generic", "tahoe", "reno", "newreno", "pp", "da", "vegas", "delay_aimd", "dctcp", "cubic", "bbr"]
        );
        let mut all: Vec<&str> =
            CcConfig::ALL.iter().flat_map(|i| std::iter::once(&i.name).chain(i.aliases)).copied().collect();
        assert_eq!(all.len(), 13);
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 13, "a name or alias is registered twice");
        // Only DCTCP needs ECN, with its own echo.
        let ecn: Vec<(&str, Option<EcnEcho>)> =
            CcConfig::ALL.iter().filter(|i| i.ecn_echo.is_some()).map(|i| (i.name, i.ecn_echo)).collect();
        assert_eq!(ecn, [("dctcp", Some(EcnEcho::Dctcp))]);
        // Only BBR takes delivery-rate samples (the sender keeps snapshots for it alone).
        let sampled: Vec<&str> = CcConfig::ALL.iter().filter(|i| i.rate_sample).map(|i| i.name).collect();
        assert_eq!(sampled, ["bbr"]);
        assert!(CcConfig::ALL[1].answers_to("jk") && CcConfig::ALL[4].answers_to("packet_pair"));
        for info in CcConfig::ALL {
            // The default configuration is the policy's own, and its entry is this one.
            let cfg = (info.default)();
            assert_eq!(cfg.name(), info.name);
            assert_eq!(cfg.info().name, info.name);
            assert_eq!(cfg.extra_series(), info.extra_series);
            assert!(!info.description.is_empty());
            let loss = cfg.default_loss_recovery();
            assert_eq!(cfg.check(&loss), Ok(()), "{}: its defaults pass its checks", info.name);
            assert_eq!(cfg.loss_recovery_params(), info.loss_recovery);
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
            assert!(!t.contains_key("rto"), "{n}: jk, unset by default");
            assert_eq!(t["dupack_threshold"].as_integer(), Some(3), "{n}");
            assert_eq!(t["min_rto"].as_str(), Some("1s"), "{n}");
            assert_eq!(t["max_rto"].as_str(), Some("64s"), "{n}");
            assert_eq!(t["rto_k"].as_integer(), Some(4), "{n}");
            assert!(!t.contains_key("initial_ssthresh"), "{n}: unset by default");
        }
        // CUBIC: RFC 9438's C and beta, Linux's initial window and fast convergence, RFC
        // 6298's timer with NewReno's recovery.
        let c = defaults("cubic");
        assert_eq!(
            c.keys().collect::<Vec<_>>(),
            [
                "c",
                "beta",
                "fast_convergence",
                "reno_friendly",
                "initial_window",
                "hystart",
                "dupack_threshold",
                "initial_rto",
                "min_rto",
                "max_rto",
                "rto_k"
            ]
        );
        assert_eq!((c["c"].as_float(), c["beta"].as_float()), (Some(0.4), Some(0.7)));
        assert_eq!(c["initial_window"].as_integer(), Some(10));
        assert_eq!(c["hystart"].as_bool(), Some(false));
        assert_eq!(
            CcConfig::Cubic(Default::default()).loss_recovery(&LossRecoveryConfig::RFC6298).recovery,
            Recovery::NewReno
        );
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
        assert_eq!(
            CcConfig::all_extra_series(),
            [
                "reference_rtt",
                "base_rtt",
                "diff",
                "cc_rtt",
                "echo_rtt",
                "dctcp_alpha",
                "w_max",
                "cubic_k",
                "bbr_bw",
                "bbr_state"
            ]
        );
        // DCTCP: window 10, g = 1/16, alpha from 1, its loss recovery after initial_ssthresh.
        let d = defaults("dctcp");
        assert_eq!(d["initial_window"].as_integer(), Some(10));
        assert_eq!(d["g"].as_float(), Some(0.0625));
        assert_eq!(d["initial_alpha"].as_float(), Some(1.0));
        let dctcp: Vec<&str> = CcConfig::ALL[8].parameter_defaults().iter().map(|p| p.0).collect();
        assert_eq!(
            dctcp,
            [
                "initial_window",
                "initial_ssthresh",
                "dupack_threshold",
                "initial_rto",
                "min_rto",
                "max_rto",
                "rto_k",
                "rto",
                "g",
                "initial_alpha",
                "ssthresh_rule",
                "cwr_hold"
            ]
        );
        assert_eq!(d["cwr_hold"].as_bool(), Some(true));
    }

    /// Reads a table as serde does, errors as their text.
    struct Serde;
    impl ReadParams for Serde {
        type Error = String;
        fn read<T: serde::de::DeserializeOwned>(&self, params: &toml::Table) -> Result<T, String> {
            toml::Value::Table(params.clone()).try_into().map_err(|e: toml::de::Error| e.to_string())
        }
    }

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn a_name_outside_the_registry_selects_nothing() {
        let none = toml::Table::new();
        assert!(CcConfig::from_params("no_such_cc", &none, &Serde).is_none());
        let rfc = LossRecoveryConfig::RFC6298;
        assert_eq!(
            CcConfig::from_params("jk", &none, &Serde),
            Some(Ok((CcConfig::Tahoe(TahoeConfig::default()), rfc)))
        );
        assert_eq!(
            CcConfig::from_params("newreno", &none, &Serde),
            Some(Ok((CcConfig::NewReno(TahoeConfig::default()), rfc)))
        );
    }

    #[test]
    fn the_transports_parameters_are_split_from_the_policys_and_merged_back_in_place() {
        let t = table("initial_window = 2\nmin_rto = \"300ms\"\nrto = \"linux\"\nssthresh_rule = \"bsd\"");
        let (cc, loss) = CcConfig::from_params("tahoe", &t, &Serde).unwrap().unwrap();
        let own = TahoeConfig { initial_window: 2, ssthresh_rule: Some(SsthreshRule::Bsd), ..Default::default() };
        assert_eq!(cc, CcConfig::Tahoe(own));
        let want = LossRecoveryConfig {
            min_rto: SimDuration::from_millis(300),
            rto: RtoKind::Linux,
            ..LossRecoveryConfig::RFC6298
        };
        assert_eq!(loss, want);
        // Written back after initial_ssthresh (unset here), before ssthresh_rule.
        let keys: Vec<String> = cc.params(&loss).keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "initial_window",
                "dupack_threshold",
                "initial_rto",
                "min_rto",
                "max_rto",
                "rto_k",
                "rto",
                "ssthresh_rule"
            ]
        );
        assert_eq!(cc.params(&loss)["min_rto"].as_str(), Some("300ms"));
        // The timer and recovery the transport runs.
        let lr = cc.loss_recovery(&loss);
        assert_eq!(
            lr.rto,
            RtoStyle::Linux { min_rto: SimDuration::from_millis(300), max_rto: SimDuration::from_secs(64) }
        );
        assert_eq!((lr.initial_rto, lr.dupack_threshold), (SimDuration::from_secs(3), Some(3)));
        // A policy without `rto` refuses it as one of its own unknown parameters.
        let e = CcConfig::from_params("vegas", &table("rto = \"linux\""), &Serde).unwrap().unwrap_err();
        assert!(e.contains("unknown field `rto`"), "{e}");
        // Delay-AIMD's own defaults: Linux's timer from 200 ms, `rto` always written.
        let (d, dl) = CcConfig::from_params("delay_aimd", &toml::Table::new(), &Serde).unwrap().unwrap();
        assert_eq!((dl.min_rto, dl.rto), (SimDuration::from_millis(200), RtoKind::Linux));
        assert_eq!(d.params(&dl)["rto"].as_str(), Some("linux"));
        let jk = LossRecoveryConfig { rto: RtoKind::Jk, ..dl };
        assert_eq!(d.params(&jk)["rto"].as_str(), Some("jk"));
        // Packet-Pair: no fast retransmit, and no dupack_threshold to set.
        let pp = CcConfig::PacketPair(Default::default());
        assert_eq!(pp.loss_recovery(&LossRecoveryConfig::RFC6298).dupack_threshold, None);
        assert!(!pp.params(&LossRecoveryConfig::RFC6298).contains_key("dupack_threshold"));
    }

    #[test]
    fn fast_recovery_inflates_by_the_dupack_threshold_unless_sack_and_partial_acks_deflate() {
        let mut s = sample(Cause::FastRetransmit, 20, false);
        // 10 segments + 3 duplicate acks' worth; SACK's pipe: ssthresh alone.
        assert_eq!(fast_recovery_window(&s, 10_000, 1000), 13_000);
        s.pipe = true;
        assert_eq!(fast_recovery_window(&s, 10_000, 1000), 10_000);
        // 20 segments, 3 acked: 17 + 1 = 18; a window below what was acked keeps one
        // segment, plus one; nothing acked leaves it.
        assert_eq!(partial_ack_window(20_000, 3, 1000), 18_000);
        assert_eq!(partial_ack_window(1500, 3, 1000), 2000);
        assert_eq!(partial_ack_window(20_000, 0, 1000), 20_000);
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
        CongestionSample { now: SimTime::ZERO, cause, in_flight_pkts, pipe: false, rto_repeat, dupack_threshold: 3 }
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
