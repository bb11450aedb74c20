//! The benchmark scenario of `ccsim bench`: a dumbbell of N Reno flows (or N flows of
//! any registered congestion control, `dumbbell_cc` and `ccsim bench --cc NAME`).
//!
//! Sender i -- access link -- left router -- bottleneck -- right router -- access link --
//! receiver i. Access links run at ten times the bottleneck rate; the propagation RTT is
//! 100 ms (5 ms per access link, 40 ms on the bottleneck, each way); the bottleneck is
//! drop-tail with one bandwidth-delay product of buffer (rate x 100 ms / 1000 B); packets
//! are 1000 B, acks 40 B. Flows start 1 ms apart so they do not move in lock step.
//! `dumbbell_with` sets the bottleneck's queue discipline (both directions; `ccsim bench
//! --qdisc fq` runs Fair Queueing there), `dumbbell` keeps drop-tail.

use crate::base::time::SimDuration;
use crate::base::units::Limit;
use crate::cc::{CcConfig, RenoConfig};
use crate::scenario::{ChannelSpec, Flow, FlowSpec, Link, Node, QdiscConfig, Scenario, ScenarioError};

pub fn dumbbell(flows: u32, bottleneck_bps: u64, time: SimDuration) -> Result<Scenario, ScenarioError> {
    dumbbell_with(flows, bottleneck_bps, time, QdiscConfig::Fcfs(Default::default()))
}

/// The dumbbell with `qdisc` on both directions of the bottleneck (access links stay
/// drop-tail).
pub fn dumbbell_with(
    flows: u32,
    bottleneck_bps: u64,
    time: SimDuration,
    qdisc: QdiscConfig,
) -> Result<Scenario, ScenarioError> {
    dumbbell_cc(flows, bottleneck_bps, time, qdisc, CcConfig::Reno(RenoConfig::default()))
}

/// The dumbbell with `qdisc` on the bottleneck and every flow under `cc`.
pub fn dumbbell_cc(
    flows: u32,
    bottleneck_bps: u64,
    time: SimDuration,
    qdisc: QdiscConfig,
    cc: CcConfig,
) -> Result<Scenario, ScenarioError> {
    let err = |f: &str, m: &str| Err(ScenarioError::new("bench", f, m));
    if flows == 0 || flows > 100_000 {
        return err("flows", "must be between 1 and 100000");
    }
    if bottleneck_bps == 0 {
        return err("bottleneck", "must be positive");
    }
    if time == SimDuration::ZERO {
        return err("time", "must be positive");
    }
    let n = flows as usize;
    let mut nodes = vec![
        Node {
            name: "left".into(),
            router: true,
            processing_delay: SimDuration::ZERO,
            processing_jitter: SimDuration::ZERO,
        },
        Node {
            name: "right".into(),
            router: true,
            processing_delay: SimDuration::ZERO,
            processing_jitter: SimDuration::ZERO,
        },
    ];
    for i in 0..n {
        nodes.push(Node {
            name: format!("s{i}"),
            router: false,
            processing_delay: SimDuration::ZERO,
            processing_jitter: SimDuration::ZERO,
        });
    }
    for i in 0..n {
        nodes.push(Node {
            name: format!("r{i}"),
            router: false,
            processing_delay: SimDuration::ZERO,
            processing_jitter: SimDuration::ZERO,
        });
    }
    let bdp_pkts = ((bottleneck_bps as u128 * 100 / 1000) / 8000).max(1) as u64;
    let access = bottleneck_bps.saturating_mul(10);
    let both = |rate_bps: u64, delay: SimDuration, buffer: Limit, qdisc: QdiscConfig| {
        let d = ChannelSpec { rate_bps, delay, buffer, qdisc };
        [d.clone(), d]
    };
    let mut links = vec![Link {
        name: "bottleneck".into(),
        a: 0,
        b: 1,
        dirs: both(bottleneck_bps, SimDuration::from_millis(40), Limit::Packets(bdp_pkts), qdisc.clone()),
    }];
    for i in 0..n {
        for (host, router) in [(2 + i, 0), (2 + n + i, 1)] {
            links.push(Link {
                name: format!("{}-{}", nodes[host].name, nodes[router].name),
                a: host,
                b: router,
                dirs: both(
                    access,
                    SimDuration::from_millis(5),
                    Limit::Packets(bdp_pkts.max(100)),
                    QdiscConfig::Fcfs(Default::default()),
                ),
            });
        }
    }
    let flows = (0..n)
        .map(|i| Flow {
            name: format!("f{i}"),
            from: 2 + i,
            to: 2 + n + i,
            start: SimDuration::from_millis(i as u64 % 1000),
            stop: None,
            start_jitter: SimDuration::ZERO,
            path: vec![2 + i, 0, 1, 2 + n + i],
            ack_path: vec![2 + n + i, 1, 0, 2 + i],
            spec: FlowSpec::Window {
                cc: cc.clone(),
                loss: cc.default_loss_recovery(),
                data_size: 1000,
                ack_size: 40,
                max_window: 1_000_000,
                receiver: Default::default(),
                sender: Default::default(),
            },
        })
        .collect();
    Ok(Scenario {
        name: "bench-dumbbell".into(),
        description: format!(
            "{flows} {} flows over a {bottleneck_bps} bps {} dumbbell",
            cc.name(),
            qdisc.info().title,
            flows = n
        ),
        duration: time,
        seed: 1,
        max_events: None,
        max_wall: None,
        conversations: Default::default(),
        nodes,
        links,
        flows,
        phases: vec![],
        interval: None,
        series: vec![],
        sampling: None,
        delays: vec![],
        windows: vec![],
        measure_start: crate::base::time::SimDuration::ZERO,
        changes: vec![],
        elements: vec![],
    })
}

/// The congestion control of `ccsim bench --cc NAME`: any policy of the registry (a
/// name or an alias), with its default parameters.
pub fn cc_by_name(name: &str) -> Result<CcConfig, ScenarioError> {
    match CcConfig::ALL.iter().find(|i| i.answers_to(name)) {
        Some(info) => Ok((info.default)()),
        None => {
            let names: Vec<&str> = CcConfig::ALL.iter().map(|i| i.name).collect();
            Err(ScenarioError::new(
                "bench",
                "cc",
                format!("unknown congestion control '{name}'; use one of {}", names.join(", ")),
            ))
        }
    }
}

/// The bottleneck discipline of `ccsim bench --qdisc NAME`: any discipline of the
/// registry (a name or an alias), with its default parameters.
pub fn qdisc_by_name(name: &str) -> Result<QdiscConfig, ScenarioError> {
    match QdiscConfig::ALL.iter().find(|i| i.answers_to(name)) {
        Some(info) => Ok((info.default)()),
        None => {
            let names: Vec<&str> = QdiscConfig::ALL.iter().map(|i| i.name).collect();
            Err(ScenarioError::new(
                "bench",
                "qdisc",
                format!("unknown queue discipline '{name}'; use one of {}", names.join(", ")),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bench_runs_any_registered_policy_by_name_or_alias() {
        for info in CcConfig::ALL {
            for n in std::iter::once(&info.name).chain(info.aliases) {
                assert_eq!(cc_by_name(n).unwrap(), (info.default)(), "{n}");
            }
        }
        let sc = dumbbell_cc(
            2,
            1_000_000,
            SimDuration::from_secs(1),
            QdiscConfig::Fcfs(Default::default()),
            cc_by_name("jk").unwrap(),
        )
        .unwrap();
        assert_eq!(sc.description, "2 tahoe flows over a 1000000 bps drop-tail dumbbell");
        for f in &sc.flows {
            assert!(matches!(&f.spec, FlowSpec::Window { cc: CcConfig::Tahoe(_), .. }));
        }
        let e = cc_by_name("hstcp").unwrap_err();
        assert_eq!(e.field, "cc");
        assert_eq!(
            e.message,
            "unknown congestion control 'hstcp'; use one of generic, tahoe, reno, newreno, pp, da, vegas, delay_aimd, bbr"
        );
    }
}
