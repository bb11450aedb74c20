//! A FIFO ring buffer for `Copy` values with a power-of-two capacity: the timed queues of
//! channels (`net/channel.rs`; the propagation pipes share a pool instead, `net/pipe.rs`), where
//! `VecDeque`'s general index
//! arithmetic and growth checks showed up on the per-packet path. It grows by doubling
//! from one slot as used (a large one gives memory back only when asked, `trim`), so a
//! channel reaches its working size once:
//! most channels of a large network that ever queue hold one packet at a time (an access
//! channel where slow start's pairs wait), and their ring stays at one slot.

#[derive(Debug, Clone, Default)]
pub struct Ring<T: Copy> {
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy> Ring<T> {
    pub fn new() -> Self {
        Ring { buf: Vec::new(), head: 0, len: 0 }
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow(v);
        }
        let i = (self.head + self.len) & self.mask();
        self.buf[i] = v;
        self.len += 1;
    }

    /// Doubles the capacity (at least 1), keeping the order; `fill` pads the new slots.
    /// A large ring (`IN_PLACE` bytes or more) grows in place: its buffer is reallocated
    /// (the allocator remaps a large block's pages: nothing copied, no second buffer
    /// beside it), then the values before the front, `[0, head)`, move to just after the
    /// old end, where the ring now continues. (At a million flows the merged arrivals'
    /// rings grow to 2^21 slots of 48 B: a new buffer beside the old one would hold
    /// 150 MB at once for a 100 MB ring.) A small one is copied into a new buffer, which
    /// costs fewer instructions than a reallocation and a move.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        const IN_PLACE: usize = 1 << 20;
        let old = self.buf.len();
        let cap = (old * 2).max(1);
        if old * std::mem::size_of::<T>() >= IN_PLACE {
            self.buf.reserve_exact(cap - old);
            self.buf.resize(cap, fill);
            self.buf.copy_within(0..self.head, old);
            return;
        }
        let mut buf = Vec::with_capacity(cap);
        buf.extend(self.iter());
        buf.resize(cap, fill);
        self.buf = buf;
        self.head = 0;
    }

    /// Gives back what a large ring no longer needs: one of `SHRINK_FROM` bytes or more
    /// that is at most an eighth full moves its values into a buffer of twice their
    /// number (a power of two; none if it is empty). Off the per-packet path: the run
    /// calls it between chunks of events (`Net::trim_merges`). At a million flows the
    /// merged arrivals' rings reach 2^21 slots of 48 B while cut-through holds up to
    /// 150 ms of future arrivals, and keep them to the end with a tenth in use.
    #[cold]
    #[inline(never)]
    pub fn trim(&mut self) {
        const SHRINK_FROM: usize = 1 << 20;
        let cap = self.buf.len();
        if cap * std::mem::size_of::<T>() < SHRINK_FROM || self.len > cap / 8 {
            return;
        }
        if self.len == 0 {
            *self = Ring::new();
            return;
        }
        let fill = self.buf[self.head];
        let cap = (self.len * 2).next_power_of_two();
        let mut buf = Vec::with_capacity(cap);
        buf.extend(self.iter());
        buf.resize(cap, fill);
        self.buf = buf;
        self.head = 0;
    }

    /// Slots allocated.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(v)
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            None
        } else {
            Some(&self.buf[self.head])
        }
    }

    #[inline(always)]
    pub fn back(&self) -> Option<&T> {
        if self.len == 0 {
            None
        } else {
            Some(&self.buf[(self.head + self.len - 1) & self.mask()])
        }
    }

    /// Inserts `v` after the last value whose key is at most `v`'s, looking back from
    /// the end over at most `max_walk` values; `false` (nothing inserted) if the place
    /// lies further back. Values of equal keys keep their insertion order.
    ///
    /// The values lie in at most two runs of the buffer, `[head, end)` and, wrapped,
    /// `[0, end - capacity)`: the walk and the move go over slices (no masking and no
    /// bounds check per value), and the later values move one place back in one move.
    #[inline]
    pub fn insert_sorted<K: Ord>(&mut self, max_walk: usize, v: T, key: impl Fn(&T) -> K) -> bool {
        let k = key(&v);
        let end = self.head + self.len;
        let first_end = end.min(self.buf.len());
        let walk = match later_than(&self.buf[..end - first_end], &k, &key, max_walk) {
            Walk::Place(n) => n,
            Walk::TooFar => return false,
            Walk::Before(n) => match later_than(&self.buf[self.head..first_end], &k, &key, max_walk - n) {
                Walk::Place(m) | Walk::Before(m) => n + m,
                Walk::TooFar => return false,
            },
        };
        if self.len == self.buf.len() {
            self.grow(v);
        }
        let cap = self.buf.len();
        let tail = (self.head + self.len) & (cap - 1);
        self.len += 1;
        if walk <= tail {
            shift_in(&mut self.buf[tail - walk..=tail], v);
        } else {
            // The later values wrap: [cap - r, cap) and [0, tail).
            let r = walk - tail;
            let last = self.buf[cap - 1];
            shift_in(&mut self.buf[..=tail], last);
            shift_in(&mut self.buf[cap - r..], v);
        }
        true
    }

    /// The values, front to back.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        (0..self.len).map(move |k| self.buf[(self.head + k) & self.mask()])
    }
}

/// How a walk back over one run of values ended (`Ring::insert_sorted`).
enum Walk {
    /// At a value whose key is at most the new one's, after this many later values.
    Place(usize),
    /// Past the run's first value: all of them (this many) are later.
    Before(usize),
    /// More than the limit are later.
    TooFar,
}

/// Walks back from the end of `run` over the values whose key is greater than `k`, at
/// most `max_walk` of them.
#[inline(always)]
fn later_than<T, K: Ord>(run: &[T], k: &K, key: &impl Fn(&T) -> K, max_walk: usize) -> Walk {
    for (n, e) in run.iter().rev().enumerate() {
        if key(e) <= *k {
            return Walk::Place(n);
        }
        if n >= max_walk {
            return Walk::TooFar;
        }
    }
    Walk::Before(run.len())
}

/// Moves every value of `run` but the last one place back (the last is overwritten)
/// and puts `v` first. One `memmove`: the merged arrivals' walks move about eight
/// 48-byte values, which it copies in fewer instructions than a copy per value.
#[inline(always)]
fn shift_in<T: Copy>(run: &mut [T], v: T) {
    let n = run.len();
    run.copy_within(..n - 1, 1);
    run[0] = v;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_fifo_order_across_wraps_and_growth() {
        let mut r = Ring::new();
        let mut model = std::collections::VecDeque::new();
        let mut x = 7u64;
        for step in 0..5000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if (x >> 33) % 3 != 0 || model.is_empty() {
                r.push_back(step);
                model.push_back(step);
            } else {
                assert_eq!(r.pop_front(), model.pop_front());
            }
            assert_eq!(r.len(), model.len());
            assert_eq!(r.front(), model.front());
            assert_eq!(r.back(), model.back());
        }
        assert!(r.iter().eq(model.iter().copied()));
        while let Some(v) = r.pop_front() {
            assert_eq!(Some(v), model.pop_front());
        }
        assert!(r.is_empty() && r.front().is_none() && r.back().is_none());
    }

    #[test]
    fn trim_gives_back_a_large_ring_at_most_an_eighth_full() {
        // 2^17 slots of 8 B = 1 MiB, the smallest ring `trim` looks at.
        let mut r: Ring<u64> = Ring::new();
        for v in 0..(1u64 << 17) {
            r.push_back(v);
        }
        assert_eq!(r.capacity(), 1 << 17);
        // 2^17 / 8 + 1 = 16385 left: more than an eighth, kept.
        for _ in 0..((1 << 17) - 16385) {
            r.pop_front();
        }
        r.trim();
        assert_eq!(r.capacity(), 1 << 17);
        // Wrap the front past the end, then leave 1000 (at most an eighth): 2000 -> 2048 slots.
        for v in 0..70_000u64 {
            r.push_back(1_000_000 + v);
            r.pop_front();
        }
        while r.len() > 1000 {
            r.pop_front();
        }
        let before: Vec<u64> = r.iter().collect();
        r.trim();
        assert_eq!(r.capacity(), 2048);
        assert_eq!(r.iter().collect::<Vec<_>>(), before);
        // It grows again from there, in order.
        r.push_back(7);
        assert_eq!(r.iter().last(), Some(7));
        assert_eq!(r.len(), 1001);
        // A small ring is left alone; an empty large one gives back everything.
        let mut small: Ring<u64> = Ring::new();
        small.push_back(1);
        small.pop_front();
        small.trim();
        assert_eq!(small.capacity(), 1);
        let mut empty: Ring<u64> = Ring::new();
        for v in 0..(1u64 << 17) {
            empty.push_back(v);
        }
        while empty.pop_front().is_some() {}
        empty.trim();
        assert_eq!(empty.capacity(), 0);
        empty.push_back(5);
        assert_eq!(empty.pop_front(), Some(5));
    }

    #[test]
    fn grows_from_one_slot_by_doubling() {
        let mut r = Ring::new();
        assert_eq!(r.buf.len(), 0);
        // Capacity after each of the first nine pushes: 1, 2, 4, 4, 8, 8, 8, 8, 16.
        let mut caps = Vec::new();
        for v in 0..9u32 {
            r.push_back(v);
            caps.push(r.buf.len());
        }
        assert_eq!(caps, [1, 2, 4, 4, 8, 8, 8, 8, 16]);
        // A ring that never holds more than one value keeps its one slot.
        let mut one = Ring::new();
        for v in 0..100u32 {
            one.push_back(v);
            assert_eq!(one.pop_front(), Some(v));
        }
        assert_eq!(one.buf.len(), 1);
        assert!(r.iter().eq(0..9));
    }

    #[test]
    fn a_large_ring_grows_in_place_keeping_its_order() {
        // 2^17 values of 8 bytes (1 MiB, the in-place size) with the front at 100,000:
        // the values are [100000, 131072) then [0, 100000). Doubling moves the second part
        // to [131072, 231072), so the front stays at 100,000.
        let n = 1usize << 17;
        let mut r = Ring::new();
        let mut model = std::collections::VecDeque::new();
        for v in 0..n as u64 {
            r.push_back(v);
            model.push_back(v);
        }
        for _ in 0..100_000 {
            assert_eq!(r.pop_front(), model.pop_front());
        }
        for v in 0..100_000u64 {
            r.push_back(n as u64 + v);
            model.push_back(n as u64 + v);
        }
        assert_eq!((r.len(), r.buf.len(), r.head), (n, n, 100_000));
        r.push_back(1);
        model.push_back(1);
        assert_eq!((r.buf.len(), r.head), (2 * n, 100_000));
        assert!(r.iter().eq(model.iter().copied()));
        while let Some(v) = r.pop_front() {
            assert_eq!(Some(v), model.pop_front());
        }
        assert!(model.is_empty());
    }

    #[test]
    fn insert_sorted_walks_back_a_bounded_distance() {
        let mut r = Ring::new();
        for v in [10u32, 20, 30, 40] {
            r.push_back((v, 0u32));
        }
        r.pop_front(); // head away from slot 0, so the walk wraps
        r.push_back((50, 0));
        // After the last key <= 35 (30), before 40 and 50.
        assert!(r.insert_sorted(2, (35, 1), |e| e.0));
        // Equal keys: after those already there.
        assert!(r.insert_sorted(2, (40, 2), |e| e.0));
        assert_eq!(r.iter().collect::<Vec<_>>(), [(20, 0), (30, 0), (35, 1), (40, 0), (40, 2), (50, 0)]);
        // 25 would need a walk of 4 (30, 35, 40, 40, 50 are later: 5): refused, unchanged.
        assert!(!r.insert_sorted(4, (25, 3), |e| e.0));
        assert_eq!(r.len(), 6);
        // Before everything, within the limit.
        assert!(r.insert_sorted(6, (5, 4), |e| e.0));
        assert_eq!(r.iter().map(|e| e.0).collect::<Vec<_>>(), [5, 20, 30, 35, 40, 40, 50]);
        // At the back: no walk.
        assert!(r.insert_sorted(0, (60, 5), |e| e.0));
        assert_eq!(r.back(), Some(&(60, 5)));
        // A ring with room (9 values, capacity 16): a refused walk (3 later values, a
        // limit of 2) leaves the values where they were.
        r.push_back((70, 0));
        assert_eq!((r.len(), r.buf.len()), (9, 16));
        let before: Vec<_> = r.iter().collect();
        assert!(!r.insert_sorted(2, (45, 6), |e| e.0));
        assert_eq!(r.iter().collect::<Vec<_>>(), before);
        // The same walk allowed: after the two 40s, before 50, 60, 70.
        assert!(r.insert_sorted(3, (45, 6), |e| e.0));
        assert_eq!(r.iter().map(|e| e.0).collect::<Vec<_>>(), [5, 20, 30, 35, 40, 40, 45, 50, 60, 70]);
    }

    #[test]
    fn insert_sorted_matches_a_sorted_list_across_wraps_and_growth() {
        // Against a VecDeque: a value goes after the last key at most its own, if at most
        // `max_walk` values come after it there; otherwise nothing changes.
        let mut r = Ring::new();
        let mut model: std::collections::VecDeque<(u32, u32)> = std::collections::VecDeque::new();
        let mut x = 11u64;
        let mut next_key = 100u32;
        for step in 0..20_000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let roll = (x >> 33) % 8;
            if roll < 2 && !model.is_empty() {
                assert_eq!(r.pop_front(), model.pop_front());
            } else {
                next_key += (x >> 40) as u32 % 3;
                let key = next_key.saturating_sub((x >> 20) as u32 % 24);
                let max_walk = (x >> 50) as usize % 20;
                let later = model.iter().rev().take_while(|e| e.0 > key).count();
                let ok = r.insert_sorted(max_walk, (key, step), |e| e.0);
                assert_eq!(ok, later <= max_walk, "step {step}");
                if ok {
                    model.insert(model.len() - later, (key, step));
                }
            }
            assert_eq!(r.len(), model.len());
        }
        assert!(r.iter().eq(model.iter().copied()));
    }
}
