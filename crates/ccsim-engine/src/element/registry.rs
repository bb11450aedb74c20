//! The registry of built-in network elements: the `ElementPolicy` trait each element
//! implements in its own file, the `ElementInfo` table entry, and the `registry!` macro
//! that turns one line per element (in `element/mod.rs`) into the `ElementConfig` and
//! `AnyElement` enums, their enum dispatch (a `match`, no vtable on the packet path) and
//! the table `ElementConfig::ALL`.

use super::Element;
use crate::base::rng::Rng;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What the registry needs to know of a built-in element, besides its hooks (`Element`).
pub trait ElementPolicy: Element + Sized {
    /// Its parameters, the keys of its `[[elements]]` table besides `kind` and `at`: serde
    /// by field name, unknown names refused with `#[serde(deny_unknown_fields)]`. An
    /// element without parameters has an empty struct.
    type Config: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned;
    /// What it measured, in the results' `elements` entry of its channel (after `kind`).
    type Report<'a>: Serialize
    where
        Self: 'a;
    /// The name a scenario file gives (`kind = "..."`).
    const NAME: &'static str;
    /// One line for `ccsim list element` and the docs.
    const DESCRIPTION: &'static str;
    /// Its parameters without a default, as a TOML example (`to = "sink"`); empty if
    /// every parameter has one.
    const REQUIRED: &'static str = "";
    /// The reasons it drops packets for, each named as a constant of `DropReason` in
    /// its file (`DropReason::element_named`); an element without one drops with
    /// `DropReason::Element`.
    const DROP_REASONS: &'static [&'static str] = &[];
    /// The element on one channel: `rng` is its own stream, `to` the node index of
    /// `destination` (resolved by validation).
    fn build(cfg: &Self::Config, rng: Rng, to: Option<u32>) -> Self;
    /// Checks the values; (parameter, message naming the value and the fix) for the
    /// first bad one. Default: every value accepted.
    fn check(_cfg: &Self::Config) -> Result<(), (&'static str, String)> {
        Ok(())
    }
    /// The host it sends packets to (its `to` parameter), if it sends any: validation
    /// checks that it is a host reached from each channel the element is on.
    fn destination(_cfg: &Self::Config) -> Option<&str> {
        None
    }
    /// Fills in the parameters whose default is a property of the channel the element
    /// is on (its rate, bits/s).
    fn on_channel(_cfg: &mut Self::Config, _rate_bps: u64) {}
    /// What it measured over the run.
    fn report<'a>(&'a self, names: &'a dyn Names) -> Self::Report<'a>;
}

/// What an element's report may name besides its own state: the scenario's names
/// (`Scenario` implements it), so that elements do not depend on the scenario module.
pub trait Names {
    /// The name of flow `i` (its index in the scenario).
    fn flow(&self, i: usize) -> &str;
}

/// One element of the registry (`ElementConfig::ALL`).
#[derive(Clone, Copy, Debug)]
pub struct ElementInfo {
    /// `ElementPolicy::NAME`.
    pub name: &'static str,
    /// `ElementPolicy::DESCRIPTION`.
    pub description: &'static str,
    /// `ElementPolicy::REQUIRED`.
    pub required: &'static str,
    /// `ElementPolicy::DROP_REASONS`.
    pub drop_reasons: &'static [&'static str],
    /// The names of its parameters (its `Config`'s fields), in declaration order.
    pub parameters: fn() -> &'static [&'static str],
    /// Its configuration with the required parameters of `required` and every other
    /// parameter at its default.
    pub example: fn() -> ElementConfigOf,
}

/// An element's configuration as `ElementInfo::example` gives it.
pub type ElementConfigOf = Result<super::ElementConfig, toml::de::Error>;

/// A parameter of `ElementInfo::parameter_defaults`.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamDefault {
    /// Required: the value of the example.
    Required(toml::Value),
    /// Its default.
    Default(toml::Value),
    /// Not set by default.
    Unset,
}

impl ElementInfo {
    /// Every parameter with its default (or, for a required one, the example's value).
    pub fn parameter_defaults(&self) -> Vec<(&'static str, ParamDefault)> {
        let required: toml::Table = self.required.parse().expect("REQUIRED is a TOML table");
        let mut d = (self.example)().expect("the example of REQUIRED is valid").params();
        (self.parameters)()
            .iter()
            .map(|&n| {
                let v = match (required.get(n), d.remove(n)) {
                    (Some(r), _) => ParamDefault::Required(r.clone()),
                    (None, Some(v)) => ParamDefault::Default(v),
                    (None, None) => ParamDefault::Unset,
                };
                (n, v)
            })
            .collect()
    }
}

/// Reads an element's parameters as its own `Config` type (so the caller decides how
/// errors are reported; `ElementConfig::from_params`).
pub trait ReadParams {
    type Error;
    fn read<T: DeserializeOwned>(&self) -> Result<T, Self::Error>;
}

/// The storage of an element's state: inline, or boxed (`Box`).
macro_rules! element_stored {
    ($t:ty) => { $t };
    ($t:ty, Box) => { Box<$t> };
}

/// The entry of `ElementPolicy::report` in the results: `kind`, then the report's fields.
#[derive(Serialize)]
struct Tagged<R> {
    kind: &'static str,
    #[serde(flatten)]
    report: R,
}

/// `ElementPolicy::report` of `e` as a results entry (`kind` and the report's fields).
pub(crate) fn tagged<E: ElementPolicy>(e: &E, names: &dyn Names) -> serde_json::Value {
    serde_json::to_value(Tagged { kind: E::NAME, report: e.report(names) }).expect("element reports serialise")
}

/// Declares the built-in elements, one `Variant: module::Type` per line (`, state in
/// Box` to store its state boxed in `AnyElement`). The variant's name in snake case is
/// the element's `NAME` (a test checks it). Generates the modules and re-exports,
/// `ElementConfig` (serde, tagged by `kind`), `AnyElement` with its enum dispatch of
/// `Element`, and `ElementConfig::ALL`.
macro_rules! registry {
    ($( $v:ident : $module:ident :: $ty:ident $(, state in $sbox:ident)? ;)+) => {
        /// Configuration of the built-in elements (`[[elements]]` in a scenario, tagged by
        /// `kind`): one variant per registered element.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        pub enum ElementConfig {
            $( $v(<$ty as ElementPolicy>::Config), )+
        }

        /// Enum dispatch of the built-in elements.
        #[derive(Clone, Debug)]
        pub enum AnyElement {
            $( $v(element_stored!($ty $(, $sbox)?)), )+
        }

        /// The drop reasons of the elements, in registration order.
        pub(crate) const ELEMENT_DROP_REASONS: &[&[&str]] = &[ $( <$ty as ElementPolicy>::DROP_REASONS, )+ ];

        impl ElementConfig {
            /// Every registered element, in registration order.
            pub const ALL: &'static [ElementInfo] = &[
                $(
                    ElementInfo {
                        name: <$ty as ElementPolicy>::NAME,
                        description: <$ty as ElementPolicy>::DESCRIPTION,
                        required: <$ty as ElementPolicy>::REQUIRED,
                        drop_reasons: <$ty as ElementPolicy>::DROP_REASONS,
                        parameters: crate::base::fields::field_names::<<$ty as ElementPolicy>::Config>,
                        example: || toml::from_str(<$ty as ElementPolicy>::REQUIRED).map(ElementConfig::$v),
                    },
                )+
            ];

            /// The name a scenario file gives (`kind = "..."`).
            pub fn name(&self) -> &'static str {
                match self {
                    $( ElementConfig::$v(_) => <$ty as ElementPolicy>::NAME, )+
                }
            }

            /// The element named `name` with the parameters `read` gives; `None` if no
            /// element has that name.
            pub fn from_params<R: ReadParams>(name: &str, read: &R) -> Option<Result<ElementConfig, R::Error>> {
                $(
                    if name == <$ty as ElementPolicy>::NAME {
                        return Some(read.read::<<$ty as ElementPolicy>::Config>().map(ElementConfig::$v));
                    }
                )+
                None
            }

            /// The element's parameters as a table (without `kind` and `at`).
            pub fn params(&self) -> toml::Table {
                let v = match self {
                    $( ElementConfig::$v(c) => toml::Table::try_from(c), )+
                };
                v.expect("element configs serialise to TOML")
            }

            /// Checks the values; (parameter, message) for the first bad one.
            pub fn check(&self) -> Result<(), (&'static str, String)> {
                match self {
                    $( ElementConfig::$v(c) => <$ty as ElementPolicy>::check(c), )+
                }
            }

            /// `ElementPolicy::destination`.
            pub fn destination(&self) -> Option<&str> {
                match self {
                    $( ElementConfig::$v(c) => <$ty as ElementPolicy>::destination(c), )+
                }
            }

            /// `ElementPolicy::on_channel`.
            pub fn on_channel(&mut self, rate_bps: u64) {
                match self {
                    $( ElementConfig::$v(c) => <$ty as ElementPolicy>::on_channel(c, rate_bps), )+
                }
            }

            /// Builds the element; `rng` is its own stream, `to` the resolved destination
            /// node of elements that send packets.
            pub fn build(&self, rng: Rng, to: Option<u32>) -> AnyElement {
                match self {
                    $( ElementConfig::$v(c) => AnyElement::$v(From::from(<$ty as ElementPolicy>::build(c, rng, to))), )+
                }
            }
        }

        impl AnyElement {
            /// What the element measured, as the results' JSON (`kind` and its report).
            pub fn report(&self, names: &dyn Names) -> serde_json::Value {
                match self {
                    $( AnyElement::$v(e) => registry::tagged::<$ty>(e, names), )+
                }
            }
        }

        impl Element for AnyElement {
            #[inline]
            fn on_arrival(&mut self, cx: &mut ElemCx, pkt: &mut Packet) -> ElemVerdict {
                match self {
                    $( AnyElement::$v(e) => e.on_arrival(cx, pkt), )+
                }
            }
            #[inline]
            fn on_transmit(&mut self, cx: &mut ElemCx, pkt: &mut Packet, ch: &ChannelView) {
                match self {
                    $( AnyElement::$v(e) => e.on_transmit(cx, pkt, ch), )+
                }
            }
            fn on_queue_event(&mut self, cx: &mut ElemCx, pkt: &Packet, ev: QueueEvent) {
                match self {
                    $( AnyElement::$v(e) => e.on_queue_event(cx, pkt, ev), )+
                }
            }
            fn first_timer(&self) -> Option<SimTime> {
                match self {
                    $( AnyElement::$v(e) => e.first_timer(), )+
                }
            }
            fn on_timer(&mut self, cx: &mut ElemCx) -> Option<SimTime> {
                match self {
                    $( AnyElement::$v(e) => e.on_timer(cx), )+
                }
            }
        }
    };
}
