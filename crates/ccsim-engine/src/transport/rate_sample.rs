//! Delivery-rate samples of the window sender, as Linux 4.9 computes them
//! (`net/ipv4/tcp_rate.c`; Cheng, Cardwell, Yeganeh, Jacobson, "Delivery Rate
//! Estimation", draft-cheng-iccrg-delivery-rate-estimation-00, sections 3.1-3.3).
//!
//! - The flow keeps `delivered` (packets delivered so far: cumulatively acknowledged,
//!   and SACKed ones as they are SACKed), `delivered_time` (when the last delivery was
//!   acknowledged), `first_tx_time` (the send time of the packet whose delivery began
//!   the current sampling window) and `app_limited` (0, or the `delivered` count after
//!   which the application-limited period ends).
//! - Each packet sent (new or retransmitted) takes a snapshot of those four values.
//!   With nothing outstanding, `first_tx_time` and `delivered_time` restart at the send
//!   time (`tcp_rate_skb_sent`).
//! - An ack that delivers packets (newly SACKed ones first, then the cumulatively
//!   acknowledged ones in sequence order) picks as P the packet with the largest
//!   snapshot `delivered` (4.9's `tcp_rate_skb_delivered`: the first packet seen, or a
//!   later one with a strictly larger snapshot, or any while the chosen one's snapshot is
//!   0) and moves `first_tx_time` to P's send time. The sample (`tcp_rate_gen`):
//!   delivered = now.delivered - P.delivered, interval = max(P.sent - P.first_tx_time,
//!   now - P.delivered_time), application-limited as P was when sent, and the RTT of P
//!   (none if P was a retransmission, Karn). A sample whose interval is shorter than
//!   the flow's minimum RTT is not valid (`interval` is `None`), as Linux discards it.
//! - The application-limited mark ends once `delivered` passes it. A new flow starts
//!   marked until its first ack (Linux's `tcp_init_sock` sets `app_limited = ~0U`, which
//!   the first `tcp_rate_gen` clears), so the samples of the first window are
//!   application-limited.
//!
//! Storage: a ring of per-packet snapshots indexed by sequence number (`seq & mask`),
//! covering `[snd_una, snd_max)`, grown by doubling when the outstanding data outgrows
//! it: no allocation per packet. The sender builds it only for a policy that declares
//! `CcPolicy::RATE_SAMPLE`.
//!
//! - Without SACK each duplicate ack counts one packet delivered and held by the
//!   receiver, and the cumulative ack that follows delivers what it acknowledges less
//!   those, at least one (Linux's Reno emulation, `tcp_add_reno_sack`,
//!   `tcp_remove_reno_sacks`); such a duplicate ack identifies no packet, so its sample
//!   has no P. Without this, the cumulative ack that ends a recovery would deliver a
//!   whole window at once and overestimate the rate.
//!
//! Deviations: the minimum RTT that filters short intervals is the smallest RTT of P
//! over the flow's life (Linux: `tcp_min_rtt`, a 300 s windowed minimum of every RTT
//! sample); a packet SACKed before a timeout stays delivered when the sender resends it
//! after the timeout cleared its scoreboard.

use crate::base::time::{SimDuration, SimTime};

/// Defined with the other samples a policy receives (`cc::RateSample`).
pub use crate::cc::RateSample;

/// The snapshot a packet takes when sent (`TCP_SKB_CB(skb)->tx`).
#[derive(Clone, Copy, Debug, Default)]
struct Snapshot {
    delivered: u64,
    delivered_time: SimTime,
    first_tx_time: SimTime,
    sent: SimTime,
    app_limited: bool,
    retransmitted: bool,
    /// SACKed: counted as delivered already (Linux clears `delivered_mstamp`).
    sacked: bool,
}

/// The application-limited mark of a new flow: cleared by its first ack.
const UNTIL_FIRST_ACK: u64 = u64::MAX;

/// The sender's delivery-rate state (see the module documentation).
#[derive(Clone, Debug)]
pub struct RateSampler {
    /// Snapshots of `[snd_una, snd_max)`, at `seq & (len - 1)`; the length is a power
    /// of two.
    ring: Vec<Snapshot>,
    delivered: u64,
    delivered_time: SimTime,
    first_tx_time: SimTime,
    /// 0: not application-limited; else the `delivered` count the mark lasts until
    /// (`UNTIL_FIRST_ACK`: until the first ack).
    app_limited: u64,
    /// SACKed packets above `snd_una` (without SACK: duplicate acks not yet covered by
    /// a cumulative ack).
    sacked_out: u32,
    /// The receiver sends SACK blocks; else duplicate acks count as deliveries.
    sack: bool,
    /// Smallest RTT of P seen (filters short intervals).
    min_rtt: Option<SimDuration>,
}

impl Default for RateSampler {
    fn default() -> Self {
        RateSampler::new(true)
    }
}

impl RateSampler {
    /// The state of a new flow; `sack`: its receiver sends SACK blocks.
    pub fn new(sack: bool) -> Self {
        RateSampler {
            ring: vec![Snapshot::default(); 64],
            delivered: 0,
            delivered_time: SimTime::ZERO,
            first_tx_time: SimTime::ZERO,
            app_limited: UNTIL_FIRST_ACK,
            sacked_out: 0,
            sack,
            min_rtt: None,
        }
    }
}

/// 4.9's choice of P (`tcp_rate_skb_delivered`): the packet in slot `i` of `ring`
/// replaces the one chosen so far (`p`, a slot) if there is none, if its snapshot is 0,
/// or if `i`'s is larger; the flow's `first_tx_time` follows P's send time. Slots, not
/// copies of the 40-byte snapshots: an ack's loop writes no snapshot.
#[inline(always)]
fn take(ring: &[Snapshot], i: usize, p: &mut Option<usize>, first_tx: &mut SimTime) {
    let e = &ring[i];
    if p.is_none_or(|q| ring[q].delivered == 0 || e.delivered > ring[q].delivered) {
        *p = Some(i);
        *first_tx = e.sent;
    }
}

impl RateSampler {
    fn slot(&self, seq: u32) -> usize {
        seq as usize & (self.ring.len() - 1)
    }

    /// Packets delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Whether the flow is marked application-limited.
    pub fn app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// Marks the flow application-limited until what is in flight now is delivered
    /// (`tcp_rate_check_app_limited`; BBR's ProbeRTT): `app_limited = delivered +
    /// in_flight`, at least 1.
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        self.app_limited = (self.delivered + in_flight as u64).max(1);
    }

    /// Packets outstanding and not SACKed, with `[snd_una, snd_max)` outstanding.
    pub fn in_flight(&self, snd_una: u32, snd_max: u32) -> u32 {
        (snd_max - snd_una).saturating_sub(self.sacked_out)
    }

    /// Packet `seq` is sent at `now`, with `[snd_una, snd_max)` outstanding before it
    /// (`tcp_rate_skb_sent`). Inline: the sender calls it from its one out-of-line step
    /// per send (`WindowSender::rate_on_sent`), which only rate-sampling flows reach.
    #[inline]
    pub fn on_sent(&mut self, now: SimTime, seq: u32, snd_una: u32, snd_max: u32) {
        if snd_una == snd_max {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        let needed = (snd_max.max(seq + 1) - snd_una) as usize;
        if needed > self.ring.len() {
            self.grow(needed, snd_una, snd_max);
        }
        let retransmitted = seq < snd_max;
        let i = self.slot(seq);
        if retransmitted && self.ring[i].sacked {
            return; // delivered already (a resend after a timeout cleared the scoreboard)
        }
        self.ring[i] = Snapshot {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            sent: now,
            app_limited: self.app_limited != 0,
            retransmitted,
            sacked: false,
        };
    }

    /// Doubles the ring until it holds `needed` packets, keeping `[snd_una, snd_max)`.
    fn grow(&mut self, needed: usize, snd_una: u32, snd_max: u32) {
        let mut len = self.ring.len();
        while len < needed {
            len *= 2;
        }
        let mut ring = vec![Snapshot::default(); len];
        for s in snd_una..snd_max {
            ring[s as usize & (len - 1)] = self.ring[self.slot(s)];
        }
        self.ring = ring;
    }

    /// An ack at `now` moved the cumulative ack from `old_una` to `new_una` (equal for a
    /// duplicate; `dup`: a duplicate ack with data outstanding) and reported the SACK
    /// blocks `sack` (`[start, end)`), with `snd_max` one past the highest packet sent.
    /// Returns the sample, or `None` for an ack that delivered nothing.
    pub fn on_ack(
        &mut self,
        now: SimTime,
        old_una: u32,
        new_una: u32,
        snd_max: u32,
        sack: &[(u32, u32)],
        dup: bool,
    ) -> Option<RateSample> {
        let prior_in_flight = self.in_flight(old_una, snd_max);
        if !self.sack {
            return self.on_ack_without_sack(now, old_una, new_una, snd_max, dup, prior_in_flight);
        }
        let mut newly = 0u32;
        let mut p: Option<usize> = None;
        let mut first_tx = self.first_tx_time;
        for &(a, b) in sack {
            for s in a.max(new_una)..b.min(snd_max) {
                let i = self.slot(s);
                if !self.ring[i].sacked {
                    self.ring[i].sacked = true;
                    self.sacked_out += 1;
                    newly += 1;
                    take(&self.ring, i, &mut p, &mut first_tx);
                }
            }
        }
        for s in old_una..new_una {
            let i = self.slot(s);
            if self.ring[i].sacked {
                self.sacked_out -= 1;
                continue;
            }
            newly += 1;
            take(&self.ring, i, &mut p, &mut first_tx);
        }
        if newly == 0 && new_una == old_una {
            return None;
        }
        self.first_tx_time = first_tx;
        let p = p.map(|i| self.ring[i]);
        Some(self.sample(now, newly, p, prior_in_flight, new_una, snd_max))
    }

    /// `on_ack` for a receiver without SACK (Reno emulation, see the module
    /// documentation).
    fn on_ack_without_sack(
        &mut self,
        now: SimTime,
        old_una: u32,
        new_una: u32,
        snd_max: u32,
        dup: bool,
        prior_in_flight: u32,
    ) -> Option<RateSample> {
        if new_una == old_una {
            // At least one hole stays unaccounted for (Linux `tcp_limit_reno_sacked`).
            if !dup || self.sacked_out + 1 >= snd_max - old_una {
                return None;
            }
            self.sacked_out += 1;
            return Some(self.sample(now, 1, None, prior_in_flight, new_una, snd_max));
        }
        let mut p: Option<usize> = None;
        let mut first_tx = self.first_tx_time;
        for s in old_una..new_una {
            take(&self.ring, self.slot(s), &mut p, &mut first_tx);
        }
        self.first_tx_time = first_tx;
        let acked = new_una - old_una;
        let newly = acked.saturating_sub(self.sacked_out).max(1);
        self.sacked_out = self.sacked_out.saturating_sub(acked - 1);
        let p = p.map(|i| self.ring[i]);
        Some(self.sample(now, newly, p, prior_in_flight, new_una, snd_max))
    }

    /// `tcp_rate_gen`: `newly` packets delivered now, P the chosen packet.
    fn sample(
        &mut self,
        now: SimTime,
        newly: u32,
        p: Option<Snapshot>,
        prior_in_flight: u32,
        new_una: u32,
        snd_max: u32,
    ) -> RateSample {
        self.delivered += newly as u64;
        if self.app_limited == UNTIL_FIRST_ACK || (self.app_limited != 0 && self.delivered > self.app_limited) {
            self.app_limited = 0;
        }
        if newly > 0 {
            self.delivered_time = now;
        }
        let mut rs = RateSample {
            now,
            total_delivered: self.delivered,
            delivered_time: self.delivered_time,
            acked_sacked: newly,
            prior_in_flight,
            in_flight: self.in_flight(new_una, snd_max),
            ..RateSample::default()
        };
        let Some(p) = p else { return rs };
        rs.prior_delivered = Some(p.delivered);
        rs.delivered = self.delivered - p.delivered;
        rs.is_app_limited = p.app_limited;
        rs.rtt = (!p.retransmitted).then(|| now - p.sent);
        if let Some(r) = rs.rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        let send_phase = p.sent - p.first_tx_time;
        let ack_phase = now - p.delivered_time;
        let interval = send_phase.max(ack_phase);
        rs.interval = (interval.as_ps() > 0 && self.min_rtt.is_none_or(|m| interval >= m)).then_some(interval);
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }
    fn d(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    /// Sends `n` new packets at `t` ms with `una` the first unacknowledged.
    fn send(r: &mut RateSampler, t: u64, una: u32, max: &mut u32, n: u32) {
        for _ in 0..n {
            r.on_sent(ms(t), *max, una, *max);
            *max += 1;
        }
    }

    #[test]
    fn a_burst_acked_at_the_bottleneck_rate_gives_that_rate() {
        // 10 packets sent back to back at 0 ms into an empty pipe: each snapshot is
        // (delivered 0, delivered_time 0, first_tx 0). The path delivers one every 10 ms,
        // the first ack at 100 ms.
        let mut r = RateSampler::default();
        let mut max = 0;
        send(&mut r, 0, 0, &mut max, 10);
        // Ack of 0 at 100 ms: delivered 1 - 0 = 1; send phase 0, ack phase 100 ms.
        let s = r.on_ack(ms(100), 0, 1, max, &[], false).unwrap();
        assert_eq!((s.delivered, s.interval, s.rtt), (1, Some(d(100)), Some(d(100))));
        assert_eq!((s.prior_delivered, s.prior_in_flight, s.in_flight), (Some(0), 10, 9));
        // Ack of 1 at 110 ms: delivered 2 - 0 = 2 over the ack phase 110 - 0 = 110 ms.
        let s = r.on_ack(ms(110), 1, 2, max, &[], false).unwrap();
        assert_eq!((s.delivered, s.interval), (2, Some(d(110))));
        // Packet 10 sent at 110 ms: snapshot (delivered 2, delivered_time 110, first_tx 0:
        // the send time of packet 1, the last ack's P).
        r.on_sent(ms(110), max, 2, max);
        max += 1;
        for k in 2..10 {
            r.on_ack(ms(100 + 10 * k as u64), k, k + 1, max, &[], false);
        }
        // Its ack at 210 ms: delivered 11 - 2 = 9; send phase 110 - 0 = 110 ms, ack phase
        // 210 - 110 = 100 ms; interval 110 ms: 9 / 0.110 = 81.8 pkt/s (the 10 pkt per
        // 100 ms bottleneck, less the idle first 10 ms of the send phase).
        let s = r.on_ack(ms(210), 10, 11, max, &[], false).unwrap();
        assert_eq!((s.delivered, s.interval, s.rtt), (9, Some(d(110)), Some(d(100))));
        assert!((s.rate_pps().unwrap() - 9.0 / 0.110).abs() < 1e-9);
        assert_eq!(s.total_delivered, 11);
    }

    #[test]
    fn with_compressed_acks_the_send_phase_bounds_the_interval() {
        // Packets 0 and 1 sent at 0 and 10 ms (snapshots (0, 0, 0)); a queue makes their
        // RTT 150 ms.
        let mut r = RateSampler::default();
        let mut max = 0;
        send(&mut r, 0, 0, &mut max, 1);
        send(&mut r, 10, 0, &mut max, 1);
        // Ack of 0 at 150 ms: delivered 1, delivered_time 150, first_tx 0 (P = 0).
        let s = r.on_ack(ms(150), 0, 1, max, &[], false).unwrap();
        assert_eq!((s.delivered, s.interval), (1, Some(d(150))));
        // Packet 2 at 150 ms (1 still out): snapshot (1, 150, 0).
        send(&mut r, 150, 1, &mut max, 1);
        // Ack of 1 at 160 ms: first_tx moves to 10 ms.
        r.on_ack(ms(160), 1, 2, max, &[], false).unwrap();
        // The queue has drained: packet 2's ack comes 110 ms after it left, at 260 ms.
        // delivered 3 - 1 = 2; send phase 150 - 0 = 150 ms > ack phase 260 - 150 =
        // 110 ms: interval 150 ms, 2 / 0.150 = 13.3 pkt/s rather than 2 / 0.110.
        let s = r.on_ack(ms(260), 2, 3, max, &[], false).unwrap();
        assert_eq!((s.delivered, s.interval, s.rtt), (2, Some(d(150)), Some(d(110))));
    }

    #[test]
    fn an_interval_below_the_minimum_rtt_is_not_valid() {
        // Packet 0 at 0 ms, acked at 100 ms: minimum RTT 100 ms.
        let mut r = RateSampler::default();
        let mut max = 0;
        send(&mut r, 0, 0, &mut max, 1);
        assert_eq!(r.on_ack(ms(100), 0, 1, max, &[], false).unwrap().interval, Some(d(100)));
        // Packet 1 at 100 ms (empty pipe: first_tx = delivered_time = 100 ms), resent at
        // 120 ms; the original's ack comes at 150 ms. P is the resent packet: send phase
        // 120 - 100 = 20 ms, ack phase 150 - 100 = 50 ms; 50 ms < 100 ms: not valid, and
        // no RTT (Karn).
        send(&mut r, 100, 1, &mut max, 1);
        r.on_sent(ms(120), 1, 1, max);
        let s = r.on_ack(ms(150), 1, 2, max, &[], false).unwrap();
        assert_eq!((s.delivered, s.interval, s.rtt), (1, None, None));
        assert_eq!(s.rate_pps(), None);
    }

    #[test]
    fn app_limited_marks_the_packets_sent_until_the_bubble_is_delivered() {
        // A new flow is marked until its first ack: packet 0's sample is app-limited.
        let mut r = RateSampler::default();
        let mut max = 0;
        send(&mut r, 0, 0, &mut max, 1);
        assert!(r.app_limited());
        let s = r.on_ack(ms(100), 0, 1, max, &[], false).unwrap();
        assert!(s.is_app_limited && !r.app_limited(), "the first ack clears the start mark");
        // Packets 1, 2 in flight when the flow runs out of data (delivered 1):
        // app_limited = 1 + 2 = 3. Packet 3 sent then is app-limited; the mark ends when
        // delivered passes 3, at the ack of packet 3 (delivered 4).
        send(&mut r, 100, 1, &mut max, 2);
        r.mark_app_limited(2);
        send(&mut r, 101, 1, &mut max, 1);
        let s = r.on_ack(ms(200), 1, 2, max, &[], false).unwrap();
        assert!(!s.is_app_limited && r.app_limited(), "packet 1 was sent before the mark");
        let s = r.on_ack(ms(201), 2, 3, max, &[], false).unwrap();
        assert!(!s.is_app_limited && r.app_limited(), "delivered 3: not past the mark");
        let s = r.on_ack(ms(202), 3, 4, max, &[], false).unwrap();
        assert!(s.is_app_limited, "packet 3 was sent app-limited");
        assert!(!r.app_limited(), "delivered 4 > 3: the bubble is gone");
        // Nothing in flight and nothing delivered: the mark is 1.
        let mut z = RateSampler::default();
        z.mark_app_limited(0);
        assert!(z.app_limited());
    }

    #[test]
    fn sacked_packets_count_once_when_sacked_and_not_again_when_acked() {
        // 5 packets at 0 ms; packet 0 lost. Duplicate acks SACK 1 at 100 ms, 1..3 at 110.
        let mut r = RateSampler::default();
        let mut max = 0;
        send(&mut r, 0, 0, &mut max, 5);
        let s = r.on_ack(ms(100), 0, 0, max, &[(1, 2)], false).unwrap();
        assert_eq!((s.acked_sacked, s.total_delivered, s.prior_in_flight, s.in_flight), (1, 1, 5, 4));
        let s = r.on_ack(ms(110), 0, 0, max, &[(1, 3)], false).unwrap();
        assert_eq!((s.acked_sacked, s.total_delivered), (1, 2));
        assert_eq!(r.on_ack(ms(111), 0, 0, max, &[(1, 3)], false), None, "nothing new");
        // Packet 0 resent at 110 ms: snapshot (2, 110, first_tx 0: the send time of
        // packet 2, the last P). The ack to 3 at 210 ms delivers packet 0 alone (1 and 2
        // counted when SACKed): delivered 3 - 2 = 1; send phase 110 - 0 = 110 ms, ack
        // phase 210 - 110 = 100 ms; no RTT (a retransmission).
        r.on_sent(ms(110), 0, 0, max);
        let s = r.on_ack(ms(210), 0, 3, max, &[], false).unwrap();
        assert_eq!((s.acked_sacked, s.total_delivered, s.delivered), (1, 3, 1));
        assert_eq!((s.interval, s.rtt, s.in_flight), (Some(d(110)), None, 2));
    }

    #[test]
    fn without_sack_duplicate_acks_count_as_deliveries_as_linux_reno_emulation() {
        // 5 packets at 0 ms, packet 0 lost; duplicate acks for 1..4 at 100, 110, 120,
        // 130 ms: one packet delivered each, no P (no packet named), in flight down by
        // one each (5 - 1 = 4 after the first).
        let mut r = RateSampler::new(false);
        let mut max = 0;
        send(&mut r, 0, 0, &mut max, 5);
        for (k, t) in [100, 110, 120, 130].into_iter().enumerate() {
            let s = r.on_ack(ms(t), 0, 0, max, &[], true).unwrap();
            assert_eq!((s.acked_sacked, s.total_delivered, s.prior_delivered), (1, k as u64 + 1, None));
            assert_eq!((s.in_flight, s.interval), (4 - k as u32, None));
        }
        assert_eq!(r.on_ack(ms(131), 0, 0, max, &[], true), None, "the hole stays in flight");
        // Packet 0 resent at 130 ms: snapshot (4, 130 ms, first_tx 0: no P moved it).
        // The cumulative ack to 5 at 230 ms acknowledges 5 packets, 4 of them counted
        // already: delivered + max(5 - 4, 1) = 5. P = packet 0 (the largest snapshot):
        // 5 - 4 = 1 delivered; send phase 130 - 0 = 130 ms, ack phase 230 - 130 = 100
        // ms; no RTT (a retransmission).
        r.on_sent(ms(130), 0, 0, max);
        let s = r.on_ack(ms(230), 0, 5, max, &[], false).unwrap();
        assert_eq!((s.acked_sacked, s.total_delivered, s.delivered), (1, 5, 1));
        assert_eq!((s.interval, s.rtt, s.in_flight), (Some(d(130)), None, 0));
    }

    #[test]
    fn the_ring_grows_and_keeps_the_outstanding_snapshots() {
        // 200 packets outstanding (more than the first 64 slots), packet k sent at k ms.
        let mut r = RateSampler::default();
        let mut max = 0;
        for t in 0..200 {
            send(&mut r, t, 0, &mut max, 1);
        }
        // One ack for 0..=150 at 1000 ms: P = 150 (all snapshots 0: the last taken),
        // RTT 1000 - 150 = 850 ms.
        let s = r.on_ack(ms(1000), 0, 151, max, &[], false).unwrap();
        assert_eq!((s.delivered, s.rtt), (151, Some(d(850))));
    }
}
