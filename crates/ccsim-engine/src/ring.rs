//! A FIFO ring buffer for `Copy` values with a power-of-two capacity: the timed queues of
//! channels (`link.rs`; the propagation pipes share a pool instead, `pipe.rs`), where
//! `VecDeque`'s general index
//! arithmetic and growth checks showed up on the per-packet path. It grows by doubling
//! (as used, never shrinks), so a channel reaches its working size once.

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

    /// Doubles the capacity (at least 4), keeping the order; `fill` pads the new slots.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let cap = (self.buf.len() * 2).max(4);
        let mut buf = Vec::with_capacity(cap);
        buf.extend(self.iter());
        buf.resize(cap, fill);
        self.buf = buf;
        self.head = 0;
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

    /// The values, front to back.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        (0..self.len).map(move |k| self.buf[(self.head + k) & self.mask()])
    }
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
}
