package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletion runs cobra's hidden __complete command (what a shell's
// completion script calls) in a directory holding site.cue and
// tenants/: --format offers the command's own formats, --ack only the
// gates the command takes, and site unlock the tenants it can unlock.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"site.cue": siteSrc(pdnsProvider("pdns", "http://127.0.0.1:1", "PDNS_API_KEY", "off")+"hosts: kvm1: uri: \"qemu:///system\"\n",
			grant{tenant: "office1", domains: []string{"office1.example.test"}, providers: []string{"pdns"}},
			grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"kvm1"}},
			grant{tenant: "orchard", domains: []string{"orchard.example.test"}, providers: []string{"pdns"}}),
		"tenants/office1.cue": `package tenants

tenants: office1: {
	domain: "office1.example.test"
	dns: zones: "office1.example.test": {provider: "pdns", records: www: A: ["192.0.2.1"]}
}
`,
		"tenants/lab.cue": `package tenants

tenants: lab: {
	domain: "lab.example.test"
	vms: box: {host: "kvm1", autostart: false, vcpus: 1, memory: "64MiB"}
}
`,
		"tenants/orchard.cue": `package tenants

tenants: orchard: {
	domain: "orchard.example.test"
	dns: zones: "orchard.example.test": {provider: "pdns", records: www: A: ["192.0.2.2"]}
}
`,
	}
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)

	applyGateList := strings.Split(strings.ReplaceAll(applyGates, " ", ""), ",")
	for _, tc := range []struct {
		args []string
		want []string // the completions, without their descriptions
	}{
		{[]string{"vet", "--format", ""}, []string{"text", "json", "github"}},
		{[]string{"vet", "--format", "g"}, []string{"github"}},
		{[]string{"diff", "--format", ""}, []string{"text", "json", "markdown"}},
		{[]string{"diff", "--format", "m"}, []string{"markdown"}},
		// apply and diff: a plan's gates, never disown's or unlock's.
		{[]string{"apply", "--ack", ""}, applyGateList},
		{[]string{"diff", "--ack", ""}, applyGateList},
		{[]string{"apply", "--ack", "GATE-L"}, nil},
		{[]string{"apply", "--ack", "GATE-DNS-D"}, []string{"GATE-DNS-DELETE-MANY"}},
		{[]string{"apply", "--ack", "gate-vm-r"}, []string{"GATE-VM-RESTART"}},
		{[]string{"unlock", "--ack", ""}, []string{"GATE-LOCK-BREAK"}},
		{[]string{"unlock", "office1", "--ack", "GATE-D"}, nil},
		{[]string{"disown", "powerdns", "example.org", "--ack", ""}, []string{"GATE-DNS-DISOWN"}},
		{[]string{"disown", "cloudflare", "example.org", "--ack", "G"}, []string{"GATE-DNS-DISOWN"}},
		// unlock's tenant: those of ./tenants/... unlock can find.
		{[]string{"unlock", ""}, []string{"lab", "office1", "orchard"}},
		{[]string{"unlock", "o"}, []string{"office1", "orchard"}},
		{[]string{"unlock", "--config", "site.cue", "l"}, []string{"lab"}},
		// --target: the steps of the specs named, else ./tenants/...;
		// with --only, only those it keeps (apply refuses the others).
		{[]string{"diff", "--target", ""}, []string{"dns/office1.example.test.", "dns/orchard.example.test.", "vm/qemu:///system/box"}},
		{[]string{"apply", "tenants/office1.cue", "--target", ""}, []string{"dns/office1.example.test."}},
		{[]string{"apply", "--only", "dns", "--target", ""}, []string{"dns/office1.example.test.", "dns/orchard.example.test."}},
		{[]string{"diff", "--only", "vm", "--target", "d"}, nil},
		// --restart: the VMs in scope, as TENANT/VM.
		{[]string{"apply", "--restart", ""}, []string{"lab/box"}},
		{[]string{"diff", "tenants/office1.cue", "--restart", ""}, nil},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got := complete(t, tc.args...)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}

	// After the tenant, unlock's PATHs are spec files.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"__complete", "unlock", "lab", ""}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, &stderr)
	}
	if got := stdout.String(); got != "cue\n:8\n" {
		t.Errorf("unlock lab '': got %q, want the .cue extension filter", got)
	}
}

// complete runs site __complete args and returns the completions
// offered, without their descriptions.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"__complete"}, args...), &stdout, &stderr); code != exitOK {
		t.Fatalf("__complete %s: exit %d\n%s", strings.Join(args, " "), code, &stderr)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if strings.HasPrefix(line, ":") { // the directive
			break
		}
		word, _, _ := strings.Cut(line, "\t")
		out = append(out, word)
	}
	return out
}
