# ozram: the one entry point.  Userspace is built by CMake into $(BUILD),
# the kernel module by Kbuild against $(KDIR).  See README.md.

BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
JOBS    ?= $(shell nproc)

# The kernel to build for: the running one if its headers are installed,
# otherwise the newest Debian 6.1 kernel whose headers are (Debian 12's
# linux-headers-amd64), otherwise the newest kernel whose headers are.
# PREEMPT_RT kernels, whose headers 'make deps' installs for kmod-check, are
# never picked: the module refuses them.  make check builds and tests the
# module on every kernel tests/vm/kernels lists (6.1 and 6.12) whatever
# this is.
KDIR ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then \
		echo /lib/modules/$$(uname -r)/build; \
	else \
		all=$$(ls -d /lib/modules/*/build 2>/dev/null | grep -v -- '-rt-' | sort -V); \
		echo "$$all" | grep '^/lib/modules/6\.1\.' | tail -n1 | grep . || \
			echo "$$all" | tail -n1; \
	fi)
comma := ,
KVER := $(notdir $(patsubst %/build,%,$(KDIR)))
export KDIR KVER BUILD

.PHONY: all deps userspace kmod check unit-check kmod-check vm-check systemd-vm-check soak soak-debug soak-check bench \
	bench-vm demo gpu-check install clean format checkpatch deb deb-check

all: userspace kmod

deps:
	@tools/install-deps

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX)

userspace: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

kmod: deps
	@test -n "$(KDIR)" || { echo "no kernel headers found: set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules

check: unit-check checkpatch kmod-check deb-check systemd-vm-check vm-check soak-check

unit-check: userspace
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Checks of the module's sources and build: its layering (no circle of
# layers, the ring includes nothing above it, only ozram_io*.c write the
# slot table, no .c over 550 lines), and it refuses PREEMPT_RT kernels,
# 32-bit ones and those whose pages are not 4 KiB.
kmod-check: deps
	tests/kmod/structure
	tests/kmod/refuses-preempt-rt
	tests/kmod/refuses-config 32-bit
	tests/kmod/refuses-config large-pages

# Every scenario on each tested kernel (tests/vm/kernels: the newest 6.1
# and 6.12 installed), and every scenario again with ozramd attached on
# VM_AGENT_KERNELS (default: all, every kernel; or a comma-separated list),
# VM_JOBS suites side by side (tests/vm/run-kernels).  VM_KERNELS=VERSION...
# narrows it.
VM_KERNELS ?= $(shell tests/vm/kernels)
VM_AGENT_KERNELS ?= all
VM_JOBS ?= 2
vm-check: all
	@test -n "$(VM_KERNELS)" || { echo "vm-check: no kernel to test on (tests/vm/kernels)" >&2; exit 1; }
	tests/vm/run-kernels -j $(VM_JOBS) --agent-on $(subst $(eval) ,$(comma),$(VM_AGENT_KERNELS)) $(VM_KERNELS)

# The soak (tests/vm/soak): every load and fault at once, with the agent.
# SEED reruns a soak, KERNEL picks its kernel (a uname -r string, or by-seed:
# the tested kernel the seed picks); DEBUG_BOOT=1 boots with the kernel's debug checks,
# RING_TIMEOUT_MS sets the module's ring_timeout_ms; SOAK_FLAGS passes more.
DURATION ?= 600
SOAK_ARGS = $(if $(SEED),--seed $(SEED)) $(if $(KERNEL),--kernel $(KERNEL)) $(if $(filter 1,$(DEBUG_BOOT)),--debug-boot) \
	$(if $(RING_TIMEOUT_MS),--ring-timeout-ms $(RING_TIMEOUT_MS)) $(SOAK_FLAGS)
# It starts with FUZZ_SECONDS of the differential fuzz test of the module's
# LZ4 check against liblz4 (make check runs a minute of it on a fixed seed),
# on SEED or a seed taken from the clock, which it prints.
FUZZ_SECONDS ?= 600
soak: all
	$(BUILD)/tests/unit/kmod/ozram-lz4-verify-fuzz --seconds $(FUZZ_SECONDS) \
		--seed $(if $(SEED),$(SEED),$$(date +%s))
	tests/vm/soak --duration $(DURATION) $(SOAK_ARGS)

# The soak on a lockdep and KASAN kernel built from Debian's linux-source-6.1
# (tests/vm/build-kernel-debug; the first build takes long, see
# Documentation/testing.md).  Not part of make check.
soak-debug: all
	tests/vm/soak --debug-kernel --duration $(DURATION) $(SOAK_ARGS)

# make check's soak: two minutes, on the tested kernel its seed picks, so
# that successive runs alternate between them.
soak-check: all
	tests/vm/soak --duration 120 $(if $(KERNEL),,--kernel by-seed) $(SOAK_ARGS)

bench: userspace
	tools/ozram-bench/make-bench

bench-vm: all
	tests/vm/bench-vm
	tests/vm/bench-vm --agent cpu --swap
	tests/vm/run --mem 512 --agent cpu --timeout 1200 --script tests/vm/bench/recompress.sh
	tests/vm/run --mem 512 --agent cpu --no-module --timeout 1800 --script tests/vm/bench/recompress-profile.sh
	tests/vm/run --mem 1024 --agent cpu --timeout 1500 --script tests/vm/bench/kernel-cpu.sh
	tests/vm/run --mem 768 --timeout 1500 --script tests/vm/bench/writeback.sh
	tests/vm/bench-module

demo: all
	tests/vm/demo

gpu-check: userspace
	tests/gpu/gpu-check

# Debian packages: ozram-dkms, ozramd and ozram-tools, built with
# dpkg-buildpackage -b -us -uc in a copy of the tree, into $(BUILD)/deb.
deb: deps
	tools/packaging/build-deb $(BUILD)/deb

# The packages as Debian checks them: lintian with no error or warning, and
# systemd-analyze verify of their units.
deb-check: deb
	tools/packaging/check-deb $(BUILD)/deb

# The packages as a user installs them, on Debian 12 booted with systemd in
# the VM (tests/vm/systemd/run): apt-get install, DKMS's build, the module
# loaded at boot, ozramd under its unit, swap by zram-generator, then purge.
# On SYSTEMD_VM_KERNEL: the newest tested kernel (6.12, Debian 13's) unless
# set; the stages take about 10 minutes on two cores.
SYSTEMD_VM_KERNEL ?= $(lastword $(VM_KERNELS))
systemd-vm-check: deb
	@test -n "$(SYSTEMD_VM_KERNEL)" || { echo "systemd-vm-check: no kernel to test on (tests/vm/kernels)" >&2; exit 1; }
	tests/vm/systemd/run --kernel $(SYSTEMD_VM_KERNEL) --debs $(BUILD)/deb

install: all
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod INSTALL_MOD_PATH=$(DESTDIR) modules_install

format:
	git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i

checkpatch: deps
	tools/checkpatch

clean:
	rm -rf $(BUILD)
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean
