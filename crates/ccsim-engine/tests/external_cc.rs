//! Policies the front end defines (`cc::external`), registered here by a stand-in front
//! end written in Rust: a flow's `cc = "rust:Reno"` is checked by it while the scenario
//! is validated and built by it per flow, and runs through `AnyCc::Custom`; the built-in
//! Reno behind that box gives the built-in's results bit for bit. (This test binary is
//! its own process: the registration is process-wide.)

use ccsim_engine::cc::external::{set_external_policies, ExternalFlow, ExternalInfo, ExternalPolicies};
use ccsim_engine::cc::{CongestionControl, ExternalConfig, Recovery, Reno, RenoConfig};
use ccsim_engine::parse;
use ccsim_engine::sim::Simulation;

struct RustFront;

impl ExternalPolicies for RustFront {
    fn check(&self, name: &str, params: &toml::Table, source: &str) -> Result<ExternalInfo, String> {
        match name {
            "rust:Reno" if params.is_empty() => {
                Ok(ExternalInfo { series: vec![], recovery: Recovery::Reno, rate_sample: false })
            }
            "rust:Reno" => Err(format!("takes no parameters; given {} (in {source})", params.len())),
            "rust:Series" => Ok(ExternalInfo {
                series: vec!["a".into(), "b".into()],
                recovery: Recovery::NewReno,
                rate_sample: false,
            }),
            _ => Err(format!("no policy '{name}' here")),
        }
    }
    fn build(&self, _cfg: &ExternalConfig, flow: ExternalFlow<'_>) -> Box<dyn CongestionControl + Send> {
        Box::new(Reno::new(&RenoConfig::default(), flow.mss, flow.max_window))
    }
}

static FRONT: RustFront = RustFront;

const SCENARIO: &str = r#"
[scenario]
name = "external"
duration = "30s"
[defaults]
cc = "CC"
[nodes]
hosts = ["a1", "a2", "b"]
routers = ["r"]
[[links]]
between = ["a1", "r"]
rate = "100Mbps"
delay = "1ms"
[[links]]
between = ["a2", "r"]
rate = "100Mbps"
delay = "3ms"
[[links]]
between = ["r", "b"]
rate = "5Mbps"
delay = "10ms"
buffer = "15pkt"
[[flows]]
name = "f1"
from = "a1"
to = "b"
[[flows]]
name = "f2"
from = "a2"
to = "b"
start = "1s"
"#;

fn run(cc: &str, extra: &[&str]) -> String {
    let overrides: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let sc = parse(&SCENARIO.replace("CC", cc), "external.toml", &overrides).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(sc, Some(7));
    sim.run();
    let mut v: serde_json::Value = serde_json::from_str(&sim.results(0.0).to_json()).expect("results JSON");
    for f in v["flows"].as_array_mut().expect("flows") {
        f.as_object_mut().expect("a row").remove("cc");
    }
    v.to_string()
}

#[test]
fn a_policy_of_the_front_end_runs_as_the_built_in_it_wraps() {
    set_external_policies(&FRONT);
    let builtin = run("reno", &[]);
    let v: serde_json::Value = serde_json::from_str(&builtin).expect("JSON");
    let losses: u64 =
        v["flows"].as_array().expect("flows").iter().map(|f| f["fast_retransmits"].as_u64().expect("a count")).sum();
    assert!(losses > 0, "the run has losses to recover from");
    assert_eq!(run("rust:Reno", &[]), builtin);
    // The transport's parameters are the engine's, given among the policy's.
    assert_eq!(run("rust:Reno", &["defaults.params.min_rto=\"2s\""]), run("reno", &["defaults.params.min_rto=\"2s\""]));
}

#[test]
fn the_front_ends_checks_become_scenario_errors_and_export_keeps_the_name() {
    set_external_policies(&FRONT);
    let err = |cc: &str, extra: &[&str]| {
        let o: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        parse(&SCENARIO.replace("CC", cc), "external.toml", &o).expect_err("refused").to_string()
    };
    assert_eq!(err("rust:Cubic", &[]), "external.toml: defaults.cc: no policy 'rust:Cubic' here");
    assert_eq!(
        err("rust:Reno", &["defaults.params.gain=2"]),
        "external.toml: defaults.cc: takes no parameters; given 1 (in external.toml)"
    );
    // A transport parameter is checked by the engine, named by its field.
    assert!(err("rust:Reno", &["defaults.params.min_rto=\"0s\""]).contains("params.min_rto"));
    let sc = parse(&SCENARIO.replace("CC", "rust:Series"), "external.toml", &["defaults.params.gain=2".into()])
        .expect("valid");
    let text = sc.to_toml();
    assert!(text.contains("cc = \"rust:Series\""), "{text}");
    assert!(text.contains("gain = 2"), "{text}");
    // Its series are accepted by name.
    parse(&SCENARIO.replace("CC", "rust:Series"), "external.toml", &["measure.series=[\"f1.a\",\"f2.b\"]".into()])
        .expect("its own series");
}
