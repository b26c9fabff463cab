#!/bin/bash
# make soak (issue 41): the fault suite's patterns, and more, until N
# transfers of random sizes have been checked byte for byte with FUSO on.
# It runs fuso_faults.sh's soak (FUSO_FAULTS_SOAK, FUSO_FAULTS_SEED) in a
# test kernel: the control case, then rounds that each draw a fault case,
# payload sizes and a load of request/response connections with shutdown
# and close races from their own seed (Documentation/testing.md, "The
# soak").  Not in make test's time budget: CI runs a short seeded slice
# of it (steps fuso_faults.sh-soak-uml and fuso_faults.sh-soak-uml-debug).
#
#   soak.sh [--kernel uml|uml-debug|debug] [--transfers N] [--seed S] [--mode M]
#           [--timeout SEC] [--log FILE]
#
#   --kernel     uml: the UML kernel, virtual time (default); uml-debug:
#                the debug kernel's sanitizers (KASAN, lockdep, kmemleak)
#                in UML, virtual time, one CPU; debug: the debug kernel
#                under QEMU with 2 vCPUs, time bounds 3 times longer
#                (FUSO_FAULTS_SLOW=3)
#   --transfers  stop once this many transfers are checked (default 10000)
#   --seed       the first round's seed (default 1; round r uses S + r)
#   --mode       net.mptcp.fuso under test (default 3; 0: plain MPTCP)
#   --timeout    kill the guest after SEC seconds (default: 6 h)
#   --log        the guest's output (default build/soak/KERNEL-seedS.log)
#
# Prints each round as it ends, then the totals: rounds, transfers, bytes,
# FUSO copies and the seed of every failed round, with the command that
# replays it.  Fails if a round failed, the kernel reported anything
# (BUG, WARNING, KASAN, lockdep, a kmemleak leak) or the guest timed out.
set -u
. "$(dirname "$0")/lib.sh"

kernel=uml transfers=10000 seed=1 mode=3 timeout=21600 logfile=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel|--transfers|--seed|--mode|--timeout|--log)
		[ $# -ge 2 ] && [ -n "$2" ] || die "soak.sh: $1 needs a value"
		case "$1" in
		--kernel) kernel=$2 ;;
		--transfers) transfers=$2 ;;
		--seed) seed=$2 ;;
		--mode) mode=$2 ;;
		--timeout) timeout=$2 ;;
		--log) logfile=$2 ;;
		esac
		shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "soak.sh: unknown option '$1' (soak.sh --help)" ;;
	esac
	shift
done
case "$kernel" in
uml) vmopts=(--uml) slow=1 image=$SRC/.obj-uml/linux how=kernel-uml ;;
uml-debug) vmopts=(--uml --debug) slow=1 image=$SRC/.obj-uml-debug/linux how=kernel-uml-debug ;;
debug) vmopts=(--qemu --debug) slow=3 image=$SRC/.obj-qemu-debug/arch/x86/boot/bzImage how=kernel-debug ;;
*) die "soak.sh: --kernel must be uml, uml-debug or debug, not '$kernel'" ;;
esac
[[ "$transfers" =~ ^[1-9][0-9]{0,6}$ ]] || die "soak.sh: --transfers must be a count from 1 to 9999999, not '$transfers'"
[[ "$seed" =~ ^[0-9]{1,9}$ ]] || die "soak.sh: --seed must be a whole number, not '$seed'"
[[ "$mode" =~ ^[0-3]$ ]] || die "soak.sh: --mode must be 0..3, not '$mode'"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || die "soak.sh: --timeout must be seconds, not '$timeout'"

kst=$SRC/.obj-qemu/kselftest/net/mptcp
[ -x "$kst/fuso_faults.sh" ] || die "soak.sh: no kselftests in $kst: run make selftests first"
[ -f "$image" ] || die "soak.sh: no $kernel kernel at $image: run make $how first"
mkdir -p "$BUILD/soak"
[ -n "$logfile" ] || logfile=$BUILD/soak/$kernel-seed$seed.log
# the guest runs in the kselftest directory: an absolute path
logfile=$(realpath -m "$logfile")

log "soak on the $kernel kernel: fuso=$mode, from seed $seed until $transfers transfers are checked; log in $logfile"
t0=$(date +%s)
# the guest's output as it comes: a line per round
(cd "$kst" && "$TOP/scripts/vm" "${vmopts[@]}" --timeout "$timeout" --log "$logfile" -- \
	env FUSO_FAULTS_SOAK="$transfers" FUSO_FAULTS_SEED="$seed" \
	FUSO_FAULTS_MODE="$mode" FUSO_FAULTS_SLOW="$slow" \
	./fuso_faults.sh) | grep --line-buffered -E '^# (soak|fault suite|replay)|\[FAIL\]|INFO: round'
rc=${PIPESTATUS[0]}
dt=$(($(date +%s) - t0))
summary=$(grep -E '^# (fault suite|soak: seeds)' "$logfile")
failed=$(grep -c '^not ok' "$logfile")
echo "$summary"
log "soak took $dt s on the $kernel kernel (guest exit status $rc; $failed subtests failed)"
case "$rc" in
0) [ "$failed" = 0 ] && [ -n "$summary" ] && exit 0 ;;
124) log "the guest was killed after $timeout s (--timeout)" ;;
125) log "the kernel log has a report, or the guest did not boot: $logfile" ;;
esac
grep -E '^# replay:' "$logfile" | sed 's/^/  /'
die "soak failed: $logfile"
