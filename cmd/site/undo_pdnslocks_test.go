package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestUndoRoundTripLocksInPowerDNS runs the undo round trip
// (testdata/script/undo_roundtrip.txtar) again with site.cue's locks in
// the metadata of a PowerDNS zone and the journal in another beside it:
// site history lists both applies from there, site undo brings the zone
// back as it transferred before, and no journal directory is written.
func TestUndoRoundTripLocksInPowerDNS(t *testing.T) {
	t.Cleanup(closeSharedPDNS)
	p := scriptParams(`locks: powerdns: {provider: "pdns", zone: "undo-locks.example.test", journal: "undo-journal.example.test"}`)
	p.Files = []string{pkgFile("testdata/script/undo_roundtrip.txtar")}
	testscript.Run(t, p)
}
