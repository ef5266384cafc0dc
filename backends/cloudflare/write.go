package cloudflare

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/site-tools/site/backends"
)

// BatchError is a failed batch request.
type BatchError struct {
	Zone    string
	Index   int // 1-based
	Of      int
	Applied int // operations applied by earlier batches
	Err     error
}

func (e *BatchError) Error() string {
	were := "were"
	if e.Applied == 1 {
		were = "was"
	}
	return fmt.Sprintf("zone %s: batch %d of %d failed and changed nothing (Cloudflare applies a batch in one transaction); %s in earlier batches %s applied: %v",
		e.Zone, e.Index, e.Of, counted(e.Applied, "operation", "operations"), were, e.Err)
}

func (e *BatchError) Unwrap() error { return e.Err }

// send posts ops in chunks, in the order deletes, patches, puts, posts.
// When earlier chunks were applied and the rest is not (a chunk fails,
// or the run is interrupted, which stops it between chunks), the error
// is a *backends.PartialError saying how many.
func (d *Driver) send(ctx context.Context, det *detail, zone string, ops []op, run *backends.Run) ([]string, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	ops = append([]op(nil), ops...)
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].kind < ops[j].kind })
	size := det.chunk
	n := (len(ops) + size - 1) / size
	done := 0
	for i := 0; i < n; i++ {
		if i > 0 && run.Interrupted() {
			return []string{sentNote(done, i, n)},
				&backends.PartialError{Applied: i, Total: n, Err: backends.ErrInterrupted}
		}
		part := ops[i*size : min((i+1)*size, len(ops))]
		req := batchBody{Deletes: []idOnly{}, Patches: []body{}, Puts: []body{}, Posts: []body{}}
		for _, o := range part {
			switch o.kind {
			case opDelete:
				req.Deletes = append(req.Deletes, idOnly{ID: o.id})
			case opPatch:
				req.Patches = append(req.Patches, o.body)
			case opPut:
				req.Puts = append(req.Puts, o.body)
			case opPost:
				req.Posts = append(req.Posts, o.body)
			}
		}
		if _, err := det.api.Raw(ctx, http.MethodPost, "/zones/"+det.zoneID+"/dns_records/batch", req, nil); err != nil {
			var failed error = &BatchError{Zone: zone, Index: i + 1, Of: n, Applied: done, Err: describe("batch", err)}
			if i > 0 {
				failed = &backends.PartialError{Applied: i, Total: n, Err: failed}
			}
			return []string{sentNote(done, i, n)}, failed
		}
		done += len(part)
	}
	return []string{fmt.Sprintf("sent %s in %s", counted(done, "operation", "operations"), counted(n, "batch request", "batch requests"))}, nil
}

// sentNote says how much of a write was sent before it stopped.
func sentNote(ops, batches, of int) string {
	return fmt.Sprintf("sent %s in %d of %s", counted(ops, "operation", "operations"), batches, counted(of, "batch", "batches"))
}

// counted says "1 operation" or "2 operations".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

type idOnly struct {
	ID string `json:"id"`
}

type batchBody struct {
	Deletes []idOnly `json:"deletes"`
	Patches []body   `json:"patches"`
	Puts    []body   `json:"puts"`
	Posts   []body   `json:"posts"`
}
