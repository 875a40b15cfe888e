#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The packages as installed, inside the guest of tests/pkg/installed.sh:
# run at each boot by pkgtest.service, its lines "PKGTEST ..." on the
# serial console and in /root/pkgtest/results.  Boot 1: dpkg -i of
# iolat-dkms and iolat (DKMS builds the module for the running kernel),
# the service enabled, started, ready, serving, scraped by Debian's
# Prometheus, reloaded; then a reboot.  Boot 2: module and service back
# by themselves; the module unloaded and loaded again under the service,
# which is then restarted.  If the image has a newer kernel to go to ($dir/next,
# installed beside the first: DKMS built the module for it too), power
# off for the host to boot that one, and boot 3 finds module and service
# back on it.  Then apt-get purge leaves no module, no DKMS tree, no
# unit, no settings, and stops the service; then power off.

exec >/dev/ttyS0 2>&1
dir=/root/pkgtest
state=$dir/state
kver=$(uname -r)
fails=0

# on the console as it goes, and in a file the host reads afterwards,
# each line with the boot's uptime: where the guest's time goes
say() { echo "PKGTEST $* [$(cut -d' ' -f1 /proc/uptime) s]" | tee -a $dir/results; }
check() {
	what=$1
	shift
	if "$@" >>$dir/checks.log 2>&1; then
		say "ok: $what"
	else
		say "FAIL: $what"
		fails=$((fails + 1))
	fi
}
# The value of a sample of http://127.0.0.1:PORT/PATH, or nothing.
sample() {
	python3 - "$1" "$2" <<'PY'
import sys, urllib.request
try:
    body = urllib.request.urlopen(sys.argv[1], timeout=30).read().decode()
except OSError:
    sys.exit(0)
for line in body.splitlines():
    if line.startswith(sys.argv[2] + " "):
        print(line.split()[1])
PY
}
# Until the exporter has counted at least $1 reads of vda, or 5 minutes.
reads_at_least() {
	i=0
	while [ $i -lt 600 ]; do
		v=$(sample http://127.0.0.1:9301/metrics 'iolat_requests_total{device="vda",op="read"}')
		[ -n "$v" ] && [ "${v%%.*}" -ge "$1" ] && return 0
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}
# Until Prometheus holds the exporter's count of vda's reads at $1 or
# more, or 5 minutes; with $2 = native, the count of its native
# histogram of their Q2C times.
prometheus_has() {
	python3 - "$1" "${2:-}" <<'PY'
import json, sys, time, urllib.parse, urllib.request
q = 'iolat_requests_total{device="vda",op="read"}'
if sys.argv[2] == "native":
    q = 'histogram_count(iolat_request_duration_seconds{device="vda",op="read",stage="Q2C"})'
q = urllib.parse.quote(q)
for i in range(600):
    try:
        r = json.load(urllib.request.urlopen("http://127.0.0.1:9090/api/v1/query?query=" + q, timeout=30))
        res = r["data"]["result"]
        if res and float(res[0]["value"][1]) >= float(sys.argv[1]):
            print("prometheus:", res[0]["metric"], res[0]["value"][1])
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.5)
sys.exit(1)
PY
}
no_file() { ! ls -d "$@" 2>/dev/null | grep -q .; }
# After a boot: the module and the service back by themselves, counting.
back() {
	check "the module back at boot (modules-load.d)" sh -c 'lsmod | grep -q "^iolat "'
	check "iolat-exporter.service back at boot" systemctl is-active -q iolat-exporter
	dd if=/dev/vda of=/dev/null bs=4k count=100 iflag=direct status=none
	check "/metrics counts vda's reads again" reads_at_least 100
}
# Until the exporter's journal has the line $1, or 5 minutes.
journal_has() {
	i=0
	while [ $i -lt 600 ]; do
		journalctl -u iolat-exporter --no-pager | grep -q "$1" && return 0
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}
# Is $1 < $2 (decimal numbers)?
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# The module unloaded and loaded again under the service: the exporter
# waits for it, saying so in the journal, serves what it had counted
# meanwhile, and once the module is back traces again, its counters
# from zero (Prometheus's counter reset) and its session's start time
# later; then a restart of the service.
module_reload() {
	t0=$(sample http://127.0.0.1:9301/metrics iolat_exporter_session_start_time_seconds)
	n0=$(sample http://127.0.0.1:9301/metrics 'iolat_requests_total{device="vda",op="read"}')
	check "rmmod iolat under the service" rmmod iolat
	check "the journal: waiting for the module" journal_has "waiting for the iolat module to be loaded again"
	check "the counts kept while the module is away" reads_at_least "${n0%%.*}"
	check "modprobe iolat" modprobe iolat
	check "the journal: the module is back, counters from zero" journal_has "the iolat module is back: tracing again"
	t1=$(sample http://127.0.0.1:9301/metrics iolat_exporter_session_start_time_seconds)
	n1=$(sample http://127.0.0.1:9301/metrics 'iolat_requests_total{device="vda",op="read"}')
	check "a new session: its start time later ($t0, $t1)" less "$t0" "$t1"
	check "its counts from zero ($n0, then $n1)" less "$n1" "$n0"
	dd if=/dev/vda of=/dev/null bs=4k count=50 skip=1000 iflag=direct status=none
	check "counting again" reads_at_least $((${n1%%.*} + 50))
	check "systemctl restart iolat-exporter: ready" systemctl restart iolat-exporter
	dd if=/dev/vda of=/dev/null bs=4k count=50 skip=2000 iflag=direct status=none
	check "counting after the restart" reads_at_least 50
}
# The flight recorder's service (installed, not enabled): started with
# its settings, armed; `iolat watch --dump` from a shell makes a dump in
# its state directory, which report reads; stopped.
watch_service() {
	check "iolat-watch.service installed, not enabled" sh -c 'test "$(systemctl is-enabled iolat-watch)" = disabled'
	sed -i 's|^IOLAT_WATCH_OPTS=.*|IOLAT_WATCH_OPTS="-d vda --slower-than 10s --before 5 --after 1 -w /var/lib/iolat/watch"|' /etc/iolat/watch.conf
	check "systemctl start iolat-watch: ready (Type=notify)" systemctl start iolat-watch
	dd if=/dev/vda of=/dev/null bs=4k count=50 skip=3000 iflag=direct status=none
	check "iolat watch --dump: a dump of vda's reads" sh -c '
		iolat watch --dump || exit 1
		for i in $(seq 300); do
			f=$(ls /var/lib/iolat/watch/*.rec 2>/dev/null) && [ -n "$f" ] &&
				iolat report -o json $f | grep -q "\"reason\": \"asked\"" && exit 0
			sleep 1
		done
		exit 1'
	check "systemctl stop iolat-watch" systemctl stop iolat-watch
}
# Everything gone with the packages; then off.
purge() {
	check "apt-get purge iolat iolat-dkms" env DEBIAN_FRONTEND=noninteractive apt-get -y -q purge iolat iolat-dkms
	check "no module file left" no_file /lib/modules/*/updates/dkms/iolat.ko*
	check "no DKMS tree left" no_file /var/lib/dkms/iolat /usr/src/iolat-*
	check "no unit left" no_file /lib/systemd/system/iolat-exporter.service \
		/etc/systemd/system/*/iolat-exporter.service \
		/lib/systemd/system/iolat-watch.service
	check "no settings left" no_file /etc/iolat /usr/lib/modules-load.d/iolat.conf
	check "the service stopped" sh -c '! systemctl is-active -q iolat-exporter'
	echo done >$state
	say "done: $fails failed"
	systemctl --no-block poweroff
}
next=$(cat $dir/next 2>/dev/null)

case $(cat $state 2>/dev/null) in
"")
	say "boot 1: $kver, $(systemctl --version | head -n 1)"
	check "dpkg -i iolat-dkms iolat" dpkg -i $dir/iolat-dkms_*_all.deb $dir/iolat_*_amd64.deb
	check "DKMS built and installed iolat for $kver" sh -c "dkms status iolat | grep -q \"$kver.*installed\""
	check "iolat.ko in /lib/modules/$kver/updates/dkms" sh -c "ls /lib/modules/$kver/updates/dkms/iolat.ko*"
	if [ -n "$next" ]; then
		check "DKMS built iolat for $next too (the newest kernel installed)" \
			sh -c "dkms status iolat | grep -q \"$next.*installed\" && ls /lib/modules/$next/updates/dkms/iolat.ko*"
	fi
	check "iolat-exporter.service enabled" sh -c 'test "$(systemctl is-enabled iolat-exporter)" = enabled'
	check "not started at install" sh -c '! systemctl is-active -q iolat-exporter'
	check "systemctl start: ready (Type=notify)" systemctl start iolat-exporter
	check "the module loaded by the service" sh -c 'lsmod | grep -q "^iolat "'
	check "the exporter's capabilities: CAP_PERFMON, CAP_SYS_ADMIN at most" sh -c '
		pid=$(systemctl show -p MainPID --value iolat-exporter)
		eff=$(sed -n "s/^CapEff:[[:space:]]*//p" /proc/$pid/status)
		test $((0x$eff & ~(1 << 38 | 1 << 21))) = 0'
	dd if=/dev/vda of=/dev/null bs=4k count=300 iflag=direct status=none
	check "/metrics counts vda's 300 reads" reads_at_least 300
	# Debian's own Prometheus service, told to scrape the exporter
	cat >/etc/prometheus/prometheus.yml <<'YML'
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: iolat
    static_configs:
      - targets: ['127.0.0.1:9301']
YML
	# with native histograms (the protobuf exposition)
	echo 'ARGS="--enable-feature=native-histograms"' >/etc/default/prometheus
	systemctl restart prometheus
	check "Debian's Prometheus scrapes them" prometheus_has 300
	check "Debian's Prometheus stores their native histogram" prometheus_has 300 native
	systemctl stop prometheus
	sed -i 's/^IOLAT_EXPORT_OPTS=.*/IOLAT_EXPORT_OPTS="--listen 127.0.0.1:9301 -i 5"/' /etc/iolat/exporter.conf
	check "systemctl reload: applied" sh -c 'systemctl reload iolat-exporter && sleep 1 &&
		journalctl -u iolat-exporter --no-pager | grep -q "exporter.conf reloaded"'
	check "the counts kept across the reload" reads_at_least 300
	echo 1 >$state
	say "boot 1: $fails failed; rebooting"
	echo $fails >$dir/fails1
	systemctl --no-block reboot
	;;
1)
	say "boot 2: $kver"
	fails=$(cat $dir/fails1)
	back
	module_reload
	watch_service
	if [ -z "$next" ]; then
		purge
	else
		echo 2 >$state
		echo $fails >$dir/fails1
		say "boot 2: $fails failed; off, for the host to boot $next"
		systemctl --no-block poweroff
	fi
	;;
2)
	say "boot 3: $kver"
	fails=$(cat $dir/fails1)
	check "booted $next" test "$kver" = "$next"
	back
	purge
	;;
*)
	say "done already"
	systemctl --no-block poweroff
	;;
esac
