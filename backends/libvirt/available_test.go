//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

// TestAvailableNamesTheLibrary hides libvirt.so.0 from a child process
// (a private mount namespace binds /dev/null over it) and checks that
// Available says which library is missing and what to install.
func TestAvailableNamesTheLibrary(t *testing.T) {
	if os.Getenv("SITE_LIBVIRT_AVAILABLE_CHILD") == "1" {
		fmt.Printf("available: %v\n", Available())
		return
	}
	var lib string
	for _, p := range []string{"/usr/lib/x86_64-linux-gnu/libvirt.so.0", "/usr/lib64/libvirt.so.0", "/usr/lib/libvirt.so.0"} {
		if _, err := os.Stat(p); err == nil {
			lib = p
			break
		}
	}
	if lib == "" {
		libvirttest.Need(t, "libvirt.so.0 not found in the usual places: install libvirt0")
	}
	if _, err := exec.LookPath("unshare"); err != nil || os.Geteuid() != 0 {
		libvirttest.Need(t, "needs root and unshare (util-linux) to hide libvirt.so.0 in a mount namespace")
	}
	cmd := exec.Command("unshare", "-m", "sh", "-c", `mount --bind /dev/null "$1" && exec "$0" -test.run='^TestAvailableNamesTheLibrary$' -test.count=1`, os.Args[0], lib)
	cmd.Env = append(os.Environ(), "SITE_LIBVIRT_AVAILABLE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "mount") {
		libvirttest.Need(t, "cannot make a private mount namespace here: "+string(out))
	}
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child said: %s", strings.TrimSpace(strings.Split(string(out), "\n")[0]))
	for _, want := range []string{"available: libvirt library libvirt.so.0 could not be loaded (install the libvirt0 package)", "libvirt.so.0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("got %q, want it to contain %q", out, want)
		}
	}
	if err := Available(); err != nil {
		t.Errorf("in this process libvirt loads, but Available says %v", err)
	}
}
