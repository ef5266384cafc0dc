package powerdns

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/visible"
)

// A PowerDNS whose backend stores no rrset comments (lmdb, and the others
// PowerDNS's backend table marks "Comments: No") cannot hold site's owner
// markers. Measured on 4.7.3 with lmdb: a POST keeps a
// new zone's records and answers with every rrset's comments empty, the
// markers dropped without a word; a PATCH that carries comments is
// refused whole, 422 "Hosting backend does not support editing
// comments.". Left alone, the first shows as "not converged" for every
// rrset and the second as an invalid record, and every later diff plans
// to adopt the same records again. Instead the first write that shows it
// fails its step with one explanation for the server (its backend read
// from the server's config, on this path only), and the run writes
// nothing more to that server: each write would only add unmarked
// records, which site then never deletes.
//
// site diff cannot tell it earlier: a zone whose rrsets carry no comment
// at all is what any zone site has not written yet looks like, and
// PowerDNS says which backend it runs only in its config, a request the
// diff does not make.

// noComments is what a run learnt about a server that stores no rrset
// comments, kept once per server (runstate.State.Once).
type noComments struct {
	zone   string // the zone whose write found it
	launch string // the server's launch setting; "" when it could not be read
}

func noCommentsKey(c *client) string {
	return "powerdns stores no comments " + c.base + " " + c.raw.server
}

// commentsRefused reports whether err is PowerDNS refusing a PATCH for
// the comments it carries.
func commentsRefused(err error) (msg string, ok bool) {
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnprocessableEntity {
		return "", false
	}
	for _, m := range ae.Messages {
		if strings.Contains(m, "does not support editing comments") {
			return m, true
		}
	}
	return "", false
}

// droppedMarkers reports whether answer, the zone as the server holds
// it after a write of sent, shows that the server kept none of the owner
// markers: every rrset sent with one is there without any comment at
// all. An rrset that kept a comment says the server stores them.
func droppedMarkers(sent []pdns.RRset, answer *pdns.Zone) bool {
	live := make(map[rrKey]*pdns.RRset, len(answer.RRsets))
	for i := range answer.RRsets {
		live[keyOf(&answer.RRsets[i])] = &answer.RRsets[i]
	}
	dropped := false
	for _, rs := range sent {
		if !hasMarker(rs.Comments) {
			continue
		}
		got := live[keyOf(&rs)]
		if got == nil {
			continue
		}
		if len(got.Comments) > 0 {
			return false
		}
		dropped = true
	}
	return dropped
}

func keyOf(rs *pdns.RRset) rrKey {
	k := rrKey{name: strings.ToLower(pdns.StringValue(rs.Name))}
	if rs.Type != nil {
		k.typ = strings.ToUpper(string(*rs.Type))
	}
	return k
}

func hasMarker(comments []pdns.Comment) bool {
	for _, c := range comments {
		if pdns.StringValue(c.Account) == MarkerAccount {
			return true
		}
	}
	return false
}

// knownNoComments returns what an earlier write of this run found, when
// one found that c's server stores no comments.
func knownNoComments(c *client, run *backends.Run) (noComments, bool) {
	v, _, ok := runstate.Memos(run).Known(noCommentsKey(c))
	if !ok {
		return noComments{}, false
	}
	return v.(noComments), true
}

// foundNoComments records that zone's write found c's server storing no
// comments. first is true for the first zone of the run that found it:
// only its error explains, the others point to it.
func (d *Driver) foundNoComments(ctx context.Context, c *client, zone string, run *backends.Run) (nc noComments, first bool) {
	v, _ := runstate.Memos(run).Once(noCommentsKey(c), func() (any, error) {
		first = true
		return noComments{zone: zone, launch: d.launch(ctx, c)}, nil
	})
	return v.(noComments), first
}

// launch reads the server's launch setting (its backends), "" when the
// config cannot be read: the error it goes into is worth more than this
// detail, so one try and no retry.
func (d *Driver) launch(ctx context.Context, c *client) string {
	var settings []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	actx, cancel := context.WithTimeout(ctx, min(d.timeout(), d.requestTimeout(ctx)))
	defer cancel()
	if call(actx, func(ctx context.Context) error { return c.raw.do(ctx, http.MethodGet, "config", nil, &settings) }) != nil {
		return ""
	}
	for _, s := range settings {
		if s.Name == "launch" {
			return s.Value
		}
	}
	return ""
}

// cannotMark is the explanation, said once per server and run, and its
// advice; after names what the next apply does once the backend stores
// comments.
func cannotMark(c *client, nc noComments, after string) (string, hint.Hint) {
	backend := "its backend"
	if nc.launch != "" {
		backend = "its backend (launch=" + visible.Short(nc.launch) + ")"
	}
	return fmt.Sprintf("PowerDNS at %s (server %s) cannot hold site's owner markers: %s does not store rrset comments, and site marks the records it manages with rrset comments, so it cannot manage zones on this server and writes nothing more to it in this run",
		c.base, c.raw.server, backend), hint.Hint{Kind: hint.StoreComments, Spec: after}
}

// markersDropped is the error of a zone whose creation kept its records
// but none of their owner markers.
func (d *Driver) markersDropped(ctx context.Context, c *client, zone string, run *backends.Run) error {
	nc, first := d.foundNoComments(ctx, c, zone, run)
	if !first {
		return fmt.Errorf("zone %s was created with its records, unmarked as well: its server stores no rrset comments, as the creation of zone %s found (see that zone's error); site will never delete these records", zone, nc.zone)
	}
	why, h := cannotMark(c, nc, "which marks them")
	return hint.Errorf(h, "zone %s was created with its records, but the server kept none of the owner markers written with them: "+
		"those records are unmarked, so site takes them for foreign data and will never delete them, and every diff plans to adopt them; %s",
		zone, why)
}

// markersRefused is the error of a PATCH the server refused for its
// comments (msg); written says what of the zone's write was not
// written (see unwritten).
func (d *Driver) markersRefused(ctx context.Context, c *client, zone, msg, written string, run *backends.Run) error {
	nc, first := d.foundNoComments(ctx, c, zone, run)
	if !first {
		return notWritten(zone, written, nc)
	}
	why, h := cannotMark(c, nc, "which writes this zone's changes with their markers")
	return hint.Errorf(h, "zone %s: the server refused the owner markers (%q): %s; %s", zone, msg, written, why)
}

// notWritten is the error of a zone not written (what written says)
// because an earlier write of the run found its server storing no
// comments.
func notWritten(zone, written string, nc noComments) error {
	return fmt.Errorf("zone %s: %s: its server stores no rrset comments, so no owner markers, as writing zone %s found in this run (see that zone's error)", zone, written, nc.zone)
}

// unwritten says what a write left unwritten when the server refused
// its part done+1 of total (a PATCH is refused whole): the parts before
// it were written, and a claim that nothing was would send the operator
// away from a zone that changed. created is true when part 1 created
// the zone, empty.
func unwritten(created bool, done, total int) string {
	switch {
	case created && done == 1:
		return "the zone was created empty and none of its records were written"
	case done == 0:
		return "nothing was written"
	case done+1 == total:
		return fmt.Sprintf("part %d of %d was not written (the parts before it were)", total, total)
	}
	return fmt.Sprintf("parts %d to %d of %d were not written (the parts before them were)", done+1, total, total)
}
