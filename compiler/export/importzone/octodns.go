package importzone

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/rdata"
)

// octoDNSDefaultTTL is the TTL octoDNS gives a record without one.
const octoDNSDefaultTTL = 3600

// parseOctoDNS reads an octoDNS YamlProvider zone file: a map of names
// relative to the zone (the empty name for the apex) to one record or a list of
// them, each {type, ttl?, value | values}, the value's shape set by the
// type. The zone is want, else the file's name less .yaml (the
// provider's convention). Keys octoDNS reads for other purposes
// (dynamic, geo, octodns: a provider's settings) change what is served
// or how, and are refused: site cannot say them.
func parseOctoDNS(file string, src []byte, want string) ([]zone, error) {
	name := want
	if name == "" {
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".yaml"), ".yml")
		n, err := dnsname.Canonical(strings.TrimSuffix(base, ".")+".", "")
		if err != nil {
			return nil, fmt.Errorf("%s: the file's name is not a zone's (%v); give the zone with --zone", file, err)
		}
		name = n
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w; fix the file, then import again", file, err)
	}
	z := zone{name: name}
	if len(doc.Content) == 0 {
		return []zone{z}, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: the file is not a map of names to records", file, top.Line)
	}
	var problems Problems
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i], top.Content[i+1]
		owner, err := dnsname.Canonical(cmpOr(key.Value, "@"), name)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: %v", file, key.Line, err))
			continue
		}
		items := []*yaml.Node{val}
		if val.Kind == yaml.SequenceNode {
			items = val.Content
		}
		for _, item := range items {
			rs, err := octoRecords(file, owner, item)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			z.records = append(z.records, rs...)
		}
	}
	if len(problems) > 0 {
		return []zone{z}, problems
	}
	return []zone{z}, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// octoRecords reads one record of the file: its type, TTL and each of
// its values, at owner.
func octoRecords(file, owner string, n *yaml.Node) ([]record, error) {
	at := func(n *yaml.Node) string { return fmt.Sprintf("%s:%d", file, n.Line) }
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: %s: a record is a map {type, ttl, value or values}", at(n), owner)
	}
	var typ string
	ttl := uint32(octoDNSDefaultTTL)
	var values []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "type":
			typ = strings.ToUpper(v.Value)
		case "ttl":
			t, err := strconv.ParseUint(v.Value, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: ttl %q is not a number of seconds", at(v), owner, v.Value)
			}
			ttl = uint32(t)
		case "value":
			values = []*yaml.Node{v}
		case "values":
			if v.Kind != yaml.SequenceNode {
				values = []*yaml.Node{v}
			} else {
				values = v.Content
			}
		default:
			return nil, fmt.Errorf("%s: %s: %q is octoDNS's own (%s), which site cannot say; remove it from the record, or leave the name where it is served now",
				at(k), owner, k.Value, octoKeyWhy(k.Value))
		}
	}
	if typ == "" {
		return nil, fmt.Errorf("%s: %s: the record has no type", at(n), owner)
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("%s: %s %s: the record has no value or values", at(n), owner, typ)
	}
	var out []record
	for _, v := range values {
		value, err := octoValue(typ, v)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %v", at(v), owner, typ, err)
		}
		out = append(out, record{pos: at(v), name: owner, typ: typ, ttl: ttl, value: value})
	}
	return out, nil
}

func octoKeyWhy(key string) string {
	switch key {
	case "dynamic", "geo":
		return "answers that depend on who asks"
	case "octodns":
		return "settings for octoDNS and its providers"
	}
	return "not part of its record schema"
}

// octoFields are the fields of octoDNS's struct values, in the order
// of the type's presentation form.
var octoFields = map[string][]string{
	"SRV":   {"priority", "weight", "port", "target"},
	"SSHFP": {"algorithm", "fingerprint_type", "fingerprint"},
	"TLSA":  {"certificate_usage", "selector", "matching_type", "certificate_association_data"},
	"DS":    {"key_tag", "algorithm", "digest_type", "digest"},
	"LOC": {"lat_degrees", "lat_minutes", "lat_seconds", "lat_direction", "long_degrees", "long_minutes", "long_seconds", "long_direction",
		"altitude", "size", "precision_horz", "precision_vert"},
}

// octoValue writes one octoDNS value of typ in presentation form.
func octoValue(typ string, v *yaml.Node) (string, error) {
	if !rdata.IsType(typ) {
		// The language has no such type: the value's shape does not
		// matter, export.Problems refuses the record by its type.
		return "(" + typ + " value)", nil
	}
	f := fields(v)
	switch typ {
	case "TXT":
		if v.Kind != yaml.ScalarNode {
			return "", fmt.Errorf("a TXT value is a string")
		}
		return octoTXT(v.Value)
	case "MX":
		pref := f.first("preference", "priority")
		host := f.first("exchange", "value")
		return strings.Join([]string{pref, host}, " "), f.err
	case "CAA":
		flags, err := strconv.Atoi(cmpOr(f.opt("flags"), "0"))
		if err != nil {
			return "", fmt.Errorf("flags %q is not a number", f.opt("flags"))
		}
		tag, value := f.get("tag"), f.get("value")
		if f.err != nil {
			return "", f.err
		}
		return rdata.CAA(flags, tag, value)
	case "NAPTR":
		order, pref := f.num("order"), f.num("preference")
		flags, service, regexp, replacement := f.get("flags"), f.get("service"), f.get("regexp"), f.get("replacement")
		if f.err != nil {
			return "", f.err
		}
		return rdata.NAPTR(order, pref, flags, service, regexp, replacement)
	case "SVCB", "HTTPS":
		return octoSVCB(typ, v, f)
	case "URI": // its target is quoted in presentation form
		prio, weight, target := f.num("priority"), f.num("weight"), f.get("target")
		if f.err != nil {
			return "", f.err
		}
		return rdata.URI(prio, weight, target)
	case "DS":
		if f.opt("public_key") != "" || f.opt("flags") != "" { // octoDNS's legacy names
			return strings.Join([]string{f.get("flags"), f.get("protocol"), f.get("algorithm"), f.get("public_key")}, " "), f.err
		}
	}
	if names, ok := octoFields[typ]; ok {
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = f.get(n)
		}
		return strings.Join(parts, " "), f.err
	}
	if v.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("a %s value is a string", typ)
	}
	return v.Value, nil
}

// octoTXT reads a TXT value as octoDNS does: one text, quotes around it
// and between its chunks (`"a" "b"`) undone, `\;` a semicolon; site
// splits it at 255 octets as octoDNS does.
func octoTXT(s string) (string, error) {
	if strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) && len(s) > 1 {
		s = strings.ReplaceAll(s[1:len(s)-1], `" "`, "")
	}
	text, err := rdata.ParseTXT(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
	if err != nil {
		return "", err
	}
	return rdata.TXT(text), nil
}

// octoSVCB writes an SVCB or HTTPS value, {svcpriority, targetname,
// svcparams: {key: value, list or null}}.
func octoSVCB(typ string, v *yaml.Node, f *fieldReader) (string, error) {
	prio, target := f.num("svcpriority"), f.get("targetname")
	if f.err != nil {
		return "", f.err
	}
	var params []string
	if p := f.node("svcparams"); p != nil && p.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(p.Content); i += 2 {
			key, val := p.Content[i].Value, p.Content[i+1]
			switch {
			case val.Kind == yaml.SequenceNode:
				var items []string
				for _, it := range val.Content {
					items = append(items, it.Value)
				}
				params = append(params, key+"="+strings.Join(items, ","))
			case val.Tag == "!!null":
				params = append(params, key)
			default:
				params = append(params, key+"="+val.Value)
			}
		}
	}
	return rdata.SVCB(typ, prio, target, strings.Join(params, " "))
}

// fieldReader reads the fields of one struct value, keeping the first
// error.
type fieldReader struct {
	m   map[string]*yaml.Node
	err error
}

func fields(v *yaml.Node) *fieldReader {
	f := &fieldReader{m: map[string]*yaml.Node{}}
	if v.Kind != yaml.MappingNode {
		f.err = fmt.Errorf("the value is not a map of fields")
		return f
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		f.m[v.Content[i].Value] = v.Content[i+1]
	}
	return f
}

func (f *fieldReader) node(name string) *yaml.Node { return f.m[name] }

func (f *fieldReader) opt(name string) string {
	if n := f.m[name]; n != nil {
		return n.Value
	}
	return ""
}

func (f *fieldReader) get(name string) string {
	n := f.m[name]
	if n == nil {
		if f.err == nil {
			f.err = fmt.Errorf("the value has no %s", name)
		}
		return ""
	}
	return n.Value
}

// first is the first of names the value has (octoDNS's legacy aliases).
func (f *fieldReader) first(names ...string) string {
	for _, n := range names {
		if f.m[n] != nil {
			return f.m[n].Value
		}
	}
	return f.get(names[0])
}

func (f *fieldReader) num(name string) int {
	s := f.get(name)
	n, err := strconv.Atoi(s)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("%s %q is not a number", name, s)
	}
	return n
}
