//go:build cgo && libvirt_dlopen

package libvirt

import "github.com/site-tools/site/backends/libvirt/ownership"

// OwnerNS is the XML namespace of site's owner element in a domain's or
// network's <metadata> (ownership.NS), named here for the tests of
// other packages that write one by hand.
const OwnerNS = ownership.NS
