package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

// fuzzSite grants tenant fuzz what the fixtures name, so that a tenant
// file the fuzzer mutates gets past its grant to the checks after it.
const fuzzSite = `package site

providers: {
	pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
	cf: cloudflare: token: env: "CF_API_TOKEN"
}
hosts: {kvm1: uri: "qemu:///system", local: uri: "qemu:///session"}
tenants: fuzz: {domains: ["example.com"], providers: ["pdns", "cf"], hosts: ["kvm1", "local"], bridges: ["kvm1/br0"]}
`

// seeds adds every fixture file in testdata, the example tenants
// (site.cue included) and the hostile corpus but its bombs
// (testdata/hostile/bomb_*.cue), which would run on past their budget
// in this process, to f's corpus.
func seeds(f *testing.F) {
	archives, _ := filepath.Glob("testdata/*/*.txtar")
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			f.Add(file.Data)
		}
	}
	examples, _ := filepath.Glob("../tenants/*.cue")
	examples = append(examples, "../"+ConfigName)
	hostile, _ := filepath.Glob("testdata/hostile/*.cue")
	for _, p := range hostile {
		if !strings.HasPrefix(filepath.Base(p), "bomb_") {
			examples = append(examples, p)
		}
	}
	for _, p := range examples {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzLoadSource feeds arbitrary bytes to the loader as a tenant file:
// malformed input must give Diagnostics, never a panic or another kind
// of error. Inputs are loaded with small budgets, so that one the
// fuzzer makes into a bomb ends in a diagnostic too.
func FuzzLoadSource(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		var warned Diagnostics
		spec, err := LoadSourceWith("site.cue", []byte(fuzzSite), "fuzz.cue", src, Options{EvalTimeout: 2 * time.Second, EvalMemory: 256 << 20, Warn: func(ds Diagnostics) { warned = ds }})
		checkFuzzResult(t, "fuzz.cue", spec != nil, err)
		var diags Diagnostics
		errors.As(err, &diags)
		checkLines(t, append(diags, warned...), len(src)+len(fuzzSite))
	})
}

// FuzzRules is vet on a tenant's file beside the site.cue of a case of
// testdata/rules, each the fuzzer changes: the file named name, src,
// reaches every check with the grants its case was written for (which
// FuzzLoadSource's fixed site.cue does not make). Whatever it holds,
// vet gives a model or Diagnostics in the file, never a panic, each
// diagnostic one visible line no more than a few times the input.
func FuzzRules(f *testing.F) {
	archives, _ := filepath.Glob("testdata/rules/*.txtar")
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			f.Fatal(err)
		}
		var site []byte
		for _, file := range ar.Files {
			if file.Name == ConfigName {
				site = file.Data
			}
		}
		for _, file := range ar.Files {
			if file.Name != ConfigName && !strings.Contains(file.Name, "/") {
				f.Add(site, file.Name, file.Data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, site []byte, name string, src []byte) {
		if name == ConfigName || !strings.HasSuffix(name, ".cue") {
			return // vet reads only .cue files, and site.cue as the operator's
		}
		var warned Diagnostics
		spec, err := LoadSourceWith(ConfigName, site, name, src, Options{EvalTimeout: 2 * time.Second, EvalMemory: 256 << 20, Warn: func(ds Diagnostics) { warned = ds }})
		if err == nil && spec == nil {
			t.Fatal("no result and no error")
		}
		var diags Diagnostics
		if err != nil && !errors.As(err, &diags) {
			t.Fatalf("got %T %v, want Diagnostics", err, err)
		}
		for _, d := range diags {
			// site.cue's warnings are every run's, beside the file's.
			if d.Pos.File != name && d.Pos.File != ConfigName || d.Msg == "" {
				t.Fatalf("diagnostic without position or message: %+v", d)
			}
		}
		checkLines(t, append(diags, warned...), len(site)+len(name)+len(src))
	})
}

// FuzzOperatorSource feeds arbitrary bytes to the reader of the
// operator's file, the trust boundary: anything it accepts resolves
// every name it declares, and anything else is Diagnostics positioned
// in the file.
func FuzzOperatorSource(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		op, diags := operatorSource("site.cue", src)
		if len(diags) > 0 {
			checkFuzzResult(t, "site.cue", false, diags)
			return
		}
		if op == nil {
			t.Fatal("no operator and no error")
		}
		for name, g := range op.grants {
			for p := range g.providers {
				if _, ok := op.providers[p]; !ok {
					t.Fatalf("tenant %s is granted provider %q, which is not declared", name, p)
				}
			}
			for h := range g.hosts {
				if _, ok := op.hosts[h]; !ok {
					t.Fatalf("tenant %s is granted host %q, which is not declared", name, h)
				}
			}
			for hb := range g.bridges {
				h, br, _ := strings.Cut(hb, "/")
				if !g.hosts[h] || !isInterfaceName(br) {
					t.Fatalf("tenant %s is granted bridge %q, not a bridge of a host it is granted", name, hb)
				}
			}
		}
		for name, p := range op.providers {
			if c := p.Credential(); c.Vault != nil && op.vaults[c.Vault.Vault] == nil {
				t.Fatalf("provider %s reads from vault %q, which is not declared", name, c.Vault.Vault)
			}
		}
	})
}

func checkFuzzResult(t *testing.T, file string, ok bool, err error) {
	t.Helper()
	if err == nil {
		if !ok {
			t.Fatal("no result and no error")
		}
		return
	}
	var diags Diagnostics
	if !errors.As(err, &diags) || len(diags) == 0 {
		t.Fatalf("got %T %v, want Diagnostics", err, err)
	}
	for _, d := range diags {
		if d.Pos.File != file || d.Msg == "" {
			t.Fatalf("diagnostic without position or message: %+v", d)
		}
	}
}
