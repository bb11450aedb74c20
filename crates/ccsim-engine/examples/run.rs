//! Runs a scenario file and prints the results JSON (a development aid; the user-facing
//! command is `ccsim run`). Usage: cargo run --release --example run -- FILE [KEY=VALUE]...
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: run FILE [KEY=VALUE]...");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let t0 = Instant::now();
    match ccsim_engine::run_text(&text, path, &args[1..], None) {
        Ok(mut sim) => println!("{}", sim.results(t0.elapsed().as_secs_f64()).to_json()),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
