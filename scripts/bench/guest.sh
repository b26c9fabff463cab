#!/bin/bash
# One benchmark condition, inside the test kernel (scripts/bench/bench.sh
# boots it).  For each scheme, it builds the paper's Fig 3 testbed in
# network namespaces, runs the traffic generator, and writes the per-flow
# CSVs and the hosts' counters to OUT/SCHEME/.
#
#   guest.sh OUT KEY=VALUE...
#
# Keys (defaults in brackets):
#   schemes   schemes to run, in order, separated by commas or spaces [tcp tcp-notlp mptcp fuso1 fuso3
#             repflow proactive]
#   loss      random loss in percent [0]
#   where     where the loss is: p1 (path 1, both directions) or access
#             (every access link of H4-H6, both directions) [p1]
#   nsub      MPTCP subflows per connection [4]
#   iwsub     initial window of each MPTCP subflow [16/nsub, as in the
#             paper]; a diagnostic knob, not one of the paper's settings
#   flows     queries per scheme, over all clients [300]
#   qload     query load in Mbit/s, over all clients (Poisson) [10]
#   dist      websearch or datamining [websearch]
#   bgload    background load on each client's access link, as a fraction
#             of 1 Gbit/s; flows >= 100 KB on plain TCP [0]
#   fanout    incast: H1 asks FANOUT senders on H2-H6 for 64 KB each, one
#             query at a time; 0 = the normal workload [0].  Twice the
#             connections a query needs are opened and warmed up first
#   seed      random seed of the generator [1]
#   tg        the fuso-tg binary [build/bench/fuso-tg]
#
# Topology (Fig 3 of the paper): clients H1-H3 under ToR T1, servers H4-H6
# under T2, and three parallel paths P1-P3 between T1 and T2 with
# layer-4 ECMP.  Every egress port: netem delay 35 us -> tbf 1 Gbit/s ->
# RED (ECN marking from 32 KB, 128 KB buffer).  Base RTT about 280 us.
# Every route: rto_min 5 ms; initcwnd 16 for TCP, 16/nsub per MPTCP
# subflow (per destination address on the servers).
set -u
OUT=${1:?usage: guest.sh OUT KEY=VALUE...}
shift
schemes="tcp tcp-notlp mptcp fuso1 fuso3 repflow proactive"
loss=0 where=p1 nsub=4 iwsub= flows=300 qload=10 dist=websearch bgload=0 fanout=0 seed=1
HERE=$(cd "$(dirname "$0")" && pwd)
tg=$HERE/../../build/bench/fuso-tg
for kv in "$@"; do
	case "$kv" in
	schemes=*|loss=*|where=*|nsub=*|iwsub=*|flows=*|qload=*|dist=*|bgload=*|fanout=*|seed=*|tg=*)
		eval "${kv%%=*}=\${kv#*=}" ;;
	*) echo "guest.sh: unknown setting '$kv'" >&2; exit 1 ;;
	esac
done
schemes=${schemes//,/ }
TG=$tg
[ -x "$TG" ] || { echo "guest.sh: no traffic generator at $TG (make bench builds it)" >&2; exit 1; }
CDF=$HERE/$dist.cdf
[ -f "$CDF" ] || { echo "guest.sh: no size distribution '$dist' ($CDF)" >&2; exit 1; }
case "$where" in p1|access) ;; *) echo "guest.sh: where=p1|access, not '$where'" >&2; exit 1 ;; esac
[ "$nsub" -ge 1 ] && [ "$nsub" -le 8 ] || { echo "guest.sh: nsub must be 1..8" >&2; exit 1; }

P=fb			# namespace prefix
CLIENTS="1 2 3" SERVERS="4 5 6"
PORT_TCP=5001 PORT_TCP2=5002 PORT_MPTCP=5003 PORT_BG=6001

msg() { echo "[bench $(date +%H:%M:%S.%N | cut -c1-12)] $*"; }
fail() { echo "[bench] ERROR: $*" >&2; exit 1; }
nsx() { local n=$1; shift; ip netns exec "$P-$n" "$@"; }
# ip and tc enter the namespace themselves: much cheaper than 'ip netns exec'
nip() { local n=$1; shift; ip -n "$P-$n" "$@"; }
ntc() { local n=$1; shift; tc -n "$P-$n" "$@"; }

# The testbed is written as batch files (one 'ip -b' and one 'tc -b' per
# namespace): every process start is expensive under UML.
B=/tmp/fb-batch

# port NS DEV: the egress queue of a switch port: propagation delay, then
# a 1 Gbit/s link with a 128 KB buffer that marks ECN from 32 KB (RED;
# packets that are not ECN-capable are dropped there instead, as on a
# switch)
port() {
	cat >>"$B/$1.tc" <<-EOF
	qdisc add dev $2 root handle 1: netem delay 35us limit 10000
	qdisc add dev $2 parent 1:1 handle 10: tbf rate 1gbit burst 3000 limit 200000
	qdisc add dev $2 parent 10:1 handle 20: red limit 131072 min 30000 max 32768 avpkt 1500 burst 21 probability 1.0 bandwidth 1gbit ecn
	EOF
}

# nic NS DEV: a host's 1 Gbit/s NIC (no marking; the host's own queue)
nic() {
	cat >>"$B/$1.tc" <<-EOF
	qdisc add dev $2 root handle 1: netem delay 35us limit 10000
	qdisc add dev $2 parent 1:1 handle 10: tbf rate 1gbit burst 3000 limit 4000000
	EOF
}

topo_down() {
	local n p
	for n in $(ip netns list | awk '{print $1}' | grep "^$P-"); do
		for p in $(ip netns pids "$n" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		ip netns del "$n"
	done
}

# topo_up SCHEME
topo_up() {
	local s=$1 k t net tor p fw hosts n ic tlp=3 fuso=0
	topo_down
	rm -rf "$B"
	mkdir -p "$B"
	hosts="$CLIENTS $SERVERS"
	[ "$s" = tcp-notlp ] && tlp=0
	case "$s" in fuso*) fuso=${s#fuso} ;; esac
	for n in t1 t2 $(printf 'h%s ' $hosts); do
		echo "netns add $P-$n" >>"$B/root.ip"
		echo "link set lo up" >>"$B/$n.ip"
	done
	# access links
	for k in $hosts; do
		if [ "$k" -le 3 ]; then tor=t1 net=10.1.$k; else tor=t2 net=10.2.$k; fi
		echo "link add eth0 netns $P-h$k type veth peer name h$k netns $P-$tor" >>"$B/root.ip"
		printf 'addr add %s.1/24 dev eth0\nlink set eth0 up\n' "$net" >>"$B/h$k.ip"
		printf 'addr add %s.254/24 dev h%s\nlink set h%s up\n' "$net" "$k" "$k" >>"$B/$tor.ip"
		nic "h$k" eth0
		port "$tor" "h$k"
	done
	# the three paths
	for p in 1 2 3; do
		echo "link add p$p netns $P-t1 type veth peer name p$p netns $P-t2" >>"$B/root.ip"
		printf 'addr add 10.9.%s.1/30 dev p%s\nlink set p%s up\n' $p $p $p >>"$B/t1.ip"
		printf 'addr add 10.9.%s.2/30 dev p%s\nlink set p%s up\n' $p $p $p >>"$B/t2.ip"
		port t1 "p$p"
		port t2 "p$p"
	done
	echo "route add 10.2.0.0/16 nexthop via 10.9.1.2 dev p1 nexthop via 10.9.2.2 dev p2 nexthop via 10.9.3.2 dev p3" >>"$B/t1.ip"
	echo "route add 10.1.0.0/16 nexthop via 10.9.1.1 dev p1 nexthop via 10.9.2.1 dev p2 nexthop via 10.9.3.1 dev p3" >>"$B/t2.ip"
	# hosts: routes, MPTCP addresses and limits
	ic=${iwsub:-$((16 / nsub))}
	for k in $hosts; do
		if [ "$k" -le 3 ]; then net=10.1.$k; else net=10.2.$k; fi
		{
			echo "route add 10.0.0.0/8 via $net.254 rto_min 5ms initcwnd 16"
			echo "mptcp limits set subflows 8 add_addr_accepted 8"
			if [ "$k" -le 3 ]; then
				# MPTCP: first subflow from .128, an endpoint per extra one
				for ((n = 0; n < nsub; n++)); do
					echo "addr add $net.$((128 + n))/24 dev eth0"
					[ $n = 0 ] || echo "mptcp endpoint add $net.$((128 + n)) dev eth0 subflow"
				done
			else
				for c in $CLIENTS; do
					echo "route add 10.1.$c.128/25 via $net.254 rto_min 5ms initcwnd $ic"
				done
			fi
		} >>"$B/h$k.ip"
	done
	ip -b "$B/root.ip" || return 1
	for n in t1 t2 $(printf 'h%s ' $hosts); do
		ip -n "$P-$n" -b "$B/$n.ip" || return 1
		tc -n "$P-$n" -b "$B/$n.tc" || return 1
	done
	for t in t1 t2; do
		nsx $t sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
			net.ipv4.ip_forward=1 net.ipv4.fib_multipath_hash_policy=1 || return 1
	done
	for k in $hosts; do
		nsx "h$k" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
			net.ipv4.tcp_congestion_control=cubic net.ipv4.tcp_ecn=1 net.mptcp.enabled=1 \
			net.ipv4.tcp_early_retrans=$tlp net.mptcp.fuso=$fuso || return 1
	done
	case "$s" in
	proactive)
		# every data packet of the query connections leaves the server
		# twice, before the lossy links; same 5-tuple, so same path
		for k in $SERVERS; do
			nsx "h$k" nft -f - <<-EOF || return 1
			table ip proactive {
				chain out {
					type filter hook output priority 0;
					tcp sport $PORT_TCP ip length > 100 dup to 10.2.$k.254 device eth0
				}
			}
			EOF
		done
		;;
	esac
	# loss, with iptables in the ToRs' forwarding path
	if [ "$loss" != 0 ]; then
		local prob
		prob=$(awk -v l="$loss" 'BEGIN { printf "%.6f", l / 100 }')
		fw=()
		case "$where" in
		p1) fw=("t1 -o p1" "t2 -o p1") ;;
		access) for k in $SERVERS; do fw+=("t2 -o h$k" "t2 -i h$k"); done ;;
		esac
		for p in "${fw[@]}"; do
			# shellcheck disable=SC2086
			nsx ${p%% *} iptables -A FORWARD ${p#* } -m statistic --mode random \
				--probability "$prob" -j DROP || return 1
		done
	fi
	return 0
}

counters() { # FILE: every host's nstat counters and the servers' egress bytes
	local k
	for k in $CLIENTS $SERVERS; do
		nsx "h$k" nstat -asz | awk -v h="h$k" 'NR > 1 && $1 !~ /^#/ { print h, $1, $2 }'
		ntc "h$k" -s qdisc show dev eth0 | awk -v h="h$k" \
			'/^qdisc netem/ { getline; print h, "EgressBytes", $2; print h, "EgressPkts", $4 }'
	done >"$1"
}

# run_scheme SCHEME: one scheme on a fresh testbed
run_scheme() {
	local s=$1 d=$OUT/$1 k c srv=() mode port bind cpids=() rc=0 per n0 t0 trace
	mkdir -p "$d"
	topo_up "$s" || fail "$s: testbed setup failed"
	case "$s" in
	mptcp|fuso*) mode=mptcp port=$PORT_MPTCP ;;
	repflow) mode=repflow port=$PORT_TCP ;;
	*) mode=tcp port=$PORT_TCP ;;
	esac
	if [ ! -f "$OUT/rtt.txt" ]; then
		# the testbed's base RTT, once per condition: H1 to H4 over
		# whichever path ECMP picks for ICMP, small and full-size
		{
			nsx h1 ping -q -c 5 -i 0.01 10.2.4.1 | tail -n1
			nsx h1 ping -q -c 5 -i 0.01 -s 1472 10.2.4.1 | tail -n1
		} >"$OUT/rtt.txt" 2>&1
	fi
	local servers=$SERVERS
	[ "$fanout" != 0 ] && servers="2 3 4 5 6"
	for k in $servers; do
		setsid -f ip netns exec "$P-h$k" "$TG" server -q $PORT_TCP $PORT_TCP2 $PORT_MPTCP:mptcp $PORT_BG
	done
	sleep 0.2
	trace=/sys/kernel/tracing
	echo 0 >$trace/tracing_on 2>/dev/null
	echo >$trace/trace 2>/dev/null
	if [ -e $trace/events/mptcp/mptcp_fuso_recovery/enable ]; then
		echo 65536 >$trace/buffer_size_kb
		echo 1 >$trace/events/mptcp/mptcp_fuso_recovery/enable
		echo 1 >$trace/tracing_on
	fi
	local join=
	[ "$mode" = mptcp ] && join="-j $((nsub - 1))"
	rm -f "$d"/*.ready "$d"/*.go
	t0=$(date +%s.%N)
	if [ "$fanout" != 0 ]; then
		# incast: H1 asks every sender at once, one query at a time
		for k in $servers; do
			if [ "$k" -le 3 ]; then srv+=("10.1.$k.1:$port"); else srv+=("10.2.$k.1:$port"); fi
		done
		bind=10.1.1.1
		[ "$mode" = mptcp ] && bind=10.1.1.128
		nsx h1 "$TG" client -m "$mode" -b $bind -n "$flows" -r 0 -s 65536 -f "$fanout" \
			-c $((2 * ((fanout + 4) / 5))) -w 100000 -W 100 $join -g "$d/h1" -S "$seed" -o "$d/h1.csv" -t 3000 \
			"${srv[@]}" 2>"$d/h1.log" &
		cpids+=($!)
	else
		for k in $SERVERS; do srv+=("10.2.$k.1:$port"); done
		for c in $CLIENTS; do
			# FLOWS queries over the three clients
			per=$((flows / 3 + (c <= flows % 3)))
			bind=10.1.$c.1
			[ "$mode" = mptcp ] && bind=10.1.$c.128
			nsx "h$c" "$TG" client -m "$mode" -b $bind -n $per -d "$CDF" -x 0:100000 \
				-l "$(awk -v l="$qload" 'BEGIN { print l / 3 }')" -c 5 -w 100000 -W 100 \
				$join -g "$d/h$c" -S $((seed * 10 + c)) -o "$d/h$c.csv" -t 3000 "${srv[@]}" 2>"$d/h$c.log" &
			cpids+=($!)
		done
	fi
	# every client warmed up: counters from here on belong to the
	# measurement
	local nready=${#cpids[@]} waited=0
	while [ "$(ls "$d"/*.ready 2>/dev/null | wc -l)" -lt "$nready" ]; do
		sleep 0.05
		waited=$((waited + 1))
		for c in "${cpids[@]}"; do
			kill -0 "$c" 2>/dev/null || waited=100000	# a client died
		done
		[ $waited -lt 2400 ] || { echo "[bench] $s: a client failed or did not finish the warm-up" >&2; rc=1; break; }
	done
	counters "$d/counters-before.txt"
	for c in "$d"/*.ready; do touch "${c%.ready}.go"; done
	if [ "$bgload" != 0 ]; then
		# background: flows >= 100 KB on plain TCP, at BGLOAD of each
		# client's 1 Gbit/s access link, until the queries are done
		local bsrv=()
		for k in $SERVERS; do bsrv+=("10.2.$k.1:$PORT_BG"); done
		for c in $CLIENTS; do
			nsx "h$c" "$TG" client -m tcp -b "10.1.$c.1" -n 1000000 -d "$CDF" -x 100000:1000000000 \
				-l "$(awk -v l="$bgload" 'BEGIN { print l * 1000 }')" -c 5 -w 0 -W 0 \
				-S $((seed * 10 + 5 + c)) -o "$d/bg-h$c.csv" -t 3000 "${bsrv[@]}" \
				2>"$d/bg-h$c.log" &
		done
	fi
	for c in "${cpids[@]}"; do
		wait "$c" || rc=1
	done
	counters "$d/counters-after.txt"
	if [ -e $trace/events/mptcp/mptcp_fuso_recovery/enable ]; then
		echo 0 >$trace/tracing_on
		# bytes of every FUSO copy (the tracepoint's len=)
		grep -o ' len=[0-9]*' $trace/trace | awk -F= '{ n++; b += $2 } END { printf "copies %d\ncopy_bytes %d\n", n, b }' >"$d/copies.txt"
		grep -q 'LOST EVENTS' $trace/trace && echo "trace_lost 1" >>"$d/copies.txt"
		echo 0 >$trace/events/mptcp/mptcp_fuso_recovery/enable
	fi
	n0=$(cat "$d"/h[0-9].csv 2>/dev/null | grep -vc '^id')
	msg "$s: $n0 queries in $(echo "$(date +%s.%N) $t0" | awk '{ printf "%.3f", $1 - $2 }') s (guest time)$( [ $rc = 0 ] || echo ', CLIENT FAILED')"
	cat "$d"/h[0-9].log >&2
	topo_down
	return $rc
}

msg "condition: loss=$loss% where=$where nsub=$nsub iwsub=${iwsub:-$((16 / nsub))} flows=$flows qload=${qload}Mbps dist=$dist bgload=$bgload fanout=$fanout"
{
	printf 'schemes=%s\nloss=%s\nwhere=%s\nnsub=%s\niwsub=%s\nflows=%s\nqload=%s\ndist=%s\nbgload=%s\nfanout=%s\nseed=%s\nkernel=%s\ncmdline=%s\n' \
		"$schemes" "$loss" "$where" "$nsub" "${iwsub:-$((16 / nsub))}" "$flows" "$qload" "$dist" "$bgload" "$fanout" "$seed" \
		"$(uname -r)" "$(cat /proc/cmdline | tr -s ' ' | cut -c1-300)"
} >"$OUT/condition.txt"
bad=0
for s in $schemes; do
	case "$s" in
	tcp|tcp-notlp|mptcp|fuso1|fuso3|repflow|proactive) ;;
	*) fail "unknown scheme '$s'" ;;
	esac
	run_scheme "$s" || bad=1
done
exit $bad
