//! BBR v1 as Linux 4.9 defines it (`net/ipv4/tcp_bbr.c`; Cardwell, Cheng, Gunn, Yeganeh,
//! Jacobson, "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016).
//!
//! The model, updated on every delivery-rate sample (`CcPolicy::RATE_SAMPLE`,
//! `transport::rate_sample`), in 4.9's order (`bbr_main`: update the model, then the
//! pacing rate, the segments per burst and the window):
//! - **Rounds** are counted by delivery: a round ends when a sample's packet P was sent
//!   after the previous round's end (P's snapshot `delivered` >= the `delivered` count
//!   at that end).
//! - **Bottleneck bandwidth**: the windowed maximum of the sample rates over
//!   `bw_window_rounds` (10) rounds, with Kathleen Nichols' three-sample running
//!   max (`lib/win_minmax.c`). An application-limited sample enters only if it is no
//!   lower than the current maximum.
//! - **min RTT**: the lowest RTT sample, replaced by any sample once `min_rtt_window`
//!   (10 s) has passed since it was taken.
//! - **STARTUP**: pacing and cwnd gain `high_gain` (2/ln 2 = 2.885); the pipe is full
//!   when for `full_bw_rounds` (3) rounds (with non-app-limited samples at their start)
//!   the bandwidth has not grown by `full_bw_threshold` (25 %). Until then the pacing
//!   rate never falls.
//! - **DRAIN**: pacing gain 1/high_gain (ln 2 / 2), cwnd gain high_gain, until what is in
//!   flight is at most one BDP (bw x min RTT, plus the burst allowance below).
//! - **PROBE_BW**: cwnd gain `cwnd_gain` (2); the pacing gain cycles through [5/4, 3/4,
//!   1, 1, 1, 1, 1, 1], one phase per min RTT of delivery time; the 5/4 phase lasts
//!   until in flight (before the ack) reaches 5/4 BDP or a loss, the 3/4 phase ends
//!   early when in flight falls to one BDP. Entering PROBE_BW picks the starting phase
//!   at random among the seven that are not the 3/4 one, from the flow's own stream
//!   (`base::rng::stream::cc`; Linux: `prandom_u32_max`).
//! - **ProbeRTT**: when the min RTT is older than its window (and the flow is not
//!   restarting from idle), cwnd drops to `min_cwnd` (4) packets with gains 1 and the
//!   transport is marked application-limited; once in flight is down to 4, it stays
//!   there for max(`probe_rtt_duration` (200 ms), one round), then restamps the min RTT,
//!   restores the cwnd and returns to PROBE_BW (STARTUP if the pipe was never full).
//! - **cwnd** (`bbr_set_cwnd`): target = ceil(bw x min RTT x gain) + 3 x tso_segs,
//!   rounded up to an even number (10 packets before any RTT sample); once the pipe has
//!   been full, cwnd = min(cwnd + acked, target), before, cwnd + acked while below the
//!   target or fewer than 10 packets delivered; at least `min_cwnd`; in ProbeRTT at most
//!   `min_cwnd`.
//! - **Pacing**: rate = bw x pacing gain x packet size; at start high_gain x
//!   `initial_window` per nominal 1 ms RTT (4.9 `bbr_init` with no RTT sample). The
//!   transport paces bursts of tso_segs packets (`CcMetrics::send_quantum`), as 4.9
//!   sizes its TSO bursts for sch_fq (`bbr_set_tso_segs_goal`, `tcp_tso_autosize`): one
//!   packet below 1.2 Mbit/s, else max(2, rate in bytes per 1024 us / packet size), at
//!   most 127. sch_fq spaces every packet of the flow, so loss recovery's are paced too
//!   (`CcPolicy::PACE_RECOVERY`): the fast retransmission and SACK recovery's
//!   retransmissions and new data leave in those bursts at that rate, not at the ack.
//! - **Loss recovery** (`bbr_set_cwnd_to_recover_or_restore`): a congestion signal saves
//!   the cwnd (`bbr_save_cwnd`, via `bbr_ssthresh`); on entering fast recovery the first
//!   round uses packet conservation (cwnd = in flight + acked, starting a new round),
//!   then the cwnd grows by what is acked; each lost packet is taken off the cwnd;
//!   leaving recovery (or the timeout's loss state) restores the saved cwnd. A timeout
//!   sets cwnd to 1 packet (Linux `tcp_enter_loss`), ends a round and forgets `full_bw`.
//! - **Idle restart**: a send with nothing in flight after an application-limited
//!   sample (`CA_EVENT_TX_START`) skips the next ProbeRTT entry and, in PROBE_BW, paces
//!   at the estimated bandwidth.
//!
//! Fixed point as 4.9: gains in 1/256 (`BBR_UNIT`; `high_gain` rounds up, 2.885 ->
//! 739/256, the drain gain down, 256/2.885 -> 88/256); bandwidth in packets per second
//! scaled by 2^24 (4.9: packets per microsecond).
//!
//! Where the window transport differs from Linux's: without SACK its window counts the
//! packets that duplicate acks reported delivered as still in flight, so in that
//! recovery the reported cwnd adds one packet per duplicate ack (Linux's `sacked_out`
//! under Reno emulation), and one packet leaves per packet delivered as with Linux's
//! packet conservation.
//! The transport signals the fast retransmit before the first sample in recovery, so
//! the conservation cwnd is set then, from the last sample's in flight (SACK) or the
//! outstanding packets less the duplicate acks.
//!
//! Deviations: no long-term bandwidth (policer) estimation (`lt_bw`, 4.9's
//! `bbr_lt_bw_sampling`): the estimate is always the windowed maximum; losses are
//! counted per fast retransmit and per NewReno partial-ack retransmission (not per
//! packet SACK marks lost); no reaction to ECN (as 4.9); the first pacing rate uses the
//! nominal 1 ms RTT even when a handshake measured one (4.9 takes the SYN's RTT when it
//! has one). Pacing counts whole packets of the flow's data size, as 4.9 does in effect:
//! `bbr_rate_bytes_per_sec` converts the bandwidth (packets per interval) to bytes with
//! the IP packet's size (`tcp_mss_to_mtu`) and sch_fq paces the IP packets, so both pace
//! at bw packets a second (later kernels convert with the payload size and take a 1 %
//! margin).

use super::{
    AckSample, Cause, CcMetrics, CcPolicy, CongestionControl, CongestionSample, LossRecoveryConfig,
    LossRecoveryParams, RateSample, Recovery, RecoveryAck, SendSample,
};
use crate::base::rng::Rng;
use crate::base::time::{SimDuration, SimTime, PS_PER_S};
use crate::base::units::serde_units;
use serde::{Deserialize, Serialize};

/// Gains are in 1/256 (Linux `BBR_UNIT`).
const UNIT: u32 = 256;
/// Bandwidth is packets per second << 24 (Linux `BW_SCALE`).
const BW_SCALE: u32 = 24;
/// The PROBE_BW pacing gains (4.9 `bbr_pacing_gain`).
const CYCLE: [u32; 8] = [UNIT * 5 / 4, UNIT * 3 / 4, UNIT, UNIT, UNIT, UNIT, UNIT, UNIT];
/// Linux's `TCP_INIT_CWND`: the window before any RTT sample, and the deliveries
/// below which STARTUP grows cwnd whatever the target.
const INIT_CWND: u32 = 10;
/// Below this pacing rate, one packet per burst (4.9 `bbr_min_tso_rate`, 1.2 Mbit/s).
const MIN_TSO_RATE_BPS: u64 = 1_200_000;
/// The largest burst, packets (4.9 caps `tso_segs_goal` at 0x7F).
const MAX_TSO_SEGS: u64 = 127;
/// Largest TSO burst, bytes (`GSO_MAX_SIZE`).
const GSO_MAX_BYTES: u64 = 65_536;

/// Parameters of BBR (`[flows.params]`, by these names). Defaults: Linux 4.9.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BbrConfig {
    /// Initial window, packets. Default 10 (Linux `TCP_INIT_CWND`, RFC 6928).
    pub initial_window: u32,
    /// STARTUP's pacing and cwnd gain; DRAIN paces at its inverse. Default 2.885
    /// (2/ln 2, `bbr_high_gain`).
    pub high_gain: f64,
    /// PROBE_BW's cwnd gain. Default 2 (`bbr_cwnd_gain`).
    pub cwnd_gain: f64,
    /// Length of the bandwidth filter, rounds. Default 10 (`bbr_bw_rtts`, the gain
    /// cycle's 8 phases + 2).
    pub bw_window_rounds: u32,
    /// Length of the min-RTT filter. Default 10 s (`bbr_min_rtt_win_sec`).
    #[serde(with = "serde_units::time")]
    pub min_rtt_window: SimDuration,
    /// Least time at `min_cwnd` in ProbeRTT; 0 disables ProbeRTT. Default 200 ms
    /// (`bbr_probe_rtt_mode_ms`).
    #[serde(with = "serde_units::time")]
    pub probe_rtt_duration: SimDuration,
    /// Smallest cwnd, and ProbeRTT's, packets. Default 4 (`bbr_cwnd_min_target`).
    pub min_cwnd: u32,
    /// STARTUP's bandwidth growth per round that means more may be available. Default
    /// 1.25 (`bbr_full_bw_thresh`).
    pub full_bw_threshold: f64,
    /// Rounds without that growth after which the pipe is full. Default 3
    /// (`bbr_full_bw_cnt`).
    pub full_bw_rounds: u32,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            initial_window: 10,
            high_gain: 2.885,
            cwnd_gain: 2.0,
            bw_window_rounds: 10,
            min_rtt_window: SimDuration::from_secs(10),
            probe_rtt_duration: SimDuration::from_millis(200),
            min_cwnd: 4,
            full_bw_threshold: 1.25,
            full_bw_rounds: 3,
        }
    }
}

impl BbrConfig {
    /// Checks the values; (parameter, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        for (name, v) in [
            ("initial_window", self.initial_window),
            ("bw_window_rounds", self.bw_window_rounds),
            ("min_cwnd", self.min_cwnd),
            ("full_bw_rounds", self.full_bw_rounds),
        ] {
            if v < 1 {
                return Err((name, format!("expected a whole number of at least 1, found {v}")));
            }
        }
        if !(self.high_gain > 1.0 && self.high_gain <= 16.0) {
            return Err((
                "high_gain",
                format!("{} is not a gain in (1, 16]; Linux uses 2.885 (2/ln 2)", self.high_gain),
            ));
        }
        if !(self.cwnd_gain >= 1.0 && self.cwnd_gain <= 16.0) {
            return Err(("cwnd_gain", format!("{} is not a gain in [1, 16]; Linux uses 2", self.cwnd_gain)));
        }
        if !(self.full_bw_threshold > 1.0 && self.full_bw_threshold <= 16.0) {
            return Err((
                "full_bw_threshold",
                format!("{} is not a growth factor in (1, 16]; Linux uses 1.25", self.full_bw_threshold),
            ));
        }
        if self.min_rtt_window == SimDuration::ZERO {
            return Err(("min_rtt_window", "must be positive (Linux uses \"10s\")".into()));
        }
        Ok(())
    }
}

/// BBR's state machine (`bbr_mode`), numbered as the `bbr_state` series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

/// Linux's congestion-avoidance states that BBR looks at (ordered as `tcp_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum CaState {
    Open,
    Recovery,
    Loss,
}

/// Kathleen Nichols' windowed running maximum (Linux `lib/win_minmax.c`): the best,
/// second-best and third-best samples of the window, each (time, value).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MaxFilter {
    s: [(u32, u64); 3],
}

impl MaxFilter {
    fn get(&self) -> u64 {
        self.s[0].1
    }

    fn reset(&mut self, t: u32, v: u64) -> u64 {
        self.s = [(t, v); 3];
        v
    }

    /// Adds the sample `v` at time `t` to a window of `win` time units.
    fn update(&mut self, win: u32, t: u32, v: u64) -> u64 {
        if v >= self.s[0].1 || t.wrapping_sub(self.s[2].0) > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        // The best sample has aged out: promote the others (twice if the second is
        // also out); else refresh the second and third choices at a quarter and half
        // of the window so they are not all from its start.
        let dt = t.wrapping_sub(self.s[0].0);
        if dt > win {
            self.s = [self.s[1], self.s[2], (t, v)];
            if t.wrapping_sub(self.s[0].0) > win {
                self.s = [self.s[1], self.s[2], (t, v)];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
        self.s[0].1
    }
}

/// BBR's per-flow state.
#[derive(Clone, Debug)]
pub struct Bbr {
    /// Packet size, bytes.
    mss: u64,
    /// Window cap (`snd_cwnd_clamp`), packets.
    max_window: u32,
    /// Congestion window, packets (Linux's, without the duplicate-ack allowance).
    cwnd: u32,
    mode: Mode,
    pacing_gain: u32,
    cwnd_gain: u32,
    high_gain: u32,
    drain_gain: u32,
    probe_bw_cwnd_gain: u32,
    full_bw_thresh: u32,
    full_bw_rounds: u32,
    bw_window: u32,
    min_rtt_window: SimDuration,
    probe_rtt_duration: SimDuration,
    min_cwnd: u32,
    /// Windowed max bandwidth, packets/s << 24, timed in rounds.
    bw: MaxFilter,
    /// The `bbr_bw` series' value, bits/s of `bw`'s maximum, set whenever the filter
    /// changes (`metrics` runs once per paced send, more often than the filter changes).
    bw_bps: f64,
    rtt_cnt: u32,
    next_rtt_delivered: u64,
    round_start: bool,
    min_rtt: Option<SimDuration>,
    min_rtt_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    cycle_idx: usize,
    cycle_stamp: SimTime,
    full_bw: u64,
    full_bw_cnt: u32,
    /// Pacing rate, bits/s.
    pacing_rate: u64,
    /// Packets per paced burst (4.9 `tso_segs_goal`).
    tso_segs: u32,
    /// The (bandwidth, pacing gain, mode) `main` last set the pacing rate and the burst
    /// from; `None` once anything else has set the rate (`tx_start`). With the same
    /// three and the rate not set since, both would come out as they are (in STARTUP
    /// the rate is at least what they give), so `main` skips them.
    paced_for: Option<(u64, u32, Mode)>,
    prior_cwnd: u32,
    ca_state: CaState,
    prev_ca_state: CaState,
    packet_conservation: bool,
    restore_cwnd: bool,
    idle_restart: bool,
    /// The recovery runs without SACK: the window counts duplicate-acked packets.
    no_sack_recovery: bool,
    /// Duplicate acks of this recovery not yet covered by a cumulative ack (Linux's
    /// `sacked_out` under Reno emulation).
    dup_out: u32,
    /// Packets lost since the last sample (`rs->losses`).
    losses: u32,
    /// The loss state after a timeout ends when the cumulative ack reaches this.
    loss_high: u32,
    /// The last cumulative ack number, and what the last sample left in flight and its
    /// delivered count, delivery time and app-limited mark.
    ack_seq: u32,
    in_flight: u32,
    delivered: u64,
    delivered_time: SimTime,
    last_app_limited: bool,
    rng: Rng,
}

/// A gain in 1/256, rounded up (2.885 -> 739 as Linux's `BBR_UNIT * 2885 / 1000 + 1`).
fn gain_units(g: f64) -> u32 {
    (g * UNIT as f64).ceil() as u32
}

impl Bbr {
    pub fn new(cfg: &BbrConfig, mss: u64, max_window: u32, rng: Rng) -> Self {
        let high_gain = gain_units(cfg.high_gain);
        let cwnd = cfg.initial_window.min(max_window).max(1);
        let mut b = Bbr {
            mss,
            max_window,
            cwnd,
            mode: Mode::Startup,
            pacing_gain: high_gain,
            cwnd_gain: high_gain,
            high_gain,
            drain_gain: (UNIT as f64 / cfg.high_gain).floor() as u32,
            probe_bw_cwnd_gain: gain_units(cfg.cwnd_gain),
            full_bw_thresh: gain_units(cfg.full_bw_threshold),
            full_bw_rounds: cfg.full_bw_rounds,
            bw_window: cfg.bw_window_rounds,
            min_rtt_window: cfg.min_rtt_window,
            probe_rtt_duration: cfg.probe_rtt_duration,
            min_cwnd: cfg.min_cwnd,
            bw: MaxFilter::default(),
            bw_bps: 0.0,
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            cycle_idx: 0,
            cycle_stamp: SimTime::ZERO,
            full_bw: 0,
            full_bw_cnt: 0,
            pacing_rate: 0,
            tso_segs: 1,
            paced_for: None,
            prior_cwnd: 0,
            ca_state: CaState::Open,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            restore_cwnd: false,
            idle_restart: false,
            no_sack_recovery: false,
            dup_out: 0,
            losses: 0,
            loss_high: 0,
            ack_seq: 0,
            in_flight: 0,
            delivered: 0,
            delivered_time: SimTime::ZERO,
            last_app_limited: false,
            rng,
        };
        // bbr_init: high_gain x cwnd per nominal 1 ms RTT (no RTT sample yet).
        let bw = ((cwnd as u128) << BW_SCALE) * 1000;
        b.set_pacing_rate(bw as u64, high_gain);
        b.set_tso_segs_goal();
        b
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Windowed maximum bandwidth, packets per second.
    pub fn max_bw_pps(&self) -> f64 {
        self.bw.get() as f64 / (1u64 << BW_SCALE) as f64
    }

    /// The windowed maximum bandwidth, bits/s (the `bbr_bw` series).
    fn bw_bps_of_filter(&self) -> f64 {
        self.max_bw_pps() * self.mss as f64 * 8.0
    }

    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt
    }

    /// The current pacing gain.
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain as f64 / UNIT as f64
    }

    /// The congestion window, packets.
    pub fn cwnd_pkts(&self) -> u32 {
        self.cwnd
    }

    fn full_bw_reached(&self) -> bool {
        self.full_bw_cnt >= self.full_bw_rounds
    }

    /// Rate in bits/s of `bw` (packets/s << 24) with `gain` (1/256).
    fn rate_bps(&self, bw: u64, gain: u32) -> u64 {
        let r = (bw as u128 * gain as u128 * self.mss as u128 * 8) >> (BW_SCALE + 8);
        r.min(u64::MAX as u128) as u64
    }

    /// `bbr_set_pacing_rate`: in STARTUP the rate only rises.
    fn set_pacing_rate(&mut self, bw: u64, gain: u32) {
        let rate = self.rate_bps(bw, gain).max(1);
        if self.mode != Mode::Startup || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_set_tso_segs_goal` with `tcp_tso_autosize`: the packets of 1/1024 s at the
    /// pacing rate, at least 2 (1 below 1.2 Mbit/s), at most 64 KB and 127 packets.
    fn set_tso_segs_goal(&mut self) {
        let min_segs = if self.pacing_rate < MIN_TSO_RATE_BPS { 1 } else { 2 };
        let bytes = ((self.pacing_rate / 8) >> 10).min(GSO_MAX_BYTES - 1);
        self.tso_segs = (bytes / self.mss).max(min_segs).min(MAX_TSO_SEGS) as u32;
    }

    /// `bbr_target_cwnd`: ceil(bw x min_rtt x gain) + 3 bursts, rounded up to even.
    fn target_cwnd(&self, bw: u64, gain: u32) -> u32 {
        let Some(min_rtt) = self.min_rtt else { return INIT_CWND };
        let w = (bw as u128 * min_rtt.as_ps() as u128 * gain as u128) >> 8;
        // ceil(w / (10^12 << 24)) as ceil(ceil(w / 2^24) / 10^12) (equal for integers):
        // the inner ceiling a shift, the outer a 64-bit division wherever it fits.
        let w = (w >> BW_SCALE) + (w & ((1 << BW_SCALE) - 1) != 0) as u128;
        let bdp = match u64::try_from(w) {
            Ok(w) => w.div_ceil(PS_PER_S) as u128,
            Err(_) => w.div_ceil(PS_PER_S as u128),
        };
        let cwnd = bdp.min(u32::MAX as u128 / 2) as u32 + 3 * self.tso_segs;
        (cwnd + 1) & !1
    }

    /// One delivery-rate sample (`bbr_main`); true asks the transport to mark the flow
    /// application-limited (ProbeRTT).
    fn main(&mut self, rs: &RateSample) -> bool {
        self.delivered = rs.total_delivered;
        self.delivered_time = rs.delivered_time;
        self.in_flight = rs.in_flight;
        self.last_app_limited = rs.is_app_limited;
        self.update_bw(rs);
        self.update_cycle_phase(rs);
        self.check_full_bw_reached(rs);
        self.check_drain(rs);
        let app_limited = self.update_min_rtt(rs);
        let bw = self.bw.get();
        let paced_for = Some((bw, self.pacing_gain, self.mode));
        if self.paced_for != paced_for {
            self.set_pacing_rate(bw, self.pacing_gain);
            self.set_tso_segs_goal();
            self.paced_for = paced_for;
        }
        self.set_cwnd(rs, bw);
        self.losses = 0;
        app_limited
    }

    /// `bbr_update_bw`: round counting and the max filter.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let (Some(prior), Some(interval)) = (rs.prior_delivered, rs.interval) else { return };
        if prior >= self.next_rtt_delivered {
            self.next_rtt_delivered = rs.total_delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw = ((rs.delivered as u128 * PS_PER_S as u128) << BW_SCALE) / interval.as_ps() as u128;
        let bw = bw.min(u64::MAX as u128) as u64;
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(self.bw_window, self.rtt_cnt, bw);
            self.bw_bps = self.bw_bps_of_filter();
        }
    }

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
        let full_length = self.min_rtt.is_some_and(|m| rs.delivered_time.saturating_since(self.cycle_stamp) > m);
        if self.pacing_gain == UNIT {
            return full_length;
        }
        let bw = self.bw.get();
        if self.pacing_gain > UNIT {
            return full_length && (self.losses > 0 || rs.prior_in_flight >= self.target_cwnd(bw, self.pacing_gain));
        }
        full_length || rs.prior_in_flight <= self.target_cwnd(bw, UNIT)
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
        self.cycle_stamp = self.delivered_time;
        self.pacing_gain = CYCLE[self.cycle_idx];
    }

    fn update_cycle_phase(&mut self, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle_phase();
        }
    }

    /// `bbr_reset_probe_bw_mode`: a random phase other than the 3/4 one.
    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = UNIT;
        self.cwnd_gain = self.probe_bw_cwnd_gain;
        // prandom_u32_max(7): a 32-bit draw scaled to 0..=6.
        let r = ((self.rng.next_u64() >> 32) * 7) >> 32;
        self.cycle_idx = CYCLE.len() - 1 - r as usize;
        self.advance_cycle_phase();
    }

    fn reset_startup_mode(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.high_gain;
        self.cwnd_gain = self.high_gain;
    }

    fn reset_mode(&mut self) {
        if self.full_bw_reached() {
            self.reset_probe_bw_mode();
        } else {
            self.reset_startup_mode();
        }
    }

    /// `bbr_check_full_bw_reached`.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached() || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = ((self.full_bw as u128 * self.full_bw_thresh as u128) >> 8) as u64;
        if self.bw.get() >= thresh {
            self.full_bw = self.bw.get();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached() {
            self.mode = Mode::Drain;
            self.pacing_gain = self.drain_gain;
            self.cwnd_gain = self.high_gain;
        }
        if self.mode == Mode::Drain && rs.in_flight <= self.target_cwnd(self.bw.get(), UNIT) {
            self.reset_probe_bw_mode();
        }
    }

    /// `bbr_update_min_rtt`: the min-RTT filter and ProbeRTT; true while in ProbeRTT.
    fn update_min_rtt(&mut self, rs: &RateSample) -> bool {
        let now = rs.now;
        let expired = self.min_rtt.is_some() && now > self.min_rtt_stamp + self.min_rtt_window;
        if let Some(r) = rs.rtt {
            if self.min_rtt.is_none_or(|m| r <= m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = now;
            }
        }
        if self.probe_rtt_duration > SimDuration::ZERO && expired && !self.idle_restart && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = UNIT;
            self.cwnd_gain = UNIT;
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        let probing = self.mode == Mode::ProbeRtt;
        if probing {
            match self.probe_rtt_done {
                None if rs.in_flight <= self.min_cwnd => {
                    self.probe_rtt_done = Some(now + self.probe_rtt_duration);
                    self.probe_rtt_round_done = false;
                    self.next_rtt_delivered = rs.total_delivered;
                }
                None => {}
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && now > done {
                        self.min_rtt_stamp = now;
                        self.restore_cwnd = true;
                        self.reset_mode();
                    }
                }
            }
        }
        self.idle_restart = false;
        probing
    }

    /// `bbr_save_cwnd`: the last cwnd not cut by recovery or ProbeRTT.
    fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: the cwnd, and whether packet conservation
    /// decided it.
    fn recover_or_restore(&mut self, rs: &RateSample) -> (u32, bool) {
        let acked = rs.acked_sacked;
        let mut cwnd = self.cwnd;
        let in_flight = rs.in_flight;
        if self.losses > 0 {
            cwnd = cwnd.saturating_sub(self.losses).max(1);
        }
        let (state, prev) = (self.ca_state, self.prev_ca_state);
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = rs.total_delivered;
            cwnd = in_flight + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            self.restore_cwnd = true;
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.restore_cwnd {
            cwnd = cwnd.max(self.prior_cwnd);
            self.restore_cwnd = false;
        }
        if self.packet_conservation {
            return (cwnd.max(in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`.
    fn set_cwnd(&mut self, rs: &RateSample, bw: u64) {
        let acked = rs.acked_sacked;
        if acked == 0 {
            return;
        }
        let (mut cwnd, conserved) = self.recover_or_restore(rs);
        if !conserved {
            let target = self.target_cwnd(bw, self.cwnd_gain);
            if self.full_bw_reached() {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || rs.total_delivered < INIT_CWND as u64 {
                cwnd += acked;
            }
            cwnd = cwnd.max(self.min_cwnd);
        }
        self.cwnd = cwnd.min(self.max_window);
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.min_cwnd);
        }
    }

    /// A send with nothing in flight since the last sample (`CA_EVENT_TX_START`): after
    /// an app-limited sample, an idle restart. Out of line: the transport's dispatch of
    /// `on_packet_sent` stays small enough to inline for every policy.
    #[inline(never)]
    fn tx_start(&mut self, retransmission: bool) {
        if !retransmission && self.last_app_limited && self.delivered > 0 {
            self.idle_restart = true;
            if self.mode == Mode::ProbeBw {
                self.set_pacing_rate(self.bw.get(), UNIT);
                self.paced_for = None;
            }
        }
        self.in_flight = 1;
    }

    /// The window the transport sees, packets: with recovery without SACK it counts
    /// the packets duplicate acks reported as in flight.
    fn window_pkts(&self) -> u32 {
        if self.no_sack_recovery && self.ca_state == CaState::Recovery {
            self.cwnd + self.dup_out
        } else {
            self.cwnd
        }
    }
}

#[cfg(test)]
impl Bbr {
    /// For the transport's tests: PROBE_BW at gain 1 (phase 2) with a bandwidth
    /// estimate of `bw_pps` packets/s and a min RTT `min_rtt`, both taken at `now`, and
    /// cwnd `cwnd`.
    pub(crate) fn force_probe_bw(&mut self, now: SimTime, bw_pps: u64, min_rtt: SimDuration, cwnd: u32) {
        self.bw.reset(self.rtt_cnt, bw_pps << BW_SCALE);
        self.bw_bps = self.bw_bps_of_filter();
        self.min_rtt = Some(min_rtt);
        self.min_rtt_stamp = now;
        self.full_bw_cnt = self.full_bw_rounds;
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = self.probe_bw_cwnd_gain;
        self.cycle_idx = 2;
        self.pacing_gain = UNIT;
        self.cycle_stamp = now;
        self.pacing_rate = self.rate_bps(self.bw.get(), UNIT);
        self.set_tso_segs_goal();
        self.paced_for = None;
        self.cwnd = cwnd;
    }
}

impl CcPolicy for Bbr {
    type Config = BbrConfig;
    const NAME: &'static str = "bbr";
    const DESCRIPTION: &'static str =
        "BBR v1 (Linux 4.9): paced at the windowed max delivery rate, cwnd 2 BDP, STARTUP/DRAIN/PROBE_BW/ProbeRTT";
    const SACK: bool = true;
    const RATE_SAMPLE: bool = true;
    /// Linux 4.9's BBR paces through `sch_fq`, which spaces every packet of the flow.
    const PACE_RECOVERY: bool = true;
    /// Two of the four values the issue names (`CcMetrics` has two slots): the others
    /// follow from recorded series, the pacing gain as the `rate` series over `bbr_bw`,
    /// the min RTT as the 10 s running minimum of the `rtt` series.
    const EXTRA_SERIES: &'static [&'static str] = &["bbr_bw", "bbr_state"];
    fn build(cfg: &BbrConfig, mss: u64, max_window: u32) -> Self {
        Bbr::new(cfg, mss, max_window, Rng::new(0, 0))
    }
    fn build_seeded(cfg: &BbrConfig, mss: u64, max_window: u32, rng: Rng) -> Self {
        Bbr::new(cfg, mss, max_window, rng)
    }
    fn check(cfg: &BbrConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    /// Linux's timer (200 ms to 120 s, every ack sampled) and NewReno recovery (Linux
    /// recovers until everything sent before the loss is acknowledged).
    const LOSS_RECOVERY: LossRecoveryParams = LossRecoveryParams {
        defaults: LossRecoveryConfig::LINUX,
        recovery: Recovery::NewReno,
        ..LossRecoveryParams::RFC6298
    };
}

impl CongestionControl for Bbr {
    #[inline]
    fn on_packet_sent(&mut self, s: &SendSample) {
        if self.in_flight == 0 {
            self.tx_start(s.retransmission);
        }
    }

    fn on_ack(&mut self, s: &AckSample) {
        self.ack_seq = s.ack_seq;
        if self.no_sack_recovery {
            // Linux `tcp_remove_reno_sacks`: the ack covers the hole and acked - 1
            // duplicate-acked packets.
            self.dup_out = self.dup_out.saturating_sub(s.acked_pkts.saturating_sub(1));
        }
        match s.recovery {
            RecoveryAck::Exit => {
                self.ca_state = CaState::Open;
                self.dup_out = 0;
            }
            RecoveryAck::Partial if self.no_sack_recovery => self.losses += 1,
            _ => {}
        }
        if self.ca_state == CaState::Loss && s.ack_seq >= self.loss_high {
            self.ca_state = CaState::Open;
        }
    }

    fn on_dup_ack(&mut self, _now: SimTime) {
        if self.ca_state == CaState::Recovery && self.no_sack_recovery {
            self.dup_out += 1;
            }
    }

    fn on_congestion(&mut self, s: &CongestionSample) {
        match s.cause {
            Cause::FastRetransmit => {
                // bbr_ssthresh, then the first sample in recovery (conservation: cwnd
                // = in flight + acked, a new round), taken at once since the
                // transport sends right after this call. In flight: the last sample's
                // (SACK), or the outstanding packets less the duplicate-acked ones; less
                // the lost packet, plus the duplicate ack's one packet acked.
                self.save_cwnd();
                self.no_sack_recovery = !s.pipe;
                self.dup_out = if s.pipe { 0 } else { s.dupack_threshold };
                let in_flight = if s.pipe { self.in_flight } else { s.in_flight_pkts.saturating_sub(self.dup_out) };
                self.ca_state = CaState::Recovery;
                self.prev_ca_state = CaState::Recovery;
                self.packet_conservation = true;
                self.next_rtt_delivered = self.delivered;
                self.cwnd = in_flight.clamp(1, self.max_window.max(1));
                if self.mode == Mode::ProbeRtt {
                    self.cwnd = self.cwnd.min(self.min_cwnd);
                }
            }
            Cause::Timeout => {
                // tcp_enter_loss (bbr_ssthresh, cwnd = 1) and bbr_set_state(TCP_CA_Loss).
                self.save_cwnd();
                self.loss_high = self.ack_seq + s.in_flight_pkts;
                self.ca_state = CaState::Loss;
                self.prev_ca_state = CaState::Loss;
                self.full_bw = 0;
                self.round_start = true;
                self.no_sack_recovery = false;
                self.dup_out = 0;
                self.cwnd = 1;
            }
            Cause::Ecn => {}
        }
    }

    fn on_rate_sample(&mut self, rs: &RateSample) -> bool {
        self.main(rs)
    }

    /// Out of line: the transport's dispatch of `metrics` stays as cheap for the other
    /// policies (docs/performance.md).
    #[inline(never)]
    fn metrics(&self) -> CcMetrics {
        CcMetrics::window(self.window_pkts() as u64 * self.mss)
            .with_pacing(self.pacing_rate, self.tso_segs)
            .with_extra(0, "bbr_bw", self.bw_bps)
            .with_extra(1, "bbr_state", self.mode as u8 as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn bbr() -> Bbr {
        Bbr::new(&BbrConfig::default(), MSS, 10_000, Rng::new(1, 0))
    }

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// Packets per second as BBR's fixed point.
    fn pps(v: u64) -> u64 {
        v << BW_SCALE
    }

    /// A sample at `t` ms: `delivered` packets over `interval` ms, P's snapshot
    /// `prior`, the flow's total `total`, `in_flight` after the ack (before: one more),
    /// one packet acked, RTT `rtt` ms.
    fn rs(t: u64, total: u64, prior: u64, delivered: u64, interval: u64, in_flight: u32, rtt: u64) -> RateSample {
        RateSample {
            now: ms(t),
            total_delivered: total,
            delivered_time: ms(t),
            acked_sacked: 1,
            prior_delivered: Some(prior),
            delivered,
            interval: Some(SimDuration::from_millis(interval)),
            is_app_limited: false,
            rtt: Some(SimDuration::from_millis(rtt)),
            prior_in_flight: in_flight + 1,
            in_flight,
        }
    }

    #[test]
    fn the_defaults_are_linux_4_9s_fixed_point_constants() {
        let b = bbr();
        // 256 x 2.885 = 738.56, rounded up: 739 (BBR_UNIT * 2885 / 1000 + 1); drain
        // 256 / 2.885 = 88.7, rounded down: 88 (BBR_UNIT * 1000 / 2885).
        assert_eq!((b.high_gain, b.drain_gain, b.probe_bw_cwnd_gain), (739, 88, 512));
        assert_eq!((b.mode(), b.pacing_gain, b.cwnd_gain, b.cwnd), (Mode::Startup, 739, 739, 10));
        // First pacing rate: 10 packets per 1 ms x 739/256 x 8000 bits =
        // 10_000 x 739 x 8000 / 256 = 230_937_500 bit/s; bursts of 230_937_500 / 8 /
        // 1024 = 28_190 bytes = 28 packets.
        assert_eq!((b.pacing_rate, b.tso_segs), (230_937_500, 28));
        assert_eq!(b.metrics().pacing_rate, Some(230_937_500));
        assert_eq!(BbrConfig::default().check(), Ok(()));
    }

    #[test]
    fn bdp_and_cwnd_follow_from_bw_and_min_rtt() {
        let mut b = bbr();
        assert_eq!(b.target_cwnd(pps(1250), UNIT), INIT_CWND, "no RTT sample yet");
        b.min_rtt = Some(SimDuration::from_millis(40));
        // Pacing at 10 Mbit/s: 1_250_000 / 1024 = 1220 bytes, 1 packet, at least 2.
        b.pacing_rate = 10_000_000;
        b.set_tso_segs_goal();
        assert_eq!(b.tso_segs, 2);
        // 1250 pkt/s x 40 ms = 50 packets; + 3 x 2 = 56 (even).
        assert_eq!(b.target_cwnd(pps(1250), UNIT), 56);
        // Gain 2: 100 + 6 = 106. Gain 739/256: 50 x 2.88671875 = 144.3, up to 145;
        // + 6 = 151, rounded up to even: 152.
        assert_eq!(b.target_cwnd(pps(1250), 512), 106);
        assert_eq!(b.target_cwnd(pps(1250), 739), 152);
        // Below 1.2 Mbit/s one packet per burst: 50 + 3 = 53, even: 54.
        b.pacing_rate = 1_000_000;
        b.set_tso_segs_goal();
        assert_eq!((b.tso_segs, b.target_cwnd(pps(1250), UNIT)), (1, 54));
        // 100 Mbit/s: 12_500_000 / 1024 = 12_207 bytes: 12 packets.
        b.pacing_rate = 100_000_000;
        b.set_tso_segs_goal();
        assert_eq!(b.tso_segs, 12);
        // Pacing rate of 1250 pkt/s at gain 5/4: 1250 x 1.25 x 8000 = 12.5 Mbit/s.
        assert_eq!(b.rate_bps(pps(1250), UNIT * 5 / 4), 12_500_000);
    }

    #[test]
    fn the_max_filter_forgets_a_peak_after_ten_rounds() {
        // 1000 at round 1, then 500 every round. Round 2's 500 is below both kept
        // choices (1000); round 4, more than a quarter window on, makes it the second
        // and third choice; from then each 500 (>= the second choice) moves them to its
        // round. The peak holds while round - 1 <= 10, through round 11; at round 12 it
        // is out and the second choice, (12, 500), takes over.
        let mut f = MaxFilter::default();
        assert_eq!(f.update(10, 1, 1000), 1000);
        for t in 2..=3 {
            assert_eq!(f.update(10, t, 500), 1000, "round {t}");
            assert_eq!(f.s, [(1, 1000); 3]);
        }
        for t in 4..=11 {
            assert_eq!(f.update(10, t, 500), 1000, "round {t}");
            assert_eq!(f.s[1..], [(t, 500), (t, 500)]);
        }
        assert_eq!(f.update(10, 12, 500), 500);
        assert_eq!(f.s, [(12, 500); 3]);
        // A higher value replaces everything at once.
        assert_eq!(f.update(10, 13, 600), 600);
        assert_eq!(f.s, [(13, 600); 3]);
    }

    #[test]
    fn bbr_counts_rounds_by_delivery_and_keeps_the_windowed_max_bandwidth() {
        // Round k ends when a packet sent after the previous round's end is delivered:
        // each sample's P snapshot equals the previous total. Round 1 at 1000 pkt/s,
        // then 500 pkt/s: the estimate falls at round 12, as the filter above.
        let mut b = bbr();
        let mut total = 0;
        for k in 1..=12u64 {
            let rate_per_100ms = if k == 1 { 100 } else { 50 };
            let prior = total;
            total += rate_per_100ms;
            b.main(&rs(100 * k, total, prior, rate_per_100ms, 100, 10, 100));
            assert_eq!(b.rtt_cnt, k as u32);
            let want = if k <= 11 { 1000 } else { 500 };
            assert_eq!(b.bw.get(), pps(want), "round {k}");
        }
        // A sample of a packet sent before this round's end is not a new round.
        b.main(&rs(1300, total + 1, total - 1, 1, 100, 10, 100));
        assert_eq!(b.rtt_cnt, 12);
        // An app-limited sample below the estimate is left out; one above it counts.
        let mut low = rs(1400, total + 2, total, 10, 100, 10, 100);
        low.is_app_limited = true;
        b.main(&low);
        assert_eq!(b.bw.get(), pps(500));
        let mut high = rs(1500, total + 3, total + 2, 80, 100, 10, 100);
        high.is_app_limited = true;
        b.main(&high);
        assert_eq!(b.bw.get(), pps(800));
    }

    #[test]
    fn startup_drain_and_probe_bw_over_scripted_samples() {
        // Min RTT 100 ms; one sample per round. Bandwidth per round: 100, 200, 250, then
        // 300 three times. Full-bandwidth detection: round 1 sets full_bw 100 (above
        // 0 x 1.25), round 2 200 >= 125, round 3 250 >= 250 (exactly 1.25 x 200): reset
        // each time; rounds 4, 5, 6 reach only 300 < 312.5: counts 1, 2, 3.
        let mut b = bbr();
        let mut total = 0;
        let mut round = |b: &mut Bbr, k: u64, rate: u64, in_flight: u32| {
            let d = rate / 10; // packets per 100 ms
            let prior = total;
            total += d;
            b.main(&rs(100 * k, total, prior, d, 100, in_flight, 100));
        };
        // In flight 200 throughout STARTUP: above one BDP with STARTUP's bursts of 28
        // packets (300 x 0.1 + 3 x 28 = 114), which DRAIN's check still uses on the
        // sample that enters it (4.9 sets the burst size after the model).
        for (k, rate) in [(1, 100), (2, 200), (3, 250)] {
            round(&mut b, k, rate, 200);
            assert_eq!((b.mode(), b.full_bw, b.full_bw_cnt), (Mode::Startup, pps(rate), 0), "round {k}");
        }
        for k in 4..=5 {
            round(&mut b, k, 300, 200);
            assert_eq!((b.mode(), b.full_bw, b.full_bw_cnt), (Mode::Startup, pps(250), k as u32 - 3));
        }
        // STARTUP's pacing rate never fell below the first one (230.9375 Mbit/s).
        assert_eq!(b.pacing_rate, 230_937_500);
        // Round 6: the pipe is full: DRAIN, pacing at 300 x 88/256 x 8000 = 825 kbit/s
        // (below 1.2 Mbit/s: single-packet bursts), cwnd gain still high; one BDP is now
        // 300 x 0.1 = 30 + 3 x 1 = 33, even: 34.
        round(&mut b, 6, 300, 200);
        assert_eq!((b.mode(), b.pacing_gain, b.cwnd_gain), (Mode::Drain, 88, 739));
        assert_eq!((b.pacing_rate, b.tso_segs), (825_000, 1));
        assert_eq!(b.target_cwnd(b.bw.get(), UNIT), 34);
        // Still 35 in flight: DRAIN goes on; 34: PROBE_BW, at a phase other than 3/4.
        round(&mut b, 7, 300, 35);
        assert_eq!(b.mode(), Mode::Drain);
        round(&mut b, 8, 300, 34);
        assert_eq!((b.mode(), b.cwnd_gain), (Mode::ProbeBw, 512));
        assert_ne!(b.cycle_idx, 1);
        assert_eq!(b.pacing_gain, CYCLE[b.cycle_idx]);
    }

    #[test]
    fn probe_bw_starts_at_any_phase_but_the_draining_one() {
        // 7 - prandom_u32_max(7) is 1..=7; the advance then gives 2..=7 or 0.
        let mut seen = [0u32; 8];
        for seed in 0..200 {
            let mut b = Bbr::new(&BbrConfig::default(), MSS, 10_000, Rng::new(seed, 5));
            b.reset_probe_bw_mode();
            seen[b.cycle_idx] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 0), "{seen:?}");
    }

    #[test]
    fn the_gain_cycle_advances_by_time_and_by_what_is_in_flight() {
        // bw 1000 pkt/s, min RTT 100 ms: BDP 100 packets. Pacing at 8 Mbit/s x gain
        // (6 to 10 Mbit/s): bursts of 2 packets, so one-BDP target 100 + 6 = 106.
        let mut b = bbr();
        b.main(&rs(100, 100, 0, 100, 100, 50, 100));
        assert_eq!((b.bw.get(), b.min_rtt), (pps(1000), Some(SimDuration::from_millis(100))));
        b.full_bw_cnt = 3;
        b.mode = Mode::ProbeBw;
        b.cwnd_gain = 512;
        b.cycle_idx = 7;
        b.pacing_gain = UNIT;
        b.cycle_stamp = ms(100);
        let sample = |t: u64, prior_in_flight: u32| {
            let mut s = rs(t, 100, 0, 1, 1000, prior_in_flight - 1, 150);
            s.prior_in_flight = prior_in_flight;
            s
        };
        // Gain 1: a phase lasts more than one min RTT of delivery time: 200 ms is not
        // more than 100 ms after 100 ms, 201 is.
        b.main(&sample(200, 100));
        assert_eq!(b.cycle_idx, 7);
        b.main(&sample(201, 100));
        assert_eq!((b.cycle_idx, b.pacing_gain, b.cycle_stamp), (0, 320, ms(201)));
        assert_eq!(b.target_cwnd(b.bw.get(), 320), 132, "125 + 6 = 131, even: 132");
        // Gain 5/4: a full min RTT and in flight up to 5/4 BDP (or a loss).
        b.main(&sample(400, 131));
        assert_eq!(b.cycle_idx, 0, "131 < 132");
        b.main(&sample(401, 132));
        assert_eq!((b.cycle_idx, b.pacing_gain), (1, 192));
        // Gain 3/4: ends early once in flight is down to one BDP (106).
        b.main(&sample(402, 107));
        assert_eq!(b.cycle_idx, 1);
        b.main(&sample(403, 106));
        assert_eq!((b.cycle_idx, b.pacing_gain), (2, UNIT));
        // A loss ends the 5/4 phase after its min RTT whatever is in flight.
        b.cycle_idx = 0;
        b.pacing_gain = 320;
        b.cycle_stamp = ms(500);
        b.losses = 1;
        b.main(&sample(601, 50));
        assert_eq!(b.cycle_idx, 1);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_without_a_lower_rtt_and_its_exit() {
        // PROBE_BW at 1000 pkt/s, min RTT 100 ms taken at 0.1 s; cwnd 100.
        let mut b = bbr();
        b.main(&rs(100, 100, 0, 100, 100, 50, 100));
        b.full_bw_cnt = 3;
        b.reset_probe_bw_mode();
        b.cwnd = 100;
        // RTTs of 120 ms do not refresh the filter; at 10.1 s it is not yet expired
        // (expiry is strictly after 0.1 + 10 s).
        assert!(!b.main(&rs(10_100, 200, 100, 1, 1000, 90, 120)));
        assert_eq!(b.mode(), Mode::ProbeBw);
        // The sample at 10.1 s set cwnd = min(100 + 1 acked, 2 x 100 + 6) = 101.
        let saved = b.cwnd;
        assert_eq!(saved, 101);
        // 10.2 s: expired: the 120 ms sample becomes the min RTT, ProbeRTT starts, cwnd
        // 101 is saved and cut to 4; the transport is asked to mark the flow
        // app-limited.
        assert!(b.main(&rs(10_200, 201, 101, 1, 1000, 90, 120)));
        assert_eq!((b.mode(), b.cwnd, b.prior_cwnd), (Mode::ProbeRtt, 4, saved));
        assert_eq!((b.min_rtt, b.min_rtt_stamp), (Some(SimDuration::from_millis(120)), ms(10_200)));
        assert_eq!((b.pacing_gain, b.cwnd_gain), (UNIT, UNIT));
        // In flight still 90: the 200 ms have not started.
        assert!(b.main(&rs(10_300, 202, 102, 1, 1000, 90, 120)));
        assert_eq!(b.probe_rtt_done, None);
        // In flight 4 at 10.4 s: done at 10.6 s at the earliest, and a round must pass
        // (the next round ends with a packet sent from now: delivered 203).
        assert!(b.main(&rs(10_400, 203, 103, 1, 1000, 4, 120)));
        assert_eq!(b.probe_rtt_done, Some(ms(10_600)));
        // 10.7 s, past the 200 ms but no round yet (P sent before the round began).
        assert!(b.main(&rs(10_700, 204, 200, 1, 1000, 4, 120)));
        assert_eq!(b.mode(), Mode::ProbeRtt);
        // 10.8 s: a round ends (P's snapshot 203 >= 203): exit to PROBE_BW, min RTT
        // restamped, the saved cwnd restored: max(4, 101), then + 1 acked = 102. The
        // exit sample is still marked app-limited (4.9 marks before checking the exit).
        assert!(b.main(&rs(10_800, 205, 203, 1, 1000, 4, 120)));
        assert_eq!((b.mode(), b.min_rtt_stamp), (Mode::ProbeBw, ms(10_800)));
        assert_eq!(b.cwnd, saved + 1);
    }

    #[test]
    fn loss_recovery_conserves_packets_then_restores_the_cwnd() {
        // PROBE_BW at 1000 pkt/s, min RTT 100 ms: target 2 x 100 + 6 = 206; cwnd 100.
        let mut b = bbr();
        b.main(&rs(100, 100, 0, 100, 100, 80, 100));
        b.full_bw_cnt = 3;
        b.reset_probe_bw_mode();
        b.cwnd = 100;
        // SACK recovery with 80 in flight after the duplicate ack: cwnd = 80 (in flight
        // less the lost packet plus the packet acked); 100 is saved.
        b.on_congestion(&CongestionSample {
            now: ms(200),
            cause: Cause::FastRetransmit,
            in_flight_pkts: 100,
            pipe: true,
            rto_repeat: false,
            dupack_threshold: 3,
        });
        assert_eq!((b.cwnd, b.prior_cwnd, b.packet_conservation), (80, 100, true));
        // Conservation: one packet acked with 79 in flight: max(80, 79 + 1) = 80.
        b.main(&rs(210, 101, 90, 1, 100, 79, 100));
        assert_eq!(b.cwnd, 80);
        // The ack that ends recovery: restore max(80, 100) = 100, then + 1 acked.
        b.on_ack(&AckSample {
            now: ms(300),
            acked_pkts: 1,
            rtt: SimDuration::from_millis(100),
            in_flight_pkts: 60,
            sent: ms(200),
            flags: 0,
            ack_seq: 150,
            recovery: RecoveryAck::Exit,
        });
        b.main(&rs(300, 150, 101, 49, 100, 60, 100));
        assert_eq!((b.cwnd, b.packet_conservation), (101, false));
    }

    #[test]
    fn without_sack_the_window_counts_duplicate_acked_packets() {
        // 100 outstanding at the third duplicate ack: Linux's in flight 100 - 3 - 1 lost,
        // + 1 acked: cwnd 97; the transport's window adds the 3 duplicate-acked: 100,
        // so nothing new leaves; each further duplicate ack lets one packet out.
        let mut b = bbr();
        b.cwnd = 100;
        b.on_congestion(&CongestionSample {
            now: ms(0),
            cause: Cause::FastRetransmit,
            in_flight_pkts: 100,
            pipe: false,
            rto_repeat: false,
            dupack_threshold: 3,
        });
        assert_eq!((b.cwnd, b.window_pkts()), (97, 100));
        b.on_dup_ack(ms(1));
        assert_eq!(b.metrics().cwnd, 101 * MSS);
    }

    #[test]
    fn a_timeout_cuts_to_one_packet_and_its_end_restores_the_cwnd() {
        let mut b = bbr();
        b.main(&rs(100, 100, 0, 100, 100, 50, 100));
        b.full_bw_cnt = 3;
        b.reset_probe_bw_mode();
        b.cwnd = 100;
        b.ack_seq = 500;
        b.on_congestion(&CongestionSample {
            now: ms(1000),
            cause: Cause::Timeout,
            in_flight_pkts: 100,
            pipe: false,
            rto_repeat: false,
            dupack_threshold: 3,
        });
        assert_eq!((b.cwnd, b.prior_cwnd, b.loss_high, b.full_bw), (1, 100, 600, 0));
        // Acks below 600 keep the loss state: cwnd + acked toward the target.
        let ack = |seq: u32| AckSample {
            now: ms(1100),
            acked_pkts: 1,
            rtt: SimDuration::from_millis(100),
            in_flight_pkts: 0,
            sent: ms(1000),
            flags: 0,
            ack_seq: seq,
            recovery: RecoveryAck::None,
        };
        b.on_ack(&ack(501));
        b.main(&rs(1100, 101, 100, 1, 100, 0, 100));
        assert_eq!(b.cwnd, 4, "1 + 1 acked, at least 4");
        b.on_ack(&ack(600));
        b.main(&rs(1200, 102, 100, 1, 100, 0, 100));
        assert_eq!(b.cwnd, 101, "max(4, 100) + 1 acked");
    }

    #[test]
    fn a_send_after_idle_paces_at_the_estimate_and_skips_probe_rtt_once() {
        let mut b = bbr();
        b.main(&rs(100, 100, 0, 100, 100, 50, 100));
        b.full_bw_cnt = 3;
        b.reset_probe_bw_mode();
        // The last sample was app-limited and left nothing in flight.
        let mut s = rs(200, 101, 100, 1, 100, 0, 150);
        s.is_app_limited = true;
        b.main(&s);
        b.pacing_gain = 320;
        b.on_packet_sent(&SendSample { now: ms(300), seq: 101, retransmission: false });
        // 1000 pkt/s x 1 x 8000 bits.
        assert_eq!((b.idle_restart, b.pacing_rate), (true, 8_000_000));
        // The next sample, 10 s after the min RTT was taken, does not enter ProbeRTT.
        b.main(&rs(10_200, 102, 101, 1, 100, 1, 150));
        assert_eq!((b.mode(), b.idle_restart), (Mode::ProbeBw, false));
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let bad = |c: BbrConfig| c.check().unwrap_err().0;
        assert_eq!(bad(BbrConfig { high_gain: 1.0, ..Default::default() }), "high_gain");
        assert_eq!(bad(BbrConfig { cwnd_gain: 0.5, ..Default::default() }), "cwnd_gain");
        assert_eq!(bad(BbrConfig { min_cwnd: 0, ..Default::default() }), "min_cwnd");
        assert_eq!(bad(BbrConfig { bw_window_rounds: 0, ..Default::default() }), "bw_window_rounds");
        assert_eq!(bad(BbrConfig { min_rtt_window: SimDuration::ZERO, ..Default::default() }), "min_rtt_window");
        assert_eq!(bad(BbrConfig { full_bw_threshold: 1.0, ..Default::default() }), "full_bw_threshold");
    }
}
