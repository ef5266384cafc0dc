package powerdns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/miekg/dns"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/model"
)

// What the check after an apply finds (verify.go) must not be forgotten
// by the next run: a record the API holds as wanted while the server
// answers otherwise (an ALIAS whose target does not resolve, a record
// another backend of the server shadows) plans no change, so site diff
// said "No changes" and exited 0 (issue 27). So observing a zone also
// asks its DNS address what it serves for every wanted rrset the plan
// leaves as it is, with the same zone transfer and ALIAS queries the
// check after apply makes (one AXFR per zone, plus two queries per
// ALIAS); each difference is a problem of the plan, which diff and
// apply fail on. The rrsets the plan changes are checked after the
// apply writes them. A zone whose DNS address is "off" or unknown is not
// asked; one that cannot be asked gets a note, not a problem.

// authority asks addr what it serves for the wanted rrsets of zone that
// b leaves unchanged, and returns the differences as problems, or a
// note when the server could not be asked; "" asks nothing. An
// interrupt ends it (observing only reads), as a cancelled ctx does.
func authority(ctx context.Context, run *backends.Run, addr string, zone *model.Zone, b *batch) (problems, notes []string) {
	expect := unchanged(zone, b)
	if addr == "" || len(expect) == 0 {
		return nil, nil
	}
	ctx, stop := run.ReadContext(ctx)
	defer stop()
	v, err := verify(ctx, addr, zone.Name, expect)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, []string{fmt.Sprintf("zone %s: what the server at %s answers was not checked: %v", zone.Name, addr, context.Cause(ctx))}
	case err != nil:
		msg := fmt.Sprintf("zone %s: what the server at %s answers was not checked: %v", zone.Name, addr, err)
		if rc := (*rcodeError)(nil); errors.As(err, &rc) && rc.rcode == dns.RcodeRefused {
			msg += fmt.Sprintf(": it does not serve zone %s; check that dns: of the zone's provider in site.cue is this PowerDNS's DNS address", zone.Name)
		}
		return nil, []string{msg}
	}
	return v.problems, nil
}

// askAuthority asks addr both what authority and what hidden ask, at
// once: the unchanged rrsets' problems, and whether the rrsets b creates
// are already served (which gates their changes in b).
func askAuthority(ctx context.Context, run *backends.Run, addr string, zone *model.Zone, obs *observation, b *batch) (problems, notes []string) {
	var hiddenNotes []string
	done := make(chan struct{})
	go func() {
		// hidden writes only b.changes; authority reads b.expect and b.kept.
		defer close(done)
		hiddenNotes, _ = hidden(ctx, run, addr, zone, obs, b)
	}()
	problems, notes = authority(ctx, run, addr, zone, b)
	<-done
	return problems, append(notes, hiddenNotes...)
}

// unchanged is an expectation for every wanted rrset of zone that b
// neither writes nor deletes.
func unchanged(zone *model.Zone, b *batch) []expectation {
	changed := make(map[rrKey]bool, len(b.expect))
	for _, e := range b.expect {
		changed[rrKey{e.name, e.typ}] = true
	}
	out := make([]expectation, 0, len(zone.RRsets))
	for _, w := range zone.RRsets {
		nt := dnsplan.NameType{Name: w.Name, Type: w.Type}
		if changed[rrKey{w.Name, w.Type}] || b.kept[nt] != nil {
			continue
		}
		// Shared when sorted already, as every expectation's values are
		// (nothing changes them); copied only with the records ignore
		// rules keep beside them (WithAlso).
		values := sortedCopy(w.Values)
		if b.res != nil && len(b.res.Also[nt]) > 0 {
			values = b.res.WithAlso(w)
		}
		out = append(out, expectation{name: w.Name, typ: w.Type, ttl: w.TTL, values: values})
	}
	return out
}

// verifyAddr picks where to send verification queries for zone.
func (d *Driver) verifyAddr(zone *model.Zone, run *backends.Run) string {
	if d.VerifyAddr != nil {
		return d.VerifyAddr(zone, run)
	}
	switch a := zone.Provider.PowerDNS.DNSAddr; a { // site.cue's dns: wins over the environment
	case "off":
		return ""
	case "":
	default:
		return a
	}
	if run != nil && run.Getenv != nil {
		switch v := run.Getenv(EnvDNSAddr); v {
		case "off":
			return ""
		case "":
		default:
			return v
		}
	}
	u, err := url.Parse(zone.Provider.PowerDNS.URL)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	return net.JoinHostPort(u.Hostname(), "53")
}
