//! NewReno (RFC 6582): Reno (`reno.rs`) with partial-ack recovery. The same state and
//! parameters as Reno; the transport recovers from partial acks (RFC 6582 section 3.2,
//! `LossRecovery::recovery`) and Reno deflates on them. This wrapper gives it its own
//! entry in the registry.

use super::{
    AckSample, CcMetrics, CcPolicy, CongestionControl, CongestionSample, Feedback, LossRecoveryParams, Recovery,
    RenoConfig, SendSample,
};
use crate::base::time::SimTime;

#[derive(Clone, Debug)]
pub struct NewReno(pub super::Reno);

impl CcPolicy for NewReno {
    type Config = RenoConfig;
    const NAME: &'static str = "newreno";
    const DESCRIPTION: &'static str = "Reno with RFC 6582's partial-ack recovery";
    const SACK: bool = true;
    fn build(cfg: &RenoConfig, mss: u64, max_window: u32) -> Self {
        NewReno(super::Reno::new(cfg, mss, max_window))
    }
    // Parameters, checks and timer are Reno's; the transport recovers by RFC 6582.
    fn check(cfg: &RenoConfig) -> Result<(), (&'static str, String)> {
        <super::Reno as CcPolicy>::check(cfg)
    }
    const LOSS_RECOVERY: LossRecoveryParams =
        LossRecoveryParams { recovery: Recovery::NewReno, ..<super::Reno as CcPolicy>::LOSS_RECOVERY };
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
