//! Time series, recorded on request only. An entity holds an
//! `Option<SeriesId>` per metric; `None` costs one branch. Values are recorded on change
//! into per-series columnar vectors and handed out whole at the end of the run.

use crate::time::SimTime;
use serde::Serialize;

pub type SeriesId = u32;

#[derive(Clone, Debug, Serialize)]
pub struct Series {
    /// "<entity>.<metric>", e.g. "ftp1.cwnd" or "sw->sink.queue".
    pub name: String,
    pub entity: String,
    pub metric: String,
    pub unit: String,
    /// Sample times, seconds.
    pub t: Vec<f64>,
    pub v: Vec<f64>,
    /// Record every sample (RTT) rather than only changes (windows, queues).
    #[serde(skip)]
    every_sample: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub series: Vec<Series>,
}

impl Recorder {
    pub fn add(&mut self, entity: &str, metric: &str, unit: &str, every_sample: bool) -> SeriesId {
        self.series.push(Series {
            name: format!("{entity}.{metric}"),
            entity: entity.to_string(),
            metric: metric.to_string(),
            unit: unit.to_string(),
            t: Vec::new(),
            v: Vec::new(),
            every_sample,
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
    /// hot paths whose series are off (docs/performance.md, stop 22).
    #[cold]
    #[inline(never)]
    fn push(&mut self, id: SeriesId, now: SimTime, v: f64) {
        let t_s = now.as_secs_f64();
        let s = &mut self.series[id as usize];
        if s.every_sample || s.v.last() != Some(&v) {
            s.t.push(t_s);
            s.v.push(v);
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
    }
}
