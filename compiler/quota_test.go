package compiler

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestTrust_Limits: a tenant's file declared 1,000 zones in three lines
// of CUE below its granted domain, and vet passed; site diff, run on
// the pull request with the operator's credentials, then read every
// one. Each kind past the grant's limit is an error at the field that
// declares it, pointing at site.cue's limit when site.cue writes one;
// a tenant at its limit is valid.
func TestTrust_Limits(t *testing.T) {
	diags := loadCase(t, "trust_limits")
	for _, tt := range []struct {
		path, want string
		limitAt    int // site.cue's line of the limit; 0: the default
	}{
		{"tenants.big.dns.zones", "tenant big declares 1000 zones, over its limit of 100 (the default", 0},
		{"tenants.small.dns.zones", "tenant small declares 2 zones, over its limit of 1 in site.cue", 11},
		{"tenants.small.vms", "tenant small declares 2 VMs, over its limit of 1 in site.cue", 11},
		{"tenants.small.networks", "tenant small declares 2 networks, over its limit of 1 in site.cue", 11},
	} {
		var got []Diagnostic
		for _, d := range diags {
			if d.Path == tt.path {
				got = append(got, d)
			}
		}
		if len(got) != 1 || !strings.Contains(got[0].Msg, tt.want) {
			t.Errorf("at %s: got %v, want one error containing %q", tt.path, got, tt.want)
			continue
		}
		field := tt.path[strings.LastIndex(tt.path, ".")+1:]
		if !strings.Contains(got[0].Msg, "limits: "+field+": ") {
			t.Errorf("at %s: %q does not say what site.cue writes to raise it", tt.path, got[0].Msg)
		}
		var related []int
		for _, r := range got[0].Related {
			if strings.HasSuffix(r.File, ConfigName) {
				related = append(related, r.Line)
			}
		}
		switch {
		case tt.limitAt == 0 && len(got[0].Related) != 0:
			t.Errorf("at %s: related %v, want none for a default limit", tt.path, got[0].Related)
		case tt.limitAt != 0 && (len(related) != 1 || related[0] != tt.limitAt):
			t.Errorf("at %s: related %v, want site.cue:%d", tt.path, got[0].Related, tt.limitAt)
		}
	}
	if msgs := diagAt(diags, "tenants.fits"); len(msgs) > 0 {
		t.Errorf("tenant fits, at its limit: got %q, want no error", msgs)
	}
}

// TestTrust_LimitDefaults pins the limits a grant has when site.cue
// writes none: a tenant declaring that many of a kind is valid, one
// more is an error at that kind's field; and a limit written in
// site.cue replaces the default, down to 0.
func TestTrust_LimitDefaults(t *testing.T) {
	const site = `package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
hosts: kvm1: uri: "qemu:///system"
tenants: t: {domains: ["t.test"], providers: ["pdns"], hosts: ["kvm1"]%s}
`
	kinds := []struct {
		field, path string
		def         int
		decl        func(i int) string
	}{
		{"zones", "tenants.t.dns.zones", 100, func(i int) string { return fmt.Sprintf("dns: zones: \"z%d.t.test\": provider: \"pdns\"\n", i) }},
		{"vms", "tenants.t.vms", 100, func(i int) string { return fmt.Sprintf("vms: vm%d: {host: \"kvm1\", autostart: true}\n", i) }},
		{"networks", "tenants.t.networks", 50, func(i int) string {
			return fmt.Sprintf("networks: n%d: {host: \"kvm1\", cidr: \"10.0.%d.0/24\", autostart: true}\n", i, i)
		}},
	}
	load := func(grant string, n int, decl func(int) string) error {
		var b strings.Builder
		b.WriteString("package tenants\n\ntenants: t: domain: \"t.test\"\n")
		for i := range n {
			b.WriteString("tenants: t: " + decl(i))
		}
		_, err := LoadSource(ConfigName, fmt.Appendf(nil, site, grant), "t.cue", []byte(b.String()))
		return err
	}
	for _, k := range kinds {
		t.Run(k.field, func(t *testing.T) {
			for _, tt := range []struct {
				grant string
				n     int
				ok    bool
			}{
				{"", k.def, true},
				{"", k.def + 1, false},
				{", limits: " + k.field + ": 3", 3, true},
				{", limits: " + k.field + ": 3", 4, false},
				{", limits: " + k.field + ": 0", 0, true},
				{", limits: " + k.field + ": 0", 1, false},
			} {
				err := load(tt.grant, tt.n, k.decl)
				if tt.ok {
					if err != nil {
						t.Errorf("grant%q, %d %s: %v, want valid", tt.grant, tt.n, k.field, err)
					}
					continue
				}
				var diags Diagnostics
				if !errors.As(err, &diags) || len(diagAt(diags, k.path)) != 1 || len(diags) != 1 {
					t.Errorf("grant%q, %d %s: got %v, want one error at %s", tt.grant, tt.n, k.field, err, k.path)
				}
			}
		})
	}
}

// TestLimitsAreCounts: a limit in site.cue is a count, never negative
// or fractional, and the schema says so at the limit.
func TestLimitsAreCounts(t *testing.T) {
	for _, v := range []string{"-1", "1.5", `"many"`} {
		src := `package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
tenants: t: {domains: ["t.test"], providers: ["pdns"], limits: zones: ` + v + `}
`
		_, diags := operatorSource(ConfigName, []byte(src))
		if len(diags) != 1 || diags[0].Path != "tenants.t.limits.zones" || diags[0].Pos.Line != 4 {
			t.Errorf("limits: zones: %s: got %v, want one error at tenants.t.limits.zones, site.cue line 4", v, diags)
		}
	}
}
