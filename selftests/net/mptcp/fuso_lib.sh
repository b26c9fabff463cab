#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the FUSO selftests (fuso.sh, fuso_faults.sh): the
# two-path topology, the FUSO sysctls and counters, and result reporting.
# Source it after mptcp_lib.sh.  The callers own the globals ns1, ns2
# and ret.
#
#   ns1 (client)  ns1eth1 ------ path 1 ------ ns2eth1  ns2 (server)
#                 10.0.1.1                     10.0.1.2
#                 dead:beef:1::1               dead:beef:1::2
#                 ns1eth2 ------ path 2 ------ ns2eth2
#                 10.0.2.1                     10.0.2.2
#
# The client opens the connection on path 1 and a second subflow on path 2
# (one MPTCP subflow per path).

fuso_counters="FusoRecovery FusoRecoverySameSubflow FusoNoBestSubflow
	       FusoAllProtected FusoDeferred FusoRounds FusoRoundsEmpty
	       FusoRcvOfoPush FusoRcvOfoInSeq FusoRcvOfoSkip FusoRcvAckNow
	       FusoTimerSpread"

# Exit with a skip unless this kernel has FUSO.
fuso_lib_require()
{
	if [ ! -f /proc/sys/net/mptcp/fuso ]; then
		mptcp_lib_pr_skip "FUSO not supported (CONFIG_MPTCP_FUSO)"
		mptcp_lib_fail_if_expected_feature "FUSO sysctls"
		exit "${KSFT_SKIP}"
	fi
}

# $1: test name; $2: result (0 pass, 1 fail)
result()
{
	if [ "${2}" = 0 ]; then
		mptcp_lib_pr_ok
	else
		mptcp_lib_pr_fail
		# a flaky subtest reports, and fails only with
		# SELFTESTS_MPTCP_LIB_OVERRIDE_FLAKY=1
		mptcp_lib_subtest_is_flaky || ret=${KSFT_FAIL}
	fi
	mptcp_lib_result_code "${2}" "${1}"
}

# $1: ns; $2: sysctl name under net.mptcp
fuso_sysctl_get()
{
	ip netns exec "${1}" cat "/proc/sys/net/mptcp/${2}"
}

# $1: ns; $2: name; $3: value.  Prints the write error, if any.
fuso_sysctl_write()
{
	ip netns exec "${1}" bash -c "echo '${3}' > /proc/sys/net/mptcp/${2}" 2>&1
}

# $1: FUSO mode, in both namespaces (new connections take it)
set_mode()
{
	fuso_sysctl_write "${ns1}" fuso "${1}" >/dev/null
	fuso_sysctl_write "${ns2}" fuso "${1}" >/dev/null
}

# $1: ns.  Sum of all FUSO counters.
fuso_counter_sum()
{
	local sum=0
	local c v

	for c in ${fuso_counters}; do
		v=$(mptcp_lib_get_counter "${1}" "MPTcpExt${c}") || return 1
		sum=$((sum + v))
	done
	echo "${sum}"
}

# Recovery copies sent so far, both namespaces.
fuso_recoveries()
{
	echo $(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRecovery) +
		$(mptcp_lib_get_counter "${ns2}" MPTcpExtFusoRecovery)))
}

# $1: ns; $2: dev
tx_bytes()
{
	ip netns exec "${1}" cat "/sys/class/net/${2}/statistics/tx_bytes"
}

# $1: ns; $2: dev
mac()
{
	ip netns exec "${1}" cat "/sys/class/net/${2}/address"
}

# $1: path (1 or 2).  Static neighbours on both ends: no ARP/NDP through
# a lossy path.
fuso_lib_static_neigh()
{
	local i=${1}

	ip -net "${ns1}" neigh replace "10.0.${i}.2" dev "ns1eth${i}" \
		lladdr "$(mac "${ns2}" "ns2eth${i}")" nud permanent
	ip -net "${ns1}" neigh replace "dead:beef:${i}::2" dev "ns1eth${i}" \
		lladdr "$(mac "${ns2}" "ns2eth${i}")" nud permanent
	ip -net "${ns2}" neigh replace "10.0.${i}.1" dev "ns2eth${i}" \
		lladdr "$(mac "${ns1}" "ns1eth${i}")" nud permanent
	ip -net "${ns2}" neigh replace "dead:beef:${i}::1" dev "ns2eth${i}" \
		lladdr "$(mac "${ns1}" "ns1eth${i}")" nud permanent
}

# The path 2 subflow is bound to ns1eth2 but goes to the server's path 1
# address: each path has a default route.  (Also after a link flap, which
# removes the routes through the link.)
fuso_lib_routes()
{
	ip -net "${ns1}" route replace default via 10.0.1.2
	ip -net "${ns1}" -6 route replace default via dead:beef:1::2
	ip -net "${ns1}" route replace default via 10.0.2.2 metric 101
	ip -net "${ns1}" -6 route replace default via dead:beef:2::2 metric 101
}

# Namespaces ns1 and ns2 (mptcp_lib_ns_init), two veth paths with
# addresses, routes and static neighbours, no qdisc; the client's
# subflow endpoints on path 2 (id 2 for IPv4, 3 for IPv6).
fuso_lib_setup_paths()
{
	local i

	mptcp_lib_ns_init ns1 ns2
	for i in 1 2; do
		ip link add "ns1eth${i}" netns "${ns1}" type veth \
			peer name "ns2eth${i}" netns "${ns2}"
		ip -net "${ns1}" addr add "10.0.${i}.1/24" dev "ns1eth${i}"
		ip -net "${ns1}" addr add "dead:beef:${i}::1/64" dev "ns1eth${i}" nodad
		ip -net "${ns1}" link set "ns1eth${i}" up
		ip -net "${ns2}" addr add "10.0.${i}.2/24" dev "ns2eth${i}"
		ip -net "${ns2}" addr add "dead:beef:${i}::2/64" dev "ns2eth${i}" nodad
		ip -net "${ns2}" link set "ns2eth${i}" up
	done
	fuso_lib_routes
	fuso_lib_static_neigh 1
	fuso_lib_static_neigh 2

	mptcp_lib_pm_nl_set_limits "${ns1}" 2 2
	mptcp_lib_pm_nl_set_limits "${ns2}" 2 2
	fuso_lib_add_endpoints
}

# The client's subflow endpoints on path 2.
fuso_lib_add_endpoints()
{
	mptcp_lib_pm_nl_add_endpoint "${ns1}" 10.0.2.1 dev ns1eth2 flags subflow id 2
	mptcp_lib_pm_nl_add_endpoint "${ns1}" dead:beef:2::1 dev ns1eth2 flags subflow id 3
}
