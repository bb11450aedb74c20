//! The packet: a small `Copy` struct moved by value through queues and pipes
//! (no per-packet heap allocation). It carries a source route (route id + hop index)
//! rather than being looked up in routing tables at each node (htsim).

use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    Data = 0,
    Ack = 1,
}

/// Packet flag: this transmission is a retransmission.
pub const FLAG_RETX: u8 = 1;
/// Packet flag: first packet of a paced burst (Packet-Pair: first of a pair). The
/// receiver echoes data flags in its ack.
pub const FLAG_PAIR_FIRST: u8 = 2;
/// Packet flag: second packet of a paced burst (Packet-Pair: second of a pair).
pub const FLAG_PAIR_SECOND: u8 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Index of the flow this packet belongs to.
    pub flow: u32,
    /// Data: sequence number (in packets, from 0). Ack: cumulative ack = next expected seq.
    pub seq: u32,
    /// Size on the wire, bytes.
    pub size: u32,
    /// Fair Queueing conversation id: one per (source host, destination host) pair.
    pub conv: u32,
    /// Index of the route (list of channels) the packet follows.
    pub route: u32,
    /// Index into the route of the channel the packet is on or about to enter.
    pub hop: u16,
    pub kind: PacketKind,
    /// `FLAG_*` bits.
    pub flags: u8,
    /// Data: time this transmission left the sender. Ack: echo of the data packet's `ts`.
    pub ts: SimTime,
}

impl Packet {
    #[inline]
    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn packet_is_small() {
        // Packets are moved by value through every queue and pipe; keep them compact.
        assert!(std::mem::size_of::<super::Packet>() <= 32);
    }
}
