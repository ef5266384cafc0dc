package compiler

import (
	"sort"

	"github.com/site-tools/site/compiler/model"
)

// OperatorFile is an operator's file held in memory and read on its
// own, for the commands that write specs beside it: site init (which
// grants a declared provider rather than declaring it again, and writes
// only the tenant's file when it is granted already) and site export
// (which names the provider that is the server it read, and leaves out
// what another tenant's grant holds).
type OperatorFile struct {
	o    *operator
	name string
	src  []byte
}

// ReadOperatorFile reads the operator's file name, whose bytes are src.
func ReadOperatorFile(name string, src []byte) (*OperatorFile, error) {
	o, diags := operatorSource(name, src)
	if len(diags) > 0 {
		return nil, diags
	}
	return &OperatorFile{o: o, name: name, src: src}, nil
}

// Source returns the file's name and its bytes as read, for a load
// with it (LoadBeside).
func (f *OperatorFile) Source() (name string, src []byte) { return f.name, f.src }

// Providers returns the providers the file declares, by name (none for
// a nil file: no operator's file, or one that does not load).
func (f *OperatorFile) Providers() map[string]model.Provider {
	if f == nil {
		return nil
	}
	return f.o.providers
}

// Hosts returns the libvirt hosts the file declares: name -> URI (none
// for a nil file).
func (f *OperatorFile) Hosts() map[string]string {
	if f == nil {
		return nil
	}
	return f.o.hosts
}

// Images returns the base images the file declares: host name ->
// "pool/volume" -> image (none for a nil file).
func (f *OperatorFile) Images() map[string]map[string]*model.Image {
	if f == nil {
		return nil
	}
	return f.o.images
}

// Grants reports whether the file grants tenant (false for a nil file).
func (f *OperatorFile) Grants(tenant string) bool { return f != nil && f.o.grants[tenant] != nil }

// Grantees returns every tenant the file grants, sorted (none for a nil
// file).
func (f *OperatorFile) Grantees() []string {
	if f == nil {
		return nil
	}
	out := make([]string, 0, len(f.o.grants))
	for t := range f.o.grants {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Holds reports whether the file grants tenant provider and each of
// names: the most specific grant covering each name is tenant's (false
// for a nil file). site export prints the lines for a grant only when
// the file does not hold them.
func (f *OperatorFile) Holds(tenant, provider string, names ...string) bool {
	if f == nil || f.o.grants[tenant] == nil || !f.o.grants[tenant].providers[provider] {
		return false
	}
	for _, n := range names {
		if _, c, ok := f.o.holder(n); !ok || c.tenant != tenant {
			return false
		}
	}
	return true
}

// AnotherTenants reports whether rs, a record of zone z, is another
// tenant's by the file's grants, as site vet judges it (see
// operator.anotherTenants): site export leaves such records out.
func (f *OperatorFile) AnotherTenants(rs *model.RRset, z *model.Zone) (held, tenant string, away bool) {
	return f.o.anotherTenants(rs, z, nil)
}

// CoversGranted reports whether rs, a record of zone z (which holds
// the zone's other records too), answers for a name the file grants a
// tenant other than z's below it, and says how, in site vet's words: a
// DNAME above that name, or a wildcard above it while z does not
// delegate it. It asks what vet asks (coversGranted), so site export
// leaves out exactly what vet would refuse.
func (f *OperatorFile) CoversGranted(z *model.Zone, rs *model.RRset) (why string, covers bool) {
	b := &builder{op: f.o, pos: &positions{}}
	if !b.coversGranted(nil, z, rs, nil) {
		return "", false
	}
	return b.diags[0].Msg, true
}
