// SPDX-License-Identifier: GPL-2.0
/* KUnit tests for FUSO (net/mptcp/fuso.c). */

#include <kunit/test.h>
#include <linux/string.h>
#include <linux/sysctl.h>

#include "fuso.h"

#ifdef CONFIG_SYSCTL
static const struct ctl_table *fuso_sysctl(struct kunit *test, const char *name)
{
	unsigned int i;

	for (i = 0; i < mptcp_fuso_sysctl_template_size; i++)
		if (!strcmp(mptcp_fuso_sysctl_template[i].procname, name))
			return &mptcp_fuso_sysctl_template[i];
	KUNIT_FAIL(test, "no sysctl net.mptcp.%s", name);
	return NULL;
}

/* Write @s to a copy of sysctl @name bound to @val, as a write(2) would. */
static int fuso_sysctl_write(struct kunit *test, const char *name, u8 *val,
			     const char *s)
{
	const struct ctl_table *tmpl = fuso_sysctl(test, name);
	struct ctl_table t;
	char buf[32];
	size_t len;
	loff_t pos = 0;

	KUNIT_ASSERT_NOT_NULL(test, tmpl);
	t = *tmpl;
	t.data = val;
	len = strscpy(buf, s, sizeof(buf));
	return t.proc_handler(&t, 1, buf, &len, &pos);
}

static void fuso_sysctl_check_range(struct kunit *test, const char *name,
				    unsigned int max)
{
	static const char * const bad[] = { "-1", "256", "1000", "x" };
	char s[8];
	unsigned int v;
	u8 val = 0;
	int i;

	for (v = 0; v <= max; v++) {
		snprintf(s, sizeof(s), "%u", v);
		KUNIT_EXPECT_EQ_MSG(test, 0, fuso_sysctl_write(test, name, &val, s),
				    "%s=%s rejected", name, s);
		KUNIT_EXPECT_EQ(test, v, (unsigned int)val);
	}

	/* Rejected writes leave the value alone. */
	snprintf(s, sizeof(s), "%u", max + 1);
	KUNIT_EXPECT_EQ_MSG(test, -EINVAL, fuso_sysctl_write(test, name, &val, s),
			    "%s=%s accepted", name, s);
	KUNIT_EXPECT_EQ(test, max, (unsigned int)val);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_NE_MSG(test, 0, fuso_sysctl_write(test, name, &val, bad[i]),
				    "%s='%s' accepted", name, bad[i]);
		KUNIT_EXPECT_EQ(test, max, (unsigned int)val);
	}
}

static void mptcp_fuso_test_sysctl_mode(struct kunit *test)
{
	fuso_sysctl_check_range(test, "fuso", MPTCP_FUSO_MODE_MASK);
}

static void mptcp_fuso_test_sysctl_weights(struct kunit *test)
{
	fuso_sysctl_check_range(test, "fuso_alpha", MPTCP_FUSO_WEIGHT_MAX);
	fuso_sysctl_check_range(test, "fuso_beta", MPTCP_FUSO_WEIGHT_MAX);
}

static void mptcp_fuso_test_sysctl_table(struct kunit *test)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, 3U, mptcp_fuso_sysctl_template_size);
	for (i = 0; i < mptcp_fuso_sysctl_template_size; i++) {
		const struct ctl_table *t = &mptcp_fuso_sysctl_template[i];

		KUNIT_EXPECT_EQ(test, (umode_t)0644, t->mode);
		KUNIT_EXPECT_EQ(test, (int)sizeof(u8), t->maxlen);
		/* .data is bound per netns, never in the shared template */
		KUNIT_EXPECT_NULL(test, t->data);
	}
}
#endif /* CONFIG_SYSCTL */

static struct kunit_case mptcp_fuso_cases[] = {
#ifdef CONFIG_SYSCTL
	KUNIT_CASE(mptcp_fuso_test_sysctl_mode),
	KUNIT_CASE(mptcp_fuso_test_sysctl_weights),
	KUNIT_CASE(mptcp_fuso_test_sysctl_table),
#endif
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
