// Package journal keeps what each site apply changed, so that site
// history can list it and site undo can plan its inverse.
//
// An Entry is one apply of one tenant: who ran it, when, at which commit
// of the operator's repository, and every change it made with the
// before-image of what it touched — DNS record sets first-class (TTL and
// values, as observed before the apply, the SOA included), and for each
// VM and network the fields its spec sets, before and after
// (backends.Image), beside the changes as the plan showed them. Entries
// live in the store where the tenant's apply
// lock lives (site.cue's locks; the user's state directory by default),
// never in the checkout, and only the last Keep per tenant are kept.
//
// There is no state file: the journal is history, never the truth. An
// undo plans against what is live now, through the ordinary planner and
// gates (Undo), and refuses the record sets and fields someone changed
// since the apply it undoes.
package journal

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/visible"
)

// Keep is how many entries a tenant's journal keeps: writing the next
// one removes the oldest.
const Keep = 20

// Format is the version of an entry's JSON; an entry of another version
// is not read.
const Format = 1

// Entry is what one apply changed of one tenant.
type Entry struct {
	Format int       `json:"format"`
	ID     string    `json:"id"` // see NewID
	Tenant string    `json:"tenant"`
	Time   time.Time `json:"time"`
	// Who is the user and host that ran the apply: "alice@build-3".
	Who string `json:"who"`
	// Commit is the commit checked out in the operator's repository
	// (where site.cue is), "" when it is not a git checkout.
	Commit  string `json:"commit,omitempty"`
	Command string `json:"command,omitempty"`
	// Undoes is the ID of the entry an undo reverted ("" for an apply).
	Undoes  string   `json:"undoes,omitempty"`
	Changes []Change `json:"changes"`
	// Images are, by step, the fields of each VM and network the apply
	// changed, before and after (site undo sets them back). An entry
	// written before they were kept has none.
	Images map[string]*backends.Image `json:"images,omitempty"`
}

// Change is one change an apply made.
type Change struct {
	Key    string      `json:"key"`
	Step   string      `json:"step"`
	Phase  plan.Phase  `json:"phase"`
	Action plan.Action `json:"action"`
	// Zone, Name and Type name a DNS record set; Before is what was
	// live before the apply, After what it wrote (nil: absent).
	Zone string `json:"zone,omitempty"`
	// Provider is, for a zone on several providers, the one this
	// change was written to (its step is dns/ZONE@PROVIDER); "" for a
	// zone on one.
	Provider string `json:"provider,omitempty"`
	Name     string `json:"name,omitempty"`
	Type     string `json:"type,omitempty"`
	Before   *RRset `json:"before,omitempty"`
	After    *RRset `json:"after,omitempty"`
	// Fields are, for a change outside DNS, the attributes the plan
	// compared, before and after.
	BeforeFields map[string]any `json:"before_fields,omitempty"`
	AfterFields  map[string]any `json:"after_fields,omitempty"`
}

// RRset is a record set's data as the planner observed or wrote it.
type RRset struct {
	TTL     uint32   `json:"ttl"`
	Values  []string `json:"values"`
	Proxied bool     `json:"proxied,omitempty"`
	// Owner is the marker it carried ("" for foreign data); an undo
	// writes the data back marked as the tenant's.
	Owner string `json:"owner,omitempty"`
}

// Same reports whether r and o serve the same data (markers aside).
func (r *RRset) Same(o *RRset) bool {
	if r == nil || o == nil {
		return r == o
	}
	if r.TTL != o.TTL || r.Proxied != o.Proxied || len(r.Values) != len(o.Values) {
		return false
	}
	for i := range r.Values {
		if r.Values[i] != o.Values[i] {
			return false
		}
	}
	return true
}

// String is r as a plan shows it.
func (r *RRset) String() string {
	if r == nil {
		return "(none)"
	}
	b, _ := json.Marshal(r.Values)
	return fmt.Sprintf("ttl %d %s", r.TTL, b)
}

// validID is the form NewID makes: the UTC time to the millisecond,
// then random hex, so that names sort as the entries were made (two
// applies of a tenant, one after the other under its lock, are more
// than a millisecond apart).
var validID = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}\.[0-9]{3}Z-[0-9A-F]{8}$`)

// NewID is a new entry's ID, made of t and randomness.
func NewID(t time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:]) // never fails (Go 1.24+)
	return t.UTC().Format("20060102T150405.000Z") + "-" + strings.ToUpper(hex.EncodeToString(r[:]))
}

// ValidID reports whether id is one NewID could have made. An ID is an
// opaque token: anything else a store or a command line says is refused
// before it can name a file.
func ValidID(id string) bool { return validID.MatchString(id) }

// Counts are an entry's changes by action, for site history.
func (e *Entry) Counts() map[plan.Action]int {
	out := map[plan.Action]int{}
	for _, c := range e.Changes {
		out[c.Action]++
	}
	return out
}

// check reports what makes e not an entry of tenant's.
func (e *Entry) check(tenant string) error {
	switch {
	case e.Format != Format:
		return fmt.Errorf("format %d, not %d", e.Format, Format)
	case !ValidID(e.ID):
		return fmt.Errorf("its id is not one site makes")
	case e.Tenant != tenant:
		return fmt.Errorf("it names another tenant")
	case e.Commit != "" && !hashForm.MatchString(e.Commit):
		return fmt.Errorf("its commit is not a hash")
	case e.Undoes != "" && !ValidID(e.Undoes):
		return fmt.Errorf("the entry it undoes has an id site never makes")
	}
	for i, c := range e.Changes {
		if err := c.check(); err != nil {
			return fmt.Errorf("change %d %v", i+1, err)
		}
	}
	for step, img := range e.Images {
		if err := checkImage(step, img); err != nil {
			return fmt.Errorf("the image of %s %v", visible.Short(step), err)
		}
	}
	return nil
}

// typeForm is a record type as site writes it.
var typeForm = regexp.MustCompile(`^[A-Z][A-Z0-9]{0,15}$`)

// check reports what makes c not a change site journals: a key that is
// not one line of printable text, or a DNS record set whose key is not
// made of its zone, name and type, or whose name lies outside its zone.
// An undo writes what a DNS change says back into the tenant's zone, so
// it must at least name a record set of that zone.
func (c Change) check() error {
	if len(c.Key) > 1024 || strings.ContainsFunc(c.Key, unicode.IsControl) {
		return fmt.Errorf("has a key that is no line of text")
	}
	if c.Zone == "" {
		if c.Before != nil || c.After != nil {
			return fmt.Errorf("has record data but no zone")
		}
		return nil
	}
	switch {
	case c.Key != "dns/"+c.Zone+"/"+c.Name+"/"+c.Type:
		return fmt.Errorf("has a key that is not its zone, name and type")
	case !typeForm.MatchString(c.Type):
		return fmt.Errorf("has a record type site never writes")
	case c.Name != c.Zone && !strings.HasSuffix(c.Name, "."+c.Zone):
		return fmt.Errorf("names a record set outside its zone")
	case strings.ContainsFunc(c.Name, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }):
		return fmt.Errorf("has a name that is no DNS name")
	}
	for _, r := range []*RRset{c.Before, c.After} {
		if r != nil && slices.ContainsFunc(r.Values, func(v string) bool { return strings.ContainsFunc(v, unicode.IsControl) }) {
			return fmt.Errorf("has a value that is no line of text")
		}
	}
	return nil
}
