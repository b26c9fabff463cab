#!/bin/bash
# Build installable Debian packages of a FUSO kernel (Kbuild's bindeb-pkg).
#
#   deb.sh [--config FILE] [--out DIR] [--localversion STR]
#
# The tree is build/src (base tree + patches/, or KSRC's tree: see
# scripts/base-tree.sh).  The config starts from FILE (default: the running
# kernel's /boot/config-$(uname -r)); MPTCP and CONFIG_MPTCP_FUSO are turned
# on, everything else is the user's, and olddefconfig answers new options.
# A Debian distribution config names Debian's signing certificates, which a
# tree outside Debian's build does not have: those two strings are cleared
# (the kernel then makes its own module signing key, as Kbuild does).
# The packages (linux-image-*, linux-headers-*, linux-libc-dev) go to DIR
# (default build/deb); the kernel release ends in --localversion (default
# -fuso), so it installs next to the distribution's kernel.
set -eu
. "$(dirname "$0")/lib.sh"

config=/boot/config-$(uname -r)
out=$BUILD/deb
localversion=-fuso
while [ $# -gt 0 ]; do
	case "$1" in
	--config | --out | --localversion)
		[ $# -ge 2 ] && [ -n "$2" ] || die "deb.sh: $1 needs a value"
		case "$1" in
		--config) config=$2 ;;
		--out) out=$2 ;;
		--localversion) localversion=$2 ;;
		esac
		shift
		;;
	-h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "deb.sh: unknown argument '$1' (see deb.sh --help)" ;;
	esac
	shift
done

[ -f "$config" ] || die "no kernel config at '$config'.  Pass one: make deb CONFIG=FILE
  (the /boot/config-* of the machine that will run FUSO, or a tree's .config)"
grep -q '^CONFIG_NET=y' "$config" ||
	die "'$config' is not a kernel config with networking (no CONFIG_NET=y)"
case "$localversion" in
*[!A-Za-z0-9.+-]*) die "--localversion '$localversion': only letters, digits, '.', '+' and '-'" ;;
esac
command -v dpkg-buildpackage >/dev/null ||
	die "dpkg-buildpackage not found: apt-get install dpkg-dev (make deps installs it)"
# the packages' directory: ours, or an empty one
if [ -e "$out" ] && [ ! -f "$out/.fuso-deb" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	die "--out '$out' exists, is not empty and was not made by deb.sh: refusing to write packages there"
fi

"$TOP/scripts/base-tree.sh" src
tree=$SRC
obj=$(obj_dir "$tree" deb)
mkdir -p "$obj" "$out"
touch "$out/.fuso-deb"

# A new config only when the user's changed: else keep the objects.
if ! cmp -s "$config" "$obj/.fuso-config-source"; then
	log "configuring from $config in $obj"
	cp "$config" "$obj/.config"
	cp "$config" "$obj/.fuso-config-source"
	sc=$tree/scripts/config
	"$sc" --file "$obj/.config" --enable INET --enable MPTCP --enable MPTCP_FUSO
	grep -q '^CONFIG_IPV6=[ym]' "$obj/.config" && "$sc" --file "$obj/.config" --enable MPTCP_IPV6
	for k in SYSTEM_TRUSTED_KEYS SYSTEM_REVOCATION_KEYS; do
		v=$(sed -n "s/^CONFIG_$k=\"\(.*\)\"$/\1/p" "$obj/.config")
		if [ -n "$v" ] && [ ! -f "$tree/$v" ]; then
			log "clearing CONFIG_$k (\"$v\" is not in this tree)"
			"$sc" --file "$obj/.config" --set-str "$k" ""
		fi
	done
	make -s -C "$tree" O="$obj" ARCH=x86_64 olddefconfig >/dev/null
fi
for opt in MPTCP MPTCP_FUSO; do
	grep -q "^CONFIG_$opt=y" "$obj/.config" ||
		die "CONFIG_$opt is not 'y' after olddefconfig: $config lacks what it depends on (CONFIG_INET, CONFIG_NET)"
done

setup_ccache
t0=$(date +%s)
log "building the packages (bindeb-pkg, -j$(jobs), kernel release $(make -s -C "$tree" O="$obj" LOCALVERSION="$localversion" kernelrelease 2>/dev/null))"
rm -f "$tree"/*.deb "$tree"/*.buildinfo "$tree"/*.changes
make -s -C "$tree" O="$obj" ARCH=x86_64 CC="$KCC" LOCALVERSION="$localversion" \
	-j"$(jobs)" bindeb-pkg >"$obj/.fuso-deb.log" 2>&1 ||
	{ tail -n 30 "$obj/.fuso-deb.log" >&2; die "bindeb-pkg failed (whole log: $obj/.fuso-deb.log)"; }
# Kbuild writes the packages next to the object directory
debs=("$tree"/*.deb)
[ -f "${debs[0]}" ] || die "bindeb-pkg wrote no .deb (log: $obj/.fuso-deb.log)"
rm -f "$out"/*.deb
mv "${debs[@]}" "$out/"
rm -f "$tree"/*.buildinfo "$tree"/*.changes
log "built in $(($(date +%s) - t0)) s:"
ls -1 "$out"/*.deb >&2
log "install with: dpkg -i $out/linux-image-*.deb (then reboot into it; /proc/sys/net/mptcp/fuso exists)"
