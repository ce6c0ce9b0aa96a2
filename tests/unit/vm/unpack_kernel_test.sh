#!/usr/bin/env bash
# tests/vm/unpack-kernel on bzImages made here: the ELF it writes is the
# payload, whatever of gzip, xz or zstd compresses it, and an image it cannot
# vouch for (no bzImage, a size that does not match, a payload that is not
# ELF, an unknown format) is refused with nothing written.
# $1: tests/vm/unpack-kernel.
set -euo pipefail
unpack=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# le32 N: N as 4 little-endian bytes.
le32() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $((($1 >> 8) & 255)))\\x$(printf %02x $((($1 >> 16) & 255)))\\x$(printf %02x $((($1 >> 24) & 255)))"; }

# make_image OUT PAYLOAD-FILE: a bzImage of one setup sector whose payload
# (at 100 bytes into the protected-mode code) is PAYLOAD-FILE.
make_image() {
	local out=$1 payload=$2
	head -c 1024 /dev/zero >"$out"
	printf '\x01' | dd of="$out" bs=1 seek=$((0x1f1)) conv=notrunc status=none
	printf 'HdrS\x0f\x02' | dd of="$out" bs=1 seek=$((0x202)) conv=notrunc status=none
	{ le32 100 && le32 "$(stat -c %s "$payload")"; } |
		dd of="$out" bs=1 seek=$((0x248)) conv=notrunc status=none
	{ head -c 100 /dev/urandom && cat "$payload" && head -c 64 /dev/urandom; } >>"$out"
}

# payload OUT CONTENT-FILE SIZE COMPRESSOR...: CONTENT-FILE compressed,
# then SIZE as the build appends it.
payload() {
	local out=$1 content=$2 size=$3
	shift 3
	{ "$@" <"$content" && le32 "$size"; } >"$out"
}

# An "ELF kernel": the magic, then bytes that do not compress to nothing.
{ printf '\x7fELF' && head -c 300000 /dev/urandom && head -c 300000 /dev/zero; } >"$dir/elf"
elf_size=$(stat -c %s "$dir/elf")

for tool in "gzip -c" "xz -c" "zstd -qc"; do
	payload "$dir/p" "$dir/elf" "$elf_size" $tool
	make_image "$dir/bzImage" "$dir/p"
	rm -f "$dir/out"
	if "$unpack" "$dir/bzImage" "$dir/out" && cmp -s "$dir/elf" "$dir/out"; then
		echo "ok: ${tool%% *}: the payload, byte for byte"
	else
		fail "${tool%% *}: not the payload"
	fi
done

# refused WHAT IMAGE: unpack-kernel fails on IMAGE and leaves no OUT.
refused() {
	rm -f "$dir/out"
	if "$unpack" "$2" "$dir/out" 2>"$dir/err"; then
		fail "$1: accepted"
	elif [[ -e $dir/out ]] || compgen -G "$dir/out.*" >/dev/null; then
		fail "$1: refused, but left a file behind"
	else
		echo "ok: $1: refused ($(cat "$dir/err"))"
	fi
}

payload "$dir/p" "$dir/elf" $((elf_size + 1)) gzip -c
make_image "$dir/bzImage" "$dir/p"
refused "a size that is not the payload's" "$dir/bzImage"

{ printf 'ELF?' && head -c 1000 /dev/zero; } >"$dir/not-elf"
payload "$dir/p" "$dir/not-elf" 1004 gzip -c
make_image "$dir/bzImage" "$dir/p"
refused "a payload that is not ELF" "$dir/bzImage"

payload "$dir/p" "$dir/elf" "$elf_size" bzip2 -c
make_image "$dir/bzImage" "$dir/p"
refused "a format it does not handle" "$dir/bzImage"

payload "$dir/p" "$dir/elf" "$elf_size" gzip -c
make_image "$dir/bzImage" "$dir/p"
head -c $(($(stat -c %s "$dir/bzImage") - 64 - 1000)) "$dir/bzImage" >"$dir/cut"
refused "a truncated image" "$dir/cut"

refused "not a bzImage" "$dir/elf"

[[ $failures == 0 ]] && echo "all passed"
[[ $failures == 0 ]]
