// SPDX-License-Identifier: GPL-2.0
/* KUnit tests for FUSO (net/mptcp/fuso.c, its receiver and scheduler). */

#include <kunit/test.h>
#include <linux/limits.h>
#include <net/tcp.h>

#include "protocol.h"
#include "fuso.h"

/* ---- C_l */

#define ONE	MPTCP_FUSO_ONE

static void mptcp_fuso_test_cost_basics(struct kunit *test)
{
	/* never sent: infinite, whatever the weights */
	KUNIT_EXPECT_EQ(test, MPTCP_FUSO_INF, mptcp_fuso_cost(0, 0, 0, 50, 50));
	KUNIT_EXPECT_EQ(test, MPTCP_FUSO_INF, mptcp_fuso_cost(0, 5, 0, 0, 0));
	/* never retransmitted: zero */
	KUNIT_EXPECT_EQ(test, 0U, mptcp_fuso_cost(1, 0, 0, 50, 50));
	KUNIT_EXPECT_EQ(test, 0U, mptcp_fuso_cost(1000000, 0, 0, 100, 100));

	/* 1 of 100 lost, the last one just now: 0.5 * 1/100 + 0.5 * 1/1 */
	KUNIT_EXPECT_EQ(test, (ONE / 100 + ONE) / 2,
			mptcp_fuso_cost(100, 1, 99, 50, 50));
	/* 10 of 1000, the last 10 segments ago: 0.5 * 1/100 + 0.5 * 1/10 */
	KUNIT_EXPECT_EQ(test, (ONE / 100 + ONE / 10) / 2,
			mptcp_fuso_cost(1000, 10, 990, 50, 50));
	/* a loss long ago scores below a recent one at the same rate */
	KUNIT_EXPECT_LT(test, mptcp_fuso_cost(1000, 10, 100, 50, 50),
			mptcp_fuso_cost(1000, 10, 990, 50, 50));
	/* Q16: a rate of 1/65536 is the smallest that counts */
	KUNIT_EXPECT_EQ(test, 1U, mptcp_fuso_cost(65536, 1, 0, 100, 0));
	KUNIT_EXPECT_EQ(test, 0U, mptcp_fuso_cost(65537, 1, 0, 100, 0));
}

static void mptcp_fuso_test_cost_weights(struct kunit *test)
{
	/* alpha only: the overall rate */
	KUNIT_EXPECT_EQ(test, ONE / 4, mptcp_fuso_cost(100, 25, 10, 100, 0));
	/* beta only: the last rate */
	KUNIT_EXPECT_EQ(test, ONE / 10, mptcp_fuso_cost(100, 25, 90, 0, 100));
	/* both zero: every subflow ties, RTT decides */
	KUNIT_EXPECT_EQ(test, 0U, mptcp_fuso_cost(100, 25, 90, 0, 0));
	/* both at 100: the sum, at most 2 */
	KUNIT_EXPECT_EQ(test, 2 * ONE, mptcp_fuso_cost(7, 7, 6, 100, 100));
	/* weights above 100 are clamped, never overflow */
	KUNIT_EXPECT_EQ(test, 2 * ONE, mptcp_fuso_cost(7, 7, 6, 255, 255));
}

static void mptcp_fuso_test_cost_large(struct kunit *test)
{
	/* counters near the top of u32 */
	KUNIT_EXPECT_EQ(test, 2 * ONE,
			mptcp_fuso_cost(U32_MAX, U32_MAX, U32_MAX - 1, 100, 100));
	KUNIT_EXPECT_EQ(test, ONE / 2,
			mptcp_fuso_cost(U32_MAX - 1, U32_MAX / 2, 0, 100, 0));
	/* more retransmissions than sends (wrapped counters): capped at 1 */
	KUNIT_EXPECT_EQ(test, ONE, mptcp_fuso_cost(10, U32_MAX, 0, 100, 0));
	/* segs wrapped past the sample: the distance still counts */
	KUNIT_EXPECT_EQ(test, ONE / 11,
			mptcp_fuso_cost(5, 1, U32_MAX - 5, 0, 100));
	/* a stale sample equal to segs counts as one segment */
	KUNIT_EXPECT_EQ(test, ONE, mptcp_fuso_cost(50, 1, 50, 0, 100));
}

/* ---- the carrier */

#define CAND(c, rtt, b) { .cost = (c), .srtt_us = (rtt), .best_ok = (b), \
			  .active = 1 }

static void mptcp_fuso_test_pick_cost(struct kunit *test)
{
	const struct mptcp_fuso_cand c[] = {
		CAND(100, 500, 1),
		CAND(900, 100, 1),	/* lossiest */
		CAND(0, 900, 1),	/* clean */
	};

	KUNIT_EXPECT_EQ(test, 2, mptcp_fuso_pick_best(c, 3, 0, -1));
}

static void mptcp_fuso_test_pick_rtt_ties(struct kunit *test)
{
	/* equal C_l: the smallest RTT is best */
	const struct mptcp_fuso_cand c[] = {
		CAND(0, 300, 1),
		CAND(0, 900, 1),
		CAND(0, 100, 1),
		CAND(0, 900, 1),
	};

	KUNIT_EXPECT_EQ(test, 2, mptcp_fuso_pick_best(c, 4, 0, -1));
	/* a single subflow carries its own copies */
	KUNIT_EXPECT_EQ(test, 0, mptcp_fuso_pick_best(c, 1, 0, -1));
	KUNIT_EXPECT_EQ(test, 0, mptcp_fuso_pick_best(c, 1, 0, 0));
}

static void mptcp_fuso_test_pick_eligible(struct kunit *test)
{
	struct mptcp_fuso_cand c[] = {
		CAND(900, 100, 1),
		CAND(100, 100, 0),	/* no spare cwnd */
		CAND(500, 100, 1),
	};

	KUNIT_EXPECT_EQ(test, 2, mptcp_fuso_pick_best(c, 3, 0, -1));
	c[0].best_ok = 0;
	c[2].best_ok = 0;
	KUNIT_EXPECT_EQ(test, -1, mptcp_fuso_pick_best(c, 3, 0, -1));
	KUNIT_EXPECT_EQ(test, -1, mptcp_fuso_pick_best(c, 0, 0, -1));
}

static void mptcp_fuso_test_pick_never_sent(struct kunit *test)
{
	struct mptcp_fuso_cand c[] = {
		CAND(MPTCP_FUSO_INF, 10, 1),
		CAND(2 * ONE, 900, 1),	/* lossy, but it sent */
		CAND(MPTCP_FUSO_INF, 10, 1),
	};
	bool seen[3] = {};
	u32 r;

	/* never sent is the last choice, even against a lossy subflow */
	KUNIT_EXPECT_EQ(test, 1, mptcp_fuso_pick_best(c, 3, 0, -1));
	KUNIT_EXPECT_EQ(test, 1, mptcp_fuso_pick_best(c, 3, 1, -1));

	/* if all are never sent, the random number picks, among the
	 * eligible ones only
	 */
	c[1].cost = MPTCP_FUSO_INF;
	c[1].best_ok = 0;
	for (r = 0; r < 8; r++) {
		int b = mptcp_fuso_pick_best(c, 3, r, -1);

		KUNIT_ASSERT_TRUE(test, b == 0 || b == 2);
		seen[b] = true;
	}
	KUNIT_EXPECT_TRUE(test, seen[0] && seen[2]);
	/* ... and not the holder's own */
	for (r = 0; r < 8; r++)
		KUNIT_EXPECT_EQ(test, 2, mptcp_fuso_pick_best(c, 3, r, 0));
}

static void mptcp_fuso_test_pick_backup(struct kunit *test)
{
	struct mptcp_fuso_cand c[] = {
		CAND(0, 100, 1),
		CAND(ONE, 900, 1),
	};

	/* a backup is best only when no other subflow is active */
	c[0].backup = 1;
	KUNIT_EXPECT_EQ(test, 1, mptcp_fuso_pick_best(c, 2, 0, -1));
	/* not even to keep the copy off the holder's path */
	KUNIT_EXPECT_EQ(test, 1, mptcp_fuso_pick_best(c, 2, 0, 1));
	/* active but unable to take a copy now (loss recovery): no copy */
	c[1].best_ok = 0;
	KUNIT_EXPECT_EQ(test, -1, mptcp_fuso_pick_best(c, 2, 0, -1));
	c[1].active = 0;
	KUNIT_EXPECT_EQ(test, 0, mptcp_fuso_pick_best(c, 2, 0, -1));
}

/* Not onto the holder's path if another subflow can take the copy: a
 * loss burst takes the copy with the original.  The paper (@avoid -1)
 * goes back onto the holder when it ranks first.
 */
static void mptcp_fuso_test_pick_not_holder(struct kunit *test)
{
	struct mptcp_fuso_cand c[] = {
		CAND(0, 100, 1),		/* the holder, clean so far */
		CAND(MPTCP_FUSO_INF, 200, 1),	/* never sent */
		CAND(ONE / 10, 300, 1),		/* lossy */
	};

	KUNIT_EXPECT_EQ(test, 0, mptcp_fuso_pick_best(c, 3, 0, -1));
	KUNIT_EXPECT_EQ(test, 2, mptcp_fuso_pick_best(c, 3, 0, 0));
	c[2].best_ok = 0;
	KUNIT_EXPECT_EQ(test, 1, mptcp_fuso_pick_best(c, 3, 0, 0));
	/* only the holder can take it: onto its own path */
	c[1].best_ok = 0;
	KUNIT_EXPECT_EQ(test, 0, mptcp_fuso_pick_best(c, 3, 0, 0));
	c[0].best_ok = 0;
	KUNIT_EXPECT_EQ(test, -1, mptcp_fuso_pick_best(c, 3, 0, 0));
}

/* ---- the data in doubt, the peer's window */

static void mptcp_fuso_test_hole(struct kunit *test)
{
	const u64 lo = 1000, hi = BIT_ULL(63) + 1000, w = U64_MAX - 1000;

	/* the first hole, from the initial 0, in either half of the DSN
	 * space and across the wrap: 0 is not a hole below the data
	 */
	KUNIT_EXPECT_TRUE(test, mptcp_fuso_hole_raise(0, lo, lo + 5000,
						      lo + 3000));
	KUNIT_EXPECT_TRUE(test, mptcp_fuso_hole_raise(0, hi, hi + 5000,
						      hi + 3000));
	KUNIT_EXPECT_TRUE(test, mptcp_fuso_hole_raise(0, w, w + 5000,
						      w + 3000));
	/* a later copy raises it, an earlier one does not */
	KUNIT_EXPECT_TRUE(test, mptcp_fuso_hole_raise(hi + 2000, hi, hi + 5000,
						      hi + 3000));
	KUNIT_EXPECT_FALSE(test, mptcp_fuso_hole_raise(hi + 3000, hi,
						       hi + 5000, hi + 2000));
	/* a stale hole, already acknowledged, is replaced */
	KUNIT_EXPECT_TRUE(test, mptcp_fuso_hole_raise(hi - 10, hi, hi + 5000,
						      hi + 2000));
	/* nothing acknowledged above the copies, or beyond what was sent */
	KUNIT_EXPECT_FALSE(test, mptcp_fuso_hole_raise(0, hi, hi + 5000, hi));
	KUNIT_EXPECT_FALSE(test, mptcp_fuso_hole_raise(0, hi, hi + 5000,
						       hi - 1));
	KUNIT_EXPECT_FALSE(test, mptcp_fuso_hole_raise(0, hi, hi + 5000,
						       hi + 5001));
}

/* issue 18, item 3: a copy must not widen its subflow's view of the
 * peer's window
 */
static void mptcp_fuso_test_shared_wnd(struct kunit *test)
{
	const u64 d = U64_MAX - 1000;	/* DSNs wrap */

	/* 64 KB announced beyond d, 60 KB of it sent: 4 KB of room, what
	 * new data would see, not the 64 KB beyond the copy's old DSN d
	 */
	KUNIT_EXPECT_EQ(test, 4096ULL,
			mptcp_fuso_shared_wnd(d + 65536, d + 61440));
	/* the window is full, or the peer shrank it below snd_nxt */
	KUNIT_EXPECT_EQ(test, 0ULL, mptcp_fuso_shared_wnd(d + 100, d + 100));
	KUNIT_EXPECT_EQ(test, 0ULL, mptcp_fuso_shared_wnd(d + 100, d + 200));
}

static void fuso_test_cong_control(struct sock *sk, u32 ack, int flag,
				   const struct rate_sample *rs)
{
}

/* The window new data goes out with: an idle subflow's, as TCP restarts it */
static void mptcp_fuso_test_snd_cwnd(struct kunit *test)
{
	static const struct tcp_congestion_ops plain = {};
	static const struct tcp_congestion_ops own = {
		.cong_control = fuso_test_cong_control,
	};
	struct inet_connection_sock *icsk;
	struct tcp_sock *tp;
	struct sock *sk;

	if (!READ_ONCE(init_net.ipv4.sysctl_tcp_slow_start_after_idle))
		kunit_skip(test, "net.ipv4.tcp_slow_start_after_idle is 0");
	tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tp);
	sk = (struct sock *)tp;
	icsk = inet_csk(sk);
	sk->sk_protocol = IPPROTO_TCP;	/* mptcp's tcp_sk() checks it */
	sock_net_set(sk, &init_net);
	icsk->icsk_ca_ops = &plain;
	/* long enough that jiffies moving during a case changes nothing */
	icsk->icsk_rto = 1000;
	tp->snd_cwnd_clamp = ~0U;
	tcp_snd_cwnd_set(tp, 40);

	/* idle for longer than an RTO, no route: TCP's initial window */
	tp->lsndtime = tcp_jiffies32 - 5000;
	KUNIT_EXPECT_EQ(test, TCP_INIT_CWND, mptcp_fuso_snd_cwnd(sk));
	/* a window below it stays as it is */
	tcp_snd_cwnd_set(tp, 3);
	KUNIT_EXPECT_EQ(test, 3U, mptcp_fuso_snd_cwnd(sk));
	tcp_snd_cwnd_set(tp, 40);
	/* idle for less than an RTO: no restart */
	tp->lsndtime = tcp_jiffies32 - 10;
	KUNIT_EXPECT_EQ(test, 40U, mptcp_fuso_snd_cwnd(sk));
	/* data in flight: not idle */
	tp->lsndtime = tcp_jiffies32 - 5000;
	tp->packets_out = 2;
	KUNIT_EXPECT_EQ(test, 40U, mptcp_fuso_snd_cwnd(sk));
	tp->packets_out = 0;
	/* a congestion control of its own (BBR): TCP does not restart */
	icsk->icsk_ca_ops = &own;
	KUNIT_EXPECT_EQ(test, 40U, mptcp_fuso_snd_cwnd(sk));
}

/* ---- the DSNs of a sent skb */

#define WRAP	(U32_MAX - 999)	/* an skb that straddles 2^32 */

/* One sent skb [seq, seq + len) of a subflow, in a mapping [map,
 * map + map_len) at DSN dsn, and the DSNs it carries.
 */
struct fuso_dsn_case {
	const char *what;
	u32 seq, len, map, map_len;
	u64 dsn;
	bool ok;
	u64 lo, hi;
};

static const struct fuso_dsn_case fuso_dsn_cases[] = {
	{ "the whole mapping", 1000, 4000, 1000, 4000, 70000, true,
	  70000, 74000 },
	{ "a fragment in the middle of its mapping", 3000, 1000, 1000, 8000,
	  70000, true, 72000, 73000 },
	{ "never past the mapping (DATA_FIN, short map)", 1000, 1000, 1000,
	  600, 70000, true, 70000, 70600 },
	{ "an skb outside its mapping", 1000, 1000, 1500, 100, 70000, false },
	{ "no payload", 1000, 0, 1000, 1000, 70000, false },
	{ "sequence wrap", WRAP + 500, 3000, WRAP, 4000, U64_MAX - 100, true,
	  U64_MAX + 400, U64_MAX + 3400 },
};

KUNIT_ARRAY_PARAM_DESC(fuso_dsn, fuso_dsn_cases, what);

static void mptcp_fuso_test_skb_dsn(struct kunit *test)
{
	const struct fuso_dsn_case *c = test->param_value;
	u64 lo = 1, hi = 1;

	KUNIT_ASSERT_EQ(test, c->ok,
			mptcp_fuso_skb_dsn(c->seq, c->len, c->map, c->map_len,
					   c->dsn, &lo, &hi));
	if (!c->ok)
		return;
	KUNIT_EXPECT_EQ(test, c->lo, lo);
	KUNIT_EXPECT_EQ(test, c->hi, hi);
}

/* ---- receiver: where a received skb lies in its DSS mapping */

struct fuso_rcv_map_case {
	const char *what;
	u32 ssn, len, map_ssn;
	u16 map_len;
	bool data_fin;
	u64 map_dsn;
	bool ok;
	u64 dsn;
};

static const struct fuso_rcv_map_case fuso_rcv_map_cases[] = {
	{ "whole mapping", 1, 1000, 1, 1000, false, 5000, true, 5000 },
	/* segments 2..n of a TSO mapping: mapping start plus offset */
	{ "TSO segment 2", 1548, 1448, 100, 4344, false, 7000, true, 8448 },
	{ "TSO last segment", 2996, 1448, 100, 4344, false, 7000, true, 9896 },
	{ "mid-mapping, short", 600, 10, 100, 4344, false, 7000, true, 7500 },
	{ "runs past the mapping", 2996, 1449, 100, 4344, false, 7000 },
	{ "starts at the mapping end", 4444, 10, 100, 4344, false, 7000 },
	{ "starts before the mapping", 99, 10, 100, 4344, false, 7000 },
	{ "starts far before the mapping", 100 - (1U << 31), 10, 100, 4344,
	  false, 7000 },
	/* the DATA_FIN takes sequence space but no payload byte */
	{ "data + DATA_FIN", 1, 1000, 1, 1001, true, 5000, true, 5000 },
	{ "one byte into the DATA_FIN", 1, 1001, 1, 1001, true, 5000 },
	{ "DATA_FIN only", 1, 1, 1, 1, true, 5000 },
	{ "infinite mapping", 1, 1000, 1, 0, false, 5000 },
	{ "no payload", 1, 0, 1, 1000, false, 5000 },
	{ "largest mapping, last byte", 65534, 1, 0, 65535, false, 0, true,
	  65534 },
	/* subflow and data sequence numbers wrap */
	{ "subflow seq wraps", 0x10, 100, 0xfffffc00, 2048, false, 9000, true,
	  9000 + 0x410 },
	{ "DSN wraps", 200, 100, 100, 1000, false, U64_MAX - 10, true, 89 },
};

KUNIT_ARRAY_PARAM_DESC(fuso_rcv_map, fuso_rcv_map_cases, what);

static void mptcp_fuso_test_rcv_map(struct kunit *test)
{
	const struct fuso_rcv_map_case *c = test->param_value;
	u64 dsn = 0xdead;
	bool ok;

	ok = mptcp_fuso_rcv_map(c->ssn, c->len, c->map_ssn, c->map_len,
				c->data_fin, c->map_dsn, &dsn);
	KUNIT_EXPECT_EQ(test, c->ok, ok);
	if (c->ok)
		KUNIT_EXPECT_EQ(test, c->dsn, dsn);
	else
		KUNIT_EXPECT_EQ_MSG(test, 0xdeadULL, dsn, "dsn written");
}

/* ---- receiver: the next skb of a subflow's out-of-order queue.  M is a
 * TSO mapping of three 1448-byte segments from subflow byte 100, DSN 7000.
 */

#define FUSO_M	{ 7000, 100, 4344 }

struct fuso_rx_next_case {
	const char *what;
	struct mptcp_fuso_rx_map map;	/* the mapping before the skb */
	bool has_own;
	struct mptcp_fuso_rx_map own;	/* the skb's own mapping */
	u32 ssn, len;
	bool ok;
	u64 dsn;
	struct mptcp_fuso_rx_map after;	/* the walk's mapping, on success */
};

static const struct fuso_rx_next_case fuso_rx_next_cases[] = {
	{ "own mapping, first after the hole", {}, true, FUSO_M, 1548, 1448,
	  true, 8448, FUSO_M },
	{ "the same mapping again", FUSO_M, true, FUSO_M, 2996, 1448, true,
	  9896, FUSO_M },
	{ "no mapping, inside the one before", FUSO_M, false, {}, 2996, 1448,
	  true, 9896, FUSO_M },
	{ "no mapping, none before", {}, false, {}, 2996, 1448 },
	{ "no mapping, past the one before", FUSO_M, false, {}, 4444, 100 },
	{ "no mapping, runs past the one before", FUSO_M, false, {}, 2996,
	  1449 },
	/* what get_mapping_status() refuses (MPTCP_MIB_DSSNOMATCH) once in
	 * order, although the skb's own mapping covers it
	 */
	{ "another mapping inside the one before", FUSO_M, true,
	  { 9000, 2996, 1448 }, 2996, 1448 },
	{ "the DSN shifted", FUSO_M, true, { 7001, 100, 4344 }, 1548, 1448 },
	{ "the mapping cut short", FUSO_M, true, { 7000, 100, 2896 }, 1548,
	  1448 },
	{ "a new mapping after the one before", FUSO_M, true,
	  { 11344, 4444, 1000 }, 4444, 1000, true, 11344,
	  { 11344, 4444, 1000 } },
	{ "a new mapping short of its skb", FUSO_M, true, { 11344, 4444, 500 },
	  4444, 1000 },
	{ "an infinite mapping", FUSO_M, true, { 11344, 4444, 0 }, 4444,
	  1000 },
	{ "subflow seq wraps inside the mapping", { 9000, 0xfffffc00, 2048 },
	  false, {}, 0x10, 100, true, 9000 + 0x410,
	  { 9000, 0xfffffc00, 2048 } },
	{ "another mapping, subflow seq wrapped", { 9000, 0xfffffc00, 2048 },
	  true, { 9400, 0x10, 100 }, 0x10, 100 },
};

KUNIT_ARRAY_PARAM_DESC(fuso_rx_next, fuso_rx_next_cases, what);

static void mptcp_fuso_test_rx_next(struct kunit *test)
{
	const struct fuso_rx_next_case *c = test->param_value;
	struct mptcp_fuso_rx_map map = c->map;
	u64 dsn = 0xdead;
	bool ok;

	ok = mptcp_fuso_rx_next(&map, c->has_own ? &c->own : NULL, c->ssn,
				c->len, &dsn);
	KUNIT_EXPECT_EQ(test, c->ok, ok);
	if (!c->ok) {
		KUNIT_EXPECT_EQ_MSG(test, 0xdeadULL, dsn, "dsn written");
		return;
	}
	KUNIT_EXPECT_EQ(test, c->dsn, dsn);
	KUNIT_EXPECT_EQ(test, c->after.dsn, map.dsn);
	KUNIT_EXPECT_EQ(test, c->after.ssn, map.ssn);
	KUNIT_EXPECT_EQ(test, c->after.len, map.len);
}

/* ---- the window-bounded push: room, and where new data goes */

static void mptcp_fuso_test_room(struct kunit *test)
{
	/* free cwnd in bytes, less what the subflow holds unsent */
	KUNIT_EXPECT_EQ(test, 6000U, mptcp_sched_room(10, 4, 0, 1000));
	KUNIT_EXPECT_EQ(test, 3500U, mptcp_sched_room(10, 4, 2500, 1000));
	KUNIT_EXPECT_EQ(test, 0U, mptcp_sched_room(10, 4, 6000, 1000));
	KUNIT_EXPECT_EQ(test, 0U, mptcp_sched_room(10, 4, 9000, 1000));
	/* no room, or more in flight than cwnd after a cut */
	KUNIT_EXPECT_EQ(test, 0U, mptcp_sched_room(10, 10, 0, 1000));
	KUNIT_EXPECT_EQ(test, 0U, mptcp_sched_room(2, 10, 0, 1000));
	KUNIT_EXPECT_EQ(test, 0U, mptcp_sched_room(10, 0, 0, 0));
	/* no overflow */
	KUNIT_EXPECT_EQ(test, U32_MAX, mptcp_sched_room(U32_MAX, 0, 0, 65535));
	KUNIT_EXPECT_EQ(test, U32_MAX, mptcp_sched_room(U32_MAX, 0, 65535, 65535));
}

/* Three subflows: A the fastest with room, B the fastest with room that
 * is not in CWR, C the one with the largest window.  Each case sets which
 * exist, whether some subflow is calm (Open, Disorder) or in CWR, whether
 * the anchor C fits or is busy, and which subflow the scheduler must
 * choose (SF_NONE: wait for an ACK).
 */
enum { SF_NONE, SF_A, SF_B, SF_C };

struct fuso_sched_case {
	const char *what;
	u8 rules;
	bool any_calm, any_cwr, fast, uncut, anchor, fits, busy;
	int want;
};

#define SCHED	MPTCP_FUSO_RULE_SCHED_CAUTIOUS

static const struct fuso_sched_case fuso_sched_cases[] = {
	{ "no congestion: the fastest", SCHED, true, false,
	  true, true, true, true, false, SF_A },
	{ "loss recovery, no ECN echo: the fastest", SCHED, false, false,
	  true, false, true, true, true, SF_A },
	{ "ECN echo, rule off: the fastest", 0, true, true,
	  true, true, true, true, true, SF_A },
	{ "ECN echo on one: the fastest not in CWR", SCHED, true, true,
	  true, true, true, true, true, SF_B },
	{ "ECN echo, none outside CWR has room: wait", SCHED, true, true,
	  true, false, true, true, true, SF_NONE },
	{ "ECN echo, none calm: the largest window", SCHED, false, true,
	  true, false, true, true, true, SF_C },
	{ "none calm, anchor full and busy: wait", SCHED, false, true,
	  true, false, true, false, true, SF_NONE },
	{ "none calm, anchor full and idle: the fastest", SCHED, false, true,
	  true, false, true, false, false, SF_A },
	{ "none calm, no anchor (no memory): the fastest", SCHED, false, true,
	  true, false, false, false, false, SF_A },
	{ "nothing has room: wait", SCHED, true, false,
	  false, false, true, false, true, SF_NONE },
};

KUNIT_ARRAY_PARAM_DESC(fuso_sched, fuso_sched_cases, what);

static void mptcp_fuso_test_sched_window(struct kunit *test)
{
	const struct fuso_sched_case *c = test->param_value;
	static const u32 want_room[] = { 0, 1000, 2000, 3000 };
	static int sf[4];	/* stand-ins for subflow contexts */
	struct mptcp_sched_window_view v = {};
	struct mptcp_sched_window_cand *got;

	v.any_calm = c->any_calm;
	v.any_cwr = c->any_cwr;
	if (c->fast)
		v.fast = (struct mptcp_sched_window_cand){ &sf[SF_A], 1000,
							   100, 1, 0 };
	if (c->uncut)
		v.uncut = (struct mptcp_sched_window_cand){ &sf[SF_B], 2000,
							    200, 1, 0 };
	if (c->anchor)
		v.anchor = (struct mptcp_sched_window_cand){ &sf[SF_C], 3000,
							     U32_MAX - 40,
							     c->fits, c->busy };
	got = mptcp_sched_window_choose(&v, c->rules);
	if (c->want == SF_NONE) {
		KUNIT_EXPECT_NULL(test, got);
		return;
	}
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_PTR_EQ(test, (void *)&sf[c->want], got->subflow);
	KUNIT_EXPECT_EQ(test, want_room[c->want], got->room);
}

/* net.mptcp.fuso alone: on the default scheduler a connection pushes
 * within the windows only with the sender on; "window" always; any other
 * scheduler never.  Past a response's first MB, as by default.
 */
static void mptcp_fuso_test_sched_windowed(struct kunit *test)
{
	static const struct {
		u8 sched, mode;
		bool want;
	} c[] = {
		{ MPTCP_FUSO_SCHED_DEFAULT, 0, false },
		{ MPTCP_FUSO_SCHED_DEFAULT, MPTCP_FUSO_TX, true },
		{ MPTCP_FUSO_SCHED_DEFAULT, MPTCP_FUSO_RX, false },
		{ MPTCP_FUSO_SCHED_DEFAULT, MPTCP_FUSO_MODE_MASK, true },
		{ MPTCP_FUSO_SCHED_WINDOW, 0, true },
		{ MPTCP_FUSO_SCHED_WINDOW, MPTCP_FUSO_MODE_MASK, true },
		{ MPTCP_FUSO_SCHED_OTHER, 0, false },
		{ MPTCP_FUSO_SCHED_OTHER, MPTCP_FUSO_MODE_MASK, false },
	};
	struct mptcp_sock *msk;
	int i;

	msk = kunit_kzalloc(test, sizeof(*msk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msk);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		msk->fuso_sched = c[i].sched;
		msk->fuso_mode = c[i].mode;
		KUNIT_EXPECT_EQ_MSG(test, c[i].want, mptcp_sched_windowed(msk),
				    "scheduler kind %u, mode %u", c[i].sched,
				    c[i].mode);
	}

	msk->fuso_start_seq = U64_MAX - 100;
	msk->snd_nxt = msk->fuso_start_seq + MPTCP_FUSO_SCHED_SHORT;
	KUNIT_EXPECT_FALSE(test, mptcp_sched_window_long(msk));
	msk->snd_nxt++;
	KUNIT_EXPECT_TRUE(test, mptcp_sched_window_long(msk));
}

static struct kunit_case mptcp_fuso_cases[] = {
	KUNIT_CASE(mptcp_fuso_test_cost_basics),
	KUNIT_CASE(mptcp_fuso_test_cost_weights),
	KUNIT_CASE(mptcp_fuso_test_cost_large),
	KUNIT_CASE(mptcp_fuso_test_pick_cost),
	KUNIT_CASE(mptcp_fuso_test_pick_rtt_ties),
	KUNIT_CASE(mptcp_fuso_test_pick_eligible),
	KUNIT_CASE(mptcp_fuso_test_pick_never_sent),
	KUNIT_CASE(mptcp_fuso_test_pick_backup),
	KUNIT_CASE(mptcp_fuso_test_pick_not_holder),
	KUNIT_CASE(mptcp_fuso_test_hole),
	KUNIT_CASE(mptcp_fuso_test_shared_wnd),
	KUNIT_CASE(mptcp_fuso_test_snd_cwnd),
	KUNIT_CASE_PARAM(mptcp_fuso_test_skb_dsn, fuso_dsn_gen_params),
	KUNIT_CASE_PARAM(mptcp_fuso_test_rcv_map, fuso_rcv_map_gen_params),
	KUNIT_CASE_PARAM(mptcp_fuso_test_rx_next, fuso_rx_next_gen_params),
	KUNIT_CASE(mptcp_fuso_test_room),
	KUNIT_CASE_PARAM(mptcp_fuso_test_sched_window, fuso_sched_gen_params),
	KUNIT_CASE(mptcp_fuso_test_sched_windowed),
	{}
};

static struct kunit_suite mptcp_fuso_suite = {
	.name = "mptcp-fuso",
	.test_cases = mptcp_fuso_cases,
};

kunit_test_suite(mptcp_fuso_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for MPTCP FUSO");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
