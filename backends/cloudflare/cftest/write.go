package cftest

import (
	"fmt"
	"net/http"
	"sort"
	"time"
)

// Creating, changing and deleting records, one at a time or in a batch.

func (s *Server) newID() string {
	s.nextID++
	return fmt.Sprintf("%032x", s.nextID)
}

func (s *Server) create(z *zone, records map[string]*Record, in recordInput) (*Record, *apiError) {
	now := time.Now().UTC()
	rec := &Record{ID: s.newID(), ZoneID: z.id, ZoneName: z.name, Type: in.Type, Name: in.Name,
		Content: in.Content, Priority: in.Priority, Data: in.Data, TTL: 1, Tags: in.Tags,
		Meta: map[string]any{}, CreatedOn: now, ModifiedOn: now}
	if in.TTL != nil {
		rec.TTL = *in.TTL
	}
	if in.Proxied != nil {
		rec.Proxied = *in.Proxied
	}
	if in.Comment != nil {
		rec.Comment = *in.Comment
	}
	if err := s.normalise(z, rec); err != nil {
		return nil, err
	}
	if err := conflict(records, rec); err != nil {
		return nil, err
	}
	if s.alter != nil {
		s.alter(rec)
	}
	records[rec.ID] = rec
	return rec, nil
}

// update applies a PATCH (unspecified fields unchanged) or a PUT
// (unspecified fields back to their defaults).
func (s *Server) update(z *zone, records map[string]*Record, in recordInput, put bool) (*Record, *apiError) {
	old := records[in.ID]
	if old == nil {
		return nil, notFound()
	}
	rec := *old
	if put {
		rec = Record{ID: old.ID, ZoneID: z.id, ZoneName: z.name, TTL: 1, Tags: []string{},
			Meta: map[string]any{}, CreatedOn: old.CreatedOn}
		rec.Type, rec.Name, rec.Content = in.Type, in.Name, in.Content
	} else {
		if in.Type != "" {
			rec.Type = in.Type
		}
		if in.Name != "" {
			rec.Name = in.Name
		}
		if in.Content != "" {
			rec.Content = in.Content
		}
	}
	if in.Priority != nil || put {
		rec.Priority = in.Priority
	}
	if in.Data != nil || put {
		rec.Data = in.Data
	}
	if in.TTL != nil {
		rec.TTL = *in.TTL
	}
	if in.Proxied != nil {
		rec.Proxied = *in.Proxied
	}
	if in.Comment != nil {
		rec.Comment = *in.Comment
	}
	if in.Tags != nil {
		rec.Tags = in.Tags
	}
	rec.ModifiedOn = time.Now().UTC()
	if err := s.normalise(z, &rec); err != nil {
		return nil, err
	}
	if err := conflict(records, &rec); err != nil {
		return nil, err
	}
	if s.alter != nil {
		s.alter(&rec)
	}
	records[rec.ID] = &rec
	return &rec, nil
}

func (s *Server) remove(records map[string]*Record, id string) *apiError {
	if records[id] == nil {
		return notFound()
	}
	delete(records, id)
	return nil
}

// batch runs deletes, patches, puts and posts in that order on a copy of
// the zone and keeps the copy only when every operation succeeded: the
// documented all-or-nothing semantics. The first error is returned.
// Whether the real API checks the size limit before anything else, and
// which code it uses for an oversized batch, is not documented; the fake
// checks first and answers 400 code 1004.
func (s *Server) batch(w http.ResponseWriter, r *http.Request, z *zone) {
	var body struct {
		Deletes []struct {
			ID string `json:"id"`
		} `json:"deletes"`
		Patches []recordInput `json:"patches"`
		Puts    []recordInput `json:"puts"`
		Posts   []recordInput `json:"posts"`
	}
	if err := decode(r, &body); err != nil {
		writeError(w, err)
		return
	}
	if n := len(body.Deletes) + len(body.Patches) + len(body.Puts) + len(body.Posts); n > s.batchLimit {
		writeError(w, validation(fmt.Sprintf("a batch may hold at most %d operations on this plan, got %d", s.batchLimit, n)))
		return
	}
	work := make(map[string]*Record, len(z.records))
	for id, rec := range z.records {
		work[id] = rec
	}
	res := map[string][]*Record{"deletes": {}, "patches": {}, "puts": {}, "posts": {}}
	for _, d := range body.Deletes {
		old := work[d.ID]
		if err := s.remove(work, d.ID); err != nil {
			writeError(w, err)
			return
		}
		res["deletes"] = append(res["deletes"], old)
	}
	for _, in := range body.Patches {
		rec, err := s.update(z, work, in, false)
		if err != nil {
			writeError(w, err)
			return
		}
		res["patches"] = append(res["patches"], rec)
	}
	for _, in := range body.Puts {
		rec, err := s.update(z, work, in, true)
		if err != nil {
			writeError(w, err)
			return
		}
		res["puts"] = append(res["puts"], rec)
	}
	for _, in := range body.Posts {
		rec, err := s.create(z, work, in)
		if err != nil {
			writeError(w, err)
			return
		}
		res["posts"] = append(res["posts"], rec)
	}
	z.records = work
	writeJSON(w, http.StatusOK, envelope(res))
}

func sorted(m map[string]*Record) []*Record {
	out := make([]*Record, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	// The API's default order is not documented; the fake sorts by type,
	// name, content and id so that pages are stable.
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Content != b.Content {
			return a.Content < b.Content
		}
		return a.ID < b.ID
	})
	return out
}
