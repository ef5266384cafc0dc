package compiler

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestUniqueMACs: tenants a and b, granted one host, wrote one MAC
// address (in two cases) on their VMs' NICs, and vet passed (issue 27,
// finding 9): one guest would receive the other's traffic on the
// host's bridges. Now the second NIC is an error at its mac naming the
// first VM, whose mac is the related position; distinct MACs and a NIC
// without one pass.
func TestUniqueMACs(t *testing.T) {
	vm := func(name, network, mac string) string {
		nic := `{network: "` + network + `"}`
		if mac != "" {
			nic = `{network: "` + network + `", mac: "` + mac + `"}`
		}
		return name + `: {host: "kvm1", autostart: false, vcpus: 1, memory: "512MiB", disks: [{pool: "default", name: "` + name + `-root", size: "1GiB"}], nics: [` + nic + `]}
`
	}
	files := map[string]string{
		"site.cue": hostileSite,
		"a.cue": `package tenants

tenants: a: {
	domain: "a.example.test"
	networks: lan: {host: "kvm1", autostart: true, cidr: "10.1.0.0/24"}
	vms: {
		` + vm("web", "lan", "52:54:00:aa:bb:cc") + `
		` + vm("mail", "lan", "52:54:00:aa:bb:01") + `
	}
}
`,
		"b.cue": `package tenants

tenants: b: {
	domain: "b.example.test"
	networks: blan: {host: "kvm1", autostart: true, cidr: "10.2.0.0/24"}
	vms: {
		` + vm("db", "blan", "52:54:00:AA:BB:CC") + `
		` + vm("cache", "blan", "") + `
	}
}
`,
	}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	_, err := Load(filepath.Join(dir, "site.cue"), []string{dir})
	var diags Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("got %v, want Diagnostics", err)
	}
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1:\n%v", len(diags), diags)
	}
	d := diags[0]
	const want = "MAC address 52:54:00:aa:bb:cc of tenant b's VM db is the MAC of tenant a's VM web too, on host kvm1"
	if d.Path != "tenants.b.vms.db.nics.0.mac" || !strings.Contains(d.Msg, want) {
		t.Errorf("got %s: %s, want tenants.b.vms.db.nics.0.mac: %s", d.Path, d.Msg, want)
	}
	if filepath.Base(d.Pos.File) != "b.cue" || d.Pos.Line != 7 || len(d.Related) != 1 || filepath.Base(d.Related[0].File) != "a.cue" || d.Related[0].Line != 7 {
		t.Errorf("got %s, want b.cue line 7 with a.cue line 7 related", d.Format(nil))
	}
}
