//! Sampled time series (`[measure].sample`, `[measure].max_points`) over whole runs:
//! bounded points, the extremes kept, and a run that is the same with or without them.

use ccsim_engine::{run_text, Results};
use serde_json::Value;

/// Two Reno flows through a 100 Mbps bottleneck whose queue changes at every arrival
/// and departure: about 20600 queue points per simulated second (two changes per
/// 1500-byte packet at 8333 packets/s, and more while the queue drains and fills).
const DUMBBELL: &str = r#"
[scenario]
name = "busy-queue"
duration = "177s"
[defaults]
cc = "reno"
[nodes]
hosts = ["s1", "s2", "d1", "d2"]
routers = ["l", "r"]
[[links]]
between = ["l", "r"]
rate = "100Mbps"
delay = "20ms"
buffer = "200pkt"
[[links]]
between = ["s1", "l"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["s2", "l"]
rate = "1Gbps"
delay = "5ms"
[[links]]
between = ["r", "d1"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["r", "d2"]
rate = "1Gbps"
delay = "1ms"
[[flows]]
name = "f1"
from = "s1"
to = "d1"
[[flows]]
name = "f2"
from = "s2"
to = "d2"
[measure]
series = ["l->r.queue", "f1.cwnd", "f1.rtt"]
"#;

fn run(overrides: &[&str]) -> Results {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = run_text(DUMBBELL, "busy.toml", &o, None).unwrap_or_else(|e| panic!("{e}"));
    sim.results(0.0)
}

/// The results JSON less what sampling may change (the series) and what never repeats
/// (the wall time).
fn counters(r: &Results) -> Value {
    let mut v: Value = serde_json::from_str(&r.to_json()).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("series");
    o.remove("wall_time_s");
    v
}

fn ps(t_s: f64) -> u64 {
    (t_s * 1e12).round() as u64
}

#[test]
fn max_points_bounds_a_series_of_millions_of_points_and_changes_no_counter() {
    // The whole run optimised (about 3.5 million queue points); a tenth of it unoptimised
    // (`debug_profile`, build.rs; the first 17.7 s: about 67 thousand).
    let (duration, full) =
        if cfg!(debug_profile) { ("scenario.duration=17.7s", 50_000) } else { ("scenario.duration=177s", 3_000_000) };
    let raw = run(&[duration]);
    let sampled = run(&[duration, "measure.max_points=1000"]);
    assert!(counters(&raw) == counters(&sampled), "sampling changed a counter");
    for (r, s) in raw.series.iter().zip(&sampled.series) {
        assert_eq!(r.name, s.name);
        assert!(s.t.len() <= 1000 && !s.t.is_empty(), "{}: {} points", s.name, s.t.len());
        assert_eq!((r.sample_s, r.min.is_none(), r.max.is_none()), (None, true, true));
        let (min, max) = (s.min.as_ref().unwrap(), s.max.as_ref().unwrap());
        assert_eq!((min.len(), max.len()), (s.t.len(), s.t.len()));
        // The run's extremes survive, and the last point is the last sample.
        let fold = |v: &[f64], f: fn(f64, f64) -> f64| v.iter().copied().reduce(f).unwrap();
        assert_eq!(fold(min, f64::min), fold(&r.v, f64::min), "{}", s.name);
        assert_eq!(fold(max, f64::max), fold(&r.v, f64::max), "{}", s.name);
        assert_eq!((s.t.last(), s.v.last()), (r.t.last(), r.v.last()), "{}", s.name);
    }
    let queue = raw.series.iter().find(|s| s.name == "l->r.queue").unwrap();
    assert!(queue.t.len() > full, "the queue series has {} points unsampled", queue.t.len());
}

#[test]
fn each_sampled_point_is_its_buckets_last_sample_with_the_buckets_extremes() {
    let raw = run(&["scenario.duration=2s"]);
    let sampled = run(&["scenario.duration=2s", "measure.sample=7ms"]);
    assert!(counters(&raw) == counters(&sampled), "sampling changed a counter");
    let width = 7_000_000_000u64;
    // 2 s in buckets of 7 ms: 285 whole ones and a last of 5 ms.
    let last_bucket = (ps(2.0) - 1) / width;
    assert_eq!(last_bucket, 285);
    for (r, s) in raw.series.iter().zip(&sampled.series) {
        assert_eq!(s.sample_s, Some(0.007));
        assert!(s.t.len() <= 286);
        let (min, max) = (s.min.as_ref().unwrap(), s.max.as_ref().unwrap());
        // Walk the unsampled points bucket by bucket.
        let mut i = 0;
        for k in 0..s.t.len() {
            let bucket = (ps(s.t[k]) / width).min(last_bucket);
            let start = i;
            while i < r.t.len() && (ps(r.t[i]) / width).min(last_bucket) == bucket {
                i += 1;
            }
            assert!(i > start, "{}: point {k} at {} s has no samples", s.name, s.t[k]);
            let points = &r.v[start..i];
            assert_eq!((s.t[k], s.v[k]), (r.t[i - 1], r.v[i - 1]), "{} bucket {bucket}", s.name);
            assert_eq!(min[k], points.iter().copied().fold(f64::INFINITY, f64::min), "{} bucket {bucket}", s.name);
            assert_eq!(max[k], points.iter().copied().fold(f64::NEG_INFINITY, f64::max), "{} bucket {bucket}", s.name);
        }
        assert_eq!(i, r.t.len(), "{}: samples after the last point", s.name);
    }
}

#[test]
fn sampled_series_carry_their_width_and_extremes_into_the_json() {
    let r = run(&["scenario.duration=0.5s", "measure.sample=100ms"]);
    let text = r.to_json();
    assert!(
        text.contains(r#"{"name":"l->r.queue","entity":"l->r","metric":"queue","unit":"pkts","sample_s":0.1,"t":["#),
        "{text}"
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    let q = v["series"].as_array().unwrap().iter().find(|s| s["name"] == "l->r.queue").unwrap();
    // One point in each of the five buckets of 100 ms; min and max after v.
    let n = |k: &str| q[k].as_array().unwrap().len();
    assert_eq!((n("t"), n("v"), n("min"), n("max")), (5, 5, 5, 5));
    let at = |k: &str| text.find(&format!("\"{k}\":[")).unwrap();
    assert!(at("v") < at("min") && at("min") < at("max"));
    let plain = run(&["scenario.duration=0.5s"]).to_json();
    assert!(plain.contains(r#"{"name":"l->r.queue","entity":"l->r","metric":"queue","unit":"pkts","t":["#));
    assert!(!plain.contains("sample_s") && !plain.contains("\"min\"") && !plain.contains("\"max\""));
}
