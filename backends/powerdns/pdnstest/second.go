package pdnstest

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A second backend (Options.Second) is how a PowerDNS server can serve
// data its API does not list: with launch=gsqlite3,gsqlite3:second, a
// record in the second database that carries the domain_id of a zone of
// the first is answered over DNS, while the API's GET of the zone and
// its AXFR show only the first database's records.

// secondDB is the second backend's database in dir.
func secondDB(dir string) string { return filepath.Join(dir, "second.sqlite3") }

// createSecond makes the second backend's database from schema.
func createSecond(dir string, schema []byte) error {
	db := secondDB(dir)
	sq := exec.Command("sqlite3", db)
	sq.Stdin = bytes.NewReader(schema)
	if out, err := sq.CombinedOutput(); err != nil {
		return fmt.Errorf("create %s with sqlite3: %w: %s", db, err, out)
	}
	return nil
}

// HideRecord puts one record (name, type, ttl, content in presentation
// form) into the second backend under the domain_id zone has in the
// first, so that DNS serves it and the API does not list it. The server
// must have started with Options.Second, and zone must exist. Insert it
// before anything asks for the name: the server caches answers, a "no
// such name" included.
func (s *Server) HideRecord(t testing.TB, zone, name, typ string, ttl uint32, content string) {
	t.Helper()
	unq := func(n string) string { return strings.ToLower(strings.TrimSuffix(n, ".")) }
	quote := func(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }
	out, err := exec.Command("sqlite3", filepath.Join(s.Dir, "pdns.sqlite3"),
		"SELECT id FROM domains WHERE name="+quote(unq(zone))).CombinedOutput()
	id, perr := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || perr != nil {
		t.Fatalf("HideRecord: domain_id of %s: %v %v: %s", zone, err, perr, out)
	}
	insert := fmt.Sprintf("INSERT INTO records (domain_id, name, type, content, ttl, prio, disabled, auth) VALUES (%d, %s, %s, %s, %d, 0, 0, 1)",
		id, quote(unq(name)), quote(typ), quote(content), ttl)
	if out, err := exec.Command("sqlite3", secondDB(s.Dir), insert).CombinedOutput(); err != nil {
		t.Fatalf("HideRecord: insert into %s (start the server with Options.Second): %v: %s", secondDB(s.Dir), err, out)
	}
}
