//! The packet: a small `Copy` struct moved by value through queues and pipes
//! (no per-packet heap allocation). It carries a source route (route offset + hop index)
//! rather than being looked up in routing tables at each node (htsim).
//!
//! ## Layout (32 bytes, settled for the speed issue)
//!
//! `repr(C)`, so the table below is the layout (with the compiler's own order `hop`,
//! `kind` and `flags` sat at bytes 28-31 and `ts` first). A packet moves as two 16-byte
//! halves and its fields are read one by one from the copies just made; with `hop` at
//! the start of the second half the hand-over chain ran 4-7 % faster (interleaved
//! runs, docs/performance.md), at the same instruction count.
//!
//! | bytes | field | |
//! |---|---|---|
//! | 0-3 | `flow` | flow index (`NO_FLOW` for packets of no flow) |
//! | 4-7 | `seq` | data: sequence number; ack: cumulative ack |
//! | 8-11 | `bits` | size on the wire in **bits** (Heybey's 10-bit control packets) |
//! | 12-15 | `route` | offset of the route in the simulation's flat route array |
//! | 16-17 | `hop` | index into the route of the channel the packet is on |
//! | 18 | `kind` | data / ack / control |
//! | 19 | `flags` | `FLAG_*` bits: retransmission, pair marks, ECN (ECT, CE, ECE, CWR) |
//! | 20-23 | `meta` | handle into the per-simulation metadata slab (`meta::NO_META`: none) |
//! | 24-31 | `ts` | data: send time; ack: echo of the data packet's `ts` |
//!
//! There is no conversation field: Fair Queueing classifies by the route, whose
//! conversation id the simulation stores in the word before it (`sim::ConvIds`).
//! Variable-size data (SACK blocks, PTP stamps, control payloads) lives in the
//! metadata slab (`packet/meta.rs`), recycled when the packet is consumed or dropped.

pub mod meta;

use crate::base::time::SimTime;
use meta::NO_META;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    Data = 0,
    Ack = 1,
    /// A control packet: feedback, a PTP request, a voice user's control packet, or a
    /// packet emitted by a network element. Its payload, if any, is in the metadata.
    Control = 2,
}

/// Packet flag: this transmission is a retransmission.
pub const FLAG_RETX: u8 = 1;
/// Packet flag: first packet of a paced burst (Packet-Pair: first of a pair). The
/// receiver echoes data flags in its ack.
pub const FLAG_PAIR_FIRST: u8 = 2;
/// Packet flag: second packet of a paced burst (Packet-Pair: second of a pair).
pub const FLAG_PAIR_SECOND: u8 = 4;
/// ECN (RFC 3168): the sender is ECN-capable (ECT codepoint).
pub const FLAG_ECT: u8 = 8;
/// ECN: congestion experienced, set by a marking queue on an ECT packet.
pub const FLAG_CE: u8 = 16;
/// ECN: ECN-Echo, set by the receiver in acks after it saw CE.
pub const FLAG_ECE: u8 = 32;
/// ECN: congestion window reduced, set by the sender on the first data packet after it
/// reacted to ECE.
pub const FLAG_CWR: u8 = 64;
/// Engine-internal: a packet left in a pipe after a copy of it was handed to the next
/// channel at a snapshot (`Simulation::release_held`); its arrival is ignored.
pub const FLAG_GHOST: u8 = 128;

/// The flags a receiver echoes from a data packet into its ack.
pub const ECHOED_FLAGS: u8 = FLAG_RETX | FLAG_PAIR_FIRST | FLAG_PAIR_SECOND;

/// `flow` of a packet that belongs to no flow (emitted by an element on its own).
pub const NO_FLOW: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Packet {
    /// Index of the flow this packet belongs to (`NO_FLOW` if none).
    pub flow: u32,
    /// Data: sequence number (in packets, from 0). Ack: cumulative ack = next expected seq.
    pub seq: u32,
    /// Size on the wire, bits.
    pub bits: u32,
    /// Offset of the packet's route in the simulation's route array.
    pub route: u32,
    /// Index into the route of the channel the packet is on or about to enter.
    pub hop: u16,
    pub kind: PacketKind,
    /// `FLAG_*` bits.
    pub flags: u8,
    /// Handle of the packet's metadata (`NO_META`: none).
    pub meta: u32,
    /// Data: time this transmission left the sender. Ack: echo of the data packet's `ts`.
    pub ts: SimTime,
}

impl Packet {
    /// A packet of `bytes` bytes with every other field zero (tests and templates).
    pub fn new(kind: PacketKind, flow: u32, bytes: u32) -> Packet {
        Packet { flow, seq: 0, bits: bytes * 8, route: 0, hop: 0, kind, flags: 0, meta: NO_META, ts: SimTime::ZERO }
    }

    /// Moves the packet on to the next channel of its route (`hop` + 1).
    ///
    /// On x86-64 the increment is one 16-byte read-modify-write of the packet's second
    /// half (`hop` is its lowest 16 bits, and a route is far shorter than 2^16 hops, so
    /// the add never carries into `kind`). A packet is copied in 16-byte halves right
    /// after its hop moves on (into a pipe, a merged arrival or the hand-over slot);
    /// after a 2-byte store to the same half, that copy's load could not be forwarded
    /// from the store buffer and waited for the store to reach the cache (measured with
    /// `perf` sampling: the hand-over's copy was the run loop's costliest instruction).
    #[inline(always)]
    pub fn advance_hop(&mut self) {
        debug_assert!(self.hop < u16::MAX, "route longer than 2^16 hops");
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::{__m128i, _mm_add_epi64, _mm_loadu_si128, _mm_set_epi64x, _mm_storeu_si128};
            const _: () = assert!(std::mem::offset_of!(Packet, hop) == 16 && std::mem::size_of::<Packet>() == 32);
            // SAFETY: bytes 16..32 of `self` are inside it (the assertion above); SSE2 is
            // part of the x86_64 baseline; unaligned loads and stores are allowed; adding 1
            // to the low 64-bit lane (little-endian) adds 1 to `hop` without changing the
            // other fields, since `hop` < 2^16 - 1 (checked in debug builds).
            unsafe {
                let half = (self as *mut Packet as *mut u8).add(16) as *mut __m128i;
                let v = _mm_loadu_si128(half);
                _mm_storeu_si128(half, _mm_add_epi64(v, _mm_set_epi64x(0, 1)));
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.hop += 1;
        }
    }

    #[inline]
    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }

    /// Size in bytes, rounded up (for byte counters).
    #[inline]
    pub fn bytes(&self) -> u32 {
        self.bits.div_ceil(8)
    }

    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn advance_hop_moves_the_hop_on_and_nothing_else() {
        use super::{Packet, PacketKind};
        use crate::base::time::SimTime;
        let p = Packet {
            flow: 7,
            seq: 0xdead_beef,
            bits: 12_000,
            route: 40,
            hop: 3,
            kind: PacketKind::Ack,
            flags: 0x85,
            meta: 9,
            ts: SimTime::from_ps(u64::MAX - 1),
        };
        let mut q = p;
        q.advance_hop();
        assert_eq!(q, Packet { hop: 4, ..p });
        // The largest hop it may move from: 2^16 - 2 -> 2^16 - 1, `kind` untouched.
        let mut r = Packet { hop: u16::MAX - 1, ..p };
        r.advance_hop();
        assert_eq!(r, Packet { hop: u16::MAX, ..p });
    }

    #[test]
    fn packet_is_32_bytes() {
        // Packets are moved by value through every queue and pipe; keep them compact.
        assert_eq!(std::mem::size_of::<super::Packet>(), 32);
    }
}
