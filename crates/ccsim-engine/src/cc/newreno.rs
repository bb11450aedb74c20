//! NewReno (RFC 6582): Reno (`reno.rs`) with partial-ack recovery. The same state and
//! parameters as Reno, built with `Reno::new_reno`; this wrapper gives it its own entry
//! in the registry.

use super::{
    AckSample, CcMetrics, CcPolicy, CongestionControl, CongestionSample, Feedback, Recovery, RenoConfig, RtoStyle,
    SendSample,
};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug)]
pub struct NewReno(pub super::Reno);

impl CcPolicy for NewReno {
    type Config = RenoConfig;
    const NAME: &'static str = "newreno";
    const DESCRIPTION: &'static str = "Reno with RFC 6582's partial-ack recovery";
    fn build(cfg: &RenoConfig, mss: u64, max_window: u32) -> Self {
        NewReno(super::Reno::new_reno(cfg, mss, max_window))
    }
    // Parameters, checks and timer are Reno's.
    fn check(cfg: &RenoConfig) -> Result<(), (&'static str, String)> {
        <super::Reno as CcPolicy>::check(cfg)
    }
    fn rto_style(cfg: &RenoConfig) -> RtoStyle {
        <super::Reno as CcPolicy>::rto_style(cfg)
    }
    fn initial_rto(cfg: &RenoConfig) -> SimDuration {
        <super::Reno as CcPolicy>::initial_rto(cfg)
    }
}

impl CongestionControl for NewReno {
    #[inline]
    fn on_packet_sent(&mut self, s: &SendSample) {
        self.0.on_packet_sent(s)
    }
    #[inline]
    fn on_ack(&mut self, s: &AckSample) {
        self.0.on_ack(s)
    }
    #[inline]
    fn on_dup_ack(&mut self, now: SimTime) {
        self.0.on_dup_ack(now)
    }
    #[inline]
    fn on_congestion(&mut self, s: &CongestionSample) {
        self.0.on_congestion(s)
    }
    #[inline]
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
        self.0.on_feedback(now, fb)
    }
    #[inline]
    fn metrics(&self) -> CcMetrics {
        self.0.metrics()
    }
    #[inline]
    fn dupack_threshold(&self) -> Option<u32> {
        self.0.dupack_threshold()
    }
    #[inline]
    fn recovery(&self) -> Recovery {
        self.0.recovery()
    }
    #[inline]
    fn cwnd(&self) -> u64 {
        self.0.cwnd()
    }
    #[inline]
    fn ssthresh(&self) -> Option<u64> {
        self.0.ssthresh()
    }
    #[inline]
    fn pacing_rate(&self) -> Option<u64> {
        self.0.pacing_rate()
    }
}
