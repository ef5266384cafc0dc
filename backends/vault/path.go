package vault

import (
	"fmt"
	"strings"
	"unicode"
)

// checkPaths refuses a secret path, KV mount or AppRole mount that could
// reach anything but what it names, before any request is made. The
// library puts them into the request URL as they are, so
// "../../../sys/raw/x" under mount "secret" reached the server as
// GET /sys/raw/x, token included.
func (r *reader) checkPaths() error {
	if err := checkPath(r.sec.Ref.Path); err != nil {
		return fmt.Errorf("secret path %q of vault %s: %s: write a path inside the mount, like dns/cloudflare", r.sec.Ref.Path, r.sec.Store.Name, err)
	}
	if err := checkPath(r.mount()); err != nil {
		return fmt.Errorf("KV mount %q of vault %s: %s: write the mount's path, like secret", r.mount(), r.sec.Store.Name, err)
	}
	if ar := r.sec.Store.AppRole; ar != nil && ar.Mount != "" {
		if err := checkPath(ar.Mount); err != nil {
			return fmt.Errorf("AppRole mount %q of vault %s: %s: write the auth mount's path, like approle", ar.Mount, r.sec.Store.Name, err)
		}
	}
	return nil
}

// checkPath accepts only a path already in normal form: segments joined
// by single slashes, none of them "." or "..", nothing the URL or the
// server would decode into something else. A path that is not in normal
// form is refused, not cleaned, because the cleaned path would read a
// secret the spec does not name.
func checkPath(p string) error {
	if p == "" {
		return fmt.Errorf("it is empty")
	}
	if i := strings.IndexFunc(p, func(c rune) bool {
		// '%' would be decoded by the server ("%2e%2e" is ".."), '\\'
		// is a separator to some proxies, '?' and '#' end the path.
		return c == '%' || c == '\\' || c == '?' || c == '#' || unicode.IsControl(c)
	}); i >= 0 {
		return fmt.Errorf("it holds %q, which a URL or the server would read as something else", p[i:i+1])
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "":
			return fmt.Errorf("it has an empty segment (a leading, trailing or doubled /)")
		case ".", "..":
			return fmt.Errorf("it has a %q segment, which could leave the mount", seg)
		}
	}
	return nil
}
