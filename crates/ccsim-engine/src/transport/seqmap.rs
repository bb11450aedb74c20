//! The receiver's record of out-of-order packets: a ring bitmap over sequence numbers
//! [next, next + capacity), grown by doubling when needed (amortised; no allocation per
//! packet once it has reached the largest window in use).

#[derive(Clone, Debug)]
pub struct SeqBitmap {
    /// A boxed slice (no capacity word): it only grows by being replaced.
    bits: Box<[u64]>,
    /// Next expected sequence number (everything below was delivered in order).
    next: u32,
    /// Out-of-order packets held above `next`.
    held: u32,
}

impl SeqBitmap {
    pub fn new(capacity_pkts: usize) -> Self {
        let words = capacity_pkts.max(64).next_power_of_two() / 64;
        SeqBitmap { bits: vec![0; words].into_boxed_slice(), next: 0, held: 0 }
    }

    #[inline]
    fn cap(&self) -> u32 {
        (self.bits.len() * 64) as u32
    }

    pub fn next_expected(&self) -> u32 {
        self.next
    }

    #[inline]
    fn slot(&self, seq: u32) -> (usize, u64) {
        let i = (seq & (self.cap() - 1)) as usize;
        (i / 64, 1u64 << (i % 64))
    }

    #[inline]
    fn get(&self, seq: u32) -> bool {
        let (w, b) = self.slot(seq);
        self.bits[w] & b != 0
    }

    /// Records the arrival of `seq` and returns how many packets became deliverable in
    /// order (0 for a duplicate or an out-of-order arrival).
    #[inline(always)]
    pub fn insert(&mut self, seq: u32) -> u32 {
        self.insert_then_next(seq).0
    }

    /// `insert`, also giving the next expected sequence number after it (from the
    /// value just computed, not read back from memory).
    #[inline(always)]
    pub fn insert_then_next(&mut self, seq: u32) -> (u32, u32) {
        // The common case first: the next packet in order, nothing held above it.
        if seq == self.next && self.held == 0 {
            self.next = seq + 1;
            return (1, seq + 1);
        }
        let delivered = self.insert_slow(seq);
        (delivered, self.next)
    }

    #[inline(never)]
    fn insert_slow(&mut self, seq: u32) -> u32 {
        if seq < self.next {
            return 0;
        }
        while seq - self.next >= self.cap() {
            self.grow();
        }
        if seq != self.next {
            let (w, b) = self.slot(seq);
            if self.bits[w] & b == 0 {
                self.bits[w] |= b;
                self.held += 1;
            }
            return 0;
        }
        let start = self.next;
        self.next += 1;
        while self.held > 0 && self.get(self.next) {
            let (w, b) = self.slot(self.next);
            self.bits[w] &= !b;
            self.held -= 1;
            self.next += 1;
        }
        self.next - start
    }

    /// Out-of-order packets held above the next expected one.
    pub fn held(&self) -> u32 {
        self.held
    }

    /// Whether `seq` (at or above the next expected) is held.
    pub fn holds(&self, seq: u32) -> bool {
        seq >= self.next && seq - self.next < self.cap() && self.get(seq)
    }

    /// The run [start, end) of held packets that contains `seq`, if `seq` is held.
    /// Searched a word at a time: the bit of `next` is never set (it is not held), and
    /// every held packet lies within one span of the ring above it, so the run ends at
    /// a clear bit on both sides without a bound check.
    pub fn block_around(&self, seq: u32) -> Option<(u32, u32)> {
        if !self.holds(seq) {
            return None;
        }
        debug_assert!(!self.get(self.next));
        let wrap = self.bits.len() - 1;
        let i = seq & (self.cap() - 1);
        // Upward from the bit above `seq`: the set bits from `b` on in word `w`.
        let mut end = seq + 1;
        let (mut w, mut b) = (((i + 1) as usize / 64) & wrap, (i + 1) % 64);
        loop {
            let ones = (!(self.bits[w] >> b)).trailing_zeros();
            end += ones;
            if ones < 64 - b {
                break;
            }
            (w, b) = ((w + 1) & wrap, 0);
        }
        // Downward from the bit below `seq`: the set bits below `b` in word `w`.
        let mut start = seq;
        let (mut w, mut b) = (i as usize / 64, i % 64);
        loop {
            let ones = if b == 0 { 0 } else { (!(self.bits[w] << (64 - b))).leading_zeros() };
            start -= ones;
            if ones < b {
                break;
            }
            (w, b) = (w.wrapping_sub(1) & wrap, 64);
        }
        Some((start, end))
    }

    fn grow(&mut self) {
        let old = std::mem::replace(
            self,
            SeqBitmap { bits: vec![0; self.bits.len() * 2].into_boxed_slice(), next: self.next, held: self.held },
        );
        for s in old.next..old.next + old.cap() {
            if old.get(s) {
                let (w, b) = self.slot(s);
                self.bits[w] |= b;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_delivery_and_gap_fill() {
        let mut m = SeqBitmap::new(64);
        assert_eq!(m.insert(0), 1);
        assert_eq!(m.insert(2), 0);
        assert_eq!(m.insert(3), 0);
        assert_eq!(m.insert(2), 0); // duplicate
        assert_eq!(m.insert(1), 3); // fills the gap: 1, 2, 3
        assert_eq!(m.next_expected(), 4);
        assert_eq!(m.insert(0), 0);
        assert_eq!(m.held(), 0);
    }

    #[test]
    fn blocks_of_held_packets() {
        let mut m = SeqBitmap::new(64);
        for s in [0u32, 3, 4, 5, 8, 10, 11] {
            m.insert(s);
        }
        assert_eq!(m.next_expected(), 1);
        assert_eq!(m.held(), 6);
        assert_eq!(m.block_around(4), Some((3, 6)));
        assert_eq!(m.block_around(8), Some((8, 9)));
        assert_eq!(m.block_around(11), Some((10, 12)));
        assert_eq!(m.block_around(9), None);
        assert_eq!(m.block_around(0), None, "delivered, not held");
    }

    #[test]
    fn blocks_across_words_and_around_the_ring() {
        // Capacity 128 (two words); next expected 100 (ring bit 100), held 101..=163
        // and 165..=226: the first run crosses the ring's end (127 at bit 127, 128 at
        // bit 0), the second the boundary between the words (191 at bit 63, 192 at bit
        // 64) and ends at bit 98, just below the bit of the next expected packet.
        let mut m = SeqBitmap::new(128);
        for s in 0..100 {
            m.insert(s);
        }
        for s in (101..164).chain(165..227) {
            m.insert(s);
        }
        assert_eq!(m.next_expected(), 100);
        assert_eq!(m.block_around(101), Some((101, 164)));
        assert_eq!(m.block_around(127), Some((101, 164)));
        assert_eq!(m.block_around(128), Some((101, 164)));
        assert_eq!(m.block_around(163), Some((101, 164)));
        assert_eq!(m.block_around(191), Some((165, 227)));
        assert_eq!(m.block_around(192), Some((165, 227)));
        assert_eq!(m.block_around(226), Some((165, 227)));
        assert_eq!(m.block_around(164), None);
        // 100 arrives: everything up to 163 is delivered; the second run stays.
        assert_eq!(m.insert(100), 64);
        assert_eq!(m.block_around(200), Some((165, 227)));
    }

    #[test]
    fn grows_when_a_packet_lands_beyond_capacity() {
        let mut m = SeqBitmap::new(64);
        assert_eq!(m.insert(200), 0);
        assert_eq!(m.insert(100), 0);
        for s in 0..100 {
            m.insert(s);
        }
        assert_eq!(m.next_expected(), 101);
        for s in 101..200 {
            m.insert(s);
        }
        assert_eq!(m.next_expected(), 201);
    }
}
