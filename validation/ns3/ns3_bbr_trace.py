"""Trace ns-3's TcpBbr in a BBR case of families.py (by default "bbr: 1 flow, equal RTT"),
optionally with parts of it made as Linux 4.9 has them (run with this directory's .venv).

    python ns3_bbr_trace.py SEED OUT.txt [--flows N] [--rtt equal|1:3] [--ssthresh shipped|segment]
                            [--loss-log FILE] [--margin X] [--linux-prior] [--linux-ack-interval] [--quantum N]

Writes every millisecond TcpBbr's state (0 STARTUP .. 3 PROBE_RTT), pacing gain, gain-cycle
index, bandwidth estimate (bit/s of payload), min RTT, cwnd and bytes in flight, pacing rate,
the bottleneck's queue (packets), the cwnd target, the TCP congestion state and the saved cwnd
(`m_priorCwnd`) of flow 0, read from the model's private members; prints the run's goodput
(all flows), mean bottleneck sojourn, Jain's index and timeouts as ns3_families.py counts
them. The options (docs/validation.md, BBR):

  --flows N, --rtt R    the case: 1, 2 or 8 flows, equal or 1:3 round-trip times
  --ssthresh S          ns-3's initial ssthresh: `shipped` (2^32 - 1 B, the default here) or
                        `segment` (one segment, as ns3_families.py sets it for BBR)
  --loss-log FILE       every timeout (entry into CA_LOSS, 4) and fast recovery (CA_RECOVERY, 3)
                        of every flow: time, sender node, the state it left (0 open,
                        1 disorder, 2 CWR, 3 recovery) and enters, cwnd, bytes in flight, BBR mode,
                        bytes retransmitted and not acknowledged at the millisecond before
  --margin X            TcpBbr's `m_pacingMargin` (ns-3: 0.01; Linux 4.9 has none: 0)
  --linux-prior         the cwnd saved at a ProbeRTT entry is the cwnd of that moment, as
                        4.9's bbr_save_cwnd (ns-3 keeps 2^32 - 1 there after a recovery)
  --linux-ack-interval  the rate sample's ack phase is measured on every ack (4.9's
                        tcp_rate_gen: now - prior_mstamp); ns-3 keeps the previous ack's
                        when the acked packet has the same delivered snapshot
  --quantum N           the send quantum in the gain cycle's and DRAIN's in-flight targets,
                        packets (ns-3: 1; 4.9: tso_segs_goal, 2 at these rates)
"""

import sys
import time

import ns3_families
from families import PAYLOAD, WIRE, cases

EXTRA = r"""
namespace bbr_trace {
using namespace ns3;
// Access to private members: explicit instantiation may name them (C++ [temp.explicit]).
template <typename Tag, typename Tag::type M> struct Rob { friend typename Tag::type get(Tag) { return M; } };
#define ROB(Tag, Type, Class, Member) \
    struct Tag { typedef Type Class::*type; friend type get(Tag); }; \
    template struct Rob<Tag, &Class::Member>;
ROB(SockTcb, Ptr<TcpSocketState>, TcpSocketBase, m_tcb)
ROB(SockCc, Ptr<TcpCongestionOps>, TcpSocketBase, m_congestionControl)
ROB(SockRate, Ptr<TcpRateOps>, TcpSocketBase, m_rateOps)
ROB(SockTx, Ptr<TcpTxBuffer>, TcpSocketBase, m_txBuffer)
ROB(BState, TcpBbr::BbrMode_t, TcpBbr, m_state)
ROB(BGain, TracedValue<double>, TcpBbr, m_pacingGain)
ROB(BCycle, uint32_t, TcpBbr, m_cycleIndex)
ROB(BFilter, TcpBbr::MaxBandwidthFilter_t, TcpBbr, m_maxBwFilter)
ROB(BMinRtt, TracedValue<Time>, TcpBbr, m_minRtt)
ROB(BMargin, double, TcpBbr, m_pacingMargin)
ROB(BPrior, uint32_t, TcpBbr, m_priorCwnd)
ROB(BTarget, uint32_t, TcpBbr, m_targetCWnd)
ROB(BQuantum, uint32_t, TcpBbr, m_sendQuantum)
ROB(RSample, TcpRateOps::TcpRateSample, TcpRateLinux, m_rateSample)

static double margin = -1;
static bool linuxPrior = false, linuxAck = false;
static uint32_t quantum = 0;

class TcpBbrTrace : public TcpBbr {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("ns3::TcpBbrTrace").SetParent<TcpBbr>().AddConstructor<TcpBbrTrace>();
        return tid;
    }
    TcpBbrTrace() : TcpBbr() {}
    TcpBbrTrace(const TcpBbrTrace& o) : TcpBbr(o) {}
    std::string GetName() const override { return "TcpBbrTrace"; }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<TcpBbrTrace>(this); }
    void CongControl(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override {
        if (margin >= 0) this->*get(BMargin()) = margin;
        // Linux 4.9 saves max(prior_cwnd, cwnd) at a ProbeRTT entry with prior_cwnd no larger
        // than a cwnd it had: forget ns-3's value while cruising, so the entry saves the cwnd
        if (linuxPrior && this->*get(BState()) == BBR_PROBE_BW && tcb->m_congState.Get() == TcpSocketState::CA_OPEN)
            this->*get(BPrior()) = 0;
        TcpBbr::CongControl(tcb, rc, rs);
        // used by the next ack's cycle-phase and DRAIN checks (this ack's cwnd target used 1)
        if (quantum > 0) this->*get(BQuantum()) = quantum * tcb->m_segmentSize;
    }
};

class TcpRateLinuxAck : public TcpRateLinux {
  public:
    const TcpRateSample& GenerateSample(uint32_t delivered, uint32_t lost, bool reneg, uint32_t priorInFlight,
                                        const Time& minRtt) override {
        TcpRateSample& s = this->*get(RSample());
        if (!s.m_priorTime.IsZero()) s.m_ackElapsed = Simulator::Now() - s.m_priorTime;
        return TcpRateLinux::GenerateSample(delivered, lost, reneg, priorInFlight, minRtt);
    }
};

static FILE* out = nullptr;
static uint32_t nflows = 1;
static Ptr<Queue<Packet>> q;
// Each timeout (an entry into CA_LOSS, as ns3_families.py counts them) and each entry into
// fast recovery (CA_RECOVERY), every flow: the time, the sender's node, the state it left and
// the one it enters, cwnd and bytes in flight (before the entry's own changes to them) and
// BBR's mode.
static FILE* lossOut = nullptr;
static std::set<TcpSocketBase*> hooked;
// Bytes retransmitted and not yet acknowledged at each socket's last millisecond sample
// (the timeout clears the sent list's marks before it changes the state).
static std::map<TcpSocketBase*, uint32_t> retxOut;
static void OnLoss(TcpSocketBase* s, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to) {
    if ((to != TcpSocketState::CA_LOSS && to != TcpSocketState::CA_RECOVERY) || from == to || !lossOut) return;
    Ptr<TcpSocketState> tcb = (*s).*get(SockTcb());
    Ptr<TcpBbr> b = DynamicCast<TcpBbr>((*s).*get(SockCc()));
    fprintf(lossOut, "%.6f %u %d %d %u %u %d %u\n", Simulator::Now().GetSeconds(), s->GetNode()->GetId(), int(from), int(to),
            tcb->m_cWnd.Get(), tcb->m_bytesInFlight.Get(), b ? int((*b).*get(BState())) : -1, retxOut[s]);
}
static void Sample() {
    Simulator::Schedule(MilliSeconds(1), &Sample);
    if (lossOut) {
        auto all = Config::LookupMatches("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*");
        for (uint32_t i = 0; i < all.GetN(); i++) {
            Ptr<TcpSocketBase> t = DynamicCast<TcpSocketBase>(all.Get(i));
            if (!t) continue;
            if (hooked.insert(PeekPointer(t)).second)
                t->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnLoss, PeekPointer(t)));
            retxOut[PeekPointer(t)] = ((*t).*get(SockTx()))->GetRetransmitsCount();
        }
    }
    // Every sender's rate sampler swapped in the first millisecond of its connection (its
    // SYN is out, no data yet); the flows start 0-10 ms apart (start jitter).
    if (linuxAck) {
        auto all = Config::LookupMatches("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*");
        for (uint32_t i = 0; i < all.GetN(); i++) {
            Ptr<TcpSocketBase> t = DynamicCast<TcpSocketBase>(all.Get(i));
            if (t && !DynamicCast<TcpRateLinuxAck>((*t).*get(SockRate()))) {
                if (((*t).*get(SockTcb()))->m_highTxMark.Get().GetValue() > 1) {  // sent data already
                    fprintf(stderr, "socket %u not swapped: it sent data before a sample\n", i);
                    continue;
                }
                (*t).*get(SockRate()) = CreateObject<TcpRateLinuxAck>();
            }
        }
    }
    auto m = Config::LookupMatches("/NodeList/0/$ns3::TcpL4Protocol/SocketList/0");
    if (m.GetN() == 0) return;
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(m.Get(0));
    Ptr<TcpSocketState> tcb = (*s).*get(SockTcb());
    Ptr<TcpBbr> b = DynamicCast<TcpBbr>((*s).*get(SockCc()));
    if (!b) return;
    if (!q) {
        Ptr<Node> r1 = NodeList::GetNode(2 * (nflows + 1));
        for (uint32_t i = 0; i < r1->GetNDevices(); i++) {
            Ptr<PointToPointNetDevice> d = DynamicCast<PointToPointNetDevice>(r1->GetDevice(i));
            if (d && d->GetChannel()->GetDevice(1)->GetNode()->GetId() == 2 * (nflows + 1) + 1) q = d->GetQueue();
        }
    }
    Time mr = ((*b).*get(BMinRtt())).Get();
    fprintf(out, "%.4f %d %.4f %u %.0f %.6f %u %u %.0f %u %u %d %u\n", Simulator::Now().GetSeconds(), int((*b).*get(BState())),
            double((*b).*get(BGain())), (*b).*get(BCycle()), double(((*b).*get(BFilter())).GetBest().GetBitRate()),
            mr == Time::Max() ? -1.0 : mr.GetSeconds(), tcb->m_cWnd.Get(), tcb->m_bytesInFlight.Get(),
            double(tcb->m_pacingRate.Get().GetBitRate()), q ? q->GetNPackets() : 0, (*b).*get(BTarget()),
            int(tcb->m_congState.Get()), (*b).*get(BPrior()));
}
void arm(std::string path, uint32_t n, double marg, bool lp, bool la, uint32_t quant, std::string lossPath) {
    TcpBbrTrace::GetTypeId();
    out = fopen(path.c_str(), "w");
    hooked.clear();
    retxOut.clear();
    lossOut = lossPath.empty() ? nullptr : fopen(lossPath.c_str(), "w");
    if (lossOut) fprintf(lossOut, "t node from_state to_state cwnd_B inflight_B bbr_state retx_unacked_B\n");
    fprintf(out, "t state gain cycle bw_bps minrtt_s cwnd_B inflight_B pacing_bps queue_pkts target_B congstate prior_B\n");
    nflows = n; margin = marg; linuxPrior = lp; linuxAck = la; quantum = quant;
    q = nullptr;
    Simulator::Schedule(Seconds(0), &Sample);
}
void disarm() {
    fclose(out);
    if (lossOut) fclose(lossOut);
    lossOut = nullptr;
    q = nullptr;
}
}
"""


def main() -> int:
    args = sys.argv[1:]
    opts = {"--margin": -1.0, "--quantum": 0, "--flows": 1, "--rtt": "equal", "--ssthresh": "shipped", "--loss-log": ""}
    for k in list(opts):
        if k in args:
            i = args.index(k)
            opts[k] = type(opts[k])(args[i + 1])
            del args[i : i + 2]
    lp, la = "--linux-prior" in args, "--linux-ack-interval" in args
    args = [a for a in args if not a.startswith("--")]
    seed, path = int(args[0]), args[1]
    import cppyy
    from ns import ns  # noqa: F401  (loads the ns-3 libraries and headers)

    cppyy.cppdef(ns3_families.CPP)
    cppyy.cppdef(EXTRA)
    if opts["--ssthresh"] not in ("shipped", "segment"):
        sys.exit(f"--ssthresh {opts['--ssthresh']}: give shipped (2^32 - 1 B) or segment (ns3_families.py's)")
    pick = [
        c for c in cases("bbr") if c["flows"] == opts["--flows"] and (c["flows"] == 1 or opts["--rtt"] in c["name"])
    ]
    if not pick:
        sys.exit(
            f"no BBR case with --flows {opts['--flows']} --rtt {opts['--rtt']}; families.py has 1, 2 or 8 flows, equal or 1:3"
        )
    c = pick[0]
    ssthresh = "4294967295" if opts["--ssthresh"] == "shipped" else str(PAYLOAD)
    t1 = time.time()
    cppyy.gbl.bbr_trace.arm(path, c["flows"], opts["--margin"], lp, la, opts["--quantum"], opts["--loss-log"])
    v = list(
        cppyy.gbl.ccsim_families.run(
            c["cc"],
            c["qdisc"],
            c["flows"],
            c["access_ms"],
            c["access_bps"],
            c["rate_bps"],
            c["delay_us"],
            c["last_ms"],
            c["buffer_pkts"],
            0,
            c["cbr_bps"],
            PAYLOAD,
            WIRE,
            c["duration_s"],
            c["warmup_s"],
            c["min_rto_s"],
            seed,
            c["jitter_s"],
            # ns-3 as shipped: its initial ssthresh, which ns3_families.py sets to one
            # segment for BBR (--ssthresh segment; the option --linux-prior's runs are those runs).
            [
                "ns3::TcpL4Protocol::SocketType",
                "ns3::TcpBbrTrace",
                "ns3::TcpSocket::InitialSlowStartThreshold",
                ssthresh,
            ],
        )
    )
    cppyy.gbl.bbr_trace.disarm()
    n = c["flows"]
    g = v[:n]
    jain = sum(g) ** 2 / (n * sum(x * x for x in g)) if any(g) else 0.0
    print(
        f"ns-3 {c['name']}, seed {seed} {' '.join(sys.argv[3:])}: goodput {sum(g):.4f} Mbps, sojourn {1e3 * v[n + 1]:.3f} ms, "
        f"Jain {jain:.3f}, timeouts {int(v[n + 4])}, per flow {' '.join(f'{x:.3f}' for x in g)} Mbps, {time.time() - t1:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
