package compiler

import (
	"cmp"
	"path"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// ignoreRules builds zone z's ignore list. A pattern is written like a
// record's name: "@" is the apex, a relative pattern is qualified with
// the zone, an absolute one must end in the zone's name.
func (b *builder) ignoreRules(zp []string, z *model.Zone, raw *rawZone) {
	for i, r := range raw.Ignore {
		ip := at(zp, "ignore", strconv.Itoa(i))
		name := strings.ToLower(r.Name)
		switch {
		case name == "":
			b.errorf(at(ip, "name"), "ignore name is empty; write a name or a glob such as \"_acme-challenge\" or \"*.dyn\"")
			continue
		case name == "@":
			name = z.Name
		case !strings.HasSuffix(name, "."):
			name += "." + z.Name
		}
		if name != z.Name && !strings.HasSuffix(name, "."+z.Name) {
			b.errorf(at(ip, "name"), "ignore name %q lies outside zone %s; write it relative to the zone, or absolute ending in %s", r.Name, z.Name, z.Name)
			continue
		}
		if _, err := path.Match(name, ""); err != nil {
			b.errorf(at(ip, "name"), "ignore name %q is not a valid glob (%v); use * and ? and [...] only in pairs that close", r.Name, err)
			continue
		}
		typ := strings.ToUpper(r.Type)
		if strings.IndexFunc(typ, func(c rune) bool { return !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') }) >= 0 {
			b.errorf(at(ip, "type"), "ignore type %q is not a record type; write one such as TXT, or leave type out to match every type", r.Type)
			continue
		}
		if r.Value != "" {
			if _, err := path.Match(r.Value, ""); err != nil {
				b.errorf(at(ip, "value"), "ignore value %q is not a valid glob (%v); use * and ? and [...] only in pairs that close", r.Value, err)
				continue
			}
			if by, err := b.ignoreValueRefused(z, typ); err != nil {
				b.errorf(at(ip, "value"), "%s%v", by, err)
				continue
			}
		}
		z.Ignore = append(z.Ignore, model.IgnoreRule{Name: name, Type: typ, Value: r.Value, Pos: b.pos.pos(ip...)})
	}
}

// ignoreValueRefused is the refusal of an ignore rule with a value by a
// provider of z whose rules refuse one (Cloudflare marks each record:
// adopting the records the spec wants would mark the kept ones too),
// and who refuses it; nil when every provider takes it.
func (b *builder) ignoreValueRefused(z *model.Zone, typ string) (string, error) {
	for _, s := range servedRules(z) {
		if err := s.r.IgnoreValueError(cmp.Or(typ, "name")); err != nil {
			return refusedBy(z, &s.p), err
		}
	}
	return "", nil
}
