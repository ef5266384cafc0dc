package pdnstest

import (
	"net"
	"strconv"
)

// config is the pdns.conf of a test server: the database db of its
// backend, DNS and HTTP API on loopback ports, no daemon, nothing sent
// outside.
func config(db string, dnsPort, apiPort int, apiKey, dir string, opts Options) []string {
	var conf []string
	switch opts.Backend {
	case LMDB:
		conf = []string{"launch=lmdb", "lmdb-filename=" + db}
	default:
		dnssec := "yes"
		if opts.NoDNSSEC {
			dnssec = "no"
		}
		conf = []string{
			"launch=gsqlite3",
			"gsqlite3-database=" + db,
			// Keys for zones with dnssec: true (the schema has the tables;
			// without this adding a key answers 422 "Adding key failed,
			// perhaps DNSSEC not enabled in configuration?").
			"gsqlite3-dnssec=" + dnssec,
		}
		if opts.Second {
			conf[0] = "launch=gsqlite3,gsqlite3:second"
			conf = append(conf, "gsqlite3-second-database="+secondDB(dir), "gsqlite3-second-dnssec=no")
		}
	}
	conf = append(conf,
		"local-address=127.0.0.1",
		"local-port="+strconv.Itoa(dnsPort),
		"api=yes",
		"api-key="+apiKey,
		"webserver=yes",
		"webserver-address=127.0.0.1",
		"webserver-port="+strconv.Itoa(apiPort),
		"webserver-allow-from=127.0.0.0/8",
		"socket-dir="+dir,
		"daemon=no",
		"guardian=no",
		"disable-syslog=yes",
		"write-pid=no",
		// An empty suffix stops the start-up security poll, an outbound
		// DNS lookup that would hang or fail on a machine without network.
		"security-poll-suffix=",
		// ALIAS records are served as their target's addresses only with
		// expand-alias, which resolves the target through resolver=. The
		// server itself is that resolver: tests point ALIAS records at
		// names in zones it serves, so no query leaves loopback.
		"expand-alias=yes",
		"resolver="+net.JoinHostPort("127.0.0.1", strconv.Itoa(dnsPort)),
	)
	if opts.MaxBodyMB > 0 {
		conf = append(conf, "webserver-max-bodysize="+strconv.Itoa(opts.MaxBodyMB))
	}
	return conf
}
