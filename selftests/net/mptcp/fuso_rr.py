#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Request/response traffic over MPTCP for fuso.sh.
#
#   fuso_rr.py server [-6] -p PORT [--after-send ACTION]
#       Accept connections; answer each request with the response it asks
#       for, until the client closes (a thread per connection).  Serves
#       until killed.  With --after-send, each response but the first
#       ends in another way than a write without MSG_MORE: "empty" writes
#       it with MSG_MORE and then zero bytes; "cork" writes it under
#       TCP_CORK and then clears TCP_CORK; "epipe" writes it as usual,
#       shuts the connection down for writing and writes one byte more,
#       which fails with EPIPE.
#
#   fuso_rr.py client [-6] -p PORT -a ADDR [-n N] [-s SIZES] [-q REQ]
#                     [--new-conn] [--wait-file F] [--snap-pid PID]
#                     [--before CMD] [--times] [--conns C]
#       N exchanges (default 10): send a request of REQ bytes (default 100)
#       asking for the next size in SIZES (comma-separated bytes, cycled),
#       read the response and check every byte.  With --new-conn each
#       exchange uses a new connection.  With --wait-file, do one exchange
#       (the warm-up), print "ready" and wait until F exists before the rest.
#       With --snap-pid, print how the TCP and MPTCP counters of PID's
#       network namespace moved during the last exchange, read the moment
#       its response is complete: one "delta NAME N" line each.
#       With --before, run the shell command CMD before each exchange but
#       the first (the warm-up), outside the timed part.  With --times,
#       print "time_us K T" for each exchange K but the first: T is the
#       time from sending the request to the last byte of the response.
#       With --conns, open C connections at once and run the N exchanges
#       on each of them concurrently (one thread each); print "checked
#       C connections, E exchanges, B bytes" at the end.
#
# A request is: 4 bytes response size, 4 bytes exchange number, padding.
# Response byte i of exchange k is (k * 131 + i) & 0xff.
# Exit status: 0 all responses intact, 1 a response was wrong or short,
# 2 usage or socket error.

import argparse
import os
import socket
import struct
import subprocess
import sys
import threading
import time

IPPROTO_MPTCP = getattr(socket, "IPPROTO_MPTCP", 262)


def pattern(k, n):
    first = bytes((k * 131 + i) & 0xff for i in range(256))
    reps = n // 256 + 1
    return (first * reps)[:n]


def recv_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(min(65536, n - len(buf)))
        if not chunk:
            break
        buf += chunk
    return bytes(buf)


def family(args):
    return socket.AF_INET6 if args.ipv6 else socket.AF_INET


def serve_conn(c, after):
    first = True
    while True:
        hdr = recv_exact(c, 8)
        if len(hdr) < 8:
            return
        size, k = struct.unpack("!II", hdr)
        req_len = struct.unpack("!I", recv_exact(c, 4))[0]
        if len(recv_exact(c, req_len)) != req_len:
            return
        if first or not after:
            c.sendall(pattern(k, size))
            first = False
        elif after == "empty":
            c.sendall(pattern(k, size), socket.MSG_MORE)
            c.send(b"")
        elif after == "cork":
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
            c.sendall(pattern(k, size))
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 0)
        elif after == "epipe":
            c.sendall(pattern(k, size))
            c.shutdown(socket.SHUT_WR)
            try:
                c.send(b"x")
                print("fuso_rr server: a write after shutdown worked",
                      file=sys.stderr)
            except BrokenPipeError:
                pass


def server(args):
    s = socket.socket(family(args), socket.SOCK_STREAM, IPPROTO_MPTCP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::" if args.ipv6 else "0.0.0.0", args.port))
    s.listen(256)
    while True:
        c, _ = s.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve_thread, args=(c, args.after_send),
                         daemon=True).start()


def serve_thread(c, after):
    try:
        serve_conn(c, after)
    except OSError as e:
        print(f"fuso_rr server: {e}", file=sys.stderr)
    c.close()


def snapshot(pid):
    """The counters of PID's netns, as {"TcpExtTCPTimeouts": n, ...}."""
    out = {}
    for f in ("netstat", "snmp"):
        with open(f"/proc/{pid}/net/{f}") as fh:
            lines = fh.read().splitlines()
        for head, vals in zip(lines[0::2], lines[1::2]):
            names = head.split()
            prefix = names[0].rstrip(":")
            for name, val in zip(names[1:], vals.split()[1:]):
                out[prefix + name] = val
    return out


def connect(args):
    s = socket.socket(family(args), socket.SOCK_STREAM, IPPROTO_MPTCP)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.settimeout(args.timeout)
    s.connect((args.addr, args.port))
    return s


def exchange(s, k, size, req):
    pad = max(0, req - 12)
    s.sendall(struct.pack("!III", size, k, pad) + bytes(pad))
    data = recv_exact(s, size)
    if data != pattern(k, size):
        print(f"fuso_rr: exchange {k}: got {len(data)} of {size} bytes"
              f"{'' if len(data) < size else ', content differs'}",
              file=sys.stderr)
        return False
    return True


def many(args):
    """--conns: N exchanges on each of C concurrent connections."""
    sizes = [int(x) for x in args.sizes.split(",")]
    conns = [connect(args) for _ in range(args.conns)]
    start = threading.Barrier(args.conns)
    failed = []

    def run(i, s):
        try:
            start.wait()
            for k in range(args.n):
                if not exchange(s, i * args.n + k, sizes[k % len(sizes)],
                                args.req):
                    failed.append(i)
                    return
        except (OSError, threading.BrokenBarrierError) as e:
            print(f"fuso_rr: connection {i}: {e}", file=sys.stderr)
            failed.append(i)
        finally:
            s.close()

    threads = [threading.Thread(target=run, args=(i, s))
               for i, s in enumerate(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        print(f"fuso_rr: {len(failed)} of {args.conns} connections failed",
              file=sys.stderr)
        return 1
    nbytes = args.conns * sum(sizes[k % len(sizes)] for k in range(args.n))
    print(f"checked {args.conns} connections, {args.conns * args.n}"
          f" exchanges, {nbytes} bytes")
    return 0


def client(args):
    if args.conns:
        return many(args)
    sizes = [int(x) for x in args.sizes.split(",")]
    s = None
    for k in range(args.n):
        if s is None or args.new_conn:
            if s is not None:
                s.close()
            s = connect(args)
        if k == 1 and args.wait_file:
            print("ready", flush=True)
            while not os.path.exists(args.wait_file):
                time.sleep(0.01)
        if k > 0 and args.before:
            subprocess.run(args.before, shell=True, check=True)
        last = k == args.n - 1 and args.snap_pid
        if last:
            pre = snapshot(args.snap_pid)
        t0 = time.monotonic()
        if not exchange(s, k, sizes[k % len(sizes)], args.req):
            return 1
        if k > 0 and args.times:
            print(f"time_us {k} {(time.monotonic() - t0) * 1e6:.0f}",
                  flush=True)
        if last:
            post = snapshot(args.snap_pid)
            print(f"elapsed_ms {(time.monotonic() - t0) * 1000:.0f}")
            for name in sorted(post):
                print(f"delta {name} {int(post[name]) - int(pre.get(name, 0))}")
    s.close()
    return 0


def main():
    p = argparse.ArgumentParser(description="MPTCP request/response for fuso.sh")
    p.add_argument("mode", choices=("server", "client"))
    p.add_argument("-6", dest="ipv6", action="store_true")
    p.add_argument("-p", dest="port", type=int, required=True)
    p.add_argument("-a", dest="addr")
    p.add_argument("-n", dest="n", type=int, default=10)
    p.add_argument("-s", dest="sizes", default="1000")
    p.add_argument("-q", dest="req", type=int, default=100)
    p.add_argument("-t", dest="timeout", type=float, default=30)
    p.add_argument("--new-conn", action="store_true")
    p.add_argument("--wait-file")
    p.add_argument("--snap-pid", type=int)
    p.add_argument("--before")
    p.add_argument("--times", action="store_true")
    p.add_argument("--conns", type=int, default=0)
    p.add_argument("--after-send", choices=("empty", "cork", "epipe"))
    args = p.parse_args()
    try:
        if args.mode == "server":
            return server(args)
        if not args.addr:
            p.error("client needs -a ADDR")
        return client(args)
    except subprocess.CalledProcessError as e:
        print(f"fuso_rr {args.mode}: --before: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"fuso_rr {args.mode}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
