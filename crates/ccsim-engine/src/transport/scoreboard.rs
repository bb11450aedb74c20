//! The SACK scoreboard of a sender (RFC 6675 section 4, in whole packets): which
//! outstanding sequence numbers the receiver reported holding, and the functions of the
//! pipe algorithm built on it (`IsLost`, `SetPipe`, `NextSeg`).
//!
//! Sequence numbers are packets; RFC 6675's "DupThresh segments SACKed above" becomes
//! "at least `dupthresh` SACKed sequence numbers above". The board covers
//! [base, base + its span) with base = the sender's `snd_una`, one bit per sequence
//! number, so that SetPipe, IsLost's bound and NextSeg count and search a 64-bit word
//! at a time (population counts, leading and trailing zeros), not a packet at a time;
//! the module's property test holds them to the RFC's definitions read one packet at a
//! time.

use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// First sequence number covered (= snd_una).
    base: u32,
    /// The SACKed flags, one bit per sequence number, as a ring over
    /// [base, base + 64 x its length): sequence number s is bit s % 64 of word
    /// (s / 64) mod the length, which is zero or a power of two. Bits outside
    /// [base, `top`) are clear, so the queries below count and search a word at a time.
    bits: Box<[u64]>,
    /// Number of set bits.
    n_sacked: u32,
    /// While `n_sacked > 0`: one past the highest SACKed sequence number (SACKed
    /// entries leave only from below, by `advance`, or all at once, by `clear`).
    top: u32,
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

/// The bits [lo, hi) of a word, 0 <= lo < hi <= 64.
#[inline]
fn bit_range(lo: u32, hi: u32) -> u64 {
    (u64::MAX >> (64 - (hi - lo))) << lo
}

/// The words of a ring of `len` words (a power of two) over the sequence numbers
/// [a, b) (a < b, b - a at most the ring's span), lowest first: (index into the ring,
/// the absolute word s / 64, the word's bits that fall in the range).
#[inline]
fn words(len: usize, a: u32, b: u32) -> impl DoubleEndedIterator<Item = (usize, u32, u64)> {
    debug_assert!(a < b && (b - a) as usize <= 64 * len && len.is_power_of_two());
    let (first, last) = (a / 64, (b - 1) / 64);
    (first..=last).map(move |w| {
        let lo = if w == first { a % 64 } else { 0 };
        let hi = if w == last { (b - 1) % 64 + 1 } else { 64 };
        (w as usize & (len - 1), w, bit_range(lo, hi))
    })
}

impl Scoreboard {
    /// Packets SACKed in [a, b), both inside the ring's span.
    fn count(&self, a: u32, b: u32) -> u32 {
        if a >= b {
            return 0;
        }
        words(self.bits.len(), a, b).map(|(i, _, m)| (self.bits[i] & m).count_ones()).sum()
    }

    /// The first sequence number in [a, b) not SACKed, if any (a >= base).
    fn first_unsacked(&self, a: u32, b: u32) -> Option<u32> {
        if a >= b {
            return None;
        }
        if self.n_sacked == 0 || a >= self.top {
            return Some(a);
        }
        let end = b.min(self.top);
        for (i, w, m) in words(self.bits.len(), a, end) {
            let holes = !self.bits[i] & m;
            if holes != 0 {
                return Some(w * 64 + holes.trailing_zeros());
            }
        }
        (b > end).then_some(end)
    }

    /// Re-lays the ring so that it spans at least `need` sequence numbers from `base`.
    #[cold]
    fn grow(&mut self, need: u32) {
        let len = (need as usize).div_ceil(64).next_power_of_two().max(2 * self.bits.len()).max(1);
        let mut bits = vec![0u64; len].into_boxed_slice();
        if self.n_sacked > 0 {
            for (i, w, m) in words(self.bits.len(), self.base, self.top) {
                bits[w as usize & (len - 1)] |= self.bits[i] & m;
            }
        }
        self.bits = bits;
    }

    /// Forgets everything below `snd_una` (a cumulative ack advanced). With nothing
    /// SACKed (most acks) inline; the rest out of line, as `add`: inlined, they reshape
    /// the ack path of flows without SACK.
    #[inline(always)]
    pub fn advance(&mut self, snd_una: u32) {
        if self.n_sacked == 0 {
            self.base = self.base.max(snd_una);
        } else {
            self.advance_sacked(snd_una);
        }
    }

    #[inline(never)]
    fn advance_sacked(&mut self, snd_una: u32) {
        if snd_una <= self.base {
            return;
        }
        let to = snd_una.min(self.top);
        if to > self.base {
            for (i, _, m) in words(self.bits.len(), self.base, to) {
                self.n_sacked -= (self.bits[i] & m).count_ones();
                self.bits[i] &= !m;
            }
        }
        self.base = snd_una;
    }

    /// Records a SACK block [start, end) (parts below `base` are ignored).
    #[inline(never)]
    pub fn add(&mut self, start: u32, end: u32) {
        let start = start.max(self.base);
        if end <= start {
            return;
        }
        if end - self.base > 64 * self.bits.len() as u32 {
            self.grow(end - self.base);
        }
        self.top = if self.n_sacked == 0 { end } else { self.top.max(end) };
        for (i, _, m) in words(self.bits.len(), start, end) {
            self.n_sacked += (!self.bits[i] & m).count_ones();
            self.bits[i] |= m;
        }
    }

    /// Drops all SACK information (after a timeout: RFC 2018 section 8).
    pub fn clear(&mut self) {
        self.bits.fill(0);
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
            return;
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
        if self.n_sacked == 0 || seq < self.base || seq >= self.top {
            return false;
        }
        let i = (seq / 64) as usize & (self.bits.len() - 1);
        (self.bits[i] >> (seq % 64)) & 1 != 0
    }

    /// Packets SACKed in [from, to).
    pub fn sacked_in(&self, from: u32, to: u32) -> u32 {
        if self.n_sacked == 0 {
            return 0;
        }
        self.count(from.max(self.base), to.min(self.top))
    }

    /// Packets SACKed.
    pub fn sacked(&self) -> u32 {
        self.n_sacked
    }

    /// One past the highest SACKed sequence number (`base` if none).
    pub fn high_sack(&self) -> u32 {
        if self.n_sacked == 0 {
            self.base
        } else {
            self.top
        }
    }

    /// Every unSACKed sequence number below the returned bound is lost (IsLost: at least
    /// `dupthresh` SACKed above it); `base` if none is. The bound is the
    /// `dupthresh`-th SACKed sequence number from the top. (It changes only as the
    /// board does, so recovery's loop finds it once for all its sends.)
    pub fn lost_below(&self, dupthresh: u32) -> u32 {
        if self.n_sacked < dupthresh || dupthresh == 0 {
            return self.base;
        }
        let mut left = dupthresh;
        for (i, w, m) in words(self.bits.len(), self.base, self.top).rev() {
            let mut set = self.bits[i] & m;
            let n = set.count_ones();
            if n < left {
                left -= n;
                continue;
            }
            // The `left`-th highest set bit of this word.
            for _ in 1..left {
                set &= !(1u64 << (63 - set.leading_zeros()));
            }
            return w * 64 + 63 - set.leading_zeros();
        }
        unreachable!("n_sacked >= dupthresh bits are set in [base, top)")
    }

    /// IsLost(seq).
    pub fn is_lost(&self, seq: u32, dupthresh: u32) -> bool {
        !self.is_sacked(seq) && seq < self.lost_below(dupthresh)
    }

    /// SetPipe: packets in flight between `snd_una` (= base) and `snd_max`; a packet
    /// counts once if not SACKed and not lost, and once more if retransmitted
    /// (at or below `high_rxt`). Counted as the packets not SACKed in
    /// [lost_below, snd_max) plus those in [base, high_rxt]; `lost_below` is
    /// `lost_below(dupthresh)`.
    pub fn pipe(&self, snd_max: u32, high_rxt: Option<u32>, lost_below: u32) -> u32 {
        let unsacked = |a: u32, b: u32| if a < b { (b - a) - self.sacked_in(a, b) } else { 0 };
        let retransmitted = high_rxt.map_or(0, |h| unsacked(self.base, h.saturating_add(1).min(snd_max)));
        unsacked(lost_below, snd_max) + retransmitted
    }

    /// NextSeg rule 1: the first lost, unSACKed packet above `high_rxt` (below
    /// `lost_below`, which is `lost_below(dupthresh)`).
    pub fn next_lost(&self, high_rxt: Option<u32>, lost_below: u32) -> Option<u32> {
        let from = high_rxt.map_or(self.base, |h| (h + 1).max(self.base));
        self.first_unsacked(from, lost_below)
    }

    /// NextSeg rule 3: the first unSACKed packet above `high_rxt` below the highest SACK.
    pub fn next_hole(&self, high_rxt: Option<u32>) -> Option<u32> {
        let from = high_rxt.map_or(self.base, |h| (h + 1).max(self.base));
        self.first_unsacked(from, self.high_sack())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// RFC 6675's definitions read literally, one flag per sequence number: what the
    /// word-at-a-time board must answer.
    #[derive(Default)]
    struct Flags {
        base: u32,
        sacked: Vec<bool>,
    }

    impl Flags {
        fn is_sacked(&self, s: u32) -> bool {
            s >= self.base && self.sacked.get((s - self.base) as usize).copied().unwrap_or(false)
        }
        fn advance(&mut self, to: u32) {
            while self.base < to {
                if !self.sacked.is_empty() {
                    self.sacked.remove(0);
                }
                self.base += 1;
            }
        }
        fn add(&mut self, a: u32, b: u32) {
            for s in a.max(self.base)..b {
                let i = (s - self.base) as usize;
                if self.sacked.len() <= i {
                    self.sacked.resize(i + 1, false);
                }
                self.sacked[i] = true;
            }
        }
        /// Whether at least `th` SACKed sequence numbers lie above `s`.
        fn is_lost(&self, s: u32, th: u32, end: u32) -> bool {
            !self.is_sacked(s) && ((s + 1)..end).filter(|&x| self.is_sacked(x)).count() as u32 >= th
        }
    }

    proptest! {
        #[test]
        fn the_board_answers_as_one_flag_per_packet(ops in proptest::collection::vec((0u8..4, 0u32..300, 1u32..80), 1..60)) {
            let (mut b, mut f) = (Scoreboard::default(), Flags::default());
            let mut snd_max = 0u32;
            for (op, x, len) in ops {
                match op {
                    0 => snd_max += len,
                    1 => {
                        let una = (b.base + x % 40).min(snd_max);
                        b.advance(una);
                        f.advance(una);
                    }
                    2 => {
                        let a = b.base.saturating_sub(5) + x;
                        let e = (a + len % 20).min(snd_max);
                        b.add(a, e);
                        f.add(a, e);
                    }
                    _ => {
                        b.clear();
                        f.sacked.clear();
                    }
                }
                let end = snd_max + 1;
                let all: Vec<u32> = (f.base..end).filter(|&s| f.is_sacked(s)).collect();
                prop_assert_eq!(b.sacked(), all.len() as u32);
                prop_assert_eq!(b.high_sack(), all.last().map_or(f.base, |&s| s + 1));
                for s in f.base.saturating_sub(3)..end + 3 {
                    prop_assert_eq!(b.is_sacked(s), f.is_sacked(s), "is_sacked({})", s);
                }
                for s in f.base..end + 3 {
                    for th in [1, 3] {
                        prop_assert_eq!(b.is_lost(s, th), f.is_lost(s, th, end), "is_lost({}, {})", s, th);
                    }
                }
                for (lo, hi) in [(f.base, end), (f.base + x % 50, f.base + x % 50 + len), (0, x)] {
                    let want = (lo..hi).filter(|&s| f.is_sacked(s)).count() as u32;
                    prop_assert_eq!(b.sacked_in(lo, hi), want, "sacked_in({}, {})", lo, hi);
                }
                for h in [None, Some(f.base + x % 30), Some(snd_max + 2)] {
                    for th in [1, 3] {
                        let lost = |s: u32| f.is_lost(s, th, end);
                        let pipe: u32 = (f.base..snd_max)
                            .filter(|&s| !f.is_sacked(s))
                            .map(|s| !lost(s) as u32 + h.is_some_and(|h| s <= h) as u32)
                            .sum();
                        prop_assert_eq!(b.pipe(snd_max, h, b.lost_below(th)), pipe, "pipe({}, {:?}, {})", snd_max, h, th);
                        let from = h.map_or(f.base, |h| (h + 1).max(f.base));
                        prop_assert_eq!(b.next_lost(h, b.lost_below(th)), (from..end).find(|&s| lost(s)), "next_lost({:?}, {})", h, th);
                    }
                    let from = h.map_or(f.base, |h| (h + 1).max(f.base));
                    let high = all.last().map_or(f.base, |&s| s + 1);
                    prop_assert_eq!(b.next_hole(h), (from..high).find(|&s| !f.is_sacked(s)), "next_hole({:?})", h);
                }
            }
        }
    }

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
        assert_eq!(b.lost_below(3), 6, "the third SACKed from the top");
        assert_eq!(b.pipe(12, None, 6), 3);
        // After retransmitting 2 and 5, both count once more.
        assert_eq!(b.pipe(12, Some(5), 6), 5);
    }

    #[test]
    fn next_segment_rules() {
        let b = three_holes();
        let lost_below = b.lost_below(3);
        assert_eq!(b.next_lost(None, lost_below), Some(2));
        assert_eq!(b.next_lost(Some(2), lost_below), Some(5));
        assert_eq!(b.next_lost(Some(5), lost_below), None);
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
