#!/usr/bin/python3
"""Paired ratios of two schemes across benchmark runs.

    pair.py [--bg|--bulk] A_DIRS:A_SCHEME B_DIRS:B_SCHEME FIG/COND...

A_DIRS and B_DIRS are comma-separated results directories of
scripts/bench/bench.sh (runs of different kernels or plans on the same
seeds pair up), or their reduced forms as committed
(Documentation/bench/NAME.tar.xz, a run's data.tar.xz), which are read
from a temporary copy.  For each FIG/COND (e.g. 6/fanout70), the per-seed mean
and 99th percentile FCT of each side, from its queries.csv, are paired
on the seed; printed: the geometric mean of the ratios A/B with a 95 %
t interval, and the mean FCT of each side over the paired seeds.

With --bg, Fig 5's background flows instead: each flow that completed
on both sides (the same host and flow id: the same seed gives the same
flows) is paired, each seed's geometric mean of the per-flow FCT ratios
A/B is one sample, and the t interval is over the seeds.

With --bulk, the bulk transfers instead (FIG/COND e.g. bulk/loss1):
each seed's throughput (bulk.txt: bytes over seconds) and guest CPU
seconds per byte (cpu.txt: all, and user mode alone), paired on the
seed; the ratios A/B as above, and the mean throughput of each side.
"""
import atexit
import csv
import math
import os
import shutil
import sys
import tarfile
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze import read_pairs  # noqa: E402  (the results' own reader)

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
        7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179,
        13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101,
        19: 2.093, 20: 2.086}


def die(msg):
    sys.exit("pair.py: " + msg)


_unpacked = {}


def results_dir(d):
    """d itself, or for a tarball of a results directory, its contents
    in a temporary directory (removed at exit)."""
    if os.path.isdir(d) or not os.path.isfile(d):
        return d
    if d not in _unpacked:
        try:
            tar = tarfile.open(d)
        except (tarfile.TarError, OSError) as e:
            die("'%s' is neither a results directory nor a tarball: %s" % (d, e))
        with tar:
            for m in tar.getmembers():
                parts = m.name.split("/")
                if m.name.startswith("/") or ".." in parts or not (m.isfile() or m.isdir()):
                    die("'%s': refusing member '%s' (absolute, '..', or not a file)" % (d, m.name))
            tmp = tempfile.mkdtemp(prefix="pair-")
            atexit.register(shutil.rmtree, tmp, True)
            tar.extractall(tmp)
        _unpacked[d] = tmp
    return _unpacked[d]


def scheme_dirs(side, figcond):
    """(seed, that seed's directory of the scheme) of one side for
    FIG/COND, over its comma-separated results directories."""
    if ":" not in side:
        die("'%s' is not DIRS:SCHEME" % side)
    dirs, sch = side.rsplit(":", 1)
    fig, _, cond = figcond.partition("/")
    if not cond:
        die("'%s' is not FIG/COND" % figcond)
    for d in dirs.split(","):
        d = results_dir(d)
        if not os.path.isdir(d):
            die("no results directory '%s'" % d)
        base = os.path.join(d, "fig" + fig, cond)
        if not os.path.isdir(base):
            continue
        for seed in sorted(os.listdir(base)):
            if os.path.isdir(os.path.join(base, seed, sch)):
                yield seed, os.path.join(base, seed, sch)


def load(side, figcond):
    """{seed dir: (mean ms, p99 ms)} of one side for FIG/COND."""
    out = {}
    for seed, sd in scheme_dirs(side, figcond):
        f = os.path.join(sd, "queries.csv")
        if not os.path.exists(f):
            continue
        with open(f) as fh:
            v = np.array([float(r["fct_us"]) for r in csv.DictReader(fh)]) / 1000
        if len(v):
            out[seed] = (float(v.mean()), float(np.percentile(v, 99)))
    return out


def load_bg(side, figcond):
    """{seed dir: {(host file, flow id): FCT us}} of one side's
    background flows for FIG/COND."""
    out = {}
    for seed, sd in scheme_dirs(side, figcond):
        flows = {}
        for f in sorted(os.listdir(sd)):
            if f.startswith("bg-") and f.endswith(".csv"):
                with open(os.path.join(sd, f)) as fh:
                    for r in csv.DictReader(fh):
                        flows[(f, r["id"])] = float(r["fct_us"])
        if flows:
            out[seed] = flows
    return out


def main_bg(a, b, figconds):
    for fc in figconds:
        A, B = load_bg(a, fc), load_bg(b, fc)
        per, n = [], 0
        for s in sorted(set(A) & set(B)):
            both = sorted(set(A[s]) & set(B[s]))
            if both:
                per.append(math.exp(np.mean([math.log(A[s][k] / B[s][k]) for k in both])))
                n += len(both)
        if not per:
            print("%-16s no seed with background flows on both sides" % fc)
            continue
        print("%-16s n=%d seeds, %d flows  background FCT %.3f [%.3f, %.3f]" % (
            fc, len(per), n, *gmean_ci(np.array(per))))


def load_bulk(side, figcond):
    """{seed dir: (Mbit/s, CPU s per byte, user-mode CPU s per byte)}
    of one side's bulk transfers for FIG/COND."""
    out = {}
    for seed, sd in scheme_dirs(side, figcond):
        v = {}
        for f in ("bulk.txt", "cpu.txt"):
            d = read_pairs(os.path.join(sd, f), float)
            if d is None:
                die("%s: no such file" % os.path.join(sd, f))
            v.update(d)
        if not all(k in v for k in ("bytes", "seconds", "cpu_s", "cpu_user_s")):
            die("%s: bulk.txt or cpu.txt lacks bytes, seconds, cpu_s or cpu_user_s" % sd)
        if v["bytes"] <= 0 or v["seconds"] <= 0:
            die("%s: no bytes moved" % sd)
        out[seed] = (v["bytes"] * 8 / v["seconds"] / 1e6, v["cpu_s"] / v["bytes"],
                     v["cpu_user_s"] / v["bytes"])
    return out


def main_bulk(a, b, figconds):
    for fc in figconds:
        A, B = load_bulk(a, fc), load_bulk(b, fc)
        seeds = sorted(set(A) & set(B))
        if not seeds:
            print("%-16s no seed with both schemes" % fc)
            continue
        r = [np.array([A[s][i] / B[s][i] for s in seeds]) for i in range(3)]
        print("%-16s n=%d  throughput %.3f [%.3f, %.3f]  CPU/byte %.3f [%.3f, %.3f]"
              "  user CPU/byte %.3f [%.3f, %.3f]  (%.1f / %.1f Mbit/s)" % (
                  fc, len(seeds), *gmean_ci(r[0]), *gmean_ci(r[1]), *gmean_ci(r[2]),
                  np.mean([A[s][0] for s in seeds]), np.mean([B[s][0] for s in seeds])))


def gmean_ci(r):
    lg = np.log(r)
    m = float(lg.mean())
    if len(r) < 2:
        return math.exp(m), float("nan"), float("nan")
    half = T975.get(len(r) - 1, 1.96) * float(lg.std(ddof=1)) / math.sqrt(len(r))
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def main(argv):
    mode = argv[0] if argv[:1] in (["--bg"], ["--bulk"]) else ""
    if mode:
        argv = argv[1:]
    if len(argv) < 3:
        die(__doc__.strip().split("\n")[2].strip() + "\n(see the top of the file)")
    a, b = argv[0], argv[1]
    if mode == "--bg":
        main_bg(a, b, argv[2:])
        return
    if mode == "--bulk":
        main_bulk(a, b, argv[2:])
        return
    for fc in argv[2:]:
        A, B = load(a, fc), load(b, fc)
        seeds = sorted(set(A) & set(B))
        if not seeds:
            print("%-16s no seed with both schemes" % fc)
            continue
        rm = np.array([A[s][0] / B[s][0] for s in seeds])
        rp = np.array([A[s][1] / B[s][1] for s in seeds])
        print("%-16s n=%d  mean %.3f [%.3f, %.3f]  p99 %.3f [%.3f, %.3f]  (means %.2f / %.2f ms)" % (
            fc, len(seeds), *gmean_ci(rm), *gmean_ci(rp),
            np.mean([A[s][0] for s in seeds]), np.mean([B[s][0] for s in seeds])))


if __name__ == "__main__":
    main(sys.argv[1:])
