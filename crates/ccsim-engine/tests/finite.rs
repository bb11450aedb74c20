//! Finite window flows (`size`): completion, flow completion time (FCT), the ideal FCT
//! and the slowdown, against times computed by hand on one link.
//!
//! The link a -> b: 8 Mbps, 10 ms each way. A 1000-byte data packet takes 1 ms to
//! transmit, a 40-byte ack 40 us. Every packet is acknowledged at once (no delayed
//! acks), so packet k's ack leaves b when packet k has arrived.

mod common;

use ccsim_engine::results::FlowResult;
use ccsim_engine::{run_text, Results};

fn scenario(flow: &str, duration: &str) -> String {
    format!(
        r#"
[scenario]
name = "finite"
duration = "{duration}"
[nodes]
hosts = ["a", "b"]
[[links]]
between = ["a", "b"]
rate = "8Mbps"
delay = "10ms"
buffer = "1000pkt"
[[flows]]
name = "f"
from = "a"
to = "b"
{flow}
"#
    )
}

fn run(text: &str) -> Results {
    common::run_conserving(text, "finite.toml", &[])
}

fn flow(r: &Results) -> &FlowResult {
    &r.flows[0]
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn a_flow_within_its_window_completes_one_round_trip_after_its_data() {
    // Generic with a fixed window of 100 sends all 10 packets at t = 0. Packet 9 leaves
    // the line at 10 ms and arrives at 20 ms; its ack (40 us) arrives at 30.04 ms.
    // Ideal: 10 x 8000 bits / 8 Mbps = 10 ms, plus the base round trip 1 + 10 + 0.04 +
    // 10 = 21.04 ms less the one data packet's 1 ms the first term already counts:
    // 30.04 ms, slowdown 1.
    let r = run(&scenario("cc = \"generic\"\nsize = \"10pkt\"\n[flows.params]\nwindow = 100", "1s"));
    let f = flow(&r);
    assert!(f.completed);
    assert_eq!(f.size_bytes, Some(10_000));
    assert_eq!((f.sent_pkts, f.delivered_pkts), (10, 10));
    assert!(close(f.fct_s.unwrap(), 0.030_04), "fct {:?}", f.fct_s);
    assert!(close(f.ideal_fct_s.unwrap(), 0.030_04), "ideal {:?}", f.ideal_fct_s);
    assert!((f.slowdown.unwrap() - 1.0).abs() < 1e-9, "slowdown {:?}", f.slowdown);
}

#[test]
fn slow_start_takes_three_round_trips_for_seven_packets() {
    // Reno from a window of 1, one more packet per ack (slow start). Base round trip
    // 21.04 ms (above). t = 0: packet 0; its ack at 21.04 -> window 2: packets 1, 2 leave
    // at 21.04-22.04 and 22.04-23.04, acks at 42.08 and 43.08. At 42.08 (window 3, una
    // 2) packets 3, 4; at 43.08 (window 4, una 3) packets 5, 6; the line sends 3-6
    // back to back from 42.08, so packet 6 leaves at 46.08 and its ack arrives at
    // 46.08 + 10 + 0.04 + 10 = 66.12 ms. Ideal 7 + 20.04 = 27.04 ms.
    let r = run(&scenario("cc = \"reno\"\nsize = \"7pkt\"\n[flows.params]\ninitial_window = 1", "1s"));
    let f = flow(&r);
    assert!(f.completed);
    assert_eq!(f.sent_pkts, 7);
    assert!(close(f.fct_s.unwrap(), 0.066_12), "fct {:?}", f.fct_s);
    assert!(close(f.ideal_fct_s.unwrap(), 0.027_04), "ideal {:?}", f.ideal_fct_s);
    assert!(close(f.slowdown.unwrap(), 0.066_12 / 0.027_04));
}

#[test]
fn a_size_in_bytes_is_carried_in_whole_packets_and_the_start_counts_from_the_flow() {
    // 9001 bytes in 1000-byte packets: 10 packets. Started at 0.5 s, the FCT is the same
    // 30.04 ms as from 0.
    let r = run(&scenario("cc = \"generic\"\nstart = \"0.5s\"\nsize = \"9001B\"\n[flows.params]\nwindow = 100", "1s"));
    let f = flow(&r);
    assert_eq!(f.size_bytes, Some(10_000));
    assert!(f.completed);
    assert!((f.fct_s.unwrap() - 0.030_04).abs() < 1e-9, "fct {:?}", f.fct_s);
}

#[test]
fn an_unfinished_flow_has_an_ideal_but_no_completion_and_a_flow_without_size_neither() {
    // 100 packets need 100 ms on the line alone; the run ends at 50 ms.
    let r = run(&scenario("cc = \"generic\"\nsize = \"100pkt\"\n[flows.params]\nwindow = 100", "50ms"));
    let f = flow(&r);
    assert!(!f.completed);
    assert_eq!((f.fct_s, f.slowdown), (None, None));
    assert!(close(f.ideal_fct_s.unwrap(), 0.120_04));
    let r = run(&scenario("cc = \"generic\"\n[flows.params]\nwindow = 100", "50ms"));
    let f = flow(&r);
    assert!(!f.completed);
    assert_eq!((f.size_bytes, f.fct_s, f.ideal_fct_s, f.slowdown), (None, None, None, None));
}

#[test]
fn a_finite_flow_sends_no_new_data_after_its_last_packet_even_after_losses() {
    // A 5-packet buffer and a window of 20: packets 5-19 of the first burst are dropped
    // at the queue (one is on the line, five wait); the flow recovers them by timeouts
    // and retransmissions only, never sending a sequence number past 19.
    let text = scenario("cc = \"reno\"\nsize = \"20pkt\"\n[flows.params]\ninitial_window = 20", "60s")
        .replace("buffer = \"1000pkt\"", "buffer = \"5pkt\"");
    let r = run(&text);
    let f = flow(&r);
    assert!(f.completed);
    assert!(f.dropped_pkts > 0);
    assert_eq!(f.delivered_pkts, 20);
    assert_eq!(f.sent_pkts, 20 + f.retransmitted_pkts, "new data: exactly 20 packets");
    assert_eq!(f.in_network_pkts, 0);
}

#[test]
fn a_handshake_is_not_data_and_adds_a_round_trip_to_the_ideal() {
    // With handshake = true, sequence number 0 is a 40-byte SYN (the ack size): 10 data
    // packets follow its ack. Ideal: 30.04 ms plus the SYN's round trip 0.04 + 10 + 0.04
    // + 10 = 20.08 ms: 50.12 ms.
    let r = run(&scenario("cc = \"generic\"\nhandshake = true\nsize = \"10pkt\"\n[flows.params]\nwindow = 100", "1s"));
    let f = flow(&r);
    assert!(f.completed);
    assert_eq!(f.sent_pkts, 11);
    assert!(close(f.ideal_fct_s.unwrap(), 0.050_12), "ideal {:?}", f.ideal_fct_s);
    // The SYN's round trip (20.08 ms), then the 10 packets as above (30.04 ms).
    assert!(close(f.fct_s.unwrap(), 0.050_12), "fct {:?}", f.fct_s);
}

#[test]
fn size_errors_name_the_field_and_the_fix() {
    let bad = |flow: &str| match run_text(&scenario(flow, "1s"), "finite.toml", &[], None) {
        Ok(_) => panic!("accepted: {flow}"),
        Err(e) => e.to_string(),
    };
    let e = bad("size = 100");
    assert!(e.contains("flows.f.size") || e.contains("flows[0].size"), "{e}");
    let e = bad("size = \"100\"");
    assert!(e.contains("size") && e.contains("unit"), "{e}");
    let e = bad("size = \"0pkt\"");
    assert!(e.contains("size"), "{e}");
    let e = bad("kind = \"cbr\"\nrate = \"1Mbps\"\nsize = \"10pkt\"");
    assert!(e.contains("size"), "{e}");
}
