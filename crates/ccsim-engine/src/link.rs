//! A unidirectional channel: a queue discipline, a transmitter of fixed rate and a
//! propagation pipe of fixed delay (htsim `Queue` + `Pipe`).
//!
//! The channel keeps at most two events in the simulation's queue: `TxDone` (the
//! transmitter frees up while packets wait) and `PipeHead` (the first packet in the pipe
//! arrives at the far end). A packet that finds the transmitter idle and nothing queued
//! starts at once and goes straight into the pipe with its arrival time, so an
//! uncongested hop costs a single event per packet.
//!
//! The pipe is FIFO: if the delay is lowered by a scheduled change, a packet never
//! overtakes one sent before it (its arrival is max(own arrival, previous arrival)).
//!
//! The buffer limit counts packets waiting in the discipline, not the one being
//! transmitted (as in ns-2's drop-tail).
//!
//! Counters (the shared layer of style.md point 8): offered = dropped + transmitted +
//! queued + in transmission, checked in debug builds.

use crate::event::{Event, EventQueue};
use crate::packet::Packet;
use crate::qdisc::{AnyQdisc, Qdisc};
use crate::time::{tx_time, SimDuration, SimTime};
use crate::trace::{Recorder, SeriesId};
use crate::units::Limit;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChannelCounters {
    /// Packets offered to the channel.
    pub offered: u64,
    /// Packets whose transmission started.
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    /// Time the transmitter was busy, ps (counted at the start of each transmission).
    pub busy_ps: u128,
    /// Integral of the queue length over time, packet-picoseconds.
    pub queue_integral: u128,
}

impl ChannelCounters {
    pub fn minus(&self, o: &ChannelCounters) -> ChannelCounters {
        ChannelCounters {
            offered: self.offered - o.offered,
            tx_pkts: self.tx_pkts - o.tx_pkts,
            tx_bytes: self.tx_bytes - o.tx_bytes,
            drops: self.drops - o.drops,
            busy_ps: self.busy_ps - o.busy_ps,
            queue_integral: self.queue_integral - o.queue_integral,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Channel {
    pub name: String,
    /// Name of the duplex link this channel belongs to.
    pub link: String,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    /// Propagation delay (plus the receiving node's processing delay).
    pub delay: SimDuration,
    pub limit: Limit,
    pub qdisc: AnyQdisc,
    busy_until: SimTime,
    tx_pending: bool,
    pipe: VecDeque<(SimTime, Packet)>,
    pipe_pending: bool,
    pub counters: ChannelCounters,
    pub queue_max: u64,
    queue_last_change: SimTime,
    pub trace_queue: Option<SeriesId>,
    /// Last (size, transmission time) computed: sizes repeat (data, acks), and the exact
    /// u128 division is the costliest arithmetic on the per-packet path.
    tx_cache: [(u32, SimDuration); 2],
}

impl Channel {
    #[allow(clippy::too_many_arguments)]
    pub fn new(name: String, link: String, from: u32, to: u32, rate_bps: u64, delay: SimDuration, limit: Limit, qdisc: AnyQdisc) -> Self {
        Channel {
            name,
            link,
            from,
            to,
            rate_bps,
            delay,
            limit,
            qdisc,
            busy_until: SimTime::ZERO,
            tx_pending: false,
            pipe: VecDeque::new(),
            pipe_pending: false,
            counters: ChannelCounters::default(),
            queue_max: 0,
            queue_last_change: SimTime::ZERO,
            trace_queue: None,
            tx_cache: [(0, SimDuration::ZERO); 2],
        }
    }

    #[inline]
    fn account_queue(&mut self, now: SimTime) {
        let len = self.qdisc.len_pkts() as u128;
        self.counters.queue_integral += len * (now - self.queue_last_change).as_ps() as u128;
        self.queue_last_change = now;
    }

    /// Brings the queue-length integral up to `now` (before reading it).
    pub fn settle(&mut self, now: SimTime) {
        self.account_queue(now);
    }

    #[inline]
    fn tx_time(&mut self, size: u32) -> SimDuration {
        for &(s, d) in &self.tx_cache {
            if s == size {
                return d;
            }
        }
        let d = tx_time(size, self.rate_bps);
        self.tx_cache[1] = self.tx_cache[0];
        self.tx_cache[0] = (size, d);
        d
    }

    #[inline]
    fn start_tx(&mut self, id: u32, now: SimTime, pkt: Packet, ev: &mut EventQueue) {
        let d = self.tx_time(pkt.size);
        self.busy_until = now + d;
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += pkt.size as u64;
        self.counters.busy_ps += d.as_ps() as u128;
        let mut arrival = self.busy_until + self.delay;
        if let Some(&(last, _)) = self.pipe.back() {
            arrival = arrival.max(last);
        }
        self.pipe.push_back((arrival, pkt));
        if !self.pipe_pending {
            self.pipe_pending = true;
            ev.schedule(arrival, Event::PipeHead(id));
        }
    }

    /// Offers a packet; drops (if any) are appended to `dropped`.
    #[inline]
    pub fn enqueue(&mut self, id: u32, now: SimTime, pkt: Packet, ev: &mut EventQueue, dropped: &mut Vec<Packet>, rec: &mut Recorder) {
        self.counters.offered += 1;
        if now >= self.busy_until && !self.tx_pending && self.qdisc.len_pkts() == 0 {
            self.start_tx(id, now, pkt, ev);
            return;
        }
        self.account_queue(now);
        let before = dropped.len();
        self.qdisc.enqueue(now, pkt, dropped);
        self.counters.drops += (dropped.len() - before) as u64;
        let len = self.qdisc.len_pkts() as u64;
        self.queue_max = self.queue_max.max(len);
        rec.record(self.trace_queue, now, || len as f64);
        if !self.tx_pending && len > 0 {
            self.tx_pending = true;
            ev.schedule(self.busy_until.max(now), Event::TxDone(id));
        }
    }

    /// The transmitter is free: start the next queued packet.
    #[inline]
    pub fn on_tx_done(&mut self, id: u32, now: SimTime, ev: &mut EventQueue, rec: &mut Recorder) {
        self.tx_pending = false;
        self.account_queue(now);
        if let Some(p) = self.qdisc.dequeue(now) {
            self.start_tx(id, now, p, ev);
            let len = self.qdisc.len_pkts();
            rec.record(self.trace_queue, now, || len as f64);
            if len > 0 {
                self.tx_pending = true;
                ev.schedule(self.busy_until, Event::TxDone(id));
            }
        }
    }

    /// The head of the pipe arrives at the far end: returns it.
    #[inline]
    pub fn on_pipe_head(&mut self, id: u32, now: SimTime, ev: &mut EventQueue) -> Packet {
        self.pipe_pending = false;
        let (t, p) = self.pipe.pop_front().expect("pipe event without packet");
        debug_assert_eq!(t, now);
        if let Some(&(next, _)) = self.pipe.front() {
            self.pipe_pending = true;
            ev.schedule(next, Event::PipeHead(id));
        }
        p
    }

    /// Scheduled change of rate and/or delay. A packet in transmission keeps its timing.
    pub fn change(&mut self, now: SimTime, rate_bps: Option<u64>, delay: Option<SimDuration>) {
        if let Some(r) = rate_bps {
            if let AnyQdisc::Fq(fq) = &mut self.qdisc {
                fq.set_rate(now, r);
            }
            self.rate_bps = r;
            self.tx_cache = [(0, SimDuration::ZERO); 2];
        }
        if let Some(d) = delay {
            self.delay = d;
        }
    }

    /// Calls `f` on every packet queued, in transmission or propagating.
    pub fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.qdisc.for_each(f);
        for (_, p) in &self.pipe {
            f(p);
        }
    }

    pub fn queued_pkts(&self) -> usize {
        self.qdisc.len_pkts()
    }

    /// Packets in the pipe (including the one being serialised).
    pub fn in_pipe(&self) -> usize {
        self.pipe.len()
    }

    /// Debug check of the conservation identity: offered = drops + transmitted + queued.
    pub fn check_conservation(&self) -> bool {
        self.counters.offered == self.counters.drops + self.counters.tx_pkts + self.qdisc.len_pkts() as u64
    }
}
