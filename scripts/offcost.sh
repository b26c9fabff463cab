#!/bin/bash
# What FUSO costs when it is compiled out: CONFIG_MPTCP_FUSO=n against the
# base tree (base-fixed: upstream plus the UML test fixes, no FUSO patch).
#
#   offcost.sh            build both trees' QEMU kernels with FUSO=n (warm
#                         ccache: about a minute each), then print the
#                         sizes of struct mptcp_sock, mptcp_subflow_context
#                         and mptcp_ext in each, and which functions of
#                         net/mptcp/*.o differ in object code
#
# The base tree is a worktree of build/src at base-fixed, in
# build/offcost-base, made by this script and reused.  The object code is
# compared function by function (objdump -d, addresses and relocation
# offsets removed), so a function that only moved compares equal.
# Exit status: 0 when it ran (whatever it found), 1 on an error.
set -eu
. "$(dirname "$0")/lib.sh"

base=$BUILD/offcost-base
cmp_dir=$BUILD/offcost

[ -d "$SRC/.git" ] || [ -f "$SRC/.git" ] || die "no development tree at $SRC (run: make tree)"
if [ ! -e "$base/.git" ]; then
	[ ! -e "$base" ] || die "$base exists but is not a worktree made by this script: remove it"
	log "making the base worktree in $base"
	git -C "$SRC" worktree add -q --detach "$base" base-fixed
fi
git -C "$base" checkout -q --detach base-fixed

log "building the base tree, FUSO=n"
"$TOP/scripts/build.sh" kernel qemu --nofuso --tree "$base" >/dev/null
log "building the development tree, FUSO=n"
"$TOP/scripts/build.sh" kernel qemu --nofuso >/dev/null

rm -rf "$cmp_dir"
mkdir -p "$cmp_dir"

# sizeof() of the structures FUSO extends, compiled with protocol.o's own
# command line in each tree
sizes() { # TREE NAME
	local obj=$1/.obj-qemu-nofuso src=$cmp_dir/sizes-$2.c o=$cmp_dir/sizes-$2.o cmd
	cat >"$src" <<-EOF
	#include "$1/net/mptcp/protocol.h"
	const unsigned int fuso_sizes[] = {
		sizeof(struct mptcp_sock),
		sizeof(struct mptcp_subflow_context),
		sizeof(struct mptcp_ext),
	};
	EOF
	cmd=$(sed -n 's/^savedcmd_[^ ]* := //p' "$obj/net/mptcp/.protocol.o.cmd")
	[ -n "$cmd" ] || die "no compile command in $obj/net/mptcp/.protocol.o.cmd"
	cmd=${cmd%%;*}		# the compiler only, not objtool after it
	cmd=${cmd%"${cmd##*[! ]}"}
	cmd=${cmd//-Wp,-MMD,net\/mptcp\/.protocol.o.d/}
	cmd=${cmd% *}		# the source file
	(cd "$obj" && eval "${cmd/ -o net\/mptcp\/protocol.o/ -o $o}" "$src") ||
		die "could not compile the size probe in $1"
	objdump -s -j .rodata "$o" | awk 'NR > 4 { print $2, $3, $4 }' |
		python3 -c '
import sys
w = sys.stdin.read().split()
v = [int.from_bytes(bytes.fromhex(x), "little") for x in w[:3]]
print("mptcp_sock %d  mptcp_subflow_context %d  mptcp_ext %d" % tuple(v))'
}

# one file per function: its instructions without addresses
split_functions() { # OBJ DIR
	mkdir -p "$2"
	objdump -d --no-show-raw-insn "$1" | awk -v dir="$2" '
		/^[0-9a-f]+ <.*>:$/ { f = $2; gsub(/[<>:]/, "", f); out = dir "/" f; next }
		out && NF { sub(/^ *[0-9a-f]+:\t/, ""); gsub(/[0-9a-f]+ <[^>]*>/, "<ref>"); print > out }'
}

echo "== struct sizes (bytes), FUSO=n"
s_base=$(sizes "$base" base)
s_dev=$(sizes "$SRC" dev)
echo "base tree:   $s_base"
echo "with FUSO:   $s_dev"

echo "== net/mptcp object code, FUSO=n, base tree against the FUSO tree"
for o in "$base"/.obj-qemu-nofuso/net/mptcp/*.o; do
	n=$(basename "$o")
	case "$n" in built-in.o|*.mod.o) continue ;; esac
	d=$SRC/.obj-qemu-nofuso/net/mptcp/$n
	if [ ! -f "$d" ]; then
		echo "$n: only in the base tree"
		continue
	fi
	split_functions "$o" "$cmp_dir/base/$n"
	split_functions "$d" "$cmp_dir/dev/$n"
	diffs=$({ diff -rq "$cmp_dir/base/$n" "$cmp_dir/dev/$n" 2>&1 || true; } |
		sed -E 's|^Files .*/([^/]+) and .* differ$|\1|; s|^Only in .*/base/[^:]*: (.*)|\1 (only in base)|; s|^Only in .*/dev/[^:]*: (.*)|\1 (only with FUSO)|' |
		tr '\n' ' ')
	echo "$n: ${diffs:-identical}"
done
for d in "$SRC"/.obj-qemu-nofuso/net/mptcp/*.o; do
	[ -f "$base/.obj-qemu-nofuso/net/mptcp/$(basename "$d")" ] ||
		echo "$(basename "$d"): only with FUSO"
done
