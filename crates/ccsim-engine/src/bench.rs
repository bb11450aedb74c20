//! The benchmark scenario of `ccsim bench`: a dumbbell of N Reno flows (or N flows of
//! any registered congestion control, `dumbbell_cc` and `ccsim bench --cc NAME`).
//!
//! Sender i -- access link -- left router -- bottleneck -- right router -- access link --
//! receiver i. Access links run at ten times the bottleneck rate; the propagation RTT is
//! 100 ms (5 ms per access link, 40 ms on the bottleneck, each way); the bottleneck is
//! drop-tail with one bandwidth-delay product of buffer (rate x 100 ms / 1000 B); packets
//! are 1000 B, acks 40 B. Flows start 1 ms apart so they do not move in lock step.
//! `dumbbell_with` sets the bottleneck's queue discipline (both directions; `ccsim bench
//! --qdisc fq` runs Fair Queueing there), `dumbbell` keeps drop-tail; `dumbbell_sack`
//! gives every flow SACK (`ccsim bench --sack`).

use crate::base::time::SimDuration;
use crate::base::units::Limit;
use crate::cc::{CcConfig, RenoConfig};
use crate::scenario::{ChannelSpec, Flow, FlowSpec, Link, Node, NodePath, QdiscConfig, Scenario, ScenarioError};
use std::sync::Arc;

/// The most flows the bench builds: a million, about 2.5 GB (docs/performance.md, "A
/// million flows").
pub const MAX_FLOWS: u32 = 1_000_000;

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
    dumbbell_sack(flows, bottleneck_bps, time, qdisc, cc, false)
}

/// `dumbbell_cc`, with `sack` every flow's receiver sending SACK blocks and its sender
/// recovering with them (`sack = true` in a scenario, with that key's defaults); only
/// for a policy that has SACK recovery (`CcInfo::sack`).
pub fn dumbbell_sack(
    flows: u32,
    bottleneck_bps: u64,
    time: SimDuration,
    qdisc: QdiscConfig,
    cc: CcConfig,
    sack: bool,
) -> Result<Scenario, ScenarioError> {
    let err = |f: &str, m: &str| Err(ScenarioError::new("bench", f, m));
    if sack && !cc.info().sack {
        return Err(ScenarioError::new(
            "bench",
            "sack",
            format!(
                "SACK recovery works with {}; cc '{}' has none (drop --sack)",
                CcConfig::sack_names().join(", "),
                cc.name()
            ),
        ));
    }
    if flows == 0 || flows > MAX_FLOWS {
        return err("flows", "must be between 1 and 1000000 (a million flows need about 2.5 GB)");
    }
    if bottleneck_bps == 0 {
        return err("bottleneck", "must be positive");
    }
    if time == SimDuration::ZERO {
        return err("time", "must be positive");
    }
    let n = flows as usize;
    // (Both lists reserved at their final length: at 10^6 flows, growing by doubling
    // would leave 2^21 slots for 2 x 10^6 + 2 entries.)
    let mut nodes = Vec::with_capacity(2 + 2 * n);
    nodes.extend([
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
    ]);
    for i in 0..n {
        nodes.push(Node {
            name: format!("s{i}").into(),
            router: false,
            processing_delay: SimDuration::ZERO,
            processing_jitter: SimDuration::ZERO,
        });
    }
    for i in 0..n {
        nodes.push(Node {
            name: format!("r{i}").into(),
            router: false,
            processing_delay: SimDuration::ZERO,
            processing_jitter: SimDuration::ZERO,
        });
    }
    let bdp_pkts = bdp_pkts(bottleneck_bps);
    let access = bottleneck_bps.saturating_mul(10);
    let both = |rate_bps: u64, delay: SimDuration, buffer: Limit, qdisc: QdiscConfig| {
        let d = ChannelSpec { rate_bps, delay, buffer, qdisc };
        Arc::new([d.clone(), d])
    };
    // Every access link's directions are the same: one, shared.
    let access_dirs = both(
        access,
        SimDuration::from_millis(5),
        Limit::Packets(bdp_pkts.max(100)),
        QdiscConfig::Fcfs(Default::default()),
    );
    let mut links = Vec::with_capacity(1 + 2 * n);
    links.push(Link {
        name: "bottleneck".into(),
        a: 0,
        b: 1,
        dirs: both(bottleneck_bps, SimDuration::from_millis(40), Limit::Packets(bdp_pkts), qdisc.clone()),
    });
    for i in 0..n {
        for (host, router) in [(2 + i, 0), (2 + n + i, 1)] {
            links.push(Link {
                name: format!("{}-{}", nodes[host].name, nodes[router].name).into(),
                a: host,
                b: router,
                dirs: Arc::clone(&access_dirs),
            });
        }
    }
    let ecn_echo = cc.info().ecn_echo;
    // Every flow's spec is the same: one, shared.
    let spec = Arc::new(FlowSpec::Window {
        cc: cc.clone(),
        loss: cc.default_loss_recovery(),
        data_size: 1000,
        ack_size: 40,
        max_window: 1_000_000,
        // A policy that needs ECN (DCTCP) gets it, as in a scenario file.
        receiver: crate::transport::receiver::ReceiverConfig {
            ecn: ecn_echo.is_some(),
            ecn_echo: ecn_echo.unwrap_or_default(),
            sack_blocks: if sack { 3 } else { 0 },
            ..Default::default()
        },
        sender: crate::transport::sender::SenderConfig { ecn: ecn_echo.is_some(), sack, ..Default::default() },
    });
    let flows = (0..n)
        .map(|i| Flow {
            name: format!("f{i}").into(),
            from: 2 + i,
            to: 2 + n + i,
            start: SimDuration::from_millis(i as u64 % 1000),
            stop: None,
            start_jitter: SimDuration::ZERO,
            path: NodePath::new(&[2 + i, 0, 1, 2 + n + i]),
            ack_path: NodePath::new(&[2 + n + i, 1, 0, 2 + i]),
            spec: Arc::clone(&spec),
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
        routing: Default::default(),
        ecmp_flows: vec![],
        nodes,
        links,
        flows,
        workloads: vec![],
        generated: 0,
        phases: vec![],
        interval: None,
        series: vec![],
        sampling: None,
        delays: vec![],
        windows: vec![],
        delays_all: false,
        windows_all: false,
        measure_start: crate::base::time::SimDuration::ZERO,
        changes: vec![],
        elements: vec![],
        warnings: vec![],
    })
}

/// The dumbbell's bandwidth-delay product in 1000-byte packets (100 ms of the
/// bottleneck rate), at least one: the bottleneck's buffer.
fn bdp_pkts(bottleneck_bps: u64) -> u64 {
    ((bottleneck_bps as u128 * 100 / 1000) / 8000).max(1) as u64
}

/// The bottleneck discipline of `ccsim bench`: the one named (`--qdisc`) or, when none
/// is, drop-tail, or for a policy that needs ECN (DCTCP) the step marking it is designed
/// for (`step_marking`).
pub fn bottleneck_qdisc(cc: &CcConfig, bottleneck_bps: u64, name: Option<&str>) -> Result<QdiscConfig, ScenarioError> {
    match name {
        Some(n) => qdisc_by_name(n),
        None if cc.info().ecn_echo.is_some() => Ok(step_marking(bottleneck_bps)),
        None => Ok(QdiscConfig::Fcfs(Default::default())),
    }
}

/// DCTCP's step marking on the bench dumbbell, as ns-3's DCTCP example configures RED:
/// queue weight 1 (the instantaneous queue), min_th = max_th = K, ECN-capable packets
/// marked at and above K. K is the smallest whole number of packets above C x RTT / 7,
/// the bound of Alizadeh et al. (SIGCOMM 2010) section 3.4 (RFC 8257 section 4): at
/// 100 Mbit/s and 100 ms, 1250 / 7 = 178.6, so K = 179 packets.
pub fn step_marking(bottleneck_bps: u64) -> QdiscConfig {
    let k = Limit::Packets(bdp_pkts(bottleneck_bps) / 7 + 1);
    QdiscConfig::Red(Box::new(crate::qdisc::RedConfig {
        w_q: 1.0,
        min_th: k,
        max_th: k,
        ecn: true,
        ecn_above_max_th: true,
        ..Default::default()
    }))
}

/// The congestion control of `ccsim bench --cc NAME`: any policy of the registry (a
/// name or an alias), with its default parameters, or one the front end defines
/// (`module:Class`, `cc::external`) with none of its own.
pub fn cc_by_name(name: &str) -> Result<CcConfig, ScenarioError> {
    use crate::cc::ExternalConfig;
    if ExternalConfig::is_external(name) {
        let err = |m: String| ScenarioError::new("bench", "cc", m);
        return match ExternalConfig::checked(name, toml::Table::new(), "") {
            None => Err(err(format!(
                "'{name}' names a congestion control defined in Python; run the bench from the Python package"
            ))),
            Some(cfg) => Ok(CcConfig::External(Box::new(cfg.map_err(err)?))),
        };
    }
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
    fn dctcp_benches_on_step_marking_and_the_others_on_drop_tail_unless_told() {
        let dctcp = cc_by_name("dctcp").unwrap();
        let QdiscConfig::Red(red) = bottleneck_qdisc(&dctcp, 100_000_000, None).unwrap() else {
            panic!("dctcp's default bottleneck is RED");
        };
        // 100 Mbit/s x 100 ms = 1250 packets of 1000 B; 1250 / 7 = 178.6 -> K = 179.
        assert_eq!((red.min_th, red.max_th), (Limit::Packets(179), Limit::Packets(179)));
        assert_eq!((red.w_q, red.ecn, red.ecn_above_max_th), (1.0, true, true));
        // 10 Gbit/s: 125000 / 7 = 17857.1 -> 17858.
        let QdiscConfig::Red(red) = step_marking(10_000_000_000) else { unreachable!() };
        assert_eq!(red.max_th, Limit::Packets(17_858));
        let reno = cc_by_name("reno").unwrap();
        assert_eq!(bottleneck_qdisc(&reno, 100_000_000, None).unwrap().name(), "fcfs");
        assert_eq!(bottleneck_qdisc(&dctcp, 100_000_000, Some("fcfs")).unwrap().name(), "fcfs");
        assert_eq!(bottleneck_qdisc(&reno, 100_000_000, Some("nope")).unwrap_err().field, "qdisc");
    }

    #[test]
    fn the_bench_takes_up_to_a_million_flows() {
        let fcfs = || QdiscConfig::Fcfs(Default::default());
        let cc = || cc_by_name("reno").unwrap();
        for n in [0, MAX_FLOWS + 1] {
            let e = dumbbell_cc(n, 100_000_000_000, SimDuration::from_secs(1), fcfs(), cc()).unwrap_err();
            assert_eq!(e.field, "flows", "{n}");
            assert!(e.message.contains("1000000"), "{}", e.message);
        }
        assert_eq!(MAX_FLOWS, 1_000_000);
        // 1000 flows: 2 + 2 x 1000 nodes, 1 + 2 x 1000 links, no slot to spare (at 10^6
        // flows, growing by doubling would leave 2^21 slots for 2 x 10^6 + 2 nodes).
        let sc = dumbbell_cc(1000, 100_000_000_000, SimDuration::from_secs(1), fcfs(), cc()).unwrap();
        assert_eq!((sc.flows.len(), sc.nodes.len(), sc.links.len()), (1000, 2002, 2001));
        assert_eq!((sc.nodes.capacity(), sc.links.capacity()), (2002, 2001));
        // One spec for all 1000 flows, one pair of directions for all 2000 access links;
        // no name and no route takes a heap block of its own.
        assert!(sc.flows.iter().all(|f| Arc::ptr_eq(&f.spec, &sc.flows[0].spec)));
        assert_eq!(Arc::strong_count(&sc.flows[0].spec), 1000);
        assert!(sc.links[1..].iter().all(|l| Arc::ptr_eq(&l.dirs, &sc.links[1].dirs)));
        assert!(!Arc::ptr_eq(&sc.links[0].dirs, &sc.links[1].dirs), "the bottleneck's are its own");
        assert!(sc.flows.iter().all(|f| !f.name.on_heap() && !f.path.on_heap() && !f.ack_path.on_heap()));
        assert!(sc.nodes.iter().all(|n| !n.name.on_heap()) && sc.links.iter().all(|l| !l.name.on_heap()));
        assert_eq!((sc.links[2000].name.as_str(), &sc.flows[999].path[..]), ("r999-right", &[1001, 0, 1, 2001][..]));
    }

    #[test]
    fn sack_is_every_flows_and_only_for_policies_that_have_it() {
        let fcfs = || QdiscConfig::Fcfs(Default::default());
        let t = SimDuration::from_secs(1);
        let sc = dumbbell_sack(3, 100_000_000, t, fcfs(), cc_by_name("bbr").unwrap(), true).unwrap();
        let FlowSpec::Window { sender, receiver, .. } = &*sc.flows[2].spec else { panic!("a window flow") };
        assert!(sender.sack);
        assert_eq!(receiver.sack_blocks, 3, "as `sack = true` in a scenario");
        let sc = dumbbell_cc(3, 100_000_000, t, fcfs(), cc_by_name("bbr").unwrap()).unwrap();
        let FlowSpec::Window { sender, receiver, .. } = &*sc.flows[2].spec else { panic!("a window flow") };
        assert!(!sender.sack && receiver.sack_blocks == 0);
        let e = dumbbell_sack(3, 100_000_000, t, fcfs(), cc_by_name("tahoe").unwrap(), true).unwrap_err();
        assert_eq!(e.field, "sack");
        assert!(e.message.contains("'tahoe'") && e.message.contains("reno"), "{}", e.message);
    }

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
            assert!(matches!(&*f.spec, FlowSpec::Window { cc: CcConfig::Tahoe(_), .. }));
        }
        let e = cc_by_name("westwood").unwrap_err();
        assert_eq!(e.field, "cc");
        assert_eq!(
            e.message,
            "unknown congestion control 'westwood'; use one of generic, tahoe, reno, newreno, pp, da, vegas, delay_aimd, dctcp, cubic, bbr"
        );
    }
}
