#!/bin/bash
# Reproducer (base tree, FUSO not needed): a non-blocking write() on an
# MPTCP socket fails with EAGAIN right after poll() reported POLLOUT, when a
# subflow was removed in between.  __mptcp_close_ssk() calls
# __mptcp_sync_sndbuf(), and the msk send buffer (tcp_wmem[0] plus every
# subflow's sk_sndbuf) shrinks below what is already queued.  Run it in a
# test kernel:
#
#   scripts/vm --uml --real-time -- scripts/repro-eagain-after-pollout.sh
#   scripts/vm --qemu --nofuso -- scripts/repro-eagain-after-pollout.sh
#
# Two namespaces, two veth paths, one subflow on each.  The server never
# ACKs once the subflows are up (iptables), so everything the client writes
# stays queued.  The client queues 58 % of its send buffer (between 1/2 and
# 2/3: poll() still says POLLOUT, and it is more than one subflow's share),
# then deletes its path 2 endpoint and writes again.
# Exit status: 1 reproduced (EAGAIN), 0 not reproduced, 2 setup failed.
set -u
ns1=repro-c-$$ ns2=repro-s-$$
trap 'ip netns del $ns1 2>/dev/null; ip netns del $ns2 2>/dev/null' EXIT
fail() { echo "repro: $*" >&2; exit 2; }

for t in ip iptables python3; do
	command -v $t >/dev/null || fail "needs $t"
done
ip netns add $ns1 && ip netns add $ns2 || fail "cannot create namespaces"
for i in 1 2; do
	ip link add e$i netns $ns1 type veth peer name e$i netns $ns2 || fail "veth"
	ip -n $ns1 addr add 10.0.$i.1/24 dev e$i
	ip -n $ns2 addr add 10.0.$i.2/24 dev e$i
done
for n in $ns1 $ns2; do
	for d in lo e1 e2; do ip -n $n link set $d up; done
	# fixed subflow send buffers: the msk's is 4096 + 2 * 262144
	ip netns exec $n sysctl -q net.ipv4.tcp_wmem="4096 262144 262144"
	ip -n $n mptcp limits set subflow 2 add_addr_accepted 2
done
# the path 2 subflow reaches the server's path 1 address over e2
ip -n $ns1 route add 10.0.1.2/32 dev e2 src 10.0.2.1 table 100
ip -n $ns1 rule add from 10.0.2.1 table 100
ip -n $ns1 mptcp endpoint add 10.0.2.1 dev e2 subflow id 2 || fail "endpoint"
if [ -f /proc/sys/net/mptcp/fuso ]; then
	echo "kernel with FUSO, net.mptcp.fuso=$(cat /proc/sys/net/mptcp/fuso)"
else
	echo "kernel without FUSO"
fi

ip netns exec $ns2 python3 -c '
import socket, time
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("0.0.0.0", 10000)); l.listen(1)
c, _ = l.accept(); time.sleep(30)' &
sleep 1

ip netns exec $ns1 python3 - $ns1 $ns2 <<'PY'
import select, socket, subprocess, sys, time
ns1, ns2 = sys.argv[1:3]

def sh(cmd):
    subprocess.run(cmd, shell=True, check=True)

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
s.connect(("10.0.1.2", 10000))
s.send(b"hello")                   # the PM adds subflows once fully established
for _ in range(50):
    time.sleep(0.1)
    out = subprocess.run(f"ss -N {ns1} -tn state established", shell=True,
                         capture_output=True, text=True).stdout
    if out.count("10.0.") >= 4:    # two subflows, two addresses each
        break
else:
    print("repro: the second subflow did not come up", file=sys.stderr)
    sys.exit(2)
sh(f"ip netns exec {ns2} iptables -A OUTPUT -p tcp --sport 10000 -j DROP")
s.setblocking(False)
old = s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
target, sent = old * 58 // 100, 0
while sent < target:
    try:
        sent += s.send(b"x" * min(4096, target - sent))
    except BlockingIOError:
        print(f"repro: EAGAIN after only {sent} bytes", file=sys.stderr)
        sys.exit(2)
p = select.poll()
p.register(s, select.POLLOUT)
ev = p.poll(1000)
pollout = bool(ev and ev[0][1] & select.POLLOUT)
print(f"msk sndbuf {old}, {sent} bytes queued, poll(): "
      f"{'POLLOUT' if pollout else 'not writable'}")
if not pollout:
    sys.exit(2)
sh(f"ip -n {ns1} mptcp endpoint delete id 2")
time.sleep(0.5)
new = s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
try:
    n = s.send(b"y" * 1000)
    print(f"after the endpoint delete: msk sndbuf {new}, write() = {n}: not reproduced")
    sys.exit(0)
except BlockingIOError as e:
    print(f"after the endpoint delete: msk sndbuf {new}, write(): {e}: REPRODUCED")
    sys.exit(1)
PY
