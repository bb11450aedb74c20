//! The window-based reliable transport: one sender and one receiver per flow.
//!
//! Sender (after 4.3BSD `tcp_output`/`tcp_input`, simplified to whole packets):
//! - Sequence numbers count packets from 0. `snd_una` is the first unacknowledged,
//!   `snd_nxt` the next to send, `snd_max` one past the highest ever sent.
//! - It sends while `snd_nxt < snd_una + min(cwnd / data_size, max_window)`; sending a
//!   sequence number below `snd_max` is a retransmission.
//! - A new cumulative ack advances `snd_una`, feeds the policy and re-arms the timer
//!   (stopped when nothing is outstanding).
//! - Duplicate acks (ack = `snd_una` with data outstanding) are counted; at the policy's
//!   threshold the first unacknowledged packet is retransmitted at once (fast
//!   retransmit) and the policy told `LossKind::FastRetransmit`; beyond it, the policy
//!   sees `on_dup_ack`.
//! - Timeout: back off the timer, tell the policy `LossKind::Timeout`, go back to
//!   `snd_una` and resend as the window allows (every unacknowledged packet, in turn).
//! - RTT: Jacobson/Karels policies time one packet at a time and discard the sample if
//!   any retransmission happened meanwhile (Karn's rule, as 4.3BSD does); Generic
//!   samples every new ack from the timestamp echo. Reported RTT statistics and the
//!   `rtt` series use the echo of every ack (the true RTT of that transmission).
//!
//! Pacing (rate-based policies, `CongestionControl::pacing_rate`): when the policy
//! returns a rate, the sender emits bursts of `burst_pkts()` back-to-back packets (the
//! first marked `FLAG_PAIR_FIRST`, the second `FLAG_PAIR_SECOND`), one burst every
//! `burst * data_size * 8 / rate` seconds, and only when the window has room for the
//! whole burst (or the window is smaller than a burst). The next burst is due one gap
//! after the previous one left; if the window held it back longer it leaves as soon as
//! an ack makes room. The pacing deadline is a second `LazyTimer` (`pace`), scheduled by
//! the simulation like the retransmission timer; it costs nothing for window policies.
//!
//! Receiver: acknowledges every data packet with a cumulative ack carrying the next
//! expected sequence number (Keshav 1991 section 4: "the sequence number of the highest
//! in-sequence data packet received so far", shifted by one), echoing the data packet's
//! timestamp. Out-of-order packets are kept (`SeqBitmap`, as BSD TCP does) or, with
//! `out_of_order = "discard"`, thrown away (a go-back-N receiver; our reading of the
//! REAL simulator's sink in Keshav's and Dabbous's papers, see docs/reproductions).

use super::rtt::RtoEstimator;
use super::seqmap::SeqBitmap;
use super::timer::LazyTimer;
use super::{FlowCounters, RttStats};
use crate::cc::{AckSample, AnyCc, CcConfig, CongestionControl, LossKind, LossSample, SendSample};
use crate::packet::{Packet, PacketKind, FLAG_PAIR_FIRST, FLAG_PAIR_SECOND, FLAG_RETX};
use crate::time::{tx_time, SimTime};
use crate::trace::{Recorder, SeriesId};

/// Which time series this flow records.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowTrace {
    pub cwnd: Option<SeriesId>,
    pub ssthresh: Option<SeriesId>,
    pub outstanding: Option<SeriesId>,
    pub rtt: Option<SeriesId>,
    /// Pacing rate of rate-based policies, packets/s (nothing for window policies).
    pub rate: Option<SeriesId>,
    pub reference_rtt: Option<SeriesId>,
}

#[derive(Clone, Debug)]
pub struct WindowFlow {
    /// Data segment size, bytes.
    mss: u64,
    /// Window cap (receiver's credit), packets.
    max_window: u32,
    /// No new data is sent from this time on (retransmissions continue).
    stop: SimTime,
    pub cc: AnyCc,
    rto: RtoEstimator,
    pub timer: LazyTimer,
    /// Pacing timer: when the next paced burst is due (rate-based policies only).
    pub pace: LazyTimer,
    /// Earliest time the next paced burst may leave.
    next_send: SimTime,
    /// Template of this flow's data packets (route, conversation, size).
    data: Packet,
    /// Template of this flow's acks.
    ack: Packet,
    snd_una: u32,
    snd_nxt: u32,
    snd_max: u32,
    dupacks: u32,
    /// The packet being timed for the Jacobson/Karels estimator: (seq, send time).
    timed: Option<(u32, SimTime)>,
    rcv: SeqBitmap,
    /// Receiver keeps out-of-order packets (`true`, as BSD TCP) or discards them.
    keep_out_of_order: bool,
    pub counters: FlowCounters,
    pub rtt: RttStats,
    pub trace: FlowTrace,
}

impl WindowFlow {
    pub fn new(cc: &CcConfig, data: Packet, ack: Packet, max_window: u32, stop: SimTime, keep_out_of_order: bool) -> Self {
        let mss = (data.bits / 8) as u64;
        WindowFlow {
            mss,
            max_window,
            stop,
            cc: cc.build(mss, max_window),
            rto: RtoEstimator::new(cc.rto_style(), cc.initial_rto()),
            timer: LazyTimer::default(),
            pace: LazyTimer::default(),
            next_send: SimTime::ZERO,
            data,
            ack,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupacks: 0,
            timed: None,
            rcv: SeqBitmap::new(max_window.min(1 << 16) as usize),
            keep_out_of_order,
            counters: FlowCounters::default(),
            rtt: RttStats::default(),
            trace: FlowTrace::default(),
        }
    }

    /// Window the sender may have outstanding, packets.
    #[inline]
    pub fn window_pkts(&self) -> u32 {
        ((self.cc.cwnd() / self.mss) as u32).clamp(1, self.max_window)
    }

    /// Packets sent and not yet acknowledged.
    pub fn outstanding(&self) -> u32 {
        self.snd_max - self.snd_una
    }

    pub fn snd_una(&self) -> u32 {
        self.snd_una
    }

    pub fn srtt_s(&self) -> Option<f64> {
        self.rto.srtt().map(|d| d.as_secs_f64())
    }

    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>, rec: &mut Recorder) {
        self.record_window(now, rec);
        self.try_send(now, out, rec);
    }

    fn send(&mut self, now: SimTime, seq: u32, out: &mut Vec<Packet>) {
        self.send_marked(now, seq, 0, out)
    }

    fn send_marked(&mut self, now: SimTime, seq: u32, mark: u8, out: &mut Vec<Packet>) {
        let retx = seq < self.snd_max;
        let mut p = self.data;
        p.seq = seq;
        p.ts = now;
        p.flags = if retx { FLAG_RETX | mark } else { mark };
        out.push(p);
        self.cc.on_packet_sent(&SendSample { now, seq, retransmission: retx });
        self.counters.sent += 1;
        if retx {
            self.counters.retransmitted += 1;
        } else if self.timed.is_none() && self.rto.timed_sampling() {
            self.timed = Some((seq, now));
        }
        if self.timer.deadline.is_none() {
            self.timer.deadline = Some(now + self.rto.rto());
        }
    }

    fn try_send(&mut self, now: SimTime, out: &mut Vec<Packet>, rec: &mut Recorder) {
        if let Some(rate) = self.cc.pacing_rate() {
            self.try_send_paced(now, rate, out, rec);
            return;
        }
        let limit = self.snd_una + self.window_pkts();
        while self.snd_nxt < limit {
            if self.snd_nxt >= self.snd_max && now >= self.stop {
                break;
            }
            self.send(now, self.snd_nxt, out);
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
        rec.record(self.trace.outstanding, now, || self.outstanding() as f64);
    }

    /// Paced sending: bursts of `burst_pkts()` at the policy's rate, within the window.
    fn try_send_paced(&mut self, now: SimTime, rate_bps: u64, out: &mut Vec<Packet>, rec: &mut Recorder) {
        let window = self.window_pkts();
        let burst = self.cc.burst_pkts().clamp(1, window);
        let limit = self.snd_una + window;
        self.pace.deadline = None;
        while self.snd_nxt + burst <= limit {
            if now < self.next_send {
                self.pace.deadline = Some(self.next_send);
                break;
            }
            let mut n = 0;
            while n < burst {
                if self.snd_nxt >= self.snd_max && now >= self.stop {
                    break;
                }
                let mark = match (burst, n) {
                    (1, _) => 0,
                    (_, 0) => FLAG_PAIR_FIRST,
                    (_, 1) => FLAG_PAIR_SECOND,
                    _ => 0,
                };
                self.send_marked(now, self.snd_nxt, mark, out);
                self.snd_nxt += 1;
                self.snd_max = self.snd_max.max(self.snd_nxt);
                n += 1;
            }
            if n == 0 {
                break;
            }
            self.next_send = now + tx_time((n as u64 * self.mss * 8).min(u32::MAX as u64) as u32, rate_bps);
        }
        rec.record(self.trace.outstanding, now, || self.outstanding() as f64);
    }

    /// The pacing timer expired: send the burst that is due.
    pub fn on_pace(&mut self, now: SimTime, out: &mut Vec<Packet>, rec: &mut Recorder) {
        self.try_send(now, out, rec);
    }

    fn record_window(&self, now: SimTime, rec: &mut Recorder) {
        rec.record(self.trace.cwnd, now, || self.cc.cwnd() as f64 / self.mss as f64);
        if let Some(s) = self.cc.ssthresh() {
            rec.record(self.trace.ssthresh, now, || s as f64 / self.mss as f64);
        }
        if self.trace.rate.is_some() {
            if let Some(r) = self.cc.pacing_rate().filter(|&r| r != u64::MAX) {
                rec.record(self.trace.rate, now, || r as f64 / (self.mss as f64 * 8.0));
            }
        }
        if let Some(d) = self.cc.reference_rtt() {
            rec.record(self.trace.reference_rtt, now, || d.as_secs_f64());
        }
    }

    /// An ack of this flow reached the sender.
    pub fn on_ack(&mut self, now: SimTime, ack: &Packet, out: &mut Vec<Packet>, rec: &mut Recorder) {
        self.counters.acks_arrived += 1;
        let sample = now - ack.ts;
        self.rtt.add(sample.as_ps());
        self.counters.rtt_samples += 1;
        self.counters.rtt_sum_ps += sample.as_ps() as u128;
        rec.record(self.trace.rtt, now, || sample.as_secs_f64());

        if ack.seq > self.snd_una {
            let acked = ack.seq - self.snd_una;
            self.snd_una = ack.seq;
            self.dupacks = 0;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            if self.rto.timed_sampling() {
                if let Some((seq, sent)) = self.timed {
                    if ack.seq > seq {
                        self.rto.sample(now - sent);
                        self.timed = None;
                    }
                }
            } else {
                self.rto.sample(sample);
            }
            self.cc.on_ack(&AckSample {
                now,
                acked_pkts: acked,
                rtt: sample,
                in_flight_pkts: self.outstanding(),
                sent: ack.ts,
                flags: ack.flags,
                ack_seq: self.snd_una,
            });
            self.timer.deadline = (self.snd_una < self.snd_max).then(|| now + self.rto.rto());
            self.record_window(now, rec);
            self.try_send(now, out, rec);
        } else if ack.seq == self.snd_una && self.snd_max > self.snd_una {
            self.dupacks += 1;
            let Some(th) = self.cc.dupack_threshold() else { return };
            if self.dupacks == th {
                self.counters.fast_retransmits += 1;
                self.timed = None;
                self.cc.on_loss(&LossSample { now, kind: LossKind::FastRetransmit, in_flight_pkts: self.outstanding() });
                self.send(now, self.snd_una, out);
                self.timer.deadline = Some(now + self.rto.rto());
                self.record_window(now, rec);
                self.try_send(now, out, rec);
            } else if self.dupacks > th {
                self.cc.on_dup_ack(now);
                self.record_window(now, rec);
                self.try_send(now, out, rec);
            }
        }
    }

    /// The retransmission timer expired.
    pub fn on_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>, rec: &mut Recorder) {
        if self.snd_una == self.snd_max {
            return;
        }
        self.counters.timeouts += 1;
        self.timed = None;
        self.dupacks = 0;
        self.rto.on_timeout();
        self.cc.on_loss(&LossSample { now, kind: LossKind::Timeout, in_flight_pkts: self.outstanding() });
        self.snd_nxt = self.snd_una;
        self.timer.deadline = None;
        self.record_window(now, rec);
        self.try_send(now, out, rec);
    }

    /// A data packet of this flow reached the receiver: deliver and acknowledge.
    pub fn on_data(&mut self, now: SimTime, data: &Packet, out: &mut Vec<Packet>) {
        self.counters.arrived += 1;
        if self.keep_out_of_order || data.seq == self.rcv.next_expected() {
            self.counters.delivered += self.rcv.insert(data.seq) as u64;
        }
        let mut a = self.ack;
        a.kind = PacketKind::Ack;
        a.seq = self.rcv.next_expected();
        a.ts = data.ts;
        a.flags = data.flags;
        let _ = now;
        out.push(a);
        self.counters.acks_sent += 1;
    }

    /// A packet of this flow was dropped in the network.
    pub fn on_drop(&mut self, p: &Packet) {
        if p.is_data() {
            self.counters.dropped += 1;
        } else {
            self.counters.acks_dropped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{GenericConfig, TahoeConfig};
    use crate::time::SimDuration;

    fn templates() -> (Packet, Packet) {
        let data = Packet::new(PacketKind::Data, 0, 1000);
        let mut ack = data;
        ack.bits = 320;
        ack.kind = PacketKind::Ack;
        (data, ack)
    }

    fn flow(cc: CcConfig, max_window: u32) -> WindowFlow {
        let (d, a) = templates();
        WindowFlow::new(&cc, d, a, max_window, SimTime::MAX, true)
    }

    fn ack_pkt(seq: u32, ts: SimTime) -> Packet {
        let (_, mut a) = templates();
        a.seq = seq;
        a.ts = ts;
        a
    }

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    #[test]
    fn tahoe_starts_with_one_packet_and_opens_per_ack() {
        let mut f = flow(CcConfig::Tahoe(TahoeConfig::default()), 40);
        let mut out = Vec::new();
        let mut rec = Recorder::default();
        f.start(ms(0), &mut out, &mut rec);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0]);
        out.clear();
        f.on_ack(ms(100), &ack_pkt(1, ms(0)), &mut out, &mut rec);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(f.counters.sent, 3);
        assert_eq!(f.counters.retransmitted, 0);
    }

    #[test]
    fn generic_sends_its_whole_window_at_once() {
        let mut f = flow(CcConfig::Generic(GenericConfig::default()), 8);
        let mut out = Vec::new();
        f.start(ms(0), &mut out, &mut Recorder::default());
        assert_eq!(out.len(), 8);
        assert_eq!(f.timer.deadline, Some(ms(3000)));
    }

    #[test]
    fn third_duplicate_ack_retransmits_first_unacknowledged_packet() {
        let cfg = TahoeConfig { initial_window: 8, ..Default::default() };
        let mut f = flow(CcConfig::Tahoe(cfg), 40);
        let mut out = Vec::new();
        let mut rec = Recorder::default();
        f.start(ms(0), &mut out, &mut rec); // seq 0..8
        out.clear();
        f.on_ack(ms(100), &ack_pkt(2, ms(0)), &mut out, &mut rec); // 0,1 acked; cwnd 9 -> sends 8..11
        out.clear();
        for _ in 0..2 {
            f.on_ack(ms(101), &ack_pkt(2, ms(0)), &mut out, &mut rec);
        }
        assert!(out.is_empty(), "two duplicates are not enough");
        f.on_ack(ms(102), &ack_pkt(2, ms(0)), &mut out, &mut rec);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 2);
        assert_eq!(out[0].flags & FLAG_RETX, FLAG_RETX);
        assert_eq!(f.cc.cwnd(), 1000);
        assert_eq!(f.counters.fast_retransmits, 1);
        assert_eq!(f.counters.retransmitted, 1);
    }

    #[test]
    fn timeout_goes_back_to_first_unacknowledged_packet() {
        let mut f = flow(CcConfig::Generic(GenericConfig::default()), 4);
        let mut out = Vec::new();
        let mut rec = Recorder::default();
        f.start(ms(0), &mut out, &mut rec); // 0..4
        out.clear();
        f.on_ack(ms(1000), &ack_pkt(1, ms(0)), &mut out, &mut rec); // sends 4
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![4]);
        // srtt = 1 s, rto = 2 s from the ack at 1 s.
        assert_eq!(f.timer.deadline, Some(ms(3000)));
        out.clear();
        f.on_timeout(ms(3000), &mut out, &mut rec);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
        assert!(out.iter().all(|p| p.flags & FLAG_RETX != 0));
        assert_eq!(f.counters.timeouts, 1);
    }

    #[test]
    fn karn_rule_discards_timing_after_retransmission() {
        let mut f = flow(CcConfig::Tahoe(TahoeConfig::default()), 40);
        let mut out = Vec::new();
        let mut rec = Recorder::default();
        f.start(ms(0), &mut out, &mut rec); // seq 0 timed
        f.on_timeout(ms(3000), &mut out, &mut rec); // retransmits 0; timing discarded
        f.on_ack(ms(3500), &ack_pkt(1, ms(3000)), &mut out, &mut rec);
        // No RTT sample was taken: the estimator still has no srtt.
        assert_eq!(f.srtt_s(), None);
        // The backed-off timer (6 s) is re-armed from the ack: 3.5 + 6 = 9.5 s.
        assert_eq!(f.timer.deadline, Some(ms(9500)));
    }

    #[test]
    fn packet_pair_sends_marked_pairs_back_to_back_and_spaces_them_at_its_rate() {
        use crate::cc::PacketPairConfig;
        let mut f = flow(CcConfig::PacketPair(PacketPairConfig::default()), 40);
        let mut out = Vec::new();
        let mut rec = Recorder::default();
        // Start-up: one pair, nothing more until its acks return.
        f.start(ms(0), &mut out, &mut rec);
        assert_eq!(out.iter().map(|p| (p.seq, p.flags)).collect::<Vec<_>>(), vec![(0, FLAG_PAIR_FIRST), (1, FLAG_PAIR_SECOND)]);
        assert_eq!(f.pace.deadline, None, "held by the window, not by pacing");
        out.clear();
        let mut a0 = ack_pkt(1, ms(0));
        a0.flags = FLAG_PAIR_FIRST;
        f.on_ack(ms(4000), &a0, &mut out, &mut rec);
        assert!(out.is_empty(), "still in start-up");
        // Second ack 200 ms later: 5 pkt/s. The source starts at 5 pkt/s: a pair at once,
        // the next one 2 packets / 5 pkt/s = 400 ms later.
        let mut a1 = ack_pkt(2, ms(0));
        a1.flags = FLAG_PAIR_SECOND;
        f.on_ack(ms(4200), &a1, &mut out, &mut rec);
        assert_eq!(out.iter().map(|p| (p.seq, p.flags)).collect::<Vec<_>>(), vec![(2, FLAG_PAIR_FIRST), (3, FLAG_PAIR_SECOND)]);
        assert!(out.iter().all(|p| p.ts == ms(4200)), "back to back");
        assert_eq!(f.pace.deadline, Some(ms(4600)));
        out.clear();
        f.on_pace(ms(4600), &mut out, &mut rec);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![4, 5]);
        assert_eq!(f.pace.deadline, Some(ms(5000)));
        assert_eq!(f.counters.retransmitted, 0);
    }

    #[test]
    fn discarding_receiver_keeps_only_the_next_expected_packet() {
        let (d, a) = templates();
        let mut f = WindowFlow::new(&CcConfig::Tahoe(TahoeConfig::default()), d, a, 40, SimTime::MAX, false);
        let mut out = Vec::new();
        for s in [0u32, 2, 1, 2] {
            let mut p = d;
            p.seq = s;
            f.on_data(ms(10), &p, &mut out);
        }
        // 2 is thrown away the first time, so the ack after 1 is 2, and 2 is accepted again.
        assert_eq!(out.iter().map(|a| a.seq).collect::<Vec<_>>(), vec![1, 1, 2, 3]);
        assert_eq!(f.counters.delivered, 3);
        assert_eq!(f.counters.arrived, 4);
    }

    #[test]
    fn receiver_acks_next_expected_and_buffers_out_of_order() {
        let mut f = flow(CcConfig::Tahoe(TahoeConfig::default()), 40);
        let (d, _) = templates();
        let mut out = Vec::new();
        for s in [0u32, 2, 3, 1] {
            let mut p = d;
            p.seq = s;
            p.ts = ms(s as u64);
            f.on_data(ms(10), &p, &mut out);
        }
        assert_eq!(out.iter().map(|a| a.seq).collect::<Vec<_>>(), vec![1, 1, 1, 4]);
        assert_eq!(out[3].ts, ms(1));
        assert_eq!(f.counters.delivered, 4);
        assert_eq!(f.counters.arrived, 4);
        let _ = SimDuration::ZERO;
    }
}
