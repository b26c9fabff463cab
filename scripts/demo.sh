#!/bin/bash
# make demo: boot the FUSO kernel under UML, run MPTCP transfers over two
# paths with loss on one, with FUSO off and on, and show the FUSO sysctls
# and counters (fuso.sh, verbose).  The main job of `make` is the
# benchmark (make bench).
set -eu
. "$(dirname "$0")/lib.sh"

kst=$SRC/.obj-qemu/kselftest
[ -x "$kst/net/mptcp/fuso.sh" ] || die "kselftests not built: run 'make build'"
log "demo: booting the FUSO kernel (UML, virtual time) and running fuso.sh verbosely"
cd "$kst/net/mptcp"
"$TOP/scripts/vm" --uml -- env FUSO_TEST_VERBOSE=1 ./fuso.sh
log "demo done: see README.md for what the lines above mean"
