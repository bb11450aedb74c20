//! Does any component's cost per event grow over a run? Runs small scenarios that together
//! use every queue discipline, element, congestion control and sender kind under
//! `valgrind --tool=callgrind`, and compares the instructions per event late in a run
//! with those early in it (`make bench-growth`; docs/performance.md, "Cost per event over
//! a run"). Not a test: callgrind is slow, and the figures are read, not asserted.
//!
//! The measure. Each case runs for 4T of simulated time in one process, in 16 segments of
//! T/4 (each ends with the first slice of 64 events that passes its end, `run_to`);
//! before the first segment and after each one the process calls
//! `ccsim_growth_checkpoint`, at whose entry callgrind writes the instructions counted
//! since the previous call (`--dump-before`). So the instructions of every
//! segment are known exactly, without the build of the simulation or the results, and
//! the events of each segment are read from `Simulation::events_processed`. The first
//! segment, [0, T/4), is warm-up (slow start, first allocations, buffers filling) and is
//! left out. Then
//!
//!   cost(T)  = instructions / events over [T/4, T)     (three segments)
//!   cost(4T) = instructions / events over [13T/4, 4T)  (the last three)
//!   ratio    = cost(4T) / cost(T)
//!
//! Equal windows, both after warm-up: a component whose cost per event grows with the
//! time run (or with the events, packets or drops so far) shows as a ratio above 1; one
//! that grows linearly from nothing at t = 0 would show about 5.8 (3.625T / 0.625T). The
//! run to T is the first quarter of the run to 4T (a run is deterministic, and none of
//! these scenarios depends on its duration before T). Also printed: `marginal`, the
//! instructions per event over [T, 4T) against [T/4, T) (the whole late part), which a
//! periodic cost (a sawtooth) moves less. A case with either figure above 1.05 is
//! flagged, and then the program exits with status 1.
//!
//! Usage: cargo run --release --example cost_growth -- [--jobs N] [--filter TEXT] [--scale X] [--segments] [--list]
//! (`--scale` multiplies every case's T; `--segments` also prints the instructions per
//! event of each segment; `--list` prints the cases and their event counts without
//! valgrind). `cost_growth run CASE T_SECONDS` is what valgrind runs;
//! `cost_growth toml CASE` prints a case's scenario file.

mod cases;

use cases::{cases, Case};
use ccsim_engine::time::SimTime;
use ccsim_engine::{parse, Simulation};
use std::path::Path;
use std::process::Command;

/// Segments of T/4 in a run of 4T.
const SEGMENTS: u64 = 16;
/// Segments left out as warm-up.
const WARMUP: usize = 1;
/// Segments in each compared window: [T/4, T) and [13T/4, 4T).
const WINDOW: usize = 3;
/// Ratios above this are flagged.
const FLAG: f64 = 1.05;

/// Called before the first segment and after each: callgrind dumps its counters at the
/// entry (`--dump-before=ccsim_growth_checkpoint`). `black_box` keeps the call.
#[inline(never)]
#[no_mangle]
pub extern "C" fn ccsim_growth_checkpoint(events: u64) -> u64 {
    std::hint::black_box(events)
}

/// Runs until the clock passes `t` (or the run ends), in slices of 64 events. Not
/// `run_until`: it stops the hand-over of packets at send time at `t`, and a run cut so
/// every T/4 has more events than a plain one (142,578 against 76,223 for `fcfs-reno`
/// at 32 s, the same results); slices leave the run exactly as `run` does.
fn run_to(sim: &mut Simulation, t: SimTime) {
    while sim.now() < t && !sim.run_slice(64) {}
}

/// Runs `case` for 4T in segments, calling the checkpoint before the first segment and
/// after each; returns the events processed at each checkpoint (cumulative).
fn run_case(case: &Case, t: f64) -> Vec<u64> {
    let end_ps = (4.0 * t * 1e12).round() as u64;
    let overrides = [format!("scenario.duration={}ps", end_ps)];
    let sc = parse(&case.text(4.0 * t), case.name, &overrides).unwrap_or_else(|e| panic!("case {}: {e}", case.name));
    let mut sim = Simulation::new(sc, None);
    let mut events = Vec::with_capacity(SEGMENTS as usize + 1);
    events.push(ccsim_growth_checkpoint(sim.events_processed()));
    for k in 1..=SEGMENTS {
        run_to(&mut sim, SimTime::from_ps(end_ps / SEGMENTS * k));
        events.push(ccsim_growth_checkpoint(sim.events_processed()));
    }
    events
}

fn find(name: &str) -> Case {
    cases().into_iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no case {name}"))
}

/// The `totals:` (or `summary:`) instruction count of one callgrind dump file.
fn dump_total(path: &Path) -> u64 {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with("totals:") || l.starts_with("summary:"))
        .unwrap_or_else(|| panic!("{}: no totals line", path.display()));
    line.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{}: bad totals line {line:?}", path.display()))
}

struct Measured {
    name: &'static str,
    covers: &'static str,
    t: f64,
    /// Instructions and events of each segment.
    ins: Vec<u64>,
    ev: Vec<u64>,
}

impl Measured {
    fn per_event(&self, from: usize, to: usize) -> f64 {
        let i: u64 = self.ins[from..to].iter().sum();
        let e: u64 = self.ev[from..to].iter().sum();
        i as f64 / e.max(1) as f64
    }
    fn early(&self) -> f64 {
        self.per_event(WARMUP, WARMUP + WINDOW)
    }
    fn late(&self) -> f64 {
        self.per_event(SEGMENTS as usize - WINDOW, SEGMENTS as usize)
    }
    fn marginal(&self) -> f64 {
        self.per_event(SEGMENTS as usize / 4, SEGMENTS as usize) / self.early()
    }
}

/// Runs one case under callgrind in `dir`.
fn measure(exe: &Path, dir: &Path, case: &Case, t: f64) -> Measured {
    let out = dir.join(case.name);
    std::fs::create_dir_all(&out).expect("create the output directory");
    let file = out.join("cg.out");
    let res = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--dump-before=ccsim_growth_checkpoint",
            "--dump-instr=no",
            "--dump-line=no",
            "--compress-strings=no",
        ])
        .arg(format!("--callgrind-out-file={}", file.display()))
        .arg(exe)
        .args(["run", case.name, &t.to_string()])
        .output()
        .expect("run valgrind (is it installed?)");
    if !res.status.success() {
        panic!("case {}: valgrind failed:\n{}", case.name, String::from_utf8_lossy(&res.stderr));
    }
    let stdout = String::from_utf8_lossy(&res.stdout);
    let events: Vec<u64> = stdout
        .lines()
        .find_map(|l| l.strip_prefix("events "))
        .expect("an events line")
        .split(',')
        .map(|v| v.parse().expect("a count"))
        .collect();
    assert_eq!(events.len(), SEGMENTS as usize + 1);
    // Dump k (1-based) holds what ran before the k-th checkpoint: dump 1 the build, dump
    // k + 1 segment k.
    let ins: Vec<u64> = (1..=SEGMENTS as usize).map(|k| dump_total(&out.join(format!("cg.out.{}", k + 1)))).collect();
    let ev: Vec<u64> = events.windows(2).map(|w| w[1] - w[0]).collect();
    let _ = std::fs::remove_dir_all(&out);
    Measured { name: case.name, covers: case.covers, t, ins, ev }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let (Some("toml"), Some(name)) = (args.first().map(String::as_str), args.get(1)) {
        let case = find(name);
        println!("{}", case.text(4.0 * case.t));
        return;
    }
    if args.first().map(String::as_str) == Some("run") {
        let (Some(name), Some(t)) = (args.get(1), args.get(2).and_then(|s| s.parse::<f64>().ok())) else {
            eprintln!("usage: cost_growth run CASE T_SECONDS");
            std::process::exit(2);
        };
        let ev = run_case(&find(name), t);
        println!("events {}", ev.iter().map(u64::to_string).collect::<Vec<_>>().join(","));
        return;
    }
    let mut jobs = 1usize;
    let mut filter = String::new();
    let mut scale = 1.0f64;
    let mut list = false;
    let mut segments = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--jobs" => jobs = it.next().and_then(|v| v.parse().ok()).filter(|&j| j > 0).expect("--jobs N (N >= 1)"),
            "--filter" => filter = it.next().expect("--filter TEXT").clone(),
            "--scale" => {
                scale = it.next().and_then(|v| v.parse().ok()).filter(|&x: &f64| x > 0.0).expect("--scale X (X > 0)")
            }
            "--list" => list = true,
            "--segments" => segments = true,
            _ => {
                eprintln!("usage: cost_growth [--jobs N] [--filter TEXT] [--scale X] [--segments] [--list]");
                std::process::exit(2);
            }
        }
    }
    let cases: Vec<Case> = cases().into_iter().filter(|c| c.name.contains(&filter)).collect();
    if cases.is_empty() {
        eprintln!("no case matches {filter:?} (--list shows them)");
        std::process::exit(2);
    }
    if list {
        for c in &cases {
            let ev = run_case(c, c.t * scale);
            println!(
                "{:<24} T = {:>4} s  events at T {:>8}, at 4T {:>8}  {}",
                c.name,
                c.t * scale,
                ev[SEGMENTS as usize / 4],
                ev[SEGMENTS as usize],
                c.covers
            );
        }
        return;
    }
    let exe = std::env::current_exe().expect("the path of this program");
    let dir = std::env::temp_dir().join(format!("ccsim-cost-growth-{}", std::process::id()));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(cases.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(c) = cases.get(i) else { break };
                let m = measure(&exe, &dir, c, c.t * scale);
                eprintln!("{:<24} {:.3}", m.name, m.late() / m.early());
                results.lock().expect("no panic while locked").push((i, m));
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let mut results = results.into_inner().expect("no panic while locked");
    results.sort_by_key(|r| r.0);
    println!("| case | covers | T (s) | events [T/4, T) | instr/event [T/4, T) | events [13T/4, 4T) | instr/event [13T/4, 4T) | ratio | marginal |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut flagged = 0;
    let (mut lo, mut hi, mut mlo, mut mhi) = (f64::MAX, 0f64, f64::MAX, 0f64);
    for (_, m) in &results {
        let ratio = m.late() / m.early();
        (lo, hi, mlo, mhi) = (lo.min(ratio), hi.max(ratio), mlo.min(m.marginal()), mhi.max(m.marginal()));
        let flag = if ratio > FLAG || m.marginal() > FLAG {
            flagged += 1;
            " **> 1.05**"
        } else {
            ""
        };
        let ev_early: u64 = m.ev[WARMUP..WARMUP + WINDOW].iter().sum();
        let ev_late: u64 = m.ev[SEGMENTS as usize - WINDOW..].iter().sum();
        println!(
            "| {} | {} | {} | {} | {:.0} | {} | {:.0} | {:.3}{flag} | {:.3} |",
            m.name,
            m.covers,
            m.t,
            ev_early,
            m.early(),
            ev_late,
            m.late(),
            ratio,
            m.marginal()
        );
    }
    if segments {
        println!();
        println!("Instructions per event in each segment of T/4:");
        println!();
        for (_, m) in &results {
            let each: Vec<String> = (0..SEGMENTS as usize).map(|k| format!("{:.0}", m.per_event(k, k + 1))).collect();
            println!("- {}: {}", m.name, each.join(" "));
        }
    }
    println!();
    println!("cases: {}; ratio {lo:.3}-{hi:.3}, marginal {mlo:.3}-{mhi:.3}; above {FLAG}: {flagged}", results.len());
    if flagged > 0 {
        std::process::exit(1);
    }
}
