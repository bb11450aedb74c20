//! Times the scenario-text path of `ccsim.loads` / `Scenario.check()` (a development aid
//! for profiling validation at scale): TOML parse and validation (`scenario::parse`, all
//! that `ccsim.loads` does), then the export back to the scenario-file schema as JSON
//! (what `Scenario.check()` adds).
//! Usage: cargo run --release --example check -- FILE
//!        cargo run --release --example check -- --dumbbell FLOWS [--write FILE]
//!        cargo run --release --example check -- --plain FLOWS [--write FILE]
//! `--dumbbell FLOWS` checks the text of `ccsim bench`'s dumbbell (10 Gbps, 1 s) as
//! `Scenario.check()` writes it: every default filled in and every route explicit.
//! `--plain FLOWS` checks the same network written by hand: defaults left out, routes
//! searched. `--write FILE` also saves the text.
use ccsim_engine::{bench::dumbbell, scenario, time::SimDuration};
use std::fmt::Write;
use std::time::Instant;

/// The bench dumbbell as a person would write it (about 250 bytes a flow).
fn plain(n: u32) -> String {
    let mut t = String::from(
        "[scenario]\nname = \"plain\"\nduration = \"1s\"\n\n[nodes]\nrouters = [\"left\", \"right\"]\nhosts = [",
    );
    for i in 0..n {
        write!(t, "\"s{i}\", \"r{i}\", ").unwrap();
    }
    t.push_str("]\n\n[[links]]\nname = \"bottleneck\"\nbetween = [\"left\", \"right\"]\nrate = \"10Gbps\"\ndelay = \"40ms\"\nbuffer = \"125000pkt\"\n");
    for i in 0..n {
        write!(t, "\n[[links]]\nbetween = [\"s{i}\", \"left\"]\nrate = \"100Gbps\"\ndelay = \"5ms\"\nbuffer = \"125000pkt\"\n").unwrap();
        write!(t, "\n[[links]]\nbetween = [\"r{i}\", \"right\"]\nrate = \"100Gbps\"\ndelay = \"5ms\"\nbuffer = \"125000pkt\"\n").unwrap();
    }
    for i in 0..n {
        write!(t, "\n[[flows]]\nname = \"f{i}\"\nfrom = \"s{i}\"\nto = \"r{i}\"\nstart = \"{}ms\"\n", i % 1000)
            .unwrap();
    }
    t
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flows = |n: &str| -> u32 { n.parse().expect("a number of flows") };
    let (text, write) = match args.as_slice() {
        [flag, n, rest @ ..] if flag == "--dumbbell" || flag == "--plain" => {
            let text = if flag == "--plain" {
                plain(flows(n))
            } else {
                dumbbell(flows(n), 10_000_000_000, SimDuration::from_secs(1)).expect("valid bench arguments").to_toml()
            };
            match rest {
                [] => (text, None),
                [w, path] if w == "--write" => (text, Some(path.clone())),
                _ => usage(),
            }
        }
        [path] => (std::fs::read_to_string(path).expect("a readable scenario file"), None),
        _ => usage(),
    };
    if let Some(path) = write {
        std::fs::write(&path, &text).expect("a writable file");
    }
    // The TOML reading alone (into the raw structs, as `scenario::parse` does first).
    let t = Instant::now();
    let raw = toml::from_str::<scenario::raw::File>(&text);
    let t_toml = t.elapsed().as_secs_f64();
    drop(raw);
    let t0 = Instant::now();
    let sc = match scenario::parse(&text, "<check>", &[]) {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let t_parse = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let json = scenario::to_json(&sc);
    let t_export = t1.elapsed().as_secs_f64();
    if let Ok(path) = std::env::var("CHECK_JSON") {
        std::fs::write(path, &json).expect("a writable file");
    }
    let t2 = Instant::now();
    drop(sc);
    let t_free = t2.elapsed().as_secs_f64();
    println!(
        "bytes={} toml={t_toml:.3}s parse+validate={t_parse:.3}s (validate={:.3}s) export={t_export:.3}s free={t_free:.3}s total={:.3}s json_bytes={}",
        text.len(),
        t_parse - t_toml,
        t_parse + t_export + t_free,
        json.len()
    );
}

fn usage() -> ! {
    eprintln!("usage: check FILE | check --dumbbell FLOWS [--write FILE] | check --plain FLOWS [--write FILE]");
    std::process::exit(2);
}
