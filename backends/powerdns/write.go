package powerdns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/visible"
)

// write sends the batch: a missing zone is created with its rrsets in one
// POST; an existing zone gets one PATCH, DELETEs first so that an rrset
// giving way to a CNAME is gone before the CNAME is written. When the
// body limit splits it, each request is a part, and a run interrupted
// between parts stops there with a *backends.PartialError.
func (d *Driver) write(ctx context.Context, b *batch, zone string, run *backends.Run) error {
	ops := make([]pdns.RRset, 0, len(b.deletes)+len(b.replaces))
	ops = append(ops, b.deletes...)
	ops = append(ops, b.replaces...)
	chunks := split(ops, d.maxBody())
	if !b.create {
		b.client.writeLock.Lock()
		defer b.client.writeLock.Unlock()
		if run.Interrupted() {
			// Interrupted while it waited its turn: nothing was sent,
			// so nothing is started (a first Ctrl-C finishes only what
			// is under way).
			return errNotStarted
		}
		if nc, ok := knownNoComments(b.client, run); ok {
			return notWritten(zone, "nothing was written", nc)
		}
		if err := d.recheck(ctx, b, zone); err != nil {
			return err
		}
		if err := d.asObserved(ctx, b, zone); err != nil {
			return err
		}
		return d.patch(ctx, b, zone, chunks, 0, run)
	}
	z := &pdns.Zone{Name: pdns.String(zone), Kind: pdns.ZoneKindPtr(pdns.NativeZoneKind),
		// DEFAULT, never "": an empty SOA-EDIT-API leaves the serial
		// at 0 for ever and secondaries never see a change.
		SOAEditAPI: pdns.String("DEFAULT"), Nameservers: []string{}}
	if len(chunks) == 1 {
		// A POST takes rrsets without changetype; only REPLACEs exist
		// for a zone that does not exist yet.
		for _, rs := range b.replaces {
			rs.ChangeType = nil
			z.RRsets = append(z.RRsets, rs)
		}
		chunks = nil
	}
	// Zone creations share the server's write lock (see servers).
	b.client.writeLock.RLock()
	if run.Interrupted() {
		b.client.writeLock.RUnlock()
		return errNotStarted
	}
	if nc, ok := knownNoComments(b.client, run); ok {
		b.client.writeLock.RUnlock()
		return notWritten(zone, "nothing was written", nc)
	}
	var created *pdns.Zone
	// lost is the failure of the try before the last: retried, so
	// transient, and that try may have created the zone.
	var lost, last error
	err := d.retry(ctx, func(ctx context.Context) error {
		lost = last
		created, last = b.client.api.Zones.Add(ctx, z)
		return last
	})
	b.client.writeLock.RUnlock()
	if err != nil {
		return createFailed(zone, err, lost)
	}
	if len(chunks) == 0 {
		if droppedMarkers(b.replaces, created) {
			return d.markersDropped(ctx, b.client, zone, run)
		}
		b.created = created
		return nil
	}
	// The POST is the first part when PATCHes follow it.
	b.client.writeLock.Lock()
	defer b.client.writeLock.Unlock()
	return d.patch(ctx, b, zone, chunks, 1, run)
}

// patch sends chunks in order; done parts were sent before them.
func (d *Driver) patch(ctx context.Context, b *batch, zone string, chunks [][]pdns.RRset, done int, run *backends.Run) error {
	total := done + len(chunks)
	for _, chunk := range chunks {
		if done > 0 && run.Interrupted() {
			return &backends.PartialError{Applied: done, Total: total, Err: backends.ErrInterrupted}
		}
		err := d.retry(ctx, func(ctx context.Context) error {
			return b.client.api.Records.Patch(ctx, zone, &pdns.RRsets{Sets: chunk})
		})
		if msg, ok := commentsRefused(err); ok {
			// The whole PATCH was refused for its owner markers.
			err = d.markersRefused(ctx, b.client, zone, msg, unwritten(b.create, done, total), run)
			if done > 0 && !b.create {
				return &backends.PartialError{Applied: done, Total: total, Err: err}
			}
			return err
		}
		if err != nil {
			err = writeFailed("update zone "+zone, err)
			if done > 0 {
				return &backends.PartialError{Applied: done, Total: total, Err: err}
			}
			return err
		}
		done++
	}
	return nil
}

// split cuts ops into PATCH bodies of at most limit bytes, keeping their
// order (so every DELETE still precedes every REPLACE). One body is the
// rule; several only when the server would refuse one this big, at the
// cost of atomicity between them. Sizes are counted with rrsetSize, an
// upper bound exact for ASCII, rather than by encoding the body an extra
// time: the client encodes it anyway, and for 10,000 rrsets a second
// encoding was a tenth of site's own share of the apply.
func split(ops []pdns.RRset, limit int) [][]pdns.RRset {
	if len(ops) == 0 {
		return nil
	}
	// The body is {"rrsets":[a,b,...]} and a newline from the encoder.
	const envelope = len(`{"rrsets":[]}` + "\n")
	sizes := make([]int, len(ops))
	total := envelope - 1
	for i := range ops {
		sizes[i] = rrsetSize(&ops[i])
		total += sizes[i] + 1 // the comma, one too many for the last
	}
	if total <= limit {
		return [][]pdns.RRset{ops}
	}
	var chunks [][]pdns.RRset
	start, size := 0, envelope
	for i := range ops {
		n := sizes[i] + 1 // the comma
		if i > start && size+n > limit {
			chunks = append(chunks, ops[start:i])
			start, size = i, envelope
		}
		size += n
	}
	return append(chunks, ops[start:])
}

// rrsetSize is at most the length of rs as encoding/json writes it with
// go-powerdns v3's field tags, and exactly that for ASCII text without
// line breaks or tabs; TestRRsetSizeBoundsTheEncoding holds it to both,
// so a client upgrade that changes the shape fails the test, not a PATCH.
func rrsetSize(rs *pdns.RRset) int {
	n := len(`{"records":}`) // records has no omitempty
	field := func(key string) int { return len(key) + len(`"":,`) }
	if rs.Name != nil {
		n += field("name") + jsonStringSize(*rs.Name)
	}
	if rs.Type != nil {
		n += field("type") + jsonStringSize(string(*rs.Type))
	}
	if rs.TTL != nil {
		n += field("ttl") + digits(uint64(*rs.TTL))
	}
	if rs.ChangeType != nil {
		n += field("changetype") + jsonStringSize(string(*rs.ChangeType))
	}
	if rs.Records == nil {
		n += len("null")
	} else {
		n += len("[]") + max(len(rs.Records)-1, 0)
		for _, r := range rs.Records {
			m := 0
			if r.Content != nil {
				m += field("content") + jsonStringSize(*r.Content)
			}
			if r.Disabled != nil {
				m += field("disabled") + boolSize(*r.Disabled)
			}
			if r.SetPTR != nil {
				m += field("set-ptr") + boolSize(*r.SetPTR)
			}
			n += object(m)
		}
	}
	if len(rs.Comments) > 0 {
		n += field("comments") + len("[]") + len(rs.Comments) - 1
		for _, c := range rs.Comments {
			m := 0
			if c.Content != nil {
				m += field("content") + jsonStringSize(*c.Content)
			}
			if c.Account != nil {
				m += field("account") + jsonStringSize(*c.Account)
			}
			if c.ModifiedAt != nil {
				m += field("modified_at") + digits(*c.ModifiedAt)
			}
			n += object(m)
		}
	}
	return n
}

// jsonStringSize bounds the length of s as a JSON string from
// encoding/json: quotes, \" and \\, and six bytes (\u00XX) for a
// control character, for <, > and & (escaped for HTML by default) and,
// to stay an upper bound without decoding UTF-8, for any byte past ASCII.
func jsonStringSize(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x80 || c == '<' || c == '>' || c == '&':
			n += 5
		case c == '"' || c == '\\':
			n++
		}
	}
	return n
}

// object is the size of {...} around fields of total size m, each
// counted with a trailing comma the last one does not have.
func object(m int) int {
	if m == 0 {
		return len("{}")
	}
	return m + len("{}") - 1
}

func boolSize(b bool) int {
	if b {
		return len("true")
	}
	return len("false")
}

func digits(v uint64) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// errNotStarted is a step interrupted while it waited its turn to write
// (PATCHes to one server go one at a time, creations share that turn):
// nothing was sent.
var errNotStarted = fmt.Errorf("not started: it waited its turn to write to the server: %w", backends.ErrInterrupted)

// createFailed is the error of a zone's create. A try that failed
// transiently (no answer, a proxy's 502) may have reached PowerDNS and
// created the zone with its records; the retry then finds it there
// (409), which is no refusal of the change: the zone holds what the
// lost try sent, and only observing it tells.
func createFailed(zone string, err, lost error) error {
	if lost != nil && classOf(err) == backends.ClassConflict {
		return &createLostError{zone: zone, lost: lost, err: err}
	}
	return writeFailed("create zone "+zone, err)
}

// writeFailed is the error of a write (what) that failed with err. A
// write whose request may have reached PowerDNS and whose answer was
// then lost may have been applied, which the transient advice (the
// server "unreachable", re-run when it answers) would hide.
func writeFailed(what string, err error) error {
	if mayHaveApplied(err) {
		return &unansweredError{what: what, err: err}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// mayHaveApplied reports whether a write that failed with err may have
// been applied: it failed transiently after its request may have
// reached the server (no answer, a 5xx, an answer cut short), not in
// a dial that never reached it, nor with a 429, answered unprocessed.
func mayHaveApplied(err error) bool {
	if errors.As(err, new(*backends.AnswerTooLargeError)) {
		return true
	}
	var ae *APIError
	if !errors.As(err, &ae) || ae.Class != backends.ClassTransient || ae.Status == http.StatusTooManyRequests {
		return false
	}
	var oe *net.OpError
	return !errors.As(err, &oe) || oe.Op != "dial"
}

// unansweredError is a write that may have been applied: no answer
// that said so came back.
type unansweredError struct {
	what string
	err  error
}

func (e *unansweredError) Error() string {
	got := "no answer"
	var ae *APIError
	switch {
	case errors.As(e.err, &ae) && ae.Status != 0:
		got = fmt.Sprintf("HTTP %d", ae.Status)
	case errors.As(e.err, &ae) && ae.Err != nil:
		got = visible.Short(ae.Err.Error())
	}
	if errors.As(e.err, new(*backends.NotRetriedError)) {
		got += "; not tried again: the run was interrupted"
	}
	return fmt.Sprintf("%s: the request may have reached PowerDNS, and no answer site could read came back (%s), so PowerDNS may have applied it: run site diff to see what the zone holds, then site apply again to converge", e.what, got)
}

func (e *unansweredError) Unwrap() error { return e.err }

// createLostError is a create whose retry found the zone that an
// earlier, unanswered try may have made.
type createLostError struct {
	zone      string
	lost, err error
}

func (e *createLostError) Error() string {
	lost := visible.Short(e.lost.Error())
	var pe *pdns.Error
	if errors.As(e.lost, &pe) {
		lost = fmt.Sprintf("HTTP %d", pe.StatusCode)
	}
	return fmt.Sprintf("create zone %s: a try got no answer site could read (%s), and the retry found the zone there (HTTP 409): that try may have created it, with its records; run site diff to see what it holds", e.zone, lost)
}

func (e *createLostError) Unwrap() error { return e.err }
