//! The registry of built-in congestion-control policies: the `CcPolicy` trait each
//! policy implements in its own file, the `CcInfo` table entry, and the `registry!`
//! macro that turns one line per policy (in `cc/mod.rs`) into the `CcConfig` and
//! `AnyCc` enums, their enum dispatch (a `match`, no vtable: the per-ack cost of the
//! built-in policies stays that of a hand-written enum) and the table `CcConfig::ALL`.

use super::EcnEcho;
use super::{CongestionControl, LossRecoveryConfig, LossRecoveryParams, RtoStyle};
use crate::base::rng::Rng;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What the registry needs to know of a built-in policy, besides its events
/// (`CongestionControl`).
pub trait CcPolicy: CongestionControl + Sized {
    /// Its parameters, `[flows.params]` of a scenario file: serde by field name (unknown
    /// names refused with `#[serde(deny_unknown_fields)]`), `Default` gives every default.
    type Config: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned + Default;
    /// The name a scenario file gives in `cc = "..."`.
    const NAME: &'static str;
    /// Other names accepted for it.
    const ALIASES: &'static [&'static str] = &[];
    /// One line for `ccsim list cc` and the docs.
    const DESCRIPTION: &'static str;
    /// The names of its own series (`CcMetrics::extra`), in slot order.
    const EXTRA_SERIES: &'static [&'static str] = &[];
    /// Whether it works with SACK-based loss recovery (RFC 6675: it has Reno's fast
    /// recovery to run the scoreboard in). Default: no.
    const SACK: bool = false;
    /// The ECN feedback it needs (as Linux's `TCP_CONG_NEEDS_ECN`): `Some(echo)` makes
    /// its flows ECN-capable (`ecn = true`) with that receiver echo (`ecn_echo`) unless
    /// the flow's own keys say otherwise. Default `None`: ECN off unless asked for, RFC
    /// 3168's echo.
    const ECN_ECHO: Option<EcnEcho> = None;
    /// Whether it takes delivery-rate samples (`CongestionControl::on_rate_sample`): the
    /// sender keeps per-packet snapshots for it (`transport::rate_sample`), and only for
    /// it. Default: no.
    const RATE_SAMPLE: bool = false;
    /// Whether loss recovery's sends wait for the pacing clock as new data does: SACK
    /// recovery's loop (RFC 6675 NextSeg, retransmissions and new data alike) sends its
    /// bursts of `CcMetrics::send_quantum` at the policy's pacing rate, and the pacing
    /// timer resumes that loop, as Linux 4.9's `sch_fq` paces every packet of a flow,
    /// retransmissions included (`fq_dequeue`'s `time_next_packet`). Only for a policy
    /// that paces (`CcMetrics::pacing_rate`). Default: no (recovery sends by the pipe
    /// alone).
    const PACE_RECOVERY: bool = false;
    /// The per-flow state for segments of `mss` bytes and a window cap in packets.
    fn build(cfg: &Self::Config, mss: u64, max_window: u32) -> Self;
    /// The same with the flow's own random stream (`base::rng::stream::cc`), for a
    /// policy that draws random numbers. Default: `build`, the stream unused.
    fn build_seeded(cfg: &Self::Config, mss: u64, max_window: u32, _rng: Rng) -> Self {
        Self::build(cfg, mss, max_window)
    }
    /// Checks the values; (parameter, message naming the value and the fix) for the
    /// first bad one. Default: every value accepted.
    fn check(_cfg: &Self::Config) -> Result<(), (&'static str, String)> {
        Ok(())
    }
    /// The transport's loss-recovery parameters for this policy: which a scenario file
    /// may set among its parameters, their defaults, where its table lists them and how
    /// a fast retransmit recovers. Default: every one, Jacobson/Karels with RFC 6298's
    /// constants, fast retransmit at three duplicate acks and Reno's recovery
    /// (`LossRecoveryParams::RFC6298`).
    const LOSS_RECOVERY: LossRecoveryParams = LossRecoveryParams::RFC6298;
    /// The retransmission timer: the one the transport's parameters select
    /// (`LossRecoveryConfig::style`) unless the policy defines its own (Generic).
    fn rto_style(_cfg: &Self::Config, l: &LossRecoveryConfig) -> RtoStyle {
        l.style()
    }
}

/// One policy of the registry (`CcConfig::ALL`).
#[derive(Clone, Copy, Debug)]
pub struct CcInfo {
    /// `CcPolicy::NAME`.
    pub name: &'static str,
    /// `CcPolicy::ALIASES`.
    pub aliases: &'static [&'static str],
    /// `CcPolicy::DESCRIPTION`.
    pub description: &'static str,
    /// `CcPolicy::EXTRA_SERIES`.
    pub extra_series: &'static [&'static str],
    /// `CcPolicy::SACK`.
    pub sack: bool,
    /// `CcPolicy::ECN_ECHO`.
    pub ecn_echo: Option<EcnEcho>,
    /// `CcPolicy::RATE_SAMPLE`.
    pub rate_sample: bool,
    /// `CcPolicy::PACE_RECOVERY`.
    pub pace_recovery: bool,
    /// Its default configuration.
    pub default: fn() -> super::CcConfig,
    /// `CcPolicy::LOSS_RECOVERY`.
    pub loss_recovery: LossRecoveryParams,
    /// The names of its own parameters (its `Config`'s fields), in declaration order.
    pub own_parameters: fn() -> &'static [&'static str],
}

impl CcInfo {
    /// Whether `name` selects this policy (its name or an alias).
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }

    /// The default parameters as a `[flows.params]` table (parameters whose default is
    /// "unset" are absent).
    pub fn defaults(&self) -> toml::Table {
        (self.default)().params(&self.loss_recovery.defaults)
    }

    /// The names of its parameters, its own (in declaration order) and the transport's
    /// it accepts (`LossRecoveryConfig`) in their place.
    pub fn parameters(&self) -> Vec<&'static str> {
        self.loss_recovery.names((self.own_parameters)())
    }

    /// Whether `name` is one of the transport's parameters rather than the policy's own.
    pub fn is_transport_parameter(&self, name: &str) -> bool {
        self.loss_recovery.accepts.contains(&name)
    }

    /// Every parameter with its default; `None` for one unset by default (its meaning
    /// when unset is documented with the parameter, e.g. Generic's `window`).
    pub fn parameter_defaults(&self) -> Vec<(&'static str, Option<toml::Value>)> {
        let mut d = self.defaults();
        self.parameters().into_iter().map(|n| (n, d.remove(n))).collect()
    }
}

/// Reads a parameter table as a policy's own `Config` type or as the transport's
/// `LossRecoveryConfig` (so the caller decides how errors are reported;
/// `CcConfig::from_params`).
pub trait ReadParams {
    type Error;
    fn read<T: DeserializeOwned>(&self, params: &toml::Table) -> Result<T, Self::Error>;
}

/// The storage of a policy in `AnyCc`: inline, or boxed (`in Box`).
macro_rules! cc_stored {
    ($t:ident) => { $t };
    ($t:ident Box) => { Box<$t> };
}

/// Declares the built-in policies, one `module::Type` per line (`in Box` to store it
/// boxed in `AnyCc`). Generates the modules and re-exports, `CcConfig` (serde, tagged
/// by `cc`), `AnyCc` with its enum dispatch of `CongestionControl`, and `CcConfig::ALL`.
macro_rules! registry {
    ($( $module:ident :: $ty:ident $(in $boxed:ident)? ),+ $(,)?) => {
        $(
            pub mod $module;
            pub use $module::$ty;
        )+

        /// Configuration of the built-in policies (serde, so scenario files and Python
        /// build it): one variant per registered policy.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "cc", rename_all = "snake_case")]
        pub enum CcConfig {
            $( $ty(<$ty as CcPolicy>::Config), )+
            /// A policy the front end defines (`cc = "module:Class"`, `cc::external`):
            /// validated by the front end, never read or written by serde.
            #[serde(skip)]
            External(Box<ExternalConfig>),
        }

        /// Enum dispatch of the built-in policies (smoltcp `AnyController`): no vtable;
        /// `Custom` is the boxed escape hatch.
        #[derive(Debug)]
        pub enum AnyCc {
            $( $ty(cc_stored!($ty $($boxed)?)), )+
            Custom(CustomCc),
        }

        impl CcConfig {
            /// Every registered policy, in registration order.
            pub const ALL: &'static [CcInfo] = &[
                $(
                    CcInfo {
                        name: <$ty as CcPolicy>::NAME,
                        aliases: <$ty as CcPolicy>::ALIASES,
                        description: <$ty as CcPolicy>::DESCRIPTION,
                        extra_series: <$ty as CcPolicy>::EXTRA_SERIES,
                        sack: <$ty as CcPolicy>::SACK,
                        ecn_echo: <$ty as CcPolicy>::ECN_ECHO,
                        rate_sample: <$ty as CcPolicy>::RATE_SAMPLE,
                        pace_recovery: <$ty as CcPolicy>::PACE_RECOVERY,
                        default: || CcConfig::$ty(Default::default()),
                        loss_recovery: <$ty as CcPolicy>::LOSS_RECOVERY,
                        own_parameters: crate::base::fields::field_names::<<$ty as CcPolicy>::Config>,
                    },
                )+
            ];

            /// The names of the policies with SACK recovery (`CcInfo::sack`), in
            /// registration order: what a flow with `sack = true` may run.
            pub fn sack_names() -> Vec<&'static str> {
                Self::ALL.iter().filter(|i| i.sack).map(|i| i.name).collect()
            }

            /// The registry entry of this configuration's policy.
            pub fn info(&self) -> &'static CcInfo {
                if let CcConfig::External(_) = self {
                    return &external::EXTERNAL_INFO;
                }
                let name = self.name();
                Self::ALL.iter().find(|i| i.name == name).expect("every policy has an entry")
            }

            /// The name a scenario file gives (`cc = "..."`).
            pub fn name(&self) -> &str {
                match self {
                    $( CcConfig::$ty(_) => <$ty as CcPolicy>::NAME, )+
                    CcConfig::External(x) => &x.name,
                }
            }

            /// The policy named `name` (or an alias) with its `[flows.params]` table
            /// `params`, read by `read`: its own parameters and the transport's
            /// (`CcPolicy::LOSS_RECOVERY` says which are which); `None` if no policy has
            /// that name.
            pub fn from_params<R: ReadParams>(
                name: &str,
                params: &toml::Table,
                read: &R,
            ) -> Option<Result<(CcConfig, LossRecoveryConfig), R::Error>> {
                $(
                    if name == <$ty as CcPolicy>::NAME || <$ty as CcPolicy>::ALIASES.contains(&name) {
                        let lr = <$ty as CcPolicy>::LOSS_RECOVERY;
                        let (own, transport) = lr.split(params);
                        let cfg = match read.read(&own) {
                            Ok(c) => CcConfig::$ty(c),
                            Err(e) => return Some(Err(e)),
                        };
                        return Some(lr.read(transport, read).map(|l| (cfg, l)));
                    }
                )+
                None
            }

            /// Builds the per-flow state of flow `flow` for segments of `mss` bytes and a
            /// window cap in packets, with the flow's random stream `rng`.
            pub fn build(&self, flow: &str, mss: u64, max_window: u32, mut rng: crate::base::rng::Rng) -> AnyCc {
                match self {
                    $( CcConfig::$ty(c) => AnyCc::$ty(From::from(<$ty as CcPolicy>::build_seeded(c, mss, max_window, rng))), )+
                    CcConfig::External(x) => {
                        let policies = external::external_policies()
                            .expect("a scenario with an external policy validated only with the front end's policies registered");
                        let flow = external::ExternalFlow { flow, mss, max_window, seed: rng.next_u64() };
                        AnyCc::Custom(CustomCc(policies.build(x, flow)))
                    }
                }
            }

            /// The transport's loss-recovery parameters this policy declares
            /// (`CcPolicy::LOSS_RECOVERY`).
            pub fn loss_recovery_params(&self) -> LossRecoveryParams {
                match self {
                    $( CcConfig::$ty(_) => <$ty as CcPolicy>::LOSS_RECOVERY, )+
                    CcConfig::External(x) => x.loss_recovery_params(),
                }
            }

            /// Whether the policy takes delivery-rate samples (`CcPolicy::RATE_SAMPLE`,
            /// or what the front end reported of an external one).
            pub fn rate_sample(&self) -> bool {
                match self {
                    CcConfig::External(x) => x.rate_sample,
                    _ => self.info().rate_sample,
                }
            }

            /// The transport's default loss-recovery parameters for this policy.
            pub fn default_loss_recovery(&self) -> LossRecoveryConfig {
                self.loss_recovery_params().defaults
            }

            /// The window transport's timer and loss recovery: the flow's parameters `l`
            /// as this policy declares them.
            pub fn loss_recovery(&self, l: &LossRecoveryConfig) -> LossRecovery {
                match self {
                    $( CcConfig::$ty(c) => <$ty as CcPolicy>::LOSS_RECOVERY.resolve(l, <$ty as CcPolicy>::rto_style(c, l)), )+
                    CcConfig::External(x) => x.loss_recovery_params().resolve(l, l.style()),
                }
            }

            /// Every name a policy's own series may have (`extra_series` of all policies,
            /// in registration order, each once), so a scenario may request one whatever
            /// policy an override selects; it stays empty for the others.
            pub fn all_extra_series() -> Vec<&'static str> {
                let mut names: Vec<&'static str> = Vec::new();
                for n in Self::ALL.iter().flat_map(|i| i.extra_series) {
                    if !names.contains(n) {
                        names.push(n);
                    }
                }
                names
            }

            /// The names of the policy's own series (`CcMetrics::extra`), in slot order.
            pub fn extra_series(&self) -> &'static [&'static str] {
                match self {
                    $( CcConfig::$ty(_) => <$ty as CcPolicy>::EXTRA_SERIES, )+
                    CcConfig::External(x) => x.series,
                }
            }

            /// The policy's parameters with the transport's `l` as the `[flows.params]`
            /// table of a scenario file (the transport's in the place the policy
            /// declares).
            pub fn params(&self, l: &LossRecoveryConfig) -> toml::Table {
                let own = match self {
                    $( CcConfig::$ty(c) => toml::Table::try_from(c), )+
                    CcConfig::External(x) => {
                        return x.loss_recovery_params().merge(&[], x.params.clone(), l);
                    }
                };
                let own = own.expect("policy configs serialise to TOML");
                let lr = self.loss_recovery_params();
                lr.merge((self.info().own_parameters)(), own, l)
            }

            /// Checks the values, the policy's own and then the transport's `l`;
            /// (parameter, message) for the first bad one.
            pub fn check(&self, l: &LossRecoveryConfig) -> Result<(), (&'static str, String)> {
                match self {
                    $( CcConfig::$ty(c) => <$ty as CcPolicy>::check(c)?, )+
                    // Checked by the front end when the scenario was validated.
                    CcConfig::External(_) => {}
                }
                l.check()
            }
        }

        impl CongestionControl for AnyCc {
            #[inline]
            fn on_packet_sent(&mut self, s: &SendSample) {
                match self {
                    $( AnyCc::$ty(c) => c.on_packet_sent(s), )+
                    AnyCc::Custom(x) => x.0.as_mut().on_packet_sent(s),
                }
            }
            #[inline]
            fn on_ack(&mut self, s: &AckSample) {
                match self {
                    $( AnyCc::$ty(c) => c.on_ack(s), )+
                    AnyCc::Custom(x) => x.0.as_mut().on_ack(s),
                }
            }
            #[inline]
            fn on_dup_ack(&mut self, now: SimTime) {
                match self {
                    $( AnyCc::$ty(c) => c.on_dup_ack(now), )+
                    AnyCc::Custom(x) => x.0.as_mut().on_dup_ack(now),
                }
            }
            #[inline]
            fn on_congestion(&mut self, s: &CongestionSample) {
                match self {
                    $( AnyCc::$ty(c) => c.on_congestion(s), )+
                    AnyCc::Custom(x) => x.0.as_mut().on_congestion(s),
                }
            }
            fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
                match self {
                    $( AnyCc::$ty(c) => c.on_feedback(now, fb), )+
                    AnyCc::Custom(x) => x.0.as_mut().on_feedback(now, fb),
                }
            }
            fn on_rate_sample(&mut self, rs: &RateSample) -> bool {
                match self {
                    $( AnyCc::$ty(c) => c.on_rate_sample(rs), )+
                    AnyCc::Custom(x) => x.0.as_mut().on_rate_sample(rs),
                }
            }
            #[inline(always)]
            fn metrics(&self) -> CcMetrics {
                match self {
                    $( AnyCc::$ty(c) => c.metrics(), )+
                    AnyCc::Custom(x) => x.0.as_ref().metrics(),
                }
            }
        }
    };
}
