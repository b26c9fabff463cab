#!/bin/bash
# Each patch's fuso.sh on that patch's kernel.
#
#   series-selftests.sh [PATCH...]
#
# The patches carry fuso.sh, fuso_lib.sh and fuso_rr.py patch by patch
# (patches/overlay marks them "series"): a code patch adds its cases with
# its code.  For every commit of build/src that changes fuso.sh (or only
# those numbered PATCH, e.g. 6 or 0006), this builds the UML kernel of
# that commit in a worktree of its own (build/series-selftests, kept for
# ccache-warm rebuilds; sparse, about 700 MB), copies the installed kselftests
# (build/src/.obj-qemu/kselftest, make selftests) with that commit's four
# files of tools/testing/selftests/net/mptcp/ (fuso.sh, fuso_lib.sh,
# fuso_rr.py, mptcp_lib.sh) in place of the last patch's, and runs
# fuso.sh there with every feature expected.  Each run's output is in
# build/test-logs/series-selftests-NNNN.log; the script fails if one run
# does (a failed case, a skip, a kernel report or a timeout).
#
# The last patch's fuso.sh is what make test runs; this checks that the
# patches before it pass their own.  About 5 minutes a patch on 2 cores
# with a warm ccache (make test-full runs it).
set -u
. "$(dirname "$0")/lib.sh"

WT=$BUILD/series-selftests
KST=$SRC/.obj-qemu/kselftest
LOGS=$BUILD/test-logs
D=tools/testing/selftests/net/mptcp
want=()
for a in "$@"; do
	[[ "$a" =~ ^[0-9]{1,4}$ ]] || die "series-selftests.sh: '$a' is not a patch number (6 or 0006)"
	want+=("$((10#$a))")
done

[ -d "$SRC/.git" ] || [ -f "$SRC/.git" ] || die "no development tree at $SRC (run: make tree)"
[ -x "$KST/run_kselftest.sh" ] || die "the kselftests are not installed in $KST (run: make selftests)"
mkdir -p "$LOGS"

# the worktree: made once, by this script (a marker file says so), and
# only ever moved between commits
if [ -e "$WT" ] && [ ! -f "$WT/.fuso-series-selftests" ]; then
	die "$WT exists but was not made by this script: move it away"
fi
if [ ! -e "$WT" ]; then
	log "series-selftests: a worktree for the patches' kernels in $WT"
	# sparse, as the series check's: the UML kernel needs none of the
	# sources left out; build/src's commits are in the same repository
	"$TOP/scripts/base-tree.sh" pristine "$WT" || die "could not make the worktree $WT"
	touch "$WT/.fuso-series-selftests"
fi

commits=()
n=0
for c in $(git -C "$SRC" rev-list --reverse base-fixed..HEAD); do
	n=$((n + 1))
	git -C "$SRC" diff --quiet "$c~1" "$c" -- "$D/fuso.sh" && continue
	if [ ${#want[@]} -gt 0 ]; then
		case " ${want[*]} " in *" $n "*) ;; *) continue ;; esac
	fi
	commits+=("$n:$c")
done
[ ${#commits[@]} -gt 0 ] || die "series-selftests: no patch that changes fuso.sh${want[*]:+ among ${want[*]}}"
log "series-selftests: ${#commits[@]} patch(es), about $((${#commits[@]} * 5)) min"

fail=()
for nc in "${commits[@]}"; do
	n=${nc%%:*} c=${nc#*:}
	p=$(printf %04d "$n")
	log "series-selftests: patch $p, $(git -C "$SRC" log -1 --format=%s "$c")"
	git -C "$WT" checkout -q --detach "$c" || die "git checkout $c in $WT failed"
	# the overlay files that this patch or one before it adds whole
	# (Kconfig.fuso), linked as make tree links them
	while read -r repo_path tree_path intro; do
		[ "$((10#${intro%%-*}))" -le "$n" ] || continue
		mkdir -p "$(dirname "$WT/$tree_path")"
		ln -sfn "$TOP/$repo_path" "$WT/$tree_path"
	done < <(overlay_entries)
	if ! "$TOP/scripts/build.sh" kernel uml --tree "$WT" >"$LOGS/series-selftests-$p-build.log" 2>&1; then
		tail -n 20 "$LOGS/series-selftests-$p-build.log" >&2
		die "series-selftests: patch $p's UML kernel does not build"
	fi
	kst=$WT/.kst
	rm -rf "$kst"
	cp -a "$KST" "$kst"
	for f in fuso.sh fuso_lib.sh fuso_rr.py mptcp_lib.sh; do
		git -C "$WT" show "$c:$D/$f" >"$kst/net/mptcp/$f" ||
			die "patch $p has no $D/$f"
	done
	chmod +x "$kst/net/mptcp/fuso.sh" "$kst/net/mptcp/fuso_rr.py"
	out=$LOGS/series-selftests-$p.log
	(cd "$kst" && "$TOP/scripts/vm" --uml --kernel "$(obj_dir "$WT" uml)/linux" --log "$out" -- \
		env SELFTESTS_MPTCP_LIB_EXPECT_ALL_FEATURES=1 \
		./run_kselftest.sh -t net/mptcp:fuso.sh) >/dev/null
	rc=$?
	if "$TOP/scripts/ktap-check.py" kselftest "$out" fuso.sh >"$out.check" 2>&1 && [ $rc = 0 ]; then
		log "series-selftests: patch $p: $(tail -n 1 "$out.check")"
	else
		log "series-selftests: patch $p FAILED (VM runner exit $rc); failed cases:"
		grep -E '^(# )*not ok' "$out" | sed 's/^/   | /' >&2
		fail+=("$p")
	fi
done
rm -rf "$WT/.kst"
[ ${#fail[@]} = 0 ] || die "series-selftests: fuso.sh failed on patch(es) ${fail[*]} (logs: $LOGS/series-selftests-*.log)"
log "series-selftests: every patch's fuso.sh passed on its kernel"
