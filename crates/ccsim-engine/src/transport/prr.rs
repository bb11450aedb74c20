//! Proportional Rate Reduction (PRR; RFC 9937, which obsoletes RFC 6937), in whole
//! packets: how many packets SACK recovery may send on each ack (`sack_recovery =
//! "prr"`; the window sender's `sack_send`). Linux recovers this way (`tcp_cwnd_reduction`).
//!
//! RFC 6675 alone sends whenever the pipe is below cwnd: after the cut to ssthresh it
//! sends nothing until half a window of acks has drained the pipe, then one packet per
//! ack. PRR spreads the reduction over the recovery instead: while the pipe is above
//! ssthresh it sends `ssthresh / RecoverFS` packets per packet delivered (section 4,
//! the proportional part); once the pipe is at or below ssthresh it lets the pipe grow
//! back towards ssthresh no faster than packet conservation (the conservative
//! reduction bound, PRR-CRB), or one packet faster on an ack that advances SND.UNA
//! and shows no further loss (the slow-start reduction bound, PRR-SSRB, RFC 9937's
//! `safeACK`).
//!
//! - `RecoverFS` is the flight size when recovery starts, less what the receiver had
//!   already SACKed (RFC 9937 section 4: SND.NXT - SND.UNA - SACKed, taken before the ack
//!   that starts recovery), at least 1. Linux uses the window before the cut
//!   (`prior_cwnd`) instead; the RFC's value is the one named here.
//! - `DeliveredData` is the packets an ack newly delivers: the advance of SND.UNA plus
//!   the change in the number SACKed (the two together never negative).
//! - An ack that delivers nothing sends nothing (RFC 9937 section 6.2), except that the
//!   first computation of a recovery sends at least one packet: the fast retransmission
//!   (`prr_out` = 0).
//! - safeACK: the ack advanced SND.UNA and lost-retransmission detection found nothing
//!   new on it (Linux 4.9 asks the same: retransmitted data acknowledged, no
//!   retransmission marked lost).
//!
//! Deviations: SACK recovery only (RFC 9937's estimate of DeliveredData without SACK,
//! one packet per duplicate ack, is not used); an ECN reduction cuts the window at once
//! rather than by PRR (Linux reduces by PRR in its CWR state too).

/// PRR's state over one recovery episode (packets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// `prr_delivered`: packets delivered since recovery started.
    delivered: u32,
    /// `prr_out`: packets sent since recovery started (retransmissions included).
    out: u32,
    /// `RecoverFS`.
    recover_fs: u32,
}

impl Prr {
    /// A recovery starts with `recover_fs` packets in flight not yet SACKed.
    pub fn start(recover_fs: u32) -> Prr {
        Prr { delivered: 0, out: 0, recover_fs: recover_fs.max(1) }
    }

    /// `sndcnt` for an ack that newly delivered `delivered` packets, after which the pipe
    /// (RFC 6675 SetPipe) is `pipe`; `ssthresh` is the window the policy cut to, and
    /// `safe` is RFC 9937's safeACK. The caller sends at most that many packets and
    /// reports them with `sent`.
    pub fn on_ack(&mut self, delivered: u32, pipe: u32, ssthresh: u32, safe: bool) -> u32 {
        self.delivered += delivered;
        let out = self.out as u64;
        let mut sndcnt = if delivered == 0 {
            0
        } else if pipe > ssthresh {
            // CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
            let fs = self.recover_fs as u64;
            ((self.delivered as u64 * ssthresh as u64).div_ceil(fs)).saturating_sub(out)
        } else {
            let mut limit = (self.delivered as u64).saturating_sub(out).max(delivered as u64);
            if safe {
                limit += 1;
            }
            limit.min((ssthresh - pipe) as u64)
        };
        if self.out == 0 {
            // The fast retransmission goes out with the ack that starts recovery.
            sndcnt = sndcnt.max(1);
        }
        sndcnt.min(u32::MAX as u64) as u32
    }

    /// `n` packets left (`prr_out += n`).
    pub fn sent(&mut self, n: u32) {
        self.out += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_loss_in_twenty_sends_on_every_other_ack_while_the_pipe_is_above_ssthresh() {
        // 20 packets in flight, one lost, the policy cuts to ssthresh = 10: RecoverFS =
        // 20. Each ack SACKs one packet (delivered 1) and the pipe stays above 10.
        let mut p = Prr::start(20);
        // The ack that starts recovery: CEIL(1 * 10 / 20) - 0 = 1 (the fast
        // retransmission).
        assert_eq!(p.on_ack(1, 16, 10, false), 1);
        p.sent(1);
        assert_eq!(p.on_ack(1, 16, 10, false), 0); // CEIL(2 * 10 / 20) - 1 = 0
        assert_eq!(p.on_ack(1, 15, 10, false), 1); // CEIL(3 * 10 / 20) - 1 = 1
        p.sent(1);
        assert_eq!(p.on_ack(1, 15, 10, false), 0); // CEIL(4 * 10 / 20) - 2 = 0
        assert_eq!(p.on_ack(1, 14, 10, false), 1); // CEIL(5 * 10 / 20) - 2 = 1
        p.sent(1);
        // An ack that delivers nothing sends nothing.
        assert_eq!(p.on_ack(0, 14, 10, false), 0);
        // Two delivered at once: CEIL(7 * 10 / 20) - 3 = 1.
        assert_eq!(p.on_ack(2, 13, 10, false), 1);
    }

    #[test]
    fn at_or_below_ssthresh_the_bound_is_conservation_or_one_more_on_a_safe_ack() {
        let mut p = Prr::start(10);
        p.sent(4);
        // prr_delivered 2 after this ack, prr_out 4: MAX(2 - 4, 2) = 2 (CRB), and the
        // pipe 3 is 2 below ssthresh 5: MIN(2, 2) = 2.
        assert_eq!(p.on_ack(2, 3, 5, false), 2);
        p.sent(2);
        // prr_delivered 5, prr_out 6: MAX(5 - 6, 3) = 3, + 1 on a safe ack (SSRB) = 4;
        // the pipe 0 leaves 5 below ssthresh: 4.
        assert_eq!(p.on_ack(3, 0, 5, true), 4);
        p.sent(4);
        // prr_delivered 6, prr_out 10: MAX(-4, 1) = 1, SSRB 2, but the pipe 4 is only 1
        // below ssthresh 5: 1.
        assert_eq!(p.on_ack(1, 4, 5, true), 1);
        // At ssthresh: nothing.
        assert_eq!(p.on_ack(1, 5, 5, true), 0);
    }

    #[test]
    fn the_first_ack_sends_the_fast_retransmission_even_when_the_share_rounds_to_zero() {
        // RecoverFS 0 (everything in flight was SACKed) is taken as 1; a share of 0
        // (ssthresh 0 is not reachable from a policy, which keeps at least one packet,
        // but the rule holds for any) still sends the retransmission.
        let mut p = Prr::start(0);
        assert_eq!(p.on_ack(1, 5, 0, false), 1);
        let mut p = Prr::start(40);
        // CEIL(1 * 2 / 40) = 1 anyway; with nothing delivered it is the forced 1.
        assert_eq!(p.on_ack(0, 30, 2, false), 1);
        p.sent(1);
        assert_eq!(p.on_ack(0, 30, 2, false), 0);
    }
}
