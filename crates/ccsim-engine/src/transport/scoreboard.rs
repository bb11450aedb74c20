//! The SACK scoreboard of a sender (RFC 6675 section 4, in whole packets): which
//! outstanding sequence numbers the receiver reported holding, and the functions of the
//! pipe algorithm built on it (`IsLost`, `SetPipe`, `NextSeg`).
//!
//! Sequence numbers are packets; RFC 6675's "DupThresh segments SACKed above" becomes
//! "at least `dupthresh` SACKed sequence numbers above". The board covers
//! [base, base + len) with base = the sender's `snd_una`.

use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// First sequence number covered (= snd_una).
    base: u32,
    /// SACKed flags from `base` on.
    sacked: VecDeque<bool>,
    /// Number of `true` entries.
    n_sacked: u32,
    /// After a timeout that kept the board (`SackTimeout::Keep`): `snd_max` then. Until
    /// the cumulative ack reaches it, the sender's go-back from `snd_una` skips SACKed
    /// packets, and they do not count against its window.
    pub timeout_point: Option<u32>,
    /// Lost-retransmission detection (`LostRetransmissions::Detect`): the packets
    /// retransmitted in this recovery, in sending order, each with `snd_max` when it
    /// left, and those found lost again, to be resent first.
    rxt: VecDeque<(u32, u32)>,
    again: VecDeque<u32>,
    /// Recovery's sends wait for the pacing clock (`CcPolicy::PACE_RECOVERY`; set when
    /// the sender is built).
    pub paced: bool,
    /// With `paced`: the fast retransmission of this packet has not left yet; it is the
    /// first packet recovery's loop sends.
    pub frx_pending: Option<u32>,
    /// Proportional Rate Reduction's state in this recovery (`SackRecovery::Prr` only).
    pub prr: super::prr::Prr,
}

impl Scoreboard {
    /// Forgets everything below `snd_una` (a cumulative ack advanced).
    pub fn advance(&mut self, snd_una: u32) {
        while self.base < snd_una {
            if self.sacked.pop_front() == Some(true) {
                self.n_sacked -= 1;
            }
            self.base += 1;
        }
    }

    /// Records a SACK block [start, end) (parts below `base` are ignored).
    pub fn add(&mut self, start: u32, end: u32) {
        let start = start.max(self.base);
        if end <= start {
            return;
        }
        let need = (end - self.base) as usize;
        if self.sacked.len() < need {
            self.sacked.resize(need, false);
        }
        for s in start..end {
            let e = &mut self.sacked[(s - self.base) as usize];
            if !*e {
                *e = true;
                self.n_sacked += 1;
            }
        }
    }

    /// Drops all SACK information (after a timeout: RFC 2018 section 8).
    pub fn clear(&mut self) {
        self.sacked.clear();
        self.n_sacked = 0;
        self.timeout_point = None;
        self.end_recovery();
    }

    /// Forgets the retransmissions of a recovery that ended.
    pub fn end_recovery(&mut self) {
        self.rxt.clear();
        self.again.clear();
        self.frx_pending = None;
    }

    /// `seq` was retransmitted while `snd_max` was the next new packet.
    pub fn note_retransmit(&mut self, seq: u32, snd_max: u32) {
        self.rxt.push_back((seq, snd_max));
    }

    /// Lost-retransmission detection (Linux's `tcp_mark_lost_retrans`): a retransmission
    /// is lost when data first sent after it (at or above the `snd_max` it left with)
    /// has been SACKed, as on a path that does not reorder it must have arrived first.
    /// Such packets move to the queue of packets to resend; acknowledged or SACKed ones
    /// are forgotten. The log is in sending order and `snd_max` only grows, so the lost
    /// ones are at its front.
    pub fn detect_lost_retransmits(&mut self) {
        if self.rxt.is_empty() {
            return; // no scan of the board for the highest SACK
        }
        let high = self.high_sack();
        while let Some(&(seq, snd_max)) = self.rxt.front() {
            if seq < self.base || self.is_sacked(seq) {
                self.rxt.pop_front();
            } else if high > snd_max {
                self.rxt.pop_front();
                self.again.push_back(seq);
            } else {
                break;
            }
        }
    }

    /// The next retransmission found lost (not acknowledged or SACKed since), if any.
    pub fn next_again(&mut self) -> Option<u32> {
        while let Some(seq) = self.again.pop_front() {
            if seq >= self.base && !self.is_sacked(seq) {
                return Some(seq);
            }
        }
        None
    }

    /// Retransmissions found lost and not yet resent (not in flight: the pipe leaves
    /// them out).
    pub fn lost_again(&self) -> u32 {
        self.again.len() as u32
    }

    pub fn is_sacked(&self, seq: u32) -> bool {
        seq >= self.base && self.sacked.get((seq - self.base) as usize).copied().unwrap_or(false)
    }

    /// Packets SACKed in [from, to).
    pub fn sacked_in(&self, from: u32, to: u32) -> u32 {
        let lo = from.max(self.base);
        if to <= lo {
            return 0;
        }
        let (i, j) = ((lo - self.base) as usize, ((to - self.base) as usize).min(self.sacked.len()));
        if i >= j {
            return 0;
        }
        self.sacked.range(i..j).filter(|&&b| b).count() as u32
    }

    /// Packets SACKed.
    pub fn sacked(&self) -> u32 {
        self.n_sacked
    }

    /// One past the highest SACKed sequence number (`base` if none).
    pub fn high_sack(&self) -> u32 {
        match self.sacked.iter().rposition(|&b| b) {
            Some(i) => self.base + i as u32 + 1,
            None => self.base,
        }
    }

    /// Every unSACKed sequence number below the returned bound is lost (IsLost: at least
    /// `dupthresh` SACKed above it); `base` if none is.
    fn lost_below(&self, dupthresh: u32) -> u32 {
        if self.n_sacked < dupthresh || dupthresh == 0 {
            return self.base;
        }
        let mut seen = 0;
        for i in (0..self.sacked.len()).rev() {
            if self.sacked[i] {
                seen += 1;
                if seen == dupthresh {
                    return self.base + i as u32;
                }
            }
        }
        self.base
    }

    /// IsLost(seq).
    pub fn is_lost(&self, seq: u32, dupthresh: u32) -> bool {
        !self.is_sacked(seq) && seq < self.lost_below(dupthresh)
    }

    /// SetPipe: packets in flight between `snd_una` (= base) and `snd_max`; a packet
    /// counts once if not SACKed and not lost, and once more if retransmitted
    /// (at or below `high_rxt`).
    pub fn pipe(&self, snd_max: u32, high_rxt: Option<u32>, dupthresh: u32) -> u32 {
        let lost_below = self.lost_below(dupthresh);
        let mut pipe = 0;
        for s in self.base..snd_max {
            if self.is_sacked(s) {
                continue;
            }
            if s >= lost_below {
                pipe += 1;
            }
            if high_rxt.is_some_and(|h| s <= h) {
                pipe += 1;
            }
        }
        pipe
    }

    /// NextSeg rule 1: the first lost, unSACKed packet above `high_rxt`.
    pub fn next_lost(&self, high_rxt: Option<u32>, dupthresh: u32) -> Option<u32> {
        let lost_below = self.lost_below(dupthresh);
        let from = high_rxt.map_or(self.base, |h| (h + 1).max(self.base));
        (from..lost_below).find(|&s| !self.is_sacked(s))
    }

    /// NextSeg rule 3: the first unSACKed packet above `high_rxt` below the highest SACK.
    pub fn next_hole(&self, high_rxt: Option<u32>) -> Option<u32> {
        let from = high_rxt.map_or(self.base, |h| (h + 1).max(self.base));
        (from..self.high_sack()).find(|&s| !self.is_sacked(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retransmission_is_lost_once_data_sent_after_it_is_sacked() {
        // base 2, SACKed 3, 4, 6, 8, 9 (high_sack 10). 2 was retransmitted when snd_max
        // was 12, 5 when it was 9 (a log in sending order must have growing snd_max:
        // here 5 left first), so: 5 is lost (10 > 9), 2 is not yet (10 <= 12).
        let mut b = three_holes();
        b.note_retransmit(5, 9);
        b.note_retransmit(2, 12);
        b.detect_lost_retransmits();
        assert_eq!(b.lost_again(), 1);
        // 12 SACKed: 2's retransmission is lost too.
        b.add(12, 13);
        b.detect_lost_retransmits();
        assert_eq!(b.lost_again(), 2);
        assert_eq!(b.next_again(), Some(5));
        // 2 is acknowledged meanwhile: skipped.
        b.advance(3);
        assert_eq!(b.next_again(), None);
        b.note_retransmit(7, 20);
        b.end_recovery();
        b.detect_lost_retransmits();
        assert_eq!(b.lost_again(), 0);
    }

    #[test]
    fn sacked_in_counts_the_blocks_inside_a_range() {
        // base 2; SACKed 3, 4, 6, 8 and 9 (three_holes below).
        let b = three_holes();
        assert_eq!(b.sacked_in(0, 10), 5);
        assert_eq!(b.sacked_in(2, 4), 1); // 3
        assert_eq!(b.sacked_in(4, 7), 2); // 4 and 6
        assert_eq!(b.sacked_in(5, 6), 0); // the hole at 5
        assert_eq!(b.sacked_in(7, 100), 2); // 8 and 9; the board ends at 10
        assert_eq!(b.sacked_in(10, 100), 0);
        assert_eq!(b.sacked_in(6, 6), 0);
    }

    /// Packets 0..10 outstanding; 2, 5 and 7 lost; the rest SACKed as their acks arrive.
    fn three_holes() -> Scoreboard {
        let mut b = Scoreboard::default();
        b.advance(2);
        b.add(3, 5);
        b.add(6, 7);
        b.add(8, 10);
        b
    }

    #[test]
    fn losses_are_the_holes_with_three_sacked_above() {
        let b = three_holes();
        assert_eq!(b.sacked(), 5);
        assert_eq!(b.high_sack(), 10);
        // SACKed: 3 4 6 8 9. Holes 2 (5 SACKed above), 5 (3 above: 6 8 9), 7 (2 above).
        assert!(b.is_lost(2, 3));
        assert!(b.is_lost(5, 3));
        assert!(!b.is_lost(7, 3));
        assert!(!b.is_lost(3, 3), "SACKed packets are not lost");
    }

    #[test]
    fn pipe_counts_unsacked_unlost_and_retransmitted() {
        let b = three_holes();
        // Outstanding 2..12 (snd_max 12): not SACKed: 2 (lost), 5 (lost), 7, 10, 11.
        assert_eq!(b.pipe(12, None, 3), 3);
        // After retransmitting 2 and 5, both count once more.
        assert_eq!(b.pipe(12, Some(5), 3), 5);
    }

    #[test]
    fn next_segment_rules() {
        let b = three_holes();
        assert_eq!(b.next_lost(None, 3), Some(2));
        assert_eq!(b.next_lost(Some(2), 3), Some(5));
        assert_eq!(b.next_lost(Some(5), 3), None);
        assert_eq!(b.next_hole(Some(5)), Some(7));
        assert_eq!(b.next_hole(Some(7)), None);
    }

    #[test]
    fn cumulative_ack_and_timeout_forget() {
        let mut b = three_holes();
        b.advance(5);
        assert_eq!(b.sacked(), 3);
        assert!(b.is_sacked(6));
        b.clear();
        assert_eq!(b.sacked(), 0);
        assert_eq!(b.high_sack(), 5);
    }
}
