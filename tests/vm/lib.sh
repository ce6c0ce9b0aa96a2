# Shared by the host-side VM scripts (run, run-all, bench-vm, demo).
# shellcheck shell=bash

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_ROOT=$(cd "$VM_DIR/../.." && pwd)
VM_OUT=${VM_OUT:-$VM_DIR/out}

# The kernel series ozram is built and tested for, oldest first: Debian
# 12's linux-image-amd64, and Debian 13's kernel (in Debian 12 from
# bookworm-backports or linux-image-6.12-amd64).  The first is the default.
VM_SERIES=(6.1 6.12)

# vm_installed_kver SERIES: the newest kernel of SERIES (6.1: 6.1.0-*, 6.12:
# 6.12.*) that has an image in /boot, its modules and its headers; fails if
# there is none.  PREEMPT_RT kernels are never picked: the module refuses
# them.
vm_installed_kver() {
	local v best=
	for v in $(ls /lib/modules 2>/dev/null | sort -V); do
		[[ $v == "$1".* && $v != *-rt-* ]] || continue
		[[ -r /boot/vmlinuz-$v && -d /lib/modules/$v/kernel && -d /lib/modules/$v/build ]] && best=$v
	done
	[[ -n $best ]] && echo "$best"
}

# The guest kernel: $KVER when set (tests/vm/run --kernel, or the top-level
# Makefile, which exports the one it builds the module for), otherwise the
# newest installed kernel of the first series, else the newest kernel that
# has both an image in /boot and its modules in /lib/modules.  A kernel
# built elsewhere (the soak's debug kernel, build-kernel-debug) is named by
# KVER with VM_KERNEL (its image) and VM_MODULES_ROOT (the root its
# lib/modules/KVER lies under).
vm_kver() {
	if [[ -n ${KVER:-} ]]; then
		echo "$KVER"
		return
	fi
	local v best=
	if best=$(vm_installed_kver "${VM_SERIES[0]}"); then
		echo "$best"
		return
	fi
	for v in $(ls /lib/modules 2>/dev/null | sort -V); do
		[[ -r /boot/vmlinuz-$v && -d /lib/modules/$v/kernel ]] && best=$v
	done
	[[ -n $best ]] || { echo "no kernel with /boot/vmlinuz-* and /lib/modules/*/kernel" >&2; return 1; }
	echo "$best"
}

# vm_module_for KVER: the ozram.ko to test on KVER: kmod/ozram.ko when it
# was built for KVER ('make kmod'), otherwise one build-kmod builds for it.
vm_module_for() {
	local built
	built=$(modinfo -F vermagic "$VM_ROOT/kmod/ozram.ko" 2>/dev/null | cut -d' ' -f1)
	if [[ $built == "$1" ]]; then
		echo "$VM_ROOT/kmod/ozram.ko"
	else
		KVER=$1 "$VM_DIR/build-kmod"
	fi
}

# vm_kernel_image KVER: the image the VM boots.  For an installed kernel
# built with CONFIG_PVH, that is the ELF kernel its bzImage carries,
# unpacked once into $VM_OUT (tests/vm/unpack-kernel says why); when it
# cannot be unpacked, and for a kernel named by VM_KERNEL, the image itself.
vm_kernel_image() {
	local image=/boot/vmlinuz-$1 elf=$VM_OUT/vmlinux-$1 from
	if [[ -n ${VM_KERNEL:-} ]]; then
		echo "$VM_KERNEL"
		return
	fi
	if ! grep -q -s '^CONFIG_PVH=y' "/boot/config-$1"; then
		echo "$image"
		return
	fi
	from=$(stat -c '%s %Y' "$image" 2>/dev/null) || { echo "$image" && return; }
	if [[ ! -r $elf || ! -r $elf.from || $(cat "$elf.from") != "$from" ]]; then
		mkdir -p "$VM_OUT"
		rm -f "$elf.from"
		if ! "$VM_DIR/unpack-kernel" "$image" "$elf"; then
			echo "${0##*/}: booting $image as it is" >&2
			echo "$image"
			return
		fi
		echo "$from" >"$elf.from"
	fi
	echo "$elf"
}
# vm_moddir KVER: where that kernel's modules are.
vm_moddir() { echo "${VM_MODULES_ROOT:-}/lib/modules/$1"; }

# vm_boot_fault CONSOLE MARKER: whether a VM run that failed did so in the
# emulated kernel's own boot, before its test began: CONSOLE (the run's
# console log) has no MARKER line, which the guest prints as its test
# starts, and nothing in it shows ozram.ko loaded: no "ozram:" message, no
# oops that lists ozram among its modules, no frame of it in a trace.  Such
# a failure (a panic of qemu's emulated CPUs while the kernel boots) says
# nothing about the test, and the callers boot once more.  A missing
# CONSOLE is such a failure too: the VM printed nothing.
vm_boot_fault() {
	local console=$1 marker=$2
	[[ -r $console ]] || return 0
	grep -a -q -F -- "$marker" "$console" && return 1
	! grep -a -q -E '(^|[^[:alnum:]_-])ozram[[:alnum:]_]*: |\[ozram\]|Modules linked in:.*(^|[^[:alnum:]_-])ozram(\(| |$)' "$console"
}

vm_die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# vm_copy_program ROOT PROG DIR: copies the host program PROG into ROOT/DIR
# with the shared libraries and the dynamic loader that ldd lists for it, at
# their host paths under ROOT.  Fails if ldd reports a library not found.
vm_copy_program() {
	local root=$1 prog=$2 dir=$3 lib libs
	libs=$(ldd "$prog" 2>&1) || true
	if grep -q 'not found' <<<"$libs"; then
		echo "${0##*/}: $prog: shared libraries not found:" >&2
		grep 'not found' <<<"$libs" >&2
		return 1
	fi
	mkdir -p "$root/$dir"
	cp --remove-destination "$prog" "$root/$dir/"
	for lib in $(awk '/=>/ && $3 ~ /^\// { print $3 } /^\t\// { print $1 }' <<<"$libs"); do
		[[ -e $root$lib ]] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
