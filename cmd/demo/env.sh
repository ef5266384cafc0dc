# Shared by full.sh and stop.sh: where make demo-full keeps its state
# and how it reaches its services. STATE is also written in site.cue
# beside this file (the pool and the image's source): keep them equal.
STATE=/var/tmp/site-demo-full
# DEMO_STATE moves it for the tests of stop.sh only (TestDemoFullStopOnlyOwn):
# site.cue names its paths under the STATE above, and full.sh refuses it.
STATE=${DEMO_STATE:-$STATE}
LV=$STATE/libvirt # the root libvirtd's socket, config, pidfile and log
SOCK=$LV/libvirt-sock
URI="qemu:///system?socket=$SOCK"
# The lock libvirttest.StartSystem takes: one system daemon at a time.
LOCK=/run/lock/site-libvirttest-system.lock
CONFIG=cmd/demo/site.cue
CF_URL=http://127.0.0.1:8082
# The checkout these scripts are in: STATE is one directory for every
# checkout on the machine, and full.sh writes in $STATE/checkout which
# one started the demo, so that only its stop.sh stops it.
CHECKOUT=$(cd "$(dirname "$0")/../.." && pwd -P)

: "${GO:=go}" "${TAGS:=libvirt_dlopen}" "${BIN:=bin/site}"
: "${VAULT_BIN:=${XDG_CACHE_HOME:-$HOME/.cache}/site-test/vault-v1.21.0/vault}"
# The dev server's root token: a demo value, in memory only.
export VAULT_ADDR=http://127.0.0.1:8200 VAULT_TOKEN=demo-root
export SITE_LIBVIRT_URI_MAP="qemu:///system=$URI"
# TCG unless told otherwise: it runs everywhere, and this machine's
# /dev/kvm (a nested kvm-pvm) boots only paravirtualised kernels.
export SITE_LIBVIRT_DOMAIN_TYPE="${SITE_LIBVIRT_DOMAIN_TYPE:-qemu}"

# sock_alive PATH: a daemon accepts connections on the unix socket PATH
# (curl exits 7 only when it cannot connect).
sock_alive() {
	rc=0
	curl -s -m 2 --unix-socket "$1" -o /dev/null http://localhost/ 2>/dev/null || rc=$?
	[ "$rc" != 7 ]
}
