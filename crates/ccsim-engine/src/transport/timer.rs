//! A lazily scheduled timer (one pending event per timer, not one per re-arm).
//!
//! The owner moves `deadline` freely (every ack re-arms a retransmission timer). The
//! simulation keeps at most one event in the queue for it: a new event is scheduled
//! only when there is none or the deadline moved earlier than the pending one (then the
//! generation is bumped so the older event is recognised as stale). When an event fires
//! early because the deadline moved later, it is re-scheduled at the new deadline.

use crate::base::time::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct LazyTimer {
    /// When the timer should expire; `None` when stopped.
    pub deadline: Option<SimTime>,
    /// Time of the event currently in the queue for this timer.
    scheduled: Option<SimTime>,
    /// Generation of the event currently in the queue.
    generation: u32,
}

/// What to do with a timer event that fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fired {
    /// A stale event (superseded) or the timer was stopped: nothing to do.
    Ignore,
    /// The deadline moved later: schedule (time, generation).
    Reschedule(SimTime, u32),
    /// The timer expired.
    Expire,
}

impl LazyTimer {
    /// Returns (time, generation) to schedule if the queue needs a new event.
    #[inline]
    pub fn needs_event(&mut self) -> Option<(SimTime, u32)> {
        let d = self.deadline?;
        match self.scheduled {
            Some(s) if s <= d => None,
            _ => {
                self.generation = self.generation.wrapping_add(1);
                self.scheduled = Some(d);
                Some((d, self.generation))
            }
        }
    }

    /// Handles the event of generation `gen` firing at `now`.
    pub fn fire(&mut self, gen: u32, now: SimTime) -> Fired {
        if gen != self.generation || self.scheduled.is_none() {
            return Fired::Ignore;
        }
        self.scheduled = None;
        match self.deadline {
            None => Fired::Ignore,
            Some(d) if d > now => {
                self.scheduled = Some(d);
                Fired::Reschedule(d, self.generation)
            }
            Some(_) => {
                self.deadline = None;
                Fired::Expire
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rearming_later_costs_no_new_event_and_reschedules_on_fire() {
        let mut t = LazyTimer { deadline: Some(SimTime(10)), ..Default::default() };
        let (at, g) = t.needs_event().unwrap();
        assert_eq!(at, SimTime(10));
        t.deadline = Some(SimTime(20));
        assert_eq!(t.needs_event(), None);
        assert_eq!(t.fire(g, SimTime(10)), Fired::Reschedule(SimTime(20), g));
        assert_eq!(t.fire(g, SimTime(20)), Fired::Expire);
        assert_eq!(t.deadline, None);
    }

    #[test]
    fn moving_earlier_supersedes_the_pending_event() {
        let mut t = LazyTimer { deadline: Some(SimTime(50)), ..Default::default() };
        let (_, g1) = t.needs_event().unwrap();
        t.deadline = Some(SimTime(30));
        let (at, g2) = t.needs_event().unwrap();
        assert_eq!(at, SimTime(30));
        assert_eq!(t.fire(g2, SimTime(30)), Fired::Expire);
        assert_eq!(t.fire(g1, SimTime(50)), Fired::Ignore);
    }

    #[test]
    fn stopped_timer_ignores_its_event() {
        let mut t = LazyTimer { deadline: Some(SimTime(5)), ..Default::default() };
        let (_, g) = t.needs_event().unwrap();
        t.deadline = None;
        assert_eq!(t.fire(g, SimTime(5)), Fired::Ignore);
    }
}
