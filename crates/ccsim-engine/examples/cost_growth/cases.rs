//! The cases of `cost_growth` (also run, without valgrind, by
//! `crates/ccsim-engine/tests/cost_growth_structure.rs`): small scenarios that together use every queue
//! discipline, element, congestion control and sender kind.

/// One scenario.
pub struct Case {
    pub name: &'static str,
    /// What the case covers.
    pub covers: &'static str,
    /// T in seconds (the run is 4T).
    pub t: f64,
    /// The scenario file (its duration is set when it runs).
    pub toml: String,
    /// Sections for the k-th 10 s of the run, added for as many as fall in it (scheduled
    /// changes must not come after the end): what changes over a run keeps changing to
    /// its end, so that the mix of events late in a run is the one early in it.
    pub every_10s: Option<fn(u32) -> String>,
}

impl Case {
    /// The scenario file for a run of `end_s` seconds.
    pub fn text(&self, end_s: f64) -> String {
        let mut text = self.toml.clone();
        if let Some(f) = self.every_10s {
            for k in 0..(end_s / 10.0).floor() as u32 {
                text += &f(k);
            }
        }
        text
    }
}

/// A dumbbell: hosts s1..s3 -> r1 -bottleneck- r2 -> d1..d3. The bottleneck runs at 10
/// Mbps (unless `bottleneck` sets `rate`) with 20 ms each way and a 50-packet buffer; the
/// access links at 100 Mbps, 2-4 ms. `defaults` and `bottleneck` are extra lines of
/// `[defaults]` and of the bottleneck link, `rest` the flows and any other sections.
fn dumbbell(defaults: &str, bottleneck: &str, rest: &str) -> String {
    let rate = if bottleneck.contains("rate =") { "" } else { "rate = \"10Mbps\"" };
    format!(
        r#"
[scenario]
name = "growth"
duration = "1s"
seed = 7

[defaults]
buffer = "50pkt"
{defaults}

[nodes]
hosts = ["s1", "s2", "s3", "d1", "d2", "d3"]
routers = ["r1", "r2"]

[[links]]
between = ["s1", "r1"]
rate = "100Mbps"
delay = "2ms"

[[links]]
between = ["s2", "r1"]
rate = "100Mbps"
delay = "3ms"

[[links]]
between = ["s3", "r1"]
rate = "100Mbps"
delay = "4ms"

[[links]]
name = "bottleneck"
between = ["r1", "r2"]
delay = "20ms"
{rate}
{bottleneck}

[[links]]
between = ["r2", "d1"]
rate = "100Mbps"
delay = "2ms"

[[links]]
between = ["r2", "d2"]
rate = "100Mbps"
delay = "3ms"

[[links]]
between = ["r2", "d3"]
rate = "100Mbps"
delay = "4ms"
{rest}
"#
    )
}

/// Window flows w1..wn from s_i to d_i (n <= 3) with `cc` and extra flow lines.
fn window_flows(n: usize, cc: &str, extra: &str) -> String {
    (1..=n)
        .map(|i| {
            format!(
                r#"
[[flows]]
name = "w{i}"
from = "s{i}"
to = "d{i}"
cc = "{cc}"
start = "{start}ms"
{extra}
"#,
                start = 100 * (i - 1)
            )
        })
        .collect()
}

/// An unresponsive or rate-based flow of `kind` from s3 to d3 with the given lines.
fn flow(name: &str, kind: &str, lines: &str) -> String {
    flow_between(name, kind, 3, lines)
}

/// The same from s`host` to d`host`.
fn flow_between(name: &str, kind: &str, host: u32, lines: &str) -> String {
    format!("\n[[flows]]\nname = \"{name}\"\nkind = \"{kind}\"\nfrom = \"s{host}\"\nto = \"d{host}\"\n{lines}\n")
}

/// Two flows of `kind` named `a` (from s3) and `b` (from s2).
fn two_flows(kind: &str, a: &str, b: &str) -> String {
    flow_between(a, kind, 3, "") + &flow_between(b, kind, 2, "")
}

/// The two constant-rate sources into Fair Queueing (8 Mbps of 1500 B and 8 Mbps of
/// 500 B into 6 Mbps, a 200-packet buffer): a drop at every arrival.
fn two_cbr_fq(rule: &str) -> String {
    dumbbell(
        "",
        &format!("qdisc = {{ kind = \"fq\", drop_rule = \"{rule}\" }}\nrate = \"6Mbps\"\nbuffer = \"200pkt\""),
        &format!(
            "{}{}",
            flow("big", "cbr", "rate = \"8Mbps\"\npacket_size = \"1500B\""),
            flow_between("small", "cbr", 2, "rate = \"8Mbps\"\npacket_size = \"500B\"")
        ),
    )
}

/// Every case. T is long enough that the windows compared average over many cycles of
/// each sawtooth (ratios within a few per cent of 1 at 40 s; 0.77-1.09 at 8 s).
pub fn cases() -> Vec<Case> {
    let reno3 = window_flows(3, "reno", "");
    let cbr = flow("bkg", "cbr", "rate = \"3Mbps\"\npacket_size = \"500B\"\non = [[\"0s\", \"1000s\"]]");
    let mut v = vec![
        // Queue disciplines.
        Case { name: "fcfs-reno", covers: "fcfs; reno; window sender", t: 40.0, toml: dumbbell("", "", &reno3), every_10s: None },
        Case { name: "fq-dks-reno-cbr", covers: "fq dks; reno with a cbr", t: 40.0, toml: dumbbell("", "qdisc = \"fq\"", &format!("{}{cbr}", window_flows(2, "reno", ""))), every_10s: None },
        Case {
            name: "fq-rollback-reno-cbr",
            covers: "fq rollback; reno with a cbr",
            t: 40.0,
            toml: dumbbell("", "qdisc = { kind = \"fq\", drop_rule = \"rollback\" }", &format!("{}{cbr}", window_flows(2, "reno", ""))),
            every_10s: None,
        },
        Case { name: "fq-dks-two-cbr", covers: "fq dks under overload (a drop per arrival)", t: 20.0, toml: two_cbr_fq("dks"), every_10s: None },
        Case { name: "fq-rollback-two-cbr", covers: "fq rollback under overload (a drop per arrival)", t: 20.0, toml: two_cbr_fq("rollback"), every_10s: None },
        Case { name: "red-reno", covers: "red (drops)", t: 40.0, toml: dumbbell("", "qdisc = { kind = \"red\", min_th = \"5pkt\", max_th = \"15pkt\" }", &reno3), every_10s: None },
        Case {
            name: "red-ecn-reno",
            covers: "red with ecn; ecn senders and receivers",
            t: 40.0,
            toml: dumbbell("ecn = true", "qdisc = { kind = \"red\", min_th = \"5pkt\", max_th = \"15pkt\", ecn = true }", &reno3),
            every_10s: None,
        },
        Case {
            name: "red-gentle-bytes",
            covers: "red gentle, byte mode, byte buffer",
            t: 40.0,
            toml: dumbbell(
                "",
                "buffer = \"30000B\"\nqdisc = { kind = \"red\", min_th = \"5000B\", max_th = \"15000B\", gentle = true, byte_mode = true }",
                &format!("{reno3}{cbr}"),
            ),
            every_10s: None,
        },
        Case { name: "codel-reno", covers: "codel (drops at dequeue, idle pass)", t: 40.0, toml: dumbbell("", "qdisc = \"codel\"", &reno3), every_10s: None },
        Case {
            name: "fq-codel-reno-cbr",
            covers: "fq_codel (flow queues, new/old lists, CoDel per queue)",
            t: 40.0,
            toml: dumbbell("", "qdisc = \"fq_codel\"", &format!("{reno3}{cbr}")),
            every_10s: None,
        },
        Case { name: "pie-reno", covers: "pie (drop probability updates)", t: 40.0, toml: dumbbell("", "qdisc = \"pie\"", &reno3), every_10s: None },
    ];
    // Congestion controls (two window flows each, drop-tail unless the policy needs FQ).
    for (name, cc, extra, qdisc, covers) in [
        ("cc-generic", "generic", "params = { window = 20 }", "", "generic"),
        ("cc-tahoe", "tahoe", "", "", "tahoe"),
        ("cc-newreno", "newreno", "", "", "newreno"),
        ("cc-newreno-sack", "newreno", "sack = true", "", "newreno with sack"),
        ("cc-vegas-sack", "vegas", "sack = true", "", "vegas with sack, random loss"),
        ("cc-vegas", "vegas", "", "", "vegas"),
        ("cc-da", "da", "", "", "da (Dabbous)"),
        ("cc-pp", "pp", "", "qdisc = \"fq\"", "pp (packet pair) over fq"),
        ("cc-delay-aimd", "delay_aimd", "", "", "delay_aimd"),
        (
            "cc-delay-aimd-filtered",
            "delay_aimd",
            "params = { per_packet = true, srtt_gain = 0.25 }",
            "",
            "delay_aimd per-packet variant",
        ),
        ("cc-cubic", "cubic", "", "", "cubic"),
        ("cc-bbr", "bbr", "sack = true", "", "bbr (pacing, rate samples) with sack"),
        (
            "cc-dctcp",
            "dctcp",
            "",
            "qdisc = { kind = \"red\", w_q = 1.0, min_th = \"20pkt\", max_th = \"20pkt\", ecn = true, ecn_above_max_th = true }",
            "dctcp over step-marking red (ecn echo)",
        ),
        (
            "cc-cubic-sack-hystart",
            "cubic",
            "sack = true\nparams = { hystart = true }",
            "",
            "cubic with sack and HyStart++",
        ),
    ] {
        let mut flows = window_flows(2, cc, extra);
        if name == "cc-vegas-sack" {
            // Vegas keeps the queue short: losses only from the line.
            flows += "\n[[elements]]\nkind = \"random_loss\"\nat = \"r1->r2\"\np = 0.005\n";
        }
        v.push(Case { name, covers, t: 40.0, toml: dumbbell("", qdisc, &flows), every_10s: None });
    }
    // Sender and receiver options.
    for (name, defaults, cc, extra, covers) in [
        (
            "opt-delayed-ack",
            "delayed_ack = true\nack_delay_min = \"40ms\"",
            "reno",
            "",
            "delayed acks, adaptive ack timer",
        ),
        (
            "opt-tso",
            "tso = true\ndelayed_ack = true",
            "delay_aimd",
            "params = { delayed_ack = \"on\" }",
            "tso batching, delayed acks",
        ),
        ("opt-handshake", "handshake = true\nrtt_sample = \"newest\"", "vegas", "", "handshake, newest rtt sample"),
        (
            "opt-go-back-n",
            "out_of_order = \"discard\"\nfast_retransmit = \"go_back_n\"",
            "tahoe",
            "",
            "discarding receiver, go-back-n",
        ),
        ("opt-max-window", "max_window = \"8pkt\"", "reno", "", "window-limited flows"),
    ] {
        v.push(Case {
            name,
            covers,
            t: 40.0,
            toml: dumbbell(defaults, "", &window_flows(3, cc, extra)),
            every_10s: None,
        });
    }
    // Sender kinds.
    let reno1 = window_flows(1, "reno", "");
    v.extend([
        Case {
            name: "src-cbr-on-off",
            covers: "cbr with on periods (6 s of every 10)",
            t: 40.0,
            toml: dumbbell(
                "",
                "",
                &format!(
                    "{reno1}{}",
                    flow(
                        "c",
                        "cbr",
                        &format!(
                            "rate = \"7Mbps\"\non = [{}]",
                            (0..100)
                                .map(|k| format!("[\"{}s\", \"{}s\"]", 10 * k, 10 * k + 6))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    )
                ),
            ),
            every_10s: None,
        },
        Case {
            name: "src-poisson",
            covers: "poisson",
            t: 40.0,
            toml: dumbbell(
                "",
                "",
                &format!("{reno1}{}", flow("p", "poisson", "mean_gap = \"1ms\"\npacket_size = \"500B\"")),
            ),
            every_10s: None,
        },
        Case {
            name: "src-cadpc-ptp",
            covers: "cadpc; ptp element",
            t: 40.0,
            toml: dumbbell(
                "",
                "",
                &format!(
                    "{}\n[[elements]]\nkind = \"ptp\"\nat = [\"r1->r2\", \"r2->d3\", \"r2->d2\"]\n",
                    two_flows("cadpc", "c1", "c2")
                ),
            ),
            every_10s: None,
        },
        Case {
            name: "src-rap",
            covers: "rap",
            t: 40.0,
            toml: dumbbell("", "", &format!("{reno1}{}", two_flows("rap", "r1", "r2"))),
            every_10s: None,
        },
        Case {
            name: "src-gaimd",
            covers: "gaimd (rap parameters)",
            t: 40.0,
            toml: dumbbell("", "", &format!("{reno1}{}", flow("g", "rap", "params = { alpha = 0.31, beta = 0.875 }"))),
            every_10s: None,
        },
        Case {
            name: "src-tfrc",
            covers: "tfrc",
            t: 40.0,
            toml: dumbbell("", "", &format!("{reno1}{}", two_flows("tfrc", "t1", "t2"))),
            every_10s: None,
        },
        Case {
            name: "src-tear",
            covers: "tear",
            t: 40.0,
            toml: dumbbell("", "", &format!("{reno1}{}", two_flows("tear", "t1", "t2"))),
            every_10s: None,
        },
        Case {
            name: "src-voice-smart-link",
            covers: "voice; smart_link (hayden)",
            t: 40.0,
            toml: voice("hayden", ""),
            every_10s: None,
        },
        Case {
            name: "src-voice-mosely",
            covers: "voice; smart_link (mosely, protocol, enqueue rate, record)",
            t: 40.0,
            toml: voice("mosely", "protocol = true\nread_rate = \"enqueue\"\nrecord = true"),
            every_10s: None,
        },
        Case {
            name: "src-voice-jaffe",
            covers: "voice slow start; smart_link (jaffe)",
            t: 40.0,
            toml: voice("jaffe", "").replace("initial_rate = \"4kbps\"", "initial_rate = \"4kbps\", slow_start = true"),
            every_10s: None,
        },
    ]);
    // Elements.
    let el = |kind_lines: &str| format!("{reno3}\n[[elements]]\n{kind_lines}\n");
    v.extend([
        Case { name: "el-counter-flow-stats", covers: "counter, flow_stats", t: 40.0, toml: dumbbell("", "", &el("kind = \"counter\"\nat = \"bottleneck\"\n\n[[elements]]\nkind = \"flow_stats\"\nat = \"r1->r2\"")), every_10s: None },
        Case { name: "el-random-loss", covers: "random_loss (bernoulli, data only)", t: 40.0, toml: dumbbell("", "", &el("kind = \"random_loss\"\nat = \"r1->r2\"\np = 0.01\nonly = \"data\"")), every_10s: None },
        Case {
            name: "el-gilbert-elliott",
            covers: "random_loss (gilbert_elliott)",
            t: 40.0,
            toml: dumbbell("", "", &el("kind = \"random_loss\"\nat = \"r1->r2\"\nmodel = \"gilbert_elliott\"\np_gb = 0.01\np_bg = 0.3\nloss_bad = 0.5")),
            every_10s: None,
        },
        Case { name: "el-beacon", covers: "beacon", t: 40.0, toml: dumbbell("", "", &el("kind = \"beacon\"\nat = \"r1->r2\"\nto = \"d1\"\nperiod = \"10ms\"")), every_10s: None },
        Case { name: "el-capture", covers: "capture (every packet on the bottleneck)", t: 40.0, toml: dumbbell("", "", &el("kind = \"capture\"\nat = \"bottleneck\"\nmax_packets = 100000000")), every_10s: None },
    ]);
    // Measurement, scheduled changes, processing jitter, more flows.
    v.extend([
        Case {
            name: "measure-all",
            covers: "series, delays, windows, phases, intervals",
            t: 40.0,
            toml: dumbbell(
                "",
                "",
                &format!(
                    "{reno3}\n[[phases]]\nname = \"a\"\nstart = \"1s\"\nend = \"20s\"\n\n[measure]\ninterval = \"500ms\"\nseries = [\"w1.cwnd\", \"w1.rtt\", \"w2.outstanding\", \"r1->r2.queue\", \"r1->r2.sojourn\"]\ndelays = true\nwindows = true\n"
                ),
            ),
            every_10s: None,
        },
        Case {
            name: "changes-jitter",
            covers: "scheduled rate and delay changes (every 10 s); processing jitter",
            t: 40.0,
            toml: dumbbell("", "", &reno3).replace("routers = [\"r1\", \"r2\"]", "routers = [\"r1\", \"r2\"]\nprocessing_delay = { r1 = \"100us\" }\nprocessing_jitter = { r2 = \"200us\" }"),
            every_10s: Some(|k| {
                let (rate, delay) = if k % 2 == 0 { ("7Mbps", "30ms") } else { ("10Mbps", "20ms") };
                format!("\n[[changes]]\nat = \"{}s\"\nlink = \"bottleneck\"\nrate = \"{rate}\"\ndelay = \"{delay}\"\n", 10 * k + 5)
            }),
        },
        Case {
            name: "many-reno-fq",
            covers: "30 reno flows (count) through fq",
            t: 20.0,
            toml: dumbbell("", "qdisc = \"fq\"\nrate = \"20Mbps\"", "\n[[flows]]\nname = \"m\"\ncount = 30\nfrom = [\"s1\", \"s2\", \"s3\"]\nto = [\"d1\", \"d2\", \"d3\"]\nstart_jitter = \"1s\"\n"),
            every_10s: None,
        },
    ]);
    v
}

/// Two pairs of Heybey's voice users across the bottleneck (each direction a smart
/// link with `algorithm` and the extra lines), among window flows.
fn voice(algorithm: &str, extra: &str) -> String {
    let users = [
        ("u1", "s1", "d1", "u2", true),
        ("u2", "d1", "s1", "u1", false),
        ("u3", "s2", "d2", "u4", false),
        ("u4", "d2", "s2", "u3", true),
    ];
    let mut s: String = users
        .iter()
        .map(|(n, from, to, partner, active)| {
            format!(
                "\n[[flows]]\nname = \"{n}\"\nkind = \"voice\"\nfrom = \"{from}\"\nto = \"{to}\"\nstart_jitter = \"20ms\"\nvoice = {{ partner = \"{partner}\", starts_active = {active}, initial_rate = \"4kbps\" }}\n"
            )
        })
        .collect();
    s += &window_flows(1, "reno", "").replace("w1", "w").replace("s1", "s3").replace("d1", "d3");
    s += &format!("\n[[elements]]\nkind = \"smart_link\"\nat = \"bottleneck\"\nalgorithm = \"{algorithm}\"\na = 0.55\nupdate = \"20ms\"\n{extra}\n");
    dumbbell("", "", &s)
}
