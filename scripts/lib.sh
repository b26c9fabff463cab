# shellcheck shell=bash
# Common helpers for the FUSO scripts.  Source it; do not run it.

set -o pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# The pristine base tree (a git repository whose commit tagged "base" is the
# unmodified source) and the development tree (a worktree of it with
# patches/ applied and the FUSO core linked in).
BASE_DIR=$BUILD/base
SRC=$BUILD/src

# shellcheck source=scripts/base.env
. "$TOP/scripts/base.env"

log() { printf '[fuso %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[fuso] ERROR: %s\n' "$*" >&2; exit 1; }

# Kernel object directories live inside the source tree, so that kbuild uses
# the relative srctree ".." and ccache hits across trees and clones.
obj_dir() { # TREE TARGET
	printf '%s/.obj-%s\n' "$1" "$2"
}

# make arguments for a target: qemu (x86_64) or uml.
kmake_args() {
	case "$1" in
	qemu*) echo "ARCH=x86_64" ;;
	uml*) echo "ARCH=um SUBARCH=x86_64" ;;
	*) die "unknown target '$1' (want qemu or uml)" ;;
	esac
}

setup_ccache() {
	if command -v ccache >/dev/null; then
		export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
		export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$BUILD}
		export CCACHE_NOHASHDIR=1
		# Depend mode: on a miss ccache runs only the compiler and
		# takes the headers from its -MMD output, where the default
		# runs the preprocessor first.  Measured on 2 cores (net/ipv4
		# and net/core of the qemu kernel, empty cache): 93 s in the
		# default mode, 57 s in depend mode, 60-67 s without ccache;
		# a hit costs the same.  What it gives up, a hit for the same
		# preprocessed text under another config, the series check
		# gets from Kbuild instead (scripts/patches.sh).
		export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
		mkdir -p "$CCACHE_DIR"
		# a cold make test leaves about 150 MB of cache (compressed);
		# a developer's many configs and series checks fill more over
		# time: raise the limit for our builds only, and only if the
		# user set none (ccache -M would rewrite their ccache.conf)
		if [ -z "${CCACHE_MAXSIZE:-}" ] &&
		   ccache -p 2>/dev/null | grep -q '^(default) max_size '; then
			export CCACHE_MAXSIZE=8G
		fi
		KCC="ccache gcc"
	else
		log "ccache not found: building without it"
		KCC=gcc
	fi
}

# Overlay: files kept in this repository and linked into the tree, each
# added whole by one patch.  Prints "repo_path tree_path patch" lines from
# patches/overlay.
overlay_entries() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/overlay" | awk '$3 != "series"'
}

# Files that the patches carry, patch by patch, as any kernel file; this
# repository keeps their version after the last patch, for reading (make
# export writes it; make tree and make series check it).  Prints
# "repo_path tree_path" lines: the rows of patches/overlay marked "series".
carried_entries() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/overlay" | awk '$3 == "series" { print $1, $2 }'
}

series_entries() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/series"
}

jobs() { nproc 2>/dev/null || echo 2; }
