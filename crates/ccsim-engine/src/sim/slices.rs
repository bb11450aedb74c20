//! How many events each slice of a run (`Simulation::run_slice`) gets, so that a slice
//! lasts about `TARGET` of wall time whatever an event costs. The engine reads no clock:
//! the front end times each slice and passes the timing in (`Slices::record`).
//!
//! Between slices the Python binding takes the GIL back to run Python's signal handlers
//! (Ctrl-C), call the progress callback and enforce `max_wall`. A fixed count of events
//! per slice would bound that interval for one cost per event only (200,000 events last
//! 2 ms at 10 ns each, 10 s at 50 us each). So each slice is timed and the next one
//! sized from the events per second just measured: the first
//! slice is `FIRST` events; a slice that ran `n` events in `t` is followed by one of
//! `n * TARGET / t` events, but at most `GROWTH` times the last one (a slice that ran
//! fast because it was short does not make the next one long) and at most `MAX`.
//!
//! With a steady cost per event `c`, every slice therefore lasts at most
//! `max(TARGET, c)` (one event is the least a slice runs); if the cost per event jumps by
//! a factor `k` within a slice, that slice lasts up to `k * TARGET`, and the next one is
//! sized from the new cost.

use std::time::Duration;

/// The wall time a slice aims at.
pub const TARGET: Duration = Duration::from_millis(10);
/// The events of the first slice: a few milliseconds even at 10 us per event.
pub const FIRST: u64 = 256;
/// The most a slice may grow over the previous one.
pub const GROWTH: u64 = 2;
/// The most events in one slice (42 ms at 10 ns per event, faster than any scenario runs).
pub const MAX: u64 = 1 << 22;

/// The size of the next slice of a run, updated from the timing of each slice.
#[derive(Debug, Clone)]
pub struct Slices {
    next: u64,
}

impl Default for Slices {
    fn default() -> Self {
        Self { next: FIRST }
    }
}

impl Slices {
    /// How many events the next slice may run.
    pub fn next(&self) -> u64 {
        self.next
    }

    /// Records that the last slice ran `events` events in `took` of wall time.
    pub fn record(&mut self, events: u64, took: Duration) {
        if events == 0 {
            return;
        }
        let took_ns = took.as_nanos().max(1);
        let fit = u64::try_from(u128::from(events) * TARGET.as_nanos() / took_ns).unwrap_or(u64::MAX);
        self.next = fit.min(self.next.saturating_mul(GROWTH)).clamp(1, MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn cheap_events_grow_the_slices_by_at_most_growth_each_time() {
        // 100 ns per event: 256 events take 25.6 us, which would fit 100,000 events in
        // 10 ms, but the next slice only doubles: 512, 1024, ...
        let mut s = Slices::default();
        assert_eq!(s.next(), 256);
        let mut sizes = vec![];
        for _ in 0..12 {
            let n = s.next();
            s.record(n, Duration::from_nanos(100 * n));
            sizes.push(s.next());
        }
        assert_eq!(&sizes[..8], &[512, 1024, 2048, 4096, 8192, 16_384, 32_768, 65_536]);
        // 65,536 events at 100 ns take 6.55 ms: the next slice is 10 ms' worth,
        // 100,000 events (not 131,072), and stays there.
        assert_eq!(&sizes[8..], &[100_000, 100_000, 100_000, 100_000]);
    }

    #[test]
    fn costly_events_shrink_the_next_slice_at_once() {
        // 54 us per event (two CBR sources into a slow queue): the first slice of 256
        // events takes 13.8 ms; the next gets 10 ms / 54 us = 185 events.
        let mut s = Slices::default();
        s.record(256, us(54 * 256));
        assert_eq!(s.next(), 185);
        s.record(185, us(54 * 185));
        assert_eq!(s.next(), 185);
        // An event that costs 30 ms on its own: slices of one event.
        s.record(185, us(30_000 * 185));
        assert_eq!(s.next(), 1);
        s.record(1, us(30_000));
        assert_eq!(s.next(), 1);
        // The cost falls back to 1 us per event: the slices double back up to 10,000.
        let mut sizes = vec![];
        for _ in 0..16 {
            let n = s.next();
            s.record(n, us(n));
            sizes.push(s.next());
        }
        assert_eq!(&sizes[..4], &[2, 4, 8, 16]);
        assert_eq!(sizes[12], 8192);
        assert_eq!(&sizes[13..], &[10_000, 10_000, 10_000]);
    }

    #[test]
    fn a_jump_in_cost_lasts_one_slice() {
        // Steady at 1 us per event (10,000-event slices), then ten times the cost: that
        // slice lasts 100 ms, the next is sized to 10 ms again.
        let mut s = Slices::default();
        for _ in 0..20 {
            let n = s.next();
            s.record(n, us(n));
        }
        assert_eq!(s.next(), 10_000);
        s.record(10_000, us(10 * 10_000));
        assert_eq!(s.next(), 1000);
    }

    #[test]
    fn bounds_and_degenerate_timings() {
        let mut s = Slices::default();
        // A slice timed at zero (a clock that did not move): growth as allowed.
        s.record(256, Duration::ZERO);
        assert_eq!(s.next(), 512);
        // A slice that ran no event changes nothing.
        s.record(0, us(5));
        assert_eq!(s.next(), 512);
        // Never above MAX.
        for _ in 0..40 {
            let n = s.next();
            s.record(n, Duration::from_nanos(1));
        }
        assert_eq!(s.next(), MAX);
    }
}
