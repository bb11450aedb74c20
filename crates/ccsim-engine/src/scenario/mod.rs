//! Scenarios: the only input to the engine.
//!
//! `parse(text, source, overrides)` reads a TOML scenario file (format:
//! `docs/scenario-format.md`), applies `--set` overrides, and validates it into a
//! `Scenario` whose every field is typed and resolved (node indices, routes, units).
//! Every error is a `ScenarioError` naming the source, the field and the fix.

mod export;
mod kinds;
mod name;
mod overrides;
mod path;
pub mod raw;
mod topology;
mod validate;
mod warnings;
pub mod workload;

use crate::base::time::SimDuration;
use crate::base::units::Limit;
use crate::cc::CcConfig;
use crate::element::ElementConfig;
pub use crate::qdisc::QdiscConfig;
use crate::transport::receiver::ReceiverConfig;
use crate::transport::sender::SenderConfig;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

pub use export::{to_file, to_json};
pub use kinds::{FlowKey, FlowKindInfo, FlowParams, KeyDefault, COMMON_KEYS};
pub use name::Name;
pub use overrides::apply_overrides;
pub use path::NodePath;
pub use validate::shortest_path;

/// A user error in a scenario: `source: field: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or "<string>", "--set").
    pub source: String,
    /// Dotted path of the offending field, e.g. "links.bottleneck.rate"; may be empty.
    pub field: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl ScenarioError {
    pub fn new(source: &str, field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { source: source.to_string(), field: field.into(), message: message.into() }
    }
}

impl crate::element::Names for Scenario {
    fn flow(&self, i: usize) -> &str {
        &self.flows[i].name
    }
}

impl Scenario {
    /// The scenario as TOML text in the scenario-file schema (`to_file`).
    pub fn to_toml(&self) -> String {
        toml::to_string(&to_file(self)).expect("a scenario table serialises")
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.source, self.message)
        } else {
            write!(f, "{}: {}: {}", self.source, self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// A configuration that is valid but does nothing the user may expect (`warnings.rs`):
/// the field at fault, what happens instead, and how to fix it. Validation collects
/// them on the `Scenario`; the front ends show them once before a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// Dotted path of the field, e.g. "flows.c1.kind".
    pub field: String,
    /// What the run will do instead.
    pub message: String,
    /// How to make the configuration do what it says.
    pub fix: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}; {}", self.field, self.message, self.fix)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub name: Name,
    pub router: bool,
    pub processing_delay: SimDuration,
    /// Extra processing delay per packet arriving here, uniform in [0, this), from the
    /// channel's own random stream (packets keep their order).
    #[serde(default)]
    pub processing_jitter: SimDuration,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub name: Name,
    /// Node indices; the channels are a->b and b->a.
    pub a: usize,
    pub b: usize,
    /// The two directions: `dirs[0]` is a->b, `dirs[1]` b->a; links with equal
    /// directions may share them (the bench's access links, consecutive links written
    /// alike).
    pub dirs: Arc<[ChannelSpec; 2]>,
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChannelSpec {
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub buffer: Limit,
    pub qdisc: QdiscConfig,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FlowSpec {
    Window {
        cc: CcConfig,
        /// The transport's retransmission timer and fast retransmit (given among the
        /// policy's parameters in `[flows.params]`).
        loss: crate::cc::LossRecoveryConfig,
        data_size: u32,
        ack_size: u32,
        max_window: u32,
        receiver: ReceiverConfig,
        sender: SenderConfig,
    },
    /// Packets of `packet_bits` (Heybey's voice packets are not whole bytes).
    Cbr {
        rate_bps: u64,
        packet_bits: u32,
        on: Vec<(SimDuration, SimDuration)>,
    },
    Poisson {
        mean_gap: SimDuration,
        packet_bits: u32,
        on: Vec<(SimDuration, SimDuration)>,
    },
    /// A rate sender and its receiver, the kind and its parameters in `cfg`
    /// (`transport::rate_flow`).
    Rate {
        packet_bits: u32,
        cfg: crate::transport::RateFlowConfig,
    },
    /// A packet-voice user (Heybey; `transport::voice`); `partner` is a flow index.
    Voice {
        voice: crate::transport::voice::VoiceConfig,
        partner: usize,
    },
}

impl FlowSpec {
    pub fn kind(&self) -> &'static str {
        match self {
            FlowSpec::Window { .. } => "window",
            FlowSpec::Cbr { .. } => "cbr",
            FlowSpec::Poisson { .. } => "poisson",
            FlowSpec::Rate { cfg, .. } => cfg.name(),
            FlowSpec::Voice { .. } => "voice",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Flow {
    pub name: Name,
    pub from: usize,
    pub to: usize,
    pub start: SimDuration,
    /// No new data after this time (window flows); `None` = end of run.
    pub stop: Option<SimDuration>,
    /// The start (window flows) or the on periods (sources) are shifted by a uniform
    /// random time in [0, this), from the flow's own stream.
    #[serde(default)]
    pub start_jitter: SimDuration,
    /// Node indices from `from` to `to` (resolved route).
    pub path: NodePath,
    /// Node indices from `to` back to `from`: the route of acks and feedback (by
    /// default the reverse of `path`).
    pub ack_path: NodePath,
    /// What the flow is; flows with equal specs may share one (a `count`'s copies, the
    /// bench's flows, consecutive flows written alike): change one flow's with
    /// `Arc::make_mut`, which copies it first if it is shared.
    pub spec: Arc<FlowSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    pub name: String,
    pub start: SimDuration,
    pub end: SimDuration,
}

/// How the time series are sampled (`crate::base::trace` describes the buckets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sampling {
    /// `[measure].sample`: buckets of this width.
    Every(SimDuration),
    /// `[measure].max_points`: at most this many points per series, the width being the
    /// run's duration divided by it, rounded up to a whole picosecond.
    MaxPoints(u64),
}

impl Sampling {
    /// The bucket width over a run of `duration` (at least 1 ps).
    pub fn width(self, duration: SimDuration) -> SimDuration {
        match self {
            Sampling::Every(w) => w,
            Sampling::MaxPoints(n) => SimDuration::from_ps(duration.as_ps().div_ceil(n.max(1)).max(1)),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub at: SimDuration,
    /// Channel indices (link i gives channels 2i and 2i+1).
    pub channels: Vec<usize>,
    pub rate_bps: Option<u64>,
    pub delay: Option<SimDuration>,
}

/// An element placed on a channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElementSpec {
    /// Channel index: link i gives channels 2i (a->b) and 2i+1 (b->a).
    pub channel: usize,
    pub config: ElementConfig,
    /// Destination node of elements that send packets (resolved from the config).
    pub to: Option<usize>,
}

/// How flow-aware disciplines (Fair Queueing) split packets into conversations
/// (`[scenario].conversations`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Conversations {
    /// A flow's data packets are one conversation and its acks (or feedback) another;
    /// packets of no flow (elements' control packets) are one conversation per
    /// (sending node, destination host) pair.
    #[default]
    Flow,
    /// One conversation per (source host, destination host) pair, whatever flow a packet
    /// belongs to: the "conversation" of Demers, Keshav and Shenker (SIGCOMM 1989), as in
    /// Keshav's (1991) and Dabbous's (1992) simulations.
    HostPair,
}

/// How a flow without an explicit `path` is routed (`[scenario].routing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// The fewest-hops path, ties broken by the order links are declared.
    #[default]
    Shortest,
    /// Equal-cost multipath as htsim and datacenter studies do it: each flow takes one of
    /// the fewest-hops paths, every such path equally likely, chosen once per flow from
    /// its own random stream (the run's seed fixes it) and kept as its source route; its
    /// acks take the reverse path.
    Ecmp,
    /// Equal-cost multipath as switches hashing a flow's 5-tuple do it, hop by hop: at
    /// each router the flow takes one of its equal-cost next hops, each equally likely,
    /// by a hash of the flow (a draw from its own random stream, standing for its
    /// 5-tuple's hash) and the router (a salt per router from the run's seed, so
    /// routers do not polarise). Every branch is equally likely at each hop, not every
    /// path (the two differ where branches lead on to different numbers of paths).
    /// Kept as the flow's source route; acks take the reverse path.
    EcmpPerHop,
}

impl Routing {
    /// A flow without a path picks among equal-cost paths (either kind of ECMP).
    pub fn is_ecmp(self) -> bool {
        matches!(self, Routing::Ecmp | Routing::EcmpPerHop)
    }
}

/// A validated scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub duration: SimDuration,
    pub seed: u64,
    /// Stop after this many events; the results are then marked partial.
    #[serde(default)]
    pub max_events: Option<u64>,
    /// Stop after this much wall-clock time (the engine reads no clock: the binding
    /// enforces it); the results are then marked partial.
    #[serde(default)]
    pub max_wall: Option<SimDuration>,
    /// How Fair Queueing classifies packets into conversations.
    #[serde(default)]
    pub conversations: Conversations,
    /// How flows without a `path` are routed (`[scenario].routing`).
    #[serde(default)]
    pub routing: Routing,
    /// With `Routing::Ecmp`: the flows (indices) given neither `path` nor `ack_path`,
    /// whose route the run picks among the equal-cost paths (their `path` here is the
    /// deterministic shortest one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ecmp_flows: Vec<usize>,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    pub flows: Vec<Flow>,
    /// `[[workloads]]`: flows the run generates from its seed (`workload::expand`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<workload::Workload>,
    /// How many of `flows`, at the end, the workloads generated (0 until a run expands
    /// them); `to_file` leaves them out and writes the workloads.
    #[serde(default)]
    pub generated: usize,
    pub phases: Vec<Phase>,
    /// Fixed measurement interval, if any.
    pub interval: Option<SimDuration>,
    /// Requested time series, "<entity>.<metric>".
    pub series: Vec<String>,
    /// Sampling of the series (`[measure].sample` or `[measure].max_points`), if any.
    #[serde(default)]
    pub sampling: Option<Sampling>,
    /// Flows (indices) that keep delay statistics (`[measure].delays`).
    pub delays: Vec<usize>,
    /// Window flows (indices) that keep a histogram of their window (`[measure].windows`).
    #[serde(default)]
    pub windows: Vec<usize>,
    /// `[measure].delays = true` and `windows = true`: generated flows are measured too.
    #[serde(default)]
    pub delays_all: bool,
    #[serde(default)]
    pub windows_all: bool,
    /// Delay statistics and window histograms count from this time (`[measure].start`).
    #[serde(default)]
    pub measure_start: SimDuration,
    pub changes: Vec<Change>,
    pub elements: Vec<ElementSpec>,
    /// Valid configurations that silently do nothing (`Warning`), in field order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// Parses, overrides and validates a scenario file's text.
///
/// Without overrides the text is deserialised straight into the raw structs (no TOML
/// table in between: at 10^5 flows building and freeing that table cost as much as
/// parsing). Any error sends it down the table path, which gives the same result and
/// names the field of a serde error by the `name` of its array element.
pub fn parse(text: &str, source: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    parse_reading(text, source, overrides, &no_files)
}

/// How validation reads a file a scenario names (a workload's CDF file): the engine
/// reads no files itself, so the front end passes a reader that resolves the name
/// (relative to the scenario file) and returns the text or a message saying why not.
pub type ReadFile<'a> = &'a dyn Fn(&str) -> Result<String, String>;

/// The reader of `parse` and `parse_json`: none.
fn no_files(name: &str) -> Result<String, String> {
    Err(format!("cannot read '{name}' here (the engine reads no files; the ccsim front end does)"))
}

/// `parse`, reading the files a scenario names with `read`.
pub fn parse_reading(
    text: &str,
    source: &str,
    overrides: &[String],
    read: ReadFile,
) -> Result<Scenario, ScenarioError> {
    if overrides.is_empty() {
        if let Ok(raw) = toml::from_str::<raw::File>(text) {
            return validate::validate(raw, source, read);
        }
    }
    let table = || -> Result<toml::Table, ScenarioError> {
        let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| syntax_error(text, source, &e))?;
        apply_overrides(&mut table, overrides, source)?;
        Ok(table)
    };
    validate::validate(raw_from_table(table()?, source, table)?, source, read)
}

/// Parses a scenario given as JSON in the scenario-file schema (what `to_file` writes;
/// what Python passes for a dict).
pub fn parse_json(text: &str, source: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    parse_json_reading(text, source, overrides, &no_files)
}

/// `parse_json`, reading the files a scenario names with `read`.
pub fn parse_json_reading(
    text: &str,
    source: &str,
    overrides: &[String],
    read: ReadFile,
) -> Result<Scenario, ScenarioError> {
    let table = || -> Result<toml::Table, ScenarioError> {
        let mut table: toml::Table = serde_json::from_str(text).map_err(|e| {
            let msg = e.to_string();
            let hint = if msg.contains("null") { " (leave a key out instead of giving it no value)" } else { "" };
            ScenarioError::new(source, "", format!("not a scenario in JSON: {msg}{hint}"))
        })?;
        apply_overrides(&mut table, overrides, source)?;
        Ok(table)
    };
    validate::validate(raw_from_table(table()?, source, table)?, source, read)
}

/// Applies overrides to a scenario table and validates it.
pub fn parse_table(mut table: toml::Table, source: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    apply_overrides(&mut table, overrides, source)?;
    let copy = table.clone();
    validate::validate(raw_from_table(table, source, move || Ok(copy))?, source, &no_files)
}

/// Deserialises the raw structs from a scenario table, consuming it. The table is needed
/// again only to name the field of a serde error (by the `name` of its array element):
/// `again` then rebuilds it, so the common case copies nothing.
fn raw_from_table(
    table: toml::Table,
    source: &str,
    again: impl FnOnce() -> Result<toml::Table, ScenarioError>,
) -> Result<raw::File, ScenarioError> {
    serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| match again() {
        Ok(table) => {
            let field = validate::readable_path(&table, e.path());
            ScenarioError::new(
                source,
                field,
                explain_serde(crate::base::suggest::with_serde_hint(e.inner().message().trim())),
            )
        }
        Err(e) => e,
    })
}

fn syntax_error(text: &str, source: &str, e: &toml::de::Error) -> ScenarioError {
    let loc = e.span().map(|s| {
        let before = &text[..s.start.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
        format!("line {line}, column {col}")
    });
    let msg = e.message().trim().to_string();
    ScenarioError::new(
        source,
        "",
        format!("TOML syntax error{}: {msg}", loc.map(|l| format!(" at {l}")).unwrap_or_default()),
    )
}

fn explain_serde(msg: String) -> String {
    if msg.starts_with("unknown field") {
        format!("{msg}; remove it or fix its spelling (see docs/scenario-format.md)")
    } else if msg.starts_with("missing field") {
        format!("{msg}; add it (see docs/scenario-format.md)")
    } else {
        msg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: &str = "[scenario]\nname = \"x\"\nduration = \"1s\"\n[nodes]\nhosts = [\"a\", \"b\"]\n";

    #[test]
    fn unknown_key_error_is_one_line_naming_the_field() {
        let e =
            parse(&MIN.replace("duration = \"1s\"", "duration = \"1s\"\ncolour = \"red\""), "f.toml", &[]).unwrap_err();
        assert_eq!(e.source, "f.toml");
        assert_eq!(e.field, "scenario.colour");
        assert!(e.message.starts_with("unknown field `colour`"), "{}", e.message);
        assert!(!e.to_string().contains('\n'), "{e}");
    }

    #[test]
    fn serde_errors_name_the_element_with_and_without_overrides() {
        // Without overrides the text is read straight into the raw structs; an error
        // goes the table way, which names the array element by its name.
        let text = format!("{MIN}routers = [\"r\"]\n[[links]]\nbetween = [\"a\", \"r\"]\nrate = \"1Mbps\"\n[[links]]\nbetween = [\"r\", \"b\"]\nrate = \"1Mbps\"\n[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\ncolour = 1\n");
        for overrides in [vec![], vec!["scenario.seed=3".to_string()]] {
            let e = parse(&text, "f.toml", &overrides).unwrap_err();
            assert_eq!(e.field, "flows.f.colour");
            assert!(e.message.starts_with("unknown field `colour`"), "{}", e.message);
            let json =
                serde_json::to_string(&to_file(&parse(&text.replace("colour = 1\n", ""), "f.toml", &[]).unwrap()))
                    .unwrap();
            let e = parse_json(&json.replace("\"name\":\"f\",", "\"name\":\"f\",\"colour\":1,"), "f.json", &overrides)
                .unwrap_err();
            assert_eq!((e.source.as_str(), e.field.as_str()), ("f.json", "flows.f.colour"));
        }
        let e = parse(&text.replace("colour = 1", "start = 5"), "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "flows.f.start");
        assert!(e.message.contains("has no unit"), "{}", e.message);
    }

    #[test]
    fn misspelt_names_keys_and_values_get_a_suggestion() {
        let text = format!(
            "{MIN}[[links]]\nname = \"l\"\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n[[flows]]\nname = \"flow5\"\nfrom = \"a\"\nto = \"b\"\n"
        );
        let message = |overrides: &[&str]| {
            let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
            let e = parse(&text, "f.toml", &o).unwrap_err();
            format!("{}: {}", e.field, e.message)
        };
        // Case first: "Reno" and "RENO" are "reno", "FQ" is "fq".
        assert!(message(&["defaults.cc=Reno"]).contains("(did you mean 'reno'?)"));
        assert!(message(&["defaults.cc=RENO"]).contains("(did you mean 'reno'?)"));
        assert!(message(&["defaults.qdisc=FQ"]).contains("(did you mean 'fq'?)"));
        // A swap of two neighbours is one edit: "dealy" is "delay" (a key of serde's).
        let m = message(&["links.l.dealy=\"5ms\""]);
        assert!(m.starts_with("links.l.dealy: unknown field `dealy` (did you mean `delay`?), expected"), "{m}");
        // Values of serde's enums, flow kinds, parameters of a cc, element names.
        let m = message(&["flows.flow5.rtt_sample=\"Newest\""]);
        assert!(m.contains("(did you mean \"newest\"?)"), "{m}");
        assert!(message(&["flows.flow5.kind=windwo"]).contains("unknown flow kind 'windwo' (did you mean \"window\"?)"));
        let m = message(&["flows.flow5.cc=reno", "flows.flow5.params.min_rot=\"1s\""]);
        assert!(m.contains("unknown parameter for cc 'reno' (did you mean 'min_rto'?); valid:"), "{m}");
        let m = message(&["flows.Flow5.cc=reno"]);
        assert!(m.contains("has no element named 'Flow5' (did you mean 'flow5'?)"), "{m}");
        // Nothing near: no suggestion.
        assert!(!message(&["defaults.cc=quic"]).contains("did you mean"));
        assert!(!message(&["links.l.colour=1"]).contains("did you mean"));
    }

    #[test]
    fn an_unknown_flow_kind_is_refused_with_every_kinds_name() {
        let text = format!(
            "{MIN}[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n[[flows]]\nname = \"f\"\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\n"
        );
        let e = parse(&text, "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "flows.f.kind");
        assert_eq!(
            e.message,
            "unknown flow kind 'tcp'; use \"window\", \"cbr\", \"poisson\", \"cadpc\", \"rap\", \"tfrc\", \"tear\" or \"voice\""
        );
        // Each rate sender's name reads its own parameters: a key of another's is refused.
        let rate = text.replace("\"tcp\"", "\"rap\"") + "[flows.params]\nbeta = 0.875\n";
        assert!(matches!(*parse(&rate, "f.toml", &[]).unwrap().flows[0].spec, FlowSpec::Rate { .. }));
        let e = parse(&rate.replace("\"rap\"", "\"tfrc\""), "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "flows.f.params.beta");
    }

    #[test]
    fn an_unknown_congestion_control_is_refused_with_the_registrys_names() {
        let text = format!(
            "{MIN}[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\ncc = \"westwood\"\n"
        );
        let e = parse(&text, "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "flows.f.cc");
        assert_eq!(
            e.message,
            "unknown congestion control 'westwood'; use one of generic, tahoe (jk), reno, newreno, pp (packet_pair), da, \
             vegas, delay_aimd, dctcp, cubic, bbr, or a class written in Python as \"module:Class\""
        );
        // A near miss is named: one edit from "vegas", two from "reno", "jk" by alias.
        for (typo, meant) in [("vegass", "vegas"), ("rneo", "reno"), ("jj", "jk"), ("NewReno", "newreno")] {
            let e = parse(&text.replace("\"westwood\"", &format!("\"{typo}\"")), "f.toml", &[]).unwrap_err();
            let want = format!("unknown congestion control '{typo}' (did you mean '{meant}'?); use one of generic,");
            assert!(e.message.starts_with(&want), "{}", e.message);
        }
        // A name with a ':' is a class of the front end's (`cc::external`): without one
        // registered (the engine alone), the error says where it runs.
        let e = parse(&text.replace("\"westwood\"", "\"mycc:Reno\""), "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "flows.f.cc");
        assert!(
            e.message.starts_with(
                "'mycc:Reno' names a congestion control defined in Python (module:Class); run the scenario from the \
                 Python package"
            ),
            "{}",
            e.message
        );
        // Each name and alias of the registry is accepted.
        for info in crate::cc::CcConfig::ALL {
            for n in std::iter::once(&info.name).chain(info.aliases) {
                let sc = parse(&text.replace("\"westwood\"", &format!("\"{n}\"")), "f.toml", &[]).unwrap();
                match &*sc.flows[0].spec {
                    FlowSpec::Window { cc, .. } => assert_eq!(cc.name(), info.name),
                    other => panic!("{other:?}"),
                }
            }
        }
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let e = parse("[scenario\nname = 1", "f.toml", &[]).unwrap_err();
        assert!(e.message.starts_with("TOML syntax error at line 1"), "{}", e.message);
        assert!(!e.to_string().contains('\n'), "{e}");
    }

    #[test]
    fn every_scenario_file_survives_export_and_reparse() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let sc = parse(&text, "f.toml", &[]).unwrap();
            let again = parse(&sc.to_toml(), "export.toml", &[])
                .unwrap_or_else(|e| panic!("{}: {e}\n{}", path.display(), sc.to_toml()));
            assert_eq!(again, sc, "{}", path.display());
            let json = serde_json::to_string(&to_file(&sc)).unwrap();
            assert_eq!(parse_json(&json, "export.json", &[]).unwrap(), sc, "{}", path.display());
            // The direct JSON export writes the same document as the table.
            assert_eq!(to_json(&sc), json, "{}", path.display());
            n += 1;
        }
        assert!(n >= 7);
    }

    #[test]
    fn export_keeps_every_v2_option() {
        let text = format!(
            "{MIN}routers = [\"r\"]\n\
             [[links]]\nbetween = [\"a\", \"r\"]\nrate = [\"10Mbps\", \"1Mbps\"]\nqdisc = {{ kind = \"red\", min_th = \"3pkt\", ecn = true }}\n\
             [[links]]\nbetween = [\"r\", \"b\"]\nrate = \"1Mbps\"\nbuffer = [\"10pkt\", \"5000B\"]\n\
             [[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\ncc = \"newreno\"\nsack = true\necn = true\ndelayed_ack = true\nack_delay = \"40ms\"\nrtt_sample = \"newest\"\n\
             [flows.params]\ninitial_window = 3\nmin_rto = \"200ms\"\n\
             [[flows]]\nname = \"g\"\nfrom = \"a\"\nto = \"b\"\ncc = \"vegas\"\n[flows.params]\nalpha = 2\nbeta = 4\nrtt = \"min\"\n\
             [[flows]]\nname = \"d\"\ncount = 2\nfrom = \"a\"\nto = \"b\"\ncc = \"delay_aimd\"\ndelayed_ack = true\nack_delay_min = \"40ms\"\ntso = {{ defer = \"2ms\" }}\nhandshake = true\n[flows.params]\ntau0 = \"20ms\"\nper_packet = true\n\
             [[flows]]\nname = \"v\"\nkind = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"2kbps\"\npacket_size = \"44bit\"\non = [[\"0.2s\", \"0.5s\"]]\n\
             [[elements]]\nkind = \"random_loss\"\nat = \"a-r\"\nmodel = \"gilbert_elliott\"\np_gb = 0.1\np_bg = 0.5\n\
             [[elements]]\nkind = \"beacon\"\nat = \"r->b\"\nto = \"a\"\nperiod = \"100ms\"\n\
             [[changes]]\nat = \"0.5s\"\nchannel = \"r->b\"\nrate = \"2Mbps\"\n\
             [measure]\ndelays = true\nwindows = [\"d2\", \"f\"]\nstart = \"0.1s\"\n"
        );
        let sc = parse(&text, "f.toml", &[]).unwrap();
        assert_eq!(sc.flows.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["f", "g", "d1", "d2", "v"]);
        let again = parse(&sc.to_toml(), "export.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{}", sc.to_toml()));
        assert_eq!(again, sc);
        let toml = sc.to_toml();
        for want in [
            "rate = [\"10Mbps\", \"1Mbps\"]",
            "packet_size = \"44bit\"",
            "min_rto = \"200ms\"",
            "channel = \"r->b\"",
            "at = \"r->a\"",
            "ack_delay_min = \"40ms\"",
            "defer = \"2ms\"",
            "windows = [\"f\", \"d2\"]",
            "handshake = true",
        ] {
            assert!(toml.contains(want), "{want} missing from\n{toml}");
        }
    }

    #[test]
    fn equal_specs_and_link_directions_are_shared_and_export_as_before() {
        let text = format!(
            "{MIN}routers = [\"r\"]\n[[links]]\nbetween = [\"a\", \"r\"]\nrate = \"1Mbps\"\n[[links]]\nbetween = [\"r\", \"b\"]\nrate = \"1Mbps\"\n[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"2Mbps\"\n\
             [[flows]]\nname = \"f\"\ncount = 3\nfrom = \"a\"\nto = \"b\"\npath = [\"a\", \"r\", \"b\"]\n[[flows]]\nname = \"g\"\nfrom = \"a\"\nto = \"b\"\npath = [\"a\", \"r\", \"b\"]\n\
             [[flows]]\nname = \"h\"\nfrom = \"a\"\nto = \"b\"\npath = [\"a\", \"r\", \"b\"]\ndata_size = \"500B\"\n"
        );
        let sc = parse(&text, "f.toml", &[]).unwrap();
        let names: Vec<&str> = sc.flows.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["f1", "f2", "f3", "g", "h"]);
        // f1..f3 and g are written alike: one spec; h's data size differs: its own.
        let spec = |i: usize| &sc.flows[i].spec;
        assert!((1..4).all(|i| Arc::ptr_eq(spec(0), spec(i))));
        assert!(!Arc::ptr_eq(spec(0), spec(4)));
        assert!(matches!(&*sc.flows[4].spec, FlowSpec::Window { data_size: 500, .. }));
        // a-r and r-b alike share their directions; a-b (2 Mbps) has its own.
        assert!(Arc::ptr_eq(&sc.links[0].dirs, &sc.links[1].dirs));
        assert!(!Arc::ptr_eq(&sc.links[1].dirs, &sc.links[2].dirs));
        assert_eq!(sc.links[2].dirs[1].rate_bps, 2_000_000);
        assert_eq!(sc.flows[3].path, vec![0, 2, 1]);
        // Exported and read again: the same scenario, with the same sharing.
        let again = parse(&sc.to_toml(), "export.toml", &[]).unwrap();
        assert_eq!(again, sc);
        assert!(Arc::ptr_eq(&again.flows[0].spec, &again.flows[3].spec));
        // A change to one flow's spec copies it (the others keep theirs).
        let mut changed = sc.clone();
        if let FlowSpec::Window { data_size, .. } = Arc::make_mut(&mut changed.flows[1].spec) {
            *data_size = 700;
        }
        assert!(matches!(&*changed.flows[1].spec, FlowSpec::Window { data_size: 700, .. }));
        assert!(!matches!(&*changed.flows[0].spec, FlowSpec::Window { data_size: 700, .. }));
        assert_eq!(*changed.flows[0].spec, *sc.flows[0].spec);
        assert!(Arc::ptr_eq(&changed.flows[0].spec, &changed.flows[2].spec));
    }

    #[test]
    fn flow_copies_cycle_their_hosts_and_bad_counts_are_named() {
        let base = format!(
            "{MIN}routers = [\"r\"]\n[[links]]\nbetween = [\"a\", \"r\"]\nrate = \"1Mbps\"\n[[links]]\nbetween = [\"r\", \"b\"]\nrate = \"1Mbps\"\n"
        );
        let sc = parse(
            &format!("{base}[[flows]]\nname = \"f\"\ncount = 3\nfrom = [\"a\", \"b\"]\nto = [\"b\", \"a\"]\n"),
            "f.toml",
            &[],
        )
        .unwrap();
        let ends: Vec<(&str, usize, usize)> = sc.flows.iter().map(|f| (f.name.as_str(), f.from, f.to)).collect();
        assert_eq!(ends, [("f1", 0, 1), ("f2", 1, 0), ("f3", 0, 1)]);
        // A list without count gives one copy per host; --set count works by the name written.
        let one = format!("{base}[[flows]]\nname = \"f\"\nfrom = [\"a\", \"a\"]\nto = \"b\"\n");
        assert_eq!(parse(&one, "f.toml", &[]).unwrap().flows.len(), 2);
        assert_eq!(parse(&one, "f.toml", &["flows.f.count=5".into()]).unwrap().flows.len(), 5);
        let e = parse(&format!("{base}[[flows]]\nname = \"f\"\ncount = 0\nfrom = \"a\"\nto = \"b\"\n"), "f.toml", &[])
            .unwrap_err();
        assert_eq!(e.field, "flows.f.count");
        let e = parse(&format!("{base}[[flows]]\nname = \"f\"\nfrom = []\nto = \"b\"\n"), "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "flows.f.from");
        let e = parse(&format!("{base}[[flows]]\nname = \"f\"\nkind = \"cbr\"\nrate = \"1kbps\"\nfrom = \"a\"\nto = \"b\"\n[measure]\nwindows = [\"f\"]\n"), "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "measure.windows");
        let e = parse(&format!("{base}[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\ndelayed_ack = true\nack_delay_min = \"300ms\"\n"), "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "flows.f.ack_delay_min");
        let e = parse(
            &format!("{base}[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\ntso = {{ divisor = 0 }}\n"),
            "f.toml",
            &[],
        )
        .unwrap_err();
        assert_eq!(e.field, "flows.f.tso.divisor");
    }

    #[test]
    fn fq_drop_rule_and_go_back_n_parse_export_and_are_checked() {
        use crate::qdisc::{DropRule, FqConfig};
        use crate::transport::sender::FastRetransmit;
        let base = format!("{MIN}routers = [\"r\"]\n[[links]]\nbetween = [\"a\", \"r\"]\nrate = \"1Mbps\"\n[[links]]\nbetween = [\"r\", \"b\"]\nrate = \"1Mbps\"\n");
        let flows = "[[flows]]\nname = \"t\"\nfrom = \"a\"\nto = \"b\"\ncc = \"tahoe\"\n[[flows]]\nname = \"n\"\nfrom = \"a\"\nto = \"b\"\ncc = \"newreno\"\n";
        let text = format!("{base}{flows}");
        let o = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let sc = parse(
            &text,
            "f.toml",
            &o(&["defaults.qdisc={kind = \"fq\", drop_rule = \"rollback\"}", "defaults.fast_retransmit=go_back_n"]),
        )
        .unwrap();
        assert_eq!(sc.links[0].dirs[0].qdisc, QdiscConfig::Fq(FqConfig { drop_rule: DropRule::Rollback }));
        let fr = |name: &str| match &*sc.flows.iter().find(|f| f.name == name).unwrap().spec {
            FlowSpec::Window { sender, .. } => sender.fast_retransmit,
            _ => unreachable!(),
        };
        // [defaults] applies where it can: not to NewReno.
        assert_eq!((fr("t"), fr("n")), (FastRetransmit::GoBackN, FastRetransmit::Bsd));
        assert_eq!(parse(&sc.to_toml(), "export.toml", &[]).unwrap(), sc);
        assert_eq!(
            parse(&text, "f.toml", &o(&["defaults.qdisc=fq"])).unwrap().links[0].dirs[0].qdisc,
            QdiscConfig::Fq(FqConfig::default())
        );
        let e = parse(&text, "f.toml", &o(&["defaults.qdisc={kind = \"fq\", drop_rule = \"never\"}"])).unwrap_err();
        assert!(e.field.starts_with("defaults.qdisc"), "{}: {}", e.field, e.message);
        let e = parse(&text, "f.toml", &o(&["flows.n.fast_retransmit=go_back_n"])).unwrap_err();
        assert_eq!(e.field, "flows.n.fast_retransmit");
        let e = parse(&text, "f.toml", &o(&["defaults.fast_retransmit=later"])).unwrap_err();
        assert_eq!(e.field, "defaults.fast_retransmit");
    }

    #[test]
    fn sack_timeout_and_lost_retransmissions_default_export_and_need_sack() {
        use crate::transport::sender::SackTimeout;
        let base = format!("{MIN}[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n");
        let flows = "[[flows]]\nname = \"s\"\nfrom = \"a\"\nto = \"b\"\nsack = true\n[[flows]]\nname = \"p\"\nfrom = \"a\"\nto = \"b\"\n";
        let text = format!("{base}{flows}");
        let o = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let st = |sc: &Scenario, name: &str| match &*sc.flows.iter().find(|f| f.name == name).unwrap().spec {
            FlowSpec::Window { sender, .. } => sender.sack_timeout,
            _ => unreachable!(),
        };
        let sc = parse(&text, "f.toml", &[]).unwrap();
        assert_eq!(st(&sc, "s"), SackTimeout::Keep);
        let sc = parse(&text, "f.toml", &o(&["defaults.sack_timeout=clear"])).unwrap();
        assert_eq!(st(&sc, "s"), SackTimeout::Clear);
        assert_eq!(parse(&sc.to_toml(), "export.toml", &[]).unwrap(), sc);
        let e = parse(&text, "f.toml", &o(&["flows.p.sack_timeout=clear"])).unwrap_err();
        assert_eq!(e.field, "flows.p.sack_timeout");
        assert!(e.message.contains("sack = true"), "{}", e.message);
        let lr = |sc: &Scenario, name: &str| match &*sc.flows.iter().find(|f| f.name == name).unwrap().spec {
            FlowSpec::Window { sender, .. } => sender.lost_retransmissions,
            _ => unreachable!(),
        };
        use crate::transport::sender::LostRetransmissions;
        assert_eq!(lr(&parse(&text, "f.toml", &[]).unwrap(), "s"), LostRetransmissions::Detect);
        let sc = parse(&text, "f.toml", &o(&["defaults.lost_retransmissions=timer"])).unwrap();
        assert_eq!(lr(&sc, "s"), LostRetransmissions::Timer);
        assert_eq!(parse(&sc.to_toml(), "export.toml", &[]).unwrap(), sc);
        let e = parse(&text, "f.toml", &o(&["flows.p.lost_retransmissions=timer"])).unwrap_err();
        assert_eq!(e.field, "flows.p.lost_retransmissions");
        let e = parse(&text, "f.toml", &o(&["flows.s.lost_retransmissions=never"])).unwrap_err();
        assert!(e.message.contains("\"detect\"") && e.message.contains("\"timer\""), "{}", e.message);
        let e = parse(&text, "f.toml", &o(&["flows.s.sack_timeout=forget"])).unwrap_err();
        assert_eq!(e.field, "flows.s.sack_timeout");
        assert!(e.message.contains("\"keep\"") && e.message.contains("\"clear\""), "{}", e.message);
    }

    #[test]
    fn sack_recovery_defaults_to_rfc6675_exports_prr_and_refuses_what_it_cannot_do() {
        use crate::transport::sender::SackRecovery;
        let base = format!("{MIN}[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n");
        let flows = "[[flows]]\nname = \"s\"\nfrom = \"a\"\nto = \"b\"\nsack = true\n[[flows]]\nname = \"p\"\nfrom = \"a\"\nto = \"b\"\n";
        let text = format!("{base}{flows}");
        let o = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let sr = |sc: &Scenario, name: &str| match &*sc.flows.iter().find(|f| f.name == name).unwrap().spec {
            FlowSpec::Window { sender, .. } => sender.sack_recovery,
            _ => unreachable!(),
        };
        let sc = parse(&text, "f.toml", &[]).unwrap();
        assert_eq!(sr(&sc, "s"), SackRecovery::Rfc6675);
        assert!(!sc.to_toml().contains("sack_recovery"), "the default is left out of the export");
        let sc = parse(&text, "f.toml", &o(&["defaults.sack_recovery=prr"])).unwrap();
        assert_eq!((sr(&sc, "s"), sr(&sc, "p")), (SackRecovery::Prr, SackRecovery::Rfc6675));
        assert!(sc.to_toml().contains("sack_recovery = \"prr\""));
        assert_eq!(parse(&sc.to_toml(), "export.toml", &[]).unwrap(), sc);
        let e = parse(&text, "f.toml", &o(&["flows.p.sack_recovery=prr"])).unwrap_err();
        assert_eq!(e.field, "flows.p.sack_recovery");
        assert!(e.message.contains("sack = true"), "{}", e.message);
        let e = parse(&text, "f.toml", &o(&["flows.s.sack_recovery=pipe"])).unwrap_err();
        assert_eq!(e.field, "flows.s.sack_recovery");
        assert!(e.message.contains("\"rfc6675\"") && e.message.contains("\"prr\""), "{}", e.message);
        let e = parse(&text, "f.toml", &o(&["flows.s.sack_recovery=prr", "flows.s.cc=bbr"])).unwrap_err();
        assert_eq!(e.field, "flows.s.sack_recovery");
        assert!(e.message.contains("bbr"), "{}", e.message);
    }

    #[test]
    fn dctcp_flows_get_ecn_and_its_echo_unless_they_say_otherwise() {
        use crate::transport::receiver::EcnEcho;
        let base = format!("{MIN}[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n");
        let flow = |name: &str, extra: &str| format!("[[flows]]\nname = \"{name}\"\nfrom = \"a\"\nto = \"b\"\n{extra}");
        let text = format!(
            "{base}[defaults]\necn = true\necn_echo = \"rfc3168\"\n{}{}{}{}",
            flow("d", "cc = \"dctcp\"\n"),
            flow("off", "cc = \"dctcp\"\necn = false\n"),
            flow("r", "cc = \"reno\"\n"),
            flow("rd", "cc = \"reno\"\necn_echo = \"dctcp\"\n"),
        );
        let sc = parse(&text, "f.toml", &[]).unwrap();
        let ecn = |name: &str| match &*sc.flows.iter().find(|f| f.name == name).unwrap().spec {
            FlowSpec::Window { receiver, sender, .. } => {
                assert_eq!(receiver.ecn, sender.ecn, "{name}");
                (receiver.ecn, receiver.ecn_echo)
            }
            _ => unreachable!(),
        };
        // [defaults] applies to the flows whose policy does not need ECN; DCTCP's own
        // echo wins over it; the flow's own keys win over both.
        assert_eq!(ecn("d"), (true, EcnEcho::Dctcp));
        assert_eq!(ecn("off"), (false, EcnEcho::Rfc3168));
        assert_eq!(ecn("r"), (true, EcnEcho::Rfc3168));
        assert_eq!(ecn("rd"), (true, EcnEcho::Dctcp));
        assert_eq!(parse(&sc.to_toml(), "export.toml", &[]).unwrap(), sc);
        // Without [defaults], a DCTCP flow alone still gets both.
        let sc = parse(&format!("{base}{}", flow("d", "cc = \"dctcp\"\n")), "f.toml", &[]).unwrap();
        assert!(
            matches!(&*sc.flows[0].spec, FlowSpec::Window { receiver, .. } if receiver.ecn && receiver.ecn_echo == EcnEcho::Dctcp)
        );
        let e = parse(&format!("{base}{}", flow("r", "ecn_echo = \"dctcp\"\n")), "f.toml", &[]).unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), ("flows.r.ecn_echo", "applies with ECN; add ecn = true"));
        let e = parse(&format!("{base}{}", flow("r", "ecn = true\necn_echo = \"l4s\"\n")), "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "flows.r.ecn_echo");
        assert!(e.message.contains("\"rfc3168\"") && e.message.contains("\"dctcp\""), "{}", e.message);
    }

    #[test]
    fn unitless_rate_and_unknown_node_are_explained() {
        let base = format!("{MIN}routers = [\"r\"]\n[[links]]\nbetween = [\"a\", \"r\"]\nrate = \"1Mbps\"\n");
        let e =
            parse(&format!("{base}[[links]]\nbetween = [\"r\", \"b\"]\nrate = 1000000\n"), "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "links.r-b.rate");
        assert!(e.message.contains("has no unit"), "{}", e.message);
        let e = parse(&format!("{base}[[links]]\nbetween = [\"r\", \"zz\"]\nrate = \"1Mbps\"\n"), "f.toml", &[])
            .unwrap_err();
        assert_eq!(e.field, "links.r-zz.between");
        assert!(e.message.contains("unknown node 'zz'"), "{}", e.message);
        let e =
            parse(&format!("{base}[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n"), "f.toml", &[]).unwrap_err();
        assert_eq!(e.field, "flows.f.to");
        assert!(e.message.contains("no route from 'a' to 'b'"), "{}", e.message);
    }

    #[test]
    fn sampling_parses_from_the_file_and_from_set_exports_and_is_checked() {
        let base = format!("{MIN}[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n");
        let o = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(parse(&base, "f.toml", &[]).unwrap().sampling, None);
        let sc = parse(&format!("{base}[measure]\nseries = [\"f.cwnd\"]\nsample = \"10ms\"\n"), "f.toml", &[]).unwrap();
        assert_eq!(sc.sampling, Some(Sampling::Every(SimDuration::from_millis(10))));
        assert_eq!(parse(&sc.to_toml(), "export.toml", &[]).unwrap(), sc);
        assert!(sc.to_toml().contains("sample = \"10ms\""), "{}", sc.to_toml());
        // max_points = 3 over 1 s: buckets of 333333333334 ps (rounded up), so 3 of them.
        let sc = parse(&base, "f.toml", &o(&["measure.max_points=3"])).unwrap();
        assert_eq!(sc.sampling, Some(Sampling::MaxPoints(3)));
        assert_eq!(sc.sampling.unwrap().width(sc.duration), SimDuration::from_ps(333_333_333_334));
        assert!(sc.to_toml().contains("max_points = 3"), "{}", sc.to_toml());
        assert_eq!(parse(&sc.to_toml(), "export.toml", &[]).unwrap(), sc);
        // The width follows the duration; more points than picoseconds give 1 ps.
        let sc = parse(&base, "f.toml", &o(&["measure.max_points=1000", "scenario.duration=2s"])).unwrap();
        assert_eq!(sc.sampling.unwrap().width(sc.duration), SimDuration::from_millis(2));
        assert_eq!(Sampling::MaxPoints(10).width(SimDuration::from_ps(3)), SimDuration::from_ps(1));
        let sc = parse(&base, "f.toml", &o(&["measure.sample=250us"])).unwrap();
        assert_eq!(sc.sampling, Some(Sampling::Every(SimDuration::from_micros(250))));
        // Errors name the field, the value and the fix.
        let e = parse(&base, "f.toml", &o(&["measure.sample=10ms", "measure.max_points=100"])).unwrap_err();
        assert_eq!(e.field, "measure.max_points");
        assert!(e.message.contains("not both"), "{}", e.message);
        for bad in ["0", "-5", "2.5", "\"many\""] {
            let e = parse(&base, "f.toml", &o(&[&format!("measure.max_points={bad}")])).unwrap_err();
            assert_eq!(e.field, "measure.max_points");
            assert!(e.message.contains("at least 1") && e.message.contains(bad), "{}", e.message);
        }
        let e = parse(&base, "f.toml", &o(&["measure.sample=0s"])).unwrap_err();
        assert_eq!(e.field, "measure.sample");
        assert!(e.message.contains("positive"), "{}", e.message);
        let e = parse(&base, "f.toml", &o(&["measure.sample=10"])).unwrap_err();
        assert_eq!(e.field, "measure.sample");
    }

    #[test]
    fn conversations_default_to_flow_round_trip_through_set_and_export_and_are_checked() {
        let base = format!("{MIN}[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n");
        let o = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let sc = parse(&base, "f.toml", &[]).unwrap();
        assert_eq!(sc.conversations, Conversations::Flow);
        assert!(!sc.to_toml().contains("conversations"), "{}", sc.to_toml());
        assert_eq!(parse(&sc.to_toml(), "export.toml", &[]).unwrap(), sc);
        let sc = parse(&base, "f.toml", &o(&["scenario.conversations=host_pair"])).unwrap();
        assert_eq!(sc.conversations, Conversations::HostPair);
        assert!(sc.to_toml().contains("conversations = \"host_pair\""), "{}", sc.to_toml());
        assert_eq!(parse(&sc.to_toml(), "export.toml", &[]).unwrap(), sc);
        let json = serde_json::to_string(&to_file(&sc)).unwrap();
        assert_eq!(parse_json(&json, "export.json", &[]).unwrap(), sc);
        let sc =
            parse(&base.replace("[scenario]\n", "[scenario]\nconversations = \"host_pair\"\n"), "f.toml", &[]).unwrap();
        assert_eq!(sc.conversations, Conversations::HostPair);
        let sc = parse(&sc.to_toml(), "export.toml", &o(&["scenario.conversations=flow"])).unwrap();
        assert_eq!(sc.conversations, Conversations::Flow);
        // Errors name the field, the value and the fix.
        let e = parse(&base, "f.toml", &o(&["scenario.conversations=pair"])).unwrap_err();
        assert_eq!(e.field, "scenario.conversations");
        assert!(e.message.contains("'pair'") && e.message.contains("\"host_pair\""), "{}", e.message);
    }
}
