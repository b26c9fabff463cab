#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# FUSO fault suite: MPTCP with FUSO on (fuso=3, sender and receiver) under
# the faults that networks and their operators produce.  Every case runs
# transfers between two namespaces over two paths (fuso_lib.sh: 1 ms and
# 20 Mbit/s each way on each path, 1 Mbit/s for the mid-transfer faults)
# while the fault hits, and checks:
# - integrity: every byte arrives intact (cmp of both directions of every
#   transfer; the many-connection case checks every byte of every
#   response);
# - bounded time: every transfer runs under a timeout; a transfer that
#   stalls fails the case;
# - the kernel log: no new BUG/WARNING/KASAN/UBSAN/lockdep/RCU/kmemleak
#   report while the case ran.
# A fault meant to hit mid-transfer must hit while the transfer runs: the
# transfer must still be running, with data still to come, both when the
# fault is about to be applied and once it is in place, or the case fails
# (it would have tested nothing).
#
# Cases (FUSO_FAULTS_CASES, default all, in this order):
#   random-loss    2 % random loss on path 2
#   bursty-loss    bursty loss on path 2 (netem gemodel)
#   blackhole      100 % loss on path 2 from mid-transfer on
#   loss-all       2 % random loss on both paths
#   reorder        reordering, duplication and corruption on path 2
#                  (netem corrupt: TCP's checksum drops those)
#   link-flap      path 2's link down for 1 s mid-transfer
#   endpoint-del   the client's path 2 endpoint deleted mid-transfer
#   subflow-readd  the client's path 2 endpoint deleted and added again,
#                  three times, mid-transfer: subflows go and come back
#   addr-change    the client's path 2 address changed mid-transfer (old
#                  endpoint and address removed, a new address and
#                  endpoint added): the connection goes on through a new
#                  subflow from the new address
#   subflow-rst    TCP resets on path 2 for 0.3 s mid-transfer (every
#                  segment the client sends there is answered with a RST):
#                  its subflows die and the connection goes on
#   fallback       a peer without MPTCP (server, then client): plain TCP;
#                  FUSO must not send a single copy
#   checksum       DSS checksums on (net.mptcp.checksum_enabled=1), 2 % loss
#   csum-corrupt   DSS checksums on, and one byte in 20 packets of the
#                  server's data on path 2 inverted where TCP cannot see
#                  it (as the control case does): MPTCP's checksum must
#                  catch each one (MPTcpExtDataCsumErr), and no corrupted
#                  byte may reach the application
#   tiny-buffers   tcp_rmem and tcp_wmem of 4 KB, 2 % loss
#   fuso-flip      net.mptcp.fuso flipped 0/1/2/3 every 20 ms during bulk
#                  transfers and 40 new short connections
#   many-conns     128 concurrent connections, 1 % loss on path 2
#   control        the integrity check's own test: one byte in 20 packets
#                  of data is inverted (tc pedit) where neither TCP nor
#                  MPTCP (checksums off) can see it; the case passes only
#                  if the check reports the corruption
# The suite ends with a check that FUSO sent copies, and one summary line.
#
# The soak (FUSO_FAULTS_SOAK=N, make soak): the control case once, then
# rounds until N transfers have been checked.  Each round draws, from its
# own seed, one case (from FUSO_FAULTS_CASES, default every case but the
# control), new payload sizes for that case's transfers, and a load of
# request/response connections that runs beside the case under the same
# fault (fuso_rr.py --conns with --random-sizes and --races: response
# sizes of 1 byte to 256 KiB, and connections that end in a shutdown
# race or a close in the middle of a response).  Every response and both
# directions of every transfer are checked byte for byte; a transfer
# counts one direction of a bulk transfer or one checked response.  A
# failing round prints how to replay it alone, with its seed.  What the
# path manager does not do under the load (a subflow not removed or not
# added for an endpoint change, no path 2 subflow for a mid-transfer
# fault to hit) is counted and reported there instead of failing the
# round (pm_missed()); integrity, time bounds and the kernel log fail it.
#
# Environment:
#   FUSO_FAULTS_CASES  cases to run (names, space separated)
#   FUSO_FAULTS_SIZE   KiB sent each way per transfer (default 1024)
#   FUSO_FAULTS_MODE   the net.mptcp.fuso value under test (default 3; 0
#                      runs the same faults on plain MPTCP, to tell a FUSO
#                      bug from an MPTCP one)
#   FUSO_FAULTS_SCHED  the net.mptcp.scheduler under test (default
#                      "default"; "window", the window-bounded scheduler,
#                      keeps data at the MPTCP level until a subflow has
#                      room, which a dead path must not stall)
#   FUSO_FAULTS_BREAK=corrupt  corrupt data undetectably in every case (as
#                      the control case does): every case but the control
#                      must then fail.  Proves that each case's checks catch
#                      a corrupted byte.
#   FUSO_FAULTS_SLOW   a whole factor (1..10, default 1) for every time
#                      bound, and a divisor of the mid-transfer faults'
#                      rate: for sanitizer kernels under emulation, where
#                      starting a program takes most of a second
#   FUSO_FAULTS_LIMIT  netem's queue limit on every path, in packets
#                      (default 1000, tc's).  With 250, many-conns fills
#                      the queues: the reproducer of the TSQ loop that
#                      froze virtual time (Documentation/testing.md)
#   FUSO_FAULTS_SOAK   run the soak until this many transfers are checked
#   FUSO_FAULTS_SEED   the soak's first round's seed (default 1; round r
#                      uses SEED + r)
#   FUSO_FAULTS_SOAK_CONNS  the most request/response connections a soak
#                      round adds (default 24; at least 4)
#   FUSO_FAULTS_KCSAN=1  a KCSAN report ("BUG: KCSAN:") does not fail a
#                      case: on a KCSAN kernel the runner sorts the reports
#                      afterwards (data races elsewhere in the kernel are
#                      not FUSO's); any other report still fails
#
# Needs python3 (fuso_rr.py), and iptables and tc with the mangle table, the
# statistic and length matches, clsact, fw and pedit (control case).

. "$(dirname "${0}")/mptcp_lib.sh"
. "$(dirname "${0}")/fuso_lib.sh"

# this test sets net.mptcp.fuso itself
unset SELFTESTS_MPTCP_LIB_FUSO

ns1=""
ns2=""
tmpdir=""
sin_size=0
ret=0
size_kb=${FUSO_FAULTS_SIZE:-1024}
all_cases="random-loss bursty-loss blackhole loss-all reorder link-flap
	endpoint-del subflow-readd addr-change subflow-rst fallback checksum
	csum-corrupt tiny-buffers fuso-flip many-conns control"
if [ -n "${soak}" ]; then
	cases=${FUSO_FAULTS_CASES:-${all_cases% control}}
else
	cases=${FUSO_FAULTS_CASES:-${all_cases}}
fi
break_mode=${FUSO_FAULTS_BREAK:-}
mode=${FUSO_FAULTS_MODE:-3}
sched=${FUSO_FAULTS_SCHED:-default}
port=20000
slow=${FUSO_FAULTS_SLOW:-1}
if [[ ! "${slow}" =~ ^([1-9]|10)$ ]]; then
	echo "FUSO_FAULTS_SLOW must be a whole number from 1 to 10, not '${slow}'" >&2
	exit 1
fi
timeout_poll=$((30 * slow))
timeout_test=$((90 * slow))
dump_after=$((20 * slow))
rate=20mbit
netem_limit=${FUSO_FAULTS_LIMIT:-1000}
if [[ ! "${netem_limit}" =~ ^[1-9][0-9]{0,8}$ ]]; then
	echo "FUSO_FAULTS_LIMIT must be a packet count (1 to 999999999)," \
		"not '${netem_limit}'" >&2
	exit 1
fi
tiny_buf=${FUSO_FAULTS_TINY_BUF:-4096}
soak=${FUSO_FAULTS_SOAK:-}
seed=${FUSO_FAULTS_SEED:-1}
soak_conns=${FUSO_FAULTS_SOAK_CONNS:-24}
if [ -n "${soak}" ] && [[ ! "${soak}" =~ ^[1-9][0-9]{0,6}$ ]]; then
	echo "FUSO_FAULTS_SOAK must be a transfer count (1 to 9999999), not '${soak}'" >&2
	exit 1
fi
if [[ ! "${seed}" =~ ^[0-9]{1,9}$ ]]; then
	echo "FUSO_FAULTS_SEED must be a whole number (0 to 999999999), not '${seed}'" >&2
	exit 1
fi
if [[ ! "${soak_conns}" =~ ^[0-9]{1,3}$ ]] || [ "${soak_conns}" -lt 4 ]; then
	echo "FUSO_FAULTS_SOAK_CONNS must be a whole number from 4 to 999, not '${soak_conns}'" >&2
	exit 1
fi
# the soak's load beside a case: its port, and what it checked
load_pid=""
load_port=""
MPTCP_LIB_TEST_FORMAT="%02u %-62s"

# Kernel reports that fail a case (as scripts/vm-init, the VM runner, does
# for a whole run).
splat_re='BUG:|WARNING:|KASAN:|UBSAN:|kmemleak: [0-9]+ new suspected'
splat_re+='|possible circular locking|possible recursive locking'
splat_re+='|inconsistent lock state|suspicious RCU usage|Kernel panic|Oops'
splat_re+='|general protection fault|refcount_t:|list_(add|del) corruption'
splat_re+='|hung_task|INFO: task .* blocked|detected stall|soft lockup'
splat_re+='|ref_tracker:'

# totals for the summary line
n_cases=0
n_transfers=0
n_bytes=0

#shellcheck disable=SC2317 # used in the trap
cleanup()
{
	[ -n "${flip_pid:-}" ] && kill "${flip_pid}" 2>/dev/null
	[ -n "${rr_pid:-}" ] && kill "${rr_pid}" 2>/dev/null
	[ -n "${load_pid:-}" ] && kill "${load_pid}" 2>/dev/null
	[ -n "${load_srv:-}" ] && kill "${load_srv}" 2>/dev/null
	rm -rf "${tmpdir}"
	mptcp_lib_ns_exit "${ns1}" "${ns2}"
}

mptcp_lib_check_mptcp
mptcp_lib_check_tools ip tc iptables
if ! python3 -c 'import socket' 2>/dev/null; then
	mptcp_lib_pr_skip "python3 not available"
	exit "${KSFT_SKIP}"
fi
fuso_lib_require

case "${mode}" in
0|1|2|3) ;;
*) echo "FUSO_FAULTS_MODE must be 0..3, not '${mode}'" >&2; exit 1 ;;
esac
case "${sched}" in
default|window) ;;
*) echo "FUSO_FAULTS_SCHED must be default or window, not '${sched}'" >&2; exit 1 ;;
esac
case "${break_mode}" in
""|corrupt) ;;
*) echo "FUSO_FAULTS_BREAK must be empty or 'corrupt', not '${break_mode}'" >&2; exit 1 ;;
esac

# $1: ns; $2: dev; $3...: netem parameters on top of the base ones
path_netem()
{
	local ns=${1} dev=${2}

	shift 2
	tc -n "${ns}" qdisc replace dev "${dev}" root netem delay 1ms \
		rate "${rate}" limit "${netem_limit}" "${@}"
}

# $1...: netem parameters for path 2, both directions
path2()
{
	path_netem "${ns1}" ns1eth2 "${@}"
	path_netem "${ns2}" ns2eth2 "${@}"
}

# $1...: netem parameters for path 1, both directions
path1()
{
	path_netem "${ns1}" ns1eth1 "${@}"
	path_netem "${ns2}" ns2eth1 "${@}"
}

# Undetectable corruption of the server's data: every 20th packet of
# 150 bytes or more on the paths gets byte 148 (in the payload)
# inverted, and its TCP checksum recomputed.  On veth, TCP would not
# even have checked it.
#
# $1: the paths (default "1 2")
corrupt_on()
{
	local i

	for i in ${1:-1 2}; do
		ip netns exec "${ns2}" iptables -t mangle -A OUTPUT -o "ns2eth${i}" \
			-p tcp -m length --length 150:65535 \
			-m statistic --mode nth --every 20 --packet 0 \
			-j MARK --set-mark 42 || return 1
		tc -n "${ns2}" qdisc add dev "ns2eth${i}" clsact || return 1
		tc -n "${ns2}" filter add dev "ns2eth${i}" egress protocol ip \
			prio 1000 handle 42 fw action pedit munge offset 148 u8 \
			invert pipe csum tcp || return 1
	done
}

corrupt_off()
{
	local i

	ip netns exec "${ns2}" iptables -t mangle -F OUTPUT
	for i in 1 2; do
		tc -n "${ns2}" qdisc del dev "ns2eth${i}" clsact 2>/dev/null
	done
	return 0
}

# Back to the base state between cases: no impairment, FUSO on, default
# buffers and checksums, both endpoints in place.
baseline()
{
	local dev

	rate=20mbit
	# a new qdisc, an empty queue: nothing the last case left in it
	# (up to 1 000 packets, 12 s at a mid-transfer case's 1 Mbit/s)
	# delays the next case's handshakes
	for dev in ns1eth1 ns1eth2; do
		tc -n "${ns1}" qdisc del dev "${dev}" root 2>/dev/null
	done
	for dev in ns2eth1 ns2eth2; do
		tc -n "${ns2}" qdisc del dev "${dev}" root 2>/dev/null
	done
	path1
	path2
	set_mode "${mode}"
	local ns
	for ns in "${ns1}" "${ns2}"; do
		ip netns exec "${ns}" sysctl -q net.mptcp.checksum_enabled=0
		ip netns exec "${ns}" sysctl -q net.mptcp.scheduler="${sched}"
		ip netns exec "${ns}" sysctl -q net.ipv4.tcp_rmem="${rmem_default}"
		ip netns exec "${ns}" sysctl -q net.ipv4.tcp_wmem="${wmem_default}"
	done
	corrupt_off
	[ "${break_mode}" = corrupt ] && corrupt_on
	return 0
}

setup()
{
	tmpdir=$(mktemp -d)
	trap cleanup EXIT

	fuso_lib_setup_paths
	# IPv6 addresses survive the link flap
	ip netns exec "${ns1}" sysctl -q net.ipv6.conf.ns1eth2.keep_addr_on_down=1
	# MPTCP stays on: after an MP_CAPABLE SYN lost twice, MPTCP would
	# turn itself off for new connections in the whole namespace for an
	# hour (net.mptcp.blackhole_timeout), and every later case would
	# test plain TCP (seen in the soak: a blackhole round, then
	# endpoint-del, fallback and csum-corrupt found no MPTCP at all)
	ip netns exec "${ns1}" sysctl -q net.mptcp.blackhole_timeout=0
	ip netns exec "${ns2}" sysctl -q net.mptcp.blackhole_timeout=0
	rmem_default=$(ip netns exec "${ns1}" sysctl -n net.ipv4.tcp_rmem | tr '\t' ' ')
	wmem_default=$(ip netns exec "${ns1}" sysctl -n net.ipv4.tcp_wmem | tr '\t' ' ')
	path1
	path2
	mptcp_lib_make_file "${tmpdir}/cin" 1024 "${size_kb}"
	mptcp_lib_make_file "${tmpdir}/sin" 1024 "${size_kb}"
	sin_size=$(stat -c %s "${tmpdir}/sin")
}

# --- transfers ---------------------------------------------------------

xfer_n=0
declare -a xfer_spid xfer_cpid xfer_desc xfer_port

# A port not used before in this run (a long soak wraps around).
next_port()
{
	port=$((port + 1))
	[ "${port}" -le 60000 ] || port=20001
}

# Start one transfer each way (mptcp_connect, in the background).
# $1: server socket type; $2: client socket type (MPTCP or TCP)
xfer_start()
{
	local k=${xfer_n}

	next_port
	xfer_n=$((xfer_n + 1))
	xfer_desc[k]="transfer ${k} (${1}/${2}, port ${port})"
	xfer_port[k]=${port}
	: > "${tmpdir}/cout${k}"
	: > "${tmpdir}/sout${k}"
	timeout ${timeout_test} ip netns exec "${ns2}" \
		./mptcp_connect -j -t ${timeout_poll} -l -p "${port}" -s "${1}" \
		0.0.0.0 < "${tmpdir}/sin" > "${tmpdir}/sout${k}" &
	xfer_spid[k]=$!
	mptcp_lib_wait_local_port_listen "${ns2}" "${port}"
	timeout ${timeout_test} ip netns exec "${ns1}" \
		./mptcp_connect -j -t ${timeout_poll} -p "${port}" -s "${2}" \
		10.0.1.2 < "${tmpdir}/cin" > "${tmpdir}/cout${k}" &
	xfer_cpid[k]=$!
}

# Wait until transfer $1 has delivered a quarter of the server's data to
# the client (up to timeout_poll, 30 s): the moment for a mid-transfer
# fault.
xfer_wait_progress()
{
	local want=$((sin_size / 4))
	local end=$((SECONDS + timeout_poll))

	while [ ${SECONDS} -lt ${end} ]; do
		[ "$(stat -c %s "${tmpdir}/cout${1}")" -ge ${want} ] && return 0
		# each round forks twice: under UML that costs far more host
		# CPU than the guest's own work, at any rate of virtual time
		sleep 0.05
	done
	mptcp_lib_pr_fail "${xfer_desc[${1}]}: no progress in ${timeout_poll} s"
	return 1
}

# Start one transfer and wait until a quarter of it is through: the
# moment for a mid-transfer fault.  Fails if it never got there or has
# already ended.
xfer_start_mid()
{
	# 1 Mbit/s per path, divided by FUSO_FAULTS_SLOW: a transfer lasts
	# about 4 s (12 s on a sanitizer kernel under emulation, where each
	# program that watches the transfer or applies the fault takes about
	# a second to start), so the fault lands while it runs
	rate=$((1000 / slow))kbit
	path1
	path2
	xfer_start MPTCP MPTCP
	xfer_wait_progress 0 && xfer_running 0 "before the fault" || return 1
	# the fault is for the path 2 subflow: it must be there
	if ! wait_subflow_from 10.0.2.1 "${xfer_port[0]}"; then
		pm_missed "${xfer_desc[0]} has no subflow on path 2 for the fault" ||
			return 1
	fi
	if [ "${load_at_mid}" = 1 ]; then
		load_at_mid=0
		load_start
	fi
	return 0
}

# Is transfer $1 still running, with server data still to come?  (A
# mid-transfer fault must find it so; $2 says when it was checked.)
xfer_running()
{
	if ! kill -0 "${xfer_cpid[${1}]}" 2>/dev/null ||
	   [ "$(stat -c %s "${tmpdir}/cout${1}")" -ge "${sin_size}" ]; then
		mptcp_lib_pr_fail "${xfer_desc[${1}]} had ended ${2}: nothing tested"
		return 1
	fi
	return 0
}

# Wait for every transfer started since the last call; check the exit
# codes and both directions' data.  Returns 1 if any failed.
xfer_wait_all()
{
	local k rc=0 rs rcl

	for ((k = 0; k < xfer_n; k++)); do
		wait "${xfer_cpid[k]}"
		rcl=$?
		wait "${xfer_spid[k]}"
		rs=$?
		if [ ${rcl} = 124 ] || [ ${rs} = 124 ]; then
			mptcp_lib_pr_fail "${xfer_desc[k]}: still running after ${timeout_test} s"
			rc=1
		elif [ ${rcl} != 0 ] || [ ${rs} != 0 ]; then
			mptcp_lib_pr_fail "${xfer_desc[k]}: client exit code ${rcl}, server ${rs}"
			rc=1
		fi
		mptcp_lib_check_transfer "${tmpdir}/sin" "${tmpdir}/cout${k}" \
			"${xfer_desc[k]}: data server -> client" || rc=1
		mptcp_lib_check_transfer "${tmpdir}/cin" "${tmpdir}/sout${k}" \
			"${xfer_desc[k]}: data client -> server" || rc=1
		n_transfers=$((n_transfers + 2))
		n_bytes=$((n_bytes + sin_size +
			  $(stat -c %s "${tmpdir}/cin")))
	done
	xfer_n=0
	return ${rc}
}

# $1: port.  fuso_rr.py server in ns2; sets rr_pid.
rr_server_start()
{
	ip netns exec "${ns2}" python3 ./fuso_rr.py server -p "${1}" &
	rr_pid=$!
	mptcp_lib_wait_local_port_listen "${ns2}" "${1}"
}

rr_server_stop()
{
	mptcp_lib_kill_wait "${rr_pid}"
	rr_pid=""
}

# $1: port; $2...: fuso_rr.py client options.  Counts the bytes it checked.
rr_client()
{
	local p=${1} out rc

	shift
	out=$(timeout ${timeout_test} ip netns exec "${ns1}" \
		python3 ./fuso_rr.py client -a 10.0.1.2 -p "${p}" -t ${timeout_poll} "${@}")
	rc=$?
	if [ ${rc} != 0 ]; then
		mptcp_lib_pr_fail "fuso_rr.py client exit code ${rc}${out:+: ${out}}" >&2
		return 1
	fi
	echo "${out}"
	return 0
}

# Fail with message $3 unless the client's counter $1 moved from $2.
moved()
{
	[ "$(mptcp_lib_get_counter "${ns1}" "${1}")" != "${2}" ] && return 0
	mptcp_lib_pr_fail "${3}"
	return 1
}

# --- the cases ------------------------------------------------------------
# Each returns 0 when its transfers passed their checks.

# Two transfers (four directions) under a standing impairment.
two_transfers()
{
	xfer_start MPTCP MPTCP
	xfer_start MPTCP MPTCP
	xfer_wait_all
}

prep_random_loss()
{
	path2 loss 2%
}

case_random_loss()
{
	two_transfers
}

prep_bursty_loss()
{
	# good->bad 1 %, bad->good 30 %, 70 % loss when bad, 0.1 % when
	# good: about 2.3 % loss, in bursts of about 3 packets
	path2 loss gemodel 1% 30% 70% 0.1%
}

case_bursty_loss()
{
	two_transfers
}

case_blackhole()
{
	local rc=0

	xfer_start_mid || rc=1
	path2 loss 100%
	xfer_running 0 "when the fault was in place" || rc=1
	xfer_wait_all || rc=1
	return ${rc}
}

prep_loss_all()
{
	path1 loss 2%
	path2 loss 2%
}

case_loss_all()
{
	two_transfers
}

prep_reorder()
{
	path2 reorder 25% 50% duplicate 5% corrupt 1%
}

case_reorder()
{
	two_transfers
}

case_link_flap()
{
	local rc=0

	xfer_start_mid || rc=1
	ip -n "${ns1}" link set ns1eth2 down
	xfer_running 0 "when the link went down" || rc=1
	sleep 1
	ip -n "${ns1}" link set ns1eth2 up
	# the link's routes went with it; the static neighbours too
	fuso_lib_routes
	fuso_lib_static_neigh 2
	xfer_wait_all || rc=1
	return ${rc}
}

case_endpoint_del()
{
	local rc=0 rm0

	rm0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtRmSubflow)
	xfer_start_mid || rc=1
	mptcp_lib_pm_nl_del_endpoint "${ns1}" 2 10.0.2.1
	xfer_running 0 "when the endpoint was deleted" || rc=1
	xfer_wait_all || rc=1
	removed_since "${rm0}" "deleting the endpoint" || rc=1
	mptcp_lib_pm_nl_add_endpoint "${ns1}" 10.0.2.1 dev ns1eth2 flags subflow id 2
	return ${rc}
}

# Joins of the client so far (SYN-ACKs with MP_JOIN: a new subflow each).
joins()
{
	mptcp_lib_get_counter "${ns1}" MPTcpExtMPJoinSynAckRx
}

# Fail unless the client joined a subflow since the count was $1: after
# every path 2 subflow was removed, that is a new one, made by $2.  In
# the soak, with its load joining and closing subflows at the same
# moment, the in-kernel path manager sometimes makes none for a
# connection that lost its subflow, or removes none (with fuso=0 too:
# Documentation/testing.md); there it is counted and reported, not
# failed.
joins_since()
{
	[ "$(joins)" -gt "${1}" ] && return 0
	pm_missed "${2} made no new subflow"
}

# The path manager did not do what an endpoint change asks, or a
# mid-transfer fault found no path 2 subflow to hit ($1 says which): a
# failure, but in the soak (see joins_since()) a count.
pm_missed()
{
	if [ -n "${soak}" ]; then
		soak_pm_missed=$((soak_pm_missed + 1))
		mptcp_lib_pr_info "${1} (the path manager, under the load: counted)"
		return 0
	fi
	mptcp_lib_pr_fail "${1}"
	return 1
}

# Fail (pm_missed) unless the client removed a subflow since the count
# was $1, for $2.
removed_since()
{
	[ "$(mptcp_lib_get_counter "${ns1}" MPTcpExtRmSubflow)" != "${1}" ] && return 0
	pm_missed "${2} removed no subflow"
}

case_subflow_readd()
{
	local rc=0 i j0 rm0

	rm0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtRmSubflow)
	xfer_start_mid || rc=1
	for i in 1 2 3; do
		mptcp_lib_pm_nl_del_endpoint "${ns1}" 2 10.0.2.1
		[ "${i}" = 1 ] && j0=$(joins)
		sleep 0.1
		mptcp_lib_pm_nl_add_endpoint "${ns1}" 10.0.2.1 dev ns1eth2 flags subflow id 2
		[ "${i}" = 1 ] && { xfer_running 0 "when the endpoint was back" || rc=1; }
		# give the new subflows time to come up before the endpoint
		# goes again (behind a full netem queue, their SYNs may wait
		# longer: the check below counts them whenever they come)
		wait_subflow_from 10.0.2.1
	done
	xfer_wait_all || rc=1
	joins_since "${j0}" "adding the endpoint again" || rc=1
	removed_since "${rm0}" "deleting the endpoint" || rc=1
	return ${rc}
}

# Change the client's path 2 address from $1 to $2 ($3: the old
# endpoint's id, $4: the new one's).  Sets path2_joins to the client's
# joins once the old endpoint's subflows are gone.
path2_addr()
{
	local old=${1} new=${2} id_old=${3} id_new=${4}

	mptcp_lib_pm_nl_del_endpoint "${ns1}" "${id_old}" "${old}"
	path2_joins=$(joins)
	ip -n "${ns1}" addr del "${old}/24" dev ns1eth2
	ip -n "${ns1}" addr add "${new}/24" dev ns1eth2
	ip -n "${ns2}" neigh replace "${new}" dev ns2eth2 \
		lladdr "$(mac "${ns1}" ns1eth2)" nud permanent
	# the routes through path 2 went with the old address
	fuso_lib_routes
	mptcp_lib_pm_nl_add_endpoint "${ns1}" "${new}" dev ns1eth2 flags subflow id "${id_new}"
}

# Wait up to 2 s (times FUSO_FAULTS_SLOW) for an established subflow
# of the client from address $1 (to port $2, if given).
wait_subflow_from()
{
	local i filter=(src "${1}")

	[ -n "${2:-}" ] && filter+=(dport = ":${2}")
	for ((i = 0; i < 10 * slow; i++)); do
		[ -n "$(ip netns exec "${ns1}" ss -tnH state established "${filter[@]}")" ] &&
			return 0
		sleep 0.2
	done
	return 1
}

case_addr_change()
{
	local rc=0 j0 rm0

	rm0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtRmSubflow)
	xfer_start_mid || rc=1
	path2_addr 10.0.2.1 10.0.2.3 2 4
	j0=${path2_joins}
	wait_subflow_from 10.0.2.3
	xfer_running 0 "when the new address was in place" || rc=1
	xfer_wait_all || rc=1
	joins_since "${j0}" "the new address" || rc=1
	removed_since "${rm0}" "removing the old endpoint" || rc=1
	path2_addr 10.0.2.3 10.0.2.1 4 2
	return ${rc}
}

case_subflow_rst()
{
	local rc=0 r0 rule="OUTPUT -o ns1eth2 -p tcp -j REJECT --reject-with tcp-reset"

	r0=$(mptcp_lib_get_counter "${ns1}" TcpEstabResets)
	xfer_start_mid || rc=1
	# every segment the client sends on path 2 is answered, locally,
	# with a RST that matches its subflow exactly (a RST towards the
	# server would carry a stale sequence number while the client's data
	# flows: RFC 5961 makes that a challenge ACK); the server's subflow
	# then meets the client's RSTs for a socket that is gone
	# shellcheck disable=SC2086 # a rule is words
	ip netns exec "${ns1}" iptables -I ${rule} || rc=1
	sleep 0.3
	# shellcheck disable=SC2086
	ip netns exec "${ns1}" iptables -D ${rule} || rc=1
	xfer_running 0 "when the resets stopped" || rc=1
	xfer_wait_all || rc=1
	moved TcpEstabResets "${r0}" "no subflow of the client was reset" || rc=1
	return ${rc}
}

prep_fallback()
{
	path2 loss 2%
}

case_fallback()
{
	local rc=0 fb0 copies0

	fb0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtMPCapableFallbackSYNACK)
	copies0=$(fuso_recoveries)
	xfer_start TCP MPTCP
	xfer_start MPTCP TCP
	xfer_wait_all || rc=1
	moved MPTcpExtMPCapableFallbackSYNACK "${fb0}" \
		"the MPTCP client did not fall back to TCP" || rc=1
	if [ "$(fuso_recoveries)" != "${copies0}" ]; then
		mptcp_lib_pr_fail "FUSO sent copies on connections that fell back to TCP"
		rc=1
	fi
	return ${rc}
}

prep_checksum()
{
	ip netns exec "${ns1}" sysctl -q net.mptcp.checksum_enabled=1
	ip netns exec "${ns2}" sysctl -q net.mptcp.checksum_enabled=1
	path2 loss 2%
}

case_checksum()
{
	two_transfers
}

prep_csum_corrupt()
{
	local ns

	for ns in "${ns1}" "${ns2}"; do
		ip netns exec "${ns}" sysctl -q net.mptcp.checksum_enabled=1
	done
	csum_err0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtDataCsumErr)
	# FUSO_FAULTS_BREAK=corrupt has both paths corrupted already
	[ "${break_mode}" = corrupt ] && return 0
	corrupt_on 2 || { mptcp_lib_pr_fail "cannot set up tc pedit corruption"; return 1; }
}

case_csum_corrupt()
{
	local rc=0

	two_transfers || rc=1
	moved MPTcpExtDataCsumErr "${csum_err0}" \
		"MPTCP's checksum caught no corrupted packet" || rc=1
	return ${rc}
}

prep_tiny_buffers()
{
	local ns b="${tiny_buf} ${tiny_buf} ${tiny_buf}"

	for ns in "${ns1}" "${ns2}"; do
		ip netns exec "${ns}" sysctl -q net.ipv4.tcp_rmem="${b}"
		ip netns exec "${ns}" sysctl -q net.ipv4.tcp_wmem="${b}"
	done
	path2 loss 2%
}

case_tiny_buffers()
{
	two_transfers
}

prep_fuso_flip()
{
	path2 loss 2%
}

case_fuso_flip()
{
	local rc=0 p flips

	next_port
	p=${port}
	rr_server_start "${p}"
	# flip both namespaces every 20 ms until stopped
	(
		n=0
		while :; do
			set_mode $((n % 4))
			n=$((n + 1))
			echo "${n}" > "${tmpdir}/flips"
			sleep 0.02
		done
	) &
	flip_pid=$!
	xfer_start MPTCP MPTCP
	xfer_start MPTCP MPTCP
	rr_client "${p}" --new-conn -n 40 -s 5000,20000 >/dev/null || rc=1
	xfer_wait_all || rc=1
	mptcp_lib_kill_wait "${flip_pid}"
	flip_pid=""
	rr_server_stop
	n_transfers=$((n_transfers + 40))
	n_bytes=$((n_bytes + 20 * 5000 + 20 * 20000))
	flips=$(cat "${tmpdir}/flips" 2>/dev/null || echo 0)
	if [ "${flips}" -lt 4 ]; then
		mptcp_lib_pr_fail "only ${flips} flips of net.mptcp.fuso during the transfers"
		rc=1
	fi
	mptcp_lib_pr_info "net.mptcp.fuso flipped ${flips} times"
	return ${rc}
}

prep_many_conns()
{
	path2 loss 1%
}

case_many_conns()
{
	local rc=0 p out conns exch bytes

	next_port
	p=${port}
	rr_server_start "${p}"
	out=$(rr_client "${p}" --conns 128 -n 4 -s 20000,1000) || rc=1
	rr_server_stop
	# "checked C connections, E exchanges, B bytes"
	read -r _ conns _ exch _ bytes _ <<< "${out}"
	if [ ${rc} = 0 ] && [ "${conns:-0}" -lt 128 ]; then
		mptcp_lib_pr_fail "fuso_rr.py checked ${conns:-no} connections: ${out}"
		rc=1
	fi
	n_transfers=$((n_transfers + ${exch:-0}))
	n_bytes=$((n_bytes + ${bytes:-0}))
	return ${rc}
}

# The integrity check must see what the network hides.
case_control()
{
	local out

	corrupt_off
	corrupt_on || { mptcp_lib_pr_fail "cannot set up tc pedit corruption"; return 1; }
	xfer_start MPTCP MPTCP
	xfer_wait_all > "${tmpdir}/control.out" 2>&1
	out=$(cat "${tmpdir}/control.out")
	corrupt_off
	if [[ "${out}" != *"data server -> client does not match"* ]]; then
		mptcp_lib_pr_fail "corrupted data passed the integrity check: ${out}"
		return 1
	fi
	mptcp_lib_pr_info "the integrity check caught the corrupted data"
	return 0
}

# --- running a case --------------------------------------------------------

# The sockets and counters of both namespaces: printed once when a case
# runs long (a stall in the making), for the log.
dump_state()
{
	local ns

	for ns in "${ns1}" "${ns2}"; do
		echo "# ---- ${ns}: sockets"
		ip netns exec "${ns}" ss -nMti 2>&1 | sed 's/^/# /'
		echo "# ---- ${ns}: counters"
		ip netns exec "${ns}" nstat -asz 'MPTcp*' 'TcpExtTCP*Retrans*' \
			'TcpExtTCPTimeouts' 2>&1 | awk '$2 != 0 { print "# " $0 }'
	done
}

# Kernel log lines since the marker $1.
klog_since()
{
	dmesg | awk -v m="${1}" 'found { print } index($0, m) { found = 1 }'
}

# $1: case name
run_case()
{
	local name=${1}
	local marker="fuso_faults: case ${name} start $$-${n_cases}"
	local t0 rc=0 copies0 splat

	local title="fuso=${mode} fault: ${name}"

	[ -n "${round_label}" ] && title="${round_label}: ${name}"
	n_cases=$((n_cases + 1))
	mptcp_lib_print_title "${title}"
	baseline
	echo "${marker}" > /dev/kmsg
	copies0=$(fuso_recoveries)
	t0=$(date +%s)
	(
		sleep ${dump_after}
		echo "# case ${name} still running after ${dump_after} s:"
		dump_state
	) &
	dump_pid=$!
	# the case's standing impairment and settings first: the soak's
	# load must start under them
	if declare -F "prep_${name//-/_}" >/dev/null; then
		"prep_${name//-/_}" || rc=1
	fi
	if [ ${rc} != 0 ]; then
		:
	elif [ -n "${soak}" ] && [ "${name}" != control ] && [ "${name}" != fallback ]; then
		# a mid-transfer case's load starts with the fault
		# (xfer_start_mid): started before, at 20 Mbit/s, it would
		# leave seconds of queue on the paths when they slow down,
		# and the transfer's own subflow on path 2 stuck behind it
		if is_mid_case "${name}"; then
			load_at_mid=1
		else
			load_start
		fi
		"case_${name//-/_}" || rc=1
		load_at_mid=0
		if [ -n "${load_pid}" ]; then
			load_wait || rc=1
		else
			mptcp_lib_pr_fail "the load beside the case never started"
			rc=1
		fi
	else
		"case_${name//-/_}" || rc=1
	fi
	mptcp_lib_kill_wait "${dump_pid}"
	baseline
	splat=$(klog_since "${marker}" | grep -E "${splat_re}")
	if [ "${FUSO_FAULTS_KCSAN:-0}" = 1 ]; then
		splat=$(printf '%s\n' "${splat}" | grep -v 'BUG: KCSAN:')
	fi
	if [ -n "${splat}" ]; then
		mptcp_lib_pr_fail "kernel log report during the case:"
		klog_since "${marker}" | head -n 60
		rc=1
	fi
	mptcp_lib_pr_info "$(($(date +%s) - t0)) s, $(($(fuso_recoveries) - copies0)) FUSO copies"
	if [ "${break_mode}" = corrupt ] && [ "${name}" != control ]; then
		mptcp_lib_pr_info "FUSO_FAULTS_BREAK=corrupt: this case must fail"
	fi
	result "${title}" ${rc}
	return ${rc}
}

# --- the soak ---------------------------------------------------------------

round_label=""
soak_pm_missed=0
load_at_mid=0
load_conns=0
load_n=0
load_seed=0
drawn=0

# drawn = a size from 2^$1 to 2^($2 + 1) - 1 bytes, uniform in its
# logarithm by powers of two.  Draws from RANDOM without a subshell (a
# subshell would draw from a reseeded RANDOM, and the round could not be
# replayed).
draw_size()
{
	local e=$((${1} + RANDOM % (${2} - ${1} + 1)))

	drawn=$(((1 << e) + (((RANDOM << 15) | RANDOM) % (1 << e))))
}

# Request/response load beside a soak round's case: fuso_rr.py with
# load_conns connections of load_n exchanges each, random sizes, races.
load_start()
{
	next_port
	load_port=${port}
	ip netns exec "${ns2}" python3 ./fuso_rr.py server -p "${load_port}" \
		--resets-ok &
	load_srv=$!
	mptcp_lib_wait_local_port_listen "${ns2}" "${load_port}"
	timeout ${timeout_test} ip netns exec "${ns1}" python3 ./fuso_rr.py \
		client -a 10.0.1.2 -p "${load_port}" -t ${timeout_poll} \
		--conns "${load_conns}" -n "${load_n}" --random-sizes 262144 \
		--races --seed "${load_seed}" > "${tmpdir}/load.out" 2>&1 &
	load_pid=$!
}

# Wait for the load; count what it checked.  Returns 1 if it failed.
load_wait()
{
	local rc conns exch bytes aborted

	wait "${load_pid}"
	rc=$?
	load_pid=""
	mptcp_lib_kill_wait "${load_srv}"
	load_srv=""
	# "checked C connections, E exchanges, B bytes, A aborted"
	read -r _ conns _ exch _ bytes _ aborted _ < <(tail -n 1 "${tmpdir}/load.out")
	if [ ${rc} != 0 ] || [ "${conns:-0}" != "${load_conns}" ]; then
		mptcp_lib_pr_fail "the load beside the case (fuso_rr.py, exit code ${rc}):"
		head -n 20 "${tmpdir}/load.out"
		return 1
	fi
	n_transfers=$((n_transfers + exch))
	n_bytes=$((n_bytes + bytes))
	mptcp_lib_pr_info "load: ${conns} connections, ${exch} responses checked," \
		"${aborted} cut short on purpose"
	return 0
}

# Mid-transfer cases need a transfer that lasts until the fault.
is_mid_case()
{
	case "${1}" in
	blackhole|link-flap|endpoint-del|subflow-readd|addr-change|subflow-rst) return 0 ;;
	esac
	return 1
}

# $1: round number.  Draws the round's case, sizes and load from seed +
# round, and runs it.
soak_round()
{
	local s=$((seed + ${1})) c cin_size
	local -a pool

	read -r -a pool <<< "$(echo ${cases})"
	RANDOM=${s}
	c=${pool[RANDOM % ${#pool[@]}]}
	if is_mid_case "${c}"; then
		draw_size 20 20
	else
		draw_size 0 20
	fi
	sin_size=${drawn}
	draw_size 0 20
	cin_size=${drawn}
	head -c "${cin_size}" /dev/urandom > "${tmpdir}/cin"
	head -c "${sin_size}" /dev/urandom > "${tmpdir}/sin"
	load_conns=$((4 + RANDOM % (soak_conns - 3)))
	load_n=$((1 + RANDOM % 16))
	load_seed=${s}
	round_label="soak round ${1}, seed ${s}"
	mptcp_lib_pr_info "round ${1} (seed ${s}): ${c}, ${cin_size} and" \
		"${sin_size} bytes, load of ${load_conns} connections x ${load_n}"
	if ! run_case "${c}"; then
		soak_failed+=("${s}:${c}")
		echo "# replay: FUSO_FAULTS_SOAK=1 FUSO_FAULTS_SEED=${s}" \
			"FUSO_FAULTS_CASES='$(echo ${cases})' ./fuso_faults.sh"
	fi
	round_label=""
}

for c in ${cases}; do
	if ! declare -F "case_${c//-/_}" >/dev/null; then
		echo "FUSO_FAULTS_CASES: unknown case '${c}'" >&2
		exit 1
	fi
done

setup
copies_start=$(fuso_recoveries)
t_start=$(date +%s)
if [ -n "${soak}" ]; then
	declare -a soak_failed=()
	# the checks' own test first
	run_case control
	# the rounds' transfers count, not the control's
	n0=${n_transfers}
	round=0
	while [ $((n_transfers - n0)) -lt "${soak}" ]; do
		if [ "${#soak_failed[@]}" -ge 20 ]; then
			echo "# soak: stopped after 20 failed rounds"
			break
		fi
		soak_round ${round}
		round=$((round + 1))
		echo "# soak: ${round} rounds, $((n_transfers - n0)) of ${soak}" \
			"transfers checked, ${#soak_failed[@]} rounds failed," \
			"$(($(date +%s) - t_start)) s"
	done
else
	for c in ${cases}; do
		run_case "${c}"
	done
fi

copies=$(($(fuso_recoveries) - copies_start))
if [ $((mode & 1)) = 1 ]; then
	mptcp_lib_print_title "FUSO sent copies during the suite"
	if [ "${copies}" -gt 0 ]; then
		result "FUSO sent copies during the suite" 0
	else
		mptcp_lib_pr_fail "no FUSO copy in ${n_cases} cases"
		result "FUSO sent copies during the suite" 1
	fi
fi

echo "# fault suite: ${n_cases} cases, ${n_transfers} transfers," \
	"${n_bytes} bytes checked, ${copies} FUSO copies," \
	"$(($(date +%s) - t_start)) s"
if [ -n "${soak}" ]; then
	echo "# soak: seeds ${seed}..$((seed + round - 1)), ${round} rounds," \
		"$((n_transfers - n0)) transfers, ${soak_pm_missed} path" \
		"manager misses (no path 2 subflow to hit, none removed or added)," \
		"${#soak_failed[@]} failed${soak_failed[*]:+ (seed:case: ${soak_failed[*]})}"
fi
mptcp_lib_result_print_all_tap
exit ${ret}
