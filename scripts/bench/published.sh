#!/bin/bash
# The published tables, made again from the published data.
#
#   scripts/bench/published.sh [--check]
#
# Documentation/bench/summary.csv, summary.md and pairs.csv, bulk.csv and
# bulk.md, and the figures fig2.png, fig4a.png, fig4c.png, fig7.png,
# figbursty.png, figdm.png, figload.png and fig5.png, are analyze.py's
# output over the runs in RUNS below, read back from
# their committed reduced form (Documentation/bench/RUN.tar.xz; the
# command and commit of each run are in Documentation/benchmark.md).
# Each run's conditions are its own (no figure and condition is in two
# runs; this script refuses a collision), so every ratio in pairs.csv
# pairs the schemes of one boot.
#
# Without an option it writes those files into Documentation/bench.  With
# --check it writes them into a temporary directory and fails when
# summary.csv, pairs.csv or bulk.csv differ from the committed ones (the CI's step
# bench-published): the tables in the documents are the data's.
# A run in RUNS may be written RUN:FIG/COND,FIG/COND...: only those of its
# conditions are published (a run whose other conditions a later run of
# another kernel replaced); a listed condition the run does not have is
# an error.
# FUSO_PUBLISHED_DIR, FUSO_PUBLISHED_RUNS and FUSO_PUBLISHED_FIGS replace
# the directory, the runs and the figures (scripts/test-scripts.sh checks
# the failures with them).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DOC=${FUSO_PUBLISHED_DIR:-$TOP/Documentation/bench}

# the runs behind the published tables (Documentation/benchmark.md):
# headline-63: the default plan's loss conditions (Fig 4a at 0 and 2 %
# on path 1, 4c at 1 %, bursty loss) on the final kernel (with patch
# 0014), every scheme, 10 seeds; headline-64c, the final kernel built
# again: the schemes the default plan leaves out at 0 % (loss0rest, with
# FUSO again) and the four loss points of Figs 4a and 4c that the
# default plan does not run, every scheme; incast30-64, the same build
# as headline-64c: the default plan's 30-sender incast, every scheme;
# bulk-65, the final kernel: bulk (iperf3 through mptcpize, MPTCP on
# both schedulers and FUSO); loss-66, the same binary: loss on the
# clients' direction only and loss the rules were not tuned on, every
# baseline; figs-66, the same binary: Fig 7 and the data-mining sizes,
# every scheme; incast-66, the same binary: the incast with a host per
# sender through the RED/ECN port, 48 and 24 senders, every scheme;
# incast-60, the landed kernel (f4a1610's series, the kernel before
# patch 0014) built again: its three drop-tail incasts (24 and 48
# senders with a host each, 48 on shared hosts), every scheme;
# fig5-58, the landed kernel (the binary of headline-56): Fig 5
# (queries beside background flows at 10, 50 and
# 90 %), every baseline; load-59, the build of incast-60: the query
# load, every scheme and FUSO on DCTCP; ft32-61 and ft-60, the same
# build: the fat-tree at 32 and 16 hosts; ft0-62, the same build: at 16
# without loss, every scheme, and FUSO alone there with 2 and 4
# subflows; ftsub2l-61 and ft32sub2-61 (the same build): FUSO alone
# with 2 subflows at 16 and 32 hosts with loss (tables only);
# ablation-42: FUSO with each of its rules taken out, on conditions
# they were not tuned on (tables only); fig2-60, the build of
# incast-60: Fig 2 (TCP with and without TLP); untuned-63, the final
# kernel: hosts with the kernel's own minimum RTO and initial window,
# and untuned-64, the final kernel too: the 48-sender drop-tail incast
# on such hosts (tables only).  Not here: dt-65 (TCP and FUSO alone on
# incast-60's drop-tail conditions, the final kernel), final-57 (TCP,
# DCTCP and FUSO in the 48-sender ECN incast, and bulk, on the landed
# kernel: incast-66's and bulk-65's conditions), incast-62 (incast-66's
# 48-sender ECN incast on the landed kernel), ackloss-58 and
# lossmodels-59 (loss-66's conditions on the landed kernel), figs-60
# (figs-66's on the landed kernel), untuned-62 (untuned-64's condition
# on the build of incast-60), headline-56, headline-56b and
# headline-56c (headline-63's, headline-64c's and incast30-64's
# conditions on the landed kernel), headline-53b (the 48-sender ECN
# incast on the kernel before), fig5-40 and ackloss-40 (four and five
# schemes on an older kernel: fig5-58's and loss-66's conditions),
# lossmodels-40 and load-40 and untuned-51 and untuned-59 (loss-66's,
# load-59's and untuned-63's conditions on older kernels), probeon-63
# and probeoff-63 (FUSO alone on untuned-63's bursty condition, with
# and without patch 0014), figs-50 (figs-66's, fig2-60's and bulk-65's
# conditions on an older kernel), headline-40, headline-41,
# headline-43, headline-53 and headline-54 (the same plans on the
# receiver with the tcp_input.c hook, on the kernel before two rules
# went, on the kernel of ec7f141's series and on the kernel before the
# two fixes of f4a1610), confirm-43 (FUSO on ablation-42's conditions
# on the new kernel), incast-hosts-40, incast24-42 and dt48-43
# (incast-44's conditions on older kernels, or FUSO and TCP only),
# incast-44 (incast-60's and incast-66's conditions on an older
# kernel), dtfinal-51 and dtshared-49 (TCP and FUSO, or five schemes,
# on incast-60's conditions), ft32-40, ft-40, ft32sub2-40, ftsub2l-40,
# ft0-40, ftsub2-40 and ftsub4-40 (ft32-61's, ft-60's, ft32sub2-61's,
# ftsub2l-61's and ft0-62's conditions on 239b4a4's kernel),
# loaddctcp-40 and dcvariants-40 (FUSO, RepFlow and Proactive on DCTCP:
# the load series' and the headline run's conditions in other runs) and
# results-17/36 (older kernels, no per-query data).
RUNS=${FUSO_PUBLISHED_RUNS:-headline-63 headline-64c incast30-64 bulk-65 loss-66 figs-66 incast-66 incast-60:fig6/dt-fh48,fig6/dt-fh24,fig6/dt-fanout48 fig5-58 load-59 ft32-61 ft-60 ft0-62 ftsub2l-61 ft32sub2-61 ablation-42 fig2-60 untuned-63 untuned-64}
FIGS=${FUSO_PUBLISHED_FIGS-fig2.png fig4a.png fig4c.png fig7.png figbursty.png figdm.png figload.png fig5.png}

die() { echo "published.sh: $*" >&2; exit 1; }

check=
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) die "usage: published.sh [--check]" ;;
esac
[ $# -le 1 ] || die "usage: published.sh [--check]"

tmp=$(mktemp -d /tmp/fuso-published.XXXXXX) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/all"
for entry in $RUNS; do
	run=${entry%%:*} only=
	[ "$run" = "$entry" ] || only=",${entry#*:},"
	arc=$DOC/$run.tar.xz
	[ -f "$arc" ] || die "no $arc (a published run's data)"
	echo "published.sh: $run" >&2
	mkdir "$tmp/$run"
	tar -C "$tmp/$run" -xJf "$arc" || die "cannot unpack $arc"
	for cdir in "$tmp/$run"/fig*/*/; do
		[ -d "$cdir" ] || die "$arc holds no fig*/CONDITION directory (not a reduced run)"
		cdir=${cdir%/}
		fig=$(basename "$(dirname "$cdir")")
		cond=$(basename "$cdir")
		if [ -n "$only" ]; then
			case "$only" in *",$fig/$cond,"*) ;; *) continue ;; esac
			only=${only/",$fig/$cond,"/,}
		fi
		[ -e "$tmp/all/$fig/$cond" ] &&
			die "$fig/$cond is in $run and in an earlier run of RUNS: a table must pair one run's boots"
		mkdir -p "$tmp/all/$fig"
		mv "$cdir" "$tmp/all/$fig/$cond"
	done
	if [ -n "${only//,/}" ]; then
		only=${only//,/ }
		only=${only# }
		die "$run has no ${only% } (RUNS: $entry)"
	fi
done

echo "published.sh: analyze.py over $(find "$tmp/all" -mindepth 2 -maxdepth 2 -type d | wc -l) conditions" >&2
(cd "$tmp" && /usr/bin/python3 "$TOP/scripts/bench/analyze.py" ${check:+--no-plots} "$tmp/all") \
	>"$tmp/analyze.log" 2>&1 || { tail -20 "$tmp/analyze.log" >&2; die "analyze.py failed"; }
tail -1 "$tmp/analyze.log" >&2

if [ -n "$check" ]; then
	bad=0
	for f in summary.csv pairs.csv bulk.csv; do
		# bulk.csv only where a run has a bulk condition
		[ -f "$tmp/all/$f" ] || [ -f "$DOC/$f" ] || continue
		if ! cmp -s "$tmp/all/$f" "$DOC/$f"; then
			echo "published.sh: $DOC/$f is not analyze.py's output over the published runs:" >&2
			diff "$DOC/$f" "$tmp/all/$f" | head -20 >&2
			bad=1
		fi
	done
	[ "$bad" = 0 ] || die "run scripts/bench/published.sh (without --check) and commit what it writes"
	echo "published.sh: summary.csv, pairs.csv and bulk.csv are the published runs' own" >&2
	exit 0
fi
for f in summary.csv summary.md pairs.csv $FIGS; do
	[ -f "$tmp/all/$f" ] || die "analyze.py wrote no $f"
	cp "$tmp/all/$f" "$DOC/$f" || die "cannot write $DOC/$f"
done
bulk=
for f in bulk.csv bulk.md; do
	[ -f "$tmp/all/$f" ] || continue
	cp "$tmp/all/$f" "$DOC/$f" || die "cannot write $DOC/$f"
	bulk=", bulk.csv, bulk.md"
done
echo "published.sh: wrote summary.csv, summary.md, pairs.csv$bulk${FIGS:+ and $FIGS} into $DOC" >&2
