//! Criterion benchmarks: the event queue on a realistic pattern, and whole-scenario
//! throughput on the `ccsim bench` dumbbell (Reno flows, drop-tail bottleneck).

use ccsim_engine::bench::{dumbbell, dumbbell_with, qdisc_by_name};
use ccsim_engine::net::event::{Event, EventQueue};
use ccsim_engine::sim::Simulation;
use ccsim_engine::time::{SimDuration, SimTime};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

/// Hold-model benchmark: a queue of `n` pending events; each step pops the earliest and
/// schedules one later by a pseudo-random increment (as links and timers do).
fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue_hold");
    for n in [16usize, 256, 4096] {
        g.throughput(Throughput::Elements(100_000));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| {
                let mut q = EventQueue::with_capacity(n);
                let mut x: u64 = 0x2545_F491_4F6C_DD1D;
                for i in 0..n {
                    q.schedule(SimTime(i as u64 * 1000), Event::TxDone(i as u32));
                }
                for _ in 0..100_000 {
                    let (t, e) = q.pop_until(SimTime::MAX).unwrap();
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    q.schedule(SimTime(t.as_ps() + 1 + x % 1_000_000), e);
                }
                black_box(q.len())
            })
        });
    }
    g.finish();
}

fn dumbbell_run(c: &mut Criterion) {
    let mut g = c.benchmark_group("dumbbell");
    g.sample_size(10);
    // The second case is exactly `ccsim bench`'s default (the speed case).
    for (flows, rate, secs) in [(10u32, 10_000_000u64, 10u64), (100, 100_000_000, 60)] {
        let sc = dumbbell(flows, rate, SimDuration::from_secs(secs)).unwrap();
        // Packets delivered per run, for a throughput figure in packets/s.
        let mut probe = Simulation::new(sc.clone(), None);
        probe.run();
        let delivered = probe.results(0.0).delivered_pkts();
        g.throughput(Throughput::Elements(delivered));
        g.bench_function(format!("{flows}flows_{}Mbps_{secs}s", rate / 1_000_000), |b| {
            b.iter(|| {
                let mut s = Simulation::new(sc.clone(), None);
                s.run();
                black_box(s.events_processed())
            })
        });
    }
    g.finish();
}

/// Fair Queueing at the bottleneck with 10^4 flows (`ccsim bench --flows 10000 --qdisc fq`,
/// here over 1 simulated second): conversation lookup and longest-queue drops at scale.
fn dumbbell_fq(c: &mut Criterion) {
    let mut g = c.benchmark_group("dumbbell_fq");
    g.sample_size(10);
    let (flows, rate, secs) = (10_000u32, 1_000_000_000u64, 1u64);
    let sc = dumbbell_with(flows, rate, SimDuration::from_secs(secs), qdisc_by_name("fq").unwrap()).unwrap();
    let mut probe = Simulation::new(sc.clone(), None);
    probe.run();
    g.throughput(Throughput::Elements(probe.results(0.0).delivered_pkts()));
    g.bench_function(format!("{flows}flows_{}Mbps_{secs}s", rate / 1_000_000), |b| {
        b.iter(|| {
            let mut s = Simulation::new(sc.clone(), None);
            s.run();
            black_box(s.events_processed())
        })
    });
    g.finish();
}

/// The scenario-text path of `ccsim.loads` at 2000 and 8000 flows: the dumbbell's text
/// as `Scenario.check()` writes it (every route explicit) parsed and validated, and
/// exported back to JSON (`export_*`). Time per flow should stay flat from 2000 to 8000
/// flows (validation and export are linear in the flows).
fn validate_dumbbell(c: &mut Criterion) {
    let mut g = c.benchmark_group("validate_dumbbell");
    g.sample_size(10);
    for flows in [2000u32, 8000] {
        let text = dumbbell(flows, 10_000_000_000, SimDuration::from_secs(1)).unwrap().to_toml();
        g.throughput(Throughput::Elements(flows as u64));
        g.bench_function(format!("{flows}flows"), |b| {
            b.iter(|| black_box(ccsim_engine::scenario::parse(&text, "bench.toml", &[]).unwrap().flows.len()))
        });
        // The export back to JSON that `Scenario.check()` adds (also linear).
        let sc = ccsim_engine::scenario::parse(&text, "bench.toml", &[]).unwrap();
        g.bench_function(format!("export_{flows}flows"), |b| {
            b.iter(|| black_box(ccsim_engine::scenario::to_json(&sc).len()))
        });
    }
    g.finish();
}

criterion_group!(benches, event_queue, dumbbell_run, dumbbell_fq, validate_dumbbell);
criterion_main!(benches);
