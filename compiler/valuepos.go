package compiler

import "slices"

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
