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
            // allocator header and a pointer of its own.)
            ("Endpoint", size_of::<Endpoint>(), 960),
            // (512 B since the delivery-rate sampler's box pointer; `Endpoint` keeps its
            // 960 B: docs/performance.md.)
            ("Sender", size_of::<Sender>(), 512),
            ("WindowSender", size_of::<WindowSender>(), 512),
            ("AnyCc", size_of::<AnyCc>(), 48),
            ("Receiver", size_of::<Receiver>(), 216),
            ("AckReceiver", size_of::<AckReceiver>(), 216),
            ("FlowCounters", size_of::<FlowCounters>(), 176),
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
            // elements and rate history inline (docs/performance.md has what each
            // field costs).
            ("Channel", size_of::<crate::net::Channel>(), 384),
            ("Pipe", size_of::<crate::net::pipe::Pipe>(), 32),
            ("Ring", size_of::<crate::base::ring::Ring<u64>>(), 40),
            ("AnyQdisc", size_of::<crate::qdisc::AnyQdisc>(), 56),
            // (The counters inline in every channel; results read them as `ChannelCounters`.)
            ("LocalCounters", size_of::<crate::net::channel::LocalCounters>(), 144),
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
        // `Channel`'s layout comment: a pipe-head event touches line 2 only, an arrival at
        // an idle timed channel lines 2 and 4 (line 3, the queue, only while packets wait). A whole number of lines keeps every channel of
        // a line-aligned array on the same boundaries.
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
}
