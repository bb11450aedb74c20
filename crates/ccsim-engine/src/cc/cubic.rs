//! CUBIC (RFC 9438), with HyStart++ (RFC 9406) as an option for the initial slow start.
//!
//! Windows are counted in segments of the flow's data size, as the RFC counts them
//! (section 4.1.1), in floating point; `metrics` reports cwnd and ssthresh in bytes,
//! rounded to the nearest byte, and the transport sends `cwnd / data_size` whole packets.
//!
//! - Window increase (section 4.2): W_cubic(t) = C (t - K)^3 + W_max (equation 1), with
//!   K = cbrt((W_max - cwnd_epoch) / C) (equation 2), t the time since the start of the
//!   current congestion-avoidance stage (the epoch, begun by the first ack in congestion
//!   avoidance) and cwnd_epoch the window then. Each ack of n segments adds
//!   n (target - cwnd) / cwnd, target = W_cubic(t + RTT) bounded to [cwnd, 1.5 cwnd]
//!   (sections 4.2, 4.4 and 4.5: concave and convex regions alike). RTT is the smoothed
//!   round-trip time (RFC 6298's gain 1/8 over the policy's samples, `AckSample::rtt`).
//! - An epoch that starts with no W_max known (the first congestion avoidance without a
//!   loss, or the first after a timeout) or at or above it has K = 0 and W_max = cwnd at
//!   the start (sections 4.8 and 4.10; Linux `bictcp_update`'s origin point).
//! - Reno-friendly region (section 4.3, `reno_friendly`): W_est starts at cwnd_epoch and
//!   grows by alpha_cubic n / cwnd per ack of n segments, alpha_cubic =
//!   3 (1 - beta) / (1 + beta) (equation 4; 0.529 for beta = 0.7) until W_est reaches
//!   cwnd_prior, the window when ssthresh was last set, and 1 from then on (as the RFC
//!   says: cwnd_prior, which equals W_max unless fast convergence lowered W_max). When
//!   W_cubic(t) < W_est, cwnd = W_est.
//! - Multiplicative decrease (section 4.6, figure 5), on a fast retransmit and on an ECN
//!   echo: ssthresh = max(cwnd beta, 2), cwnd_prior = cwnd; cwnd = ssthresh after a
//!   loss, max(cwnd beta, 1) after an ECN echo; the epoch ends.
//! - Fast convergence (section 4.7, `fast_convergence`): at a congestion event with
//!   cwnd < W_max, W_max = cwnd (1 + beta) / 2; otherwise W_max = cwnd.
//! - Timeout (section 4.8): ssthresh as for a loss, cwnd = 1 segment, W_max forgotten
//!   (the next epoch has K = 0) and the epoch restarted. A timeout during a fast
//!   recovery keeps the recovery's ssthresh (the window is inflated by then), and a
//!   repeated timeout keeps ssthresh (Linux `tcp_enter_loss`).
//! - Slow start (section 4.10) below ssthresh: RFC 5681's cwnd += min(N, SMSS), one
//!   segment per ack, never above ssthresh (Linux `tcp_slow_start`); cwnd = ssthresh is
//!   congestion avoidance (Linux `tcp_in_slow_start`).
//! - HyStart++ (`hystart`, RFC 9406 section 4): in the initial slow start only (section
//!   4.3's recommendation), rounds end when the packets sent at their start are acked;
//!   slow start adds min(N, L SMSS) per ack with L = 8 (not paced); a round whose minimum
//!   RTT (after at least N_RTT_SAMPLE = 8 samples) exceeds the previous round's by
//!   max(4 ms, min(previous / 8, 16 ms)) enters Conservative Slow Start, which grows by a
//!   quarter of that and returns to slow start if a round's minimum RTT falls below the
//!   one that triggered it; after CSS_ROUNDS = 5 rounds (the partial first one counted)
//!   ssthresh = cwnd, and congestion avoidance starts with cwnd_prior = W_max = cwnd,
//!   K = 0 (RFC 9438 section 4.10). A loss or ECN echo ends it. Linux runs the older
//!   HyStart (ack trains and delay increase, `hystart_update`), not HyStart++; the
//!   default is off, and the ns-3 comparison switches ns-3's HyStart off.
//! - Loss recovery is the transport's (`LOSS_RECOVERY`): NewReno (RFC 6582) without SACK,
//!   the RFC 6675 pipe with `sack = true` (`CongestionSample::pipe`: cwnd = ssthresh at
//!   once, no inflation). Without SACK the window is inflated by the duplicate-ack
//!   threshold and one segment per further duplicate ack, deflated on partial acks and
//!   set to ssthresh when recovery ends, as in Reno (`cc/reno.rs`). The timer is RFC
//!   6298's (`rto = "linux"` selects Linux's).
//!
//! Choices where RFC 9438 leaves one open:
//! - ssthresh from cwnd, as Linux (`bictcp_recalc_ssthresh`) and ns-3 do, not from
//!   FlightSize (figure 5's other form). FlightSize here is every packet sent and not
//!   cumulatively acknowledged, SACKed ones included, which can exceed cwnd many times
//!   over when SACK recovery keeps sending while a retransmission is lost. The RFC
//!   allows cwnd where cwnd cannot grow while the sender is not cwnd-limited: window
//!   flows here always have data to send, and cwnd never exceeds the maximum window.
//! - In the Reno-friendly region cwnd never falls on an ack: cwnd = max(cwnd, W_est)
//!   (Linux only ever raises the growth rate towards its Reno estimate).
//! - Defaults C = 0.4 and beta = 0.7 (sections 4.5 and 4.6), fast convergence on (Linux
//!   `fast_convergence = 1`), initial window 10 segments (RFC 6928; Linux), initial
//!   ssthresh the maximum window (Linux: infinite).
//!
//! Deviations: RTT for the target is the smoothed RTT as the RFC says (Linux adds its
//! minimum RTT, `delay_min`); no application-limited or idle handling of the epoch (the
//! RFC's section 4.2 note; a window flow here always has data); Linux's integer
//! arithmetic (cube root tables, `cnt` counters) is replaced by floating point; the
//! window reduction is immediate, not spread by PRR as Linux does.

use super::{
    check_window_start, AckSample, Cause, CcMetrics, CcPolicy, CongestionControl, CongestionSample, LossRecoveryParams,
    Recovery, RecoveryAck, SendSample,
};
use crate::base::time::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of `cubic` (`[flows.params]`, by these names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C, segments per second cubed. Default 0.4 (RFC 9438 section 4.5).
    pub c: f64,
    /// beta_cubic, the window kept on congestion. Default 0.7 (RFC 9438 section 4.6).
    pub beta: f64,
    /// Fast convergence (RFC 9438 section 4.7). Default on (Linux).
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 section 4.3). Default on.
    pub reno_friendly: bool,
    /// Initial window, packets. Default 10 (RFC 6928; Linux).
    pub initial_window: u32,
    /// Initial slow-start threshold, packets; `None`: the maximum window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
    /// HyStart++ (RFC 9406) in the initial slow start. Default off.
    pub hystart: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            initial_window: 10,
            initial_ssthresh: None,
            hystart: false,
        }
    }
}

impl CubicConfig {
    /// Checks the values; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(("c", format!("expected a positive number (segments/s^3), found {}; RFC 9438 uses 0.4", self.c)));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err((
                "beta",
                format!("{} is not a decrease factor in (0, 1); RFC 9438 uses 0.7", self.beta),
            ));
        }
        check_window_start(self.initial_window, self.initial_ssthresh)?;
        Ok(())
    }
}

/// RFC 9406 section 4.2's constants (times in picoseconds).
const MIN_RTT_THRESH: u64 = 4_000_000_000;
const MAX_RTT_THRESH: u64 = 16_000_000_000;
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;
/// L for a sender that does not pace.
const L: u32 = 8;
/// An RTT not yet measured ("infinity").
const NO_RTT: u64 = u64::MAX;

/// HyStart++'s state (RFC 9406 section 4.2).
#[derive(Clone, Debug)]
struct HyStart {
    /// One past the highest sequence number sent (SND.NXT).
    snd_nxt: u32,
    /// SND.NXT when the round began: it ends when the cumulative ack passes this (the
    /// packet of that number is acknowledged); `None` before the first round.
    window_end: Option<u32>,
    last_round_min_rtt: u64,
    current_round_min_rtt: u64,
    rtt_sample_count: u32,
    /// In Conservative Slow Start: cssBaselineMinRtt and the rounds ended since entering.
    css: Option<(u64, u32)>,
}

/// What HyStart++ makes of one ack in slow start.
enum SlowStartAck {
    /// Grow by this many segments.
    Grow(f64),
    /// CSS is over: congestion avoidance with ssthresh = cwnd.
    Exit,
}

impl HyStart {
    fn new() -> Self {
        HyStart {
            snd_nxt: 0,
            window_end: None,
            last_round_min_rtt: NO_RTT,
            current_round_min_rtt: NO_RTT,
            rtt_sample_count: 0,
            css: None,
        }
    }

    fn on_ack(&mut self, ack_seq: u32, acked_pkts: u32, rtt_ps: u64) -> SlowStartAck {
        if self.window_end.is_none_or(|e| ack_seq > e) {
            // A new round: the first packet sent after the last one began is acknowledged
            // (Linux `hystart_update`: snd_una after end_seq).
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = NO_RTT;
            self.rtt_sample_count = 0;
            self.window_end = Some(self.snd_nxt);
            if let Some((_, rounds)) = self.css.as_mut() {
                *rounds += 1;
                if *rounds >= CSS_ROUNDS {
                    return SlowStartAck::Exit;
                }
            }
        }
        self.current_round_min_rtt = self.current_round_min_rtt.min(rtt_ps);
        self.rtt_sample_count += 1;
        let n = acked_pkts.min(L) as f64;
        let enough = self.rtt_sample_count >= N_RTT_SAMPLE;
        match self.css {
            None => {
                if enough && self.current_round_min_rtt != NO_RTT && self.last_round_min_rtt != NO_RTT {
                    let thresh =
                        MIN_RTT_THRESH.max((self.last_round_min_rtt / MIN_RTT_DIVISOR).min(MAX_RTT_THRESH));
                    if self.current_round_min_rtt >= self.last_round_min_rtt.saturating_add(thresh) {
                        self.css = Some((self.current_round_min_rtt, 0));
                    }
                }
                SlowStartAck::Grow(n)
            }
            Some((baseline, _)) => {
                if enough && self.current_round_min_rtt < baseline {
                    // The delay increase was spurious: back to slow start.
                    self.css = None;
                }
                SlowStartAck::Grow(n / CSS_GROWTH_DIVISOR)
            }
        }
    }
}

/// CUBIC's per-flow state. Windows in segments.
#[derive(Clone, Debug)]
pub struct Cubic {
    /// Segment size, bytes.
    mss: f64,
    /// Maximum window, segments.
    max: f64,
    c: f64,
    beta: f64,
    /// alpha_cubic = 3 (1 - beta) / (1 + beta).
    alpha: f64,
    fast_convergence: bool,
    reno_friendly: bool,
    cwnd: f64,
    ssthresh: f64,
    /// W_max; 0 while unknown (before the first congestion event and after a timeout).
    w_max: f64,
    /// cwnd when ssthresh was last set (0 before).
    cwnd_prior: f64,
    /// K of the current epoch, seconds.
    k: f64,
    /// Start of the congestion-avoidance stage; `None` outside one.
    epoch: Option<SimTime>,
    /// W_est, the Reno-friendly estimate.
    w_est: f64,
    /// Smoothed RTT, picoseconds (0 before the first sample).
    srtt_ps: u64,
    /// In fast recovery.
    recovering: bool,
    /// The current recovery uses SACK's pipe (no inflation, no deflation).
    pipe: bool,
    /// HyStart++ during the initial slow start.
    hystart: Option<HyStart>,
}

impl Cubic {
    pub fn new(cfg: &CubicConfig, mss: u64, max_window: u32) -> Self {
        let max = max_window as f64;
        Cubic {
            mss: mss as f64,
            max,
            c: cfg.c,
            beta: cfg.beta,
            alpha: 3.0 * (1.0 - cfg.beta) / (1.0 + cfg.beta),
            fast_convergence: cfg.fast_convergence,
            reno_friendly: cfg.reno_friendly,
            cwnd: (cfg.initial_window.max(1) as f64).min(max),
            ssthresh: cfg.initial_ssthresh.unwrap_or(max_window) as f64,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch: None,
            w_est: 0.0,
            srtt_ps: 0,
            recovering: false,
            pipe: false,
            hystart: cfg.hystart.then(HyStart::new),
        }
    }

    /// W_cubic(t), segments (RFC 9438 equation 1); t in seconds since the epoch began.
    fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        self.c * d * d * d + self.w_max
    }

    /// Begins a congestion-avoidance stage at `now` (RFC 9438 sections 4.2, 4.3, 4.8, 4.10).
    fn start_epoch(&mut self, now: SimTime) {
        self.epoch = Some(now);
        if self.w_max <= self.cwnd {
            self.w_max = self.cwnd;
            self.k = 0.0;
        } else {
            self.k = ((self.w_max - self.cwnd) / self.c).cbrt();
        }
        if self.cwnd_prior == 0.0 {
            // The first slow start ended without a congestion event.
            self.cwnd_prior = self.cwnd;
        }
        self.w_est = self.cwnd;
    }

    fn congestion_avoidance(&mut self, now: SimTime, acked: f64) {
        let start = match self.epoch {
            Some(e) => e,
            None => {
                self.start_epoch(now);
                now
            }
        };
        let t = (now - start).as_secs_f64();
        if self.reno_friendly {
            let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { self.alpha };
            self.w_est += alpha * acked / self.cwnd;
            if self.w_cubic(t) < self.w_est {
                self.cwnd = self.cwnd.max(self.w_est).min(self.max);
                return;
            }
        }
        let rtt = self.srtt_ps as f64 / 1e12;
        let target = self.w_cubic(t + rtt).clamp(self.cwnd, 1.5 * self.cwnd);
        self.cwnd = (self.cwnd + acked * (target - self.cwnd) / self.cwnd).min(self.max);
    }

    fn slow_start(&mut self, s: &AckSample) {
        let grow = match self.hystart.as_mut() {
            None => 1.0,
            Some(h) => match h.on_ack(s.ack_seq, s.acked_pkts, s.rtt.as_ps()) {
                SlowStartAck::Grow(n) => n,
                SlowStartAck::Exit => {
                    // RFC 9406: ssthresh = cwnd; RFC 9438 section 4.10: cwnd_prior = cwnd.
                    self.ssthresh = self.cwnd;
                    self.cwnd_prior = self.cwnd;
                    self.hystart = None;
                    return;
                }
            },
        };
        self.cwnd = (self.cwnd + grow).min(self.ssthresh).min(self.max);
    }

    /// The window in bytes for a value in segments.
    fn bytes(&self, segments: f64) -> u64 {
        (segments * self.mss).round() as u64
    }

    pub fn in_recovery(&self) -> bool {
        self.recovering
    }
}

impl CcPolicy for Cubic {
    type Config = CubicConfig;
    const NAME: &'static str = "cubic";
    const DESCRIPTION: &'static str =
        "CUBIC (RFC 9438): cubic window growth from the last congestion event, beta 0.7, optional HyStart++";
    const EXTRA_SERIES: &'static [&'static str] = &["w_max", "cubic_k"];
    const SACK: bool = true;
    fn build(cfg: &CubicConfig, mss: u64, max_window: u32) -> Self {
        Cubic::new(cfg, mss, max_window)
    }
    fn check(cfg: &CubicConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    /// Every transport parameter, RFC 6298's timer, NewReno's recovery (RFC 6582).
    const LOSS_RECOVERY: LossRecoveryParams =
        LossRecoveryParams { recovery: Recovery::NewReno, ..LossRecoveryParams::RFC6298 };
}

impl CongestionControl for Cubic {
    #[inline]
    fn on_packet_sent(&mut self, s: &SendSample) {
        if let Some(h) = self.hystart.as_mut() {
            h.snd_nxt = h.snd_nxt.max(s.seq + 1);
        }
    }

    fn on_ack(&mut self, s: &AckSample) {
        // RFC 6298 section 2: SRTT <- R, then SRTT <- 7/8 SRTT + 1/8 R.
        let r = s.rtt.as_ps();
        self.srtt_ps = if self.srtt_ps == 0 { r } else { self.srtt_ps - self.srtt_ps / 8 + r / 8 };
        if self.recovering {
            if s.recovery == RecoveryAck::Partial {
                if !self.pipe {
                    // RFC 6582 step 5: deflate by the amount acked, add back one segment.
                    self.cwnd = (self.cwnd - s.acked_pkts as f64).max(1.0) + 1.0;
                }
                return;
            }
            self.cwnd = self.ssthresh;
            self.recovering = false;
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start(s);
        } else {
            self.congestion_avoidance(s.now, s.acked_pkts as f64);
        }
    }

    fn on_dup_ack(&mut self, _now: SimTime) {
        if self.recovering && !self.pipe {
            self.cwnd += 1.0;
        }
    }

    fn on_congestion(&mut self, s: &CongestionSample) {
        let reduced = self.cwnd * self.beta;
        let ssthresh = reduced.max(2.0);
        self.epoch = None;
        self.hystart = None;
        match s.cause {
            Cause::Timeout => {
                if !s.rto_repeat && !self.recovering {
                    self.ssthresh = ssthresh;
                    self.cwnd_prior = self.cwnd;
                }
                self.cwnd = 1.0;
                self.w_max = 0.0;
                self.recovering = false;
            }
            Cause::FastRetransmit | Cause::Ecn => {
                self.w_max = if self.fast_convergence && self.cwnd < self.w_max {
                    self.cwnd * (1.0 + self.beta) / 2.0
                } else {
                    self.cwnd
                };
                self.cwnd_prior = self.cwnd;
                self.ssthresh = ssthresh;
                if s.cause == Cause::Ecn {
                    self.cwnd = reduced.max(1.0);
                } else {
                    self.pipe = s.pipe;
                    self.recovering = true;
                    self.cwnd = if s.pipe { ssthresh } else { ssthresh + s.dupack_threshold as f64 };
                }
            }
        }
    }

    #[inline]
    fn metrics(&self) -> CcMetrics {
        let mut m = CcMetrics::window(self.bytes(self.cwnd)).with_ssthresh(self.bytes(self.ssthresh));
        if self.w_max > 0.0 {
            m = m.with_extra(0, "w_max", self.w_max);
        }
        if self.epoch.is_some() {
            m = m.with_extra(1, "cubic_k", self.k);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::time::SimDuration;
    use crate::cc::test_util::ack;

    /// Segments of 1000 bytes, a maximum window of 1000 packets.
    fn cubic(cfg: CubicConfig) -> Cubic {
        Cubic::new(&cfg, 1000, 1000)
    }

    /// An ack of `acked` packets at `t_ms` with an RTT sample of `rtt_ms`.
    fn ack_at(cc: &mut Cubic, t_us: u64, rtt_us: u64, acked: u32, recovery: RecoveryAck) {
        cc.on_ack(&AckSample {
            now: SimTime::from_ps(t_us * 1_000_000),
            acked_pkts: acked,
            rtt: SimDuration::from_micros(rtt_us),
            in_flight_pkts: 0,
            sent: SimTime::ZERO,
            flags: 0,
            ack_seq: 0,
            recovery,
        });
    }

    fn congestion(cc: &mut Cubic, cause: Cause, in_flight: u32, pipe: bool) {
        cc.on_congestion(&CongestionSample {
            now: SimTime::ZERO,
            cause,
            in_flight_pkts: in_flight,
            pipe,
            rto_repeat: false,
            dupack_threshold: 3,
        });
    }

    /// In slow start from 10 segments to `w` (one segment per ack, 100 ms samples).
    fn at(cfg: CubicConfig, w: u32) -> Cubic {
        let mut cc = cubic(cfg);
        for _ in 10..w {
            ack(&mut cc, 0);
        }
        assert_eq!(cc.cwnd(), w as u64 * 1000);
        cc
    }

    /// cwnd 100 segments, a SACK fast retransmit with all 100 in flight, and the ack
    /// that ends the recovery: ssthresh = cwnd = 70, W_max = 100.
    fn after_loss_at_100(cfg: CubicConfig) -> Cubic {
        let mut cc = at(cfg, 100);
        congestion(&mut cc, Cause::FastRetransmit, 100, true);
        ack_at(&mut cc, 1_000_000, 100_000, 10, RecoveryAck::Exit);
        cc
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn defaults_are_rfc_9438s_and_linuxs() {
        let cfg = CubicConfig::default();
        assert_eq!((cfg.c, cfg.beta, cfg.fast_convergence, cfg.reno_friendly), (0.4, 0.7, true, true));
        assert_eq!((cfg.initial_window, cfg.initial_ssthresh, cfg.hystart), (10, None, false));
        let cc = cubic(cfg);
        // 10 segments; ssthresh the maximum window, 1000 segments.
        assert_eq!((cc.cwnd(), cc.ssthresh()), (10_000, Some(1_000_000)));
        // alpha_cubic = 3 x 0.3 / 1.7 = 0.5294...
        assert!(close(cc.alpha, 0.9 / 1.7));
        assert_eq!(cc.metrics().extra, [None, None], "no W_max, no epoch yet");
    }

    #[test]
    fn parameters_are_read_and_checked_by_name() {
        let cfg: CubicConfig = toml::from_str("c = 0.8\nbeta = 0.5\nhystart = true").unwrap();
        assert_eq!((cfg.c, cfg.beta, cfg.hystart, cfg.initial_window), (0.8, 0.5, true, 10));
        assert!(toml::from_str::<CubicConfig>("alpha = 1").is_err(), "unknown parameters are refused");
        let bad = |f: fn(&mut CubicConfig)| {
            let mut c = CubicConfig::default();
            f(&mut c);
            c.check().unwrap_err()
        };
        let (field, msg) = bad(|c| c.beta = 1.0);
        assert_eq!(field, "beta");
        assert!(msg.contains("(0, 1)") && msg.contains("0.7"), "{msg}");
        assert_eq!(bad(|c| c.beta = 0.0).0, "beta");
        let (field, msg) = bad(|c| c.c = 0.0);
        assert_eq!(field, "c");
        assert!(msg.contains("0.4"), "{msg}");
        assert_eq!(bad(|c| c.c = f64::INFINITY).0, "c");
        assert_eq!(bad(|c| c.initial_window = 0).0, "initial_window");
        assert_eq!(bad(|c| c.initial_ssthresh = Some(0)).0, "initial_ssthresh");
    }

    #[test]
    fn slow_start_adds_one_segment_per_ack_up_to_ssthresh() {
        let cfg = CubicConfig { initial_ssthresh: Some(12), ..Default::default() };
        let mut cc = cubic(cfg);
        // RFC 5681: min(N, SMSS) per ack, whatever the ack covers: 10 + 1 = 11.
        ack_at(&mut cc, 0, 100_000, 4, RecoveryAck::None);
        assert_eq!(cc.cwnd(), 11_000);
        ack(&mut cc, 0);
        assert_eq!(cc.cwnd(), 12_000);
        assert!(cc.epoch.is_none(), "still slow start at the ack that reaches ssthresh");
    }

    #[test]
    fn a_loss_keeps_beta_of_cwnd_and_sets_w_max() {
        let mut cc = at(CubicConfig::default(), 100);
        // Without SACK: ssthresh = 0.7 x 100 = 70, cwnd inflated by the 3 duplicate acks.
        congestion(&mut cc, Cause::FastRetransmit, 100, false);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (73_000, Some(70_000)));
        assert!(cc.in_recovery());
        assert_eq!(cc.metrics().extra[0], Some(("w_max", 100.0)));
        assert_eq!(cc.cwnd_prior, 100.0);
        cc.on_dup_ack(SimTime::ZERO);
        assert_eq!(cc.cwnd(), 74_000);
        // A partial ack of 5: 74 - 5 + 1 = 70 (RFC 6582 step 5); the full ack: ssthresh.
        ack_at(&mut cc, 0, 100_000, 5, RecoveryAck::Partial);
        assert_eq!(cc.cwnd(), 70_000);
        assert!(cc.in_recovery());
        ack_at(&mut cc, 0, 100_000, 20, RecoveryAck::Exit);
        assert_eq!(cc.cwnd(), 70_000);
        assert!(!cc.in_recovery());
        // With SACK's pipe: cwnd = ssthresh at once, no inflation or deflation.
        let mut s = at(CubicConfig::default(), 100);
        congestion(&mut s, Cause::FastRetransmit, 100, true);
        assert_eq!(s.cwnd(), 70_000);
        s.on_dup_ack(SimTime::ZERO);
        ack_at(&mut s, 0, 100_000, 5, RecoveryAck::Partial);
        assert_eq!(s.cwnd(), 70_000);
        // cwnd, not FlightSize: 90 or 300 in flight of cwnd 100 give 0.7 x 100 = 70 too.
        for flight in [90, 300] {
            let mut f = at(CubicConfig::default(), 100);
            congestion(&mut f, Cause::FastRetransmit, flight, true);
            assert_eq!((f.cwnd(), f.ssthresh()), (70_000, Some(70_000)));
        }
        // At least 2 segments: 0.7 x 2 = 1.4 -> 2.
        let mut t = cubic(CubicConfig { initial_window: 2, ..Default::default() });
        congestion(&mut t, Cause::FastRetransmit, 2, true);
        assert_eq!((t.cwnd(), t.ssthresh()), (2000, Some(2000)));
    }

    #[test]
    fn k_is_the_cube_root_of_w_max_times_1_minus_beta_over_c() {
        let mut cc = after_loss_at_100(CubicConfig::default());
        assert!(cc.epoch.is_none(), "the epoch starts with congestion avoidance");
        ack_at(&mut cc, 2_000_000, 100_000, 1, RecoveryAck::None);
        // K = cbrt((W_max - cwnd_epoch) / C) = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.2172 s.
        assert!(close(cc.k, 4.217163326508746), "{}", cc.k);
        assert_eq!(cc.metrics().extra[1], Some(("cubic_k", cc.k)));
        // W_cubic(0) = 0.4 (-4.2172)^3 + 100 = 100 - 30 = 70; W_cubic(1) = 0.4 (-3.2172)^3
        // + 100 = 100 - 13.319 = 86.681; W_cubic(K + 1) = 0.4 + 100.
        assert!(close(cc.w_cubic(0.0), 70.0));
        assert!(close(cc.w_cubic(1.0), 86.68076383512988));
        assert!(close(cc.w_cubic(cc.k + 1.0), 100.4));
        // A larger C shortens K: cbrt(30 / 0.8) = cbrt(37.5) = 3.3472 s.
        let mut c8 = after_loss_at_100(CubicConfig { c: 0.8, ..Default::default() });
        ack_at(&mut c8, 2_000_000, 100_000, 1, RecoveryAck::None);
        assert!(close(c8.k, 3.3471647504108244), "{}", c8.k);
    }

    #[test]
    fn concave_growth_per_ack_follows_the_target_one_rtt_ahead() {
        let cfg = CubicConfig { reno_friendly: false, ..Default::default() };
        let mut cc = after_loss_at_100(cfg);
        // The epoch starts at 2 s; srtt 100 ms. target = W_cubic(0.1) = 0.4 (0.1 -
        // 4.2172)^3 + 100 = 72.0839; cwnd = 70 + (72.0839 - 70) / 70 = 70.02977.
        ack_at(&mut cc, 2_000_000, 100_000, 1, RecoveryAck::None);
        assert!(close(cc.cwnd, 70.0297704288968), "{}", cc.cwnd);
        assert_eq!(cc.cwnd(), 70_030);
        // One second later: target = W_cubic(1.1) = 87.8846; + (87.8846 - 70.02977) /
        // 70.02977 = 0.25496 -> 70.28473.
        ack_at(&mut cc, 3_000_000, 100_000, 1, RecoveryAck::None);
        assert!(close(cc.cwnd, 70.28473062827051), "{}", cc.cwnd);
        // Two segments acked double the step (Linux counts acked segments).
        let mut two = after_loss_at_100(CubicConfig { reno_friendly: false, ..Default::default() });
        ack_at(&mut two, 2_000_000, 100_000, 2, RecoveryAck::None);
        assert!(close(two.cwnd, 70.0 + 2.0 * 2.08393002277595 / 70.0), "{}", two.cwnd);
    }

    #[test]
    fn convex_growth_after_a_timeout_has_k_zero_and_the_target_capped_at_1_5_cwnd() {
        let cfg = CubicConfig { reno_friendly: false, ..Default::default() };
        let mut cc = at(cfg.clone(), 100);
        congestion(&mut cc, Cause::Timeout, 100, false);
        // ssthresh = 0.7 x 100 = 70, cwnd 1 segment, W_max forgotten.
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, Some(70_000)));
        assert_eq!(cc.metrics().extra, [None, None]);
        for _ in 1..70 {
            ack(&mut cc, 0);
        }
        assert_eq!(cc.cwnd(), 70_000);
        // The first congestion-avoidance ack: K = 0 and W_max = 70 (RFC 9438 section 4.8).
        // target = W_cubic(0.1) = 0.4 x 0.001 + 70 = 70.0004; cwnd = 70 + 0.0004 / 70.
        ack_at(&mut cc, 5_000_000, 100_000, 1, RecoveryAck::None);
        assert_eq!((cc.k, cc.w_max), (0.0, 70.0));
        assert!(close(cc.cwnd, 70.00000571428572), "{}", cc.cwnd);
        // Two seconds in: target = W_cubic(2.1) = 0.4 x 9.261 + 70 = 73.7044; + (73.7044 -
        // 70.0000057) / 70.0000057 = 0.0529199 -> 70.0529256.
        ack_at(&mut cc, 7_000_000, 100_000, 1, RecoveryAck::None);
        assert!(close(cc.cwnd, 70.05292562833307), "{}", cc.cwnd);
        // Ten seconds in: W_cubic(10.1) = 0.4 x 1030.3 + 70 = 482.1, above 1.5 cwnd =
        // 105.08; the step is (1.5 cwnd - cwnd) / cwnd = 0.5 segment.
        ack_at(&mut cc, 15_000_000, 100_000, 1, RecoveryAck::None);
        assert!(close(cc.cwnd, 70.05292562833307 + 0.5), "{}", cc.cwnd);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_fell_short_of_it() {
        let mut cc = after_loss_at_100(CubicConfig::default());
        // A second loss at cwnd 80 < W_max = 100: W_max = 80 x (1 + 0.7) / 2 = 68,
        // ssthresh = 0.7 x 80 = 56, K = cbrt((68 - 56) / 0.4) = cbrt(30) = 3.1072 s.
        cc.cwnd = 80.0;
        congestion(&mut cc, Cause::FastRetransmit, 80, true);
        assert!(close(cc.w_max, 68.0), "{}", cc.w_max);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (56_000, Some(56_000)));
        ack_at(&mut cc, 3_000_000, 100_000, 1, RecoveryAck::Exit);
        ack_at(&mut cc, 3_100_000, 100_000, 1, RecoveryAck::None);
        assert!(close(cc.k, 3.1072325059538586), "{}", cc.k);
        // Without fast convergence W_max = 80, K = cbrt(24 / 0.4) = cbrt(60) = 3.9149 s.
        let mut nf = after_loss_at_100(CubicConfig { fast_convergence: false, ..Default::default() });
        nf.cwnd = 80.0;
        congestion(&mut nf, Cause::FastRetransmit, 80, true);
        assert_eq!(nf.w_max, 80.0);
        ack_at(&mut nf, 3_000_000, 100_000, 1, RecoveryAck::Exit);
        ack_at(&mut nf, 3_100_000, 100_000, 1, RecoveryAck::None);
        assert!(close(nf.k, 3.9148676411688634), "{}", nf.k);
        // A loss above W_max sets W_max = cwnd either way.
        let mut up = after_loss_at_100(CubicConfig::default());
        up.cwnd = 120.0;
        congestion(&mut up, Cause::FastRetransmit, 120, true);
        assert_eq!(up.w_max, 120.0);
    }

    #[test]
    fn the_reno_friendly_region_takes_over_at_a_small_window_and_rtt() {
        // cwnd 10, a loss: W_max = 10, cwnd 7, K = cbrt(3 / 0.4) = cbrt(7.5) = 1.957 s;
        // RTT 1 ms, so Reno gains 0.53 segment a millisecond-long round trip while
        // W_cubic barely moves.
        let run = |reno_friendly: bool| {
            let mut cc = cubic(CubicConfig { reno_friendly, ..Default::default() });
            congestion(&mut cc, Cause::FastRetransmit, 10, true);
            ack_at(&mut cc, 0, 1000, 1, RecoveryAck::Exit);
            ack_at(&mut cc, 1000, 1000, 1, RecoveryAck::None);
            let first = cc.cwnd;
            for i in 2..=100 {
                ack_at(&mut cc, 1000 * i, 1000, 1, RecoveryAck::None);
            }
            (first, cc)
        };
        let (first, on) = run(true);
        // W_est = 7 + 0.5294 x 1 / 7 = 7.07563 > W_cubic(0) = 7: cwnd = W_est.
        assert!(close(first, 7.07563025210084), "{first}");
        // Without it: target = W_cubic(0.001) = 0.4 (0.001 - 1.9574)^3 + 10 = 7.004596;
        // cwnd = 7 + 0.004596 / 7 = 7.000657.
        let (first_off, off) = run(false);
        assert!(close(first_off, 7.000656501153397), "{first_off}");
        // 99 more acks over 99 ms: W_est gains at least 99 x 0.5294 / 15 = 3.5 segments
        // (cwnd stays below 15), so it passes W_max = 10 while W_cubic(0.1) = 0.4 (0.1 -
        // 1.9574)^3 + 10 = 7.437 (and the cubic flow's cwnd, chasing W_cubic(t + 1 ms),
        // stays below 7.5).
        assert!(on.cwnd > 10.5 && on.cwnd < 15.0, "{}", on.cwnd);
        assert_eq!(on.cwnd, on.w_est, "cwnd is W_est in the Reno-friendly region");
        assert!(off.cwnd > 7.0 && off.cwnd < 7.5, "{}", off.cwnd);
    }

    #[test]
    fn alpha_becomes_1_once_w_est_reaches_cwnd_prior() {
        let mut cc = after_loss_at_100(CubicConfig::default());
        // cwnd_prior = 100. With W_est at 99.9: 99.9 + 0.5294 / 70 = 99.90756.
        cc.start_epoch(SimTime::from_secs(2));
        cc.w_est = 99.9;
        cc.congestion_avoidance(SimTime::from_secs(2), 1.0);
        assert!(close(cc.w_est, 99.9 + 0.9 / 1.7 / 70.0), "{}", cc.w_est);
        // At 100: 100 + 1 / cwnd.
        cc.w_est = 100.0;
        let cwnd = cc.cwnd;
        cc.congestion_avoidance(SimTime::from_secs(2), 1.0);
        assert!(close(cc.w_est, 100.0 + 1.0 / cwnd), "{}", cc.w_est);
    }

    #[test]
    fn an_ecn_echo_reduces_like_a_loss_without_recovery() {
        let mut cc = at(CubicConfig::default(), 100);
        congestion(&mut cc, Cause::Ecn, 100, false);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (70_000, Some(70_000)));
        assert!(!cc.in_recovery());
        assert_eq!(cc.w_max, 100.0);
        // Congestion avoidance at the next ack: the epoch starts, K = cbrt(75).
        ack_at(&mut cc, 1_000_000, 100_000, 1, RecoveryAck::None);
        assert!(close(cc.k, 4.217163326508746));
        // At 2 segments: ssthresh max(1.4, 2) = 2, cwnd max(1.4, 1) = 1.4 (RFC 9438
        // figure 5), so slow start resumes below ssthresh.
        let mut small = cubic(CubicConfig { initial_window: 2, ..Default::default() });
        congestion(&mut small, Cause::Ecn, 2, false);
        assert_eq!((small.cwnd(), small.ssthresh()), (1400, Some(2000)));
    }

    #[test]
    fn timeouts_in_recovery_or_repeated_keep_ssthresh() {
        let mut cc = at(CubicConfig::default(), 100);
        congestion(&mut cc, Cause::FastRetransmit, 100, false); // ssthresh 70
        for _ in 0..50 {
            cc.on_dup_ack(SimTime::ZERO); // cwnd 73 + 50 = 123
        }
        // Not 0.7 x 123 = 86.1 from the inflated window: the recovery's 70 stays.
        congestion(&mut cc, Cause::Timeout, 150, false);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, Some(70_000)));
        assert!(!cc.in_recovery());
        // A repeated timeout keeps it whatever is in flight.
        cc.on_congestion(&CongestionSample {
            now: SimTime::ZERO,
            cause: Cause::Timeout,
            in_flight_pkts: 10,
            pipe: false,
            rto_repeat: true,
            dupack_threshold: 3,
        });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, Some(70_000)));
        assert_eq!(cc.cwnd_prior, 100.0, "set at the fast retransmit");
    }

    /// An ack in slow start for HyStart++: `ack_seq`, one packet, an RTT sample.
    fn hs_ack(cc: &mut Cubic, ack_seq: u32, rtt_ms: u64) {
        cc.on_ack(&AckSample {
            now: SimTime::ZERO,
            acked_pkts: 1,
            rtt: SimDuration::from_millis(rtt_ms),
            in_flight_pkts: 0,
            sent: SimTime::ZERO,
            flags: 0,
            ack_seq,
            recovery: RecoveryAck::None,
        });
    }

    fn sent(cc: &mut Cubic, seq: u32) {
        cc.on_packet_sent(&SendSample { now: SimTime::ZERO, seq, retransmission: false });
    }

    /// A round: the packets `from..to` sent before it are acked one by one with `rtt_ms`,
    /// each ack sending two more (slow start's growth).
    fn round(cc: &mut Cubic, from: u32, to: u32, rtt_ms: u64) -> u32 {
        let mut next = to;
        for seq in from..to {
            hs_ack(cc, seq + 1, rtt_ms);
            sent(cc, next);
            sent(cc, next + 1);
            next += 2;
        }
        next
    }

    #[test]
    fn hystart_plus_plus_enters_css_on_a_delay_increase_and_ends_slow_start_after_5_rounds() {
        let mut cc = cubic(CubicConfig { hystart: true, ..Default::default() });
        for seq in 0..10 {
            sent(&mut cc, seq);
        }
        // Round 1: packets 0..10, RTT 100 ms; cwnd 10 -> 20 (min(1, L = 8) each).
        let end = round(&mut cc, 0, 10, 100);
        assert_eq!((cc.cwnd(), end), (20_000, 30));
        // Round 2: packets 10..30 at 112 ms. RttThresh = max(4, min(100 / 8, 16)) = 12.5
        // ms: 112 < 112.5, no exit: cwnd 20 -> 40.
        let end = round(&mut cc, 10, 30, 112);
        assert_eq!(cc.cwnd(), 40_000);
        assert!(cc.hystart.as_ref().unwrap().css.is_none());
        // Round 3: at 127 ms >= 112 + 14 (112 / 8): after the 8th sample (which still
        // grows a whole segment) CSS, a quarter segment per ack: 40 + 8 + 32 / 4 = 56.
        let end = round(&mut cc, 30, end, 127);
        let h = cc.hystart.as_ref().unwrap();
        assert_eq!(h.css, Some((127_000_000_000, 0)));
        assert_eq!(cc.cwnd(), 56_000);
        // Rounds 4 to 7 in CSS (4 ended: the partial round 3 counts), at 130 ms.
        let mut from = 30 + 40;
        let mut end = end;
        for r in 1..=4 {
            let before = cc.cwnd;
            let next = round(&mut cc, from, end, 130);
            assert!(close(cc.cwnd - before, (end - from) as f64 / 4.0), "round {r}");
            (from, end) = (end, next);
        }
        let w = cc.cwnd;
        assert!(cc.ssthresh > w, "still slow start");
        // The first ack of the next round ends the fifth: ssthresh = cwnd, cwnd_prior =
        // cwnd, and congestion avoidance with W_max = cwnd, K = 0.
        hs_ack(&mut cc, from + 1, 130);
        assert_eq!((cc.ssthresh, cc.cwnd_prior, cc.cwnd), (w, w, w));
        assert!(cc.hystart.is_none());
        hs_ack(&mut cc, from + 2, 130);
        assert_eq!((cc.w_max, cc.k), (w, 0.0));
    }

    #[test]
    fn hystart_plus_plus_resumes_slow_start_when_the_rtt_falls_below_the_baseline() {
        let mut cc = cubic(CubicConfig { hystart: true, ..Default::default() });
        for seq in 0..10 {
            sent(&mut cc, seq);
        }
        round(&mut cc, 0, 10, 100);
        let end2 = round(&mut cc, 10, 30, 120); // 120 >= 100 + 12.5: CSS after 8 samples
        assert_eq!(cc.hystart.as_ref().unwrap().css, Some((120_000_000_000, 0)));
        // 20 + 8 + 12 / 4 = 31.
        assert_eq!(cc.cwnd(), 31_000);
        // The next round's minimum falls to 110 ms < 120 after 8 samples: slow start again.
        round(&mut cc, 30, end2, 110);
        assert!(cc.hystart.as_ref().unwrap().css.is_none());
        // A loss ends HyStart++ (initial slow start only).
        congestion(&mut cc, Cause::FastRetransmit, 40, true);
        assert!(cc.hystart.is_none());
    }

    #[test]
    fn the_window_never_exceeds_the_maximum() {
        let mut cc = Cubic::new(&CubicConfig::default(), 1000, 12);
        for _ in 0..5 {
            ack(&mut cc, 0);
        }
        assert_eq!(cc.cwnd(), 12_000);
        for t in 0..100 {
            ack(&mut cc, 1000 * t);
        }
        assert_eq!(cc.cwnd(), 12_000);
    }
}
