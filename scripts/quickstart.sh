#!/bin/bash
# FUSO in five minutes, on a kernel with the FUSO patches (as root): two
# network namespaces joined by two paths, loss on one of them, MPTCP with
# two subflows, and the same request/response load with FUSO off and on,
# side by side; then an unmodified iperf3 made MPTCP with mptcpize.  Every
# command is one a user types on a real machine; read the script as the
# walk-through (Documentation/quickstart.md explains each step).
#
#   scripts/quickstart.sh [--loss PCT] [--lossy-path 1|2] [--queries N]
#                         [--size BYTES] [--rules N]
#
#   --loss PCT     netem loss on the lossy path, both directions (default 2)
#   --lossy-path P the path that loses (default 2); path 1 carries each
#                  connection's first subflow, which upstream's scheduler
#                  prefers
#   --queries N    requests per run (default 300)
#   --size BYTES   response size (default 20000)
#   --rules N      net.mptcp.fuso_rules for the run with FUSO on, 0..127
#                  (default: the kernel's, 82; 0 is the paper's sender)
#
# Needs: ip, tc (netem), nstat, ss, iperf3, mptcpize, gcc (to build the
# traffic generator fuso-tg if FUSO_TG does not name one).  `make
# quickstart` runs it in the UML test kernel (virtual time, so the times
# are exact).  It creates the namespaces fuso-qs-cli and fuso-qs-srv and
# deletes them at the end; it refuses to start if they exist.
#
# Exit status: 0 when every query and the bulk transfer completed intact
# and FUSO's counters moved with FUSO on (and not with it off); 1 else.
set -u

loss=2 lossy=2 queries=300 size=20000 rules=
while [ $# -gt 0 ]; do
	case "$1" in
	--lossy-path)
		case "${2:-}" in 1|2) lossy=$2 ;;
		*) echo "quickstart: --lossy-path wants 1 or 2, got '${2:-}'" >&2; exit 1 ;;
		esac
		shift ;;
	--rules)
		[[ ${2:-} =~ ^(0|[1-9][0-9]{0,2})$ ]] && [ "$2" -le 127 ] ||
			{ echo "quickstart: --rules wants a number 0..127, got '${2:-}'" >&2; exit 1; }
		rules=$2
		shift ;;
	--loss|--queries|--size)
		[ $# -ge 2 ] && [ -n "$2" ] || { echo "quickstart: $1 needs a value" >&2; exit 1; }
		case "$2" in *[!0-9.]*) echo "quickstart: $1 wants a number, got '$2'" >&2; exit 1 ;; esac
		case "$1" in
		--loss) loss=$2 ;;
		--queries) queries=$2 ;;
		--size) size=$2 ;;
		esac
		shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "quickstart: unknown option '$1' (see --help)" >&2; exit 1 ;;
	esac
	shift
done

say() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
fail() { echo "quickstart: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run it as root (it creates network namespaces)"
[ -e /proc/sys/net/mptcp/fuso ] ||
	fail "this kernel has no FUSO (no /proc/sys/net/mptcp/fuso): boot a kernel built with the FUSO patches and CONFIG_MPTCP_FUSO=y"
for t in ip tc nstat ss iperf3 mptcpize; do
	command -v "$t" >/dev/null || fail "'$t' is missing (Debian: apt install iproute2 iperf3 mptcpize)"
done
C=fuso-qs-cli S=fuso-qs-srv
for ns in $C $S; do
	[ ! -e "/run/netns/$ns" ] || fail "namespace $ns exists: not ours to reuse (ip netns del $ns)"
done

work=$(mktemp -d /tmp/fuso-qs.XXXXXX) || fail "mktemp"
spid=
cleanup() {
	[ -z "$spid" ] || kill "$spid" 2>/dev/null
	ip netns del $C 2>/dev/null
	ip netns del $S 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

TG=${FUSO_TG:-}
if [ -z "$TG" ]; then
	TG=$work/fuso-tg
	gcc -O2 -o "$TG" "$(dirname "$0")/bench/fuso-tg.c" -lm -lpthread ||
		fail "cannot build the traffic generator fuso-tg (gcc)"
fi

say "1. Two namespaces, two paths: path $((3 - lossy)) clean, path $lossy with ${loss}% loss; 1 ms each way"
run ip netns add $C
run ip netns add $S
for p in 1 2; do
	run ip link add qs-c$p netns $C type veth peer name qs-s$p netns $S
	run ip -n $C addr add 10.0.$p.1/24 dev qs-c$p
	run ip -n $S addr add 10.0.$p.2/24 dev qs-s$p
	run ip -n $C link set qs-c$p up
	run ip -n $S link set qs-s$p up
done
ip -n $C link set lo up
ip -n $S link set lo up
for p in 1 2; do
	lossopt=()
	[ "$p" = "$lossy" ] && lossopt=(loss "$loss%")
	run ip netns exec $C tc qdisc replace dev qs-c$p root netem delay 1ms "${lossopt[@]}"
	run ip netns exec $S tc qdisc replace dev qs-s$p root netem delay 1ms "${lossopt[@]}"
done

say "2. MPTCP: a second subflow over path 2 (without an endpoint, a connection has one subflow)"
for ns in $C $S; do
	run ip netns exec $ns sysctl -qw net.mptcp.enabled=1
	run ip -n $ns mptcp limits set subflows 2 add_addr_accepted 2
done
run ip -n $C mptcp endpoint add 10.0.2.1 dev qs-c2 subflow

say "3. FUSO's knobs: net.mptcp.fuso is the one to set (below); the scheduler stays upstream's"
run ip netns exec $S sysctl net.mptcp.scheduler
# the knobs a new namespace starts with (mptcp-sysctl.rst says what each
# does; fuso_rules 82: every rule beyond the paper, 0 is the paper's)
echo "FUSO's knobs, at their defaults:"
run ip netns exec $S sysctl net.mptcp.fuso net.mptcp.fuso_alpha \
	net.mptcp.fuso_beta net.mptcp.fuso_rules

# fuso_counter NS NAME: a counter of namespace NS
fuso_counter() {
	ip netns exec "$1" nstat -az "$2" | awk -v n="$2" '$1 == n { print $2 }'
}

# one_run MODE: the request/response load with net.mptcp.fuso=MODE on both
# ends; a line of results in $work/results
one_run() {
	local mode=$1 c0 c1 out rc=0
	out=$work/fct-$mode.csv
	say "4.$((mode == 0 ? 1 : 2)) $queries queries of $size bytes, net.mptcp.fuso=$mode"
	for ns in $C $S; do
		run ip netns exec $ns sysctl -qw net.mptcp.fuso="$mode"
		if [ "$mode" != 0 ] && [ -n "$rules" ]; then
			run ip netns exec $ns sysctl -qw net.mptcp.fuso_rules="$rules"
		fi
	done
	# a connection takes net.mptcp.fuso when it is made: a new server
	ip netns exec $S "$TG" server -q 5000:mptcp &
	spid=$!
	sleep 0.5
	kill -0 "$spid" 2>/dev/null || fail "the fuso-tg server did not start"
	c0=$(fuso_counter $S MPTcpExtFusoRecovery)
	run ip netns exec $C "$TG" client -m mptcp -c 2 -j 1 -n "$queries" -s "$size" \
		-r 100 -o "$out" 10.0.1.2:5000 || rc=1
	c1=$(fuso_counter $S MPTcpExtFusoRecovery)
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
	[ $rc = 0 ] || fail "fuso=$mode: the traffic generator failed (above)"
	# flow completion times (µs, column 4) -> mean, p50, p99, max in ms
	tail -n +2 "$out" | cut -d, -f4 | sort -n | awk -v m="$mode" -v c=$((c1 - c0)) '
		{ v[NR] = $1; s += $1 }
		END {
			p50 = v[int(NR * 0.50 + 0.999)]; p99 = v[int(NR * 0.99 + 0.999)]
			printf "fuso=%s %d %.2f %.2f %.2f %.2f %d\n", m, NR, s / NR / 1000,
				p50 / 1000, p99 / 1000, v[NR] / 1000, c
		}' >>"$work/results"
	echo "FUSO copies sent by the server: $((c1 - c0))"
}

: >"$work/results"
one_run 0
one_run 3

say "5. Side by side (flow completion times, ms)"
awk 'BEGIN { printf "%-8s %8s %8s %8s %8s %8s %12s\n", "", "queries", "mean", "p50", "p99", "max", "FUSO copies" }
     { printf "%-8s %8s %8s %8s %8s %8s %12s\n", $1, $2, $3, $4, $5, $6, $7 }' "$work/results"
copies0=$(awk '$1 == "fuso=0" { print $7 }' "$work/results")
copies3=$(awk '$1 == "fuso=3" { print $7 }' "$work/results")

say "6. What FUSO did: its counters in the server's namespace (nstat -az 'MPTcpExtFuso*')"
run ip netns exec $S nstat -az 'MPTcpExtFuso*'

say "7. Each copy as it is sent: the tracepoint mptcp:mptcp_fuso_recovery"
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
if [ -d $T/events/mptcp/mptcp_fuso_recovery ]; then
	echo "(perf trace -e mptcp:mptcp_fuso_recovery or trace-cmd record -e mptcp:mptcp_fuso_recovery do the same)"
	echo > $T/trace
	echo 1 > $T/events/mptcp/mptcp_fuso_recovery/enable
	ip netns exec $S "$TG" server -q 5000:mptcp &
	spid=$!
	sleep 0.5
	ip netns exec $C "$TG" client -m mptcp -c 1 -j 1 -n 20 -s "$size" -r 100 -o /dev/null \
		10.0.1.2:5000 2>/dev/null
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
	echo 0 > $T/events/mptcp/mptcp_fuso_recovery/enable
	grep -v '^#' $T/trace | head -n 3
else
	echo "(no tracefs here: skipped)"
fi

say "8. An unmodified application: iperf3 made MPTCP by mptcpize, 3 s, FUSO on"
ip netns exec $S mptcpize run iperf3 -s -1 -D -p 5201 || fail "iperf3 server did not start"
sleep 0.5
ip netns exec $C mptcpize run iperf3 -c 10.0.1.2 -p 5201 -t 3 -R >"$work/iperf3.txt" &
ipid=$!
sleep 1.5
echo "\$ ip netns exec $C ss -tiM    (the connection and its subflows, mid-transfer)"
ip netns exec $C ss -tiM | head -n 12
wait $ipid || { cat "$work/iperf3.txt"; fail "iperf3 failed"; }
grep -E 'receiver|sender' "$work/iperf3.txt"

say "Result"
bad=
[ "${copies0:-x}" = 0 ] || { echo "FUSO copies moved with fuso=0: $copies0"; bad=1; }
[ "${copies3:-0}" -ge 1 ] || { echo "no FUSO copy with fuso=3 and ${loss}% loss"; bad=1; }
[ -z "$bad" ] || fail "FUSO's counters did not move as expected"
echo "ok: every query answered intact, FUSO sent $copies3 copies with fuso=3 and none with fuso=0, iperf3 over MPTCP done"
