package main

import "strings"

// shownChange reports whether a text plan shows action ("+", "~", "-")
// on name's typ records in zone: under the zone's step heading, with
// the name relative to the zone ("@" for the apex), as plans print it.
func shownChange(out, action, zone, name, typ string) bool {
	rel := "@"
	if name != zone {
		rel = strings.TrimSuffix(name, "."+zone)
	}
	return strings.Contains(out, "# dns/"+zone+" ") && strings.Contains(out, action+" "+rel+" "+typ+" ")
}
