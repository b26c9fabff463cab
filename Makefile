# FUSO for Linux MPTCP: the one entry point.
#
#   make            install what is missing, build everything, then show FUSO at
#                   work: the quickstart, FUSO off and on side by side (2 min)
#   make test       the whole test suite (CI runs this)
#   make help       every target
#
# KSRC=/path/to/linux-6.12 builds against your own tree instead of Debian's
# linux-source-6.12.

SHELL := /bin/bash
S := scripts

.PHONY: all help deps tree build kernel-uml kernel-qemu kernel-nofuso kernel-debug kernel-uml-debug kernel-kcsan selftests \
	demo quickstart test test-full test-debug test-kcsan kunit series export check vm-help clean \
	distclean bench bench-tables deb soak series-selftests

all: deps build quickstart

help:
	@sed -n 's/^##//p' $(MAKEFILE_LIST)

## deps          install missing Debian packages (apt)
deps:
	$(S)/deps.sh

## tree          build/src: base tree + patches/ + links to the FUSO core
tree: deps
	$(S)/base-tree.sh src

## build         UML and QEMU kernels (FUSO=y) and the net/mptcp kselftests
build: kernel-uml kernel-qemu selftests

## kernel-uml    User-Mode Linux kernel (scripts/vm --uml)
kernel-uml: deps
	$(S)/build.sh kernel uml

## kernel-qemu   x86_64 kernel for QEMU (scripts/vm --qemu)
kernel-qemu: deps
	$(S)/build.sh kernel qemu

## kernel-nofuso x86_64 kernel with CONFIG_MPTCP_FUSO=n (scripts/vm --qemu --nofuso)
kernel-nofuso: deps
	$(S)/build.sh kernel qemu --nofuso

## kernel-debug x86_64 debug kernel: KASAN, lockdep, kmemleak (scripts/vm --qemu --debug)
kernel-debug: deps
	$(S)/build.sh kernel qemu --debug

## kernel-uml-debug the debug kernel's sanitizers in UML (scripts/vm --uml --debug;
##               make soak KERNEL=uml-debug)
kernel-uml-debug: deps
	$(S)/build.sh kernel uml --debug

## kernel-kcsan x86_64 KCSAN kernel: data races (scripts/vm --qemu --kcsan)
kernel-kcsan: deps
	$(S)/build.sh kernel qemu --kcsan

## selftests     build and install the net/mptcp kselftests (with fuso.sh)
selftests: deps
	$(S)/build.sh selftests

## quickstart    FUSO at work in the UML kernel: two paths, 2 % loss on one, the same
##               queries with FUSO off and on side by side, its counters, the
##               tracepoint, iperf3 through mptcpize (scripts/quickstart.sh, which
##               also runs as root on your own FUSO kernel)
quickstart: kernel-uml
	$(S)/quickstart-vm.sh

## deb           installable Debian packages of a FUSO kernel in build/deb/ (Kbuild's
##               bindeb-pkg): CONFIG=FILE (default the running kernel's /boot/config-*)
##               plus CONFIG_MPTCP_FUSO=y; OUT=DIR, LOCALVERSION=-fuso
deb: deps
	$(S)/deb.sh $(if $(CONFIG),--config $(CONFIG)) $(if $(OUT),--out $(OUT)) \
		$(if $(LOCALVERSION),--localversion $(LOCALVERSION))

## demo          fuso.sh, verbose: two paths, loss on one, FUSO off and on
demo:
	$(S)/demo.sh

## bench         the paper's testbed, the headline comparison: every scheme, 10 seeded
##               replications with 95 % intervals (about 45 min); QUICK=1: the CI size;
##               FULL=1: every point (hours); DRY=1: the plan and its estimated time only.
##               Options: FIGS=4a,7  FLOWS=1000  REPS=10  SEED=1  JOBS=2  OUT=build/bench/results
bench: $(if $(DRY),,kernel-uml)
	$(S)/bench/bench.sh $(if $(DRY),--dry-run) $(if $(QUICK),--quick) $(if $(FULL),--full) $(if $(FIGS),--fig $(FIGS)) \
		$(if $(FLOWS),--flows $(FLOWS)) $(if $(REPS),--reps $(REPS)) $(if $(SEED),--seed $(SEED)) \
		$(if $(JOBS),--jobs $(JOBS)) $(if $(OUT),--out $(OUT))

## bench-tables  Documentation/bench's summary.csv, summary.md, pairs.csv and figures
##               again, by analyze.py from the published runs' committed data
bench-tables:
	$(S)/bench/published.sh

## test          the whole suite (CI runs it): the UML kernel and fuso.sh, the fault
##               suite, KUnit, the quickstart and the benchmark's checks on it; the
##               series check, make deb, W=1 and the docs; the debug kernel (KASAN,
##               lockdep, kmemleak) with a part of fuso.sh and two fault cases.
##               Prints an estimate first and each step's time at the end
test:
	$(S)/test.sh

## test-full     everything: the suite, the plain QEMU kernel, the debug and KCSAN
##               kernels in full, the series linked both ways at every commit, each
##               patch's fuso.sh on its kernel, the whole docs book, upstream
##               selftests with FUSO on (hours)
test-full:
	$(S)/test.sh --full
## test-debug    the debug kernel (KASAN, lockdep, kmemleak...): fuso.sh and the whole fault suite
test-debug:
	$(S)/test.sh --debug
## soak          the fault suite's faults and more (subflows removed and re-added, an
##               address change, RSTs, checksums with corruption) in rounds drawn from
##               seeds, with request/response load and close races beside each, until
##               10 000 transfers of random sizes are checked byte for byte, fuso=3
##               (not in make test; about 12 min on UML).  KERNEL=uml-debug: the debug
##               kernel's sanitizers (KASAN, lockdep, kmemleak) in UML (about 25 min);
##               KERNEL=debug: the debug kernel under QEMU (hours).  TRANSFERS=N SEED=S MODE=M
soak: selftests kernel-$(if $(filter debug,$(KERNEL)),debug,$(if $(filter uml-debug,$(KERNEL)),uml-debug,uml))
	$(S)/soak.sh $(if $(KERNEL),--kernel $(KERNEL)) $(if $(TRANSFERS),--transfers $(TRANSFERS)) \
		$(if $(SEED),--seed $(SEED)) $(if $(MODE),--mode $(MODE))

## test-kcsan    the KCSAN kernel: fuso.sh and the whole fault suite, no data race in
##               MPTCP or FUSO code (scripts/kcsan-check.py)
test-kcsan:
	$(S)/test.sh --kcsan

## series-selftests  each patch's own fuso.sh on that patch's UML kernel (the patches
##               carry fuso.sh case by case; about 5 min a patch).  PATCHES="6 7": only those
series-selftests: selftests
	$(S)/series-selftests.sh $(PATCHES)

## kunit         only the KUnit suites (UML and QEMU)
kunit:
	$(S)/test.sh deps build-uml build-qemu kunit-uml kunit-qemu

## series        write the git am-able series (new files included) to build/series
series:
	$(S)/patches.sh series build/series

## export        write build/src's commits back to patches/ (after editing there)
export:
	$(S)/patches.sh export

## check         checkpatch --strict on the series, W=1 build of net/mptcp, and
##               Documentation/networking built with Sphinx: no warning the base
##               tree's build does not have (scripts/docs-check.sh)
check: series
	$(S)/patches.sh checkpatch build/series
	$(S)/build.sh kernel qemu --w1
	$(S)/docs-check.sh --all

## clean         remove kernel objects (keeps the unpacked trees)
clean:
	rm -rf build/src/.obj-* build/series-check/.obj-* build/test-logs build/vm

## distclean     remove build/ entirely
distclean:
	rm -rf build
