//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"
	"strings"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
)

// ParseURIMap parses URIMapEnv's value: "from=to" entries separated by
// spaces or commas. A URI holding a comma cannot be mapped.
func ParseURIMap(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' }) {
		from, to, ok := strings.Cut(f, "=")
		if !ok || from == "" || to == "" {
			return nil, fmt.Errorf("%s: entry %q is not FROM=TO (e.g. qemu:///session=qemu+unix:///session?socket=/path/libvirt-sock)", URIMapEnv, f)
		}
		out[from] = to
	}
	return out, nil
}

// NewFromEnv returns the Driver site's command builds for run, with
// options read through run.Getenv: host URIs rewritten by URIMapEnv,
// and DefaultShutdownTimeout unless ShutdownTimeoutEnv says otherwise;
// its calls are named to run (Options.Run). A malformed value fails
// every step with the parse error, so a run that touches no libvirt
// host still goes on.
func NewFromEnv(run *backends.Run) *Driver {
	getenv := run.Getenv
	d := New(Options{ShutdownTimeout: DefaultShutdownTimeout, Run: run})
	d.opts.URIMap, d.optsErr = ParseURIMap(getenv(URIMapEnv))
	if v := getenv(ShutdownTimeoutEnv); v != "" && d.optsErr == nil {
		t, err := time.ParseDuration(v)
		if err != nil || t < 0 {
			d.optsErr = fmt.Errorf("%s=%q: want a duration such as 90s or 0s (force off at once)", ShutdownTimeoutEnv, v)
		}
		d.opts.ShutdownTimeout = t
	}
	switch v := getenv(DomainTypeEnv); v {
	case "", "kvm", "qemu":
		d.opts.DomainType = v
	default:
		if d.optsErr == nil {
			d.optsErr = fmt.Errorf("%s=%q: want kvm or qemu (or unset: kvm when the host offers it)", DomainTypeEnv, v)
		}
	}
	return d
}

// Available reports whether libvirt.so.0 can be loaded, and if not, why
// and what to install.
func Available() error {
	availOnce.Do(func() {
		if _, err := libvirt.GetVersion(); err != nil {
			availErr = fmt.Errorf("libvirt library libvirt.so.0 could not be loaded (install the libvirt0 package): %w", err)
		}
	})
	return availErr
}
