#!/bin/bash
# Prepare the kernel trees FUSO builds in.
#
#   base-tree.sh base          unpack the pristine base tree into build/base
#                              (a git repo, commit tagged "base"; its
#                              checkout sparse, see sparse_patterns)
#   base-tree.sh src           build/src: base + patches/series (git am) +
#                              links to the FUSO core files in this repo
#   base-tree.sh pristine DIR  a fresh sparse checkout of the untouched base
#                              at DIR
#   base-tree.sh version       print the base version in use
#
# The base comes from Debian's linux-source-6.12 package (version pinned in
# scripts/base.env), or from KSRC=/path/to/your/linux-6.12 if set.
set -eu
. "$(dirname "$0")/lib.sh"

git_q() { git -c advice.detachedHead=false -c user.name=fuso -c user.email=fuso@localhost "$@"; }

ensure_pkg() {
	local want=${BASE_PKG_VERSION} have
	have=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || true)
	[ "$have" = "$want" ] && return 0
	log "installing $BASE_PKG=$want (found '${have:-none}')"
	if ! apt-get install -y -q --no-install-recommends "$BASE_PKG=$want" >&2; then
		apt-get update -q >&2 || true
		apt-get install -y -q --no-install-recommends "$BASE_PKG=$want" >&2 ||
			die "cannot install $BASE_PKG=$want; set BASE_PKG_VERSION to an available version (apt-cache policy $BASE_PKG) or KSRC to a tree"
	fi
}

cmd_base() {
	local id tarball
	if [ -n "${KSRC:-}" ]; then
		[ -f "$KSRC/Makefile" ] && [ -d "$KSRC/net/mptcp" ] ||
			die "KSRC=$KSRC is not a Linux source tree with net/mptcp"
		# before copying a whole tree: is it a 6.12?
		check_version "$(make -s -C "$KSRC" kernelversion 2>/dev/null)" "KSRC=$KSRC"
		[ ! -f "$KSRC/.config" ] ||
			die "KSRC=$KSRC has a .config: give a clean tree (make mrproper there, or a fresh checkout)"
		id="ksrc:$(cd "$KSRC" && pwd)"
	else
		ensure_pkg
		id="pkg:$BASE_PKG=$BASE_PKG_VERSION"
	fi
	if [ -f "$BASE_DIR/.fuso-base-id" ] && [ "$(cat "$BASE_DIR/.fuso-base-id")" = "$id" ] &&
		git -C "$BASE_DIR" rev-parse -q --verify base >/dev/null; then
		sparse_tree "$BASE_DIR" # a base from before the trees were sparse
		return 0
	fi
	# a new base (KSRC or BASE_PKG_VERSION changed) resets the development
	# tree: not over commits that were never exported
	if [ -d "$SRC/.git" ] || [ -f "$SRC/.git" ]; then
		check_src_exported "the base tree changed ($id)"
	fi
	log "unpacking base tree ($id) into $BASE_DIR"
	rm -rf "$BASE_DIR" "$SRC"
	mkdir -p "$BASE_DIR"
	if [ -n "${KSRC:-}" ]; then
		tar -C "$KSRC" --exclude=.git -cf - . | tar -C "$BASE_DIR" -xf -
	else
		tarball=/usr/src/$BASE_PKG.tar.xz
		[ -f "$tarball" ] || die "$tarball missing after installing $BASE_PKG"
		tar -C "$BASE_DIR" --strip-components=1 -xJf "$tarball"
	fi
	[ -f "$BASE_DIR/.config" ] && die "base tree has a .config: give a clean (mrproper) tree"
	log "recording the base tree in git (one commit, tag 'base')"
	(
		cd "$BASE_DIR"
		git_q init -q -b base-tree .
		printf '/.fuso-*\n/.obj-*\n' >>.git/info/exclude
		git_q add -A -f .
		# no git gc --auto after the commit: it would pack in the
		# background, beside the repack below (two packs of 270 MB,
		# measured) or later beside a kernel build
		git_q -c gc.auto=0 commit -q -m "base: $id"
		git_q tag base
		# one pack: 270 MB, where the loose objects take 600 MB
		git_q repack -a -d -q
		git_q prune-packed
	)
	local kv
	kv=$(make -s -C "$BASE_DIR" kernelversion)
	check_version "$kv" "the base tree"
	sparse_tree "$BASE_DIR"
	printf '%s\n' "$id" >"$BASE_DIR/.fuso-base-id"
	printf 'kernel %s\nsource %s\n' "$kv" "$id" >"$BASE_DIR/.fuso-version"
	log "base tree: Linux $kv ($id)"
}

# Hash of everything that shapes the patched tree's tracked content.
patch_stamp() {
	{
		cat "$BASE_DIR/.fuso-base-id"
		cat "$TOP/patches/series" "$TOP/patches/overlay" "$TOP"/scripts/base-fixes/*.patch
		series_entries | while read -r p; do cat "$TOP/patches/$p"; done
	} | sha256sum | cut -d' ' -f1
}

# The sources that none of the kernels the scripts build compiles: other
# architectures, sound, and the GPU, media, SCSI, staging, InfiniBand,
# Ethernet and Wi-Fi drivers, about 1 GB of a 1.7 GB tree.  The trees that
# only the scripts build in (the base tree, the series check's and the
# patch export's) leave them out with git sparse-checkout, but keep every
# Kconfig and Makefile there, which Kconfig and Kbuild read whatever the
# configuration.  A kernel whose config needs one of them fails to build
# with "No rule to make target"; build/src, where users build kernels of
# their own configs (make deb), stays whole.
sparse_patterns() {
	local d
	printf '%s\n' '/*'
	# crypto/Kconfig sources every architecture's crypto/Kconfig
	for d in 'arch/*' sound drivers/gpu drivers/media drivers/net/ethernet \
		drivers/net/wireless drivers/scsi drivers/staging drivers/infiniband; do
		printf '%s\n' "!/$d/**" "/$d/**/Kconfig*" "/$d/**/Makefile*" "/$d/**/Kbuild*"
	done
	printf '%s\n' '/arch/x86/**' '/arch/um/**'
}

# sparse_tree TREE: check out only sparse_patterns in TREE (idempotent)
sparse_tree() {
	local tree=$1
	if [ "$(git -C "$tree" config --get core.sparseCheckout)" = true ] &&
	   [ "$(git -C "$tree" sparse-checkout list 2>/dev/null)" = "$(sparse_patterns)" ]; then
		return 0
	fi
	sparse_patterns | git_q -C "$tree" sparse-checkout set --no-cone --stdin ||
		die "git sparse-checkout failed in $tree"
}

link_overlay() { # TREE
	local tree=$1 repo_path tree_path _p
	while read -r repo_path tree_path _p; do
		[ -e "$TOP/$repo_path" ] || die "patches/overlay names $repo_path, which does not exist"
		ln -sfn "$TOP/$repo_path" "$tree/$tree_path"
	done < <(overlay_entries)
}

# check_carried TREE REV WHY: each file the patches carry (carried_entries)
# must be, in this repository, what TREE has at REV; WHY says what a
# difference means
check_carried() {
	local tree=$1 rev=$2 why=$3 repo_path tree_path
	while read -r repo_path tree_path; do
		[ -f "$TOP/$repo_path" ] || die "patches/overlay names $repo_path, which does not exist"
		git -C "$tree" cat-file -e "$rev:$tree_path" 2>/dev/null ||
			die "the series does not add $tree_path, which patches/overlay says it carries"
		git -C "$tree" show "$rev:$tree_path" | cmp -s - "$TOP/$repo_path" ||
			die "$repo_path is not the series' own version: $why"
	done < <(carried_entries)
}

# Fixes to the base tree that our test setup needs (not part of FUSO, not in
# the series): scripts/base-fixes/*.patch.  Tags the result "base-fixed";
# the series is developed on top of it.
apply_base_fixes() { # TREE
	local tree=$1 p
	for p in "$TOP"/scripts/base-fixes/*.patch; do
		[ -f "$p" ] || continue
		git_q -C "$tree" am -q "$p" >&2 ||
			die "base fix $(basename "$p") does not apply"
	done
	git_q -C "$tree" tag -f base-fixed >/dev/null
}

apply_series() { # TREE
	local tree=$1 p
	while read -r p; do
		[ -f "$TOP/patches/$p" ] || die "patches/series names $p, which does not exist"
		if ! git_q -C "$tree" am -q --whitespace=nowarn "$TOP/patches/$p" >&2; then
			git_q -C "$tree" am --abort >/dev/null 2>&1 || true
			die "patch $p does not apply to the base tree ($(cat "$BASE_DIR/.fuso-version" | tr '\n' ' '))"
		fi
	done < <(series_entries)
}

# check_version KERNELVERSION WHAT: any 6.12.y; a warning when it is not the
# version tested here
check_version() {
	case "$1" in
	6.12|6.12.*) ;;
	'') die "$2: no kernel version (make kernelversion failed)" ;;
	*) die "$2 is Linux $1; FUSO's patches are for Linux 6.12 (any 6.12.y)" ;;
	esac
	[ "$1" = "$BASE_KERNELVERSION" ] ||
		log "WARNING: $2 is Linux $1; FUSO is tested on $BASE_KERNELVERSION (the patches may need adjusting)"
}

# Resetting the development tree must not lose work: refuse when it has
# commits or changes to tracked files that `make export` has not written to
# patches/ (FUSO_TREE_FORCE=1 resets anyway).  check_src_exported [WHY]
check_src_exported() {
	local head saved why=${1:-patches/ changed}
	[ "${FUSO_TREE_FORCE:-0}" = 1 ] && return 0
	[ -f "$SRC/.fuso-head" ] || return 0 # a tree from before this check
	head=$(git -C "$SRC" rev-parse HEAD)
	saved=$(cat "$SRC/.fuso-head")
	if [ "$head" != "$saved" ] ||
	   [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
		git -C "$SRC" log --oneline "$saved..$head" >&2 2>/dev/null || true
		die "$why, but $SRC has commits or changes that were not exported (above); run 'make export' first, or FUSO_TREE_FORCE=1 to discard them"
	fi
}

cmd_src() {
	cmd_base
	local stamp tree_path
	stamp=$(patch_stamp)
	if [ -d "$SRC" ] && [ -f "$SRC/.fuso-stamp" ] && [ "$(cat "$SRC/.fuso-stamp")" = "$stamp" ]; then
		link_overlay "$SRC" # cheap; repairs a deleted link
		check_carried "$SRC" "$(cat "$SRC/.fuso-head")" \
			"it changed here since the last make export; the patches carry it, so edit $SRC's copy, commit it into its patch (git rebase -i) and run make export, which writes this one"
		return 0
	fi
	if [ -d "$SRC/.git" ] || [ -f "$SRC/.git" ]; then
		check_src_exported
		log "patches changed: resetting $SRC to base and re-applying"
		git_q -C "$SRC" am --abort >/dev/null 2>&1 || true
		git_q -C "$SRC" checkout -q --detach base
		git_q -C "$SRC" reset -q --hard base
		git_q -C "$SRC" clean -fdq -e '/.obj-*' -e '/.fuso-*'
	else
		log "creating the development tree $SRC"
		rm -rf "$SRC"
		git_q -C "$BASE_DIR" worktree prune
		git_q -C "$BASE_DIR" worktree add -q --detach "$SRC" base
		# a new worktree takes the base tree's sparse checkout
		git_q -C "$SRC" sparse-checkout disable ||
			die "git sparse-checkout disable failed in $SRC"
	fi
	rm -f "$SRC/.fuso-stamp"
	# links from a tree made before the patches carried these files
	while read -r _ tree_path; do
		[ ! -L "$SRC/$tree_path" ] || rm -f "$SRC/$tree_path"
	done < <(carried_entries)
	apply_base_fixes "$SRC"
	apply_series "$SRC"
	link_overlay "$SRC"
	check_carried "$SRC" HEAD \
		"patches/ end with another; make export writes the two together, so one of them was edited by hand"
	printf '%s\n' "$stamp" >"$SRC/.fuso-stamp"
	git -C "$SRC" rev-parse HEAD >"$SRC/.fuso-head"
	log "development tree ready: $(series_entries | wc -l) patch(es) applied, FUSO core linked"
}

cmd_pristine() { # DIR
	local dir=${1:?pristine needs a directory}
	cmd_base
	if [ -e "$dir" ]; then
		git_q -C "$BASE_DIR" worktree remove --force "$dir" >/dev/null 2>&1 || rm -rf "$dir"
	fi
	git_q -C "$BASE_DIR" worktree prune
	git_q -C "$BASE_DIR" worktree add -q --detach "$dir" base
	sparse_tree "$dir"
	# The worktree must be byte-identical to the unpacked base.
	[ -z "$(git -C "$dir" status --porcelain)" ] || die "$dir is not pristine"
}

case "${1:-}" in
base) cmd_base ;;
src) cmd_src ;;
pristine) shift; cmd_pristine "$@" ;;
version) cmd_base; cat "$BASE_DIR/.fuso-version" ;;
restamp) patch_stamp >"$SRC/.fuso-stamp"; git -C "$SRC" rev-parse HEAD >"$SRC/.fuso-head" ;; # after patches.sh export
*) echo "usage: $0 base|src|pristine DIR|version|restamp" >&2; exit 2 ;;
esac
