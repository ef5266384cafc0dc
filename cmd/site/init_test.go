package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIncident1_InitOutputPassesVet: a scaffold printed a config with a
// syntax error (INCIDENTS.md 1c). Whatever site init generates, the
// tenant's file and the site.cue lines, passes site vet: every provider
// name and kind, every way to write the output, with the operator's file
// made new or added to with --config, domains in every spelling a user
// might type.
func TestIncident1_InitOutputPassesVet(t *testing.T) {
	providers := [][]string{nil, {"--provider", "pdns"}, {"--provider", "dns-1"}, {"--provider-kind", "cloudflare"}, {"--provider", "dns-1", "--provider-kind", "cloudflare"}}
	outs := []string{"default", "file", "stdout"}
	sites := []string{"new", "--config"}
	domains := []string{"acme.example.net", "Acme.Example.NET.", "bücher.example", "xn--bcher-kva.example", "a-b.c-d.example"}
	names := []string{"acme", "office-2"}
	for _, provider := range providers {
		for _, out := range outs {
			for _, site := range sites {
				for _, domain := range domains {
					for _, name := range names {
						label := strings.Join(append([]string{name, domain, out, site}, provider...), " ")
						t.Run(label, func(t *testing.T) {
							initThenVet(t, name, domain, out, site, provider)
						})
					}
				}
			}
		}
	}
}

// initThenVet runs site init as one case of TestIncident1_InitOutputPassesVet
// describes, saves what it printed where the operator would, and vets.
func initThenVet(t *testing.T, name, domain, out, site string, provider []string) {
	t.Chdir(t.TempDir())
	args := append([]string{"init", name, "--domain", domain}, provider...)
	file := filepath.Join("tenants", name+".cue")
	switch out {
	case "file":
		file = filepath.Join("specs", name+".cue")
		args = append(args, "--out", file)
	case "stdout":
		args = append(args, "--out", "-")
	}
	if site == "--config" {
		// An operator's file that declares other things already.
		if err := os.WriteFile("site.cue", []byte("package site\n\nproviders: other: cloudflare: token: env: \"CF\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", "site.cue")
	}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("site %s: exit %d, want 0\n%s", strings.Join(args, " "), code, stderr.String())
	}
	if out == "stdout" {
		if err := os.MkdirAll("tenants", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if site == "new" && out == "stdout" {
		// --out - writes no file: the new site.cue is printed on stderr.
		if err := os.WriteFile("site.cue", stderr.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"vet", file}, &stdout, &stderr); code != exitOK {
		src, _ := os.ReadFile(file)
		conf, _ := os.ReadFile("site.cue")
		t.Fatalf("site vet of the scaffold: exit %d\n%s%s\nscaffold:\n%s\nsite.cue:\n%s", code, stdout.String(), stderr.String(), src, conf)
	}
	if got, want := stdout.String(), "ok: 1 tenant, 1 zone, 0 records, 0 VMs, 0 networks\n"; got != want {
		t.Errorf("site vet: got %q, want %q", got, want)
	}
}
