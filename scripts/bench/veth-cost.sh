#!/bin/bash
# What FUSO costs in CPU at full speed (issue 18): bulk throughput and the
# request/response rate over veth, with no rate limit, no delay and (but
# with --loss) no loss, in real time under QEMU (2 vCPUs).  Nothing but the
# CPU limits them there, so the rate is the inverse of the CPU cost per
# byte or per query.
#
#   scripts/bench/veth-cost.sh [--boots N] [--rounds R] [--secs S]
#                              [--queries Q] [--modes "0 3"] [--loss P]
#                              [--kernels "fuso nofuso"|"nofuso fuso"|fuso]
#                              [--out DIR]
#
# Kernels: the FUSO kernel (make kernel-qemu) and the same tree built with
# CONFIG_MPTCP_FUSO=n (make kernel-nofuso).  Boots alternate between them,
# N of each (default 3).  Each boot runs R rounds (default 3); a round on
# the FUSO kernel runs each load with each net.mptcp.fuso value of --modes
# (default 0 and 3, in turn), on the other kernel once; --kernels fuso
# leaves the FUSO=n kernel out, and "nofuso fuso" boots the FUSO=n
# kernel first in each pair (a check for a bias of the boot order).
# Loads: an unmodified iperf3 made MPTCP with mptcpize, S seconds
# (default 8); and Q sequential exchanges on one MPTCP connection
# (default 1500; fuso_rr.py: 100-byte request, 8 KB response, every
# byte checked).  Two veth paths, one subflow each.
# --loss P (a percentage, 0 to 10, default 0): netem drops P % of the
# packets each way on the second path, the only qdisc on it; with P > 0
# the CPU is no longer the only limit, and the ratios are those of
# throughput under loss.
#
# Output: DIR/raw.tsv (kernel, boot, round, load, fuso, rate, copies) and
# DIR/summary.txt: the ratios fuso=M / fuso=0 (paired on the round),
# FUSO=y with fuso=0 / FUSO=n and with fuso=M / FUSO=n (paired on boot
# and round), geometric mean
# with a 95 % t interval; each also "by boot": each
# boot's rounds averaged first, the interval over the boots (the rounds
# of one boot share its host conditions, so they are not independent).
# A ratio below 1 means less throughput, i.e. more CPU per byte or per
# query.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)

die() { echo "veth-cost: $*" >&2; exit 1; }

# ---- inside the guest: veth-cost.sh --guest KERNEL BOOT ROUNDS SECS QUERIES FILE MODES LOSS
if [ "${1:-}" = --guest ]; then
	kernel=$2 boot=$3 rounds=$4 secs=$5 queries=$6 file=$7 loss=${9:-0}
	read -r -a modes <<<"$8"
	c=vc-c s=vc-s
	rr=$TOP/selftests/net/mptcp/fuso_rr.py
	nsx() { local n=$1; shift; ip netns exec "$n" "$@"; }
	ip netns add $c && ip netns add $s || die "cannot create namespaces"
	for i in 1 2; do
		ip link add e$i netns $c type veth peer name e$i netns $s || die "veth"
		ip -n $c addr add 10.0.$i.1/24 dev e$i
		ip -n $s addr add 10.0.$i.2/24 dev e$i
	done
	for n in $c $s; do
		for d in lo e1 e2; do ip -n $n link set $d up; done
		ip -n $n mptcp limits set subflow 2 add_addr_accepted 2
	done
	ip -n $c mptcp endpoint add 10.0.2.1 dev e2 subflow
	if [ "$loss" != 0 ]; then
		for n in $c $s; do
			nsx $n tc qdisc add dev e2 root netem loss "$loss%" ||
				die "cannot add netem loss $loss% on e2 (is CONFIG_NET_SCH_NETEM set?)"
		done
	fi
	if [ "$kernel" = nofuso ]; then
		[ -e /proc/sys/net/mptcp/fuso ] && die "the FUSO=n kernel has net.mptcp.fuso"
		modes=(-)
	fi
	# FUSO's copies, both ends (the bulk sender is the client)
	copies() { { nsx $c nstat -az MPTcpExtFusoRecovery; nsx $s nstat -az MPTcpExtFusoRecovery; } 2>/dev/null | awk '/FusoRecovery /{n += $2} END {print n + 0}'; }
	setmode() { [ "$1" = - ] || { nsx $c sysctl -qw net.mptcp.fuso="$1" && nsx $s sysctl -qw net.mptcp.fuso="$1"; } || die "cannot set fuso=$1"; }
	waitport() { local i; for i in $(seq 100); do nsx $s ss -ltnH "sport = :$1" | grep -q . && return 0; sleep 0.1; done; die "nothing listens on port $1"; }
	# TCG is slow on the first use of a code path: one short run each first
	setmode "${modes[-1]}"
	nsx $s mptcpize run iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	waitport 5201
	nsx $c mptcpize run iperf3 -c 10.0.1.2 -p 5201 -t 1 >/dev/null 2>&1 || die "warm-up iperf3 failed"
	wait
	port=6000
	for r in $(seq "$rounds"); do
		for m in "${modes[@]}"; do
			setmode "$m"
			c0=$(copies)
			nsx $s mptcpize run iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
			waitport 5201
			bps=$(nsx $c mptcpize run iperf3 -c 10.0.1.2 -p 5201 -t "$secs" -J |
				python3 -c 'import json,sys; print(int(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]))') ||
				die "iperf3 failed (kernel $kernel, fuso $m)"
			wait
			printf '%s\t%s\t%s\tbulk\t%s\t%s\t%s\n' "$kernel" "$boot" "$r" "$m" "$bps" $(($(copies) - c0)) >>"$file"
			echo "  boot $boot round $r fuso $m: bulk $((bps / 1000000)) Mbit/s"
			port=$((port + 1))
			c0=$(copies)
			ip netns exec $s python3 "$rr" server -p $port &
			srv=$!
			waitport $port
			t0=$(date +%s%N)
			nsx $c python3 "$rr" client -p $port -a 10.0.1.2 -n "$queries" -s 8192 >/dev/null ||
				die "fuso_rr.py client failed (kernel $kernel, fuso $m)"
			t1=$(date +%s%N)
			kill $srv 2>/dev/null; wait
			qps=$(( queries * 1000000000000 / (t1 - t0) ))	# milli-queries/s
			printf '%s\t%s\t%s\trr\t%s\t%s\t%s\n' "$kernel" "$boot" "$r" "$m" "$((qps / 1000)).$(printf %03d $((qps % 1000)))" $(($(copies) - c0)) >>"$file"
			echo "  boot $boot round $r fuso $m: $((qps / 1000)) queries/s"
		done
	done
	exit 0
fi

boots=3 rounds=3 secs=8 queries=1500 out=$TOP/build/bench/veth-cost
modes="0 3" kernels="fuso nofuso" loss=0
while [ $# -gt 0 ]; do
	case "$1" in
	--boots|--rounds|--secs|--queries|--modes|--kernels|--loss|--out)
		[ $# -ge 2 ] || die "$1 needs a value" ;;&
	--boots) boots=$2 ;;
	--rounds) rounds=$2 ;;
	--secs) secs=$2 ;;
	--queries) queries=$2 ;;
	--modes) modes=$2 ;;
	--kernels) kernels=$2 ;;
	--loss) loss=$2 ;;
	--out) out=$2 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (--help)" ;;
	esac
	shift 2
done
for v in boots rounds secs queries; do
	[[ "${!v}" =~ ^[1-9][0-9]{0,3}$ ]] || die "--$v wants a whole number from 1 to 9999, not '${!v}'"
done
[[ "$loss" =~ ^(10|[0-9])(\.[0-9]{1,2})?$ ]] && [ "$(echo "$loss" | awk '{ print ($1 <= 10) }')" = 1 ] ||
	die "--loss wants a percentage from 0 to 10, as 1 or 0.5, not '$loss'"
[[ "$modes" =~ ^0( [1-3])+$ ]] || die "--modes wants 0 and then values of 1..3, as \"0 3\", not '$modes'"
case "$kernels" in
"fuso nofuso"|"nofuso fuso"|fuso) ;;
*) die "--kernels wants \"fuso nofuso\", \"nofuso fuso\" or fuso, not '$kernels'" ;;
esac
# Only a directory this script made is emptied.
if [ -e "$out" ]; then
	[ -f "$out/.veth-cost" ] || die "$out exists and was not made by veth-cost.sh: give a new --out"
	rm -f "$out/raw.tsv" "$out/summary.txt" "$out"/boot-*.log
fi
mkdir -p "$out" && touch "$out/.veth-cost" || die "cannot create $out"
out=$(cd "$out" && pwd)
printf 'kernel\tboot\tround\tload\tfuso\trate\tcopies\n' >"$out/raw.tsv"

for b in $(seq "$boots"); do
	for k in $kernels; do
		opt=()
		[ $k = nofuso ] && opt=(--nofuso)
		echo "boot $b of $boots, kernel $k"
		"$TOP/scripts/vm" --qemu "${opt[@]}" --outdir "$out" --timeout 1800 \
			--log "$out/boot-$b-$k.log" -- \
			"$TOP/scripts/bench/veth-cost.sh" --guest $k "$b" "$rounds" "$secs" "$queries" "$out/raw.tsv" "$modes" "$loss" ||
			die "the $k kernel's run failed: $out/boot-$b-$k.log"
	done
done

python3 - "$out/raw.tsv" >"$out/summary.txt" <<'PY' || die "analysis failed"
import math, sys
from collections import defaultdict

# two-sided 95 % t quantiles, df 1..30
T = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
     2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
     2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]

def by_boot(pairs):
    """pairs: (boot, log ratio); each boot's mean, then the interval over
    the boots."""
    per = defaultdict(list)
    for b, x in pairs:
        per[b].append(x)
    return interval([sum(v) / len(v) for v in per.values()]) + (len(per),)

def interval(logs):
    n = len(logs)
    m = sum(logs) / n
    if n < 2:
        return math.exp(m), float("nan"), float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in logs) / (n - 1))
    h = (T[n - 2] if n - 1 <= 30 else 1.96) * sd / math.sqrt(n)
    return math.exp(m), math.exp(m - h), math.exp(m + h)

rate, copies = {}, defaultdict(int)
for line in open(sys.argv[1]).read().splitlines()[1:]:
    k, b, r, load, m, v, c = line.split("\t")
    rate[(k, b, r, load, m)] = float(v)
    copies[(load, m)] += int(c)
print("ratio (geometric mean over pairs, 95 % t interval): above 1 is faster")
for load, unit in (("bulk", "bit/s"), ("rr", "queries/s")):
    keys = [key for key in rate if key[0] == "fuso" and key[3] == load and key[4] == "0"]
    for m in sorted({key[4] for key in rate if key[0] == "fuso"} - {"0"}):
        on = [(b, math.log(rate[(k, b, r, load, m)] / rate[key])) for key in keys
              for (k, b, r, _, _) in [key]]
        g, lo, hi = interval([x for _, x in on])
        print(f"{load:4s} fuso={m} / fuso=0 ({unit}):       {g:.3f} [{lo:.3f}, {hi:.3f}]  n={len(on)}  copies {copies[(load, m)]}")
        g, lo, hi, nb = by_boot(on)
        print(f"       by boot:                    {g:.3f} [{lo:.3f}, {hi:.3f}]  n={nb}")
    off = [(b, math.log(rate[key] / rate[("nofuso", b, r, load, "-")])) for key in keys
           for (k, b, r, _, _) in [key] if ("nofuso", b, r, load, "-") in rate]
    if off:
        g, lo, hi = interval([x for _, x in off])
        print(f"{load:4s} FUSO=y fuso=0 / FUSO=n ({unit}): {g:.3f} [{lo:.3f}, {hi:.3f}]  n={len(off)}")
        g, lo, hi, nb = by_boot(off)
        print(f"       by boot:                    {g:.3f} [{lo:.3f}, {hi:.3f}]  n={nb}")
        # FUSO on against upstream MPTCP, the FUSO=n kernel
        for m in sorted({key[4] for key in rate if key[0] == "fuso"} - {"0"}):
            up = [(key[1], math.log(rate[key] / rate[("nofuso", key[1], key[2], load, "-")]))
                  for key in rate if key[0] == "fuso" and key[3] == load and key[4] == m
                  and ("nofuso", key[1], key[2], load, "-") in rate]
            g, lo, hi = interval([x for _, x in up])
            print(f"{load:4s} FUSO=y fuso={m} / FUSO=n ({unit}): {g:.3f} [{lo:.3f}, {hi:.3f}]  n={len(up)}")
            g, lo, hi, nb = by_boot(up)
            print(f"       by boot:                    {g:.3f} [{lo:.3f}, {hi:.3f}]  n={nb}")
    for m, k in [("-", "nofuso")] + [(m, "fuso") for m in "0123"]:
        v = [rate[key] for key in rate if key[0] == k and key[3] == load and key[4] == m]
        if v:
            print(f"     {k} fuso={m}: mean {sum(v) / len(v):.4g} {unit} over {len(v)} runs")
PY
cat "$out/summary.txt"
echo "raw results: $out/raw.tsv"
