"""Run the dumbbell cases in ns-3 (run with this directory's .venv, which has the `ns3`
PyPI package). The scenario is C++ compiled by cppyy, so tracing needs no Python
callbacks."""

from __future__ import annotations

import json
import sys
import time

from cases import ACCESS_BPS, DELAY_MS, DURATION_S, PAYLOAD, RATE_BPS, WARMUP_S, cases, sawtooth_period

CPP = r"""
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <vector>

namespace ccsim_validation {
using namespace ns3;

struct Probe {
    double lastT = 0, lastQ = 0, area = 0;
    uint64_t drops = 0;
    std::vector<double> lossTimes;
    bool ssSeen = false;
};
static Probe g;

static void OnQueue(uint32_t, uint32_t now) {
    double t = Simulator::Now().GetSeconds();
    g.area += g.lastQ * (t - g.lastT);
    g.lastT = t;
    g.lastQ = now;
}
static void OnDrop(Ptr<const Packet>) { g.drops++; }
// Without a queue disc a full device queue is "stopped" and the traffic-control layer
// drops the packet before it reaches the device, so the queue's own Drop trace stays
// silent. Drops are counted by conservation instead: data packets r1 receives from the
// senders minus data packets the bottleneck queue accepts (r1 forwards at once).
static uint64_t r1DataRx = 0, bottleneckEnq = 0;
static void OnR1Rx(Ptr<const Packet> p) { if (p->GetSize() > 200) r1DataRx++; }
static void OnEnqueue(Ptr<const Packet> p) { if (p->GetSize() > 200) bottleneckEnq++; }
// A loss event of flow 0: it enters fast recovery or the timeout (loss) state.
static void OnState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to) {
    bool loss = to == TcpSocketState::CA_RECOVERY || to == TcpSocketState::CA_LOSS;
    if (loss && from != to) g.lossTimes.push_back(Simulator::Now().GetSeconds());
}
static void Hook(uint32_t node) {
    std::ostringstream path;
    path << "/NodeList/" << node << "/$ns3::TcpL4Protocol/SocketList/0/CongState";
    Config::ConnectWithoutContext(path.str(), MakeCallback(&OnState));
}

// Returns goodput (Mbps) per flow, then drops, mean queue (packets), then the times of
// flow 0's loss events (entering fast recovery or a timeout).
std::vector<double> run(uint32_t n, std::vector<double> accessMs, uint32_t bufferPkts, bool sack,
                        double rateBps, double delayMs, double accessBps, uint32_t payload, double secs) {
    g = Probe();
    r1DataRx = bottleneckEnq = 0;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(payload));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1.0)));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));

    NodeContainer senders, receivers, routers;
    senders.Create(n);
    receivers.Create(n);
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();
    TrafficControlHelper tch;  // for Uninstall: no queue disc anywhere

    PointToPointHelper bottle;
    bottle.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(rateBps))));
    bottle.SetChannelAttribute("Delay", TimeValue(MilliSeconds(delayMs)));
    bottle.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, bufferPkts)));
    NetDeviceContainer core = bottle.Install(routers.Get(0), routers.Get(1));
    NetDeviceContainer all;  // every device: its queue disc goes after addressing
    all.Add(core);

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(core);
    std::vector<Ipv4Address> dst;
    for (uint32_t i = 0; i < n; i++) {
        PointToPointHelper access;
        access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(accessBps))));
        access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 10000)));
        access.SetChannelAttribute("Delay", TimeValue(MicroSeconds(int64_t(accessMs[i] * 1000))));
        NetDeviceContainer a = access.Install(senders.Get(i), routers.Get(0));
        access.SetChannelAttribute("Delay", TimeValue(MilliSeconds(1)));
        NetDeviceContainer b = access.Install(routers.Get(1), receivers.Get(i));
        all.Add(a);
        all.Add(b);
        a.Get(1)->TraceConnectWithoutContext("MacRx", MakeCallback(&OnR1Rx));
        std::ostringstream s1, s2;
        s1 << "10.1." << i << ".0";
        s2 << "10.2." << i << ".0";
        addr.SetBase(s1.str().c_str(), "255.255.255.0");
        addr.Assign(a);
        addr.SetBase(s2.str().c_str(), "255.255.255.0");
        dst.push_back(addr.Assign(b).GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    tch.Uninstall(all);  // Assign installed the default queue disc; no queue disc at all

    Ptr<Queue<Packet>> q = DynamicCast<PointToPointNetDevice>(core.Get(0))->GetQueue();
    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueue));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
    q->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));

    ApplicationContainer sinks;
    for (uint32_t i = 0; i < n; i++) {
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(dst[i], 9000 + i));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(payload));
        src.Install(senders.Get(i)).Start(Seconds(0));
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9000 + i));
        sinks.Add(sink.Install(receivers.Get(i)));
    }
    sinks.Start(Seconds(0));
    Simulator::Schedule(MicroSeconds(1), &Hook, senders.Get(0)->GetId());
    Simulator::Stop(Seconds(secs));
    Simulator::Run();
    OnQueue(0, g.lastQ);  // close the integral at the end
    std::vector<double> out;
    for (uint32_t i = 0; i < n; i++)
        out.push_back(DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx() * 8.0 / secs / 1e6);
    out.push_back(double(g.drops + (r1DataRx - bottleneckEnq)));
    out.push_back(g.area / secs);
    for (double t : g.lossTimes) out.push_back(t);
    Simulator::Destroy();
    return out;
}
}  // namespace ccsim_validation
"""


def main() -> int:
    t0 = time.time()
    import cppyy
    from ns import ns  # noqa: F401  (loads the ns-3 libraries and headers)

    cppyy.cppdef(CPP)
    run = cppyy.gbl.ccsim_validation.run
    out = {}
    for c in cases():
        v = list(run(c["flows"], c["access_ms"], c["buffer_pkts"], c["sack"], RATE_BPS, DELAY_MS, ACCESS_BPS, PAYLOAD, DURATION_S))
        n = c["flows"]
        times = v[n + 2 :]
        after = [t for t in times if t >= WARMUP_S]
        out[c["name"]] = {
            **c,
            "goodput_mbps": v[:n],
            "drops": int(v[n]),
            "queue_mean_pkts": v[n + 1],
            "loss_events_f0": times,
            "period_s": sawtooth_period(len(after)),
        }
        print(f"ns-3: {c['name']}: {sum(v[:n]):.3f} Mbps", file=sys.stderr)
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
    print(f"ns-3: {len(out)} cases in {time.time() - t0:.0f} s -> {sys.argv[1]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
