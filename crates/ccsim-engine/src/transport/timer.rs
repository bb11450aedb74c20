//! A lazily scheduled timer (one pending event per timer, not one per re-arm).
//!
//! The owner moves `deadline` freely (every ack re-arms a retransmission timer). The
//! simulation keeps at most one event in the queue for it: a new event is scheduled
//! only when there is none or the deadline moved earlier than the pending one (then the
//! generation is bumped so the older event is recognised as stale). When an event fires
//! early because the deadline moved later, it is re-scheduled at the new deadline.

use crate::base::time::SimTime;

/// `SimTime::MAX` stands for "none" in both times: a run ends before it (its end is a
/// finite scenario time), so a deadline there never expires and needs no event. With
/// the sentinel a timer is 24 bytes; with two `Option<SimTime>` (16 bytes each) it
/// would be 40 (a window sender reads two timers per ack).
#[derive(Clone, Copy, Debug)]
pub struct LazyTimer {
    /// When the timer should expire; `SimTime::MAX` when stopped (`deadline()`).
    deadline: SimTime,
    /// Time of the event currently in the queue for this timer; `SimTime::MAX`: none.
    scheduled: SimTime,
    /// Generation of the event currently in the queue.
    generation: u32,
}

impl Default for LazyTimer {
    fn default() -> Self {
        LazyTimer { deadline: SimTime::MAX, scheduled: SimTime::MAX, generation: 0 }
    }
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
    /// A timer that expires at `t`.
    pub fn at(t: SimTime) -> Self {
        LazyTimer { deadline: t, ..Default::default() }
    }

    /// When the timer expires; `None` when stopped.
    #[inline(always)]
    pub fn deadline(&self) -> Option<SimTime> {
        (self.deadline != SimTime::MAX).then_some(self.deadline)
    }

    /// Moves the deadline (`None`: stops the timer). A deadline at `SimTime::MAX` (a
    /// saturated sum) is never reached in a run and counts as stopped.
    #[inline(always)]
    pub fn set_deadline(&mut self, d: Option<SimTime>) {
        self.deadline = d.unwrap_or(SimTime::MAX);
    }

    /// Returns (time, generation) to schedule if the queue needs a new event.
    #[inline]
    pub fn needs_event(&mut self) -> Option<(SimTime, u32)> {
        let d = self.deadline;
        // A stopped timer (`d` = MAX) never needs one; an event at or before the
        // deadline is re-scheduled when it fires.
        if d == SimTime::MAX || self.scheduled <= d {
            return None;
        }
        self.generation = self.generation.wrapping_add(1);
        self.scheduled = d;
        Some((d, self.generation))
    }

    /// After `fire` returned `Reschedule(d, _)`: the event is scheduled at `at` (at or
    /// before `d`) instead.
    #[inline]
    pub fn rescheduled_at(&mut self, at: SimTime) {
        debug_assert!(at <= self.deadline, "a timer's event comes at or before its deadline");
        self.scheduled = at;
    }

    /// The timer expires now, ahead of its event: the pending event, if any, stays in
    /// the queue and finds the deadline the owner sets next (or none) when it fires.
    #[inline]
    pub fn expire_early(&mut self) {
        self.deadline = SimTime::MAX;
    }

    /// After `fire` returned `Reschedule`: the timer expires now instead, and no event
    /// is pending.
    #[inline]
    pub fn expire_instead(&mut self) {
        self.deadline = SimTime::MAX;
        self.scheduled = SimTime::MAX;
    }

    /// Takes over the generation of the timer `old` of a retired flow whose slot this
    /// timer's flow reuses (`sim/lifecycle.rs`): the events `old` left in the queue carry
    /// that generation or an older one, and this timer's first event a newer one, so
    /// they fire as stale (`Fired::Ignore`).
    pub fn follow(&mut self, old: &LazyTimer) {
        self.generation = old.generation;
    }

    /// Handles the event of generation `gen` firing at `now`.
    pub fn fire(&mut self, gen: u32, now: SimTime) -> Fired {
        if gen != self.generation || self.scheduled == SimTime::MAX {
            return Fired::Ignore;
        }
        self.scheduled = SimTime::MAX;
        match self.deadline() {
            None => Fired::Ignore,
            Some(d) if d > now => {
                self.scheduled = d;
                Fired::Reschedule(d, self.generation)
            }
            Some(_) => {
                self.deadline = SimTime::MAX;
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
        let mut t = LazyTimer::at(SimTime(10));
        let (at, g) = t.needs_event().unwrap();
        assert_eq!(at, SimTime(10));
        t.set_deadline(Some(SimTime(20)));
        assert_eq!(t.needs_event(), None);
        assert_eq!(t.fire(g, SimTime(10)), Fired::Reschedule(SimTime(20), g));
        assert_eq!(t.fire(g, SimTime(20)), Fired::Expire);
        assert_eq!(t.deadline(), None);
    }

    #[test]
    fn moving_earlier_supersedes_the_pending_event() {
        let mut t = LazyTimer::at(SimTime(50));
        let (_, g1) = t.needs_event().unwrap();
        t.set_deadline(Some(SimTime(30)));
        let (at, g2) = t.needs_event().unwrap();
        assert_eq!(at, SimTime(30));
        assert_eq!(t.fire(g2, SimTime(30)), Fired::Expire);
        assert_eq!(t.fire(g1, SimTime(50)), Fired::Ignore);
    }

    #[test]
    fn an_event_ahead_of_the_deadline_and_an_early_expiry() {
        // Deadline 100, its event moved 30 ahead, to 70.
        let mut t = LazyTimer::at(SimTime(100));
        let (_, g) = t.needs_event().unwrap();
        t.rescheduled_at(SimTime(70));
        assert_eq!(t.needs_event(), None, "the event at 70 comes before 100");
        // Fired at 70, the deadline is still ahead: the owner may expire it instead.
        assert_eq!(t.fire(g, SimTime(70)), Fired::Reschedule(SimTime(100), g));
        t.expire_instead();
        assert_eq!(t.deadline(), None);
        assert_eq!(t.fire(g, SimTime(100)), Fired::Ignore, "no event pending");
        // Expired early with its event pending: the event finds the next deadline (140)
        // and moves to it; no new event is needed for a later deadline.
        let mut v = LazyTimer::at(SimTime(100));
        let (_, g) = v.needs_event().unwrap();
        v.expire_early();
        v.set_deadline(Some(SimTime(140)));
        assert_eq!(v.needs_event(), None);
        assert_eq!(v.fire(g, SimTime(100)), Fired::Reschedule(SimTime(140), g));
        v.rescheduled_at(SimTime(120));
        assert_eq!(v.needs_event(), None, "the event at 120 comes before 140");
    }

    #[test]
    fn a_timer_following_another_ignores_the_events_the_other_left() {
        // The old flow's timer left events of generations 1 and 2 (the second moved
        // earlier) and stopped; the slot's new flow arms its own at 40.
        let mut old = LazyTimer::at(SimTime(50));
        let (_, g1) = old.needs_event().unwrap();
        old.set_deadline(Some(SimTime(30)));
        let (_, g2) = old.needs_event().unwrap();
        old.set_deadline(None);
        let mut new = LazyTimer::at(SimTime(40));
        new.follow(&old);
        assert_eq!(new.fire(g2, SimTime(30)), Fired::Ignore, "before its own first event");
        let (at, g3) = new.needs_event().unwrap();
        assert_eq!((at, g3), (SimTime(40), 3));
        assert_eq!(new.fire(g2, SimTime(30)), Fired::Ignore);
        assert_eq!(new.fire(g1, SimTime(50)), Fired::Ignore, "nor does an older one");
        assert_eq!(new.fire(g3, SimTime(40)), Fired::Expire);
    }

    #[test]
    fn stopped_timer_ignores_its_event() {
        let mut t = LazyTimer::at(SimTime(5));
        let (_, g) = t.needs_event().unwrap();
        t.set_deadline(None);
        assert_eq!(t.fire(g, SimTime(5)), Fired::Ignore);
    }
}
