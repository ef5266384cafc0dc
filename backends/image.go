package backends

// Image is what site's apply journal keeps of one resource outside DNS
// (a VM, a network): the fields of it that a tenant's spec sets, in the
// spec's terms, as observed when the step was planned (Before) and as
// the step leaves them (After). site undo sets the spec back to Before
// for the fields that differ, and refuses a field whose live value is
// no longer After. Every value is a string (a number in decimal, a bool
// as true or false), so that what a journal store gives back compares
// as it was written.
type Image struct {
	// Kind is "vm" or "network"; Host the resource's host URI as the
	// spec names it, Name the resource's name.
	Kind string `json:"kind"`
	Host string `json:"host"`
	Name string `json:"name"`
	// Before is nil when the resource did not exist; After is nil when
	// the step removes it.
	Before map[string]string `json:"before,omitempty"`
	After  map[string]string `json:"after,omitempty"`
}

// Imaged is a driver's step detail that knows its resource's Image.
type Imaged interface {
	// JournalImage is the step's Image, nil when the plan could not
	// tell it (then the step's changes cannot be undone).
	JournalImage() *Image
}

// ImageOf is the Image sp's detail carries, nil when its driver keeps
// none.
func ImageOf(sp *StepPlan) *Image {
	d, err := DetailOf[Imaged](sp)
	if err != nil || d == nil {
		return nil
	}
	return d.JournalImage()
}

// Changed names the fields whose Before and After differ, in no order.
func (i *Image) Changed() []string {
	var out []string
	for k, v := range i.After {
		if b, ok := i.Before[k]; !ok || b != v {
			out = append(out, k)
		}
	}
	for k := range i.Before {
		if _, ok := i.After[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}
