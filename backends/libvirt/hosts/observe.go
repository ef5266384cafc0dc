//go:build cgo && libvirt_dlopen

package hosts

import (
	"sort"
	"sync"

	"libvirt.org/go/libvirt"
)

// Obs is one run's observation of one host: its domains and networks,
// listed once. What a kind reads of the host further (storage's pools
// and volumes) it keeps beside the observation (Kept).
type Obs struct {
	// Set is the view the observation was handed to: the calls made
	// reading the host further are its caller's.
	Set  *Set
	Conn *libvirt.Connect
	Host string

	DomType  string // wanted <domain type>: kvm, qemu, or the driver's own
	Domains  map[string]*Domain
	Networks map[string]*Network

	kept *kept // shared by every view of the host (Kept)
}

// kept holds, by kind, what the kinds read of a host after observing it.
type kept struct {
	mu sync.Mutex
	m  map[string]any
}

// Kept returns what kind keeps beside o for the run, made by mk on first
// use, and shared by every view of the host (a renamed one too): the
// shared layer knows no kind, so a kind names its own.
func Kept[T any](o *Obs, kind string, mk func() *T) *T {
	o.kept.mu.Lock()
	defer o.kept.mu.Unlock()
	if v, ok := o.kept.m[kind]; ok {
		return v.(*T)
	}
	v := mk()
	o.kept.m[kind] = v
	return v
}

type entry struct {
	once sync.Once
	obs  *Obs
	err  error
}

// Observe returns the run's observation of host, observing it on first
// use. A step's view (Counting) keeps its own: a step that plans again
// at apply time observes the host itself, so its count does not hang on
// whether the executor had just observed the host for a step beside it.
func (s *Set) Observe(host string) (*Obs, error) {
	observed := s.observed
	if s.step != nil {
		observed = s.step.observed
	}
	s.mu.Lock()
	e := observed[host]
	if e == nil {
		e = &entry{}
		observed[host] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		// Observing only reads, so a transient failure is retried whole,
		// on a connection Conn reopens when the old one died: handles
		// from a dead connection are useless anyway.
		e.err = s.Retry(func() error {
			c, err := s.Conn(host)
			if err != nil {
				return err
			}
			e.obs, err = observeHost(s, c, host)
			return err
		})
	})
	if e.err != nil {
		return nil, e.err
	}
	// The host's observation is the run's, but the calls made reading
	// it further (volumes, pools) are the caller's.
	h := *e.obs
	h.Set = s
	return &h, nil
}

// Forget drops the observation of host after a change to it, so that
// the executor's re-observation sees the result.
func (s *Set) Forget(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.observed, host)
	if s.step != nil {
		delete(s.step.observed, host) // a step's view observes afresh too
	}
}

// ForgetAll drops every observation, so that the steps observe every
// host afresh (apply, under the tenants' locks).
func (s *Set) ForgetAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.observed)
}

// DomainNames returns the observed domain names in order.
func (o *Obs) DomainNames() []string {
	out := make([]string, 0, len(o.Domains))
	for n := range o.Domains {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
