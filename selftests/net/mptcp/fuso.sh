#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# FUSO: proactive multi-path loss recovery for MPTCP.
#
# Checks the FUSO control plane (sysctls, counters, the socket option) and
# the FUSO sender, receiver and scheduler:
# - the sysctls exist in every netns with their defaults, take their whole
#   range, refuse the rest with EINVAL and keep their value; the
#   MPTcpExtFuso* counters are exported;
# - bulk transfers and short request/response exchanges (on one persistent
#   connection, and one connection each) over two paths, one of them lossy,
#   arrive intact with FUSO off and on; with it on, FUSO sends recovery
#   copies (FusoRecovery moves); with it off, no FUSO counter moves;
# - a deterministic tail loss: the last segment of a response is dropped
#   once.  With FUSO the response completes without a retransmission
#   timeout on the server (TCP or MPTCP level); without FUSO it has to wait
#   for a timer (timeout or tail loss probe);
#   The same with the response ended by MSG_MORE and a zero-length
#   write, by clearing TCP_CORK, or followed by a write failing with
#   EPIPE: none of them may leave the data in flight unprotected;
# - the per-connection opt-in, setsockopt(SOL_MPTCP, MPTCP_FUSO): bad
#   values are rejected with EINVAL and change nothing, on listeners,
#   fallen-back and closed sockets too, a listener's value goes to its
#   connections, MPTCP_INFO reports it; MPTCP_FUSO, MPTCP_INFO and
#   MPTCP_FULL_INFO read into short buffers give the start of the whole
#   or EINVAL; in a namespace with FUSO off, a server socket with
#   MPTCP_FUSO on protects the tail (copies in MPTCP_INFO too), and with
#   FUSO on, one with MPTCP_FUSO=0 waits for a timer;
# - a socket disconnected and connected again counts no copy of its
#   first connection; the mptcp:mptcp_fuso_recovery tracepoint fires once
#   per copy;
# - no loss at all: no data sequence number is copied twice (each
#   segment at most once, also when the copies share the subflow);
# - a victim that holds the end of one of the msk's data fragments and
#   the start of the next is copied whole (the paper's sender, every
#   segment of a response copied: no gap between the copies);
# - a connection with nothing left to protect wakes no round per ACK:
#   one-flight responses whose tails wait for another carrier, ACKed a
#   few segments apart, wake at most 2 rounds per response from the ACK
#   path (MPTcpExtFusoDeferred);
# - the handshake's third ACK and the first request lost: FUSO must not
#   copy before the peer confirmed MPTCP, or the connection is reset;
# - where copies go (MPTCP_FUSO_RULE_TARGETED): those of a lossy subflow
#   to a clean subflow that never carried data rather than back onto the
#   lossy one (the paper's ranking puts a never-used subflow last), and
#   none onto a subflow that an ECN echo put in CWR;
# - the FUSO receiver (fuso=3): a subflow-level hole on one path while the
#   copies arrive on the other.  Side by side in one run, fuso=3 pushes the
#   segments behind the hole to the data level (FusoRcvOfoPush), ACKs at
#   once the end of a push that lies beyond the hole (FusoRcvAckNow) and,
#   in virtual time (UML time-travel), its responses complete sooner than
#   with fuso=1, which never touches the receiver counters; with DSS
#   checksums the push stays off and the data arrives intact; under a
#   long hole that no copy fills (fuso=2), the MPTCP socket holds no more
#   memory than with the receiver off.  This part runs the paper's sender
#   (net.mptcp.fuso_rules=0), which copies the hole at once; and, with
#   FUSO's own sender, when a response's whole flight on path 2 is lost
#   and the client delays its ACKs, fuso=3's immediate ACK of path 1's
#   data has the sender copy the rest before any timer, where fuso=1
#   waits for the delayed ACK;
# - the window-bounded scheduler ("window") is listed, FUSO on it sends
#   copies and delivers every byte, a response on an idle connection
#   leaves on both paths, and its last bytes that fill no segment leave
#   on the other path when the fastest is full; with
#   MPTCP_FUSO_RULE_SCHED_CAUTIOUS and every
#   packet marked CE, new data keeps to one of three subflows, and past a
#   response's first MB goes to all of them;
# - with MPTCP_FUSO_RULE_SPREAD_TIMERS, responses that start from idle move
#   their flights' first timers (MPTcpExtFusoTimerSpread), and without it
#   none;
# - the opt-in under net.mptcp.fuso_allowed: a user without CAP_NET_ADMIN
#   (also root of a user namespace of its own) may turn on only the parts
#   fuso_allowed or fuso allow, gets EPERM otherwise and keeps the mode,
#   and its listener passes on the namespace's mode; root may choose any,
#   and so may the user in a network namespace of its own;
# - net.mptcp.fuso alone, on the default scheduler, spreads a response
#   over both paths as "window" does; of such a response's two subflow
#   tails only the data's end is copied at once; and a copy lost for good
#   with its original leaves the data to the data-level retransmission,
#   which comes with the subflows' timeouts (the case needs the response
#   on the fastest of three subflows, where FUSO's connections push).
#
#   ns1 (client)  ns1eth1 ------ path 1 ------ ns2eth1  ns2 (server)
#                 10.0.1.1                     10.0.1.2
#                 ns1eth2 ------ path 2 ------ ns2eth2
#                 10.0.2.1   netem loss, both  10.0.2.2
#                            directions
#
# The client opens the connection on path 1 and a second subflow on path 2
# (one MPTCP subflow per path), for IPv4 and IPv6.
#
# Needs python3 (fuso_rr.py) and iptables/ip6tables with the length and
# statistic matches.
#
# Environment: FUSO_TEST_LOSS (netem loss on path 2, default 2%),
# FUSO_TEST_SIZE (KiB sent each way per transfer, default 512),
# FUSO_TEST_VERBOSE=1 (show the FUSO sysctls and counters after each
# transfer), FUSO_TEST_IP (the address families of the transfer, exchange
# and receiver tests, default "4 6"; "4" halves the run time),
# FUSO_TEST_PARTS (the parts that run, default "knobs 0 1 3 hole rules":
# knobs the sysctl and counter tests, 0 the FUSO-off baseline, 1 the sender
# and the tracepoint, 3 the sender with the receiver, hole the receiver's
# subflow-hole scenario, with and without checksums, and its memory under
# a long hole, rules the copy rules and the scheduler),
# FUSO_TEST_SANITIZER=1 (treat the kernel as a debug kernel even if
# /proc/kallsyms does not show it: the subflow-hole scenario's
# timing-bound checks only report).

. "$(dirname "${0}")/mptcp_lib.sh"
. "$(dirname "${0}")/fuso_lib.sh"

# this test sets net.mptcp.fuso itself
unset SELFTESTS_MPTCP_LIB_FUSO

ns1=""
ns2=""
tmpdir=""
ret=0
loss=${FUSO_TEST_LOSS:-2%}
size_kb=${FUSO_TEST_SIZE:-512}
parts=${FUSO_TEST_PARTS:-knobs 0 1 3 hole rules}
port=10000
rr_server_opts=""	# more options for the server of rr_start_joined
declare -A spread_window	# test_sched_window_spread: path 1's bytes
# net.mptcp.fuso_rules' default: every rule (1, 4, 8 and 32 are unused)
rules_default=82
timeout_poll=30
timeout_test=$((timeout_poll * 2 + 1))
MPTCP_LIB_TEST_FORMAT="%02u %-62s"

#shellcheck disable=SC2317 # used in the trap
cleanup()
{
	rm -rf "${tmpdir}"
	mptcp_lib_ns_exit "${ns1}" "${ns2}"
}

mptcp_lib_check_mptcp
mptcp_lib_check_tools ip tc iptables ip6tables
if ! python3 -c 'import socket' 2>/dev/null; then
	mptcp_lib_pr_skip "python3 not available"
	exit "${KSFT_SKIP}"
fi

fuso_lib_require

# $1: ns; $2: name; $3: expected value
check_value()
{
	local val

	val=$(fuso_sysctl_get "${1}" "${2}")
	if [ "${val}" != "${3}" ]; then
		mptcp_lib_pr_fail "net.mptcp.${2} is '${val}', expected '${3}'"
		return 1
	fi
	return 0
}

test_sysctl_defaults()
{
	local rc=0

	mptcp_lib_print_title "sysctl defaults in a new netns"
	check_value "${ns1}" fuso 0 || rc=1
	check_value "${ns1}" fuso_alpha 50 || rc=1
	check_value "${ns1}" fuso_beta 50 || rc=1
	check_value "${ns1}" fuso_rules "${rules_default}" || rc=1
	check_value "${ns1}" fuso_allowed 3 || rc=1
	result "sysctl defaults" ${rc}
}

# $1: name; $2: max
test_sysctl_range()
{
	local name=${1}
	local max=${2}
	local rc=0
	local v err

	mptcp_lib_print_title "net.mptcp.${name}: 0..${max}, EINVAL outside"
	for v in 0 1 $((max / 2)) "${max}"; do
		err=$(fuso_sysctl_write "${ns1}" "${name}" "${v}")
		if [ -n "${err}" ] || ! check_value "${ns1}" "${name}" "${v}"; then
			mptcp_lib_pr_fail "${name}=${v} not accepted: ${err}"
			rc=1
		fi
	done
	# 255 and 256: past a u8's range, for the knobs that are one; 2^32
	# and 2^64: past an int's and an unsigned long's
	for v in $((max + 1)) $([ "${max}" -lt 255 ] && echo 255 256) -1 abc \
		 4294967296 18446744073709551616; do
		err=$(fuso_sysctl_write "${ns1}" "${name}" "${v}")
		if [[ "${err}" != *"Invalid argument"* ]]; then
			mptcp_lib_pr_fail "${name}=${v}: expected EINVAL, got '${err}'"
			rc=1
		fi
		# a rejected write leaves the value alone
		check_value "${ns1}" "${name}" "${max}" || rc=1
	done
	# per netns: the other namespace kept its default (1 is no knob's
	# default, and the maximum is fuso_rules')
	fuso_sysctl_write "${ns1}" "${name}" 1 >/dev/null
	check_value "${ns1}" "${name}" 1 || rc=1
	case "${name}" in
	fuso) check_value "${ns2}" "${name}" 0 || rc=1 ;;
	fuso_rules) check_value "${ns2}" "${name}" "${rules_default}" || rc=1 ;;
	fuso_allowed) check_value "${ns2}" "${name}" 3 || rc=1 ;;
	*) check_value "${ns2}" "${name}" 50 || rc=1 ;;
	esac
	result "sysctl ${name} range" ${rc}
}

test_counters_exist()
{
	local rc=0
	local ns c

	mptcp_lib_print_title "MPTcpExtFuso* counters exported"
	for ns in "${ns1}" "${ns2}"; do
		for c in ${fuso_counters}; do
			if ! ip netns exec "${ns}" nstat -asz "MPTcpExt${c}" |
			   grep -q "^MPTcpExt${c} "; then
				mptcp_lib_pr_fail "MPTcpExt${c} missing"
				rc=1
			fi
		done
	done
	result "counters exported" ${rc}
}

setup()
{
	tmpdir=$(mktemp -d)
	trap cleanup EXIT

	fuso_lib_setup_paths

	# 1 ms each way on both paths; random loss on path 2 only.
	tc -n "${ns1}" qdisc add dev ns1eth1 root netem delay 1ms
	tc -n "${ns2}" qdisc add dev ns2eth1 root netem delay 1ms
	tc -n "${ns1}" qdisc add dev ns1eth2 root netem delay 1ms loss "${loss}"
	tc -n "${ns2}" qdisc add dev ns2eth2 root netem delay 1ms loss "${loss}"

	mptcp_lib_make_file "${tmpdir}/cin" 1024 "${size_kb}"
	mptcp_lib_make_file "${tmpdir}/sin" 1024 "${size_kb}"
}

# One transfer each way.  $1: family; $2: port.  Returns 0 if the data
# arrived intact, 1 if not; sets "joined" and "tx1"/"tx2" (bytes the
# client sent on each path).
transfer_once()
{
	local family=${1}
	local p=${2}
	local cin="${tmpdir}/cin" sin="${tmpdir}/sin"
	local cout="${tmpdir}/cout" sout="${tmpdir}/sout"
	local laddr=0.0.0.0 caddr=10.0.1.2 opt=""
	local join_before tx1_before tx2_before
	local spid cpid retc rets rc=0

	if [ "${family}" = 6 ]; then
		laddr=:: caddr=dead:beef:1::2 opt=-6
	fi
	:> "${cout}"
	:> "${sout}"

	join_before=$(mptcp_lib_get_counter "${ns2}" MPTcpExtMPJoinAckRx)
	tx1_before=$(tx_bytes "${ns1}" ns1eth1)
	tx2_before=$(tx_bytes "${ns1}" ns1eth2)

	timeout ${timeout_test} ip netns exec "${ns2}" \
		./mptcp_connect ${opt} -j -t ${timeout_poll} -l -p "${p}" \
		"${laddr}" < "${sin}" > "${sout}" &
	spid=$!
	mptcp_lib_wait_local_port_listen "${ns2}" "${p}"

	timeout ${timeout_test} ip netns exec "${ns1}" \
		./mptcp_connect ${opt} -j -t ${timeout_poll} -p "${p}" \
		"${caddr}" < "${cin}" > "${cout}" &
	cpid=$!

	wait ${cpid}
	retc=$?
	wait ${spid}
	rets=$?

	if [ ${retc} -ne 0 ] || [ ${rets} -ne 0 ]; then
		mptcp_lib_pr_fail "client exit code ${retc}, server ${rets}"
		rc=1
	fi
	mptcp_lib_check_transfer "${sin}" "${cout}" "data server -> client" || rc=1
	mptcp_lib_check_transfer "${cin}" "${sout}" "data client -> server" || rc=1

	joined=$(($(mptcp_lib_get_counter "${ns2}" MPTcpExtMPJoinAckRx) - join_before))
	tx1=$(($(tx_bytes "${ns1}" ns1eth1) - tx1_before))
	tx2=$(($(tx_bytes "${ns1}" ns1eth2) - tx2_before))
	return ${rc}
}

# $1: fuso mode; $2: 4 or 6
do_transfer()
{
	local mode=${1}
	local family=${2}
	local name="fuso=${mode} IPv${family} transfer over 2 paths, ${loss} loss on one"
	local min=$((size_kb * 1024 / 10))
	local attempt rc=0
	local joined tx1 tx2 recov rx

	mptcp_lib_print_title "${name}"
	recov=$(fuso_recoveries)
	rx=$(fuso_rx_counts)

	# The loss also hits the join handshake: if the second subflow came
	# too late to carry data, try again (data is checked every time).
	for attempt in 1 2 3; do
		port=$((port + 1))
		transfer_once "${family}" "${port}" || rc=1
		[ ${rc} = 0 ] || break
		if [ "${joined}" -ge 1 ] && [ "${tx1}" -ge ${min} ] &&
		   [ "${tx2}" -ge ${min} ]; then
			break
		fi
		if [ ${attempt} = 3 ]; then
			mptcp_lib_pr_fail "3 attempts, each with a path carrying" \
				"under 10% of the data or no join (last: joins" \
				"${joined}, path 1 ${tx1} B, path 2 ${tx2} B)"
			rc=1
		else
			mptcp_lib_pr_info "attempt ${attempt}: joins ${joined}," \
				"path 1 ${tx1} B, path 2 ${tx2} B; again"
		fi
	done
	check_recoveries "${mode}" "${recov}" "${rx}" || rc=1
	result "${name}" ${rc}
	if [ "${FUSO_TEST_VERBOSE:-0}" = 1 ]; then
		show_state
	fi
}

show_state()
{
	local ns

	for ns in "${ns1}" "${ns2}"; do
		echo "    ${ns}: $(ip netns exec "${ns}" sysctl net.mptcp.fuso \
			net.mptcp.fuso_alpha net.mptcp.fuso_beta \
			net.mptcp.fuso_rules net.mptcp.scheduler | tr '\n' ' ')"
		ip netns exec "${ns}" nstat -asz MPTcpExtMPJoinAckRx \
			'MPTcpExtFuso*' |
			awk 'NR > 1 { printf "        %-32s %s\n", $1, $2 }'
	done
}

# Receiver counters so far, both namespaces: "PUSH ALL", the pushes and
# the sum of all three receiver counters.
fuso_rx_counts()
{
	local ns c push=0 all=0 v

	for ns in "${ns1}" "${ns2}"; do
		for c in Push InSeq Skip; do
			v=$(mptcp_lib_get_counter "${ns}" "MPTcpExtFusoRcvOfo${c}")
			all=$((all + v))
			[ "${c}" = Push ] && push=$((push + v))
		done
	done
	echo "${push} ${all}"
}

# $1: mode; $2: fuso_recoveries before; $3: fuso_rx_counts before.  With
# the sender on, copies must have been sent under loss; with the receiver
# off, no receiver counter may move.  (Random loss does not always leave a
# subflow hole with data behind it, so only test_ofo_push() asks for
# pushes.)
check_recoveries()
{
	local sent=$(($(fuso_recoveries) - ${2}))
	local push0 all0 push all

	read -r push0 all0 <<< "${3}"
	read -r push all <<< "$(fuso_rx_counts)"
	if [ $((${1} & 1)) = 1 ] && [ "${sent}" -lt 1 ]; then
		mptcp_lib_pr_fail "fuso=${1} but no recovery copy was sent"
		return 1
	fi
	if [ $((${1} & 2)) = 0 ] && [ "${all}" != "${all0}" ]; then
		mptcp_lib_pr_fail "fuso=${1} but FusoRcvOfo* counters moved"
		return 1
	fi
	[ "${FUSO_TEST_VERBOSE:-0}" = 1 ] &&
		mptcp_lib_pr_info "${sent} recovery copies, $((push - push0)) pushes"
	return 0
}

# $1: family.  Sets addr_opt and caddr for fuso_rr.py.
rr_addr()
{
	if [ "${1}" = 6 ]; then
		addr_opt=-6 caddr=dead:beef:1::2
	else
		addr_opt="" caddr=10.0.1.2
	fi
}

# $1: port; $2...: more server options.  Starts the fuso_rr.py server in
# ns2; sets spid.
rr_server_start()
{
	local p=${1}

	shift
	ip netns exec "${ns2}" python3 ./fuso_rr.py server ${addr_opt} \
		-p "${p}" "$@" &
	spid=$!
	mptcp_lib_wait_local_port_listen "${ns2}" "${p}"
}

rr_server_stop()
{
	mptcp_lib_kill_wait "${spid}"
}

# $1: the output of a fuso_rr.py client run with --wait-file; $2: the
# server's MPTcpExtMPJoinAckRx before it started.  Wait (up to 10 s) until
# the client finished its warm-up exchange and the second subflow joined.
rr_wait_joined()
{
	local i

	for i in $(seq 100); do
		if grep -q '^ready' "${1}" &&
		   [ "$(mptcp_lib_get_counter "${ns2}" MPTcpExtMPJoinAckRx)" \
		     -gt "${2}" ]; then
			return 0
		fi
		sleep 0.1
	done
	mptcp_lib_pr_fail "warm-up did not finish with 2 subflows"
	return 1
}

# $1: output file; $2: go file; the rest: more fuso_rr.py client options.
# Starts a server and a client (cpid) that waits with --wait-file after its
# warm-up exchange, and waits until the second subflow joined: what the
# caller measures from here on is the two-subflow part.  Sets port, spid,
# cpid, addr_opt and caddr (rr_addr must have been called).
rr_start_joined()
{
	local out=${1} go=${2} joined_before

	shift 2
	port=$((port + 1))
	rm -f "${go}"
	joined_before=$(mptcp_lib_get_counter "${ns2}" MPTcpExtMPJoinAckRx)
	# shellcheck disable=SC2086 # options, split on purpose
	rr_server_start "${port}" ${rr_server_opts}
	timeout ${timeout_test} ip netns exec "${ns1}" \
		python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
		-a "${caddr}" --wait-file "${go}" "$@" > "${out}" &
	cpid=$!
	rr_wait_joined "${out}" "${joined_before}"
}

# $1: the go file of rr_start_joined; $2: what the client fetches (default
# "a response").  Let the client (cpid) go on past its warm-up and wait
# for it; returns 1, and says so, if it failed.
rr_go()
{
	touch "${1}"
	if ! wait ${cpid}; then
		mptcp_lib_pr_fail "${2:-a response} was lost or corrupted"
		return 1
	fi
}

# Short request/response exchanges, as in the paper's workloads.
# $1: mode; $2: family; $3: "persistent" or "new" connections
test_rr()
{
	local mode=${1}
	local family=${2}
	local kind=${3}
	local name="fuso=${mode} IPv${family} request/response, ${kind} connection"
	local n=60 conn_opt="" rc=0
	local addr_opt caddr spid recov rx

	[ "${kind}" = new ] && n=20 conn_opt=--new-conn && name+="s"
	mptcp_lib_print_title "${name}"
	rr_addr "${family}"
	port=$((port + 1))
	recov=$(fuso_recoveries)
	rx=$(fuso_rx_counts)
	rr_server_start "${port}"
	if ! timeout ${timeout_test} ip netns exec "${ns1}" \
		python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
		-a "${caddr}" -n ${n} -s 1000,8000,30000 ${conn_opt}; then
		mptcp_lib_pr_fail "a response was lost or corrupted"
		rc=1
	fi
	rr_server_stop
	check_recoveries "${mode}" "${recov}" "${rx}" || rc=1
	result "${name}" ${rc}
}

# A socket disconnected with connect(AF_UNSPEC) may connect again, as a
# new connection (upstream's mptcp_connect -I does it): nothing of the
# old connection's FUSO state may carry over.  Half the exchanges on
# each connection; the client's sender copies its requests' tails, so
# its MPTCP_INFO must count copies before the disconnect and none right
# after the new connect, and every response must arrive intact.
# $1: family
test_reconnect()
{
	local family=${1}
	local name="fuso=1 IPv${family} disconnect and connect again: no old copies"
	local out="${tmpdir}/reconnect.out" rc=0
	local addr_opt caddr spid old new

	mptcp_lib_print_title "${name}"
	rr_addr "${family}"
	port=$((port + 1))
	rr_server_start "${port}" --resets-ok
	if ! timeout ${timeout_test} ip netns exec "${ns1}" \
		python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
		-a "${caddr}" -n 20 -s 1000,8000 --reconnect > "${out}"; then
		mptcp_lib_pr_fail "a response lost or corrupted, or old copies counted"
		rc=1
	fi
	rr_server_stop
	read -r old new < <(sed -n 's/^reconnect copies \(.*\) then \(.*\)/\1 \2/p' "${out}")
	mptcp_lib_pr_info "the client's copies: ${old:-?} before the disconnect, ${new:-?} after"
	if [ ${rc} = 0 ] && [ "${old:-0}" -le 0 ]; then
		# without a copy before, this case proves nothing
		mptcp_lib_pr_fail "no copy on the first connection"
		rc=1
	fi
	result "${name}" ${rc}
}

# Each segment is copied at most once (the paper's rule).  No loss on
# either path, so nothing is retransmitted and no copy of a retransmission
# is due: the tracepoint must show no data sequence number twice, but for
# a tail copied onto its own subflow (before the second one joined), which
# is copied once more when another subflow can carry it.  When the
# responses and their copies share one subflow, every copy moves the
# subflow's snd_nxt, which must not make the targeted rule take the same
# tail again.
# $1: family
test_copy_once()
{
	local family=${1}
	local name="fuso=1 IPv${family} no loss: no segment copied twice"
	local t ev rc=0 all twice rtx0 rtx
	local addr_opt caddr spid

	mptcp_lib_print_title "${name}"
	path2_loss ""
	rtx0=$(mptcp_lib_get_counter "${ns2}" TcpRetransSegs)
	if ! trace_begin "${name}"; then
		path2_loss "${loss}"
		return
	fi

	rr_addr "${family}"
	port=$((port + 1))
	rr_server_start "${port}"
	if ! timeout ${timeout_test} ip netns exec "${ns1}" \
		python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
		-a "${caddr}" -n 30 -s 1000,8000,30000; then
		mptcp_lib_pr_fail "a response was lost or corrupted"
		rc=1
	fi
	rr_server_stop

	trace_stop
	rtx=$(($(mptcp_lib_get_counter "${ns2}" TcpRetransSegs) - rtx0))
	all=$(grep -c 'mptcp_fuso_recovery:' "${t}/trace")
	# a tail copied onto its own subflow may be copied once more, later,
	# onto another one (mptcp_fuso_take_tail()); any other repeat counts
	twice=$(grep -o 'sock_cookie=[^ ]* .* dsn=[0-9]*' "${t}/trace" |
		awk '{ k = $1 " " $NF; w = b = ""
		       for (i = 2; i < NF; i++) {
			       if ($i ~ /^worst=/) w = $i
			       if ($i ~ /^best=/) b = $i
		       }
		       s[k] = s[k] (substr(w, 7) == substr(b, 6) ? "s" : "o") }
		     END { for (k in s) if (length(s[k]) > 1 && s[k] != "so") c++
			   print c + 0 }')
	echo > "${t}/trace"
	path2_loss "${loss}"

	[ "${FUSO_TEST_VERBOSE:-0}" = 1 ] &&
		mptcp_lib_pr_info "${all} copies, ${twice} sequence numbers" \
			"copied more than once, ${rtx} retransmissions"
	if [ ${rc} = 0 ] && [ "${all}" -lt 1 ]; then
		mptcp_lib_pr_fail "no copy at all"
		rc=1
	elif [ ${rc} = 0 ] && [ "${rtx}" = 0 ] && [ "${twice}" != 0 ]; then
		mptcp_lib_pr_fail "${twice} of ${all} copies repeat a sequence" \
			"number, with no retransmission"
		rc=1
	fi
	result "${name}" ${rc}
}

# Copies that leave a hole: read from the trace on stdin, print "COPIES
# MAX HOLES", where MAX is the longest copy and HOLES counts gaps between
# the copies of one connection, in data sequence order, that are shorter
# than MAX: a victim copied only in part.  Python, for 64-bit DSNs.
copy_holes()
{
	python3 -c '
import re, sys
conns = {}
for line in sys.stdin:
    m = re.search(r"sock_cookie=(\S+) .* dsn=(\d+) len=(\d+)", line)
    if m:
        conns.setdefault(m[1], []).append((int(m[2]), int(m[3])))
n = sum(len(c) for c in conns.values())
top = max((ln for c in conns.values() for _, ln in c), default=0)
holes = 0
for c in conns.values():
    c.sort()
    for (d, ln), (d2, _) in zip(c, c[1:]):
        if 0 < (d2 - d - ln) % (1 << 64) < top:
            holes += 1
print(n, top, holes)'
}

# A victim whose mapping spans two data fragments is copied whole.  The
# msk keeps the application's data in fragments of the 32 KB pages it
# writes into; a subflow skb, and its DSS mapping, goes on across a
# fragment's end, so one MSS-sized victim can hold the end of one
# fragment and the start of the next.  Each 60000-byte response crosses
# such an end.  The paper's sender (fuso_rules=0) copies every segment in
# flight when the response is sent; path 1's initial window (100) lets
# the response and its copies leave in one flight, so every segment is
# copied and the copies of a response follow each other without a gap.
# A victim cut at its fragment's end left the rest of it, up to one MSS,
# never copied: a gap shorter than a segment.  $1: family
test_span()
{
	local family=${1}
	local name="fuso=1 IPv${family} a segment across two data fragments copied whole"
	local n=20 size=60000 rc=0
	local t ev addr_opt caddr spid cpid all top holes
	local out="${tmpdir}/span.out" go="${tmpdir}/go"
	local a1=10.0.1.1 pfx=32

	[ "${family}" = 6 ] && a1=dead:beef:1::1 pfx=128
	mptcp_lib_print_title "${name}"
	trace_begin "${name}" || return
	set_rules 0
	path2_loss ""
	ip -net "${ns2}" route add "${a1}/${pfx}" dev ns2eth1 initcwnd 100

	rr_addr "${family}"
	rr_start_joined "${out}" "${go}" -n $((n + 1)) -s "${size}" \
		--before "sleep 0.05" || rc=1
	echo > "${t}/trace"
	rr_go "${go}" || rc=1
	rr_server_stop

	trace_stop
	read -r all top holes < <(grep 'mptcp_fuso_recovery:' "${t}/trace" |
				  copy_holes)
	echo > "${t}/trace"
	ip -net "${ns2}" route del "${a1}/${pfx}" dev ns2eth1
	path2_loss "${loss}"
	set_rules "${rules_default}"

	mptcp_lib_pr_info "${all} copies of up to ${top} bytes," \
		"${holes} gaps shorter than that"
	if [ ${rc} = 0 ] && [ "${all}" -lt $((n * size * 3 / 4 / 1500)) ]; then
		# without copies of most segments, no gap tells: each of the
		# n responses crosses a fragment's end, and a victim cut there
		# leaves a gap wherever it was copied (a bound of every
		# segment, 800, failed runs with 754 and 786 copies of about
		# 860 segments: not each segment finds room for its copy)
		mptcp_lib_pr_fail "${all} copies: expected at least 3/4 of the segments copied"
		rc=1
	elif [ ${rc} = 0 ] && [ "${holes}" != 0 ]; then
		mptcp_lib_pr_fail "${holes} victims copied only in part"
		rc=1
	fi
	result "${name}" ${rc}
}

# No round woken on every ACK once nothing is left to protect (issue 18,
# item 2).  The default rules and scheduler, no loss: each response's tail
# is copied when the response is sent, and the rest of its segments waits
# for evidence of a loss that never comes.  An initial window of 100 lets
# each 60000-byte response leave in one flight, so the server is idle
# with 40 segments in flight and some 20 ACKs to come for each.  Those
# ACKs may wake a round only for new data, a new retransmission, evidence
# of a loss, or, for a tail waiting for a carrier, a window opening on
# another subflow: a few per response (MPTcpExtFusoDeferred), however
# many ACKs arrive.
# The default scheduler keeps a response on subflow 1, which then ranks
# first as the carrier of its own tail when subflow 2 cannot take it.  The
# tail goes onto its own path and waits for another carrier.  Each ACK of
# subflow 1 woke a round, which took subflow 1 again and found nothing:
# some 130 empty rounds for 20 responses.  $1: family
test_ack_rounds()
{
	local family=${1}
	local name="fuso=1 IPv${family} no round woken per ACK once all is protected"
	local n=20 size=60000 rc=0
	local addr_opt caddr spid cpid woken rounds empty acks copies c i
	local out="${tmpdir}/ackrounds.out" go="${tmpdir}/go"
	local counters="MPTcpExtFusoDeferred MPTcpExtFusoRounds
			MPTcpExtFusoRoundsEmpty MPTcpExtFusoRecovery TcpInSegs"
	local -a dst=(10.0.1.1/32 10.0.2.1/32)
	local -A cnt

	[ "${family}" = 6 ] && dst=(dead:beef:1::1/128 dead:beef:2::1/128)
	mptcp_lib_print_title "${name}"
	set_rules "${rules_default}"
	path2_loss ""
	# Both paths alike: no loss, an initial window of 100, one packet
	# per segment at 10 Mbit/s, so that the ACKs come back a few
	# segments apart as on a real link.  (veth carries a TSO skb whole,
	# and without a rate a whole flight arrives at once and is ACKed in
	# one softirq: the worker's pending bit then folds all its ACKs into
	# one round.)
	for i in 1 2; do
		ip -net "${ns2}" route add "${dst[i - 1]}" dev "ns2eth${i}" initcwnd 100
		ip netns exec "${ns2}" ethtool -K "ns2eth${i}" tso off gso off >/dev/null
		tc -n "${ns2}" qdisc change dev "ns2eth${i}" root netem delay 1ms rate 10mbit
	done

	rr_addr "${family}"
	rr_start_joined "${out}" "${go}" -n $((n + 1)) -s "${size}" \
		--before "sleep 0.05" || rc=1
	for c in ${counters}; do
		cnt[${c}]=$(mptcp_lib_get_counter "${ns2}" "${c}")
	done
	rr_go "${go}" || rc=1
	for c in ${counters}; do
		cnt[${c}]=$(($(mptcp_lib_get_counter "${ns2}" "${c}") -
				cnt[${c}]))
	done
	rr_server_stop
	woken=${cnt[MPTcpExtFusoDeferred]}
	rounds=${cnt[MPTcpExtFusoRounds]}
	empty=${cnt[MPTcpExtFusoRoundsEmpty]}
	copies=${cnt[MPTcpExtFusoRecovery]}
	acks=${cnt[TcpInSegs]}

	for i in 1 2; do
		tc -n "${ns2}" qdisc change dev "ns2eth${i}" root netem delay 1ms
		ip netns exec "${ns2}" ethtool -K "ns2eth${i}" tso on gso on >/dev/null
		ip -net "${ns2}" route del "${dst[i - 1]}" dev "ns2eth${i}"
	done
	path2_loss "${loss}"

	mptcp_lib_pr_info "${n} responses, ${acks} segments in at the server:" \
		"${woken} rounds woken by ACKs, ${rounds} rounds, ${empty}" \
		"empty, ${copies} copies"
	if [ ${rc} = 0 ] && [ "${acks}" -lt $((n * 10)) ]; then
		# without ACKs in numbers this case proves nothing
		mptcp_lib_pr_fail "${acks} segments in: expected at least 10 ACKs per response"
		rc=1
	elif [ ${rc} = 0 ] && [ "${copies}" -lt "${n}" ]; then
		mptcp_lib_pr_fail "${copies} copies: expected each tail copied"
		rc=1
	elif [ ${rc} = 0 ] && [ "${woken}" -gt $((n * 2)) ]; then
		mptcp_lib_pr_fail "${woken} rounds woken by ${acks} ACKs:" \
			"expected at most 2 per response"
		rc=1
	fi
	result "${name}" ${rc}
}

# $1: netem loss for path 2, or "" for none
path2_loss()
{
	local l=""

	[ -n "${1}" ] && l="loss ${1}"
	# shellcheck disable=SC2086 # $l is two words or none
	tc -n "${ns1}" qdisc change dev ns1eth2 root netem delay 1ms ${l}
	# shellcheck disable=SC2086
	tc -n "${ns2}" qdisc change dev ns2eth2 root netem delay 1ms ${l}
}

# $1: family; $2: "-A" or "-D"; $3: port.  The client drops the first
# arriving packet of the size of the tail response, once: a loss in the
# network.  (A drop in the server's OUTPUT chain would be a local send
# error, which TCP sees and retries.)
tail_drop_rule()
{
	local ipt=iptables

	[ "${1}" = 6 ] && ipt=ip6tables
	ip netns exec "${ns1}" "${ipt}" "${2}" INPUT -p tcp --sport "${3}" \
		-m length --length 1240:1400 \
		-m statistic --mode nth --every 1000000 --packet 0 -j DROP
}

# $1: family; $2: port.  Packets the rule dropped.
tail_drop_count()
{
	local ipt=iptables

	[ "${1}" = 6 ] && ipt=ip6tables
	ip netns exec "${ns1}" "${ipt}" -L INPUT -v -x -n |
		awk -v p="spt:${2}" '$0 ~ p && /DROP/ { print $1 }'
}

# Deterministic tail loss.  One connection, no random loss: a warm-up
# exchange (small enough not to fill the client's receive window), then a
# request whose one-segment response is dropped once on its way out.
# $1: mode; $2: family; $3: optional, the server's --after-send: the
# response ends with a zero-length write after MSG_MORE ("empty"), or
# with a zero-length write with MSG_MORE and then another without
# ("empties": three quick writes are one message, not a stream), or
# with TCP_CORK cleared ("cork"), or is followed by a write that fails
# ("epipe"); none of them may leave the data in flight unprotected; $4:
# optional, the server's MPTCP_FUSO socket option, which then rules
# instead of the namespace's mode $1, and must show in MPTCP_INFO
test_tail_loss()
{
	local mode=${1}
	local family=${2}
	local after=${3:-}
	local sock=${4:-}
	local name="fuso=${mode} IPv${family} tail segment lost once"
	local out="${tmpdir}/tail.out" go="${tmpdir}/go" info="${tmpdir}/info"
	local addr_opt caddr spid cpid joined_before i rc=0
	local dropped timeouts probes mrtx recov icopies

	[ -n "${after}" ] &&
		name="fuso=${mode} IPv${family} tail lost, response ends by ${after}"
	if [ -n "${sock}" ]; then
		name="fuso=${mode}, server socket MPTCP_FUSO=${sock}, IPv${family} tail lost"
		mode=${sock}
	fi
	if [ $((mode & 1)) = 1 ]; then
		name+=": no timeout"
	else
		name+=": waits for a timer"
	fi
	mptcp_lib_print_title "${name}"
	rr_addr "${family}"
	port=$((port + 1))
	rm -f "${go}" "${info}"
	path2_loss ""
	joined_before=$(mptcp_lib_get_counter "${ns2}" MPTcpExtMPJoinAckRx)
	rr_server_start "${port}" ${after:+--after-send "${after}"} \
		${sock:+--fuso "${sock}" --info "${info}"}
	timeout ${timeout_test} ip netns exec "${ns1}" \
		python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
		-a "${caddr}" -n 2 -s 8000,1200 --wait-file "${go}" \
		--snap-pid "${spid}" > "${out}" &
	cpid=$!

	# after the warm-up, with the second subflow up: arm the drop
	rr_wait_joined "${out}" "${joined_before}" || rc=1
	tail_drop_rule "${family}" -A "${port}"
	rr_go "${go}" "the tail response" || rc=1
	# the server notes MPTCP_INFO once it has seen the client close
	if [ -n "${sock}" ]; then
		for i in $(seq 50); do
			[ -s "${info}" ] && break
			sleep 0.1
		done
	fi
	rr_server_stop
	dropped=$(tail_drop_count "${family}" "${port}")
	tail_drop_rule "${family}" -D "${port}"
	path2_loss "${loss}"

	timeouts=$(awk '$2 == "TcpExtTCPTimeouts" { print $3 }' "${out}")
	probes=$(awk '$2 == "TcpExtTCPLossProbes" { print $3 }' "${out}")
	mrtx=$(awk '$2 == "MPTcpExtMPTCPRetrans" { print $3 }' "${out}")
	recov=$(awk '$2 == "MPTcpExtFusoRecovery" { print $3 }' "${out}")
	if [ "${FUSO_TEST_VERBOSE:-0}" = 1 ]; then
		mptcp_lib_pr_info "dropped ${dropped}; server counters that" \
			"moved during the exchange:"
		awk '$1 == "delta" && $3 != 0 && $2 ~ /^(MPTcpExt|TcpExt|TcpRetrans)/ {
			printf "        %-32s %s\n", $2, $3 }
		     $1 == "elapsed_ms" { printf "        %-32s %s\n", "exchange time (ms)", $2 }' \
			"${out}"
	fi
	if [ "${dropped}" != 1 ]; then
		# without the drop this test proves nothing
		mptcp_lib_pr_fail "the rule dropped '${dropped}' packets, not 1"
		rc=1
	elif [ -z "${timeouts}" ] || [ -z "${probes}" ] || [ -z "${mrtx}" ] ||
	     [ -z "${recov}" ]; then
		mptcp_lib_pr_fail "no counter snapshot from the client"
		rc=1
	elif [ $((mode & 1)) = 1 ]; then
		# No retransmission timeout, at the TCP or the MPTCP level.  A
		# tail loss probe may fire: with the copy behind the original,
		# two segments are out and the probe is due 2 RTT + 2 jiffies
		# later, racing with RACK (1 segment out: 2 RTT + 200 ms).
		if [ "${recov}" -lt 1 ] || [ $((timeouts + mrtx)) != 0 ]; then
			mptcp_lib_pr_fail "FusoRecovery ${recov}, TCPTimeouts" \
				"${timeouts}, MPTCPRetrans ${mrtx}: expected" \
				">= 1, 0, 0"
			rc=1
		fi
	elif [ "${recov}" != 0 ] || [ $((timeouts + probes + mrtx)) -lt 1 ]; then
		mptcp_lib_pr_fail "FusoRecovery ${recov}, TCPTimeouts" \
			"${timeouts}, TCPLossProbes ${probes}, MPTCPRetrans" \
			"${mrtx}: expected 0 and one of the timers"
		rc=1
	fi
	# the connection's own copies, as MPTCP_INFO reports them
	if [ -n "${sock}" ] && [ "${rc}" = 0 ]; then
		icopies=$(awk '$1 == "conn" && $3 == '"${sock}"' { print $5 }' \
			"${info}" 2>/dev/null)
		if [ -z "${icopies}" ]; then
			mptcp_lib_pr_fail "no MPTCP_INFO with mode ${sock} from" \
				"the server: $(cat "${info}" 2>/dev/null)"
			rc=1
		elif [ $((mode & 1)) = 1 ] && [ "${icopies}" -lt "${recov}" ]; then
			mptcp_lib_pr_fail "MPTCP_INFO: ${icopies} copies, but" \
				"FusoRecovery moved by ${recov} in the last exchange"
			rc=1
		elif [ $((mode & 1)) = 0 ] && [ "${icopies}" != 0 ]; then
			mptcp_lib_pr_fail "MPTCP_INFO: ${icopies} copies with" \
				"MPTCP_FUSO=${sock}"
			rc=1
		fi
	fi
	result "${name}" ${rc}
}

# The receiver scenario: a subflow-level hole on path 1, and copies of the
# data it holds.  Path 1 (2 ms each way) loses the first segment of a
# response (the client drops it once, at its INPUT); path 2 (1 ms each way,
# no loss) has the shorter RTT.  Copies go where a window has room: onto
# path 2, or onto path 1 behind its own hole.  The rest of the response
# reaches the client on path 1 behind the hole.  Without the receiver push
# it waits in path 1's TCP out-of-order queue until path 1 repairs the
# hole, an RTT of path 1 later; with it, the copy of the first segment
# completes the response.  The server sends one segment per skb
# (gso_max_segs 1, so that the drop takes one segment) and starts path 1
# with a window of 32, so that a 21-segment response leaves in one flight.
# $1: family; $2: "on" or "off"
ofo_paths()
{
	local family=${1}
	local a1=10.0.1.1 pfx=32 segs=65535
	local d1="1ms" l2="loss ${loss}"

	if [ "${family}" = 6 ]; then
		a1=dead:beef:1::1 pfx=128
	fi
	if [ "${2}" = on ]; then
		d1=2ms l2="" segs=1
		ip -net "${ns2}" route add "${a1}/${pfx}" dev ns2eth1 initcwnd 32
	else
		ip -net "${ns2}" route del "${a1}/${pfx}" dev ns2eth1
	fi
	ip -net "${ns2}" link set ns2eth1 gso_max_segs "${segs}"
	ip -net "${ns2}" link set ns2eth2 gso_max_segs "${segs}"
	tc -n "${ns1}" qdisc change dev ns1eth1 root netem delay "${d1}"
	tc -n "${ns2}" qdisc change dev ns2eth1 root netem delay "${d1}"
	# shellcheck disable=SC2086 # loss is two words or none
	tc -n "${ns1}" qdisc change dev ns1eth2 root netem delay 1ms ${l2}
	# shellcheck disable=SC2086
	tc -n "${ns2}" qdisc change dev ns2eth2 root netem delay 1ms ${l2}
}

# $1: a case's name; the rest: commands it needs.  True when all exist;
# else the case is skipped (and fails where every feature is expected).
need_cmds()
{
	local name=${1} c

	shift
	for c in "$@"; do
		command -v "${c}" >/dev/null && continue
		mptcp_lib_pr_skip "${c} not available"
		mptcp_lib_result_skip "${name}"
		mptcp_lib_fail_if_expected_feature "${c}"
		return 1
	done
}

# True when the kernel runs in virtual time (UML time-travel): netem delays
# are then exact and timings repeat.
virtual_time()
{
	grep -q 'time-travel' /proc/cmdline 2>/dev/null
}

# $1: family; $2: port.  The client command that (re-)arms the drop of the
# next full-sized segment from the server on path 1.
ofo_drop_cmd()
{
	local ipt=iptables
	local rule

	[ "${1}" = 6 ] && ipt=ip6tables
	rule="INPUT -i ns1eth1 -p tcp --sport ${2} -m length --length 1400:1600"
	rule+=" -m statistic --mode nth --every 1000000 --packet 0 -j DROP"
	echo "${ipt} -D ${rule} 2>/dev/null; ${ipt} -A ${rule}"
}

# The pause after the warm-up: longer than any RTO, so that both subflows
# are idle and restart from their initial windows (path 2: 10 segments,
# half a response, so that copies cover only its head; path 1: 32).
ofo_pause=0.5

# Waits (up to 10 s) until the client has no TCP connection left but
# listeners and TIME-WAIT, so that counters belong to the next run only.
ofo_settle()
{
	local i

	for i in $(seq 100); do
		[ -z "$(ip netns exec "${ns1}" ss -tnH state established \
			state fin-wait-1 state fin-wait-2 state close-wait \
			state last-ack state closing state syn-sent)" ] && return 0
		sleep 0.1
	done
	return 1
}

# $1: family; $2: port.  Removes the rule; prints what its last arming
# dropped.
ofo_drop_done()
{
	local ipt=iptables
	local n

	[ "${1}" = 6 ] && ipt=ip6tables
	n=$(ip netns exec "${ns1}" "${ipt}" -L INPUT -v -x -n |
		awk -v p="spt:${2}" '$0 ~ p && /DROP/ { print $1 }')
	ip netns exec "${ns1}" "${ipt}" -D INPUT -i ns1eth1 -p tcp \
		--sport "${2}" -m length --length 1400:1600 \
		-m statistic --mode nth --every 1000000 --packet 0 -j DROP
	echo "${n}"
}

ofo_conns=3

# Each of 3 connections: a 256 KB warm-up response (so that both subflows
# carry data, and path 2 has an RTT), then one 29000-byte response whose
# first segment is dropped on path 1.  A new connection each time: every
# drop makes path 1 halve its cwnd, and later responses would be
# cwnd-limited.  Sets ofo_total_us (the 3 measured responses' times,
# summed), ofo_drops (what each arming dropped) and the counter deltas
# ofo_push, ofo_inseq, ofo_skip, ofo_acknow (client) and ofo_copies,
# ofo_same (server).
# $1: family; $2: optional, "shut": each response ends the stream
# (fuso_rr.py's --after-send shut and --eof); sets ofo_eofs, each
# connection's time from the response's last byte to the end of the
# stream.  Returns 1 if a response was lost or corrupted, or its stream
# did not end.
ofo_run()
{
	local family=${1}
	local shut=${2:-}
	local out="${tmpdir}/ofo.out"
	local addr_opt caddr spid i t e rc=0
	local push0 inseq0 skip0 acknow0 copies0 same0

	rr_addr "${family}"
	ofo_settle || mptcp_lib_pr_info "connections still open after 10 s"
	push0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoPush)
	inseq0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoInSeq)
	skip0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoSkip)
	acknow0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvAckNow)
	copies0=$(mptcp_lib_get_counter "${ns2}" MPTcpExtFusoRecovery)
	same0=$(mptcp_lib_get_counter "${ns2}" MPTcpExtFusoRecoverySameSubflow)

	ofo_total_us=0
	ofo_drops=""
	ofo_eofs=""
	for i in $(seq ${ofo_conns}); do
		port=$((port + 1))
		rr_server_start "${port}" ${shut:+--after-send shut}
		if ! timeout ${timeout_test} ip netns exec "${ns1}" \
			python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
			-a "${caddr}" -n 2 -s 262144,29000 --times ${shut:+--eof} \
			--before "sleep ${ofo_pause}; $(ofo_drop_cmd "${family}" "${port}")" \
			> "${out}"; then
			rc=1
		fi
		e=$(awk '$1 == "eof_us" { print $2 }' "${out}")
		ofo_eofs+="${e:-none} "
		rr_server_stop
		ofo_settle || mptcp_lib_pr_info "connections still open after 10 s"
		ofo_drops+="$(ofo_drop_done "${family}" "${port}") "
		t=$(awk '$1 == "time_us" { print $3 }' "${out}")
		if [ -z "${t}" ]; then
			ofo_total_us=""
		elif [ -n "${ofo_total_us}" ]; then
			ofo_total_us=$((ofo_total_us + t))
		fi
		if [ "${FUSO_TEST_VERBOSE:-0}" = 1 ]; then
			mptcp_lib_pr_info "response ${i}: ${t} us" \
				"${shut:+(the end of the stream ${e} us later)}"
		fi
	done

	ofo_push=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoPush) - push0))
	ofo_inseq=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoInSeq) - inseq0))
	ofo_skip=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoSkip) - skip0))
	ofo_acknow=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvAckNow) - acknow0))
	ofo_copies=$(($(mptcp_lib_get_counter "${ns2}" MPTcpExtFusoRecovery) - copies0))
	ofo_same=$(($(mptcp_lib_get_counter "${ns2}" MPTcpExtFusoRecoverySameSubflow) - same0))
	if [ "${FUSO_TEST_VERBOSE:-0}" = 1 ]; then
		mptcp_lib_pr_info "push ${ofo_push} inseq ${ofo_inseq} skip" \
			"${ofo_skip} ack-now ${ofo_acknow}; copies ${ofo_copies} (same subflow" \
			"${ofo_same}); drops ${ofo_drops}"
	fi
	return ${rc}
}

# $1: the drops of ofo_run.  Each arming must have dropped 1 packet.
ofo_drops_ok()
{
	local d

	for d in ${1}; do
		[ "${d}" = 1 ] || return 1
	done
	[ -n "${1// /}" ]
}

# A debug kernel (kmemleak, lockdep, KASAN), detected as simult_flows.sh
# does, or FUSO_TEST_SANITIZER=1.
debug_kernel()
{
	[ "${FUSO_TEST_SANITIZER:-0}" = 1 ] ||
		grep -q ' kmemleak_init$\| lockdep_init$\| kasan_init$\| prove_locking$' \
			/proc/kallsyms 2>/dev/null
}

# The subflow-hole scenario needs the copies to win the race against the
# hole's retransmission.  On a debug kernel under emulation (KASAN and
# TCG: responses take about 100 ms instead of 4-8) they do not, so there
# those checks only report; the data checks, the fuso=1 receiver check
# and the kernel's own checks still count.  (Not MPTCP_LIB_SUBTEST_FLAKY:
# it would ignore every failure of the subtest, a corruption too.)
ofo_timing_fail()
{
	if debug_kernel; then
		mptcp_lib_pr_info "${*} (not checked on a sanitizer kernel)"
		return 0
	fi
	mptcp_lib_pr_fail "${@}"
	return 1
}

# Side by side, in one run: the same scenario with the receiver push off
# (fuso=1) and on (fuso=3).  Both must send copies onto a subflow other
# than the one that holds the data, and deliver intact data; only fuso=3
# may push, and it must, and its responses must complete sooner.
# $1: family
test_ofo_push()
{
	local family=${1}
	local name="IPv${family} subflow hole, copies on the other path:"
	local mode rc=0
	local t1="" t3=""

	name+=" fuso=3 pushes, sooner than fuso=1"
	mptcp_lib_print_title "${name}"
	ofo_paths "${family}" on
	for mode in 1 3; do
		set_mode "${mode}"
		if ! ofo_run "${family}"; then
			mptcp_lib_pr_fail "fuso=${mode}: a response was lost or corrupted"
			rc=1
		fi
		if ! ofo_drops_ok "${ofo_drops}" || [ -z "${ofo_total_us}" ]; then
			mptcp_lib_pr_fail "fuso=${mode}: drops '${ofo_drops}', not 1" \
				"each, or a response time is missing"
			rc=1
		fi
		if [ $((ofo_copies - ofo_same)) -lt 1 ]; then
			ofo_timing_fail "fuso=${mode}: no copy on the other path" \
				"(copies ${ofo_copies}, same subflow ${ofo_same})" || rc=1
		fi
		if [ "${mode}" = 1 ]; then
			t1=${ofo_total_us}
			if [ $((ofo_push + ofo_inseq + ofo_skip + ofo_acknow)) != 0 ]; then
				mptcp_lib_pr_fail "fuso=1: receiver counters moved" \
					"(push ${ofo_push}, in seq ${ofo_inseq}," \
					"skip ${ofo_skip}, ack-now ${ofo_acknow})"
				rc=1
			fi
		else
			t3=${ofo_total_us}
			if [ "${ofo_push}" -lt 1 ] || [ "${ofo_inseq}" -lt 1 ]; then
				ofo_timing_fail "fuso=3: push ${ofo_push}, in seq" \
					"${ofo_inseq}: expected both >= 1" || rc=1
			fi
			# FusoRcvAckNow is not asserted here: traced, path 2
			# carries the response's head, below path 1's hole, and
			# the copies go to path 1, which has room; the counter
			# moves or not with the timers' phase.  test_ack_now
			# builds the case that needs the ACK.
		fi
	done
	ofo_paths "${family}" off
	if [ -n "${t1}" ] && [ -n "${t3}" ]; then
		mptcp_lib_pr_info "${ofo_conns} responses took ${t1} us with fuso=1," \
			"${t3} us with fuso=3"
		# In virtual time (UML time-travel) both runs see exactly the
		# delays netem sets, so the comparison is exact and repeats.
		# In real time a few ms of emulator jitter can hide the gap
		# (one RTT of path 1 per response): only report it there.
		if ! virtual_time; then
			mptcp_lib_pr_info "real time: the times are not compared"
		elif [ "${t3}" -ge "${t1}" ]; then
			mptcp_lib_pr_fail "fuso=3 was not faster than fuso=1"
			rc=1
		fi
	fi
	result "${name}" ${rc}
}

# The receiver's immediate ACK, behind FUSO's own sender (the default
# rules), on the paths of the subflow-hole scenario (ofo_paths: path 2, 1
# ms each way, is the faster; one segment per skb).  A response's whole
# flight on path 2 is lost (netem drops every packet the server sends
# there until the response is complete), on a connection whose client no
# longer ACKs every segment: a 256 KB response used up its quick ACKs,
# and the request follows it at once.  What path 1 delivers of the
# response lies beyond the data-level hole, and no SACK can come from
# path 2.  FUSO's receiver ACKs the end of path 1's push at once
# (FusoRcvAckNow), the sender learns from that ACK that path 2's data is
# in doubt and copies it onto path 1, before path 2's loss probe is due.
# With fuso=1 the same ACK waits for the client's delayed-ACK timer.
# Side by side, fuso=3 must ACK at once and complete with no loss probe
# or timeout on the server, in virtual time sooner than fuso=1; fuso=1
# must not touch the counter.  A counter that moves without the ACK
# going out fails the times (tried: 48 ms with fuso=3 then, 7 ms with
# the ACK, 47 ms with fuso=1).
# $1: family
test_ack_now()
{
	local family=${1}
	local name="IPv${family} whole flight lost on path 2:"
	local out="${tmpdir}/acknow.out" go="${tmpdir}/go" armed="${tmpdir}/armed"
	local mode drop joined t t1="" t3="" acknow0 acknow drops0 drops
	local probes timeouts recov rc=0

	name+=" fuso=3 ACKs at once, sooner than fuso=1"
	mptcp_lib_print_title "${name}"
	rr_addr "${family}"
	ofo_paths "${family}" on
	# Before the third exchange, not the second (the 256 KB one), and
	# 10 ms after it: the copies of its tail must be out of path 2, or
	# they are lost there, path 2 is busy and the response goes to path
	# 1; far less than an RTO, after which the client would ACK every
	# segment again (tcp_event_data_recv()).
	drop="if [ -e ${armed} ]; then sleep 0.01; tc -n ${ns2} qdisc change"
	drop+=" dev ns2eth2 root netem delay 1ms loss 100%; fi; touch ${armed}"
	for mode in 1 3; do
		set_mode "${mode}"
		ofo_settle || mptcp_lib_pr_info "connections still open after 10 s"
		rm -f "${go}" "${armed}"
		acknow0=$(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvAckNow)
		drops0=$(tc_dropped "${ns2}" ns2eth2)
		joined=$(mptcp_lib_get_counter "${ns2}" MPTcpExtMPJoinAckRx)
		port=$((port + 1))
		rr_server_start "${port}"
		timeout ${timeout_test} ip netns exec "${ns1}" \
			python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
			-a "${caddr}" -n 3 -s 1000,262144,20000 --times \
			--wait-file "${go}" --snap-pid "${spid}" \
			--before "${drop}" > "${out}" &
		cpid=$!
		rr_wait_joined "${out}" "${joined}" || rc=1
		rr_go "${go}" "fuso=${mode}: the response" || rc=1
		tc -n "${ns2}" qdisc change dev ns2eth2 root netem delay 1ms
		rr_server_stop
		acknow=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvAckNow) - acknow0))
		drops=$(($(tc_dropped "${ns2}" ns2eth2) - drops0))
		t=$(awk '$1 == "time_us" && $2 == 2 { print $3 }' "${out}")
		probes=$(awk '$2 == "TcpExtTCPLossProbes" { print $3 }' "${out}")
		timeouts=$(awk '$2 == "TcpExtTCPTimeouts" { print $3 }' "${out}")
		recov=$(awk '$2 == "MPTcpExtFusoRecovery" { print $3 }' "${out}")
		mptcp_lib_pr_info "fuso=${mode}: ${t:-no} us, ${drops} packets" \
			"dropped on path 2, ${acknow} ACKs at once, ${recov:-no}" \
			"copies, ${probes:-no} loss probes"
		if [ -z "${t}" ] || [ -z "${probes}" ] || [ -z "${timeouts}" ] ||
		   [ -z "${recov}" ]; then
			mptcp_lib_pr_fail "fuso=${mode}: no time or counters from the client"
			rc=1
			continue
		fi
		if [ "${drops}" -lt 2 ]; then
			# without a flight lost on path 2 this case proves nothing
			ofo_timing_fail "fuso=${mode}: ${drops} packets dropped" \
				"on path 2: expected a flight" || rc=1
		fi
		if [ "${mode}" = 1 ]; then
			t1=${t}
			if [ "${acknow}" != 0 ]; then
				mptcp_lib_pr_fail "fuso=1: ${acknow} ACKs at once"
				rc=1
			fi
		else
			t3=${t}
			if [ "${acknow}" -lt 1 ] || [ "${recov}" -lt 2 ]; then
				ofo_timing_fail "fuso=3: ${acknow} ACKs at once," \
					"${recov} copies: expected >= 1, >= 2" || rc=1
			fi
			if [ $((probes + timeouts)) != 0 ]; then
				ofo_timing_fail "fuso=3: ${probes} loss probes," \
					"${timeouts} timeouts before the response" \
					"was complete: expected none" || rc=1
			fi
		fi
	done
	ofo_paths "${family}" off
	# in virtual time the times are exact and repeat (see test_ofo_push)
	if [ -n "${t1}" ] && [ -n "${t3}" ] && virtual_time &&
	   [ "${t3}" -ge "${t1}" ]; then
		mptcp_lib_pr_fail "fuso=3 was not faster than fuso=1"
		rc=1
	fi
	result "${name}" ${rc}
}

# $1: family; $2: -A or -D.  The client's rules that drop the first data
# segment from the server (port) on each path: the original and its copy.
probe_drop_rules()
{
	local ipt=iptables dev

	[ "${1}" = 6 ] && ipt=ip6tables
	for dev in ns1eth1 ns1eth2; do
		echo "${ipt} ${2} INPUT -i ${dev} -p tcp --sport ${port}" \
			"-m length --length 200:65535 -m statistic --mode nth" \
			"--every 1000000 --packet 0 -j DROP;"
	done
}

# A copy alone in flight, lost with its original (patch 0014).  On clean
# paths (ofo_paths: 2 and 1 ms each way), a response of one segment is
# the tail: FUSO copies it onto the other subflow at once.  The client
# drops the first data segment on each path, the original and the copy,
# so that each subflow has one packet in flight, which TLP probes at 2
# srtt + rto_min (200 ms), not 2 srtt + 2 ms as a flight of several.
# FUSO re-arms the copy's probe at the latter: the probe resends the copy
# and the response completes.  The server must have sent a loss probe and
# no timeout before the response was complete (else the copy was not
# lost, and the case proves nothing), and in virtual time the response
# must take less than half of rto_min: no probe of a lone packet comes
# that soon.  Tried: 13 ms (IPv4) and 15 ms (IPv6) with the re-arm, 210
# and 214 ms without it (patch 0014 left out), where the check fails.
# $1: family
test_probe_copy()
{
	local family=${1}
	local name="IPv${family} original and copy lost: the copy's probe is"
	local out="${tmpdir}/probe.out" go="${tmpdir}/go"
	local ipt=iptables joined t drops probes timeouts recov rc=0

	name+=" due in 2 srtt + 2 ms"
	mptcp_lib_print_title "${name}"
	[ "${family}" = 6 ] && ipt=ip6tables
	rr_addr "${family}"
	ofo_paths "${family}" on
	set_mode 3
	ofo_settle || mptcp_lib_pr_info "connections still open after 10 s"
	rm -f "${go}"
	: > "${out}"
	joined=$(mptcp_lib_get_counter "${ns2}" MPTcpExtMPJoinAckRx)
	port=$((port + 1))
	rr_server_start "${port}"
	timeout ${timeout_test} ip netns exec "${ns1}" \
		python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
		-a "${caddr}" -n 2 -s 1000 --times --wait-file "${go}" \
		--snap-pid "${spid}" --before "$(probe_drop_rules "${family}" -A)" \
		> "${out}" &
	cpid=$!
	rr_wait_joined "${out}" "${joined}" || rc=1
	rr_go "${go}" "the response" || rc=1
	rr_server_stop
	drops=$(ip netns exec "${ns1}" "${ipt}" -L INPUT -v -x -n |
		awk -v p="spt:${port}" '$0 ~ p && /DROP/ { printf "%s ", $1 }')
	ip netns exec "${ns1}" sh -c "$(probe_drop_rules "${family}" -D)" \
		2>/dev/null
	ofo_paths "${family}" off
	t=$(awk '$1 == "time_us" && $2 == 1 { print $3 }' "${out}")
	probes=$(awk '$2 == "TcpExtTCPLossProbes" { print $3 }' "${out}")
	timeouts=$(awk '$2 == "TcpExtTCPTimeouts" { print $3 }' "${out}")
	recov=$(awk '$2 == "MPTcpExtFusoRecovery" { print $3 }' "${out}")
	mptcp_lib_pr_info "${t:-no} us, dropped per path: ${drops:-none};" \
		"${recov:-no} copies, ${probes:-no} loss probes," \
		"${timeouts:-no} timeouts"
	if [ -z "${t}" ] || [ -z "${probes}" ] || [ -z "${timeouts}" ] ||
	   [ -z "${recov}" ]; then
		mptcp_lib_pr_fail "no time or counters from the client"
		result "${name}" 1
		return
	fi
	if [ "${drops}" != "1 1 " ] || [ "${recov}" -lt 1 ]; then
		# no original and copy lost: the case proves nothing
		ofo_timing_fail "dropped '${drops}', ${recov} copies:" \
			"expected 1 on each path, and a copy" || rc=1
	elif [ "${probes}" -lt 1 ] || [ "${timeouts}" != 0 ]; then
		ofo_timing_fail "${probes} loss probes, ${timeouts} timeouts" \
			"before the response was complete: expected >= 1, 0" ||
			rc=1
	elif virtual_time && [ "${t}" -ge 100000 ]; then
		mptcp_lib_pr_fail "${t} us: the copy's probe waited for" \
			"rto_min (200 ms), as a lone packet's"
		rc=1
	fi
	result "${name}" ${rc}
}

# $1: netns; $2: device.  Packets its root qdisc (netem) dropped so far.
tc_dropped()
{
	tc -n "${1}" -s qdisc show dev "${2}" |
		awk '/dropped/ { sub(",", "", $7); print $7; exit }'
}

# Drops, at the client, every DATA_FIN without data (a DSS option,
# subtype 2, with flag 0x10, on a packet too short to carry a segment),
# and counts those with data, per path.
fin_drop()
{
	ip netns exec "${ns1}" nft -f - <<-EOF
	table inet fuso_fin {
		chain in {
			type filter hook input priority -300;
			tcp option mptcp subtype 2 tcp option @30,27,1 == 1 \
				jump fin
		}
		chain fin {
			meta length < 200 counter drop
			iifname "ns1eth1" counter
			iifname "ns1eth2" counter
		}
	}
	EOF
}

# The counters of fin_drop, in its order: "bare path1 path2"; removes it.
fin_drop_done()
{
	ip netns exec "${ns1}" nft list chain inet fuso_fin fin 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == "packets") printf "%s ", $(i + 1) }'
	ip netns exec "${ns1}" nft delete table inet fuso_fin 2>/dev/null
}

# The receiver scenario, each response ending the stream: the server shuts
# down for writing while the response's last segment is still corked, so
# that the DATA_FIN rides on that segment's mapping and reaches the client
# on path 1, behind the hole.  The server also sends a bare DATA_FIN on
# every subflow once the data is out, which MPTCP reads at once, in or out
# of order: the client's netfilter drops those (fin_drop), so that the
# end of the stream is known only from the mapping behind the hole.  When
# the receiver takes that segment, the stream must end with it, not when
# path 1 repairs the hole, an RTT of path 1 (4 ms) later: in virtual time
# less than half of that after the response's last byte (it is 2 us; in
# real time only the end of the stream is checked).
# $1: family
test_ofo_fin()
{
	local family=${1}
	local name="IPv${family} subflow hole, the DATA_FIN behind it:"
	local e n bare fin1 fin2 rc=0

	name+=" the stream ends with the data"
	mptcp_lib_print_title "${name}"
	need_cmds "${name}" nft || return
	ofo_paths "${family}" on
	set_mode 3
	fin_drop
	if ! ofo_run "${family}" shut; then
		mptcp_lib_pr_fail "a response was lost or corrupted, or its" \
			"stream did not end"
		rc=1
	fi
	n=$(fin_drop_done)
	read -r bare fin1 fin2 <<< "${n}"
	ofo_paths "${family}" off
	if ! ofo_drops_ok "${ofo_drops}"; then
		mptcp_lib_pr_fail "drops '${ofo_drops}', not 1 each"
		rc=1
	fi
	# without these the case proves nothing
	if [ "${bare:-0}" -lt 1 ] || [ "${fin1:-0}" -lt "${ofo_conns}" ]; then
		mptcp_lib_pr_fail "DATA_FINs: ${bare:-none} bare ones dropped," \
			"${fin1:-none} on data on path 1: expected >= 1, >= ${ofo_conns}"
		rc=1
	fi
	if [ "${fin2:-0}" != 0 ]; then
		ofo_timing_fail "${fin2} DATA_FINs on data on path 2, where" \
			"they arrive in order: expected none" || rc=1
	fi
	if [ "${ofo_push}" -lt 1 ]; then
		ofo_timing_fail "push ${ofo_push}: expected >= 1" || rc=1
	fi
	mptcp_lib_pr_info "the streams ended ${ofo_eofs% } us after their" \
		"responses (DATA_FINs: ${bare} bare ones dropped, ${fin1} and" \
		"${fin2} on data on paths 1 and 2; push ${ofo_push})"
	for e in ${ofo_eofs}; do
		if [ "${e}" = none ]; then
			rc=1
		elif virtual_time && [ "${e}" -ge 2000 ]; then
			ofo_timing_fail "a stream ended ${e} us after its" \
				"response: it waited for path 1" || rc=1
		fi
	done
	result "${name}" ${rc}
}

# With DSS checksums the receiver push stays off (a partial mapping cannot
# be checksummed), and the data still arrives intact.
# $1: family
test_ofo_csum()
{
	local family=${1}
	local name="IPv${family} fuso=3 with DSS checksums: no push, data intact"
	local ns rc=0

	mptcp_lib_print_title "${name}"
	for ns in "${ns1}" "${ns2}"; do
		ip netns exec "${ns}" sysctl -q net.mptcp.checksum_enabled=1
	done
	ofo_paths "${family}" on
	set_mode 3
	if ! ofo_run "${family}"; then
		mptcp_lib_pr_fail "a response was lost or corrupted"
		rc=1
	fi
	ofo_paths "${family}" off
	for ns in "${ns1}" "${ns2}"; do
		ip netns exec "${ns}" sysctl -q net.mptcp.checksum_enabled=0
	done
	if ! ofo_drops_ok "${ofo_drops}"; then
		mptcp_lib_pr_fail "drops '${ofo_drops}', not 1 each"
		rc=1
	elif [ "${ofo_push}" != 0 ] || [ "${ofo_inseq}" != 0 ] ||
	     [ "${ofo_skip}" -lt 1 ]; then
		mptcp_lib_pr_fail "push ${ofo_push}, in seq ${ofo_inseq}, skip" \
			"${ofo_skip}: expected 0, 0, >= 1"
		rc=1
	fi
	result "${name}" ${rc}
}

# The receiver's memory under a long subflow-level hole: path 1 loses the
# first segment of a response and, until the response ends, every ACK the
# client sends on it, so the server sees no SACK: path 1 repairs the hole
# only after its RTO, and MPTCP resends the data on path 2 before that.
# Meanwhile what path 1 sent behind the hole waits in its TCP
# out-of-order queue (fuso=2: the receiver alone, no copies).  The
# receiver takes only data that continues the data stream, so every
# segment it takes must move the data-level ack (FusoRcvOfoInSeq equal to
# FusoRcvOfoPush; the receiver that cloned every out-of-order segment to
# the MPTCP socket took 117 of which none did, and held three times
# fuso=0's memory), and the client's MPTCP socket must stay within its
# rcvbuf (ss -M, sampled every ms while the response lasts; the peaks of
# fuso=0 and fuso=2 are only reported: even in virtual time the two runs
# differ in how much has arrived when a sample is taken, up to 1.7 times).
# $1: family
test_ofo_mem()
{
	local family=${1}
	local name="IPv${family} long subflow hole, fuso=2: in-sequence data only"
	local out="${tmpdir}/mem.out" smp="${tmpdir}/mem.smp"
	local ipt=iptables a1=10.0.1.1 pfx=32 addr_opt caddr mode acks sampler
	local push inseq rc=0
	local -A peak room

	name+=", msk within rcvbuf"
	mptcp_lib_print_title "${name}"
	[ "${family}" = 6 ] && ipt=ip6tables && a1=dead:beef:1::1 pfx=128
	ofo_paths "${family}" on
	# the hole outlasts the samples: path 1's RTO is 1 s at least
	ip -net "${ns2}" route change "${a1}/${pfx}" dev ns2eth1 initcwnd 32 \
		rto_min 1s
	for mode in 0 2; do
		set_mode "${mode}"
		rr_addr "${family}"
		port=$((port + 1))
		# pure ACKs only: the 1000-byte request must pass
		acks="OUTPUT -o ns1eth1 -p tcp --dport ${port} -m length"
		acks+=" --length 0:300 -j DROP"
		rr_server_start "${port}"
		: > "${smp}"
		push=$(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoPush)
		inseq=$(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoInSeq)
		ip netns exec "${ns1}" bash -c "
			until [ -e ${smp}.on ]; do sleep 0.001; done
			for i in \$(seq 100); do
				ss -MmHn state established; sleep 0.001
			done" >> "${smp}" &
		sampler=$!
		if ! timeout ${timeout_test} ip netns exec "${ns1}" \
			python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
			-a "${caddr}" -n 2 -s 262144,262144 -q 1000 --before "sleep \
			${ofo_pause}; $(ofo_drop_cmd "${family}" "${port}"); \
			${ipt} -A ${acks}; touch ${smp}.on" > "${out}"; then
			mptcp_lib_pr_fail "fuso=${mode}: the transfer failed"
			rc=1
		fi
		rm -f "${smp}.on"
		mptcp_lib_kill_wait "${sampler}"
		rr_server_stop
		# shellcheck disable=SC2086 # acks is words
		ip netns exec "${ns1}" "${ipt}" -D ${acks}
		ofo_settle || mptcp_lib_pr_info "connections still open after 10 s"
		[ "$(ofo_drop_done "${family}" "${port}")" = 1 ] || {
			mptcp_lib_pr_fail "fuso=${mode}: the drop did not happen once"
			rc=1
		}
		push=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoPush) - push))
		inseq=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoInSeq) - inseq))
		peak[${mode}]=$(grep -o 'skmem:(r[0-9]*' "${smp}" |
			tr -dc '0-9\n' | sort -n | tail -n1)
		# the least room any sample left below its socket's rcvbuf
		room[${mode}]=$(grep -o 'skmem:(r[0-9]*,rb[0-9]*' "${smp}" |
			tr -c '0-9\n' ' ' |
			awk '{ d = $2 - $1; if (NR == 1 || d < m) m = d }
			     END { print m }')
		mptcp_lib_pr_info "fuso=${mode}: peak msk receive memory" \
			"${peak[${mode}]:-none} bytes, least room below its" \
			"rcvbuf ${room[${mode}]:-none}; push ${push}, in seq ${inseq}"
	done
	ip -net "${ns2}" route change "${a1}/${pfx}" dev ns2eth1 initcwnd 32
	ofo_paths "${family}" off
	set_mode 3
	# Equal in virtual time; on SMP another subflow may move the ack past
	# a segment between the check and the take: allow 2 of those.
	if [ $((push - inseq)) -gt 2 ]; then
		mptcp_lib_pr_fail "fuso=2 took ${push} segments, of which only" \
			"${inseq} continued the data stream"
		rc=1
	fi
	# In real time on a slow kernel (KCSAN under TCG) the response can
	# end before the sampler's first sample: only report it there.
	if [ -z "${room[2]}" ]; then
		if virtual_time; then
			mptcp_lib_pr_fail "fuso=2: no memory sample"
			rc=1
		else
			mptcp_lib_pr_info "fuso=2: no memory sample (real time)"
		fi
	elif [ "${room[2]}" -lt 0 ]; then
		mptcp_lib_pr_fail "fuso=2: the msk held more than its rcvbuf" \
			"(room ${room[2]} bytes)"
		rc=1
	fi
	result "${name}" ${rc}
}

# $1: port.  The client command that (re-)arms the corruption of one
# mapping: the 3rd full-sized DSS segment from the server on path 1 (the
# 1st is the one ofo_drop_cmd drops) gets its DSN moved by 128 bytes (not
# a multiple of fuso_rr.py's 256-byte pattern); nft fixes the TCP
# checksum, so TCP takes the segment.  Priority -300: before the drop.
badmap_cmd()
{
	local f="${tmpdir}/badmap.nft"

	# DSS (subtype 2) with flags 0x0f: 8-byte DATA_ACK, then 8-byte DSN,
	# whose low 32 bits are at bits 128-159 of the option
	cat > "${f}" <<-EOF
	table inet fuso_badmap
	delete table inet fuso_badmap
	table inet fuso_badmap {
		chain in {
			type filter hook input priority -300;
			iifname "ns1eth1" tcp sport ${1} meta length 1400-1600 \
				tcp option mptcp subtype 2 \
				tcp option @30,24,8 == 0x0f \
				numgen inc mod 1000000 == 2 \
				tcp option @30,128,32 set tcp option @30,128,32 ^ 0x80 \
				counter
		}
	}
	EOF
	echo "nft -f ${f}"
}

# How many segments the last badmap_cmd corrupted; removes its table.
badmap_done()
{
	ip netns exec "${ns1}" nft list table inet fuso_badmap 2>/dev/null |
		awk '/counter packets/ { print $(NF - 2) }'
	ip netns exec "${ns1}" nft delete table inet fuso_badmap 2>/dev/null
}

# A mapping that contradicts the one before it, behind a subflow hole:
# the scenario of test_ofo_push, but the server's skbs on path 1 span
# several segments (TSO off on its side: the device segments them, and
# every segment repeats its skb's mapping), and the client's netfilter
# moves the DSN in the mapping of the second segment behind the hole by
# 128 bytes (badmap_cmd).  Upstream MPTCP reads the mapping of the first
# segment it delivers and moves the data after it by that mapping
# (get_mapping_status() checks a later repeat only when it delivers it
# alone: MPTcpExtDSSNotMatching), so the data arrives intact.  The
# receiver push must not take the segment by its own mapping either: a
# receiver that did would put its bytes 128 bytes off, and the data would
# arrive corrupted.  With DSS checksums ($2 = csum) the receiver takes
# nothing at all.
# $1: family; $2: "csum" or empty
test_ofo_badmap()
{
	local family=${1}
	local csum=${2:-}
	local name="IPv${family} corrupted mapping behind a subflow hole"
	local out="${tmpdir}/badmap.out"
	local mode drops bad push skip ns rc=0

	if [ -n "${csum}" ]; then
		name+=", DSS checksums"
		for ns in "${ns1}" "${ns2}"; do
			ip netns exec "${ns}" sysctl -q net.mptcp.checksum_enabled=1
		done
	fi
	name+=": never pushed, data intact"
	mptcp_lib_print_title "${name}"
	need_cmds "${name}" nft ethtool || return
	ofo_paths "${family}" on
	ip -net "${ns2}" link set ns2eth1 gso_max_segs 65535
	ip netns exec "${ns2}" ethtool -K ns2eth1 tso off >/dev/null
	for mode in 0 3; do
		set_mode "${mode}"
		rr_addr "${family}"
		ofo_settle || mptcp_lib_pr_info "connections still open after 10 s"
		push=$(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoPush)
		skip=$(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoSkip)
		port=$((port + 1))
		rr_server_start "${port}"
		if ! timeout ${timeout_test} ip netns exec "${ns1}" \
			python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
			-a "${caddr}" -n 2 -s 262144,29000 --before "sleep \
			${ofo_pause}; $(ofo_drop_cmd "${family}" "${port}"); \
			$(badmap_cmd "${port}")" > "${out}"; then
			mptcp_lib_pr_fail "fuso=${mode}: a response was lost or corrupted"
			rc=1
		fi
		rr_server_stop
		ofo_settle || mptcp_lib_pr_info "connections still open after 10 s"
		drops=$(ofo_drop_done "${family}" "${port}")
		bad=$(badmap_done)
		push=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoPush) - push))
		skip=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFusoRcvOfoSkip) - skip))
		mptcp_lib_pr_info "fuso=${mode}: dropped ${drops:-0}, corrupted" \
			"${bad:-0}; receiver push ${push}, skip ${skip}"
		if [ "${drops}" != 1 ] || [ "${bad}" != 1 ]; then
			mptcp_lib_pr_fail "fuso=${mode}: dropped '${drops}'," \
				"corrupted '${bad}': not 1 each"
			rc=1
		fi
		if [ "${mode}" = 3 ] && [ "${skip}" -lt 1 ]; then
			mptcp_lib_pr_fail "fuso=3: the receiver did not skip the bad mapping"
			rc=1
		fi
		if [ "${mode}" = 3 ] && [ -n "${csum}" ] && [ "${push}" != 0 ]; then
			mptcp_lib_pr_fail "fuso=3: pushed ${push} with DSS checksums"
			rc=1
		fi
	done
	ip netns exec "${ns2}" ethtool -K ns2eth1 tso on >/dev/null
	ofo_paths "${family}" off
	if [ -n "${csum}" ]; then
		for ns in "${ns1}" "${ns2}"; do
			ip netns exec "${ns}" sysctl -q net.mptcp.checksum_enabled=0
		done
	fi
	result "${name}" ${rc}
}

# The tracing directory, mounted if needed; empty if the kernel has none.
tracefs()
{
	local d=/sys/kernel/tracing

	if [ ! -d "${d}/events" ]; then
		mount -t tracefs nodev "${d}" 2>/dev/null ||
			mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
		[ -d "${d}/events" ] || d=/sys/kernel/debug/tracing
	fi
	[ -d "${d}/events/mptcp/mptcp_fuso_recovery" ] && echo "${d}"
}

# $1: the case's name.  Start tracing mptcp:mptcp_fuso_recovery into an
# empty buffer; sets t (tracefs) and ev (the event's enable file).  Without
# tracefs or the event, the case is skipped (a failure with
# SELFTESTS_MPTCP_LIB_EXPECT_ALL_FEATURES=1) and this returns 1.
trace_begin()
{
	t=$(tracefs)
	if [ -z "${t}" ]; then
		mptcp_lib_pr_skip "no tracefs or no mptcp_fuso_recovery event"
		mptcp_lib_result_skip "${1}"
		mptcp_lib_fail_if_expected_feature \
			"tracefs with the mptcp_fuso_recovery event"
		return 1
	fi
	ev="${t}/events/mptcp/mptcp_fuso_recovery/enable"
	echo 0 > "${t}/tracing_on"
	echo > "${t}/trace"
	echo 1 > "${ev}"
	echo 1 > "${t}/tracing_on"
}

# Stop tracing; the buffer stays for reading.
trace_stop()
{
	echo 0 > "${t}/tracing_on"
	echo 0 > "${ev}"
}

# One mptcp:mptcp_fuso_recovery event per copy, with sane fields.
test_tracepoint()
{
	local name="tracepoint mptcp_fuso_recovery: one event per copy"
	local t ev before after after2 events bad rc=0
	local addr_opt caddr spid

	mptcp_lib_print_title "${name}"
	before=$(fuso_recoveries)
	trace_begin "${name}" || return

	rr_addr 4
	port=$((port + 1))
	rr_server_start "${port}"
	timeout ${timeout_test} ip netns exec "${ns1}" python3 ./fuso_rr.py \
		client -p "${port}" -a "${caddr}" -n 10 -s 1000,8000 || rc=1
	rr_server_stop
	sleep 1

	# counters that no longer move, then stop tracing
	after=$(fuso_recoveries)
	trace_stop
	after2=$(fuso_recoveries)
	events=$(grep -c 'mptcp_fuso_recovery:' "${t}/trace")
	# the connection: a cookie (never 0) and its two ends' addresses
	local fields=' sock_cookie=[0-9a-f]*[1-9a-f][0-9a-f]*'
	fields+=' src=10\.0\.1\.[12]:[1-9][0-9]* dest=10\.0\.1\.[12]:[1-9][0-9]*'
	fields+=' worst=.* best=.* dsn=[0-9]* len=[1-9][0-9]*'
	fields+=' cost_worst=[0-9]* cost_best=[0-9]* best_ca_state=[0-4]$'
	bad=$(grep 'mptcp_fuso_recovery:' "${t}/trace" | grep -vc "${fields}")
	if [ "${FUSO_TEST_VERBOSE:-0}" = 1 ]; then
		grep -m 3 'mptcp_fuso_recovery:' "${t}/trace"
	fi
	if [ ${rc} != 0 ]; then
		mptcp_lib_pr_fail "a response was lost or corrupted"
	elif [ "${after}" != "${after2}" ]; then
		mptcp_lib_pr_fail "copies still being sent after the traffic ended"
		rc=1
	elif [ $((after - before)) -lt 1 ] ||
	     [ "${events}" != $((after - before)) ] || [ "${bad}" != 0 ]; then
		mptcp_lib_pr_fail "${events} events (${bad} malformed) for" \
			"$((after - before)) copies"
		rc=1
	fi
	echo > "${t}/trace"
	result "${name}" ${rc}
}

# $1: family; $2: "-A" or "-D"; $3: port.  The server drops the first pure
# ACK (the third of the handshake) and the first segment with PSH (the
# request), once each.
handshake_drop_rules()
{
	local ipt=iptables

	[ "${1}" = 6 ] && ipt=ip6tables
	ip netns exec "${ns2}" "${ipt}" "${2}" INPUT -p tcp --dport "${3}" \
		--tcp-flags SYN,ACK,FIN,RST,PSH ACK \
		-m statistic --mode nth --every 1000000 --packet 0 -j DROP
	ip netns exec "${ns2}" "${ipt}" "${2}" INPUT -p tcp --dport "${3}" \
		--tcp-flags PSH PSH \
		-m statistic --mode nth --every 1000000 --packet 0 -j DROP
}

# The handshake's third ACK and the first request lost.  The server then
# completes the handshake on whatever comes next: the client's request,
# retransmitted with MP_CAPABLE, or, if FUSO copied the request before
# the peer confirmed MPTCP, the copy, which carries a plain DSS mapping:
# the server falls back to TCP, the client cannot follow (a copy gave up
# the fallback), resets the connection, and the application reads
# ENOTCONN.  FUSO must wait until the connection is fully established.
# $1: family
test_handshake_loss()
{
	local family=${1}
	local name="fuso=1 IPv${family} third ACK and first request lost: no reset"
	local ipt=iptables addr_opt caddr spid rc=0 ff rst dropped

	mptcp_lib_print_title "${name}"
	[ "${family}" = 6 ] && ipt=ip6tables
	rr_addr "${family}"
	port=$((port + 1))
	path2_loss ""
	ff=$(mptcp_lib_get_counter "${ns1}" MPTcpExtFallbackFailed)
	rst=$(mptcp_lib_get_counter "${ns1}" MPTcpExtMPRstTx)
	handshake_drop_rules "${family}" -A "${port}"
	rr_server_start "${port}"
	if ! timeout ${timeout_test} ip netns exec "${ns1}" \
		python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
		-a "${caddr}" -n 3 -s 1000; then
		mptcp_lib_pr_fail "an exchange failed (connection reset?)"
		rc=1
	fi
	rr_server_stop
	dropped=$(ip netns exec "${ns2}" "${ipt}" -L INPUT -v -x -n |
		awk -v p="dpt:${port}" '$0 ~ p && /DROP/ { n += $1 } END { print n + 0 }')
	handshake_drop_rules "${family}" -D "${port}"
	path2_loss "${loss}"
	ff=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtFallbackFailed) - ff))
	rst=$(($(mptcp_lib_get_counter "${ns1}" MPTcpExtMPRstTx) - rst))
	if [ "${dropped}" != 2 ]; then
		# without both drops this case proves nothing
		mptcp_lib_pr_fail "the rules dropped ${dropped} packets, not 2"
		rc=1
	elif [ "${ff}" != 0 ] || [ "${rst}" != 0 ]; then
		mptcp_lib_pr_fail "client: FallbackFailed ${ff}, MPRstTx ${rst}"
		rc=1
	fi
	result "${name}" ${rc}
}

# $1: rules, in both namespaces (new connections take them)
set_rules()
{
	fuso_sysctl_write "${ns1}" fuso_rules "${1}" >/dev/null
	fuso_sysctl_write "${ns2}" fuso_rules "${1}" >/dev/null
}

# $1: scheduler, in both namespaces
set_sched()
{
	ip netns exec "${ns1}" sysctl -qw net.mptcp.scheduler="${1}"
	ip netns exec "${ns2}" sysctl -qw net.mptcp.scheduler="${1}"
}

# The window-bounded scheduler ("window"): listed, selectable, and FUSO
# on it sends copies and delivers every byte, in bulk transfers and short
# exchanges.  $1: family
test_sched_window()
{
	local name="IPv${1} scheduler \"window\": listed, data intact with fuso=3"
	local avail

	avail=$(ip netns exec "${ns2}" sysctl -n net.mptcp.available_schedulers)
	if [[ " ${avail} " != *" window "* ]]; then
		mptcp_lib_print_title "${name}"
		mptcp_lib_pr_fail "available_schedulers: '${avail}'"
		result "${name}" 1
		return
	fi
	set_sched window
	do_transfer 3 "${1}"
	test_rr 3 "${1}" persistent
	set_sched default
}

# The paths of the spread cases and the dead-carrier case: path 1 at 2 ms
# each way, path 2 at 1 ms with an initial window of 4 segments, no loss,
# and an RTO of about 5 ms on both, so that the 50 ms between exchanges
# are idle time.  $1: "add"
# or "del" (back to the defaults); $2: family
spread_paths()
{
	local a1=10.0.1.1 a2=10.0.2.1 pfx=32 delay=2ms

	[ "${2}" = 6 ] && a1=dead:beef:1::1 a2=dead:beef:2::1 pfx=128
	if [ "${1}" = add ]; then
		path2_loss ""
		ip -net "${ns2}" route add "${a2}/${pfx}" dev ns2eth2 \
			initcwnd 4 rto_min 5ms
		ip -net "${ns2}" route add "${a1}/${pfx}" dev ns2eth1 rto_min 5ms
	else
		ip -net "${ns2}" route del "${a2}/${pfx}" dev ns2eth2
		ip -net "${ns2}" route del "${a1}/${pfx}" dev ns2eth1
		delay=1ms
	fi
	tc -n "${ns1}" qdisc change dev ns1eth1 root netem delay "${delay}"
	tc -n "${ns2}" qdisc change dev ns2eth1 root netem delay "${delay}"
	[ "${1}" = del ] && path2_loss "${loss}"
}

# New data within the windows on an idle connection: each 10000-byte
# response (8 segments) finds path 2, the faster one (1 ms each way
# against 2 ms), restarted after the idle time to its initial window of 4
# segments, and path 1 with room.  Half the response must leave on path 1
# in the same flight; the default scheduler keeps it all on path 2.  Two
# ways to get it: the "window" scheduler chosen explicitly, FUSO off; and
# net.mptcp.fuso alone (the sender, fuso=1) on the default scheduler,
# which then schedules as "window" for FUSO's connections.  Two bugs kept
# it all on path 2, an RTT later: the room of an idle subflow counted from
# its window before TCP restarts it, and the bytes that the DSS option
# takes from each full segment (counted with mss_cache) taken for room,
# which made the full path 2 the choice again for a push that could send
# nothing.  Counted from what the server sends on path 1 after the join,
# less FUSO's copies (those may go there too): their bytes, as the
# server's connection reports them in MPTCP_INFO, and 100 bytes of
# headers each.
# $1: family; $2: "window" or "toggle"
test_sched_window_spread()
{
	local family=${1} how=${2}
	local name="IPv${family} idle, a response leaves on both paths:"
	local n=20 size=10000 rc=0 i copies=0 cbytes=0
	local addr_opt caddr spid cpid tx0 tx1
	local out="${tmpdir}/spread.out" go="${tmpdir}/go"
	local info="${tmpdir}/spread.info"
	local t="" ev

	if [ "${how}" = window ]; then
		name+=" scheduler \"window\", fuso=0"
	else
		name+=" fuso=1 alone (default scheduler)"
	fi
	mptcp_lib_print_title "${name}"
	if [ "${how}" = window ]; then
		set_mode 0
		set_sched window
	else
		set_mode 1
	fi
	spread_paths add "${family}"
	rm -f "${info}"
	rr_server_opts="--info ${info}"

	rr_addr "${family}"
	rr_start_joined "${out}" "${go}" -n $((n + 1)) -s "${size}" \
		--before "sleep 0.05" || rc=1
	# which copies went onto path 1, from the tracepoint if there is one
	[ "${how}" = window ] || [ -z "$(tracefs)" ] || trace_begin "${name}"
	tx0=$(tx_bytes "${ns2}" ns2eth1)
	rr_go "${go}" || rc=1
	tx1=$(($(tx_bytes "${ns2}" ns2eth1) - tx0))
	# the server notes MPTCP_INFO once it has seen the client close
	for i in $(seq 50); do
		[ -s "${info}" ] && break
		sleep 0.1
	done
	rr_server_stop
	rr_server_opts=""
	if [ ! -s "${info}" ]; then
		mptcp_lib_pr_fail "the server did not report its copies"
		rc=1
	else
		read -r _ _ _ _ copies _ cbytes < "${info}"
	fi
	if [ -n "${t}" ]; then
		# the server's copies on the first subflow, path 1 (the client
		# connects to the server's path 1 address), have the
		# connection's ports; without the tracepoint, count every copy
		# there
		trace_stop
		read -r copies cbytes < <(awk -v a="${caddr}" '
			/mptcp_fuso_recovery:/ {
				srv = 0
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^src=/) {
						srv = index($i, a) > 0
						s = $i; sub(/.*:/, "", s)
					}
					if ($i ~ /^dest=/) { d = $i; sub(/.*:/, "", d) }
					if ($i ~ /^best=/) b = $(i + 1)
					if ($i ~ /^len=/) { l = $i; sub(/len=/, "", l) }
				}
				if (srv && b == s "->" d) { n++; sum += l }
			}
			END { print n + 0, sum + 0 }' "${t}/trace")
		echo > "${t}/trace"
	fi
	tx1=$((tx1 - cbytes - copies * 100))

	spread_paths del "${family}"
	set_sched default
	set_mode 3

	mptcp_lib_pr_info "path 1 carried ${tx1} bytes of ${n} responses of ${size}" \
		"besides ${copies} copies there"
	# about half of each response; ACKs alone are under 100 bytes each.
	# The default scheduler sends some responses whole on path 1: with
	# the sender on and the bound undone, 48 170 and 50 922 bytes there
	# against 78 866 and 79 918 with it, and 90 066 and 92 446 with
	# "window" and FUSO off (one run).  So the toggle must also give at
	# least 7/10 of what "window" gave in the same run.
	if [ ${rc} = 0 ] && [ "${tx1}" -lt $((n * size / 4)) ]; then
		mptcp_lib_pr_fail "path 1 carried ${tx1} bytes, < 1/4 of the responses"
		rc=1
	elif [ ${rc} = 0 ] && [ "${how}" = window ]; then
		spread_window[${family}]=${tx1}
	elif [ ${rc} = 0 ] && [ -n "${spread_window[${family}]:-}" ] &&
	     [ $((tx1 * 10)) -lt $((spread_window[${family}] * 7)) ]; then
		mptcp_lib_pr_fail "path 1 carried ${tx1} bytes, < 7/10 of the" \
			"${spread_window[${family}]} with \"window\""
		rc=1
	fi
	result "${name}" ${rc}
}

# Of a response spread over two subflows, with two subflow tails, only
# the data-level tail, the last segment below snd_nxt, is copied at once;
# the other subflow's tail only if the arrival of the end shows it
# missing.  The setup of test_sched_window_spread: each 10000-byte
# response leaves on both paths, the first segments on path 2 (1 ms each
# way), the end on path 1 (2 ms), so without a loss path 2's tail arrives
# first and no hole shows.  No loss: the server's copies per response,
# with the default rules and with the paper's (0), which copies every
# segment, in one case.  It fails unless at least one copy per two
# responses is made, and at most 3/4 of the paper's.  Path 1 is the slower
# one: the tail's copy on path 2 reaches the peer before path 1's data
# below it, which is then in doubt and copied too (40 copies for 20
# responses, the paper 160).  $1: family
test_last_tail()
{
	local family=${1}
	local name="IPv${family} fuso_rules=${rules_default}: of two tails, one copied at once"
	local n=20 size=10000 rc=0
	local addr_opt caddr spid cpid c0 rules tx0 tx1 d=${rules_default}
	local out="${tmpdir}/lasttail.out" go="${tmpdir}/go"
	local -A copies spread

	mptcp_lib_print_title "${name}"
	set_mode 1
	spread_paths add "${family}"

	rr_addr "${family}"
	for rules in ${d} 0; do
		set_rules "${rules}"
		rr_start_joined "${out}" "${go}" -n $((n + 1)) -s "${size}" \
			--before "sleep 0.05" || rc=1
		c0=$(mptcp_lib_get_counter "${ns2}" MPTcpExtFusoRecovery)
		tx0=$(tx_bytes "${ns2}" ns2eth1)
		rr_go "${go}" || rc=1
		tx1=$(($(tx_bytes "${ns2}" ns2eth1) - tx0))
		copies[${rules}]=$(($(mptcp_lib_get_counter "${ns2}" \
			MPTcpExtFusoRecovery) - c0))
		spread[${rules}]=${tx1}
		rr_server_stop
	done

	spread_paths del "${family}"
	set_rules "${rules_default}"
	set_mode 0

	mptcp_lib_pr_info "${n} responses: ${copies[${d}]} copies with rules ${d}," \
		"${copies[0]} with 0; path 1 carried ${spread[${d}]} and" \
		"${spread[0]} bytes"
	if [ ${rc} = 0 ] && { [ "${spread[${d}]}" -lt $((n * size / 4)) ] ||
			      [ "${spread[0]}" -lt $((n * size / 4)) ]; }; then
		# without two tails per response this case proves nothing
		mptcp_lib_pr_fail "the responses did not leave on both paths"
		rc=1
	elif [ ${rc} = 0 ] && [ "${copies[${d}]}" -lt $((n / 2)) ]; then
		# the end of each response must still be copied
		mptcp_lib_pr_fail "rules ${d}: ${copies[${d}]} copies," \
			"expected at least one per two responses"
		rc=1
	elif [ ${rc} = 0 ] &&
	     [ $((copies[${d}] * 4)) -gt $((copies[0] * 3)) ]; then
		mptcp_lib_pr_fail "rules ${d}: expected at most 3/4 of the copies of rules 0"
		rc=1
	fi
	result "${name}" ${rc}
}

# The setup of test_sched_window_spread, "window" and FUSO off, with
# responses of four full segments of path 2 and 100 bytes more: path 2,
# the faster, restarts at 4 segments and takes those, and the 100 bytes
# must leave on path 1 at once.  The scheduler counted path 2's room with
# mss_cache, where the options' share of its 4 segments (112 bytes, DSS
# fills the option space) showed as room for the 100 bytes; the push,
# in segments of the size that goes out, then sent nothing there, and
# they waited for path 2's ACK and went out on path 2.  Counted as the
# server's packets of 150-600 bytes on path 1: the 100 bytes with their
# headers (full segments and ACKs are outside that range).
# $1: family
test_sched_window_remainder()
{
	local family=${1}
	local name="IPv${family} idle, a response's last 100 bytes leave on path 1"
	local n=20 pay=1420 rc=0 ipt=iptables pkts
	local out="${tmpdir}/remainder.out" go="${tmpdir}/go"
	local addr_opt caddr spid cpid

	name+=" when path 2 is full: scheduler \"window\""
	mptcp_lib_print_title "${name}"
	# IPv6 headers take 20 bytes more from each segment
	[ "${family}" = 6 ] && ipt=ip6tables pay=1400
	set_mode 0
	set_sched window
	spread_paths add "${family}"
	ip netns exec "${ns2}" "${ipt}" -A OUTPUT -o ns2eth1 -p tcp \
		-m length --length 150:600 -j ACCEPT

	rr_addr "${family}"
	rr_start_joined "${out}" "${go}" -n $((n + 1)) -s $((4 * pay + 100)) \
		--before "sleep 0.05" || rc=1
	ip netns exec "${ns2}" "${ipt}" -Z OUTPUT
	rr_go "${go}" || rc=1
	pkts=$(ip netns exec "${ns2}" "${ipt}" -L OUTPUT -v -x -n |
		awk '/ACCEPT/ && /ns2eth1/ { print $1 }')
	rr_server_stop
	ip netns exec "${ns2}" "${ipt}" -D OUTPUT -o ns2eth1 -p tcp \
		-m length --length 150:600 -j ACCEPT
	spread_paths del "${family}"
	set_sched default
	set_mode 3

	mptcp_lib_pr_info "path 1 carried ${pkts:-?} short packets for ${n} responses"
	if [ ${rc} = 0 ] && [ "${pkts:-0}" -lt $((n / 2)) ]; then
		mptcp_lib_pr_fail "the last 100 bytes left on path 1 in" \
			"${pkts:-0} of ${n} responses, < 1/2"
		rc=1
	fi
	result "${name}" ${rc}
}

# SPREAD_TIMERS (64): a push that starts a flight on a subflow with
# nothing in flight moves the timer TCP armed for it (a loss probe or the
# RTO) to a random point up to twice as far, at most one minimum RTO
# later.  Request/response on one persistent connection, the client
# waiting 100 ms before each request, so that every response starts from
# idle: the server's subflow has nothing in flight only once the client's
# ACK of the last response came, and when the requests take the other
# subflow that ACK is a delayed one (at most 40 ms, TCP_DELACK_MIN, at
# these RTTs); without the wait the responses then find their subflow
# with something in flight, and the rule rightly leaves them alone (1 of
# 40 timers moved in one run).  With the default rules, at least a
# quarter of the responses must move a timer on the server (a flight's
# timer is due in 2 jiffies or more, and the delay is drawn from 0 up to
# that, so each moves with a probability of 2/3 or more); with the rule
# taken out (the case's own control) none may.  Every response must
# arrive intact.
# $1: family
test_spread_timers()
{
	local family=${1}
	local ctl=$((rules_default & ~64))
	local name="IPv${family} fuso_rules=${rules_default}: first timers spread, ${ctl}: not"
	local n=40 rc=0
	local addr_opt caddr spid rules c0 on off
	local -A moved

	mptcp_lib_print_title "${name}"
	rr_addr "${family}"
	for rules in ${rules_default} $((rules_default & ~64)); do
		set_rules "${rules}"
		port=$((port + 1))
		c0=$(mptcp_lib_get_counter "${ns2}" MPTcpExtFusoTimerSpread)
		rr_server_start "${port}"
		if ! timeout ${timeout_test} ip netns exec "${ns1}" \
			python3 ./fuso_rr.py client ${addr_opt} -p "${port}" \
			-a "${caddr}" -n ${n} -s 1000,8000 --gap 100; then
			mptcp_lib_pr_fail "rules ${rules}: a response was lost or corrupted"
			rc=1
		fi
		rr_server_stop
		moved[${rules}]=$(($(mptcp_lib_get_counter "${ns2}" \
			MPTcpExtFusoTimerSpread) - c0))
	done
	set_rules "${rules_default}"
	on=${moved[${rules_default}]} off=${moved[${rules}]}

	mptcp_lib_pr_info "${n} responses: ${on} timers moved with rules" \
		"${rules_default}, ${off} with ${rules}"
	if [ ${rc} = 0 ] && [ "${on}" -lt $((n / 4)) ]; then
		mptcp_lib_pr_fail "rules ${rules_default}: ${on} timers moved," \
			"expected at least $((n / 4))"
		rc=1
	elif [ ${rc} = 0 ] && [ "${off}" != 0 ]; then
		mptcp_lib_pr_fail "rules ${rules}: ${off} timers moved, expected none"
		rc=1
	fi
	result "${name}" ${rc}
}

# The third subflow of the SCHED_CAUTIOUS and dead-carrier cases: a second
# client address on path 2 (10.0.2.3, endpoint id 4), with the route of
# the spread case's path 2.  $1: "add" or "del"
third_subflow()
{
	if [ "${1}" = add ]; then
		ip -n "${ns1}" addr add 10.0.2.3/24 dev ns1eth2
		mptcp_lib_pm_nl_add_endpoint "${ns1}" 10.0.2.3 dev ns1eth2 \
			flags subflow id 4
		ip -n "${ns2}" route add 10.0.2.3/32 dev ns2eth2 \
			initcwnd 4 rto_min 5ms
	else
		mptcp_lib_pm_nl_del_endpoint "${ns1}" 4 10.0.2.3
		ip -n "${ns1}" addr del 10.0.2.3/24 dev ns1eth2
		ip -n "${ns2}" route del 10.0.2.3/32 dev ns2eth2
	fi
}

# $1: ns2's MPTcpExtMPJoinAckRx before the connection.  Waits for the
# connection's second join, the third subflow; fails, and says so, if it
# does not come.
rr_wait_third()
{
	local i

	for i in $(seq 100); do
		[ "$(mptcp_lib_get_counter "${ns2}" MPTcpExtMPJoinAckRx)" \
		  -ge $((${1} + 2)) ] && return 0
		sleep 0.1
	done
	mptcp_lib_pr_fail "the third subflow did not join"
	return 1
}

# SCHED_CAUTIOUS (16): after an ECN echo, a connection backs off as one
# flow: subflows in CWR get no new data while a calm one exists, and
# when none is calm only the one with the largest window does; for a
# response's first MB only.  Three subflows: the client gets a second
# address on path 2 (10.0.2.3, a third subflow endpoint) and two joins.
# FUSO off (the rule is the window scheduler's), the setup of
# test_sched_window_spread, ECN on, and every packet the server sends
# marked CE by nftables on its way out (which also counts the bytes sent
# to each of the two joined subflows).  Responses of 10 000 bytes, with
# the rule and without it (the case's own control, at least 3 000 bytes):
# with it, the joined subflow that carries less must carry at most a
# tenth of what it carried without (observed: 4 480 bytes against
# 217 624; before the first echo a response may still spread).  Then one
# response of 4 000 000 bytes with the rule: past its first MB every
# subflow's own congestion control decides, and each joined subflow must
# carry a share.  IPv4.
test_sched_cautious()
{
	local name="IPv4 fuso_rules=${rules_default}: after ECN echoes, new data"
	local n=60 size=10000 long=4000000 rc=0 r ecn0 nms0
	local addr_opt caddr spid cpid
	local -A least

	name+=" on one subflow; past a response's first MB, on every one"
	mptcp_lib_print_title "${name}"
	need_cmds "${name}" nft || return
	set_mode 0
	set_sched window
	spread_paths add 4
	ecn0=$(ip netns exec "${ns1}" sysctl -n net.ipv4.tcp_ecn)
	ip netns exec "${ns1}" sysctl -qw net.ipv4.tcp_ecn=1
	# the two joined subflows alike: the same route, no history from
	# the cases before
	third_subflow add
	nms0=$(ip netns exec "${ns2}" sysctl -n net.ipv4.tcp_no_metrics_save)
	ip netns exec "${ns2}" sysctl -qw net.ipv4.tcp_no_metrics_save=1
	ip -n "${ns1}" tcp_metrics flush all 2>/dev/null
	ip -n "${ns2}" tcp_metrics flush all 2>/dev/null
	nft_fuso_ce "meta l4proto tcp ip ecn set ce" || rc=1

	rr_addr 4
	for r in ${rules_default} $((rules_default & ~16)); do
		[ ${rc} = 0 ] || break
		set_rules "${r}"
		sched_exchanges "rules ${r}" -n $((n + 1)) -s "${size}" || rc=1
		least[${r}]=${sched_least}
	done
	set_rules "${rules_default}"
	if [ ${rc} = 0 ]; then
		sched_exchanges "a response of ${long} bytes" \
			-n 2 -s "1000,${long}" || rc=1
		least[long]=${sched_least}
	fi

	ip netns exec "${ns2}" nft delete table inet fuso_ce 2>/dev/null
	third_subflow del
	ip netns exec "${ns2}" sysctl -qw net.ipv4.tcp_no_metrics_save="${nms0}"
	ip netns exec "${ns1}" sysctl -qw net.ipv4.tcp_ecn="${ecn0}"
	spread_paths del 4
	set_sched default

	if [ ${rc} != 0 ]; then
		:
	elif [ "${least[$((rules_default & ~16))]}" -lt 3000 ]; then
		mptcp_lib_pr_fail "without the rule the joined subflows" \
			"carried under 3000 bytes: nothing to hold back"
		rc=1
	elif [ "${least[${rules_default}]}" -gt \
	       $((least[$((rules_default & ~16))] / 10)) ]; then
		mptcp_lib_pr_fail "with the rule both joined subflows still" \
			"carried data (${least[${rules_default}]} bytes the less)"
		rc=1
	elif [ "${least[long]}" -lt 100000 ]; then
		mptcp_lib_pr_fail "past a long response's first MB a marked" \
			"subflow carried only ${least[long]} bytes"
		rc=1
	fi
	result "${name}" ${rc}
}

# $1: what ns2's output to the client's second and third addresses gets
# beside being counted: "meta l4proto tcp ip ecn set ce", or nothing.
nft_fuso_ce()
{
	ip netns exec "${ns2}" nft delete table inet fuso_ce 2>/dev/null
	if ! ip netns exec "${ns2}" nft -f - <<-EOF
		table inet fuso_ce {
			counter c1 { }
			counter c3 { }
			chain out {
				type filter hook postrouting priority 0;
				ip daddr 10.0.2.1 counter name c1
				ip daddr 10.0.2.3 counter name c3
				${1}
			}
		}
	EOF
	then
		mptcp_lib_pr_fail "nft could not add the fuso_ce table"
		return 1
	fi
}

# $1: what the case is; the rest: fuso_rr.py options.  Responses from ns2
# on a new connection of three subflows (the test_sched_cautious setup);
# sets sched_least, the bytes that went to the youngest subflow's
# address.  Returns 1, and says so, on a failure.
sched_exchanges()
{
	local what=${1} out="${tmpdir}/sched.out" go="${tmpdir}/go"
	local j0 c1 c3 young rc=0

	shift
	j0=$(mptcp_lib_get_counter "${ns2}" MPTcpExtMPJoinAckRx)
	rr_start_joined "${out}" "${go}" "$@" --before "sleep 0.05" || rc=1
	rr_wait_third "${j0}" || rc=1
	c1=$(nft_counter_bytes c1)
	c3=$(nft_counter_bytes c3)
	rr_go "${go}" || rc=1
	c1=$(($(nft_counter_bytes c1) - c1))
	c3=$(($(nft_counter_bytes c3) - c3))
	rr_server_stop
	sched_least=$((c1 < c3 ? c1 : c3))
	young="10.0.2.3"
	[ "${c1}" -lt "${c3}" ] && young="10.0.2.1"
	mptcp_lib_pr_info "${what}: ${c1} bytes to 10.0.2.1," \
		"${c3} to 10.0.2.3 (the youngest: ${young})"
	return ${rc}
}

# A copy whose carrier dies with its original's.  Three subflows: path 1
# at 2 ms each way, two on path 2 at 1 ms, an RTO of about 5 ms.  The
# response leaves on the first subflow of path 2 (the fastest), its copy
# on path 1 (the best but its holder: the third subflow never sent, and
# ranks last).  Both paths then drop every segment of the size of the
# response to those two subflows, their retransmissions too: original and
# copy are lost for good.  The data-level retransmission has to take the
# third subflow, idle, as soon as the two time out; the interval the
# scheduler set before the push, when no subflow had a timer, is
# TCP_RTO_MIN (200 ms).  Checked: the response arrives intact, by a
# data-level retransmission, in less than half of TCP_RTO_MIN (14 ms in
# UML; 209 ms without the fix).
test_dead_carriers()
{
	local name="IPv4 fuso=1: original and copy lost for good, the data-level"
	local out="${tmpdir}/dead.out" go="${tmpdir}/go" rc=0
	local addr_opt caddr spid cpid j0 mrtx dropped us bound=100000

	name+=" retransmission comes with the subflows' timeouts"
	mptcp_lib_print_title "${name}"
	need_cmds "${name}" nft || return
	set_mode 1
	spread_paths add 4
	third_subflow add

	rr_addr 4
	j0=$(mptcp_lib_get_counter "${ns2}" MPTcpExtMPJoinAckRx)
	rr_start_joined "${out}" "${go}" -n 2 -s 8000,1200 --times || rc=1
	rr_wait_third "${j0}" || rc=1
	# in the network, at the client: a drop in the server's output
	# would be a local send error, which TCP sees and retries
	ip netns exec "${ns1}" nft delete table inet fuso_dead 2>/dev/null
	if ! ip netns exec "${ns1}" nft -f - <<-EOF
		table inet fuso_dead {
			counter d { }
			chain in {
				type filter hook prerouting priority 0;
				ip daddr { 10.0.1.1, 10.0.2.1 } \
					ip length 1240-1400 counter name d drop
			}
		}
	EOF
	then
		mptcp_lib_pr_fail "nft could not add the fuso_dead table"
		rc=1
	fi
	mrtx=$(mptcp_lib_get_counter "${ns2}" MPTcpExtMPTCPRetrans)
	rr_go "${go}" "the response" || rc=1
	mrtx=$(($(mptcp_lib_get_counter "${ns2}" MPTcpExtMPTCPRetrans) - mrtx))
	dropped=$(ip netns exec "${ns1}" nft list counter inet fuso_dead d |
		awk '/packets/ { for (i = 1; i < NF; i++)
				   if ($i == "packets") print $(i + 1) }')
	ip netns exec "${ns1}" nft delete table inet fuso_dead 2>/dev/null
	rr_server_stop
	us=$(awk '$1 == "time_us" && $2 == 1 { print $3 }' "${out}")

	# the subflows' retransmissions of what the rule dropped, and the
	# FIN of the third, need their paths: let them end first
	ofo_settle || mptcp_lib_pr_info "connections still open after 10 s"
	third_subflow del
	spread_paths del 4

	# in real time (QEMU, the sanitizer kernels) only just below the
	# fault's own 200 ms
	virtual_time || bound=190000
	mptcp_lib_pr_info "dropped ${dropped:-?}, ${mrtx} data-level" \
		"retransmission(s), the response in ${us:-?} us"
	if [ ${rc} != 0 ]; then
		:
	elif [ "${dropped:-0}" -lt 2 ]; then
		# the response or its copy took the third subflow: this
		# proves nothing
		mptcp_lib_pr_fail "the rule dropped ${dropped:-0} segments, not the" \
			"response and its copy"
		rc=1
	elif [ "${mrtx}" -lt 1 ] || [ -z "${us}" ] || [ "${us}" -ge "${bound}" ]; then
		mptcp_lib_pr_fail "MPTCPRetrans ${mrtx}, response in ${us:-?} us:" \
			"expected >= 1 and under ${bound} (TCP_RTO_MIN: 200000)"
		rc=1
	fi
	result "${name}" ${rc}
}

# $1: counter name in the fuso_ce table of ns2.  Its bytes.
nft_counter_bytes()
{
	ip netns exec "${ns2}" nft list counter inet fuso_ce "${1}" |
		awk '/bytes/ { for (i = 1; i < NF; i++)
				if ($i == "bytes") print $(i + 1) }'
}

# $1: the file of mptcp_fuso_recovery events; $2: "noloss" or empty.
# Sets counted (the copies that count: of a subflow with a loss, or with
# "noloss" all), back (of those, copies back onto their victim's
# subflow) and first (where the first counted copy went: "back",
# "other" or "none").
clean_path_count()
{
	read -r counted back first < <(awk -v every="${2:+1}" '
		{ w = b = c = ""
		  for (i = 1; i <= NF; i++) {
			if ($i ~ /^worst=/) w = $i
			if ($i ~ /^best=/) b = $i
			if ($i ~ /^cost_worst=/) c = $i
		  }
		  sub(/^worst=/, "", w); sub(/^best=/, "", b)
		  sub(/^cost_worst=/, "", c)
		  if (c + 0 == 0 && every == "")
			next
		  k++
		  if (first == "")
			first = (w == b) ? "back" : "other"
		  if (w == b)
			n++ }
		END { print k + 0, n + 0, (first == "" ? "none" : first) }' "${1}")
}

# A clean subflow that never carried data, against the lossy subflow that
# holds the victims.  The default scheduler keeps short responses on the
# first subflow (path 1, lossy here), so the second one (path 2, clean)
# never sends.  For the paper it ranks last (C_l infinite) and the copies
# go back onto the lossy subflow; with MPTCP_FUSO_RULE_TARGETED (2) a copy
# goes onto the holder's own path only if no other subflow can take it.
# Counted from the tracepoint ("worst" is the holder): the copies that
# went back onto their holder's subflow although it had lost something
# (cost_worst > 0).
# With $3 "noloss", path 1 loses nothing either: the holder's subflow
# never lost, and still the copies go to the unused one (a copy on the
# holder's own path shares its fate: a loss burst takes both); then every
# copy counts.
# $1: family; $2: fuso_rules; $3: optional, "noloss"
test_clean_path()
{
	local family=${1}
	local rules=${2}
	local noloss=${3:-}
	local name="IPv${family} fuso_rules=${rules}: copies of a lossy subflow"
	local t ev rc=0 back all first counted batch
	local addr_opt caddr spid cpid
	local out="${tmpdir}/clean.out" go="${tmpdir}/go"
	local evs="${tmpdir}/clean.events"

	[ -n "${noloss}" ] &&
		name="IPv${family} fuso_rules=${rules}: copies of a clean subflow"
	if [ $((rules & 2)) = 2 ]; then
		name+=" go to the clean unused one"
	else
		name+=" go back onto it (the paper)"
	fi
	mptcp_lib_print_title "${name}"
	trace_begin "${name}" || return
	set_rules "${rules}"
	path2_loss ""
	if [ -z "${noloss}" ]; then
		tc -n "${ns1}" qdisc change dev ns1eth1 root netem delay 1ms loss 5%
		tc -n "${ns2}" qdisc change dev ns2eth1 root netem delay 1ms loss 5%
	fi

	rr_addr "${family}"
	# Only what follows the join counts: before it, the lossy subflow is
	# the only one, and a copy can only go back onto it.  After the
	# warm-up exchange, wait for the second subflow, empty the trace.
	# A batch of 101 exchanges may tell nothing: the default scheduler
	# can move every response to the clean subflow after a loss, and
	# then no copy of a lossy subflow is made at all (2 of 10 runs).
	# So up to ten batches, each on a new connection, until at least
	# 10 copies count and, for the paper, one went back (five were not
	# always enough: 6 copies counted in five batches once, 17-39 in
	# two to four batches in the runs after it).
	: > "${evs}"
	for batch in $(seq 10); do
		rr_start_joined "${out}" "${go}" -n 101 -s 1000,4000 || rc=1
		echo > "${t}/trace"
		rr_go "${go}" || rc=1
		rr_server_stop
		grep 'mptcp_fuso_recovery:' "${t}/trace" >> "${evs}"
		[ ${rc} = 0 ] || break
		clean_path_count "${evs}" "${noloss}"
		if [ "${counted}" -ge 10 ] &&
		   { [ $((rules & 2)) = 2 ] || [ "${back}" -ge 1 ]; }; then
			break
		fi
		mptcp_lib_pr_info "batch ${batch}: ${counted} copies count," \
			"${back} back: another batch"
	done

	trace_stop
	all=$(wc -l < "${evs}")
	clean_path_count "${evs}" "${noloss}"
	echo > "${t}/trace"
	tc -n "${ns1}" qdisc change dev ns1eth1 root netem delay 1ms
	tc -n "${ns2}" qdisc change dev ns2eth1 root netem delay 1ms
	path2_loss "${loss}"
	set_rules "${rules_default}"

	if [ -n "${noloss}" ]; then
		mptcp_lib_pr_info "${all} copies in ${batch} batch(es)," \
			"${back} back onto their victim's subflow;" \
			"the first went ${first}"
	else
		mptcp_lib_pr_info "${all} copies in ${batch} batch(es)," \
			"${counted} of a subflow with a loss, ${back} of those" \
			"back onto it; the first of those went ${first}"
	fi
	if [ ${rc} = 0 ] && [ "${counted}" -lt 10 ]; then
		# too few to tell anything, even after ten batches.  For
		# the paper's control, a flake too: 1 of 6 runs had no copy
		# of a subflow with a loss once the copies before the join no
		# longer counted
		[ $((rules & 2)) = 0 ] && MPTCP_LIB_SUBTEST_FLAKY=1
		mptcp_lib_pr_fail "only ${counted} copies that count"
		rc=1
	elif [ ${rc} = 0 ] && [ $((rules & 2)) = 2 ] &&
	     { [ "${first}" != other ] ||
	       [ $((back * 10)) -gt "${counted}" ]; }; then
		# the clean subflow can take a copy whenever the lossy one can,
		# but not always at once: allow a tenth
		mptcp_lib_pr_fail "expected the first to go to the clean subflow" \
			"and at most a tenth back"
		rc=1
	elif [ ${rc} = 0 ] && [ $((rules & 2)) = 0 ] && [ "${back}" -lt 1 ]; then
		# for the paper some go back while the clean subflow never sent
		# (which copy first depends on whether the lossy subflow can
		# take one then: observed 11 and 13 of 300 back, the first
		# back in one run and not in the other).  Flaky: once the
		# clean subflow took one copy, when the lossy one had no room,
		# the paper prefers it too; 0 of 299 in 2 of 6 runs.
		MPTCP_LIB_SUBTEST_FLAKY=1
		mptcp_lib_pr_fail "expected some to go back onto the lossy subflow"
		rc=1
	fi
	result "${name}" ${rc}
	MPTCP_LIB_SUBTEST_FLAKY=0
}

# FUSO's caution: no copy goes onto a subflow that an ECN echo put in CWR
# (enum tcp_ca_state 2; nor in Loss, 4).  Path 1 loses 5 % both ways;
# path 2 loses nothing, but ECN is on and the server's packets on it are
# all marked CE (nftables), so path 2's subflow, the best carrier by C_l
# (it never retransmits), is in CWR whenever it has data out.  Responses
# of 60 000 bytes, whose losses on path 1 put data in doubt.  Checked
# from the tracepoint: copies were made (onto path 1, or onto path 2
# while it is calm), marks arrived, and no copy went onto a subflow in
# CWR or Loss.  Observed: 198 copies, none onto such a subflow; with the
# test of CWR taken out of mptcp_fuso_best_may(), 127 of 273.
test_cautious_carrier()
{
	local name="IPv4 fuso=1: no copy onto a subflow that an ECN echo"
	local t ev rc=0 ecn0 ce0 ce copies bad
	local addr_opt caddr spid cpid
	local out="${tmpdir}/cautious.out" go="${tmpdir}/go"

	name+=" put in CWR (the only other path marks every packet)"
	mptcp_lib_print_title "${name}"
	need_cmds "${name}" nft || return
	trace_begin "${name}" || return
	set_mode 1
	path2_loss ""
	tc -n "${ns1}" qdisc change dev ns1eth1 root netem delay 1ms loss 5%
	tc -n "${ns2}" qdisc change dev ns2eth1 root netem delay 1ms loss 5%
	ecn0=$(ip netns exec "${ns1}" sysctl -n net.ipv4.tcp_ecn)
	ip netns exec "${ns1}" sysctl -qw net.ipv4.tcp_ecn=1
	nft_fuso_ce "meta l4proto tcp ip daddr 10.0.2.0/24 ip ecn set ce" ||
		rc=1
	ce0=$(mptcp_lib_get_counter "${ns1}" IpExtInCEPkts)

	rr_addr 4
	if [ ${rc} = 0 ]; then
		rr_start_joined "${out}" "${go}" -n 101 -s 1000,60000 || rc=1
		echo > "${t}/trace"
		rr_go "${go}" || rc=1
		rr_server_stop
	fi
	trace_stop
	ce=$(($(mptcp_lib_get_counter "${ns1}" IpExtInCEPkts) - ce0))
	copies=$(grep -c 'mptcp_fuso_recovery:' "${t}/trace")
	bad=$(grep 'mptcp_fuso_recovery:' "${t}/trace" |
	      grep -vc ' best_ca_state=[013]$')
	echo > "${t}/trace"

	ip netns exec "${ns2}" nft delete table inet fuso_ce 2>/dev/null
	ip netns exec "${ns1}" sysctl -qw net.ipv4.tcp_ecn="${ecn0}"
	tc -n "${ns1}" qdisc change dev ns1eth1 root netem delay 1ms
	tc -n "${ns2}" qdisc change dev ns2eth1 root netem delay 1ms
	path2_loss "${loss}"

	mptcp_lib_pr_info "${copies} copies, ${bad} onto a subflow in CWR or" \
		"Loss; the client got ${ce} packets marked CE"
	if [ ${rc} != 0 ]; then
		:
	elif [ "${ce}" -lt 10 ] || [ "${copies}" -lt 10 ]; then
		mptcp_lib_pr_fail "nothing to tell: ${ce} packets marked CE," \
			"${copies} copies"
		rc=1
	elif [ "${bad}" != 0 ]; then
		mptcp_lib_pr_fail "${bad} copies went onto a subflow in CWR" \
			"or Loss"
		rc=1
	fi
	result "${name}" ${rc}
}

# policy_case FUSO ALLOWED PRIVILEGED [PREFIX...]: ns1's net.mptcp.fuso
# and fuso_allowed, then fuso_rr.py policy in ns1 under PREFIX (a user
# and its namespaces), expecting a caller that is ns1's administrator or
# not (PRIVILEGED)
policy_case()
{
	local f=${1} a=${2} p=${3}

	shift 3
	fuso_sysctl_write "${ns1}" fuso "${f}" >/dev/null
	fuso_sysctl_write "${ns1}" fuso_allowed "${a}" >/dev/null
	port=$((port + 1))
	ip netns exec "${ns1}" "$@" python3 ./fuso_rr.py policy -p "${port}" \
		--expect "${f}" --allowed "${a}" --privileged "${p}"
}

# MPTCP_FUSO under the namespace's policy (net.mptcp.fuso_allowed): root
# may choose any mode; a user without CAP_NET_ADMIN only the parts that
# fuso_allowed or fuso turn on, and off; so may root of a user namespace
# of its own, in ns1; in a network namespace of its own it may choose any.
test_sockopt_policy()
{
	local name="MPTCP_FUSO under net.mptcp.fuso_allowed"
	local rc=0 out=${tmpdir}/policy.out
	local nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

	mptcp_lib_print_title "${name}"
	{
		policy_case 0 0 1 || rc=1
		policy_case 0 0 0 "${nobody[@]}" || rc=1
		policy_case 1 0 0 "${nobody[@]}" || rc=1
		policy_case 0 2 0 "${nobody[@]}" || rc=1
		policy_case 0 3 0 "${nobody[@]}" || rc=1
		policy_case 0 0 0 "${nobody[@]}" unshare --user --map-root-user || rc=1
		port=$((port + 1))
		ip netns exec "${ns1}" "${nobody[@]}" unshare --user --map-root-user \
			--net sh -c "ip link set lo up &&
				echo 0 > /proc/sys/net/mptcp/fuso_allowed &&
				python3 ./fuso_rr.py policy -p ${port} --expect 0 \
					--allowed 0 --privileged 1" || rc=1
	} > "${out}" 2>&1
	fuso_sysctl_write "${ns1}" fuso 0 >/dev/null
	fuso_sysctl_write "${ns1}" fuso_allowed 3 >/dev/null
	if [ ${rc} != 0 ] || grep -q '^FAIL' "${out}" ||
	   [ "$(grep -c '^ok' "${out}")" != 49 ]; then
		mptcp_lib_pr_fail "$(grep -v '^ok' "${out}")"
		mptcp_lib_pr_fail "$(grep -c '^ok' "${out}") of 49 checks passed"
		rc=1
	elif [ "${FUSO_TEST_VERBOSE:-0}" = 1 ]; then
		sed 's/^/        /' "${out}"
	fi
	result "${name}" ${rc}
}

# $1: expected "zero" or "any"
# The MPTCP_FUSO socket option, on loopback in ns1: see fuso_rr.py
# sockopt.  $1: the namespace's mode
test_sockopt()
{
	local name="MPTCP_FUSO socket option (namespace fuso=${1})"
	local rc=0

	mptcp_lib_print_title "${name}"
	port=$((port + 1))
	if ! ip netns exec "${ns1}" python3 ./fuso_rr.py sockopt \
		-p "${port}" --expect "${1}" > "${tmpdir}/sockopt.out" 2>&1; then
		mptcp_lib_pr_fail "$(grep -v '^ok' "${tmpdir}/sockopt.out")"
		rc=1
	elif [ "${FUSO_TEST_VERBOSE:-0}" = 1 ]; then
		sed 's/^/        /' "${tmpdir}/sockopt.out"
	fi
	port=$((port + 2))	# fuso_rr.py sockopt took port..port+2
	result "${name}" ${rc}
}

test_counters_off()
{
	local rc=0
	local ns sum

	mptcp_lib_print_title "fuso=0: no FUSO counter moved"
	for ns in "${ns1}" "${ns2}"; do
		sum=$(fuso_counter_sum "${ns}") || rc=1
		if [ "${sum:-1}" != 0 ]; then
			mptcp_lib_pr_fail "FUSO counters moved with fuso=0:"
			ip netns exec "${ns}" nstat -asz 'MPTcpExtFuso*' 1>&2
			rc=1
		fi
	done
	result "fuso=0: no FUSO counter moved" ${rc}
}

# ip_ok FAMILY: is FAMILY in FUSO_TEST_IP?
ip_ok()
{
	case " ${FUSO_TEST_IP:-4 6} " in
	*" ${1} "*) return 0 ;;
	esac
	return 1
}

# part_ok PART: is PART in FUSO_TEST_PARTS?
part_ok()
{
	case " ${parts} " in
	*" ${1} "*) return 0 ;;
	esac
	return 1
}

case " ${FUSO_TEST_IP:-4 6} " in
*" 4 "*|*" 6 "*) ;;
*) echo "FUSO_TEST_IP must list 4 and/or 6, not '${FUSO_TEST_IP}'" >&2; exit 1 ;;
esac
for p in ${parts}; do
	case "${p}" in
	knobs|0|1|3|hole|rules) ;;
	*) echo "FUSO_TEST_PARTS: '${p}' is not one of knobs 0 1 3 hole rules" >&2; exit 1 ;;
	esac
done

setup

if part_ok knobs; then
	test_sysctl_defaults
	test_sysctl_range fuso 3
	test_sysctl_range fuso_alpha 100
	test_sysctl_range fuso_beta 100
	test_sysctl_range fuso_rules 127
	test_sysctl_range fuso_allowed 3
	fuso_sysctl_write "${ns1}" fuso_alpha 50 >/dev/null
	fuso_sysctl_write "${ns1}" fuso_beta 50 >/dev/null
	fuso_sysctl_write "${ns1}" fuso_rules "${rules_default}" >/dev/null
	fuso_sysctl_write "${ns1}" fuso_allowed 3 >/dev/null
	test_counters_exist
	test_sockopt_policy
fi

if part_ok 0; then
	set_mode 0
	ip_ok 4 && do_transfer 0 4
	ip_ok 6 && do_transfer 0 6
	ip_ok 4 && test_rr 0 4 persistent
	ip_ok 6 && test_rr 0 6 new
	ip_ok 4 && test_tail_loss 0 4
	ip_ok 6 && test_tail_loss 0 6
	test_counters_off
	test_sockopt 0
	ip_ok 4 && test_tail_loss 0 4 "" 1
	ip_ok 6 && test_tail_loss 0 6 "" 3
fi

if part_ok 1; then
	set_mode 1
	ip_ok 4 && do_transfer 1 4
	ip_ok 6 && do_transfer 1 6
	ip_ok 4 && test_rr 1 4 persistent
	ip_ok 6 && test_rr 1 6 persistent
	ip_ok 4 && test_rr 1 4 new
	ip_ok 6 && test_rr 1 6 new
	ip_ok 4 && test_reconnect 4
	ip_ok 4 && test_tail_loss 1 4
	ip_ok 6 && test_tail_loss 1 6
	ip_ok 4 && test_handshake_loss 4
	ip_ok 4 && test_tail_loss 1 4 empty
	ip_ok 6 && test_tail_loss 1 6 empties
	ip_ok 6 && test_tail_loss 1 6 cork
	ip_ok 4 && test_tail_loss 1 4 epipe
	ip_ok 4 && test_copy_once 4
	ip_ok 6 && test_copy_once 6
	ip_ok 4 && test_span 4
	ip_ok 4 && test_ack_rounds 4
	ip_ok 6 && test_ack_rounds 6
	test_tracepoint
fi

if part_ok 3; then
	set_mode 3
	ip_ok 4 && do_transfer 3 4
	ip_ok 6 && do_transfer 3 6
	ip_ok 4 && test_rr 3 4 persistent
	ip_ok 6 && test_rr 3 6 new
	ip_ok 4 && test_tail_loss 3 4
	test_sockopt 3
	ip_ok 4 && test_tail_loss 3 4 "" 0
fi

if part_ok hole; then
	ip_ok 4 && test_ack_now 4
	ip_ok 6 && test_ack_now 6
	# the receiver behind the paper's sender, which copies the hole at
	# once (with MPTCP_FUSO_RULE_TARGETED it waits for the SACKs)
	set_rules 0
	ip_ok 4 && test_ofo_push 4
	ip_ok 6 && test_ofo_push 6
	ip_ok 4 && test_ofo_fin 4
	ip_ok 6 && test_ofo_fin 6
	ip_ok 4 && test_ofo_csum 4
	ip_ok 4 && test_ofo_mem 4
	ip_ok 4 && test_ofo_badmap 4
	ip_ok 6 && test_ofo_badmap 6
	ip_ok 4 && test_ofo_badmap 4 csum
	set_rules "${rules_default}"
fi

if part_ok rules; then
	set_mode 3
	ip_ok 4 && test_sched_window 4
	ip_ok 6 && test_sched_window 6
	ip_ok 4 && test_sched_window_spread 4 window
	ip_ok 6 && test_sched_window_spread 6 window
	ip_ok 4 && test_sched_window_spread 4 toggle
	ip_ok 6 && test_sched_window_spread 6 toggle
	ip_ok 4 && test_sched_window_remainder 4
	ip_ok 6 && test_sched_window_remainder 6
	ip_ok 4 && test_last_tail 4
	set_mode 3
	ip_ok 4 && test_spread_timers 4
	set_mode 1
	ip_ok 4 && test_clean_path 4 "${rules_default}"
	ip_ok 4 && test_clean_path 4 0
	ip_ok 4 && test_clean_path 4 "${rules_default}" noloss
	ip_ok 4 && test_cautious_carrier
	ip_ok 4 && test_sched_cautious
	ip_ok 4 && test_dead_carriers
	set_rules "${rules_default}"
	ip_ok 4 && test_probe_copy 4
	ip_ok 6 && test_probe_copy 6
fi

mptcp_lib_result_print_all_tap
exit ${ret}
