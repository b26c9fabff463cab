// SPDX-License-Identifier: GPL-2.0
/* Multipath TCP: FUSO proactive multi-path loss recovery.
 *
 * FUSO ("Fast and Cautious", Chen et al., USENIX ATC'16) turns the path
 * diversity of an MPTCP connection into fast loss recovery for short flows.
 *
 * A short flow that loses its last segments has no later data to produce
 * duplicate ACKs, so plain TCP can only recover them with a tail loss probe
 * or a retransmission timeout; in a data centre the minimum RTO is tens of
 * RTTs, and it is what sets the 99th percentile of flow completion time.
 *
 * FUSO acts when the connection has no new data to send and some subflow
 * still has congestion window to spare.  It then copies the oldest
 * un-acknowledged, not yet protected segment of the *worst* subflow (the one
 * with the highest loss metric C_l) onto the *best* one (the lowest C_l):
 *
 *   C_l = alpha * (retransmitted / sent) + beta * (1 / segments sent since,
 *                                                  and including, the last
 *                                                  retransmission)
 *
 * with ties broken by RTT (largest is worst, smallest is best).  The copy
 * is new data for the best subflow and stays under its congestion control;
 * each segment is protected at most once.  On the receiving side, segments
 * that are out of order at the subflow level are pushed straight into the
 * data-level queue, so a data-level hole that a copy filled is not held
 * behind a subflow-level hole.
 *
 * Everything is off unless net.mptcp.fuso enables it in the network
 * namespace: bit 0 the sender recovery, bit 1 the receiver push.
 * net.mptcp.fuso_alpha and net.mptcp.fuso_beta (0..100, default 50) weight
 * the two terms of C_l.  Counters are the MPTcpExtFuso* entries of
 * /proc/net/netstat.
 *
 * This file holds the per-netns knobs.
 */

#include <linux/init.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <kunit/visibility.h>

#include "fuso.h"

struct mptcp_fuso_pernet {
#ifdef CONFIG_SYSCTL
	struct ctl_table_header *ctl_hdr;
#endif
	u8 mode;
	u8 alpha;
	u8 beta;
};

static unsigned int mptcp_fuso_pernet_id __read_mostly;

static struct mptcp_fuso_pernet *mptcp_fuso_get_pernet(const struct net *net)
{
	return net_generic(net, mptcp_fuso_pernet_id);
}

/* Lockless: the sysctls may change at any time; callers snapshot them. */
u8 mptcp_fuso_mode(const struct net *net)
{
	return READ_ONCE(mptcp_fuso_get_pernet(net)->mode);
}

u8 mptcp_fuso_alpha(const struct net *net)
{
	return READ_ONCE(mptcp_fuso_get_pernet(net)->alpha);
}

u8 mptcp_fuso_beta(const struct net *net)
{
	return READ_ONCE(mptcp_fuso_get_pernet(net)->beta);
}

static void mptcp_fuso_set_defaults(struct mptcp_fuso_pernet *pernet)
{
	pernet->mode = 0;
	pernet->alpha = MPTCP_FUSO_WEIGHT_DEFAULT;
	pernet->beta = MPTCP_FUSO_WEIGHT_DEFAULT;
}

#ifdef CONFIG_SYSCTL
/* Entries 0..2 are bound to mode, alpha and beta of each netns. */
VISIBLE_IF_KUNIT const struct ctl_table mptcp_fuso_sysctl_template[] = {
	{
		.procname	= "fuso",
		.maxlen		= sizeof(u8),
		.mode		= 0644,
		.proc_handler	= proc_dou8vec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_THREE,
	},
	{
		.procname	= "fuso_alpha",
		.maxlen		= sizeof(u8),
		.mode		= 0644,
		.proc_handler	= proc_dou8vec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE_HUNDRED,
	},
	{
		.procname	= "fuso_beta",
		.maxlen		= sizeof(u8),
		.mode		= 0644,
		.proc_handler	= proc_dou8vec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE_HUNDRED,
	},
};
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_sysctl_template);

VISIBLE_IF_KUNIT const unsigned int mptcp_fuso_sysctl_template_size =
	ARRAY_SIZE(mptcp_fuso_sysctl_template);
EXPORT_SYMBOL_IF_KUNIT(mptcp_fuso_sysctl_template_size);

static int mptcp_fuso_sysctl_register(struct net *net,
				      struct mptcp_fuso_pernet *pernet)
{
	struct ctl_table *table;

	/* The limits above are spelled as SYSCTL_* constants. */
	BUILD_BUG_ON(MPTCP_FUSO_MODE_MASK != 3);
	BUILD_BUG_ON(MPTCP_FUSO_WEIGHT_MAX != 100);

	table = kmemdup(mptcp_fuso_sysctl_template,
			sizeof(mptcp_fuso_sysctl_template), GFP_KERNEL);
	if (!table)
		return -ENOMEM;

	table[0].data = &pernet->mode;
	table[1].data = &pernet->alpha;
	table[2].data = &pernet->beta;

	pernet->ctl_hdr = register_net_sysctl_sz(net, "net/mptcp", table,
						 ARRAY_SIZE(mptcp_fuso_sysctl_template));
	if (!pernet->ctl_hdr) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

static void mptcp_fuso_sysctl_unregister(struct mptcp_fuso_pernet *pernet)
{
	const struct ctl_table *table = pernet->ctl_hdr->ctl_table_arg;

	unregister_net_sysctl_table(pernet->ctl_hdr);
	kfree(table);
}
#else
static int mptcp_fuso_sysctl_register(struct net *net,
				      struct mptcp_fuso_pernet *pernet)
{
	return 0;
}

static void mptcp_fuso_sysctl_unregister(struct mptcp_fuso_pernet *pernet) {}
#endif /* CONFIG_SYSCTL */

static int __net_init mptcp_fuso_net_init(struct net *net)
{
	struct mptcp_fuso_pernet *pernet = mptcp_fuso_get_pernet(net);

	mptcp_fuso_set_defaults(pernet);
	return mptcp_fuso_sysctl_register(net, pernet);
}

static void __net_exit mptcp_fuso_net_exit(struct net *net)
{
	mptcp_fuso_sysctl_unregister(mptcp_fuso_get_pernet(net));
}

static struct pernet_operations mptcp_fuso_pernet_ops = {
	.init	= mptcp_fuso_net_init,
	.exit	= mptcp_fuso_net_exit,
	.id	= &mptcp_fuso_pernet_id,
	.size	= sizeof(struct mptcp_fuso_pernet),
};

int __init mptcp_fuso_init(void)
{
	return register_pernet_subsys(&mptcp_fuso_pernet_ops);
}
