//! Times the scenario-text path of `ccsim.loads` / `Scenario.check()` (a development aid
//! for profiling validation at scale): TOML parse, validation, and the export back to the
//! scenario-file schema as JSON.
//! Usage: cargo run --release --example check -- FILE
//!        cargo run --release --example check -- --dumbbell FLOWS
//! `--dumbbell FLOWS` checks the text of `ccsim bench`'s dumbbell (10 Gbps, 1 s) as
//! `Scenario.check()` writes it: every default filled in and every route explicit.
use ccsim_engine::{bench::dumbbell, scenario, time::SimDuration};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = match args.as_slice() {
        [flag, n] if flag == "--dumbbell" => {
            let n: u32 = n.parse().expect("a number of flows");
            dumbbell(n, 10_000_000_000, SimDuration::from_secs(1)).expect("valid bench arguments").to_toml()
        }
        [path] => std::fs::read_to_string(path).expect("a readable scenario file"),
        _ => {
            eprintln!("usage: check FILE | check --dumbbell FLOWS");
            std::process::exit(2);
        }
    };
    let t0 = Instant::now();
    let table: toml::Table = text.parse().expect("valid TOML");
    let t_toml = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let sc = match scenario::parse_table(table, "<check>", &[]) {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let t_validate = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    let json = serde_json::to_string(&scenario::to_file(&sc)).expect("scenario serialises");
    let t_export = t2.elapsed().as_secs_f64();
    println!(
        "bytes={} flows={} links={} toml={t_toml:.3}s validate={t_validate:.3}s export={t_export:.3}s total={:.3}s json_bytes={}",
        text.len(),
        sc.flows.len(),
        sc.links.len(),
        t_toml + t_validate + t_export,
        json.len()
    );
}
