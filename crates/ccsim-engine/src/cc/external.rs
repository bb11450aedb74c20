//! Policies defined outside the engine: a flow's `cc = "module:Class"` names a
//! congestion control the front end provides (the Python package: a class by import
//! path). The engine knows nothing of the language: a front end registers one
//! `ExternalPolicies` (`set_external_policies`), which checks a name and its
//! parameters while a scenario is validated and builds each flow's policy, a boxed
//! `CongestionControl` (`AnyCc::Custom`) called through the same events as a built-in
//! one.
//!
//! What such a policy gets from the transport is fixed here rather than declared by a
//! `CcPolicy`: every loss-recovery parameter (`LossRecoveryParams::RFC6298`, RFC 6298's
//! timer and fast retransmit at three duplicate acks, the parameters given among its
//! own in `[flows.params]`), SACK recovery allowed (it must then follow
//! `CongestionSample::pipe`, as the Reno family does), ECN off unless the flow asks
//! for it. What the front end reports of the policy decides the rest
//! (`ExternalInfo`): its series, the recovery after a fast retransmit without SACK
//! (Reno's or NewReno's), and whether it takes delivery-rate samples
//! (as `CcPolicy::RATE_SAMPLE` declares it for a built-in policy).

use super::{CcInfo, CongestionControl, LossRecoveryParams, Recovery, EXTRA_SLOTS};
use std::sync::OnceLock;

/// The series every window flow records (`sim::flows`), which a policy's own may not
/// reuse.
pub const WINDOW_SERIES: [&str; 5] = ["cwnd", "ssthresh", "outstanding", "rtt", "rate"];

/// A policy the front end defines: its name (`module:Class`) and its own parameters
/// (the `[flows.params]` keys that are not the transport's), with what the front end
/// reported of it when the scenario was validated.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalConfig {
    /// The name a scenario file gives (`cc = "module:Class"`).
    pub name: String,
    /// Its own parameters, as given.
    pub params: toml::Table,
    /// The names of its own series (`CcMetrics::extra`, at most `EXTRA_SLOTS`), in
    /// slot order.
    pub series: &'static [&'static str],
    /// How a fast retransmit recovers without SACK.
    pub recovery: Recovery,
    /// It takes delivery-rate samples.
    pub rate_sample: bool,
}

impl ExternalConfig {
    /// Whether `name` names an external policy rather than a built-in one: it contains
    /// a ':' (`module:Class`).
    pub fn is_external(name: &str) -> bool {
        name.contains(':')
    }

    /// The policy `name` with its own parameters `params`, as the registered front end
    /// checks it (`source`: the scenario's file name); the message says what is wrong
    /// and the fix. `None` without a front end registered.
    pub fn checked(name: &str, params: toml::Table, source: &str) -> Option<Result<ExternalConfig, String>> {
        let policies = external_policies()?;
        let check = || {
            let info = policies.check(name, &params, source)?;
            if info.series.len() > EXTRA_SLOTS {
                return Err(format!(
                    "'{name}' declares {} series ({}); a policy may have at most {EXTRA_SLOTS}",
                    info.series.len(),
                    info.series.join(", ")
                ));
            }
            if let Some(s) = info.series.iter().find(|s| WINDOW_SERIES.contains(&s.as_str())) {
                return Err(format!(
                    "'{name}'.series names '{s}', a series every window flow has; choose another name"
                ));
            }
            Ok(ExternalConfig {
                name: name.to_string(),
                series: intern_list(&info.series),
                recovery: info.recovery,
                rate_sample: info.rate_sample,
                params,
            })
        };
        Some(check())
    }

    /// What the transport gives it: every loss-recovery parameter, its recovery.
    pub fn loss_recovery_params(&self) -> LossRecoveryParams {
        LossRecoveryParams { recovery: self.recovery, ..LossRecoveryParams::RFC6298 }
    }
}

/// The registry entry every external policy shares (`CcConfig::info`): SACK allowed,
/// no ECN of its own; its series and rate samples are its own (`ExternalConfig`,
/// `CcConfig::rate_sample`).
pub const EXTERNAL_INFO: CcInfo = CcInfo {
    name: "external",
    aliases: &[],
    description: "a congestion control defined outside the engine (a Python class by import path)",
    extra_series: &[],
    sack: true,
    ecn_echo: None,
    rate_sample: false,
    pace_recovery: false,
    default: || unreachable!("an external policy has no default configuration"),
    loss_recovery: LossRecoveryParams::RFC6298,
    own_parameters: || &[],
};

/// What the front end reports of a policy when it checks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalInfo {
    /// The names of its own series, at most `EXTRA_SLOTS`.
    pub series: Vec<String>,
    /// How a fast retransmit recovers without SACK.
    pub recovery: Recovery,
    /// It takes delivery-rate samples (`CongestionControl::on_rate_sample`).
    pub rate_sample: bool,
}

/// The flow a policy is built for.
#[derive(Clone, Copy, Debug)]
pub struct ExternalFlow<'a> {
    /// The flow's name.
    pub flow: &'a str,
    /// Segment size, bytes.
    pub mss: u64,
    /// The window cap, packets.
    pub max_window: u32,
    /// A seed from the flow's own random stream (`base::rng::stream::cc`), for a policy
    /// that draws random numbers.
    pub seed: u64,
}

/// The front end's policies (one per process, `set_external_policies`).
pub trait ExternalPolicies: Sync {
    /// Checks that `name` is a policy the front end can build and that it accepts
    /// `params` (its own parameters); the message says what is wrong and the fix.
    /// `source` is the scenario's file name (a front end may look for the policy next
    /// to it).
    fn check(&self, name: &str, params: &toml::Table, source: &str) -> Result<ExternalInfo, String>;
    /// The per-flow state of a policy `check` accepted. A failure the front end finds
    /// only now (the constructor raising) is the policy's to report when the run
    /// reaches it: the engine has no error path out of building a simulation.
    fn build(&self, cfg: &ExternalConfig, flow: ExternalFlow<'_>) -> Box<dyn CongestionControl + Send>;
}

static EXTERNAL: OnceLock<&'static dyn ExternalPolicies> = OnceLock::new();

/// Registers the front end's policies; false if some were registered before (the first
/// stays).
pub fn set_external_policies(p: &'static dyn ExternalPolicies) -> bool {
    EXTERNAL.set(p).is_ok()
}

/// The registered policies, if any.
pub fn external_policies() -> Option<&'static dyn ExternalPolicies> {
    EXTERNAL.get().copied()
}

/// Interns a series name for the life of the process (series names are `&'static str`
/// throughout the recorder): each distinct name is allocated once.
pub fn intern(name: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut set = NAMES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&n) = set.get(name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_owned().into_boxed_str());
    set.insert(n);
    n
}

/// Interns a list of series names (`ExternalConfig::series`), the list itself once
/// per distinct list.
pub fn intern_list(names: &[String]) -> &'static [&'static str] {
    use std::sync::Mutex;
    static LISTS: OnceLock<Mutex<Vec<&'static [&'static str]>>> = OnceLock::new();
    let names: Vec<&'static str> = names.iter().map(|n| intern(n)).collect();
    let mut lists = LISTS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&l) = lists.iter().find(|&&l| l == names.as_slice()) {
        return l;
    }
    let l: &'static [&'static str] = Box::leak(names.into_boxed_slice());
    lists.push(l);
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_a_colon_is_external_and_interning_keeps_one_copy() {
        assert!(ExternalConfig::is_external("mycc:Reno"));
        assert!(!ExternalConfig::is_external("reno"));
        let a = intern_list(&["w_max".to_string(), "k".to_string()]);
        let b = intern_list(&["w_max".to_string(), "k".to_string()]);
        assert_eq!(a, ["w_max", "k"]);
        assert!(std::ptr::eq(a, b), "the same list is interned once");
        assert!(std::ptr::eq(intern("k"), a[1]));
    }
}
