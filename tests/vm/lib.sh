# Shared by the host-side VM scripts (run, run-all, bench-vm, demo).
# shellcheck shell=bash

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_ROOT=$(cd "$VM_DIR/../.." && pwd)
VM_OUT=${VM_OUT:-$VM_DIR/out}

# The guest kernel: $KVER when set (the top-level Makefile exports the one it
# builds the module for), otherwise the newest kernel that has both an image in
# /boot and its modules in /lib/modules.
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

vm_die() {
	echo "${0##*/}: $*" >&2
	exit 1
}
