#!/bin/bash
# The documentation check of make check (and of the suite's step docs):
# Documentation/networking built with Sphinx (make SPHINXDIRS=networking
# htmldocs), in the FUSO tree and in the base tree; a warning or error that
# the FUSO tree's build has and the base tree's has not fails, whatever
# file it is in (line numbers aside, since the series moves lines).
#
#   scripts/docs-check.sh
set -eu
. "$(dirname "$0")/lib.sh"

command -v sphinx-build >/dev/null ||
	die "sphinx-build not found: apt-get install python3-sphinx (make deps installs it)"
"$TOP/scripts/base-tree.sh" src
[ -f "$BASE_DIR/Makefile" ] || die "no base tree at $BASE_DIR"

# build_docs TREE OBJ LOG: the networking book of TREE; its messages in LOG
build_docs() {
	local t0
	t0=$(date +%s)
	log "htmldocs (networking) of $1"
	make -s -C "$1" O="$2" SPHINXDIRS=networking htmldocs >"$3" 2>&1 ||
		{ tail -n 20 "$3" >&2; die "make htmldocs failed in $1 (log: $3)"; }
	log "  done in $(($(date +%s) - t0)) s"
}

# warnings LOG TREE: its warnings and errors, tree prefix and line numbers
# dropped, one of each
warnings() {
	grep -E '(WARNING|ERROR|CRITICAL)' "$1" |
		sed -E "s#$2/##g; s#\.rst:[0-9]+:#.rst:#; s#:[0-9]+: #: #" | sort -u
}

# Sphinx reports a file's warnings only when it reads the file again: an
# incremental build would compare a partial list with a whole one.  So
# the FUSO tree's build is always whole; the base tree's list is kept,
# per base commit, after a whole build.
obj=$(obj_dir "$SRC" docs)
bobj=$(obj_dir "$SRC" docs-base)
rm -rf "$obj"
mkdir -p "$obj"
build_docs "$SRC" "$obj" "$obj/htmldocs.log"
key=$(git -C "$BASE_DIR" rev-parse HEAD 2>/dev/null) || die "the base tree at $BASE_DIR is not a git tree"
base_list=$bobj/warnings-$key
if [ ! -f "$base_list" ]; then
	rm -rf "$bobj"
	mkdir -p "$bobj"
	build_docs "$BASE_DIR" "$bobj" "$bobj/htmldocs.log"
	warnings "$bobj/htmldocs.log" "$BASE_DIR" >"$base_list.new"
	mv "$base_list.new" "$base_list"
else
	log "base tree's warnings: $base_list (a whole build of this base commit)"
fi
for f in mptcp-fuso mptcp-sysctl mptcp; do
	[ -s "$obj/Documentation/output/networking/$f.html" ] ||
		die "htmldocs wrote no networking/$f.html"
done
new=$(comm -23 <(warnings "$obj/htmldocs.log" "$SRC") "$base_list")
if [ -n "$new" ]; then
	echo "$new" >&2
	die "htmldocs: the warnings above are new with the FUSO series"
fi
log "htmldocs: $(warnings "$obj/htmldocs.log" "$SRC" | wc -l) warning(s), all also in the base tree's build; networking/mptcp-fuso.html written"
