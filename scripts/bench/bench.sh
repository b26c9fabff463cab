#!/bin/bash
# The FUSO benchmark (make bench): the paper's testbed experiments (Figs 4a,
# 4c, 5, 6, 7) with every baseline side by side, in UML with virtual time.
#
#   bench.sh [--quick] [--fig LIST] [--flows N] [--jobs N] [--out DIR]
#
#   --quick      the CI size: Fig 4a at 2% loss with 100 queries per
#                scheme, and one small incast; checks that every scheme
#                produced results (make bench QUICK=1)
#   --fig LIST   only these experiments, e.g. "4a,7" (default: all of
#                4a 7 5 6 4c diag, in this order; diag is not in the
#                paper: 4a at 1% and 2% with a 16-segment initial window
#                on every MPTCP subflow)
#   --flows N    queries per scheme and condition for Figs 4a, 4c and 7
#                (default 1000; Fig 5 uses N/4, Fig 6 N/100 per fanout)
#   --jobs N     VMs at a time (default: the number of CPUs)
#   --out DIR    results directory (default build/bench/results)
#
# Every condition boots the UML kernel once and runs every scheme in it on
# a fresh testbed (scripts/bench/guest.sh).  Results: DIR/<fig>/<cond>/
# <scheme>/ with per-flow CSVs and counters; DIR/summary.csv, summary.md
# and fig*.png from scripts/bench/analyze.py.  Progress goes to stderr.
set -u
. "$(dirname "$0")/../lib.sh"

quick= figs="4a 7 5 6 4c diag" flows=1000 jobs_n=$(jobs) out=$BUILD/bench/results
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--fig) figs=$(echo "$2" | tr ',' ' '); shift ;;
	--flows) flows=$2; shift ;;
	--jobs) jobs_n=$2; shift ;;
	--out) out=$2; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "bench: unknown option '$1' (see --help)" ;;
	esac
	shift
done
case "$flows$jobs_n" in *[!0-9]*|'') die "bench: --flows and --jobs want numbers" ;; esac
[ "$flows" -ge 10 ] || die "bench: --flows must be at least 10"
[ "$jobs_n" -ge 1 ] || die "bench: --jobs must be at least 1"
for f in $figs; do
	case "$f" in 4a|4c|5|6|7|diag) ;; *) die "bench: unknown experiment '$f' (want 4a 4c 5 6 7 diag)" ;; esac
done

uml=$(obj_dir "$SRC" uml)/linux
[ -x "$uml" ] || die "bench: no UML kernel at $uml (make kernel-uml)"
TG=$BUILD/bench/fuso-tg
mkdir -p "$BUILD/bench"
gcc -O2 -Wall -Wextra -o "$TG" "$TOP/scripts/bench/fuso-tg.c" -lm -lpthread ||
	die "bench: building the traffic generator failed"

# The plan: one line per condition: "FIG COND KEY=VALUE..."
plan() {
	local l f
	if [ -n "$quick" ]; then
		echo "4a loss2 loss=2 where=p1 flows=100"
		echo "6 fanout10 fanout=10 flows=3"
		return
	fi
	for f in $figs; do
		case "$f" in
		4a) for l in 0 0.125 0.25 0.5 1 2 4; do echo "4a loss$l loss=$l where=p1 flows=$flows"; done ;;
		4c) for l in 0.125 0.25 0.5 1 2 4; do echo "4c loss$l loss=$l where=access flows=$flows"; done ;;
		5) for l in 0.1 0.3 0.5 0.7 0.9; do
			echo "5 load$l loss=2 where=p1 bgload=$l qload=50 flows=$((flows / 4))"
		   done ;;
		6) for l in 10 30 50 70; do
			echo "6 fanout$l fanout=$l flows=$(((flows + 99) / 100))"
		   done ;;
		7) for l in 1 2 4 8; do
			echo "7 sub$l loss=2 where=p1 nsub=$l flows=$flows schemes=mptcp,fuso3"
		   done ;;
		# not in the paper: Fig 4a's 1% and 2% with an initial window of
		# 16 on every subflow instead of 16/4, to separate what FUSO
		# does from what upstream MPTCP's scheduling costs small flows
		diag) for l in 1 2; do
			echo "diag iw16-loss$l loss=$l where=p1 iwsub=16 flows=$flows schemes=mptcp,fuso1,fuso3"
		   done ;;
		esac
	done
}

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
mapfile -t conds < <(plan)
log "bench: ${#conds[@]} conditions, $jobs_n VM(s) at a time, results in $out"

run_cond() { # INDEX LINE
	local i=$1 fig cond args d t0 rc
	read -r fig cond args <<<"$2"
	d=$out/fig$fig/$cond
	mkdir -p "$d"
	t0=$(date +%s)
	log "[$i/${#conds[@]}] fig $fig $cond: started"
	# shellcheck disable=SC2086
	"$TOP/scripts/vm" --uml --mem 3G --timeout 5400 --outdir "$d" -- \
		"$TOP/scripts/bench/guest.sh" "$d" tg="$TG" $args \
		>"$d/vm.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		log "[$i/${#conds[@]}] fig $fig $cond: done in $(($(date +%s) - t0)) s"
	else
		log "[$i/${#conds[@]}] fig $fig $cond: FAILED (exit $rc) after $(($(date +%s) - t0)) s; see $d/vm.log"
		tail -n 15 "$d/vm.log" | sed 's/^/   | /' >&2
	fi
	return $rc
}

t_start=$(date +%s)
failed=0 i=0 running=0
for line in "${conds[@]}"; do
	i=$((i + 1))
	if [ "$running" -ge "$jobs_n" ]; then
		wait -n || failed=$((failed + 1))
		running=$((running - 1))
	fi
	run_cond "$i" "$line" &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n || failed=$((failed + 1))
	running=$((running - 1))
done
log "bench: all conditions ran in $(($(date +%s) - t_start)) s ($failed failed)"

/usr/bin/python3 "$TOP/scripts/bench/analyze.py" "$out" || die "bench: the analysis failed"
[ "$failed" = 0 ] || die "bench: $failed condition(s) failed (logs above)"
log "bench: summary in $out/summary.md, plots in $out/*.png"
