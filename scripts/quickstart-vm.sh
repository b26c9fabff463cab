#!/bin/bash
# make quickstart: scripts/quickstart.sh in the UML test kernel (virtual
# time: 1 ms is exactly 1 ms, whatever the host's load).
set -eu
. "$(dirname "$0")/lib.sh"

uml=$(obj_dir "$SRC" uml)/linux
[ -x "$uml" ] || die "quickstart: no UML kernel at $uml (make kernel-uml)"
tg=$BUILD/bench/fuso-tg
mkdir -p "$BUILD/bench"
# a new file, renamed into place: a running benchmark may be using the old
gcc -O2 -Wall -Wextra -o "$tg.new.$$" "$TOP/scripts/bench/fuso-tg.c" -lm -lpthread &&
	mv -f "$tg.new.$$" "$tg" || die "quickstart: cannot build the traffic generator"
log "quickstart: booting the FUSO kernel (UML, virtual time)"
"$TOP/scripts/vm" --uml --timeout 900 -- env FUSO_TG="$tg" "$TOP/scripts/quickstart.sh" "$@"
