package main

import (
	"bytes"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/testneed"
)

// TestBuildWithoutCgo: CGO_ENABLED=0 go build ./cmd/site, with and
// without -tags libvirt_dlopen, and a plain go build with cgo but
// without the tag (no libvirt-dev needed), each build a site that
// vets, applies and diffs DNS on a real PowerDNS, vets a spec with a VM
// and a network, and refuses to diff that spec with one line saying
// this binary has no libvirt and how to install one that has it (exit
// 1). Its --version is what the module's build info says (versionOf),
// not a fixed "dev".
func TestBuildWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds site three times; skipped with -short")
	}
	srv := pdnsEnv(t)
	vmSpec := writeSpec(t, siteSrc(`hosts: local: uri: "qemu:///session"`,
		grant{tenant: "lab", domains: []string{"lab.example"}, hosts: []string{"local"}}), "lab.cue", `package tenants

tenants: lab: {
	domain: "lab.example"
	networks: lan: {host: "local", cidr: "10.0.0.0/24", autostart: true}
	vms: web: {host: "local", autostart: true, nics: [{network: "lan"}]}
}
`)
	for i, b := range []struct{ tags, cgo string }{{"", "0"}, {"libvirt_dlopen", "0"}, {"", "1"}} {
		t.Run(fmt.Sprintf("tags=%s,CGO_ENABLED=%s", b.tags, b.cgo), func(t *testing.T) {
			if b.cgo == "1" {
				testneed.Tool(t, "gcc", "cgo needs a C compiler: apt-get install gcc")
			}
			dnsSpec := tenantFile(t, srv, fmt.Sprintf("nocgo%d.example.test", i), `
			www: A: ["192.0.2.10"]`)
			bin := buildSite(t, b.tags, "CGO_ENABLED="+b.cgo)
			site := func(want int, args ...string) (string, string) {
				t.Helper()
				cmd := exec.Command(bin, args...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				if code := cmd.ProcessState.ExitCode(); code != want {
					t.Fatalf("site %s: exit %d (%v), want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, err, want, stdout.String(), stderr.String())
				}
				return stdout.String(), stderr.String()
			}
			if out, _ := site(exitOK, "vet", dnsSpec); !strings.HasPrefix(out, "ok: 1 tenant, 1 zone") {
				t.Errorf("vet of the DNS spec printed %q", out)
			}
			site(exitChanges, "diff", "--detailed-exitcode", dnsSpec)
			site(exitOK, "apply", dnsSpec)
			if out, _ := site(exitOK, "diff", "--detailed-exitcode", dnsSpec); !strings.Contains(out, "No changes.") {
				t.Errorf("diff after apply printed:\n%s", out)
			}

			if out, _ := site(exitOK, "vet", vmSpec); !strings.HasPrefix(out, "ok: 1 tenant, 0 zones, 0 records, 1 VM, 1 network") {
				t.Errorf("vet of the VM spec printed %q", out)
			}
			out, errOut := site(exitError, "diff", vmSpec)
			const want = " of tenant lab (and 1 more) needs libvirt: this site was built without libvirt"
			if out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "site: step ") || !strings.Contains(errOut, want) ||
				!strings.Contains(errOut, "CGO_ENABLED=1 go install -tags libvirt_dlopen github.com/site-tools/site/cmd/site@") {
				t.Errorf("diff of the VM spec: stdout %q, stderr %q; want nothing on stdout and one line on stderr \"site: step ...%s\" that says how to install a site with libvirt", out, errOut, want)
			}

			info, err := buildinfo.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			if out, _ := site(exitOK, "--version"); out != "site "+versionOf("", info)+"\n" {
				t.Errorf("site --version printed %q, want %q (the build info's)", out, "site "+versionOf("", info))
			}
		})
	}
}

// buildSite builds this package with go build -tags tags and the
// environment changes env, into a temporary directory, and returns the
// binary's path.
func buildSite(t *testing.T, tags string, env ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "site")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-tags", tags, "-o", bin, ".")
	cmd.Dir = pkgDir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags %q with %s: %v\n%s", tags, env, err, out)
	}
	return bin
}
