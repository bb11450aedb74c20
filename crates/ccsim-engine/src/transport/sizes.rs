//! Upper bounds on the size of a flow's state and of the scenario structs kept after a
//! build (an idle flow in slow start must cost well under 2 KiB at 10^5 flows;
//! docs/performance.md). A field added to a hot struct that pushes it past its bound fails here: box
//! it, or raise the bound on purpose and say why in docs/performance.md.

#[cfg(test)]
mod tests {
    use crate::cc::{AnyCc, CcConfig};
    use crate::scenario::{ChannelSpec, Flow, FlowSpec, Link, Node, QdiscConfig};
    use crate::sim::{Endpoint, Receiver, Sender};
    use crate::transport::receiver::AckReceiver;
    use crate::transport::sender::WindowSender;
    use crate::transport::FlowCounters;
    use std::mem::size_of;

    #[test]
    fn flow_state_and_scenario_structs_stay_small() {
        // (name, size, bound): the bounds are today's sizes on x86-64 (before this
        // test: Endpoint 1104 B, WindowSender 688 B, AnyCc 192 B, Link 232 B).
        let sizes = [
            // (Inline in the simulation's array, 64-byte aligned; a box would add an
            // allocator header and a pointer of its own. Its layout by cache line:
            // `endpoint_fields_sit_on_the_cache_lines_its_layout_promises`.)
            ("Endpoint", size_of::<Endpoint>(), 768),
            ("Sender", size_of::<Sender>(), 400),
            ("WindowSender", size_of::<WindowSender>(), 384),
            ("AnyCc", size_of::<AnyCc>(), 48),
            ("Receiver", size_of::<Receiver>(), 168),
            ("AckReceiver", size_of::<AckReceiver>(), 168),
            ("LazyTimer", size_of::<crate::transport::timer::LazyTimer>(), 24),
            ("FlowCounters", size_of::<FlowCounters>(), 176),
            // (What a workload flow not yet started keeps besides its scenario entry; a
            // completed one keeps a packed record: `sim/lifecycle.rs`, `Retired`.)
            ("LazyFlow", size_of::<crate::sim::lifecycle::LazyFlow>(), 32),
            // (160 B with the spec shared behind an `Arc` (208 B inline before), the name
            // a `Name` and the routes `NodePath`s kept inline: docs/performance.md.)
            ("Flow", size_of::<Flow>(), 160),
            ("Name", size_of::<crate::scenario::Name>(), 24),
            ("NodePath", size_of::<crate::scenario::NodePath>(), 40),
            ("FlowSpec", size_of::<FlowSpec>(), 208),
            ("CcConfig", size_of::<CcConfig>(), 104),
            // (48 B with its two directions shared behind an `Arc`.)
            ("Link", size_of::<Link>(), 48),
            ("ChannelSpec", size_of::<ChannelSpec>(), 48),
            ("QdiscConfig", size_of::<QdiscConfig>(), 16),
            ("Node", size_of::<Node>(), 48),
            // Four channels per dumbbell flow: 560 B with its two name strings, 496 B with its
            // elements and rate history inline, 384 B with its queue state inline, 256 B
            // with FCFS's queue and the capacity integral inline (docs/performance.md has
            // what each field costs).
            ("Channel", size_of::<crate::net::Channel>(), 192),
            // (Boxed, made when a packet first waits in the channel; its marks and drops
            // boxed again, made at the first one.)
            ("ChannelQueue", size_of::<crate::net::channel::ChannelQueue>(), 128),
            ("ChannelLosses", size_of::<crate::net::channel::ChannelLosses>(), 56),
            // (A timed queue's record: its packet's start, enqueue time and bits.)
            ("Waiting", size_of::<crate::net::channel::Waiting>(), 24),
            ("Pipe", size_of::<crate::net::pipe::Pipe>(), 32),
            ("Ring", size_of::<crate::base::ring::Ring<u64>>(), 40),
            // (FCFS inline: its limit and a pointer to its queue, made at the first packet
            // queued.)
            ("AnyQdisc", size_of::<crate::qdisc::AnyQdisc>(), 24),
            // (The counters every packet updates, inline in every channel's idle-path line;
            // results read them with the others as `ChannelCounters`.)
            ("LocalCounters", size_of::<crate::net::channel::LocalCounters>(), 32),
            ("Limit", size_of::<crate::base::units::Limit>(), 16),
        ];
        let over: Vec<String> = sizes
            .iter()
            .filter(|(_, n, bound)| n > bound)
            .map(|(name, n, bound)| format!("{name} is {n} B (bound {bound} B)"))
            .collect();
        assert!(over.is_empty(), "{}", over.join("; "));
        // An idle window flow's own state plus its scenario entry, two links and two
        // nodes (the dumbbell's share), without channels and heap-held names: under 2 KiB.
        let per_flow = size_of::<Endpoint>() + size_of::<Flow>() + 2 * size_of::<Link>() + 2 * size_of::<Node>();
        assert!(per_flow <= 1664, "{per_flow} B per flow");
    }

    #[test]
    fn channel_fields_sit_on_the_cache_lines_its_layout_promises() {
        // `Channel`'s layout comment: an arrival at an idle timed channel touches line 0
        // (and line 1 when its packet goes into the pipe), a pipe-head event line 1; a
        // packet that waits lines 0-2 and the boxed queue state. A whole number of lines
        // keeps every channel of a line-aligned array on the same boundaries.
        use crate::net::Channel;
        assert_eq!(size_of::<Channel>() % 64, 0, "Channel is {} B", size_of::<Channel>());
        let line = |off: usize, len: usize| (off / 64, (off + len - 1) / 64);
        let fields = crate::net::channel::hot_field_spans();
        for (name, off, len, want) in fields {
            assert_eq!(
                line(off, len),
                (want, want),
                "Channel::{name} at {off}..{} should lie in line {want}",
                off + len
            );
        }
        assert_eq!(std::mem::align_of::<Channel>(), 64);
    }

    #[test]
    fn endpoint_fields_sit_on_the_cache_lines_its_layout_promises() {
        // `Endpoint`'s, `WindowSender`'s and `AckReceiver`'s layout comments: the
        // counters' per-packet fields in line 0 of the endpoint, a plain window sender's
        // ack path in four lines from the sender's first (it starts 8 bytes into a line,
        // after its enum's tag), and a receiver's data path, the delay statistics'
        // pointer included, in two.
        use crate::base::rng::Rng;
        use crate::base::time::SimTime;
        use crate::cc::RenoConfig;
        use crate::packet::{Packet, PacketKind};
        use crate::transport::receiver::ReceiverConfig;
        use crate::transport::sender::SenderConfig;
        use std::mem::offset_of;
        let line = |off: usize, len: usize| (off / 64, (off + len - 1) / 64);
        assert_eq!(std::mem::align_of::<Endpoint>(), 64);
        // Line 0: what `FlowCounters` puts first (a sender's per-ack and a receiver's
        // per-data-packet counts).
        let c = offset_of!(Endpoint, counters);
        for (name, off) in [
            ("rtt_sum_ps", offset_of!(FlowCounters, rtt_sum_ps)),
            ("acks_arrived", offset_of!(FlowCounters, acks_arrived)),
            ("rtt_samples", offset_of!(FlowCounters, rtt_samples)),
            ("sent", offset_of!(FlowCounters, sent)),
            ("arrived", offset_of!(FlowCounters, arrived)),
            ("delivered", offset_of!(FlowCounters, delivered)),
            ("acks_sent", offset_of!(FlowCounters, acks_sent)),
        ] {
            let len = if name == "rtt_sum_ps" { 16 } else { 8 };
            assert_eq!(line(c + off, len), (0, 0), "FlowCounters::{name} at {}", c + off);
        }
        // Where the window sender and the ack receiver lie inside their enums.
        let cc = CcConfig::Reno(RenoConfig::default());
        let data = Packet::new(PacketKind::Data, 0, 1000);
        let ws = WindowSender::new(
            "f",
            &cc,
            &cc.default_loss_recovery(),
            SenderConfig::default(),
            data,
            64,
            SimTime::MAX,
            Rng::new(1, 0),
        );
        let s = Sender::Window(ws);
        let ws_at = offset_of!(Endpoint, sender)
            + (s.window().expect("a window sender") as *const WindowSender as usize - &s as *const Sender as usize);
        let r = Receiver::Ack(AckReceiver::new(ReceiverConfig::default(), Packet::new(PacketKind::Ack, 0, 40), 64));
        let Receiver::Ack(ar) = &r else { unreachable!() };
        let ar_at =
            offset_of!(Endpoint, receiver) + (ar as *const AckReceiver as usize - &r as *const Receiver as usize);
        assert_eq!(ws_at % 64, 8, "the window sender starts at {ws_at}, not 8 bytes into a line");
        let first = ws_at / 64;
        // (The lines `prefetch_packet` hints: `SENDER_HOT_LINES` from the sender's first.)
        assert_eq!(offset_of!(Endpoint, sender) / 64, first);
        let hinted = crate::sim::SENDER_HOT_LINES;
        for (name, off, len, want) in crate::transport::sender::hot_field_spans() {
            let (a, b) = line(ws_at + off, len);
            assert_eq!(
                (a - first, b - first),
                (want, want),
                "WindowSender::{name} at {off}..{} should lie in line {want} of the sender",
                off + len
            );
        }
        assert!(
            crate::transport::sender::hot_field_spans().iter().all(|&(_, _, _, want)| want < hinted),
            "a hot line of the sender is not hinted"
        );
        // The receiver's data path: the delay statistics' pointer and the receiver's hot
        // fields in two lines.
        let d = offset_of!(Endpoint, delay);
        let first = line(d, 8).0;
        assert_eq!(line(d, 8), (first, first), "Endpoint::delay at {d}");
        // (`prefetch_packet` hints `RECEIVER_HOT_LINES` from the receiver's first.)
        assert_eq!(offset_of!(Endpoint, receiver) / 64, first);
        assert_eq!(crate::sim::RECEIVER_HOT_LINES, 2);
        for (name, off, len) in crate::transport::receiver::hot_field_spans() {
            let (a, b) = line(ar_at + off, len);
            assert!(
                a >= first && b <= first + 1,
                "AckReceiver::{name} at endpoint offset {} is not in lines {first}-{}",
                ar_at + off,
                first + 1
            );
        }
    }
}
