#!/bin/bash
# The whole test suite (make test).  Each step's output goes to
# build/test-logs/STEP.log; a failing step prints its log's tail.  The
# suite prints an estimate of its time before it starts, a table of its
# steps' times at the end, and a 'N passed, N failed' line; it fails if
# any step did.
#
# On 2 cores the suite overlaps what can overlap: once the UML kernel and
# the kselftests are built, the UML steps (one core: UML runs a guest on
# one host thread, in virtual time, so the host's load does not change
# their results) run in a second lane beside the x86 lane.  make test
# compiles one x86 kernel, the debug one (KASAN, lockdep, kmemleak), which
# the runner, KUnit, W=1 and make deb use; the series check builds on the
# UML kernel's config, whose final kernel build-uml left in ccache and
# where a commit that changes include/net/mptcp.h rebuilds in 67 s cold
# what takes 171 s on the debug config.  The steps that run in real time
# under QEMU with time bounds (the debug kernel's tests; with --full also the KCSAN kernel's and the
# upstream selftests) run last, alone on the machine.  A cold make test
# is meant to fit 45 minutes on 2 cores (it took 43 at 60875cf:
# Documentation/testing.md), so the plain QEMU kernel and the KCSAN kernel
# are in make test-full, make test-kcsan and their own make targets.
#
#   test.sh [STEP...]   run only these steps, one after the other
#                       (default: the suite, in lanes)
#   test.sh --full      everything: the suite, fuso.sh in full on QEMU and on
#                       every patch's UML kernel (its own version), the
#                       whole fault suite and fuso.sh on the debug and KCSAN
#                       kernels, the series check linking every commit both
#                       ways, and the upstream MPTCP selftests with FUSO on
#                       (make test-full)
#   test.sh --debug     the debug kernel: fuso.sh and the whole fault suite
#                       (make test-debug)
#   test.sh --kcsan     the KCSAN kernel: fuso.sh and the whole fault suite,
#                       no data race in MPTCP or FUSO code (make test-kcsan)
set -u
. "$(dirname "$0")/lib.sh"

LOGS=$BUILD/test-logs
KST=$SRC/.obj-qemu/kselftest
mkdir -p "$LOGS"

# One line per finished step: "ok|FAIL NAME SECONDS LANE".  Both lanes
# append to it (short lines, O_APPEND).
RESULTS=$LOGS/results

# step NAME CMD...: run CMD with its output in LOGS/NAME.log
step() {
	local name=$1 t0 rc dt
	shift
	t0=$(date +%s)
	log "${LANE:+[$LANE] }── $name"
	"$@" >"$LOGS/$name.log" 2>&1
	rc=$?
	dt=$(($(date +%s) - t0))
	if [ $rc = 0 ]; then
		echo "ok $name $dt ${LANE:-main}" >>"$RESULTS"
		log "${LANE:+[$LANE] }   ok   $name ($dt s)"
	else
		echo "FAIL $name $dt ${LANE:-main}" >>"$RESULTS"
		log "${LANE:+[$LANE] }   FAIL $name (exit $rc, $dt s); last lines of $LOGS/$name.log:"
		tail -n 40 "$LOGS/$name.log" | sed 's/^/   | /' >&2
	fi
	return $rc
}

# vm_args TARGET: scripts/vm's options for a test kernel: uml, qemu, debug
# (the debug kernel under QEMU) or kcsan (the KCSAN kernel under QEMU)
vm_args() {
	case "$1" in
	uml | qemu) echo "--$1" ;;
	uml-debug) echo "--uml --debug" ;;
	debug | kcsan) echo "--qemu --$1" ;;
	*) die "test.sh: no test kernel '$1'" ;;
	esac
}

# The runner returns the guest command's status, sees the host root
# read-only and has a writable /tmp.
vm_selftest() { # TARGET
	local rc out d
	# One boot (a debug kernel's boot under TCG costs half a minute): a
	# command and working directory under the host's /tmp stay visible
	# although the guest gets a fresh, writable /tmp; the root is
	# read-only; the guest's exit status comes back.  Exit status 0
	# comes back from every step that boots a kernel and passes.
	d=$(mktemp -d /tmp/fuso-vm-test.XXXXXX)
	printf '#!/bin/sh\ntest "$(pwd)" = "%s" || exit 1\ntouch /tmp/w || exit 2\n! touch /fuso-ro-probe 2>/dev/null || exit 3\necho guest-$(uname -r)\nexit 7\n' "$d" >"$d/cmd.sh"
	chmod +x "$d/cmd.sh"
	out=$(cd "$d" && "$TOP/scripts/vm" $(vm_args "$1") -- ./cmd.sh)
	rc=$?
	rm -rf "$d"
	echo "$out"
	[ $rc = 7 ] || { echo "expected exit status 7 from the guest, got $rc (1: not in the host's /tmp directory, 2: /tmp not writable, 3: root writable)"; return 1; }
	echo "$out" | grep -q '^guest-6\.12' || { echo "guest did not run the command"; return 1; }
	echo "exit status, read-only root, writable /tmp, host /tmp paths: ok"
}

kunit() { # TARGET
	local out=$LOGS/kunit-$1.dmesg
	"$TOP/scripts/vm" $(vm_args "$1") -- dmesg >"$out" || return 1
	"$TOP/scripts/ktap-check.py" kunit "$out" mptcp-crypto mptcp-token mptcp-fuso
}

# kselftest TARGET TEST [VAR=VALUE...]: one selftest through the kselftest
# runner; TARGET is uml, qemu, debug (the debug kernel under QEMU) or kcsan
# (the KCSAN kernel under QEMU: its data-race reports are sorted by
# scripts/kcsan-check.py, which fails on those in MPTCP or FUSO code), and
# VM_OPTS adds options for scripts/vm.
kselftest() {
	local out=$LOGS/kselftest-$1-$2${KST_TAG:+-$KST_TAG}.out t=$1 name=$2 vmt rc
	shift 2
	[ -x "$KST/run_kselftest.sh" ] || { echo "kselftests not built ($KST)"; return 1; }
	vmt=(--"$t")
	[ "$t" = debug ] && vmt=(--qemu --debug)
	[ "$t" = uml-debug ] && vmt=(--uml --debug)
	[ "$t" = kcsan ] && vmt=(--qemu --kcsan --allow-splat)
	# shellcheck disable=SC2086 # VM_OPTS is an option list
	(cd "$KST" && "$TOP/scripts/vm" "${vmt[@]}" ${VM_OPTS:-} --log "$out" -- \
		env SELFTESTS_MPTCP_LIB_EXPECT_ALL_FEATURES=1 "$@" \
		./run_kselftest.sh -t "net/mptcp:$name") >/dev/null
	rc=$?
	# Every result passing is not enough: the VM runner also fails on a
	# kernel report (a WARNING during the boot's KUnit run once passed
	# this way) and on a timeout.
	if "$TOP/scripts/ktap-check.py" kselftest "$out" "$name"; then
		if [ "$t" = kcsan ]; then
			"$TOP/scripts/kcsan-check.py" "$out" && [ $rc = 0 ] && return 0
			echo "FAIL: a data race in MPTCP or FUSO code, another kernel report, or the VM runner exited $rc"
			return 1
		fi
		[ $rc = 0 ] && return 0
		echo "FAIL: every result passed, but the VM runner exited $rc (a kernel report or a timeout: its first lines above)"
	fi
	# why, from the guest's own output (the step's log is all a CI
	# reader gets)
	echo "failure lines of $out:"
	grep -E -A6 '\[FAIL\]|FAIL:|no progress|still running|exit code|report' "$out" |
		grep -v '^\[' | head -n 60
	return 1
}

# The fault suite's cases that make test runs on the sanitizer kernels
# (make test-debug, make test-kcsan and make test-full run them all; each
# case costs 1-2 minutes there).  The debug kernel (KASAN, lockdep,
# kmemleak): a subflow removed mid-transfer (teardown under FUSO) and 128
# connections at once (memory under load on 2 vCPUs); random loss and
# tail loss are in its fuso.sh part.  The KCSAN kernel: a link flapped
# mid-transfer and the 128 connections (races).  Until issue 42 both ran
# four cases (also a path lost mid-transfer) and the KCSAN kernel
# fuso.sh's part too: UML runs every case, and the sanitizer kernels'
# compiles and emulation did not fit a cold make test in 45 minutes.
FAULTS_DEBUG="endpoint-del many-conns"
FAULTS_KCSAN="link-flap many-conns"

# The fault suite's cases that CI also runs on the window-bounded scheduler
# ("window"), which keeps data at the MPTCP level until a subflow has room:
# a path that dies, flaps or goes away, loss everywhere, tiny buffers, and
# many connections.
FAULTS_WINDOW="blackhole link-flap endpoint-del loss-all tiny-buffers many-conns"

# upstream_run FUSO OUT TEST [ARGS...]: an upstream MPTCP selftest on QEMU
# with net.mptcp.fuso=FUSO (0: left alone) in every namespace it creates.
# The mptcp_fuso_recovery tracepoint counts the copies FUSO sent; with
# FUSO_NEED_COPIES=1 there must be some.
upstream_run() {
	local fuso=$1 out=$2 name=$3
	shift 3
	(cd "$KST/net/mptcp" && "$TOP/scripts/vm" --qemu --log "$out" -- \
		env FUSO="$fuso" FUSO_NEED_COPIES="${FUSO_NEED_COPIES:-0}" SCHED="${SCHED:-}" bash -c '
		t=/sys/kernel/tracing
		[ -d $t/events ] || mount -t tracefs nodev $t || exit 1
		echo 1 > $t/events/mptcp/mptcp_fuso_recovery/enable || exit 1
		[ "$FUSO" = 0 ] || export SELFTESTS_MPTCP_LIB_FUSO=$FUSO
		[ -z "$SCHED" ] || export SELFTESTS_MPTCP_LIB_SCHED=$SCHED
		SELFTESTS_MPTCP_LIB_EXPECT_ALL_FEATURES=1 ./"$0" "$@"
		rc=$?
		n=$(grep -c "mptcp_fuso_recovery:" $t/trace)
		echo "# FUSO recovery copies traced: $n"
		if [ "$FUSO" != 0 ] && [ "$FUSO_NEED_COPIES" = 1 ] && [ "$n" = 0 ]; then
			echo "# fuso=$FUSO but FUSO sent no copy"
			exit 1
		fi
		exit $rc' "$name" "$@") >/dev/null
}

# upstream TEST [ARGS...]: the regression guard.  The selftest runs twice,
# FUSO off and then on (sender and receiver, fuso=3); every case that
# passes with FUSO off must pass with it on.  Cases that fail both ways are
# listed (they are about this test environment, not FUSO).  The cases of
# UPSTREAM_ACCEPT may fail only by their time bound, by at most 10 %, with
# all data through (ktap-check.py --accept-slow): a cost of FUSO measured
# and explained in Documentation/testing.md, named one by one.  Empty since
# FUSO copies only once everything is sent (simult_flows' case 9 passes).
UPSTREAM_ACCEPT=(
)
upstream() {
	local name=$1 base=$LOGS/upstream-qemu-$1.fuso0.out out=$LOGS/upstream-qemu-$1.out
	shift
	FUSO_NEED_COPIES=0 upstream_run 0 "$base" "$name" "$@"
	SCHED=${UPSTREAM_SCHED:-} upstream_run 3 "$out" "$name" "$@"
	local rc=$?
	grep -h "copies traced" "$base" "$out"
	local a accept=()
	for a in "${UPSTREAM_ACCEPT[@]}"; do accept+=(--accept-slow "$a"); done
	"$TOP/scripts/ktap-check.py" regress "$base" "$out" "${accept[@]}" || return 1
	# a failure outside the cases (setup, the copy count) still fails
	grep -q "^# fuso=3 but FUSO sent no copy" "$out" && return 1
	[ $rc = 0 ] || echo "exit status $rc with FUSO on; every case that passes without FUSO passed (or is accepted)"
	return 0
}

# The same seed twice gives byte-identical per-query CSVs and server
# records (UML time-travel and uml_rng_seed=), for a TCP and a FUSO scheme
# with random loss; a different seed gives different ones.
bench_repeat() {
	local d=$BUILD/bench/repeat r s f
	rm -rf "$d"
	mkdir -p "$BUILD/bench"
	# a new file, renamed into place: the quickstart of step deb-small,
	# in the other lane, may be running the old one
	gcc -O2 -Wall -Wextra -o "$BUILD/bench/fuso-tg.new.$$" "$TOP/scripts/bench/fuso-tg.c" -lm -lpthread &&
		mv -f "$BUILD/bench/fuso-tg.new.$$" "$BUILD/bench/fuso-tg" || return 1
	for r in a b c; do
		s=7
		[ $r = c ] && s=8
		mkdir -p "$d/$r"
		"$TOP/scripts/vm" --uml --mem 3G --timeout 900 --outdir "$d/$r" \
			--append "uml_rng_seed=$s time-travel-start=1700000000000000000" -- \
			"$TOP/scripts/bench/guest.sh" "$d/$r" tg="$BUILD/bench/fuso-tg" seed=$s \
			loss=2 where=p1 flows=60 schemes=tcp,fuso3 >"$d/$r.log" 2>&1 ||
			{ tail -n 20 "$d/$r.log"; return 1; }
	done
	for f in tcp/h1.csv tcp/h2.csv tcp/h3.csv tcp/srv-h4.csv fuso3/h1.csv fuso3/h2.csv \
		fuso3/h3.csv fuso3/srv-h5.csv fuso3/copies.txt; do
		cmp "$d/a/$f" "$d/b/$f" || { echo "seed 7 twice: $f differs"; return 1; }
	done
	cmp -s "$d/a/fuso3/h1.csv" "$d/c/fuso3/h1.csv" &&
		{ echo "seeds 7 and 8 gave the same fuso3/h1.csv: the seed does not reach the run"; return 1; }
	echo "seed 7 twice: identical per-query CSVs, server records and copy counts; seed 8: different"
}

# checkpatch (one core) runs beside the builds of the series' commits.
series_check() {
	local out=$BUILD/series cp rc
	"$TOP/scripts/patches.sh" series "$out" || return 1
	"$TOP/scripts/patches.sh" checkpatch "$out" >"$LOGS/checkpatch.log" 2>&1 &
	cp=$!
	"$TOP/scripts/patches.sh" verify "$out"
	rc=$?
	wait $cp || { cat "$LOGS/checkpatch.log"; echo "checkpatch failed"; return 1; }
	cat "$LOGS/checkpatch.log"
	return $rc
}

# The CONFIG_MPTCP_FUSO=n build from the series check: no FUSO sysctls,
# MPTCP still there, and fuso.sh cannot pass on it (skip, or fail when all
# features are expected).
nofuso_check() {
	local img t
	# the series check's last image: UML (make test) or QEMU (test-full)
	for t in uml qemu; do
		img=$BUILD/series-check/.fuso-$t-nofuso
		[ -f "$img" ] && break
	done
	[ -f "$img" ] || { echo "no FUSO=n image in $BUILD/series-check (run the series step)"; return 1; }
	(cd "$KST/net/mptcp" && "$TOP/scripts/vm" --$t --kernel "$img" -- bash -c '
		set -x
		test -e /proc/sys/net/mptcp/enabled || exit 1
		test ! -e /proc/sys/net/mptcp/fuso || exit 1
		! grep -q Fuso /proc/net/netstat || exit 1
		./fuso.sh; rc=$?; test $rc = 4 || exit 1
		SELFTESTS_MPTCP_LIB_EXPECT_ALL_FEATURES=1 ./fuso.sh; rc=$?
		test $rc = 1 || exit 1
		echo "FUSO=n: no FUSO sysctls or counters; fuso.sh skips (4), or fails (1) when all features are expected"')
}

# make deb as a user runs it, on a small config: the QEMU test kernel's
# with CONFIG_MPTCP_FUSO off (deb.sh must turn it on).  The package must
# hold a kernel with FUSO that boots and passes the quickstart.
deb_selftest() { # VARIANT: qemu or qemu-debug, the config it starts from
	local cfg=$LOGS/deb-small.config out=$BUILD/deb-ci root img
	sed 's/^CONFIG_MPTCP_FUSO=y$/# CONFIG_MPTCP_FUSO is not set/' \
		"$(obj_dir "$SRC" "$1")/.config" >"$cfg"
	grep -q '^# CONFIG_MPTCP_FUSO is not set' "$cfg" || { echo "no FUSO option in the qemu config"; return 1; }
	"$TOP/scripts/deb.sh" --config "$cfg" --out "$out" || return 1
	root=$out/root
	rm -rf "$root"
	dpkg-deb -x "$out"/linux-image-*.deb "$root" || return 1
	grep -q '^CONFIG_MPTCP_FUSO=y' "$root"/boot/config-* || { echo "the packaged config has no CONFIG_MPTCP_FUSO=y"; return 1; }
	img=$(echo "$root"/boot/vmlinuz-*)
	[ -f "$img" ] || { echo "no boot/vmlinuz-* in the linux-image package"; return 1; }
	"$TOP/scripts/quickstart-vm.sh" --kernel "$img" --queries 100
}

run() {
	case "$1" in
	deps) step deps "$TOP/scripts/deps.sh" || fatal ;;
	scripts) step scripts "$TOP/scripts/test-scripts.sh" ;;
	build-uml) step build-uml "$TOP/scripts/build.sh" kernel uml || fatal ;;
	build-qemu) step build-qemu "$TOP/scripts/build.sh" kernel qemu ;;
	# the kselftests need only the qemu tree's configuration (its uapi
	# headers), not its kernel
	build-selftests) step build-selftests "$TOP/scripts/build.sh" selftests || fatal ;;
	vm-uml) step vm-uml vm_selftest uml ;;
	vm-qemu) step vm-qemu vm_selftest qemu ;;
	vm-debug) step vm-debug vm_selftest debug ;;
	quickstart) step quickstart-uml "$TOP/scripts/quickstart-vm.sh" ;;
	deb) step deb-small deb_selftest qemu ;;
	deb-debug) step deb-small deb_selftest qemu-debug ;;
	docs) step docs "$TOP/scripts/docs-check.sh" ${full:+--all} ;;
	kunit-uml) step kunit-uml kunit uml ;;
	kunit-qemu) step kunit-qemu kunit qemu ;;
	kunit-debug) step kunit-debug kunit debug ;;
	# fuso.sh in full on UML (exact virtual time).  On QEMU (the x86
	# kernel, emulated: slow) the suite runs it on the debug kernel (step
	# debug); make test-full also runs it in full on the plain kernel.
	fuso) step fuso.sh-uml kselftest uml fuso.sh ;;
	fuso-qemu) step fuso.sh-qemu kselftest qemu fuso.sh ;;
	# each patch's fuso.sh on that patch's UML kernel (make test-full;
	# about 5 min a patch)
	series-selftests) step series-selftests "$TOP/scripts/series-selftests.sh" ;;
	# The fault suite on UML, every case, in virtual time (it ran in real
	# time until the TSQ fix in scripts/base-fixes/0004: the
	# many-connection case froze virtual time, Documentation/testing.md).
	# The debug and KCSAN kernels run it in real time, under QEMU.  A
	# frozen guest is killed by the host: about 8 times a normal run.
	faults)
		VM_OPTS="--timeout 900" step fuso_faults.sh-uml kselftest uml fuso_faults.sh
		VM_OPTS="--timeout 600" KST_TAG=window step fuso_faults.sh-uml-window \
			kselftest uml fuso_faults.sh FUSO_FAULTS_SCHED=window \
			FUSO_FAULTS_CASES="$FAULTS_WINDOW"
		# a seeded slice of make soak: the control case and the
		# rounds of seeds 1-7 (seven cases with load and races
		# beside them, about 1 200 transfers, 2 min)
		VM_OPTS="--timeout 900" KST_TAG=soak step fuso_faults.sh-soak-uml \
			kselftest uml fuso_faults.sh FUSO_FAULTS_SOAK=1000 FUSO_FAULTS_SEED=1
		;;
	# The debug kernel's sanitizers in UML (KASAN, lockdep, kmemleak; one
	# CPU, virtual time, so the fault suite's time bounds hold as on
	# UML): the soak's seeded slice, as fuso_faults.sh-soak-uml runs it;
	# any kernel report, or a leak in the kmemleak scan, fails the step
	debug-uml)
		step build-uml-debug "$TOP/scripts/build.sh" kernel uml --debug || return
		VM_OPTS="--timeout 1800" KST_TAG=soak step fuso_faults.sh-soak-uml-debug \
			kselftest uml-debug fuso_faults.sh FUSO_FAULTS_SOAK=1000 FUSO_FAULTS_SEED=1
		;;
	build-debug) step build-debug "$TOP/scripts/build.sh" kernel qemu --debug ;;
	build-kcsan) step build-kcsan "$TOP/scripts/build.sh" kernel qemu --kcsan ;;
	# The debug kernel (KASAN, lockdep, kmemleak...): fuso.sh and the
	# fault suite, fuso=3 in the fault suite; any kernel report, or a leak
	# in the kmemleak scan at the end of each run, fails the step.  Under
	# emulation with the sanitizers starting a program takes most of a
	# second: the fault suite's time bounds are 3 times longer there
	# (FUSO_FAULTS_SLOW), and the suite runs a part: fuso.sh's fuso=3
	# transfers, exchanges and tail loss (sender and receiver on), IPv4,
	# 128 KiB; and FAULTS_DEBUG.  make test-debug and make test-full run
	# everything.
	debug)
		ran build-debug || step build-debug "$TOP/scripts/build.sh" kernel qemu --debug || return
		grep -q '^ok build-debug ' "$RESULTS" || return
		if [ -n "$full" ]; then
			step fuso.sh-debug kselftest debug fuso.sh FUSO_TEST_SANITIZER=1
			step fuso_faults.sh-debug kselftest debug fuso_faults.sh \
				FUSO_FAULTS_SLOW=3
		else
			step fuso.sh-debug kselftest debug fuso.sh FUSO_TEST_IP=4 \
				FUSO_TEST_PARTS=3 FUSO_TEST_SIZE=128 \
				FUSO_TEST_SANITIZER=1
			step fuso_faults.sh-debug kselftest debug fuso_faults.sh \
				FUSO_FAULTS_SLOW=3 FUSO_FAULTS_CASES="$FAULTS_DEBUG"
		fi
		;;
	# Upstream MPTCP selftests with FUSO on (make test-full).  UML
	# localizes kernel symbols, which defeats the kallsyms feature probes
	# of these scripts: run them on QEMU.
	# UPSTREAM_TESTS picks some of them (default all); UPSTREAM_SCHED=window
	# runs the FUSO-on pass on the window-bounded scheduler.
	upstream)
		local u
		for u in ${UPSTREAM_TESTS:-mptcp_connect.sh mptcp_join.sh simult_flows.sh diag.sh mptcp_sockopt.sh}; do
			case "$u" in
			mptcp_connect.sh)
				FUSO_NEED_COPIES=1 step "$u-qemu" upstream "$u" -d 5 -l 1% -r 0 -e tso ;;
			mptcp_join.sh|simult_flows.sh|diag.sh|mptcp_sockopt.sh)
				step "$u-qemu" upstream "$u" ;;
			*) die "UPSTREAM_TESTS: unknown selftest '$u'" ;;
			esac
		done
		;;
	# The benchmark's analysis on a fixture (join, sender sets, intervals,
	# pairs, the effect check); the published tables are analyze.py's
	# output over the published runs' data (published.sh --check);
	# make bench QUICK=1: every scheme produces
	# results, and FUSO has at most half of MPTCP's queries over the
	# minimum RTO (the effect check: Fig 4c at 2 %, seed 1, MPTCP at
	# least 15 such queries); the same seed gives the same per-query
	# results.  The effect check's threshold, calibrated over seeds
	# 101-120 (make bench FIGS=effect REPS=20 SEED=101): MPTCP 36-54
	# queries over 5 ms, FUSO 2-11, largest ratio 0.29 against the
	# threshold of 0.5; no false failure in 20 seeds, about 2 in 100 000
	# by a normal approximation (Documentation/benchmark.md).
	bench)
		step bench-analyze /usr/bin/python3 "$TOP/scripts/bench/test_analyze.py"
		step bench-published "$TOP/scripts/bench/published.sh" --check
		step bench-quick "$TOP/scripts/bench/bench.sh" --quick --out "$BUILD/bench/quick"
		step bench-repeat bench_repeat
		;;
	# The KCSAN kernel (data races; it excludes KASAN, so it is a kernel of
	# its own): the fault cases FAULTS_KCSAN; everything with --kcsan or
	# --full.
	# A KCSAN report in MPTCP or FUSO code fails the step
	# (scripts/kcsan-check.py); one elsewhere in the kernel is listed.
	kcsan)
		ran build-kcsan || step build-kcsan "$TOP/scripts/build.sh" kernel qemu --kcsan || return
		grep -q '^ok build-kcsan ' "$RESULTS" || return
		if [ -n "$full" ]; then
			step fuso.sh-kcsan kselftest kcsan fuso.sh FUSO_TEST_SANITIZER=1
			step fuso_faults.sh-kcsan kselftest kcsan fuso_faults.sh \
				FUSO_FAULTS_SLOW=3 FUSO_FAULTS_KCSAN=1
		else
			step fuso_faults.sh-kcsan kselftest kcsan fuso_faults.sh \
				FUSO_FAULTS_SLOW=3 FUSO_FAULTS_KCSAN=1 \
				FUSO_FAULTS_CASES="$FAULTS_KCSAN"
		fi
		;;
	# make test builds the series on the UML kernel's config (its final
	# kernel comes from ccache after build-uml, and a commit that changes
	# include/net/mptcp.h costs 67 s there against 171 s on the debug
	# config, cold); make test-full builds it on the plain QEMU kernel's config
	# and links both ways at every commit
	series)
		if [ -n "$full" ]; then
			FUSO_SERIES_FULL=1 FUSO_SERIES_VARIANT=plain step series series_check
		else
			FUSO_SERIES_VARIANT=uml step series series_check
		fi
		;;
	# the series' CONFIG_MPTCP_FUSO=n image, with the kselftests
	nofuso)
		if grep -q '^ok series ' "$RESULTS" && grep -q '^ok build-selftests ' "$RESULTS"; then
			step nofuso nofuso_check
		elif [ "$mode" = steps ]; then
			step nofuso nofuso_check
		fi
		;;
	w1) step w1-net-mptcp "$TOP/scripts/build.sh" kernel qemu --w1 ;;
	w1-debug) step w1-net-mptcp "$TOP/scripts/build.sh" kernel qemu --debug --w1 ;;
	*) die "test.sh: unknown step '$1'" ;;
	esac
}

# ran STEP: has STEP run in this suite (passed or failed)?
ran() { grep -qE "^(ok|FAIL) $1 " "$RESULTS"; }

# lane NAME STEP...: the steps one after the other, as lane NAME
lane() {
	local LANE=$1 s
	shift
	for s in "$@"; do
		run "$s"
	done
}

# What the suite takes on 2 cores from a clean clone
# (Documentation/testing.md): with an empty ccache, measured at 60875cf
# (2 560 s); with the ccache a first run left, measured at 7353a8a
# (1 625 s).
EST_COLD_MIN=43
EST_WARM_MIN=27

estimate() {
	local cache=${CCACHE_DIR:-$HOME/.cache/ccache} files=0 what
	# a cold run leaves about 5 000 files (113 MiB compressed at 60875cf)
	[ -d "$cache" ] && files=$(find "$cache" -type f 2>/dev/null | head -n 3000 | wc -l)
	if [ "$files" -ge 3000 ]; then
		what="about $EST_WARM_MIN min, as measured (ccache $cache holds 3000 files or more: warm)"
	else
		what="about $EST_COLD_MIN min, as measured (ccache $cache is empty or small: every kernel compiles from scratch)"
	fi
	[ -z "$full" ] || what="several hours (make test-full: the upstream selftests alone take more than an hour)"
	log "make test: $what, on 2 cores"
}

# the steps' times, in the order they finished
time_table() {
	[ -s "$RESULTS" ] || return 0
	printf '\n%-30s %-6s %-5s %8s\n' step lane ok seconds
	awk '{ printf "%-30s %-6s %-5s %8d\n", $2, $4, ($1 == "ok" ? "ok" : "FAIL"), $3 }' "$RESULTS"
	printf '%-30s %-6s %-5s %8d\n' "(suite, wall clock)" "" "" "$(($(date +%s) - t_start))"
}

# a step that everything after it needs failed: the summary, and stop
fatal() {
	time_table
	echo "suite: $(grep -c '^ok ' "$RESULTS") passed, $(grep -c '^FAIL ' "$RESULTS") failed (stopped: $(tail -n1 "$RESULTS" | cut -d' ' -f2) failed)"
	exit 1
}

t_start=$(date +%s)
full=
mode=suite
case "${1:-}" in
--full) full=1 ;;
--debug) full=1; mode=debug ;;
--kcsan) full=1; mode=kcsan ;;
--*) die "test.sh: unknown option '$1'" ;;
"") ;;
*) mode=steps ;;
esac
: >"$RESULTS"
case "$mode" in
suite)
	estimate
	# nothing else can run without these (their failure exits)
	lane "" deps scripts build-uml
	# the UML lane: one core, virtual time (the kselftests first: a
	# small build that the x86 lane needs only at its end, for nofuso)
	lane uml build-selftests vm-uml quickstart kunit-uml fuso faults bench debug-uml \
		${full:+series-selftests} &
	uml_lane=$!
	if [ -n "$full" ]; then
		# the x86 lane: the series check first (it compiles the
		# kernel that build-qemu then takes from ccache)
		lane x86 series build-qemu vm-qemu kunit-qemu w1 deb docs build-debug build-kcsan nofuso
		wait $uml_lane
		# real time under QEMU, alone
		lane "" fuso-qemu debug kcsan upstream
	else
		# the x86 lane: the series check (on the UML kernel's
		# config), then the one x86 kernel, the debug kernel
		lane x86 series build-debug vm-debug kunit-debug w1-debug deb-debug docs nofuso
		wait $uml_lane
		# real time under QEMU, alone
		lane "" debug
	fi
	;;
debug) lane "" deps build-selftests debug ;;
kcsan) lane "" deps build-selftests kcsan ;;
steps) lane "" "$@" ;;
esac

time_table
passed=$(grep -c '^ok ' "$RESULTS")
failed=$(grep -c '^FAIL ' "$RESULTS")
log "suite took $(($(date +%s) - t_start)) s; logs in $LOGS"
if [ "$failed" != 0 ]; then
	log "failed: $(awk '$1 == "FAIL" { printf "%s ", $2 }' "$RESULTS")"
	# Again at the end, where a reader of a truncated CI log looks: the
	# lines that say why each step failed.
	for s in $(awk '$1 == "FAIL" { print $2 }' "$RESULTS"); do
		log "why $s failed ($LOGS/$s.log):"
		grep -E 'not ok|FAIL|\[FAIL\]|fail|error|Error|BUG|WARNING' "$LOGS/$s.log" |
			grep -v '^ok ' | head -n 25 | sed 's/^/   | /' >&2
	done
fi
echo "suite: $passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" != 0 ]
