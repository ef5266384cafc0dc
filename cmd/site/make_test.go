package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/testneed"
)

// TestMakeInstallsWhatEachTargetNeeds: make demo (DNS only) installs
// PowerDNS and the tools it polls and asks it with, and nothing of
// libvirt or QEMU; make demo-vm, demo-full and test install those too,
// and test everything. Read from make -n, which prints the commands
// without running them.
func TestMakeInstallsWhatEachTargetNeeds(t *testing.T) {
	testneed.Tool(t, "make", "apt-get install make")
	installs := regexp.MustCompile(`for p in ([^;]*); do dpkg -s`)
	vm := []string{"libvirt-daemon", "libvirt0", "qemu-system-x86", "linux-image-cloud-amd64"}
	for _, tc := range []struct {
		target    string
		want, not []string
	}{
		{"demo", []string{"pdns-server", "pdns-backend-sqlite3", "curl", "bind9-dnsutils"}, append(vm, "pdns-backend-lmdb")},
		{"demo-vm", vm, nil},
		{"demo-full", append(vm, "pdns-server"), nil},
		{"test", append(vm, "pdns-server", "pdns-backend-lmdb"), nil},
	} {
		t.Run(tc.target, func(t *testing.T) {
			cmd := exec.Command("make", "-n", "--no-print-directory", tc.target)
			cmd.Dir = repoFile(".")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make -n %s: %v\n%s", tc.target, err, out)
			}
			var pkgs []string
			for _, m := range installs.FindAllStringSubmatch(string(out), -1) {
				pkgs = append(pkgs, strings.Fields(m[1])...)
			}
			has := map[string]bool{}
			for _, p := range pkgs {
				has[p] = true
			}
			for _, p := range tc.want {
				if !has[p] {
					t.Errorf("make %s does not install %s; it installs %v", tc.target, p, pkgs)
				}
			}
			for _, p := range tc.not {
				if has[p] {
					t.Errorf("make %s installs %s, which it does not need", tc.target, p)
				}
			}
		})
	}
}
