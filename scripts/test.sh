#!/bin/bash
# The whole test suite (make test).  Each step's output goes to
# build/test-logs/STEP.log; a failing step prints its log's tail.  The
# suite ends with a 'N passed, N failed' line and fails if any step did.
#
#   test.sh [STEP...]   run only these steps (default: the suite, in order)
#   test.sh --full      the suite plus the upstream MPTCP selftests with
#                       FUSO on (make test-full)
set -u
. "$(dirname "$0")/lib.sh"

LOGS=$BUILD/test-logs
KST=$SRC/.obj-qemu/kselftest
mkdir -p "$LOGS"

passed=0 failed=0 failures=()

# step NAME CMD...: run CMD with its output in LOGS/NAME.log
step() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s)
	log "── $name"
	"$@" >"$LOGS/$name.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		passed=$((passed + 1))
		log "   ok   $name ($(($(date +%s) - t0)) s)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		log "   FAIL $name (exit $rc, $(($(date +%s) - t0)) s); last lines of $LOGS/$name.log:"
		tail -n 40 "$LOGS/$name.log" | sed 's/^/   | /' >&2
	fi
	return $rc
}

# The runner returns the guest command's status, sees the host root
# read-only and has a writable /tmp.
vm_selftest() { # TARGET
	local rc out
	out=$("$TOP/scripts/vm" "--$1" -- sh -c 'touch /tmp/w && ! touch /fuso-ro-probe 2>/dev/null && echo guest-$(uname -r) && exit 7')
	rc=$?
	echo "$out"
	[ $rc = 7 ] || { echo "expected exit status 7 from the guest, got $rc"; return 1; }
	echo "$out" | grep -q '^guest-6\.12' || { echo "guest did not run the command"; return 1; }
	"$TOP/scripts/vm" "--$1" -- true || { echo "'true' did not exit 0"; return 1; }
	# A command and working directory under the host's /tmp stay
	# visible although the guest gets a fresh /tmp.
	local d
	d=$(mktemp -d /tmp/fuso-vm-test.XXXXXX)
	printf '#!/bin/sh\ntest "$(pwd)" = "%s" && touch /tmp/new && exit 5\n' "$d" >"$d/cmd.sh"
	chmod +x "$d/cmd.sh"
	(cd "$d" && "$TOP/scripts/vm" "--$1" -- ./cmd.sh)
	rc=$?
	rm -rf "$d"
	[ $rc = 5 ] || { echo "command in host /tmp: expected exit status 5, got $rc"; return 1; }
	echo "exit status, read-only root, writable /tmp, host /tmp paths: ok"
}

kunit() { # TARGET
	local out=$LOGS/kunit-$1.dmesg
	"$TOP/scripts/vm" "--$1" -- dmesg >"$out" || return 1
	"$TOP/scripts/ktap-check.py" kunit "$out" mptcp-crypto mptcp-token mptcp-fuso
}

kselftest() { # TARGET TEST [VAR=VALUE...]
	local out=$LOGS/kselftest-$1-$2.out t=$1 name=$2
	shift 2
	[ -x "$KST/run_kselftest.sh" ] || { echo "kselftests not built ($KST)"; return 1; }
	(cd "$KST" && "$TOP/scripts/vm" "--$t" --log "$out" -- \
		env SELFTESTS_MPTCP_LIB_EXPECT_ALL_FEATURES=1 "$@" \
		./run_kselftest.sh -t "net/mptcp:$name") >/dev/null
	"$TOP/scripts/ktap-check.py" kselftest "$out" "$name"
}

# Upstream's mptcp_connect.sh with fixed loss/delay and FUSO (sender and
# receiver) on in every namespace, as a regression guard.  The
# mptcp_fuso_recovery tracepoint proves that FUSO did send copies.
upstream_connect() { # TARGET
	local out=$LOGS/upstream-$1-mptcp_connect.out
	(cd "$KST/net/mptcp" && "$TOP/scripts/vm" "--$1" --log "$out" -- bash -c '
		t=/sys/kernel/tracing
		[ -d $t/events ] || mount -t tracefs nodev $t || exit 1
		echo 1 > $t/events/mptcp/mptcp_fuso_recovery/enable || exit 1
		SELFTESTS_MPTCP_LIB_EXPECT_ALL_FEATURES=1 SELFTESTS_MPTCP_LIB_FUSO=3 \
			./mptcp_connect.sh -d 5 -l 1% -r 0 -e tso
		rc=$?
		n=$(grep -c "mptcp_fuso_recovery:" $t/trace)
		echo "# FUSO recovery copies traced: $n"
		[ "$n" -gt 0 ] || { echo "# fuso=3 but FUSO sent no copy"; exit 1; }
		exit $rc') >/dev/null
	local rc=$?
	"$TOP/scripts/ktap-check.py" tap "$out" || return 1
	return $rc
}

series_check() {
	local out=$BUILD/series
	"$TOP/scripts/patches.sh" series "$out" &&
		"$TOP/scripts/patches.sh" checkpatch "$out" &&
		"$TOP/scripts/patches.sh" verify "$out"
}

# The CONFIG_MPTCP_FUSO=n build from the series check: no FUSO sysctls,
# MPTCP still there, and fuso.sh cannot pass on it (skip, or fail when all
# features are expected).
nofuso_check() {
	local img=$BUILD/series-check/.obj-qemu-nofuso/arch/x86/boot/bzImage
	[ -f "$img" ] || { echo "no FUSO=n image at $img (run the series step)"; return 1; }
	(cd "$KST/net/mptcp" && "$TOP/scripts/vm" --qemu --kernel "$img" -- bash -c '
		set -x
		test -e /proc/sys/net/mptcp/enabled || exit 1
		test ! -e /proc/sys/net/mptcp/fuso || exit 1
		./fuso.sh; rc=$?; test $rc = 4 || exit 1
		SELFTESTS_MPTCP_LIB_EXPECT_ALL_FEATURES=1 ./fuso.sh; rc=$?
		test $rc = 1 || exit 1
		echo "FUSO=n: no FUSO sysctls; fuso.sh skips (4), or fails (1) when all features are expected"')
}

run() {
	case "$1" in
	deps) step deps "$TOP/scripts/deps.sh" || exit 1 ;;
	build)
		step build-uml "$TOP/scripts/build.sh" kernel uml &&
			step build-qemu "$TOP/scripts/build.sh" kernel qemu &&
			step build-selftests "$TOP/scripts/build.sh" selftests ||
			exit 1
		;;
	vm) step vm-uml vm_selftest uml; step vm-qemu vm_selftest qemu ;;
	kunit) step kunit-uml kunit uml; step kunit-qemu kunit qemu ;;
	# fuso.sh in full on UML (exact virtual time); on QEMU (the x86
	# kernel, emulated: slow) its IPv4 half.  make test-full: both in full.
	fuso)
		step fuso.sh-uml kselftest uml fuso.sh
		if [ -n "$full" ]; then
			step fuso.sh-qemu kselftest qemu fuso.sh
		else
			step fuso.sh-qemu kselftest qemu fuso.sh FUSO_TEST_IP=4
		fi
		;;
	# UML localizes kernel symbols, which defeats a kallsyms feature probe
	# of mptcp_connect.sh: run it on QEMU.
	upstream) step mptcp_connect.sh-qemu upstream_connect qemu ;;
	# make bench QUICK=1: every scheme of the benchmark produces results
	bench) step bench-quick "$TOP/scripts/bench/bench.sh" --quick --out "$BUILD/bench/quick" ;;
	series) step series series_check && step nofuso-qemu nofuso_check ;;
	w1) step w1-net-mptcp "$TOP/scripts/build.sh" kernel qemu --w1 ;;
	*) die "test.sh: unknown step '$1'" ;;
	esac
}

t_start=$(date +%s)
steps=("$@")
full=
if [ "${1:-}" = --full ]; then
	full=1
	steps=(deps build vm kunit fuso bench upstream series w1)
elif [ ${#steps[@]} = 0 ]; then
	steps=(deps build vm kunit fuso bench series w1)
fi
for s in "${steps[@]}"; do
	run "$s"
done

log "suite took $(($(date +%s) - t_start)) s; logs in $LOGS"
[ $failed = 0 ] || log "failed: ${failures[*]}"
echo "suite: $passed passed, $failed failed"
[ $failed = 0 ]
