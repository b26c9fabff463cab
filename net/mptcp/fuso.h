/* SPDX-License-Identifier: GPL-2.0 */
/* Multipath TCP: FUSO proactive multi-path loss recovery.
 *
 * The interface between the MPTCP core and the sender in net/mptcp/fuso.c.
 * The knobs' bits are in protocol.h; the design is in fuso.c's DOC:
 * sections, included by Documentation/networking/mptcp-fuso.rst.
 */

#ifndef __MPTCP_FUSO_H
#define __MPTCP_FUSO_H

#include <linux/bits.h>
#include <linux/jump_label.h>
#include <linux/limits.h>
#include <linux/types.h>

struct sock;

/* The loss metric C_l is a Q16 fixed-point number: MPTCP_FUSO_ONE is a
 * loss rate of 1.  C_l <= 2 * MPTCP_FUSO_ONE for any counters and weights;
 * a subflow that never sent data has MPTCP_FUSO_INF.
 */
#define MPTCP_FUSO_SHIFT	16
#define MPTCP_FUSO_ONE		BIT(MPTCP_FUSO_SHIFT)
#define MPTCP_FUSO_INF		U32_MAX

/* Bounds on the work of one round */
#define MPTCP_FUSO_MAX_COPIES	64	/* copies per round */
#define MPTCP_FUSO_MAX_SUBFLOWS	16	/* subflows considered by a round */

/* T1 skips a message that is the third or later of messages each begun
 * within an RTT of the end of the last write: a stream (fuso.c)
 */
#define MPTCP_FUSO_STREAM_WRITES	2

/* What a round knows about one subflow when it chooses a carrier */
struct mptcp_fuso_cand {
	u32	cost;		/* C_l, Q16 */
	u32	srtt_us;
	u8	best_ok:1,	/* can take a copy now */
		active:1,	/* usable for data (mptcp_subflow_active()) */
		backup:1;	/* backup subflow: best only if no other is active */
};

#ifdef CONFIG_MPTCP_FUSO

u32 mptcp_fuso_snd_cwnd(const struct sock *ssk);
void mptcp_fuso_init_sock(struct sock *sk);
void mptcp_fuso_disconnect(struct sock *sk);
void mptcp_fuso_clone(struct sock *nsk, const struct sock *listener);
int mptcp_fuso_set_mode(struct mptcp_sock *msk, int mode);
int mptcp_fuso_get_mode(const struct mptcp_sock *msk);
void mptcp_fuso_fill_info(const struct mptcp_sock *msk,
			  struct mptcp_info *info);
void mptcp_fuso_try_send_recoveries(struct sock *sk);

/* The sender's hooks, behind mptcp_fuso_tx_key (protocol.h) */
bool __mptcp_fuso_sendmsg_start(struct sock *sk);
void __mptcp_fuso_sendmsg_done(struct sock *sk, bool idle);
void __mptcp_fuso_ack_event(struct sock *sk, struct sock *ssk);
void __mptcp_fuso_uncork(struct sock *sk);
void __mptcp_fuso_pushed(struct sock *sk, struct sock *ssk);

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

/* A push handed @ssk (locked) data up to msk->snd_nxt */
static inline void mptcp_fuso_pushed(struct sock *sk, struct sock *ssk)
{
	if (static_branch_unlikely(&mptcp_fuso_tx_key))
		__mptcp_fuso_pushed(sk, ssk);
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

#if IS_ENABLED(CONFIG_KUNIT)
/* The pure parts of the sender, for the KUnit tests; static without KUnit */
u32 mptcp_fuso_cost(u32 segs, u32 rtx, u32 segs_at_rtx, u8 alpha, u8 beta);
int mptcp_fuso_pick_best(const struct mptcp_fuso_cand *c, int n, u32 rnd,
			 int avoid);
bool mptcp_fuso_hole_raise(u64 hole, u64 una, u64 nxt, u64 dsn);
bool mptcp_fuso_skb_dsn(u32 seq, u32 len, u32 map_seq, u32 map_len,
			u64 data_seq, u64 *lo, u64 *hi);
#endif

#else /* !CONFIG_MPTCP_FUSO */

static inline void mptcp_fuso_init_sock(struct sock *sk) {}
static inline void mptcp_fuso_disconnect(struct sock *sk) {}
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
static inline void mptcp_fuso_pushed(struct sock *sk, struct sock *ssk) {}
static inline void mptcp_fuso_ack_event(struct sock *sk, struct sock *ssk) {}
static inline void mptcp_fuso_try_send_recoveries(struct sock *sk) {}

#endif /* CONFIG_MPTCP_FUSO */

#endif /* __MPTCP_FUSO_H */
