#!/usr/bin/python3
"""Where a FUSO run's slow queries waited, from its trace.

Usage: slowq.py [--over MS] SCHEMEDIR...

SCHEMEDIR is one scheme's directory of one replication (for example
/work/bench/NAME/figuntuned/bursty2/s6/fuso3) of a bench run whose plan
line asked for

    trace=tcp:tcp_retransmit_skb,mptcp:mptcp_sendmsg_frag,mptcp:get_mapping_status

(guest.sh writes the whole trace to SCHEMEDIR/trace.txt, on the clock of
the query records).  For every query slower than --over ms (default 5)
it prints: whether the client sent its request more than once (FUSO
copies a request that is the connection's only data), how long the
request took to reach the server's MPTCP socket, and the subflow
retransmissions in the last 2 ms before the query completed, which are
what ended its wait (a request that arrived late was lost with its copy;
one that arrived on time left the response's tail to wait).

A client's query times count from the start of its generator, which the
trace does not record: the first request a client sends is copied by
FUSO (the connection's only data), and that copy's mptcp_fuso_recovery
event, which names the client's address, anchors the client's first
query (start 1 us).  So this reads FUSO runs only; it fails on others.
The clients are Fig 3's H1-H3 (10.1.C.128); it fails on a run with
other clients (the fat-tree, the incast with a host per sender).  A
request is the 16-byte send of any socket within 20 us of its query's
start, so two clients starting together could be confused.

With the "path" lines of the replication's condition.txt (which path
ECMP gave each subflow), it also prints the copies sent in the query's
first 3 ms, each as the path of the subflow that held the data and of
the one that carried the copy (a port whose path is not recorded shows
as "?"), and for each SCHEMEDIR how many of all its copies went onto a
subflow of their original's path: a loss burst there takes both.
"""
import argparse
import csv
import os
import re
import sys

EVENT = re.compile(r"\s*\S+\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): (.*)")
NEEDED = ("tcp_retransmit_skb", "mptcp_sendmsg_frag", "get_mapping_status")


def die(msg):
    print("slowq.py: " + msg, file=sys.stderr)
    sys.exit(1)


def read_trace(path):
    ev = []
    with open(path) as f:
        for line in f:
            m = EVENT.match(line)
            if m:
                ev.append((float(m.group(1)), m.group(2), m.group(3)))
    return ev


def client_base(ev, c):
    """Trace time of client c's first query (its start_us is 1)."""
    for t, e, a in ev:
        if e == "mptcp_fuso_recovery" and f" src=10.1.{c}.128:" in " " + a:
            return t - 1e-6
    return None


COPY = re.compile(r"src=(\S+) dest=(\S+) worst=(\S+) (\d+)->(\d+) best=(\S+) (\d+)->(\d+) .*len=(\d+)")


def read_paths(d, scheme):
    """{(client network, client port, server address): path} of condition.txt."""
    paths = {}
    cond = os.path.join(os.path.dirname(os.path.abspath(d)), "condition.txt")
    if not os.path.isfile(cond):
        return paths
    with open(cond) as f:
        for line in f:
            w = line.split()
            if len(w) == 7 and w[0] == "path" and w[1] == scheme:
                cip, cport = w[3].rsplit(":", 1)
                key = (cip.rsplit(".", 1)[0], cport, w[4].rsplit(":", 1)[0])
                paths[key] = w[5] if paths.get(key, w[5]) == w[5] else "?"
    return paths


def copy_paths(a, paths):
    """(request?, holder's path, carrier's path, onto the holder itself?) of a copy event.

    The tracepoint names the holder ("worst") and the carrier ("best") by
    socket pointer, equal when the copy went onto the holder itself, and
    by port pair; the client's port, with the addresses, finds the path."""
    m = COPY.search(a)
    if not m:
        return None
    src, dst = (re.sub(r"[\[\]]|::ffff:", "", x) for x in (m.group(1), m.group(2)))
    req = src.startswith("10.1.")
    cli, srv = (src, dst) if req else (dst, src)
    net, sip = cli.rsplit(".", 1)[0], srv.rsplit(":", 1)[0]
    hp, cp = (m.group(4), m.group(7)) if req else (m.group(5), m.group(8))
    return (req, paths.get((net, hp, sip), "?"), paths.get((net, cp, sip), "?"),
            m.group(3) == m.group(6))


def one(d, over_us):
    trace = os.path.join(d, "trace.txt")
    if not os.path.isfile(trace):
        die(f"no trace.txt in {d} (a run with trace=... in its plan line; see --help)")
    ev = read_trace(trace)
    seen = {e for _, e, _ in ev}
    missing = [e for e in NEEDED if e not in seen]
    if missing:
        die(f"{trace} has no {', '.join(missing)} events (see --help for the trace= to ask)")
    other = sorted(f for f in os.listdir(d) if re.fullmatch(r"h\d+\.csv", f)
                   and f not in ("h1.csv", "h2.csv", "h3.csv"))
    if other:
        die(f"{d} has clients other than Fig 3's h1-h3 ({', '.join(other)}): "
            "this reads the Fig 3 testbed only")
    paths = read_paths(d, os.path.basename(os.path.abspath(d)))
    n = 0
    for c in (1, 2, 3):
        qf = os.path.join(d, f"h{c}.csv")
        if not os.path.isfile(qf):
            continue
        base = client_base(ev, c)
        if base is None:
            die(f"{trace}: no FUSO copy from client h{c}, so no time base "
                "(this reads FUSO runs only)")
        with open(qf) as f:
            for q in csv.DictReader(f):
                if int(q["fct_us"]) < over_us:
                    continue
                n += 1
                t0 = base + int(q["start_us"]) / 1e6
                t1 = t0 + int(q["fct_us"]) / 1e6
                req = [a for t, e, a in ev if e == "mptcp_sendmsg_frag"
                       and abs(t - t0) < 2e-5 and " data_len=16 " in a + " "]
                dsn = re.search(r"data_seq=(\d+)", req[0]).group(1) if req else None
                rx = [t for t, e, a in ev if dsn and e == "get_mapping_status"
                      and f"data_seq={dsn} " in a and t0 <= t <= t1 + 1e-3]
                rt = ["%.1f ms %s" % ((t - t0) * 1e3, " ".join(
                    w for w in a.split() if w.split("=")[0] in ("sport", "dport", "saddr", "daddr")))
                      for t, e, a in ev if e == "tcp_retransmit_skb" and t1 - 2e-3 <= t <= t1 + 1e-4]
                arrived = "%.2f ms" % ((rx[0] - t0) * 1e3) if rx else "not seen"
                cp = []
                for t, e, a in ev:
                    if e != "mptcp_fuso_recovery" or not t0 - 1e-5 <= t <= t0 + 3e-3 \
                       or f"10.1.{c}." not in a:
                        continue
                    x = copy_paths(a, paths)
                    if x:
                        cp.append("%s %s->%s" % ("request" if x[0] else "response", x[1], x[2]))
                print(f"{d}: h{c} query {q['id']} ({q['size']} B) took {int(q['fct_us']) / 1e3:.1f} ms; "
                      f"request sent {len(req)} time(s), at the server after {arrived}; "
                      f"retransmissions in its last 2 ms: {'; '.join(rt) or 'none'}; "
                      f"copies in its first 3 ms (holder's path->carrier's): {', '.join(cp) or 'none'}")
    if not n:
        print(f"{d}: no query over {over_us / 1e3:g} ms")
    cnt = {}
    for t, e, a in ev:
        x = copy_paths(a, paths) if e == "mptcp_fuso_recovery" else None
        if x:
            k = ("request" if x[0] else "response",
                 "holder" if x[3] else "unknown" if "?" in x[1:3]
                 else "same" if x[1] == x[2] else "other")
            cnt[k] = cnt.get(k, 0) + 1
    for kind in ("request", "response"):
        tot = sum(v for k, v in cnt.items() if k[0] == kind)
        if tot:
            print(f"{d}: {tot} {kind} copies: {cnt.get((kind, 'holder'), 0)} onto the holder itself, "
                  f"{cnt.get((kind, 'same'), 0)} onto another subflow of its path, "
                  f"{cnt.get((kind, 'other'), 0)} onto another path, "
                  f"{cnt.get((kind, 'unknown'), 0)} unknown")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--over", type=float, default=5.0, help="slow means over this many ms [5]")
    ap.add_argument("dirs", nargs="+", metavar="SCHEMEDIR")
    a = ap.parse_args()
    for d in a.dirs:
        if not os.path.isdir(d):
            die(f"no directory {d}")
        one(d, int(a.over * 1000))


if __name__ == "__main__":
    main()
