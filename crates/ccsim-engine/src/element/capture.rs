//! A packet capture: records every packet that starts transmission on its channel (time,
//! flow, sequence or ack number, size, kind, flags), columnar, up to `max_packets`. The
//! engine writes no files: the records go out with the results, and the front end writes
//! them as libpcap files with synthetic IPv4/TCP/UDP headers (`ccsim run --pcap DIR`).

use super::Names;
use super::{ChannelView, ElemCx, Element, ElementPolicy};
use crate::base::rng::Rng;
use crate::packet::Packet;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureConfig {
    /// Records kept at most (later packets are counted as `truncated`). Default 10^6.
    #[serde(default = "default_max")]
    pub max_packets: u64,
}

fn default_max() -> u64 {
    1_000_000
}

impl Default for CaptureConfig {
    fn default() -> Self {
        CaptureConfig { max_packets: default_max() }
    }
}

/// The records, one column per field.
#[derive(Clone, Debug, Default)]
pub struct Capture {
    pub max_packets: u64,
    /// Start of transmission, ps.
    pub t_ps: Vec<u64>,
    pub flow: Vec<u32>,
    /// Data: sequence number; ack: cumulative ack.
    pub seq: Vec<u32>,
    pub bits: Vec<u32>,
    /// `PacketKind` as a number (0 data, 1 ack, 2 control).
    pub kind: Vec<u8>,
    pub flags: Vec<u8>,
    /// Packets not recorded because `max_packets` was reached.
    pub truncated: u64,
}

impl Capture {
    pub fn new(cfg: &CaptureConfig) -> Self {
        Capture { max_packets: cfg.max_packets, ..Capture::default() }
    }
}

/// What a capture reports: every record, one column per field.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CaptureReport<'a> {
    pub packets: usize,
    pub truncated: u64,
    pub t_ps: &'a [u64],
    pub flow: &'a [u32],
    pub seq: &'a [u32],
    pub bits: &'a [u32],
    pub packet_kind: &'a [u8],
    pub flags: &'a [u8],
}

impl ElementPolicy for Capture {
    type Config = CaptureConfig;
    type Report<'a> = CaptureReport<'a>;
    const NAME: &'static str = "capture";
    const DESCRIPTION: &'static str = "records every packet transmitted on the channel (for pcap files)";
    fn build(cfg: &CaptureConfig, _rng: Rng, _to: Option<u32>) -> Self {
        Capture::new(cfg)
    }
    fn report<'a>(&'a self, _names: &'a dyn Names) -> CaptureReport<'a> {
        CaptureReport {
            packets: self.t_ps.len(),
            truncated: self.truncated,
            t_ps: &self.t_ps,
            flow: &self.flow,
            seq: &self.seq,
            bits: &self.bits,
            packet_kind: &self.kind,
            flags: &self.flags,
        }
    }
}

impl Element for Capture {
    fn on_transmit(&mut self, cx: &mut ElemCx, pkt: &mut Packet, _ch: &ChannelView) {
        if self.t_ps.len() as u64 >= self.max_packets {
            self.truncated += 1;
            return;
        }
        self.t_ps.push(cx.now.as_ps());
        self.flow.push(pkt.flow);
        self.seq.push(pkt.seq);
        self.bits.push(pkt.bits);
        self.kind.push(pkt.kind as u8);
        self.flags.push(pkt.flags);
    }
}
