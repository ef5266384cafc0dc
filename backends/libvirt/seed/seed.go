// Package seed builds cloud-init NoCloud seed images: an ISO 9660 volume
// labelled "cidata" holding user-data, meta-data and an optional
// network-config (cloud-init's nocloud datasource documentation).
//
// A seed is content addressed: its name, seed-<hash>.iso, and the
// instance-id in its meta-data both derive from a hash of its inputs, and
// its bytes are a pure function of them (see WriteISO). A host reboot, a
// wiped /tmp or a second machine therefore yields the same name and the
// same bytes, and changed inputs always yield a new name and a new
// instance-id (cloud-init reruns only when the instance-id changes).
//
// Build works in memory only: nothing is staged in a temporary directory.
// The image has no Rock Ridge or Joliet extensions; Linux shows its
// ISO 9660 names ("USER-DATA.;1") as "user-data", which is what cloud-init
// reads. Windows guests (cloudbase-init), which need Joliet, are not
// supported.
package seed

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// formatVersion is hashed with the inputs; bump it whenever the image
// layout or the generated meta-data changes, so that old and new seeds
// never share a name.
const formatVersion = "site-seed-1"

// Input is what a VM's seed is made of.
type Input struct {
	Hostname      string // local-hostname in meta-data
	UserData      string
	MetaData      string // extra meta-data lines, appended after ours
	NetworkConfig string // optional; no file when empty
}

// Seed is a built NoCloud image.
type Seed struct {
	Name       string // volume name, seed-<16 hex digits>.iso
	Hash       string // the full hex sha256 of the canonical inputs
	InstanceID string // iid-<16 hex digits>
	ISO        []byte
}

// Build canonicalises in, hashes it and returns the image.
func Build(in Input) *Seed {
	user := canonical(in.UserData)
	extra := canonical(in.MetaData)
	netcfg := ""
	if strings.TrimSpace(in.NetworkConfig) != "" {
		netcfg = canonical(in.NetworkConfig)
	}
	h := sha256.New()
	for _, part := range []string{formatVersion, in.Hostname, user, extra, netcfg} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	sum := hex.EncodeToString(h.Sum(nil))
	s := &Seed{Name: "seed-" + sum[:16] + ".iso", Hash: sum, InstanceID: "iid-" + sum[:16]}
	meta := fmt.Sprintf("instance-id: %s\nlocal-hostname: %s\n", s.InstanceID, in.Hostname)
	if strings.TrimSpace(extra) != "" {
		meta += extra
	}
	files := []File{{Name: "meta-data", Data: []byte(meta)}, {Name: "user-data", Data: []byte(user)}}
	if netcfg != "" {
		files = append(files, File{Name: "network-config", Data: []byte(netcfg)})
	}
	s.ISO = WriteISO("cidata", files)
	return s
}

// canonical normalises line ends to LF and ends non-empty text with one
// newline, so that editors' habits do not change a seed's identity.
func canonical(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
