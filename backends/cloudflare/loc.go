package cloudflare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/rdata"
)

// locFields are the `data` fields of a Cloudflare LOC record, in the
// order of LOC's presentation form (RFC 1876 §3): degrees, minutes,
// seconds and direction of the latitude, then of the longitude, then
// altitude, size and the two precisions in metres.
var locFields = []string{"lat_degrees", "lat_minutes", "lat_seconds", "lat_direction",
	"long_degrees", "long_minutes", "long_seconds", "long_direction",
	"altitude", "size", "precision_horz", "precision_vert"}

// locData is a canonical LOC value (rdata.LOC) as Cloudflare's `data`:
// the directions as letters, degrees and minutes as integers, the rest
// as numbers without the unit.
func locData(value string) (map[string]any, error) {
	f := strings.Fields(value)
	if len(f) != len(locFields) {
		return nil, fmt.Errorf("LOC value %q has %d fields, want %d", value, len(f), len(locFields))
	}
	d := make(map[string]any, len(f))
	for i, name := range locFields {
		w := strings.TrimSuffix(f[i], "m")
		switch {
		case strings.HasSuffix(name, "_direction"):
			d[name] = w
		case strings.HasSuffix(name, "_degrees"), strings.HasSuffix(name, "_minutes"):
			n, err := strconv.Atoi(w)
			if err != nil {
				return nil, fmt.Errorf("LOC value %q: %s %q is not an integer", value, name, w)
			}
			d[name] = n
		default:
			x, err := strconv.ParseFloat(w, 64)
			if err != nil {
				return nil, fmt.Errorf("LOC value %q: %s %q is not a number", value, name, w)
			}
			d[name] = x
		}
	}
	return d, nil
}

// fromLOCData is locData's inverse: the canonical value of a listed LOC
// record's `data`.
func fromLOCData(d map[string]any) (string, error) {
	words := make([]string, len(locFields))
	for i, name := range locFields {
		v, ok := d[name]
		if !ok {
			return "", fmt.Errorf("LOC data has no %s", name)
		}
		words[i] = fmt.Sprint(v)
		if i >= 8 {
			words[i] += "m"
		}
	}
	return rdata.LOC(strings.Join(words, " "))
}
