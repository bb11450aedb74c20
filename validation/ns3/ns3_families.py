"""Run one case family of families.py in ns-3, every case with every seed (run with this
directory's .venv, which has the `ns3` PyPI package).

    python ns3_families.py FAMILY out/ns3-FAMILY.json [SEEDS] [--only TEXT] [ns3::Class::Attribute=VALUE ...]

--only runs the cases whose name contains TEXT; the attribute settings override the
defaults of every run (a model-difference check, e.g. ns3::TcpCubic::TcpFriendliness=false).
"""

from __future__ import annotations

import json
import sys
import time

from families import PAYLOAD, SEEDS, WIRE, cases

CPP = r"""
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <string>
#include <unordered_map>
#include <vector>

namespace ccsim_families {
using namespace ns3;

static std::unordered_map<uint64_t, int64_t> arrivals;  // packet uid -> arrival at r1 (ps)
static double warmup = 0, sojournSum = 0;
static uint64_t sojournN = 0;
static double qdSum = 0;
static uint64_t qdN = 0;
static std::vector<Ptr<PacketSink>> sinks;
static std::vector<uint64_t> rxAtWarmup;

static void OnR1Rx(Ptr<const Packet> p) { arrivals[p->GetUid()] = Simulator::Now().GetPicoSeconds(); }
static void OnTxBegin(Ptr<const Packet> p) {
    auto it = arrivals.find(p->GetUid());
    if (it == arrivals.end()) return;
    if (Simulator::Now().GetSeconds() >= warmup) {
        sojournSum += (Simulator::Now().GetPicoSeconds() - it->second) * 1e-12;
        sojournN++;
    }
    arrivals.erase(it);
}
// The queue disc's own sojourn (enqueue to its dequeue into the device queue)
static void OnQdSojourn(Time t) {
    if (Simulator::Now().GetSeconds() >= warmup) {
        qdSum += t.GetSeconds();
        qdN++;
    }
}
// Timeouts of every TCP sender: entering CA_LOSS
static uint64_t timeouts = 0;
static void OnCong(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to) {
    if (to == TcpSocketState::CA_LOSS && from != to) timeouts++;
}
static void HookSockets() {
    Config::ConnectWithoutContext("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongState", MakeCallback(&OnCong));
}
static void Snapshot() {
    for (size_t i = 0; i < sinks.size(); i++) rxAtWarmup[i] = sinks[i]->GetTotalRx();
}

// Returns goodput (Mbps over [warmup, secs]) of each TCP flow, then of the CBR flow (0 if
// none; UDP payload), then the mean bottleneck sojourn (s), the number of packets in it,
// the queue disc's own mean sojourn (s; 0 without one) and the senders' timeouts from
// `jitter` on (entries into CA_LOSS).
std::vector<double> run(std::string cc, std::string qdisc, uint32_t n, std::vector<double> accessMs,
                        double accessBps, double rateBps, double delayUs, double lastMs, uint32_t bufferPkts,
                        uint32_t kPkts, double cbrBps, uint32_t payload, uint32_t wire, double secs, double warm,
                        double minRto, uint32_t seed, double jitter, std::vector<std::string> overrides) {
    arrivals.clear();
    sojournSum = 0;
    sojournN = 0;
    qdSum = 0;
    qdN = 0;
    timeouts = 0;
    warmup = warm;
    sinks.clear();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    if (cc == "cubic") {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpCubic::GetTypeId()));
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
        Config::SetDefault("ns3::TcpCubic::FastConvergence", BooleanValue(true));
        Config::SetDefault("ns3::TcpCubic::TcpFriendliness", BooleanValue(true));
        Config::SetDefault("ns3::TcpCubic::Beta", DoubleValue(0.7));
        Config::SetDefault("ns3::TcpCubic::C", DoubleValue(0.4));
    } else if (cc == "dctcp") {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpDctcp::GetTypeId()));
        Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(0.0625));
        Config::SetDefault("ns3::TcpDctcp::DctcpAlphaOnInit", DoubleValue(1.0));
    } else if (cc == "bbr") {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpBbr::GetTypeId()));
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
        // Leaving recovery, TcpSocketBase sets cwnd = ssthresh, and TcpBbr keeps the
        // initial ssthresh (2^32 - 1 bytes) until it first leaves STARTUP: such a flow is
        // then bounded by pacing alone. Linux 4.9 leaves cwnd alone when ssthresh is
        // infinite (tcp_end_cwnd_reduction) and BBR restores its prior cwnd. One
        // segment here makes ns-3's cwnd after recovery max(prior cwnd, ssthresh), that
        // prior cwnd (docs/validation.md, BBR).
        Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(payload));
    }
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue(cc == "dctcp" ? "On" : "Off"));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(payload));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    // FQ-CoDel's per-queue CoDel compares its own queue's bytes with MinBytes; Linux the
    // whole discipline's backlog with the MTU. 1 byte: no drop from a queue left empty.
    Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(qdisc == "fq_codel" ? 1 : 1500));
    for (size_t i = 0; i + 1 < overrides.size(); i += 2) Config::SetDefault(overrides[i], StringValue(overrides[i + 1]));

    NodeContainer senders, receivers, routers;
    senders.Create(n + 1);  // the last one sends the CBR
    receivers.Create(n + 1);
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper bottle;
    bottle.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(rateBps))));
    bottle.SetChannelAttribute("Delay", TimeValue(NanoSeconds(int64_t(delayUs * 1000))));
    // With a queue disc the device keeps one packet beside the one in transmission, so
    // the discipline holds the queue; without one the device queue is the bottleneck's.
    uint32_t devPkts = qdisc == "none" ? bufferPkts : 1;
    bottle.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, devPkts)));
    NetDeviceContainer core = bottle.Install(routers.Get(0), routers.Get(1));
    NetDeviceContainer edge;
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(core);
    std::vector<Ipv4Address> dst;
    for (uint32_t i = 0; i <= n; i++) {
        PointToPointHelper access;
        access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(accessBps))));
        access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 10000)));
        double a = i < n ? accessMs[i] : 1.0;
        access.SetChannelAttribute("Delay", TimeValue(NanoSeconds(int64_t(a * 1e6))));
        NetDeviceContainer da = access.Install(senders.Get(i), routers.Get(0));
        access.SetChannelAttribute("Delay", TimeValue(NanoSeconds(int64_t(lastMs * 1e6))));
        NetDeviceContainer db = access.Install(routers.Get(1), receivers.Get(i));
        edge.Add(da);
        edge.Add(db);
        da.Get(1)->TraceConnectWithoutContext("MacRx", MakeCallback(&OnR1Rx));
        std::ostringstream s1, s2;
        s1 << "10.1." << i << ".0";
        s2 << "10.2." << i << ".0";
        addr.SetBase(s1.str().c_str(), "255.255.255.0");
        addr.Assign(da);
        addr.SetBase(s2.str().c_str(), "255.255.255.0");
        dst.push_back(addr.Assign(db).GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    TrafficControlHelper none;
    none.Uninstall(edge);
    none.Uninstall(core);
    if (qdisc != "none") {
        QueueSizeValue limit(QueueSize(QueueSizeUnit::PACKETS, bufferPkts));
        TrafficControlHelper tch;
        if (qdisc == "codel") {
            tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", limit, "MinBytes", UintegerValue(1514),
                                 "Target", StringValue("5ms"), "Interval", StringValue("100ms"), "UseEcn", BooleanValue(false));
        } else if (qdisc == "fq_codel") {
            tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", limit, "Target", StringValue("5ms"),
                                 "Interval", StringValue("100ms"), "Flows", UintegerValue(1024),
                                 "DropBatchSize", UintegerValue(64), "UseEcn", BooleanValue(true));
        } else if (qdisc == "pie") {
            tch.SetRootQueueDisc("ns3::PieQueueDisc", "MaxSize", limit, "MeanPktSize", UintegerValue(1514),
                                 "QueueDelayReference", TimeValue(MilliSeconds(15)), "Tupdate", TimeValue(MilliSeconds(15)),
                                 "A", DoubleValue(0.125), "B", DoubleValue(1.25),
                                 "MaxBurstAllowance", TimeValue(MilliSeconds(150)), "UseDerandomization", BooleanValue(true),
                                 "UseCapDropAdjustment", BooleanValue(true), "UseEcn", BooleanValue(false));
        } else if (qdisc == "red_step") {
            // Gentle off: a step at K (ns-3's default Gentle marks above MaxTh with a
            // probability rising from 1/LInterm at MaxTh to 1 at 2 MaxTh)
            tch.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", limit, "MinTh", DoubleValue(kPkts), "MaxTh", DoubleValue(kPkts),
                                 "QW", DoubleValue(1.0), "Gentle", BooleanValue(false), "UseEcn", BooleanValue(true),
                                 "UseHardDrop", BooleanValue(false),
                                 "MeanPktSize", UintegerValue(wire), "LinkBandwidth", DataRateValue(DataRate(uint64_t(rateBps))),
                                 "LinkDelay", TimeValue(NanoSeconds(int64_t(delayUs * 1000))));
        } else {
            NS_FATAL_ERROR("unknown qdisc " << qdisc);
        }
        QueueDiscContainer qd = tch.Install(core.Get(0));
        // FQ-CoDel's quantum is no attribute: ns-3 takes the device MTU (1500 B) unless set
        if (qdisc == "fq_codel") DynamicCast<FqCoDelQueueDisc>(qd.Get(0))->SetQuantum(1514);
        qd.Get(0)->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnQdSojourn));
    }
    core.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxBegin));

    // A fixed stream: the start times depend on the run number (the seed) alone, not on
    // how many random variables earlier runs of this process created.
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(0);
    for (uint32_t i = 0; i < n; i++) {
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(dst[i], 9000 + i));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(payload));
        src.Install(senders.Get(i)).Start(Seconds(u->GetValue(0, jitter)));
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9000 + i));
        ApplicationContainer s = sink.Install(receivers.Get(i));
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
    }
    if (cbrBps > 0) {
        uint32_t udpPayload = wire - 30;  // PPP 2, IPv4 20, UDP 8
        OnOffHelper cbr("ns3::UdpSocketFactory", InetSocketAddress(dst[n], 7000));
        cbr.SetConstantRate(DataRate(uint64_t(cbrBps * udpPayload / wire)), udpPayload);
        cbr.Install(senders.Get(n)).Start(Seconds(0));
        PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 7000));
        ApplicationContainer s = sink.Install(receivers.Get(n));
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
    }
    rxAtWarmup.assign(sinks.size(), 0);
    Simulator::Schedule(Seconds(warm), &Snapshot);
    Simulator::Schedule(Seconds(jitter), &HookSockets);  // every sender's socket exists by then
    Simulator::Stop(Seconds(secs));
    Simulator::Run();
    std::vector<double> out;
    for (size_t i = 0; i < sinks.size(); i++)
        out.push_back((sinks[i]->GetTotalRx() - rxAtWarmup[i]) * 8.0 / (secs - warm) / 1e6);
    if (cbrBps <= 0) out.push_back(0);
    out.push_back(sojournN ? sojournSum / sojournN : 0);
    out.push_back(double(sojournN));
    out.push_back(qdN ? qdSum / qdN : 0);
    out.push_back(double(timeouts));
    sinks.clear();
    Simulator::Destroy();
    return out;
}
}  // namespace ccsim_families
"""


def main() -> int:
    args = sys.argv[1:]
    only = ""
    if "--only" in args:
        k = args.index("--only")
        only = args[k + 1]
        del args[k : k + 2]
    sets = [a for a in args if "=" in a]
    args = [a for a in args if "=" not in a]
    family, path = args[0], args[1]
    seeds = SEEDS[: int(args[2]) if len(args) > 2 else 5]
    overrides = [x for a in sets for x in a.split("=", 1)]
    t0 = time.time()
    import cppyy
    from ns import ns  # noqa: F401  (loads the ns-3 libraries and headers)

    cppyy.cppdef(CPP)
    run = cppyy.gbl.ccsim_families.run
    print(f"ns-3: loaded in {time.time() - t0:.0f} s", file=sys.stderr)
    out = {}
    for c in cases(family):
        if only not in c["name"]:
            continue
        runs = []
        for seed in seeds:
            t1 = time.time()
            v = list(
                run(c["cc"], c["qdisc"], c["flows"], c["access_ms"], c["access_bps"], c["rate_bps"], c["delay_us"], c["last_ms"],
                    c["buffer_pkts"], c.get("k_pkts", 0), c["cbr_bps"], PAYLOAD, WIRE, c["duration_s"], c["warmup_s"],
                    c["min_rto_s"], seed, c["jitter_s"], overrides)
            )
            n = c["flows"]
            # ns-3's CBR goodput counts UDP payload (wire - 30 B); scaled to wire bits as ccsim's
            runs.append({"seed": seed, "goodput_mbps": v[:n], "cbr_mbps": v[n] * WIRE / (WIRE - 30), "sojourn_s": v[n + 1],
                         "sojourn_pkts": int(v[n + 2]), "qdisc_sojourn_s": v[n + 3], "timeouts": int(v[n + 4]), "wall_s": time.time() - t1})
            print(f"ns-3: {c['name']} seed {seed}: {sum(v[:n]):.3f} Mbps, sojourn {1e3 * v[n + 1]:.3f} ms, {time.time() - t1:.1f} s",
                  file=sys.stderr)
        out[c["name"]] = {**c, "overrides": sets, "runs": runs}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
    print(f"ns-3: {family}: {len(out)} cases x {len(seeds)} seeds in {time.time() - t0:.0f} s -> {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
