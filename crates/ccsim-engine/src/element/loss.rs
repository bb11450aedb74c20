//! Random loss on a channel, from the element's own seeded stream.
//!
//! - Bernoulli: each arriving packet is lost with probability `p`, independently.
//! - Gilbert-Elliott (Gilbert 1960, Elliott 1963): a two-state Markov chain stepped once
//!   per arriving packet; in state Good a packet is lost with probability `loss_good`, in
//!   Bad with `loss_bad`; after each packet the chain moves Good -> Bad with probability
//!   `p_gb` and Bad -> Good with `p_bg`. The stationary loss rate is
//!   (p_bg loss_good + p_gb loss_bad) / (p_gb + p_bg). It starts in Good.
//!
//! Lost packets are dropped before the queue discipline (`DropReason::RandomLoss`),
//! i.e. the loss models a corrupting line in front of the interface. Which kinds of
//! packets it applies to is a parameter (all by default).

use super::Names;
use super::{ElemCx, ElemVerdict, Element, ElementPolicy};
use crate::base::rng::Rng;
use crate::packet::{Packet, PacketKind};
use crate::qdisc::DropReason;
use serde::{Deserialize, Serialize};

// Named like the enum variants they stand beside (`DropReason::Overflow`).
#[allow(non_upper_case_globals)]
impl DropReason {
    /// A random-loss element.
    pub const RandomLoss: DropReason = DropReason::element_named("random_loss");
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossConfig {
    /// Bernoulli loss probability (ignored by Gilbert-Elliott).
    #[serde(default)]
    pub p: f64,
    /// "bernoulli" (default) or "gilbert_elliott".
    #[serde(default)]
    pub model: LossModel,
    /// Gilbert-Elliott: probability of moving Good -> Bad after a packet.
    #[serde(default)]
    pub p_gb: f64,
    /// Gilbert-Elliott: probability of moving Bad -> Good after a packet.
    #[serde(default)]
    pub p_bg: f64,
    /// Gilbert-Elliott: loss probability in Good. Default 0.
    #[serde(default)]
    pub loss_good: f64,
    /// Gilbert-Elliott: loss probability in Bad. Default 1.
    #[serde(default = "one")]
    pub loss_bad: f64,
    /// Only packets of this kind ("data", "ack", "control"); default all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<OnlyKind>,
}

fn one() -> f64 {
    1.0
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossModel {
    #[default]
    Bernoulli,
    GilbertElliott,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnlyKind {
    Data,
    Ack,
    Control,
}

impl LossConfig {
    /// Checks the probabilities; returns (field, message) for the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        for (name, v) in [
            ("p", self.p),
            ("p_gb", self.p_gb),
            ("p_bg", self.p_bg),
            ("loss_good", self.loss_good),
            ("loss_bad", self.loss_bad),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err((name, format!("{v} is not a probability; give a number in [0, 1]")));
            }
        }
        if self.model == LossModel::GilbertElliott && self.p_gb + self.p_bg == 0.0 {
            return Err(("p_gb", "Gilbert-Elliott needs p_gb or p_bg above 0".into()));
        }
        Ok(())
    }

    /// The long-run fraction of packets lost.
    pub fn loss_rate(&self) -> f64 {
        match self.model {
            LossModel::Bernoulli => self.p,
            LossModel::GilbertElliott => {
                (self.p_bg * self.loss_good + self.p_gb * self.loss_bad) / (self.p_gb + self.p_bg)
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct RandomLoss {
    cfg: LossConfig,
    rng: Rng,
    /// Gilbert-Elliott state.
    bad: bool,
    /// Packets this element dropped.
    pub lost: u64,
}

/// What random loss reports.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LossReport {
    pub lost_pkts: u64,
}

impl ElementPolicy for RandomLoss {
    type Config = LossConfig;
    type Report<'a> = LossReport;
    const NAME: &'static str = "random_loss";
    const DESCRIPTION: &'static str =
        "random loss of arriving packets, Bernoulli or Gilbert-Elliott, from the element's own stream";
    const DROP_REASONS: &'static [&'static str] = &["random_loss"];
    fn build(cfg: &LossConfig, rng: Rng, _to: Option<u32>) -> Self {
        RandomLoss::new(cfg.clone(), rng)
    }
    fn check(cfg: &LossConfig) -> Result<(), (&'static str, String)> {
        cfg.check()
    }
    fn report(&self, _names: &dyn Names) -> LossReport {
        LossReport { lost_pkts: self.lost }
    }
}

impl RandomLoss {
    pub fn new(cfg: LossConfig, rng: Rng) -> Self {
        RandomLoss { cfg, rng, bad: false, lost: 0 }
    }
}

impl Element for RandomLoss {
    fn on_arrival(&mut self, _cx: &mut ElemCx, pkt: &mut Packet) -> ElemVerdict {
        if let Some(k) = self.cfg.only {
            let want = match k {
                OnlyKind::Data => PacketKind::Data,
                OnlyKind::Ack => PacketKind::Ack,
                OnlyKind::Control => PacketKind::Control,
            };
            if pkt.kind != want {
                return ElemVerdict::Pass;
            }
        }
        let p = match self.cfg.model {
            LossModel::Bernoulli => self.cfg.p,
            LossModel::GilbertElliott => {
                if self.bad {
                    self.cfg.loss_bad
                } else {
                    self.cfg.loss_good
                }
            }
        };
        let lost = p > 0.0 && self.rng.next_f64() < p;
        if self.cfg.model == LossModel::GilbertElliott {
            let flip = if self.bad { self.cfg.p_bg } else { self.cfg.p_gb };
            if self.rng.next_f64() < flip {
                self.bad = !self.bad;
            }
        }
        if lost {
            self.lost += 1;
            ElemVerdict::Drop(DropReason::RandomLoss)
        } else {
            ElemVerdict::Pass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::time::SimTime;
    use crate::packet::meta::MetaSlab;

    fn run(cfg: LossConfig, n: u64) -> u64 {
        let mut e = RandomLoss::new(cfg, Rng::new(5, 9));
        let mut meta = MetaSlab::default();
        let mut emit = Vec::new();
        let mut cx = ElemCx { now: SimTime::ZERO, channel: 0, node: 0, meta: &mut meta, emitted: &mut emit };
        let mut lost = 0;
        for _ in 0..n {
            let mut p = Packet::new(PacketKind::Data, 0, 1000);
            if e.on_arrival(&mut cx, &mut p) != ElemVerdict::Pass {
                lost += 1;
            }
        }
        lost
    }

    fn bernoulli(p: f64) -> LossConfig {
        LossConfig { p, model: LossModel::Bernoulli, p_gb: 0.0, p_bg: 0.0, loss_good: 0.0, loss_bad: 1.0, only: None }
    }

    #[test]
    fn bernoulli_loses_a_fraction_p_within_a_binomial_bound() {
        let n = 100_000;
        for p in [0.01, 0.1, 0.5] {
            let lost = run(bernoulli(p), n) as f64;
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            assert!((lost - n as f64 * p).abs() < 4.0 * sd, "p={p}: {lost}");
        }
        assert_eq!(run(bernoulli(0.0), 1000), 0);
        assert_eq!(run(bernoulli(1.0), 1000), 1000);
    }

    #[test]
    fn gilbert_elliott_loses_its_stationary_rate_in_bursts() {
        // p_gb = 0.01, p_bg = 0.25, all lost in Bad: rate 0.01 / 0.26 = 0.0385; mean burst
        // length 1 / p_bg = 4 packets.
        let cfg = LossConfig { model: LossModel::GilbertElliott, p_gb: 0.01, p_bg: 0.25, ..bernoulli(0.0) };
        assert!((cfg.loss_rate() - 0.01 / 0.26).abs() < 1e-12);
        let n = 400_000;
        let lost = run(cfg, n) as f64 / n as f64;
        assert!((lost - 0.0385).abs() < 0.004, "{lost}");
    }

    #[test]
    fn bad_probabilities_are_named() {
        assert_eq!(bernoulli(1.5).check().unwrap_err().0, "p");
        let ge = LossConfig { model: LossModel::GilbertElliott, ..bernoulli(0.0) };
        assert_eq!(ge.check().unwrap_err().0, "p_gb");
    }
}
