//! The window-based reliable sender, parameterised by a congestion-control policy.
//!
//! After 4.3BSD `tcp_output`/`tcp_input`, simplified to whole packets:
//! - Sequence numbers count packets from 0. `snd_una` is the first unacknowledged,
//!   `snd_nxt` the next to send, `snd_max` one past the highest ever sent.
//! - It sends while `snd_nxt < snd_una + min(cwnd / data_size, max_window)`; sending a
//!   sequence number below `snd_max` is a retransmission.
//! - A new cumulative ack advances `snd_una`, feeds the policy and re-arms the timer
//!   (stopped when nothing is outstanding).
//! - Duplicate acks (ack = `snd_una` with data outstanding) are counted; at the policy's
//!   threshold the first unacknowledged packet is retransmitted at once (fast
//!   retransmit) and the policy told `Cause::FastRetransmit`; beyond it, the policy
//!   sees `on_dup_ack`.
//! - Timeout: back off the timer, tell the policy `Cause::Timeout`, go back to
//!   `snd_una` and resend as the window allows (every unacknowledged packet, in turn).
//! - RTT: Jacobson/Karels policies time one packet at a time and discard the sample if
//!   any retransmission happened meanwhile (Karn's rule, as 4.3BSD does); Generic
//!   samples every new ack from the timestamp echo. Reported RTT statistics and the
//!   `rtt` series use the echo of every ack.
//!
//! Loss recovery after a fast retransmit (`SenderConfig`, `CongestionControl::recovery`):
//! - **Reno** (default): the first new ack ends recovery (4.3BSD-Reno).
//! - **NewReno** (RFC 6582): recovery lasts until the packets sent before it are all
//!   acknowledged; each partial ack retransmits the next hole at once; the timer is
//!   re-armed on the first partial ack only ("Impatient"); after a timeout or a recovery,
//!   duplicate acks start a new fast retransmit only once the cumulative ack passes the
//!   highest packet sent before (the `recover` guard).
//! - **SACK** (`sack = true`; RFC 6675 with RFC 2018 blocks): a scoreboard of the
//!   blocks the receiver reports; recovery starts at the duplicate-ack threshold or when
//!   the first unacknowledged packet is deemed lost (IsLost), and sends while the pipe
//!   estimate is below cwnd, choosing lost holes first, then new data, then other holes
//!   (NextSeg rules 1-3; no rescue retransmission). A timeout goes back to `snd_una`;
//!   what it does with the scoreboard is `sack_timeout`: **`keep`** (default; Linux's
//!   `tcp_timeout_mark_lost`, ns-3's TCP; RFC 6675 section 5.1 on keeping SACK
//!   information across a timeout) resends only the packets not SACKed, and SACKed ones
//!   do not count against the window, until the cumulative ack reaches the highest
//!   packet sent before the timeout (every unSACKed packet below it is taken as lost,
//!   as Linux marks them); **`clear`** forgets the SACK information and resends every
//!   packet from `snd_una` (RFC 2018 section 8; ns-2's `Sack1` agent).
//!   A retransmission lost again is found by `lost_retransmissions`: **`detect`**
//!   (default; Linux's `tcp_mark_lost_retrans`, the rule RACK generalises): once data
//!   first sent after the retransmission is SACKed, it is lost (paths do not reorder) and
//!   is resent before anything else NextSeg would choose, and the pipe leaves it out
//!   until then; **`timer`**: only the retransmission timer finds it (RFC 6675 as
//!   written; ns-2's `Sack1`).
//!   How many packets recovery sends per ack is `sack_recovery`: **`rfc6675`**
//!   (default) while the pipe is below cwnd; **`prr`**: Proportional Rate Reduction
//!   (RFC 9937; Linux), the count of `transport::prr`, the fast retransmission being the
//!   first packet of the ack that starts recovery (not for a policy that paces its
//!   recovery: Linux's BBR sets its own window there).
//!
//! What follows a fast retransmit in Reno recovery (`fast_retransmit`):
//! - **`bsd`** (default): the lost packet alone is resent and sending resumes where it
//!   was (4.3BSD restores `snd_nxt`); the next new ack opens the window from there.
//! - **`go_back_n`**: the sender goes back to the lost packet as after a timeout
//!   (`snd_nxt = snd_una + 1` after resending it) and resends what follows as the window
//!   opens, so a receiver that discarded the packets behind the hole gets them again
//!   without a timeout. Duplicate acks do not start another fast retransmit until the
//!   cumulative ack passes the highest packet sent before this one (duplicates of the
//!   resent packets at a keeping receiver would otherwise look like a new loss). Our
//!   reading of the REAL simulator's JK: fast retransmit grafted onto a go-back-N
//!   "generic" source (Keshav 1991 section 3; docs/reproductions/keshav.md).
//!
//! ECN (`ecn = true`, RFC 3168 section 6.1): new data packets are ECN-capable (ECT;
//! retransmissions are not, 6.1.5); an ack with ECE reduces the window once
//! (`Cause::Ecn`) unless in loss recovery or within the window after the previous
//! reduction, and the next new data packet carries CWR.
//!
//! RTT sample of the policy (`rtt_sample`): the timestamp echo (RFC 1323: the oldest
//! packet an ack covers; includes a delayed-ack wait) or the newest packet acknowledged
//! (its last transmission's send time; the echo when that packet was retransmitted).
//!
//! Pacing (rate-based policies, `CcMetrics::pacing_rate`): when the policy returns a
//! rate, the sender emits bursts of `send_quantum` back-to-back packets (the first
//! marked `FLAG_PAIR_FIRST`, the second `FLAG_PAIR_SECOND`), one burst every
//! `burst * data_size * 8 / rate` seconds, and only when the window has room for the
//! whole burst (or the window is smaller than a burst). The next burst is due one gap
//! after the previous one left; if the window held it back longer it leaves as soon as
//! an ack makes room. The pacing deadline is a second `LazyTimer` (`pace`), scheduled by
//! the simulation like the retransmission timer; it costs nothing for window policies.
//!
//! Per-packet pacing (BBR): a policy that paces every packet returns its rate with a
//! quantum of 1 (or small bursts, as BBR's quantum of Linux 4.9's TSO size: one packet
//! below 1.2 Mbit/s, else 2 or more, which sch_fq paces as one unit); the same loop then
//! sends a burst of that many packets every `quantum * data_size * 8 / rate` while the
//! window has room, the next due one gap after the previous one left, as sch_fq's
//! `time_next_packet` (Linux 4.9 `fq_dequeue`). The rate in force when a burst leaves
//! sets the gap to the next. Nothing else is needed: the window is checked before each
//! burst, so pacing and cwnd bound the flow together. A policy that declares
//! `CcPolicy::PACE_RECOVERY` (BBR: sch_fq paces every packet a flow sends) is paced in
//! SACK recovery too: the fast retransmission waits for the pacing clock and is the
//! first packet of recovery's loop, which sends NextSeg (RFC 6675) in bursts of the
//! quantum one gap apart while pipe < cwnd, the pacing timer resuming it.
//!
//! Delivery-rate samples (`rate_sample::RateSampler`, Linux 4.9 `tcp_rate.c`), only for a
//! policy that declares `CcPolicy::RATE_SAMPLE` (resolved when the sender is built; the
//! flow then leaves the `plain` fast path): every packet sent takes a snapshot of the
//! flow's delivery state in a ring indexed by sequence number; every ack that delivers
//! packets (cumulatively, or SACKed with `sack = true`) yields a `RateSample`, given to
//! the policy by `on_rate_sample` right after `on_ack` (new acks) or before the
//! duplicate ack is acted on (duplicates that SACK new data). When the flow has no new
//! data to send while the window has room (after `stop`), it is marked
//! application-limited (`tcp_rate_check_app_limited`), and so whenever the policy asks
//! (BBR's ProbeRTT).
//!
//! TSO-like batching (`tso`, off by default; after Linux `tcp_tso_should_defer`): while
//! not in loss recovery and with data in flight, new data is held back until the window
//! allows a full segment (`segment_bytes`, 64 kB) or 1/`divisor` of the window, or until
//! `defer` has passed since the sender began to wait (the pacing timer wakes it); then
//! everything the window allows leaves back to back, as one segment split by the NIC.
//! McCullagh and Leith's Linux 2.6.18 used a 40 ms timer; 2.6.24 defers "for less than
//! two clock ticks".
//!
//! Handshake (`handshake`, off by default): sequence number 0 stands for TCP's SYN, a
//! packet of the ack size sent alone; new data waits for its ack, whose RTT is the
//! policy's first sample (a delay-based policy's base RTT measured before the flow adds
//! any queueing, as Linux's first sample is the SYN's). The receiver acks it at once.
//! It counts as a delivered packet and, as an ack, opens the policy's window as any ack.
//!
//! Window histogram (`[measure].windows`): the time spent at each window (packets, as
//! sent), counted from `[measure].start`; updated where the window series is.
//!
//! Deviations: no limited transmit (RFC 3042), no SACK rescue retransmission, no
//! reneging detection; after an ECN reduction with cwnd at one packet the sender does not
//! wait for the timer (RFC 3168 6.1.2's last rule).

use super::endpoint::{Io, SenderMetrics, SenderPolicy};
use super::prr::Prr;
use super::rate_sample::{RateSample, RateSampler};
use super::rtt::RtoEstimator;
use super::scoreboard::Scoreboard;
use super::timer::LazyTimer;
use super::{FlowCounters, RttSpread, RttStats};
use crate::base::rng::Rng;
use crate::base::time::{tx_time, SimDuration, SimTime};
use crate::base::trace::{Recorder, SeriesId};
use crate::cc::{
    AckSample, AnyCc, Cause, CcConfig, CcMetrics, CongestionControl, CongestionSample, LossRecoveryConfig, Recovery,
    RecoveryAck, SendSample, EXTRA_SLOTS,
};
use crate::packet::meta::Feedback;
use crate::packet::meta::MetaSlab;
use crate::packet::{Packet, FLAG_CWR, FLAG_ECE, FLAG_ECT, FLAG_PAIR_FIRST, FLAG_PAIR_SECOND, FLAG_RETX};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::num::NonZeroU32;

/// Which RTT the policy sees in `AckSample::rtt`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSample {
    /// The timestamp echo (RFC 1323): the oldest packet the ack covers.
    #[default]
    Oldest,
    /// The newest packet acknowledged (Linux's congestion-control RTT).
    Newest,
}

/// TSO-like batching of new data (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tso {
    /// Longest a send is deferred (Linux 2.6.18 as McCullagh and Leith describe it:
    /// 40 ms; 2.6.24: under two clock ticks).
    pub defer: SimDuration,
    /// Send at once when the window allows this many bytes (Linux: 64 kB).
    pub segment_bytes: u32,
    /// ... or at least 1/divisor of the window (`tcp_tso_win_divisor`, 3).
    pub divisor: u32,
}

/// What follows a fast retransmit in Reno recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FastRetransmit {
    /// Resend the lost packet; resume sending where it was (4.3BSD).
    #[default]
    Bsd,
    /// Go back to the lost packet and resend what follows as the window opens, with
    /// duplicate acks ignored until the cumulative ack passes the packets sent before.
    GoBackN,
}

/// What a timeout does with the SACK scoreboard (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SackTimeout {
    /// Keep it: the go-back skips SACKed packets (Linux, ns-3).
    #[default]
    Keep,
    /// Clear it: the go-back resends every packet (RFC 2018 section 8, ns-2).
    Clear,
}

/// How SACK recovery finds a retransmission that was lost again (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LostRetransmissions {
    /// Lost once data sent after it is SACKed (Linux).
    #[default]
    Detect,
    /// Only the retransmission timer finds it (RFC 6675, ns-2).
    Timer,
}

/// How many packets SACK recovery sends per ack (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SackRecovery {
    /// While the pipe is below cwnd (RFC 6675 as written; ns-2's `Sack1`).
    #[default]
    Rfc6675,
    /// Proportional Rate Reduction (RFC 9937; Linux): `transport::prr`.
    Prr,
}

/// What an ack delivered, for PRR (`WindowSender::prr_ack`).
#[derive(Clone, Copy, Debug)]
struct PrrAck {
    /// Packets newly delivered (RFC 9937's DeliveredData).
    delivered: u32,
    /// It advanced SND.UNA.
    advanced: bool,
}

/// Options of the window sender beyond its policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SenderConfig {
    /// SACK loss recovery (RFC 6675); needs a receiver that sends SACK blocks.
    pub sack: bool,
    /// ECN-capable transport (RFC 3168).
    pub ecn: bool,
    pub rtt_sample: RttSample,
    /// TSO-like batching; `None` (default): every packet leaves when the window allows.
    #[serde(default)]
    pub tso: Option<Tso>,
    /// `Some(bytes)`: a SYN-like handshake: sequence number 0 is a packet of this size
    /// sent alone, and data follows its ack (its RTT is the policy's first sample).
    #[serde(default)]
    pub handshake: Option<NonZeroU32>,
    /// What follows a fast retransmit (Reno recovery only).
    #[serde(default)]
    pub fast_retransmit: FastRetransmit,
    /// What a timeout does with the SACK scoreboard (`sack = true` only).
    #[serde(default)]
    pub sack_timeout: SackTimeout,
    /// How SACK recovery finds lost retransmissions (`sack = true` only).
    #[serde(default)]
    pub lost_retransmissions: LostRetransmissions,
    /// How many packets SACK recovery sends per ack (`sack = true` only).
    #[serde(default)]
    pub sack_recovery: SackRecovery,
    /// A finite flow: its data packets (a handshake's SYN not counted); the flow
    /// completes when the last is acknowledged. `None` (default): sends until `stop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<NonZeroU32>,
}

/// Time spent at each window size since `from` (`[measure].windows`).
#[derive(Clone, Debug)]
struct WindowHist {
    /// Counting starts here (`[measure].start`).
    from: SimTime,
    /// Since when the window has been `last_w` (0: the flow has not started).
    last_t: SimTime,
    last_w: u32,
    /// ps at window i (index 0: not started, unused).
    ps: Vec<u64>,
}

impl WindowHist {
    /// Adds the time at the current window up to `now` to `ps`.
    fn add_to(&self, ps: &mut Vec<u64>, now: SimTime) {
        if self.last_w == 0 || now <= self.last_t {
            return;
        }
        let w = self.last_w as usize;
        if ps.len() <= w {
            ps.resize(w + 1, 0);
        }
        ps[w] += (now - self.last_t).as_ps();
    }
}

/// Which time series this flow records.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowTrace {
    pub cwnd: Option<SeriesId>,
    pub ssthresh: Option<SeriesId>,
    pub outstanding: Option<SeriesId>,
    pub rtt: Option<SeriesId>,
    /// Pacing rate of rate-based policies, packets/s (nothing for window policies).
    pub rate: Option<SeriesId>,
    /// The policy's own values (`CcMetrics::extra`), by slot.
    pub extra: [Option<SeriesId>; EXTRA_SLOTS],
}

/// A window sender's rarely present parts, boxed together (`WindowSender::rare`).
#[derive(Debug, Default)]
struct Rare {
    /// SACK scoreboard (`sack = true`).
    sb: Option<Scoreboard>,
    /// Send time of each outstanding packet's last transmission and whether it was a
    /// retransmission, from `snd_una` on (`rtt_sample = newest`).
    sent_at: Option<Box<VecDeque<(SimTime, bool)>>>,
    /// Delivery-rate sampling (`transport::rate_sample`), for a policy that declares
    /// `CcPolicy::RATE_SAMPLE`.
    rate: Option<Box<RateSampler>>,
    /// Time spent at each window (`[measure].windows`).
    whist: Option<Box<WindowHist>>,
}

/// A window transport's sender.
///
/// `repr(C)` with the fields in this order, the hot ones by the line they share
/// (`hot_field_spans`, checked in `transport/sizes.rs`): what an ack and the sends it
/// triggers read and write on the plain path (no SACK, ECN, NewReno, pacing or TSO) in
/// four cache lines of a sender that starts 8 bytes into a line (after the `Sender`
/// enum's tag, in an `Endpoint`): bytes 0..56 the sequence numbers, the timed packet,
/// `stop` and the series pointer; 56..120 the flags, the recovery mode and the policy;
/// 120..184 the retransmission timer, the packet template and the pointer to the rare
/// parts; 184..248 the RTT statistics, the pacing deadline and the RTO in force. The
/// rest of the RTO estimator, the recovery marks, TSO and the configuration after it
/// (136 bytes). At 10^4 flows and more each line
/// an ack touches is a cache miss.
#[derive(Debug)]
#[repr(C)]
pub struct WindowSender {
    snd_una: u32,
    snd_nxt: u32,
    snd_max: u32,
    dupacks: u32,
    /// Window cap (receiver's credit), packets.
    max_window: u32,
    /// Data segment size, bytes.
    mss: u32,
    /// One past the last packet of a finite flow (`SenderConfig::size`; `u32::MAX`:
    /// unlimited). No new data from here on; once `snd_una` reaches it the flow is
    /// complete and `stop` holds the completion time.
    end: u32,
    /// The packet being timed for the Jacobson/Karels estimator: its sequence number
    /// and send time (`timed_at`; `SimTime::MAX`: none).
    timed_seq: u32,
    timed_at: SimTime,
    /// No new data is sent from this time on (retransmissions continue); a completed
    /// finite flow's completion time.
    stop: SimTime,
    /// The series this flow records; boxed, and `None` when it records none (most
    /// flows of a large run), so an idle flow does not carry 56 bytes of empty ids.
    trace: Option<Box<FlowTrace>>,
    /// No SACK, no ECN, the echo RTT, Reno recovery and BSD fast retransmit: the hot path skips every
    /// check for those features (a const-generic instance of `on_ack`/`send`).
    plain: bool,
    /// Some series of this flow are recorded, or its window histogram kept.
    tracing: bool,
    /// Go back after a fast retransmit (`FastRetransmit::GoBackN`).
    go_back_n: bool,
    /// NewReno: a partial ack has been seen in this recovery (the timer is re-armed on
    /// the first only).
    partial_seen: bool,
    /// The next new data packet carries CWR.
    cwr_pending: bool,
    /// How a fast retransmit recovers without SACK (with `dupack_threshold`, below; in
    /// the padding before `cc`).
    recovery_mode: Recovery,
    pub cc: AnyCc,
    /// Earliest time the next paced burst may leave.
    next_send: SimTime,
    pub timer: LazyTimer,
    /// Template of this flow's data packets (route, size).
    data: Packet,
    /// The parts most flows lack (scoreboard, send times, rate sampler, window
    /// histogram), in one box made when the flow is built with one of them or its
    /// window histogram is asked for (`None`: none of them).
    rare: Option<Box<Rare>>,
    /// RTT statistics besides their count and sum, which the flow's counters keep
    /// (`rtt_stats`).
    rtt: RttSpread,
    /// Pacing timer: when the next paced burst is due (rate-based policies only).
    pub pace: LazyTimer,
    rto: RtoEstimator,
    /// In NewReno or SACK recovery until the cumulative ack reaches this (snd_max at
    /// its start). This and the four marks after it hold a sequence number or `NO_SEQ`
    /// for none (read through `seq_opt`, written through `mark`).
    recover: u32,
    /// A new fast retransmit needs a cumulative ack above this (RFC 6582 `recover`).
    guard: u32,
    /// Highest packet retransmitted in this SACK recovery.
    high_rxt: u32,
    /// No ECN reduction until the cumulative ack passes this.
    ecn_recover: u32,
    /// The first unacknowledged packet when the retransmission timer last expired (a
    /// second expiry with it unchanged is a repeated timeout, RFC 5681 section 3.1).
    rto_una: u32,
    /// Duplicate acks that trigger fast retransmit (`None`: none) and how a fast
    /// retransmit recovers without SACK: the flow's `LossRecoveryConfig` as its policy
    /// declares it (`CcConfig::loss_recovery`; a threshold of 0, which checks refuse,
    /// would be none).
    dupack_threshold: Option<NonZeroU32>,
    /// TSO: since when new data has been held back (`SimTime::MAX`: not deferring).
    tso_since: SimTime,
    cfg: SenderConfig,
}

/// Where the fields an ack of a plain window sender touches lie: (name, offset, bytes,
/// the line, counted from the sender's first, it must lie in when the sender starts 8
/// bytes into a line), for the layout test in
/// `transport/sizes.rs`. An ack reads and writes the sequence numbers, `stop`, the
/// timed packet, `trace`'s pointer and the flags; the policy; the retransmission
/// timer's deadline and scheduled time (`LazyTimer::needs_event`); the packet template
/// (each send); the RTT statistics; the pacing timer's deadline; the RTO estimator's
/// timeout in force and its sampling style. The timer's generation changes only when an
/// event is scheduled, the rest of the estimator only when a packet is timed.
#[cfg(test)]
pub(crate) fn hot_field_spans() -> Vec<(&'static str, usize, usize, usize)> {
    use std::mem::{offset_of, size_of};
    let rto = offset_of!(WindowSender, rto);
    let (rto_hot, rto_len) = super::rtt::RtoEstimator::hot_span();
    vec![
        ("snd_una..timed_seq", offset_of!(WindowSender, snd_una), 32, 0),
        ("timed_at", offset_of!(WindowSender, timed_at), 8, 0),
        ("stop", offset_of!(WindowSender, stop), 8, 0),
        ("trace", offset_of!(WindowSender, trace), 8, 0),
        ("plain..cwr_pending", offset_of!(WindowSender, plain), 5, 1),
        ("cc", offset_of!(WindowSender, cc), size_of::<AnyCc>(), 1),
        ("timer.deadline+scheduled", offset_of!(WindowSender, timer), 16, 2),
        ("data", offset_of!(WindowSender, data), size_of::<Packet>(), 2),
        ("rtt", offset_of!(WindowSender, rtt), size_of::<RttSpread>(), 3),
        ("pace.deadline", offset_of!(WindowSender, pace), 8, 3),
        ("rto.rto_ps+timed", rto + rto_hot, rto_len, 3),
    ]
}

/// Counts a retransmission. Out of line: the count lives on the counters' second line
/// (`FlowCounters`), and inlined into the sending loop the compiler would keep it in a
/// register across the loop, so that every send, retransmission or not, would read
/// that line (at 10^4 flows, 0.29 cache misses per delivered packet:
/// docs/performance.md, "The cache lines of a round trip").
#[cold]
#[inline(never)]
fn count_retransmission(c: &mut FlowCounters) {
    c.retransmitted += 1;
}

/// "No sequence number" in a window sender's recovery marks: a flow never numbers a
/// packet `u32::MAX` (`end` uses the same value for an unlimited flow).
const NO_SEQ: u32 = u32::MAX;

/// A recovery mark as an option (`NO_SEQ`: none).
#[inline(always)]
fn seq_opt(v: u32) -> Option<u32> {
    (v != NO_SEQ).then_some(v)
}

/// A sequence number as a recovery mark (never `NO_SEQ`: see there).
#[inline(always)]
fn mark(v: u32) -> u32 {
    debug_assert_ne!(v, NO_SEQ);
    v
}

impl WindowSender {
    /// The sender of flow `flow` with policy `cc` and loss-recovery parameters `loss`;
    /// `rng` is the policy's random stream (`base::rng::stream::cc`).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        flow: &str,
        cc: &CcConfig,
        loss: &LossRecoveryConfig,
        cfg: SenderConfig,
        data: Packet,
        max_window: u32,
        stop: SimTime,
        rng: Rng,
    ) -> Self {
        let mss = data.bits / 8;
        let cc_state = cc.build(flow, mss as u64, max_window, rng);
        let rate_sample = cc.rate_sample();
        let pace_recovery = cc.info().pace_recovery;
        let loss = cc.loss_recovery(loss);
        let recovery_mode = loss.recovery;
        let rare = Rare {
            sb: cfg.sack.then(|| {
                let mut sb = Scoreboard::default();
                sb.paced = pace_recovery;
                sb
            }),
            sent_at: (cfg.rtt_sample == RttSample::Newest).then(Box::default),
            rate: rate_sample.then(|| Box::new(RateSampler::new(cfg.sack))),
            whist: None,
        };
        let any = rare.sb.is_some() || rare.sent_at.is_some() || rare.rate.is_some();
        let rare = any.then(|| Box::new(rare));
        WindowSender {
            mss,
            // The handshake's sequence number 0 is not data.
            end: cfg.size.map_or(u32::MAX, |n| n.get().saturating_add(cfg.handshake.is_some() as u32)),
            max_window,
            stop,
            dupack_threshold: loss.dupack_threshold.and_then(NonZeroU32::new),
            recovery_mode,
            cc: cc_state,
            cfg,
            rto: RtoEstimator::new(loss.rto, loss.initial_rto),
            timer: LazyTimer::default(),
            pace: LazyTimer::default(),
            next_send: SimTime::ZERO,
            tso_since: SimTime::MAX,
            data,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupacks: 0,
            timed_seq: 0,
            timed_at: SimTime::MAX,
            recover: NO_SEQ,
            guard: NO_SEQ,
            partial_seen: false,
            high_rxt: NO_SEQ,
            ecn_recover: NO_SEQ,
            rto_una: NO_SEQ,
            cwr_pending: false,
            go_back_n: cfg.fast_retransmit == FastRetransmit::GoBackN,
            plain: !cfg.sack
                && !cfg.ecn
                && cfg.rtt_sample == RttSample::Oldest
                && recovery_mode == Recovery::Reno
                && cfg.tso.is_none()
                && cfg.handshake.is_none()
                && cfg.fast_retransmit == FastRetransmit::Bsd
                && !rate_sample,
            tracing: false,
            rare,
            rtt: RttSpread::default(),
            trace: None,
        }
    }

    /// Chooses the series this flow records.
    pub fn set_trace(&mut self, t: FlowTrace) {
        self.tracing = t.cwnd.is_some()
            || t.ssthresh.is_some()
            || t.rate.is_some()
            || t.extra.iter().any(Option::is_some)
            || self.rare.as_deref().is_some_and(|r| r.whist.is_some());
        let any = t.cwnd.is_some()
            || t.ssthresh.is_some()
            || t.outstanding.is_some()
            || t.rtt.is_some()
            || t.rate.is_some()
            || t.extra.iter().any(Option::is_some);
        self.trace = any.then(|| Box::new(t));
    }

    /// Keeps the time spent at each window (packets), counted from `from`.
    pub fn set_window_hist(&mut self, from: SimTime) {
        let hist = WindowHist { from, last_t: from, last_w: 0, ps: Vec::new() };
        self.rare.get_or_insert_with(Box::default).whist = Some(Box::new(hist));
        self.tracing = true;
    }

    /// Seconds spent at each window of 1, 2, ... packets up to the largest seen, until
    /// `now` (`None` unless `set_window_hist` was called).
    pub fn window_times(&self, now: SimTime) -> Option<Vec<f64>> {
        let h = self.rare.as_deref().and_then(|r| r.whist.as_deref())?;
        let mut ps = h.ps.clone();
        h.add_to(&mut ps, now);
        Some(ps.iter().skip(1).map(|&p| p as f64 / 1e12).collect())
    }

    /// Window the sender may have outstanding, packets.
    #[inline]
    fn window_of(&self, m: &CcMetrics) -> u32 {
        ((m.cwnd / self.mss as u64) as u32).clamp(1, self.max_window)
    }

    /// Window the sender may have outstanding, packets.
    pub fn window_pkts(&self) -> u32 {
        self.window_of(&self.cc.metrics())
    }

    /// Offset of the route of this sender's data packets.
    pub fn data_route(&self) -> u32 {
        self.data.route
    }

    /// Packets sent and not yet acknowledged.
    pub fn outstanding(&self) -> u32 {
        self.snd_max - self.snd_una
    }

    pub fn snd_una(&self) -> u32 {
        self.snd_una
    }

    /// The flow's RTT statistics: count and sum from its counters `c` (every ack is a
    /// sample of both), the rest kept here.
    pub fn rtt_stats(&self, c: &FlowCounters) -> RttStats {
        self.rtt.with(c.rtt_samples, c.rtt_sum_ps)
    }

    pub fn srtt_s(&self) -> Option<f64> {
        self.rto.srtt().map(|d| d.as_secs_f64())
    }

    /// In NewReno or SACK loss recovery.
    pub fn in_recovery(&self) -> bool {
        seq_opt(self.recover).is_some()
    }

    pub fn start(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>, rec: &mut Recorder) {
        self.record_window(now, rec);
        self.try_send(now, c, out, rec);
    }

    /// No new data may be sent: past `stop`, or a finite flow's last packet is out.
    #[inline(always)]
    fn no_new_data(&self, now: SimTime) -> bool {
        now >= self.stop || self.snd_max >= self.end
    }

    /// A finite flow's completion time: when its last packet was acknowledged (`None`
    /// for a flow without a size, or one not complete).
    pub fn completed_at(&self) -> Option<SimTime> {
        (self.end != u32::MAX && self.snd_una >= self.end).then_some(self.stop)
    }

    #[inline]
    fn send(&mut self, now: SimTime, seq: u32, c: &mut FlowCounters, out: &mut Vec<Packet>) {
        self.send_marked(now, seq, 0, c, out)
    }

    #[inline]
    fn send_marked(&mut self, now: SimTime, seq: u32, mark: u8, c: &mut FlowCounters, out: &mut Vec<Packet>) {
        if self.plain {
            self.send_impl::<true>(now, seq, mark, c, out)
        } else {
            self.send_impl::<false>(now, seq, mark, c, out)
        }
    }

    #[inline(always)]
    fn send_impl<const PLAIN: bool>(
        &mut self,
        now: SimTime,
        seq: u32,
        mark: u8,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
    ) {
        let retx = seq < self.snd_max;
        // Built whole from the template (see `AckReceiver::send_ack_seq`).
        let mut p = Packet { seq, ts: now, flags: if retx { FLAG_RETX | mark } else { mark }, ..self.data };
        if !PLAIN && seq == 0 {
            if let Some(b) = self.cfg.handshake {
                p.bits = b.get() * 8;
            }
        }
        if !PLAIN && self.cfg.ecn && !retx {
            p.flags |= FLAG_ECT;
            if self.cwr_pending {
                p.flags |= FLAG_CWR;
                self.cwr_pending = false;
            }
        }
        out.push(p);
        if !PLAIN && self.rare.as_deref().is_some_and(|r| r.rate.is_some()) {
            self.rate_on_sent(now, seq);
        }
        self.cc.on_packet_sent(&SendSample { now, seq, retransmission: retx });
        c.sent += 1;
        if retx {
            count_retransmission(c);
        } else if self.timed_at == SimTime::MAX && self.rto.timed_sampling() {
            self.timed_seq = seq;
            self.timed_at = now;
        }
        if let Some(sent) = self.rare.as_deref_mut().and_then(|r| r.sent_at.as_deref_mut()).filter(|_| !PLAIN) {
            let i = (seq - self.snd_una) as usize;
            if i < sent.len() {
                sent[i] = (now, true);
            } else {
                sent.push_back((now, false));
            }
        }
        if self.timer.deadline().is_none() {
            self.timer.set_deadline(Some(now + self.rto.rto()));
        }
    }

    #[inline]
    fn try_send(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>, rec: &mut Recorder) {
        let m = self.cc.metrics();
        if let Some(rate) = m.pacing_rate {
            self.try_send_paced(now, rate, &m, c, out, rec);
            return;
        }
        let mut limit = self.snd_una + self.window_of(&m);
        if !self.plain {
            if self.cfg.handshake.is_some() && self.snd_una == 0 {
                limit = 1; // the SYN alone until it is acknowledged
            }
            if self.cfg.tso.is_some() && self.tso_defers(now, limit, &m) {
                return;
            }
            if let Some(sacked) = self.after_timeout_sacked() {
                self.send_skipping_sacked(now, limit + sacked, c, out);
                rec.record(self.trace.as_deref().and_then(|t| t.outstanding), now, || self.outstanding() as f64);
                return;
            }
        }
        while self.snd_nxt < limit {
            if self.snd_nxt >= self.snd_max && self.no_new_data(now) {
                break;
            }
            self.send(now, self.snd_nxt, c, out);
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
        rec.record(self.trace.as_deref().and_then(|t| t.outstanding), now, || self.outstanding() as f64);
    }

    /// After a timeout that kept the SACK scoreboard (`SackTimeout::Keep`), until the
    /// cumulative ack reaches the highest packet sent before it: the packets SACKed in
    /// [snd_una, snd_nxt), which the window does not count (in flight are only the
    /// packets resent since the timeout). `None` otherwise.
    #[inline(never)]
    fn after_timeout_sacked(&mut self) -> Option<u32> {
        let sb = self.rare.as_deref_mut().and_then(|r| r.sb.as_mut())?;
        let point = sb.timeout_point?;
        if self.snd_una >= point {
            sb.timeout_point = None;
            return None;
        }
        Some(sb.sacked_in(self.snd_una, self.snd_nxt))
    }

    /// Whether a timeout kept the SACK scoreboard and its point is still set
    /// (`after_timeout_sacked` then decides): the paced path's check per call, inline.
    #[inline(always)]
    fn timeout_point_set(&self) -> bool {
        self.rare.as_deref().and_then(|r| r.sb.as_ref()).is_some_and(|sb| sb.timeout_point.is_some())
    }

    /// `try_send`'s loop after a timeout that kept the SACK blocks: SACKed packets are
    /// skipped and widen the window by one each (`limit` already counts those below
    /// `snd_nxt`).
    #[inline(never)]
    fn send_skipping_sacked(&mut self, now: SimTime, mut limit: u32, c: &mut FlowCounters, out: &mut Vec<Packet>) {
        while self.snd_nxt < limit {
            limit += self.skip_sacked();
            if self.snd_nxt >= limit || (self.snd_nxt >= self.snd_max && self.no_new_data(now)) {
                break;
            }
            self.send(now, self.snd_nxt, c, out);
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
    }

    /// Moves `snd_nxt` past SACKed packets (below `snd_max`); returns how many.
    #[inline(never)]
    fn skip_sacked(&mut self) -> u32 {
        let Some(sb) = self.rare.as_deref().and_then(|r| r.sb.as_ref()) else { return 0 };
        let from = self.snd_nxt;
        while self.snd_nxt < self.snd_max && sb.is_sacked(self.snd_nxt) {
            self.snd_nxt += 1;
        }
        self.snd_nxt - from
    }

    /// TSO batching (Linux `tcp_tso_should_defer`): hold new data back while the window
    /// allows less than a full segment and less than 1/divisor of the window, for at most
    /// `defer` (the pacing timer wakes the sender then). Never in loss recovery, for
    /// retransmissions, or with nothing in flight.
    fn tso_defers(&mut self, now: SimTime, limit: u32, m: &CcMetrics) -> bool {
        let Some(t) = self.cfg.tso else { return false };
        let room = limit.saturating_sub(self.snd_nxt) as u64;
        let idle = self.snd_una == self.snd_max;
        if room == 0 || idle || seq_opt(self.recover).is_some() || self.snd_nxt < self.snd_max || self.no_new_data(now)
        {
            self.tso_since = SimTime::MAX;
            return false;
        }
        let mss = self.mss as u64;
        let bytes = room * mss;
        let window = (m.cwnd / mss).clamp(1, self.max_window as u64) * mss;
        if bytes >= t.segment_bytes as u64 || bytes >= window / t.divisor.max(1) as u64 {
            self.tso_since = SimTime::MAX;
            self.pace.set_deadline(None);
            return false;
        }
        if self.tso_since == SimTime::MAX {
            self.tso_since = now;
        }
        let since = self.tso_since;
        if now >= since + t.defer {
            self.tso_since = SimTime::MAX;
            self.pace.set_deadline(None);
            return false;
        }
        self.pace.set_deadline(Some(since + t.defer));
        true
    }

    /// Paced sending: bursts of `send_quantum` at the policy's rate, within the window.
    fn try_send_paced(
        &mut self,
        now: SimTime,
        rate_bps: u64,
        m: &CcMetrics,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        rec: &mut Recorder,
    ) {
        let window = self.window_of(m);
        let burst = m.send_quantum.clamp(1, window);
        let mut limit = self.snd_una + window;
        let skip = self.timeout_point_set()
            && match self.after_timeout_sacked() {
                Some(sacked) => {
                    limit += sacked;
                    true
                }
                None => false,
            };
        self.pace.set_deadline(None);
        while self.snd_nxt + burst <= limit {
            if now < self.next_send {
                self.pace.set_deadline(Some(self.next_send));
                break;
            }
            let mut n = 0;
            while n < burst {
                if skip {
                    limit += self.skip_sacked();
                }
                if self.snd_nxt >= self.snd_max && self.no_new_data(now) {
                    self.out_of_data();
                    break;
                }
                let mark = match (burst, n) {
                    (1, _) => 0,
                    (_, 0) => FLAG_PAIR_FIRST,
                    (_, 1) => FLAG_PAIR_SECOND,
                    _ => 0,
                };
                self.send_marked(now, self.snd_nxt, mark, c, out);
                self.snd_nxt += 1;
                self.snd_max = self.snd_max.max(self.snd_nxt);
                n += 1;
            }
            if n == 0 {
                break;
            }
            self.next_send = now + tx_time((n as u64 * self.mss as u64 * 8).min(u32::MAX as u64) as u32, rate_bps);
        }
        rec.record(self.trace.as_deref().and_then(|t| t.outstanding), now, || self.outstanding() as f64);
    }

    /// The flow has no new data while the window has room: with rate sampling, the flow
    /// is application-limited (Linux `tcp_rate_check_app_limited`).
    #[cold]
    fn out_of_data(&mut self) {
        if let Some(r) = self.rare.as_deref_mut().and_then(|r| r.rate.as_deref_mut()) {
            let in_flight = r.in_flight(self.snd_una, self.snd_max);
            r.mark_app_limited(in_flight);
        }
    }

    /// A packet is sent: its delivery-rate snapshot.
    #[inline(never)]
    fn rate_on_sent(&mut self, now: SimTime, seq: u32) {
        if let Some(r) = self.rare.as_deref_mut().and_then(|r| r.rate.as_deref_mut()) {
            r.on_sent(now, seq, self.snd_una, self.snd_max);
        }
    }

    /// The delivery-rate sample of an ack (`None` without rate sampling, or for a
    /// duplicate ack that delivers nothing). Runs before the ack moves `snd_una`. Out of
    /// line, as the other rate-sample steps: only a policy that declares
    /// `CcPolicy::RATE_SAMPLE` pays for them.
    #[inline(never)]
    fn rate_sample(&mut self, now: SimTime, ack: &Packet, meta: &MetaSlab) -> Option<RateSample> {
        let r = self.rare.as_deref_mut().and_then(|r| r.rate.as_deref_mut())?;
        let sack = meta.get(ack.meta).map_or(&[][..], |m| m.sack.as_slice());
        let dup = ack.seq == self.snd_una && self.snd_max > self.snd_una;
        r.on_ack(now, self.snd_una, ack.seq.max(self.snd_una), self.snd_max, sack, dup)
    }

    /// Gives a rate sample to the policy; marks the flow application-limited if it asks.
    #[inline(never)]
    fn deliver_rate_sample(&mut self, rs: &RateSample) {
        if self.cc.on_rate_sample(rs) {
            if let Some(r) = self.rare.as_deref_mut().and_then(|r| r.rate.as_deref_mut()) {
                r.mark_app_limited(rs.in_flight);
            }
        }
    }

    /// SACK recovery's sending loop (RFC 6675 step 4.5 / 5): while pipe < cwnd, send
    /// NextSeg; with `prr` (the ack, under `SackRecovery::Prr`) send NextSeg as many
    /// times as PRR allows instead.
    fn sack_send(
        &mut self,
        now: SimTime,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        rec: &mut Recorder,
        prr: Option<PrrAck>,
    ) {
        let th = self.dupack_threshold.map_or(3, NonZeroU32::get);
        let window = self.window_pkts();
        let detect = self.cfg.lost_retransmissions == LostRetransmissions::Detect;
        let sb = self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()).expect("SACK recovery has a scoreboard");
        let again = sb.lost_again();
        if detect {
            sb.detect_lost_retransmits();
        }
        // Lost: the unSACKed packets below this bound; the sends below do not change it.
        let lost_below = sb.lost_below(th);
        let mut pipe = sb.pipe(self.snd_max, seq_opt(self.high_rxt), lost_below).saturating_sub(sb.lost_again());
        // PRR's count: the pipe before this ack's sends (a fast retransmission not yet
        // sent is counted in it, HighRxt being its packet); safeACK: SND.UNA advanced and
        // no retransmission was found lost again.
        let budget = prr.filter(|_| !sb.paced).map(|a| {
            let before = pipe.saturating_sub(sb.frx_pending.is_some() as u32);
            let safe = a.advanced && sb.lost_again() == again;
            sb.prr.on_ack(a.delivered, before, window, safe)
        });
        let paced = if sb.paced {
            let m = self.cc.metrics();
            m.pacing_rate.map(|r| (r, m.send_quantum.clamp(1, window)))
        } else {
            None
        };
        if paced.is_some() {
            self.pace.set_deadline(None);
        }
        // With pacing: `sent` packets of the current burst have left; a burst may start
        // once the pacing clock allows.
        let mut sent = 0u32;
        while match budget {
            Some(b) => sent < b,
            None => {
                pipe < window
                    || self.rare.as_deref().and_then(|r| r.sb.as_ref()).is_some_and(|sb| sb.frx_pending.is_some())
            }
        } {
            if let Some((rate, quantum)) = paced {
                if sent == 0 && now < self.next_send {
                    self.pace.set_deadline(Some(self.next_send));
                    break;
                }
                if sent == quantum {
                    self.next_send =
                        now + tx_time((sent as u64 * self.mss as u64 * 8).min(u32::MAX as u64) as u32, rate);
                    sent = 0;
                    continue;
                }
            }
            // The fast retransmission: already counted in the pipe (HighRxt is its
            // packet); gone if an ack has covered it.
            if let Some(s) = self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()).and_then(|sb| sb.frx_pending.take()) {
                if s >= self.snd_una {
                    self.send(now, s, c, out);
                    if detect {
                        let snd_max = self.snd_max;
                        self.rare
                            .as_deref_mut()
                            .and_then(|r| r.sb.as_mut())
                            .expect("scoreboard")
                            .note_retransmit(s, snd_max);
                    }
                    sent += 1;
                }
                continue;
            }
            let new_data_ok = self.snd_max < self.snd_una + self.max_window && !self.no_new_data(now);
            let sb = self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()).expect("scoreboard");
            let again = if detect { sb.next_again() } else { None };
            let next = again
                .or_else(|| sb.next_lost(seq_opt(self.high_rxt), lost_below))
                .or(new_data_ok.then_some(self.snd_max))
                .or_else(|| sb.next_hole(seq_opt(self.high_rxt)));
            let Some(s) = next else { break };
            self.send(now, s, c, out);
            if s == self.snd_max {
                self.snd_max += 1;
                self.snd_nxt = self.snd_max;
            } else {
                if detect {
                    let snd_max = self.snd_max;
                    self.rare
                        .as_deref_mut()
                        .and_then(|r| r.sb.as_mut())
                        .expect("scoreboard")
                        .note_retransmit(s, snd_max);
                }
                self.high_rxt = mark(seq_opt(self.high_rxt).map_or(s, |h| h.max(s)));
            }
            pipe += 1;
            sent += 1;
        }
        if let Some((rate, _)) = paced.filter(|_| sent > 0) {
            self.next_send = now + tx_time((sent as u64 * self.mss as u64 * 8).min(u32::MAX as u64) as u32, rate);
        }
        if budget.is_some() {
            self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()).expect("scoreboard").prr.sent(sent);
        }
        rec.record(self.trace.as_deref().and_then(|t| t.outstanding), now, || self.outstanding() as f64);
    }

    /// Under `SackRecovery::Prr`, before an ack's SACK blocks are taken: SND.UNA and the
    /// number SACKed, from which `prr_ack` computes what the ack delivered.
    fn prr_mark(&self) -> Option<(u32, u32)> {
        if self.cfg.sack_recovery != SackRecovery::Prr {
            return None;
        }
        self.rare.as_deref().and_then(|r| r.sb.as_ref()).map(|sb| (self.snd_una, sb.sacked()))
    }

    /// What the ack since `prr_mark` delivered: the advance of SND.UNA plus the change in
    /// the number SACKed (RFC 9937's DeliveredData).
    fn prr_ack(&self, mark: Option<(u32, u32)>) -> Option<PrrAck> {
        let (una, sacked) = mark?;
        let now_sacked = self.rare.as_deref().and_then(|r| r.sb.as_ref()).map_or(0, Scoreboard::sacked);
        let delivered = (self.snd_una - una) as i64 + now_sacked as i64 - sacked as i64;
        Some(PrrAck { delivered: delivered.max(0) as u32, advanced: self.snd_una > una })
    }

    /// The pacing timer expired: send the burst that is due.
    pub fn on_pace(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>, rec: &mut Recorder) {
        if seq_opt(self.recover).is_some()
            && self.rare.as_deref().and_then(|r| r.sb.as_ref()).is_some_and(|sb| sb.paced)
        {
            self.sack_send(now, c, out, rec, None);
            return;
        }
        self.try_send(now, c, out, rec);
    }

    #[inline]
    fn record_window(&mut self, now: SimTime, rec: &mut Recorder) {
        if self.tracing {
            self.record_metrics(now, rec);
        }
    }

    fn record_metrics(&mut self, now: SimTime, rec: &mut Recorder) {
        let m = self.cc.metrics();
        if self.rare.as_deref().is_some_and(|r| r.whist.is_some()) {
            let w = self.window_of(&m);
            let h = self.rare.as_deref_mut().and_then(|r| r.whist.as_deref_mut()).expect("checked");
            if w != h.last_w {
                let mut ps = std::mem::take(&mut h.ps);
                h.add_to(&mut ps, now);
                h.ps = ps;
                h.last_t = now.max(h.from);
                h.last_w = w;
            }
        }
        let Some(t) = self.trace.as_deref() else { return };
        rec.record(t.cwnd, now, || m.cwnd as f64 / self.mss as f64);
        if let Some(s) = m.ssthresh {
            rec.record(t.ssthresh, now, || s as f64 / self.mss as f64);
        }
        if let Some(r) = m.pacing_rate.filter(|&r| r != u64::MAX) {
            rec.record(t.rate, now, || r as f64 / (self.mss as f64 * 8.0));
        }
        for (id, v) in t.extra.iter().zip(m.extra) {
            if let Some((_, v)) = v {
                rec.record(*id, now, || v);
            }
        }
    }

    /// An ack of this flow reached the sender. `meta` holds its SACK blocks, if any.
    #[inline]
    pub fn on_ack(
        &mut self,
        now: SimTime,
        ack: &Packet,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        rec: &mut Recorder,
        meta: &MetaSlab,
    ) {
        if self.plain {
            self.on_ack_impl::<true>(now, ack, c, out, rec, meta)
        } else {
            self.on_ack_impl::<false>(now, ack, c, out, rec, meta)
        }
    }

    /// `on_ack`; `PLAIN`: none of SACK, ECN, newest-RTT or NewReno is on.
    fn on_ack_impl<const PLAIN: bool>(
        &mut self,
        now: SimTime,
        ack: &Packet,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        rec: &mut Recorder,
        meta: &MetaSlab,
    ) {
        c.acks_arrived += 1;
        // The RTO always uses the timestamp echo (RFC 1323); statistics, the `rtt` series
        // and the policy use the flow's RTT sample rule.
        let echo = now - ack.ts;
        let sample = if PLAIN { echo } else { self.newest_rtt(now, ack.seq).unwrap_or(echo) };
        self.rtt.add(sample.as_ps());
        c.rtt_samples += 1;
        c.rtt_sum_ps += sample.as_ps() as u128;
        rec.record(self.trace.as_deref().and_then(|t| t.rtt), now, || sample.as_secs_f64());
        let rs = if PLAIN || self.rare.as_deref().is_none_or(|r| r.rate.is_none()) {
            None
        } else {
            self.rate_sample(now, ack, meta)
        };
        let prr_mark = if PLAIN { None } else { self.prr_mark() };
        if let Some(sb) = self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()).filter(|_| !PLAIN) {
            if let Some(m) = meta.get(ack.meta) {
                for &(a, b) in m.sack.as_slice() {
                    sb.add(a, b.min(self.snd_max));
                }
            }
        }

        if ack.seq > self.snd_una {
            let acked = ack.seq - self.snd_una;
            if let Some(sent) = self.rare.as_deref_mut().and_then(|r| r.sent_at.as_deref_mut()).filter(|_| !PLAIN) {
                sent.drain(..(acked as usize).min(sent.len()));
            }
            if ack.seq >= self.end && self.snd_una < self.end {
                // A finite flow's last packet is acknowledged: `stop` keeps the time.
                self.stop = now;
            }
            self.snd_una = ack.seq;
            self.dupacks = 0;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            if let Some(sb) = self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()).filter(|_| !PLAIN) {
                sb.advance(self.snd_una);
            }
            if self.rto.timed_sampling() {
                if self.timed_at != SimTime::MAX && ack.seq > self.timed_seq {
                    self.rto.sample(now - self.timed_at);
                    self.timed_at = SimTime::MAX;
                }
            } else {
                self.rto.sample_at(echo, self.snd_una, self.snd_nxt);
            }
            let recovery = match seq_opt(self.recover).filter(|_| !PLAIN) {
                Some(r) if self.snd_una >= r => {
                    self.recover = NO_SEQ;
                    self.guard = mark(r);
                    self.high_rxt = NO_SEQ;
                    if let Some(sb) = self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()) {
                        sb.end_recovery();
                    }
                    RecoveryAck::Exit
                }
                Some(_) => RecoveryAck::Partial,
                None => RecoveryAck::None,
            };
            self.cc.on_ack(&AckSample {
                now,
                acked_pkts: acked,
                rtt: sample,
                in_flight_pkts: self.outstanding(),
                sent: ack.ts,
                flags: ack.flags,
                ack_seq: self.snd_una,
                recovery,
            });
            if let Some(rs) = rs.as_ref().filter(|_| !PLAIN) {
                self.deliver_rate_sample(rs);
            }
            let sack_recovery =
                !PLAIN && self.rare.as_deref().is_some_and(|r| r.sb.is_some()) && seq_opt(self.recover).is_some();
            let partial = !PLAIN && recovery == RecoveryAck::Partial;
            if !(partial && !sack_recovery && self.partial_seen) {
                self.timer.set_deadline((self.snd_una < self.snd_max).then(|| now + self.rto.rto()));
            }
            if partial && !sack_recovery {
                // RFC 6582 step 5: retransmit the first unacknowledged packet; the timer
                // was re-armed for the first partial ack only ("Impatient").
                self.partial_seen = true;
                self.send(now, self.snd_una, c, out);
            }
            if !PLAIN && ack.has(FLAG_ECE) {
                self.ecn_echo(now, c);
            }
            self.record_window(now, rec);
            if sack_recovery {
                let prr = self.prr_ack(prr_mark);
                self.sack_send(now, c, out, rec, prr);
            } else {
                self.try_send(now, c, out, rec);
            }
        } else if ack.seq == self.snd_una && self.snd_max > self.snd_una {
            self.dupacks += 1;
            if let Some(rs) = rs.as_ref().filter(|_| !PLAIN) {
                self.deliver_rate_sample(rs);
            }
            if !PLAIN && ack.has(FLAG_ECE) {
                self.ecn_echo(now, c);
            }
            if !PLAIN && self.rare.as_deref().is_some_and(|r| r.sb.is_some()) {
                self.sack_dup_ack(now, c, out, rec, prr_mark);
                return;
            }
            let Some(th) = self.dupack_threshold.map(NonZeroU32::get) else { return };
            match if PLAIN { Recovery::Reno } else { self.recovery_mode } {
                Recovery::Reno => {
                    if !PLAIN && self.go_back_n && seq_opt(self.guard).is_some_and(|g| ack.seq <= g) {
                        return; // duplicates of packets resent after a go-back-N fast retransmit
                    }
                    if self.dupacks == th {
                        self.fast_retransmit(now, false, c, out, rec);
                    } else if self.dupacks > th {
                        self.cc.on_dup_ack(now);
                        self.record_window(now, rec);
                        self.try_send(now, c, out, rec);
                    }
                }
                Recovery::NewReno => {
                    if seq_opt(self.recover).is_some() {
                        self.cc.on_dup_ack(now);
                        self.record_window(now, rec);
                        self.try_send(now, c, out, rec);
                    } else if self.dupacks == th && seq_opt(self.guard).is_none_or(|g| ack.seq > g) {
                        self.recover = mark(self.snd_max);
                        self.partial_seen = false;
                        self.fast_retransmit(now, false, c, out, rec);
                    }
                }
            }
        } else if !PLAIN && ack.has(FLAG_ECE) {
            self.ecn_echo(now, c);
        }
    }

    /// `rtt_sample = newest`: the time since the newest packet an ack acknowledges was
    /// last sent, unless that was a retransmission (Karn).
    fn newest_rtt(&self, now: SimTime, ack_seq: u32) -> Option<SimDuration> {
        let sent = self.rare.as_deref().and_then(|r| r.sent_at.as_deref())?;
        if ack_seq <= self.snd_una {
            return None;
        }
        let &(t, retx) = sent.get((ack_seq - 1 - self.snd_una) as usize)?;
        (!retx).then(|| now - t)
    }

    /// Fast retransmit: tell the policy, resend the first unacknowledged packet.
    fn fast_retransmit(
        &mut self,
        now: SimTime,
        pipe: bool,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        rec: &mut Recorder,
    ) {
        c.fast_retransmits += 1;
        self.timed_at = SimTime::MAX;
        self.cc.on_congestion(&CongestionSample {
            now,
            cause: Cause::FastRetransmit,
            in_flight_pkts: self.outstanding(),
            pipe,
            rto_repeat: false,
            dupack_threshold: self.dupack_threshold.map_or(0, NonZeroU32::get),
        });
        // Paced recovery sends it when the pacing clock allows, PRR as the first packet
        // of the ack's count: both from recovery's loop (`sack_send`).
        let deferred = pipe
            && (self.cfg.sack_recovery == SackRecovery::Prr
                || (self.rare.as_deref().and_then(|r| r.sb.as_ref()).is_some_and(|sb| sb.paced)
                    && self.cc.metrics().pacing_rate.is_some()));
        if deferred {
            let una = self.snd_una;
            self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()).expect("SACK recovery has a scoreboard").frx_pending =
                Some(una);
        } else {
            self.send(now, self.snd_una, c, out);
        }
        if self.go_back_n && !pipe {
            // Go back: what follows the lost packet is resent as the window opens.
            self.snd_nxt = self.snd_una + 1;
            self.guard = mark(self.snd_max);
        }
        self.timer.set_deadline(Some(now + self.rto.rto()));
        self.record_window(now, rec);
        if !pipe {
            self.try_send(now, c, out, rec);
        }
    }

    /// A duplicate ack with SACK: enter recovery at the threshold or when the first
    /// unacknowledged packet is lost (RFC 6675 step 4); in recovery, send by the pipe.
    /// `prr_mark`: SND.UNA and the number SACKed before this ack (`prr_mark`).
    fn sack_dup_ack(
        &mut self,
        now: SimTime,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        rec: &mut Recorder,
        prr_mark: Option<(u32, u32)>,
    ) {
        let Some(th) = self.dupack_threshold.map(NonZeroU32::get) else { return };
        let prr = self.prr_ack(prr_mark);
        if seq_opt(self.recover).is_some() {
            self.sack_send(now, c, out, rec, prr);
            return;
        }
        let lost = self.rare.as_deref().and_then(|r| r.sb.as_ref()).is_some_and(|sb| sb.is_lost(self.snd_una, th));
        if (self.dupacks >= th || lost) && seq_opt(self.guard).is_none_or(|g| self.snd_una > g) {
            self.recover = mark(self.snd_max);
            self.high_rxt = mark(self.snd_una);
            if let Some((una, sacked)) = prr_mark {
                // RecoverFS: in flight and not SACKed before this ack (RFC 9937 section 4).
                let snd_max = self.snd_max;
                self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()).expect("scoreboard").prr =
                    Prr::start(snd_max.saturating_sub(una).saturating_sub(sacked));
            }
            self.fast_retransmit(now, true, c, out, rec);
            let pending = self.rare.as_deref().and_then(|r| r.sb.as_ref()).is_some_and(|sb| sb.frx_pending.is_some());
            if self.cfg.lost_retransmissions == LostRetransmissions::Detect && !pending {
                let (una, snd_max) = (self.snd_una, self.snd_max);
                self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()).expect("scoreboard").note_retransmit(una, snd_max);
            }
            self.sack_send(now, c, out, rec, prr);
        }
    }

    /// An ack carried ECE: reduce once per window, not during loss recovery.
    fn ecn_echo(&mut self, now: SimTime, c: &mut FlowCounters) {
        if !self.cfg.ecn
            || seq_opt(self.recover).is_some()
            || seq_opt(self.ecn_recover).is_some_and(|r| self.snd_una <= r)
        {
            return;
        }
        c.ecn_reductions += 1;
        self.cc.on_congestion(&CongestionSample {
            now,
            cause: Cause::Ecn,
            in_flight_pkts: self.outstanding(),
            pipe: false,
            rto_repeat: false,
            dupack_threshold: self.dupack_threshold.map_or(0, NonZeroU32::get),
        });
        self.ecn_recover = mark(self.snd_max);
        self.cwr_pending = true;
    }

    /// The retransmission timer expired.
    pub fn on_timeout(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>, rec: &mut Recorder) {
        if self.snd_una == self.snd_max {
            return;
        }
        c.timeouts += 1;
        self.timed_at = SimTime::MAX;
        self.dupacks = 0;
        self.rto.on_timeout();
        let rto_repeat = self.rto_una == self.snd_una;
        self.rto_una = mark(self.snd_una);
        self.cc.on_congestion(&CongestionSample {
            now,
            cause: Cause::Timeout,
            in_flight_pkts: self.outstanding(),
            pipe: false,
            rto_repeat,
            dupack_threshold: self.dupack_threshold.map_or(0, NonZeroU32::get),
        });
        if self.recovery_mode == Recovery::NewReno || self.rare.as_deref().is_some_and(|r| r.sb.is_some()) {
            self.guard = mark(self.snd_max);
        }
        self.recover = NO_SEQ;
        self.high_rxt = NO_SEQ;
        if let Some(sb) = self.rare.as_deref_mut().and_then(|r| r.sb.as_mut()) {
            match self.cfg.sack_timeout {
                SackTimeout::Clear => sb.clear(),
                SackTimeout::Keep => {
                    sb.end_recovery();
                    sb.timeout_point = Some(self.snd_max);
                }
            }
        }
        self.snd_nxt = self.snd_una;
        self.timer.set_deadline(None);
        self.record_window(now, rec);
        self.try_send(now, c, out, rec);
    }

    /// Retransmission timeout currently in force.
    pub fn rto(&self) -> SimDuration {
        self.rto.rto()
    }
}

impl SenderPolicy for WindowSender {
    const DESCRIPTION: &'static str =
        "the window transport (sequence numbers, retransmission timer, fast retransmit and recovery, SACK, ECN, pacing) with a congestion-control policy";
    fn start(&mut self, io: Io<'_>) {
        WindowSender::start(self, io.now, io.counters, io.out, io.rec)
    }
    #[inline(always)]
    fn on_ack(&mut self, io: Io<'_>, ack: &Packet) {
        WindowSender::on_ack(self, io.now, ack, io.counters, io.out, io.rec, io.meta)
    }
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback, _echo: SimTime) {
        self.cc.on_feedback(now, fb)
    }
    #[inline(always)]
    fn timers(&mut self) -> (Option<&mut LazyTimer>, Option<&mut LazyTimer>) {
        (Some(&mut self.timer), Some(&mut self.pace))
    }
    fn on_timer(&mut self, io: Io<'_>) {
        self.on_timeout(io.now, io.counters, io.out, io.rec)
    }
    fn on_pace(&mut self, io: Io<'_>) {
        WindowSender::on_pace(self, io.now, io.counters, io.out, io.rec)
    }
    fn early_data_route(&self) -> Option<u32> {
        Some(self.data_route())
    }
    fn metrics(&self) -> SenderMetrics {
        SenderMetrics { srtt: self.rto.srtt(), rate_bps: self.cc.pacing_rate().map(|r| r as f64) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CustomCc, GenericConfig, PacketPairConfig, TahoeConfig};
    use crate::packet::PacketKind;
    use crate::transport::receiver::ReceiverConfig;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};

    struct T {
        s: WindowSender,
        c: FlowCounters,
        out: Vec<Packet>,
        rec: Recorder,
        meta: MetaSlab,
    }

    impl T {
        fn new(cc: CcConfig, max_window: u32) -> Self {
            Self::with(cc, SenderConfig::default(), max_window)
        }
        fn with(cc: CcConfig, cfg: SenderConfig, max_window: u32) -> Self {
            let data = Packet::new(PacketKind::Data, 0, 1000);
            let s = WindowSender::new(
                "f",
                &cc,
                &cc.default_loss_recovery(),
                cfg,
                data,
                max_window,
                SimTime::MAX,
                Rng::new(1, 0),
            );
            T { s, c: FlowCounters::default(), out: Vec::new(), rec: Recorder::default(), meta: MetaSlab::default() }
        }
        fn start(&mut self, t: u64) {
            self.s.start(ms(t), &mut self.c, &mut self.out, &mut self.rec);
        }
        fn ack(&mut self, t: u64, seq: u32, ts: u64) {
            let a = ack_pkt(seq, ms(ts));
            self.s.on_ack(ms(t), &a, &mut self.c, &mut self.out, &mut self.rec, &self.meta);
        }
        fn ack_packet(&mut self, t: u64, a: Packet) {
            self.s.on_ack(ms(t), &a, &mut self.c, &mut self.out, &mut self.rec, &self.meta);
            self.meta.free(a.meta);
        }
        fn timeout(&mut self, t: u64) {
            self.s.on_timeout(ms(t), &mut self.c, &mut self.out, &mut self.rec);
        }
        fn sent(&mut self) -> Vec<u32> {
            self.out.drain(..).map(|p| p.seq).collect()
        }
    }

    fn ack_pkt(seq: u32, ts: SimTime) -> Packet {
        let mut a = Packet::new(PacketKind::Ack, 0, 40);
        a.seq = seq;
        a.ts = ts;
        a
    }

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    #[test]
    fn tahoe_starts_with_one_packet_and_opens_per_ack() {
        let mut t = T::new(CcConfig::Tahoe(TahoeConfig::default()), 40);
        t.start(0);
        assert_eq!(t.sent(), vec![0]);
        t.ack(100, 1, 0);
        assert_eq!(t.sent(), vec![1, 2]);
        assert_eq!(t.c.sent, 3);
        assert_eq!(t.c.retransmitted, 0);
    }

    #[test]
    fn generic_sends_its_whole_window_at_once() {
        let mut t = T::new(CcConfig::Generic(GenericConfig::default()), 8);
        t.start(0);
        assert_eq!(t.out.len(), 8);
        assert_eq!(t.s.timer.deadline(), Some(ms(3000)));
    }

    #[test]
    fn third_duplicate_ack_retransmits_first_unacknowledged_packet() {
        let cfg = TahoeConfig { initial_window: 8, ..Default::default() };
        let mut t = T::new(CcConfig::Tahoe(cfg), 40);
        t.start(0); // seq 0..8
        t.ack(100, 2, 0); // 0,1 acked; cwnd 9 -> sends 8..11
        t.sent();
        for _ in 0..2 {
            t.ack(101, 2, 0);
        }
        assert!(t.out.is_empty(), "two duplicates are not enough");
        t.ack(102, 2, 0);
        assert_eq!(t.out.len(), 1);
        assert_eq!(t.out[0].seq, 2);
        assert_eq!(t.out[0].flags & FLAG_RETX, FLAG_RETX);
        assert_eq!(t.s.cc.cwnd(), 1000);
        assert_eq!(t.c.fast_retransmits, 1);
        assert_eq!(t.c.retransmitted, 1);
    }

    #[test]
    fn timeout_goes_back_to_first_unacknowledged_packet() {
        let mut t = T::new(CcConfig::Generic(GenericConfig::default()), 4);
        t.start(0); // 0..4
        t.sent();
        t.ack(1000, 1, 0); // sends 4
        assert_eq!(t.sent(), vec![4]);
        // srtt = 1 s, rto = 2 s from the ack at 1 s.
        assert_eq!(t.s.timer.deadline(), Some(ms(3000)));
        t.timeout(3000);
        let out: Vec<Packet> = t.out.drain(..).collect();
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
        assert!(out.iter().all(|p| p.flags & FLAG_RETX != 0));
        assert_eq!(t.c.timeouts, 1);
    }

    #[test]
    fn a_repeated_timeout_of_the_same_packet_keeps_renos_ssthresh() {
        // Reno, window 8 x 1000 B, all 8 in flight: the first timeout halves FlightSize
        // (ssthresh 4 segments); the second, with packet 0 still unacknowledged, is a
        // repeat (RFC 5681 section 3.1) and leaves 4; after an ack moves snd_una, a
        // third timeout is a first one again: FlightSize 8 - 1 = 7, halved to 3.
        let cfg = TahoeConfig { initial_window: 8, ..Default::default() };
        let mut t = T::new(CcConfig::Reno(cfg), 40);
        t.start(0);
        t.sent();
        t.timeout(3000);
        assert_eq!((t.s.cc.cwnd(), t.s.cc.ssthresh()), (1000, Some(4000)));
        t.timeout(9000);
        assert_eq!(t.s.cc.ssthresh(), Some(4000));
        t.ack(9100, 1, 9000);
        t.timeout(21_000);
        assert_eq!(t.s.cc.ssthresh(), Some(3000));
        assert_eq!(t.c.timeouts, 3);
    }

    #[test]
    fn karn_rule_discards_timing_after_retransmission() {
        let mut t = T::new(CcConfig::Tahoe(TahoeConfig::default()), 40);
        t.start(0); // seq 0 timed
        t.timeout(3000); // retransmits 0; timing discarded
        t.ack(3500, 1, 3000);
        // No RTT sample was taken: the estimator still has no srtt.
        assert_eq!(t.s.srtt_s(), None);
        // The backed-off timer (6 s) is re-armed from the ack: 3.5 + 6 = 9.5 s.
        assert_eq!(t.s.timer.deadline(), Some(ms(9500)));
    }

    #[test]
    fn packet_pair_sends_marked_pairs_back_to_back_and_spaces_them_at_its_rate() {
        let mut t = T::new(CcConfig::PacketPair(PacketPairConfig::default()), 40);
        // Start-up: one pair, nothing more until its acks return.
        t.start(0);
        assert_eq!(
            t.out.iter().map(|p| (p.seq, p.flags)).collect::<Vec<_>>(),
            vec![(0, FLAG_PAIR_FIRST), (1, FLAG_PAIR_SECOND)]
        );
        assert_eq!(t.s.pace.deadline(), None, "held by the window, not by pacing");
        t.sent();
        let mut a0 = ack_pkt(1, ms(0));
        a0.flags = FLAG_PAIR_FIRST;
        t.ack_packet(4000, a0);
        assert!(t.out.is_empty(), "still in start-up");
        // Second ack 200 ms later: 5 pkt/s. The source starts at 5 pkt/s: a pair at once,
        // the next one 2 packets / 5 pkt/s = 400 ms later.
        let mut a1 = ack_pkt(2, ms(0));
        a1.flags = FLAG_PAIR_SECOND;
        t.ack_packet(4200, a1);
        assert_eq!(
            t.out.iter().map(|p| (p.seq, p.flags)).collect::<Vec<_>>(),
            vec![(2, FLAG_PAIR_FIRST), (3, FLAG_PAIR_SECOND)]
        );
        assert!(t.out.iter().all(|p| p.ts == ms(4200)), "back to back");
        assert_eq!(t.s.pace.deadline(), Some(ms(4600)));
        t.sent();
        t.s.on_pace(ms(4600), &mut t.c, &mut t.out, &mut t.rec);
        assert_eq!(t.sent(), vec![4, 5]);
        assert_eq!(t.s.pace.deadline(), Some(ms(5000)));
        assert_eq!(t.c.retransmitted, 0);
    }

    /// A Reno-family sender with a window of `w` packets outstanding: 0..w sent.
    fn opened(cc: CcConfig, cfg: SenderConfig, w: u32) -> T {
        let reno = TahoeConfig { initial_window: w, initial_ssthresh: Some(w), ..Default::default() };
        let cc = match cc {
            CcConfig::Tahoe(_) => CcConfig::Tahoe(reno),
            CcConfig::Reno(_) => CcConfig::Reno(reno),
            CcConfig::NewReno(_) => CcConfig::NewReno(reno),
            other => other,
        };
        let mut t = T::with(cc, cfg, 100);
        t.start(0);
        assert_eq!(t.out.iter().map(|p| p.seq).collect::<Vec<_>>(), (0..w).collect::<Vec<_>>());
        t
    }

    /// Runs the sender against a receiver over a path that delivers every packet in
    /// order one round trip (100 ms) after it is sent, except the first transmissions of
    /// `lose`. Returns, per round, the retransmissions sent, until nothing is in flight.
    fn rounds(t: &mut T, sack: bool, lose: &[u32]) -> Vec<Vec<u32>> {
        let cfg = ReceiverConfig { sack_blocks: if sack { 3 } else { 0 }, ..Default::default() };
        rounds_with(t, cfg, lose)
    }

    /// `rounds` with a given receiver.
    fn rounds_with(t: &mut T, cfg: ReceiverConfig, lose: &[u32]) -> Vec<Vec<u32>> {
        use crate::transport::receiver::AckReceiver;
        let mut r = AckReceiver::new(cfg, Packet::new(PacketKind::Ack, 0, 40), 64);
        let mut rc = FlowCounters::default();
        let mut dropped: Vec<u32> = Vec::new();
        let mut in_flight: Vec<Packet> = t.out.drain(..).collect();
        let mut out = Vec::new();
        let mut now = 0;
        while !in_flight.is_empty() && now < 10_000 {
            now += 100;
            let mut acks = Vec::new();
            for p in &in_flight {
                if lose.contains(&p.seq) && !dropped.contains(&p.seq) {
                    dropped.push(p.seq);
                    continue;
                }
                r.on_data(ms(now), p, &mut rc, &mut acks, &mut t.meta);
            }
            for a in acks {
                t.ack_packet(now, a);
            }
            in_flight = t.out.drain(..).collect();
            out.push(in_flight.iter().filter(|p| p.has(FLAG_RETX)).map(|p| p.seq).collect());
        }
        out
    }

    #[test]
    fn bbr_paces_sack_recovery_as_new_data() {
        // BBR paces every packet (Linux 4.9 sch_fq), recovery's included. Ten packets
        // sent at 0; then PROBE_BW at 1000 pkt/s with gain 1: 1000 x 1000 B x 8 = 8
        // Mbit/s, bursts of 2 packets (8 Mbit/s / 8 / 1024 = 976 B per 1/1024 s, less
        // than a packet: the least, 2, above 1.2 Mbit/s); a burst of n packets takes
        // n x 8000 bits / 8 Mbit/s = n ms. Packet 0 is lost; 1..9 arrive and their nine
        // duplicate acks (SACK) come back at 100 ms.
        use crate::cc::{AnyCc, BbrConfig};
        use crate::transport::receiver::AckReceiver;
        let cfg = SenderConfig { sack: true, ..Default::default() };
        let mut t = T::with(CcConfig::Bbr(BbrConfig::default()), cfg, 1000);
        t.start(0);
        let first: Vec<Packet> = t.out.drain(..).collect();
        assert_eq!(first.len(), 10);
        let AnyCc::Bbr(b) = &mut t.s.cc else { unreachable!() };
        b.force_probe_bw(ms(100), 1000, SimDuration::from_millis(100), 40);
        let rcfg = ReceiverConfig { sack_blocks: 3, ..Default::default() };
        let mut r = AckReceiver::new(rcfg, Packet::new(PacketKind::Ack, 0, 40), 64);
        let mut rc = FlowCounters::default();
        let mut acks = Vec::new();
        for p in first.iter().filter(|p| p.seq != 0) {
            r.on_data(ms(100), p, &mut rc, &mut acks, &mut t.meta);
        }
        for a in acks {
            t.ack_packet(100, a);
        }
        // The third duplicate ack starts recovery: cwnd = in flight after it (10 - 3
        // SACKed) = 7, packet conservation holds it there. RFC 6675's pipe after the
        // ninth: 0 SACKed out of 1..9, plus the retransmission of 0. Unpaced, each of
        // duplicates 4..9 would let one new packet out at once (10..15 at 100 ms); paced,
        // the fast retransmission leaves at 100 ms and the pacing clock holds the rest
        // one packet's time, 1 ms.
        assert!(t.s.in_recovery());
        assert_eq!(t.s.window_pkts(), 7);
        assert_eq!(t.sent(), vec![0]);
        assert_eq!(t.s.pace.deadline(), Some(ms(101)));
        // The pacing timer resumes recovery's loop: pipe 1 of 7, bursts of 2 every 2 ms
        // until the pipe is full (7 after 105 ms' burst); then the acks drive it again.
        for (at, burst, next) in
            [(101, vec![10, 11], Some(ms(103))), (103, vec![12, 13], Some(ms(105))), (105, vec![14, 15], None)]
        {
            t.s.on_pace(ms(at), &mut t.c, &mut t.out, &mut t.rec);
            assert_eq!((t.sent(), t.s.pace.deadline()), (burst, next), "at {at} ms");
        }
        assert_eq!(t.c.retransmitted, 1);
    }

    fn round_of(rounds: &[Vec<u32>], seq: u32) -> usize {
        rounds.iter().position(|r| r.contains(&seq)).unwrap_or_else(|| panic!("{seq} never retransmitted: {rounds:?}"))
    }

    #[test]
    fn newreno_repairs_one_loss_per_round_trip_with_partial_acks() {
        // Window 10; 2, 5 and 7 lost. The third duplicate ack fast-retransmits 2; each
        // partial ack then retransmits the next hole, one per round trip, with no timeout.
        let mut t = opened(CcConfig::NewReno(TahoeConfig::default()), SenderConfig::default(), 10);
        let r = rounds(&mut t, false, &[2, 5, 7]);
        let (a, b, c) = (round_of(&r, 2), round_of(&r, 5), round_of(&r, 7));
        assert_eq!((b, c), (a + 1, a + 2), "{r:?}");
        assert_eq!(t.c.timeouts, 0);
        assert_eq!(t.c.fast_retransmits, 1);
        assert_eq!(t.c.retransmitted, 3);
        assert!(!t.s.in_recovery());
    }

    #[test]
    fn reno_needs_the_timer_for_three_losses_in_one_window() {
        // Plain Reno: the partial ack for 5 ends recovery; 5 and 7 then get too few
        // duplicates, the sender stalls with data outstanding and only the timer helps.
        let mut t = opened(CcConfig::Reno(TahoeConfig::default()), SenderConfig::default(), 10);
        let r = rounds(&mut t, false, &[2, 5, 7]);
        assert!(r.iter().flatten().all(|&s| s != 7), "{r:?}");
        assert!(t.s.outstanding() > 0, "stalled");
        assert!(t.s.timer.deadline().is_some(), "waiting for the timer");
        t.timeout(5000);
        assert_eq!(t.c.timeouts, 1);
    }

    #[test]
    fn sack_repairs_three_losses_in_one_window_without_a_timeout() {
        // The same losses with SACK: 2 goes when the losses are seen; 5 and 7 one round
        // later together (the pipe, 5 packets in flight against cwnd = ssthresh = 5, held
        // them until the acks of that round), where NewReno needs two more rounds; no
        // timeout, one window reduction.
        let cfg = SenderConfig { sack: true, ..Default::default() };
        let mut t = opened(CcConfig::Reno(TahoeConfig::default()), cfg, 10);
        let r = rounds(&mut t, true, &[2, 5, 7]);
        let (a, b, c) = (round_of(&r, 2), round_of(&r, 5), round_of(&r, 7));
        assert_eq!((b, c), (a + 1, a + 1), "{r:?}");
        assert_eq!(t.c.timeouts, 0);
        assert_eq!(t.c.fast_retransmits, 1);
        assert_eq!(t.c.retransmitted, 3, "each hole once");
        assert!(!t.s.in_recovery());
    }

    /// Window 20 with SACK, packet 0 lost, packets 1..19 arriving one by one: per
    /// duplicate ack (numbered by the packet it SACKs), what the sender sends.
    fn one_loss_in_twenty(sack_recovery: SackRecovery) -> Vec<(u32, Vec<u32>)> {
        use crate::transport::receiver::AckReceiver;
        let cfg = SenderConfig { sack: true, sack_recovery, ..Default::default() };
        let mut t = opened(CcConfig::Reno(TahoeConfig::default()), cfg, 20);
        let sent: Vec<Packet> = t.out.drain(..).collect();
        let rcfg = ReceiverConfig { sack_blocks: 3, ..Default::default() };
        let mut r = AckReceiver::new(rcfg, Packet::new(PacketKind::Ack, 0, 40), 64);
        let mut rc = FlowCounters::default();
        let mut log = Vec::new();
        for p in &sent[1..] {
            let mut acks = Vec::new();
            r.on_data(ms(100), p, &mut rc, &mut acks, &mut t.meta);
            for a in acks {
                t.ack_packet(100, a);
            }
            let out: Vec<u32> = t.out.drain(..).map(|p| p.seq).collect();
            if !out.is_empty() {
                log.push((p.seq, out));
            }
        }
        assert_eq!(t.c.fast_retransmits, 1);
        log
    }

    #[test]
    fn prr_spreads_recoverys_sends_over_its_acks_where_rfc6675_waits_for_half_of_them() {
        // Reno cuts to ssthresh = 20 / 2 = 10. The third duplicate ack (SACKing 3)
        // starts recovery. RFC 6675 sends while the pipe (unSACKed packets after the
        // last SACKed, new packets, the retransmission) is below 10: after the ack
        // SACKing k it is (19 - k) + new + 1, first below 10 at k = 11, then one new
        // packet per ack.
        let rfc = one_loss_in_twenty(SackRecovery::Rfc6675);
        let mut want = vec![(3, vec![0])];
        want.extend((11..20).map(|k| (k, vec![k + 9])));
        assert_eq!(rfc, want);
        // PRR: RecoverFS = 20 - 0 - 2 (SACKed before the entering ack) = 18. While the
        // pipe before sending is above 10, CEIL(prr_delivered x 10 / 18) - prr_out:
        // k = 3: CEIL(10/18) - 0 = 1 (the retransmission); 4: CEIL(20/18) - 1 = 1;
        // 5: CEIL(30/18) - 2 = 0; 6: CEIL(40/18) - 2 = 1; 7: 0; 8: CEIL(60/18) - 3 = 1;
        // 9: 0; 10: CEIL(80/18) - 4 = 1; 11: 0; 12: CEIL(100/18) - 5 = 1;
        // 13: CEIL(110/18) - 6 = 1; 14: CEIL(120/18) - 7 = 0; 15: CEIL(130/18) - 7 = 1;
        // 16: 0 (pipe 11). At 17 the pipe is 2 + 7 + 1 = 10, not above ssthresh: CRB,
        // MIN(10 - 10, MAX(15 - 8, 1)) = 0; 18 (pipe 9): MIN(1, MAX(16 - 8, 1)) = 1; 19
        // (pipe 9): MIN(1, MAX(17 - 9, 1)) = 1 (duplicate acks are not safe: no SSRB).
        let prr = one_loss_in_twenty(SackRecovery::Prr);
        let want: Vec<(u32, Vec<u32>)> =
            [(3, 0), (4, 20), (6, 21), (8, 22), (10, 23), (12, 24), (13, 25), (15, 26), (18, 27), (19, 28)]
                .into_iter()
                .map(|(k, s)| (k, vec![s]))
                .collect();
        assert_eq!(prr, want);
    }

    /// Window 10 with SACK, 0 and 5 lost; the fast retransmits are lost too, then the
    /// timer expires; 0 is resent and arrives. Returns what the sender sends on its ack.
    fn after_a_timeout(sack_timeout: SackTimeout) -> Vec<u32> {
        use crate::transport::receiver::AckReceiver;
        let cfg = SenderConfig { sack: true, sack_timeout, ..Default::default() };
        let mut t = opened(CcConfig::Reno(TahoeConfig::default()), cfg, 10);
        let rcfg = ReceiverConfig { sack_blocks: 3, ..Default::default() };
        let mut r = AckReceiver::new(rcfg, Packet::new(PacketKind::Ack, 0, 40), 64);
        let mut rc = FlowCounters::default();
        let mut deliver = |t: &mut T, now: u64, keep: &dyn Fn(u32) -> bool| {
            let mut acks = Vec::new();
            for p in t.out.drain(..).collect::<Vec<_>>() {
                if keep(p.seq) {
                    r.on_data(ms(now), &p, &mut rc, &mut acks, &mut t.meta);
                }
            }
            for a in acks {
                t.ack_packet(now, a);
            }
        };
        deliver(&mut t, 100, &|s| s != 0 && s != 5);
        assert_eq!(t.c.fast_retransmits, 1);
        t.out.clear(); // the recovery's retransmissions are lost as well
        t.timeout(5000);
        assert_eq!(t.sent(), vec![0], "the timeout resends the first unacknowledged packet");
        t.out.push({
            let mut p = Packet::new(PacketKind::Data, 0, 1000);
            p.seq = 0;
            p
        });
        deliver(&mut t, 5100, &|_| true);
        t.sent()
    }

    /// Window 10, SACK, 100 ms rounds: packet 2 and its first retransmission are lost.
    /// Returns the retransmissions per round and the timeouts needed.
    fn lost_retransmission(lost_retransmissions: LostRetransmissions) -> (Vec<Vec<u32>>, u64) {
        use crate::transport::receiver::AckReceiver;
        let cfg = SenderConfig { sack: true, lost_retransmissions, ..Default::default() };
        let mut t = opened(CcConfig::Reno(TahoeConfig::default()), cfg, 10);
        let rcfg = ReceiverConfig { sack_blocks: 3, ..Default::default() };
        let mut r = AckReceiver::new(rcfg, Packet::new(PacketKind::Ack, 0, 40), 64);
        let mut rc = FlowCounters::default();
        let mut sends_of_2 = 0;
        let mut rounds = Vec::new();
        let mut now = 0;
        while t.s.outstanding() > 0 && now < 20_000 {
            now += 100;
            let batch: Vec<Packet> = t.out.drain(..).collect();
            if batch.is_empty() {
                // Nothing in flight that can arrive: the timer's turn.
                now = now.max(t.s.timer.deadline().map_or(now, |d| d.as_ps() / 1_000_000_000));
                t.timeout(now);
                continue;
            }
            rounds.push(batch.iter().filter(|p| p.has(FLAG_RETX)).map(|p| p.seq).collect());
            let mut acks = Vec::new();
            for p in &batch {
                if p.seq == 2 {
                    sends_of_2 += 1;
                    if sends_of_2 <= 2 {
                        continue;
                    }
                }
                r.on_data(ms(now), p, &mut rc, &mut acks, &mut t.meta);
            }
            for a in acks {
                t.ack_packet(now, a);
            }
        }
        (rounds, t.c.timeouts)
    }

    #[test]
    fn a_lost_retransmission_is_found_by_later_sacks_or_by_the_timer() {
        // Round 0: 0..9, 2 lost; the duplicate acks of 3..9 start recovery and 2 is
        // resent in round 1 together with new data (10 and up). That retransmission is
        // lost too. The SACKs of that new data, sent after it, arrive with round 2's
        // acks: detect resends 2 in round 2, no timeout. timer: nothing finds it until
        // the retransmission timer fires (round 24 here), one timeout.
        let (r, timeouts) = lost_retransmission(LostRetransmissions::Detect);
        let twos: Vec<usize> = r.iter().enumerate().filter(|(_, x)| x.contains(&2)).map(|(i, _)| i).collect();
        assert_eq!(twos, vec![1, 2], "{r:?}");
        assert_eq!(timeouts, 0);
        let (r, timeouts) = lost_retransmission(LostRetransmissions::Timer);
        let twos: Vec<usize> = r.iter().enumerate().filter(|(_, x)| x.contains(&2)).map(|(i, _)| i).collect();
        assert_eq!(twos, vec![1, 24], "{r:?}");
        assert_eq!(timeouts, 1);
    }

    #[test]
    fn a_timeout_that_keeps_the_sack_blocks_resends_only_the_holes() {
        // The ack of 0 says 5 with 6..10 SACKed; cwnd 2 after it (slow start from 1).
        // keep: 5, then 6..9 are skipped (SACKed, not in flight), so the second packet
        // the window allows is 10. clear: 5 and 6, a packet the receiver holds.
        assert_eq!(after_a_timeout(SackTimeout::Keep), vec![5, 10]);
        assert_eq!(after_a_timeout(SackTimeout::Clear), vec![5, 6]);
    }

    fn go_back_n() -> SenderConfig {
        SenderConfig { fast_retransmit: FastRetransmit::GoBackN, ..Default::default() }
    }

    #[test]
    fn bsd_fast_retransmit_stalls_behind_a_discarding_receiver() {
        // Window 10, 2 lost; the receiver threw 3..9 away. After the fast retransmit of 2
        // the ack says 3, but snd_nxt is back at 10: 7 packets count as outstanding
        // against a window of 2, nothing is sent, and only the timer helps.
        let mut t = opened(CcConfig::Tahoe(TahoeConfig::default()), SenderConfig::default(), 10);
        let discard = ReceiverConfig { keep_out_of_order: false, ..Default::default() };
        let r = rounds_with(&mut t, discard, &[2]);
        assert_eq!(r.iter().flatten().copied().collect::<Vec<_>>(), vec![2], "{r:?}");
        assert!(t.s.outstanding() > 0 && t.s.timer.deadline().is_some(), "stalled, waiting for the timer");
    }

    #[test]
    fn go_back_n_fast_retransmit_resends_what_a_discarding_receiver_threw_away() {
        // The same loss with go-back-N: after the ack for 2 the window (2, then growing in
        // slow start) resends 3..9 in turn. Each packet is retransmitted once, no timeout.
        let mut t = opened(CcConfig::Tahoe(TahoeConfig::default()), go_back_n(), 10);
        let discard = ReceiverConfig { keep_out_of_order: false, ..Default::default() };
        let r = rounds_with(&mut t, discard, &[2]);
        // The acks for 0 and 1 had opened the window to send 10, 11 and 12 behind the
        // hole, so 3..=12 were thrown away. Rounds: [2], then [3, 4] (cwnd 2), then
        // [5, 6, 7, 8] and [9, 10, 11, 12] (slow start, one more per ack).
        let retx: Vec<Vec<u32>> = r.into_iter().filter(|x| !x.is_empty()).collect();
        assert_eq!(retx, vec![vec![2], vec![3, 4], vec![5, 6, 7, 8], vec![9, 10, 11, 12]]);
        assert_eq!((t.c.timeouts, t.c.fast_retransmits, t.c.retransmitted), (0, 1, 11));
    }

    #[test]
    fn go_back_n_ignores_duplicates_of_its_resent_packets() {
        // Keeping receiver, 2 and 5 lost. Fast retransmit of 2 (guard: 10 sent before);
        // its ack says 5, so the sender resends 5 and 6 (cwnd 2). 6 is a duplicate at the
        // receiver, whose ack repeats the cumulative ack 10: not a new loss (ack <= guard).
        // BSD Tahoe would wait for the timer here (the ack for 2 stops at the second hole).
        let mut t = opened(CcConfig::Tahoe(TahoeConfig::default()), go_back_n(), 10);
        let r = rounds(&mut t, false, &[2, 5]);
        let retx: Vec<Vec<u32>> = r.into_iter().filter(|x| !x.is_empty()).collect();
        assert_eq!(retx, vec![vec![2], vec![5, 6]]);
        assert_eq!((t.c.timeouts, t.c.fast_retransmits, t.c.retransmitted), (0, 1, 3));
    }

    #[test]
    fn ecn_echo_reduces_once_per_window_and_marks_cwr() {
        let cfg = SenderConfig { ecn: true, ..Default::default() };
        let mut t = opened(CcConfig::Reno(TahoeConfig::default()), cfg, 10);
        t.sent();
        let mut a = ack_pkt(1, ms(0));
        a.flags = FLAG_ECE;
        t.ack_packet(100, a);
        assert_eq!(t.c.ecn_reductions, 1);
        // 10 sent, the ack covers 1: FlightSize 9, halved to 4 whole segments.
        assert_eq!(t.s.cc.cwnd(), 4000);
        // More ECE within the same window: no further reduction (and once FlightSize
        // is below the window, new data goes).
        for s in 2..8 {
            let mut a = ack_pkt(s, ms(0));
            a.flags = FLAG_ECE;
            t.ack_packet(100, a);
        }
        assert_eq!(t.c.ecn_reductions, 1);
        let out: Vec<Packet> = t.out.drain(..).collect();
        assert!(out.iter().all(|p| p.has(FLAG_ECT)), "new data is ECN-capable");
        assert_eq!(out.iter().filter(|p| p.has(FLAG_CWR)).count(), 1, "CWR on the first new packet only");
        assert!(out[0].has(FLAG_CWR));
    }

    #[test]
    fn tso_holds_new_data_until_a_third_of_the_window_or_the_timer() {
        // Window 30 x 1000 B; TSO as Linux 2.6.18: send when 64 kB or a third of the
        // window (10 packets) may go, or 40 ms after the sender began to wait.
        let tso = Tso { defer: SimDuration::from_millis(40), segment_bytes: 65_536, divisor: 3 };
        let cfg = SenderConfig { tso: Some(tso), ..Default::default() };
        let mut t = T::with(CcConfig::Generic(GenericConfig { window: Some(30), ..Default::default() }), cfg, 100);
        t.start(0);
        assert_eq!(t.sent().len(), 30, "nothing in flight: the first window goes at once");
        for k in 1..10u32 {
            t.ack(100 + k as u64, k, 0);
        }
        assert!(t.out.is_empty(), "9 packets of room: held");
        assert_eq!(t.s.pace.deadline(), Some(ms(141)), "40 ms after the first held ack");
        t.ack(110, 10, 0);
        assert_eq!(t.sent(), (30..40).collect::<Vec<_>>(), "10 packets of room: one batch, back to back");
        assert_eq!(t.s.pace.deadline(), None);
        t.ack(200, 11, 0);
        assert!(t.out.is_empty());
        assert_eq!(t.s.pace.deadline(), Some(ms(240)));
        t.s.on_pace(ms(240), &mut t.c, &mut t.out, &mut t.rec);
        assert_eq!(t.sent(), vec![40], "the timer sends what the window allows");
        // Retransmissions are never held: a timeout resends at once.
        t.timeout(5000);
        assert_eq!(t.sent(), (11..41).collect::<Vec<_>>(), "Generic keeps its window of 30");
    }

    #[test]
    fn handshake_sends_a_small_first_packet_alone_then_the_window() {
        let cfg = SenderConfig { handshake: NonZeroU32::new(52), ..Default::default() };
        let reno = TahoeConfig { initial_window: 3, ..Default::default() };
        let mut t = T::with(CcConfig::Reno(reno), cfg, 100);
        t.start(0);
        let syn: Vec<Packet> = t.out.drain(..).collect();
        assert_eq!(syn.len(), 1, "the SYN alone, although the window is 3");
        assert_eq!((syn[0].seq, syn[0].bits), (0, 52 * 8));
        t.ack(100, 1, 0);
        let data: Vec<Packet> = t.out.drain(..).collect();
        // Reno opened to 4 on the SYN's ack: packets 1..=4, full size.
        assert_eq!(data.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
        assert!(data.iter().all(|p| p.bits == 1000 * 8));
        assert_eq!(t.s.srtt_s(), Some(0.1), "the SYN's RTT is the first sample");
    }

    #[test]
    fn window_histogram_counts_time_at_each_window_from_its_start() {
        let mut t = T::new(CcConfig::Tahoe(TahoeConfig::default()), 40);
        t.s.set_window_hist(ms(0));
        t.start(0); // window 1 from 0
        t.ack(100, 1, 0); // 2 from 100 ms
        t.ack(300, 2, 100); // 3 from 300 ms
        assert_eq!(t.s.window_times(ms(400)), Some(vec![0.1, 0.2, 0.1]));
        let mut t = T::new(CcConfig::Tahoe(TahoeConfig::default()), 40);
        t.s.set_window_hist(ms(150));
        t.start(0);
        t.ack(100, 1, 0);
        t.ack(300, 2, 100);
        assert_eq!(t.s.window_times(ms(400)), Some(vec![0.0, 0.15, 0.1]));
        assert_eq!(T::new(CcConfig::Tahoe(TahoeConfig::default()), 40).s.window_times(ms(1)), None);
    }

    /// A policy that records the RTT samples it is given (through the boxed escape hatch).
    struct Probe {
        cwnd: Arc<AtomicU64>,
        rtts: Arc<Mutex<Vec<SimDuration>>>,
    }

    impl CongestionControl for Probe {
        fn on_ack(&mut self, s: &AckSample) {
            self.rtts.lock().unwrap().push(s.rtt);
        }
        fn on_congestion(&mut self, _s: &CongestionSample) {}
        fn metrics(&self) -> CcMetrics {
            CcMetrics::window(self.cwnd.load(Ordering::Relaxed))
        }
    }

    #[test]
    fn newest_packet_rtt_rule_ignores_the_delayed_ack_wait() {
        // Packets 0 and 1 sent at 0 and 10 ms; one (delayed) ack for both at 150 ms
        // echoing 0's timestamp (RFC 1323): the echo gives 150 ms, the newest packet 140.
        for (rule, want) in [(RttSample::Oldest, 150), (RttSample::Newest, 140)] {
            let cfg = SenderConfig { rtt_sample: rule, ..Default::default() };
            let mut t = T::with(CcConfig::Generic(GenericConfig::default()), cfg, 10);
            let cwnd = Arc::new(AtomicU64::new(1000));
            let rtts = Arc::new(Mutex::new(Vec::new()));
            t.s.cc = AnyCc::Custom(CustomCc(Box::new(Probe { cwnd: cwnd.clone(), rtts: rtts.clone() })));
            t.start(0);
            cwnd.store(2000, Ordering::Relaxed);
            t.s.try_send(ms(10), &mut t.c, &mut t.out, &mut t.rec);
            assert_eq!(t.sent(), vec![0, 1]);
            t.ack(150, 2, 0);
            assert_eq!(*rtts.lock().unwrap(), vec![SimDuration::from_millis(want)], "{rule:?}");
        }
    }
}
