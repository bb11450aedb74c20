//! PTP forward packet stamping (Welzl 2003, section 2; Welzl, ICPADS 2000): on every
//! router's outgoing channel, each PTP request (`Control::PtpRequest`) that starts
//! transmission gets a record appended: the interface (channel id), the time, the
//! nominal rate ("ifSpeed") and the byte counter ("ifOutOctets", bytes sent before this
//! packet). The packet grows by `record_size` bytes (the paper's mode: 16) before it is
//! serialised, so the records take real space on the wire. Other packets pass untouched.

use super::Names;
use super::{ChannelView, ElemCx, Element, ElementPolicy};
use crate::base::rng::Rng;
use crate::base::units::serde_units;
use crate::packet::meta::{Control, Stamp};
use crate::packet::{Packet, PacketKind};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PtpConfig {
    /// Bytes added to a PTP packet per router record (the paper's mode: 16).
    #[serde(default = "default_record", with = "serde_units::bytes")]
    pub record_size: u32,
}

fn default_record() -> u32 {
    16
}

impl Default for PtpConfig {
    fn default() -> Self {
        PtpConfig { record_size: default_record() }
    }
}

#[derive(Clone, Debug)]
pub struct PtpStamp {
    record_bits: u32,
    /// PTP packets stamped.
    pub stamped: u64,
}

impl PtpStamp {
    pub fn new(cfg: &PtpConfig) -> Self {
        PtpStamp { record_bits: cfg.record_size * 8, stamped: 0 }
    }
}

/// What PTP stamping reports.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PtpReport {
    pub stamped_pkts: u64,
}

impl ElementPolicy for PtpStamp {
    type Config = PtpConfig;
    type Report<'a> = PtpReport;
    const NAME: &'static str = "ptp";
    const DESCRIPTION: &'static str = "PTP forward packet stamping (Welzl): appends a router record to PTP requests";
    fn build(cfg: &PtpConfig, _rng: Rng, _to: Option<u32>) -> Self {
        PtpStamp::new(cfg)
    }
    fn report(&self, _names: &dyn Names) -> PtpReport {
        PtpReport { stamped_pkts: self.stamped }
    }
}

impl Element for PtpStamp {
    fn on_transmit(&mut self, cx: &mut ElemCx, pkt: &mut Packet, ch: &ChannelView) {
        if pkt.kind != PacketKind::Control {
            return;
        }
        let Some(m) = cx.meta.get(pkt.meta) else { return };
        if m.control != Control::PtpRequest {
            return;
        }
        let stamp =
            Stamp { channel: cx.channel, time_ps: cx.now.as_ps(), rate_bps: ch.rate_bps, out_bytes: ch.tx_bytes };
        cx.meta.get_mut(pkt.meta).stamps.push(stamp);
        // Saturating: a request through several hops of a large record_size went past
        // u32::MAX bits and wrapped to a few bytes. A packet is at most u32::MAX bits.
        pkt.bits = pkt.bits.saturating_add(self.record_bits);
        self.stamped += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::time::SimTime;
    use crate::packet::meta::MetaSlab;

    #[test]
    fn stamps_ptp_requests_only_and_grows_them() {
        let mut e = PtpStamp::new(&PtpConfig::default());
        let mut meta = MetaSlab::default();
        let mut emitted = Vec::new();
        let mut cx =
            ElemCx { now: SimTime::from_millis(7), channel: 3, node: 1, meta: &mut meta, emitted: &mut emitted };
        let view = ChannelView { rate_bps: 10_000_000, tx_bytes: 12_345, tx_pkts: 9, queued_pkts: 0, queued_bits: 0 };
        let mut ptp = Packet::new(PacketKind::Control, 0, 32);
        ptp.meta = cx.meta.alloc();
        cx.meta.get_mut(ptp.meta).control = Control::PtpRequest;
        let mut data = Packet::new(PacketKind::Data, 0, 1000);
        let mut other = Packet::new(PacketKind::Control, 0, 40);
        other.meta = cx.meta.alloc();
        cx.meta.get_mut(other.meta).control = Control::Tag(1);
        e.on_transmit(&mut cx, &mut ptp, &view);
        e.on_transmit(&mut cx, &mut data, &view);
        e.on_transmit(&mut cx, &mut other, &view);
        assert_eq!(ptp.bits, 48 * 8, "32 bytes + one 16-byte record");
        assert_eq!((data.bits, other.bits), (8000, 320));
        let s = meta.get(ptp.meta).unwrap().stamps.clone();
        assert_eq!(s, vec![Stamp { channel: 3, time_ps: 7_000_000_000, rate_bps: 10_000_000, out_bytes: 12_345 }]);
        assert!(meta.get(other.meta).unwrap().stamps.is_empty());
        assert_eq!(e.stamped, 1);
    }

    #[test]
    fn a_request_grown_past_the_largest_packet_stays_the_largest_packet() {
        // record_size = "536870911B" on two hops used to wrap a 32-byte request to 30 bytes.
        let mut e = PtpStamp::new(&PtpConfig { record_size: 536_870_911 });
        let mut meta = MetaSlab::default();
        let mut emitted = Vec::new();
        let mut cx = ElemCx { now: SimTime::ZERO, channel: 0, node: 0, meta: &mut meta, emitted: &mut emitted };
        let view = ChannelView { rate_bps: 1, tx_bytes: 0, tx_pkts: 0, queued_pkts: 0, queued_bits: 0 };
        let mut ptp = Packet::new(PacketKind::Control, 0, 32);
        ptp.meta = cx.meta.alloc();
        cx.meta.get_mut(ptp.meta).control = Control::PtpRequest;
        e.on_transmit(&mut cx, &mut ptp, &view);
        e.on_transmit(&mut cx, &mut ptp, &view);
        assert_eq!(ptp.bits, u32::MAX);
    }
}
