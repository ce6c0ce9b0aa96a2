# One stage of the systemd VM's test (tests/vm/systemd/run), run as root by
# the root file system's ozram-vm-stage.service once the system is up, with
# sh -e: the first failing command ends the stage.  $1: the stage.  The
# second disk, with the packages, is mounted at $T.
T=/run/ozram-test
EXAMPLES=/usr/share/doc/ozram-dkms/examples
export DEBIAN_FRONTEND=noninteractive PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

step() { echo "== [$(cut -d' ' -f1 /proc/uptime)s] $*"; }
ok() { echo "   ok: $*"; }
fail() {
	echo "FAIL: $*"
	exit 1
}
# check_eq ACTUAL EXPECTED WHAT
check_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
	ok "$3 = '$1'"
}
# wait_for SECONDS WHAT COMMAND...: until COMMAND succeeds.
wait_for() {
	w_limit=$1 w_what=$2
	shift 2
	w_i=0
	until "$@" >/dev/null 2>&1; do
		w_i=$((w_i + 1))
		[ $w_i -le $((w_limit * 2)) ] || fail "$w_what: not within $w_limit s"
		sleep 0.5
	done
	ok "$w_what"
}
# scrape: GET /metrics from the agent's socket unit (bash for /dev/tcp: the
# stage runs under dash); fails when nothing answers.
scrape() {
	timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/9101 &&
		printf "GET /metrics HTTP/1.0\r\n\r\n" >&3 && cat <&3'
}
# scraped: whether a scrape returns the agent's metrics.
scraped() { scrape | grep -q '^# TYPE ozram_agent_batch_pages histogram'; }
# The file system but what changes by itself or is apt's and dpkg's own
# record (/var/backups: dpkg's daily backup of it, which its timer may run
# at any boot): what purging must leave as installing found it.
files() {
	find / -xdev \( -path /proc -o -path /sys -o -path /run -o -path /dev -o -path /tmp \
		-o -path /var/tmp -o -path /var/log -o -path /var/lib/apt -o -path /var/cache/apt \
		-o -path /var/lib/dpkg -o -path /var/backups -o -path /var/cache/debconf \
		-o -path /var/lib/systemd \
		-o -path /var/cache/ldconfig -o -path /var/cache/man -o -path /lost+found \) -prune \
		-o -print | grep -v -e '^/etc/ld\.so\.cache$' | sort
}

case $1 in
install)
	step "a Debian 12 system: systemd as PID 1, kernel $(uname -r)"
	check_eq "$(cat /proc/1/comm)" systemd "PID 1"
	grep -q '^VERSION_CODENAME=bookworm$' /etc/os-release || fail "not Debian 12"
	ok "Debian 12 ($(cat /etc/debian_version))"
	grep -q '^ozram ' /proc/modules && fail "ozram is loaded before the packages are installed"
	files >"$T/files-before"

	step "apt-get install ./ozram-dkms*.deb (the VM has no network: every dependency is installed)"
	apt-get install -y --no-install-recommends "$T"/debs/ozram-dkms_*.deb

	step "DKMS built ozram.ko for the running kernel"
	dkms status ozram
	dkms status -m ozram -k "$(uname -r)" | grep -q ': installed' ||
		fail "dkms status has no installed ozram for $(uname -r)"
	ok "dkms: installed for $(uname -r)"
	# DKMS compresses it as the kernel's own modules are (xz on Debian's 6.12).
	case $(modinfo -n ozram) in
	"/lib/modules/$(uname -r)/updates/dkms/ozram.ko" | "/lib/modules/$(uname -r)/updates/dkms/ozram.ko".*)
		ok "modinfo -n ozram = $(modinfo -n ozram)" ;;
	*) fail "modinfo -n ozram: $(modinfo -n ozram), not DKMS's" ;;
	esac
	check_eq "$(modinfo -F vermagic ozram | cut -d' ' -f1)" "$(uname -r)" "its vermagic"

	step "the module loaded before the agent's package: installing it starts the agent"
	modprobe ozram
	[ -c /dev/ozram-ring ] || fail "no /dev/ozram-ring after modprobe ozram"
	ok "/dev/ozram-ring, created before udev has the package's rule"
	apt-get install -y "$T"/debs/ozramd_*.deb "$T"/debs/ozram-tools_*.deb
	for p in ozram-dkms ozramd ozram-tools; do
		check_eq "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p")" "ii " "dpkg status of $p"
	done
	check_eq "$(systemctl is-enabled ozramd.service)" enabled "systemctl is-enabled ozramd"
	wait_for 60 "ozramd.service is active: the ring device started it" \
		sh -c '[ "$(systemctl is-active ozramd.service)" = active ]'
	wait_for 60 "the agent is attached to the ring" sh -c 'ozramctl agent | grep -q "^agent_state: *attached"'

	step "ozramd purged and installed again, the module loaded: the agent starts again"
	# systemd sees the ring as a device by now: installing the package again
	# must start the agent without the device's "add" event.
	apt-get purge -y ozramd
	wait_for 30 "no agent is attached" sh -c 'ozramctl agent | grep -q "^agent_state: *detached"'
	apt-get install -y "$T"/debs/ozramd_*.deb
	wait_for 60 "ozramd.service is active again" \
		sh -c '[ "$(systemctl is-active ozramd.service)" = active ]'
	wait_for 60 "the agent is attached again" sh -c 'ozramctl agent | grep -q "^agent_state: *attached"'

	step "without the module, the agent's unit is enabled and idle"
	systemctl stop ozramd.service
	rmmod ozram
	grep -q '^ozram ' /proc/modules && fail "ozram is still loaded"
	ok "ozram unloaded"
	sleep 2
	systemctl is-active --quiet ozramd.service && fail "ozramd is active without the module"
	ok "ozramd is not started without the ring device"

	step "the operator's configuration: load ozram at boot, in zram's place, swap by zram-generator"
	cp "$EXAMPLES/modules-load.d/ozram.conf" /etc/modules-load.d/ozram.conf
	cp "$EXAMPLES/modprobe.d/ozram-as-zram.conf" /etc/modprobe.d/ozram-as-zram.conf
	# systemd-zram-generator ships one of its own: kept, to put back at the end.
	cp -p /etc/systemd/zram-generator.conf "$T/zram-generator.conf.orig"
	cat >/etc/systemd/zram-generator.conf <<-CONF
		[zram0]
		zram-size = 256
		compression-algorithm = lz4
	CONF
	ok "modules-load.d/ozram.conf, modprobe.d/ozram-as-zram.conf, zram-generator.conf"
	systemctl enable ozramd-metrics.socket
	ok "ozramd-metrics.socket enabled"
	echo boot >"$T/next-stage"
	;;
boot)
	step "the module loaded at boot (systemd-modules-load, zram-generator), with compat=1"
	grep -q '^ozram ' /proc/modules || fail "ozram is not loaded"
	ok "ozram is loaded"
	check_eq "$(cat /sys/module/ozram/parameters/compat)" Y "/sys/module/ozram/parameters/compat"
	grep -q '^zram ' /proc/modules && fail "stock zram was loaded too"
	ok "stock zram is not loaded"
	check_eq "$(systemctl is-active systemd-modules-load.service)" active "systemd-modules-load.service"

	step "zram-generator set up swap on zram0 at boot"
	wait_for 120 "systemd-zram-setup@zram0.service is active" \
		sh -c '[ "$(systemctl is-active systemd-zram-setup@zram0.service)" = active ]'
	wait_for 120 "zram0 is swap" sh -c 'swapon --show=NAME --noheadings | grep -qx /dev/zram0'
	check_eq "$(cat /sys/block/zram0/disksize)" $((256 * 1048576)) "zram0's disksize"
	grep -q '\[lz4\]' /sys/block/zram0/comp_algorithm || fail "zram0's algorithm is not lz4"
	ok "zram0's algorithm is lz4"
	zramctl

	step "ozramd under its shipped unit, started by the ring device"
	wait_for 60 "ozramd.service is active" sh -c '[ "$(systemctl is-active ozramd.service)" = active ]'
	wait_for 60 "the agent is attached to the ring" sh -c 'ozramctl agent | grep -q "^agent_state: *attached"'
	ozramctl agent
	pid=$(systemctl show -P MainPID ozramd.service)
	check_eq "$(cat /proc/$pid/comm)" ozramd "the unit's main process"
	grep -q '^NoNewPrivs:[[:space:]]*1' /proc/$pid/status || fail "ozramd runs without NoNewPrivileges"
	ok "ozramd runs with NoNewPrivs (the unit's sandbox)"

	step "the metrics socket listens while the agent runs, and a scrape never starts it"
	check_eq "$(systemctl is-active ozramd-metrics.socket)" active "ozramd-metrics.socket, started with the agent"
	wait_for 30 "the agent, under its unit, serves scrapes on the socket systemd passed it" scraped
	systemctl stop ozramd.service
	# The socket's stop is a job of its own, after the service's.
	wait_for 10 "ozramd-metrics.socket stops with the agent" \
		sh -c '[ "$(systemctl is-active ozramd-metrics.socket)" = inactive ]'
	scrape >/dev/null 2>&1 && fail "a scrape was answered with the agent stopped"
	ok "a scrape with the agent stopped is refused"
	sleep 2
	check_eq "$(systemctl is-active ozramd.service)" inactive "ozramd.service after the scrape"
	systemctl start ozramd.service
	check_eq "$(systemctl is-active ozramd-metrics.socket)" active "ozramd-metrics.socket, started again with the agent"
	wait_for 60 "the agent is attached again" sh -c 'ozramctl agent | grep -q "^agent_state: *attached"'
	wait_for 30 "a scrape is answered again" scraped

	step "pages swapped out through the agent read back (tmpfs files larger than the memory left)"
	# What is available now, and 96 MiB more, in 32 MiB files of text that
	# compresses (31 MiB) and random bytes that do not (1 MiB).  The text is
	# numbered lines, made once on the test disk: formatting them costs
	# seconds per file under emulation, copying them a fraction of one.
	# File i starts the text at its own offset, i * (1 MiB - 3) modulo the
	# text's length: -3 * i modulo a page, so that no two files' pages are
	# alike.
	avail_mib=$(($(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) / 1024))
	files=$(((avail_mib + 96 + 31) / 32))
	ok "MemAvailable $avail_mib MiB: writing $files files of 32 MiB"
	text_bytes=$((31 * 1048576))
	# (seq is cut off by head: its "Broken pipe" is expected.)
	seq -s " is a line of a file in tmpfs, written through ozram
" 0 999999 2>/dev/null | head -c $text_bytes >"$T/fill.text"
	mkdir -p /mnt/fill
	mount -t tmpfs -o size=$((files * 32 + 64))M tmpfs /mnt/fill
	before=$(ozramctl stats -j zram0 | tr ',' '\n' | sed -n 's/.*"agent_cpu_pages": *\([0-9]*\).*/\1/p')
	i=0
	while [ $i -lt "$files" ]; do
		offset=$((i * 1048573 % text_bytes))
		{ tail -c +$((offset + 1)) "$T/fill.text"; head -c $offset "$T/fill.text"; head -c 1M /dev/urandom; } >/mnt/fill/f$i
		md5sum /mnt/fill/f$i >>/run/fill.md5
		i=$((i + 1))
	done
	swapped=$(awk '/^SwapTotal/ { t = $2 } /^SwapFree/ { f = $2 } END { print t - f }' /proc/meminfo)
	[ "$swapped" -gt 65536 ] || fail "only $swapped kB went to swap"
	ok "$swapped kB swapped to zram0"
	md5sum -c --quiet /run/fill.md5 || fail "a file read back differs"
	ok "every file read back intact"
	ozramctl stats zram0
	after=$(ozramctl stats -j zram0 | tr ',' '\n' | sed -n 's/.*"agent_cpu_pages": *\([0-9]*\).*/\1/p')
	[ -n "$after" ] || fail "ozramctl stats -j has no agent_cpu_pages"
	[ "$after" -gt "${before:-0}" ] || fail "no page went through the agent ($before, then $after)"
	ok "ozramctl: $((after - ${before:-0})) pages compressed by the agent"
	umount /mnt/fill
	rmdir /mnt/fill
	rm "$T/fill.text"

	step "purge the packages: nothing of them is left"
	swapoff /dev/zram0
	apt-get purge -y ozram-dkms ozramd ozram-tools
	systemctl is-active --quiet ozramd.service && fail "ozramd still runs after the purge"
	ok "ozramd stopped"
	rmmod ozram # modprobe knows it no more: DKMS removed its file
	grep -q '^ozram ' /proc/modules && fail "ozram is still loaded"
	ok "ozram unloaded"
	for p in ozram-dkms ozramd ozram-tools; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' && fail "$p is still installed"
	done
	ok "no ozram package installed"
	known=$(dkms status ozram)
	[ -z "$known" ] || fail "dkms still knows ozram: $known"
	ok "dkms knows no ozram"
	# The operator's own files go too, as the operator removes them.
	rm -f /etc/modules-load.d/ozram.conf /etc/modprobe.d/ozram-as-zram.conf
	cp -p "$T/zram-generator.conf.orig" /etc/systemd/zram-generator.conf
	files >"$T/files-after"
	if ! diff "$T/files-before" "$T/files-after" >"$T/files-diff"; then
		sed 's/^/   /' "$T/files-diff"
		fail "the purge left the file system different from before the install"
	fi
	ok "the file system is as before the install ($(wc -l <"$T/files-after") paths compared)"
	echo done >"$T/next-stage"
	;;
*)
	fail "unknown stage '$1'"
	;;
esac
