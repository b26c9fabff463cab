#!/bin/bash
# The FUSO benchmark (make bench): the paper's testbed experiments (Figs 2,
# 4a, 4c, 5, 6, 7) and a few of our own, every baseline side by side, in
# UML with virtual time, over seeded, paired replications.
#
#   bench.sh [--quick|--full] [--fig LIST] [--flows N] [--reps R]
#            [--seed N] [--jobs N] [--out DIR] [--dry-run]
#
#   (none)       the default plan (make bench): the headline comparison,
#                every scheme, 10 replications of 1000 queries: Fig 4a
#                at 2 % loss on path 1 (and at 0 %: TCP, DCTCP, MPTCP on
#                both schedulers and FUSO), Fig 4c at 1 % on the access
#                links, bursty loss at 2 % and a 30-sender incast of 30
#                queries; 48 minutes on 2 cores (estimated at 45)
#   --quick      the CI size (make bench QUICK=1): Fig 4a at 2 % loss
#                with 100 queries per scheme, one small incast, and the
#                effect check (Fig 4c at 2 %, MPTCP and FUSO, 1000
#                queries: FUSO must have at most half of MPTCP's queries
#                over the 5 ms minimum RTO); one replication
#   --full       every point of every experiment (make bench FULL=1),
#                3000 queries (Fig 5: 1000), 10 replications; estimated
#                at about 29 hours on 2 cores, 15 of them Fig 5 and 7.5
#                the fat-tree (FULL=1 FIGS=4a,4c: about 6)
#   --fig LIST   only these experiments, e.g. "4a,7", each at fewer
#                points than with --full (load, 5, ft and diag only with
#                --full or --fig; all of 2 4a 4c bursty dm bulk load 5 6
#                7 ft diag untuned with --full).  bursty:
#                Gilbert-Elliott loss on path 1;
#                dm: the data-mining workload, loss on path 1; diag: 4a
#                with a 16-segment window on every MPTCP subflow (not in
#                the paper); load: Fig 4a at 2 % with the query load at
#                1/3 (the default 10 Mbit/s), 10, 30 and 50 % of each
#                client's 1 Gbit/s access link (only with --full or
#                --fig); ft: the paper's §5.3 fat-tree (20 switches, 32
#                hosts: guest.sh, topo=fattree) with 2 % loss on 2 of its
#                32 links between switches, queries beside background
#                flows, seven schemes (only with --full or --fig);
#                bulk: an unmodified iperf3 made MPTCP with
#                mptcpize over two lossy paths, throughput and CPU per
#                byte with FUSO off and on; untuned: hosts with the
#                kernel's own minimum RTO and initial window (200 ms,
#                10), 2-64 KB queries, 1 % random or 2 % bursty loss on
#                path 1; cost: FUSO's CPU cost, bulk and
#                Fig 4a at 0 and 1-2 % loss, each FUSO scheme against its
#                scheduler with FUSO off; effect: the CI's effect check
#                condition alone (calibrate it with --reps 20)
#   --flows N    queries per scheme and replication for Figs 4a, 4c, 7,
#                bursty, dm, diag (default 1000, --full 3000); Fig 5 runs
#                1000 (N if --flows asks for more), Fig 6 N/100 per
#                fanout, Fig 2 N
#   --reps R     replications per point (default 10, --quick 1): each a
#                fresh boot with its own seed, all schemes of a
#                replication on the same seed
#   --seed N     the first replication's seed (default 1); replication r
#                uses N+r.  The seed fixes the guest kernel's RNG
#                (uml_rng_seed=: loss draws, ports, MPTCP keys), the ECMP
#                hash seed and the traffic generator: the same seed gives
#                the same queries (sizes, clients, starts within 1 us);
#                their completion times move by microseconds between
#                boots (Documentation/benchmark.md, "The default plan
#                timed")
#   --jobs N     VMs at a time (default: the number of CPUs)
#   --plan FILE  run the conditions of FILE instead, one per line as
#                plan() below writes them ("FIG COND KEY=VALUE..."), e.g.
#                "4a loss2 loss=2 where=p1 flows=300 schemes=tcp,fuso3"
#   --out DIR    results directory (default build/bench/results); a
#                non-empty DIR is only reused if an earlier run of this
#                script made it
#   --dry-run    print the plan (one condition per line, as --plan reads
#                it) and the estimated time, and run nothing
#
# Results: DIR/fig<F>/<cond>/s<SEED>/ per replication (condition.txt with
# every connection's path, <scheme>/ with per-query CSVs, server records,
# counters, cpu.txt); DIR/summary.csv, summary.md, pairs.csv, bulk.csv,
# bulk.md and fig*.png from scripts/bench/analyze.py, and DIR/data.tar.xz,
# the run's reduced form (per-query CSVs, counter deltas; analyze.py reads
# it back).  Progress, with an estimate of the time left, goes to stderr.
set -u
. "$(dirname "$0")/../lib.sh"

quick= full= figs= flows= reps= seed=1 jobs_n=$(jobs) out=$BUILD/bench/results flows_set= planfile=
dry=
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--dry-run) dry=1 ;;
	--full) full=1 ;;
	--fig|--flows|--reps|--seed|--jobs|--out|--plan)
		[ $# -ge 2 ] && [ -n "$2" ] || die "bench: $1 needs a value (see --help)"
		case "$1" in
		--fig) figs=$(echo "$2" | tr ',' ' ') ;;
		--flows) flows=$2 flows_set=1 ;;
		--reps) reps=$2 ;;
		--seed) seed=$2 ;;
		--jobs) jobs_n=$2 ;;
		--out) out=$2 ;;
		--plan) planfile=$2 ;;
		esac
		shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "bench: unknown option '$1' (see --help)" ;;
	esac
	shift
done
[ -z "$quick" ] || [ -z "$full" ] || die "bench: --quick and --full exclude each other"
[ -z "$planfile" ] || [ -f "$planfile" ] || die "bench: --plan: no file '$planfile'"
[ -z "$planfile" ] || [ -z "$quick$full$figs" ] || die "bench: --plan excludes --quick, --full and --fig"
: "${flows:=$([ -n "$full" ] && echo 3000 || echo 1000)}"
: "${reps:=$([ -n "$quick" ] && echo 1 || echo 10)}"
for v in "flows=$flows" "reps=$reps" "seed=$seed" "jobs=$jobs_n"; do
	case "${v#*=}" in ''|*[!0-9]*) die "bench: --${v%%=*} wants a whole number, not '${v#*=}'" ;; esac
done
[ "$flows" -ge 10 ] || die "bench: --flows must be at least 10"
[ "$reps" -ge 1 ] || die "bench: --reps must be at least 1"
[ "$jobs_n" -ge 1 ] || die "bench: --jobs must be at least 1"
[ "$seed" -ge 1 ] || die "bench: --seed must be at least 1"
for f in $figs; do
	case "$f" in 2|4a|4c|5|6|7|ft|diag|bursty|dm|bulk|load|untuned|effect|cost) ;;
	*) die "bench: unknown experiment '$f' (want 2 4a 4c bursty dm bulk load 5 6 7 ft diag untuned effect cost)" ;;
	esac
done

# The plan: one line per condition, "FIG COND KEY=VALUE...".  The default
# plan is the headline comparison (10 replications, about 45 minutes on
# 2 cores); --fig runs the experiments asked for at fewer points than
# --full, which runs every point (Fig 5, load and diag only with --full
# or --fig).
plan() {
	local l f s
	if [ -n "$planfile" ]; then
		grep -v '^[[:space:]]*\(#\|$\)' "$planfile"
		return
	fi
	# every claim of the README's table over 10 replications in about
	# 45 minutes: one point of each loss, the cost without loss against
	# the schemes that pay nothing for it, and an incast with enough
	# queries that its p99 is not its slowest (30 a run, 300 in all);
	# bulk (FIGS=bulk) and the other figures on request
	if [ -z "$quick$figs$full" ]; then
		echo "4a loss0 loss=0 where=p1 flows=$flows schemes=tcp,dctcp,mptcp,mptcp-window,fuso3"
		echo "4a loss2 loss=2 where=p1 flows=$flows"
		echo "4c loss1 loss=1 where=access flows=$flows"
		echo "bursty loss2 loss=2 lossmodel=gemodel where=p1 flows=$flows"
		echo "6 fanout30 fanout=30 flows=$(((flows * 3 + 99) / 100))"
		return
	fi
	if [ -n "$quick" ]; then
		echo "4a loss2 loss=2 where=p1 flows=100"
		echo "6 fanout10 fanout=10 flows=3"
		echo "4c loss2 loss=2 where=access flows=1000 schemes=mptcp,fuso3"
		return
	fi
	local all=$figs
	[ -n "$all" ] || all="2 4a 4c bursty dm bulk load 5 6 7 ft diag untuned"
	# Fig 5: 1000 queries per load (its background makes it the most
	# expensive experiment), more only when --flows asks for more
	local fl5=1000
	[ -n "$flows_set" ] && [ "$flows" -gt 1000 ] && fl5=$flows
	for f in $all; do
		case "$f" in
		2)	# TCP's timeout probability against loss and flow size,
			# loss on the servers' access links (every flow crosses
			# one lossy link each way)
			for s in 10000 100000; do
				for l in $([ -n "$full" ] && echo 0.5 1 2 4 8 || echo 1 4); do
					echo "2 size$((s / 1000))k-loss$l loss=$l where=access size=$s flows=$flows schemes=tcp,tcp-notlp"
				done
			done ;;
		# --fig's points are fewer than --full's, and make up for the
		# eleven schemes (dctcp, tcp-prr and mptcp-window joined the
		# eight in issue 40)
		4a) for l in $([ -n "$full" ] && echo 0 0.125 0.25 0.5 1 2 4 || echo 1 2 4); do
			echo "4a loss$l loss=$l where=p1 flows=$flows"
		    done ;;
		4c) for l in $([ -n "$full" ] && echo 0.125 0.25 0.5 1 2 4 || echo 1 2); do
			echo "4c loss$l loss=$l where=access flows=$flows"
		    done ;;
		bursty) for l in $([ -n "$full" ] && echo 1 2 4 || echo 2); do
			echo "bursty loss$l loss=$l lossmodel=gemodel where=p1 flows=$flows"
		    done ;;
		dm) for l in $([ -n "$full" ] && echo 0 1 2 4 || echo 2); do
			echo "dm loss$l loss=$l where=p1 dist=datamining flows=$flows"
		    done ;;
		# bulk throughput and CPU per byte, FUSO off and on: an
		# unmodified iperf3 through mptcpize, 5 s, loss on paths 1 and 2
		bulk) for l in $([ -n "$full" ] && echo 0 0.5 1 2 || echo 0 1); do
			echo "bulk loss$l loss=$l where=p12 bulk=5 schemes=mptcp,mptcp-window,fuso3"
		   done ;;
		# the query load itself (qload: Mbit/s over the three
		# clients, so 30 is 1 % of each one's access link)
		load) [ -n "$full" ] || [ -n "$figs" ] || continue
		   for l in 10 300 900 1500; do
			echo "load qload$l loss=2 where=p1 qload=$l flows=$flows"
		   done ;;
		5) [ -n "$full" ] || [ -n "$figs" ] || continue
		   for l in 0.1 0.3 0.5 0.7 0.9; do
			echo "5 load$l loss=2 where=p1 bgload=$l qload=50 flows=$fl5"
		   done ;;
		6) for l in $([ -n "$full" ] && echo 10 30 50 70 || echo 10 30); do
			echo "6 fanout$l fanout=$l flows=$(((flows + 99) / 100))"
		   done ;;
		7) for l in 1 2 4 8; do
			echo "7 sub$l loss=2 where=p1 nsub=$l flows=$flows schemes=mptcp,fuso3"
		   done ;;
		# the paper's larger topology (§5.3, Fig 8), at 32 hosts
		# (4 under each ToR) instead of 64, the largest that runs a
		# point in about an hour: 2 % loss on 2 of the 32 links
		# between switches (the paper: 5 % of the links), 8 subflows,
		# queries at 5 % of each server's access link beside
		# background flows at 20 % of each client's; the baselines a
		# data center runs (seven schemes: setting up a scheme's 52
		# namespaces and 512 connections costs about a minute)
		ft) [ -n "$full" ] || [ -n "$figs" ] || continue
		    for l in $([ -n "$full" ] && echo 0 1 2 4 || echo 2); do
			echo "ft h32-loss$l topo=fattree hpt=4 loss=$l lossy=2 where=fabric nsub=8 qload=800 bgload=0.2 flows=$flows schemes=tcp,dctcp,tcp-prr,mptcp,fuso3,repflow,proactive"
		    done ;;
		# hosts nobody tuned (issue 39's report): the kernel's own
		# minimum RTO (200 ms) and initial window (10, on every
		# connection and every subflow), short queries (2-64 KB), 1 %
		# random loss or 2 % bursty loss on path 1 beside two clean
		# paths; the baselines a data center runs
		untuned) for m in "loss1 loss=1" "bursty2 loss=2 lossmodel=gemodel"; do
			echo "untuned ${m%% *} ${m#* } where=p1 dist=small rtomin=linux iw=linux flows=$flows schemes=tcp,dctcp,tcp-prr,mptcp,mptcp-window,fuso3"
		   done ;;
		# not in the paper: Fig 4a's 1% and 2% with an initial window of
		# 16 on every subflow instead of 16/4, to separate what FUSO
		# does from what upstream MPTCP's scheduling costs small flows
		# the CI's effect check alone (calibrate it with --reps 20)
		effect) echo "4c loss2 loss=2 where=access flows=$flows schemes=mptcp,fuso3" ;;
		# what FUSO costs in CPU: each scheme against the same scheduler
		# with FUSO off (analyze.py: cpu_off, cpu_user_off), bulk and
		# request/response, with and without loss (Documentation/
		# testing.md, issue 18)
		cost) echo "bulk cost-loss0 loss=0 where=p12 bulk=5 schemes=mptcp,mptcp-window,fuso3"
		      echo "bulk cost-loss1 loss=1 where=p12 bulk=5 schemes=mptcp,mptcp-window,fuso3"
		      echo "4a cost-loss0 loss=0 where=p1 flows=$flows schemes=mptcp,mptcp-window,fuso3-paper,fuso3"
		      echo "4a cost-loss2 loss=2 where=p1 flows=$flows schemes=mptcp,mptcp-window,fuso3-paper,fuso3" ;;
		diag) [ -n "$full" ] || [ -n "$figs" ] || continue
		   for l in 1 2; do
			echo "diag iw16-loss$l loss=$l where=p1 iwsub=16 flows=$flows schemes=mptcp,fuso1,fuso3"
		   done ;;
		esac
	done
}

# Cost of a condition in "query-scheme" units, for the time estimate
weight() { # ARGS...
	local kv fl=300 sch=11 bg=0 fan=0 fh=0 set=200 ft= hpt=2 # guest.sh's default: eleven schemes
	for kv in "$@"; do
		case "$kv" in
		topo=fattree) ft=1 ;;
		hpt=*) hpt=${kv#*=} ;;
		flows=*) fl=${kv#*=} ;;
		schemes=*) sch=$(echo "${kv#*=}" | tr ',' ' ' | wc -w) ;;
		bgload=*) bg=${kv#*=} ;;
		fanout=*) fan=${kv#*=} ;;
		fanhosts=*) fh=${kv#*=} ;;
		bulk=*) fl=$((${kv#*=} * 400)) ;;
		esac
	done
	# a host per incast sender costs about twice as much per query
	# (incast-44: 105 min for 134 600 units at this weight)
	[ "$fan" != 0 ] && fl=$((fl * fan * (fh == 1 ? 2 : 1)))
	# the fat-tree's setup, HPT hosts under each of its 8 ToRs: about
	# 25 s of one core a scheme with 2, 100 with 8 (Documentation/
	# benchmark.md, "The paper's larger topology")
	[ -n "$ft" ] && set=$((1400 * hpt))
	awk -v f="$fl" -v s="$sch" -v b="$bg" -v u="$set" 'BEGIN { printf "%d", (u + f * (1 + 20 * b)) * s }'
}

mapfile -t conds < <(plan)
jobs_l=() total_w=0
for line in "${conds[@]}"; do
	read -r fig cond args <<<"$line"
	# shellcheck disable=SC2086
	w=$(weight $args)
	for ((r = 0; r < reps; r++)); do
		jobs_l+=("$((seed + r)) $w $line")
		total_w=$((total_w + w))
	done
done
log "bench: ${#conds[@]} conditions x $reps replication(s) = ${#jobs_l[@]} runs (seeds $seed..$((seed + reps - 1))), $jobs_n VM(s) at a time, results in $out"
# The time, before it starts: SEC_PER_W seconds of one core per weight
# unit, the mean of the headline run's two runs on the same 2-core
# machine (Documentation/benchmark.md, "The headline run": 1 056 000
# units in 74 and 92 minutes with 2 VMs, 0.0084 and 0.0105; the load
# experiment's 0.0076 was the fastest seen)
SEC_PER_W=0.0094
log "bench: estimated $(awk -v w="$total_w" -v k="$SEC_PER_W" -v j="$jobs_n" -v c="$(nproc)" \
	'BEGIN { n = j < c ? j : c; printf "%.0f", w * k / n / 60 }') min on $(nproc) cores (the estimate is refined as the runs end)"

if [ -n "$dry" ]; then
	printf '%s\n' "${conds[@]}"
	exit 0
fi

# --out: refuse what this script did not make, before it writes anything
[ ! -e "$out" ] || [ -d "$out" ] || die "bench: --out $out is not a directory"
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ] && [ ! -f "$out/.fuso-bench" ]; then
	die "bench: --out $out exists and is not empty, and no earlier benchmark run made it: refusing to delete it (give a new or empty directory)"
fi

uml=$(obj_dir "$SRC" uml)/linux
[ -x "$uml" ] || die "bench: no UML kernel at $uml (make kernel-uml)"
TG=$BUILD/bench/fuso-tg
mkdir -p "$BUILD/bench"
# built aside and renamed into place: a benchmark already running from the
# same build directory keeps executing the old file, never a half-written
# one (a second run once failed a replication of the first that way:
# "exec of fuso-tg failed: Permission denied")
gcc -O2 -Wall -Wextra -o "$TG.$$" "$TOP/scripts/bench/fuso-tg.c" -lm -lpthread ||
	{ rm -f "$TG.$$"; die "bench: building the traffic generator failed"; }
mv -f "$TG.$$" "$TG" || die "bench: cannot put the traffic generator in place at $TG"

# The results directory: made here, or made by an earlier run (marker)
mkdir -p "$out" || die "bench: cannot create $out"
touch "$out/.fuso-bench"
# one run at a time in a directory: the lock is held by this script and
# inherited by its VMs, so a run whose script was killed still holds it
# until its last VM is gone
exec {lockfd}>>"$out/.fuso-bench"
flock -n "$lockfd" || die "bench: another benchmark run is still writing to $out (or its VMs are still running)"
find "$out" -mindepth 1 -maxdepth 1 ! -name .fuso-bench -exec rm -rf {} +
out=$(cd "$out" && pwd)
case "$out" in *[[:space:]]*) die "bench: --out must not contain white space ($out)" ;; esac
# Every VM boots this run's own copy of the kernel: a rebuild during a
# long run would otherwise give its later conditions another kernel
# (and the copy records what was measured).
cp "$uml" "$out/linux" || die "bench: cannot copy the kernel into $out"
uml=$out/linux

# CPU cost: each guest runs in its own cpuacct cgroup (v1), and a watcher
# reads the cgroup's CPU time when the guest marks the start and the end
# of a scheme's measured phase (guest.sh: SCHEME/cpu.begin, cpu.end).
# Under time-travel the guest's work, kernel and applications, is all host
# CPU time.  cpu_s is all of it; cpu_user_s its host user-mode part, the
# instructions of the guest's kernel and applications.  The rest, host
# system time, is UML's machinery (ptrace, signals, page tables) for the
# guest's context switches and system calls, which costs tens of times
# what it does on hardware: cpu_s weighs wake-ups far more than a real
# machine would, cpu_user_s leaves them out.  Without a writable cgroup
# there is no cpu.txt (and no CPU column).
CG=/sys/fs/cgroup/cpuacct
cg_ok=
if [ -w "$CG" ] && mkdir "$CG/fuso-bench-probe-$$" 2>/dev/null; then
	rmdir "$CG/fuso-bench-probe-$$"
	cg_ok=1
else
	log "bench: no writable cpuacct cgroup ($CG): no CPU cost column"
fi

# cpu_watch DIR CGROUP PARENT: until PARENT is gone (run_job kills it when
# the guest exits), turn the guest's markers into DIR/SCHEME/cpu.txt
# ("cpu_s SECONDS" and "cpu_user_s SECONDS" of the measured phase)
cpu_watch() {
	local d=$1 cg=$2 parent=$3 f u fd
	exec {fd}<> <(:)
	while kill -0 "$parent" 2>/dev/null; do
		for f in "$d"/*/cpu.begin "$d"/*/cpu.end; do
			[ -e "$f" ] && [ ! -e "$f.ns" ] || continue
			u="$(cat "$cg/cpuacct.usage") $(cat "$cg/cpuacct.usage_user")"
			echo "$u" >"$f.ns"
		done
		for f in "$d"/*/cpu.end.ns; do
			[ -e "$f" ] && [ ! -e "${f%/cpu.end.ns}/cpu.txt" ] || continue
			echo "$(cat "${f%/cpu.end.ns}/cpu.begin.ns") $(cat "$f")" |
				awk '{ printf "cpu_s %.3f\ncpu_user_s %.3f\n", ($3 - $1) / 1e9, ($4 - $2) / 1e9 }' \
				>"${f%/cpu.end.ns}/cpu.txt"
		done
		read -rt 0.02 -u "$fd" _ || :
	done
}

# run_job INDEX "SEED WEIGHT FIG COND ARGS..."
run_job() {
	local i=$1 s w fig cond args d t0 rc cg= wpid=
	read -r s w fig cond args <<<"$2"
	d=$out/fig$fig/$cond/s$s
	mkdir -p "$d"
	t0=$(date +%s)
	if [ -n "$cg_ok" ]; then
		cg=$CG/fuso-bench-$$-$i
		mkdir "$cg" && { cpu_watch "$d" "$cg" "$BASHPID" & wpid=$!; }
	fi
	# shellcheck disable=SC2086
	(
		[ -z "$cg" ] || echo "$BASHPID" >"$cg/cgroup.procs"
		exec "$TOP/scripts/vm" --uml --kernel "$uml" --mem 3G --timeout 5400 --outdir "$d" \
			--append "uml_rng_seed=$s time-travel-start=1700000000000000000" -- \
			"$TOP/scripts/bench/guest.sh" "$d" tg="$TG" seed="$s" $args
	) >"$d/vm.log" 2>&1
	rc=$?
	if [ -n "$wpid" ]; then
		sleep 0.1
		kill "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
		rmdir "$cg" 2>/dev/null || log "bench: could not remove the cgroup $cg"
	fi
	echo "$rc $(($(date +%s) - t0))" >"$d/.job"
	return $rc
}

t_start=$(date +%s)
failed=0 i=0 done_w=0 ndone=0 running=0
declare -A pid_job=()
finish() { # PID RC
	local j=${pid_job[$1]} s w fig cond el left
	read -r s w fig cond _ <<<"${jobs_l[$j]}"
	unset "pid_job[$1]"
	running=$((running - 1))
	ndone=$((ndone + 1))
	done_w=$((done_w + w))
	el=$(($(date +%s) - t_start))
	left=$(awk -v e="$el" -v d="$done_w" -v t="$total_w" 'BEGIN { printf "%d", e / d * (t - d) / 60 + 0.5 }')
	if [ "$2" = 0 ]; then
		log "[$ndone/${#jobs_l[@]}] fig $fig $cond s$s: done in $(cut -d' ' -f2 "$out/fig$fig/$cond/s$s/.job" 2>/dev/null) s; $((el / 60)) min so far, about $left min left"
	else
		failed=$((failed + 1))
		log "[$ndone/${#jobs_l[@]}] fig $fig $cond s$s: FAILED (exit $2); see $out/fig$fig/$cond/s$s/vm.log"
		tail -n 15 "$out/fig$fig/$cond/s$s/vm.log" | sed 's/^/   | /' >&2
	fi
}
wait_one() {
	local p rc
	wait -n -p p
	rc=$?
	finish "$p" "$rc"
}
for ((i = 0; i < ${#jobs_l[@]}; i++)); do
	[ "$running" -lt "$jobs_n" ] || wait_one
	run_job "$i" "${jobs_l[$i]}" &
	pid_job[$!]=$i
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait_one
done
log "bench: all runs took $(($(date +%s) - t_start)) s ($failed failed)"

# the reduced form (analyze.py --reduce) is what Documentation/bench/
# keeps of a published run: analyze.py reads it back into the same tables
aargs=(--reduce "$out/data.tar.xz")
[ -n "$quick" ] && aargs+=(--effect-check 4c/loss2)
/usr/bin/python3 "$TOP/scripts/bench/analyze.py" "$out" "${aargs[@]}" || die "bench: the analysis or a check failed (above)"
[ "$failed" = 0 ] || die "bench: $failed run(s) failed (logs above)"
log "bench: summary in $out/summary.md and summary.csv, FUSO against the others in $out/pairs.csv, plots in $out/*.png, the reduced form in $out/data.tar.xz"
