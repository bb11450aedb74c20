//! "Generic" flow control (Keshav 1991, section 3): a fixed sliding window and a
//! timeout of beta times the exponentially averaged RTT; on timeout every unacknowledged
//! packet is retransmitted (the transport goes back to the first unacknowledged packet).
//! It never changes its window, so it ignores acks and losses.
//!
//! Parameters: `window` (default: the flow's maximum window), `beta` (2, "typically
//! beta ~ 2"), `alpha` (0.875, the RFC 793 smoothing gain; the paper gives none): the
//! timer is what defines this source, so its gains are the policy's own
//! (`CcPolicy::rto_style`). Of the transport's loss-recovery parameters only
//! `initial_rto` (3 s) applies: no fast retransmit.
//!
//! Deviations: the paper does not say how Generic samples the RTT; we take a sample on
//! every ack of new data from the timestamp echo of the packet that triggered it, and we
//! do not back the timer off.

use super::{
    AckSample, CcMetrics, CcPolicy, CongestionControl, CongestionSample, LossRecoveryConfig, LossRecoveryParams,
    RtoStyle,
};
use serde::{Deserialize, Serialize};

/// Parameters of Generic (`[flows.params]`, by these names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GenericConfig {
    /// Fixed window, packets; `None` means the flow's maximum window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    /// Timeout = beta x smoothed RTT.
    pub beta: f64,
    /// Smoothing gain of the RTT average.
    pub alpha: f64,
}

impl GenericConfig {
    /// Checks the values; (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if self.window == Some(0) {
            return Err(("window", "must be a whole number of at least 1".into()));
        }
        if !(self.beta >= 1.0 && self.beta.is_finite()) {
            return Err((
                "beta",
                format!("{}: a timeout shorter than the round trip fires before any ack can return; give at least 1 (Keshav: about 2)", self.beta),
            ));
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(("alpha", format!("{} must be above 0 and below 1", self.alpha)));
        }
        Ok(())
    }
}

impl Default for GenericConfig {
    fn default() -> Self {
        GenericConfig { window: None, beta: 2.0, alpha: 0.875 }
    }
}

#[derive(Clone, Debug)]
pub struct Generic {
    /// The fixed window, bytes.
    cwnd: u64,
}

impl Generic {
    pub fn new(cfg: &GenericConfig, mss: u64, max_window: u32) -> Self {
        let w = cfg.window.unwrap_or(max_window).min(max_window).max(1);
        Generic { cwnd: w as u64 * mss }
    }
}

impl CcPolicy for Generic {
    type Config = GenericConfig;
    const NAME: &'static str = "generic";
    const DESCRIPTION: &'static str = "Keshav's \"generic\" source: a fixed window, timeout beta x smoothed RTT";
    fn build(cfg: &GenericConfig, mss: u64, max_window: u32) -> Self {
        Generic::new(cfg, mss, max_window)
    }
    fn check(cfg: &GenericConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    /// Only the initial timeout (3 s) of the transport's parameters; no fast
    /// retransmit.
    const LOSS_RECOVERY: LossRecoveryParams = LossRecoveryParams { accepts: &["initial_rto"], ..LossRecoveryParams::RFC6298 };
    fn rto_style(cfg: &GenericConfig, _l: &LossRecoveryConfig) -> RtoStyle {
        RtoStyle::Generic { alpha: cfg.alpha, beta: cfg.beta }
    }
}

impl CongestionControl for Generic {
    fn on_ack(&mut self, _s: &AckSample) {}
    fn on_congestion(&mut self, _s: &CongestionSample) {}
    #[inline]
    fn metrics(&self) -> CcMetrics {
        CcMetrics::window(self.cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{ack, loss};
    use crate::cc::Cause;

    #[test]
    fn window_is_fixed_through_acks_and_losses() {
        let mut g = Generic::new(&GenericConfig::default(), 1000, 40);
        assert_eq!(g.cwnd(), 40_000);
        ack(&mut g, 1);
        loss(&mut g, Cause::Timeout);
        loss(&mut g, Cause::Ecn);
        assert_eq!(g.cwnd(), 40_000);
        let l = LossRecoveryConfig::RFC6298;
        let lr = <Generic as CcPolicy>::LOSS_RECOVERY.resolve(&l, <Generic as CcPolicy>::rto_style(&GenericConfig::default(), &l));
        assert_eq!(lr.dupack_threshold, None);
        assert_eq!(lr.rto, RtoStyle::Generic { alpha: 0.875, beta: 2.0 });
    }

    #[test]
    fn explicit_window_is_capped_by_max_window() {
        let cfg = GenericConfig { window: Some(100), ..Default::default() };
        assert_eq!(Generic::new(&cfg, 1000, 40).cwnd(), 40_000);
        let cfg = GenericConfig { window: Some(8), ..Default::default() };
        assert_eq!(Generic::new(&cfg, 1000, 40).cwnd(), 8000);
    }
}
