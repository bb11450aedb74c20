//! Endpoint delivery: what reaches a flow's sender or receiver besides the per-packet
//! calls of the event loop (control packets, feedback, hand-overs between flows), delay
//! statistics, and injecting what endpoints send and scheduling their timers.

use super::*;
use crate::base::time::tx_time;
use crate::transport::Pass;

impl Simulation {
    /// Records a data packet's one-way and queueing delay. The base delay (propagation
    /// and transmission along the route at the current rates) is cached per packet size
    /// and recomputed after a scheduled change.
    #[cold]
    pub(super) fn measure_delay(
        d: &mut FlowDelay,
        c: &mut FlowCounters,
        channels: &[Channel],
        routes: &[u32],
        gen: u32,
        now: SimTime,
        p: &Packet,
    ) {
        if now < d.from {
            return;
        }
        if d.key != (p.bits, gen) {
            let mut base = 0u64;
            let mut i = p.route as usize;
            while routes[i] != ROUTE_END {
                let ch = &channels[routes[i] as usize];
                base += tx_time(p.bits, ch.rate_bps).as_ps() + ch.delay.as_ps();
                i += 1;
            }
            d.key = (p.bits, gen);
            d.base_ps = base;
        }
        let owd = (now - p.ts).as_ps();
        let q = owd.saturating_sub(d.base_ps);
        d.stats.one_way.add(owd / 1000);
        d.stats.queueing.add(q / 1000);
        c.delay_samples += 1;
        c.owd_sum_ps += owd as u128;
        c.qdelay_sum_ps += q as u128;
    }

    /// A control packet of flow `p.flow` reached the end of channel `c`: its feedback
    /// goes to the flow's sender if it arrived at the flow's source, anything else to
    /// the flow's receiver.
    #[cold]
    pub(super) fn control(&mut self, c: u32, now: SimTime, p: &Packet) {
        let at = self.channels[c as usize].to;
        let ep = &mut self.flows[p.flow as usize];
        ep.counters.control_arrived += 1;
        if at == ep.src {
            if let Some(crate::packet::meta::Control::Feedback(fb)) = self.net.meta.get(p.meta).map(|m| m.control) {
                ep.sender.on_feedback(now, &fb, p.ts);
            }
        } else if let Some(x) = ep.receiver.on_control(io!(self, ep, now), p) {
            self.pass(now, x);
        }
    }

    /// A receiver handed a payload to the sender of flow `x.flow` (a voice user's
    /// partner), who may schedule a tick.
    #[cold]
    pub(super) fn pass(&mut self, now: SimTime, x: Pass) {
        if let Some(t) = self.flows[x.flow as usize].sender.on_pass(now, &x.control) {
            self.net.ev.schedule(t, Event::SourceTick(x.flow));
        }
        self.sender_timers(x.flow, now);
    }

    /// Injects the packets flow `f` just emitted and (re)schedules its timers.
    #[inline]
    pub(super) fn flush(&mut self, f: u32, now: SimTime) {
        self.send_out(now);
        self.sender_timers(f, now);
        self.receiver_timer(f);
    }

    /// (Re)schedules flow `f`'s receiver timer if it moved.
    #[inline(always)]
    pub(super) fn receiver_timer(&mut self, f: u32) {
        if let Some((t, g)) = self.flows[f as usize].receiver.timer().and_then(|t| t.needs_event()) {
            self.net.ev.schedule(t, Event::RecvTimer(f, g));
        }
    }

    /// Injects the packets an endpoint just emitted (`out`).
    #[inline(always)]
    pub(super) fn send_out(&mut self, now: SimTime) {
        for i in 0..self.out.len() {
            let p = self.out[i];
            let c = self.net.routes[p.route as usize];
            self.enqueue(c, now, &p);
        }
        self.out.clear();
    }

    /// (Re)schedules flow `f`'s sender timers if they moved, after it acted at `now`; a
    /// flow built at its start may then be done with its slot (`sim/lifecycle.rs`).
    #[inline(always)]
    pub(super) fn sender_timers(&mut self, f: u32, now: SimTime) {
        let (timer, pace) = self.flows[f as usize].sender.timers();
        if let Some((t, g)) = timer.and_then(|t| t.needs_event()) {
            self.net.ev.schedule(t, Event::FlowTimer(f, g));
        }
        if let Some((t, g)) = pace.and_then(|t| t.needs_event()) {
            self.schedule_pace(f, t, g);
        }
        if f >= self.lazy_slot {
            self.maybe_retire(f, now);
        }
    }

    /// Schedules flow `f`'s pacing timer event (deadline `t`, generation `g`), ahead of
    /// the deadline by the flow's lead where it may fire early (`Simulation::pace_ahead`),
    /// and not before the clock.
    #[inline(never)]
    fn schedule_pace(&mut self, f: u32, t: SimTime, g: u32) {
        let lead = self.pace_lead_of(f as usize);
        let at = if lead == 0 { t } else { SimTime(t.0.saturating_sub(lead)).max(self.net.ev.now()) };
        if at != t {
            if let Some(p) = self.flows[f as usize].sender.timers().1 {
                p.rescheduled_at(at);
            }
        }
        self.net.ev.schedule(at, Event::PaceTimer(f, g));
    }
}
