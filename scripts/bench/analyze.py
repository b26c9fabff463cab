#!/usr/bin/python3
"""Summarise a FUSO benchmark run (scripts/bench/bench.sh).

    analyze.py RESULTS_DIR [--no-plots]

Reads RESULTS_DIR/fig*/COND/{condition.txt,SCHEME/...} and writes
RESULTS_DIR/summary.csv, summary.md and one fig*.png per experiment.
Fails (exit 1) when a scheme of a condition produced fewer flows than
asked for, so that a broken scheme cannot hide in the averages, or when a
scheme did not do what it stands for: FUSO schemes sent no copy, a
non-FUSO scheme did, TCP without TLP sent a loss probe, Proactive or
RepFlow sent less than 30% extra bytes.

Per scheme and condition:
  n          completed queries (an incast query counts once)
  mean, p50, p99, p99.9   query completion time, ms
  rto        retransmission timeouts (TcpExtTCPTimeouts, every host,
             after the warm-up) per 100 queries
  over5      queries that took longer than the 5 ms minimum RTO, %
  extra      bytes the servers sent beyond the response payload plus
             headers, % of what they sent (retransmissions, FUSO copies,
             RepFlow and Proactive duplicates; MPTCP options add ~1.4%)
  copy       FUSO copy bytes (mptcp_fuso_recovery tracepoint), % of what
             the servers sent
"""
import csv
import os
import sys

SCHEMES = ["tcp", "tcp-notlp", "mptcp", "fuso1", "fuso3", "repflow", "proactive"]
LABEL = {"tcp": "TCP (RACK-TLP)", "tcp-notlp": "TCP, no TLP", "mptcp": "MPTCP",
         "fuso1": "FUSO sender (fuso=1)", "fuso3": "FUSO (fuso=3)",
         "repflow": "RepFlow", "proactive": "Proactive"}
SERVERS = ("h2", "h3", "h4", "h5", "h6")
WIRE = 1514.0 / 1448.0  # bytes on the wire per payload byte, full segments


def die(msg):
    print("analyze.py: ERROR: " + msg, file=sys.stderr)
    sys.exit(1)


def read_kv(path):
    d = {}
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
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


def pct(sorted_v, q):
    """Nearest-rank percentile of a sorted list."""
    if not sorted_v:
        return float("nan")
    k = max(0, min(len(sorted_v) - 1, int(-(-q * len(sorted_v) // 1)) - 1))
    return sorted_v[k]


def scheme_stats(d, cond):
    fct, size = [], 0
    for name in sorted(os.listdir(d)):
        if name.startswith("h") and name.endswith(".csv"):
            with open(os.path.join(d, name)) as f:
                for r in csv.DictReader(f):
                    fct.append(int(r["fct_us"]) / 1000.0)
                    size += int(r["size"]) * int(r["fanout"])
    fct.sort()
    before = read_counters(os.path.join(d, "counters-before.txt"))
    after = read_counters(os.path.join(d, "counters-after.txt"))

    def delta(name, hosts=None):
        return sum(v - before.get(k, 0) for k, v in after.items()
                   if k[1] == name and (hosts is None or k[0] in hosts))
    n = len(fct)
    s = {"n": n}
    if n:
        s["mean"] = sum(fct) / n
        s["p50"] = pct(fct, 0.50)
        s["p99"] = pct(fct, 0.99)
        s["p99.9"] = pct(fct, 0.999)
        s["max"] = fct[-1]
        s["rto"] = 100.0 * delta("TcpExtTCPTimeouts") / n
        s["over5"] = 100.0 * sum(1 for x in fct if x > 5.0) / n
    egress = delta("EgressBytes", SERVERS)
    bg = float(cond.get("bgload", "0")) > 0
    if egress > 0 and not bg and n:
        s["extra"] = 100.0 * max(0.0, egress - size * WIRE) / egress
    copies = {}
    cp = os.path.join(d, "copies.txt")
    if os.path.exists(cp):
        for line in open(cp):
            p = line.split()
            if len(p) == 2:
                copies[p[0]] = int(p[1])
    if egress > 0 and "copy_bytes" in copies:
        s["copy"] = 100.0 * copies["copy_bytes"] / egress
    s["fuso_recoveries"] = delta("MPTcpExtFusoRecovery")
    s["probes"] = delta("TcpExtTCPLossProbes")
    s["rcv_push"] = delta("MPTcpExtFusoRcvOfoPush")
    return s


def sanity(sch, s):
    """What each scheme must show in its counters."""
    p = []
    if not s["n"]:
        return p
    fuso = sch.startswith("fuso")
    if fuso and s["fuso_recoveries"] == 0:
        p.append("FUSO is on but sent no copy (MPTcpExtFusoRecovery = 0)")
    if not fuso and s["fuso_recoveries"]:
        p.append(f"FUSO is off but sent {s['fuso_recoveries']} copies")
    if sch == "tcp-notlp" and s["probes"]:
        p.append(f"TLP is off but {s['probes']} loss probes were sent")
    if sch in ("proactive", "repflow") and s.get("extra", 100) < 30:
        p.append(f"only {s['extra']:.1f}% extra bytes: the duplicates are missing")
    return p


def fig_key(cond):
    """The x value of a condition within its experiment."""
    if float(cond.get("bgload", "0")) > 0:
        return float(cond["bgload"])
    if int(cond.get("fanout", "0")) > 0:
        return int(cond["fanout"])
    return float(cond.get("loss", "0"))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    plots = "--no-plots" not in sys.argv
    if len(args) != 1 or not os.path.isdir(args[0]):
        die("usage: analyze.py RESULTS_DIR [--no-plots]")
    top = args[0]
    rows, problems = [], []
    for fig in sorted(x for x in os.listdir(top)
                      if x.startswith("fig") and os.path.isdir(os.path.join(top, x))):
        for cname in sorted(os.listdir(os.path.join(top, fig))):
            cdir = os.path.join(top, fig, cname)
            ct = os.path.join(cdir, "condition.txt")
            if not os.path.exists(ct):
                problems.append(f"{fig}/{cname}: no condition.txt (the guest did not start)")
                continue
            cond = read_kv(ct)
            want = int(cond["flows"])
            for sch in cond["schemes"].replace(",", " ").split():
                sd = os.path.join(cdir, sch)
                s = scheme_stats(sd, cond) if os.path.isdir(sd) else {"n": 0}
                if s["n"] < want:
                    problems.append(f"{fig}/{cname}/{sch}: {s['n']} of {want} queries completed")
                problems += [f"{fig}/{cname}/{sch}: {p}" for p in sanity(sch, s)]
                row = {"fig": fig[3:], "cond": cname, "x": fig_key(cond),
                       "loss": cond.get("loss"), "where": cond.get("where"),
                       "nsub": cond.get("nsub"), "iwsub": cond.get("iwsub", ""),
                       "bgload": cond.get("bgload"),
                       "fanout": cond.get("fanout"), "scheme": sch}
                row.update(s)
                rows.append(row)
    if not rows:
        die(f"no results under {top}")

    cols = ["n", "mean", "p50", "p99", "p99.9", "rto", "over5", "extra", "copy"]
    with open(os.path.join(top, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["fig", "cond", "scheme", "loss", "where", "nsub", "iwsub", "bgload", "fanout"] + cols +
                   ["fuso_recoveries", "rcv_push"])
        for r in rows:
            w.writerow([r["fig"], r["cond"], r["scheme"], r["loss"], r["where"], r["nsub"],
                        r["iwsub"], r["bgload"], r["fanout"]] +
                       [("%.3f" % r[c]) if isinstance(r.get(c), float) else r.get(c, "")
                        for c in cols] + [r.get("fuso_recoveries", ""), r.get("rcv_push", "")])

    def fmt(v, p=2):
        return "-" if v is None else (("%." + str(p) + "f") % v if isinstance(v, float) else str(v))
    with open(os.path.join(top, "summary.md"), "w") as f:
        f.write("FCT in ms; rto = timeouts per 100 queries; over5 = % of queries over 5 ms; "
                "extra = % of server bytes beyond payload+headers; copy = FUSO copy bytes, "
                "% of server bytes\n")
        for fig in sorted(set(r["fig"] for r in rows)):
            f.write(f"\n### Fig {fig}\n\n| condition | scheme | n | mean | p50 | p99 | p99.9 | "
                    "rto | over5 | extra | copy |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
            for r in [r for r in rows if r["fig"] == fig]:
                f.write(f"| {r['cond']} | {r['scheme']} | {r['n']} | {fmt(r.get('mean'))} | "
                        f"{fmt(r.get('p50'))} | {fmt(r.get('p99'))} | {fmt(r.get('p99.9'))} | "
                        f"{fmt(r.get('rto'))} | {fmt(r.get('over5'), 1)} | {fmt(r.get('extra'), 1)} | "
                        f"{fmt(r.get('copy'), 1)} |\n")
        # the paper's view: one metric, conditions down, schemes across
        for fig in sorted(set(r["fig"] for r in rows)):
            fr = [r for r in rows if r["fig"] == fig]
            schemes = [x for x in SCHEMES if any(r["scheme"] == x for r in fr)]
            conds = []
            for r in fr:
                if r["cond"] not in conds:
                    conds.append(r["cond"])
            for metric, what in (("p99", "99th percentile FCT, ms"), ("mean", "mean FCT, ms"),
                                 ("over5", "% of queries over 5 ms")):
                f.write(f"\n#### Fig {fig}: {what}\n\n| condition | " + " | ".join(schemes) +
                        " |\n|---|" + "---:|" * len(schemes) + "\n")
                for c in conds:
                    vals = {r["scheme"]: r.get(metric) for r in fr if r["cond"] == c}
                    f.write(f"| {c} | " + " | ".join(fmt(vals.get(x), 1 if metric == "over5" else 2)
                                                    for x in schemes) + " |\n")
    print(open(os.path.join(top, "summary.md")).read())

    if plots:
        make_plots(top, rows)
    if problems:
        for p in problems:
            print("analyze.py: " + p, file=sys.stderr)
        die(f"{len(problems)} problem(s) in the results (above)")
    print(f"analyze.py: {len(rows)} scheme runs, every one complete and sane; "
          f"{os.path.join(top, 'summary.md')}", file=sys.stderr)


def make_plots(top, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    style = {"tcp": ("tab:blue", "o"), "tcp-notlp": ("tab:cyan", "v"),
             "mptcp": ("tab:green", "s"), "fuso1": ("tab:orange", "^"),
             "fuso3": ("tab:red", "D"), "repflow": ("tab:purple", "x"),
             "proactive": ("tab:brown", "+")}
    spec = {
        "4a": ("loss rate on path 1 (%)", [("p99", "99th pct FCT (ms)"), ("over5", "% of queries over 5 ms (min RTO)")]),
        "4c": ("loss rate on the access links of H4-H6 (%)", [("p99", "99th pct FCT (ms)"), ("over5", "% of queries over 5 ms (min RTO)")]),
        "5": ("background load", [("mean", "mean FCT (ms)"), ("p99", "99th pct FCT (ms)"), ("copy", "FUSO copy bytes (% of sent)")]),
        "6": ("incast fanout", [("mean", "mean query completion (ms)"), ("p99", "99th pct query completion (ms)")]),
    }
    for fig, (xlabel, panels) in spec.items():
        fr = [r for r in rows if r["fig"] == fig and r["n"]]
        if not fr:
            continue
        fig_, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.8))
        for ax, (metric, ylabel) in zip(axes, panels):
            for sch in SCHEMES:
                pts = sorted((r["x"], r.get(metric)) for r in fr
                             if r["scheme"] == sch and r.get(metric) is not None)
                if not pts:
                    continue
                c, m = style[sch]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=m, color=c,
                        label=LABEL[sch])
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=7)
        fig_.suptitle(f"Fig {fig} (FUSO benchmark, UML virtual time)", fontsize=10)
        fig_.tight_layout()
        fig_.savefig(os.path.join(top, f"fig{fig}.png"), dpi=110)
        plt.close(fig_)
    fr = [r for r in rows if r["fig"] == "7" and r["n"]]
    if fr:
        fig_, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        for ax, metric, ylabel in ((axes[0], "p99", "99th pct FCT (ms)"),
                                   (axes[1], "mean", "mean FCT (ms)")):
            for sch in ("mptcp", "fuso3"):
                pts = sorted((int(r["nsub"]), r.get(metric)) for r in fr if r["scheme"] == sch)
                c, m = style[sch]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=m, color=c,
                        label=LABEL[sch])
            ax.set_xscale("log", base=2)
            ax.set_xticks([1, 2, 4, 8], ["1", "2", "4", "8"])
            ax.set_xlabel("subflows per connection")
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=7)
        fig_.suptitle("Fig 7 (FUSO benchmark, 2% loss on path 1)", fontsize=10)
        fig_.tight_layout()
        fig_.savefig(os.path.join(top, "fig7.png"), dpi=110)
        plt.close(fig_)


if __name__ == "__main__":
    main()
