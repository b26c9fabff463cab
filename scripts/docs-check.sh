#!/bin/bash
# The documentation check of make check (and of the suite's step docs):
# the networking book built with Sphinx (make SPHINXDIRS=networking
# htmldocs), in the FUSO tree and in the base tree; a warning or error that
# the FUSO tree's build has and the base tree's has not fails, whatever
# file it is in (line numbers aside, since the series moves lines).
#
#   scripts/docs-check.sh          only the documents the series adds or
#                                  changes (Sphinx's include_patterns, both
#                                  trees the same list): seconds
#   scripts/docs-check.sh --all    the whole networking book: minutes
#                                  (make check, make test-full)
#
# What the short form cannot see: a warning that the series causes in a
# document it does not change, such as a label it adds that another
# document already defines (Sphinx reports the second one it reads).
# The series adds no label; --all checks that.
set -eu
. "$(dirname "$0")/lib.sh"

all=
case "${1:-}" in
--all) all=1 ;;
"") ;;
*) die "docs-check.sh: unknown argument '$1' (want --all or nothing)" ;;
esac
command -v sphinx-build >/dev/null ||
	die "sphinx-build not found: apt-get install python3-sphinx (make deps installs it)"
"$TOP/scripts/base-tree.sh" src
[ -f "$BASE_DIR/Makefile" ] || die "no base tree at $BASE_DIR"

# The documents the series adds or changes, relative to networking/
docs=$( { git -C "$SRC" diff --name-only base HEAD -- Documentation/networking/
	overlay_entries | awk '{ print $2 }' | grep '^Documentation/networking/'; } |
	sed 's#^Documentation/networking/##' | grep '\.rst$' | sort -u | paste -sd, -)
[ -n "$docs" ] || die "the series changes no document under Documentation/networking"
opts=
[ -n "$all" ] || opts="-D include_patterns=$docs"

# build_docs TREE OBJ LOG: the networking book of TREE; its messages in LOG
build_docs() {
	local t0
	t0=$(date +%s)
	log "htmldocs (networking${all:-, only $docs}) of $1"
	rm -rf "$2"
	mkdir -p "$2"
	make -s -C "$1" O="$2" SPHINXDIRS=networking ${opts:+SPHINXOPTS="$opts"} htmldocs >"$3" 2>&1 ||
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
# incremental build would compare a partial list with a whole one, so
# both builds are whole ones, each time.
obj=$(obj_dir "$SRC" docs)
bobj=$(obj_dir "$SRC" docs-base)
build_docs "$SRC" "$obj" "$obj.log"
build_docs "$BASE_DIR" "$bobj" "$bobj.log"
for f in ${docs//,/ }; do
	[ -s "$obj/Documentation/output/networking/${f%.rst}.html" ] ||
		die "htmldocs wrote no networking/${f%.rst}.html"
done
new=$(comm -23 <(warnings "$obj.log" "$SRC") <(warnings "$bobj.log" "$BASE_DIR"))
if [ -n "$new" ]; then
	echo "$new" >&2
	die "htmldocs: the warnings above are new with the FUSO series"
fi
log "htmldocs: $(warnings "$obj.log" "$SRC" | wc -l) warning(s), all also in the base tree's build; networking/mptcp-fuso.html written"
