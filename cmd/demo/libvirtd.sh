#!/bin/sh
# Runs under flock on the libvirt tests' lock (full.sh starts it so):
# virtlogd unless one answers -- checked here, under the lock, since a
# test's daemon stops its virtlogd when it ends -- then libvirtd itself,
# whose exit releases the lock.
set -eu
. "$(dirname "$0")/env.sh"
if ! sock_alive /run/libvirt/virtlogd-sock; then
	printf 'log_outputs = "3:stderr"\n' >"$LV/virtlogd.conf"
	virtlogd -f "$LV/virtlogd.conf" -p "$LV/virtlogd.pid" >>"$LV/virtlogd.log" 2>&1 &
	i=0
	until sock_alive /run/libvirt/virtlogd-sock || [ "$i" -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
fi
exec libvirtd -f "$LV/libvirtd.conf" -p "$LV/libvirtd.pid"
