#!/bin/bash
# Bulk throughput over two disjoint bottlenecks: an unmodified iperf3
# made MPTCP with mptcpize.  By default (--aqm red) four subflows (two per
# path), each path 100 Mbit/s with 100 us of delay per direction and a
# RED queue that marks ECN from 30 KB, as the FUSO benchmark's ports do.
# Unlike the benchmark's bulk test, where every subflow crosses the
# receiver's one access link, here each path is its own bottleneck: a
# scheduler that backs the connection off as one flow would keep it to
# one path's rate.  With --aqm droptail: one subflow per path, netem's
# rate and a 1000-packet drop-tail queue, no ECN (issue 39's check of
# the window-bounded pushing).
#
#   scripts/bench/bulk-disjoint.sh [--runs N] [--secs S] [--loss P]
#                                  [--aqm red|droptail] [--rate MBIT]
#                                  [--delay US] [--schemes "A B ..."]
#                                  [--out DIR]
#
# Runs in UML (virtual time, make kernel-uml).  Schemes, each N times in
# turn (default 5), S seconds each (default 4), with P % random loss on
# path 1 towards the client (default 0), each path MBIT Mbit/s (default
# 100) with US microseconds of delay each way (default 100): "default"
# (upstream's scheduler, FUSO off), "fuso" (net.mptcp.fuso=3 alone, on
# the default scheduler), "window" (the window scheduler, FUSO on),
# "window-r47" (the same without the scheduling rules SCHED_CAUTIOUS and
# SPREAD_TIMERS) and "mptcp-window" (the
# window scheduler, FUSO off); default schemes: "default fuso window-r47".
# Output: DIR/raw.tsv (scheme, run, Mbit/s) and DIR/summary.txt: the
# mean throughput of each with a 95 % t interval and its ratio to
# "default" paired on the run (default DIR: build/bench/bulk-disjoint).
# CPU costs nothing in UML's virtual time: scripts/bench/veth-cost.sh
# measures the CPU per byte, in real time.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)

die() { echo "bulk-disjoint: $*" >&2; exit 1; }

ALL_SCHEMES="default fuso window window-r47 mptcp-window"

# ---- inside the guest: bulk-disjoint.sh --guest RUNS SECS LOSS FILE AQM RATE DELAY SCHEMES
if [ "${1:-}" = --guest ]; then
	runs=$2 secs=$3 loss=$4 file=$5 aqm=$6 rate=$7 delay=$8 schemes=$9
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
			if [ "$aqm" = droptail ]; then
				nsx "$n" tc qdisc add dev "$d" root netem delay "${delay}us" \
					rate "${rate}mbit" limit 1000 "${lossopt[@]}" ||
					die "tc: no netem in this kernel"
			elif ! { nsx "$n" tc qdisc add dev "$d" root handle 1: netem delay "${delay}us" limit 10000 "${lossopt[@]}" &&
			       nsx "$n" tc qdisc add dev "$d" parent 1:1 handle 10: tbf rate "${rate}mbit" burst 3000 limit 200000 &&
			       nsx "$n" tc qdisc add dev "$d" parent 10:1 handle 20: red limit 131072 min 30000 max 32768 \
					avpkt 1500 burst 21 probability 1.0 bandwidth "${rate}mbit" ecn; }; then
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
	# path 2; with droptail one on each path
	if [ "$aqm" = droptail ]; then
		ip -n $c mptcp endpoint add 10.0.2.1 dev c2 subflow
	else
		ip -n $c mptcp endpoint add 10.0.1.3 dev c1 subflow
		ip -n $c mptcp endpoint add 10.0.2.1 dev c2 subflow
		ip -n $c mptcp endpoint add 10.0.2.3 dev c2 subflow
	fi
	setup() {	# SCHEME
		local sched=window fuso=3 rules=82
		case "$1" in
		default) sched=default fuso=0 ;;
		fuso) sched=default ;;
		window-r47) rules=47 ;;
		mptcp-window) fuso=0 ;;
		esac
		for n in $c $s; do
			nsx "$n" sysctl -qw net.mptcp.scheduler=$sched net.mptcp.fuso=$fuso \
				net.mptcp.fuso_rules=$rules || die "cannot set up scheme $1"
		done
	}
	: >"$file"
	for r in $(seq "$runs"); do
		for sc in $schemes; do
			setup "$sc"
			nsx $s mptcpize run iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
			for _ in $(seq 100); do
				nsx $s ss -ltnH "sport = :5201" | grep -q . && break
				sleep 0.1
			done
			mbps=$(nsx $c mptcpize run iperf3 -c 10.0.1.2 -p 5201 -R -t "$secs" -J 2>/dev/null |
				python3 -c 'import json, sys
print("%.1f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))') ||
				die "iperf3 failed ($sc, run $r)"
			wait
			printf '%s\t%s\t%s\n' "$sc" "$r" "$mbps" >>"$file"
			echo "[bulk-disjoint] run $r/$runs $sc: $mbps Mbit/s" >&2
		done
	done
	exit 0
fi

runs=5 secs=4 loss=0 aqm=red rate=100 delay=100 schemes="default fuso window-r47"
out=$TOP/build/bench/bulk-disjoint
while [ $# -gt 0 ]; do
	case "$1" in
	--runs|--secs|--loss|--aqm|--rate|--delay|--schemes|--out)
		[ $# -ge 2 ] || die "$1 needs a value" ;;&
	--runs) runs=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	--loss) loss=$2; shift 2 ;;
	--aqm) aqm=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--delay) delay=$2; shift 2 ;;
	--schemes) schemes=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) die "unknown option '$1' (want --runs N, --secs S, --loss P, --aqm red|droptail, --rate MBIT, --delay US, --schemes LIST, --out DIR)" ;;
	esac
done
case "$runs$secs$rate$delay" in
*[!0-9]*|'') die "--runs, --secs, --rate and --delay take whole numbers" ;;
esac
[ "$rate" -ge 1 ] || die "--rate must be at least 1 Mbit/s"
case "$aqm" in red|droptail) ;; *) die "--aqm takes red or droptail, not '$aqm'" ;; esac
read -r -a sch <<<"$schemes"
[ "${sch[0]:-}" = default ] || die "--schemes must start with default (the ratios' reference)"
for sc in "${sch[@]}"; do
	[[ " $ALL_SCHEMES " = *" $sc "* ]] || die "unknown scheme '$sc' (want some of: $ALL_SCHEMES)"
done
[ "$runs" -ge 2 ] || die "--runs must be at least 2 (an interval needs two)"
if ! [[ "$loss" =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v l="$loss" 'BEGIN { exit !(l < 100) }'; then
	die "--loss takes a percentage below 100, not '$loss'"
fi
# 0.0 is no loss: no loss option on netem at all, as with 0
awk -v l="$loss" 'BEGIN { exit !(l + 0 == 0) }' && loss=0
if ! command -v iperf3 >/dev/null || ! command -v mptcpize >/dev/null; then
	die "needs iperf3 and mptcpize (make deps)"
fi
mkdir -p "$out" || die "cannot create $out"
echo "[bulk-disjoint] $runs runs of $secs s per scheme ($schemes), $aqm, $rate Mbit/s and $delay us each way per path, $loss % loss on path 1, in UML, into $out" >&2
"$TOP/scripts/vm" --uml --outdir "$out" -- "$TOP/scripts/bench/bulk-disjoint.sh" \
	--guest "$runs" "$secs" "$loss" "$out/raw.tsv" "$aqm" "$rate" "$delay" "$schemes" ||
	die "the guest failed"
/usr/bin/python3 - "$TOP/scripts/bench" "$out/raw.tsv" "$schemes" >"$out/summary.txt" <<'PY' || die "summary failed"
import math, sys
sys.path.insert(0, sys.argv[1])
from analyze import geomean_ci, t975

rate = {}
for line in open(sys.argv[2]):
    sc, run, mbps = line.split()
    rate.setdefault(sc, {})[run] = float(mbps)


def mean_ci(v):
    m = sum(v) / len(v)
    h = t975(len(v) - 1) * math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v))
    return f"{m:7.1f} [{m - h:7.1f}, {m + h:7.1f}]"


def ratio(d, sc):
    if sc == "default":
        return " " * 22
    g, lo, hi = geomean_ci([d[sc][r] / d["default"][r] for r in d[sc]])
    return f"{g:.3f} [{lo:.3f}, {hi:.3f}]"


print("scheme        runs  Mbit/s (mean, 95 % t)     / default (paired on the run)")
for sc in sys.argv[3].split():
    v = list(rate.get(sc, {}).values())
    if len(v) < 2:
        sys.exit(f"bulk-disjoint: fewer than two runs of {sc}")
    print(f"{sc:12} {len(v):4}  {mean_ci(v)}  {ratio(rate, sc)}")
PY
cat "$out/summary.txt"
