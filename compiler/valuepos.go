package compiler

import (
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
		if i := firstOf(writtenIndex(raw, typ), bad); i >= 0 {
			return elemPath(rp, typ, i)
		}
	}
	return at(rp, typ)
}

// writtenIndex maps each value of typ at raw, made canonical, to the
// first element written with it.
func writtenIndex(raw *rawName, typ string) map[string]int {
	for _, t := range listTypes(raw) {
		if t.typ != typ {
			continue
		}
		index := make(map[string]int, t.n)
		for i := range t.n {
			if v, err := t.value(i); err == nil {
				if _, ok := index[v]; !ok {
					index[v] = i
				}
			}
		}
		return index
	}
	return nil
}

// firstOf returns the least element index holds for a value of bad, or
// -1 for none.
func firstOf(index map[string]int, bad []string) int {
	first := -1
	for _, v := range bad {
		if i, ok := index[v]; ok && (first < 0 || i < first) {
			first = i
		}
	}
	return first
}

// sources are the evaluated files, by the name their positions give:
// the checks between tenants (check) run on the model, and find where a
// value was written through them.
type sources struct {
	files map[string]*fileResult
	// The RRset asked about last: its file, the path of its name, its
	// name's values as written, and their index once one is asked for.
	// The checks ask about one RRset's values in turn (a warning for
	// each target an MX list names), and reading the values again for
	// each would cost the square of their number: 10,000 MX hosts took
	// 27 s where the load took half a second.
	rs    *model.RRset
	file  *fileResult
	rp    []string
	raw   *rawName
	index map[string]int
}

func sourcesOf(results []*fileResult) *sources {
	s := &sources{files: make(map[string]*fileResult, len(results))}
	for _, r := range results {
		s.files[r.pos.file] = r
	}
	return s
}

// value returns the position and the path of rs's value as valuePath
// finds it. A writer other than a zone's records (a VM's publish) is
// pointed at as it is.
func (s *sources) value(rs *model.RRset, bad []string) (model.Pos, string) {
	w := rs.Writer
	if w.Kind != model.WriterZoneRecords {
		return w.Pos, writerPath(w)
	}
	if s.rs != rs {
		s.read(rs)
	}
	if s.file == nil {
		return w.Pos, writerPath(w) + "." + rs.Type
	}
	path := at(s.rp, rs.Type)
	if len(bad) > 0 && s.raw != nil {
		if s.index == nil {
			s.index = writtenIndex(s.raw, rs.Type)
		}
		if i := firstOf(s.index, bad); i >= 0 {
			path = elemPath(s.rp, rs.Type, i)
		}
	}
	return s.file.pos.pos(path...), cuePath(path...)
}

// read finds the file and the name rs was written at.
func (s *sources) read(rs *model.RRset) {
	w := rs.Writer
	*s = sources{files: s.files, rs: rs, file: s.files[w.Pos.File]}
	elems, ok := splitCuePath(w.Element) // dns.zones.ZONE.records.NAME
	if s.file == nil || !ok || len(elems) != 5 {
		s.file = nil
		return
	}
	s.rp = append([]string{"tenants", w.Tenant}, elems...)
	if t := s.file.tenants[w.Tenant]; t != nil && t.DNS != nil {
		if z := t.DNS.Zones[elems[2]]; z != nil {
			s.raw = z.Records[elems[4]]
		}
	}
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
