//! The flow kinds of a scenario file (`[[flows]]` `kind = "..."`), for `ccsim list flow`
//! and docs/components.md: for each, the sender and receiver it pairs (names of
//! `Sender::ALL` and `Receiver::ALL`), the keys of `[[flows]]` it takes besides those
//! every flow takes (`COMMON_KEYS`) with their defaults, and the table of its own
//! parameters, read from its `Config` type. The validator (validate.rs) reads the keys
//! itself; the tests below hold this table to it (every default listed changes nothing
//! when written out, every key of another kind is refused, the sender and receiver are
//! the ones the simulation builds).

use crate::element::ParamDefault;
use crate::transport::rate_flow::RateFlow;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The keys every flow takes, whatever its kind.
pub const COMMON_KEYS: &[&str] = &["name", "kind", "count", "from", "to", "start", "start_jitter", "path", "ack_path"];

/// The default of a key of `[[flows]]`, as TOML text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyDefault {
    /// Required: an example value.
    Required(&'static str),
    /// Its default.
    Default(&'static str),
    /// Not set by default (docs/scenario-format.md says what that means): an example value.
    Unset(&'static str),
}

/// A key of `[[flows]]` one kind takes.
#[derive(Clone, Copy, Debug)]
pub struct FlowKey {
    pub name: &'static str,
    pub default: KeyDefault,
    /// Other keys it needs set, as TOML text (`""`: none).
    pub with: &'static str,
}

/// The table of a kind's own parameters.
#[derive(Clone, Copy, Debug)]
pub struct FlowParams {
    /// Its key in `[[flows]]`: `params` or `voice`.
    pub key: &'static str,
    /// Its required parameters with example values, as a TOML table (`""`: none).
    pub required: &'static str,
    /// Every parameter with its default, or for a required one the example's value.
    defaults: fn(&str) -> Vec<(&'static str, ParamDefault)>,
}

/// One flow kind (`FlowSpec::KINDS`).
#[derive(Clone, Copy, Debug)]
pub struct FlowKindInfo {
    /// What a scenario file gives in `kind = "..."` (`FlowSpec::kind`).
    pub name: &'static str,
    /// The sender it builds, a name of `Sender::ALL`.
    pub sender: &'static str,
    /// The receiver it builds, a name of `Receiver::ALL`.
    pub receiver: &'static str,
    /// One line for `ccsim list flow` and the docs.
    pub description: &'static str,
    /// Its keys besides `COMMON_KEYS` and its parameter table's.
    pub keys: &'static [FlowKey],
    /// Its own parameters; `None`: window flows, whose `params` are their congestion
    /// control's (`CcConfig::ALL`).
    pub params: Option<FlowParams>,
}

impl FlowKindInfo {
    /// Its own parameters with their defaults (empty for window flows).
    pub fn parameter_defaults(&self) -> Vec<(&'static str, ParamDefault)> {
        self.params.map(|p| (p.defaults)(p.required)).unwrap_or_default()
    }
}

impl FlowKey {
    /// The value of its default or example.
    pub fn value(&self) -> toml::Value {
        let (KeyDefault::Required(v) | KeyDefault::Default(v) | KeyDefault::Unset(v)) = self.default;
        let t: toml::Table = format!("v = {v}").parse().expect("a key's default is a TOML value");
        t["v"].clone()
    }

    /// Whether `[defaults]` sets it too (for every flow that leaves it out).
    pub fn in_defaults(&self) -> bool {
        crate::base::fields::field_names::<super::raw::Defaults>().contains(&self.name)
    }
}

/// The parameters of `T` (serde by field name, defaults by `#[serde(default)]`) given
/// only the `required` ones.
fn defaults_of<T: DeserializeOwned + Serialize>(required: &str) -> Vec<(&'static str, ParamDefault)> {
    let required: toml::Table = required.parse().expect("required parameters are a TOML table");
    let cfg: T = required.clone().try_into().expect("the required parameters' example is valid");
    let mut d = match toml::Value::try_from(&cfg) {
        Ok(toml::Value::Table(t)) => t,
        _ => toml::Table::new(),
    };
    crate::base::fields::field_names::<T>()
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

const fn key(name: &'static str, default: KeyDefault) -> FlowKey {
    FlowKey { name, default, with: "" }
}

const fn params<T: DeserializeOwned + Serialize>() -> FlowParams {
    FlowParams { key: "params", required: "", defaults: defaults_of::<T> }
}

use KeyDefault::{Default as D, Required as R, Unset as U};

const STOP: FlowKey = key("stop", U("\"5s\""));
const PACKET_SIZE: FlowKey = key("packet_size", D("\"1000B\""));
const ON: FlowKey = key("on", U("[[\"0s\", \"1s\"]]"));
const RATE_SENDER: &[FlowKey] = &[PACKET_SIZE, STOP];

const WINDOW: FlowKindInfo = FlowKindInfo {
    name: "window",
    sender: "Window",
    receiver: "Ack",
    description: "a reliable, congestion-controlled transfer (the default kind)",
    keys: &[
        key("cc", D("\"reno\"")),
        key("data_size", D("\"1000B\"")),
        key("ack_size", D("\"40B\"")),
        key("max_window", D("\"1000000pkt\"")),
        key("out_of_order", D("\"keep\"")),
        key("delayed_ack", D("false")),
        FlowKey { name: "ack_delay", default: D("\"200ms\""), with: "delayed_ack = true" },
        FlowKey { name: "ack_delay_min", default: U("\"40ms\""), with: "delayed_ack = true" },
        key("sack", D("false")),
        key("ecn", D("false")),
        key("rtt_sample", D("\"oldest\"")),
        key("tso", D("false")),
        key("handshake", D("false")),
        key("fast_retransmit", D("\"bsd\"")),
        FlowKey { name: "sack_timeout", default: D("\"keep\""), with: "sack = true" },
        FlowKey { name: "lost_retransmissions", default: D("\"detect\""), with: "sack = true" },
        FlowKey { name: "sack_recovery", default: D("\"rfc6675\""), with: "sack = true" },
        FlowKey { name: "ecn_echo", default: D("\"rfc3168\""), with: "ecn = true" },
        key("size", U("\"100kB\"")),
        STOP,
    ],
    params: None,
};

const CBR: FlowKindInfo = FlowKindInfo {
    name: "cbr",
    sender: "Source",
    receiver: "Sink",
    description: "constant bit rate, unresponsive, during its on periods",
    keys: &[key("rate", R("\"40kbps\"")), PACKET_SIZE, ON],
    params: None,
};

const POISSON: FlowKindInfo = FlowKindInfo {
    name: "poisson",
    sender: "Source",
    receiver: "Sink",
    description: "Poisson arrivals (exponential gaps), unresponsive, during its on periods",
    keys: &[key("mean_gap", R("\"0.5s\"")), PACKET_SIZE, ON],
    params: None,
};

const VOICE: FlowKindInfo = FlowKindInfo {
    name: "voice",
    sender: "Voice",
    receiver: "Voice",
    description: "one of Heybey's packet-voice users, talking to its partner flow; smart_link elements set its rate",
    keys: &[],
    params: Some(FlowParams {
        key: "voice",
        required: "partner = \"reply\"",
        defaults: defaults_of::<crate::transport::voice::VoiceConfig>,
    }),
};

/// The entry of a rate-sender kind (`transport::rate_flow`).
const fn rate_kind<T: RateFlow>() -> FlowKindInfo {
    FlowKindInfo {
        name: T::NAME,
        sender: T::SENDER,
        receiver: T::RECEIVER,
        description: T::DESCRIPTION,
        keys: RATE_SENDER,
        params: Some(params::<T>()),
    }
}

/// `FlowSpec::KINDS` from the lines of `rate_flows!` (transport/mod.rs).
macro_rules! kinds_table {
    ($( $v:ident : $module:ident :: $ty:ident ),+ $(,)?) => {
        impl super::FlowSpec {
            /// Every flow kind, in the order the validator names them: the rate senders
            /// in registration order between the sources and voice.
            pub const KINDS: &'static [FlowKindInfo] =
                &[WINDOW, CBR, POISSON, $( rate_kind::<crate::transport::$module::$ty>(), )+ VOICE];
        }
    };
}
crate::transport::rate_flows!(kinds_table);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{parse, FlowSpec, Scenario, ScenarioError};
    use crate::sim::Simulation;
    use crate::transport::{Receiver, Sender};

    /// A scenario with one flow "f" of `kind` from a to b (and for voice its partner
    /// "reply" back), its required keys and `extra` (TOML lines of the flow).
    fn scenario(info: &FlowKindInfo, extra: &str) -> Result<Scenario, ScenarioError> {
        let mut flow = format!("[[flows]]\nname = \"f\"\nkind = \"{}\"\nfrom = \"a\"\nto = \"b\"\n", info.name);
        for k in info.keys.iter().filter(|k| matches!(k.default, KeyDefault::Required(_))) {
            flow += &format!("{} = {}\n", k.name, k.value());
        }
        flow += extra;
        if let Some(p) = info.params.filter(|p| !p.required.is_empty()) {
            flow += &format!("[flows.{}]\n{}\n", p.key, p.required);
        }
        if info.name == "voice" {
            flow += "[[flows]]\nname = \"reply\"\nkind = \"voice\"\nfrom = \"b\"\nto = \"a\"\nvoice = { partner = \"f\" }\n";
        }
        let text = format!(
            "[scenario]\nname = \"t\"\nduration = \"10s\"\n[nodes]\nhosts = [\"a\", \"b\"]\nrouters = [\"r\"]\n\
             [[links]]\nbetween = [\"a\", \"r\"]\nrate = \"1Mbps\"\n[[links]]\nbetween = [\"r\", \"b\"]\nrate = \"1Mbps\"\n{flow}"
        );
        parse(&text, "t.toml", &[])
    }

    #[test]
    fn every_kind_builds_its_spec_sender_and_receiver() {
        let names: Vec<&str> = FlowSpec::KINDS.iter().map(|k| k.name).collect();
        assert_eq!(names, ["window", "cbr", "poisson", "cadpc", "rap", "tfrc", "tear", "voice"]);
        for info in FlowSpec::KINDS {
            let sc = scenario(info, "").unwrap_or_else(|e| panic!("{}: {e}", info.name));
            assert_eq!(sc.flows[0].spec.kind(), info.name);
            let sim = Simulation::new(sc, None);
            assert_eq!(sim.flows[0].sender.info().name, info.sender, "{}", info.name);
            assert_eq!(sim.flows[0].receiver.info().name, info.receiver, "{}", info.name);
            assert!(Sender::ALL.iter().any(|s| s.name == info.sender));
            assert!(Receiver::ALL.iter().any(|r| r.name == info.receiver));
        }
    }

    #[test]
    fn every_registered_sender_and_receiver_is_paired_by_a_kind() {
        // What docs/components.md lists of the endpoints comes from the kinds.
        for s in Sender::ALL {
            assert!(FlowSpec::KINDS.iter().any(|k| k.sender == s.name), "sender {} in no flow kind", s.name);
        }
        for r in Receiver::ALL {
            assert!(FlowSpec::KINDS.iter().any(|k| k.receiver == r.name), "receiver {} in no flow kind", r.name);
        }
    }

    #[test]
    fn an_unknown_kind_is_refused_naming_every_kind() {
        let mut bad = FlowSpec::KINDS[1];
        bad.name = "bbr";
        let e = scenario(&bad, "").unwrap_err().to_string();
        for info in FlowSpec::KINDS {
            assert!(e.contains(&format!("\"{}\"", info.name)), "{e}");
        }
    }

    #[test]
    fn every_default_listed_changes_nothing_and_every_unset_example_something() {
        for info in FlowSpec::KINDS {
            for k in info.keys.iter().filter(|k| !matches!(k.default, KeyDefault::Required(_))) {
                let with = if k.with.is_empty() { String::new() } else { format!("{}\n", k.with) };
                let base = scenario(info, &with).unwrap();
                let given = scenario(info, &format!("{with}{} = {}\n", k.name, k.value()));
                let given = given.unwrap_or_else(|e| panic!("{}.{}: {e}", info.name, k.name));
                match k.default {
                    KeyDefault::Default(_) => assert_eq!(given, base, "{}.{}", info.name, k.name),
                    _ => assert_ne!(given, base, "{}.{}", info.name, k.name),
                }
            }
            // A required key left out is refused, naming it.
            for k in info.keys.iter().filter(|k| matches!(k.default, KeyDefault::Required(_))) {
                let mut without = *info;
                without.keys = &[];
                let e = scenario(&without, "").unwrap_err();
                assert_eq!(e.field, format!("flows.f.{}", k.name));
            }
        }
    }

    #[test]
    fn every_key_of_another_kind_is_refused() {
        for info in FlowSpec::KINDS {
            let own = |n: &str| info.keys.iter().any(|k| k.name == n) || info.params.is_some_and(|p| p.key == n);
            for other in FlowSpec::KINDS {
                for k in other.keys.iter().filter(|k| !own(k.name)) {
                    let line = format!("{}\n{} = {}\n", k.with, k.name, k.value());
                    let e = scenario(info, &line).expect_err(&format!("{} takes {}", info.name, k.name));
                    assert!(e.field.starts_with("flows.f."), "{}.{}: {e}", info.name, k.name);
                }
                if let Some(p) = other.params.filter(|p| !own(p.key)) {
                    let extra = if info.name == "window" && p.key == "params" { continue } else { p.key };
                    let e = scenario(info, &format!("{extra} = {{}}\n"))
                        .expect_err(&format!("{} takes {extra}", info.name));
                    assert_eq!(e.field, format!("flows.f.{extra}"));
                }
            }
        }
    }

    #[test]
    fn every_key_of_a_flow_is_listed() {
        let mut listed: Vec<&str> = COMMON_KEYS.to_vec();
        listed.push("params");
        for info in FlowSpec::KINDS {
            listed.extend(info.keys.iter().map(|k| k.name));
            listed.extend(info.params.map(|p| p.key));
        }
        for n in crate::base::fields::field_names::<crate::scenario::raw::Flow>() {
            assert!(listed.contains(n), "[[flows]] key {n} is in no kind's list");
        }
    }

    #[test]
    fn parameters_come_from_the_config_with_their_defaults() {
        let tfrc = FlowSpec::KINDS.iter().find(|k| k.name == "tfrc").unwrap();
        let p = tfrc.parameter_defaults();
        // RFC 3448 4.4's 2 s initial nofeedback timer; t_mbi 64 s (section 4.3).
        assert!(p.contains(&("initial_nofeedback", ParamDefault::Default("2s".into()))), "{p:?}");
        assert!(p.contains(&("t_mbi", ParamDefault::Default("64s".into()))), "{p:?}");
        let voice = FlowSpec::KINDS.iter().find(|k| k.name == "voice").unwrap();
        let p = voice.parameter_defaults();
        assert_eq!(p[0], ("partner", ParamDefault::Required("reply".into())));
        assert!(p.contains(&("packet_rate", ParamDefault::Default(50.0.into()))), "{p:?}");
        assert!(FlowSpec::KINDS[0].parameter_defaults().is_empty());
    }
}
