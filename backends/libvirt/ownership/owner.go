//go:build cgo && libvirt_dlopen

// Package ownership reads and writes site's owner element, the mark in a
// libvirt domain's or network's <metadata> that says which tenant the
// object belongs to and which volumes site created for a domain (the
// only volumes it will ever delete). Domains, networks and volumes all
// judge what is site's by it.
package ownership

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// NS is the XML namespace of site's owner element in a domain's or
// network's <metadata>.
const NS = "https://github.com/site-tools/site/xmlns/libvirt/1"

// Prefix is the namespace prefix libvirt writes for NS.
const Prefix = "site"

// Owner is the owner element: the tenant, and the volumes site created
// for a domain (the only volumes it will ever delete).
type Owner struct {
	Tenant  string
	Volumes []Volume
}

// Volume is one volume listed in an owner element.
type Volume struct {
	Pool, Name string
	Role       string // "disk" or "seed"
	// Base is the volume a disk was made from (overlay or clone), ""
	// for a blank one: a clone keeps no trace of it in its own metadata.
	Base string
}

func (v Volume) String() string {
	if v.Base != "" {
		return v.Pool + "/" + v.Name + "@" + v.Base
	}
	return v.Pool + "/" + v.Name
}

// Key identifies a volume on a host.
func (v Volume) Key() string { return v.Pool + "\x00" + v.Name }

// Normalize sorts and dedupes the volume list so equal owners compare
// equal whatever order they were written in.
func (o *Owner) Normalize() {
	sort.Slice(o.Volumes, func(i, j int) bool {
		if o.Volumes[i].Pool != o.Volumes[j].Pool {
			return o.Volumes[i].Pool < o.Volumes[j].Pool
		}
		return o.Volumes[i].Name < o.Volumes[j].Name
	})
	out := o.Volumes[:0]
	for i, v := range o.Volumes {
		if i > 0 && v.Key() == o.Volumes[i-1].Key() {
			continue
		}
		out = append(out, v)
	}
	o.Volumes = out
}

// Drop takes volume pool/name out of the list, and reports whether the
// list had it.
func (o *Owner) Drop(pool, name string) bool {
	key := Volume{Pool: pool, Name: name}.Key()
	n := len(o.Volumes)
	o.Volumes = slices.DeleteFunc(o.Volumes, func(v Volume) bool { return v.Key() == key })
	return len(o.Volumes) != n
}

// String is a stable one-line form for plans.
func (o *Owner) String() string {
	if o == nil {
		return "none"
	}
	parts := []string{"tenant=" + o.Tenant}
	for _, v := range o.Volumes {
		parts = append(parts, v.Role+"="+v.String())
	}
	return strings.Join(parts, " ")
}

// Element renders the owner element for SetMetadata: libvirt puts it in
// NS itself, so it carries no namespace here.
func (o *Owner) Element() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<owner tenant=%q>", xmlEscape(o.Tenant))
	for _, v := range o.Volumes {
		fmt.Fprintf(&b, "<volume pool=%q name=%q role=%q", xmlEscape(v.Pool), xmlEscape(v.Name), xmlEscape(v.Role))
		if v.Base != "" {
			fmt.Fprintf(&b, " base=%q", xmlEscape(v.Base))
		}
		b.WriteString("/>")
	}
	b.WriteString("</owner>")
	return b.String()
}

// MetadataXML renders the owner element for the inner XML of a
// <metadata> element, namespaced, keeping other applications' elements.
func (o *Owner) MetadataXML(others string) string {
	el := o.Element()
	el = strings.Replace(el, "<owner ", "<"+Prefix+":owner xmlns:"+Prefix+"=\""+NS+"\" ", 1)
	el = strings.ReplaceAll(el, "<volume ", "<"+Prefix+":volume ")
	el = strings.Replace(el, "</owner>", "</"+Prefix+":owner>", 1)
	return others + el
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// Parse finds site's owner element in the inner XML of a <metadata>
// Element. It returns nil when there is none, and the other
// applications' elements verbatim so a redefine keeps them.
func Parse(inner string) (*Owner, string, error) {
	if strings.TrimSpace(inner) == "" {
		return nil, "", nil
	}
	dec := xml.NewDecoder(strings.NewReader(inner))
	var o *Owner
	var others strings.Builder
	depth := 0
	start := int64(0)
	inside := false // within our owner element
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("parse <metadata>: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				start = off
			}
			depth++
			if depth == 1 && t.Name.Space == NS && t.Name.Local == "owner" {
				o, inside = &Owner{}, true
				for _, a := range t.Attr {
					if a.Name.Local == "tenant" {
						o.Tenant = a.Value
					}
				}
			} else if depth == 2 && inside && t.Name.Local == "volume" {
				var v Volume
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "pool":
						v.Pool = a.Value
					case "name":
						v.Name = a.Value
					case "role":
						v.Role = a.Value
					case "base":
						v.Base = a.Value
					}
				}
				o.Volumes = append(o.Volumes, v)
			}
		case xml.EndElement:
			depth--
			if depth == 0 {
				if !inside {
					others.WriteString(inner[start:dec.InputOffset()])
				}
				inside = false
			}
		}
	}
	if o != nil {
		o.Normalize()
	}
	return o, others.String(), nil
}
