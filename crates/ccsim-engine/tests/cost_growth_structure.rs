//! The structures every event touches stay bounded over a run: a structural counter
//! over the cases of `make bench-growth` (examples/cost_growth), run here without
//! valgrind and shorter (T = a fifth of the bench's). No wall clock.
//!
//! For every case the run of 4T is sampled at each T/4: the events pending in the event
//! queue, the metadata slots ever created (a leak of slots would raise it), and each Fair
//! Queueing channel's lazy heaps. After T, neither count may exceed twice its largest
//! value up to T plus 16 (one that grows with the time run reaches about 4 times its
//! value at T by 4T), and a Fair Queueing heap never holds more than 2 x its live
//! entries + `COMPACT_SLACK`. (Queues are bounded by their buffers; the pipes' nodes
//! count the packets in flight through events, which grow from none as queues build up
//! and packets stop being handed over at send time.)

#[path = "../examples/cost_growth/cases.rs"]
#[allow(dead_code)]
mod cases;

use ccsim_engine::qdisc::fq::COMPACT_SLACK;
use ccsim_engine::qdisc::AnyQdisc;
use ccsim_engine::time::SimTime;
use ccsim_engine::{parse, Simulation};

/// The run of 4T is sampled at each T/4.
const SAMPLES: u64 = 16;
/// The bench's T times this.
const SCALE: f64 = 0.2;

const NAMES: [&str; 2] = ["pending events", "metadata slots created"];

fn counts(sim: &Simulation) -> [usize; 2] {
    [sim.net.ev.len(), sim.net.meta.capacity()]
}

/// Checks every Fair Queueing channel's heaps; returns how many there are.
fn check_fq(sim: &Simulation, case: &str, t: SimTime) -> usize {
    let mut n = 0;
    for (i, ch) in sim.channels.iter().enumerate() {
        if let AnyQdisc::Fq(q) = &ch.qdisc {
            n += 1;
            let s = q.sizes();
            assert!(
                s.fluid_heap <= 2 * s.fluid_live + COMPACT_SLACK,
                "{case}, {} at {t:?}: {s:?}",
                sim.channel_name(i)
            );
            assert!(
                s.heads_heap <= 2 * s.heads_live + COMPACT_SLACK,
                "{case}, {} at {t:?}: {s:?}",
                sim.channel_name(i)
            );
        }
    }
    n
}

/// Runs until the clock passes `t` (or the run ends), in slices of 64 events. Not
/// `run_until`: it stops the hand-over of packets at send time at `t`, and a run cut so
/// every T/4 has more events than a plain one (142,578 against 76,223 for `fcfs-reno`
/// at 32 s, the same results), so its counts are not a plain run's; slices leave the run exactly as `run` does.
fn run_to(sim: &mut Simulation, t: SimTime) {
    while sim.now() < t && !sim.run_slice(64) {}
}

#[test]
fn counts_after_t_stay_within_twice_those_up_to_t() {
    let mut fq_cases = 0;
    for case in cases::cases() {
        let end_ps = (4.0 * case.t * SCALE * 1e12).round() as u64;
        let sc = parse(&case.text(4.0 * case.t * SCALE), case.name, &[format!("scenario.duration={end_ps}ps")])
            .unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulation::new(sc, None);
        let mut up_to_t = [0usize; 2];
        let mut after_t = [0usize; 2];
        let mut fq = 0;
        for k in 1..=SAMPLES {
            let t = SimTime::from_ps(end_ps / SAMPLES * k);
            run_to(&mut sim, t);
            let c = counts(&sim);
            let into = if k <= SAMPLES / 4 { &mut up_to_t } else { &mut after_t };
            for (m, v) in into.iter_mut().zip(c) {
                *m = (*m).max(v);
            }
            fq = check_fq(&sim, case.name, t);
        }
        fq_cases += (fq > 0) as usize;
        assert!(
            sim.events_processed() > 10_000,
            "{}: {} events: the case hardly runs",
            case.name,
            sim.events_processed()
        );
        for i in 0..NAMES.len() {
            assert!(
                after_t[i] <= 2 * up_to_t[i] + 16,
                "{}: {} up to T at most {}, after T {}",
                case.name,
                NAMES[i],
                up_to_t[i],
                after_t[i]
            );
        }
    }
    assert!(fq_cases >= 5, "the cases run Fair Queueing in {fq_cases} cases");
}
