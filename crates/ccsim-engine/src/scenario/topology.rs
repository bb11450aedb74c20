//! `[topology]`: the two datacenter fabrics as a scenario section, expanded into the
//! file's nodes and links before validation, with the names and link order of the Python
//! builders `Scenario.leaf_spine` and `Scenario.fat_tree` (tests/test_topologies.py
//! checks that both give the same scenario).
//!
//! - `leaf_spine`: `leaves` leaf routers `leaf<l>` of `hosts_per_leaf` hosts `h<l>-<i>`
//!   each (`host_rate`), every leaf linked to every spine `spine<s>` (`uplink_rate`).
//! - `fat_tree`: the k-ary fat-tree of Al-Fares, Loukissas and Vahdat ("A Scalable,
//!   Commodity Data Center Network Architecture", SIGCOMM 2008): k pods of k/2 edge
//!   routers `e<p>-<i>` and k/2 aggregation routers `a<p>-<j>`, (k/2)^2 core routers
//!   `c<j>-<m>` (core `c<j>-<m>` links to aggregation router j of every pod), k/2 hosts
//!   `h<p>-<i>-<h>` per edge router: k^3/4 hosts, every link `rate`.
//!
//! Every link takes `delay`, and `buffer` and `qdisc` if given (else `[defaults]`).

use super::raw;
use super::validate::Ctx;
use super::ScenarioError;
use toml::Value;

/// Most hosts a topology section may build.
const MAX_HOSTS: i64 = 1_000_000;

/// Adds the topology's nodes and links before the file's own.
pub(super) fn expand(cx: Ctx, table: &toml::Table, f: &mut raw::File) -> Result<(), ScenarioError> {
    let t: raw::Topology = cx.from_table("topology", table)?;
    let count = |k: &str, v: &Option<Value>, default: i64, min: i64| -> Result<i64, ScenarioError> {
        match v {
            None => Ok(default),
            Some(Value::Integer(n)) if (min..=MAX_HOSTS).contains(n) => Ok(*n),
            Some(v) => Err(cx.err(format!("topology.{k}"), format!("expected a whole number from {min}, found {v}"))),
        }
    };
    let quantity = |k: &str, v: &Option<Value>, default: &str| -> Result<Value, ScenarioError> {
        let v = v.clone().unwrap_or_else(|| Value::String(default.into()));
        let field = format!("topology.{k}");
        if k.ends_with("rate") {
            cx.rate(&field, &v)?;
        } else {
            cx.time(&field, &v)?;
        }
        Ok(v)
    };
    let not_for = |k: &str, present: bool, kind: &str| -> Result<(), ScenarioError> {
        if present {
            Err(cx.err(format!("topology.{k}"), format!("does not apply to kind = \"{kind}\"; remove it")))
        } else {
            Ok(())
        }
    };
    if let Some(b) = &t.buffer {
        cx.limit("topology.buffer", b)?;
    }
    if let Some(q) = &t.qdisc {
        cx.qdisc("topology.qdisc", q)?;
    }
    let delay = quantity("delay", &t.delay, "1us")?;
    let mut hosts: Vec<String> = Vec::new();
    let mut routers: Vec<String> = Vec::new();
    let mut links: Vec<raw::Link> = Vec::new();
    let mut link = |a: &str, b: &str, rate: &Value| {
        links.push(raw::Link {
            between: vec![a.to_string(), b.to_string()],
            rate: rate.clone(),
            delay: Some(delay.clone()),
            buffer: t.buffer.clone(),
            qdisc: t.qdisc.clone(),
            name: None,
        })
    };
    match t.kind.as_str() {
        "leaf_spine" => {
            for (k, present) in [("k", t.k.is_some()), ("rate", t.rate.is_some())] {
                not_for(k, present, "leaf_spine")?;
            }
            let leaves = count("leaves", &t.leaves, 8, 1)?;
            let per = count("hosts_per_leaf", &t.hosts_per_leaf, 16, 1)?;
            let spines = count("spines", &t.spines, 4, 1)?;
            if leaves * per > MAX_HOSTS {
                return Err(
                    cx.err("topology.hosts_per_leaf", format!("{leaves} x {per} hosts are more than {MAX_HOSTS}"))
                );
            }
            let host_rate = quantity("host_rate", &t.host_rate, "10Gbps")?;
            let uplink_rate = quantity("uplink_rate", &t.uplink_rate, "40Gbps")?;
            for l in 0..leaves {
                hosts.extend((0..per).map(|i| format!("h{l}-{i}")));
            }
            routers.extend((0..leaves).map(|l| format!("leaf{l}")));
            routers.extend((0..spines).map(|s| format!("spine{s}")));
            for l in 0..leaves {
                for i in 0..per {
                    link(&format!("h{l}-{i}"), &format!("leaf{l}"), &host_rate);
                }
            }
            for l in 0..leaves {
                for s in 0..spines {
                    link(&format!("leaf{l}"), &format!("spine{s}"), &uplink_rate);
                }
            }
        }
        "fat_tree" => {
            for (k, present) in [
                ("leaves", t.leaves.is_some()),
                ("hosts_per_leaf", t.hosts_per_leaf.is_some()),
                ("spines", t.spines.is_some()),
                ("host_rate", t.host_rate.is_some()),
                ("uplink_rate", t.uplink_rate.is_some()),
            ] {
                not_for(k, present, "fat_tree")?;
            }
            let k = count("k", &t.k, 8, 2)?;
            if k % 2 == 1 || k > 256 {
                return Err(cx.err("topology.k", format!("expected an even number from 2 to 256, found {k}")));
            }
            let half = k / 2;
            let rate = quantity("rate", &t.rate, "10Gbps")?;
            for p in 0..k {
                for i in 0..half {
                    hosts.extend((0..half).map(|h| format!("h{p}-{i}-{h}")));
                }
            }
            for p in 0..k {
                routers.extend((0..half).map(|i| format!("e{p}-{i}")));
                routers.extend((0..half).map(|j| format!("a{p}-{j}")));
            }
            for j in 0..half {
                routers.extend((0..half).map(|m| format!("c{j}-{m}")));
            }
            for p in 0..k {
                for i in 0..half {
                    for h in 0..half {
                        link(&format!("h{p}-{i}-{h}"), &format!("e{p}-{i}"), &rate);
                    }
                }
                for i in 0..half {
                    for j in 0..half {
                        link(&format!("e{p}-{i}"), &format!("a{p}-{j}"), &rate);
                    }
                }
                for j in 0..half {
                    for m in 0..half {
                        link(&format!("a{p}-{j}"), &format!("c{j}-{m}"), &rate);
                    }
                }
            }
        }
        other => {
            return Err(
                cx.err("topology.kind", format!("unknown topology '{other}'; use \"leaf_spine\" or \"fat_tree\""))
            )
        }
    }
    hosts.append(&mut f.nodes.hosts);
    routers.append(&mut f.nodes.routers);
    f.nodes.hosts = hosts;
    f.nodes.routers = routers;
    links.append(&mut f.links);
    f.links = links;
    Ok(())
}
