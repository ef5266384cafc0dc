package journal

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
)

// imageFields are, by kind, the fields an entry's image may hold: what
// the libvirt driver journals of a VM and a network (backends.Image).
var imageFields = map[string]map[string]bool{
	"vm":      {"memory": true, "vcpus": true, "autostart": true, "running": true, "name": true},
	"network": {"mode": true, "cidr": true, "bridge": true, "autostart": true},
}

// checkImage reports what makes img not the image site journals of the
// resource of step: site undo writes an image's Before into the spec of
// the step its key names, so it must be that resource's, with fields
// site knows, each one line of text.
func checkImage(step string, img *backends.Image) error {
	if img == nil {
		return fmt.Errorf("is empty")
	}
	fields := imageFields[img.Kind]
	var id string
	switch img.Kind {
	case "vm":
		id = graph.VMStepID(img.Host, img.Name)
	case "network":
		id = graph.NetworkStepID(img.Host, img.Name)
	default:
		return fmt.Errorf("is of a kind site never journals")
	}
	if step != id {
		return fmt.Errorf("names another resource than its step")
	}
	for _, m := range []map[string]string{img.Before, img.After} {
		for k, v := range m {
			if !fields[k] {
				return fmt.Errorf("has a field site never journals")
			}
			if len(v) > 256 || strings.ContainsFunc(v, unicode.IsControl) {
				return fmt.Errorf("has a value that is no line of text")
			}
		}
	}
	return nil
}
