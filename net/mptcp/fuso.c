// SPDX-License-Identifier: GPL-2.0
/* Multipath TCP: FUSO proactive multi-path loss recovery.
 *
 * The design is in the DOC: sections below, which
 * Documentation/networking/mptcp-fuso.rst includes.
 */

/**
 * DOC: FUSO overview
 *
 * FUSO ("Fast and Cautious", Chen et al., USENIX ATC'16) turns the path
 * diversity of an MPTCP connection into fast loss recovery for short flows.
 *
 * A short flow that loses its last segments has no later data to produce
 * duplicate ACKs, so its TCP subflow can only recover them with a tail loss
 * probe (2 RTT + 200 ms when one segment is out) or a retransmission
 * timeout.  In a data centre either is tens of RTTs, and it is what sets
 * the 99th percentile of flow completion time.
 *
 * The sender ranks subflows by their loss metric::
 *
 *   C_l = alpha * overall_loss_rate + beta * last_loss_rate
 *
 *   overall_loss_rate = retransmitted / sent
 *   last_loss_rate    = 1 / sent_since_rtx
 *
 * where "sent" counts data segments (``tcp_sock.data_segs_out``),
 * "retransmitted" is ``tcp_sock.total_retrans``, and ``sent_since_rtx``
 * counts the segments sent since, and including, the last retransmission;
 * when the last retransmission happened is sampled on each ACK and each
 * round.  alpha and beta are ``net.mptcp.fuso_alpha`` and
 * ``net.mptcp.fuso_beta``, in percent.  C_l is Q16 fixed point.  A subflow
 * that never retransmitted scores 0; one that never sent scores infinity.
 * Ties are broken by RTT (srtt): the largest RTT is the worst, the smallest
 * the best.
 *
 * Everything is off unless ``net.mptcp.fuso`` enables it in the network
 * namespace (or the ``MPTCP_FUSO`` socket option on the connection).  The
 * knobs ``net.mptcp.fuso``, ``fuso_alpha``, ``fuso_beta`` and
 * ``fuso_rules`` are documented in
 * Documentation/networking/mptcp-sysctl.rst.  Counters are the
 * ``MPTcpExtFuso*`` entries of ``/proc/net/netstat``; each copy also fires
 * the ``mptcp:mptcp_fuso_recovery`` tracepoint.
 */

/**
 * DOC: FUSO sender
 *
 * The sender (``net.mptcp.fuso`` bit 0) acts only when the connection has
 * no new data to send and some subflow still has congestion window to
 * spare.  "No new data" means, as in the paper (Algorithm 1, line 2), that
 * everything the application wrote has been *sent*: the last ``sendmsg()``
 * handed over all of it (no ``MSG_MORE``, not corked), all of it was given
 * to a subflow, and no active subflow holds any of it unsent in its write
 * queue.  That window would otherwise go unused, so FUSO spends it on
 * copies of data that may have been lost.
 *
 * Upstream's default scheduler hands a subflow up to 64 KB whatever its
 * window, so the last condition can come one or more round trips after the
 * application's last write; MPTCP v0.90, the paper's base, handed out new
 * data only as far as each subflow's window had room.
 *
 * Two triggers check for this state:
 *
 * T1
 *   The end of ``mptcp_sendmsg()``, once the last byte is pushed; the
 *   round runs right away.  With ``TARGETED`` (see "FUSO rules"), not
 *   for the third and later of messages that each began within the
 *   smallest subflow RTT of the last write (a message ends with a write
 *   without ``MSG_MORE``, or ``TCP_CORK`` cleared): such a writer
 *   streams, and T2 serves it on the next ACK.
 * T2
 *   Every DATA_ACK that changed the subflow's cwnd or in-flight count, or
 *   showed a data-level hole below a copy (see ``TARGETED`` in "FUSO
 *   rules"), in ``ack_update_msk()``: IPv4 and IPv6, softirq or socket
 *   backlog.  T2 holds the subflow lock and the msk data lock, and a round
 *   needs other subflows' locks, so T2 only flags work:
 *   ``MPTCP_FUSO_ROUND`` in ``cb_flags`` when the msk is owned (run by
 *   ``mptcp_release_cb()``, from ``release_sock()`` of the MPTCP socket),
 *   else ``MPTCP_WORK_FUSO`` and the msk worker.  Either way the round
 *   runs in process context.
 *
 * One round (``mptcp_fuso_try_send_recoveries()``, msk owned) repeats:
 *
 * 1. Score every subflow with the loss metric C_l (see "FUSO overview").
 * 2. The *worst* subflow has sent data that is neither ACKed nor SACKed
 *    nor yet protected, and has the largest (C_l, srtt).
 * 3. The *best* subflow can take a copy now: it is active, not in loss
 *    recovery (``CA_Loss``, or retransmitting), has nothing queued, has
 *    spare cwnd and receive window, is a backup only if no other subflow
 *    is active (as for new data), and has the smallest (C_l, srtt).  A
 *    subflow that never sent data is the last choice; if all are like
 *    that, one is picked at random.  Best and worst may be the same
 *    subflow: a copy on the same path still makes TCP detect the loss
 *    (RACK) long before a timer would.  The rule ``CLEAN_PATH`` changes
 *    this choice (see "FUSO rules").
 * 4. Copy the worst subflow's oldest such segment, the oldest unprotected
 *    bytes of its retransmit queue, at most one MSS of the best subflow,
 *    onto the best subflow.  The original's DSS mapping gives the data
 *    sequence numbers of those bytes, and the copy carries them in its own
 *    DSS mapping, so the receiver takes whichever arrives first and drops
 *    the other as a duplicate.  For the best subflow the copy is *new
 *    data*: a new subflow sequence number, under its cwnd, retransmitted
 *    by its own TCP if lost, not counted in ``total_retrans`` nor in
 *    ``MPTcpExtMPTCPRetrans``.  It is marked (``mptcp_ext.fuso``) so that
 *    it is never protected itself; so is data the MPTCP level sends again
 *    (``__mptcp_retrans()``, or a closed subflow's data pushed onto
 *    another: anything below ``snd_nxt``), which would otherwise be
 *    copied as an original, a third transmission of the same DSN.
 *
 * Protect once: each subflow keeps a watermark (``fuso_prot_seq``) in its
 * own sequence space; bytes below it were protected (or needed no
 * protection: SACKed, or already acknowledged at the data level).  A
 * victim is taken at the watermark and the watermark moves past it, so
 * every original is protected at most once and a round's work is bounded
 * by the data in flight.
 *
 * Round limits: at most ``MPTCP_FUSO_MAX_COPIES`` (64) copies per round,
 * ``MPTCP_FUSO_BATCH`` (8) per (worst, best) lock pair, and
 * ``MPTCP_FUSO_MAX_SUBFLOWS`` (16) subflows considered.  A round also
 * stops when no subflow can take a copy, or when nothing is left to
 * protect; in the last case it records ``snd_nxt``, so that T2 stays quiet,
 * a few loads and compares, until new data is sent, evidence of a loss
 * comes for data that waits for it, or (a tail waiting for another
 * carrier) another subflow's ACK.  In a bulk transfer there is always new
 * data, so T2 exits on its first tests.
 */

/**
 * DOC: FUSO rules
 *
 * The sender above is the paper's, ``net.mptcp.fuso_rules=0``.  Each bit
 * of ``net.mptcp.fuso_rules`` adds a rule beyond the paper; the default,
 * 118, enables all five.  The values 1 and 8 are accepted and do nothing:
 * they were ``CAUTIOUS`` (no copy onto a subflow that cut its window within
 * its last RTT) and ``PROTECT_RTX`` (copy each retransmission once more).
 * Taken out one at a time, on conditions neither was tuned on, neither
 * helped, and ``CAUTIOUS`` made the tail and an ECN incast slower:
 * congestion control already bounds a copy to spare window.
 *
 * ``TARGETED`` (2)
 *   copy at once only what no later ACK can show to be lost: each
 *   subflow's tail, its last MSS of original data, once per ``snd_nxt``;
 *   a tail whose copy went onto its own subflow, where a loss burst
 *   takes original and copy alike, is copied once more when another
 *   subflow ranks first as its carrier: the ACKs of other subflows wake
 *   a round for it, those of its own subflow do not (they would only
 *   find that subflow first again).
 *   Copy the rest only on evidence of a loss (``mptcp_fuso_evident()``):
 *   TCP marked the segment lost (RACK, SACK scoreboard), the peer SACKed
 *   later data of the same subflow, or a copy of later data was
 *   acknowledged on its subflow while the data-level ACK stayed below the
 *   segment.  All three arrive with ACKs, no timer: these copies are
 *   ACK-clocked, and data waiting for evidence keeps T2 awake.
 * ``CLEAN_PATH`` (4)
 *   a subflow that never carried data ranks, as a carrier, right after
 *   those without a loss and before every one with a loss; so does the
 *   worst subflow (the victim's) if it never lost anything, and on equal
 *   rank a subflow other than the victim's wins.  For the paper a
 *   never-used subflow is the last choice (C_l is infinite): with a
 *   scheduler that keeps to one subflow, or a client whose requests each
 *   fit in one segment, the clean path never gets a copy and the copies go
 *   back onto the victim's path, where a burst takes them with the
 *   originals.
 * ``SCHED_CAUTIOUS`` (16)
 *   a rule of the ``window`` scheduler, not of the sender (sched.c): after
 *   an ECN echo a connection backs off as one flow, which keeps an incast
 *   of up to 50 senders at TCP's mean in the FUSO benchmark (with 70, see
 *   ``SPREAD_TIMERS``); for a response's first MB only, so that a bulk
 *   transfer over disjoint bottlenecks keeps every path.
 * ``LAST_TAIL`` (32, with ``TARGETED``)
 *   of the subflows' tails, copy at once only the one that carries the
 *   end of the data sent (``mptcp_fuso_tail_ends_data()``).  The other
 *   tails lie below it in the data sequence space: when its ACK, or its
 *   copy's, comes while the data-level ACK stays below, that hole is the
 *   evidence that copies them, one RTT later.  The push that hands a
 *   subflow the end records it there (``mptcp_fuso_data_end()``), so
 *   that its ACK shows the hole even if no round ran before it.  A
 *   response spread over two subflows costs one copy instead of two.
 * ``SPREAD_TIMERS`` (64)
 *   not a copy rule either (protocol.c, "FUSO spread timers"): a flight
 *   that new data starts on an idle subflow has its first timer (loss
 *   probe or RTO) moved to a random point up to twice as far, at most one
 *   minimum RTO later, so that the subflows whose small first flights an
 *   incast drops whole do not all retransmit in the same tick.
 *
 * Every copy is an extra segment on the wire.  With the paper's rules
 * nearly every tail segment is copied once at low load; the paper measured
 * 40 % extra bytes at low load, falling as load rises because spare cwnd
 * disappears.  ``TARGETED`` and ``LAST_TAIL`` together cut the copies from
 * about a third of the bytes to about 5 % in the FUSO benchmark, with the
 * same tail (Documentation/benchmark.md in the FUSO repository, "Which
 * rules earn their place").
 */

/**
 * DOC: FUSO safety
 *
 * FUSO does nothing on a connection that fell back to TCP, or during the
 * data-level recovery that follows a subflow close, and sends no copy on a
 * subflow that cannot send (closing, stale, MP_FAIL or infinite mapping
 * pending).  It decides to transmit under ``msk->fallback_lock``, as the
 * data-level retransmission (``__mptcp_retrans()``) does, and never touches
 * the data-level retransmit timer, ``snd_nxt`` or the send queue.  It holds
 * one subflow lock at a time, under the msk socket lock, and keeps no
 * subflow or skb pointer across a lock drop.
 *
 * Fallback and checksums
 *   A copy puts data on the wire twice, so once FUSO sent one, the
 *   connection can no longer fall back to an infinite mapping (RFC 8684
 *   3.7), exactly as after a data-level retransmission.  So FUSO waits
 *   until the peer has confirmed MPTCP (the connection is *fully
 *   established*: the client has seen a DATA_ACK, the server the third
 *   ACK or data with MP_CAPABLE).  Before, a client could copy its first
 *   request while the third ACK of the handshake was lost; the server then
 *   fell back to TCP, the client could not follow when plain TCP data
 *   arrived, and reset the connection (``MPTcpExtFallbackFailed``, and
 *   ``ENOTCONN`` in the application): the benchmark saw it in 2 of 16
 *   seeds of one condition.  Without DSS checksums (the default) that is
 *   all: the first response on a new connection is protected too, before
 *   any additional subflow joins.  With checksums
 *   (``net.mptcp.checksum_enabled=1``), where graceful MP_FAIL fallback
 *   matters, FUSO keeps that fallback possible and waits until a second
 *   subflow joined or a data-level retransmission happened, either of
 *   which gave it up already.
 */

#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <net/net_namespace.h>
#include <net/tcp.h>
#include <kunit/visibility.h>

#include "protocol.h"
#include "mib.h"
#include "fuso.h"
#include <trace/events/mptcp.h>

/* Guards the sender's hooks in sendmsg, TCP_CORK and the ACK path;
 * mptcp_fuso_enable_keys() (ctrl.c) switches it on, for good, the first
 * time a namespace or a socket enables the sender.  Until then a kernel
 * with FUSO built in runs a NOP per sendmsg and per ACK.
 */
DEFINE_STATIC_KEY_FALSE(mptcp_fuso_tx_key);

/* ---- pure parts: the loss metric, the choice of subflows, the watermark */

/**
 * mptcp_fuso_cost - the loss metric C_l of a subflow, Q16
 * @segs: data segments sent (tcp_sock.data_segs_out)
 * @rtx: segments retransmitted (tcp_sock.total_retrans)
 * @segs_at_rtx: @segs just before the last retransmission
 * @alpha: weight of the overall loss rate, percent
 * @beta: weight of the last loss rate, percent
 *
 * Return: MPTCP_FUSO_INF if nothing was sent, 0 if nothing was
 * retransmitted, else alpha * rtx / segs + beta / (segs - segs_at_rtx),
 * each rate capped at 1, so the result is at most 2 * MPTCP_FUSO_ONE.
 */
VISIBLE_IF_KUNIT u32 mptcp_fuso_cost(u32 segs, u32 rtx, u32 segs_at_rtx,
				     u8 alpha, u8 beta)
{
	u32 overall, last, since;

	if (!segs)
		return MPTCP_FUSO_INF;
	if (!rtx)
		return 0;

	overall = min_t(u64, MPTCP_FUSO_ONE,
			div_u64((u64)rtx << MPTCP_FUSO_SHIFT, segs));
	since = segs - segs_at_rtx;	/* wraps with the counters */
	last = MPTCP_FUSO_ONE / max(since, 1U);

	alpha = min_t(u8, alpha, MPTCP_FUSO_WEIGHT_MAX);
	beta = min_t(u8, beta, MPTCP_FUSO_WEIGHT_MAX);
	return (alpha * overall + beta * last) / MPTCP_FUSO_WEIGHT_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_cost);

/* > 0 if @a is worse than @b: higher C_l, then higher RTT */
static int mptcp_fuso_cmp(const struct mptcp_fuso_cand *a,
			  const struct mptcp_fuso_cand *b)
{
	if (a->cost != b->cost)
		return a->cost > b->cost ? 1 : -1;
	if (a->srtt_us != b->srtt_us)
		return a->srtt_us > b->srtt_us ? 1 : -1;
	return 0;
}

/**
 * mptcp_fuso_pick_worst - the subflow whose data a copy protects
 * @c: candidates
 * @n: number of candidates
 *
 * Return: the index of the worst_ok candidate with the largest (C_l, srtt),
 * the first one on a full tie, or -1 if none is worst_ok.
 */
VISIBLE_IF_KUNIT int mptcp_fuso_pick_worst(const struct mptcp_fuso_cand *c,
					   int n)
{
	int i, w = -1;

	for (i = 0; i < n; i++) {
		if (!c[i].worst_ok)
			continue;
		if (w < 0 || mptcp_fuso_cmp(&c[i], &c[w]) > 0)
			w = i;
	}
	return w;
}
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_pick_worst);

/* The rank of a subflow as a carrier of copies: C_l, except that with
 * MPTCP_FUSO_RULE_CLEAN_PATH a subflow that never sent ranks right after
 * those that never lost anything and ahead of every one that did, and so
 * does the @victim's own subflow if it never lost anything: a copy on the
 * victim's path shares the victim's fate, a loss burst takes both.  For
 * the paper a never-sent subflow is the last choice (C_l is infinite), so
 * with a scheduler that keeps to one subflow, or a client whose requests
 * each fit in one segment, a clean idle path never carries a copy and the
 * copies go back onto the victim's path.
 */
static u32 mptcp_fuso_best_rank(u32 cost, u8 rules, bool victim)
{
	if (!(rules & MPTCP_FUSO_RULE_CLEAN_PATH))
		return cost;
	if (!cost)
		return victim ? 1 : 0;
	if (cost == MPTCP_FUSO_INF)
		return 1;
	return cost + 1;	/* cost <= 2 * MPTCP_FUSO_ONE */
}

/* > 0 if @i is a worse carrier than @j */
static int mptcp_fuso_best_cmp(const struct mptcp_fuso_cand *c, int i, int j,
			       u8 rules, int w)
{
	bool iw = i == w, jw = j == w;
	u32 ri = mptcp_fuso_best_rank(c[i].cost, rules, iw);
	u32 rj = mptcp_fuso_best_rank(c[j].cost, rules, jw);

	if (ri != rj)
		return ri > rj ? 1 : -1;
	/* on a tie, not back onto the path that holds the victim */
	if ((rules & MPTCP_FUSO_RULE_CLEAN_PATH) && iw != jw)
		return iw ? 1 : -1;
	if (c[i].srtt_us != c[j].srtt_us)
		return c[i].srtt_us > c[j].srtt_us ? 1 : -1;
	return 0;
}

/**
 * mptcp_fuso_pick_best - the subflow that carries a copy
 * @c: candidates
 * @n: number of candidates
 * @rnd: a random number, used when no candidate ever sent data
 * @rules: the connection's net.mptcp.fuso_rules
 * @w: the index of the worst candidate, whose data the copy protects
 *
 * Backup subflows are considered only if no other candidate is active, the
 * rule of mptcp_subflow_get_send(): a non-backup subflow that is active but
 * cannot take a copy now (in loss recovery after its link failed, say)
 * keeps the copy off the backups.
 * Among those considered, the one with the smallest (C_l, srtt) wins, the
 * first on a full tie; never-sent subflows (MPTCP_FUSO_INF) come last, and
 * if every one considered never sent, @rnd picks one.  With
 * MPTCP_FUSO_RULE_CLEAN_PATH, see mptcp_fuso_best_rank(), and on equal rank
 * a subflow other than @w wins.
 *
 * Return: the index of the chosen candidate, or -1 if none is best_ok.
 */
VISIBLE_IF_KUNIT int mptcp_fuso_pick_best(const struct mptcp_fuso_cand *c,
					  int n, u32 rnd, u8 rules, int w)
{
	int pass, passes = 2, i, b, cnt;

	for (i = 0; i < n; i++)
		if (c[i].active && !c[i].backup)
			passes = 1;

	for (pass = 0; pass < passes; pass++) {
		bool backup = pass;

		b = -1;
		cnt = 0;
		for (i = 0; i < n; i++) {
			if (!c[i].best_ok || c[i].backup != backup)
				continue;
			cnt += c[i].cost == MPTCP_FUSO_INF;
			if (b < 0 || mptcp_fuso_best_cmp(c, i, b, rules, w) < 0)
				b = i;
		}
		if (b < 0)
			continue;
		if (c[b].cost != MPTCP_FUSO_INF)
			return b;

		/* the best never sent anything, nor did those it ties with:
		 * pick one of them at random
		 */
		cnt = rnd % cnt;
		for (i = 0; i < n; i++) {
			if (!c[i].best_ok || c[i].backup != backup ||
			    c[i].cost != MPTCP_FUSO_INF)
				continue;
			if (!cnt--)
				return i;
		}
	}
	return -1;
}
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_pick_best);

/**
 * mptcp_fuso_next_slice - the next piece of a sent skb to protect
 * @snd_una: the subflow's snd_una
 * @snd_nxt: the subflow's snd_nxt
 * @prot_seq: the subflow's protection watermark; advanced past the slice
 * @seq: first sequence number of the skb's payload
 * @end: @seq + payload length
 * @map_seq: absolute subflow sequence number where the skb's DSS mapping
 *	starts
 * @map_len: payload bytes in that mapping (DATA_FIN not counted)
 * @mss: the largest slice wanted
 * @off: out: offset of the slice from @map_seq
 * @len: out: length of the slice
 *
 * Bytes below the watermark were protected already; a watermark outside
 * [@snd_una, @snd_nxt] (stale, or wrapped) counts as @snd_una.  All
 * comparisons are modulo 2^32.
 *
 * Return: true and a non-empty slice [@map_seq + @off, + @len) inside both
 * the skb and its mapping, or false if nothing of the skb is left to protect
 * or the skb is not inside its mapping.
 */
VISIBLE_IF_KUNIT bool mptcp_fuso_next_slice(u32 snd_una, u32 snd_nxt,
					    u32 *prot_seq, u32 seq, u32 end,
					    u32 map_seq, u32 map_len, u32 mss,
					    u32 *off, u32 *len)
{
	u32 s = *prot_seq;

	if (before(s, snd_una) || after(s, snd_nxt))
		s = snd_una;
	if (before(s, seq))
		s = seq;
	if (!before(s, end) || !mss)
		return false;

	*off = s - map_seq;
	if (*off >= map_len)
		return false;
	*len = min3(end - s, map_len - *off, mss);
	*prot_seq = s + *len;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_next_slice);

/**
 * mptcp_fuso_evident - may a copy protect this segment now
 * @rules: the connection's net.mptcp.fuso_rules
 * @sacked: the segment's TCP_SKB_CB()->sacked
 * @seq: the first subflow sequence number not protected yet
 * @hs: tcp_highest_sack_seq() of the segment's subflow
 * @dsn: the data sequence number of @seq
 * @hole: msk->fuso_hole_dsn if it lies in (msk->snd_una, msk->snd_nxt],
 *	else msk->snd_una
 *
 * For the paper every un-acknowledged segment is copied as soon as there is
 * room.  With MPTCP_FUSO_RULE_TARGETED a segment that is not its subflow's
 * tail (see mptcp_fuso_collect()) is copied only on evidence that it was
 * lost: TCP marked it lost (RACK or the SACK scoreboard), the peer SACKed
 * later data of the same subflow, or a copy of later data reached the peer
 * on another subflow while the data-level ACK stayed below @dsn.  All three
 * come with ACKs, so targeted copies are ACK-clocked: no timer.
 *
 * Return: true if the segment may be copied now.
 */
VISIBLE_IF_KUNIT bool mptcp_fuso_evident(u8 rules, u8 sacked, u32 seq, u32 hs,
					 u64 dsn, u64 hole)
{
	if (!(rules & MPTCP_FUSO_RULE_TARGETED))
		return true;
	return (sacked & TCPCB_LOST) || before(seq, hs) || before64(dsn, hole);
}
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_evident);

/* msk->fuso_hole_dsn counts only inside (@una, @nxt]: DSNs compare modulo
 * 2^64, so a stale value, or the initial 0, is "after" any DSN in the
 * upper half of the space and "before" any in the lower half.
 */
static bool mptcp_fuso_hole_valid(u64 hole, u64 una, u64 nxt)
{
	return after64(hole, una) && !after64(hole, nxt);
}

/**
 * mptcp_fuso_hole_raise - does an acknowledged copy show a data-level hole
 * @hole: msk->fuso_hole_dsn
 * @una: msk->snd_una
 * @nxt: msk->snd_nxt
 * @dsn: the end of the copies that the subflow ACK just covered
 *
 * The copies reached the peer; if the data-level ACK is still below
 * their end, the data below them that is not acknowledged may be lost
 * (see mptcp_fuso_evident()).
 *
 * Return: true if @dsn should become msk->fuso_hole_dsn.
 */
VISIBLE_IF_KUNIT bool mptcp_fuso_hole_raise(u64 hole, u64 una, u64 nxt,
					    u64 dsn)
{
	if (!after64(dsn, una) || after64(dsn, nxt))
		return false;
	return !mptcp_fuso_hole_valid(hole, una, nxt) || after64(dsn, hole);
}
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_hole_raise);

/**
 * mptcp_fuso_tail_ends_data - does a subflow's tail carry the data's end
 * @dend: the data sequence number just past the tail's payload
 * @snd_nxt: msk->snd_nxt
 * @fin: mptcp_data_fin_enabled(): @snd_nxt counts a DATA_FIN, and the
 *	payload ends one before
 *
 * MPTCP_FUSO_RULE_LAST_TAIL: only the tail that carries the end of the
 * data sent is copied at once.  The tails of the other subflows lie below
 * it, so when its ACK (or its copy's) comes and the data-level ACK stays
 * below, that hole is the evidence that copies them (mptcp_fuso_evident(),
 * mptcp_fuso_data_end()).
 *
 * Return: true if the tail is copied at once.
 */
VISIBLE_IF_KUNIT bool mptcp_fuso_tail_ends_data(u64 dend, u64 snd_nxt,
						bool fin)
{
	return !before64(dend + fin, snd_nxt);
}
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_tail_ends_data);

/* ---- the sender */

struct mptcp_fuso_victim {
	u64	dsn;
	u16	len;
};

/* A new connection's state, and the namespace's knobs as they are now
 * (as for checksums); a mode set with MPTCP_FUSO stays.
 */
static void mptcp_fuso_reset(struct sock *sk)
{
	struct mptcp_sock *msk = mptcp_sk(sk);
	const struct net *net = sock_net(sk);

	if (!msk->fuso_mode_set)
		WRITE_ONCE(msk->fuso_mode, mptcp_fuso_mode(net));
	msk->fuso_alpha = mptcp_fuso_alpha(net);
	msk->fuso_beta = mptcp_fuso_beta(net);
	msk->fuso_rules = mptcp_fuso_rules(net);
	WRITE_ONCE(msk->fuso_copies, 0);
	WRITE_ONCE(msk->fuso_copy_bytes, 0);
	WRITE_ONCE(msk->fuso_app_idle, false);
	msk->fuso_idle_snd_nxt = 0;
	msk->fuso_wait_ev = false;
	msk->fuso_hole_dsn = 0;
	msk->fuso_quick = 0;
	msk->fuso_write_us = 0;
}

void mptcp_fuso_init_sock(struct sock *sk)
{
	mptcp_sk(sk)->fuso_mode_set = false;
	mptcp_fuso_reset(sk);
}

/* mptcp_disconnect(): the socket may connect again, as a new connection,
 * whose MPTCP_INFO must not count the copies of the old one
 */
void mptcp_fuso_disconnect(struct sock *sk)
{
	msk_owned_by_me(mptcp_sk(sk));
	mptcp_fuso_reset(sk);
}

/* An accepted connection takes its listener's MPTCP_FUSO, if one was set,
 * instead of the namespace's mode.  The listener's lock is not held here
 * (nsk is its copy, locked): setsockopt() may change the value meanwhile,
 * the connection gets the old or the new one.
 */
void mptcp_fuso_clone(struct sock *nsk, const struct sock *listener)
{
	const struct mptcp_sock *lmsk = mptcp_sk(listener);
	struct mptcp_sock *msk = mptcp_sk(nsk);

	if (READ_ONCE(lmsk->fuso_mode_set)) {
		msk->fuso_mode = READ_ONCE(lmsk->fuso_mode);
		msk->fuso_mode_set = true;
	}
}

/* setsockopt(SOL_MPTCP, MPTCP_FUSO): this connection's mode, any value
 * net.mptcp.fuso takes, in place of the namespace's; on a listener, also
 * that of the connections it accepts from now on.  It takes effect at once:
 * the hooks read the mode locklessly, and a sender switched on mid-response
 * protects what it sends next.
 */
int mptcp_fuso_set_mode(struct mptcp_sock *msk, int mode)
{
	struct sock *sk = (struct sock *)msk;

	if (mode < 0 || mode > MPTCP_FUSO_MODE_MASK)
		return -EINVAL;

	mptcp_fuso_enable_keys(mode);
	lock_sock(sk);
	WRITE_ONCE(msk->fuso_mode, mode);
	WRITE_ONCE(msk->fuso_mode_set, true);
	release_sock(sk);
	return 0;
}

int mptcp_fuso_get_mode(const struct mptcp_sock *msk)
{
	return READ_ONCE(msk->fuso_mode);
}

/* MPTCP_INFO and the diag interface (ss -M), with or without the msk lock */
void mptcp_fuso_fill_info(const struct mptcp_sock *msk,
			  struct mptcp_info *info)
{
	info->mptcpi_fuso_mode = READ_ONCE(msk->fuso_mode);
	info->mptcpi_fuso_copies = READ_ONCE(msk->fuso_copies);
	info->mptcpi_fuso_copy_bytes = READ_ONCE(msk->fuso_copy_bytes);
}

/* Note when the subflow retransmitted last.  TCP keeps no such record, so
 * every ACK samples total_retrans (__mptcp_fuso_ack_event()), under the
 * subflow lock, the only writer; the error is the number of segments sent
 * between a retransmission and the next ACK, at most one flight.
 */
static void mptcp_fuso_sample_rtx(struct mptcp_subflow_context *subflow,
				  struct sock *ssk)
{
	const struct tcp_sock *tp = tcp_sk(ssk);

	sock_owned_by_me(ssk);
	if (tp->total_retrans != subflow->fuso_rtx_seen) {
		WRITE_ONCE(subflow->fuso_rtx_seen, tp->total_retrans);
		WRITE_ONCE(subflow->fuso_segs_at_rtx, tp->data_segs_out - 1);
	}
}

/* C_l of a subflow; lockless, from the counters and the last sample.  A
 * retransmission that no ACK has sampled yet counts as the last segment.
 */
static u32 mptcp_fuso_subflow_cost(const struct mptcp_sock *msk,
				   struct mptcp_subflow_context *subflow)
{
	const struct tcp_sock *tp = tcp_sk(mptcp_subflow_tcp_sock(subflow));
	u32 segs = READ_ONCE(tp->data_segs_out);
	u32 rtx = READ_ONCE(tp->total_retrans);
	u32 at_rtx = READ_ONCE(subflow->fuso_segs_at_rtx);

	if (rtx != READ_ONCE(subflow->fuso_rtx_seen))
		at_rtx = segs - 1;
	return mptcp_fuso_cost(segs, rtx, at_rtx, msk->fuso_alpha,
			       msk->fuso_beta);
}

/**
 * mptcp_fuso_snd_cwnd - the congestion window @ssk will send new data with
 * @ssk: a subflow; its lock need not be held (the answer is then a
 *	heuristic, and a caller under the lock gets the exact one)
 *
 * TCP restarts the window of a subflow idle for more than an RTO when the
 * first new skb is queued (tcp_slow_start_after_idle_check()), to at most
 * its initial window.  Before that, tcp_snd_cwnd() still holds the window
 * from before the idle time: scheduling new data or copies against it
 * would give one subflow, say, a whole response that it then sends over
 * several round trips while the other subflows' windows stay unused.
 *
 * Return: the restart's lower bound, min(cwnd, initial window), for such a
 * subflow, and tcp_snd_cwnd() otherwise.
 */
u32 mptcp_fuso_snd_cwnd(const struct sock *ssk)
{
	const struct inet_connection_sock *icsk = inet_csk(ssk);
	const struct tcp_sock *tp = tcp_sk(ssk);
	u32 cwnd, init;
	s32 idle;

	/* racy without the subflow lock: a heuristic there, as above */
	cwnd = data_race(tcp_snd_cwnd(tp));
	if (!READ_ONCE(sock_net(ssk)->ipv4.sysctl_tcp_slow_start_after_idle))
		return cwnd;
	/* racy, as above */
	if (data_race(tp->packets_out))
		return cwnd;
	/* racy, as above; the ops themselves live as long as the socket */
	if (data_race(icsk->icsk_ca_ops)->cong_control)
		return cwnd;
	/* racy, as above */
	idle = tcp_jiffies32 - data_race(tp->lsndtime);
	/* racy, as above */
	if (idle <= (s32)data_race(icsk->icsk_rto))
		return cwnd;
	rcu_read_lock();
	init = tcp_init_cwnd(tp, __sk_dst_get(ssk));
	rcu_read_unlock();
	return min(cwnd, init);
}
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_snd_cwnd);

/* Can @ssk take a copy now?  Lockless, a heuristic for choosing the best
 * subflow: mptcp_fuso_best_ok_locked() decides.  *@quota gets the free
 * congestion window in segments.
 */
static bool mptcp_fuso_best_may(struct mptcp_subflow_context *subflow,
				u32 *quota)
{
	struct sock *ssk = mptcp_subflow_tcp_sock(subflow);
	const struct inet_connection_sock *icsk = inet_csk(ssk);
	const struct tcp_sock *tp = tcp_sk(ssk);
	u32 in_flight, cwnd;

	if (!mptcp_subflow_active(subflow) || !__tcp_can_send(ssk))
		return false;
	/* racy reads without the subflow lock: rechecked under it */
	if (data_race(subflow->send_infinite_map || subflow->send_mp_fail))
		return false;
	/* racy, as above */
	if (data_race((u8)icsk->icsk_ca_state) == TCP_CA_Loss ||
	    READ_ONCE(icsk->icsk_retransmits))
		return false;
	if (test_bit(TSQ_THROTTLED, &ssk->sk_tsq_flags) ||
	    !sk_stream_memory_free(ssk))
		return false;

	/* everything handed to it is on the wire: a copy never waits
	 * (racy, as above)
	 */
	if (data_race(tcp_send_head(ssk)))
		return false;

	/* racy, as above */
	in_flight = data_race(tcp_packets_in_flight(tp));
	cwnd = mptcp_fuso_snd_cwnd(ssk);
	if (in_flight >= cwnd)
		return false;
	*quota = cwnd - in_flight;
	return true;
}

/* Can @ssk take a copy of @len bytes now?  The same tests as
 * mptcp_fuso_best_may(), now exact, and the peer's receive window.
 */
static bool mptcp_fuso_best_ok_locked(struct mptcp_subflow_context *subflow,
				      u32 len)
{
	struct sock *ssk = mptcp_subflow_tcp_sock(subflow);
	const struct tcp_sock *tp = tcp_sk(ssk);
	u32 quota;

	sock_owned_by_me(ssk);
	if (!mptcp_fuso_best_may(subflow, &quota))
		return false;
	return !after(tp->write_seq + len, tcp_wnd_end(tp));
}

static bool mptcp_fuso_worst_ok(struct mptcp_subflow_context *subflow)
{
	struct sock *ssk = mptcp_subflow_tcp_sock(subflow);
	const struct tcp_sock *tp = tcp_sk(ssk);
	u32 una = READ_ONCE(tp->snd_una);
	u32 nxt = READ_ONCE(tp->snd_nxt);
	u32 prot = READ_ONCE(subflow->fuso_prot_seq);

	/* a heuristic: mptcp_fuso_collect() rechecks under the lock */
	if (inet_sk_state_load(ssk) == TCP_CLOSE || data_race((u8)subflow->closing))
		return false;
	/* a watermark outside [una, nxt] is stale and counts as una */
	if (before(prot, una) || after(prot, nxt))
		prot = una;
	return before(prot, nxt);
}

/* Common conditions for a round and for the ACK-path trigger. */
static bool mptcp_fuso_may_run(const struct mptcp_sock *msk)
{
	const struct sock *sk = (const struct sock *)msk;

	if (!(READ_ONCE(msk->fuso_mode) & MPTCP_FUSO_TX) ||
	    !READ_ONCE(msk->fuso_app_idle))
		return false;
	if (READ_ONCE(msk->first_pending) || READ_ONCE(msk->recovery))
		return false;
	if (__mptcp_check_fallback(msk))
		return false;
	/* A copy puts a DSN on the wire twice, so the connection can no longer
	 * fall back to an infinite mapping; mptcp_fuso_xmit() gives that up as
	 * __mptcp_retrans() does.  Not before the peer confirmed MPTCP: if the
	 * third ACK of the MP_CAPABLE handshake is lost, the server falls back
	 * to TCP, and the client must follow when plain TCP data arrives
	 * (check_fully_established()); after a copy it cannot, and resets the
	 * connection.  With checksums, keep graceful MP_FAIL fallback possible
	 * too: wait for a join or a data-level retransmission.
	 */
	if (!READ_ONCE(msk->fully_established))
		return false;
	if (READ_ONCE(msk->csum_enabled) &&
	    READ_ONCE(msk->allow_infinite_fallback))
		return false;
	/* data may be outstanding in these states, FIN or not */
	if (!((1 << inet_sk_state_load(sk)) &
	      (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT | TCPF_FIN_WAIT1 |
	       TCPF_CLOSING | TCPF_LAST_ACK)))
		return false;
	return READ_ONCE(msk->snd_una) != READ_ONCE(msk->snd_nxt);
}

/* A subflow watermark outside [snd_una, snd_nxt] is stale (or never set)
 * and counts as snd_una.
 */
static u32 mptcp_fuso_mark(u32 mark, const struct tcp_sock *tp)
{
	if (before(mark, tp->snd_una) || after(mark, tp->snd_nxt))
		return tp->snd_una;
	return mark;
}

/* Add victims from [@seq, @end) of an skb mapped by @ext at @map_seq,
 * from *@mark on, each at most @mss bytes, to @v[@n..@max).  Data that is
 * acknowledged at the data level already needs no copy.
 * Return: the new number of victims; *@mark is past what was taken.
 */
static int mptcp_fuso_take(const struct tcp_sock *tp,
			   const struct mptcp_ext *ext, u32 map_seq,
			   u32 *mark, u32 seq, u32 end, u32 mss, u64 msk_una,
			   struct mptcp_fuso_victim *v, int n, int max)
{
	u32 off, len;

	while (n < max &&
	       mptcp_fuso_next_slice(tp->snd_una, tp->snd_nxt, mark, seq, end,
				     map_seq, ext->data_len - ext->data_fin,
				     mss, &off, &len)) {
		u64 dsn = ext->data_seq + off;

		if (!after64(dsn + len, msk_una))
			continue;
		v[n].dsn = dsn;
		v[n].len = len;
		n++;
	}
	return n;
}

/* The mapping of an skb FUSO may copy, or NULL */
static const struct mptcp_ext *mptcp_fuso_orig_ext(const struct sk_buff *skb)
{
	const struct mptcp_ext *ext;

	if (!skb->len || (TCP_SKB_CB(skb)->tcp_flags & TCPHDR_SYN) ||
	    (TCP_SKB_CB(skb)->sacked & TCPCB_SACKED_ACKED))
		return NULL;
	ext = mptcp_get_ext(skb);
	if (!ext || !ext->use_map || ext->infinite_map || ext->fuso)
		return NULL;
	return ext;
}

/* The tail copied onto @subflow itself is not acknowledged yet: it waits
 * for another subflow to carry a second copy.  Under the subflow lock.
 */
static bool mptcp_fuso_tail_waits(const struct mptcp_subflow_context *subflow,
				  const struct tcp_sock *tp)
{
	return subflow->fuso_tail_self &&
	       after(subflow->fuso_tail_end, tp->snd_una);
}

/* MPTCP_FUSO_RULE_TARGETED: the subflow's last segment, which no later ACK
 * can show to be lost, is copied at once, once per snd_nxt.  It is the last
 * MSS of the last original not SACKed; what of it lies below the watermark
 * was protected already.
 *
 * A tail copied onto its own subflow (@self: no other subflow could take
 * it then) follows the original on the same path, where a loss burst
 * takes both, and no ACK of that subflow can reveal the loss of the last
 * segment in flight.  Such a tail is copied once more, when another
 * subflow can carry it: at most two copies per tail.
 */
static int mptcp_fuso_take_tail(struct mptcp_subflow_context *subflow,
				struct sock *ssk, u32 prot, u32 mss,
				u64 msk_una, u64 msk_nxt, bool fin, u8 rules,
				bool self, bool *carrier,
				struct mptcp_fuso_victim *v, int n, int max)
{
	struct tcp_sock *tp = tcp_sk(ssk);
	bool again = subflow->fuso_tail_valid && subflow->fuso_tail_self;
	struct sk_buff *skb;

	if (subflow->fuso_tail_valid && subflow->fuso_tail_nxt == tp->snd_nxt &&
	    (!again || self))
		goto out;

	for (skb = tcp_rtx_queue_tail(ssk); skb; skb = skb_rb_prev(skb)) {
		u32 seq = TCP_SKB_CB(skb)->seq, end = seq + skb->len;
		const struct mptcp_ext *ext;
		u32 start, map_seq;
		bool copied;

		if (!after(end, prot))
			break;
		ext = mptcp_get_ext(skb);
		if (ext && ext->fuso)
			continue;
		/* the last original arrived */
		if (TCP_SKB_CB(skb)->sacked & TCPCB_SACKED_ACKED) {
			subflow->fuso_tail_self = 0;
			break;
		}
		ext = mptcp_fuso_orig_ext(skb);
		if (!ext)
			continue;

		start = end - min(end - seq, tp->mss_cache);
		if (before(start, prot))
			start = prot;
		map_seq = subflow->fuso_isn + ext->subflow_seq;
		copied = subflow->fuso_tail_valid &&
			 !before(start, subflow->fuso_tail_seq) &&
			 !after(end, subflow->fuso_tail_end);
		/* another subflow carries the data's end: when its ACK
		 * comes (mptcp_fuso_data_end()), a hole below shows this
		 * tail lost.  Not for the second copy of a tail whose first
		 * went onto its own subflow.
		 */
		if ((rules & MPTCP_FUSO_RULE_LAST_TAIL) &&
		    !(copied && again && !self) &&
		    !mptcp_fuso_tail_ends_data(ext->data_seq + (end - map_seq),
					       msk_nxt, fin))
			break;
		/* copied already: a copy onto this very subflow moved
		 * snd_nxt; again only from there onto another subflow
		 */
		if (copied && (!again || self))
			break;
		subflow->fuso_tail_seq = start;
		subflow->fuso_tail_self = self;
		n = mptcp_fuso_take(tp, ext, map_seq, &start, seq, end, mss,
				    msk_una, v, n, max);
		subflow->fuso_tail_end = start;
		break;
	}
	subflow->fuso_tail_nxt = tp->snd_nxt;
	subflow->fuso_tail_valid = 1;
out:
	/* a tail on its own path only waits for another carrier */
	if (mptcp_fuso_tail_waits(subflow, tp))
		*carrier = true;
	return n;
}

/* Collect up to @max victims of @ssk, each at most @mss bytes, for a copy
 * onto @best, and move @ssk's watermarks past them.  *@pending is set if
 * data is left that waits for evidence of loss (MPTCP_FUSO_RULE_TARGETED),
 * *@carrier if a tail waits for a subflow other than its own.  Takes and
 * releases the subflow lock.
 */
static int mptcp_fuso_collect(struct mptcp_sock *msk, struct sock *ssk,
			      const struct sock *best,
			      struct mptcp_fuso_victim *v, int max, u32 mss,
			      bool *pending, bool *carrier)
{
	struct mptcp_subflow_context *subflow = mptcp_subflow_ctx(ssk);
	u64 msk_una = READ_ONCE(msk->snd_una);
	struct tcp_sock *tp = tcp_sk(ssk);
	u8 rules = msk->fuso_rules;
	u32 prot, ts = 0, te = 0, hs;
	bool walk = true, tail = false;
	struct sk_buff *skb;
	int n = 0;
	u64 hole;

	/* the ACK path writes it under the data lock: a lockless read of a
	 * u64 can tear on 32-bit
	 */
	mptcp_data_lock((struct sock *)msk);
	hole = msk->fuso_hole_dsn;
	mptcp_data_unlock((struct sock *)msk);
	if (!mptcp_fuso_hole_valid(hole, msk_una, READ_ONCE(msk->snd_nxt)))
		hole = msk_una;

	lock_sock(ssk);
	if (ssk->sk_state == TCP_CLOSE || !subflow->fuso_isn_valid)
		goto out;

	prot = mptcp_fuso_mark(subflow->fuso_prot_seq, tp);
	hs = tcp_highest_sack_seq(tp);
	/* a tail copied earlier and still in flight is protected */
	if (subflow->fuso_tail_valid &&
	    before(subflow->fuso_tail_seq, subflow->fuso_tail_end) &&
	    after(subflow->fuso_tail_end, tp->snd_una) &&
	    !after(subflow->fuso_tail_end, tp->snd_nxt)) {
		ts = subflow->fuso_tail_seq;
		te = subflow->fuso_tail_end;
		tail = true;
	}

	for (skb = tcp_rtx_queue_head(ssk); skb && n < max;
	     skb = skb_rb_next(skb)) {
		u32 seq = TCP_SKB_CB(skb)->seq;
		u32 end = seq + skb->len;	/* payload only, no SYN/FIN */
		const struct mptcp_ext *ext = mptcp_fuso_orig_ext(skb);
		u32 map_seq, last;

		if (!ext) {
			/* a copy, a SACKed skb, one without payload or a
			 * mapping: nothing to protect; at the watermark, step
			 * over it, so that the next round does not look again
			 */
			if (walk && !after(seq, prot) && after(end, prot))
				prot = end;
			continue;
		}
		map_seq = subflow->fuso_isn + ext->subflow_seq;

		while (walk && n < max && after(end, prot)) {
			u32 s = before(prot, seq) ? seq : prot, e = end;

			/* the copied tail: skip it */
			if (tail && !before(s, ts) && before(s, te)) {
				prot = te;
				continue;
			}
			if (!mptcp_fuso_evident(rules, TCP_SKB_CB(skb)->sacked,
						s, hs, ext->data_seq + (s - map_seq),
						hole)) {
				*pending = true;
				walk = false;
				break;
			}
			if (tail && before(s, ts) && after(e, ts))
				e = ts;
			last = prot;
			n = mptcp_fuso_take(tp, ext, map_seq, &prot, seq, e, mss,
					    msk_una, v, n, max);
			if (prot == last)	/* not inside its mapping */
				break;
		}
	}
	WRITE_ONCE(subflow->fuso_prot_seq, prot);

	if ((rules & MPTCP_FUSO_RULE_TARGETED) && n < max)
		n = mptcp_fuso_take_tail(subflow, ssk, prot, mss, msk_una,
					 READ_ONCE(msk->snd_nxt),
					 mptcp_data_fin_enabled(msk), rules,
					 best == ssk, carrier, v, n, max);
out:
	release_sock(ssk);
	return n;
}

/* The payload of one segment on @ssk, DSS option included: a copy cut to
 * mss_cache would leave as a full segment and a runt.  Takes and releases
 * the subflow lock.
 */
static u32 mptcp_fuso_mss(struct sock *ssk)
{
	u32 mss;

	lock_sock(ssk);
	mss = tcp_current_mss(ssk);
	release_sock(ssk);
	return mss;
}

static struct mptcp_data_frag *mptcp_fuso_dfrag(struct sock *sk, u64 dsn)
{
	struct mptcp_data_frag *dfrag;

	list_for_each_entry(dfrag, &mptcp_sk(sk)->rtx_queue, list) {
		if (before64(dsn, dfrag->data_seq))
			break;
		if (before64(dsn, dfrag->data_seq + dfrag->data_len))
			return dfrag;
	}
	return NULL;
}

/* Data up to @dsn went out on @subflow, its subflow bytes ending at @seq:
 * when @seq is acknowledged, a data-level ACK still below @dsn shows a
 * hole (__mptcp_fuso_ack_event()).  One mark per subflow: the latest
 * end and the largest DSN.  Under the subflow lock.
 */
static void mptcp_fuso_hole_mark(struct mptcp_subflow_context *subflow,
				 u32 seq, u64 dsn)
{
	if (!subflow->fuso_copy_valid || after64(dsn, subflow->fuso_copy_dsn))
		subflow->fuso_copy_dsn = dsn;
	if (!subflow->fuso_copy_valid || after(seq, subflow->fuso_copy_seq))
		subflow->fuso_copy_seq = seq;
	subflow->fuso_copy_valid = 1;
}

/* Send copies of @v on @ssk; *@sent counts them.  Takes and releases the
 * subflow lock.
 * Return: the number of victims handled, sent or found already freed.
 */
static int mptcp_fuso_xmit(struct sock *sk, struct sock *ssk,
			   struct sock *wssk, const struct mptcp_fuso_victim *v,
			   int n, u32 cost_w, u32 cost_b, int *sent)
{
	struct mptcp_subflow_context *subflow = mptcp_subflow_ctx(ssk);
	struct mptcp_sendmsg_info info = {
		.data_lock_held = true,
		.fuso = true,
	};
	struct mptcp_sock *msk = mptcp_sk(sk);
	struct net *net = sock_net(sk);
	int i;

	lock_sock(ssk);

	/* the transmit decision and a fallback exclude each other, as in
	 * __mptcp_retrans()
	 */
	spin_lock_bh(&msk->fallback_lock);
	if (__mptcp_check_fallback(msk) || !msk->allow_subflows) {
		i = 0;
		goto out;
	}

	for (i = 0; i < n; i++) {
		struct mptcp_data_frag *dfrag;
		u16 copied = 0;
		int ret = 0;

		/* the rtx queue is stable under the msk owner; a victim
		 * acknowledged and freed meanwhile needs no copy
		 */
		dfrag = mptcp_fuso_dfrag(sk, v[i].dsn);
		if (!dfrag)
			continue;
		if (!mptcp_fuso_best_ok_locked(subflow, v[i].len))
			break;

		/* a victim's mapping may span data fragments: copy all of it,
		 * one fragment after the other, into one mapping
		 */
		info.sent = v[i].dsn - dfrag->data_seq;
		while (copied < v[i].len) {
			info.limit = min_t(u32, info.sent + v[i].len - copied,
					   dfrag->data_len);
			while (info.sent < info.limit) {
				ret = mptcp_sendmsg_frag(sk, ssk, dfrag, &info);
				if (ret <= 0)
					break;
				info.sent += ret;
				copied += ret;
			}
			if (ret <= 0 || copied == v[i].len ||
			    list_is_last(&dfrag->list, &msk->rtx_queue))
				break;
			dfrag = list_next_entry(dfrag, list);
			info.sent = 0;
		}
		if (!copied)
			break;

		msk->allow_infinite_fallback = false;
		(*sent)++;
		MPTCP_INC_STATS(net, MPTCP_MIB_FUSORECOVERY);
		WRITE_ONCE(msk->fuso_copies, msk->fuso_copies + 1);
		WRITE_ONCE(msk->fuso_copy_bytes, msk->fuso_copy_bytes + copied);
		if (ssk == wssk)
			MPTCP_INC_STATS(net, MPTCP_MIB_FUSORECOVERYSAMESUBFLOW);
		trace_mptcp_fuso_recovery(sk, wssk, ssk, v[i].dsn, copied,
					  cost_w, cost_b);

		/* its ACK tells whether the data-level ACK is stuck below it */
		if (msk->fuso_rules & MPTCP_FUSO_RULE_TARGETED)
			mptcp_fuso_hole_mark(subflow, tcp_sk(ssk)->write_seq,
					     v[i].dsn + copied);

		/* no Nagle, no autocork: the copy leaves now or not at all */
		if (tcp_write_queue_tail(ssk))
			tcp_mark_push(tcp_sk(ssk), tcp_write_queue_tail(ssk));
		__tcp_push_pending_frames(ssk, info.mss_now, TCP_NAGLE_PUSH);
		if (tcp_send_head(ssk)) {
			/* held back by pacing, TSQ or the window: stop here,
			 * with at most this one copy queued
			 */
			i++;
			break;
		}
	}
out:
	spin_unlock_bh(&msk->fallback_lock);
	release_sock(ssk);
	return i;
}

/**
 * mptcp_fuso_try_send_recoveries - run one FUSO round
 * @sk: the MPTCP socket, owned by the caller
 *
 * Spend spare congestion window on copies of un-acknowledged data, worst
 * subflow onto best subflow, while there is no new data; see the top of
 * this file.
 */
void mptcp_fuso_try_send_recoveries(struct sock *sk)
{
	struct mptcp_sock *msk = mptcp_sk(sk);
	int budget = MPTCP_FUSO_MAX_COPIES, sent = 0;
	struct net *net = sock_net(sk);
	u8 rules = msk->fuso_rules;

	msk_owned_by_me(msk);
	if (!mptcp_fuso_may_run(msk))
		return;

	MPTCP_INC_STATS(net, MPTCP_MIB_FUSOROUND);
	/* trim what was acknowledged, as __mptcp_retrans() does */
	mptcp_clean_una_wakeup(sk);

	while (budget > 0 && mptcp_fuso_may_run(msk)) {
		struct mptcp_fuso_cand cand[MPTCP_FUSO_MAX_SUBFLOWS];
		struct sock *ssks[MPTCP_FUSO_MAX_SUBFLOWS];
		u32 quotas[MPTCP_FUSO_MAX_SUBFLOWS];
		struct mptcp_fuso_victim v[MPTCP_FUSO_BATCH];
		struct mptcp_subflow_context *subflow;
		int n = 0, b = -1, w, nv = 0, done;
		bool pending = false, carrier = false, unsent;
		u32 rnd, quota, mss;

		mptcp_for_each_subflow(msk, subflow) {
			struct mptcp_fuso_cand *c = &cand[n];

			if (n == MPTCP_FUSO_MAX_SUBFLOWS)
				break;
			ssks[n] = mptcp_subflow_tcp_sock(subflow);
			/* The paper's gate: copies only once everything handed
			 * to a subflow is on the wire.  Racy: the ACK that
			 * sends the rest calls again.
			 */
			unsent = data_race(tcp_send_head(ssks[n]));
			if (unsent && mptcp_subflow_active(subflow))
				goto out;
			c->cost = mptcp_fuso_subflow_cost(msk, subflow);
			c->srtt_us = READ_ONCE(tcp_sk(ssks[n])->srtt_us) >> 3;
			c->worst_ok = mptcp_fuso_worst_ok(subflow);
			c->best_ok = mptcp_fuso_best_may(subflow, &quotas[n]);
			c->active = mptcp_subflow_active(subflow);
			c->backup = subflow->backup || subflow->request_bkup;
			n++;
		}

		/* the worst subflow with something left to protect, and the
		 * best carrier for its data
		 */
		rnd = get_random_u32();
		while ((w = mptcp_fuso_pick_worst(cand, n)) >= 0) {
			b = mptcp_fuso_pick_best(cand, n, rnd, rules, w);
			if (b < 0)
				break;
			quota = min3(quotas[b], (u32)budget, (u32)MPTCP_FUSO_BATCH);
			mss = mptcp_fuso_mss(ssks[b]);
			nv = mptcp_fuso_collect(msk, ssks[w], ssks[b], v, quota,
						mss, &pending, &carrier);
			if (nv)
				break;
			cand[w].worst_ok = 0;
		}
		if (w >= 0 && b < 0) {
			MPTCP_INC_STATS(net, MPTCP_MIB_FUSONOBESTSUBFLOW);
			break;
		}
		if (!nv) {
			/* quiet until new data goes out; if some data waits
			 * for evidence of loss, until an ACK brings some
			 */
			WRITE_ONCE(msk->fuso_wait_ev, pending);
			/* a tail waiting for a carrier: another subflow's ACK
			 * may free one (__mptcp_fuso_ack_event(), which reads
			 * this u64 under the data lock: no torn value on 32-bit)
			 */
			mptcp_data_lock(sk);
			msk->fuso_idle_snd_nxt = carrier ? msk->snd_nxt - 1 :
							   msk->snd_nxt;
			mptcp_data_unlock(sk);
			MPTCP_INC_STATS(net, MPTCP_MIB_FUSOALLPROTECTED);
			break;
		}

		done = mptcp_fuso_xmit(sk, ssks[b], ssks[w], v, nv,
				       cand[w].cost, cand[b].cost, &sent);
		budget -= nv;
		if (done < nv)
			break;
	}
out:
	if (!sent)
		MPTCP_INC_STATS(net, MPTCP_MIB_FUSOROUNDEMPTY);
}

/**
 * __mptcp_fuso_data_end - a push handed @ssk the end of the data
 * @sk: the MPTCP socket
 * @ssk: the subflow, locked by the caller
 *
 * MPTCP_FUSO_RULE_LAST_TAIL: record the end as a copy is recorded
 * (fuso_copy_seq and fuso_copy_dsn), so that the ACK of @ssk's last byte
 * raises the data-level hole if data below is missing: the evidence that
 * copies the other subflows' tails.  Here, not in a round: a round may
 * come only after that ACK (the writer streams, no subflow had room, the
 * last push came from an ACK), and the end's tail is gone by then.
 */
void __mptcp_fuso_data_end(struct sock *sk, struct sock *ssk)
{
	struct mptcp_sock *msk = mptcp_sk(sk);

	if (!(READ_ONCE(msk->fuso_mode) & MPTCP_FUSO_TX) ||
	    (~msk->fuso_rules & (MPTCP_FUSO_RULE_TARGETED |
				 MPTCP_FUSO_RULE_LAST_TAIL)))
		return;
	sock_owned_by_me(ssk);
	mptcp_fuso_hole_mark(mptcp_subflow_ctx(ssk), tcp_sk(ssk)->write_seq,
			     READ_ONCE(msk->snd_nxt));
}

/* The smallest smoothed RTT of @msk's subflows, 0 if none has one */
static u32 mptcp_fuso_min_srtt_us(struct mptcp_sock *msk)
{
	struct mptcp_subflow_context *subflow;
	u32 min = U32_MAX;

	mptcp_for_each_subflow(msk, subflow) {
		struct sock *ssk = mptcp_subflow_tcp_sock(subflow);
		u32 srtt = READ_ONCE(tcp_sk(ssk)->srtt_us) >> 3;

		if (srtt && srtt < min)
			min = srtt;
	}
	return min == U32_MAX ? 0 : min;
}

/**
 * __mptcp_fuso_sendmsg_start - mptcp_sendmsg() may queue new data
 * @sk: the MPTCP socket, owned by the caller
 *
 * Rounds wait until the new data is handed over.  The caller gives the
 * return value back to __mptcp_fuso_sendmsg_done() if it failed before
 * queuing anything (EAGAIN, a signal, an error): the data in flight must
 * not stay unprotected because a write failed.
 *
 * Return: whether the application was idle before this call.
 */
bool __mptcp_fuso_sendmsg_start(struct sock *sk)
{
	struct mptcp_sock *msk = mptcp_sk(sk);
	bool idle = msk->fuso_app_idle;

	msk_owned_by_me(msk);
	if (idle)
		WRITE_ONCE(msk->fuso_app_idle, false);
	/* count messages, not calls (__mptcp_fuso_sendmsg_done()) */
	if (idle && (READ_ONCE(msk->fuso_mode) & MPTCP_FUSO_TX) &&
	    (msk->fuso_rules & MPTCP_FUSO_RULE_TARGETED)) {
		if ((u32)tcp_clock_us() - msk->fuso_write_us <
		    mptcp_fuso_min_srtt_us(msk))
			msk->fuso_quick = min_t(u8, msk->fuso_quick + 1,
						MPTCP_FUSO_STREAM_WRITES);
		else
			msk->fuso_quick = 0;
	}
	return idle;
}

/**
 * __mptcp_fuso_sendmsg_done - trigger T1, the end of mptcp_sendmsg()
 * @sk: the MPTCP socket, owned by the caller
 * @idle: sendmsg handed over everything (or was asked for nothing) and no
 *	more is announced, or it failed before queuing anything and the
 *	application was idle before
 */
void __mptcp_fuso_sendmsg_done(struct sock *sk, bool idle)
{
	struct mptcp_sock *msk = mptcp_sk(sk);

	msk_owned_by_me(msk);
	if (!(READ_ONCE(msk->fuso_mode) & MPTCP_FUSO_TX))
		return;
	msk->fuso_write_us = tcp_clock_us();
	WRITE_ONCE(msk->fuso_app_idle, idle);
	/* A writer that keeps coming back within an RTT streams: its
	 * writes end in "all sent" only because the network drains them
	 * faster than it writes, and each comes before any ACK could show
	 * a loss.  A round per write would copy every subflow's tail again
	 * and again (MPTCP_FUSO_RULE_TARGETED).  Leave the tails to T2:
	 * the next ACK runs a round if the writer is still idle then.  Two
	 * messages in a row are not a stream either: two pipelined answers
	 * may share one segment, all that is in flight, and no ACK would
	 * come.  A message is what the application writes until a write
	 * without MSG_MORE (or TCP_CORK cleared): its calls are one write.
	 */
	if (idle && msk->fuso_quick < MPTCP_FUSO_STREAM_WRITES)
		mptcp_fuso_try_send_recoveries(sk);
}

/**
 * __mptcp_fuso_uncork - TCP_CORK was cleared
 * @sk: the MPTCP socket, owned by the caller
 *
 * What the cork held back is the end of a message, as a write without
 * MSG_MORE would be: the application is idle.  The held-back data is
 * pushed by mptcp_release_cb() (MPTCP_PUSH_PENDING), and the round must
 * come after it, so it is deferred there too.
 */
void __mptcp_fuso_uncork(struct sock *sk)
{
	struct mptcp_sock *msk = mptcp_sk(sk);

	msk_owned_by_me(msk);
	if (!(READ_ONCE(msk->fuso_mode) & MPTCP_FUSO_TX))
		return;
	WRITE_ONCE(msk->fuso_app_idle, true);
	/* softirq and timers set other bits of cb_flags under the data
	 * lock while the msk is owned: a plain RMW outside it could lose
	 * one (MPTCP_RETRANSMIT, and the connection stalls)
	 */
	mptcp_data_lock(sk);
	__set_bit(MPTCP_FUSO_ROUND, &msk->cb_flags);
	mptcp_data_unlock(sk);
}

/**
 * __mptcp_fuso_ack_event - trigger T2, a subflow ACK reached the msk
 * @sk: the MPTCP socket; its data lock is held
 * @ssk: the subflow that received the ACK; its lock is held
 *
 * Runs for every DATA_ACK, so it must stay cheap: a few loads and compares
 * unless the ACK changed the subflow's cwnd or in-flight count, or showed
 * a data-level hole below a copy, and a round could do something.  It
 * cannot run the round (that needs other subflows' locks), so it defers it
 * to mptcp_release_cb() or the msk worker.
 */
void __mptcp_fuso_ack_event(struct sock *sk, struct sock *ssk)
{
	struct mptcp_subflow_context *subflow = mptcp_subflow_ctx(ssk);
	struct mptcp_sock *msk = mptcp_sk(sk);
	struct tcp_sock *tp = tcp_sk(ssk);
	bool hole = false, ev = false, rtx;
	u32 in_flight, cwnd;
	u64 nxt, quiet;

	if (!(READ_ONCE(msk->fuso_mode) & MPTCP_FUSO_TX))
		return;
	lockdep_assert_held(&sk->sk_lock.slock);

	/* a new retransmission ranks this subflow lower as a carrier */
	rtx = tp->total_retrans != subflow->fuso_rtx_seen;
	mptcp_fuso_sample_rtx(subflow, ssk);

	/* the copies sent here arrived; did the data-level ACK pass them? */
	if (subflow->fuso_copy_valid &&
	    !before(tp->snd_una, subflow->fuso_copy_seq)) {
		u64 dsn = subflow->fuso_copy_dsn;

		subflow->fuso_copy_valid = 0;
		if (mptcp_fuso_hole_raise(msk->fuso_hole_dsn, msk->snd_una,
					  READ_ONCE(msk->snd_nxt), dsn)) {
			WRITE_ONCE(msk->fuso_hole_dsn, dsn);
			hole = true;
		}
	}

	/* bulk transfer: there is new data, nothing else to look at; and
	 * not before everything handed to this subflow is on the wire
	 */
	if (!READ_ONCE(msk->fuso_app_idle) || READ_ONCE(msk->first_pending) ||
	    tcp_send_head(ssk))
		return;

	/* evidence of loss (MPTCP_FUSO_RULE_TARGETED): a SACK or a lost mark */
	if (tp->sacked_out != subflow->fuso_sacked_out ||
	    tp->lost_out != subflow->fuso_lost_out) {
		subflow->fuso_sacked_out = tp->sacked_out;
		subflow->fuso_lost_out = tp->lost_out;
		ev = true;
	}

	in_flight = tcp_packets_in_flight(tp);
	cwnd = tcp_snd_cwnd(tp);
	if (in_flight == subflow->fuso_inflight && cwnd == subflow->fuso_cwnd &&
	    !hole && !ev)
		return;
	subflow->fuso_inflight = in_flight;
	subflow->fuso_cwnd = cwnd;

	/* The copy may go to another subflow, so not only when this one
	 * has room.  Once a round found nothing to copy, wait for new data,
	 * or for evidence if some data waits for it.  If a tail waits for
	 * another carrier (fuso_idle_snd_nxt one below snd_nxt), for an ACK
	 * on a subflow other than the tail's, which may have opened its
	 * window, or a retransmission on the tail's, which ranks it lower as
	 * a carrier: any other ACK of the tail's own subflow would wake a
	 * round that takes that subflow again and finds nothing.  (Of two
	 * subflows whose tails both wait, neither one's ACKs wake a round
	 * for the other's tail; the ACK of its own tail, or a loss it
	 * reveals, still does.)
	 */
	if (!mptcp_fuso_may_run(msk))
		return;
	nxt = READ_ONCE(msk->snd_nxt);
	quiet = msk->fuso_idle_snd_nxt;
	if (!hole && !(ev && READ_ONCE(msk->fuso_wait_ev)) &&
	    (nxt == quiet ||
	     (nxt - 1 == quiet && !rtx && mptcp_fuso_tail_waits(subflow, tp))))
		return;

	if (sock_owned_by_user(sk)) {
		__set_bit(MPTCP_FUSO_ROUND, &msk->cb_flags);
	} else {
		/* the worker may be due already */
		if (test_and_set_bit(MPTCP_WORK_FUSO, &msk->flags))
			return;
		mptcp_schedule_work(sk);
	}
	MPTCP_INC_STATS(sock_net(sk), MPTCP_MIB_FUSODEFERRED);
}
