#!/bin/bash
# The scripts' own tests: bad input gets a clear error and changes nothing.
# Each case runs a script in a scratch BUILD directory (no kernel needed)
# and checks its exit status, its message and what it left behind.
#
#   scripts/test-scripts.sh        (test.sh step "scripts")
set -u
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d /tmp/fuso-test-scripts.XXXXXX) || die "test-scripts: mktemp failed"
trap 'umount "$T/shm" 2>/dev/null; rm -rf "$T"' EXIT
pass=0 fail=0

# expect NAME RC PATTERN CMD...: CMD exits RC and its stderr matches PATTERN
expect() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$pat" "$T/err"; then
		printf 'ok   %s\n' "$name"
		pass=$((pass + 1))
	else
		printf 'FAIL %s: exit %s (want %s), stderr:\n' "$name" "$rc" "$want"
		sed 's/^/     /' "$T/err"
		fail=$((fail + 1))
	fi
}

# check NAME CONDITION...: a state check after a case
check() {
	local name=$1
	shift
	if "$@"; then
		printf 'ok   %s\n' "$name"
		pass=$((pass + 1))
	else
		printf 'FAIL %s\n' "$name"
		fail=$((fail + 1))
	fi
}

export BUILD=$T/build
mkdir -p "$BUILD"

# --- scripts/vm: options without values, advice for missing kernels ---
expect "vm --kernel without a value" 1 'vm: --kernel needs a value' \
	"$TOP/scripts/vm" --kernel
expect "vm --kernel followed by --" 1 'vm: --kernel needs a value' \
	"$TOP/scripts/vm" --kernel -- true
expect "vm --mem without a value" 1 'vm: --mem needs a value' \
	"$TOP/scripts/vm" --uml --mem
expect "vm --mem with a bad size" 1 "vm: --mem wants a size such as 2G" \
	"$TOP/scripts/vm" --uml --kernel /bin/true --mem 3X -- true
expect "vm --uml --nofuso: how to build that kernel" 1 \
	'no uml-nofuso kernel .*scripts/build.sh kernel uml --nofuso\)' \
	"$TOP/scripts/vm" --uml --nofuso -- true
expect "vm --qemu --nofuso: make kernel-nofuso" 1 \
	'no qemu-nofuso kernel .*\(make kernel-nofuso\)' \
	"$TOP/scripts/vm" --qemu --nofuso -- true
expect "vm --uml: make kernel-uml" 1 'no uml kernel .*\(make kernel-uml\)' \
	"$TOP/scripts/vm" --uml -- true
expect "vm --qemu --kcsan: make kernel-kcsan" 1 \
	'no qemu-kcsan kernel .*\(make kernel-kcsan\)' \
	"$TOP/scripts/vm" --qemu --kcsan -- true
expect "vm --uml --debug: make kernel-uml-debug" 1 \
	'no uml-debug kernel .*\(make kernel-uml-debug\)' \
	"$TOP/scripts/vm" --uml --debug -- true
expect "vm --uml --kcsan: QEMU only" 1 'vm: --kcsan needs --qemu' \
	"$TOP/scripts/vm" --uml --kcsan -- true
expect "vm --debug --kcsan: two kernels" 1 'vm: --debug and --kcsan are two kernels' \
	"$TOP/scripts/vm" --qemu --debug --kcsan -- true

# --- build.sh, docs-check.sh, test.sh: bad arguments ---
expect "build.sh --goal without a value" 1 'build.sh: --goal needs a value' \
	"$TOP/scripts/build.sh" kernel qemu --goal
expect "docs-check.sh with an unknown argument" 1 "docs-check.sh: unknown argument '--bogus'" \
	"$TOP/scripts/docs-check.sh" --bogus
expect "test.sh with an unknown option" 1 "test.sh: unknown option '--bogus'" \
	"$TOP/scripts/test.sh" --bogus

# --- scripts/kcsan-check.py: sorts KCSAN reports, fails on MPTCP's ---
cat >"$T/kcsan.log" <<'KLOG'
----- kernel log (reports found) -----
[    9.000000] ==================================================================
[    9.000001] BUG: KCSAN: data-race in tcp_ack / mptcp_fuso_best_may
[    9.000003] write to 0xffff888003a0c8a0 of 4 bytes by interrupt on cpu 1:
[    9.000004]  tcp_ack+0x1f2/0x2d30
[    9.000007] read to 0xffff888003a0c8a0 of 4 bytes by task 77 on cpu 0:
[    9.000008]  mptcp_fuso_best_may+0x51/0x1a0
[    9.000015] ==================================================================
KLOG
sed -e 's/ \/ mptcp_fuso_best_may//' -e '/mptcp_fuso_best_may/d' "$T/kcsan.log" >"$T/kcsan-other.log"
"$TOP/scripts/kcsan-check.py" "$T/kcsan.log" >"$T/out" 2>&1
check "kcsan-check: a race in FUSO code fails" test $? = 1
check "... and is named" grep -q '\[FUSO\] data-race in tcp_ack / mptcp_fuso_best_may' "$T/out"
"$TOP/scripts/kcsan-check.py" "$T/kcsan-other.log" >"$T/out" 2>&1
check "kcsan-check: a race elsewhere is listed, not failed" test $? = 0
check "... and is named" grep -q '\[other\] data-race in tcp_ack' "$T/out"
"$TOP/scripts/kcsan-check.py" "$T/no-such.log" >"$T/out" 2>&1
check "kcsan-check: a missing log fails" test $? = 1

# --- scripts/vm: UML's guest memory needs room in /dev/shm ---
mkdir -p "$T/shm"
if mount -t tmpfs -o size=64m tmpfs "$T/shm" 2>/dev/null; then
	expect "vm --uml with 64 MiB of shm for a 2 GiB guest" 1 \
		'has 6[0-9] MiB free for a 2048 MiB guest' \
		env FUSO_VM_SHM="$T/shm" "$TOP/scripts/vm" --uml --kernel /bin/true -- true
else
	printf 'skip vm shm check (cannot mount a tmpfs here)\n'
fi

# --- bench: --out refuses a non-empty directory it did not make ---
mkdir -p "$T/results" && echo keep >"$T/results/precious"
expect "bench --out on someone else's directory" 1 'refusing to delete it' \
	"$TOP/scripts/bench/bench.sh" --out "$T/results"
check "... and the directory is untouched" grep -q keep "$T/results/precious"
expect "bench --out on a file" 1 'is not a directory' \
	"$TOP/scripts/bench/bench.sh" --out "$T/results/precious"
expect "bench --reps without a value" 1 'bench: --reps needs a value' \
	"$TOP/scripts/bench/bench.sh" --reps
expect "bench --dry-run: the plan and its time, without a kernel" 0 'estimated [0-9]+ min' \
	"$TOP/scripts/bench/bench.sh" --dry-run
check "... the default plan: 10 replications of the headline comparison" \
	grep -q 'x 10 replication' "$T/err"
check "... bursty loss among them" grep -q '^bursty loss2 loss=2 lossmodel=gemodel' "$T/out"
check "... and nothing was run" test ! -e "$BUILD/bench/results"
expect "bench --dry-run --fig ft: the fat-tree's point" 0 'estimated [0-9]+ min' \
	"$TOP/scripts/bench/bench.sh" --dry-run --fig ft
check "... on the fat-tree, lossy links between switches" \
	grep -q '^ft h32-loss2 topo=fattree hpt=4 loss=2 lossy=2 where=fabric ' "$T/out"

# --- guest.sh: a topology's settings are checked before anything is built
# (tg=/bin/true: no traffic generator needed to refuse) ---
expect "guest topo unknown" 1 "topo=fig3\|fattree, not 'ring'" \
	"$TOP/scripts/bench/guest.sh" "$T/g" tg=/bin/true topo=ring
expect "guest fattree with loss on path 1" 1 'topo=fattree loses only where=fabric' \
	"$TOP/scripts/bench/guest.sh" "$T/g" tg=/bin/true topo=fattree loss=1 where=p1
expect "guest fattree with an odd hpt" 1 'hpt must be 2, 4, 6 or 8' \
	"$TOP/scripts/bench/guest.sh" "$T/g" tg=/bin/true topo=fattree hpt=3
expect "guest fattree with more lossy links than it has" 1 'has 32 links between switches' \
	"$TOP/scripts/bench/guest.sh" "$T/g" tg=/bin/true topo=fattree lossy=33 loss=1 where=fabric
expect "guest fattree with an incast" 1 'query workload only' \
	"$TOP/scripts/bench/guest.sh" "$T/g" tg=/bin/true topo=fattree fanout=10
expect "guest fabric loss on Fig 3" 1 "where=p1\|p1up\|p12\|access, not 'fabric'" \
	"$TOP/scripts/bench/guest.sh" "$T/g" tg=/bin/true where=fabric loss=1
expect "guest rtomin neither milliseconds nor linux" 1 "rtomin must be milliseconds .* or linux, not '200ms'" \
	"$TOP/scripts/bench/guest.sh" "$T/g" tg=/bin/true rtomin=200ms
expect "guest iw of 0" 1 "iw must be a number of segments .* or linux, not '0'" \
	"$TOP/scripts/bench/guest.sh" "$T/g" tg=/bin/true iw=0
expect "guest iwsub not a number" 1 "iwsub must be a number of segments .*, not 'linux'" \
	"$TOP/scripts/bench/guest.sh" "$T/g" tg=/bin/true iwsub=linux
expect "guest with good settings on this machine, not in the VM" 1 'guest.sh runs inside the test VM' \
	"$TOP/scripts/bench/guest.sh" "$T/g" tg=/bin/true loss=1
check "... and nothing was made" test ! -e "$T/g"

# --- quickstart.sh: bad options refused before a namespace is made ---
expect "quickstart --rules past the kernel's 127" 1 "--rules wants a number 0..127, got '128'" \
	"$TOP/scripts/quickstart.sh" --rules 128
expect "quickstart --lossy-path 3" 1 "--lossy-path wants 1 or 2, got '3'" \
	"$TOP/scripts/quickstart.sh" --lossy-path 3

# --- veth-cost: the same for its --out, and its numbers (no VM started) ---
expect "veth-cost --out on someone else's directory" 1 'was not made by veth-cost' \
	"$TOP/scripts/bench/veth-cost.sh" --out "$T/results"
check "... and the directory is untouched" grep -q keep "$T/results/precious"
expect "veth-cost --boots without a value" 1 'veth-cost: --boots needs a value' \
	"$TOP/scripts/bench/veth-cost.sh" --boots
expect "veth-cost --rounds not a number" 1 'rounds wants a whole number' \
	"$TOP/scripts/bench/veth-cost.sh" --rounds 2x
expect "veth-cost --modes without 0 first" 1 'modes wants 0 and then' \
	"$TOP/scripts/bench/veth-cost.sh" --modes "3 0"
expect "veth-cost --loss above 10 %" 1 'loss wants a percentage from 0 to 10' \
	"$TOP/scripts/bench/veth-cost.sh" --loss 11
expect "veth-cost --loss not a number" 1 'loss wants a percentage' \
	"$TOP/scripts/bench/veth-cost.sh" --loss 1x
expect "veth-cost --kernels not a known order" 1 'kernels wants "fuso nofuso", "nofuso fuso" or fuso' \
	"$TOP/scripts/bench/veth-cost.sh" --kernels "nofuso"

# --- published.sh: a table that is not the data's, a condition in two runs ---
expect "published.sh with an unknown option" 1 'usage: published.sh' \
	"$TOP/scripts/bench/published.sh" --bogus
mkdir -p "$T/pub"
cp "$TOP/Documentation/bench/incast-hosts-40.tar.xz" "$T/pub/a.tar.xz"
cp "$T/pub/a.tar.xz" "$T/pub/b.tar.xz"
expect "published.sh: a condition in two runs" 1 'fig6/[a-z0-9-]+ is in b and in an earlier run' \
	env FUSO_PUBLISHED_DIR="$T/pub" FUSO_PUBLISHED_RUNS="a b" "$TOP/scripts/bench/published.sh" --check
cond1=$(tar -tJf "$T/pub/a.tar.xz" | grep -o 'fig6/[^/]*' | sort -u | head -n 1)
cond2=$(tar -tJf "$T/pub/a.tar.xz" | grep -o 'fig6/[^/]*' | sort -u | sed -n 2p)
expect "published.sh: a run's other conditions left out (RUN:FIG/COND)" 0 'analyze.py over 2 conditions' \
	env FUSO_PUBLISHED_DIR="$T/pub" FUSO_PUBLISHED_RUNS="a:$cond1 b:$cond2" FUSO_PUBLISHED_FIGS= "$TOP/scripts/bench/published.sh"
expect "published.sh: a listed condition the run does not have" 1 "a has no fig6/nosuch \\(RUNS: a:fig6/nosuch\\)" \
	env FUSO_PUBLISHED_DIR="$T/pub" FUSO_PUBLISHED_RUNS="a:fig6/nosuch" "$TOP/scripts/bench/published.sh" --check
expect "published.sh: a missing run" 1 "no $T/pub/c.tar.xz" \
	env FUSO_PUBLISHED_DIR="$T/pub" FUSO_PUBLISHED_RUNS="a c" "$TOP/scripts/bench/published.sh" --check
tar -C "$T" -cJf "$T/pub/e.tar.xz" pub/a.tar.xz
expect "published.sh: an archive without conditions" 1 'holds no fig./CONDITION directory' \
	env FUSO_PUBLISHED_DIR="$T/pub" FUSO_PUBLISHED_RUNS=e "$TOP/scripts/bench/published.sh" --check
expect "published.sh writes the tables" 0 'wrote summary.csv' \
	env FUSO_PUBLISHED_DIR="$T/pub" FUSO_PUBLISHED_RUNS=a FUSO_PUBLISHED_FIGS= "$TOP/scripts/bench/published.sh"
expect "published.sh --check passes on them" 0 'are the published runs. own' \
	env FUSO_PUBLISHED_DIR="$T/pub" FUSO_PUBLISHED_RUNS=a "$TOP/scripts/bench/published.sh" --check
sed -i '2s/,[0-9.]*,/,9.99,/' "$T/pub/pairs.csv"
expect "published.sh --check fails on a changed pairs.csv" 1 'pairs.csv is not analyze.py.s output' \
	env FUSO_PUBLISHED_DIR="$T/pub" FUSO_PUBLISHED_RUNS=a "$TOP/scripts/bench/published.sh" --check

# --- base tree: BASE_PKG_VERSION, KSRC checked before copying, no lost work ---
# shellcheck disable=SC2016
check "BASE_PKG_VERSION can be overridden" \
	test "$(BASE_PKG_VERSION=6.12.99-1 bash -c '. "$1/scripts/lib.sh"; echo "$BASE_PKG_VERSION"' _ "$TOP")" = 6.12.99-1
# fake_tree DIR VERSION: just enough of a kernel tree for base-tree.sh
fake_tree() {
	mkdir -p "$1/net/mptcp"
	printf 'kernelversion:\n\t@echo %s\n' "$2" >"$1/Makefile"
}
fake_tree "$T/k510" 5.10.0
expect "KSRC of another kernel version" 1 'KSRC=.* is Linux 5.10.0; .*6.12' \
	env KSRC="$T/k510" "$TOP/scripts/base-tree.sh" base
check "... refused before copying it" test ! -e "$BUILD/base"
fake_tree "$T/k612" 6.12.1
touch "$T/k612/.config"
expect "KSRC with a .config" 1 'has a .config' \
	env KSRC="$T/k612" "$TOP/scripts/base-tree.sh" base
rm "$T/k612/.config"
expect "KSRC of another 6.12.y: a warning" 0 'WARNING: the base tree is Linux 6.12.1; FUSO is tested on' \
	env KSRC="$T/k612" "$TOP/scripts/base-tree.sh" base
# a development tree with a commit that was never exported
git -c init.defaultBranch=main init -q "$BUILD/src"
git -C "$BUILD/src" -c user.name=t -c user.email=t@t commit -q --allow-empty -m exported
git -C "$BUILD/src" rev-parse HEAD >"$BUILD/src/.fuso-head"
git -C "$BUILD/src" -c user.name=t -c user.email=t@t commit -q --allow-empty -m "my work"
fake_tree "$T/k612b" 6.12.2
expect "switching KSRC over unexported commits" 1 'the base tree changed .*not exported' \
	env KSRC="$T/k612b" "$TOP/scripts/base-tree.sh" base
check "... and the commit is still there" \
	test "$(git -C "$BUILD/src" log -1 --format=%s)" = "my work"

# --- ccache: the user's max_size is left alone ---
if command -v ccache >/dev/null; then
	mkdir -p "$T/ccache"
	printf 'max_size = 1G\n' >"$T/ccache/ccache.conf"
	# shellcheck disable=SC2016
	check "ccache: the user's max_size is kept" \
		test "$(CCACHE_DIR="$T/ccache" bash -c '. "$1/scripts/lib.sh"; setup_ccache; echo "${CCACHE_MAXSIZE:-unset}"' _ "$TOP")" = unset
	check "... and their ccache.conf is unchanged" grep -qx 'max_size = 1G' "$T/ccache/ccache.conf"
	rm "$T/ccache/ccache.conf"
	# shellcheck disable=SC2016
	check "ccache: without a setting, 8G for our builds" \
		test "$(CCACHE_DIR="$T/ccache" bash -c '. "$1/scripts/lib.sh"; setup_ccache; echo "$CCACHE_MAXSIZE"' _ "$TOP")" = 8G
	check "... written nowhere" test ! -s "$T/ccache/ccache.conf"
fi

# --- make deb: bad input refused before anything is built ---
expect "deb --config without a value" 1 'deb.sh: --config needs a value' \
	"$TOP/scripts/deb.sh" --config
expect "deb: a missing config, and how to pass one" 1 \
	"no kernel config at '$T/nope'.*make deb CONFIG=FILE" \
	"$TOP/scripts/deb.sh" --config "$T/nope"
printf 'not a config\n' >"$T/notcfg"
expect "deb: a file that is not a kernel config" 1 'is not a kernel config' \
	"$TOP/scripts/deb.sh" --config "$T/notcfg"
printf 'CONFIG_NET=y\nCONFIG_INET=y\n' >"$T/cfg"
expect "deb: a bad --localversion" 1 "--localversion 'a b'" \
	"$TOP/scripts/deb.sh" --config "$T/cfg" --localversion 'a b'
mkdir -p "$T/debout" && echo keep >"$T/debout/mine"
expect "deb --out: a non-empty directory it did not make" 1 'refusing to write packages there' \
	"$TOP/scripts/deb.sh" --config "$T/cfg" --out "$T/debout"
check "... left as it was" test "$(ls -A "$T/debout")" = mine
check "... and nothing built" test ! -e "$BUILD/src/.obj-deb"

# --- scripts/bench/pair.py: paired ratios across runs, clear errors ---
for d in a b; do
	f=1000
	[ "$d" = b ] && f=2000
	for seed in 1 2 3; do
		mkdir -p "$T/pair/$d/fig6/c/s$seed/x"
		{ echo "client,id,size,start_us,fct_us"
		  for i in 1 2 3 4; do
			echo "1,$i,1000,0,$((f * i * seed))"
		  done; } >"$T/pair/$d/fig6/c/s$seed/x/queries.csv"
	done
done
"$TOP/scripts/bench/pair.py" "$T/pair/b:x" "$T/pair/a:x" 6/c >"$T/out" 2>"$T/err"
check "pair.py: B twice A's FCT gives 2 for mean and p99" \
	grep -q 'n=3  mean 2.000 \[2.000, 2.000\]  p99 2.000' "$T/out"
expect "pair.py without DIRS:SCHEME" 1 "pair.py: 'nocolon' is not DIRS:SCHEME" \
	"$TOP/scripts/bench/pair.py" nocolon "$T/pair/a:x" 6/c
expect "pair.py with a missing directory" 1 "pair.py: no results directory" \
	"$TOP/scripts/bench/pair.py" "$T/pair/none:x" "$T/pair/a:x" 6/c
# --bg pairs background flows by host and id: flow 2 only in b is left out
for d in a b; do
	{ echo "id,size,start_us,fct_us,fanout,lports,rto_c"
	  echo "1,100000,0,$([ "$d" = b ] && echo 3000 || echo 1000),1,30000,0"
	  [ "$d" = b ] && echo "2,100000,0,9000,1,30001,0"; } >"$T/pair/$d/fig6/c/s1/x/bg-h1.csv"
done
"$TOP/scripts/bench/pair.py" --bg "$T/pair/b:x" "$T/pair/a:x" 6/c >"$T/out" 2>"$T/err"
check "pair.py --bg: the flows both completed, paired by id" \
	grep -q 'n=1 seeds, 1 flows  background FCT 3.000' "$T/out"
rm -f "$T/pair/a/fig6/c/s1/x/bg-h1.csv" "$T/pair/b/fig6/c/s1/x/bg-h1.csv"
tar -C "$T/pair/a" -cJf "$T/pair/a.tar.xz" fig6
"$TOP/scripts/bench/pair.py" "$T/pair/b:x" "$T/pair/a.tar.xz:x" 6/c >"$T/out" 2>"$T/err"
check "pair.py reads a committed tarball as a results directory" \
	grep -q 'n=3  mean 2.000 \[2.000, 2.000\]  p99 2.000' "$T/out"
check "... and leaves no copy behind" test -z "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'pair-*' -newer "$T/pair/a.tar.xz")"
echo junk >"$T/pair/junk.tar.xz"
expect "pair.py with a file that is no tarball" 1 "is neither a results directory nor a tarball" \
	"$TOP/scripts/bench/pair.py" "$T/pair/b:x" "$T/pair/junk.tar.xz:x" 6/c
tar -C "$T/pair" -cf "$T/pair/evil.tar" --absolute-names "$T/pair/a/fig6" 2>/dev/null
expect "pair.py refuses a tarball with absolute paths" 1 "refusing member" \
	"$TOP/scripts/bench/pair.py" "$T/pair/b:x" "$T/pair/evil.tar:x" 6/c

# --bulk pairs bulk.txt and cpu.txt: b moves half the bytes on the same CPU
for d in a b; do
	for seed in 1 2; do
		B=$T/pair/$d/figbulk/l/s$seed/x
		mkdir -p "$B"
		printf 'bytes %s\nseconds 5.0\n' "$([ "$d" = b ] && echo 500 || echo 1000)" >"$B/bulk.txt"
		printf 'cpu_s 2.0\ncpu_user_s 1.0\n' >"$B/cpu.txt"
	done
done
"$TOP/scripts/bench/pair.py" --bulk "$T/pair/a:x" "$T/pair/b:x" bulk/l >"$T/out" 2>"$T/err"
check "pair.py --bulk: twice the bytes on the same CPU, 2 and 0.5 per byte" \
	grep -q 'n=2  throughput 2.000 \[2.000, 2.000\]  CPU/byte 0.500 \[0.500, 0.500\]  user CPU/byte 0.500' "$T/out"
rm "$T/pair/b/figbulk/l/s2/x/cpu.txt"
expect "pair.py --bulk with a seed's cpu.txt missing" 1 "s2/x/cpu.txt: " \
	"$TOP/scripts/bench/pair.py" --bulk "$T/pair/a:x" "$T/pair/b:x" bulk/l

# --- scripts/bench/slowq.py: where a traced FUSO run's slow queries waited ---
S=$T/slowq/s1/fuso3
mkdir -p "$S"
{ echo "id,size,start_us,fct_us,fanout,lports,rto_c"
  echo "1,20000,1,600,1,10000,0"
  echo "2,30000,100001,207300,1,10000,0"; } >"$S/h1.csv"
ev() { printf '         fuso-tg-1     [000] .....     %s: %s: %s\n' "$@"; }
{ echo "# tracer: nop"
  ev 1.000001 mptcp_sendmsg_frag "data_ack=0 data_seq=100 subflow_seq=1 data_len=16 csum=0"
  ev 1.000001 mptcp_fuso_recovery "sock_cookie=1 src=10.1.1.128:10000 dest=10.2.4.1:5003 worst=00000001 10000->5003 best=00000002 42401->5003 dsn=100 len=16"
  ev 1.100001 mptcp_sendmsg_frag "data_ack=0 data_seq=116 subflow_seq=17 data_len=16 csum=0"
  ev 1.100001 mptcp_sendmsg_frag "data_ack=0 data_seq=116 subflow_seq=33 data_len=16 csum=0"
  ev 1.100001 mptcp_fuso_recovery "sock_cookie=1 src=10.1.1.128:10000 dest=10.2.4.1:5003 worst=00000001 10000->5003 best=00000002 42401->5003 dsn=116 len=16"
  ev 1.100201 mptcp_fuso_recovery "sock_cookie=2 src=[::ffff:10.2.4.1]:5003 dest=[::ffff:10.1.1.128]:10000 worst=00000003 5003->42401 best=00000003 5003->42401 dsn=900 len=1420"
  ev 1.307200 tcp_retransmit_skb "skbaddr=1 skaddr=2 family=AF_INET sport=42401 dport=5003 saddr=10.1.1.129 daddr=10.2.4.1 state=TCP_ESTABLISHED"
  ev 1.307205 get_mapping_status "data_ack=0 data_seq=116 subflow_seq=33 data_len=16 csum=0"; } >"$S/trace.txt"
{ echo "path fuso3 h1 10.1.1.128:10000 10.2.4.1:5003 p1 p1"
  echo "path fuso3 h1 10.1.1.129:42401 10.2.4.1:5003 p1 p1"; } >"$S/../condition.txt"
"$TOP/scripts/bench/slowq.py" "$S" >"$T/out" 2>"$T/err"
check "slowq.py: a request lost with its copy arrives after the probe" \
	grep -q 'query 2 (30000 B) took 207.3 ms; request sent 2 time(s), at the server after 207.20 ms; retransmissions in its last 2 ms: 207.2 ms sport=42401 dport=5003' "$T/out"
check "... and the fast query is left out" test "$(grep -c ' took ' "$T/out")" = 1
check "... with the paths of its copies, from condition.txt" \
	grep -q 'copies in its first 3 ms (holder.s path->carrier.s): request p1->p1, response p1->p1$' "$T/out"
check "... and where all the copies went" \
	grep -q ': 2 request copies: 0 onto the holder itself, 2 onto another subflow of its path, 0 onto another path, 0 unknown$' "$T/out"
check "... a copy onto its holder counted as such" \
	grep -q ': 1 response copies: 1 onto the holder itself, 0 onto another subflow' "$T/out"
rm "$S/../condition.txt"
"$TOP/scripts/bench/slowq.py" "$S" >"$T/out" 2>"$T/err"
check "slowq.py without condition.txt: the paths unknown, the rest the same" \
	grep -q 'request ?->?, response ?->?$' "$T/out"
expect "slowq.py on a run without a trace" 1 "slowq.py: no trace.txt in" \
	"$TOP/scripts/bench/slowq.py" "$T/slowq"
cp "$S/h1.csv" "$S/h4.csv"
expect "slowq.py on a run with clients beyond Fig 3's" 1 "clients other than Fig 3's h1-h3 \\(h4.csv\\)" \
	"$TOP/scripts/bench/slowq.py" "$S"
rm -f "$S/h4.csv"
grep -v fuso_recovery "$S/trace.txt" >"$S/t" && mv "$S/t" "$S/trace.txt"
expect "slowq.py on a run without FUSO copies" 1 "no FUSO copy from client h1" \
	"$TOP/scripts/bench/slowq.py" "$S"
grep -v tcp_retransmit_skb "$S/trace.txt" >"$S/t" && mv "$S/t" "$S/trace.txt"
expect "slowq.py on a trace without the events it needs" 1 "has no tcp_retransmit_skb events" \
	"$TOP/scripts/bench/slowq.py" "$S"

# --- make soak: bad input refused before a kernel is booted ---
expect "soak.sh --kernel qemu" 1 "soak.sh: --kernel must be uml, uml-debug or debug, not 'qemu'" \
	"$TOP/scripts/soak.sh" --kernel qemu
expect "soak.sh --transfers 0" 1 "soak.sh: --transfers must be a count" \
	"$TOP/scripts/soak.sh" --transfers 0
expect "soak.sh --seed -1" 1 "soak.sh: --seed must be a whole number, not '-1'" \
	"$TOP/scripts/soak.sh" --seed -1
expect "soak.sh --mode 4" 1 "soak.sh: --mode must be 0..3, not '4'" \
	"$TOP/scripts/soak.sh" --mode 4
expect "soak.sh --seed without a value" 1 "soak.sh: --seed needs a value" \
	"$TOP/scripts/soak.sh" --seed
expect "soak.sh with an unknown option" 1 "soak.sh: unknown option '--fast'" \
	"$TOP/scripts/soak.sh" --fast
expect "soak.sh without kselftests: what to build" 1 "no kselftests in .*make selftests" \
	"$TOP/scripts/soak.sh"

# --- make series-selftests: bad input refused, a directory it did not make left alone ---
expect "series-selftests.sh with a patch that is no number" 1 "series-selftests.sh: 'x' is not a patch number" \
	"$TOP/scripts/series-selftests.sh" x
[ -d "$BUILD/src/.git" ] || git -c init.defaultBranch=main init -q "$BUILD/src"
expect "series-selftests.sh without kselftests: what to build" 1 "kselftests are not installed .*make selftests" \
	"$TOP/scripts/series-selftests.sh"
mkdir -p "$BUILD/src/.obj-qemu/kselftest" "$BUILD/series-selftests"
printf '#!/bin/sh\n' >"$BUILD/src/.obj-qemu/kselftest/run_kselftest.sh"
chmod +x "$BUILD/src/.obj-qemu/kselftest/run_kselftest.sh"
echo keep >"$BUILD/series-selftests/precious"
expect "series-selftests.sh over a directory it did not make" 1 "series-selftests exists but was not made by this script" \
	"$TOP/scripts/series-selftests.sh"
check "... and the directory is untouched" grep -q keep "$BUILD/series-selftests/precious"

# --- the accidental upstream copy stays gone ---
check "no upstream tree copied into the repository" test ! -e "$TOP/linux-source-6.12"

printf '%d passed, %d failed\n' "$pass" "$fail"
[ "$fail" = 0 ]
