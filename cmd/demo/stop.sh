#!/bin/sh
# make demo-stop's part for make demo-full: remove what the demo created
# in the root libvirtd -- the keys VM, the sjc-lan network and the pool
# "default" with its volumes, each only when it is the demo's (names are
# fixed by tenants/sjc.cue, and the daemon shares /etc/libvirt and
# /var/lib/libvirt with the host, so anything else is left alone) --
# then stop the daemons it started, by their pids, and remove its state.
# $STATE is one directory for every checkout on the machine: only the
# checkout whose make demo-full started the demo stops it (as make
# demo-vm-stop does its session), unless told --any.
set -u
. "$(dirname "$0")/env.sh"

[ -d "$STATE" ] || exit 0

by=$(cat "$STATE/checkout" 2>/dev/null)
if [ "$by" != "$CHECKOUT" ] && [ "${1:-}" != --any ]; then
	if [ -n "$by" ]; then
		why="make demo-full in $by started it, not this checkout ($CHECKOUT): run make demo-stop there, or if that checkout is gone, stop it from here"
	else
		why="it does not say which checkout started it (one of before make demo-full wrote $STATE/checkout): stop it"
	fi
	echo "demo-full in $STATE not stopped: $why with sh $0 --any"
	exit 0
fi

v() { virsh -q -c "$URI" "$@" >/dev/null 2>&1; }

# ours_vm: the domain carries site's owner marker for tenant sjc.
ours_vm() { virsh -q -c "$URI" dumpxml --inactive keys 2>/dev/null | grep -q 'tenant="sjc"'; }

remove_libvirt() {
	if ours_vm; then
		v destroy keys
		v undefine keys
		rm -f /var/log/libvirt/qemu/keys.log
		echo "removed VM keys"
	fi
	if virsh -q -c "$URI" net-dumpxml --inactive sjc-lan 2>/dev/null | grep -q 'tenant="sjc"'; then
		v net-destroy sjc-lan
		v net-undefine sjc-lan
		# Files libvirt leaves behind (dnsmasq, running as nobody, wrote
		# its pidfile); libvirttest's cleanup removes its networks' too.
		rm -rf /run/libvirt/network/sjc-lan /run/libvirt/network/sjc-lan.pid
		echo "removed network sjc-lan"
	fi
	if virsh -q -c "$URI" pool-dumpxml --inactive default 2>/dev/null | grep -q "<path>$STATE/pool</path>"; then
		v pool-destroy default
		v pool-undefine default
		echo "removed pool default ($STATE/pool)"
	fi
}

# stop PIDFILE NAME: SIGTERM the process, wait up to 10 s for it to go.
stop() {
	[ -f "$1" ] || return 0
	pid=$(cat "$1")
	if kill "$pid" 2>/dev/null; then
		i=0
		while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		echo "$2 stopped"
	fi
	rm -f "$1"
}

# The demo's definitions outlive its daemon (they are in /etc/libvirt):
# when it is not running (killed, or the machine rebooted), start it
# again to remove them, or the next system libvirtd would autostart them.
if ! virsh -q -c "$URI" version >/dev/null 2>&1 && [ -f "$LV/libvirtd.conf" ]; then
	flock -n "$LOCK" true || echo "waiting for the libvirt tests' system daemon to stop ($LOCK)"
	nohup flock -o "$LOCK" "$(dirname "$0")/libvirtd.sh" >>"$LV/libvirtd.log" 2>&1 &
	i=0
	until virsh -q -c "$URI" version >/dev/null 2>&1 || [ "$i" -ge 3000 ]; do sleep 0.1; i=$((i + 1)); done
fi
if [ ! -f "$LV/libvirtd.conf" ]; then
	: # full.sh stopped before it set up its libvirtd: nothing of it to remove
elif virsh -q -c "$URI" version >/dev/null 2>&1; then
	remove_libvirt
else
	# Keep the state: the next make demo-stop tries again.
	echo "demo-stop: the demo's libvirtd did not start (log: $LV/libvirtd.log), so keys, sjc-lan and pool default may remain in /etc/libvirt; run make demo-stop again" >&2
	stop "$STATE/cfserver.pid" "Cloudflare fake"
	stop "$STATE/vault.pid" "Vault dev server"
	exit 1
fi
stop "$LV/libvirtd.pid" "libvirtd"
stop "$LV/virtlogd.pid" "virtlogd"
stop "$STATE/cfserver.pid" "Cloudflare fake"
stop "$STATE/vault.pid" "Vault dev server"
rm -rf "$STATE"
