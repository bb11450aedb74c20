//! Packet metadata: variable-size data a packet carries (SACK blocks, router stamps,
//! control payloads), kept in a per-simulation slab and addressed by the packet's
//! `meta` handle, so the packet itself stays a 32-byte `Copy` struct.
//!
//! A slot is taken when a sender, receiver or element first attaches data to a packet
//! and given back when the packet is consumed (delivered to an endpoint) or dropped.
//! Freed slots keep their buffers' capacity, so once the slab has grown to the number
//! of packets carrying metadata at once, the steady state allocates nothing.

use crate::base::time::SimDuration;

/// The handle of "no metadata".
pub const NO_META: u32 = u32::MAX;

/// At most this many SACK blocks fit a packet (RFC 2018: 4 without timestamps).
pub const MAX_SACK_BLOCKS: usize = 4;

/// SACK blocks (RFC 2018): ranges [start, end) of sequence numbers the receiver holds
/// above the cumulative ack, the most recently changed first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub blocks: [(u32, u32); MAX_SACK_BLOCKS],
    pub n: u8,
}

impl SackBlocks {
    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..self.n as usize]
    }
    pub fn push(&mut self, start: u32, end: u32) {
        if (self.n as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.n as usize] = (start, end);
            self.n += 1;
        }
    }
}

/// One router's stamp (Welzl's PTP forward packet stamping): which interface, when,
/// its nominal rate and its byte counter at that moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    /// Channel id of the outgoing interface (the "router address" of the record).
    pub channel: u32,
    /// Time the packet passed, picoseconds.
    pub time_ps: u64,
    /// Nominal rate of the interface, bits/s ("ifSpeed").
    pub rate_bps: u64,
    /// Bytes sent on the interface so far ("ifOutOctets").
    pub out_bytes: u64,
}

/// Typed feedback from the receiver or the network, delivered to the flow's sender by
/// a control packet (`meta::Control::Feedback`) and passed to the sender's `on_feedback` (the congestion control's for a window sender).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Feedback {
    /// An explicit rate, bits/s (a router's control rate, a receiver's computed rate).
    Rate { bps: f64 },
    /// A bottleneck report: its nominal capacity and the traffic measured on it over an
    /// interval (Welzl's PTP: B, lambda and the time between the two stamped packets).
    Bandwidth { capacity_bps: f64, traffic_bps: f64, interval: SimDuration },
    /// A TFRC receiver's report (RFC 3448 6.2): receive rate, bits/s, and loss event rate.
    LossRate { recv_bps: f64, p: f64 },
}

/// What a voice packet carries (in `meta::Control::Voice`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VoiceStamp {
    /// Control rate, bits/s: infinity when created, min'ed by each smart link.
    pub control_bps: f64,
    /// Feedback rate, bits/s: the sender's last received control rate (its partner's
    /// next rate); infinity if it has received none.
    pub feedback_bps: f64,
    /// The sender's current transmission rate, bits/s (data packets; 0 in control packets).
    pub rate_bps: f64,
    /// A data packet (false: a control packet).
    pub data: bool,
    /// Last packet of a talk spurt.
    pub end_of_spurt: bool,
}

/// The payload of a control packet (or a typed value attached to a data packet).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Control {
    #[default]
    None,
    /// Feedback for the flow's sender (delivered to its congestion control).
    Feedback(Feedback),
    /// An opaque tag chosen by whoever emitted the packet (elements, tests).
    Tag(u64),
    /// A PTP request (Welzl's forward packet stamping): `ptp` elements append a `Stamp`.
    PtpRequest,
    /// A voice user's rates and flags (Heybey; `transport::voice`, `element::smart_link`).
    Voice(VoiceStamp),
}

/// One slot of the slab.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    pub sack: SackBlocks,
    pub stamps: Vec<Stamp>,
    pub control: Control,
}

impl Meta {
    fn clear(&mut self) {
        self.sack = SackBlocks::default();
        self.stamps.clear();
        self.control = Control::None;
    }
}

/// The slab of metadata slots, with a free list.
#[derive(Clone, Debug, Default)]
pub struct MetaSlab {
    slots: Vec<Meta>,
    free: Vec<u32>,
    live: usize,
}

impl MetaSlab {
    /// Takes an empty slot and returns its handle.
    pub fn alloc(&mut self) -> u32 {
        self.live += 1;
        if let Some(h) = self.free.pop() {
            return h;
        }
        self.slots.push(Meta::default());
        (self.slots.len() - 1) as u32
    }

    /// The handle of `*meta`, allocating a slot first if it has none.
    pub fn ensure(&mut self, meta: &mut u32) -> u32 {
        if *meta == NO_META {
            *meta = self.alloc();
        }
        *meta
    }

    pub fn get(&self, h: u32) -> Option<&Meta> {
        if h == NO_META {
            None
        } else {
            self.slots.get(h as usize)
        }
    }

    pub fn get_mut(&mut self, h: u32) -> &mut Meta {
        &mut self.slots[h as usize]
    }

    /// Gives a slot back (no-op for `NO_META`); its buffers keep their capacity.
    #[inline(always)]
    pub fn free(&mut self, h: u32) {
        // Most packets carry no metadata: only this check is inlined.
        if h != NO_META {
            self.free_slot(h);
        }
    }

    #[inline(never)]
    fn free_slot(&mut self, h: u32) {
        self.slots[h as usize].clear();
        self.free.push(h);
        self.live -= 1;
    }

    /// Slots in use.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Slots ever created (the slab's high-water mark).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused_empty() {
        let mut s = MetaSlab::default();
        let a = s.alloc();
        s.get_mut(a).sack.push(3, 5);
        s.get_mut(a).stamps.push(Stamp::default());
        s.free(a);
        let b = s.alloc();
        assert_eq!(a, b, "the freed slot is taken again");
        assert_eq!(s.get(b).unwrap().sack.n, 0);
        assert!(s.get(b).unwrap().stamps.is_empty());
        assert!(s.get(b).unwrap().stamps.capacity() >= 1, "capacity survives");
        assert_eq!((s.live(), s.capacity()), (1, 1));
    }

    #[test]
    fn no_meta_is_never_a_slot() {
        let mut s = MetaSlab::default();
        assert!(s.get(NO_META).is_none());
        s.free(NO_META);
        assert_eq!(s.live(), 0);
        let mut h = NO_META;
        let got = s.ensure(&mut h);
        assert_eq!(got, h);
        assert_ne!(h, NO_META);
    }

    #[test]
    fn sack_blocks_hold_at_most_four() {
        let mut b = SackBlocks::default();
        for i in 0..6 {
            b.push(i * 10, i * 10 + 1);
        }
        assert_eq!(b.as_slice().len(), MAX_SACK_BLOCKS);
        assert_eq!(b.as_slice()[0], (0, 1));
    }
}
