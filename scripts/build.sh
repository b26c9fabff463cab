#!/bin/bash
# Configure and build a test kernel (and the MPTCP kselftests).
#
#   build.sh kernel TARGET [--tree DIR] [--nofuso] [--debug|--kcsan] [--w1]
#                          [--goal GOALS] [--objdir NAME]
#   build.sh selftests [--tree DIR]
#
# TARGET is qemu (x86_64 microvm guest) or uml (User-Mode Linux).
# --tree defaults to build/src (made by base-tree.sh src).  The object
# directory is TREE/.obj-TARGET[-nofuso].  The config is tinyconfig plus
# the fragments in scripts/config/; a rebuild reuses an up-to-date tree.
# --debug adds scripts/config/debug.config (KASAN, lockdep, kmemleak; on
# QEMU also debug-x86.config) in TREE/.obj-TARGET-debug; --kcsan adds
# scripts/config/kcsan.config (the concurrency sanitizer, which excludes
# KASAN; QEMU only) in
# TREE/.obj-TARGET-kcsan.  --w1 rebuilds net/mptcp with W=1 and fails on
# any warning.  --goal builds these make goals instead of the image
# (vmlinux: the kernel linked, no bzImage; net/mptcp/: those objects
# compiled; the series check uses both).  --objdir builds in
# TREE/.obj-NAME instead, whatever the variant: one directory that
# switches between CONFIG_MPTCP_FUSO=y and =n rebuilds only what depends
# on the option (the series check).
set -eu
. "$(dirname "$0")/lib.sh"

cmd=${1:-}; shift || true
target=
tree=$SRC
fuso=y
debug=
kcsan=
w1=
goal=
objdir=
case "$cmd" in kernel) target=${1:-}; shift || true ;; esac
while [ $# -gt 0 ]; do
	case "$1" in
	--tree) tree=$(cd "$2" && pwd); shift ;;
	--nofuso) fuso=n ;;
	--debug) debug=1 ;;
	--kcsan) kcsan=1 ;;
	--w1) w1=1 ;;
	--goal | --objdir)
		[ $# -ge 2 ] && [ -n "$2" ] || die "build.sh: $1 needs a value"
		case "$1" in
		--goal) goal=$2 ;;
		--objdir) objdir=$2 ;;
		esac
		shift
		;;
	*) die "build.sh: unknown argument '$1'" ;;
	esac
	shift
done

obj_name() {
	[ -z "$objdir" ] || { echo "$objdir"; return; }
	local n=$target
	[ -n "$debug" ] && n=$n-debug
	[ -n "$kcsan" ] && n=$n-kcsan
	[ "$fuso" = y ] || n=$n-nofuso
	echo "$n"
}

image_path() {
	local obj
	obj=$(obj_dir "$tree" "$(obj_name)")
	case "$target" in
	qemu) echo "$obj/arch/x86/boot/bzImage" ;;
	uml) echo "$obj/linux" ;;
	*) die "unknown target '$target' (want qemu or uml)" ;;
	esac
}

fragments() {
	local cfg=$TOP/scripts/config
	echo "$cfg/common.config" "$cfg/$target.config"
	[ "$fuso" = y ] && echo "$cfg/fuso.config" || echo "$cfg/nofuso.config"
	[ -z "$debug" ] || echo "$cfg/debug.config"
	[ -z "$debug" ] || [ "$target" != qemu ] || echo "$cfg/debug-x86.config"
	[ -z "$kcsan" ] || echo "$cfg/kcsan.config"
}

# Every option a fragment asks for must be in the final .config as asked.
check_config() { # OBJ FRAGMENTS...
	local obj=$1 bad=0 line opt val want
	shift
	while read -r line; do
		case "$line" in
		CONFIG_*=*)
			opt=${line%%=*}; want=${line#*=}
			val=$(sed -n "s/^$opt=//p" "$obj/.config" | tail -n1)
			if [ "$val" != "$want" ]; then
				echo "  $opt: asked for '$want', got '${val:-not set}'" >&2
				bad=1
			fi
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			if grep -qE "^$opt=" "$obj/.config"; then
				echo "  $opt: asked to be unset, got '$(grep -E "^$opt=" "$obj/.config")'" >&2
				bad=1
			fi
			;;
		esac
	done < <(cat "$@")
	[ "$bad" = 0 ] || die "Kconfig dropped or changed the options above ($obj/.config); fix scripts/config/*.config"
}

configure() { # OBJ
	local obj=$1 frags stamp args
	frags=$(fragments)
	# shellcheck disable=SC2086
	stamp=$(cat $frags "$tree/net/mptcp/Kconfig" $(ls "$tree/net/mptcp/Kconfig.fuso" 2>/dev/null) |
		sha256sum | cut -d' ' -f1)
	if [ -f "$obj/.config" ] && [ "$(cat "$obj/.fuso-config-stamp" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	# A config this directory had before (--objdir switches): put it
	# back; Kbuild's syncconfig then marks only the options that changed.
	if [ -f "$obj/.fuso-config-$stamp" ]; then
		cp "$obj/.fuso-config-$stamp" "$obj/.config"
		echo "$stamp" >"$obj/.fuso-config-stamp"
		return 0
	fi
	args=$(kmake_args "$target")
	log "configuring $target kernel in $obj (tinyconfig + $(echo "$frags" | xargs -n1 basename | tr '\n' ' '))"
	# In a scratch directory: make tinyconfig in a built one makes Kbuild
	# rebuild every object, where a new .config alone makes it rebuild
	# those that read an option that changed.
	local tmp=$obj.cfg
	rm -rf "$tmp"
	mkdir -p "$tmp" "$obj"
	# shellcheck disable=SC2086
	make -s -C "$tree" O="$tmp" $args tinyconfig >/dev/null
	# shellcheck disable=SC2086
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$tmp" "$tmp/.config" $frags >/dev/null
	# shellcheck disable=SC2086
	make -s -C "$tree" O="$tmp" $args olddefconfig >/dev/null
	# shellcheck disable=SC2086
	check_config "$tmp" $frags
	cp "$tmp/.config" "$obj/.config"
	cp "$tmp/.config" "$obj/.fuso-config-$stamp"
	rm -rf "$tmp"
	echo "$stamp" >"$obj/.fuso-config-stamp"
}

build_kernel() {
	local obj args t0 img
	[ "$tree" = "$SRC" ] && "$TOP/scripts/base-tree.sh" src
	[ -f "$tree/Makefile" ] || die "no kernel tree at $tree"
	[ -z "$kcsan" ] || [ "$target" = qemu ] || die "the KCSAN kernel is for QEMU only (UML has no KCSAN)"
	[ -z "$debug" ] || [ -z "$kcsan" ] || die "--debug and --kcsan are two kernels: KCSAN excludes KASAN"
	obj=$(obj_dir "$tree" "$(obj_name)")
	configure "$obj"
	setup_ccache
	args=$(kmake_args "$target")
	t0=$(date +%s)
	log "building $target kernel (FUSO=$fuso${debug:+, debug}${kcsan:+, KCSAN}) in $obj, -j$(jobs)"
	local image_goal=bzImage
	[ "$target" = uml ] && image_goal=linux
	# shellcheck disable=SC2086 # GOALS is a list
	if ! make -s -C "$tree" O="$obj" $args CC="$KCC" -j"$(jobs)" ${goal:-$image_goal}; then
		die "kernel build failed ($target, FUSO=$fuso, tree $tree${goal:+, goals: $goal})"
	fi
	if [ -n "$goal" ]; then
		log "built $goal in $obj in $(($(date +%s) - t0)) s"
		[ -z "$w1" ] || die "--w1 goes with the image, not with --goal"
		return 0
	fi
	img=$(image_path)
	log "built $img in $(($(date +%s) - t0)) s"
	if [ -n "$w1" ]; then
		local out
		log "W=1 build of net/mptcp/"
		# Force the objects to rebuild under W=1; ccache keeps it cheap.
		find "$obj/net/mptcp" -name '*.o' -delete 2>/dev/null || true
		# shellcheck disable=SC2086
		out=$(make -s -C "$tree" O="$obj" $args CC="$KCC" W=1 -j"$(jobs)" net/mptcp/ 2>&1) ||
			{ echo "$out" >&2; die "W=1 build of net/mptcp failed"; }
		if echo "$out" | grep -E 'warning:' >&2; then
			die "W=1 warnings in net/mptcp (above)"
		fi
		find "$obj/net/mptcp" -name '*.o' -delete 2>/dev/null || true
		# shellcheck disable=SC2086
		make -s -C "$tree" O="$obj" $args CC="$KCC" -j"$(jobs)" $image_goal
		log "W=1: net/mptcp has no warnings"
	fi
}

build_selftests() {
	local obj kst out
	[ "$tree" = "$SRC" ] && "$TOP/scripts/base-tree.sh" src
	target=qemu
	obj=$(obj_dir "$tree" qemu)
	# the uapi headers need the configured tree, not a built kernel
	configure "$obj"
	kst=$obj/kselftest
	log "installing uapi headers and building the net/mptcp kselftests into $kst"
	make -s -C "$tree" O="$obj" ARCH=x86_64 headers >/dev/null
	out=$(make -s -C "$tree/tools/testing/selftests" TARGETS=net/mptcp O="$obj/kselftest-build" \
		KHDR_INCLUDES="-isystem $obj/usr/include" \
		INSTALL_PATH="$kst" install 2>&1) || { echo "$out" >&2; die "kselftest build failed"; }
	[ -x "$kst/run_kselftest.sh" ] || die "kselftest install produced no run_kselftest.sh"
	# rsync copies links that point outside the tree; make sure of it.
	[ -f "$kst/net/mptcp/fuso.sh" ] && [ ! -L "$kst/net/mptcp/fuso.sh" ] ||
		die "fuso.sh was not installed as a file into $kst/net/mptcp"
	log "kselftests ready: $kst/run_kselftest.sh"
}

case "$cmd" in
kernel) [ -n "$target" ] || die "build.sh kernel needs a target (qemu or uml)"; build_kernel ;;
selftests) build_selftests ;;
*) echo "usage: $0 kernel qemu|uml [--tree DIR] [--nofuso] [--debug|--kcsan] [--w1] [--goal GOALS] | selftests" >&2; exit 2 ;;
esac
