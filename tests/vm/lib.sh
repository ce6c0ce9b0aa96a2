# Shared by the host-side VM scripts (run, run-all, bench-vm, demo).
# shellcheck shell=bash

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_ROOT=$(cd "$VM_DIR/../.." && pwd)
VM_OUT=${VM_OUT:-$VM_DIR/out}

# The guest kernel: $KVER when set (the top-level Makefile exports the one it
# builds the module for), otherwise the newest kernel that has both an image in
# /boot and its modules in /lib/modules.  A kernel built elsewhere (the soak's
# debug kernel, build-kernel-debug) is named by KVER with VM_KERNEL (its
# image) and VM_MODULES_ROOT (the root its lib/modules/KVER lies under).
vm_kver() {
	if [[ -n ${KVER:-} ]]; then
		echo "$KVER"
		return
	fi
	local v best=
	for v in $(ls /lib/modules 2>/dev/null | sort -V); do
		[[ -r /boot/vmlinuz-$v && -d /lib/modules/$v/kernel ]] && best=$v
	done
	[[ -n $best ]] || { echo "no kernel with /boot/vmlinuz-* and /lib/modules/*/kernel" >&2; return 1; }
	echo "$best"
}

# vm_kernel_image KVER: the image the VM boots.
vm_kernel_image() { echo "${VM_KERNEL:-/boot/vmlinuz-$1}"; }
# vm_moddir KVER: where that kernel's modules are.
vm_moddir() { echo "${VM_MODULES_ROOT:-}/lib/modules/$1"; }

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
