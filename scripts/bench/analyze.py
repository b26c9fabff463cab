#!/usr/bin/python3
"""Summarise a FUSO benchmark run (scripts/bench/bench.sh).

    analyze.py RESULTS_DIR [--no-plots] [--effect-check FIG/COND]
               [--effect-floor N] [--effect-table FIG/COND]
               [--reduce FILE.tar.xz]

Reads RESULTS_DIR/fig<F>/<COND>/s<SEED>/{condition.txt,SCHEME/...}: one
directory s<SEED> per replication (one VM boot) of a condition.  Writes
RESULTS_DIR/summary.csv, pairs.csv, summary.md, one fig*.png per
experiment, and a queries.csv in every SCHEME directory (one line per
query: client,id,size,start_us,fct_us,fanout,rto,timeout).

The reduced form.  --reduce FILE.tar.xz, after an analysis without a
problem, packs what the tables are made of and nothing else: every
condition.txt, and per scheme queries.csv, counters-delta.txt (the
counters that moved: "HOST COUNTER AFTER-MINUS-BEFORE"), copies.txt,
cpu.txt, bulk.txt and the background's bg-h*.csv; deterministic (sorted,
no times or owners).  analyze.py reads such a tree back: a scheme
directory without the raw per-client files (h<N>.csv) is read from its
queries.csv, and one without counters-before/after.txt from its
counters-delta.txt, so unpacking FILE and running analyze.py on it
writes the same summary.csv and pairs.csv again (Documentation/bench/
holds the published runs in this form).  Without counters (the oldest
committed data has queries.csv alone) the counter columns are blank and
the counter checks are skipped.

Fails (exit 1) when a scheme of a replication produced fewer queries than
asked for, so that a broken scheme cannot hide in the averages, when a
scheme did not do what it stands for (FUSO schemes sent no copy, a
non-FUSO scheme did, TCP without TLP sent a loss probe, Proactive or
RepFlow sent less than 30% extra bytes), when the tracepoint lost events
(trace_lost 1: the copy counts are short), when a replication has no
condition.txt, or when the replications of a condition disagree on its
settings.

Timeouts per query.  A query (client h<N>, id) counts the client's
retransmission timeouts during the query (rto_c) plus those of every
server record (srv-h*.csv) of the same request: the same id, from the
client's addresses 10.1.N.x, from one of the client ports that carried
the answers that counted (lports).  The query hit a retransmission
timeout (timeout=1) when that sum is positive AND the query took at least
5 ms, the minimum RTO: a query that finished sooner cannot have waited
for a timeout to fire (its timeout was on a copy or an answer that did
not count, or came after the query was complete).

summary.csv, one row per figure, condition, scheme and size bin (sizes:
all; <10K = queries under 10 000 bytes; 10K-100K = 10 000 to 99 999
bytes; a bin without queries has no row).  The queries of every
replication are pooled for the point estimates:
  reps       replications of the condition
  n          completed queries (an incast query counts once)
  mean, p50, p99, p99.9   query completion time (nearest rank), ms
  over5      queries that took longer than the 5 ms minimum RTO, %
             (blank in the incast, where it means nothing)
  rto_share  queries that hit a retransmission timeout (above), %
  p99_lo, p99_hi, rto_share_lo, rto_share_hi
             95% cluster bootstrap over the replications (2000
             resamples of the replications, not of the queries, with a
             fixed seed); blank with a single replication
The cost columns (sizes=all rows only) add up every replication's
counters (after minus before):
  rto        retransmission timeouts (TcpExtTCPTimeouts, every host,
             after the warm-up) per 100 queries
  extra      bytes the senders (H4-H6; H2-H6 in the incast) sent beyond
             the response payload plus headers, % of what they sent
             (retransmissions, FUSO copies, RepFlow and Proactive
             duplicates; MPTCP options add ~1.4%); blank with background
             traffic
  copy       FUSO copy bytes (mptcp_fuso_recovery tracepoint), % of what
             the senders sent (background flows included)
  copy_mbps  the load the copies add, Mbit/s over all clients: copy bytes
             per response byte times the offered query load (qload);
             blank in the incast
  copies_pq  FUSO copies per query
  cpu_ratio  the guest's CPU seconds per 1000 queries, relative to MPTCP
             in the same replication (geometric mean over replications;
             blank without cpu.txt)
  cpu_off, cpu_user_off   FUSO's own cost: CPU seconds per query (all,
             and the host user-mode part: the guest's instructions, without
             UML's cost of its wake-ups) relative to the same pushing
             with FUSO off (fuso1, fuso3: mptcp-window, since FUSO's
             connections push within the windows; fuso3-paper: mptcp,
             rules 0 on the default scheduler pushing the same way) in
             the same replication; geometric mean with a 95%
             Student t interval over the replications (_lo, _hi)
  bg_n, bg_mean, bg_p99   background flows (Fig 5): count, FCT in ms
  fuso_recoveries, rcv_push   MPTcpExtFusoRecovery, MPTcpExtFusoRcvOfoPush

pairs.csv, FUSO (fuso3) against every other scheme X of a condition, per
size bin: ratio = geometric mean over the replications (paired by their
s<SEED> directory) of p99(fuso3) / p99(X), with a 95% Student t interval
on the log ratios (ratio_lo, ratio_hi; blank under 2 replications); wins
= replications where fuso3's p99 is strictly lower; mean_ratio, the same
for the mean FCT, with its interval (mean_ratio_lo, mean_ratio_hi).  A
ratio under 1: FUSO is faster.

--effect-check FIG/COND (e.g. 4c/loss2): after the analysis, for each
replication of that condition, compare the queries over 5 ms of mptcp and
fuso3: PASS when fuso3 has at most half of mptcp's and mptcp has at least
--effect-floor (default 15); VOID (a failure: the check means nothing)
when mptcp has fewer.  Exit 1 unless every replication passes.
--effect-table FIG/COND prints "seed mptcp_slow fuso3_slow" for every
replication of that condition and exits (to calibrate the check).
"""
import argparse
import csv
import math
import os
import re
import sys

import numpy as np

SCHEMES = ["tcp", "tcp-notlp", "dctcp", "tcp-prr", "mptcp", "mptcp-window", "fuso1",
           "fuso3-paper", "fuso3", "fuso3-dctcp", "repflow", "proactive", "repflow-dctcp",
           "proactive-dctcp"]
LABEL = {"tcp": "TCP (RACK-TLP)", "tcp-notlp": "TCP, no TLP", "dctcp": "DCTCP",
         "tcp-prr": "TCP, repaths after a timeout (PRR)", "mptcp": "MPTCP",
         "mptcp-window": "MPTCP, window scheduler",
         "fuso1": "FUSO sender (fuso=1)", "fuso3-paper": "FUSO as in the paper (fuso=3, rules 0)",
         "fuso3": "FUSO (fuso=3)", "fuso3-dctcp": "FUSO on DCTCP subflows", "repflow": "RepFlow", "proactive": "Proactive",
         "repflow-dctcp": "RepFlow on DCTCP", "proactive-dctcp": "Proactive on DCTCP"}
FIGS = ["2", "4a", "4c", "bursty", "dm", "load", "5", "6", "7", "ft", "diag"]
SENDERS = ("h4", "h5", "h6")                    # who answers the queries
INCAST_SENDERS = ("h2", "h3", "h4", "h5", "h6")  # ... in the incast
WIRE = 1514.0 / 1448.0  # bytes on the wire per payload byte, full segments
MIN_RTO_US = 5000
# (name, lower bound, upper bound, heading): query size in bytes, [lo, hi)
SIZES = [("all", None, None, "all sizes"), ("<10K", 0, 10000, "< 10 KB"),
         ("10K-100K", 10000, 100000, "10-100 KB")]
BOOT_N = 2000
BOOT_SEED = 20160622  # fixed: the analysis itself is deterministic
# Student t, 0.975 quantile, by degrees of freedom (1.96 beyond 30)
T975 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
# the settings that make a condition: every replication must agree on them
COND_KEYS = ("schemes", "topo", "hpt", "lossy", "loss", "where", "lossmodel",
             "p1delay", "nsub", "iwsub", "rtomin", "iw", "flows", "qload", "dist", "bgload", "fanout",
             "size", "bulk")
# settings that older results do not record, at the value they ran with
COND_DEFAULTS = {"p1delay": "35", "topo": "fig3", "rtomin": "5", "iw": "16"}
COLS = ["fig", "cond", "scheme", "sizes", "loss", "where", "lossmodel", "nsub", "iwsub",
        "qload", "bgload", "fanout", "dist", "size", "reps", "n", "mean", "p50", "p99", "p99_lo",
        "p99_hi", "p99.9", "over5", "rto_share", "rto_share_lo", "rto_share_hi", "rto",
        "extra", "copy", "copy_mbps", "copies_pq", "cpu_ratio", "cpu_off", "cpu_user_off",
        "cpu_user_off_lo", "cpu_user_off_hi", "bg_n", "bg_mean", "bg_p99",
        "fuso_recoveries", "rcv_push"]
PAIR_COLS = ["fig", "cond", "sizes", "other", "reps", "ratio", "ratio_lo", "ratio_hi",
             "wins", "mean_ratio", "mean_ratio_lo", "mean_ratio_hi"]
QUERY_COLS = ["client", "id", "size", "start_us", "fct_us", "fanout", "rto", "timeout"]
BULK_COLS = ["fig", "cond", "scheme", "loss", "where", "reps", "mbps", "mbps_lo", "mbps_hi",
             "cpu_s_per_gb", "cpu_user_s_per_gb", "cpu_ratio", "cpu_off", "cpu_user_off",
             "cpu_user_off_lo", "cpu_user_off_hi", "copy"]


def die(msg):
    print("analyze.py: ERROR: " + msg, file=sys.stderr)
    sys.exit(1)


def read_kv(path):
    """key=value lines; other lines (e.g. 'path tcp h1 ...') are ignored."""
    d = {}
    with open(path) as f:
        for line in f:
            k, eq, v = line.rstrip("\n").partition("=")
            if eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", k):
                d[k] = v
    return d


def read_counters(path):
    c = {}
    if not os.path.exists(path):
        return c
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 3:
                try:
                    c[(p[0], p[1])] = int(p[2])
                except ValueError:
                    pass
    return c


def read_pairs(path, conv):
    """'NAME VALUE' lines (copies.txt, cpu.txt), or None without the file."""
    if not os.path.exists(path):
        return None
    d = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 2:
                try:
                    d[p[0]] = conv(p[1])
                except ValueError:
                    pass
    return d


def num(cond, key, default=0.0):
    try:
        return float(cond.get(key) or default)
    except ValueError:
        return default


def incast(cond):
    return num(cond, "fanout") > 0


# What a condition of a figure varies (its x) and the settings its curve
# holds fixed; a condition with another setting (a blackhole, loss on the
# ACKs only, a host per incast sender) goes into the tables, not the plot,
# where it would stand as a point of the figure's curve.
PLOT_FIXED = {"4a": {"where": "p1", "lossmodel": "random"},
              "4c": {"where": "access", "lossmodel": "random"},
              "bursty": {"where": "p1", "lossmodel": "gemodel"},
              "dm": {"where": "p1", "lossmodel": "random"},
              "6": {"fanhosts": "0"}}
PLOT_DEFAULTS = dict(COND_DEFAULTS, lossat="", aqm="red", fanhosts="0", nsub="4")
PLOT_X = {"7": "nsub"}  # a figure whose x is one of the settings above


def plotted(fig, cond):
    """Whether a condition is a point of its figure's curve."""
    want = dict(PLOT_DEFAULTS, **PLOT_FIXED.get(fig, {}))
    want.pop(PLOT_X.get(fig), None)
    return all(cond.get(k, PLOT_DEFAULTS.get(k, v)) == v for k, v in want.items())


def senders(cond):
    """The hosts whose egress carries the answers (guest.sh: with
    fanhosts=1 the incast's senders are H7 onward, one per sender; in
    the fat-tree the second half of the hosts under each ToR)."""
    if cond.get("topo") == "fattree":
        hpt = int(num(cond, "hpt", 2))
        return tuple("h%d" % k for k in range(1, 1 + 8 * hpt) if (k - 1) % hpt >= hpt // 2)
    if incast(cond) and num(cond, "fanhosts") > 0:
        return tuple("h%d" % k for k in range(7, 7 + int(num(cond, "fanout"))))
    return INCAST_SENDERS if incast(cond) else SENDERS


def fig_key(cond, fig=None):
    """The x value of a condition within its experiment (the load series:
    the query load in % of a client's 1 Gbit/s access link)."""
    if fig == "load":
        return num(cond, "qload", 10) / 30.0
    if num(cond, "bgload") > 0:
        return num(cond, "bgload")
    if incast(cond):
        return int(num(cond, "fanout"))
    return num(cond, "loss")


def natkey(s):
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", s) if t]


def fig_order(f):
    return (FIGS.index(f), "") if f in FIGS else (len(FIGS), f)


def pct(sorted_v, q):
    """Nearest-rank percentile of a sorted list."""
    if not len(sorted_v):
        return float("nan")
    k = max(0, min(len(sorted_v) - 1, math.ceil(q * len(sorted_v)) - 1))
    return sorted_v[k]


class Run:
    """One scheme in one replication: its queries (after the join), its
    background flows and the deltas of its counters."""

    def __init__(self):
        self.size = self.fct = self.timeout = np.zeros(0, dtype=np.int64)
        self.rows = []         # (client, id, size, start_us, fct_us, fanout, rto, timeout)
        self.bg = np.zeros(0, dtype=np.int64)
        self.payload = 0       # response bytes the queries asked for
        self.delta = {}        # (host, counter) -> after - before
        self.counted = False   # counters were read (raw or reduced)
        self.copies = None     # copies.txt, or None
        self.cpu = None        # cpu_s, or None
        self.cpu_user = None   # cpu_user_s, or None
        self.bulk = None       # bulk.txt (bytes, seconds), or None

    @property
    def n(self):
        return len(self.fct)

    def counter(self, name, hosts=None):
        return sum(v for k, v in self.delta.items()
                   if k[1] == name and (hosts is None or k[0] in hosts))

    def extra(self, cond):
        """% of the senders' bytes beyond payload+headers, or None."""
        egress = self.counter("EgressBytes", senders(cond))
        if egress <= 0 or num(cond, "bgload") > 0 or not self.n:
            return None
        return 100.0 * max(0.0, egress - self.payload * WIRE) / egress


def read_flows(path, where, problems, with_lports=True):
    rows = []
    with open(path) as f:
        for ln, r in enumerate(csv.DictReader(f), 2):
            try:
                ports = set()
                if with_lports:
                    ports = {int(p) for p in (r.get("lports") or "").split(";") if p.strip()}
                rows.append((int(r["id"]), int(r["size"]), int(r["start_us"]), int(r["fct_us"]),
                             int(r["fanout"]), ports, int(r.get("rto_c") or 0)))
            except (KeyError, TypeError, ValueError):
                problems.append(f"{where}: line {ln} of {os.path.basename(path)} unreadable: {r}")
    return rows


def read_servers(d, where, problems):
    """(client host N, client port, request id) -> the servers' timeouts."""
    rto = {}
    for name in sorted(os.listdir(d)):
        if not re.fullmatch(r"srv-h[0-9]+\.csv", name):
            continue
        with open(os.path.join(d, name)) as f:
            for ln, r in enumerate(csv.DictReader(f), 2):
                try:
                    ip = r["peer"].strip().split(".")   # 10.1.N.x (or ::ffff:10.1.N.x)
                    if len(ip) < 4:
                        raise ValueError(r["peer"])
                    key = (int(ip[-2]), int(r["pport"]), int(r["id"]))
                    rto[key] = rto.get(key, 0) + int(r["rto_s"])
                except (KeyError, TypeError, ValueError, AttributeError):
                    problems.append(f"{where}: line {ln} of {name} unreadable: {r}")
    return rto


def load_run(d, where, problems):
    """Read one scheme directory of one replication; join the queries with
    the servers' records (see the docstring at the top)."""
    run = Run()
    if not os.path.isdir(d):
        return run
    srv = read_servers(d, where, problems)
    rows, bg = [], []
    names = sorted(os.listdir(d))
    raw = any(re.fullmatch(r"h[0-9]+\.csv", n) for n in names)
    if not raw and "queries.csv" in names:
        rows = read_queries(os.path.join(d, "queries.csv"), where, problems)
    for name in names:
        m = re.fullmatch(r"h([0-9]+)\.csv", name)
        if m:
            client = int(m.group(1))
            for qid, size, start, fct, fanout, ports, rto_c in \
                    read_flows(os.path.join(d, name), where, problems):
                rto = rto_c + sum(srv.get((client, p, qid), 0) for p in ports)
                timeout = int(rto > 0 and fct >= MIN_RTO_US)
                rows.append((client, qid, size, start, fct, fanout, rto, timeout))
        elif re.fullmatch(r"bg-h([0-9]+)\.csv", name):
            bg += [r[3] for r in read_flows(os.path.join(d, name), where, problems, False)]
    rows.sort(key=lambda r: (r[0], r[1]))
    run.rows = rows
    if rows:
        a = np.array([(r[2], r[4], r[7]) for r in rows], dtype=np.int64)
        run.size, run.fct, run.timeout = a[:, 0], a[:, 1], a[:, 2]
        run.payload = sum(r[2] * r[5] for r in rows)
    run.bg = np.array(bg, dtype=np.int64)
    if os.path.exists(os.path.join(d, "counters-after.txt")):
        before = read_counters(os.path.join(d, "counters-before.txt"))
        after = read_counters(os.path.join(d, "counters-after.txt"))
        run.delta = {k: v - before.get(k, 0) for k, v in after.items()}
        run.counted = True
    elif os.path.exists(os.path.join(d, "counters-delta.txt")):
        run.delta = read_counters(os.path.join(d, "counters-delta.txt"))
        run.counted = True
    run.copies = read_pairs(os.path.join(d, "copies.txt"), int)
    cpu = read_pairs(os.path.join(d, "cpu.txt"), float)
    run.cpu = cpu.get("cpu_s") if cpu else None
    run.cpu_user = cpu.get("cpu_user_s") if cpu else None
    run.bulk = read_pairs(os.path.join(d, "bulk.txt"), float)
    return run


def read_queries(path, where, problems):
    """The rows of a reduced tree's queries.csv (write_queries' format)."""
    rows = []
    with open(path) as f:
        for ln, r in enumerate(csv.DictReader(f), 2):
            try:
                rows.append(tuple(int(r[k]) for k in QUERY_COLS))
            except (KeyError, TypeError, ValueError):
                problems.append(f"{where}: line {ln} of queries.csv unreadable: {r}")
    return rows


def write_queries(d, run):
    with open(os.path.join(d, "queries.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(QUERY_COLS)
        w.writerows(run.rows)


def sanity(sch, run, cond):
    """What each scheme must show in the counters of one replication."""
    p = []
    if run.copies and run.copies.get("trace_lost", 0):
        p.append("the tracepoint lost events (trace_lost 1): copies and copy bytes are short")
    if not run.n or not run.counted:
        return p
    fuso = sch.startswith("fuso")
    rec = run.counter("MPTcpExtFusoRecovery")
    if fuso and rec == 0:
        p.append("FUSO is on but sent no copy (MPTcpExtFusoRecovery = 0)")
    if not fuso and rec:
        p.append(f"FUSO is off but sent {rec} copies")
    probes = run.counter("TcpExtTCPLossProbes")
    if sch == "tcp-notlp" and probes:
        p.append(f"TLP is off but {probes} loss probes were sent")
    extra = run.extra(cond)
    if sch.startswith(("proactive", "repflow")) and extra is not None and extra < 30:
        p.append(f"only {extra:.1f}% extra bytes: the duplicates are missing")
    return p


class Cond:
    """One condition: its replications (seeds: the s<SEED> names) and
    their runs ((seed, scheme) -> Run)."""

    def __init__(self, fig, name, cond, seeds):
        self.fig, self.name, self.cond, self.seeds = fig, name, cond, seeds
        self.schemes = cond.get("schemes", "").replace(",", " ").split()
        self.runs = {}

    @property
    def x(self):
        return fig_key(self.cond, self.fig)


def find_conds(top, problems, only=None):
    """The conditions under TOP (or only the one (fig, cond) asked for)."""
    conds = []
    figs = [x for x in os.listdir(top)
            if x.startswith("fig") and os.path.isdir(os.path.join(top, x))]
    for fig in sorted(figs, key=lambda x: fig_order(x[3:])):
        for cname in sorted(os.listdir(os.path.join(top, fig)), key=natkey):
            cdir = os.path.join(top, fig, cname)
            if not os.path.isdir(cdir) or (only and only != (fig[3:], cname)):
                continue
            reps = sorted((x for x in os.listdir(cdir) if re.fullmatch(r"s[0-9]+", x)
                           and os.path.isdir(os.path.join(cdir, x))), key=lambda x: int(x[1:]))
            if not reps:
                old = os.path.exists(os.path.join(cdir, "condition.txt"))
                problems.append(f"{fig}/{cname}: no replication directory s<SEED>" +
                                (" (a results tree of the old layout?)" if old else ""))
                continue
            kvs = {}
            for s in reps:
                ct = os.path.join(cdir, s, "condition.txt")
                if not os.path.exists(ct):
                    problems.append(f"{fig}/{cname}/{s}: no condition.txt (the guest did not start)")
                    continue
                kvs[s] = read_kv(ct)
            if not kvs:
                continue
            seeds = list(kvs)
            first = kvs[seeds[0]]
            for k in COND_KEYS:
                norm = {s: " ".join(kv.get(k, COND_DEFAULTS.get(k, "")).replace(",", " ").split())
                        for s, kv in kvs.items()}
                if len(set(norm.values())) > 1:
                    problems.append(f"{fig}/{cname}: the replications differ in {k}: " +
                                    ", ".join(f"{s} {v!r}" for s, v in norm.items()))
            conds.append(Cond(fig[3:], cname, first, seeds))
    return conds


def bulk(cond):
    return num(cond, "bulk") > 0


def load_cond(top, c, problems, write=False):
    want = int(num(c.cond, "flows"))
    for s in c.seeds:
        for sch in c.schemes:
            where = f"fig{c.fig}/{c.name}/{s}/{sch}"
            d = os.path.join(top, "fig" + c.fig, c.name, s, sch)
            run = load_run(d, where, problems)
            c.runs[(s, sch)] = run
            if bulk(c.cond):
                if not run.bulk or run.bulk.get("bytes", 0) <= 0:
                    problems.append(f"{where}: no bulk transfer result (bulk.txt)")
                problems += [f"{where}: {p}" for p in sanity(sch, run, c.cond)]
                continue
            # never replace a queries.csv with an empty one: the
            # committed data (Documentation/bench/*.tar.xz) is that file
            # alone
            if write and os.path.isdir(d) and \
                    (run.rows or not os.path.exists(os.path.join(d, "queries.csv"))):
                write_queries(d, run)
            run.rows = None     # the arrays are enough from here on
            if run.n < want:
                problems.append(f"{where}: {run.n} of {want} queries completed")
            problems += [f"{where}: {p}" for p in sanity(sch, run, c.cond)]


def in_bin(run, lo, hi):
    if lo is None:
        return np.ones(run.n, dtype=bool)
    return (run.size >= lo) & (run.size < hi)


def bootstrap(per_rep, q=0.99):
    """95% cluster bootstrap over the replications: per_rep is a list of
    (sorted FCTs, timeouts) per replication; each resample draws as many
    replications with replacement and pools their queries.  Returns the
    intervals of the q-th percentile FCT and of the timeout share (%)."""
    R = len(per_rep)
    rng = np.random.default_rng(BOOT_SEED)
    idx = rng.integers(0, R, size=(BOOT_N, R))
    C = np.zeros((BOOT_N, R), dtype=np.int64)     # how often each one was drawn
    np.add.at(C, (np.arange(BOOT_N)[:, None], idx), 1)
    n = np.array([len(v) for v, _ in per_rep], dtype=np.int64)
    t = np.array([to for _, to in per_rep], dtype=np.int64)
    N = C @ n
    C, N, T = C[N > 0], N[N > 0], (C @ t)[N > 0]
    if not len(N):
        return None, None, None, None
    share = 100.0 * T / N
    # nearest rank k = ceil(q N), i.e. the m-th largest with m = N - k + 1:
    # only the m_max largest queries of each replication can be it.  G[r, j]
    # = how many of replication r's queries are >= vals[j] (descending), so
    # C @ G counts them in each resample and the answer is the first vals[j]
    # with at least m of them
    m = N - np.clip(np.ceil(q * N).astype(np.int64), 1, None) + 1
    mmax = int(m.max())
    vals = np.unique(np.concatenate([v[::-1][:mmax] for v, _ in per_rep]))[::-1]
    G = np.array([len(v) - np.searchsorted(v, vals, side="left") for v, _ in per_rep],
                 dtype=np.float64)
    p = np.empty(len(N), dtype=vals.dtype)
    for i in range(0, len(N), 500):
        cnt = C[i:i + 500].astype(np.float64) @ G
        p[i:i + 500] = vals[(cnt < m[i:i + 500, None]).sum(axis=1)]
    plo, phi = np.percentile(p, [2.5, 97.5])
    slo, shi = np.percentile(share, [2.5, 97.5])
    return float(plo), float(phi), float(slo), float(shi)


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None


def t975(df):
    """Student t's 0.975 quantile for DF degrees of freedom."""
    return T975[df] if df < len(T975) else 1.96


def geomean_ci(v):
    """Geometric mean of ratios and its 95% Student t interval (on the
    logarithms; no interval below two values)."""
    if not v:
        return None, None, None
    lg = np.log(np.array(v, dtype=float))
    m = float(lg.mean())
    if len(v) < 2:
        return math.exp(m), None, None
    half = t975(len(v) - 1) * float(lg.std(ddof=1)) / math.sqrt(len(v))
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def off_scheme(sch):
    """The scheme that runs FUSO's scheduling with FUSO off, or None.

    FUSO's sender pushes new data as the window scheduler does, on the
    default scheduler too (patch 0012), so every FUSO scheme's
    counterpart is mptcp-window (whose subflows run Cubic: none for
    fuso3-dctcp).
    """
    if sch.startswith("fuso") and not sch.endswith("-dctcp"):
        return "mptcp-window"
    return None


def cpu_off(c, sch, per):
    """cpu_off, cpu_user_off (+ _lo, _hi) of SCH in condition C: CPU per
    unit of work (per(run)) relative to the scheme with FUSO off, paired
    on the seed."""
    out = {}
    off = off_scheme(sch)
    if off not in c.schemes:
        return out
    tot, usr = [], []
    for seed in c.seeds:
        r, o = c.runs.get((seed, sch)), c.runs.get((seed, off))
        if not r or not o or not per(r) or not per(o):
            continue
        if r.cpu and o.cpu:
            tot.append((r.cpu / per(r)) / (o.cpu / per(o)))
        if r.cpu_user and o.cpu_user:
            usr.append((r.cpu_user / per(r)) / (o.cpu_user / per(o)))
    out["cpu_off"] = geomean(tot)
    out["cpu_user_off"], out["cpu_user_off_lo"], out["cpu_user_off_hi"] = geomean_ci(usr)
    return out


def scheme_rows(c, sch):
    """summary.csv rows of one scheme in one condition."""
    runs = [c.runs[(s, sch)] for s in c.seeds]
    R = len(runs)
    cond = c.cond
    base = {"fig": c.fig, "cond": c.name, "scheme": sch, "x": c.x, "reps": R}
    for k in ("loss", "where", "lossmodel", "nsub", "iwsub", "qload", "bgload", "fanout", "dist",
              "size"):
        base[k] = cond.get(k, "")
    rows = []
    for sizes, lo, hi, _ in SIZES:
        per_rep = []
        for run in runs:
            mk = in_bin(run, lo, hi)
            per_rep.append((np.sort(run.fct[mk]), int(run.timeout[mk].sum())))
        fct = np.sort(np.concatenate([v for v, _ in per_rep]))
        n = len(fct)
        if not n and sizes != "all":
            continue
        r = dict(base, sizes=sizes, n=n)
        if n:
            r["mean"] = float(fct.mean()) / 1000
            r["p50"] = pct(fct, 0.50) / 1000
            r["p99"] = pct(fct, 0.99) / 1000
            r["p99.9"] = pct(fct, 0.999) / 1000
            if not incast(cond):
                r["over5"] = 100.0 * int((fct > MIN_RTO_US).sum()) / n
            r["rto_share"] = 100.0 * sum(to for _, to in per_rep) / n
            if R >= 2:
                plo, phi, slo, shi = bootstrap(per_rep)
                if plo is not None:
                    r["p99_lo"], r["p99_hi"] = plo / 1000, phi / 1000
                    r["rto_share_lo"], r["rto_share_hi"] = slo, shi
        if sizes == "all":
            r.update(costs(c, sch, runs, n))
        rows.append(r)
    return rows


def costs(c, sch, runs, n):
    """The cost columns, summed over the replications."""
    s = {}
    hosts = senders(c.cond)
    egress = sum(run.counter("EgressBytes", hosts) for run in runs)
    payload = sum(run.payload for run in runs)
    if n:
        s["rto"] = 100.0 * sum(run.counter("TcpExtTCPTimeouts") for run in runs) / n
        if egress > 0 and num(c.cond, "bgload") <= 0:
            s["extra"] = 100.0 * max(0.0, egress - payload * WIRE) / egress
    cr = [run for run in runs if run.copies is not None and "copy_bytes" in run.copies]
    ce = sum(run.counter("EgressBytes", hosts) for run in cr)
    if ce > 0:
        s["copy"] = 100.0 * sum(run.copies["copy_bytes"] for run in cr) / ce
    cp = sum(run.payload for run in cr)
    if cp > 0 and not incast(c.cond):
        # the copies' rate at the offered query load (qload Mbit/s of
        # responses): what FUSO adds to the network
        s["copy_mbps"] = num(c.cond, "qload", 10) * \
            sum(run.copies["copy_bytes"] for run in cr) / cp
    cn = sum(run.n for run in cr)
    if cn:
        s["copies_pq"] = sum(run.copies.get("copies", 0) for run in cr) / cn
    ratios = []
    if "mptcp" in c.schemes:
        for seed, run in zip(c.seeds, runs):
            m = c.runs[(seed, "mptcp")]
            if run.cpu and m.cpu and run.n and m.n:
                ratios.append((run.cpu / run.n) / (m.cpu / m.n))
    s["cpu_ratio"] = geomean(ratios)
    s.update(cpu_off(c, sch, lambda r: r.n))
    bg = np.sort(np.concatenate([run.bg for run in runs]))
    if len(bg):
        s["bg_n"] = len(bg)
        s["bg_mean"] = float(bg.mean()) / 1000
        s["bg_p99"] = pct(bg, 0.99) / 1000
    s["fuso_recoveries"] = sum(run.counter("MPTcpExtFusoRecovery") for run in runs)
    s["rcv_push"] = sum(run.counter("MPTcpExtFusoRcvOfoPush") for run in runs)
    return s


def bulk_rows(c):
    """bulk.csv rows of a bulk condition: throughput with a Student t
    interval over the replications, CPU per byte, and its ratio to MPTCP
    (geometric mean of the per-replication ratios)."""
    rows = []
    for sch in c.schemes:
        runs = [(s, c.runs[(s, sch)]) for s in c.seeds]
        ok = [(s, r) for s, r in runs if r.bulk and r.bulk.get("seconds")]
        if not ok:
            continue
        mbps = np.array([r.bulk["bytes"] * 8 / r.bulk["seconds"] / 1e6 for _, r in ok])
        R = len(mbps)
        row = {"fig": c.fig, "cond": c.name, "scheme": sch, "loss": c.cond.get("loss", ""),
               "where": c.cond.get("where", ""), "reps": R, "mbps": float(mbps.mean())}
        if R >= 2:
            half = t975(R - 1) * mbps.std(ddof=1) / math.sqrt(R)
            row["mbps_lo"], row["mbps_hi"] = float(mbps.mean() - half), float(mbps.mean() + half)
        cpu = [(s, r.cpu / r.bulk["bytes"]) for s, r in ok if r.cpu]
        if cpu:
            row["cpu_s_per_gb"] = 1e9 * sum(v for _, v in cpu) / len(cpu)
        ratios = []
        for s, v in cpu:
            m = c.runs.get((s, "mptcp"))
            if m and m.cpu and m.bulk and m.bulk.get("bytes"):
                ratios.append(v / (m.cpu / m.bulk["bytes"]))
        row["cpu_ratio"] = geomean(ratios)
        cu = [r.cpu_user / r.bulk["bytes"] for _, r in ok if r.cpu_user]
        if cu:
            row["cpu_user_s_per_gb"] = 1e9 * sum(cu) / len(cu)
        row.update(cpu_off(c, sch, lambda r: r.bulk["bytes"] if r.bulk else 0))
        cb = sum(r.copies["copy_bytes"] for _, r in ok if r.copies and "copy_bytes" in r.copies)
        eg = sum(r.counter("EgressBytes", ("h4",)) for _, r in ok)
        if eg > 0 and any(r.copies for _, r in ok):
            row["copy"] = 100.0 * cb / eg
        rows.append(row)
    return rows


def pair_rows(c):
    """pairs.csv rows of one condition: fuso3 against every other scheme."""
    rows = []
    if "fuso3" not in c.schemes:
        return rows
    for sizes, lo, hi, _ in SIZES:
        for other in c.schemes:
            if other == "fuso3":
                continue
            r99, rmean, wins = [], [], 0
            for s in c.seeds:
                a, b = c.runs[(s, "fuso3")], c.runs[(s, other)]
                fa, fb = np.sort(a.fct[in_bin(a, lo, hi)]), np.sort(b.fct[in_bin(b, lo, hi)])
                if not len(fa) or not len(fb) or pct(fa, .99) <= 0 or pct(fb, .99) <= 0:
                    continue
                r99.append(pct(fa, .99) / pct(fb, .99))
                rmean.append(fa.mean() / fb.mean())
                wins += int(pct(fa, .99) < pct(fb, .99))
            if not r99:
                continue
            r = {"fig": c.fig, "cond": c.name, "sizes": sizes, "other": other,
                 "reps": len(r99), "wins": wins}
            for key, v in (("ratio", r99), ("mean_ratio", rmean)):
                r[key], r_lo, r_hi = geomean_ci(v)
                if r_lo is not None:
                    r[key + "_lo"], r[key + "_hi"] = r_lo, r_hi
            rows.append(r)
    return rows


def cell(v, p=3):
    if v is None:
        return ""
    if isinstance(v, (float, np.floating)):
        return ("%." + str(p) + "f") % v
    return str(v)


def write_csv(path, cols, rows, p=3):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow([cell(r.get(k), p) for k in cols])


def fmt(v, p=2):
    return "-" if v is None else (("%." + str(p) + "f") % v if isinstance(v, float) else str(v))


def bound(v):
    return ("%.0f" % v) if abs(v) >= 1000 else ("%.3g" % v)


def ci(r, key, p=2):
    """'1.23 [1.1, 1.4]', or the point estimate alone without interval."""
    v = r.get(key)
    if v is None:
        return "-"
    lo, hi = r.get(key + "_lo"), r.get(key + "_hi")
    return fmt(v, p) + (f" [{bound(lo)}, {bound(hi)}]" if lo is not None else "")


def write_md(path, rows, pairs, conds):
    figs = sorted(set(r["fig"] for r in rows), key=fig_order)
    inc = {(c.fig, c.name): incast(c.cond) for c in conds}
    with open(path, "w") as f:
        f.write("FCT in ms; [lo, hi] = 95% cluster bootstrap over the replications (reps); "
                "rto_share = % of queries that waited for a retransmission timeout (client's or "
                "server's, query >= 5 ms); rto = timeouts per 100 queries; over5 = % of queries "
                "over 5 ms; extra = % of sender bytes beyond payload+headers; copy = FUSO copy "
                "bytes, % of sender bytes; copy Mb/s = the load the copies add at the offered query "
                "load; cpu = CPU per query relative to MPTCP; cpu off = user-mode "
                "CPU per query relative to the same scheduler with FUSO off (95% interval)\n")
        for fig in figs:
            fr = [r for r in rows if r["fig"] == fig and r["sizes"] == "all"]
            bg = any(r.get("bg_n") for r in fr)
            f.write(f"\n### Fig {fig}\n\n| condition | scheme | reps | n | mean | p50 | p99 | "
                    "p99.9 | over5 | rto_share | rto | extra | copy | copy Mb/s | cpu | cpu off |" +
                    (" bg n | bg mean | bg p99 |" if bg else "") +
                    "\n|---|---|" + "---:|" * (14 + 3 * bg) + "\n")
            for r in fr:
                f.write(f"| {r['cond']} | {r['scheme']} | {r['reps']} | {r['n']} | "
                        f"{fmt(r.get('mean'))} | {fmt(r.get('p50'))} | {ci(r, 'p99')} | "
                        f"{fmt(r.get('p99.9'))} | {fmt(r.get('over5'), 1)} | "
                        f"{ci(r, 'rto_share', 1)} | {fmt(r.get('rto'))} | "
                        f"{fmt(r.get('extra'), 1)} | {fmt(r.get('copy'), 1)} | "
                        f"{fmt(r.get('copy_mbps'), 2)} | {fmt(r.get('cpu_ratio'))} | {ci(r, 'cpu_user_off', 3)} |" +
                        (f" {fmt(r.get('bg_n'))} | {fmt(r.get('bg_mean'))} | "
                         f"{fmt(r.get('bg_p99'))} |" if bg else "") + "\n")
        # the paper's view: one metric, conditions down, schemes across
        for fig in figs:
            for sizes, _, _, head in SIZES:
                fr = [r for r in rows if r["fig"] == fig and r["sizes"] == sizes and r["n"]]
                if not fr:
                    continue
                schemes = [x for x in SCHEMES if any(r["scheme"] == x for r in fr)]
                schemes += sorted(set(r["scheme"] for r in fr) - set(schemes))
                conds = []
                for r in fr:
                    if r["cond"] not in conds:
                        conds.append(r["cond"])
                metrics = [("p99", "99th percentile FCT, ms", 2), ("mean", "mean FCT, ms", 2),
                           ("over5", "% of queries over 5 ms", 1),
                           ("rto_share", "% of queries that hit a retransmission timeout", 1)]
                if all(inc.get((fig, cn)) for cn in conds):
                    metrics = [m for m in metrics if m[0] != "over5"]
                for metric, what, p in metrics:
                    f.write(f"\n#### Fig {fig}, {head}: {what}\n\n| condition | " +
                            " | ".join(schemes) + " |\n|---|" + "---:|" * len(schemes) + "\n")
                    for cn in conds:
                        vals = {r["scheme"]: r for r in fr if r["cond"] == cn}
                        f.write(f"| {cn} | " + " | ".join(ci(vals[x], metric, p) if x in vals
                                                          else "-" for x in schemes) + " |\n")
        if pairs:
            f.write("\n### FUSO against every other scheme\n\nratio = p99(fuso3) / p99(other) "
                    "per replication, geometric mean [95% t interval]; mean ratio, the same for "
                    "the mean FCT; under 1: FUSO is faster; wins = replications where fuso3's "
                    "p99 is lower\n")
        for fig in figs:
            for sizes, _, _, head in SIZES:
                fp = [r for r in pairs if r["fig"] == fig and r["sizes"] == sizes]
                if not fp:
                    continue
                f.write(f"\n#### Fig {fig}, {head}: fuso3 against the others\n\n"
                        "| condition | other | reps | ratio [lo, hi] | wins | mean ratio [lo, hi] |\n"
                        "|---|---|---:|---:|---:|---:|\n")
                for r in fp:
                    f.write(f"| {r['cond']} | {r['other']} | {r['reps']} | "
                            f"{ci(r, 'ratio')} | "
                            f"{r['wins']}/{r['reps']} | {ci(r, 'mean_ratio')} |\n")


def parse_fc(s):
    fig, sep, cname = s.partition("/")
    if not sep or not fig or not cname:
        die(f"want FIG/COND (e.g. 4c/loss2), not '{s}'")
    return (fig[3:] if fig.startswith("fig") else fig), cname.strip("/")


def slow_counts(top, fc, problems):
    """[(seed, mptcp's queries over 5 ms, fuso3's)] of one condition."""
    conds = find_conds(top, problems, only=fc)
    if not conds:
        die(f"no condition fig{fc[0]}/{fc[1]} under {top}")
    c = conds[0]
    for sch in ("mptcp", "fuso3"):
        if sch not in c.schemes:
            die(f"fig{fc[0]}/{fc[1]} did not run {sch}: no effect to check")
    out = []
    for s in c.seeds:
        k = [int((load_run(os.path.join(top, "fig" + c.fig, c.name, s, sch),
                           f"fig{c.fig}/{c.name}/{s}/{sch}", problems).fct > MIN_RTO_US).sum())
             for sch in ("mptcp", "fuso3")]
        out.append((s, k[0], k[1]))
    return out


def effect_check(top, fc, floor):
    """Print one line per replication; return the number that did not PASS."""
    bad = 0
    res = slow_counts(top, fc, [])
    for s, m, f in res:
        ratio = ("%.2f" % (f / m)) if m else "-"
        if m < floor:
            verdict = (f"VOID (mptcp had {m} queries over 5 ms, under the floor of {floor}: "
                       "the check means nothing here)")
        elif f <= 0.5 * m:
            verdict = "PASS"
        else:
            verdict = "FAIL"
        bad += verdict != "PASS"
        print(f"effect: {s} mptcp slow={m} fuso3 slow={f} ratio={ratio} {verdict}")
    print(f"effect: fig{fc[0]}/{fc[1]}: {len(res) - bad} of {len(res)} replications PASS "
          f"(fuso3's queries over 5 ms at most half of mptcp's, mptcp at least {floor})")
    return bad


# what the reduced form keeps of a scheme directory besides queries.csv
# and counters-delta.txt (the docstring at the top)
REDUCED_FILES = re.compile(r"(copies|cpu|bulk)\.txt|bg-h[0-9]+\.csv")


def reduce_tree(top, conds, path):
    """Write the reduced form of the analysed tree TOP to PATH (.tar.xz),
    through a temporary file so that a failure leaves no partial archive."""
    import io
    import tarfile

    def add(tf, name, data):
        ti = tarfile.TarInfo(name)
        ti.size, ti.mode = len(data), 0o644
        tf.addfile(ti, io.BytesIO(data))

    tmp = path + ".tmp"
    try:
        with tarfile.open(tmp, "w:xz") as tf:
            for c in conds:
                for s in c.seeds:
                    rel = os.path.join("fig" + c.fig, c.name, s)
                    with open(os.path.join(top, rel, "condition.txt"), "rb") as f:
                        add(tf, os.path.join(rel, "condition.txt"), f.read())
                    for sch in c.schemes:
                        d = os.path.join(rel, sch)
                        run = c.runs[(s, sch)]
                        names = sorted(os.listdir(os.path.join(top, d)))
                        for n in names:
                            if n == "queries.csv" or REDUCED_FILES.fullmatch(n):
                                with open(os.path.join(top, d, n), "rb") as f:
                                    add(tf, os.path.join(d, n), f.read())
                        if run.counted:
                            lines = [f"{h} {k} {v}\n" for (h, k), v in sorted(run.delta.items())
                                     if v]
                            add(tf, os.path.join(d, "counters-delta.txt"),
                                "".join(lines).encode())
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        die(f"--reduce: cannot write {path}: {e}")
    print(f"analyze.py: the reduced form of {top} is in {path} "
          f"({os.path.getsize(path)} bytes)", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(prog="analyze.py", description="Summarise a FUSO benchmark run.")
    ap.add_argument("top", metavar="RESULTS_DIR")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--effect-check", metavar="FIG/COND")
    ap.add_argument("--effect-floor", metavar="N", type=int, default=15)
    ap.add_argument("--effect-table", metavar="FIG/COND")
    ap.add_argument("--reduce", metavar="FILE.tar.xz")
    a = ap.parse_args()
    top = a.top
    if not os.path.isdir(top):
        die(f"no results directory {top}")
    if a.reduce and not a.reduce.endswith(".tar.xz"):
        die(f"--reduce: {a.reduce}: the archive's name must end in .tar.xz")
    if a.effect_table:
        print("seed mptcp_slow fuso3_slow")
        for s, m, f in slow_counts(top, parse_fc(a.effect_table), []):
            print(f"{s[1:]} {m} {f}")
        return
    fc = parse_fc(a.effect_check) if a.effect_check else None

    problems = []
    conds = find_conds(top, problems)
    rows, pairs, brows = [], [], []
    for c in conds:
        load_cond(top, c, problems, write=True)
        if bulk(c.cond):
            brows += bulk_rows(c)
            continue
        for sch in c.schemes:
            rows += scheme_rows(c, sch)
        pairs += pair_rows(c)
    if brows:
        write_csv(os.path.join(top, "bulk.csv"), BULK_COLS, brows)
        with open(os.path.join(top, "bulk.md"), "w") as f:
            f.write("Bulk transfers (iperf3 through mptcpize, H4 to H1): Mbit/s with a 95% "
                    "Student t interval over the replications; CPU = the guest's CPU seconds "
                    "per GB received (user = its host user-mode part: the guest's own "
                    "instructions, without UML's cost of context switches), and relative to "
                    "MPTCP in the same replication; vs off = CPU per byte relative to the same "
                    "scheduler with FUSO off, all and user-mode (95% interval); copy = "
                    "FUSO copy bytes, % of H4's bytes\n\n| condition | scheme | reps | Mbit/s | "
                    "CPU s/GB | user s/GB | CPU vs MPTCP | CPU vs off | user CPU vs off | copy |"
                    "\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
            for r in brows:
                f.write(f"| {r['cond']} | {r['scheme']} | {r['reps']} | {ci(r, 'mbps', 1)} | "
                        f"{fmt(r.get('cpu_s_per_gb'))} | {fmt(r.get('cpu_user_s_per_gb'))} | "
                        f"{fmt(r.get('cpu_ratio'), 3)} | {fmt(r.get('cpu_off'), 3)} | "
                        f"{ci(r, 'cpu_user_off', 3)} | {fmt(r.get('copy'), 1)} |\n")
        print(open(os.path.join(top, "bulk.md")).read())
    if not rows and not brows:
        for p in problems:
            print("analyze.py: " + p, file=sys.stderr)
        die(f"no results under {top}")
    if rows:
        write_csv(os.path.join(top, "summary.csv"), COLS, rows)
        write_csv(os.path.join(top, "pairs.csv"), PAIR_COLS, pairs, 4)
        write_md(os.path.join(top, "summary.md"), rows, pairs, conds)
        print(open(os.path.join(top, "summary.md")).read())
    if rows and not a.no_plots:
        conds_by = {(c.fig, c.name): c.cond for c in conds}
        make_plots(top, [r for r in rows if plotted(r["fig"], conds_by[(r["fig"], r["cond"])])])
    bad = effect_check(top, fc, a.effect_floor) if fc else 0
    if problems:
        for p in problems:
            print("analyze.py: " + p, file=sys.stderr)
        die(f"{len(problems)} problem(s) in the results (above)" +
            (f"; the effect check failed in {bad} replication(s)" if bad else ""))
    if bad:
        die(f"the effect check on fig{fc[0]}/{fc[1]} failed in {bad} replication(s) (above)")
    if a.reduce:
        reduce_tree(top, conds, a.reduce)
    nrep = sum(len(c.seeds) for c in conds)
    nrun = sum(len(c.seeds) * len(c.schemes) for c in conds)
    print(f"analyze.py: {nrun} scheme runs in {nrep} replications of {len(conds)} conditions, "
          f"every one complete and sane; {os.path.join(top, 'summary.md')}", file=sys.stderr)


def make_plots(top, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    style = {"tcp": ("tab:blue", "o"), "tcp-notlp": ("tab:cyan", "v"),
             "dctcp": ("tab:olive", "<"), "tcp-prr": ("tab:pink", ">"),
             "mptcp": ("tab:green", "s"), "mptcp-window": ("darkgreen", "p"),
             "fuso1": ("tab:orange", "^"), "fuso3-paper": ("salmon", "h"),
             "fuso3": ("tab:red", "D"), "fuso3-dctcp": ("tab:gray", "d"), "repflow": ("tab:purple", "x"),
             "proactive": ("tab:brown", "+"), "repflow-dctcp": ("tab:purple", "1"),
             "proactive-dctcp": ("tab:brown", "2")}

    def line(ax, pts, sch, label, ls="-"):
        """pts: (x, y, lo, hi); the bootstrap interval as error bars."""
        pts = sorted(pts)
        c, m = style.get(sch, ("black", "."))
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        if any(p[2] is not None for p in pts):
            err = [[max(0.0, y - lo) if lo is not None else 0.0 for _, y, lo, _ in pts],
                   [max(0.0, hi - y) if hi is not None else 0.0 for _, y, _, hi in pts]]
            ax.errorbar(xs, ys, yerr=err, marker=m, color=c, ls=ls, capsize=2, label=label)
        else:
            ax.plot(xs, ys, marker=m, color=c, ls=ls, label=label)

    def points(fr, sch, metric, xkey):
        return [(xkey(r), r[metric], r.get(metric + "_lo"), r.get(metric + "_hi"))
                for r in fr if r["scheme"] == sch and r.get(metric) is not None]

    def save(fig_, axes, fig, title):
        axes[0].legend(fontsize=7)
        fig_.suptitle(title, fontsize=10)
        fig_.tight_layout()
        fig_.savefig(os.path.join(top, f"fig{fig}.png"), dpi=110)
        plt.close(fig_)

    allr = [r for r in rows if r["sizes"] == "all" and r["n"]]
    loss = [("p99", "99th pct FCT (ms)"), ("over5", "% of queries over 5 ms (min RTO)"),
            ("rto_share", "% of queries with a timeout")]
    spec = {
        "4a": ("loss rate on path 1 (%)", loss),
        "4c": ("loss rate on the access links of H4-H6 (%)", loss),
        "bursty": ("loss rate (%), bursty losses", loss),
        "dm": ("loss rate (%), data-mining sizes", loss),
        "load": ("query load (% of a client's access link), 2% loss on path 1",
                 [("p99", "99th pct FCT (ms)"), ("mean", "mean FCT (ms)"),
                  ("copy", "FUSO copy bytes (% of sent)")]),
        "5": ("background load", [("mean", "mean FCT (ms)"), ("p99", "99th pct FCT (ms)"),
                                  ("copy", "FUSO copy bytes (% of sent)")]),
        "6": ("incast fanout", [("mean", "mean query completion (ms)"),
                                ("p99", "99th pct query completion (ms)")]),
    }
    for fig, (xlabel, panels) in spec.items():
        fr = [r for r in allr if r["fig"] == fig]
        if not fr:
            continue
        fig_, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.8))
        for ax, (metric, ylabel) in zip(axes, panels):
            for sch in SCHEMES:
                pts = points(fr, sch, metric, lambda r: r["x"])
                if pts:
                    line(ax, pts, sch, LABEL[sch])
            if fig == "load" and metric in ("p99", "mean"):
                # 1 s SYN timeouts at high load would flatten the rest
                ax.set_yscale("log")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
        save(fig_, axes, fig, f"Fig {fig} (FUSO benchmark, UML virtual time)")
    fr = [r for r in allr if r["fig"] == "2"]
    if fr:
        fig_, ax = plt.subplots(1, 1, figsize=(6, 4.2))
        lss = ["-", "--", ":", "-."]
        qsizes = sorted(set(r["size"] for r in fr), key=lambda v: float(v) if v else -1)
        for sch in SCHEMES:
            for i, qs in enumerate(qsizes):
                pts = points([r for r in fr if r["size"] == qs], sch, "rto_share",
                             lambda r: r["x"])
                if pts:
                    line(ax, pts, sch, f"{LABEL[sch]}, {qs + ' B' if qs else 'mixed sizes'}",
                         lss[i % len(lss)])
        ax.set_xlabel("loss rate (%)")
        ax.set_ylabel("% of queries with a retransmission timeout")
        ax.grid(alpha=0.3)
        save(fig_, [ax], "2", "Fig 2 (FUSO benchmark): queries that wait for a timeout")
    fr = [r for r in allr if r["fig"] == "7"]
    if fr:
        fig_, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        nsubs = sorted(set(int(num(r, "nsub", 4)) for r in fr))
        for ax, metric, ylabel in ((axes[0], "p99", "99th pct FCT (ms)"),
                                   (axes[1], "mean", "mean FCT (ms)")):
            for sch in SCHEMES:
                pts = points(fr, sch, metric, lambda r: int(num(r, "nsub", 4)))
                if pts:
                    line(ax, pts, sch, LABEL[sch])
            ax.set_xscale("log", base=2)
            ax.set_xticks(nsubs, [str(x) for x in nsubs])
            ax.set_xlabel("subflows per connection")
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
        save(fig_, axes, "7", "Fig 7 (FUSO benchmark, 2% loss on path 1)")


if __name__ == "__main__":
    main()
