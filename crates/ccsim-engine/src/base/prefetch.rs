//! Cache prefetch hints. At 10^4 flows and more, the per-flow state an event touches
//! (channel lines, pipe nodes) is usually not in the cache, and each miss would otherwise
//! wait for the one before it; hints issued one and two events ahead overlap them. A
//! hint never changes what the program computes.

/// Asks the processor to bring the cache line holding address `p` into all cache levels.
#[inline(always)]
fn hint(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch reads no memory and
        // cannot fault, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The cache line holding `*p`.
#[inline(always)]
pub(crate) fn line<T>(p: &T) {
    hint(p as *const T as *const u8);
}

/// The first `n` cache lines from `*p` (within `*p` and the line its end reaches: an
/// unaligned value spans one line more than its size in lines).
#[inline(always)]
pub(crate) fn lines<T>(p: &T, n: usize) {
    let base = p as *const T as *const u8;
    for i in 0..n.min(std::mem::size_of::<T>().div_ceil(64) + 1) {
        // (`wrapping_add`: an address inside `*p` or within its last line.)
        hint(base.wrapping_add(64 * i));
    }
}
