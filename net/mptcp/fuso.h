/* SPDX-License-Identifier: GPL-2.0 */
/* Multipath TCP: FUSO proactive multi-path loss recovery.
 *
 * The interface between the MPTCP core and net/mptcp/fuso.c.  See the top
 * of fuso.c for the algorithm and Documentation/networking/mptcp-fuso.rst
 * for the knobs and counters.
 */

#ifndef __MPTCP_FUSO_H
#define __MPTCP_FUSO_H

#include <linux/bits.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>

struct net;
struct sk_buff;
struct sock;

/* net.mptcp.fuso bits */
#define MPTCP_FUSO_TX		BIT(0)	/* sender: proactive recovery */
#define MPTCP_FUSO_RX		BIT(1)	/* receiver: subflow-OOO push */
#define MPTCP_FUSO_MODE_MASK	(MPTCP_FUSO_TX | MPTCP_FUSO_RX)

/* net.mptcp.fuso_rules bits: FUSO beyond the paper, see fuso.c; 0 is the
 * paper's sender
 */
#define MPTCP_FUSO_RULE_CAUTIOUS	BIT(0)	/* no copy onto a congested subflow */
#define MPTCP_FUSO_RULE_TARGETED	BIT(1)	/* tails at once, the rest on evidence */
#define MPTCP_FUSO_RULE_CLEAN_PATH	BIT(2)	/* an unused subflow counts as clean */
#define MPTCP_FUSO_RULE_PROTECT_RTX	BIT(3)	/* copy retransmissions once too */
#define MPTCP_FUSO_RULE_SCHED_CAUTIOUS	BIT(4)	/* "window": ECN, back off as one flow */
#define MPTCP_FUSO_RULES_MASK		GENMASK(4, 0)
/* all but SCHED_CAUTIOUS: it trades the tail under bursty loss for the
 * mean in incast (Documentation/networking/mptcp-fuso.rst)
 */
#define MPTCP_FUSO_RULES_DEFAULT	GENMASK(3, 0)

/* net.mptcp.fuso_alpha / fuso_beta: weights in percent */
#define MPTCP_FUSO_WEIGHT_MAX		100
#define MPTCP_FUSO_WEIGHT_DEFAULT	50

/* The loss metric C_l is a Q16 fixed-point number: MPTCP_FUSO_ONE is a
 * loss rate of 1.  C_l <= 2 * MPTCP_FUSO_ONE for any counters and weights;
 * a subflow that never sent data has MPTCP_FUSO_INF.
 */
#define MPTCP_FUSO_SHIFT	16
#define MPTCP_FUSO_ONE		BIT(MPTCP_FUSO_SHIFT)
#define MPTCP_FUSO_INF		U32_MAX

/* Bounds on the work of one round */
#define MPTCP_FUSO_MAX_COPIES	64	/* copies per round */
#define MPTCP_FUSO_BATCH	8	/* copies per (worst, best) lock pair */
#define MPTCP_FUSO_MAX_SUBFLOWS	16	/* subflows considered by a round */

/* What a round knows about one subflow when it chooses worst and best. */
struct mptcp_fuso_cand {
	u32	cost;		/* C_l, Q16 */
	u32	srtt_us;
	u8	worst_ok:1,	/* has sent data that may still need a copy */
		best_ok:1,	/* can take a copy now */
		active:1,	/* usable for data (mptcp_subflow_active()) */
		backup:1;	/* backup subflow: best only if no other is active */
};

/**
 * mptcp_fuso_room - free congestion window of a subflow, in bytes
 * @cwnd: tcp_snd_cwnd()
 * @in_flight: tcp_packets_in_flight()
 * @queued: bytes written to the subflow and not sent yet
 * @mss: the subflow's mss_cache
 *
 * Return: what the subflow could send now beyond what it already holds:
 * (cwnd - in_flight) * mss - queued, or 0.
 */
static inline u32 mptcp_fuso_room(u32 cwnd, u32 in_flight, u32 queued, u32 mss)
{
	u64 room;

	if (in_flight >= cwnd)
		return 0;
	room = (u64)(cwnd - in_flight) * mss;
	if (room <= queued)
		return 0;
	return min_t(u64, room - queued, U32_MAX);
}

/* The "window" scheduler's view of one class of subflows (regular or
 * backup): a candidate is the best subflow so far for one purpose.
 */
struct mptcp_sched_window_cand {
	void	*subflow;	/* struct mptcp_subflow_context, or NULL */
	u32	room;		/* bytes it may take now */
	u32	key;		/* lowest wins: srtt, or U32_MAX - cwnd */
	u8	fits:1,		/* room for the next segment */
		busy:1;		/* has packets out: an ACK or RTO will come */
};

struct mptcp_sched_window_view {
	struct mptcp_sched_window_cand	fast;	/* lowest RTT, with room */
	struct mptcp_sched_window_cand	uncut;	/* as fast, not in CWR */
	struct mptcp_sched_window_cand	anchor;	/* largest cwnd, room or not */
	u8	any_calm:1,	/* some subflow is not answering congestion */
		any_cwr:1;	/* some subflow is in CWR: an ECN echo */
};

/**
 * mptcp_sched_window_choose - where the "window" scheduler sends new data
 * @v: the class's subflows, as mptcp_sched_window_get_subflow() saw them
 * @rules: the connection's net.mptcp.fuso_rules
 *
 * The fastest subflow with room: a short response leaves on every
 * subflow's window at once.  With MPTCP_FUSO_RULE_SCHED_CAUTIOUS, once a
 * subflow is in CWR (it cut its window for an ECN echo: a queue on its
 * path is filling), the connection backs off as one flow would:
 *
 * - a subflow in CWR gets no new data while a calm one (Open, Disorder)
 *   exists;
 * - when none is calm, only the subflow with the largest window gets new
 *   data.
 *
 * Spread over every subflow, a connection would back off by a fraction of
 * its window per echo instead of by half, and each small window would lose
 * its whole flight to the overflow and wait for a timeout (incast).
 * Losses alone (Recovery, Loss) do not engage the rule: under random or
 * bursty loss the recovering subflows keep getting new data, whose
 * delivery is what lets RACK see that a retransmission was lost without a
 * timeout.  Waiting is safe: a candidate without room has data in flight,
 * and its ACK or timeout runs the scheduler again; an anchor that can
 * neither send nor expect an ACK is passed over.
 *
 * Return: the candidate to send on, or NULL to wait for an ACK.
 */
static inline struct mptcp_sched_window_cand *
mptcp_sched_window_choose(struct mptcp_sched_window_view *v, u8 rules)
{
	struct mptcp_sched_window_cand *c = &v->fast;

	if (v->any_cwr && (rules & MPTCP_FUSO_RULE_SCHED_CAUTIOUS)) {
		if (v->any_calm)
			c = &v->uncut;
		else if (v->anchor.subflow && v->anchor.fits)
			c = &v->anchor;
		else if (v->anchor.subflow && v->anchor.busy)
			return NULL;
	}
	return c->subflow ? c : NULL;
}

#ifdef CONFIG_MPTCP_FUSO

/* The knobs, in struct mptcp_pernet (ctrl.c); lockless reads */
u8 mptcp_fuso_mode(const struct net *net);
u8 mptcp_fuso_alpha(const struct net *net);
u8 mptcp_fuso_beta(const struct net *net);
u8 mptcp_fuso_rules(const struct net *net);
void mptcp_fuso_enable_keys(u8 mode);

u32 mptcp_fuso_snd_cwnd(const struct sock *ssk);
void mptcp_fuso_init_sock(struct sock *sk);
void mptcp_fuso_clone(struct sock *nsk, const struct sock *listener);
int mptcp_fuso_set_mode(struct mptcp_sock *msk, int mode);
int mptcp_fuso_get_mode(const struct mptcp_sock *msk);
void mptcp_fuso_fill_info(const struct mptcp_sock *msk,
			  struct mptcp_info *info);
void mptcp_fuso_try_send_recoveries(struct sock *sk);

/* The sender's hooks, behind a static key: see fuso.c */
DECLARE_STATIC_KEY_FALSE(mptcp_fuso_tx_key);
bool __mptcp_fuso_sendmsg_start(struct sock *sk);
void __mptcp_fuso_sendmsg_done(struct sock *sk, bool idle);
void __mptcp_fuso_ack_event(struct sock *sk, struct sock *ssk);
void __mptcp_fuso_uncork(struct sock *sk);

/* mptcp_sendmsg() may queue new data; returns what to give back to
 * mptcp_fuso_sendmsg_done() if it queues nothing
 */
static inline bool mptcp_fuso_sendmsg_start(struct sock *sk)
{
	if (!static_branch_unlikely(&mptcp_fuso_tx_key))
		return false;
	return __mptcp_fuso_sendmsg_start(sk);
}

/* T1: mptcp_sendmsg() ends; @idle: the application has nothing more */
static inline void mptcp_fuso_sendmsg_done(struct sock *sk, bool idle)
{
	if (static_branch_unlikely(&mptcp_fuso_tx_key))
		__mptcp_fuso_sendmsg_done(sk, idle);
}

/* TCP_CORK was cleared: what it held back ends a message */
static inline void mptcp_fuso_uncork(struct sock *sk)
{
	if (static_branch_unlikely(&mptcp_fuso_tx_key))
		__mptcp_fuso_uncork(sk);
}

/* T2: a subflow ACK reached the msk */
static inline void mptcp_fuso_ack_event(struct sock *sk, struct sock *ssk)
{
	if (static_branch_unlikely(&mptcp_fuso_tx_key))
		__mptcp_fuso_ack_event(sk, ssk);
}

/* hook R, see include/net/mptcp.h */
DECLARE_STATIC_KEY_FALSE(mptcp_fuso_rx_key);
void __mptcp_fuso_rcv_ofo(struct sock *ssk, struct sk_buff *skb);

#if IS_ENABLED(CONFIG_KUNIT)
/* The pure parts of the sender, for the KUnit tests; static without KUnit */
u32 mptcp_fuso_cost(u32 segs, u32 rtx, u32 segs_at_rtx, u8 alpha, u8 beta);
int mptcp_fuso_pick_worst(const struct mptcp_fuso_cand *c, int n);
int mptcp_fuso_pick_best(const struct mptcp_fuso_cand *c, int n, u32 rnd,
			 u8 rules, int w);
bool mptcp_fuso_evident(u8 rules, u8 sacked, u32 seq, u32 hs, u64 dsn,
			u64 hole_dsn);
bool mptcp_fuso_next_slice(u32 snd_una, u32 snd_nxt, u32 *prot_seq,
			   u32 seq, u32 end, u32 map_seq, u32 map_len,
			   u32 mss, u32 *off, u32 *len);
bool mptcp_fuso_rcv_map(u32 ssn, u32 len, u32 map_ssn, u16 map_len,
			bool data_fin, u64 map_dsn, u64 *dsn);
#endif

#else /* !CONFIG_MPTCP_FUSO */

static inline void mptcp_fuso_init_sock(struct sock *sk) {}
static inline void mptcp_fuso_clone(struct sock *nsk,
				    const struct sock *listener) {}

static inline int mptcp_fuso_set_mode(struct mptcp_sock *msk, int mode)
{
	return -EOPNOTSUPP;
}

static inline int mptcp_fuso_get_mode(const struct mptcp_sock *msk)
{
	return 0;
}

static inline void mptcp_fuso_fill_info(const struct mptcp_sock *msk,
					struct mptcp_info *info) {}

static inline bool mptcp_fuso_sendmsg_start(struct sock *sk)
{
	return false;
}

static inline void mptcp_fuso_sendmsg_done(struct sock *sk, bool idle) {}
static inline void mptcp_fuso_uncork(struct sock *sk) {}
static inline void mptcp_fuso_ack_event(struct sock *sk, struct sock *ssk) {}
static inline void mptcp_fuso_try_send_recoveries(struct sock *sk) {}

#endif /* CONFIG_MPTCP_FUSO */

#endif /* __MPTCP_FUSO_H */
