package cloudflare

import (
	"fmt"

	"github.com/site-tools/site/compiler/rdata"
)

// cfField is the name Cloudflare's `data` gives a field of a struct type
// where it differs from the language's (rdata.StructFields): NAPTR's
// regexp is "regex", and the SvcParams of HTTPS and SVCB are "value".
// Every other field is named alike (the API's record schemas for SSHFP,
// TLSA, DS, NAPTR, HTTPS and SVCB).
var cfField = map[string]string{"regexp": "regex", "params": "value"}

// nameFields are the struct fields that hold a domain name, which
// Cloudflare writes without the trailing dot.
var nameFields = map[string]bool{"target": true, "replacement": true}

// toData is a struct type's value as Cloudflare's `data`.
func toData(typ, value string) (map[string]any, error) {
	f, err := rdata.ToFields(typ, value)
	if err != nil {
		return nil, err
	}
	d := make(map[string]any, len(f))
	for k, v := range f {
		if nameFields[k] {
			v = hostname(v.(string))
		}
		d[dataKey(k)] = v
	}
	return d, nil
}

// fromData is toData's inverse: the canonical value of a listed record's
// `data`.
func fromData(typ string, d map[string]any) (string, error) {
	f := make(map[string]any, len(d))
	for _, fd := range rdata.StructFields(typ) {
		v, ok := d[dataKey(fd.Name)]
		if !ok {
			if fd.Int {
				return "", fmt.Errorf("%s data has no %s", typ, dataKey(fd.Name))
			}
			continue
		}
		if nameFields[fd.Name] {
			v = fqdnOrRoot(fmt.Sprint(v))
		}
		f[fd.Name] = v
	}
	return rdata.FromFields(typ, f)
}

func dataKey(field string) string {
	if k, ok := cfField[field]; ok {
		return k
	}
	return field
}

// fqdnOrRoot is fqdn, except that the root "." stays itself.
func fqdnOrRoot(s string) string {
	if s == "." {
		return s
	}
	return fqdn(s)
}
