package cftest

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
)

// EpDNSSEC is the endpoint name of GET /zones/{z}/dnssec, used by Count.
const EpDNSSEC = "dnssec"

// DNSSEC is a zone's DNSSEC details as GET /zones/{z}/dnssec returns
// them ("DNSSEC Details" on developers.cloudflare.com/api): status is
// "active", "pending", "disabled", "pending-disabled" or "error"; the
// DS fields are empty while it is disabled. A new zone's is disabled.
type DNSSEC struct {
	Status          string `json:"status"`
	Flags           int    `json:"flags,omitempty"`
	Algorithm       string `json:"algorithm,omitempty"`
	KeyType         string `json:"key_type,omitempty"`
	DigestType      string `json:"digest_type,omitempty"`
	DigestAlgorithm string `json:"digest_algorithm,omitempty"`
	Digest          string `json:"digest,omitempty"`
	DS              string `json:"ds,omitempty"`
	KeyTag          int    `json:"key_tag,omitempty"`
	PublicKey       string `json:"public_key,omitempty"`
}

// SetDNSSEC sets the DNSSEC status of a zone ("active" or "pending", as
// after a user enabled it in the dashboard) with one ECDSA P-256 key of
// keyTag and its SHA-256 digest (hex), as Cloudflare signs. The
// documented example's ds field is "<zone>. 3600 IN DS <tag> 13 2
// <DIGEST>", the digest in upper case, which the fake copies. The
// public_key is the base64 of a P-256 key's 64 octets; the fake's is a
// stand-in that matches no digest (site reads only the DS fields).
func (s *Server) SetDNSSEC(zoneID, status string, keyTag int, digest string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := s.zones[zoneID]
	digest = strings.ToUpper(digest)
	z.dnssec = DNSSEC{Status: status, Flags: 257, Algorithm: "13", KeyType: "ECDSAP256SHA256",
		DigestType: "2", DigestAlgorithm: "SHA256", Digest: digest, KeyTag: keyTag,
		PublicKey: base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{byte(keyTag)}, 64)),
		DS:        z.name + ". 3600 IN DS " + strconv.Itoa(keyTag) + " 13 2 " + digest}
}

// dnssec answers GET /zones/{z}/dnssec.
func (s *Server) dnssec(w http.ResponseWriter, z *zone) {
	d := z.dnssec
	if d.Status == "" {
		d.Status = "disabled"
	}
	writeJSON(w, http.StatusOK, envelope(d))
}
