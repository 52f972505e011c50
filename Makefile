# SPDX-License-Identifier: GPL-2.0
#
# Build the patched kernel and perf, boot them in QEMU, test.
# Run "make help" for the targets. BASE=7.3, 6.12 or 6.1 selects the base
# (scripts/lib.sh has the default), KERNEL=debug the debug kernel.

S := scripts
BASES := $(shell sed -n 's/^BASES="\(.*\)"$$/\1/p' $(S)/lib.sh)
KERNEL ?= default
export KERNEL TESTS BASE

.PHONY: help deps tree kernel perf perf-san perf-fuzz perf-cov perf-stock perf-mainline tests build check demo \
	coverage check-all shell bench fuzz fuzz-kernel fuzz-seeds upstream baseline export reset-tree mbox \
	series-check abi-check fresh-check figures clean

# The targets table of README.md, one line each.
help:
	@sed -n '/^## Make targets/,/^## Layout/s/^| `\(make [^`]*\)` | \(.*\) |$$/\1\t\2/p' README.md | expand -t 20

# FIGURES.md: the latest measured runs under build/, per base.
figures:
	@$(S)/figures.sh

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh

reset-tree: deps
	@$(S)/tree.sh --reset

kernel: tree
	@$(S)/timed.sh kernel-$(KERNEL) $(S)/build-kernel.sh

perf: tree
	@$(S)/timed.sh perf $(S)/build-perf.sh

perf-san: tree
	@PERF_SAN=1 $(S)/build-perf.sh

perf-fuzz: tree
	@PERF_FUZZ=1 $(S)/build-perf.sh

perf-stock: tree
	@PERF_STOCK=1 $(S)/build-perf.sh

perf-cov: tree
	@PERF_COV=1 $(S)/build-perf.sh

# Mainline's perf, 7.3 as it ships, for the tests of how it and ours read
# each other's files on every base: from Debian's linux-source-7.3, with
# no tree of 7.3 needed (build/7.3/perf-stock).
perf-mainline:
	@BASE=7.3 PERF_STOCK=1 $(S)/build-perf.sh

tests: kernel
	@$(S)/build-tests.sh

# The guest boots on the host's root: nothing to pack (scripts/vm.sh).
build: kernel perf tests

check: build perf-san perf-stock perf-mainline
	@$(S)/check.sh check

# make check on every base, each with its own summary line; fails if
# any base failed. CI checks only the default base (.ci/run): run this
# before a change to a series or the harness is called done.
check-all:
	@rc=0; for b in $(BASES); do $(MAKE) --no-print-directory check BASE=$$b || rc=1; done; exit $$rc

# make check with gcov's counters in the kernel's files of the series and
# in perf, and the lines of each patch that ran (scripts/coverage.sh); with
# FUZZ_SECONDS, make fuzz and make fuzz-kernel too.
coverage: tree perf-san perf-stock perf-mainline $(if $(FUZZ_SECONDS),perf-fuzz)
	@$(S)/coverage.sh

demo: build
	@$(S)/check.sh demo

bench: build
	@$(S)/check.sh bench

fuzz: perf-fuzz perf-san
	@$(S)/fuzz.sh

# trinity and scripts/fuzz/kernel/mmap3-stress in the guest, FUZZ_SECONDS
# each, side by side; with KERNEL=debug for KASAN, lockdep and DEBUG_VM.
fuzz-kernel: build
	@$(S)/check.sh fuzz-kernel

fuzz-seeds: build
	@$(S)/check.sh seeds

shell: build
	@$(S)/vm.sh shell

export:
	@$(S)/export.sh

mbox: tree
	@$(S)/mbox.sh

series-check: tree
	@$(S)/series-check.sh

# The ABI numbers of every base against the newest mainline uapi.
abi-check:
	@$(S)/abi-check.sh

baseline: deps
	@$(S)/baseline.sh

fresh-check:
	@$(S)/fresh-check.sh

clean:
	rm -rf build
