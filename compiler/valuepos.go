package compiler

import (
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// A diagnostic about one value of a record points at the element that
// holds it, as the errors of building a value do (records). The model
// keeps one position per owner name (model.Writer.Pos), and an RRset's
// values canonical, sorted and without repeats, so which element a
// value came from is gone once the RRset is built. Keeping it for every
// value would cost every load, and the cache entry, for the few
// diagnostics that need it; they find the element again instead: the
// name's values as written, made canonical once more up to the first
// that matches, and the position index, which holds every element the
// user wrote. A diagnostic about a record's values as a whole (the set
// of NS a delegation names) points at its type's field.

// valuePath returns the path of the first element of typ at the name
// at rp, in the order written (raw), whose canonical form is among bad;
// the path of typ's field when bad is empty or no element matches (a
// single-target type: CNAME, DNAME, ALIAS).
func valuePath(rp []string, typ string, raw *rawName, bad []string) []string {
	if len(bad) > 0 && raw != nil {
		for _, t := range listTypes(raw) {
			if t.typ != typ {
				continue
			}
			for i := range t.n {
				if v, err := t.value(i); err == nil && slices.Contains(bad, v) {
					return elemPath(rp, typ, i)
				}
			}
		}
	}
	return at(rp, typ)
}

// sources are the evaluated files, by the name their positions give:
// the checks between tenants (check) run on the model, and find where a
// value was written through them.
type sources map[string]*fileResult

func sourcesOf(results []*fileResult) sources {
	s := make(sources, len(results))
	for _, r := range results {
		s[r.pos.file] = r
	}
	return s
}

// value returns the position and the path of rs's value as valuePath
// finds it. A writer other than a zone's records (a VM's publish) is
// pointed at as it is.
func (s sources) value(rs *model.RRset, bad []string) (model.Pos, string) {
	w := rs.Writer
	if w.Kind != model.WriterZoneRecords {
		return w.Pos, writerPath(w)
	}
	r := s[w.Pos.File]
	elems, ok := splitCuePath(w.Element) // dns.zones.ZONE.records.NAME
	if r == nil || !ok || len(elems) != 5 {
		return w.Pos, writerPath(w) + "." + rs.Type
	}
	var raw *rawName
	if t := r.tenants[w.Tenant]; t != nil && t.DNS != nil {
		if z := t.DNS.Zones[elems[2]]; z != nil {
			raw = z.Records[elems[4]]
		}
	}
	path := valuePath(append([]string{"tenants", w.Tenant}, elems...), rs.Type, raw, bad)
	return r.pos.pos(path...), cuePath(path...)
}

// splitCuePath is the inverse of cuePath: the segments of a path it
// rendered.
func splitCuePath(p string) ([]string, bool) {
	var out []string
	for p != "" {
		var seg string
		if p[0] == '"' {
			q, err := strconv.QuotedPrefix(p)
			if err != nil {
				return nil, false
			}
			seg, _ = strconv.Unquote(q)
			p = p[len(q):]
		} else {
			i := strings.IndexByte(p, '.')
			if i < 0 {
				i = len(p)
			}
			if i == 0 {
				return nil, false // cuePath quotes an empty segment
			}
			seg, p = p[:i], p[i:]
		}
		out = append(out, seg)
		if p == "" {
			break
		}
		if p[0] != '.' || len(p) == 1 {
			return nil, false
		}
		p = p[1:]
	}
	return out, true
}
