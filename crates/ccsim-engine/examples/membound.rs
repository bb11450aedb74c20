//! What touching per-flow state costs on this machine, without the simulator: a model of
//! the engine's memory traffic at scale, for docs/performance.md ("The memory bound at
//! 10^4 flows").
//!
//! FLOWS records of BYTES each; per "packet" one record, chosen by a fixed pseudo-random
//! sequence (the order in which a dumbbell's flows take turns at the bottleneck is close
//! to random), has LINES of its cache lines read and written, spread over the record.
//! With AHEAD > 0 the lines of the packet AHEAD places later are hinted first (the
//! engine's `base/prefetch.rs` hints one or two events ahead). Prints nanoseconds per packet:
//! the cost of the memory traffic alone, with almost no other work.
//!
//! Usage: cargo run --release --example membound -- FLOWS BYTES LINES AHEAD [PACKETS]
//! e.g. `membound 10000 3072 18 2` (10^4 flows, about the engine's per-flow state, the
//! lines a delivered packet misses in the first-level cache) against `membound 100 3072
//! 18 2` (the same work with every record in the cache).

use std::time::Instant;

#[inline(always)]
fn hint(p: *const u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads no memory and cannot fault, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

fn main() {
    let a: Vec<usize> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
    if a.len() < 4 {
        eprintln!("usage: membound FLOWS BYTES LINES AHEAD [PACKETS]");
        std::process::exit(2);
    }
    let (flows, bytes, lines, ahead) = (a[0].max(1), a[1].max(64), a[2].max(1), a[3]);
    let packets = a.get(4).copied().unwrap_or(20_000_000);
    let words = bytes / 8;
    let per_record = bytes / 64;
    let lines = lines.min(per_record);
    let mut mem = vec![0u64; flows * words];
    // xorshift64: the same sequence every run.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let order: Vec<u32> = (0..packets + ahead)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % flows as u64) as u32
        })
        .collect();
    // The word offsets of the lines touched in a record, spread evenly over it.
    let offsets: Vec<usize> = (0..lines).map(|j| j * per_record / lines * 8).collect();
    let t = Instant::now();
    let mut acc = 0u64;
    for i in 0..packets {
        if ahead > 0 {
            let base = order[i + ahead] as usize * words;
            for &o in &offsets {
                hint(&mem[base + o]);
            }
        }
        let base = order[i] as usize * words;
        for &o in &offsets {
            let w = &mut mem[base + o];
            *w = w.wrapping_add(1);
            acc ^= *w;
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "flows={flows} bytes={bytes} lines={lines} ahead={ahead} state={:.1}MiB ns_per_packet={:.1} (check {})",
        (flows * bytes) as f64 / (1 << 20) as f64,
        secs * 1e9 / packets as f64,
        acc & 1
    );
}
