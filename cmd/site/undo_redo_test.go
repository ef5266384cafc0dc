package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// historyIDs are the entry ids site history printed, newest first.
func historyIDs(out string) []string {
	return regexp.MustCompile(`(?m)^([0-9]{8}T[0-9]{6}\.[0-9]{3}Z-[0-9A-F]{8}) `).FindAllString(out, -1)
}

// TestUndoByIDAndRedo: site undo --id of an older apply whose record
// sets a later apply rewrote is refused; the undo of the newest brings
// the zone back (AXFR equal), is itself journalled, naming what it
// undid, and undoing that undo redoes the apply.
func TestUndoByIDAndRedo(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "redo.example.test."
	file := tenantFile(t, srv, "redo.example.test", `
			val: A: ["192.0.2.1"]
			www: CNAME: "val.redo.example.test."`)
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply v1: exit %d\n%s%s", code, out, errOut)
	}
	v1 := transferred(t, srv.DNSAddr, zone)
	src, _ := os.ReadFile(file)
	v2src := strings.NewReplacer(`"192.0.2.1"`, `"192.0.2.100"`, `www: CNAME: "val.redo.example.test."`, `www: A: ["192.0.2.7"]`).Replace(string(src))
	if err := os.WriteFile(file, []byte(v2src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := siteRun(t, srv, "apply", file, "--yes"); code != exitOK {
		t.Fatalf("apply v2: exit %d\n%s%s", code, out, errOut)
	}
	v2 := transferred(t, srv.DNSAddr, zone)
	_, out, _ := siteRun(t, srv, "history", file)
	ids := historyIDs(out)
	if len(ids) != 2 {
		t.Fatalf("history lists %d entries, want 2:\n%s", len(ids), out)
	}
	first := strings.TrimSpace(ids[1])
	code, out, errOut := siteRun(t, srv, "undo", "--id", first, file, "--yes")
	if code != exitError || !strings.Contains(errOut, "val.redo.example.test./A: the apply wrote ttl 300 [\"192.0.2.1\"], live is ttl 300 [\"192.0.2.100\"]") {
		t.Errorf("undo --id of the first apply: exit %d, want 1 naming val\n%s%s", code, out, errOut)
	}
	if got := transferred(t, srv.DNSAddr, zone); strings.Join(got, "\n") != strings.Join(v2, "\n") {
		t.Errorf("a refused undo changed the zone:\n%s", strings.Join(got, "\n"))
	}
	if code, out, errOut := siteRun(t, srv, "undo", file, "--yes"); code != exitOK {
		t.Fatalf("undo: exit %d\n%s%s", code, out, errOut)
	}
	if got := transferred(t, srv.DNSAddr, zone); strings.Join(got, "\n") != strings.Join(v1, "\n") {
		t.Errorf("after the undo:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(v1, "\n"))
	}
	_, out, _ = siteRun(t, srv, "history", file)
	if ids = historyIDs(out); len(ids) != 3 || !strings.Contains(out, "(undoes "+strings.TrimSpace(historyIDs(out)[1])+")") {
		t.Fatalf("history after the undo, want 3 entries, the newest undoing the second:\n%s", out)
	}
	if code, out, errOut := siteRun(t, srv, "undo", file, "--yes"); code != exitOK {
		t.Fatalf("undo of the undo: exit %d\n%s%s", code, out, errOut)
	}
	if got := transferred(t, srv.DNSAddr, zone); strings.Join(got, "\n") != strings.Join(v2, "\n") {
		t.Errorf("after undoing the undo:\n%s\nwant v2:\n%s", strings.Join(got, "\n"), strings.Join(v2, "\n"))
	}
}
