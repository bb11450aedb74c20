//! The foundations every layer uses, depending on nothing else in the engine: integer
//! time (`time`), units and their parsing (`units`), seeded random streams (`rng`), a
//! ring buffer (`ring`), running statistics (`stats`), the series recorder (`trace`),
//! prefetch hints (`prefetch`), "did you mean" for misspelt names (`suggest`) and the parameter names of a serde configuration
//! (`fields`, for the component registries).

pub(crate) mod fields;
pub(crate) mod prefetch;
pub mod ring;
pub mod rng;
pub mod stats;
pub mod suggest;
pub mod time;
pub mod trace;
pub mod units;
