#!/bin/bash
# The patch series.
#
#   patches.sh export         write build/src's commits (base-fixed..HEAD) to
#                             patches/ and patches/series, and the files
#                             they carry (patches/overlay, "series") as
#                             HEAD has them to this repo; new files that
#                             one patch adds whole stay in this repo
#                             (patches/overlay)
#   patches.sh series OUTDIR  write a git am-able series to OUTDIR: the
#                             patches of patches/series, each with the new
#                             files it introduces (patches/overlay) added,
#                             and a cover letter; OUTDIR/net/: the base
#                             fixes alone, as a series for net
#   patches.sh verify DIR     (FUSO_SERIES_VARIANT=plain|debug|uml: the
#                             kernel config, FUSO_SERIES_FULL=1: link both ways at
#                             every commit) apply DIR to a fresh pristine tree with
#                             git am, then on top of scripts/base-fixes,
#                             and build every commit that changes
#                             the kernel, with FUSO=y and =n (before
#                             CONFIG_MPTCP_FUSO exists, without it); what
#                             each commit builds: above cmd_verify
#   patches.sh checkpatch DIR checkpatch --strict on every patch of DIR
set -eu
. "$(dirname "$0")/lib.sh"

git_q() { git -c advice.detachedHead=false -c user.name="FUSO Team" -c user.email=fuso-team@example.org "$@"; }

cmd_export() {
	local n repo_path tree_path
	[ -d "$SRC/.git" ] || [ -f "$SRC/.git" ] || die "no development tree at $SRC (run: make tree)"
	n=$(git -C "$SRC" rev-list --count base-fixed..HEAD)
	[ "$n" -gt 0 ] || die "$SRC has no commits on top of base-fixed"
	[ -z "$(git -C "$SRC" status --porcelain --untracked-files=no)" ] ||
		die "$SRC has uncommitted changes to tracked files: commit them first"
	rm -f "$TOP"/patches/*.patch
	git -C "$SRC" format-patch -q --zero-commit --no-signature --filename-max-length=100 -o "$TOP/patches" base-fixed..HEAD
	{
		echo "# Apply order.  Edit in build/src, commit, then: make export"
		(cd "$TOP/patches" && ls ./*.patch | sed 's|^\./||')
	} >"$TOP/patches/series"
	while read -r repo_path tree_path; do
		git -C "$SRC" show "HEAD:$tree_path" >"$TOP/$repo_path" ||
			die "$SRC's HEAD has no $tree_path, which patches/overlay says the series carries"
	done < <(carried_entries)
	"$TOP/scripts/base-tree.sh" restamp
	log "exported $n patch(es) to patches/ and the carried files ($(carried_entries | awk '{ print $1 }' | tr '\n' ' '| sed 's/ $//')) to this repository"
}

cmd_series() { # OUTDIR
	local out=${1:?series needs an output directory} work=$BUILD/series-work
	out=$(realpath -m "$out") # git format-patch runs in $work
	local p repo_path tree_path intro added
	"$TOP/scripts/base-tree.sh" pristine "$work"
	while read -r p; do
		git_q -C "$work" am -q "$TOP/patches/$p" ||
			die "patch $p does not apply to the pristine base tree"
		added=0
		while read -r repo_path tree_path intro; do
			[ "$intro" = "$p" ] || continue
			mkdir -p "$(dirname "$work/$tree_path")"
			cp -L "$TOP/$repo_path" "$work/$tree_path"
			git -C "$work" add -f "$tree_path"
			added=1
		done < <(overlay_entries)
		[ "$added" = 0 ] || git_q -C "$work" commit -q --amend --no-edit
	done < <(series_entries)
	while read -r repo_path tree_path; do
		cmp -s "$work/$tree_path" "$TOP/$repo_path" ||
			die "$repo_path is not the $tree_path that the series ends with: edit it in build/src, commit it into its patch and run make export"
	done < <(carried_entries)
	# Every overlay file must have landed in some patch.
	while read -r repo_path tree_path intro; do
		series_entries | grep -qxF "$intro" ||
			die "patches/overlay: $repo_path is introduced by '$intro', which is not in patches/series"
	done < <(overlay_entries)
	rm -rf "$out"
	mkdir -p "$out"
	git -C "$work" format-patch -q --zero-commit --no-signature --filename-max-length=100 \
		--cover-letter -o "$out" base..HEAD
	cover_letter "$out/0000-cover-letter.patch"
	log "wrote $(ls "$out"/*.patch | grep -vc "/0000-cover-letter\\.patch$") git am-able patches and a cover letter to $out"
	net_series "$work" "$out/net"
	# a sparse tree of about 660 MB that nothing reads again: make series makes it anew
	git_q -C "$BASE_DIR" worktree remove --force "$work" ||
		die "could not remove the worktree $work"
}

# net_series TREE OUTDIR: the base fixes, the series' first patches (those
# with a Fixes: tag, which must all come before the others), once more as
# a series of their own for net, with patches/cover-letter-net
net_series() {
	local work=$1 out=$2 c n=0 last= late
	for c in $(git -C "$work" rev-list --reverse base..HEAD); do
		git -C "$work" log -1 --format=%B "$c" | grep -q '^Fixes: ' || break
		n=$((n + 1))
		last=$c
	done
	late=$(git -C "$work" log --format='%h %s' --grep='^Fixes: ' "${last:-base}..HEAD")
	[ -z "$late" ] || die "patches with a Fixes: tag must come first (the net series), but these follow FUSO's: $late"
	[ "$n" -gt 0 ] || return 0
	git -C "$work" format-patch -q --zero-commit --no-signature --filename-max-length=100 \
		--cover-letter --subject-prefix="PATCH net" -o "$out" "base..$last"
	cover_letter "$out/0000-cover-letter.patch" "$TOP/patches/cover-letter-net"
	log "wrote the $n base fixes as a net series of their own to $out"
}

# cover_letter FILE [TEXT]: put TEXT (default patches/cover-letter: subject,
# blank line, body)
# in place of format-patch's *** SUBJECT HERE *** and *** BLURB HERE ***
cover_letter() { # FILE [TEXT]
	local f=$1 src=${2:-$TOP/patches/cover-letter}
	[ -s "$src" ] || die "no $src: the cover letter's subject and text"
	grep -q '\*\*\* SUBJECT HERE \*\*\*' "$f" && grep -q '\*\*\* BLURB HERE \*\*\*' "$f" ||
		die "$f has no *** SUBJECT HERE *** / *** BLURB HERE *** to fill in"
	python3 - "$f" "$src" <<'PY' || die "could not fill in the cover letter $f"
import sys
f, src = sys.argv[1], sys.argv[2]
text = open(src).read().rstrip("\n")
subject, _, body = text.partition("\n\n")
s = open(f).read()
s = s.replace("*** SUBJECT HERE ***", subject.strip(), 1)
s = s.replace("*** BLURB HERE ***", body.strip(), 1)
open(f, "w").write(s)
PY
}

cmd_checkpatch() { # DIR
	local dir=${1:?checkpatch needs a directory} p bad=0
	dir=$(cd "$dir" && pwd) || die "no directory $1"
	"$TOP/scripts/base-tree.sh" base
	for p in "$dir"/*.patch; do
		# the cover letter is no patch (no diff, no Signed-off-by)
		[ "$(basename "$p")" != 0000-cover-letter.patch ] || continue
		# Two checks are false positives here: FILE_PATH_CHANGES only
		# asks whether MAINTAINERS needs an update (net/mptcp/ is
		# covered by the MPTCP entry), and EMBEDDED_FILENAME fires on
		# 'source "net/mptcp/Kconfig.fuso"' in net/mptcp/Kconfig
		# because the sourced path starts with the file's own name.
		# UNKNOWN_COMMIT_ID: the base tree (Debian's source) has no
		# upstream history to look the Fixes: ids up in; they were
		# checked against the netdev and stable archives
		# (Documentation/testing.md, "The series").
		# Debian's python3 has the ply and git modules spdxcheck.py needs.
		if ! (cd "$BASE_DIR" && PATH=/usr/bin:/bin:$PATH ./scripts/checkpatch.pl --strict --quiet \
			--ignore FILE_PATH_CHANGES,EMBEDDED_FILENAME,UNKNOWN_COMMIT_ID "$p") >&2; then
			echo "checkpatch: $(basename "$p") has the problems above" >&2
			bad=1
		fi
	done
	[ "$bad" = 0 ] || die "checkpatch --strict is not clean"
	log "checkpatch --strict: $(ls "$dir"/*.patch | grep -vc '/0000-cover-letter\.patch$') patches clean"
}

# kernel_changed COMMIT: does COMMIT touch anything a kernel build reads?
# Documentation/ and tools/ (the selftests) are not built into the kernel.
kernel_changed() {
	git -C "$tree" diff --name-only "$1^" "$1" | grep -qvE '^(Documentation|tools)/'
}

# c_only_dirs COMMIT: the directories of the .c files COMMIT changes, if
# those are all it changes in the kernel (no header, Kconfig or Makefile)
c_only_dirs() {
	local f
	f=$(git -C "$tree" diff --name-only "$1^" "$1" | grep -vE '^(Documentation|tools)/')
	echo "$f" | grep -qvE '\.c$' && return 0
	echo "$f" | xargs -r -n1 dirname | sort -u | sed 's,$,/,' | tr '\n' ' ' | sed 's/ $//'
}

# Every commit must build.  What a commit can break decides what is built
# for it:
# - a commit that touches only Documentation/ or tools/: nothing;
# - before CONFIG_MPTCP_FUSO exists (the base fixes): the objects of the
#   directories whose .c files it changes, compiled, when that is all it
#   changes (upstream's build-bisect practice: a header it does not touch
#   cannot break another directory, and the link of the first FUSO
#   commit, which holds its change, catches a missing definition); else
#   the kernel, linked (vmlinux).  Compiling net/mptcp/ alone also spares
#   the rebuild of everything that reads include/net/mptcp.h, which the
#   first FUSO commit changes;
# - after: with CONFIG_MPTCP_FUSO=y the kernel, linked, at every commit;
#   with =n the kernel, linked, at the first commit that has the option
#   and at the last that changes the kernel (its image is the one
#   nofuso_check boots).  A commit in between that breaks =n and a later
#   one that repairs it go unnoticed here: each =n build in between costs
#   two switches of the option (Documentation/testing.md).
# make test-full (FUSO_SERIES_FULL=1) links every commit, both ways.
# One object directory serves both values of the option, and the commits
# are built from the last to the first: the first build is the whole
# kernel of the final series, which make test's (uml) takes from the
# ccache that build-uml filled, and every other
# build is incremental (Kbuild rebuilds what a checkout changed, and on
# a switch of CONFIG_MPTCP_FUSO the hundred objects that read it).
cmd_verify() { # DIR
	local dir=${1:?verify needs a directory} c n i first_fuso= last_kernel= dirs t0 p start
	local -a commits
	series_target >/dev/null # a bad FUSO_SERIES_VARIANT stops here, not in a \$(...)
	tree=$BUILD/series-check
	dir=$(cd "$dir" && pwd)
	"$TOP/scripts/base-tree.sh" pristine "$tree"
	git_q -C "$tree" am -q $(ls "$dir"/*.patch | grep -v '/0000-cover-letter\.patch$') ||
		die "the series in $dir does not apply to the pristine base tree with git am"
	# Built on the tree the tests run: the base plus scripts/base-fixes
	# (the test setup's: UML's XSTATE room and tick, its RNG, a TSQ fix),
	# so that the last commit is build/src's kernel, which ccache holds
	# (one of them changes a header every UML object reads).
	git_q -C "$tree" checkout -q --detach base
	for p in "$TOP"/scripts/base-fixes/*.patch; do
		[ -f "$p" ] || continue
		git_q -C "$tree" am -q "$p" || die "base fix $(basename "$p") does not apply"
	done
	start=$(git -C "$tree" rev-parse HEAD)
	git_q -C "$tree" am -q $(ls "$dir"/*.patch | grep -v '/0000-cover-letter\.patch$') ||
		die "the series in $dir does not apply on top of scripts/base-fixes with git am"
	mapfile -t commits < <(git -C "$tree" rev-list --reverse "$start..HEAD")
	n=${#commits[@]}
	for i in "${!commits[@]}"; do
		c=${commits[$i]}
		kernel_changed "$c" || continue
		last_kernel=$c
		if [ -z "$first_fuso" ] && git -C "$tree" cat-file -e "$c:net/mptcp/Kconfig.fuso" 2>/dev/null; then
			first_fuso=$c
		fi
	done
	[ -n "$last_kernel" ] || die "no commit of the series changes the kernel"
	log "series applies to the pristine tree; building its $n commits, the last first"
	for ((i = n - 1; i >= 0; i--)); do
		c=${commits[$i]}
		t0=$(date +%s)
		log "[$((i + 1))/$n] $(git -C "$tree" log -1 --format=%s "$c")"
		if ! kernel_changed "$c"; then
			log "[$((i + 1))/$n] only Documentation/ and tools/ change: no kernel build"
			continue
		fi
		git_q -C "$tree" checkout -q --detach "$c"
		if [ ! -f "$tree/net/mptcp/Kconfig.fuso" ]; then
			# a preparatory patch, before CONFIG_MPTCP_FUSO exists
			dirs=$(c_only_dirs "$c")
			if [ -n "$dirs" ] && [ "${FUSO_SERIES_FULL:-0}" != 1 ]; then
				kbuild --nofuso --goal "$dirs" ||
					die "commit $((i + 1))/$n of the series does not compile ($dirs)"
				log "[$((i + 1))/$n] no CONFIG_MPTCP_FUSO yet, only .c files change: compiled $dirs ($(($(date +%s) - t0)) s)"
				continue
			fi
			kbuild --nofuso --goal vmlinux ||
				die "commit $((i + 1))/$n of the series does not build"
			log "[$((i + 1))/$n] no CONFIG_MPTCP_FUSO yet: built without it ($(($(date +%s) - t0)) s)"
			continue
		fi
		kbuild --goal vmlinux ||
			die "commit $((i + 1))/$n of the series does not build"
		if [ "$c" = "$first_fuso" ] || [ "$c" = "$last_kernel" ] || [ "${FUSO_SERIES_FULL:-0}" = 1 ]; then
			if [ "$c" = "$last_kernel" ]; then
				kbuild --nofuso --goal "$(series_image)" ||
					die "commit $((i + 1))/$n of the series does not build with CONFIG_MPTCP_FUSO=n"
				rm -f "$tree"/.fuso-*-nofuso
				cp "$(obj_dir "$tree" "$(series_obj)")/$(series_image_path)" \
					"$tree/.fuso-$(series_target)-nofuso"
			else
				kbuild --nofuso --goal vmlinux ||
					die "commit $((i + 1))/$n of the series does not build with CONFIG_MPTCP_FUSO=n"
			fi
			log "[$((i + 1))/$n] built with CONFIG_MPTCP_FUSO=y and =n ($(($(date +%s) - t0)) s)"
			continue
		fi
		log "[$((i + 1))/$n] built with CONFIG_MPTCP_FUSO=y ($(($(date +%s) - t0)) s)"
	done
	[ -f "$tree/.fuso-$(series_target)-nofuso" ] || die "no CONFIG_MPTCP_FUSO=n image of the series"
	if [ "${FUSO_SERIES_FULL:-0}" = 1 ]; then
		log "every commit of the series builds with CONFIG_MPTCP_FUSO=y and =n"
	else
		log "every commit of the series builds with CONFIG_MPTCP_FUSO=y, and with =n its first and last kernel commits"
	fi
}

# The series check's kernel: the plain QEMU test kernel's config, the
# debug kernel's (FUSO_SERIES_VARIANT=debug), or the UML test kernel's
# (uml, what make test uses: the UML kernel is the one the suite builds
# first and the cheapest to rebuild when a commit changes a header that
# half of net/ reads, and the x86 debug kernel still compiles the final
# series).  One object directory per variant.
series_target() {
	case "${FUSO_SERIES_VARIANT:-plain}" in
	plain | debug) echo qemu ;;
	uml) echo uml ;;
	*) die "FUSO_SERIES_VARIANT: '${FUSO_SERIES_VARIANT}' is not plain, debug or uml" ;;
	esac
}
series_obj() {
	case "${FUSO_SERIES_VARIANT:-plain}" in
	uml) echo uml-series ;;
	*) echo "qemu-series-${FUSO_SERIES_VARIANT:-plain}" ;;
	esac
}
# the bootable image: its make goal, and its path in the object directory
series_image() {
	case "$(series_target)" in
	qemu) echo bzImage ;;
	uml) echo linux ;;
	esac
}
series_image_path() {
	case "$(series_target)" in
	qemu) echo arch/x86/boot/bzImage ;;
	uml) echo linux ;;
	esac
}

# kbuild ARGS...: build.sh kernel in the series check's object directory
kbuild() {
	local v=()
	[ "${FUSO_SERIES_VARIANT:-plain}" != debug ] || v=(--debug)
	"$TOP/scripts/build.sh" kernel "$(series_target)" --tree "$tree" --objdir "$(series_obj)" "${v[@]}" "$@"
}

case "${1:-}" in
export) cmd_export ;;
series) shift; cmd_series "$@" ;;
verify) shift; cmd_verify "$@" ;;
checkpatch) shift; cmd_checkpatch "$@" ;;
*) echo "usage: $0 export | series OUTDIR | verify DIR | checkpatch DIR" >&2; exit 2 ;;
esac
