#!/usr/bin/python3
"""Unit test of scripts/bench/analyze.py on a small, hand-made results tree.

    python3 scripts/bench/test_analyze.py [-v]

The fixture (make_tree) has two conditions:
  fig4a/loss2    normal workload, schemes mptcp,fuso3,tcp, 3 replications
                 (s1..s3), 10 queries each (ids 0-7 from h1, 8-9 from h2;
                 size_of(id): ids 0-6 in the < 10 KB bin, the others in
                 10-100 KB), and an 11th query for tcp in s1
  fig6/fanout3   incast, fanout 3, schemes mptcp,fuso3,tcp, 2 replications,
                 4 queries of 3 x 65536 bytes each
test_bulk adds a bulk condition (figbulk/loss1: mptcp and fuso3, two
replications, bytes and CPU seconds in BULK).
Every number the tests expect is derived by hand from the tables below.
"""
import csv
import math
import os
import shutil
import subprocess
import tarfile
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYZE = os.path.join(HERE, "analyze.py")
WIRE = 1514.0 / 1448.0

# FCT in us of queries 0..9 per scheme and replication (normal condition)
FCT = {
    "mptcp": {1: [400, 500, 600, 8000, 3000, 9000, 700, 800, 900, 10000],
              2: [400, 500, 600, 700, 800, 900, 6000, 1000, 1100, 8000],
              3: [400, 500, 600, 700, 800, 7000, 900, 1000, 1100, 12000]},
    "fuso3": {1: [400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 4000],
              2: [400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 4000],
              3: [400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 3000]},
    "tcp": {1: [300, 400, 500, 600, 700, 800, 900, 1000, 1100, 2000, 300],
            2: [300, 400, 500, 600, 700, 800, 900, 1000, 1100, 5000],
            3: [300, 400, 500, 600, 700, 800, 900, 1000, 1100, 6000]},
}
# client-side timeouts (scheme, rep, id) -> rto_c
RTO_C = {("mptcp", 1, 4): 1,    # rto, but 3 ms: no timeout
         ("mptcp", 2, 6): 1,    # 6 ms: a timeout
         ("mptcp", 2, 9): 1,    # 8 ms: a timeout
         ("tcp", 2, 9): 1}      # exactly 5 ms: a timeout
# server records (scheme, rep) -> [(server, peer, pport, id, rto_s)]
SRV = {("mptcp", 1): [("h4", "10.1.1.128", 40003, 3, 1),   # query 3 (8 ms): counted
                      ("h4", "10.1.2.1", 40005, 5, 2),     # wrong client: nothing
                      ("h4", "10.1.1.1", 40005, 6, 2),     # wrong id: nothing
                      ("h6", "10.1.1.1", 49999, 5, 2),     # wrong port: nothing
                      ("h5", "10.1.2.130", 40008, 8, 1),   # query 8 (h2, 0.9 ms): no timeout
                      ("h6", "10.1.2.1", 40009, 9, 0)],    # query 9: zero
       ("mptcp", 3): [("h6", "10.1.1.129", 40009, 9, 2),   # query 9 is h2's: nothing
                      ("h5", "10.1.2.129", 40009, 9, 2)]}  # query 9 (12 ms): counted
# incast: FCT of queries 0..3 per scheme and replication
IFCT = {"mptcp": {1: [6000, 7000, 8000, 9000], 2: [6000, 7000, 20000, 9000]},
        "fuso3": {1: [6000, 7000, 8000, 3000], 2: [6000, 7000, 8000, 4000]},
        "tcp": {1: [5000, 5000, 6000, 5500], 2: [5000, 5000, 8000, 5500]}}  # s2: a tie
ISRV = {("mptcp", 1): [("h3", "10.1.1.1", 41011, 1, 1),    # second answer of query 1
                       ("h5", "10.1.1.1", 41099, 2, 3)]}   # no such port: nothing
# egress bytes per replication (after - before)
EGRESS = {"h1": 1000000, "h2": 50000000, "h3": 100, "h4": 200000, "h5": 200000, "h6": 200000}
IEGRESS = {"h1": 30000, "h2": 600000, "h3": 600000, "h4": 100000, "h5": 100000, "h6": 100000}
# the guest's CPU seconds (none in the incast); tcp's s1 ran 11 queries
CPU = {"mptcp": {1: 1.0, 2: 1.0, 3: 1.0}, "fuso3": {1: 2.0, 2: 1.0, 3: 4.0},
       "tcp": {1: 1.1, 2: 1.0, 3: 1.0}}


def size_of(i):
    """Query i's size: 0, 2, 4, 6 and 10 under 10 KB (0: 9999 bytes), the
    others 10 KB to 100 KB (8: exactly 10000 bytes)."""
    return {0: 9999, 8: 10000}.get(i, 5000 if i % 2 == 0 else 50000)


LOW = [i for i in range(10) if size_of(i) < 10000]     # ids 0, 2, 4, 6


def pct(v, q):
    v = sorted(v)
    return v[max(0, min(len(v) - 1, math.ceil(q * len(v)) - 1))]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def condition(kv, seed):
    return ("".join(f"{k}={v}\n" for k, v in kv.items()) +
            f"seed={seed}\nhashseed={seed * 7}\nkernel=6.12.0-fuso\n"
            "cmdline=mem=3G time-travel=inf-cpu\n"
            "path tcp h1 10.1.1.1:10000 10.2.4.1:5001 p2\n")


def counters(d, egress, extra):
    before, after = [], []
    for h in ("h1", "h2", "h3", "h4", "h5", "h6"):
        for name, v in (("TcpExtTCPTimeouts", 3), ("TcpExtTCPLossProbes", 0),
                        ("MPTcpExtFusoRecovery", 0), ("MPTcpExtFusoRcvOfoPush", 0),
                        ("EgressBytes", 1000), ("EgressPkts", 10)):
            before.append(f"{h} {name} {v}")
            after.append(f"{h} {name} {v + (egress[h] if name == 'EgressBytes' else 0) + extra.get((h, name), 0)}")
    write(os.path.join(d, "counters-before.txt"), "\n".join(before) + "\n")
    write(os.path.join(d, "counters-after.txt"), "\n".join(after) + "\n")


def scheme_files(d, sch, copies, cpu):
    rec = {("h4", "MPTcpExtFusoRecovery"): 5, ("h1", "MPTcpExtFusoRcvOfoPush"): 1} \
        if sch == "fuso3" else {}
    if sch == "mptcp":
        rec[("h4", "TcpExtTCPTimeouts")] = 2
    write(os.path.join(d, "copies.txt"), f"copies {copies}\ncopy_bytes {copies * 12000}\ntrace_lost 0\n")
    if cpu is not None:
        write(os.path.join(d, "cpu.txt"), f"cpu_s {cpu}\n")
    return rec


def bulk_files(d, nbytes, cpu, copy_bytes):
    """One scheme's bulk transfer in D: NBYTES in 5 s, cpu.txt's text CPU,
    COPY_BYTES of FUSO copies, H4's egress 5 % above the payload."""
    write(os.path.join(d, "bulk.txt"), f"bytes {int(nbytes)}\nseconds 5.000000\n")
    write(os.path.join(d, "cpu.txt"), cpu)
    write(os.path.join(d, "copies.txt"),
          f"copies {int(copy_bytes / 1400)}\ncopy_bytes {int(copy_bytes)}\ntrace_lost 0\n")
    counters(d, dict(EGRESS, h4=int(nbytes * 1.05)), {})


def make_tree(top):
    """The fixture tree (see the module docstring)."""
    hdr = "id,size,start_us,fct_us,fanout,lports,rto_c\n"
    shdr = "peer,pport,lport,id,rto_s\n"
    kv = dict(schemes="mptcp,fuso3,tcp", loss=2, where="p1", lossmodel="random", nsub=4,
              iwsub=4, flows=10, qload=10, dist="websearch", bgload=0, fanout=0, size="")
    for rep in (1, 2, 3):
        rd = os.path.join(top, "fig4a", "loss2", f"s{rep}")
        write(os.path.join(rd, "condition.txt"), condition(kv, rep))
        for sch in ("mptcp", "fuso3", "tcp"):
            d = os.path.join(rd, sch)
            lines = {1: hdr, 2: hdr}
            for i, fct in enumerate(FCT[sch][rep]):
                lines[1 if i < 8 else 2] += (f"{i},{size_of(i)},{1000 * i},{fct},1,{40000 + i},"
                                             f"{RTO_C.get((sch, rep, i), 0)}\n")
            write(os.path.join(d, "h1.csv"), lines[1])
            write(os.path.join(d, "h2.csv"), lines[2])
            srv = {"h4": shdr, "h5": shdr, "h6": shdr}
            for k, peer, pport, qid, rto in SRV.get((sch, rep), []):
                srv[k] += f"{peer},{pport},5003,{qid},{rto}\n"
            for k, text in srv.items():
                write(os.path.join(d, f"srv-{k}.csv"), text)
            if (sch, rep) == ("mptcp", 1):  # background flows are not queries
                write(os.path.join(d, "bg-h1.csv"), hdr + "0,200000,0,20000,1,50000,0\n"
                      "1,300000,10,40000,1,50001,0\n")
            extra = scheme_files(d, sch, 5 if sch == "fuso3" else 0, CPU.get(sch, {}).get(rep))
            counters(d, EGRESS, extra)
    kv.update(loss=0, flows=4, fanout=3)
    for rep in (1, 2):
        rd = os.path.join(top, "fig6", "fanout3", f"s{rep}")
        write(os.path.join(rd, "condition.txt"), condition(kv, rep))
        for sch in ("mptcp", "fuso3", "tcp"):
            d = os.path.join(rd, sch)
            text = hdr
            for i, fct in enumerate(IFCT[sch][rep]):
                ports = ";".join(str(41000 + 10 * i + j) for j in range(3))
                text += f"{i},65536,{100000 * i},{fct},3,{ports},0\n"
            write(os.path.join(d, "h1.csv"), text)
            srv = {}
            for k, peer, pport, qid, rto in ISRV.get((sch, rep), []):
                srv[k] = srv.get(k, shdr) + f"{peer},{pport},5003,{qid},{rto}\n"
            for k, t in srv.items():
                write(os.path.join(d, f"srv-{k}.csv"), t)
            extra = scheme_files(d, sch, 4 if sch == "fuso3" else 0, None)
            counters(d, IEGRESS, extra)


def python():
    """An interpreter with numpy (analyze.py needs it; /usr/bin/python3 is
    what bench.sh runs it with)."""
    for exe in (sys.executable, "/usr/bin/python3"):
        if exe and os.path.exists(exe) and subprocess.run(
                [exe, "-c", "import numpy"], capture_output=True).returncode == 0:
            return exe
    raise unittest.SkipTest("no python3 with numpy to run analyze.py with")


def run(top, *args):
    return subprocess.run([python(), ANALYZE, top, "--no-plots"] + list(args),
                          capture_output=True, text=True)


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


class Tree:
    """A fixture tree in a temporary directory, changed by a variant."""

    def __init__(self, variant=None):
        self.tmp = tempfile.mkdtemp(prefix="test-analyze-")
        self.top = os.path.join(self.tmp, "results")
        make_tree(self.top)
        if variant:
            variant(self.top)

    def path(self, *p):
        return os.path.join(self.top, *p)

    def close(self):
        shutil.rmtree(self.tmp)


class AnalyzeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.t = Tree()
        cls.r = run(cls.t.top)
        cls.rows = read_csv(cls.t.path("summary.csv")) if cls.r.returncode == 0 else []
        cls.pairs = read_csv(cls.t.path("pairs.csv")) if cls.r.returncode == 0 else []

    @classmethod
    def tearDownClass(cls):
        cls.t.close()

    def row(self, fig, cond, scheme, sizes="all", rows=None):
        m = [r for r in (rows or self.rows) if (r["fig"], r["cond"], r["scheme"], r["sizes"]) ==
             (fig, cond, scheme, sizes)]
        self.assertEqual(len(m), 1, f"{fig}/{cond}/{scheme}/{sizes}")
        return m[0]

    def variant(self, change, *args):
        t = Tree(change)
        try:
            return run(t.top, *args)
        finally:
            t.close()

    def test_clean(self):
        self.assertEqual(self.r.returncode, 0, self.r.stderr)
        self.assertIn("complete and sane", self.r.stderr)
        for f in ("summary.csv", "pairs.csv", "summary.md"):
            self.assertTrue(os.path.exists(self.t.path(f)), f)
        self.assertIn("### Fig 4a", self.r.stdout)
        self.assertIn("fuso3 against the others", self.r.stdout)
        r = self.row("4a", "loss2", "mptcp")
        self.assertEqual((r["where"], r["lossmodel"], r["reps"], r["n"]), ("p1", "random", "3", "30"))
        # figures in their order, 4a before 6
        self.assertEqual([r["fig"] for r in self.rows][0], "4a")
        self.assertEqual([r["fig"] for r in self.rows][-1], "6")

    def test_join(self):
        q = read_csv(self.t.path("fig4a", "loss2", "s1", "mptcp", "queries.csv"))
        self.assertEqual([(r["client"], r["id"]) for r in q],
                         [("1", str(i)) for i in range(8)] + [("2", "8"), ("2", "9")])
        by = {int(r["id"]): (int(r["rto"]), int(r["timeout"])) for r in q}
        self.assertEqual(by[3], (1, 1))   # the server's timeout alone counts
        self.assertEqual(by[4], (1, 0))   # rto, but under 5 ms
        self.assertEqual(by[5], (0, 0))   # unmatched records change nothing
        self.assertEqual(by[6], (0, 0))
        self.assertEqual(by[8], (1, 0))   # h2's, server record, under 5 ms
        self.assertEqual(by[9], (0, 0))
        q3 = {int(r["id"]): (int(r["rto"]), int(r["timeout"]))
              for r in read_csv(self.t.path("fig4a", "loss2", "s3", "mptcp", "queries.csv"))}
        self.assertEqual(q3[9], (2, 1))   # 10.1.2.x only, not 10.1.1.x
        qt = {int(r["id"]): (int(r["rto"]), int(r["timeout"]))
              for r in read_csv(self.t.path("fig4a", "loss2", "s2", "tcp", "queries.csv"))}
        self.assertEqual(qt[9], (1, 1))   # 5 ms is enough
        self.assertAlmostEqual(float(self.row("4a", "loss2", "tcp")["rto_share"]),
                               100 * 1 / 31, places=3)
        qi = {int(r["id"]): (int(r["rto"]), int(r["timeout"]))
              for r in read_csv(self.t.path("fig6", "fanout3", "s1", "mptcp", "queries.csv"))}
        self.assertEqual(qi, {0: (0, 0), 1: (1, 1), 2: (0, 0), 3: (0, 0)})
        # timeouts: s1 query 3, s2 queries 6 and 9, s3 query 9: 4 of 30
        self.assertAlmostEqual(float(self.row("4a", "loss2", "mptcp")["rto_share"]),
                               100 * 4 / 30, places=3)
        self.assertAlmostEqual(float(self.row("6", "fanout3", "mptcp")["rto_share"]),
                               100 * 1 / 8, places=3)
        self.assertAlmostEqual(float(self.row("4a", "loss2", "fuso3")["rto_share"]), 0.0)

    def test_sender_set(self):
        e = 3 * (EGRESS["h4"] + EGRESS["h5"] + EGRESS["h6"])      # 3 replications
        for sch in ("mptcp", "fuso3", "tcp"):
            p = sum(size_of(i) for rep in (1, 2, 3) for i in range(len(FCT[sch][rep])))
            want = 100 * (e - p * WIRE) / e        # h2's 50 MB must not count
            self.assertAlmostEqual(float(self.row("4a", "loss2", sch)["extra"]), want, places=2)
        p = 4 * 3 * 65536
        e = sum(IEGRESS[h] for h in ("h2", "h3", "h4", "h5", "h6"))
        want = 100 * (e - p * WIRE) / e            # in the incast H2-H6 send
        self.assertAlmostEqual(float(self.row("6", "fanout3", "tcp")["extra"]), want, places=2)
        # copy = copy bytes over the same senders' egress
        self.assertAlmostEqual(float(self.row("6", "fanout3", "fuso3")["copy"]),
                               100 * 4 * 12000 / e, places=2)
        self.assertAlmostEqual(float(self.row("4a", "loss2", "fuso3")["copy"]),
                               100 * 5 * 12000 / 600000, places=2)
        # copy_mbps = the offered load (qload, default 10 Mbit/s) times copy
        # bytes per response byte; blank in the incast
        p = sum(size_of(i) for rep in (1, 2, 3) for i in range(len(FCT["fuso3"][rep])))
        self.assertAlmostEqual(float(self.row("4a", "loss2", "fuso3")["copy_mbps"]),
                               10 * 3 * 5 * 12000 / p, places=2)
        self.assertEqual(self.row("6", "fanout3", "fuso3")["copy_mbps"], "")

    def test_background_load(self):
        def bg(top):
            for rep in (1, 2, 3):
                p = os.path.join(top, "fig4a", "loss2", f"s{rep}", "condition.txt")
                with open(p) as fh:
                    text = fh.read()
                write(p, text.replace("bgload=0\n", "bgload=0.3\n"))
        t = Tree(bg)
        try:
            r = run(t.top)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = read_csv(t.path("summary.csv"))
            for sch in ("mptcp", "fuso3", "tcp"):  # the background's bytes are not counted
                self.assertEqual(self.row("4a", "loss2", sch, rows=rows)["extra"], "")
            f = self.row("4a", "loss2", "fuso3", rows=rows)
            self.assertEqual(f["bgload"], "0.3")
            self.assertAlmostEqual(float(f["copy"]), 10.0, places=3)
        finally:
            t.close()

    def test_over5(self):
        for sch in ("mptcp", "fuso3", "tcp"):
            for sizes in ("all", "10K-100K"):
                self.assertEqual(self.row("6", "fanout3", sch, sizes)["over5"], "")
        self.assertAlmostEqual(float(self.row("4a", "loss2", "mptcp")["over5"]), 100 * 7 / 30, places=3)
        self.assertAlmostEqual(float(self.row("4a", "loss2", "tcp")["over5"]), 100 * 1 / 31, places=3)
        self.assertNotIn("Fig 6, all sizes: % of queries over 5 ms", self.r.stdout)
        self.assertIn("Fig 4a, all sizes: % of queries over 5 ms", self.r.stdout)

    def test_intervals_three_reps(self):
        for sch in ("mptcp", "fuso3", "tcp"):
            for sizes in ("all", "<10K", "10K-100K"):
                r = self.row("4a", "loss2", sch, sizes)
                self.assertEqual(r["reps"], "3")
                for k in ("p99_lo", "p99_hi", "rto_share_lo", "rto_share_hi"):
                    self.assertNotEqual(r[k], "", f"{sch} {sizes} {k}")
                self.assertLessEqual(float(r["p99_lo"]), float(r["p99"]))
                self.assertLessEqual(float(r["p99"]), float(r["p99_hi"]))
                self.assertLessEqual(float(r["rto_share_lo"]), float(r["rto_share"]))
                self.assertLessEqual(float(r["rto_share"]), float(r["rto_share_hi"]))
        # clusters are the replications: mptcp's p99 over resamples is the
        # largest replication maximum drawn (8, 10 or 12 ms)
        r = self.row("4a", "loss2", "mptcp")
        self.assertIn(float(r["p99_lo"]), (8.0, 10.0))
        self.assertEqual(float(r["p99_hi"]), 12.0)
        self.assertLess(float(r["rto_share_lo"]), float(r["rto_share_hi"]))
        self.assertIn("12.00 [", self.r.stdout)

    def test_intervals_one_rep(self):
        t = Tree(lambda top: shutil.rmtree(os.path.join(top, "fig6", "fanout3", "s2")))
        try:
            r = run(t.top)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = read_csv(t.path("summary.csv"))
            for sch in ("mptcp", "fuso3", "tcp"):
                x = self.row("6", "fanout3", sch, rows=rows)
                self.assertEqual(x["reps"], "1")
                self.assertEqual(x["n"], "4")
                for k in ("p99_lo", "p99_hi", "rto_share_lo", "rto_share_hi"):
                    self.assertEqual(x[k], "", k)
            pr = [p for p in read_csv(t.path("pairs.csv")) if p["fig"] == "6"]
            self.assertTrue(pr)
            for p in pr:
                self.assertEqual((p["reps"], p["ratio_lo"], p["ratio_hi"], p["mean_ratio_lo"],
                                  p["mean_ratio_hi"]), ("1", "", "", "", ""))
        finally:
            t.close()

    def test_pairs(self):
        def pair(cond, sizes, other):
            m = [p for p in self.pairs if (p["cond"], p["sizes"], p["other"]) == (cond, sizes, other)]
            self.assertEqual(len(m), 1)
            return m[0]
        t2 = 4.303  # Student t, 0.975, 2 degrees of freedom
        for other, wins in (("mptcp", 3), ("tcp", 2)):
            r = [pct(FCT["fuso3"][s], .99) / pct(FCT[other][s], .99) for s in (1, 2, 3)]
            lg = [math.log(x) for x in r]
            mu = sum(lg) / 3
            sd = math.sqrt(sum((x - mu) ** 2 for x in lg) / 2)
            p = pair("loss2", "all", other)
            self.assertEqual((p["fig"], p["reps"], p["wins"]), ("4a", "3", str(wins)))
            self.assertAlmostEqual(float(p["ratio"]), math.exp(mu), places=3)
            self.assertAlmostEqual(float(p["ratio_lo"]), math.exp(mu - t2 * sd / math.sqrt(3)), places=3)
            self.assertAlmostEqual(float(p["ratio_hi"]), math.exp(mu + t2 * sd / math.sqrt(3)), places=3)
            mr = [(sum(FCT["fuso3"][s]) / len(FCT["fuso3"][s])) /
                  (sum(FCT[other][s]) / len(FCT[other][s])) for s in (1, 2, 3)]
            lm = [math.log(x) for x in mr]
            mm = sum(lm) / 3
            sm = math.sqrt(sum((x - mm) ** 2 for x in lm) / 2)
            self.assertAlmostEqual(float(p["mean_ratio"]), math.exp(mm), places=3)
            self.assertAlmostEqual(float(p["mean_ratio_lo"]), math.exp(mm - t2 * sm / math.sqrt(3)),
                                   places=3)
            self.assertAlmostEqual(float(p["mean_ratio_hi"]), math.exp(mm + t2 * sm / math.sqrt(3)),
                                   places=3)
        # 0.4, 0.5, 0.25 against MPTCP by hand
        self.assertAlmostEqual(float(pair("loss2", "all", "mptcp")["ratio"]), 0.05 ** (1 / 3), places=3)
        # a size bin: the queries under 10 KB only
        r = [pct([FCT["fuso3"][s][i] for i in LOW], .99) /
             pct([FCT["mptcp"][s][i] for i in LOW], .99) for s in (1, 2, 3)]
        self.assertAlmostEqual(float(pair("loss2", "<10K", "mptcp")["ratio"]),
                               math.exp(sum(math.log(x) for x in r) / 3), places=3)
        # incast, 2 replications: 8/9 and 8/20
        p = pair("fanout3", "all", "mptcp")
        self.assertEqual((p["reps"], p["wins"]), ("2", "2"))
        self.assertAlmostEqual(float(p["ratio"]), math.sqrt(8 / 9 * 8 / 20), places=3)
        # against tcp: 8/6 and a tie, 8/8, which is no win
        p = pair("fanout3", "all", "tcp")
        self.assertEqual((p["reps"], p["wins"]), ("2", "0"))
        self.assertAlmostEqual(float(p["ratio"]), math.sqrt(8 / 6), places=3)
        self.assertFalse([p for p in self.pairs if p["other"] == "fuso3"])
        self.assertFalse([p for p in self.pairs if p["cond"] == "fanout3" and p["sizes"] == "<10K"])

    def test_size_bins(self):
        self.assertEqual(sorted(r["sizes"] for r in self.rows
                                if (r["cond"], r["scheme"]) == ("loss2", "mptcp")),
                         ["10K-100K", "<10K", "all"])
        self.assertEqual(sorted(r["sizes"] for r in self.rows
                                if (r["cond"], r["scheme"]) == ("fanout3", "mptcp")),
                         ["10K-100K", "all"])
        lo, hi = self.row("4a", "loss2", "mptcp", "<10K"), self.row("4a", "loss2", "mptcp", "10K-100K")
        self.assertEqual((lo["n"], hi["n"]), ("12", "18"))   # 9999 and 10000 bytes
        tl, th = self.row("4a", "loss2", "tcp", "<10K"), self.row("4a", "loss2", "tcp", "10K-100K")
        self.assertEqual((tl["n"], th["n"]), ("13", "18"))
        self.assertAlmostEqual(float(lo["p99"]), 6.0)    # s2's query 6
        self.assertAlmostEqual(float(hi["p99"]), 12.0)   # s3's query 9
        self.assertAlmostEqual(float(lo["mean"]),
                               sum(FCT["mptcp"][s][i] for s in (1, 2, 3) for i in LOW) / 12 / 1000,
                               places=3)
        self.assertAlmostEqual(float(lo["rto_share"]), 100 * 1 / 12, places=3)  # s2 query 6
        self.assertAlmostEqual(float(hi["rto_share"]), 100 * 3 / 18, places=3)
        for r in (lo, hi):    # cost columns only in the "all" rows
            for k in ("rto", "extra", "copy", "copies_pq", "cpu_ratio", "bg_n",
                      "fuso_recoveries", "rcv_push"):
                self.assertEqual(r[k], "", k)
        self.assertIn("Fig 4a, < 10 KB: 99th percentile FCT", self.r.stdout)
        self.assertIn("Fig 6, 10-100 KB: 99th percentile FCT", self.r.stdout)

    def test_costs(self):
        m, f, t = (self.row("4a", "loss2", s) for s in ("mptcp", "fuso3", "tcp"))
        self.assertAlmostEqual(float(m["rto"]), 100 * 6 / 30, places=3)
        self.assertEqual(f["fuso_recoveries"], "15")
        self.assertEqual(f["rcv_push"], "3")
        self.assertAlmostEqual(float(f["copies_pq"]), 0.5)
        self.assertAlmostEqual(float(m["copies_pq"]), 0.0)
        self.assertAlmostEqual(float(f["cpu_ratio"]), 2.0, places=3)  # (2 * 1 * 4) ** (1/3)
        self.assertAlmostEqual(float(m["cpu_ratio"]), 1.0, places=3)
        # per query: tcp's s1 took 1.1 s for 11 queries, as fast as mptcp
        self.assertAlmostEqual(float(t["cpu_ratio"]), 1.0, places=3)
        self.assertEqual(t["n"], "31")
        for sch in ("mptcp", "fuso3", "tcp"):      # no cpu.txt in the incast
            self.assertEqual(self.row("6", "fanout3", sch)["cpu_ratio"], "")
        self.assertEqual((m["bg_n"], m["n"]), ("2", "30"))
        self.assertAlmostEqual(float(m["bg_mean"]), 30.0)
        self.assertAlmostEqual(float(m["bg_p99"]), 40.0)
        self.assertEqual(f["bg_n"], "")

    def test_trace_lost(self):
        def lost(top):
            with open(os.path.join(top, "fig4a", "loss2", "s3", "fuso3", "copies.txt"), "a") as fh:
                fh.write("trace_lost 1\n")
        r = self.variant(lost)
        self.assertEqual(r.returncode, 1)
        self.assertIn("fig4a/loss2/s3/fuso3: the tracepoint lost events", r.stderr)

    def test_missing_query(self):
        def drop(top):
            p = os.path.join(top, "fig4a", "loss2", "s2", "tcp", "h2.csv")
            with open(p) as fh:
                lines = fh.readlines()
            write(p, "".join(lines[:-1]))
        r = self.variant(drop)
        self.assertEqual(r.returncode, 1)
        self.assertIn("fig4a/loss2/s2/tcp: 9 of 10 queries completed", r.stderr)

    def test_fanhosts_senders(self):
        # fanhosts=1: the incast's senders are H7 onward, and theirs is
        # the egress that copies and extra bytes are shares of
        def hosts(top):
            for rep in (1, 2):
                rd = os.path.join(top, "fig6", "fanout3", f"s{rep}")
                with open(os.path.join(rd, "condition.txt"), "a") as f:
                    f.write("fanhosts=1\n")
                for sch in ("mptcp", "fuso3", "tcp"):
                    for name, v in (("before", 1000), ("after", 301000)):
                        with open(os.path.join(rd, sch, f"counters-{name}.txt"), "a") as f:
                            for h in ("h7", "h8", "h9"):
                                f.write(f"{h} EgressBytes {v}\n")
        t = Tree(hosts)
        try:
            r = run(t.top)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = read_csv(t.path("summary.csv"))
            self.assertAlmostEqual(float(self.row("6", "fanout3", "fuso3", rows=rows)["copy"]),
                                   100 * 2 * 4 * 12000 / (2 * 3 * 300000), places=2)
        finally:
            t.close()

    def test_fattree(self):
        # topo=fattree: a client from H10 on counts (h12.csv), and the
        # servers, whose egress copies are a share of, are the second
        # half of the hosts under each ToR (H2, H4, ... with hpt=2)
        def tree(top):
            for rep in (1, 2, 3):
                rd = os.path.join(top, "fig4a", "loss2", f"s{rep}")
                with open(os.path.join(rd, "condition.txt"), "a") as f:
                    f.write("topo=fattree\nhpt=2\n")
                for sch in ("mptcp", "fuso3", "tcp"):
                    os.rename(os.path.join(rd, sch, "h2.csv"), os.path.join(rd, sch, "h12.csv"))
        t = Tree(tree)
        try:
            r = run(t.top)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = read_csv(t.path("summary.csv"))
            f = self.row("4a", "loss2", "fuso3", rows=rows)
            self.assertEqual(f["n"], self.row("4a", "loss2", "fuso3")["n"])
            self.assertEqual(f["p99"], self.row("4a", "loss2", "fuso3")["p99"])
            egress = EGRESS["h2"] + EGRESS["h4"] + EGRESS["h6"]
            self.assertAlmostEqual(float(f["copy"]), 100 * 5 * 12000 / egress, places=3)
        finally:
            t.close()

    def test_reduced_tree_kept(self):
        # the oldest committed data (Documentation/bench/*.tar.xz) keeps
        # only queries.csv: analyze.py reads it back and does not replace
        # it; without counters the counter columns are blank
        t = Tree()
        try:
            self.assertEqual(run(t.top).returncode, 0)
            full = self.row("4a", "loss2", "tcp", rows=read_csv(t.path("summary.csv")))
            d = t.path("fig4a", "loss2", "s1", "tcp")
            with open(os.path.join(d, "queries.csv")) as fh:
                before = fh.read()
            for name in os.listdir(d):
                if name != "queries.csv":
                    os.remove(os.path.join(d, name))
            r = run(t.top)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(d, "queries.csv")) as fh:
                self.assertEqual(fh.read(), before)
            now = self.row("4a", "loss2", "tcp", rows=read_csv(t.path("summary.csv")))
            for k in ("n", "mean", "p99", "p99_lo", "p99_hi", "rto_share"):
                self.assertEqual(now[k], full[k], k)
            self.assertNotEqual(now["extra"], full["extra"])  # s1's counters are gone
        finally:
            t.close()

    def test_reduce_round_trip(self):
        # --reduce packs what the tables are made of; analyze.py on the
        # unpacked archive writes the same tables
        t = Tree()
        back = tempfile.mkdtemp(prefix="test-analyze-back-")
        try:
            arc = os.path.join(t.tmp, "data.tar.xz")
            r = run(t.top, "--reduce", arc)
            self.assertEqual(r.returncode, 0, r.stderr)
            with tarfile.open(arc) as tf:
                names = tf.getnames()
                tf.extractall(back)
            self.assertIn("fig4a/loss2/s1/mptcp/queries.csv", names)
            self.assertIn("fig4a/loss2/s1/mptcp/counters-delta.txt", names)
            self.assertIn("fig4a/loss2/s1/condition.txt", names)
            self.assertFalse([n for n in names if os.path.basename(n) in
                              ("h1.csv", "srv-h4.csv", "counters-after.txt")], names)
            r = run(back)
            self.assertEqual(r.returncode, 0, r.stderr)
            for f in ("summary.csv", "pairs.csv"):
                with open(t.path(f)) as a, open(os.path.join(back, f)) as b:
                    self.assertEqual(b.read(), a.read(), f)
            # the same archive again, byte for byte
            arc2 = os.path.join(t.tmp, "again.tar.xz")
            self.assertEqual(run(back, "--reduce", arc2).returncode, 0)
            with open(arc, "rb") as a, open(arc2, "rb") as b:
                self.assertEqual(a.read(), b.read())
            # a bad name is refused before anything is written
            r = run(t.top, "--reduce", os.path.join(t.tmp, "data.zip"))
            self.assertEqual(r.returncode, 1)
            self.assertIn("must end in .tar.xz", r.stderr)
        finally:
            shutil.rmtree(back)
            t.close()

    def test_missing_condition(self):
        r = self.variant(lambda top: os.remove(os.path.join(top, "fig6", "fanout3", "s1",
                                                            "condition.txt")))
        self.assertEqual(r.returncode, 1)
        self.assertIn("fig6/fanout3/s1: no condition.txt", r.stderr)

    def test_replications_differ(self):
        def differ(top):
            p = os.path.join(top, "fig6", "fanout3", "s2", "condition.txt")
            with open(p) as fh:
                text = fh.read()
            write(p, text.replace("loss=0\n", "loss=1\n"))
        r = self.variant(differ)
        self.assertEqual(r.returncode, 1)
        self.assertIn("fig6/fanout3: the replications differ in loss", r.stderr)

    def test_sanity(self):
        def nocopy(top):
            d = os.path.join(top, "fig4a", "loss2", "s2", "fuso3")
            counters(d, EGRESS, {})
        r = self.variant(nocopy)
        self.assertEqual(r.returncode, 1)
        self.assertIn("fig4a/loss2/s2/fuso3: FUSO is on but sent no copy", r.stderr)

    def test_effect_check(self):
        t = self.t.top
        # slow queries (> 5 ms): mptcp 3, 2, 2; fuso3 0, 0, 0
        r = run(t, "--effect-check", "4a/loss2", "--effect-floor", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        for s, m in ((1, 3), (2, 2), (3, 2)):
            self.assertIn(f"effect: s{s} mptcp slow={m} fuso3 slow=0 ratio=0.00 PASS", r.stdout)
        r = run(t, "--effect-check", "4a/loss2")   # floor 15: too few slow queries
        self.assertEqual(r.returncode, 1)
        self.assertIn("effect: s1 mptcp slow=3 fuso3 slow=0 ratio=0.00 VOID", r.stdout)
        self.assertIn("means nothing", r.stdout)
        # incast: mptcp 4 and 4, fuso3 3 and 3 (more than half)
        r = run(t, "--effect-check", "6/fanout3", "--effect-floor", "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("effect: s1 mptcp slow=4 fuso3 slow=3 ratio=0.75 FAIL", r.stdout)
        self.assertIn("effect: s2 mptcp slow=4 fuso3 slow=3 ratio=0.75 FAIL", r.stdout)
        # floor 3: a PASS needs both halves of the rule
        r = run(t, "--effect-check", "4a/loss2", "--effect-floor", "3")
        self.assertEqual(r.returncode, 1)
        self.assertIn("effect: s1 mptcp slow=3 fuso3 slow=0 ratio=0.00 PASS", r.stdout)
        self.assertIn("effect: s2 mptcp slow=2 fuso3 slow=0 ratio=0.00 VOID", r.stdout)
        r = run(t, "--effect-table", "4a/loss2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split("\n"),
                         ["seed mptcp_slow fuso3_slow", "1 3 0", "2 2 0", "3 2 0", ""])


    def test_bulk(self):
        # (scheme, rep) -> (bytes in 5 s, CPU seconds, copy bytes)
        BULK = {("mptcp", 1): (500e6, 10.0, 0), ("mptcp", 2): (400e6, 10.0, 0),
                ("fuso3", 1): (600e6, 12.0, 6e6), ("fuso3", 2): (300e6, 9.0, 3e6)}

        def bulk(top):
            kv = dict(schemes="mptcp,fuso3", loss=1, where="p12", lossmodel="random", nsub=4,
                      iwsub=4, flows=300, qload=10, dist="websearch", bgload=0, fanout=0,
                      size="", bulk=5)
            for rep in (1, 2):
                rd = os.path.join(top, "figbulk", "loss1", f"s{rep}")
                write(os.path.join(rd, "condition.txt"), condition(kv, rep))
                for sch in ("mptcp", "fuso3"):
                    b, cpu, cb = BULK[(sch, rep)]
                    bulk_files(os.path.join(rd, sch), b, f"cpu_s {cpu}\n", cb)
        t = Tree(bulk)
        try:
            r = run(t.top)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = {x["scheme"]: x for x in read_csv(t.path("bulk.csv"))}
            m, f = rows["mptcp"], rows["fuso3"]
            # Mbit/s: mptcp 800 and 640, fuso3 960 and 480
            self.assertAlmostEqual(float(m["mbps"]), 720.0, places=2)
            self.assertAlmostEqual(float(f["mbps"]), 720.0, places=2)
            # Student t, 1 degree of freedom: sd of (800, 640) is 113.137
            self.assertAlmostEqual(float(m["mbps_hi"]) - 720.0, 12.706 * 113.137 / math.sqrt(2), places=1)
            self.assertLess(float(f["mbps_lo"]), float(m["mbps_lo"]))
            # CPU per GB: mptcp (20 + 25) / 2, fuso3 (20 + 30) / 2; against mptcp:
            # sqrt((12/600 / (10/500)) * (9/300 / (10/400))) = sqrt(1.0 * 1.2)
            self.assertAlmostEqual(float(m["cpu_s_per_gb"]), 22.5, places=2)
            self.assertAlmostEqual(float(f["cpu_s_per_gb"]), 25.0, places=2)
            self.assertAlmostEqual(float(f["cpu_ratio"]), math.sqrt(1.2), places=3)
            self.assertAlmostEqual(float(m["cpu_ratio"]), 1.0, places=3)
            # copy bytes against H4's egress: 9e6 / (900e6 * 1.05)
            self.assertAlmostEqual(float(f["copy"]), 100 * 9e6 / 945e6, places=2)
            self.assertIn("| loss1 | fuso3 | 2 |", open(t.path("bulk.md")).read())
            # the query conditions are still summarised beside it
            self.assertTrue(any(x["fig"] == "4a" for x in read_csv(t.path("summary.csv"))))
        finally:
            t.close()

        def nobulk(top):
            bulk(top)
            os.remove(os.path.join(top, "figbulk", "loss1", "s2", "fuso3", "bulk.txt"))
        r = self.variant(nobulk)
        self.assertEqual(r.returncode, 1)
        self.assertIn("figbulk/loss1/s2/fuso3: no bulk transfer result", r.stderr)

    def test_cpu_off(self):
        # FUSO's own CPU cost: fuso3 against mptcp-window, paired on the
        # seed; (bytes, cpu_s, cpu_user_s) per (scheme, rep)
        RUNS = {("mptcp-window", 1): (500e6, 20.0, 5.0), ("fuso3", 1): (500e6, 30.0, 5.5),
                ("mptcp-window", 2): (400e6, 10.0, 4.0), ("fuso3", 2): (500e6, 10.0, 5.0),
                ("mptcp-window", 3): (500e6, 10.0, 5.0), ("fuso3", 3): (500e6, 10.0, 5.0)}

        def tree(top):
            kv = dict(schemes="mptcp-window,fuso3", loss=0, where="p12", lossmodel="random",
                      nsub=4, iwsub=4, flows=300, qload=10, dist="websearch", bgload=0,
                      fanout=0, size="", bulk=5)
            for rep in (1, 2, 3):
                rd = os.path.join(top, "figbulk", "loss0", f"s{rep}")
                write(os.path.join(rd, "condition.txt"), condition(kv, rep))
                for sch in ("mptcp-window", "fuso3"):
                    b, cpu, usr = RUNS[(sch, rep)]
                    bulk_files(os.path.join(rd, sch), b, f"cpu_s {cpu}\ncpu_user_s {usr}\n", 0)
        t = Tree(tree)
        try:
            r = run(t.top)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = {x["scheme"]: x for x in read_csv(t.path("bulk.csv"))}
            w, f = rows["mptcp-window"], rows["fuso3"]
            # user CPU per byte against the window scheduler: 1.1, 1.0, 1.0
            g = (1.1 * 1.0 * 1.0) ** (1 / 3)
            self.assertAlmostEqual(float(f["cpu_user_off"]), g, places=2)
            lg = [math.log(1.1), 0.0, 0.0]
            mu = sum(lg) / 3
            sd = math.sqrt(sum((x - mu) ** 2 for x in lg) / 2)
            self.assertAlmostEqual(float(f["cpu_user_off_hi"]),
                                   math.exp(mu + 4.303 * sd / math.sqrt(3)), places=2)
            self.assertAlmostEqual(float(f["cpu_user_off_lo"]),
                                   math.exp(mu - 4.303 * sd / math.sqrt(3)), places=2)
            # all CPU: 1.5, 0.8, 1.0
            self.assertAlmostEqual(float(f["cpu_off"]), (1.5 * 0.8 * 1.0) ** (1 / 3), places=2)
            # user CPU per GB of fuso3: (11 + 10 + 10) / 3
            self.assertAlmostEqual(float(f["cpu_user_s_per_gb"]), 31 / 3, places=2)
            self.assertEqual(w["cpu_off"], "")          # no scheme to compare with
            self.assertEqual(f["cpu_ratio"], "")        # no mptcp
            self.assertIn("| loss0 | fuso3 | 3 |", open(t.path("bulk.md")).read())
        finally:
            t.close()

    def test_off_scheme(self):
        sys.path.insert(0, HERE)
        import analyze
        for sch, off in (("fuso3", "mptcp-window"), ("fuso1", "mptcp-window"),
                         ("fuso3-paper", "mptcp-window"), ("fuso3-r15-window", "mptcp-window"),
                         ("fuso3-r0-default", "mptcp-window"), ("mptcp", None), ("tcp", None),
                         ("repflow", None), ("fuso3-dctcp", None), ("repflow-dctcp", None)):
            self.assertEqual(analyze.off_scheme(sch), off, sch)

    def test_plotted(self):
        """A figure plots only the conditions of its own curve: the loss
        models, loss on the ACKs and a host per incast sender stay out."""
        sys.path.insert(0, HERE)
        import analyze
        base = {"loss": "2", "where": "p1", "lossmodel": "random", "lossat": "",
                "aqm": "red", "fanhosts": "0", "p1delay": "35", "nsub": "4"}
        for fig, change, want in (("4a", {}, True), ("4a", {"lossat": "10-20"}, False),
                                  ("4a", {"lossmodel": "blackhole"}, False),
                                  ("4a", {"where": "p1up"}, False),
                                  ("4a", {"lossmodel": "gemodel"}, False),
                                  ("bursty", {"lossmodel": "gemodel"}, True),
                                  ("4c", {"where": "access"}, True), ("4c", {}, False),
                                  ("6", {"fanhosts": "1"}, False), ("6", {}, True),
                                  ("6", {"aqm": "droptail"}, False),
                                  ("7", {"nsub": "8"}, True), ("4a", {"nsub": "8"}, False),
                                  ("load", {}, True), ("5", {}, True)):
            self.assertEqual(analyze.plotted(fig, dict(base, **change)), want, (fig, change))
        # older condition.txt files lack the newer keys: their defaults
        self.assertTrue(analyze.plotted("4a", {"where": "p1", "lossmodel": "random"}))


if __name__ == "__main__":
    unittest.main()
