#!/bin/bash
# make quickstart: scripts/quickstart.sh in the UML test kernel (virtual
# time: 1 ms is exactly 1 ms, whatever the host's load).
#
#   quickstart-vm.sh [--kernel BZIMAGE] [QUICKSTART OPTIONS...]
#
# --kernel boots an x86_64 kernel image under QEMU instead, e.g. the
# vmlinuz of a package make deb built (its config must have what the
# QEMU test kernel's has: scripts/config/qemu.config).
set -eu
. "$(dirname "$0")/lib.sh"

vm=(--uml)
if [ "${1:-}" = --kernel ]; then
	[ -n "${2:-}" ] || die "quickstart-vm.sh: --kernel needs a kernel image"
	[ -f "$2" ] || die "quickstart-vm.sh: no kernel image at '$2'"
	vm=(--qemu --kernel "$2")
	shift 2
else
	uml=$(obj_dir "$SRC" uml)/linux
	[ -x "$uml" ] || die "quickstart: no UML kernel at $uml (make kernel-uml)"
fi
tg=$BUILD/bench/fuso-tg
mkdir -p "$BUILD/bench"
# a new file, renamed into place: a running benchmark may be using the old
gcc -O2 -Wall -Wextra -o "$tg.new.$$" "$TOP/scripts/bench/fuso-tg.c" -lm -lpthread &&
	mv -f "$tg.new.$$" "$tg" || die "quickstart: cannot build the traffic generator"
log "quickstart: booting the FUSO kernel (${vm[*]})"
"$TOP/scripts/vm" "${vm[@]}" --timeout 900 -- env FUSO_TG="$tg" "$TOP/scripts/quickstart.sh" "$@"
