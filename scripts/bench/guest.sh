#!/bin/bash
# One benchmark condition, inside the test kernel (scripts/bench/bench.sh
# boots it).  For each scheme, it builds the paper's Fig 3 testbed in
# network namespaces, runs the traffic generator, and writes the per-flow
# CSVs, the servers' per-request timeout records and the hosts' counters
# to OUT/SCHEME/, and the condition with every connection's path to
# OUT/condition.txt.
#
#   guest.sh OUT KEY=VALUE...
#
# Keys (defaults in brackets):
#   schemes   schemes to run, in order, separated by commas or spaces
#             [tcp tcp-notlp dctcp tcp-prr mptcp mptcp-window fuso1
#             fuso3-paper fuso3 repflow proactive]; also fuso3-dctcp,
#             repflow-dctcp and proactive-dctcp (the scheme on DCTCP,
#             every host's default, as for dctcp) and, for experiments,
#             fuso3-r<RULES>-<SCHEDULER> (see topo_up)
#   loss      loss in percent [0]; with lossmodel=blackhole the share of
#             the connections that lose every packet
#   lossmodel random (iptables, independent drops), gemodel (netem
#             Gilbert-Elliott: bursts of 1/0.3 = 3.3 packets in the bad
#             state, 70 % of them lost, nothing lost in the good state;
#             the mean loss is LOSS) or blackhole (nft: the packets of
#             a LOSS share of the 5-tuples, by a hash seeded with the
#             replication's seed, the same share in both directions) [random]
#   lossat    START-END: the loss only from START to END seconds after
#             the queries start (a path that turns lossy and recovers);
#             empty: from the testbed's start to its end [empty]
#   where     where the loss is: p1 (path 1, both directions), p1up (path
#             1 from the clients to the servers only: the requests and
#             the ACKs of the responses), p12 (paths 1 and 2, both
#             directions) or access (every access link of H4-H6, both
#             directions; random loss only); with topo=fattree, fabric
#             (LOSSY links between switches, both directions, random
#             loss only) [p1]
#   topo      fig3 (the paper's testbed, below) or fattree (its §5.3
#             topology, below) [fig3]
#   hpt       fattree: hosts per ToR, 2, 4, 6 or 8 (the paper: 8) [2]
#   lossy     fattree: how many of the 32 links between switches are
#             lossy (where=fabric), chosen by the seed [2]
#   nsub      MPTCP subflows per connection [4]
#   p1delay   propagation delay of path 1's ports in microseconds, each
#             way [35, as on every port]: a topology whose path 1 is
#             longer than the others (not one of the paper's settings)
#   iwsub     initial window of each MPTCP subflow [IW/nsub, as in the
#             paper]; a diagnostic knob, not one of the paper's settings
#   rtomin    the minimum RTO of every route in milliseconds, or linux:
#             none set, the kernel's 200 ms [5, as in the paper]
#   iw        the initial window of every TCP connection, or linux: none
#             set, the kernel's 10 segments, also for every MPTCP subflow
#             unless iwsub is given [16, as in the paper].  rtomin=linux
#             iw=linux is a host nobody tuned
#   flows     queries per scheme, over all clients [300]
#   size      every query this many bytes (Fig 2) instead of the
#             distribution [empty]
#   qload     query load in Mbit/s, over all clients (Poisson) [10]
#   dist      websearch, datamining or small (uniform 2-64 KB, as in
#             issue 39's report) [websearch]
#   bgload    background load on each client's access link, as a fraction
#             of 1 Gbit/s; flows >= 100 KB on plain TCP [0]
#   aqm       the switch ports' queue: red (ECN marks from 32 KB, as in
#             the paper) or droptail (the same 128 KB, no marks: a port
#             without ECN) [red]
#   fanout    incast: H1 asks FANOUT senders on H2-H6 for 64 KB each, one
#             query at a time; 0 = the normal workload [0].  Twice the
#             connections a query needs are opened and warmed up first
#   fanhosts  1: each of the FANOUT senders is a host of its own (H7
#             onward, under T2), asked over one connection per query,
#             instead of H2-H6 with several each; FANOUT at most 64 [0]
#   seed      random seed: the generator's arrivals and sizes, the ECMP
#             hash seed (fib_multipath_hash_seed) [1]; the guest
#             kernel's RNG is seeded by bench.sh (uml_rng_seed=)
#   bulk      instead of queries: one bulk transfer of BULK seconds from
#             H4 to H1 by an unmodified iperf3 made MPTCP with mptcpize
#             (MPTCP schemes only); throughput in bulk.txt, CPU in
#             cpu.txt, each subflow's path in condition.txt [0]
#   tg        the fuso-tg binary [build/bench/fuso-tg]
#   trace     extra tracepoints for the measured phase, comma-separated
#             (e.g. tcp:tcp_retransmit_skb,tcp:tcp_cong_state_set); the
#             whole trace goes to SCHEME/trace.txt, stamped with
#             CLOCK_MONOTONIC in microseconds (trace_clock mono), the
#             clock of fuso-tg's query records [empty]
#
# Topology (Fig 3 of the paper): clients H1-H3 under ToR T1, servers H4-H6
# under T2, and three parallel paths P1-P3 between T1 and T2 with
# layer-4 ECMP.  Every egress port: netem delay 35 us -> tbf 1 Gbit/s ->
# RED (ECN marking from 32 KB, 128 KB buffer).  Base RTT about 280 us.
# Every route: rto_min 5 ms (rtomin); initcwnd 16 for TCP (iw), 16/nsub
# per MPTCP subflow on every host that sends over MPTCP (a route per MPTCP
# address of the clients, and a rule for the clients' own MPTCP addresses).
# Every connection has a fixed source port (fuso-tg -P): with the hash
# seed, a replication puts the same TCP connection on the same path in
# every TCP-based scheme (ECMP hashes the 5-tuple: see topo_up).
#
# topo=fattree: the switch fabric of the paper's §5.3 (Fig 8): 4 pods of 2
# ToRs (e0-e7) and 2 aggregation switches (a0-a7), 4 spines (c0-c3); the
# agg at position j (0 or 1) of every pod links to spines 2j and 2j+1,
# every ToR to both aggs of its pod: 20 switches and 32 links between
# them, 4 paths between pods, 2 within one.
# HPT hosts under each ToR (the paper: 8, 64 in all): the first half are
# clients, the others servers, and every client asks every server, round
# robin, at QLOAD/N (N clients), over 2 persistent connections to each
# (more when busy).  A host is one or the other because the in-kernel path
# manager opens subflows from both ends: a server with a client's subflow
# endpoints sent joins to its clients' ports, which have no listener,
# and its refused attempts took the places its clients' joins needed
# (MP_RST, connections short of their subflows).
# Scaled from the paper's 10 Gbit/s hosts and 40 Gbit/s fabric: hosts at
# 1 Gbit/s, links between switches at HPT/2 Gbit/s (the paper's 1:1
# oversubscription at every ToR), every port as above (128 KB, marks from
# 32 KB), 20 us each way per port: 240 us base RTT between pods, the
# paper's.  Every switch hashes the 5-tuple with a seed of its own (as
# switches do; one seed would polarize the tiers onto 2 of the 4 paths);
# tcp-prr's ToRs hash the socket's hash (which moves after a timeout)
# and its other switches the 5-tuple: a timeout moves a connection to the
# other uplink of its ToR, with probability 1/2.
set -u
OUT=${1:?usage: guest.sh OUT KEY=VALUE...}
shift
schemes="tcp tcp-notlp dctcp tcp-prr mptcp mptcp-window fuso1 fuso3-paper fuso3 repflow proactive"
topo=fig3 hpt=2 lossy=2 loss=0 lossmodel=random lossat= where=p1 nsub=4 p1delay=35 iwsub= flows=300 size= qload=10 dist=websearch bgload=0 fanout=0 fanhosts=0 seed=1 bulk=0 trace= aqm=red rtomin=5 iw=16
HERE=$(cd "$(dirname "$0")" && pwd)
tg=$HERE/../../build/bench/fuso-tg
for kv in "$@"; do
	case "$kv" in
	schemes=*|topo=*|hpt=*|lossy=*|loss=*|lossmodel=*|lossat=*|where=*|nsub=*|p1delay=*|iwsub=*|flows=*|size=*|qload=*|dist=*|bgload=*|fanout=*|fanhosts=*|seed=*|bulk=*|tg=*|trace=*|aqm=*|rtomin=*|iw=*)
		eval "${kv%%=*}=\${kv#*=}" ;;
	*) echo "guest.sh: unknown setting '$kv'" >&2; exit 1 ;;
	esac
done
schemes=${schemes//,/ }
TG=$tg
[ -x "$TG" ] || { echo "guest.sh: no traffic generator at $TG (make bench builds it)" >&2; exit 1; }
CDF=$HERE/$dist.cdf
[ -f "$CDF" ] || { echo "guest.sh: no size distribution '$dist' ($CDF)" >&2; exit 1; }
case "$topo" in
fig3) case "$where" in p1|p1up|p12|access) ;; *) echo "guest.sh: where=p1|p1up|p12|access, not '$where'" >&2; exit 1 ;; esac ;;
fattree)
	case "$hpt" in 2|4|6|8) ;; *) echo "guest.sh: hpt must be 2, 4, 6 or 8, not '$hpt'" >&2; exit 1 ;; esac
	case "$lossy" in ''|*[!0-9]*) echo "guest.sh: lossy must be a number of links" >&2; exit 1 ;; esac
	[ "$lossy" -le 32 ] || { echo "guest.sh: the fat-tree has 32 links between switches, not $lossy" >&2; exit 1; }
	[ "$loss" = 0 ] || [ "$where" = fabric ] ||
		{ echo "guest.sh: topo=fattree loses only where=fabric, not '$where'" >&2; exit 1; }
	[ "$lossmodel" = random ] && [ -z "$lossat" ] ||
		{ echo "guest.sh: topo=fattree: random loss for the whole run only" >&2; exit 1; }
	[ "$fanout" = 0 ] && [ "$bulk" = 0 ] && [ "$p1delay" = 35 ] && [ -z "$size" ] ||
		{ echo "guest.sh: topo=fattree runs the query workload only (no fanout, bulk, p1delay or size)" >&2; exit 1; } ;;
*) echo "guest.sh: topo=fig3|fattree, not '$topo'" >&2; exit 1 ;;
esac
case "$aqm" in red|droptail) ;; *) echo "guest.sh: aqm=red|droptail, not '$aqm'" >&2; exit 1 ;; esac
[[ $rtomin =~ ^(linux|[1-9][0-9]{0,3})$ ]] ||
	{ echo "guest.sh: rtomin must be milliseconds (1..9999) or linux, not '$rtomin'" >&2; exit 1; }
[[ $iw =~ ^(linux|[1-9][0-9]{0,2})$ ]] ||
	{ echo "guest.sh: iw must be a number of segments (1..999) or linux, not '$iw'" >&2; exit 1; }
[[ $iwsub =~ ^([1-9][0-9]{0,2})?$ ]] ||
	{ echo "guest.sh: iwsub must be a number of segments (1..999), not '$iwsub'" >&2; exit 1; }
case "$bulk" in ''|*[!0-9]*) echo "guest.sh: bulk must be a number of seconds" >&2; exit 1 ;; esac
if [ "$bulk" != 0 ]; then
	for s in $schemes; do
		case "$s" in mptcp*|fuso*) ;; *) echo "guest.sh: bulk runs MPTCP schemes only, not '$s'" >&2; exit 1 ;; esac
	done
fi
case "$lossmodel" in random) ;;
gemodel|blackhole) [ "$where" != access ] || { echo "guest.sh: lossmodel=$lossmodel needs where=p1|p1up|p12" >&2; exit 1; } ;;
*) echo "guest.sh: lossmodel=random|gemodel|blackhole, not '$lossmodel'" >&2; exit 1 ;; esac
awk -v l="$loss" 'BEGIN { exit !(l ~ /^[0-9]+(\.[0-9]+)?$/ && l + 0 <= 100) }' ||
	{ echo "guest.sh: loss must be a percentage from 0 to 100, not '$loss'" >&2; exit 1; }
[ "$lossmodel" != gemodel ] || awk -v l="$loss" 'BEGIN { exit !(l < 70) }' ||
	{ echo "guest.sh: lossmodel=gemodel loses at most 70 % (in its bad state): loss must be below 70" >&2; exit 1; }
if [ -n "$lossat" ]; then
	awk -v w="$lossat" 'BEGIN { n = split(w, a, "-"); exit !(n == 2 && a[1] ~ /^[0-9]+(\.[0-9]+)?$/ &&
		a[2] ~ /^[0-9]+(\.[0-9]+)?$/ && a[1] + 0 < a[2] + 0) }' ||
		{ echo "guest.sh: lossat must be START-END in seconds, START < END, not '$lossat'" >&2; exit 1; }
fi
case "$seed" in ''|*[!0-9]*) echo "guest.sh: seed must be a number" >&2; exit 1 ;; esac
case "$fanout" in ''|*[!0-9]*) echo "guest.sh: fanout must be a number" >&2; exit 1 ;; esac
case "$fanhosts" in
0) ;;
1) [ "$fanout" -ge 1 ] && [ "$fanout" -le 64 ] ||
	{ echo "guest.sh: fanhosts=1 needs fanout=1..64" >&2; exit 1; } ;;
*) echo "guest.sh: fanhosts=0|1, not '$fanhosts'" >&2; exit 1 ;;
esac
case "$size" in *[!0-9]*) echo "guest.sh: size must be a number of bytes" >&2; exit 1 ;; esac
case "$p1delay" in ''|*[!0-9]*) echo "guest.sh: p1delay must be a number of microseconds" >&2; exit 1 ;; esac
# the ECMP hash seed of both ToRs, from the seed (fixed per replication)
hashseed=$(( (seed * 2654435761 + 12345) % 4294967296 ))
# fixed source ports (fuso-tg -P), below the ephemeral range
PORT_Q=10000 PORT_BGC=30000
[ "$nsub" -ge 1 ] && [ "$nsub" -le 8 ] || { echo "guest.sh: nsub must be 1..8" >&2; exit 1; }
# the routes' options: RT for TCP, RTSUB for MPTCP's subflows, whose
# initial window is IWSUB (IW/nsub, at least 1; linux: the kernel's 10)
RT= RTSUB=
[ "$rtomin" = linux ] || RT="rto_min ${rtomin}ms"
IWSUB=$iwsub
if [ -z "$IWSUB" ]; then
	if [ "$iw" = linux ]; then IWSUB=linux; else IWSUB=$((iw / nsub > 0 ? iw / nsub : 1)); fi
fi
RTSUB=$RT
[ "$iw" = linux ] || RT+=" initcwnd $iw"
[ "$IWSUB" = linux ] || RTSUB+=" initcwnd $IWSUB"

P=fb			# namespace prefix
CLIENTS="1 2 3" SERVERS="4 5 6"
# the incast's senders on hosts of their own (fanhosts=1): H7 onward
FANHOSTS=
[ "$fanhosts" = 1 ] && FANHOSTS=$(seq -s ' ' 7 $((6 + fanout)))
# CONNS persistent connections from each client to each server; the
# generators' seeds are SEED * SEEDX + the client (the background's
# SEED * SEEDX + SEEDX / 2 + the client)
SWITCHES="t1 t2" CONNS=5 SEEDX=10
if [ "$topo" = fattree ]; then
	CLIENTS= SERVERS= CONNS=2 SEEDX=1000
	for ((k = 1; k <= 8 * hpt; k++)); do
		if (((k - 1) % hpt < hpt / 2)); then CLIENTS+="$k "; else SERVERS+="$k "; fi
	done
	SWITCHES="c0 c1 c2 c3 $(printf 'a%s ' 0 1 2 3 4 5 6 7)$(printf 'e%s ' 0 1 2 3 4 5 6 7)"
fi
# every host once: the clients, the servers and the incast's own senders
HOSTS=$(echo $CLIENTS $SERVERS $FANHOSTS | tr ' ' '\n' | sort -nu | tr '\n' ' ')
# hnet K: NET, the /24 of host K (its address is .1, its ToR's .254, a
# client's MPTCP addresses .128 onward); fattree: 10.POD.K, POD from 1.
# A variable, not output: a subshell per call costs under UML
hnet() {
	if [ "$topo" = fattree ]; then NET=10.$(( ($1 - 1) / (2 * hpt) + 1 )).$1
	elif [ "$1" -le 3 ]; then NET=10.1.$1
	else NET=10.2.$1; fi
}
# the fat-tree's links between switches, "A DEV_A B DEV_B" (lower tier
# first), numbered from 1 in this order: link L is 10.9.L.0/30, .1 on A
FABRIC=
if [ "$topo" = fattree ]; then
	FABRIC=$(
		for e in 0 1 2 3 4 5 6 7; do for j in 0 1; do
			echo "e$e u$((2 * (e / 2) + j)) a$((2 * (e / 2) + j)) d$e"
		done; done
		for a in 0 1 2 3 4 5 6 7; do for j in 0 1; do
			echo "a$a u$((2 * (a % 2) + j)) c$((2 * (a % 2) + j)) d$a"
		done; done
	)
fi
# where=fabric: the LOSSY lossy links, drawn by the seed
LOSSY_LINKS=
[ "$where" != fabric ] || [ "$loss" = 0 ] ||
	LOSSY_LINKS=$(echo "$FABRIC" | awk -v s="$seed" 'BEGIN { srand(s) } { printf "%.9f\t%s\n", rand(), $0 }' |
		sort -n | head -n "$lossy" | cut -f2)
# is_client K: host K asks queries (and has MPTCP addresses)
is_client() {
	if [ "$topo" = fattree ]; then (((${1} - 1) % hpt < hpt / 2))
	else [ "$1" -le 3 ]; fi
}
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

# port NS DEV [DELAY [RATE]]: the egress queue of a switch port: propagation
# delay (DELAY us, default 35), then a RATE (1gbit) link with a 128 KB buffer
# that marks ECN from 32 KB (RED; packets that are not ECN-capable are
# dropped there instead, as on a switch); with aqm=droptail the same
# buffer without marks
port() {
	local q="red limit 131072 min 30000 max 32768 avpkt 1500 burst 21 probability 1.0 bandwidth 1gbit ecn"

	[ "$aqm" = droptail ] && q="bfifo limit 131072"
	cat >>"$B/$1.tc" <<-EOF
	qdisc add dev $2 root handle 1: netem delay ${3:-35}us limit 10000
	qdisc add dev $2 parent 1:1 handle 10: tbf rate ${4:-1gbit} burst 3000 limit 200000
	qdisc add dev $2 parent 10:1 handle 20: $q
	EOF
}

# nic NS DEV [DELAY]: a host's 1 Gbit/s NIC (no marking; the host's own
# queue), propagation delay DELAY us (35)
nic() {
	cat >>"$B/$1.tc" <<-EOF
	qdisc add dev $2 root handle 1: netem delay ${3:-35}us limit 10000
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
	local s=$1 k t net p n tlp=3 fuso=0 sched=default rules= cc=cubic hashpol=3 i hp sd
	topo_down
	rm -rf "$B"
	mkdir -p "$B"
	[ "$s" = tcp-notlp ] && tlp=0
	# fuso1, fuso3: net.mptcp.fuso=1 or 3 alone, on the default
	# scheduler (which then sends FUSO's new data within the windows)
	# with the kernel's default rules: what we recommend; fuso3-paper:
	# the paper's sender (fuso_rules=0) on the default scheduler;
	# mptcp-window: MPTCP with the window-bounded scheduler.  For
	# experiments, FUSO's settings can be spelled out: fuso3-r0-window,
	# fuso3-r15-default ...; fuso3-dctcp: fuso3 in a data center that
	# runs DCTCP (every host's default, so every subflow's)
	case "$s" in
	fuso[13]) fuso=${s#fuso} ;;
	fuso[13]-paper) fuso=${s:4:1} rules=0 ;;
	fuso[13]-dctcp) fuso=${s:4:1} cc=dctcp ;;
	fuso[13]-r*-default|fuso[13]-r*-window)
		fuso=${s:4:1} rules=${s#fuso?-r} rules=${rules%-*} sched=${s##*-} ;;
	mptcp-window) sched=window ;;
	# the baselines a data center runs: DCTCP (the ports mark at its
	# threshold already), and TCP that leaves a path after a timeout
	# (below)
	dctcp) cc=dctcp ;;
	tcp-prr) hashpol=1 ;;
	# RepFlow and Proactive in a data center that runs DCTCP
	repflow-dctcp|proactive-dctcp) cc=dctcp ;;
	esac
	for n in $SWITCHES $(printf 'h%s ' $HOSTS); do
		echo "netns add $P-$n" >>"$B/root.ip"
		echo "link set lo up" >>"$B/$n.ip"
	done
	if [ "$topo" = fattree ]; then fabric_fattree; else fabric_fig3; fi
	# hosts: routes, MPTCP addresses and limits.  Every MPTCP sender
	# gives each subflow IWSUB: routes to the clients' MPTCP
	# addresses (NET.128/25) on every other host, and on a client a
	# rule for what it sends from its own
	for k in $HOSTS; do
		hnet "$k"
		net=$NET
		{
			echo "route add 10.0.0.0/8 via $net.254 $RT"
			echo "mptcp limits set subflows 8 add_addr_accepted 8"
			for c in $CLIENTS; do
				[ "$c" = "$k" ] && continue
				hnet "$c"
				echo "route add $NET.128/25 via $net.254 $RTSUB"
			done
			if is_client "$k"; then
				# MPTCP: first subflow from .128, an endpoint per extra one
				for ((n = 0; n < nsub; n++)); do
					echo "addr add $net.$((128 + n))/24 dev eth0"
					[ $n = 0 ] || echo "mptcp endpoint add $net.$((128 + n)) dev eth0 subflow"
				done
				echo "rule add from $net.128/25 table 100 pref 100"
				echo "route add 10.0.0.0/8 via $net.254 $RTSUB table 100"
			fi
		} >>"$B/h$k.ip"
	done
	ip -b "$B/root.ip" || return 1
	for n in $SWITCHES $(printf 'h%s ' $HOSTS); do
		ip -n "$P-$n" -b "$B/$n.ip" || return 1
		tc -n "$P-$n" -b "$B/$n.tc" || return 1
	done
	# ECMP on the 5-tuple, as a switch does: policy 3 with the fields
	# 0x37 (addresses, protocol, ports) dissects every packet.  Policy
	# 1 (tcp-prr) takes the hash a TCP socket stamps on its packets
	# (veth keeps it), a random one that TCP draws anew after every
	# timeout (net.core.txrehash, on by default): what a switch that
	# hashes the IPv6 flow label sees of a Linux host, whose flow label
	# is that hash (Protective ReRoute, SIGCOMM'23).  A connection
	# leaves the lossy path, with probability 2/3, at each timeout.
	# The fat-tree's switches each hash with a seed of their own, and
	# policy 1 has none (it takes the socket's hash as it is): there
	# only tcp-prr's ToRs take it (see the top)
	i=0
	for t in $SWITCHES; do
		hp=$hashpol sd=$hashseed
		if [ "$topo" = fattree ]; then
			sd=$(( (hashseed + i * 2654435761) % 4294967296 ))
			[ "${t:0:1}" = e ] || hp=3
		fi
		i=$((i + 1))
		nsx $t sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
			net.ipv4.ip_forward=1 net.ipv4.fib_multipath_hash_policy=$hp \
			net.ipv4.fib_multipath_hash_fields=0x0037 \
			net.ipv4.fib_multipath_hash_seed=$sd || return 1
	done
	# a namespace other than the first may only choose an algorithm
	# the first one allows (Cubic and Reno by default)
	[ "$cc" = cubic ] || sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic $cc" ||
		return 1
	for k in $HOSTS; do
		nsx "h$k" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
			net.ipv4.tcp_congestion_control=$cc net.ipv4.tcp_ecn=1 net.core.txrehash=1 \
			net.mptcp.enabled=1 \
			net.ipv4.tcp_early_retrans=$tlp net.mptcp.fuso=$fuso \
			net.mptcp.scheduler=$sched ${rules:+net.mptcp.fuso_rules=$rules} \
			net.ipv4.ip_local_port_range="40000 60999" || return 1
	done
	case "$s" in
	proactive|proactive-dctcp)
		# every data packet of the query connections leaves twice, in
		# both directions, on every host that sends: the requests
		# (16 bytes, with PSH) and the responses (full segments, and
		# the last one with PSH).  Same 5-tuple, so same path.  Pure
		# ACKs (at most 88 bytes with four SACK blocks, no PSH) are
		# not duplicated.
		for k in $HOSTS; do
			hnet "$k"
			nsx "h$k" nft -f - <<-EOF || return 1
			table ip proactive {
				chain out {
					type filter hook output priority 0;
					tcp sport $PORT_TCP ip length > 100 dup to $NET.254 device eth0
					tcp sport $PORT_TCP tcp flags & psh == psh ip length <= 100 dup to $NET.254 device eth0
					tcp dport $PORT_TCP ip length > 100 dup to $NET.254 device eth0
					tcp dport $PORT_TCP tcp flags & psh == psh ip length <= 100 dup to $NET.254 device eth0
				}
			}
			EOF
		done
		;;
	esac
	[ -n "$lossat" ] || loss_set on || return 1
	return 0
}

# fabric_fig3: the paper's Fig 3 (see the top), as batch files
fabric_fig3() {
	local k tor p d
	# access links
	for k in $HOSTS; do
		tor=t2
		[ "$k" -le 3 ] && tor=t1
		hnet "$k"
		echo "link add eth0 netns $P-h$k type veth peer name h$k netns $P-$tor" >>"$B/root.ip"
		printf 'addr add %s.1/24 dev eth0\nlink set eth0 up\n' "$NET" >>"$B/h$k.ip"
		printf 'addr add %s.254/24 dev h%s\nlink set h%s up\n' "$NET" "$k" "$k" >>"$B/$tor.ip"
		nic "h$k" eth0
		port "$tor" "h$k"
	done
	# the three paths.  Their neighbours are static: under bursty loss
	# (netem on p1) ARP itself was lost, the ToR's entry failed, and a
	# client's connect() got EHOSTUNREACH in the warm-up
	for p in 1 2 3; do
		echo "link add p$p netns $P-t1 address 02:00:00:00:0$p:01 type veth peer name p$p netns $P-t2 address 02:00:00:00:0$p:02" >>"$B/root.ip"
		printf 'addr add 10.9.%s.1/30 dev p%s\nlink set p%s up\n' $p $p $p >>"$B/t1.ip"
		printf 'addr add 10.9.%s.2/30 dev p%s\nlink set p%s up\n' $p $p $p >>"$B/t2.ip"
		printf 'neigh replace 10.9.%s.2 lladdr 02:00:00:00:0%s:02 dev p%s nud permanent\n' $p $p $p >>"$B/t1.ip"
		printf 'neigh replace 10.9.%s.1 lladdr 02:00:00:00:0%s:01 dev p%s nud permanent\n' $p $p $p >>"$B/t2.ip"
		d=35
		[ "$p" = 1 ] && d=$p1delay
		port t1 "p$p" "$d"
		port t2 "p$p" "$d"
	done
	echo "route add 10.2.0.0/16 nexthop via 10.9.1.2 dev p1 nexthop via 10.9.2.2 dev p2 nexthop via 10.9.3.2 dev p3" >>"$B/t1.ip"
	echo "route add 10.1.0.0/16 nexthop via 10.9.1.1 dev p1 nexthop via 10.9.2.1 dev p2 nexthop via 10.9.3.1 dev p3" >>"$B/t2.ip"
}

# fabric_fattree: the paper's §5.3 fat-tree (see the top), as batch files
fabric_fattree() {
	local k e a c p L mac A DA Bs DB rate=$((hpt * 500))mbit d=20
	# hosts under their ToR
	for k in $HOSTS; do
		e=$(((k - 1) / hpt))
		hnet "$k"
		echo "link add eth0 netns $P-h$k type veth peer name h$k netns $P-e$e" >>"$B/root.ip"
		printf 'addr add %s.1/24 dev eth0\nlink set eth0 up\n' "$NET" >>"$B/h$k.ip"
		printf 'addr add %s.254/24 dev h%s\nlink set h%s up\n' "$NET" "$k" "$k" >>"$B/e$e.ip"
		nic "h$k" eth0 $d
		port "e$e" "h$k" $d
	done
	# the links between switches, with static neighbours (a port's RED
	# drops ARP, which is not ECN-capable, as it drops anything else)
	L=0
	while read -r A DA Bs DB; do
		L=$((L + 1))
		mac=$(printf '02:00:00:00:%02x' $L)
		echo "link add $DA netns $P-$A address $mac:01 type veth peer name $DB netns $P-$Bs address $mac:02" >>"$B/root.ip"
		printf 'addr add 10.9.%s.1/30 dev %s\nlink set %s up\n' $L "$DA" "$DA" >>"$B/$A.ip"
		printf 'addr add 10.9.%s.2/30 dev %s\nlink set %s up\n' $L "$DB" "$DB" >>"$B/$Bs.ip"
		printf 'neigh replace 10.9.%s.2 lladdr %s:02 dev %s nud permanent\n' $L "$mac" "$DA" >>"$B/$A.ip"
		printf 'neigh replace 10.9.%s.1 lladdr %s:01 dev %s nud permanent\n' $L "$mac" "$DB" >>"$B/$Bs.ip"
		port "$A" "$DA" $d $rate
		port "$Bs" "$DB" $d $rate
	done <<<"$FABRIC"
	# routes (link numbers as FABRIC lists them): a ToR spreads what
	# leaves it over its pod's two aggs; an agg reaches its pod's hosts
	# through their ToR and spreads the rest over its two spines; a spine
	# reaches a pod through the one agg it links to there
	for e in 0 1 2 3 4 5 6 7; do
		echo "route add 10.0.0.0/8 nexthop via 10.9.$((1 + 2 * e)).2 dev u$((2 * (e / 2))) nexthop via 10.9.$((2 + 2 * e)).2 dev u$((2 * (e / 2) + 1))" >>"$B/e$e.ip"
	done
	for a in 0 1 2 3 4 5 6 7; do
		for e in $((2 * (a / 2))) $((2 * (a / 2) + 1)); do
			for ((k = e * hpt + 1; k <= (e + 1) * hpt; k++)); do
				hnet "$k"
				echo "route add $NET.0/24 via 10.9.$((1 + 2 * e + a % 2)).1 dev d$e" >>"$B/a$a.ip"
			done
		done
		c=$((2 * (a % 2)))
		echo "route add 10.0.0.0/8 nexthop via 10.9.$((17 + 2 * a)).2 dev u$c nexthop via 10.9.$((18 + 2 * a)).2 dev u$((c + 1))" >>"$B/a$a.ip"
	done
	for c in 0 1 2 3; do
		for p in 0 1 2 3; do
			a=$((2 * p + c / 2))
			echo "route add 10.$((p + 1)).0.0/16 via 10.9.$((17 + 2 * a + c % 2)).1 dev d$a" >>"$B/c$c.ip"
		done
	done
}

# loss_set on|off: the condition's loss on the ports WHERE names (lossat:
# turned on and off during the measured phase; else on from the start).
#   random     iptables in the ToRs' forwarding path, independent drops
#   gemodel    netem Gilbert-Elliott on the ports' egress (bursty)
#   blackhole  nft in the ToRs: every packet of a LOSS share of the
#              connections, chosen by a hash of the 5-tuple with the
#              replication's seed, the same hash in both directions
loss_set() {
	local on=$1 p ports=() prob gp d k
	[ "$loss" != 0 ] || return 0
	case "$where" in
	p1) ports=("t1 p1" "t2 p1") ;;
	p1up) ports=("t1 p1") ;;
	p12) ports=("t1 p1" "t2 p1" "t1 p2" "t2 p2") ;;
	access) for k in $SERVERS; do ports+=("t2 h$k" "t2 -i h$k"); done ;;
	fabric) while read -r k p gp d; do ports+=("$k $p" "$gp $d"); done <<<"$LOSSY_LINKS" ;;
	esac
	for p in "${ports[@]}"; do
		# shellcheck disable=SC2086
		set -- $p
		case "$lossmodel" in
		gemodel)
			d=35
			[ "$2" = p1 ] && d=$p1delay
			gp=$(awk -v l="$loss" 'BEGIN { l /= 100; printf "%.4f", 100 * 0.3 * l / (0.7 - l) }')
			if [ "$on" = on ]; then
				ntc "$1" qdisc change dev "$2" root handle 1: netem delay "${d}us" limit 10000 \
					loss gemodel "$gp%" 30% 70% 0% || return 1
			else
				ntc "$1" qdisc change dev "$2" root handle 1: netem delay "${d}us" limit 10000 \
					loss 0% || return 1
			fi
			;;
		random)
			prob=$(awk -v l="$loss" 'BEGIN { printf "%.6f", l / 100 }')
			local dir="-o $2"
			[ "$2" = -i ] && dir="-i $3"
			# shellcheck disable=SC2086
			nsx "$1" iptables "$([ "$on" = on ] && echo -A || echo -D)" FORWARD $dir \
				-m statistic --mode random --probability "$prob" -j DROP || return 1
			;;
		blackhole)
			# T1's port sees the client's side as source, T2's as
			# destination: the same key in both directions
			local key="ip saddr . tcp sport . ip daddr . tcp dport" share
			[ "$1" = t2 ] && key="ip daddr . tcp dport . ip saddr . tcp sport"
			share=$(awk -v l="$loss" 'BEGIN { printf "%d", l * 100 + 0.5 }')
			if [ "$on" = on ]; then
				nsx "$1" nft -f - <<-EOF || return 1
				table ip blackhole-$2 {
					chain bh {
						type filter hook forward priority 0;
						oifname "$2" jhash $key mod 10000 seed $((hashseed ^ 0x5bd1e995)) < $share drop
					}
				}
				EOF
			else
				nsx "$1" nft delete table ip "blackhole-$2" || return 1
			fi
			;;
		esac
	done
	return 0
}

counters() { # FILE: every host's nstat counters and the servers' egress bytes
	local k t
	{
	for k in $HOSTS; do
		nsx "h$k" nstat -asz | awk -v h="h$k" 'NR > 1 && $1 !~ /^#/ { print h, $1, $2 }'
		ntc "h$k" -s qdisc show dev eth0 | awk -v h="h$k" \
			'/^qdisc netem 1:/ { getline; print h, "EgressBytes", $2; print h, "EgressPkts", $4; exit }'
	done
	# every switch port's RED queue, as TOR:PORT: packets marked CE,
	# dropped by RED (those not ECN-capable: retransmissions, ACKs), and
	# dropped at the 128 KB limit
	for t in $SWITCHES; do
		ntc "$t" -s qdisc show | awk -v t="$t" '
			/^qdisc / { d = ""; if ($2 == "red") for (i = 1; i < NF; i++) if ($i == "dev") d = $(i + 1) }
			d != "" && $1 == "marked" {
				print t ":" d, "RedMarked", $2; print t ":" d, "RedEarly", $4
				print t ":" d, "RedPdrop", $6; d = "" }'
	done
	} >"$1"
}

# stop_procs NS NAME: SIGTERM to NAME's processes in namespace NS, and
# wait (up to 10 s) until they have written their results and exited
stop_procs() {
	local ns=$1 name=$2 p pids=() i
	for p in $(ip netns pids "$P-$ns" 2>/dev/null); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$name" ] && pids+=("$p")
	done
	[ ${#pids[@]} = 0 ] && return 0
	kill -TERM "${pids[@]}" 2>/dev/null
	for ((i = 0; i < 200; i++)); do
		kill -0 "${pids[@]}" 2>/dev/null || return 0
		sleep 0.05
	done
	echo "[bench] $name in $ns did not stop on SIGTERM" >&2
	return 1
}

# paths SCHEME: every TCP socket (connection or subflow) of the clients,
# with the path each direction takes: T1 hashes client to server, T2
# server to client (the 5-tuple, see topo_up).  'ip route get ... iif'
# builds a real TCP packet, so it takes the path forwarding takes.
# Two 'ip -b' batches: a process per socket costs minutes under UML.
paths() {
	local s=$1 c f=$B/socks
	for c in $CLIENTS; do
		# a subflow bound to its endpoint's device shows as ADDR%DEV:PORT
		nsx "h$c" ss -tnH state established | awk -v c="$c" '{
			l = $3; r = $4; sub(/%[^:]*:/, ":", l); sub(/%[^:]*:/, ":", r)
			n = split(l, a, ":"); m = split(r, b, ":")
			split(b[1], q, ".")
			print c, a[1], a[2], b[1], b[2], q[3] }'
	done | sort -k1,1n -k3,3n >"$f"
	paths_of "$s"
}

# bulk_paths SCHEME: the same for a bulk transfer's subflows, from the
# server H4's side (the client's may be gone when the transfer ends)
bulk_paths() {
	local s=$1 f=$B/socks
	nsx h4 ss -tnH state established '( sport = :5201 )' | awk '{
		l = $3; r = $4; sub(/%[^:]*:/, ":", r)
		split(l, a, ":"); split(r, b, ":")
		print 1, b[1], b[2], a[1], a[2], 4 }' | sort -k3,3n >"$f"
	paths_of "$s"
}

# paths_of SCHEME: "path" lines for the connections in $B/socks, "CLIENT
# LOCAL LPORT REMOTE RPORT REMOTE_HOST" (the client's view)
paths_of() {
	local s=$1 f=$B/socks
	awk '{ printf "route get %s from %s iif h%s ipproto tcp sport %s dport %s\n", $4, $2, $1, $3, $5 }' "$f" >"$f.t1"
	awk '{ printf "route get %s from %s iif h%s ipproto tcp sport %s dport %s\n", $2, $4, $6, $5, $3 }' "$f" >"$f.t2"
	ip -force -n "$P-t1" -b "$f.t1" 2>>"$OUT/paths.err" | awk '/^[^ \t]/ { d = "?"; for (i = 1; i < NF; i++) if ($i == "dev") d = $(i + 1); print d }' >"$f.r1"
	ip -force -n "$P-t2" -b "$f.t2" 2>>"$OUT/paths.err" | awk '/^[^ \t]/ { d = "?"; for (i = 1; i < NF; i++) if ($i == "dev") d = $(i + 1); print d }' >"$f.r2"
	# H2/H3 (incast senders) sit under T1 too: no inter-ToR path there
	paste -d' ' "$f" "$f.r1" "$f.r2" | awk -v s="$s" '{
		# tcp-prr: the ToRs hash the socket hash, not the 5-tuple
		p1 = $7; p2 = $8; if (s == "tcp-prr") { p1 = "txhash"; p2 = "txhash" }
		if ($4 ~ /^10\.1\./) { p1 = "local"; p2 = "local" }
		printf "path %s h%s %s:%s %s:%s %s %s\n", s, $1, $2, $3, $4, $5, p1, p2 }'
	[ -s "$OUT/paths.err" ] || rm -f "$OUT/paths.err"
}

# The mptcp_fuso_recovery tracepoint, one event per FUSO copy, during the
# measured phase only
TRACE=/sys/kernel/tracing
trace_start() {
	[ -e $TRACE/events/mptcp/mptcp_fuso_recovery/enable ] || return 0
	echo 0 >$TRACE/tracing_on
	echo >$TRACE/trace
	echo 65536 >$TRACE/buffer_size_kb
	# extra events: microseconds of CLOCK_MONOTONIC, as fuso-tg's records
	[ -z "$trace" ] || echo mono >$TRACE/trace_clock
	echo 1 >$TRACE/events/mptcp/mptcp_fuso_recovery/enable
	for e in $(echo "$trace" | tr ',' ' '); do
		echo 1 >"$TRACE/events/${e/://}/enable" || fail "trace: no event $e"
	done
	echo 1 >$TRACE/tracing_on
}
trace_pause() {
	[ -e $TRACE/events/mptcp/mptcp_fuso_recovery/enable ] || return 0
	echo 0 >$TRACE/tracing_on
}
# trace_end DIR: the copies and their bytes (the tracepoint's len=) in
# DIR/copies.txt; a lost event (the ring buffer overran or dropped one:
# per_cpu/cpu*/stats) fails the run
trace_end() {
	local lost=0
	[ -e $TRACE/events/mptcp/mptcp_fuso_recovery/enable ] || return 0
	echo 0 >$TRACE/tracing_on
	[ "$(cat $TRACE/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }')" = 0 ] ||
		lost=1
	[ -z "$trace" ] || cp $TRACE/trace "$1/trace.txt"
	grep 'mptcp_fuso_recovery:' $TRACE/trace | grep -o ' len=[0-9]*' | awk -F= -v lost=$lost \
		'{ n++; b += $2 } END { printf "copies %d\ncopy_bytes %d\ntrace_lost %d\n", n, b, lost }' >"$1/copies.txt"
	echo 0 >$TRACE/events/mptcp/mptcp_fuso_recovery/enable
	for e in $(echo "$trace" | tr ',' ' '); do
		echo 0 >"$TRACE/events/${e/://}/enable"
	done
	[ $lost = 0 ] || { echo "[bench] $1: the trace lost events: copy counts would be wrong" >&2; return 1; }
}

# run_scheme SCHEME: one scheme on a fresh testbed
run_scheme() {
	local s=$1 d=$OUT/$1 k c srv=() mode port bind cpids=() rc=0 per n0 t0
	mkdir -p "$d"
	topo_up "$s" || fail "$s: testbed setup failed"
	case "$s" in
	mptcp*|fuso*) mode=mptcp port=$PORT_MPTCP ;;
	repflow|repflow-dctcp) mode=repflow port=$PORT_TCP ;;
	*) mode=tcp port=$PORT_TCP ;;
	esac
	if [ ! -f "$OUT/rtt.txt" ]; then
		# the testbed's base RTT, once per condition: H1 to H4 (the
		# fat-tree: to the last host, in another pod) over whichever
		# path ECMP picks for ICMP, small and full-size
		hnet 4
		[ "$topo" = fattree ] && hnet $((8 * hpt))
		{
			nsx h1 ping -q -c 5 -i 0.01 "$NET.1" | tail -n1
			nsx h1 ping -q -c 5 -i 0.01 -s 1472 "$NET.1" | tail -n1
		} >"$OUT/rtt.txt" 2>&1
	fi
	local servers=$SERVERS
	[ "$fanout" != 0 ] && servers="2 3 4 5 6"
	[ "$fanhosts" = 1 ] && servers=$FANHOSTS
	for k in $servers; do
		setsid -f ip netns exec "$P-h$k" "$TG" server -q -o "$d/srv-h$k.csv" \
			$PORT_TCP $PORT_TCP2 $PORT_MPTCP:mptcp $PORT_BG
	done
	sleep 0.2
	local join= sz
	[ "$mode" = mptcp ] && join="-j $((nsub - 1))"
	sz=(-d "$CDF" -x 0:100000)
	[ -n "$size" ] && sz=(-s "$size")
	rm -f "$d"/*.ready "$d"/*.go
	t0=$(date +%s.%N)
	if [ "$fanout" != 0 ]; then
		# incast: H1 asks every sender at once, one query at a time;
		# twice the connections to each server that a query needs
		local nserv
		nserv=$(echo $servers | wc -w)
		for k in $servers; do
			if [ "$k" -le 3 ]; then srv+=("10.1.$k.1:$port"); else srv+=("10.2.$k.1:$port"); fi
		done
		bind=10.1.1.1
		[ "$mode" = mptcp ] && bind=10.1.1.128
		nsx h1 "$TG" client -m "$mode" -b $bind -P $PORT_Q -n "$flows" -r 0 -s 65536 -f "$fanout" \
			-c $((2 * ((fanout + nserv - 1) / nserv))) -w 100000 -W 100 $join -g "$d/h1" -S "$seed" -o "$d/h1.csv" -t 3000 \
			"${srv[@]}" 2>"$d/h1.log" &
		cpids+=($!)
	else
		# FLOWS queries over the clients, each asking every server
		local nc ld ci=0
		nc=$(echo $CLIENTS | wc -w)
		ld=$(awk -v l="$qload" -v n="$nc" 'BEGIN { print l / n }')
		for c in $CLIENTS; do
			ci=$((ci + 1))
			srv=()
			for k in $SERVERS; do
				hnet "$k"
				srv+=("$NET.1:$port")
			done
			per=$((flows / nc + (ci <= flows % nc)))
			hnet "$c"
			bind=$NET.1
			[ "$mode" = mptcp ] && bind=$NET.128
			nsx "h$c" "$TG" client -m "$mode" -b $bind -P $PORT_Q -n $per "${sz[@]}" \
				-l "$ld" -c $CONNS -w 100000 -W 100 \
				$join -g "$d/h$c" -S $((seed * SEEDX + c)) -o "$d/h$c.csv" -t 3000 "${srv[@]}" 2>"$d/h$c.log" &
			cpids+=($!)
		done
	fi
	# every client warmed up, with all its subflows
	local nready=${#cpids[@]} waited=0
	while [ "$(ls "$d"/*.ready 2>/dev/null | wc -l)" -lt "$nready" ]; do
		sleep 0.05
		waited=$((waited + 1))
		for c in "${cpids[@]}"; do
			kill -0 "$c" 2>/dev/null || waited=100000	# a client died
		done
		[ $waited -lt 2400 ] || { echo "[bench] $s: a client failed or did not finish the warm-up" >&2; rc=1; break; }
	done
	# (the fat-tree's paths are not recorded: paths knows Fig 3 only)
	[ "$topo" = fattree ] || paths "$s" >>"$OUT/condition.txt"
	local bpids=()
	if [ "$bgload" != 0 ]; then
		# background: flows >= 100 KB on plain TCP, at BGLOAD of each
		# client's 1 Gbit/s access link, from before the queries start
		# until they are done; its own FCTs in bg-hN.csv (SIGTERM)
		local bsrv=()
		for c in $CLIENTS; do
			bsrv=()
			for k in $SERVERS; do
				hnet "$k"
				bsrv+=("$NET.1:$PORT_BG")
			done
			hnet "$c"
			nsx "h$c" "$TG" client -m tcp -b "$NET.1" -P $PORT_BGC -n 1000000 -d "$CDF" -x 100000:1000000000 \
				-l "$(awk -v l="$bgload" 'BEGIN { print l * 1000 }')" -c $CONNS -w 0 -W 0 \
				-S $((seed * SEEDX + SEEDX / 2 + c)) -o "$d/bg-h$c.csv" -t 3000 "${bsrv[@]}" \
				2>"$d/bg-h$c.log" &
			bpids+=($!)
		done
		# the background reaches its load before anything is measured
		sleep 0.5
	fi
	# counters and copies from here on belong to the measurement
	counters "$d/counters-before.txt"
	trace_start
	# the host reads the guest's CPU time when it sees these markers
	# (bench.sh: cpu.txt)
	touch "$d/cpu.begin"
	for c in "$d"/*.ready; do touch "${c%.ready}.go"; done
	local lpid=
	if [ -n "$lossat" ] && [ "$loss" != 0 ]; then
		# the loss from START to END seconds after the queries start
		(
			sleep "${lossat%-*}"
			loss_set on || exit 1
			sleep "$(awk -v w="$lossat" 'BEGIN { split(w, a, "-"); print a[2] - a[1] }')"
			loss_set off
		) &
		lpid=$!
	fi
	for c in "${cpids[@]}"; do
		wait "$c" || rc=1
	done
	touch "$d/cpu.end"
	if [ -n "$lpid" ] && kill -0 "$lpid" 2>/dev/null; then
		echo "[bench] $s: the queries ended before the loss window did (lossat=$lossat)" >&2
		kill "$lpid" 2>/dev/null
	elif [ -n "$lpid" ]; then
		wait "$lpid" || { echo "[bench] $s: turning the loss on or off failed" >&2; rc=1; }
	fi
	trace_pause
	counters "$d/counters-after.txt"
	if [ ${#bpids[@]} -gt 0 ]; then
		# bpids are the subshells of 'nsx ... &': signal the clients
		# themselves (the query clients have exited by now)
		for c in $CLIENTS; do stop_procs "h$c" fuso-tg || rc=1; done
		for c in "${bpids[@]}"; do
			wait "$c" || { echo "[bench] $s: a background client failed" >&2; rc=1; }
		done
	fi
	for k in $servers; do
		stop_procs "h$k" fuso-tg || rc=1
		[ -s "$d/srv-h$k.csv" ] || { echo "[bench] $s: server h$k wrote no records" >&2; rc=1; }
	done
	trace_end "$d" || rc=1
	n0=$(cat "$d"/h[0-9]*.csv 2>/dev/null | grep -vc '^id')
	msg "$s: $n0 queries in $(echo "$(date +%s.%N) $t0" | awk '{ printf "%.3f", $1 - $2 }') s (guest time)$( [ $rc = 0 ] || echo ', CLIENT FAILED')"
	cat "$d"/h[0-9]*.log >&2
	topo_down
	return $rc
}

# run_bulk SCHEME: an unmodified iperf3, made MPTCP by mptcpize, from H4
# to H1 for BULK seconds (-R: the server sends, as the benchmark's
# servers do); H1's path manager adds its subflows
run_bulk() {
	local s=$1 d=$OUT/$1 rc=0 i
	mkdir -p "$d"
	topo_up "$s" || fail "$s: testbed setup failed"
	command -v iperf3 >/dev/null && command -v mptcpize >/dev/null ||
		fail "bulk needs iperf3 and mptcpize (make deps)"
	nsx h4 mptcpize run iperf3 -s -D -1 -B 10.2.4.1 -p 5201 || fail "$s: iperf3 server did not start"
	sleep 0.2
	counters "$d/counters-before.txt"
	trace_start
	touch "$d/cpu.begin"
	nsx h1 mptcpize run iperf3 -c 10.2.4.1 -p 5201 -B 10.1.1.128 -R -t "$bulk" -J \
		>"$d/iperf3.json" 2>"$d/iperf3.log" || rc=1
	touch "$d/cpu.end"
	# the sockets as the transfer ends, both ends: what a stalled
	# transfer was waiting for (a data-level hole, a closed window)
	for n in h4 h1; do echo "== $n"; nsx $n ss -atinmM; done >"$d/sockets-end.txt" 2>&1
	# where ECMP put each subflow: the seed fixes the hash seed but not
	# the subflows' ports (the kernel picks them), so a bulk pair is not
	# paired on placement, and a transfer whose subflows all miss the
	# clean path moves less (benchmark.md, figs-50)
	bulk_paths "$s" >>"$OUT/condition.txt"
	trace_pause
	counters "$d/counters-after.txt"
	trace_end "$d" || rc=1
	nsx h1 ss -tnH state established >"$d/subflows.txt" 2>&1
	/usr/bin/python3 - "$d/iperf3.json" >"$d/bulk.txt" <<-'PY' || rc=1
	import json, sys
	j = json.load(open(sys.argv[1]))
	r = j["end"]["sum_received"]
	print("bytes %d" % r["bytes"])
	print("seconds %.6f" % r["seconds"])
	PY
	msg "$s: bulk $(awk '/^bytes/ { b = $2 } /^seconds/ { t = $2 } END { if (t) printf "%.1f Mbit/s", b * 8 / t / 1e6 }' "$d/bulk.txt")$( [ $rc = 0 ] || echo ', FAILED')"
	topo_down
	return $rc
}

# Everything below kills the processes of every "$P-*" namespace, deletes
# those namespaces and builds new ones: only in the test VM that bench.sh
# boots (its kernel command line carries fusovm=), never on the machine
# that runs the benchmark, whose namespaces guest.sh did not make.
grep -qE '(^| )fusovm=[a-z]+( |$)' /proc/cmdline || [ "${FUSO_GUEST_ANYWHERE:-}" = 1 ] ||
	fail "guest.sh runs inside the test VM (scripts/bench/bench.sh boots it); here it would kill and delete the $P-* network namespaces of this machine (FUSO_GUEST_ANYWHERE=1 runs it anyway)"
msg "condition: topo=$topo${FABRIC:+ (hpt=$hpt lossy=$lossy)} loss=$loss% ($lossmodel${lossat:+, from ${lossat%-*} to ${lossat#*-} s}) where=$where p1delay=${p1delay}us nsub=$nsub iwsub=$IWSUB rtomin=$rtomin iw=$iw flows=$flows size=${size:-dist} qload=${qload}Mbps dist=$dist bgload=$bgload fanout=$fanout${FANHOSTS:+ (a host each)} aqm=$aqm seed=$seed"
{
	printf 'topo=%s\nhpt=%s\nlossy=%s\nlossy_links=%s\n' "$topo" "$hpt" "$lossy" "$(echo "$LOSSY_LINKS" | paste -sd';')"
	printf 'schemes=%s\nloss=%s\nlossmodel=%s\nlossat=%s\nwhere=%s\np1delay=%s\nnsub=%s\niwsub=%s\nrtomin=%s\niw=%s\nflows=%s\nsize=%s\nqload=%s\ndist=%s\nbgload=%s\nfanout=%s\nfanhosts=%s\naqm=%s\nbulk=%s\nseed=%s\nhashseed=%s\nkernel=%s\ncmdline=%s\n' \
		"$schemes" "$loss" "$lossmodel" "$lossat" "$where" "$p1delay" "$nsub" "$IWSUB" "$rtomin" "$iw" "$flows" "$size" "$qload" "$dist" "$bgload" "$fanout" "$fanhosts" "$aqm" "$bulk" "$seed" "$hashseed" \
		"$(uname -r)" "$(cat /proc/cmdline | tr -s ' ' | cut -c1-400)"
	echo "# path SCHEME CLIENT LOCAL REMOTE PATH_TO_SERVER PATH_TO_CLIENT: every connection and subflow after the warm-up"
} >"$OUT/condition.txt"
# in_range N MAX: N is a whole number in 0..MAX, written without a
# leading zero (as the sysctl prints it)
in_range() {
	[[ $1 =~ ^(0|[1-9][0-9]{0,5})$ ]] && [ "$1" -le "$2" ]
}
bad=0
for s in $schemes; do
	case "$s" in
	tcp|tcp-notlp|dctcp|tcp-prr|mptcp|mptcp-window|fuso[13]|fuso[13]-paper|fuso[13]-dctcp|repflow|proactive|repflow-dctcp|proactive-dctcp) ;;
	fuso[13]-r*-default|fuso[13]-r*-window)
		num=${s#fuso?-r} num=${num%-*}
		in_range "$num" 127 || fail "unknown scheme '$s' (fuso_rules 0..127)" ;;
	*) fail "unknown scheme '$s'" ;;
	esac
	if [ "$bulk" != 0 ]; then
		run_bulk "$s" || bad=1
		continue
	fi
	run_scheme "$s" || bad=1
done
exit $bad
