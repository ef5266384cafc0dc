# site — build, test, benchmark and demo targets.
#
#   make demo    install what is missing for DNS (PowerDNS, curl, dig; no
#                libvirt or QEMU), start a local PowerDNS on loopback,
#                apply tenants/office1.cue's DNS and show the diff converged
#   make demo-full  (root) make demo, then a Vault dev server, the Cloudflare
#                fake and a root libvirtd; apply tenants/sjc.cue whole from a
#                cold start until its VM boots; make demo-stop undoes it all
#   make test    install what is missing, then run every test (real PowerDNS,
#                real libvirt + QEMU, a real Vault dev server, a fake
#                Cloudflare)
#
# libvirt is loaded at run time (build tag libvirt_dlopen), so the binary
# builds without libvirt-dev and `site vet` runs where libvirt is absent.

GO        ?= go
TAGS      ?= libvirt_dlopen
BIN       ?= bin/site
# VERSION: git describe's; empty outside a git checkout, and site then
# reports the module's build info (site help install).
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null)
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CUE_VERSION := v0.17.1

# Debian packages, in three lists so that each target installs only what
# it needs. DEMO_PKGS: make demo (DNS only) runs PowerDNS with its SQLite
# backend, polls its API with curl and asks it with dig; nothing of
# libvirt: the binary loads libvirt only at run time, and only for VMs.
# VM_PKGS: make demo-vm, demo-full and the tests run libvirtd and QEMU
# (dnsmasq-base and iptables: the system libvirtd the network tests
# start runs NAT networks with them; busybox-static: its udhcpc takes a
# real DHCP lease from such a network, and it is the userland of the
# boot image the guest tests build, with the kernel of
# linux-image-cloud-amd64 and syslinux on a FAT file system made with
# dosfstools and mtools; busybox-static replaces the dynamic busybox;
# iproute2: the tests make a host bridge for a bridged network with ip
# link). TEST_PKGS: the tests alone (pdns-backend-lmdb: a PowerDNS that
# stores no rrset comments, so no owner markers, for the test of what
# site says about it).
DEMO_PKGS := pdns-server pdns-backend-sqlite3 sqlite3 bind9-dnsutils ca-certificates curl
VM_PKGS   := libvirt-daemon libvirt-clients qemu-system-x86 qemu-utils libvirt0 \
             dnsmasq-base iptables busybox-static iproute2 \
             linux-image-cloud-amd64 syslinux mtools dosfstools
TEST_PKGS := pdns-backend-lmdb
DEB_PKGS  := $(DEMO_PKGS) $(VM_PKGS) $(TEST_PKGS)

.PHONY: all build test lint bench demo demo-vm demo-full demo-stop demo-vm-stop deps deps-demo clean vault-server

all: build

build:
	$(GO) build -tags $(TAGS) -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/site

# install-missing installs the Debian packages of $(1) that are missing,
# and nothing when none is. policy-rc.d keeps the packages' own services
# (pdns on port 53) from starting.
define install-missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d'; \
		$(SUDO) apt-get update -q; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
		$(SUDO) rm -f /usr/sbin/policy-rc.d; \
	fi
endef

# deps-demo installs what make demo needs (DNS only).
deps-demo:
	$(call install-missing,$(DEMO_PKGS))

# deps installs everything the tests, make demo-vm and make demo-full
# need, and the user and device QEMU runs with.
deps:
	$(call install-missing,$(DEB_PKGS))
	@# A root libvirtd resolves its QEMU user libvirt-qemu at start and exits
	@# without it (libvirt-daemon-system would create it, but pulls systemd).
	@# QEMU runs as that user: give it /dev/kvm as Debian's udev rule does
	@# (group kvm), or libvirt re-probes QEMU on every start (~20 s each).
	@getent group libvirt-qemu >/dev/null || $(SUDO) groupadd --system libvirt-qemu
	@id libvirt-qemu >/dev/null 2>&1 || $(SUDO) useradd --system -g libvirt-qemu -d /var/lib/libvirt -s /usr/sbin/nologin -M libvirt-qemu
	@if [ -c /dev/kvm ]; then \
		getent group kvm >/dev/null || $(SUDO) groupadd --system kvm; \
		id -nG libvirt-qemu | grep -qw kvm || $(SUDO) usermod -aG kvm libvirt-qemu; \
		[ "$$(stat -c %G /dev/kvm)" = kvm ] || [ "$$(stat -c %a /dev/kvm)" = 666 ] || { $(SUDO) chgrp kvm /dev/kvm && $(SUDO) chmod 0660 /dev/kvm; }; \
	fi

# The cue CLI of the same version checks that schema/*.cue works for users
# who vet with cue itself (TestSchemaWithCueCLI).
GOBIN := $(shell $(GO) env GOPATH)/bin
test: deps vault-server
	$(GO) install cuelang.org/go/cmd/cue@$(CUE_VERSION)
	$(GO) vet -tags $(TAGS) ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run -tags $(TAGS) ./cmd/site vet ./tenants/...
	PATH="$(GOBIN):$$PATH" $(GO) test -tags $(TAGS) -count=1 -timeout 30m ./...

# vault-server builds the real Vault the tests start (`vault server -dev`)
# from backends/vault/vaulttest/vaultserver, a module of its own, into a
# cache outside the repository keyed by the version, only when it is not
# there yet: about 20 CPU-minutes and a ~500 MB binary. Vault 1.21 is BSL 1.1 licensed: it
# is a test server only, never shipped with site. The build writes a
# temporary file and renames it, so an interrupted build leaves nothing
# the tests would take for a server. SITE_TEST_VAULT_BIN points the tests
# at another binary instead.
VAULT_VERSION := v1.21.0
VAULT_MOD     := backends/vault/vaulttest/vaultserver
VAULT_BIN     ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/site-test/vault-$(VAULT_VERSION)/vault
vault-server:
	@if [ -n "$$SITE_TEST_VAULT_BIN" ]; then echo "vault-server: using SITE_TEST_VAULT_BIN=$$SITE_TEST_VAULT_BIN"; \
	elif [ -x "$(VAULT_BIN)" ]; then :; else \
		grep -q 'hashicorp/vault $(VAULT_VERSION)$$' $(VAULT_MOD)/go.mod || { echo "$(VAULT_MOD)/go.mod does not require vault $(VAULT_VERSION)"; exit 1; }; \
		echo "building Vault $(VAULT_VERSION) (test server only, BSL) into $(VAULT_BIN): about 20 CPU-minutes"; \
		mkdir -p "$$(dirname "$(VAULT_BIN)")"; \
		tmp="$(VAULT_BIN).tmp.$$$$"; \
		(cd $(VAULT_MOD) && nice $(GO) build -o "$$tmp" .) && mv "$$tmp" "$(VAULT_BIN)" || { rm -f "$$tmp"; exit 1; }; \
	fi

lint:
	$(GO) vet -tags $(TAGS) ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# bench prints issue 13's table (cmd/sitebench: site beside one raw GET /
# PATCH of the same zones on a PowerDNS of its own, and beside `cue vet`,
# the cue CLI of the same version; its tenants case is issues 25 and 27's
# 10,000 zones over 100 tenants: one tenant's diff among them against it
# alone, the converged apply against the diff), then runs every Go
# benchmark once (BenchmarkNeighbours: the load part of the first, in
# process).
bench: deps build
	$(GO) install cuelang.org/go/cmd/cue@$(CUE_VERSION)
	PATH="$(GOBIN):$$PATH" $(GO) run -tags $(TAGS) ./cmd/sitebench table --site $(BIN)
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchtime 1x -timeout 60m ./...

clean:
	rm -rf bin

# demo starts a PowerDNS on loopback (HTTP API 127.0.0.1:8081, DNS
# 127.0.0.1:5300, state in .demo/), applies tenants/office1.cue's DNS, shows
# that a second diff is converged, and asks the server over DNS. The server
# keeps running so you can go on; `make demo-stop` stops it.
DEMO_DIR := $(CURDIR)/.demo
export PDNS_API_KEY ?= demo-key
demo: deps-demo build
	@mkdir -p $(DEMO_DIR)
	@if ! curl -sf -o /dev/null -H "X-API-Key: $$PDNS_API_KEY" http://127.0.0.1:8081/api/v1/servers/localhost; then \
		rm -f $(DEMO_DIR)/pdns.sqlite3; \
		sqlite3 $(DEMO_DIR)/pdns.sqlite3 < /usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql; \
		printf '%s\n' launch=gsqlite3 gsqlite3-database=$(DEMO_DIR)/pdns.sqlite3 gsqlite3-dnssec=yes \
			local-address=127.0.0.1 local-port=5300 api=yes api-key=$$PDNS_API_KEY \
			webserver=yes webserver-address=127.0.0.1 webserver-port=8081 \
			webserver-allow-from=127.0.0.0/8 socket-dir=$(DEMO_DIR) daemon=no guardian=no \
			disable-syslog=yes write-pid=no security-poll-suffix= > $(DEMO_DIR)/pdns.conf; \
		nohup pdns_server --config-dir=$(DEMO_DIR) > $(DEMO_DIR)/pdns.log 2>&1 & echo $$! > $(DEMO_DIR)/pdns.pid; \
		for i in $$(seq 100); do curl -sf -o /dev/null -H "X-API-Key: $$PDNS_API_KEY" http://127.0.0.1:8081/api/v1/servers/localhost && break; sleep 0.1; done; \
		echo "== PowerDNS started on 127.0.0.1:8081 (API) and 127.0.0.1:5300 (DNS), pid $$(cat $(DEMO_DIR)/pdns.pid)"; \
	elif ! { [ -f $(DEMO_DIR)/pdns.pid ] && kill -0 $$(cat $(DEMO_DIR)/pdns.pid) 2>/dev/null; }; then \
		echo "== A PowerDNS this checkout did not start answers on 127.0.0.1:8081 (another checkout's make demo?): using it; make demo-stop here will not stop it, run it where it was started"; \
	fi
	@echo "== site vet ./tenants/..."
	@$(BIN) vet ./tenants/...
	@echo "== site diff --only dns tenants/office1.cue"
	@$(BIN) diff --only dns tenants/office1.cue
	@echo "== site apply --only dns tenants/office1.cue"
	@$(BIN) apply --only dns tenants/office1.cue
	@echo "== site diff --only dns --detailed-exitcode tenants/office1.cue"
	@$(BIN) diff --only dns --detailed-exitcode tenants/office1.cue
	@echo "== dig @127.0.0.1 -p 5300 www.office1.example.test"
	@dig +short @127.0.0.1 -p 5300 www.office1.example.test || true
	@echo "PowerDNS keeps running (PDNS_API_KEY=$$PDNS_API_KEY); stop it with: make demo-stop"

# demo-full runs make demo (PowerDNS), then cmd/demo/full.sh: a real
# Vault dev server, the Cloudflare fake and a root libvirtd on a socket of
# its own (state in /var/tmp/site-demo-full), and applies tenants/sjc.cue
# whole from a cold start until its VM boots and takes its lease; then a
# second diff is converged. Needs root and the Vault binary of make
# vault-server. Everything keeps running; make demo-stop stops it.
demo-full: deps demo vault-server
	@GO="$(GO)" TAGS="$(TAGS)" BIN="$(BIN)" sh cmd/demo/full.sh

demo-stop: demo-vm-stop
	@sh cmd/demo/stop.sh
	@if [ -f $(DEMO_DIR)/pdns.pid ]; then kill $$(cat $(DEMO_DIR)/pdns.pid) 2>/dev/null || true; rm -f $(DEMO_DIR)/pdns.pid; echo "PowerDNS stopped"; fi

# demo-vm-stop is make demo-stop's part for make demo-vm. $(DEMO_LV) is
# one directory for every checkout on the machine: only the checkout
# that started the session (make demo-vm writes it in $(DEMO_LV)/checkout)
# stops it and removes the directory.
demo-vm-stop:
	@if [ -f $(DEMO_LV)/libvirtd.pid ]; then \
		by=$$(cat $(DEMO_LV)/checkout 2>/dev/null); \
		if [ "$$by" != "$(CURDIR)" ]; then \
			if [ -n "$$by" ]; then by="make demo-vm in $$by started it, not this checkout ($(CURDIR)): run make demo-stop there, or if that checkout is gone, stop it"; \
			else by="it does not say which checkout started it (one of before make demo-vm wrote $(DEMO_LV)/checkout): stop it"; fi; \
			echo "libvirtd session in $(DEMO_LV) not stopped: $$by by hand: kill $$(cat $(DEMO_LV)/libvirtd.pid) && rm -rf $(DEMO_LV)"; \
		else \
			for d in $$(virsh -q -c "$(DEMO_URI)" list --name 2>/dev/null); do virsh -q -c "$(DEMO_URI)" destroy "$$d" >/dev/null 2>&1 || true; done; \
			kill $$(cat $(DEMO_LV)/libvirtd.pid) 2>/dev/null || true; \
			[ -f $(DEMO_LV)/run/libvirt/virtlogd.pid ] && kill $$(cat $(DEMO_LV)/run/libvirt/virtlogd.pid) 2>/dev/null || true; \
			rm -rf $(DEMO_LV); echo "libvirtd session stopped"; \
		fi; \
	fi

# demo-vm starts an unprivileged libvirt session daemon with QEMU (as
# nobody when run by root; as you otherwise), state in $(DEMO_LV), defines
# the storage pool "default" in it, applies tenants/lab.cue and shows the
# diff converged. The guest keeps running; `make demo-stop` stops it all.
DEMO_LV  := /var/tmp/site-demo-libvirt
DEMO_URI := qemu+unix:///session?socket=$(DEMO_LV)/run/libvirt/libvirt-sock
demo-vm: deps build
	@if [ ! -S $(DEMO_LV)/run/libvirt/libvirt-sock ]; then \
		mkdir -p $(DEMO_LV)/home $(DEMO_LV)/run $(DEMO_LV)/config $(DEMO_LV)/cache $(DEMO_LV)/data $(DEMO_LV)/pool; \
		chmod 700 $(DEMO_LV)/run; \
		echo "$(CURDIR)" > $(DEMO_LV)/checkout; \
		env="env HOME=$(DEMO_LV)/home XDG_RUNTIME_DIR=$(DEMO_LV)/run XDG_CONFIG_HOME=$(DEMO_LV)/config XDG_CACHE_HOME=$(DEMO_LV)/cache XDG_DATA_HOME=$(DEMO_LV)/data"; \
		if [ "$$(id -u)" = 0 ]; then chown -R nobody:nogroup $(DEMO_LV); env="setpriv --reuid=nobody --regid=nogroup --clear-groups $$env"; fi; \
		nohup $$env libvirtd > $(DEMO_LV)/libvirtd.log 2>&1 & echo $$! > $(DEMO_LV)/libvirtd.pid; \
		for i in $$(seq 100); do [ -S $(DEMO_LV)/run/libvirt/libvirt-sock ] && break; sleep 0.1; done; \
		virsh -q -c "$(DEMO_URI)" pool-define-as default dir --target $(DEMO_LV)/pool >/dev/null; \
		virsh -q -c "$(DEMO_URI)" pool-start default >/dev/null; \
		echo "== libvirtd session started, pid $$(cat $(DEMO_LV)/libvirtd.pid), socket $(DEMO_LV)/run/libvirt/libvirt-sock"; \
	elif by=$$(cat $(DEMO_LV)/checkout 2>/dev/null); [ "$$by" != "$(CURDIR)" ]; then \
		echo "== A libvirtd session this checkout did not start runs in $(DEMO_LV) (make demo-vm in $${by:-a checkout it does not name}): using it; make demo-stop here will not stop it, run it where it was started"; \
	fi
	@echo "== site diff tenants/lab.cue"
	@SITE_LIBVIRT_URI_MAP="qemu:///session=$(DEMO_URI)" $(BIN) diff tenants/lab.cue
	@echo "== site apply tenants/lab.cue"
	@SITE_LIBVIRT_URI_MAP="qemu:///session=$(DEMO_URI)" $(BIN) apply tenants/lab.cue
	@echo "== site diff --detailed-exitcode tenants/lab.cue"
	@SITE_LIBVIRT_URI_MAP="qemu:///session=$(DEMO_URI)" $(BIN) diff --detailed-exitcode tenants/lab.cue
	@echo "== virsh list"
	@virsh -c "$(DEMO_URI)" list --all
	@echo "Try: edit memory/autostart in tenants/lab.cue, then"
	@echo "  SITE_LIBVIRT_URI_MAP='qemu:///session=$(DEMO_URI)' $(BIN) diff tenants/lab.cue"
