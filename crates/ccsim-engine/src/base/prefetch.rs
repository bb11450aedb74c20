//! Cache prefetch hints. At 10^4 flows and more, the per-flow state an event touches
//! (channel lines, pipe nodes) is usually not in the cache, and each miss would otherwise
//! wait for the one before it; hints issued one and two events ahead overlap them. A
//! hint never changes what the program computes.

/// Asks the processor to bring the cache line holding address `p` into all cache levels.
#[inline(always)]
fn hint(p: *const u8) {
    #[cfg(ccsim_prefetch_as_load)]
    {
        // The value kept (`black_box`): valgrind drops a load whose value is dead, and
        // then its cache simulation would not see the line.
        // SAFETY: every hinted address lies inside a live value (`line`, `lines`).
        std::hint::black_box(unsafe { std::ptr::read_volatile(p) });
    }
    #[cfg(all(target_arch = "x86_64", not(ccsim_prefetch_as_load)))]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch reads no memory and
        // cannot fault, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) };
    }
    #[cfg(not(any(target_arch = "x86_64", ccsim_prefetch_as_load)))]
    let _ = p;
}

/// The cache line holding `*p`.
#[inline(always)]
pub(crate) fn line<T>(p: &T) {
    hint(p as *const T as *const u8);
}

/// The first `n` cache lines from `*p` (an unaligned value spans one line more than its
/// size in lines): each hint is at an address inside `*p`, the last at its last byte.
#[inline(always)]
pub(crate) fn lines<T>(p: &T, n: usize) {
    let base = p as *const T as *const u8;
    let size = std::mem::size_of::<T>();
    for i in 0..n.min(size.div_ceil(64) + 1) {
        hint(base.wrapping_add((64 * i).min(size.saturating_sub(1))));
    }
}
