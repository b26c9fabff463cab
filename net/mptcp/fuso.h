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
#include <linux/types.h>

struct net;

/* net.mptcp.fuso bits */
#define MPTCP_FUSO_TX		BIT(0)	/* sender: proactive recovery */
#define MPTCP_FUSO_RX		BIT(1)	/* receiver: subflow-OOO push */
#define MPTCP_FUSO_MODE_MASK	(MPTCP_FUSO_TX | MPTCP_FUSO_RX)

/* net.mptcp.fuso_alpha / fuso_beta: weights in percent */
#define MPTCP_FUSO_WEIGHT_MAX		100
#define MPTCP_FUSO_WEIGHT_DEFAULT	50

#ifdef CONFIG_MPTCP_FUSO

int __init mptcp_fuso_init(void);
u8 mptcp_fuso_mode(const struct net *net);
u8 mptcp_fuso_alpha(const struct net *net);
u8 mptcp_fuso_beta(const struct net *net);

#if IS_ENABLED(CONFIG_KUNIT)
struct ctl_table;
/* The per-netns sysctl template, for the KUnit tests. */
extern const struct ctl_table mptcp_fuso_sysctl_template[];
extern const unsigned int mptcp_fuso_sysctl_template_size;
#endif

#else /* !CONFIG_MPTCP_FUSO */

static inline int mptcp_fuso_init(void)
{
	return 0;
}

#endif /* CONFIG_MPTCP_FUSO */

#endif /* __MPTCP_FUSO_H */
