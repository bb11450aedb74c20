//! Unresponsive sources: constant bit rate and Poisson, each with on periods.
//!
//! - CBR sends packets evenly spaced at `rate` (gap = size*8/rate, rounded to the
//!   picosecond) from the start of each on period while inside it (Keshav's background
//!   source "sends data evenly spaced at a constant rate").
//! - Poisson sends packets with exponentially distributed gaps of the given mean,
//!   drawn from the flow's own seeded RNG stream; the first packet of an on period comes
//!   one gap after its start.
//!
//! Neither reacts to loss; the receiving host counts arrivals.

use super::endpoint::{First, Io, SenderMetrics, SenderPolicy};
use super::FlowCounters;
use crate::base::rng::Rng;
use crate::base::time::{SimDuration, SimTime};
use crate::packet::Packet;

#[derive(Clone, Debug)]
pub enum Gaps {
    Constant(SimDuration),
    Exponential { mean: SimDuration, rng: Rng },
}

#[derive(Clone, Debug)]
pub struct Source {
    template: Packet,
    gaps: Gaps,
    /// On periods [start, end), sorted and disjoint.
    on: Vec<(SimTime, SimTime)>,
    /// Index of the current on period.
    period: usize,
    seq: u32,
}

impl Source {
    pub fn new(template: Packet, gaps: Gaps, on: Vec<(SimTime, SimTime)>) -> Self {
        Source { template, gaps, on, period: 0, seq: 0 }
    }

    fn gap(&mut self) -> SimDuration {
        match &mut self.gaps {
            Gaps::Constant(g) => *g,
            Gaps::Exponential { mean, rng } => {
                let u = rng.next_f64_open();
                SimDuration::from_secs_f64(-u.ln() * mean.as_secs_f64())
            }
        }
    }

    /// Time of the first packet, if any.
    pub fn first(&mut self) -> Option<SimTime> {
        self.period = 0;
        self.next_from(None)
    }

    /// The first send time at or after the start of the current period (`prev` = None)
    /// or one gap after `prev`, skipping to later periods when the current one ends.
    fn next_from(&mut self, prev: Option<SimTime>) -> Option<SimTime> {
        let mut cand = match (prev, &self.gaps) {
            (Some(t), _) => t + self.gap(),
            (None, Gaps::Constant(_)) => self.on.get(self.period)?.0,
            (None, Gaps::Exponential { .. }) => self.on.get(self.period)?.0 + self.gap(),
        };
        loop {
            let (start, end) = *self.on.get(self.period)?;
            if cand < start {
                cand = start;
            }
            if cand < end {
                return Some(cand);
            }
            self.period += 1;
            let (s, _) = *self.on.get(self.period)?;
            cand = match self.gaps {
                Gaps::Constant(_) => s,
                Gaps::Exponential { .. } => s + self.gap(),
            };
        }
    }

    /// Emits one packet at `now`; returns the time of the next one.
    pub fn tick(&mut self, now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>) -> Option<SimTime> {
        let mut p = self.template;
        p.seq = self.seq;
        p.ts = now;
        self.seq = self.seq.wrapping_add(1);
        out.push(p);
        c.sent += 1;
        self.next_from(Some(now))
    }
}

impl SenderPolicy for Source {
    const DESCRIPTION: &'static str =
        "an unresponsive source: constant (CBR) or exponential (Poisson) gaps within its on periods";
    fn first(&mut self, _start: SimTime) -> First {
        Source::first(self).map_or(First::Never, First::Tick)
    }
    fn on_tick(&mut self, io: Io<'_>) -> Option<SimTime> {
        self.tick(io.now, io.counters, io.out)
    }
    fn metrics(&self) -> SenderMetrics {
        SenderMetrics::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    fn tmpl() -> Packet {
        Packet::new(PacketKind::Data, 0, 1000)
    }

    fn times(s: &mut Source) -> Vec<f64> {
        let mut out = Vec::new();
        let mut c = FlowCounters::default();
        let mut v = Vec::new();
        let mut t = s.first();
        while let Some(now) = t {
            v.push(now.as_secs_f64());
            t = s.tick(now, &mut c, &mut out);
        }
        assert_eq!(c.sent as usize, v.len());
        v
    }

    #[test]
    fn cbr_sends_evenly_in_each_on_period() {
        let on =
            vec![(SimTime::from_secs(0), SimTime::from_secs(1)), (SimTime::from_secs(3), SimTime::from_millis(3500))];
        let mut s = Source::new(tmpl(), Gaps::Constant(SimDuration::from_millis(250)), on);
        assert_eq!(times(&mut s), vec![0.0, 0.25, 0.5, 0.75, 3.0, 3.25]);
    }

    #[test]
    fn poisson_mean_gap_is_close_to_requested() {
        let on = vec![(SimTime::ZERO, SimTime::from_secs(10_000))];
        let rng = Rng::new(7, 1);
        let mut s = Source::new(tmpl(), Gaps::Exponential { mean: SimDuration::from_millis(500), rng }, on);
        let n = times(&mut s).len() as f64;
        // 20000 expected; the standard deviation of the count is about sqrt(20000) = 141.
        assert!((n - 20_000.0).abs() < 600.0, "{n}");
    }
}
