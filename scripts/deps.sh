#!/bin/bash
# Install what the build, the VMs and the tests need (Debian 12).  Runs
# apt-get only when something is missing.
set -eu
. "$(dirname "$0")/lib.sh"

pkgs=(build-essential gcc make flex bison bc libelf-dev libssl-dev perl
      python3 git ccache cpio rsync xz-utils kmod qemu-system-x86
      iproute2 nftables iptables ethtool procps coreutils gawk iputils-ping
      python3-ply python3-git python3-numpy python3-matplotlib)

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
# The base tree package is pinned; base-tree.sh installs it when needed.
log "dependencies present"
