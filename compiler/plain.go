package compiler

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"github.com/site-tools/site/compiler/model"
)

// Decoding a value through CUE costs about as much as evaluating it
// (measured with cuelang.org/go v0.17.1: most of the decode time goes to
// CUE ordering every struct's fields). Most
// spec files are plain data: literals, structs and lists, nothing to
// compute. Once CUE has validated such a file, plainTenants reads the
// tenants straight from its syntax tree and fillDefaults applies the
// schema's defaults; TestPlainDecodeMatchesCUE pins the two paths to the
// same result on every fixture. Anything else (a reference, an import,
// a comprehension, an unusual number) takes CUE's Decode.

// plainTenants returns the tenants of f when f is plain data.
func plainTenants(f *ast.File) (map[string]*rawTenant, bool) {
	top, ok := plainData(f)
	if !ok {
		return nil, false
	}
	return decodePlain(top)
}

// plainData returns the top level of f as plain Go values (string,
// int64, bool, []any, map[string]any) when f is plain data holding
// nothing but tenants.
func plainData(f *ast.File) (map[string]any, bool) {
	top := map[string]any{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.Package, *ast.CommentGroup, *ast.Attribute:
		case *ast.Field:
			if !plainField(top, d) {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	if len(top) > 1 {
		return nil, false // helpers beside tenants: let CUE decide
	}
	return top, true
}

// decodePlain maps the tenants of plain data onto the raw types.
func decodePlain(top map[string]any) (map[string]*rawTenant, bool) {
	out := map[string]*rawTenant{}
	tenants, ok := top["tenants"]
	if !ok {
		return out, true
	}
	tenants, decoded := withoutDecodedZones(tenants)
	// A JSON round trip maps the plain values onto the raw types with
	// the same field names Value.Decode uses.
	b, err := json.Marshal(tenants)
	if err != nil || json.Unmarshal(b, &out) != nil {
		return nil, false
	}
	for _, z := range decoded {
		t := out[z.tenant]
		if t == nil {
			return nil, false // not a struct: the mirror refuses it
		}
		if t.DNS == nil {
			t.DNS = &rawDNS{}
		}
		if t.DNS.Zones == nil {
			t.DNS.Zones = map[string]*rawZone{}
		}
		t.DNS.Zones[z.name] = z.raw
	}
	return out, true
}

// aDecodedZone is a zone takeTree decoded, and where it was.
type aDecodedZone struct {
	tenant, name string
	raw          *rawZone
}

// withoutDecodedZones returns tenants without the zones takeTree
// decoded already, and those zones: a JSON round trip of their raw
// values would cost as much again, and their JSON (every field, null
// or not) several times their plain values' size. The maps on the way
// to a decoded zone are copied; tenants itself is not changed.
func withoutDecodedZones(tenants any) (any, []aDecodedZone) {
	var out []aDecodedZone
	copied := map[string]any{}
	ts, _ := tenants.(map[string]any)
	for tn, tv := range ts {
		copied[tn] = tv
		t, _ := tv.(map[string]any)
		dns, _ := t["dns"].(map[string]any)
		zones, _ := dns["zones"].(map[string]any)
		kept := map[string]any{}
		for zn, zv := range zones {
			if z, ok := zv.(decodedZone); ok {
				out = append(out, aDecodedZone{tn, zn, z.raw})
			} else {
				kept[zn] = zv
			}
		}
		if len(kept) == len(zones) {
			continue
		}
		t2, dns2 := maps.Clone(t), maps.Clone(dns)
		dns2["zones"], t2["dns"] = kept, dns2
		copied[tn] = t2
	}
	if len(out) == 0 {
		return tenants, nil
	}
	return copied, out
}

// plainField adds field d to m, merging structs the way CUE unifies
// repeated fields.
func plainField(m map[string]any, d *ast.Field) bool {
	name, ok := plainLabel(d)
	if !ok {
		return false
	}
	v, ok := plainValue(d.Value)
	if !ok {
		return false
	}
	merged, ok := merge(m[name], v)
	if !ok {
		return false
	}
	m[name] = merged
	return true
}

// plainLabel returns the name of a regular field written plainly: no
// a?: or a!:, no alias, no definition or hidden field.
func plainLabel(d *ast.Field) (string, bool) {
	if d.Constraint != token.ILLEGAL {
		return "", false // a?: or a!: in a data file
	}
	switch d.Label.(type) {
	case *ast.Ident, *ast.BasicLit:
	default:
		return "", false // an alias (X=a: ...) is a reference in the making
	}
	name, isIdent, err := ast.LabelName(d.Label)
	if err != nil || isIdent && (len(name) > 0 && (name[0] == '#' || name[0] == '_')) {
		return "", false
	}
	return name, true
}

// plainLit returns the value of a literal that is plain data.
func plainLit(x *ast.BasicLit) (any, bool) {
	switch x.Kind {
	case token.STRING:
		// Only a string: a single-quoted literal is bytes to CUE.
		if !strings.HasPrefix(strings.TrimLeft(x.Value, "#"), `"`) {
			return nil, false
		}
		s, err := literal.Unquote(x.Value)
		return s, err == nil
	case token.INT:
		// Only an int64 written the one way Go writes it back: no 0x,
		// 0o, _, multipliers (1Ki) or leading zeros to read differently
		// from CUE.
		n, err := strconv.ParseInt(x.Value, 10, 64)
		return n, err == nil && strconv.FormatInt(n, 10) == x.Value
	case token.TRUE:
		return true, true
	case token.FALSE:
		return false, true
	}
	return nil, false
}

func plainValue(x ast.Expr) (any, bool) {
	switch x := x.(type) {
	case *ast.BasicLit:
		return plainLit(x)
	case *ast.StructLit:
		m := map[string]any{}
		for _, el := range x.Elts {
			switch el := el.(type) {
			case *ast.CommentGroup, *ast.Attribute:
			case *ast.Field:
				if !plainField(m, el) {
					return nil, false
				}
			default:
				return nil, false
			}
		}
		return m, true
	case *ast.ListLit:
		l := make([]any, 0, len(x.Elts))
		for _, el := range x.Elts {
			v, ok := plainValue(el)
			if !ok {
				return nil, false
			}
			l = append(l, v)
		}
		return l, true
	}
	return nil, false
}

// merge unifies two plain values: structs merge field by field, equal
// scalars stay; anything else is not plain (CUE has the final word).
func merge(a, b any) (any, bool) {
	if a == nil {
		return b, true
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for k, bv := range bm {
			v, ok := merge(am[k], bv)
			if !ok {
				return nil, false
			}
			am[k] = v
		}
		return am, true
	}
	switch a.(type) {
	case string, int64, bool:
		return a, a == b
	}
	return nil, false
}

// fillDefaults applies the schema's defaults (schema/*.cue) to a tenant
// decoded from plain data. On a tenant CUE decoded it changes nothing.
func fillDefaults(t *rawTenant) {
	if t.DNS != nil {
		for _, z := range t.DNS.Zones {
			if z.TTL == 0 {
				z.TTL = 300
			}
		}
	}
	for _, n := range t.Networks {
		if n.Mode == "" {
			n.Mode = string(model.NetNAT)
		}
	}
	for _, vm := range t.VMs {
		if vm.Running == nil {
			running := true
			vm.Running = &running
		}
		if vm.VCPUs == 0 {
			vm.VCPUs = 1
		}
		if vm.Memory == "" {
			vm.Memory = "1GiB"
		}
		for i := range vm.Disks {
			if vm.Disks[i].Pool == "" {
				vm.Disks[i].Pool = "default"
			}
		}
	}
}
