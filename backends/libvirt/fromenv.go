//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"
	"strings"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/hosts"
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
	d.Opts.URIMap, d.OptsErr = ParseURIMap(getenv(hosts.URIMapEnv))
	if v := getenv(hosts.ShutdownTimeoutEnv); v != "" && d.OptsErr == nil {
		t, err := time.ParseDuration(v)
		if err != nil || t < 0 {
			d.OptsErr = fmt.Errorf("%s=%q: want a duration such as 90s or 0s (force off at once)", ShutdownTimeoutEnv, v)
		}
		d.Opts.ShutdownTimeout = t
	}
	switch v := getenv(DomainTypeEnv); v {
	case "", "kvm", "qemu":
		d.Opts.DomainType = v
	default:
		if d.OptsErr == nil {
			d.OptsErr = fmt.Errorf("%s=%q: want kvm or qemu (or unset: kvm when the host offers it)", DomainTypeEnv, v)
		}
	}
	return d
}

// Available reports whether libvirt.so.0 can be loaded, and if not, why
// and what to install.
func Available() error { return hosts.Available() }
