//! Time series, recorded on request only. An entity holds an
//! `Option<SeriesId>` per metric; `None` costs one branch. Values are recorded on change
//! into per-series columnar vectors and handed out whole at the end of the run.
//!
//! Sampling (`[measure].sample` or `[measure].max_points`): time is cut into buckets of
//! a fixed width, [k w, (k + 1) w), the last bucket also taking the instant the run
//! ends. A sampled series keeps one point per bucket that has samples: the bucket's last
//! sample (its own time and value: each point is one of the points an unsampled run
//! records), and the smallest and largest of the bucket's samples (`min`, `max`), so
//! peaks survive the decimation. The point of the current bucket is the last element of
//! the vectors, updated in place while samples arrive in that bucket, so memory grows
//! with the buckets that have samples, not with the samples; nothing is allocated per
//! sample, and the series are complete whenever they are read. Recording reads the
//! simulation and never changes it, sampled or not.

use crate::base::time::{SimDuration, SimTime};
use serde::Serialize;

pub type SeriesId = u32;

#[derive(Clone, Debug, Serialize)]
pub struct Series {
    /// "<entity>.<metric>", e.g. "ftp1.cwnd" or "sw->sink.queue".
    pub name: String,
    pub entity: String,
    pub metric: String,
    pub unit: String,
    /// The bucket width of a sampled series, seconds; absent when not sampled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_s: Option<f64>,
    /// Sample times, seconds.
    pub t: Vec<f64>,
    pub v: Vec<f64>,
    /// Sampled series: per point, the smallest and the largest sample of its bucket.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<Vec<f64>>,
    /// Record every sample (RTT) rather than only changes (windows, queues).
    #[serde(skip)]
    every_sample: bool,
    /// Sampled series: the bucket of the last point.
    #[serde(skip)]
    bucket: u64,
}

/// The buckets of sampled series.
#[derive(Clone, Copy, Debug)]
struct Buckets {
    /// Width, picoseconds (at least 1).
    width: u64,
    /// The last bucket: the one holding the last instant before the end of the run; the
    /// end itself (events at exactly the end time run) goes into it too.
    last: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub series: Vec<Series>,
    buckets: Option<Buckets>,
}

impl Recorder {
    /// A recorder whose series keep every point (`None`) or one point per bucket of
    /// `width` (`Some`) over a run of `duration`.
    pub fn new(width: Option<SimDuration>, duration: SimDuration) -> Self {
        let buckets = width.map(|w| {
            let width = w.as_ps().max(1);
            Buckets { width, last: duration.as_ps().saturating_sub(1) / width }
        });
        Recorder { series: Vec::new(), buckets }
    }

    pub fn add(&mut self, entity: &str, metric: &str, unit: &str, every_sample: bool) -> SeriesId {
        let sampled = self.buckets.is_some();
        self.series.push(Series {
            name: format!("{entity}.{metric}"),
            entity: entity.to_string(),
            metric: metric.to_string(),
            unit: unit.to_string(),
            sample_s: self.buckets.map(|b| SimDuration::from_ps(b.width).as_secs_f64()),
            t: Vec::new(),
            v: Vec::new(),
            min: sampled.then(Vec::new),
            max: sampled.then(Vec::new),
            every_sample,
            bucket: 0,
        });
        (self.series.len() - 1) as SeriesId
    }

    /// Records `v()` at time `now` in series `id` if it is on and the value changed.
    /// Nothing is computed when the series is off.
    #[inline(always)]
    pub fn record(&mut self, id: Option<SeriesId>, now: SimTime, v: impl FnOnce() -> f64) {
        if let Some(id) = id {
            self.push(id, now, v());
        }
    }

    /// The recording itself, out of line: inlined, the compiler computed the time in
    /// seconds (a floating-point division) ahead of the check, on every packet of the
    /// hot paths whose series are off (docs/performance.md).
    #[cold]
    #[inline(never)]
    fn push(&mut self, id: SeriesId, now: SimTime, v: f64) {
        let s = &mut self.series[id as usize];
        // A sampled series' last `v` is the last sample too: "changed" means the same.
        if !s.every_sample && s.v.last() == Some(&v) {
            return;
        }
        let t_s = now.as_secs_f64();
        let Some(b) = self.buckets else {
            s.t.push(t_s);
            s.v.push(v);
            return;
        };
        let (Some(min), Some(max)) = (s.min.as_mut(), s.max.as_mut()) else {
            unreachable!("a recorder with buckets gives every series min and max")
        };
        let k = (now.as_ps() / b.width).min(b.last);
        match (s.t.last_mut(), s.v.last_mut(), min.last_mut(), max.last_mut()) {
            (Some(t), Some(last), Some(lo), Some(hi)) if k == s.bucket => {
                *t = t_s;
                *last = v;
                *lo = lo.min(v);
                *hi = hi.max(v);
            }
            _ => {
                s.t.push(t_s);
                s.v.push(v);
                min.push(v);
                max.push(v);
                s.bucket = k;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_only_changes_unless_every_sample() {
        let mut r = Recorder::default();
        let a = r.add("f", "cwnd", "pkts", false);
        let b = r.add("f", "rtt", "s", true);
        for (t, v) in [(0, 1.0), (1, 1.0), (2, 2.0)] {
            r.record(Some(a), SimTime::from_secs(t), || v);
            r.record(Some(b), SimTime::from_secs(t), || v);
        }
        r.record(None, SimTime::from_secs(3), || panic!("not evaluated when off"));
        assert_eq!(r.series[0].t, vec![0.0, 2.0]);
        assert_eq!(r.series[1].t, vec![0.0, 1.0, 2.0]);
        assert_eq!((r.series[0].sample_s, &r.series[0].min, &r.series[0].max), (None, &None, &None));
    }

    fn ms(m: u64) -> SimTime {
        SimTime::from_millis(m)
    }

    #[test]
    fn a_sampled_series_keeps_each_buckets_last_sample_and_its_extremes() {
        // Buckets of 10 ms over a 50 ms run: [0,10) [10,20) [20,30) [30,40) [40,50].
        let mut r = Recorder::new(Some(SimDuration::from_millis(10)), SimDuration::from_millis(50));
        let q = r.add("a->b", "queue", "pkts", false);
        // Bucket 0: 1, 5, 3 (the 5 at 4 ms is the peak); bucket 1: nothing; bucket 2: 2, 0;
        // bucket 3: 0 again (no change: not a sample); bucket 4: 7 at 45 ms, 6 at the end.
        for (t, v) in [(0, 1.0), (4, 5.0), (9, 3.0), (21, 2.0), (29, 0.0), (35, 0.0), (45, 7.0), (50, 6.0)] {
            r.record(Some(q), ms(t), || v);
        }
        let s = &r.series[0];
        assert_eq!(s.sample_s, Some(0.01));
        assert_eq!(s.t, vec![0.009, 0.029, 0.05]);
        assert_eq!(s.v, vec![3.0, 0.0, 6.0]);
        assert_eq!(s.min, Some(vec![1.0, 0.0, 6.0]));
        assert_eq!(s.max, Some(vec![5.0, 2.0, 7.0]));
    }

    #[test]
    fn every_sample_series_count_repeated_values_in_the_extremes() {
        let mut r = Recorder::new(Some(SimDuration::from_millis(100)), SimDuration::from_secs(1));
        let rtt = r.add("f", "rtt", "s", true);
        for (t, v) in [(10, 0.2), (20, 0.2), (150, 0.5), (160, 0.1), (170, 0.3)] {
            r.record(Some(rtt), ms(t), || v);
        }
        let s = &r.series[0];
        assert_eq!(s.t, vec![0.02, 0.17]);
        assert_eq!(s.v, vec![0.2, 0.3]);
        assert_eq!(s.min, Some(vec![0.2, 0.1]));
        assert_eq!(s.max, Some(vec![0.2, 0.5]));
    }

    #[test]
    fn a_bucket_wider_than_the_run_keeps_one_point() {
        let mut r = Recorder::new(Some(SimDuration::from_secs(10)), SimDuration::from_secs(1));
        let c = r.add("f", "cwnd", "pkts", false);
        for (t, v) in [(0, 1.0), (300, 9.0), (1000, 4.0)] {
            r.record(Some(c), ms(t), || v);
        }
        let s = &r.series[0];
        assert_eq!((s.t.as_slice(), s.v.as_slice()), ([1.0].as_slice(), [4.0].as_slice()));
        assert_eq!((s.min.as_deref(), s.max.as_deref()), (Some([1.0].as_slice()), Some([9.0].as_slice())));
    }
}
