#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Request/response traffic over MPTCP for fuso.sh.
#
#   fuso_rr.py server [-6] -p PORT [--after-send ACTION] [--fuso MODE]
#                     [--info FILE] [--resets-ok]
#       Accept connections; answer each request with the response it asks
#       for, until the client closes (a thread per connection).  Serves
#       until killed.  With --fuso, set MPTCP_FUSO to MODE on the listener
#       (its connections inherit it).  With --info, append a line to FILE
#       when a connection ends: "conn mode M copies C bytes B", M the
#       connection's MPTCP_FUSO, C and B its FUSO copies and their bytes
#       (MPTCP_INFO).  With --resets-ok, a connection that the client
#       reset or broke off (ECONNRESET, EPIPE) ends without a message (the
#       races of the client's --races).  With --after-send, each response
#       but the first ends in another way than a write without MSG_MORE:
#       "empty" writes it with MSG_MORE and then zero bytes; "empties"
#       writes it with MSG_MORE, then zero bytes with MSG_MORE, then zero
#       bytes (three writes in a row, one message); "cork" writes it under
#       TCP_CORK and then clears TCP_CORK; "epipe" writes it as usual,
#       shuts the connection down for writing and writes one byte more,
#       which fails with EPIPE; "shut" writes it under TCP_CORK, shuts the
#       connection down for writing and then clears TCP_CORK, so that the
#       DATA_FIN rides on the response's last data segment (the stream
#       ends with that response).
#
#   fuso_rr.py client [-6] -p PORT -a ADDR [-n N] [-s SIZES] [-q REQ]
#                     [--new-conn] [--wait-file F] [--snap-pid PID]
#                     [--before CMD] [--times] [--conns C] [--fuso MODE]
#                     [--gap MS] [--seed S] [--random-sizes MAX] [--races]
#                     [--reconnect] [--eof]
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
#       C connections, E exchanges, B bytes" at the end.  With --fuso, set
#       MPTCP_FUSO to MODE on each socket before it connects.  With --gap,
#       wait MS milliseconds before each exchange but the first (not with
#       --conns).  With --conns, also: --random-sizes draws each response's
#       size from 1 to MAX bytes, uniform in its logarithm, instead of
#       cycling SIZES; --races ends some connections in a race instead of
#       a plain close (a shutdown for writing right after the last request,
#       whose response is still checked, or a close in the middle of one
#       more response: see how_it_ends()); --seed S seeds the draws (each
#       connection's from S and its index), so that a run can be replayed.
#       The last line then adds "A aborted": the responses cut short on
#       purpose, not checked.  With --reconnect, before exchange N/2
#       disconnect the connection (connect(AF_UNSPEC)) and connect the
#       same socket again; print "reconnect copies A then B", the FUSO
#       copies in MPTCP_INFO before the disconnect and right after the
#       new connect, and fail unless B is 0 (not with --conns, --new-conn).
#       With --eof, the stream must end after the last response (the
#       server's --after-send shut): print "eof_us T", T the time from the
#       response's last byte to the end of the stream (not with --conns).
#
#   fuso_rr.py sockopt [-6] -p PORT --expect MODE   (ports PORT..PORT+2)
#       Check the MPTCP_FUSO socket option on loopback: a new socket reports
#       the namespace's mode (MODE); values outside 0..3 and short options
#       fail with EINVAL and change nothing; 0..3 read back; a listener's
#       value goes to the connections it accepts, and without one they get
#       the namespace's; MPTCP_INFO reports the mode in force.  Bad input
#       (badinput()): short and odd-sized MPTCP_FUSO, MPTCP_INFO and
#       MPTCP_FULL_INFO buffers, and MPTCP_FUSO on a listener, a
#       fallen-back socket and a closed one.  Prints "ok ..." or
#       "FAIL ..." per check.
#
#   fuso_rr.py policy [-6] -p PORT --expect MODE --allowed MASK --privileged 0|1
#       Check MPTCP_FUSO under the namespace's policy (net.mptcp.fuso=MODE,
#       net.mptcp.fuso_allowed=MASK), as a caller with CAP_NET_ADMIN in
#       the namespace's user namespace (--privileged 1) or without: each
#       mode 0..3 is taken (and reads back) when the caller is privileged
#       or the mode turns on no part outside MASK | MODE, else it fails
#       with EPERM and the socket keeps MODE; values outside 0..3 fail
#       with EINVAL either way; a listener whose choice was refused
#       passes the namespace's mode to its connections, one whose choice
#       was taken passes that.
#
# A request is: 4 bytes response size, 4 bytes exchange number, padding.
# Response byte i of exchange k is (k * 131 + i) & 0xff.
# Exit status: 0 all responses intact, 1 a response was wrong or short,
# 2 usage or socket error.

import argparse
import ctypes
import errno
import math
import os
import random
import socket
import struct
import subprocess
import sys
import threading
import time

IPPROTO_MPTCP = getattr(socket, "IPPROTO_MPTCP", 262)
SOL_MPTCP = 284
MPTCP_INFO = 1
MPTCP_FULL_INFO = 4
MPTCP_FUSO = 5
# the largest net.mptcp.fuso mode: the sender (1) and the receiver (2)
MODE_MAX = 3
# struct mptcp_full_info: six u32 sizes and counts, two u64 user
# pointers, then struct mptcp_info (MIN_FULL_INFO_OPTLEN_SIZE)
FULL_INFO_HDR = 40
# struct mptcp_info: mptcpi_fuso_mode (u8), 3 reserved bytes,
# mptcpi_fuso_copies (u32), mptcpi_fuso_copy_bytes (u64)
INFO_FUSO_OFF = 96
INFO_LEN = 112


def set_fuso(s, mode):
    s.setsockopt(SOL_MPTCP, MPTCP_FUSO, mode)


def get_fuso(s):
    return s.getsockopt(SOL_MPTCP, MPTCP_FUSO)


def fuso_info(s):
    """(mode, copies, copy bytes) from MPTCP_INFO, or None if the kernel's
    struct mptcp_info has no FUSO fields."""
    b = s.getsockopt(SOL_MPTCP, MPTCP_INFO, INFO_LEN)
    if len(b) < INFO_LEN:
        return None
    mode, copies, nbytes = struct.unpack_from("=B3xIQ", b, INFO_FUSO_OFF)
    return mode, copies, nbytes


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
        elif after == "empties":
            c.sendall(pattern(k, size), socket.MSG_MORE)
            c.send(b"", socket.MSG_MORE)
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
        elif after == "shut":
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
            c.sendall(pattern(k, size))
            c.shutdown(socket.SHUT_WR)
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 0)


def server(args):
    s = socket.socket(family(args), socket.SOCK_STREAM, IPPROTO_MPTCP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if args.fuso is not None:
        set_fuso(s, args.fuso)
    s.bind(("::" if args.ipv6 else "0.0.0.0", args.port))
    s.listen(256)
    while True:
        c, _ = s.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve_thread,
                         args=(c, args.after_send, args.info,
                               args.resets_ok),
                         daemon=True).start()


info_lock = threading.Lock()


def serve_thread(c, after, info, resets_ok):
    try:
        serve_conn(c, after)
        if info:
            fi = fuso_info(c)
            line = (f"conn mode {get_fuso(c)} copies {fi[1]} bytes {fi[2]}"
                    if fi else "conn no-fuso-info")
            with info_lock, open(info, "a") as f:
                f.write(line + "\n")
    except (ConnectionResetError, BrokenPipeError) as e:
        if not resets_ok:
            print(f"fuso_rr server: {e}", file=sys.stderr)
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
    if args.fuso is not None:
        set_fuso(s, args.fuso)
    s.settimeout(args.timeout)
    s.connect((args.addr, args.port))
    return s


def disconnect(s):
    """connect(AF_UNSPEC), MPTCP's disconnect: the socket may connect
    again, as a new connection.  Return: errno, 0 on success."""
    libc = ctypes.CDLL(None, use_errno=True)
    sa = ctypes.create_string_buffer(16)  # sa_family 0: AF_UNSPEC
    if libc.connect(s.fileno(), sa, len(sa)) == 0:
        return 0
    return ctypes.get_errno()


def reconnect(s, args):
    """--reconnect: disconnect S and connect it again; the new
    connection's MPTCP_INFO must count none of the old one's copies."""
    old = fuso_info(s)
    e = disconnect(s)
    if e:
        print(f"fuso_rr: connect(AF_UNSPEC): {os.strerror(e)}",
              file=sys.stderr)
        return False
    s.connect((args.addr, args.port))
    new = fuso_info(s)
    print(f"reconnect copies {old[1] if old else -1}"
          f" then {new[1] if new else -1}", flush=True)
    if not new or new[1] or new[2]:
        print(f"fuso_rr: the new connection starts with MPTCP_INFO's"
              f" (mode, copies, bytes) {new}", file=sys.stderr)
        return False
    return True


def exchange(s, k, size, req, shut=False):
    """One exchange; with SHUT, shut the connection down for writing
    right after the request, and expect the end of the stream after the
    response."""
    pad = max(0, req - 12)
    s.sendall(struct.pack("!III", size, k, pad) + bytes(pad))
    if shut:
        s.shutdown(socket.SHUT_WR)
    data = recv_exact(s, size)
    if shut and len(data) == size and s.recv(1):
        print(f"fuso_rr: exchange {k}: data after the response, where the"
              " stream should end", file=sys.stderr)
        return False
    if data != pattern(k, size):
        print(f"fuso_rr: exchange {k}: got {len(data)} of {size} bytes"
              f"{'' if len(data) < size else ', content differs'}",
              file=sys.stderr)
        return False
    return True


def random_size(rng, top):
    """A size from 1 to TOP bytes, uniform in its logarithm: as many
    responses of a few bytes as of a few hundred kilobytes."""
    return min(top, max(1, int(math.exp(rng.uniform(0, math.log(top))))))


def how_it_ends(rng, races):
    """How a connection of --conns ends: "close" (after its last
    response), or with --races also "shutdown" (its last request is
    followed at once by shutdown(SHUT_WR); the response is still read,
    checked, and followed by the end of the stream) or "abort" (one more
    request, then close() after a random part of its response: unread
    data, a reset or a fast close while the response is in flight)."""
    if not races:
        return "close"
    return rng.choice(("close", "close", "shutdown", "abort"))


def many(args):
    """--conns: N exchanges on each of C concurrent connections."""
    sizes = [int(x) for x in args.sizes.split(",")]
    conns = [connect(args) for _ in range(args.conns)]
    start = threading.Barrier(args.conns)
    failed = []
    checked = [0] * args.conns
    aborted = [0] * args.conns

    def run(i, s):
        rng = random.Random(f"{args.seed}-{i}")
        end = how_it_ends(rng, args.races)
        step = "start"
        try:
            start.wait()
            for k in range(args.n):
                size = (random_size(rng, args.random_sizes)
                        if args.random_sizes else sizes[k % len(sizes)])
                last = k == args.n - 1 and end == "shutdown"
                step = (f"exchange {k + 1} of {args.n} ({size} bytes"
                        f"{', then the end of the stream' if last else ''})")
                if not exchange(s, i * args.n + k, size, args.req, last):
                    failed.append(i)
                    return
                checked[i] += size
            if end == "abort":
                size = random_size(rng, args.random_sizes or 65536)
                step = "the request before the close"
                s.sendall(struct.pack("!III", size, 0, 0))
                recv_exact(s, rng.randrange(size + 1))
                aborted[i] = 1
        except (OSError, threading.BrokenBarrierError) as e:
            print(f"fuso_rr: connection {i} ({end}), {step}: {e}",
                  file=sys.stderr)
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
    print(f"checked {args.conns} connections, {args.conns * args.n}"
          f" exchanges, {sum(checked)} bytes, {sum(aborted)} aborted")
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
        elif args.reconnect and k == args.n // 2 and not reconnect(s, args):
            return 1
        if k == 1 and args.wait_file:
            print("ready", flush=True)
            while not os.path.exists(args.wait_file):
                time.sleep(0.01)
        if k > 0 and args.gap:
            time.sleep(args.gap / 1000)
        if k > 0 and args.before:
            subprocess.run(args.before, shell=True, check=True)
        last = k == args.n - 1 and args.snap_pid
        if last:
            pre = snapshot(args.snap_pid)
        t0 = time.monotonic()
        if not exchange(s, k, sizes[k % len(sizes)], args.req):
            return 1
        t1 = time.monotonic()
        if k > 0 and args.times:
            print(f"time_us {k} {(t1 - t0) * 1e6:.0f}", flush=True)
        if k == args.n - 1 and args.eof:
            if s.recv(1):
                print(f"fuso_rr: exchange {k}: data after the response,"
                      " where the stream should end", file=sys.stderr)
                return 1
            print(f"eof_us {(time.monotonic() - t1) * 1e6:.0f}", flush=True)
        if last:
            post = snapshot(args.snap_pid)
            print(f"elapsed_ms {(time.monotonic() - t0) * 1000:.0f}")
            for name in sorted(post):
                print(f"delta {name} {int(post[name]) - int(pre.get(name, 0))}")
    s.close()
    return 0


class Checks:
    """Prints "ok WHAT" or "FAIL WHAT" per check and counts the failures."""

    def __init__(self):
        self.fails = 0

    def __call__(self, ok, what):
        print(f"{'ok' if ok else 'FAIL'} {what}", flush=True)
        self.fails += not ok


def err(fn):
    """The errno of fn(), 0 if it succeeds."""
    try:
        fn()
    except OSError as e:
        return e.errno
    return 0


def through_listener(args, lmode):
    """A loopback connection accepted by a listener on which MPTCP_FUSO
    was set to LMODE (None: not set): (the errno of that setsockopt, the
    accepted socket, the connecting one, the listener)."""
    fam = family(args)
    ls = socket.socket(fam, socket.SOCK_STREAM, IPPROTO_MPTCP)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    e = 0 if lmode is None else err(lambda: set_fuso(ls, lmode))
    ls.bind(("::1" if args.ipv6 else "127.0.0.1", args.port))
    ls.listen(4)
    cs = socket.socket(fam, socket.SOCK_STREAM, IPPROTO_MPTCP)
    cs.settimeout(10)
    cs.connect(ls.getsockname()[:2])
    a, _ = ls.accept()
    return e, a, cs, ls


def raw_getsockopt(s, opt, buf):
    """getsockopt(SOL_MPTCP, opt) into the bytearray buf, which the kernel
    may read too (Python's own getsockopt() passes uninitialised memory):
    (errno or 0, the length the kernel returned)."""
    libc = ctypes.CDLL(None, use_errno=True)
    cbuf = ctypes.create_string_buffer(bytes(buf), max(len(buf), 1))
    n = ctypes.c_uint32(len(buf))
    if libc.getsockopt(s.fileno(), SOL_MPTCP, opt, cbuf, ctypes.byref(n)):
        return ctypes.get_errno(), 0
    buf[:] = cbuf.raw[:len(buf)]
    return 0, n.value


def badinput(args, check):
    """Short and odd-sized buffers, and the sockets an application may
    still hold: a listener, a fallen-back socket, a closed one.  Every
    refused call fails with EINVAL and changes nothing; what a short
    buffer gets is the start of what a long one gets."""
    e, a, cs, ls = through_listener(args, None)
    set_fuso(cs, MODE_MAX)
    # getsockopt(MPTCP_FUSO) into less than an int: one byte, as TCP's
    # int options; into more: an int
    for n in (1, 2, 3):
        b = cs.getsockopt(SOL_MPTCP, MPTCP_FUSO, n)
        check(b == bytes([MODE_MAX]), f"MPTCP_FUSO read into {n} bytes:"
              f" the mode in one byte (got {b!r})")
    b = cs.getsockopt(SOL_MPTCP, MPTCP_FUSO, 64)
    check(b == struct.pack("=i", MODE_MAX),
          f"MPTCP_FUSO read into 64 bytes: an int (got {b!r})")
    # setsockopt: an empty option fails; a long one counts its first int
    e = err(lambda: cs.setsockopt(SOL_MPTCP, MPTCP_FUSO, b""))
    check(e == errno.EINVAL and get_fuso(cs) == MODE_MAX,
          f"an empty option: EINVAL, mode unchanged (errno {e})")
    m = MODE_MAX - 1
    e = err(lambda: cs.setsockopt(SOL_MPTCP, MPTCP_FUSO,
                                  struct.pack("=iI", m, 0xffffffff)))
    check(e == 0 and get_fuso(cs) == m,
          f"an 8-byte option: its first int, {m} (errno {e},"
          f" mode {get_fuso(cs)})")

    # MPTCP_INFO into short buffers: the start of the whole, whatever
    # the size, the size before FUSO's fields (an older program) too
    whole = cs.getsockopt(SOL_MPTCP, MPTCP_INFO, INFO_LEN + 64)
    check(len(whole) == INFO_LEN and whole[INFO_FUSO_OFF] == m,
          f"MPTCP_INFO into {INFO_LEN + 64} bytes: {INFO_LEN}, mode {m}"
          f" (got {len(whole)} bytes)")
    for n in (1, 4, 12, INFO_FUSO_OFF, INFO_FUSO_OFF + 1, INFO_LEN - 1):
        b = cs.getsockopt(SOL_MPTCP, MPTCP_INFO, n)
        m = min(n, 12)  # flags and token: the fields that do not move
        check(len(b) == n and b[:m] == whole[:m],
              f"MPTCP_INFO into {n} bytes: the first {n} (got {len(b)})")

    # MPTCP_FULL_INFO: the kernel reads its header from the buffer
    for n in (0, 4, FULL_INFO_HDR - 1):
        e, _ = raw_getsockopt(cs, MPTCP_FULL_INFO, bytearray(n))
        check(e == errno.EINVAL,
              f"MPTCP_FULL_INFO into {n} bytes: EINVAL (errno {e})")
    buf = bytearray(FULL_INFO_HDR)
    buf[0:4] = struct.pack("=I", 1)  # size_tcpinfo_kernel: not the user's
    e, _ = raw_getsockopt(cs, MPTCP_FULL_INFO, buf)
    check(e == errno.EINVAL,
          f"MPTCP_FULL_INFO with a kernel size set by the caller: EINVAL"
          f" (errno {e})")
    # arrays asked for, at a NULL address: EFAULT, nothing else
    buf = bytearray(FULL_INFO_HDR)
    struct.pack_into("=IIIIII", buf, 0, 0, 8, 0, 8, 0, 4)
    e, _ = raw_getsockopt(cs, MPTCP_FULL_INFO, buf)
    check(e == errno.EFAULT,
          f"MPTCP_FULL_INFO with arrays at address 0: EFAULT (errno {e})")
    for extra in (0, INFO_FUSO_OFF, INFO_LEN, INFO_LEN + 64):
        buf = bytearray(FULL_INFO_HDR + extra)
        e, n = raw_getsockopt(cs, MPTCP_FULL_INFO, buf)
        subflows = struct.unpack_from("=I", buf, 16)[0]
        want = FULL_INFO_HDR + min(extra, INFO_LEN)
        info = bytes(buf[FULL_INFO_HDR:want])
        check(e == 0 and n == want and subflows >= 1 and
              info[:12] == whole[:min(12, len(info))],
              f"MPTCP_FULL_INFO into {FULL_INFO_HDR} + {extra} bytes:"
              f" {want}, {subflows} subflow(s), MPTCP_INFO's start"
              f" (errno {e}, length {n})")
    for x in (a, cs, ls):
        x.close()

    # a listener, a socket that fell back to TCP, a closed one: out of
    # range values fail, valid ones read back
    ls = socket.socket(family(args), socket.SOCK_STREAM, IPPROTO_MPTCP)
    tl = socket.socket(family(args), socket.SOCK_STREAM)
    tl.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tl.bind(("::1" if args.ipv6 else "127.0.0.1", args.port + 1))
    tl.listen(1)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("::1" if args.ipv6 else "127.0.0.1", args.port + 2))
    ls.listen(1)
    fb = socket.socket(family(args), socket.SOCK_STREAM, IPPROTO_MPTCP)
    fb.settimeout(10)
    fb.connect(tl.getsockname()[:2])
    peer, _ = tl.accept()
    closed = socket.socket(family(args), socket.SOCK_STREAM, IPPROTO_MPTCP)
    closed.settimeout(10)
    closed.connect(ls.getsockname()[:2])
    cpeer, _ = ls.accept()
    cpeer.close()
    closed.shutdown(socket.SHUT_RDWR)
    closed.recv(1)
    for what, x in (("a listener", ls), ("a fallen-back socket", fb),
                    ("a closed socket", closed)):
        for v in (MODE_MAX - 1, MODE_MAX):
            e = err(lambda: set_fuso(x, v))
            check(e == 0 and get_fuso(x) == v,
                  f"{what}: MPTCP_FUSO={v} reads back (errno {e},"
                  f" mode {get_fuso(x)})")
        for v in (-1, MODE_MAX + 1, 0x7fffffff):
            e = err(lambda: set_fuso(x, v))
            check(e == errno.EINVAL and get_fuso(x) == MODE_MAX,
                  f"{what}: MPTCP_FUSO={v}: EINVAL, mode unchanged"
                  f" (errno {e})")
    for x in (ls, tl, fb, peer, closed):
        x.close()


def sockopt(args):
    """The MPTCP_FUSO API, on loopback."""
    check = Checks()

    fam = family(args)
    s = socket.socket(fam, socket.SOCK_STREAM, IPPROTO_MPTCP)
    check(get_fuso(s) == args.expect,
          f"a new socket reports the namespace's mode {args.expect}"
          f" (got {get_fuso(s)})")
    for v in (-1, MODE_MAX + 1, 255, 1 << 20):
        e = err(lambda: set_fuso(s, v))
        check(e == errno.EINVAL and get_fuso(s) == args.expect,
              f"MPTCP_FUSO={v}: EINVAL, mode unchanged"
              f" (errno {e}, mode {get_fuso(s)})")
    e = err(lambda: s.setsockopt(SOL_MPTCP, MPTCP_FUSO, b"\x01"))
    check(e == errno.EINVAL and get_fuso(s) == args.expect,
          f"a 1-byte option: EINVAL, mode unchanged (errno {e})")
    for v in (MODE_MAX, *range(MODE_MAX)):
        set_fuso(s, v)
        check(get_fuso(s) == v, f"MPTCP_FUSO={v} reads back ({get_fuso(s)})")
    s.close()

    # listeners: with a value, and without one
    other = MODE_MAX if args.expect != MODE_MAX else MODE_MAX - 1
    for lmode in (other, None):
        e, a, cs, ls = through_listener(args, lmode)
        want = args.expect if lmode is None else lmode
        check(e == 0 and get_fuso(a) == want,
              f"a connection accepted by a listener with "
              f"{'no MPTCP_FUSO' if lmode is None else f'MPTCP_FUSO={lmode}'}"
              f" has mode {want} (got {get_fuso(a)})")
        fi = fuso_info(a)
        check(fi is not None and fi[0] == want and fi[1] == 0,
              f"MPTCP_INFO: mode {want}, no copies yet (got {fi})")
        check(get_fuso(cs) == args.expect,
              f"the connecting side keeps the namespace's mode"
              f" (got {get_fuso(cs)})")
        for x in (a, cs, ls):
            x.close()
    badinput(args, check)
    return 1 if check.fails else 0


def policy(args):
    """MPTCP_FUSO under net.mptcp.fuso_allowed, on loopback."""
    check = Checks()

    def try_set(s, v):
        return err(lambda: set_fuso(s, v))

    def may(v):
        return args.privileged or not v & ~(args.allowed | args.expect)

    fam = family(args)
    who = "privileged" if args.privileged else "unprivileged"
    for v in range(4):
        s = socket.socket(fam, socket.SOCK_STREAM, IPPROTO_MPTCP)
        e = try_set(s, v)
        want_e, want_m = (0, v) if may(v) else (errno.EPERM, args.expect)
        check(e == want_e and get_fuso(s) == want_m,
              f"{who}, fuso={args.expect}, fuso_allowed={args.allowed}:"
              f" MPTCP_FUSO={v} gives errno {want_e}, mode {want_m}"
              f" (got errno {e}, mode {get_fuso(s)})")
        s.close()
    for v in (-1, 4):
        s = socket.socket(fam, socket.SOCK_STREAM, IPPROTO_MPTCP)
        e = try_set(s, v)
        check(e == errno.EINVAL and get_fuso(s) == args.expect,
              f"{who}: MPTCP_FUSO={v}: EINVAL, mode unchanged"
              f" (errno {e}, mode {get_fuso(s)})")
        s.close()
    # a listener asks for every part
    e, a, cs, ls = through_listener(args, 3)
    want = 3 if may(3) else args.expect
    check(e == (0 if may(3) else errno.EPERM) and get_fuso(a) == want,
          f"{who}: a listener's MPTCP_FUSO=3 gives errno"
          f" {0 if may(3) else errno.EPERM}, its connection mode {want}"
          f" (got errno {e}, mode {get_fuso(a)})")
    for x in (a, cs, ls):
        x.close()
    return 1 if check.fails else 0


def main():
    p = argparse.ArgumentParser(description="MPTCP request/response for fuso.sh")
    p.add_argument("mode", choices=("server", "client", "sockopt", "policy"))
    p.add_argument("-6", dest="ipv6", action="store_true")
    p.add_argument("-p", dest="port", type=int, required=True)
    p.add_argument("-a", dest="addr")
    p.add_argument("-n", dest="n", type=int, default=10)
    p.add_argument("-s", dest="sizes", default="1000")
    p.add_argument("-q", dest="req", type=int, default=100)
    p.add_argument("-t", dest="timeout", type=float, default=30)
    p.add_argument("--new-conn", action="store_true")
    p.add_argument("--gap", type=float, default=0)
    p.add_argument("--wait-file")
    p.add_argument("--snap-pid", type=int)
    p.add_argument("--before")
    p.add_argument("--times", action="store_true")
    p.add_argument("--conns", type=int, default=0)
    p.add_argument("--seed", default="0")
    p.add_argument("--random-sizes", type=int, default=0)
    p.add_argument("--races", action="store_true")
    p.add_argument("--reconnect", action="store_true")
    p.add_argument("--eof", action="store_true")
    p.add_argument("--resets-ok", action="store_true")
    p.add_argument("--after-send",
                   choices=("empty", "empties", "cork", "epipe", "shut"))
    p.add_argument("--fuso", type=int)
    p.add_argument("--info")
    p.add_argument("--expect", type=int)
    p.add_argument("--allowed", type=int)
    p.add_argument("--privileged", type=int, choices=(0, 1))
    args = p.parse_args()
    try:
        if args.mode == "server":
            return server(args)
        if args.mode == "sockopt":
            if args.expect is None:
                p.error("sockopt needs --expect MODE")
            return sockopt(args)
        if args.mode == "policy":
            if args.expect is None or args.allowed is None or args.privileged is None:
                p.error("policy needs --expect MODE --allowed MASK --privileged 0|1")
            return policy(args)
        if not args.addr:
            p.error("client needs -a ADDR")
        if not math.isfinite(args.gap) or args.gap < 0:
            p.error(f"--gap: {args.gap} is not a time in ms (0 or more)")
        if args.gap and args.conns:
            p.error("--gap is for exchanges on one connection, not --conns")
        if args.reconnect and (args.conns or args.new_conn):
            p.error("--reconnect is for one connection, not --conns or --new-conn")
        if args.eof and args.conns:
            p.error("--eof is for exchanges on one connection, not --conns")
        return client(args)
    except subprocess.CalledProcessError as e:
        print(f"fuso_rr {args.mode}: --before: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"fuso_rr {args.mode}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
