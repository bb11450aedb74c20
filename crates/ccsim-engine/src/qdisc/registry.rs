//! The registry of built-in queue disciplines: the `QdiscPolicy` trait each discipline
//! implements in its own file, the `QdiscInfo` table entry, and the `registry!` macro
//! that turns one line per discipline (in `qdisc/mod.rs`) into the `QdiscConfig` and
//! `AnyQdisc` enums, their enum dispatch (a `match`, no vtable: the per-packet cost of
//! the built-in disciplines stays that of a hand-written enum) and the table
//! `QdiscConfig::ALL`.

use super::Qdisc;
use crate::base::rng::Rng;
use crate::base::units::Limit;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What the registry needs to know of a built-in discipline, besides its packet
/// operations (`Qdisc`).
pub trait QdiscPolicy: Qdisc + Sized {
    /// Its parameters, the table of `qdisc = { kind = "...", ... }` in a scenario file:
    /// serde by field name (unknown names refused with `#[serde(deny_unknown_fields)]`),
    /// `Default` gives every default. A discipline without parameters has an empty struct.
    type Config: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned + Default;
    /// The name a scenario file gives (`qdisc = "..."` or `kind = "..."`).
    const NAME: &'static str;
    /// Other names accepted for it.
    const ALIASES: &'static [&'static str] = &[];
    /// One line for `ccsim list qdisc` and the docs.
    const DESCRIPTION: &'static str;
    /// Its name in a sentence ("drop-tail", "Fair Queueing"), as `ccsim bench` prints it.
    const TITLE: &'static str;
    /// The reasons it drops packets for, beyond the buffer overflow every channel counts
    /// (`DropReason::Overflow`): names of the results' `drops_by_reason` columns, each
    /// named as a constant of `DropReason` in the discipline's file (`DropReason::named`).
    const DROP_REASONS: &'static [&'static str] = &[];
    /// Whether a packet that finds the line idle and the queue empty may skip the
    /// discipline (the channel's shortcut): only for a discipline with no state that
    /// must see every arrival.
    const IDLE_BYPASS: bool = false;
    /// Whether packets leave in arrival order and nothing queued is ever dropped, so a
    /// channel may schedule each departure when the packet is queued.
    const FIFO: bool = false;
    /// Whether packets leave in arrival order, nothing queued is ever dropped, and the
    /// verdict on an arrival depends only on the packets waiting ahead of it (`Ahead`)
    /// and the discipline's own state: a channel may then keep the queue itself,
    /// scheduling each departure when the packet is admitted, and ask `Qdisc::admit`
    /// (RED, random drop). Such a discipline implements `admit`.
    const ADMITS: bool = false;
    /// Its own series, `(name, unit)`: recordable as `"<channel>.<name>"`, read after
    /// every enqueue and dequeue through `Qdisc::series_value` (slot = position here; at
    /// most `MAX_QDISC_SERIES`). Recorded on change; recording never schedules an event.
    const SERIES: &'static [(&'static str, &'static str)] = &[];
    /// The state of one channel's discipline: buffer `limit`, line rate `rate_bps`, and
    /// the discipline's own random stream `rng` (seeded from the run seed and the channel).
    fn build(cfg: &Self::Config, limit: Limit, rate_bps: u64, rng: Rng) -> Self;
    /// Checks the values; (parameter, message naming the value and the fix) for the
    /// first bad one. Default: every value accepted.
    fn check(_cfg: &Self::Config) -> Result<(), (&'static str, String)> {
        Ok(())
    }
    /// The buffer limit (the link's buffer).
    fn limit(&self) -> Limit;
}

/// One discipline of the registry (`QdiscConfig::ALL`).
#[derive(Clone, Copy, Debug)]
pub struct QdiscInfo {
    /// `QdiscPolicy::NAME`.
    pub name: &'static str,
    /// `QdiscPolicy::ALIASES`.
    pub aliases: &'static [&'static str],
    /// `QdiscPolicy::DESCRIPTION`.
    pub description: &'static str,
    /// `QdiscPolicy::TITLE`.
    pub title: &'static str,
    /// `QdiscPolicy::DROP_REASONS`.
    pub drop_reasons: &'static [&'static str],
    /// `QdiscPolicy::SERIES`.
    pub series: &'static [(&'static str, &'static str)],
    /// Its default configuration.
    pub default: fn() -> super::QdiscConfig,
    /// The names of its parameters (its `Config`'s fields), in declaration order.
    pub parameters: fn() -> &'static [&'static str],
}

impl QdiscInfo {
    /// Whether `name` selects this discipline (its name or an alias).
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }

    /// Every parameter with its default; `None` for one unset by default.
    pub fn parameter_defaults(&self) -> Vec<(&'static str, Option<toml::Value>)> {
        let mut d = (self.default)().params();
        (self.parameters)().iter().map(|&n| (n, d.remove(n))).collect()
    }
}

/// Reads a discipline's parameters as its own `Config` type (so the caller decides how
/// errors are reported; `QdiscConfig::from_params`).
pub trait ReadParams {
    type Error;
    fn read<T: DeserializeOwned>(&self) -> Result<T, Self::Error>;
}

/// The storage of a configuration or a state: inline, or boxed (`Box`).
macro_rules! qdisc_stored {
    ($t:ty) => { $t };
    ($t:ty, Box) => { Box<$t> };
}

/// Declares the built-in disciplines, one `Variant: module::Type` per line, with
/// `config in Box` / `state in Box` to store its configuration (in every channel's
/// spec) or its state (in every channel) boxed. Generates the modules and re-exports,
/// `QdiscConfig` (serde, tagged by `kind`), `AnyQdisc` with its enum dispatch of
/// `Qdisc`, and `QdiscConfig::ALL`.
macro_rules! registry {
    ($( $v:ident : $module:ident :: $ty:ident $(, config in $cbox:ident)? $(, state in $sbox:ident)? ;)+) => {
        $(
            pub mod $module;
            pub use $module::$ty;
        )+

        /// A queue discipline and its parameters (serde, so scenario files and Python
        /// build it): one variant per registered discipline.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum QdiscConfig {
            $( $v(qdisc_stored!(<$ty as QdiscPolicy>::Config $(, $cbox)?)), )+
        }

        /// Enum dispatch of the built-in disciplines: no vtable on the per-packet path.
        #[derive(Debug, Clone)]
        pub enum AnyQdisc {
            $( $v(qdisc_stored!($ty $(, $sbox)?)), )+
        }

        /// The drop reasons of the disciplines, in registration order.
        const QDISC_DROP_REASONS: &[&[&str]] = &[ $( <$ty as QdiscPolicy>::DROP_REASONS, )+ ];

        /// The disciplines in registration order (`QdiscOrder::$v as usize`: a
        /// discipline's position in `QDISC_DROP_REASONS`).
        #[allow(dead_code)]
        enum QdiscOrder {
            $( $v, )+
        }

        /// Per discipline, the table index (`DropReason::index`) of its first drop reason:
        /// 1 (`overflow`) plus the number of reasons of the disciplines registered before
        /// it. Checked at compile time: no discipline declares more reasons than a
        /// channel has slots for (`MAX_QDISC_DROP_REASONS`).
        const QDISC_FIRST_DROP_REASON: [usize; QDISC_DROP_REASONS.len()] = first_drop_reasons(QDISC_DROP_REASONS);

        impl QdiscConfig {
            /// Every registered discipline, in registration order.
            pub const ALL: &'static [QdiscInfo] = &[
                $(
                    QdiscInfo {
                        name: <$ty as QdiscPolicy>::NAME,
                        aliases: <$ty as QdiscPolicy>::ALIASES,
                        description: <$ty as QdiscPolicy>::DESCRIPTION,
                        title: <$ty as QdiscPolicy>::TITLE,
                        drop_reasons: <$ty as QdiscPolicy>::DROP_REASONS,
                        series: {
                            assert!(<$ty as QdiscPolicy>::SERIES.len() <= MAX_QDISC_SERIES, "more series than a channel records");
                            <$ty as QdiscPolicy>::SERIES
                        },
                        default: || QdiscConfig::$v(Default::default()),
                        parameters: crate::base::fields::field_names::<<$ty as QdiscPolicy>::Config>,
                    },
                )+
            ];

            /// The registry entry of this configuration's discipline.
            pub fn info(&self) -> &'static QdiscInfo {
                let name = self.name();
                Self::ALL.iter().find(|i| i.name == name).expect("every discipline has an entry")
            }

            /// The name a scenario file gives.
            pub fn name(&self) -> &'static str {
                match self {
                    $( QdiscConfig::$v(_) => <$ty as QdiscPolicy>::NAME, )+
                }
            }

            /// The discipline named `name` (or an alias) with the parameters `read`
            /// gives; `None` if no discipline has that name.
            pub fn from_params<R: ReadParams>(name: &str, read: &R) -> Option<Result<QdiscConfig, R::Error>> {
                $(
                    if name == <$ty as QdiscPolicy>::NAME || <$ty as QdiscPolicy>::ALIASES.contains(&name) {
                        return Some(read.read::<<$ty as QdiscPolicy>::Config>().map(|c| QdiscConfig::$v(From::from(c))));
                    }
                )+
                None
            }

            /// The discipline's parameters as a table (without `kind`).
            pub fn params(&self) -> toml::Table {
                let v = match self {
                    $( QdiscConfig::$v(c) => toml::Table::try_from(c), )+
                };
                v.expect("discipline configs serialise to TOML")
            }

            /// Checks the values; (parameter, message) for the first bad one.
            pub fn check(&self) -> Result<(), (&'static str, String)> {
                match self {
                    $( QdiscConfig::$v(c) => <$ty as QdiscPolicy>::check(c), )+
                }
            }

            /// The state of one channel's discipline (`QdiscPolicy::build`).
            pub fn build(&self, limit: Limit, rate_bps: u64, rng: Rng) -> AnyQdisc {
                match self {
                    $( QdiscConfig::$v(c) => AnyQdisc::$v(From::from(<$ty as QdiscPolicy>::build(c, limit, rate_bps, rng))), )+
                }
            }
        }

        impl AnyQdisc {
            /// `QdiscPolicy::IDLE_BYPASS` of the discipline.
            pub fn idle_bypass(&self) -> bool {
                match self {
                    $( AnyQdisc::$v(_) => <$ty as QdiscPolicy>::IDLE_BYPASS, )+
                }
            }

            /// `QdiscPolicy::FIFO` of the discipline.
            pub fn fifo(&self) -> bool {
                match self {
                    $( AnyQdisc::$v(_) => <$ty as QdiscPolicy>::FIFO, )+
                }
            }

            /// `QdiscPolicy::ADMITS` of the discipline.
            pub fn admits(&self) -> bool {
                match self {
                    $( AnyQdisc::$v(_) => <$ty as QdiscPolicy>::ADMITS, )+
                }
            }

            /// The buffer limit (the link's buffer).
            #[inline]
            pub fn limit(&self) -> Limit {
                match self {
                    $( AnyQdisc::$v(q) => <$ty as QdiscPolicy>::limit(q), )+
                }
            }

            pub fn name(&self) -> &'static str {
                match self {
                    $( AnyQdisc::$v(_) => <$ty as QdiscPolicy>::NAME, )+
                }
            }

            /// `QdiscPolicy::DROP_REASONS` of the discipline.
            #[inline]
            pub fn drop_reasons(&self) -> &'static [&'static str] {
                match self {
                    $( AnyQdisc::$v(_) => <$ty as QdiscPolicy>::DROP_REASONS, )+
                }
            }

            /// The table index (`DropReason::index`) of the discipline's first own drop
            /// reason (`QdiscPolicy::DROP_REASONS`): its reason `k` is at this index + `k`.
            #[inline]
            pub fn first_drop_reason(&self) -> usize {
                match self {
                    $( AnyQdisc::$v(_) => QDISC_FIRST_DROP_REASON[QdiscOrder::$v as usize], )+
                }
            }

            /// `QdiscPolicy::SERIES` of the discipline.
            pub fn series(&self) -> &'static [(&'static str, &'static str)] {
                match self {
                    $( AnyQdisc::$v(_) => <$ty as QdiscPolicy>::SERIES, )+
                }
            }
        }

        impl Qdisc for AnyQdisc {
            #[inline(always)]
            fn enqueue(&mut self, now: SimTime, pkt: Packet, conv: u32, drops: &mut Vec<(Packet, DropReason)>) -> Verdict {
                match self {
                    $( AnyQdisc::$v(q) => q.enqueue(now, pkt, conv, drops), )+
                }
            }
            #[inline(always)]
            fn dequeue(&mut self, now: SimTime, drops: &mut Vec<(Packet, DropReason)>) -> Option<(Packet, SimTime)> {
                match self {
                    $( AnyQdisc::$v(q) => q.dequeue(now, drops), )+
                }
            }
            #[inline(always)]
            fn pass_idle(&mut self, now: SimTime, bits: u32, conv: impl FnOnce() -> u32) -> IdlePass {
                match self {
                    $( AnyQdisc::$v(q) => q.pass_idle(now, bits, conv), )+
                }
            }
            #[inline]
            fn admit(&mut self, now: SimTime, pkt: &mut Packet, ahead: Ahead) -> Verdict {
                match self {
                    $( AnyQdisc::$v(q) => q.admit(now, pkt, ahead), )+
                }
            }
            #[inline(always)]
            fn dequeue_marked(&mut self) -> bool {
                match self {
                    $( AnyQdisc::$v(q) => q.dequeue_marked(), )+
                }
            }
            #[inline(always)]
            fn len_pkts(&self) -> usize {
                match self {
                    $( AnyQdisc::$v(q) => q.len_pkts(), )+
                }
            }
            #[inline]
            fn len_bits(&self) -> u64 {
                match self {
                    $( AnyQdisc::$v(q) => q.len_bits(), )+
                }
            }
            fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
                match self {
                    $( AnyQdisc::$v(q) => q.for_each(f), )+
                }
            }
            fn set_rate(&mut self, now: SimTime, rate_bps: u64) {
                match self {
                    $( AnyQdisc::$v(q) => q.set_rate(now, rate_bps), )+
                }
            }
            fn series_value(&self, slot: usize) -> f64 {
                match self {
                    $( AnyQdisc::$v(q) => q.series_value(slot), )+
                }
            }
        }
    };
}
