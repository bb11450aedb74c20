//! Warnings: scenario settings that validate but silently do nothing (`Warning`).
//!
//! Collected once, after validation, from the validated `Scenario` (results never
//! depend on them). Each names the field, what the run does instead and the fix:
//!
//! - a CADPC flow (Welzl 2003, section 3) learns its rate only from the records that
//!   `ptp` elements append to its PTP requests (section 2); with none on its data path
//!   its feedback never carries a measurement and it keeps `initial_rate` all run;
//! - a window flow that sends ECN-capable packets (`ecn = true`, or a policy that needs
//!   ECN, such as DCTCP) through no channel whose discipline marks (RFC 3168 section 5:
//!   only a router's active queue management sets CE): it never sees a mark, and a
//!   policy that reacts to marks behaves as on loss alone;
//! - `[measure].start` with neither `[measure].delays` nor `[measure].windows`: it
//!   delimits only those two measurements.
//!
//! Flows a `[[workloads]]` table generates exist only at run time and are not looked
//! at. A flow routed by ECMP is checked against every channel of the scenario (its path
//! is chosen at run time), so it is warned about only when no channel at all would do.

use super::{FlowSpec, Scenario, Warning};
use crate::element::ElementConfig;
use crate::transport::RateFlowConfig;
use std::collections::HashMap;

/// The warnings of a validated scenario: per kind one warning, naming the first flows
/// concerned and how many there are. `measure_start_given`: the file set
/// `[measure].start`.
pub(super) fn collect(sc: &Scenario, measure_start_given: bool) -> Vec<Warning> {
    let mut out = Vec::new();
    // Candidates first, so that a scenario without any pays for nothing more.
    let cadpc: Vec<usize> = (0..sc.flows.len())
        .filter(|&i| matches!(&*sc.flows[i].spec, FlowSpec::Rate { cfg: RateFlowConfig::Cadpc(_), .. }))
        .collect();
    let ecn: Vec<usize> = (0..sc.flows.len())
        .filter(|&i| matches!(&*sc.flows[i].spec, FlowSpec::Window { sender, .. } if sender.ecn))
        .collect();
    if !cadpc.is_empty() || !ecn.is_empty() {
        let channels = 2 * sc.links.len();
        let mut ptp = vec![false; channels];
        for e in &sc.elements {
            if matches!(e.config, ElementConfig::Ptp(_)) {
                ptp[e.channel] = true;
            }
        }
        let marks: Vec<bool> = if ecn.is_empty() {
            vec![false; channels]
        } else {
            sc.links.iter().flat_map(|l| l.dirs.iter().map(|d| qdisc_marks(&d.qdisc))).collect()
        };
        let pairs: HashMap<(usize, usize), usize> =
            sc.links.iter().enumerate().map(|(i, l)| ((l.a.min(l.b), l.a.max(l.b)), i)).collect();
        let (any_ptp, any_marks) = (ptp.contains(&true), marks.contains(&true));
        // Whether flow `i`'s data crosses a channel flagged in `on` (an ECMP flow: any
        // channel, its path being chosen at run time).
        let crosses = |i: usize, on: &[bool], any: bool| -> bool {
            if sc.ecmp_flows.binary_search(&i).is_ok() {
                return any;
            }
            sc.flows[i].path.windows(2).any(|hop| {
                pairs
                    .get(&(hop[0].min(hop[1]), hop[0].max(hop[1])))
                    .is_some_and(|&l| on[2 * l + usize::from(sc.links[l].a != hop[0])])
            })
        };
        let silent: Vec<usize> = cadpc.into_iter().filter(|&i| !crosses(i, &ptp, any_ptp)).collect();
        if let Some(&first) = silent.first() {
            let FlowSpec::Rate { cfg: RateFlowConfig::Cadpc(c), .. } = &*sc.flows[first].spec else { unreachable!() };
            out.push(Warning {
                field: format!("flows.{}.kind", sc.flows[first].name),
                message: format!(
                    "CADPC {} learn{} the rate only from PTP records, and no channel on the path ({}) has a ptp \
                     element: {} at its initial_rate ({} bit/s) for the whole run",
                    flows_named(sc, &silent),
                    if silent.len() == 1 { "s" } else { "" },
                    route(sc, first),
                    if silent.len() == 1 { "it stays" } else { "each stays" },
                    c.initial_rate
                ),
                fix: "add a ptp element on the routers' outgoing channels of the path, e.g. [[elements]] \
                      kind = \"ptp\" at = \"<router>-><next>\" (docs/scenario-format.md, \"Elements\")"
                    .into(),
            });
        }
        let unmarked: Vec<usize> = ecn.into_iter().filter(|&i| !crosses(i, &marks, any_marks)).collect();
        if let Some(&first) = unmarked.first() {
            let FlowSpec::Window { cc, .. } = &*sc.flows[first].spec else { unreachable!() };
            let why = match cc.info().ecn_echo {
                Some(_) => format!("its policy '{}' needs ECN and turns it on", cc.name()),
                None => "ecn = true".to_string(),
            };
            out.push(Warning {
                field: format!("flows.{}.ecn", sc.flows[first].name),
                message: format!(
                    "{} send{} ECN-capable packets ({why}), but no channel on the path ({}) has a discipline \
                     that marks them: no ECN mark will come, only losses",
                    flows_named(sc, &unmarked),
                    if unmarked.len() == 1 { "s" } else { "" },
                    route(sc, first)
                ),
                fix: "give a channel of the path a marking discipline, e.g. qdisc = { kind = \"red\", ecn = true } \
                      (or codel, fq_codel, pie with ecn = true), or leave ecn out"
                    .into(),
            });
        }
    }
    let measures = !sc.delays.is_empty() || !sc.windows.is_empty() || sc.delays_all || sc.windows_all;
    if measure_start_given && !measures {
        out.push(Warning {
            field: "measure.start".into(),
            message: "delimits only the delay statistics ([measure].delays) and the window histograms \
                      ([measure].windows), and neither is asked for: it changes nothing"
                .into(),
            fix: "add delays = true or windows = true to [measure] (or a list of flows), or remove start".into(),
        });
    }
    out
}

/// How many flows shown by name in a warning; the others are counted.
const NAMED: usize = 3;

/// "flow 'a'", or "flows 'a', 'b', 'c' and 7 more (10 flows)".
fn flows_named(sc: &Scenario, flows: &[usize]) -> String {
    let names: Vec<String> = flows.iter().take(NAMED).map(|&i| format!("'{}'", sc.flows[i].name)).collect();
    match flows.len() {
        1 => format!("flow {}", names[0]),
        n if n <= NAMED => format!("flows {}", names.join(", ")),
        n => format!("flows {} and {} more ({n} flows)", names.join(", "), n - NAMED),
    }
}

/// The node names of flow `i`'s path, "a -> r -> b".
fn route(sc: &Scenario, i: usize) -> String {
    let names: Vec<&str> = sc.flows[i].path.iter().map(|&n| sc.nodes[n].name.as_str()).collect();
    names.join(" -> ")
}

/// Whether a discipline configured so may set CE on ECN-capable packets: an `ecn`
/// parameter that is true, or a `ce_threshold` given (CoDel, FQ-CoDel).
fn qdisc_marks(q: &super::QdiscConfig) -> bool {
    let p = q.params();
    matches!(p.get("ecn"), Some(toml::Value::Boolean(true))) || p.contains_key("ce_threshold")
}

#[cfg(test)]
mod tests {
    use crate::scenario::parse;

    const NET: &str = r#"
[scenario]
name = "w"
duration = "2s"
[nodes]
hosts = ["src", "dst"]
routers = ["r"]
[[links]]
between = ["src", "r"]
rate = "10Mbps"
delay = "1ms"
[[links]]
name = "bottleneck"
between = ["r", "dst"]
rate = "1Mbps"
delay = "10ms"
"#;

    fn warnings(extra: &str, set: &[&str]) -> Vec<(String, String)> {
        let text = format!("{NET}{extra}");
        let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        let sc = parse(&text, "t.toml", &set).unwrap();
        sc.warnings.into_iter().map(|w| (w.field, w.message)).collect()
    }

    const CADPC: &str = "[[flows]]\nname = \"c1\"\nkind = \"cadpc\"\nfrom = \"src\"\nto = \"dst\"\n";

    #[test]
    fn cadpc_without_ptp_is_warned_about() {
        let w = warnings(CADPC, &[]);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, "flows.c1.kind");
        assert!(w[0].1.contains("src -> r -> dst"), "{}", w[0].1);
        assert!(w[0].1.contains("8000 bit/s"), "{}", w[0].1);
    }

    #[test]
    fn cadpc_with_ptp_on_its_path_is_not() {
        let ptp = "[[elements]]\nkind = \"ptp\"\nat = \"r->dst\"\n";
        assert!(warnings(&format!("{CADPC}{ptp}"), &[]).is_empty());
        // On the reverse channel only: its PTP requests never cross it.
        let back = "[[elements]]\nkind = \"ptp\"\nat = \"dst->r\"\n";
        assert_eq!(warnings(&format!("{CADPC}{back}"), &[]).len(), 1);
    }

    #[test]
    fn a_series_of_a_rate_flow_names_its_kind() {
        let text = format!("{NET}{CADPC}[measure]\nseries = [\"c1.rate\"]\n");
        let e = parse(&text, "t.toml", &[]).unwrap_err();
        assert_eq!(e.field, "measure.series");
        assert!(e.message.contains("flow 'c1' is a cadpc flow, which records no time series"), "{}", e.message);
        assert!(!e.message.contains("cwnd"), "{}", e.message);
    }

    const ECN: &str = "[[flows]]\nname = \"f1\"\nfrom = \"src\"\nto = \"dst\"\necn = true\n";

    #[test]
    fn ecn_without_a_marking_queue_is_warned_about() {
        let w = warnings(ECN, &[]);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, "flows.f1.ecn");
        // RED that marks on the bottleneck's forward channel: no warning.
        assert!(warnings(ECN, &["links.bottleneck.qdisc={kind=\"red\", ecn=true}"]).is_empty());
        // RED that drops (ecn = false, its default) marks nothing.
        assert_eq!(warnings(ECN, &["links.bottleneck.qdisc={kind=\"red\"}"]).len(), 1);
        // CoDel's ce_threshold marks without ecn = true.
        assert!(warnings(ECN, &["links.bottleneck.qdisc={kind=\"codel\", ce_threshold=\"1ms\"}"]).is_empty());
    }

    #[test]
    fn many_flows_alike_make_one_warning() {
        let four = "[[flows]]\nname = \"f\"\ncount = 4\nfrom = \"src\"\nto = \"dst\"\necn = true\n";
        let w = warnings(four, &[]);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, "flows.f1.ecn");
        assert!(w[0].1.starts_with("flows 'f1', 'f2', 'f3' and 1 more (4 flows) send ECN-capable"), "{}", w[0].1);
    }

    #[test]
    fn a_policy_that_needs_ecn_is_named() {
        let dctcp = "[[flows]]\nname = \"d1\"\nfrom = \"src\"\nto = \"dst\"\ncc = \"dctcp\"\n";
        let w = warnings(dctcp, &[]);
        assert_eq!(w.len(), 1);
        assert!(w[0].1.contains("its policy 'dctcp' needs ECN"), "{}", w[0].1);
    }

    #[test]
    fn measure_start_alone_is_warned_about() {
        let flow = "[[flows]]\nname = \"f1\"\nfrom = \"src\"\nto = \"dst\"\n";
        let w = warnings(&format!("{flow}[measure]\nstart = \"1s\"\n"), &[]);
        assert_eq!(w, vec![("measure.start".to_string(), w[0].1.clone())]);
        assert!(warnings(&format!("{flow}[measure]\nstart = \"1s\"\ndelays = true\n"), &[]).is_empty());
        assert!(warnings(flow, &[]).is_empty());
    }
}
