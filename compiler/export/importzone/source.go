package importzone

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// This file is what site import does around Import: check the format,
// read the source, and say what site.cue needs.

// CheckFormat refuses a source format Import does not read.
func CheckFormat(format string) error {
	if !slices.Contains(Formats, format) {
		return fmt.Errorf("site import cannot read %q: name one of %s", format, strings.Join(Formats, ", "))
	}
	return nil
}

// ReadSource reads file, stdin for "-", and returns its contents and
// the name messages give it.
func ReadSource(file string, stdin io.Reader) (src []byte, name string, err error) {
	if file == "-" {
		src, err = io.ReadAll(stdin)
		return src, "stdin", err
	}
	src, err = os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, file, fmt.Errorf("%s does not exist; give the file the other tool keeps the zone in", file)
	}
	return src, file, err
}

// WriteSiteNeeds says on w what site.cue must declare and grant for the
// spec of req's zones.
func WriteSiteNeeds(w io.Writer, req Request, zones []string) {
	quoted := make([]string, len(zones))
	for i, z := range zones {
		quoted[i] = fmt.Sprintf("%q", z)
	}
	fmt.Fprintf(w, "site.cue must declare provider %s and grant the tenant the zones and the provider:\n\ntenants: %s: {domains: [%s], providers: [%q]}\n",
		req.Provider, req.Tenant, strings.Join(quoted, ", "), req.Provider)
}
