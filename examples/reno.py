"""Reno in Python: the built-in ``reno`` (crates/ccsim-engine/src/cc/reno.rs) line for
line, RFC 5681 section 3 with RFC 6582's partial acks and RFC 6675's pipe, in whole
segments of the flow's data size. A flow with ``cc = "reno:Reno"`` gets bit-identical
results to ``cc = "reno"`` (tests/test_pycc.py holds it to that).

Run it: ``ccsim run scenarios/keshav-s1.toml --set 'defaults.cc="reno:Reno"'`` from
this directory, or see docs/python-cc.md.
"""

from ccsim import CongestionControl


class Reno(CongestionControl):
    def __init__(self, flow, initial_window=1, initial_ssthresh=None, ssthresh_rule="rfc5681"):
        self.mss = flow.mss
        self.max = flow.max_window * flow.mss
        self.cwnd = min(initial_window * self.mss, self.max)
        self.ssthresh = (initial_ssthresh or flow.max_window) * self.mss
        self.rule = ssthresh_rule
        self.recovering = False
        self.pipe = False

    def on_ack(self, s):
        if self.recovering:
            if s.recovery == "partial":
                # RFC 6582 section 3.2 step 5: deflate by the data acknowledged, add one
                # segment back.
                if not self.pipe:
                    acked = s.acked_pkts * self.mss
                    self.cwnd = max(self.cwnd - acked, self.mss) + (self.mss if acked >= self.mss else 0)
                return
            self.cwnd = self.ssthresh
            self.recovering = False
        elif self.cwnd > self.ssthresh:
            # Congestion avoidance, 4.3BSD's integer step: mss*mss/cwnd per ack.
            self.cwnd = min(self.cwnd + max(self.mss * self.mss // self.cwnd, 1), self.max)
        else:
            self.cwnd = min(self.cwnd + self.mss, self.max)  # slow start

    def on_dup_ack(self, now):
        if self.recovering and not self.pipe:
            self.cwnd += self.mss  # RFC 5681 step 4: inflate per duplicate ack

    def on_congestion(self, s):
        self.ssthresh = self._ssthresh(s)
        if s.cause == "fast_retransmit":
            self.pipe = s.pipe
            extra = 0 if s.pipe else s.dupack_threshold * self.mss
            self.cwnd = self.ssthresh + extra
            self.recovering = True
        elif s.cause == "ecn":
            self.cwnd = self.ssthresh
        else:  # timeout
            self.cwnd = self.mss
            self.recovering = False

    def _ssthresh(self, s):
        if self.rule == "bsd":
            return max(min(self.cwnd, self.max) // 2 // self.mss, 2) * self.mss
        # RFC 5681 equation 4 in whole segments; a timeout inside recovery keeps the
        # lower value, a repeated timeout leaves it.
        eq4 = max(s.in_flight_pkts // 2, 2) * self.mss
        if s.cause == "timeout" and s.rto_repeat:
            return self.ssthresh
        if s.cause == "timeout" and self.recovering:
            return min(self.ssthresh, eq4)
        return eq4


class NewReno(Reno):
    """The built-in ``newreno``: Reno's window rules with RFC 6582's recovery (the
    transport retransmits each hole on a partial ack)."""

    recovery = "newreno"
