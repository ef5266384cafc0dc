//go:build cgo && libvirt_dlopen

package libvirt

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
)

// TestConnectErrorSaysWhatLibvirtSaid points a host at a socket that is
// not there: the error names the host, the mapping and libvirt's own
// message, not the Go binding's virError(Code=..., Domain=...), and the
// libvirt error stays in the chain for conn.IsCode.
func TestConnectErrorSaysWhatLibvirtSaid(t *testing.T) {
	if err := Available(); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "no-daemon", "libvirt-sock")
	uri := "qemu+unix:///session?socket=" + sock
	d := New(Options{URIMap: map[string]string{"qemu:///session": uri}})
	t.Cleanup(func() { _ = d.Close() })
	_, err := d.Conn("qemu:///session")
	if err == nil {
		t.Fatal("connected to a socket that does not exist")
	}
	msg := err.Error()
	for _, want := range []string{
		"connect to libvirt host qemu:///session (as " + uri + ", from " + URIMapEnv + "): ",
		sock,
		"check that the daemon runs",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("got %q, want it to contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "virError(") {
		t.Errorf("got %q, want libvirt's message without the binding's virError(...) wrapping", msg)
	}
	var lerr libvirt.Error
	if !errors.As(err, &lerr) || lerr.Code == libvirt.ERR_OK {
		t.Errorf("the libvirt error is not in the chain: %#v", err)
	}
}

// TestDomainTypeEnv: SITE_LIBVIRT_DOMAIN_TYPE picks the type of new
// domains, kvm or qemu; anything else is an error every step reports.
func TestDomainTypeEnv(t *testing.T) {
	for _, tc := range []struct{ env, want, err string }{
		{"", "", ""},
		{"qemu", "qemu", ""},
		{"kvm", "kvm", ""},
		{"tcg", "", `SITE_LIBVIRT_DOMAIN_TYPE="tcg": want kvm or qemu`},
	} {
		d := NewFromEnv(runstate.Start(&backends.Run{Getenv: func(k string) string {
			if k == DomainTypeEnv {
				return tc.env
			}
			return ""
		}}))
		got, err := d.Opts.DomainType, ""
		if d.OptsErr != nil {
			err = d.OptsErr.Error()
		}
		if got != tc.want || (tc.err == "") != (err == "") || !strings.Contains(err, tc.err) {
			t.Errorf("%s=%q: got type %q error %q, want %q error containing %q", DomainTypeEnv, tc.env, got, err, tc.want, tc.err)
		}
	}
}
