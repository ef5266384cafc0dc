#!/bin/sh
# make demo-full: start a real Vault dev server, the Cloudflare FAKE and
# a root libvirtd on a socket of the demo's own (each only when it is not
# running yet), store the Cloudflare token in Vault, apply tenants/sjc.cue
# whole from nothing -- its network, pool, base image, VM and zone --
# wait for the VM to boot and take its DHCP lease, and show that a
# second diff is converged. Everything keeps running; make demo-stop
# (cmd/demo/stop.sh) stops it and removes what it created.
#
# The Makefile sets BIN (site), VAULT_BIN (the vault binary), GO and TAGS.
set -eu
# The daemons inherit this umask: libvirtd writes the DHCP hosts file of
# sjc-lan with it, and its dnsmasq, running as nobody, must read it, or
# keys does not get its reserved address.
umask 022

. "$(dirname "$0")/env.sh"

say() { printf '== %s\n' "$*"; }
die() { printf 'demo-full: %s\n' "$*" >&2; exit 1; }

preflight() {
	[ "$(id -u)" = 0 ] || die "run as root: the root libvirtd makes the bridge, runs dnsmasq and writes iptables rules for sjc-lan"
	for bin in libvirtd virtlogd virsh qemu-system-x86_64 dnsmasq iptables flock curl; do
		command -v "$bin" >/dev/null || die "$bin not found: run make deps"
	done
	id libvirt-qemu >/dev/null 2>&1 || die "no user libvirt-qemu (a root libvirtd exits without it): run make deps"
	if [ "$SITE_LIBVIRT_DOMAIN_TYPE" = kvm ] && [ ! -c /dev/kvm ]; then
		die "SITE_LIBVIRT_DOMAIN_TYPE=kvm, but there is no /dev/kvm: unset it to run the guest under TCG"
	fi
	[ -x "$VAULT_BIN" ] || die "no Vault binary at $VAULT_BIN: run make vault-server (builds it, about 20 CPU-minutes)"
	if sock_alive /run/libvirt/libvirt-sock; then
		die "this host runs its own system libvirtd (/run/libvirt/libvirt-sock); the demo's would share its state. Point SITE_LIBVIRT_URI_MAP at it instead, or run the demo where none runs"
	fi
	[ -z "${DEMO_STATE:-}" ] || die "DEMO_STATE is for the tests of stop.sh: site.cue names the demo's paths under /var/tmp/site-demo-full; unset it"
	if [ -d "$STATE" ]; then
		by=$(cat "$STATE/checkout" 2>/dev/null || true)
		[ "$by" = "$CHECKOUT" ] ||
			say "make demo-full in ${by:-a checkout it does not name} started the demo in $STATE: using it; make demo-stop here will not stop it, run it where it was started"
	else
		mkdir -p "$STATE"
		echo "$CHECKOUT" >"$STATE/checkout"
	fi
	mkdir -p "$LV"
	chmod 755 "$STATE" # QEMU runs as libvirt-qemu and reads the pool below
}

start_vault() {
	if curl -sf -o /dev/null "$VAULT_ADDR/v1/sys/health"; then
		say "Vault dev server runs already on $VAULT_ADDR" && return 0
	fi
	# A dev server: in memory, unsealed, HTTP, KV v2 at secret/. Its root
	# token comes from the environment, not the command line.
	VAULT_DEV_ROOT_TOKEN_ID="$VAULT_TOKEN" nohup "$VAULT_BIN" server -dev \
		-dev-listen-address="${VAULT_ADDR#http://}" >"$STATE/vault.log" 2>&1 &
	echo $! >"$STATE/vault.pid"
	wait_for "Vault" 100 curl -sf -o /dev/null "$VAULT_ADDR/v1/sys/health"
	say "Vault $(vault_version) dev server (real) on $VAULT_ADDR, pid $(cat "$STATE/vault.pid")"
}

start_cf() {
	# A subshell, so the umask stays the daemons' (see above).
	[ -s "$STATE/cf-token" ] || (umask 077 && head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$STATE/cf-token")
	if curl -s -o /dev/null "$CF_URL/zones"; then
		say "Cloudflare FAKE runs already on $CF_URL" && return 0
	fi
	$GO build -tags "$TAGS" -o "$STATE/cfserver" ./backends/cloudflare/cftest/cfserver
	CFTEST_TOKEN="$(cat "$STATE/cf-token")" nohup "$STATE/cfserver" -listen "${CF_URL#http://}" \
		-zone sjc.example.net >"$STATE/cfserver.log" 2>&1 &
	echo $! >"$STATE/cfserver.pid"
	wait_for "the Cloudflare fake" 100 curl -s -o /dev/null "$CF_URL/zones"
	say "Cloudflare FAKE (backends/cloudflare/cftest, not Cloudflare) on $CF_URL, zone sjc.example.net, pid $(cat "$STATE/cfserver.pid")"
}

store_token() {
	# Read from stdin (token=-), so the token is on no command line.
	"$VAULT_BIN" kv put -mount=secret dns/cloudflare token=- <"$STATE/cf-token" >/dev/null
	say "vault kv put -mount=secret dns/cloudflare token=-   (the fake's token, from $STATE/cf-token)"
}

# start_libvirtd mirrors libvirttest.StartSystem: libvirtd as root in
# system mode with unix_sock_dir of its own and virtlogd unless one runs
# (libvirtd.sh), with the tests' lock held while it runs (flock), since
# a second system daemon would share /etc/libvirt, /var/lib/libvirt and
# /run/libvirt.
start_libvirtd() {
	if virsh -q -c "$URI" version >/dev/null 2>&1; then
		say "libvirtd runs already on $SOCK" && return 0
	fi
	printf 'unix_sock_dir = "%s"\nauth_unix_rw = "none"\nauth_unix_ro = "none"\nlog_outputs = "3:stderr"\n' "$LV" >"$LV/libvirtd.conf"
	if ! flock -n "$LOCK" true; then
		say "waiting for the libvirt tests' system daemon to stop ($LOCK)"
	fi
	nohup flock -o "$LOCK" "$(dirname "$0")/libvirtd.sh" >"$LV/libvirtd.log" 2>&1 &
	wait_for "libvirtd" 3000 virsh -q -c "$URI" version
	say "libvirtd (real, root, system mode) on $LV/libvirt-sock, pid $(cat "$LV/libvirtd.pid")"
}

# wait_for NAME TENTHS CMD... runs CMD every 0.1 s until it succeeds.
wait_for() {
	name=$1 n=$2
	shift 2
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt "$n" ] || die "$name did not come up; its log is in $STATE"
		sleep 0.1
	done
}

vault_version() { "$VAULT_BIN" version | cut -d' ' -f2 | tr -d ,; }

site() { echo "\$ site $*"; "$BIN" "$@"; }

converge() {
	"$GO" run -tags "$TAGS" ./backends/libvirt/libvirttest/mkbootimage -o "$STATE/boot.img" | sed 's/^/== /'
	say "a tiny busybox image stands in for debian-12.qcow2 (no network here to download Debian's)"
	site vet --config "$CONFIG" ./tenants/...
	rc=0
	site diff --config "$CONFIG" --detailed-exitcode tenants/sjc.cue || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 2 ] || die "site diff failed (exit $rc)"
	# The cold start of INCIDENTS.md 1: the store's public name is not in
	# DNS yet (and nothing resolves here), so site reads the token from
	# the store's next address.
	getent hosts keys.sjc.example.net >/dev/null ||
		say "keys.sjc.example.net does not resolve: site falls back to the store's next address, $VAULT_ADDR"
	site apply --config "$CONFIG" tenants/sjc.cue
}

# wait_lease waits for the keys VM's NIC to take a DHCP lease on
# sjc-lan: the guest booted, and the lease's hostname, which only the
# seed's meta-data holds, shows it read its seed.
wait_lease() {
	say "waiting for the keys VM to boot and take a DHCP lease on sjc-lan"
	mac=$(virsh -q -c "$URI" domiflist keys | awk '$3 == "sjc-lan" { print $5 }')
	i=0
	until virsh -q -c "$URI" net-dhcp-leases sjc-lan --mac "$mac" 2>/dev/null | grep -q ipv4; do
		i=$((i + 1))
		[ "$i" -lt 300 ] || die "no DHCP lease for keys ($mac) after 5 minutes; QEMU's log: /var/log/libvirt/qemu/keys.log"
		sleep 1
	done
	echo "\$ virsh net-dhcp-leases sjc-lan --mac $mac"
	virsh -c "$URI" net-dhcp-leases sjc-lan --mac "$mac" | sed '/^$/d'
	LEASE=$(virsh -q -c "$URI" net-dhcp-leases sjc-lan --mac "$mac" | awk '{ print $5 }')
	case $LEASE in
	10.77.0.13/*) ;;
	*)
		hosts=/var/lib/libvirt/dnsmasq/sjc-lan.hostsfile
		user=$(ps -o user= -p "$(cat /run/libvirt/network/sjc-lan.pid)" 2>/dev/null || echo '?')
		die "keys leased $LEASE, not its reserved 10.77.0.13 (virsh net-dumpxml sjc-lan): libvirt's dnsmasq runs as $user; its hosts file $hosts is mode $(stat -c '%a %U' "$hosts")"
		;;
	esac
}

preflight
start_vault
start_cf
store_token
start_libvirtd
converge
wait_lease
site diff --config "$CONFIG" --detailed-exitcode tenants/sjc.cue
cat <<EOF
== converged. Real: Vault $(vault_version) (dev server), libvirtd + QEMU, the sjc-lan network
   with its dnsmasq, the keys VM (booted, leased $LEASE). Test servers:
   Cloudflare is the FAKE of backends/cloudflare/cftest; debian-12.qcow2 is a
   tiny busybox image, not Debian. Everything keeps running: make demo-stop.
EOF
