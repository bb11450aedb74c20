//! Prints a scenario file with every default filled in (the schema of `ccsim check`; a
//! development aid). Usage: cargo run --example export -- FILE [KEY=VALUE]...
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: export FILE [KEY=VALUE]...");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    match ccsim_engine::scenario::parse(&text, path, &args[1..]) {
        Ok(sc) => print!("{}", sc.to_toml()),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
