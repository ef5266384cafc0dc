package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/providers"
)

// useBackend makes the runs of test t build the backend called name with
// open instead of its own constructor (a fake's rate limit, a driver
// shared across runs), and puts the built-in one back when t ends.
func useBackend(t *testing.T, name string, open func(bk *runBackends, run *backends.Run)) {
	t.Helper()
	i := slices.IndexFunc(providers.Table, func(b providers.Backend) bool { return b.Name == name })
	if i < 0 {
		t.Fatalf("no built-in backend %q", name)
	}
	old := providers.Table[i].Open
	providers.Table[i].Open = open
	t.Cleanup(func() { providers.Table[i].Open = old })
}

// TestVersionListsEveryBackend: site version names each backend built in.
func TestVersionListsEveryBackend(t *testing.T) {
	var out, errOut strings.Builder
	if code := run([]string{"version"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, b := range providers.Table {
		if !strings.Contains(out.String(), "backend "+b.Name+": ") {
			t.Errorf("version lacks backend %s:\n%s", b.Name, out.String())
		}
	}
	if len(providers.Table) != 4 {
		t.Errorf("got %d built-in backends, want 4 (cloudflare, libvirt, powerdns, vault)", len(providers.Table))
	}
}
