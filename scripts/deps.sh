#!/bin/bash
# Install what the build, the VMs and the tests need (Debian 12).  Runs
# apt-get only when something is missing.
set -eu
. "$(dirname "$0")/lib.sh"

pkgs=(build-essential dpkg-dev debhelper gcc make flex bison bc libelf-dev libssl-dev perl
      python3 git ccache cpio rsync xz-utils kmod qemu-system-x86
      iproute2 nftables iptables ethtool procps coreutils gawk iputils-ping
      python3-ply python3-git python3-numpy python3-matplotlib iperf3 mptcpize
      python3-sphinx)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}): run 'make deps' as root"
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2 || die "apt-get update failed"
	apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install failed for: ${missing[*]}"
fi
# Disk: make test from a clean clone peaks at 4.24 GiB under $BUILD
# (measured, Documentation/testing.md: build/src, whole, with the
# kernels' objects; the base tree and the series check's tree, both
# sparse), beside a ccache of about 150 MB; make bench writes its
# results on top.  Fail here, not with "No space left on device" in the
# middle of a kernel build.
need_kib=$((6 * 1024 * 1024))
mkdir -p "$BUILD"
have_kib=$(du -sk "$BUILD" 2>/dev/null | cut -f1)
free_kib=$(df -Pk "$BUILD" | awk 'NR == 2 { print $4 }')
[ -n "$free_kib" ] || die "cannot read the free space of $BUILD (df)"
if [ $((free_kib + have_kib)) -lt "$need_kib" ]; then
	die "not enough disk space: $BUILD has $((have_kib / 1024)) MiB, its file system $((free_kib / 1024)) MiB free; the build needs about $((need_kib / 1024)) MiB in all (free some space, or set BUILD= to a larger file system)"
fi
log "disk: $((free_kib / 1024 / 1024)) GiB free for $BUILD"
# The base tree package is pinned; base-tree.sh installs it when needed.
log "dependencies present"
