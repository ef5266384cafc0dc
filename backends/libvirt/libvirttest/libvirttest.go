// Package libvirttest starts real libvirt for tests: the in-process test
// driver loaded from a per-test fixture file (fast, isolated, no daemon),
// and an unprivileged session libvirtd run as nobody with real QEMU under
// TCG, with HOME and the XDG directories (so its socket and all its
// state) in one temporary directory, started and stopped by the test;
// and a root system-mode libvirtd on a socket of the test's own, the only
// kind that starts networks (bridges, dnsmasq, iptables), whose state is
// the host's and is cleaned by name. Daemons: https://libvirt.org/daemons.html.
//
// Outside CI a missing libvirt library, libvirtd or QEMU skips the test
// with a message saying what to install; with CI=true it fails it.
package libvirttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/testneed"
)

// Need skips t (or fails it in CI) with msg.
func Need(t testing.TB, msg string) {
	t.Helper()
	testneed.Need(t, msg)
}

// Fixture is the content of a test driver node file. Domains, Networks,
// Pools and Interfaces (the host's, e.g. a bridge) are XML snippets
// placed inside <node>; a dir pool named "default" is always there
// unless Pools names one.
type Fixture struct {
	Domains    []string
	Networks   []string
	Pools      []string
	Interfaces []string
}

// TestURI writes f to a file in t's temp dir and returns the test driver
// URI that loads it. Every connection to the URI starts from the fixture
// and shares nothing with any other connection, so tests never see each
// other's state (a test must keep using one connection).
func TestURI(t testing.TB, f Fixture) string {
	t.Helper()
	pools := f.Pools
	if len(pools) == 0 {
		pools = []string{`<pool type="dir"><name>default</name><target><path>/default-pool</path></target></pool>`}
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>` + "\n" + `<node xmlns:test="http://libvirt.org/schemas/domain/test/1.0">` + "\n")
	for _, group := range [][]string{f.Domains, f.Networks, pools, f.Interfaces} {
		for _, x := range group {
			b.WriteString(x + "\n")
		}
	}
	b.WriteString("</node>\n")
	p := filepath.Join(t.TempDir(), "node.xml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return "test://" + p
}
