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
#   fallback       a peer without MPTCP (server, then client): plain TCP;
#                  FUSO must not send a single copy
#   checksum       DSS checksums on (net.mptcp.checksum_enabled=1), 2 % loss
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
cases=${FUSO_FAULTS_CASES:-random-loss bursty-loss blackhole loss-all reorder
	link-flap endpoint-del fallback checksum tiny-buffers fuso-flip many-conns
	control}
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
# 150 bytes or more on both paths gets byte 148 (in the payload)
# inverted, and its TCP checksum recomputed.  On veth, TCP would not
# even have checked it.
corrupt_on()
{
	local i

	for i in 1 2; do
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
	rate=20mbit
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
declare -a xfer_spid xfer_cpid xfer_desc

# Start one transfer each way (mptcp_connect, in the background).
# $1: server socket type; $2: client socket type (MPTCP or TCP)
xfer_start()
{
	local k=${xfer_n}

	port=$((port + 1))
	xfer_n=$((xfer_n + 1))
	xfer_desc[k]="transfer ${k} (${1}/${2}, port ${port})"
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
	local want=$((size_kb * 1024 / 4))
	local end=$((SECONDS + timeout_poll))

	while [ ${SECONDS} -lt ${end} ]; do
		[ "$(stat -c %s "${tmpdir}/cout${1}")" -ge ${want} ] && return 0
		sleep 0.01
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
	xfer_wait_progress 0 && xfer_running 0 "before the fault"
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

# --- the cases ------------------------------------------------------------
# Each returns 0 when its transfers passed their checks.

# Two transfers (four directions) under a standing impairment.
two_transfers()
{
	xfer_start MPTCP MPTCP
	xfer_start MPTCP MPTCP
	xfer_wait_all
}

case_random_loss()
{
	path2 loss 2%
	two_transfers
}

case_bursty_loss()
{
	# good->bad 1 %, bad->good 30 %, 70 % loss when bad, 0.1 % when
	# good: about 2.3 % loss, in bursts of about 3 packets
	path2 loss gemodel 1% 30% 70% 0.1%
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

case_loss_all()
{
	path1 loss 2%
	path2 loss 2%
	two_transfers
}

case_reorder()
{
	path2 reorder 25% 50% duplicate 5% corrupt 1%
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
	if [ "$(mptcp_lib_get_counter "${ns1}" MPTcpExtRmSubflow)" = "${rm0}" ]; then
		mptcp_lib_pr_fail "deleting the endpoint removed no subflow"
		rc=1
	fi
	mptcp_lib_pm_nl_add_endpoint "${ns1}" 10.0.2.1 dev ns1eth2 flags subflow id 2
	return ${rc}
}

case_fallback()
{
	local rc=0 fb0 copies0

	path2 loss 2%
	fb0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtMPCapableFallbackSYNACK)
	copies0=$(fuso_recoveries)
	xfer_start TCP MPTCP
	xfer_start MPTCP TCP
	xfer_wait_all || rc=1
	if [ "$(mptcp_lib_get_counter "${ns1}" MPTcpExtMPCapableFallbackSYNACK)" = "${fb0}" ]; then
		mptcp_lib_pr_fail "the MPTCP client did not fall back to TCP"
		rc=1
	fi
	if [ "$(fuso_recoveries)" != "${copies0}" ]; then
		mptcp_lib_pr_fail "FUSO sent copies on connections that fell back to TCP"
		rc=1
	fi
	return ${rc}
}

case_checksum()
{
	ip netns exec "${ns1}" sysctl -q net.mptcp.checksum_enabled=1
	ip netns exec "${ns2}" sysctl -q net.mptcp.checksum_enabled=1
	path2 loss 2%
	two_transfers
}

case_tiny_buffers()
{
	local ns b="${tiny_buf} ${tiny_buf} ${tiny_buf}"

	for ns in "${ns1}" "${ns2}"; do
		ip netns exec "${ns}" sysctl -q net.ipv4.tcp_rmem="${b}"
		ip netns exec "${ns}" sysctl -q net.ipv4.tcp_wmem="${b}"
	done
	path2 loss 2%
	two_transfers
}

case_fuso_flip()
{
	local rc=0 p flips

	path2 loss 2%
	port=$((port + 1))
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

case_many_conns()
{
	local rc=0 p out conns exch bytes

	path2 loss 1%
	port=$((port + 1))
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

	n_cases=$((n_cases + 1))
	mptcp_lib_print_title "fuso=${mode} fault: ${name}"
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
	"case_${name//-/_}" || rc=1
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
	result "fuso=${mode} fault: ${name}" ${rc}
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
for c in ${cases}; do
	run_case "${c}"
done

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
mptcp_lib_result_print_all_tap
exit ${ret}
