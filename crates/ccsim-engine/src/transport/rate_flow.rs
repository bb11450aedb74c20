//! Rate-sender flow kinds (`kind = "cadpc"`, `"rap"`, ...): a sender pacing packets of
//! `packet_size` at a rate it adapts, paired with the receiver that answers it, its
//! parameters one serde `Config` in `[flows.params]`.
//!
//! Adding one: a `Config` type implementing `RateFlow` in the kind's own file (its name,
//! description, checks and how to build its sender and receiver) and one line in
//! `rate_flows!` (transport/mod.rs). The `RateFlowConfig` enum, the scenario file's kind
//! names, validation, export, `FlowSpec::KINDS` (`ccsim list flow`) and the simulation's
//! build all derive from that line.

use super::{Receiver, Sender};
use crate::base::time::SimTime;
use crate::packet::{Packet, PacketKind};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A rate-sender flow kind, implemented by its parameters' type.
pub trait RateFlow: Clone + std::fmt::Debug + PartialEq + Default + Serialize + DeserializeOwned {
    /// What a scenario file gives in `kind = "..."`.
    const NAME: &'static str;
    /// One line for `ccsim list flow` and the docs.
    const DESCRIPTION: &'static str;
    /// The sender it builds, a name of `Sender::ALL`.
    const SENDER: &'static str;
    /// The receiver it builds, a name of `Receiver::ALL`.
    const RECEIVER: &'static str;
    /// The parameter at fault and why, if any is out of range.
    fn check(&self) -> Result<(), (&'static str, String)>;
    /// Its sender, sending copies of `data` until `stop`, and its receiver; `answer`
    /// makes the receiver's packet template (acks or feedback of a kind and size in
    /// bytes on the flow's ack route).
    fn build(&self, data: Packet, answer: &dyn Fn(PacketKind, u32) -> Packet, stop: SimTime) -> (Sender, Receiver);
}

/// Reads a `[flows.params]` table as a kind's `Config` (so the caller decides how
/// errors are reported; `RateFlowConfig::from_params`).
pub trait ReadParams {
    type Error;
    fn read<T: DeserializeOwned>(&self) -> Result<T, Self::Error>;
}

/// Generates `RateFlowConfig` from the lines of `rate_flows!` (`Variant: module::Config`).
macro_rules! rate_flow_config {
    ($( $v:ident : $module:ident :: $ty:ident ),+ $(,)?) => {
        /// The parameters of a rate-sender flow: one variant per registered kind.
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum RateFlowConfig {
            $( $v($module::$ty), )+
        }

        impl RateFlowConfig {
            /// Every registered kind's name, in registration order.
            pub const NAMES: &'static [&'static str] = &[$( <$module::$ty as rate_flow::RateFlow>::NAME, )+];

            /// The name a scenario file gives (`kind = "..."`).
            pub fn name(&self) -> &'static str {
                match self {
                    $( RateFlowConfig::$v(_) => <$module::$ty as rate_flow::RateFlow>::NAME, )+
                }
            }

            /// The kind named `name` with its parameters read by `read`; `None` if no
            /// kind has that name.
            pub fn from_params<R: rate_flow::ReadParams>(name: &str, read: &R) -> Option<Result<Self, R::Error>> {
                $(
                    if name == <$module::$ty as rate_flow::RateFlow>::NAME {
                        return Some(read.read::<$module::$ty>().map(RateFlowConfig::$v));
                    }
                )+
                None
            }

            /// The parameter at fault and why, if any is out of range.
            pub fn check(&self) -> Result<(), (&'static str, String)> {
                match self {
                    $( RateFlowConfig::$v(c) => rate_flow::RateFlow::check(c), )+
                }
            }

            /// Its parameters as a TOML table (scenario export).
            pub fn params(&self) -> Result<toml::Value, String> {
                match self {
                    $( RateFlowConfig::$v(c) => toml::Value::try_from(c).map_err(|e| e.to_string()), )+
                }
            }

            /// Its sender and receiver (`RateFlow::build`).
            pub fn build(
                &self,
                data: crate::packet::Packet,
                answer: &dyn Fn(crate::packet::PacketKind, u32) -> crate::packet::Packet,
                stop: crate::base::time::SimTime,
            ) -> (Sender, Receiver) {
                match self {
                    $( RateFlowConfig::$v(c) => rate_flow::RateFlow::build(c, data, answer, stop), )+
                }
            }
        }
    };
}
