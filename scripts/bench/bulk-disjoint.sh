#!/bin/bash
# Bulk throughput over two disjoint bottlenecks that mark ECN: an
# unmodified iperf3 made MPTCP with mptcpize, four subflows (two per path),
# each path 100 Mbit/s with 100 us of delay per direction and a RED queue
# that marks from 30 KB, as the FUSO benchmark's ports do.  Unlike the
# benchmark's bulk test, where every subflow crosses the receiver's one
# access link, here each path is its own bottleneck: a scheduler that
# backs the connection off as one flow would keep it to one path's rate.
#
#   scripts/bench/bulk-disjoint.sh [--runs N] [--secs S] [--loss P]
#                                  [--out DIR]
#
# Runs in UML (virtual time, make kernel-uml).  Schemes, each N times in
# turn (default 5), S seconds each (default 4), with P % random loss on
# path 1 towards the client (default 0): "default" (upstream's
# scheduler, FUSO off), "window" (the window scheduler, FUSO on, the
# default rules) and "window-r47" (the same without the one-flow rules
# SCHED_CAUTIOUS and SCHED_NARROW, and without SPREAD_TIMERS).  Output:
# DIR/raw.tsv (scheme, run, Mbit/s) and DIR/summary.txt, the mean of
# each with a 95 % t interval and its ratio to "default" paired on the
# run (default DIR: build/bench/bulk-disjoint).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)

die() { echo "bulk-disjoint: $*" >&2; exit 1; }

SCHEMES="default window window-r47"

# ---- inside the guest: bulk-disjoint.sh --guest RUNS SECS LOSS FILE
if [ "${1:-}" = --guest ]; then
	runs=$2 secs=$3 loss=$4 file=$5
	c=bd-c s=bd-s
	nsx() { local n=$1; shift; ip netns exec "$n" "$@"; }
	{ ip netns add $c && ip netns add $s; } || die "cannot create namespaces"
	for p in 1 2; do
		ip link add c$p netns $c type veth peer name s$p netns $s || die "veth"
		ip -n $c addr add 10.0.$p.1/24 dev c$p
		ip -n $c addr add 10.0.$p.3/24 dev c$p
		ip -n $s addr add 10.0.$p.2/24 dev s$p
		for n in $c $s; do
			d=${n#bd-}$p
			lossopt=()
			[ "$p$n" = "1$s" ] && [ "$loss" != 0 ] && lossopt=(loss "$loss%")
			ip -n "$n" link set "$d" up
			if ! { nsx "$n" tc qdisc add dev "$d" root handle 1: netem delay 100us limit 10000 "${lossopt[@]}" &&
			       nsx "$n" tc qdisc add dev "$d" parent 1:1 handle 10: tbf rate 100mbit burst 3000 limit 200000 &&
			       nsx "$n" tc qdisc add dev "$d" parent 10:1 handle 20: red limit 131072 min 30000 max 32768 \
					avpkt 1500 burst 21 probability 1.0 bandwidth 100mbit ecn; }; then
				die "tc: no netem, tbf or red in this kernel"
			fi
		done
	done
	for n in $c $s; do
		ip -n "$n" link set lo up
		nsx "$n" sysctl -qw net.ipv4.tcp_ecn=1 || die "sysctl"
		ip -n "$n" mptcp limits set subflows 8 add_addr_accepted 8
	done
	# the initial subflow on path 1, then one more on path 1 and two on
	# path 2
	ip -n $c mptcp endpoint add 10.0.1.3 dev c1 subflow
	ip -n $c mptcp endpoint add 10.0.2.1 dev c2 subflow
	ip -n $c mptcp endpoint add 10.0.2.3 dev c2 subflow
	setup() {	# SCHEME
		local sched=window fuso=3 rules=255
		case "$1" in
		default) sched=default fuso=0 ;;
		window-r47) rules=47 ;;
		esac
		for n in $c $s; do
			nsx "$n" sysctl -qw net.mptcp.scheduler=$sched net.mptcp.fuso=$fuso \
				net.mptcp.fuso_rules=$rules || die "cannot set up scheme $1"
		done
	}
	: >"$file"
	for r in $(seq "$runs"); do
		for sc in $SCHEMES; do
			setup "$sc"
			nsx $s mptcpize run iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
			for _ in $(seq 100); do
				nsx $s ss -ltnH "sport = :5201" | grep -q . && break
				sleep 0.1
			done
			rate=$(nsx $c mptcpize run iperf3 -c 10.0.1.2 -p 5201 -R -t "$secs" -J 2>/dev/null |
				python3 -c 'import json, sys
print("%.1f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))') ||
				die "iperf3 failed ($sc, run $r)"
			wait
			printf '%s\t%s\t%s\n' "$sc" "$r" "$rate" >>"$file"
			echo "[bulk-disjoint] run $r/$runs $sc: $rate Mbit/s" >&2
		done
	done
	exit 0
fi

runs=5 secs=4 loss=0 out=$TOP/build/bench/bulk-disjoint
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=${2:?}; shift 2 ;;
	--secs) secs=${2:?}; shift 2 ;;
	--loss) loss=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	*) die "unknown option '$1' (want --runs N, --secs S, --loss P, --out DIR)" ;;
	esac
done
case "$runs$secs" in *[!0-9]*|'') die "--runs and --secs take whole numbers" ;; esac
[ "$runs" -ge 2 ] || die "--runs must be at least 2 (an interval needs two)"
if ! [[ "$loss" =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v l="$loss" 'BEGIN { exit !(l < 100) }'; then
	die "--loss takes a percentage below 100, not '$loss'"
fi
if ! command -v iperf3 >/dev/null || ! command -v mptcpize >/dev/null; then
	die "needs iperf3 and mptcpize (make deps)"
fi
mkdir -p "$out" || die "cannot create $out"
echo "[bulk-disjoint] $runs runs of $secs s per scheme ($SCHEMES), $loss % loss on path 1, in UML, into $out" >&2
"$TOP/scripts/vm" --uml --outdir "$out" -- "$TOP/scripts/bench/bulk-disjoint.sh" \
	--guest "$runs" "$secs" "$loss" "$out/raw.tsv" || die "the guest failed"
/usr/bin/python3 - "$TOP/scripts/bench" "$out/raw.tsv" "$SCHEMES" >"$out/summary.txt" <<'PY' || die "summary failed"
import math, sys
sys.path.insert(0, sys.argv[1])
from analyze import geomean_ci, t975

rate = {}
for line in open(sys.argv[2]):
    sc, run, mbps = line.split()
    rate.setdefault(sc, {})[run] = float(mbps)
print("scheme       runs  Mbit/s (mean, 95 % t interval)   / default (paired on the run)")
for sc in sys.argv[3].split():
    v = list(rate.get(sc, {}).values())
    if len(v) < 2:
        sys.exit(f"bulk-disjoint: fewer than two runs of {sc}")
    m = sum(v) / len(v)
    h = t975(len(v) - 1) * math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v))
    g, lo, hi = geomean_ci([rate[sc][r] / rate["default"][r] for r in rate[sc]])
    print(f"{sc:12} {len(v):4}  {m:6.1f} [{m - h:6.1f}, {m + h:6.1f}]"
          f"          {g:.3f} [{lo:.3f}, {hi:.3f}]" if sc != "default" else
          f"{sc:12} {len(v):4}  {m:6.1f} [{m - h:6.1f}, {m + h:6.1f}]")
PY
cat "$out/summary.txt"
