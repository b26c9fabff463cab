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
 * Ties are broken by RTT (srtt): the smallest is the best.
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
 * Which data is in doubt, answered once, at the data level:
 *
 * - data that the peer has not acknowledged at the data level, that some
 *   subflow still *holds* (sent, neither acknowledged nor SACKed on that
 *   subflow), and that lies below ``hole_dsn``: data above it reached the
 *   peer's subflows, on another path or on the same one after a loss;
 * - the *tail*, the last MSS of data below ``snd_nxt``, whichever skbs and
 *   subflows hold it: no later data can show its loss, so it is in doubt
 *   as soon as it is sent, and copied once per ``snd_nxt``.  Cut to the
 *   last skb instead, the tail of a response split across subflows is
 *   often a runt, and its copy protects little.
 *
 * ``hole_dsn`` moves on ACKs: each subflow keeps one mark, where the data
 * or the copies handed to it last end, with its DSN;
 * when the mark arrives (acknowledged, SACKed, or later data of that
 * subflow SACKed) while the data-level ACK is still below its DSN, the
 * data below is in doubt.  No timer: copies are ACK-clocked.
 *
 * A copy goes onto the *best* subflow other than the data's holder: on the
 * holder's path a loss burst takes original and copy alike.  Best is the
 * smallest (C_l, srtt) (see "FUSO overview") among the subflows that can
 * take a copy now: active, nothing queued, spare cwnd and receive window,
 * a backup only if no other subflow is active, and not in ``TCP_CA_CWR``
 * or ``TCP_CA_Loss``.  That is FUSO's caution: an ECN echo (CWR) says the
 * subflow's path queues above its marking threshold, a timeout (Loss)
 * that it may drop everything, and a copy would only add to what
 * overflows there.  A loss that fast recovery repairs does not stop a
 * carrier: with loss on several paths the best one left is often in
 * Recovery, and its copies still help.  A subflow that never sent data is
 * the last choice, at random among such.
 * The holder carries the copy only if no other subflow can; a tail copied
 * so is copied once more when another one can take it.
 *
 * For the best subflow a copy is *new data*: a new subflow sequence
 * number, under its cwnd, retransmitted by its own TCP if lost, not
 * counted in ``total_retrans`` nor in ``MPTcpExtMPTCPRetrans``.  It
 * carries the original's data sequence numbers in its own DSS mapping, so
 * the receiver takes whichever arrives first and drops the other as a
 * duplicate.  It is marked (``mptcp_ext.fuso``) so that it is never copied
 * itself; so is data the MPTCP level sends again (``__mptcp_retrans()``,
 * or a closed subflow's data pushed onto another: anything below
 * ``snd_nxt``), which would otherwise be copied as an original, a third
 * transmission of the same DSN.
 *
 * A copy alone in flight on its carrier is probed as TLP probes a flight
 * of several, after 2 srtt and 2 ms, not 2 srtt and ``rto_min`` as a
 * lone packet: where ``rto_min`` is the default 200 ms, a burst that takes
 * original and copy would otherwise cost the wait FUSO is there to avoid.
 *
 * Copy once: ``prot_dsn`` moves past each copy, and past data found not
 * held; the tail lies above it and is skipped while its copy is in
 * flight.  One copy is at most one MSS of its carrier.
 *
 * A copy lost for good with its original (both their paths drop
 * everything) leaves the data to the MPTCP level's retransmission onto a
 * subflow with nothing in flight (``__mptcp_retrans()``).  A round that
 * sent copies re-arms that timer from the subflows' timers
 * (``mptcp_set_timeout()``): the scheduler set it before its push, when
 * on a connection that was idle no subflow had a timer to take it from,
 * and that leaves ``TCP_RTO_MIN``, 200 ms.
 *
 * Two triggers run a round:
 *
 * T1
 *   The end of ``mptcp_sendmsg()``, once the last byte is pushed.  Not for
 *   the third and later of messages that each began within the smallest
 *   subflow RTT of the last write (a message ends with a write without
 *   ``MSG_MORE``, or ``TCP_CORK`` cleared): such a writer streams, its
 *   every write would copy a new tail, and T2 serves it on the next ACK.
 * T2
 *   A DATA_ACK, in ``ack_update_msk()``, while copies may be due
 *   (``fuso_tx.state``), when a mark shows data in doubt, or, for a tail
 *   copied onto its own path, an ACK on another subflow.  T2 holds the
 *   subflow lock and the msk data lock, and a round needs other subflows'
 *   locks, so T2 only flags work: ``MPTCP_FUSO_ROUND`` in ``cb_flags``
 *   when the msk is owned (run by ``mptcp_release_cb()``), else
 *   ``MPTCP_WORK_FUSO`` and the msk worker.  Either way the round runs in
 *   process context.
 *
 * A round copies piece after piece: the tail if due, then the data in
 * doubt, oldest first, then a tail's second copy.  It stops after
 * ``MPTCP_FUSO_MAX_COPIES`` (64) copies, when no subflow can take one
 * (state stays ``RUN``: the next ACK tries again), or when nothing is in
 * doubt (``DONE``: quiet until new data or a mark shows more).  It
 * considers at most ``MPTCP_FUSO_MAX_SUBFLOWS`` (16) subflows.  In a bulk
 * transfer there is always new data, so T2 exits on its first tests.
 *
 * For the paper (``net.mptcp.fuso_rules`` without ``TARGETED``) all the
 * data sent is in doubt, there is no tail step, and the best subflow may
 * be the holder.  The paper copies the worst subflow's data first; here
 * the oldest data comes first, whichever subflow holds it.
 */

/**
 * DOC: FUSO rules
 *
 * Each bit of ``net.mptcp.fuso_rules`` adds a rule beyond the paper; the
 * default, 82, enables all three.
 *
 * The values 1, 4, 8 and 32 are accepted and do nothing: they were
 * ``CAUTIOUS``, ``CLEAN_PATH``, ``PROTECT_RTX`` and ``LAST_TAIL``.  Taken
 * out one at a time, on conditions neither was tuned on, ``CAUTIOUS`` and
 * ``PROTECT_RTX`` helped nowhere; the data in doubt of ``TARGETED``
 * replaced ``CLEAN_PATH`` (not onto the holder's path) and ``LAST_TAIL``
 * (one tail per connection, not one per subflow).  Part of ``CAUTIOUS``
 * is back, always on, in the carrier test of "FUSO sender": no copy onto
 * a subflow in CWR (or Loss, as before).  ``CAUTIOUS`` also refused
 * Recovery and a subflow in any of the three within its last RTT; the one
 * mechanism copies more in an incast than those rules did, and there the
 * test of CWR is needed.
 *
 * ``TARGETED`` (2)
 *   copy only the data in doubt (see "FUSO sender"), each piece onto a
 *   subflow other than its holder.  With the paper's rules nearly every
 *   segment is copied once at low load (the paper measured 40 % extra
 *   bytes); this rule copies only what may be lost, and keeps the tail
 *   of flow completion times as short.
 * ``SCHED_CAUTIOUS`` (16)
 *   a rule of the ``window`` scheduler, not of the sender (sched.c): after
 *   an ECN echo a connection backs off as one flow, for a response's first
 *   MB only, so that a bulk transfer over disjoint bottlenecks keeps every
 *   path.
 * ``SPREAD_TIMERS`` (64)
 *   not a copy rule either (protocol.c, "FUSO spread timers"): a flight
 *   that new data starts on an idle subflow has its first timer (loss
 *   probe or RTO) moved to a random point up to twice as far, at most one
 *   minimum RTO later, so that the subflows whose small first flights an
 *   incast drops whole do not all retransmit in the same tick.
 */

/**
 * DOC: FUSO safety
 *
 * FUSO does nothing on a connection that fell back to TCP, or during the
 * data-level recovery that follows a subflow close, and sends no copy on a
 * subflow that cannot send (closing, stale, MP_FAIL or infinite mapping
 * pending).  It decides to transmit under ``msk->fallback_lock``, as the
 * data-level retransmission (``__mptcp_retrans()``) does, and never touches
 * ``snd_nxt`` or the send queue; the data-level retransmit timer it only
 * re-arms, from the subflows' timers (see "FUSO sender").  It holds one
 * subflow lock at a time, under the msk socket lock, and keeps no subflow
 * or skb pointer across a lock drop.
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
 *   ``ENOTCONN`` in the application).  Without DSS checksums (the
 *   default) that is all: the first response on a new connection is
 *   protected too, before any additional subflow joins.  With checksums
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

/* Guards the sender's hooks in sendmsg, TCP_CORK, the ACK path and each
 * new DSS mapping; mptcp_fuso_enable_keys() (ctrl.c) switches it on, for
 * good, the first time a namespace or a socket enables the sender.  Until
 * then a kernel with FUSO built in runs a NOP per sendmsg, per ACK and
 * per mapping.
 */
DEFINE_STATIC_KEY_FALSE(mptcp_fuso_tx_key);

/* ---- pure parts: the loss metric, the choice of a carrier, the DSNs of an skb */

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
 * mptcp_fuso_pick_best - the subflow that carries a copy
 * @c: candidates
 * @n: number of candidates
 * @rnd: a random number, used when no candidate ever sent data
 * @avoid: the index of the candidate that holds the data, whose path the
 *	copy should not share, or -1
 *
 * Backup subflows are considered only if no other candidate is active, the
 * rule of mptcp_subflow_get_send(): a non-backup subflow that is active but
 * cannot take a copy now (in loss recovery after its link failed, say)
 * keeps the copy off the backups.  Among those considered, @avoid only if
 * no other one can take the copy: on the holder's path a loss burst takes
 * the copy with the original.  Of the rest, the one with the smallest
 * (C_l, srtt) wins, the first on a full tie; never-sent subflows
 * (MPTCP_FUSO_INF) come last, and if every one left never sent, @rnd
 * picks one.
 *
 * Return: the index of the chosen candidate, or -1 if none is best_ok.
 */
VISIBLE_IF_KUNIT int mptcp_fuso_pick_best(const struct mptcp_fuso_cand *c,
					  int n, u32 rnd, int avoid)
{
	int pass, i, b = -1, cnt = 0;
	bool backup = true;

	for (i = 0; i < n; i++)
		if (c[i].active && !c[i].backup)
			backup = false;

	/* pass 0 without @avoid, pass 1 with it */
	for (pass = 0; pass < 2 && b < 0; pass++) {
		for (i = 0; i < n; i++) {
			if (!c[i].best_ok || (c[i].backup && !backup) ||
			    (i == avoid && !pass))
				continue;
			if (b < 0 || mptcp_fuso_cmp(&c[i], &c[b]) < 0)
				b = i;
		}
	}
	if (b < 0 || c[b].cost != MPTCP_FUSO_INF)
		return b;

	/* the best never sent anything, nor did those it ties with: one of
	 * them at random
	 */
	for (i = 0; i < n; i++)
		cnt += c[i].best_ok && c[i].backup == c[b].backup &&
		       c[i].cost == MPTCP_FUSO_INF && (i != avoid || b == avoid);
	cnt = rnd % cnt;
	for (i = 0; i < n; i++) {
		if (!c[i].best_ok || c[i].backup != c[b].backup ||
		    c[i].cost != MPTCP_FUSO_INF || (i == avoid && b != avoid))
			continue;
		if (!cnt--)
			return i;
	}
	return b;
}
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_pick_best);

/* fuso_tx.hole_dsn counts only inside (@una, @nxt]: DSNs compare modulo
 * 2^64, so a stale value, or the initial 0, is "after" any DSN in the
 * upper half of the space and "before" any in the lower half.
 */
static bool mptcp_fuso_hole_valid(u64 hole, u64 una, u64 nxt)
{
	return after64(hole, una) && !after64(hole, nxt);
}

/**
 * mptcp_fuso_hole_raise - does an arrived mark show data in doubt
 * @hole: fuso_tx.hole_dsn
 * @una: msk->snd_una
 * @nxt: msk->snd_nxt
 * @dsn: the DSN of a subflow's mark, which just arrived
 *
 * The data or copy the mark ends reached the peer's subflow; if the
 * data-level ACK is still below @dsn, the data below it that some
 * subflow still holds is in doubt (mptcp_fuso_next()).
 *
 * Return: true if @dsn should become fuso_tx.hole_dsn.
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
 * mptcp_fuso_skb_dsn - the data sequence numbers an skb carries
 * @seq: the skb's first subflow sequence number
 * @len: its payload length
 * @map_seq: absolute subflow sequence number where its DSS mapping starts
 * @map_len: payload bytes in that mapping (DATA_FIN not counted)
 * @data_seq: the mapping's first DSN
 * @lo: out: the DSN of @seq
 * @hi: out: one past the last DSN of the skb inside the mapping
 *
 * Return: false if the skb carries no payload inside its mapping.
 */
VISIBLE_IF_KUNIT bool mptcp_fuso_skb_dsn(u32 seq, u32 len, u32 map_seq,
					 u32 map_len, u64 data_seq, u64 *lo,
					 u64 *hi)
{
	u32 off = seq - map_seq;

	if (!len || off >= map_len)
		return false;
	*lo = data_seq + off;
	*hi = *lo + min(len, map_len - off);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_skb_dsn);

/* ---- the sender */

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
	/* lockless readers: MPTCP_INFO, the ACK path */
	WRITE_ONCE(msk->fuso_tx.copies, 0);
	WRITE_ONCE(msk->fuso_tx.copy_bytes, 0);
	WRITE_ONCE(msk->fuso_tx.app_idle, false);
	WRITE_ONCE(msk->fuso_tx.state, MPTCP_FUSO_TX_RUN);
	WRITE_ONCE(msk->fuso_tx.tail, MPTCP_FUSO_TAIL_DUE);
	/* outside (snd_una, snd_nxt] until set: see mptcp_fuso_clamp() */
	msk->fuso_tx.prot_dsn = 0;
	msk->fuso_tx.hole_dsn = 0;
	msk->fuso_tx.tail_lo = 0;
	msk->fuso_tx.tail_hi = 0;
	msk->fuso_tx.quick = 0;
	msk->fuso_tx.write_us = 0;
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
	info->mptcpi_fuso_copies = READ_ONCE(msk->fuso_tx.copies);
	info->mptcpi_fuso_copy_bytes = READ_ONCE(msk->fuso_tx.copy_bytes);
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
	if (tp->total_retrans != subflow->fuso.rtx_seen) {
		WRITE_ONCE(subflow->fuso.rtx_seen, tp->total_retrans);
		WRITE_ONCE(subflow->fuso.segs_at_rtx, tp->data_segs_out - 1);
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
	u32 at_rtx = READ_ONCE(subflow->fuso.segs_at_rtx);

	if (rtx != READ_ONCE(subflow->fuso.rtx_seen))
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
 * subflow: mptcp_fuso_best_ok_locked() decides.
 */
static bool mptcp_fuso_best_may(struct mptcp_subflow_context *subflow)
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
	/* Cautious: no copy onto a path that said it is full, by an ECN echo
	 * (CWR) or a timeout (Loss).  Racy, as above.
	 */
	if ((BIT(data_race((u8)icsk->icsk_ca_state)) &
	     (TCPF_CA_CWR | TCPF_CA_Loss)) ||
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
	return in_flight < cwnd;
}

/* Can @ssk take a copy of @len bytes now?  The same tests as
 * mptcp_fuso_best_may(), now exact, and the peer's receive window.
 */
static bool mptcp_fuso_best_ok_locked(struct mptcp_subflow_context *subflow,
				      u32 len)
{
	struct sock *ssk = mptcp_subflow_tcp_sock(subflow);
	const struct tcp_sock *tp = tcp_sk(ssk);

	sock_owned_by_me(ssk);
	if (!mptcp_fuso_best_may(subflow))
		return false;
	return !after(tp->write_seq + len, tcp_wnd_end(tp));
}

/* Common conditions for a round and for the ACK-path trigger. */
static bool mptcp_fuso_may_run(const struct mptcp_sock *msk)
{
	const struct sock *sk = (const struct sock *)msk;

	if (!(READ_ONCE(msk->fuso_mode) & MPTCP_FUSO_TX) ||
	    !READ_ONCE(msk->fuso_tx.app_idle))
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

/* @dsn if it lies in [@una, @nxt], else @una: DSNs compare modulo 2^64,
 * so a stale value, or the initial 0, is moved into the data in flight
 */
static u64 mptcp_fuso_clamp(u64 dsn, u64 una, u64 nxt)
{
	return before64(dsn, una) || after64(dsn, nxt) ? una : dsn;
}

/* The DSNs [*@lo, *@hi) of the first original skb that @ssk holds (sent,
 * neither acknowledged nor SACKed) that ends above @from and begins below
 * @to.  A subflow sends its originals in DSN order.  Takes and releases
 * the subflow lock.
 */
static bool mptcp_fuso_held(struct sock *ssk, u64 from, u64 to, u64 *lo,
			    u64 *hi)
{
	struct mptcp_subflow_context *subflow = mptcp_subflow_ctx(ssk);
	struct sk_buff *skb;
	bool held = false;

	lock_sock(ssk);
	if (ssk->sk_state == TCP_CLOSE || !subflow->fuso.isn_valid)
		goto out;
	skb_rbtree_walk(skb, &ssk->tcp_rtx_queue) {
		const struct mptcp_ext *ext = mptcp_fuso_orig_ext(skb);

		if (!ext ||
		    !mptcp_fuso_skb_dsn(TCP_SKB_CB(skb)->seq, skb->len,
					subflow->fuso.isn + ext->subflow_seq,
					ext->data_len - ext->data_fin,
					ext->data_seq, lo, hi) ||
		    !after64(*hi, from))
			continue;
		held = before64(*lo, to);
		break;
	}
out:
	release_sock(ssk);
	return held;
}

/* A piece of data for one copy: DSNs [lo, hi) that @holder holds */
struct mptcp_fuso_piece {
	u64	lo;
	u64	hi;
	int	holder;
};

/* The lowest piece in [@from, @to) that some subflow still holds, cut to
 * that range and to one skb of its holder.
 */
static bool mptcp_fuso_find(struct sock **ssks, int n, u64 from, u64 to,
			    struct mptcp_fuso_piece *p)
{
	int i;

	p->holder = -1;
	for (i = 0; i < n; i++) {
		u64 lo, hi;

		if (!mptcp_fuso_held(ssks[i], from, to, &lo, &hi) ||
		    (p->holder >= 0 && !before64(lo, p->lo)))
			continue;
		p->lo = lo;
		p->hi = hi;
		p->holder = i;
	}
	if (p->holder < 0)
		return false;
	if (before64(p->lo, from))
		p->lo = from;
	if (after64(p->hi, to))
		p->hi = to;
	return true;
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

/* Data up to @dsn went out on @ssk, its subflow bytes ending at write_seq:
 * when they arrive, a data-level ACK still below @dsn shows data in doubt
 * (__mptcp_fuso_ack_event()).  One mark per subflow: the latest end and
 * the largest DSN.  Under the subflow lock.
 */
static void mptcp_fuso_mark(struct sock *ssk, u64 dsn)
{
	struct mptcp_fuso_sf *fs = &mptcp_subflow_ctx(ssk)->fuso;
	u32 seq = tcp_sk(ssk)->write_seq;

	sock_owned_by_me(ssk);
	if (!fs->mark_valid || after64(dsn, fs->mark_dsn))
		fs->mark_dsn = dsn;
	if (!fs->mark_valid || after(seq, fs->mark_seq))
		fs->mark_seq = seq;
	fs->mark_valid = 1;
}

/* A copy that leaves on an idle subflow is alone in flight there, and
 * tcp_schedule_loss_probe() gives a lone packet 2 srtt plus tcp_rto_min()
 * for the peer's delayed ACK: with the default 200 ms minimum RTO, as long
 * as the timeout the copy is there to avoid when the burst that took the
 * original takes the copy too.  Probe it as TLP probes a flight of
 * several: a probe that finds it delivered costs one segment.
 */
static void mptcp_fuso_probe_copy(struct sock *ssk)
{
	struct inet_connection_sock *icsk = inet_csk(ssk);
	const struct tcp_sock *tp = tcp_sk(ssk);
	unsigned long timeout;

	sock_owned_by_me(ssk);
	if (tp->packets_out != 1 || !tp->srtt_us ||
	    icsk->icsk_pending != ICSK_TIME_LOSS_PROBE)
		return;
	timeout = usecs_to_jiffies((tp->srtt_us >> 2) + TCP_TIMEOUT_MIN_US);
	if (time_before(jiffies + timeout, icsk->icsk_timeout))
		tcp_reset_xmit_timer(ssk, ICSK_TIME_LOSS_PROBE, timeout,
				     TCP_RTO_MAX);
}

/* Send a copy of the DSNs [@dsn, @dsn + @len) on @ssk, whose data @wssk
 * holds.  Takes and releases the subflow lock.
 * Return: the bytes copied; 0 if @ssk could not take them, -1 if the data
 * was acknowledged and freed meanwhile (no copy needed).
 */
static int mptcp_fuso_xmit(struct sock *sk, struct sock *ssk,
			   struct sock *wssk, u64 dsn, u16 len, u32 cost_w,
			   u32 cost_b)
{
	struct mptcp_subflow_context *subflow = mptcp_subflow_ctx(ssk);
	struct mptcp_sendmsg_info info = {
		.data_lock_held = true,
		.fuso = true,
	};
	struct mptcp_sock *msk = mptcp_sk(sk);
	struct net *net = sock_net(sk);
	struct mptcp_data_frag *dfrag;
	u16 copied = 0;
	int ret = 0;

	lock_sock(ssk);

	/* the transmit decision and a fallback exclude each other, as in
	 * __mptcp_retrans()
	 */
	spin_lock_bh(&msk->fallback_lock);
	if (__mptcp_check_fallback(msk) || !msk->allow_subflows)
		goto out;

	/* the rtx queue is stable under the msk owner */
	dfrag = mptcp_fuso_dfrag(sk, dsn);
	if (!dfrag) {
		ret = -1;
		goto out;
	}
	if (!mptcp_fuso_best_ok_locked(subflow, len))
		goto out;

	/* the piece may span data fragments: copy all of it, one fragment
	 * after the other, into one mapping
	 */
	info.sent = dsn - dfrag->data_seq;
	while (copied < len) {
		info.limit = min_t(u32, info.sent + len - copied,
				   dfrag->data_len);
		while (info.sent < info.limit) {
			ret = mptcp_sendmsg_frag(sk, ssk, dfrag, &info);
			if (ret <= 0)
				break;
			info.sent += ret;
			copied += ret;
		}
		if (ret <= 0 || copied == len ||
		    list_is_last(&dfrag->list, &msk->rtx_queue))
			break;
		dfrag = list_next_entry(dfrag, list);
		info.sent = 0;
	}
	ret = copied;
	if (!copied)
		goto out;

	msk->allow_infinite_fallback = false;
	MPTCP_INC_STATS(net, MPTCP_MIB_FUSORECOVERY);
	WRITE_ONCE(msk->fuso_tx.copies, msk->fuso_tx.copies + 1);
	WRITE_ONCE(msk->fuso_tx.copy_bytes, msk->fuso_tx.copy_bytes + copied);
	if (ssk == wssk)
		MPTCP_INC_STATS(net, MPTCP_MIB_FUSORECOVERYSAMESUBFLOW);
	trace_mptcp_fuso_recovery(sk, wssk, ssk, dsn, copied, cost_w, cost_b);

	/* its arrival tells whether the data-level ACK is stuck below it */
	if (msk->fuso_rules & MPTCP_FUSO_RULE_TARGETED)
		mptcp_fuso_mark(ssk, dsn + copied);

	/* no Nagle, no autocork: the copy leaves now or not at all */
	if (tcp_write_queue_tail(ssk))
		tcp_mark_push(tcp_sk(ssk), tcp_write_queue_tail(ssk));
	__tcp_push_pending_frames(ssk, info.mss_now, TCP_NAGLE_PUSH);
	mptcp_fuso_probe_copy(ssk);
out:
	spin_unlock_bh(&msk->fallback_lock);
	release_sock(ssk);
	return ret;
}

/* What a round copies next */
enum mptcp_fuso_next {
	MPTCP_FUSO_NEXT_NONE,	/* nothing: all is protected */
	MPTCP_FUSO_NEXT_TAIL,	/* the data-level tail */
	MPTCP_FUSO_NEXT_DOUBT,	/* data in doubt */
	MPTCP_FUSO_NEXT_AGAIN,	/* the tail, a second time */
};

/* Is the tail's copy, [tail_lo, tail_hi), still in flight? */
static bool mptcp_fuso_tail_out(const struct mptcp_fuso_tx *tx, u64 una,
				u64 nxt)
{
	return tx->tail != MPTCP_FUSO_TAIL_DUE &&
	       before64(tx->tail_lo, tx->tail_hi) &&
	       after64(tx->tail_hi, una) && !after64(tx->tail_hi, nxt);
}

/* The next piece to copy, and its holder in @ssks; msk owner.
 *
 * The data in doubt is the data below fuso_tx.hole_dsn that the peer has
 * not acknowledged at the data level but some subflow still holds: sent,
 * neither acknowledged nor SACKed on its subflow.  Below hole_dsn, data
 * reached the peer's subflows: on another path, or on the same one after a
 * loss.  The tail, the last MSS below snd_nxt, is in doubt as soon as it
 * is sent, since no later data can show its loss; it is copied once per
 * snd_nxt.  For the paper (no MPTCP_FUSO_RULE_TARGETED), all the data sent
 * is in doubt.  Each byte is copied once: prot_dsn moves past it; the tail,
 * which lies above prot_dsn, is skipped while its copy is in flight.
 */
static int mptcp_fuso_next(struct mptcp_sock *msk, struct sock **ssks, int n,
			   struct mptcp_fuso_piece *p)
{
	struct mptcp_fuso_tx *tx = &msk->fuso_tx;
	u64 una = READ_ONCE(msk->snd_una), nxt = READ_ONCE(msk->snd_nxt);
	u64 dend = nxt - mptcp_data_fin_enabled(msk), from, to;
	bool tail = false;

	from = mptcp_fuso_clamp(tx->prot_dsn, una, nxt);
	to = nxt;
	if (msk->fuso_rules & MPTCP_FUSO_RULE_TARGETED) {
		if (tx->tail_nxt != nxt)
			WRITE_ONCE(tx->tail, MPTCP_FUSO_TAIL_DUE);
		if (tx->tail == MPTCP_FUSO_TAIL_DUE) {
			/* the last MSS of the data, whichever skbs hold it */
			if (mptcp_fuso_find(ssks, n, dend - 1, dend, p)) {
				p->lo = from;
				if (before64(p->lo, p->hi))
					return MPTCP_FUSO_NEXT_TAIL;
			}
			tx->tail_nxt = nxt;
			WRITE_ONCE(tx->tail, MPTCP_FUSO_TAIL_DONE);
		}
		/* the ACK path writes it: no torn u64 on 32-bit */
		mptcp_data_lock((struct sock *)msk);
		to = mptcp_fuso_clamp(tx->hole_dsn, una, nxt);
		mptcp_data_unlock((struct sock *)msk);
		tail = mptcp_fuso_tail_out(tx, una, nxt);
	}

	while (before64(from, to) && mptcp_fuso_find(ssks, n, from, to, p)) {
		if (tail && !before64(p->lo, tx->tail_lo) &&
		    before64(p->lo, tx->tail_hi)) {
			from = tx->tail_hi;
			continue;
		}
		if (tail && before64(p->lo, tx->tail_lo) &&
		    after64(p->hi, tx->tail_lo))
			p->hi = tx->tail_lo;
		return MPTCP_FUSO_NEXT_DOUBT;
	}
	/* nothing below @to is held: it needs no copy */
	if (after64(to, mptcp_fuso_clamp(tx->prot_dsn, una, nxt)))
		tx->prot_dsn = to;

	if (tx->tail == MPTCP_FUSO_TAIL_AGAIN) {
		if (mptcp_fuso_tail_out(tx, una, nxt) &&
		    mptcp_fuso_find(ssks, n, tx->tail_hi - 1, tx->tail_hi, p)) {
			p->lo = tx->tail_lo;
			p->hi = tx->tail_hi;
			return MPTCP_FUSO_NEXT_AGAIN;
		}
		WRITE_ONCE(tx->tail, MPTCP_FUSO_TAIL_DONE);	/* it arrived */
	}
	return MPTCP_FUSO_NEXT_NONE;
}

/* Fill @c and @ssks for the subflows of @msk.
 * Return: their number, or -1 if an active subflow still has data that it
 * has not sent: the paper's gate, copies only once everything handed to a
 * subflow is on the wire.  Racy: the ACK that sends the rest calls again.
 */
static int mptcp_fuso_cands(struct mptcp_sock *msk, struct mptcp_fuso_cand *c,
			    struct sock **ssks)
{
	struct mptcp_subflow_context *subflow;
	int n = 0;

	mptcp_for_each_subflow(msk, subflow) {
		struct sock *ssk = mptcp_subflow_tcp_sock(subflow);

		if (n == MPTCP_FUSO_MAX_SUBFLOWS)
			break;
		c[n].active = mptcp_subflow_active(subflow);
		/* racy without the subflow lock, as above */
		if (c[n].active && data_race(tcp_send_head(ssk)))
			return -1;
		ssks[n] = ssk;
		c[n].cost = mptcp_fuso_subflow_cost(msk, subflow);
		c[n].srtt_us = READ_ONCE(tcp_sk(ssk)->srtt_us) >> 3;
		c[n].best_ok = mptcp_fuso_best_may(subflow);
		c[n].backup = subflow->backup || subflow->request_bkup;
		n++;
	}
	return n;
}

/* Record what a copy of @p onto @ssks[@b], @len bytes, protected */
static void mptcp_fuso_done(struct mptcp_sock *msk, int kind,
			    const struct mptcp_fuso_piece *p, u64 len,
			    struct sock **ssks, int b)
{
	struct mptcp_fuso_tx *tx = &msk->fuso_tx;
	u8 tail = MPTCP_FUSO_TAIL_DONE;

	switch (kind) {
	case MPTCP_FUSO_NEXT_DOUBT:
		tx->prot_dsn = p->lo + len;
		return;
	case MPTCP_FUSO_NEXT_TAIL:
		tx->tail_lo = p->lo;
		tx->tail_hi = p->lo + len;
		tx->tail_nxt = READ_ONCE(msk->snd_nxt);
		/* on its own path, a loss burst takes the copy too */
		if (b == p->holder) {
			tail = MPTCP_FUSO_TAIL_AGAIN;
			WRITE_ONCE(tx->tail_id,
				   mptcp_subflow_ctx(ssks[b])->subflow_id);
		}
		break;
	}
	WRITE_ONCE(tx->tail, tail);
}

/**
 * mptcp_fuso_try_send_recoveries - run one FUSO round
 * @sk: the MPTCP socket, owned by the caller
 *
 * Spend spare congestion window on copies of the data in doubt, each onto
 * the best subflow other than its holder, while there is no new data; see
 * the top of this file.
 */
void mptcp_fuso_try_send_recoveries(struct sock *sk)
{
	struct mptcp_sock *msk = mptcp_sk(sk);
	bool targeted = msk->fuso_rules & MPTCP_FUSO_RULE_TARGETED;
	int budget = MPTCP_FUSO_MAX_COPIES, sent = 0;
	struct net *net = sock_net(sk);

	msk_owned_by_me(msk);
	if (!mptcp_fuso_may_run(msk))
		return;

	MPTCP_INC_STATS(net, MPTCP_MIB_FUSOROUND);
	/* trim what was acknowledged, as __mptcp_retrans() does */
	mptcp_clean_una_wakeup(sk);

	while (budget-- > 0 && mptcp_fuso_may_run(msk)) {
		struct mptcp_fuso_cand cand[MPTCP_FUSO_MAX_SUBFLOWS];
		struct sock *ssks[MPTCP_FUSO_MAX_SUBFLOWS];
		struct mptcp_fuso_piece p;
		int n, b = -1, kind, ret;
		u32 mss, h;

		n = mptcp_fuso_cands(msk, cand, ssks);
		if (n < 0)
			break;
		kind = mptcp_fuso_next(msk, ssks, n, &p);
		if (kind != MPTCP_FUSO_NEXT_NONE)
			b = mptcp_fuso_pick_best(cand, n, get_random_u32(),
						 targeted ? p.holder : -1);
		if (kind == MPTCP_FUSO_NEXT_NONE ||
		    (kind == MPTCP_FUSO_NEXT_AGAIN && b == p.holder)) {
			/* quiet until new data, a hole, or (a tail waiting
			 * for another carrier) another subflow's ACK
			 */
			WRITE_ONCE(msk->fuso_tx.state, MPTCP_FUSO_TX_DONE);
			MPTCP_INC_STATS(net, MPTCP_MIB_FUSOALLPROTECTED);
			break;
		}
		WRITE_ONCE(msk->fuso_tx.state, MPTCP_FUSO_TX_RUN);
		if (b < 0) {
			MPTCP_INC_STATS(net, MPTCP_MIB_FUSONOBESTSUBFLOW);
			break;
		}

		/* one segment of the carrier: the tail's last, else the first */
		mss = mptcp_fuso_mss(ssks[b]);
		if (kind == MPTCP_FUSO_NEXT_DOUBT && p.hi - p.lo > mss)
			p.hi = p.lo + mss;
		else if (p.hi - p.lo > mss)
			p.lo = p.hi - mss;
		h = p.hi - p.lo;
		ret = mptcp_fuso_xmit(sk, ssks[b], ssks[p.holder], p.lo, h,
				      cand[p.holder].cost, cand[b].cost);
		if (!ret)
			break;
		mptcp_fuso_done(msk, kind, &p, ret < 0 ? h : ret, ssks, b);
		sent += ret > 0;
	}
	if (!sent) {
		MPTCP_INC_STATS(net, MPTCP_MIB_FUSOROUNDEMPTY);
		return;
	}
	/* copies lost with their originals: the data-level retransmission
	 * is due when their subflows time out (see "FUSO sender")
	 */
	mptcp_set_timeout(sk);
	mptcp_reset_rtx_timer(sk);
}

/**
 * __mptcp_fuso_pushed - a push handed @ssk data up to msk->snd_nxt
 * @sk: the MPTCP socket
 * @ssk: the subflow, locked by the caller
 *
 * Mark where @ssk's data ends, as a copy is marked, so that its arrival
 * shows whether data below it is missing, on @ssk or on the other
 * subflows.  Here, not in a round: a round may come only after that
 * arrival (the writer streams, no subflow had room, the last push came
 * from an ACK).
 */
void __mptcp_fuso_pushed(struct sock *sk, struct sock *ssk)
{
	struct mptcp_sock *msk = mptcp_sk(sk);

	if (!(READ_ONCE(msk->fuso_mode) & MPTCP_FUSO_TX) ||
	    !(msk->fuso_rules & MPTCP_FUSO_RULE_TARGETED))
		return;
	mptcp_fuso_mark(ssk, READ_ONCE(msk->snd_nxt));
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
	bool idle = msk->fuso_tx.app_idle;

	msk_owned_by_me(msk);
	if (idle)
		WRITE_ONCE(msk->fuso_tx.app_idle, false);
	/* new data: a new tail, and copies may be due on its ACKs */
	WRITE_ONCE(msk->fuso_tx.state, MPTCP_FUSO_TX_RUN);
	/* count messages, not calls (__mptcp_fuso_sendmsg_done()) */
	if (idle && (READ_ONCE(msk->fuso_mode) & MPTCP_FUSO_TX) &&
	    (msk->fuso_rules & MPTCP_FUSO_RULE_TARGETED)) {
		if ((u32)tcp_clock_us() - msk->fuso_tx.write_us <
		    mptcp_fuso_min_srtt_us(msk))
			msk->fuso_tx.quick = min_t(u8,
						   msk->fuso_tx.quick + 1,
						   MPTCP_FUSO_STREAM_WRITES);
		else
			msk->fuso_tx.quick = 0;
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
	msk->fuso_tx.write_us = tcp_clock_us();
	WRITE_ONCE(msk->fuso_tx.app_idle, idle);
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
	if (idle && msk->fuso_tx.quick < MPTCP_FUSO_STREAM_WRITES)
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
	WRITE_ONCE(msk->fuso_tx.app_idle, true);
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
 * unless the sender has copies to make (fuso_tx.state), or the ACK shows
 * data in doubt.  It cannot run the round (that needs other subflows'
 * locks), so it defers it to mptcp_release_cb() or the msk worker.
 */
void __mptcp_fuso_ack_event(struct sock *sk, struct sock *ssk)
{
	struct mptcp_subflow_context *subflow = mptcp_subflow_ctx(ssk);
	struct mptcp_fuso_tx *tx = &mptcp_sk(sk)->fuso_tx;
	struct mptcp_fuso_sf *fs = &subflow->fuso;
	struct mptcp_sock *msk = mptcp_sk(sk);
	struct tcp_sock *tp = tcp_sk(ssk);
	bool hole = false, rtx;

	if (!(READ_ONCE(msk->fuso_mode) & MPTCP_FUSO_TX))
		return;
	lockdep_assert_held(&sk->sk_lock.slock);

	/* a new retransmission ranks this subflow lower as a carrier */
	rtx = tp->total_retrans != fs->rtx_seen;
	mptcp_fuso_sample_rtx(subflow, ssk);

	/* the data marked here arrived (acknowledged, or SACKed, or later
	 * data SACKed): is the data-level ACK still below it?
	 */
	if (fs->mark_valid &&
	    !before(tcp_highest_sack_seq(tp), fs->mark_seq)) {
		fs->mark_valid = 0;
		if (mptcp_fuso_hole_raise(tx->hole_dsn, msk->snd_una,
					  READ_ONCE(msk->snd_nxt),
					  fs->mark_dsn)) {
			tx->hole_dsn = fs->mark_dsn;
			WRITE_ONCE(tx->state, MPTCP_FUSO_TX_RUN);
			hole = true;
		}
	}

	/* bulk transfer: there is new data, nothing else to look at; and
	 * not before everything handed to this subflow is on the wire
	 */
	if (!READ_ONCE(tx->app_idle) || READ_ONCE(msk->first_pending) ||
	    tcp_send_head(ssk))
		return;

	/* Nothing in doubt: wait for a hole or new data.  A tail copied onto
	 * its own path waits for another carrier: an ACK on another subflow
	 * may have opened its window, a retransmission on the tail's ranks
	 * that one lower; the tail's own subflow's other ACKs would only
	 * find it first again.
	 */
	if (READ_ONCE(tx->state) == MPTCP_FUSO_TX_DONE && !hole &&
	    (READ_ONCE(tx->tail) != MPTCP_FUSO_TAIL_AGAIN ||
	     (!rtx && subflow->subflow_id == READ_ONCE(tx->tail_id))))
		return;
	if (!mptcp_fuso_may_run(msk))
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
