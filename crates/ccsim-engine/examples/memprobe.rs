fn hwm() -> String {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines().filter(|l| l.starts_with("VmHWM") || l.starts_with("VmRSS")).collect::<Vec<_>>().join(" ")
}
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = std::fs::read_to_string(&args[0]).unwrap();
    let sc = ccsim_engine::scenario::parse(&text, &args[0], &args[1..]).unwrap();
    eprintln!("parsed {}", hwm());
    let mut sim = ccsim_engine::sim::Simulation::new(sc, None);
    eprintln!("built flows={} {}", sim.flows.len(), hwm());
    sim.run();
    eprintln!("ran {}", hwm());
    let r = sim.results(0.0);
    eprintln!("results {}", hwm());
    drop(r);
}
