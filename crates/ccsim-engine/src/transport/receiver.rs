//! Receivers: the receiving end of a flow, a policy of its own with its own timer.
//!
//! `AckReceiver`, the receiver of window flows, acknowledges data with cumulative acks
//! carrying the next expected sequence number (Keshav 1991 section 4: "the sequence
//! number of the highest in-sequence data packet received so far", shifted by one).
//! Its options (`ReceiverConfig`):
//!
//! - **Out-of-order packets** are kept (`SeqBitmap`, as BSD TCP does) or, with
//!   `keep_out_of_order = false`, thrown away (a go-back-N receiver; our reading of the
//!   REAL simulator's sink in Keshav's and Dabbous's papers, see docs/reproductions).
//! - **Acknowledgement policy.** Every data packet is acknowledged at once (default), or
//!   acks are delayed (RFC 1122 4.2.3.2, RFC 5681 4.2): an ack for every `every`-th
//!   in-order packet (2), or when the delayed-ack timer (`delay`, 200 ms) expires after
//!   the first unacknowledged one; an out-of-order packet, a duplicate, or one that fills
//!   all or part of a gap is acknowledged at once.
//! - **Adaptive delayed-ack timer** (`DelayedAck::min_delay`, off by default): the timer
//!   is Linux's `ato` (2.6.23 `tcp_event_data_recv`) instead of a fixed delay. It starts
//!   at `min_delay` (TCP_ATO_MIN, 40 ms) and follows the gap m between data arrivals:
//!   m <= min/2: ato = ato/2 + min/2; min/2 < m < ato: ato = ato/2 + m; larger gaps leave
//!   it. It never exceeds `delay` (TCP_DELACK_MAX, 200 ms). Not modelled: Linux's
//!   quick-ack mode (acks at once for the first few packets and after an idle gap
//!   longer than the receiver's RTO) and the cap at that RTO.
//! - **Timestamp echo** (RFC 1323): an ack echoes the send time and flags of the data
//!   packet that triggered it when every packet is acknowledged at once; a delayed ack
//!   echoes the oldest packet it acknowledges (so its RTT sample includes the wait).
//! - **SACK** (RFC 2018): while out-of-order packets are held, each ack carries up to
//!   `sack_blocks` (3) blocks in its metadata: first the block holding the most recently
//!   arrived packet, then the blocks of the next most recent arrivals.
//! - **ECN echo** (`ecn_echo`): RFC 3168 section 6.1.3 (`rfc3168`, default): after a
//!   packet marked CE arrives, every ack carries ECE until a data packet with CWR arrives.
//!   DCTCP (`dctcp`, RFC 8257 section 3.2): the ECE of each ack is the CE mark of the
//!   packets it acknowledges. The receiver keeps the CE state of the last data packet;
//!   a packet whose CE differs from it first flushes a delayed ack, if one is pending,
//!   for the packets before it with the old state's ECE (the two-ack option of section
//!   3.2, as Linux's `dctcp_ece_ack_update`), then switches the state and is itself
//!   acknowledged at once (section 3.2 rules 1 and 2; Linux's `ICSK_ACK_NOW`). Other
//!   packets are acknowledged as the acknowledgement policy says, each ack with ECE =
//!   the current state. CWR is ignored (DCTCP's ECE is not latched).

use super::endpoint::{Io, Pass, ReceiverMetrics, ReceiverPolicy};
use super::seqmap::SeqBitmap;
use super::timer::LazyTimer;
use super::FlowCounters;
use crate::base::time::{SimDuration, SimTime};
use crate::packet::meta::MetaSlab;
use crate::packet::{Packet, PacketKind, ECHOED_FLAGS, FLAG_CE, FLAG_CWR, FLAG_ECE};
use serde::{Deserialize, Serialize};

/// The delayed-ack policy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DelayedAck {
    /// Longest an ack is held. Default 200 ms (RFC 1122's bound; BSD's timer).
    pub delay: SimDuration,
    /// Acknowledge every this many in-order packets. Default 2 (RFC 5681).
    pub every: u32,
    /// `Some(min)`: the timer adapts as Linux's ato, from `min` up to `delay` (see the
    /// module documentation); `None` (default): it is always `delay`.
    #[serde(default)]
    pub min_delay: Option<SimDuration>,
}

impl Default for DelayedAck {
    fn default() -> Self {
        DelayedAck { delay: SimDuration::from_millis(200), every: 2, min_delay: None }
    }
}

/// Defined with the policies that declare the echo they need (`cc::EcnEcho`).
pub use crate::cc::EcnEcho;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReceiverConfig {
    /// Keep out-of-order packets (BSD TCP) or discard them (go-back-N).
    pub keep_out_of_order: bool,
    /// `None`: acknowledge every packet at once.
    pub delayed_ack: Option<DelayedAck>,
    /// Send SACK blocks (RFC 2018), at most this many per ack; 0: no SACK.
    pub sack_blocks: u8,
    /// Echo CE marks to the sender (RFC 3168).
    pub ecn: bool,
    /// How CE marks are echoed (with `ecn`).
    #[serde(default)]
    pub ecn_echo: EcnEcho,
    /// Sequence number 0 is the sender's SYN (`handshake`): acknowledged at once.
    #[serde(default)]
    pub handshake: bool,
}

impl ReceiverConfig {
    /// Whether the acknowledging receiver built from it takes its data at send time
    /// (`AckReceiver::takes_data_early`: without delayed acks it has no timer).
    pub fn takes_data_early(&self) -> bool {
        self.delayed_ack.is_none()
    }
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            keep_out_of_order: true,
            delayed_ack: None,
            sack_blocks: 0,
            ecn: false,
            ecn_echo: EcnEcho::Rfc3168,
            handshake: false,
        }
    }
}

/// `repr(C)` with the fields in this order: what a data packet and the ack it sends
/// touch when every packet is acknowledged at once (the bitmap's header, the ack
/// template, the timer's deadline and scheduled time, `unacked`, the ECE state, whether
/// acks are delayed, and copies of the options it reads, `cfg`'s flags) in the first 89
/// bytes (`hot_field_spans`, checked in `transport/sizes.rs`), then what only delayed
/// acks, SACK and the adaptive timer use, with the delayed-ack policy (the only option
/// kept whole).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct AckReceiver {
    rcv: SeqBitmap,
    /// Template of this flow's acks (route, size).
    ack: Packet,
    /// Delayed-ack timer.
    pub timer: LazyTimer,
    /// In-order packets received and not yet acknowledged (delayed acks).
    unacked: u32,
    /// ECE state: a CE mark arrived and no CWR since (RFC 3168), or the last data packet
    /// was marked CE (DCTCP.CE, RFC 8257).
    ece: bool,
    /// `cfg.delayed_ack.is_some()`, `cfg.ecn`, `cfg.keep_out_of_order` and
    /// `cfg.sack_blocks`: what a data packet reads of the options, beside the other
    /// per-packet fields.
    delayed: bool,
    ecn: bool,
    keep_out_of_order: bool,
    sack_blocks: u8,
    /// Flags of the oldest unacknowledged packet (with `oldest_ts`, the echo of the next
    /// ack).
    oldest_flags: u8,
    /// How many of `recent` are set.
    n_recent: u8,
    /// `cfg.ecn_echo == EcnEcho::Dctcp` and `cfg.handshake`.
    dctcp_echo: bool,
    handshake: bool,
    /// `cfg.delayed_ack`: of the options, only the delayed-ack policy is kept whole.
    delayed_ack: Option<DelayedAck>,
    /// Timestamp of the oldest unacknowledged packet.
    oldest_ts: SimTime,
    /// Most recent out-of-order arrivals, newest first (SACK block order).
    recent: [u32; 4],
    /// The adaptive delayed-ack timeout (ato) and the last data arrival
    /// (`DelayedAck::min_delay`; `SimTime::MAX`: none yet).
    ato: SimDuration,
    last_rcv: SimTime,
}

/// Where the fields a data packet touches at an `AckReceiver` that acknowledges every
/// packet at once lie: (name, offset, bytes), for the layout test in
/// `transport/sizes.rs`.
#[cfg(test)]
pub(crate) fn hot_field_spans() -> Vec<(&'static str, usize, usize)> {
    use std::mem::{offset_of, size_of};
    vec![
        ("rcv", offset_of!(AckReceiver, rcv), size_of::<SeqBitmap>()),
        ("ack", offset_of!(AckReceiver, ack), size_of::<Packet>()),
        ("timer.deadline+scheduled", offset_of!(AckReceiver, timer), 16),
        ("unacked..sack_blocks", offset_of!(AckReceiver, unacked), 9),
    ]
}

impl AckReceiver {
    /// Whether this receiver can take its packets at send time
    /// (`Simulation::set_cut_through`): it has no timer (no delayed acks), so its acks
    /// depend only on its data arrivals, in order.
    pub fn timerless(&self) -> bool {
        self.delayed_ack.is_none()
    }

    /// Offset of the route of this receiver's acks.
    pub fn ack_route(&self) -> u32 {
        self.ack.route
    }

    pub fn new(cfg: ReceiverConfig, ack: Packet, capacity_pkts: usize) -> Self {
        AckReceiver {
            delayed_ack: cfg.delayed_ack,
            dctcp_echo: cfg.ecn_echo == EcnEcho::Dctcp,
            handshake: cfg.handshake,
            delayed: cfg.delayed_ack.is_some(),
            ecn: cfg.ecn,
            keep_out_of_order: cfg.keep_out_of_order,
            sack_blocks: cfg.sack_blocks,
            ack,
            rcv: SeqBitmap::new(capacity_pkts),
            timer: LazyTimer::default(),
            unacked: 0,
            oldest_ts: SimTime::ZERO,
            oldest_flags: 0,
            ece: false,
            recent: [0; 4],
            n_recent: 0,
            ato: cfg.delayed_ack.and_then(|d| d.min_delay).unwrap_or(SimDuration::ZERO),
            last_rcv: SimTime::MAX,
        }
    }

    /// The delayed-ack timeout now in force.
    pub fn ack_timeout(&self) -> Option<SimDuration> {
        let d = self.delayed_ack?;
        Some(if d.min_delay.is_some() { self.ato } else { d.delay })
    }

    /// Linux's ato update for a data arrival at `now` (`tcp_event_data_recv`).
    fn adapt_ato(&mut self, now: SimTime, min: SimDuration, max: SimDuration) {
        if self.last_rcv != SimTime::MAX {
            let m = now - self.last_rcv;
            let half_min = SimDuration::from_ps(min.as_ps() / 2);
            let half_ato = SimDuration::from_ps(self.ato.as_ps() / 2);
            if m <= half_min {
                self.ato = half_ato + half_min;
            } else if m < self.ato {
                self.ato = half_ato + m;
            }
            self.ato = self.ato.min(max);
        }
        self.last_rcv = now;
    }

    /// Next sequence number expected in order.
    pub fn next_expected(&self) -> u32 {
        self.rcv.next_expected()
    }

    /// A data packet of this flow arrived.
    #[inline]
    pub fn on_data(
        &mut self,
        now: SimTime,
        data: &Packet,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        meta: &mut MetaSlab,
    ) {
        c.arrived += 1;
        // The CE state changed (DCTCP): this packet is acknowledged at once.
        let mut ce_changed = false;
        if self.ecn {
            let ce = data.has(FLAG_CE);
            if ce {
                c.ce_received += 1;
            }
            if self.dctcp_echo {
                if ce != self.ece {
                    if self.unacked > 0 {
                        // The delayed ack of the packets before this one, with the old state.
                        let (ts, flags) = (self.oldest_ts, self.oldest_flags);
                        self.send_ack(ts, flags, c, out, meta);
                    }
                    self.ece = ce;
                    ce_changed = true;
                }
            } else {
                if data.has(FLAG_CWR) {
                    self.ece = false;
                }
                if ce {
                    self.ece = true;
                }
            }
        }
        let next = self.rcv.next_expected();
        let held_before = self.rcv.held();
        // The next expected number after this arrival, kept in hand for the ack: read
        // back from the bitmap just after `insert` stored it, the compiler loaded it
        // together with its neighbour in one wider load that waited for the store to
        // reach the cache (docs/performance.md).
        let mut ack_seq = next;
        if self.keep_out_of_order || data.seq == next {
            let (delivered, after) = self.rcv.insert_then_next(data.seq);
            c.delivered += delivered as u64;
            ack_seq = after;
        }
        if data.seq > next && self.sack_blocks > 0 {
            self.remember(data.seq);
        }
        // (`delayed` first: the policy itself lies past the per-packet lines.)
        if !self.delayed {
            self.send_ack_seq(ack_seq, data.ts, data.flags, c, out, meta);
            return;
        }
        let Some(d) = self.delayed_ack else { unreachable!("`delayed` is set only with a delayed-ack policy") };
        let delay = match d.min_delay {
            None => d.delay,
            Some(min) => {
                self.adapt_ato(now, min, d.delay);
                self.ato
            }
        };
        // In order with nothing held: may wait. Out of order, duplicate or filling a gap:
        // at once (RFC 5681 section 4.2).
        let syn = self.handshake && data.seq == 0;
        if data.seq == next && held_before == 0 && !syn && !ce_changed {
            if self.unacked == 0 {
                (self.oldest_ts, self.oldest_flags) = (data.ts, data.flags);
                self.timer.set_deadline(Some(now + delay));
            }
            self.unacked += 1;
            if self.unacked >= d.every {
                let (ts, flags) = (self.oldest_ts, self.oldest_flags);
                self.send_ack(ts, flags, c, out, meta);
            }
        } else {
            let (ts, flags) =
                if self.unacked > 0 { (self.oldest_ts, self.oldest_flags) } else { (data.ts, data.flags) };
            self.send_ack(ts, flags, c, out, meta);
        }
    }

    /// The delayed-ack timer expired: acknowledge what is waiting.
    pub fn on_timer(&mut self, _now: SimTime, c: &mut FlowCounters, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        if self.unacked > 0 {
            let (ts, flags) = (self.oldest_ts, self.oldest_flags);
            self.send_ack(ts, flags, c, out, meta);
        }
    }

    fn remember(&mut self, seq: u32) {
        let n = (self.n_recent as usize).min(self.recent.len() - 1);
        self.recent.copy_within(0..n, 1);
        self.recent[0] = seq;
        self.n_recent = (n + 1).min(self.recent.len()) as u8;
    }

    #[inline]
    fn send_ack(&mut self, ts: SimTime, flags: u8, c: &mut FlowCounters, out: &mut Vec<Packet>, meta: &mut MetaSlab) {
        self.send_ack_seq(self.rcv.next_expected(), ts, flags, c, out, meta);
    }

    /// Sends the ack of everything below `seq` (the next expected number).
    #[inline]
    fn send_ack_seq(
        &mut self,
        seq: u32,
        ts: SimTime,
        flags: u8,
        c: &mut FlowCounters,
        out: &mut Vec<Packet>,
        meta: &mut MetaSlab,
    ) {
        debug_assert_eq!(seq, self.rcv.next_expected());
        let flags = if self.ece { (flags & ECHOED_FLAGS) | FLAG_ECE } else { flags & ECHOED_FLAGS };
        // Built whole, not copied and then patched field by field in memory: a copy
        // read back whole right after such patches waits for them to reach the cache
        // (the sender's `send_impl` stalled so at its push; docs/performance.md). So the
        // SACK blocks' handle is computed apart: with the packet's address taken, it was
        // built on the stack field by field and then copied into `out` whole.
        let mut a = Packet { kind: PacketKind::Ack, seq, ts, flags, ..self.ack };
        if self.sack_blocks > 0 && self.rcv.held() > 0 {
            a.meta = self.attach_sack(a.meta, meta);
        }
        out.push(a);
        c.acks_sent += 1;
        self.unacked = 0;
        self.timer.set_deadline(None);
    }

    /// SACK blocks: the block of each recent out-of-order arrival still held, newest
    /// first, without repeats, in the metadata of handle `handle` (made if it is
    /// `NO_META`); returns the handle.
    fn attach_sack(&mut self, mut handle: u32, meta: &mut MetaSlab) -> u32 {
        let h = meta.ensure(&mut handle);
        let blocks = &mut meta.get_mut(h).sack;
        for &seq in &self.recent[..self.n_recent as usize] {
            if blocks.n >= self.sack_blocks {
                break;
            }
            if let Some(b) = self.rcv.block_around(seq) {
                if !blocks.as_slice().contains(&b) {
                    blocks.push(b.0, b.1);
                }
            }
        }
        h
    }
}

/// The receiving end of an unresponsive source: counts what arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sink;

impl Sink {
    #[inline]
    pub fn on_data(&mut self, c: &mut FlowCounters) {
        c.arrived += 1;
        c.delivered += 1;
    }
}

impl ReceiverPolicy for AckReceiver {
    const DESCRIPTION: &'static str =
        "acknowledges data (every packet or delayed; SACK blocks, ECN echo, out-of-order handling)";
    #[inline(always)]
    fn on_data(&mut self, io: Io<'_>, p: &Packet) -> Option<Pass> {
        AckReceiver::on_data(self, io.now, p, io.counters, io.out, io.meta);
        None
    }
    #[inline(always)]
    fn timer(&mut self) -> Option<&mut LazyTimer> {
        Some(&mut self.timer)
    }
    fn on_timer(&mut self, io: Io<'_>) {
        AckReceiver::on_timer(self, io.now, io.counters, io.out, io.meta)
    }
    fn ack_route(&self) -> Option<u32> {
        Some(AckReceiver::ack_route(self))
    }
    fn takes_data_early(&self) -> bool {
        self.timerless()
    }
    fn metrics(&self) -> ReceiverMetrics {
        ReceiverMetrics::default()
    }
}

impl ReceiverPolicy for Sink {
    const DESCRIPTION: &'static str = "counts what arrives";
    #[inline]
    fn on_data(&mut self, io: Io<'_>, _p: &Packet) -> Option<Pass> {
        Sink::on_data(self, io.counters);
        None
    }
    fn metrics(&self) -> ReceiverMetrics {
        ReceiverMetrics::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::FLAG_ECT;

    fn receiver(cfg: ReceiverConfig) -> AckReceiver {
        let mut ack = Packet::new(PacketKind::Ack, 0, 40);
        ack.route = 7;
        AckReceiver::new(cfg, ack, 64)
    }

    fn data(seq: u32, ts_ms: u64) -> Packet {
        let mut p = Packet::new(PacketKind::Data, 0, 1000);
        p.seq = seq;
        p.ts = SimTime::from_millis(ts_ms);
        p
    }

    struct Run {
        r: AckReceiver,
        c: FlowCounters,
        out: Vec<Packet>,
        meta: MetaSlab,
    }

    impl Run {
        fn new(cfg: ReceiverConfig) -> Self {
            Run { r: receiver(cfg), c: FlowCounters::default(), out: Vec::new(), meta: MetaSlab::default() }
        }
        fn data(&mut self, now_ms: u64, p: Packet) {
            self.r.on_data(SimTime::from_millis(now_ms), &p, &mut self.c, &mut self.out, &mut self.meta);
        }
        fn acks(&self) -> Vec<u32> {
            self.out.iter().map(|a| a.seq).collect()
        }
    }

    #[test]
    fn acks_every_packet_with_the_next_expected_and_buffers_out_of_order() {
        let mut t = Run::new(ReceiverConfig::default());
        for s in [0u32, 2, 3, 1] {
            t.data(10, data(s, s as u64));
        }
        assert_eq!(t.acks(), vec![1, 1, 1, 4]);
        assert_eq!(t.out[3].ts, SimTime::from_millis(1), "echoes the packet that triggered it");
        assert_eq!(t.out[3].route, 7);
        assert_eq!((t.c.delivered, t.c.arrived, t.c.acks_sent), (4, 4, 4));
    }

    #[test]
    fn discarding_receiver_keeps_only_the_next_expected_packet() {
        let mut t = Run::new(ReceiverConfig { keep_out_of_order: false, ..Default::default() });
        for s in [0u32, 2, 1, 2] {
            t.data(10, data(s, 0));
        }
        // 2 is thrown away the first time, so the ack after 1 is 2, and 2 is accepted again.
        assert_eq!(t.acks(), vec![1, 1, 2, 3]);
        assert_eq!((t.c.delivered, t.c.arrived), (3, 4));
    }

    #[test]
    fn delayed_acks_halve_the_acks_and_echo_the_oldest_packet() {
        let mut t = Run::new(ReceiverConfig { delayed_ack: Some(DelayedAck::default()), ..Default::default() });
        for s in 0..10u32 {
            t.data(100 + s as u64, data(s, s as u64));
        }
        assert_eq!(t.acks(), vec![2, 4, 6, 8, 10]);
        // Each ack echoes the first of its two packets (RFC 1323): 0, 2, 4, ...
        assert_eq!(
            t.out.iter().map(|a| a.ts.as_secs_f64() * 1000.0).collect::<Vec<_>>(),
            vec![0.0, 2.0, 4.0, 6.0, 8.0]
        );
        assert_eq!(t.r.timer.deadline(), None, "nothing waits");
    }

    #[test]
    fn a_lone_packet_is_acknowledged_when_the_timer_expires() {
        let mut t = Run::new(ReceiverConfig { delayed_ack: Some(DelayedAck::default()), ..Default::default() });
        t.data(1000, data(0, 900));
        assert!(t.out.is_empty());
        assert_eq!(t.r.timer.deadline(), Some(SimTime::from_millis(1200)));
        t.r.on_timer(SimTime::from_millis(1200), &mut t.c, &mut t.out, &mut t.meta);
        assert_eq!(t.acks(), vec![1]);
        assert_eq!(t.out[0].ts, SimTime::from_millis(900));
    }

    #[test]
    fn adaptive_timer_starts_at_40ms_and_follows_the_arrival_gap() {
        let d = DelayedAck { min_delay: Some(SimDuration::from_millis(40)), ..Default::default() };
        let mut t = Run::new(ReceiverConfig { delayed_ack: Some(d), ..Default::default() });
        let ms = SimDuration::from_millis;
        // A lone packet waits the initial ato, 40 ms (not 200).
        t.data(1000, data(0, 900));
        assert_eq!(t.r.timer.deadline(), Some(SimTime::from_millis(1040)));
        t.r.on_timer(SimTime::from_millis(1040), &mut t.c, &mut t.out, &mut t.meta);
        // Gap 30 ms (20 < m < 40): ato = 20 + 30 = 50 ms.
        t.data(1030, data(1, 930));
        assert_eq!(t.r.ack_timeout(), Some(ms(50)));
        assert_eq!(t.r.timer.deadline(), Some(SimTime::from_millis(1080)));
        // Gap 45 ms < 50: ato = 25 + 45 = 70 ms; the second packet sends the ack.
        t.data(1075, data(2, 975));
        assert_eq!(t.r.ack_timeout(), Some(ms(70)));
        assert_eq!(t.acks(), vec![1, 3]);
        // Gaps of 5 ms (<= 20 ms): ato halves towards 40: 35 + 20 = 55, 27.5 + 20 = 47.5.
        t.data(1080, data(3, 980));
        assert_eq!(t.r.ack_timeout(), Some(ms(55)));
        t.data(1085, data(4, 985));
        assert_eq!(t.r.ack_timeout(), Some(SimDuration::from_micros(47_500)));
        // A gap longer than ato leaves it; ato never exceeds ack_delay (200 ms).
        t.data(2085, data(5, 1985));
        assert_eq!(t.r.ack_timeout(), Some(SimDuration::from_micros(47_500)));
        let mut r =
            Run::new(ReceiverConfig { delayed_ack: Some(DelayedAck { delay: ms(60), ..d }), ..Default::default() });
        r.data(0, data(0, 0));
        r.data(50, data(1, 50)); // m = 50 >= ato 40: unchanged
        assert_eq!(r.r.ack_timeout(), Some(ms(40)));
        r.r.ato = ms(100); // (as if larger) capped at the 60 ms delay on the next arrival
        r.data(80, data(2, 80));
        assert_eq!(r.r.ack_timeout(), Some(ms(60)));
    }

    #[test]
    fn the_syn_of_a_handshake_is_acknowledged_at_once() {
        let cfg = ReceiverConfig { delayed_ack: Some(DelayedAck::default()), handshake: true, ..Default::default() };
        let mut t = Run::new(cfg);
        t.data(10, data(0, 0));
        assert_eq!(t.acks(), vec![1]);
        t.data(20, data(1, 10)); // data: delayed as usual
        assert_eq!(t.acks(), vec![1]);
    }

    #[test]
    fn out_of_order_and_gap_filling_packets_are_acknowledged_at_once() {
        let mut t = Run::new(ReceiverConfig { delayed_ack: Some(DelayedAck::default()), ..Default::default() });
        t.data(10, data(0, 0)); // waits
        t.data(11, data(2, 1)); // out of order: ack 1 at once (covers 0)
        assert_eq!(t.acks(), vec![1]);
        t.data(12, data(1, 2)); // fills the gap: ack 3 at once
        assert_eq!(t.acks(), vec![1, 3]);
        t.data(13, data(3, 3)); // in order again: waits
        assert_eq!(t.acks(), vec![1, 3]);
    }

    #[test]
    fn sack_blocks_report_held_runs_newest_first() {
        let mut t = Run::new(ReceiverConfig { sack_blocks: 3, ..Default::default() });
        for s in [0u32, 2, 3, 6, 9, 10] {
            t.data(10, data(s, 0));
        }
        let last = t.out.last().unwrap();
        let blocks = t.meta.get(last.meta).unwrap().sack;
        // Held: [2,4), [6,7), [9,11); newest arrival 10 -> [9,11), then 9 (same block),
        // 6 -> [6,7), 3 -> [2,4).
        assert_eq!(blocks.as_slice(), &[(9, 11), (6, 7), (2, 4)]);
        assert_eq!(t.out[0].meta, crate::packet::meta::NO_META, "no blocks while nothing is held");
    }

    #[test]
    fn ecn_echo_from_ce_until_cwr() {
        let mut t = Run::new(ReceiverConfig { ecn: true, ..Default::default() });
        let mut p = data(0, 0);
        p.flags = FLAG_ECT;
        t.data(1, p);
        p.seq = 1;
        p.flags = FLAG_ECT | FLAG_CE;
        t.data(2, p);
        p.seq = 2;
        p.flags = FLAG_ECT;
        t.data(3, p);
        p.seq = 3;
        p.flags = FLAG_ECT | FLAG_CWR;
        t.data(4, p);
        let ece: Vec<bool> = t.out.iter().map(|a| a.has(FLAG_ECE)).collect();
        assert_eq!(ece, vec![false, true, true, false]);
        assert!(t.out.iter().all(|a| !a.has(FLAG_ECT) && !a.has(FLAG_CE)), "acks are not ECN-capable");
        assert_eq!(t.c.ce_received, 1);
    }

    /// (ack number, ECE) of each ack sent.
    fn acks_ece(t: &Run) -> Vec<(u32, bool)> {
        t.out.iter().map(|a| (a.seq, a.has(FLAG_ECE))).collect()
    }

    fn ect(seq: u32, ce: bool) -> Packet {
        let mut p = data(seq, seq as u64);
        p.flags = if ce { FLAG_ECT | FLAG_CE } else { FLAG_ECT };
        p
    }

    #[test]
    fn dctcp_echo_with_delayed_acks_reflects_exactly_the_ce_marks_acknowledged() {
        let cfg = ReceiverConfig {
            ecn: true,
            ecn_echo: EcnEcho::Dctcp,
            delayed_ack: Some(DelayedAck::default()),
            ..Default::default()
        };
        let mut t = Run::new(cfg);
        // Arrivals 0..=9, CE on 2, 3, 4, 6, 7. By RFC 8257 section 3.2, state 0 first:
        //   0 N: waits.             1 N: second packet, ack 2 ECE 0.
        //   2 C: change, nothing waits; ack 3 ECE 1 at once.
        //   3 C: waits.             4 C: ack 5 ECE 1.
        //   5 N: change, ack 6 ECE 0 at once.   6 C: change, ack 7 ECE 1 at once.
        //   7 C: waits.
        //   8 N: change with 7 waiting: ack 8 ECE 1 (the old state) for 7, then ack 9
        //        ECE 0 at once for 8.
        //   9 N: waits; the timer sends ack 10 ECE 0.
        let ce = [false, false, true, true, true, false, true, true, false, false];
        for (s, &m) in ce.iter().enumerate() {
            t.data(100 + s as u64, ect(s as u32, m));
        }
        assert_eq!(t.r.timer.deadline(), Some(SimTime::from_millis(309)), "9 waits 200 ms");
        t.r.on_timer(SimTime::from_millis(309), &mut t.c, &mut t.out, &mut t.meta);
        assert_eq!(
            acks_ece(&t),
            vec![(2, false), (3, true), (5, true), (6, false), (7, true), (8, true), (9, false), (10, false)]
        );
        // The acks with ECE cover 3 - 2 + 5 - 3 + 7 - 6 + 8 - 7 = 5 packets: the 5 marked.
        assert_eq!(t.c.ce_received, 5);
        // The flushed ack for 7 echoes 7's timestamp (7 ms), the immediate one 8's.
        assert_eq!((t.out[5].ts, t.out[6].ts), (SimTime::from_millis(7), SimTime::from_millis(8)));
    }

    #[test]
    fn dctcp_echo_ignores_cwr_and_without_delayed_acks_echoes_each_packets_mark() {
        let cfg = ReceiverConfig { ecn: true, ecn_echo: EcnEcho::Dctcp, ..Default::default() };
        let mut t = Run::new(cfg);
        let mut cwr = ect(2, true);
        cwr.flags |= FLAG_CWR;
        for p in [ect(0, false), ect(1, true), cwr, ect(3, false), ect(4, true)] {
            t.data(10, p);
        }
        assert_eq!(acks_ece(&t), vec![(1, false), (2, true), (3, true), (4, false), (5, true)]);
        // RFC 3168's echo latches ECE from the first mark to the CWR: 1, 2 (CE again
        // after the CWR), 3, 4.
        let mut r = Run::new(ReceiverConfig { ecn: true, ..Default::default() });
        for p in [ect(0, false), ect(1, true), cwr, ect(3, false), ect(4, true)] {
            r.data(10, p);
        }
        assert_eq!(acks_ece(&r), vec![(1, false), (2, true), (3, true), (4, true), (5, true)]);
    }
}
