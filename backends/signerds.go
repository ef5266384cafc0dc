package backends

// SignerDS is what a signed zone's own step read of the DS its parent
// must publish: Cloudflare's DNSSEC details, or the keys of a PowerDNS
// zone site signs. The parent's step runs after the child's
// (compiler/graph), so it finds this in the Run when it plans; a parent
// whose provider cannot read the child's signer has no other way to
// learn it.
type SignerDS struct {
	// DS are the records the parent must publish, as "keytag algorithm
	// digesttype digest" (digest in lower-case hex); empty while the
	// signer publishes none.
	DS []string
	// Status is the signer's word for its DNSSEC state ("active",
	// "pending", "disabled", ...), for the parent's note.
	Status string
	// Pending says the zone is signed in this apply: its DS is known
	// once its step has applied, which sets this again.
	Pending bool
}

// SetSignerDS records what zone's step read of its DS.
func (r *Run) SetSignerDS(zone string, d SignerDS) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.signerDS == nil {
		r.signerDS = map[string]SignerDS{}
	}
	r.signerDS[zone] = d
}

// SignerDSOf returns what zone's step read of its DS, and false when
// that step has not read it in this run (it is out of scope, or could
// not be observed): then nothing is known, and nothing may be deleted
// for it.
func (r *Run) SignerDSOf(zone string) (SignerDS, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.signerDS[zone]
	return d, ok
}
