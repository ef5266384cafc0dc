package cloudflare

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/words"
)

// BatchError is a failed batch request.
type BatchError struct {
	Zone    string
	Index   int // 1-based
	Of      int
	Applied int // operations applied by earlier batches
	// Reached is true when the request was sent in full and not
	// refused (see delivery): Cloudflare may have applied the batch,
	// and only observing the zone tells.
	Reached bool
	// Status is the HTTP status of the batch's answer; 0 when none
	// came.
	Status int
	Err    error
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("zone %s: batch %d of %d %s; %s in earlier batches %s applied: %v",
		e.Zone, e.Index, e.Of, e.outcome(), words.Count(e.Applied, "operation", "operations"), words.Plural(e.Applied, "was", "were"), e.Err)
}

// outcome says what is known of the batch's effect on the zone.
func (e *BatchError) outcome() string {
	switch {
	case e.Reached:
		return "was sent in full, but no answer came back that says whether Cloudflare applied it, so it may have " +
			"(all of it or none: one transaction); run site diff to see what the zone holds"
	case e.Status != 0 && e.Status < 300:
		// A 2xx that is a refusal: its envelope said so (unsuccessful).
		return fmt.Sprintf("was refused (HTTP %d, \"success\": false) and changed nothing (Cloudflare applies a batch in one transaction)", e.Status)
	case e.Status != 0:
		return fmt.Sprintf("was refused (HTTP %d) and changed nothing (Cloudflare applies a batch in one transaction)", e.Status)
	}
	return "failed before Cloudflare had all of it, so it changed nothing"
}

func (e *BatchError) Unwrap() error { return e.Err }

// send checks ops against Cloudflare's limits, then posts them in
// batches (see batches). When earlier batches were applied and the rest
// is not (a batch fails, or the run is interrupted, which stops it
// between batches), the error is a *backends.PartialError saying how
// many.
func (d *Driver) send(ctx context.Context, det *detail, zone string, ops []op, run *backends.Run) ([]string, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	if err := checkLimits(zone, ops); err != nil {
		return nil, err
	}
	parts := batches(ops, det.chunk)
	n := len(parts)
	done := 0
	for i, part := range parts {
		if i > 0 && run.Interrupted() {
			return []string{sentNote(done, i, n)},
				&backends.PartialError{Applied: i, Total: n, Err: backends.ErrInterrupted}
		}
		req := batchBody{Deletes: []idOnly{}, Patches: []body{}, Posts: []body{}}
		for _, o := range part {
			switch o.kind {
			case opDelete:
				req.Deletes = append(req.Deletes, idOnly{ID: o.id})
			case opPatch:
				req.Patches = append(req.Patches, o.body)
			case opPost:
				req.Posts = append(req.Posts, o.body)
			}
		}
		sending, delivered := withDelivery(ctx)
		res, err := det.api.Raw(sending, http.MethodPost, "/zones/"+det.zoneID+"/dns_records/batch", req, nil)
		if err == nil {
			err = delivered.unsuccessful(res)
		}
		if err != nil {
			be := &BatchError{Zone: zone, Index: i + 1, Of: n, Applied: done}
			be.Status, be.Reached = delivered.fate()
			note := sentNote(done, i, n)
			if be.Reached {
				// Not refused: describe's hints (a refusal, re-run
				// later) would not be true; outcome says what is.
				be.Err = fmt.Errorf("batch: %w", err)
				note = sentNote(done+len(part), i+1, n) + ", the last of which Cloudflare may have applied (no answer said whether it did)"
			} else {
				be.Err = describe("batch", needDNSEdit(zone), err)
			}
			var failed error = be
			if i > 0 {
				failed = &backends.PartialError{Applied: i, Total: n, Err: failed}
			}
			return []string{note}, failed
		}
		done += len(part)
	}
	return []string{fmt.Sprintf("sent %s in %s", words.Count(done, "operation", "operations"), words.Count(n, "batch request", "batch requests"))}, nil
}

// sentNote says how much of a write was sent before it stopped.
func sentNote(ops, batches, of int) string {
	return fmt.Sprintf("sent %s in %d of %s", words.Count(ops, "operation", "operations"), batches, words.Count(of, "batch", "batches"))
}

// batches splits ops into batches of at most size operations that each
// leave the zone consistent: the operations on one name travel together,
// so a name's delete goes with the record that replaces it (Cloudflare
// runs a batch's deletes, patches and posts in one transaction), and a
// refused later batch leaves its names as they were rather than
// emptied. Names keep the order of their first operation. Only a name
// with more operations than a batch holds is split, its deletes first.
func batches(ops []op, size int) [][]op {
	var names []string
	byName := map[string][]op{}
	for _, o := range ops {
		if _, seen := byName[o.name]; !seen {
			names = append(names, o.name)
		}
		byName[o.name] = append(byName[o.name], o)
	}
	var out [][]op
	var cur []op
	for _, name := range names {
		group := byName[name]
		sort.SliceStable(group, func(i, j int) bool { return group[i].kind < group[j].kind })
		if len(cur)+len(group) > size && len(cur) > 0 {
			out, cur = append(out, cur), nil
		}
		for len(group) > size {
			out, group = append(out, group[:size]), group[size:]
		}
		cur = append(cur, group...)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

type idOnly struct {
	ID string `json:"id"`
}

type batchBody struct {
	Deletes []idOnly `json:"deletes"`
	Patches []body   `json:"patches"`
	Posts   []body   `json:"posts"`
}
