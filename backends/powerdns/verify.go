package powerdns

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"

	"github.com/site-tools/site/backends"
)

// queryTimeout bounds one verification query.
const queryTimeout = 3 * time.Second

// verifyWorkers bounds the DNS queries in flight during verification.
const verifyWorkers = 8

// verified is what verification found for one zone.
type verified struct {
	problems []string
	notes    []string
	// queries counts the DNS exchanges it made: a zone transfer is one.
	queries int
}

// verify asks the authoritative server at addr what it serves for every
// expectation and returns one problem per difference (incident 2: a
// record can read as written while the name does not resolve). Whatever
// the number of changes, one zone transfer reads them all (issue 13: a
// query per rrset made many-zone applies slow); a server that refuses
// the transfer is asked one query per rrset instead, and a note says so.
func verify(ctx context.Context, addr, zone string, expect []expectation) (v verified, err error) {
	var n atomic.Int64
	defer func() { v.queries = int(n.Load()) }()
	expect, aliases := splitAliases(expect)
	for _, e := range aliases {
		p, err := verifyAlias(ctx, &n, addr, e)
		if err != nil {
			return v, err
		}
		if p != "" {
			v.problems = append(v.problems, p)
		}
	}
	rest, note, err := verifyRRsets(ctx, &n, addr, zone, expect)
	if err != nil {
		return v, err
	}
	v.problems = append(v.problems, rest...)
	if note != "" {
		v.notes = append(v.notes, note)
	}
	return v, nil
}

// verifyInto verifies a step's writes at addr and files what it found
// in res. Verifying only reads: an interrupt (Ctrl-C) stops it, where it
// lets a write finish, and a note says it was, since nothing was found
// wrong nor checked.
func verifyInto(ctx context.Context, run *backends.Run, res *backends.StepResult, addr, zone string, expect []expectation) {
	vctx, stop := run.ReadContext(ctx)
	v, err := verify(vctx, addr, zone, expect)
	interrupted := err != nil && vctx.Err() != nil
	stop()
	res.Queries = v.queries
	switch {
	case interrupted:
		res.Notes = append(res.Notes, fmt.Sprintf("zone %s: verification over DNS at %s was interrupted: the changes were written, but what the server answers was not checked", zone, addr))
	case err != nil:
		msg := fmt.Sprintf("zone %s: could not verify at %s: %v", zone, addr, err)
		if rc := (*rcodeError)(nil); errors.As(err, &rc) && rc.rcode == dns.RcodeRefused {
			// What the API wrote is not what this address serves.
			msg += fmt.Sprintf(": it does not serve zone %s, though the API took the changes: check that dns: of the zone's provider in site.cue is this PowerDNS's DNS address; a zone created outside the API (pdnsutil) is served once PowerDNS's zone cache takes it in (zone-cache-refresh-interval, 300 s by default)", zone)
		}
		res.Problems = append(res.Problems, msg)
	default:
		res.Problems = append(res.Problems, v.problems...)
		res.Notes = append(res.Notes, v.notes...)
	}
}

// verifyRRsets is verify for every type DNS itself has. A single rrset
// is one query either way, and a UDP query is the cheaper one.
func verifyRRsets(ctx context.Context, n *atomic.Int64, addr, zone string, expect []expectation) (problems []string, note string, err error) {
	if len(expect) > 1 {
		served, err := transfer(ctx, n, addr, zone)
		if ctx.Err() != nil {
			// Interrupted: no fallback, which would only be cut short too.
			return nil, "", context.Cause(ctx)
		}
		if err == nil {
			for _, e := range expect {
				if p := compare(e, served.answer(zone, e.name, e.typ)); p != "" {
					problems = append(problems, p)
				}
			}
			return problems, "", nil
		}
		note = fmt.Sprintf("zone %s: verified with one query per changed rrset (%d), not one zone transfer: %v; let this host transfer the zone (PowerDNS: allow-axfr-ips) to verify in one", zone, len(expect), err)
	}
	problems, err = queryEach(ctx, n, addr, expect)
	return problems, note, err
}

// queryEach asks addr about every expectation, one query each.
func queryEach(ctx context.Context, n *atomic.Int64, addr string, expect []expectation) ([]string, error) {
	problems := make([]string, len(expect))
	err := eachBounded(ctx, len(expect), func(ctx context.Context, i int) error {
		got, err := query(ctx, n, addr, expect[i].name, expect[i].typ)
		if err == nil {
			problems[i] = compare(expect[i], got)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range problems {
		if p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// eachBounded runs f for 0..count-1, verifyWorkers at a time, and
// returns the first error. The first that fails ends the others: an
// unreachable address would otherwise cost a timeout per question.
func eachBounded(ctx context.Context, count int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	sem := make(chan struct{}, verifyWorkers)
	for i := range count {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(ctx, i); err != nil {
				once.Do(func() { firstErr = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// served is one rrset as the DNS port answers it.
type served struct {
	ttl    uint32
	values []string // normalised
}

// servedOne is a served with room for its first value: a transfer's
// rrsets (most hold one value) take one allocation each, not two.
type servedOne struct {
	served
	first [1]string
}

// compare returns what differs between e and what the server serves, or "".
func compare(e expectation, got *served) string {
	if e.typ == "SOA" && got != nil {
		// The server moves the serial on every change (SOA-EDIT-API).
		e.values = withoutSerial(e.values)
		got = &served{ttl: got.ttl, values: withoutSerial(got.values)}
	}
	if e.gone {
		if got != nil && len(got.values) > 0 && !(e.wildcard != nil && sameValues(e.typ, got.values, sortedCopy(e.wildcard))) {
			return fmt.Sprintf("%s %s: deleted, but the server still answers %s", e.name, e.typ, strings.Join(got.values, ", "))
		}
		return ""
	}
	if got == nil || len(got.values) == 0 {
		return fmt.Sprintf("%s %s: written, but the server answers no such records (want %s)", e.name, e.typ, strings.Join(e.values, ", "))
	}
	if !sameValues(e.typ, got.values, e.values) {
		return fmt.Sprintf("%s %s: written %s, but the server answers %s", e.name, e.typ, strings.Join(normAll(e.typ, e.values), ", "), strings.Join(got.values, ", "))
	}
	if got.ttl != e.ttl {
		return fmt.Sprintf("%s %s: written with TTL %d, but the server answers TTL %d", e.name, e.typ, e.ttl, got.ttl)
	}
	return ""
}

// withoutSerial replaces the serial of SOA values by "-".
func withoutSerial(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		f := strings.Fields(v)
		if len(f) == 7 {
			f[2] = "-"
		}
		out[i] = strings.Join(f, " ")
	}
	return out
}

// sortedCopy returns values sorted, copying them only when they are not.
func sortedCopy(values []string) []string {
	if slices.IsSorted(values) {
		return values
	}
	return slices.Sorted(slices.Values(values))
}

// rdata is an rr's data in the form norm produces.
func rdata(rr dns.RR) string {
	// Addresses, most of any zone, print straight from the IP the way
	// miekg/dns prints them inside the whole record (TestRdataFastPath
	// holds the two together), without printing the header to cut it.
	switch v := rr.(type) {
	case *dns.A:
		if v.A != nil {
			return v.A.String()
		}
	case *dns.AAAA:
		if v.AAAA != nil && v.AAAA.To4() == nil {
			return v.AAAA.String()
		}
	}
	return rdataPrinted(rr)
}

// rdataPrinted is rdata for any type: the record printed, header cut.
func rdataPrinted(rr dns.RR) string {
	// rr is parsed already: its printed form is what norm would make of
	// it, save the case of names. The header takes the first four
	// tab-separated fields (name, ttl, class, type); cutting them off
	// costs less than printing the header a second time to trim it.
	s := rr.String()
	for range 4 {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			return foldNames(dns.TypeToString[rr.Header().Rrtype], strings.TrimPrefix(rr.String(), rr.Header().String()))
		}
		s = s[i+1:]
	}
	return foldNames(dns.TypeToString[rr.Header().Rrtype], s)
}

// query asks addr for name/type over UDP, then TCP when truncated, and
// keeps the answers of exactly that owner and type (a CNAME answering an
// A query is not an A).
func query(ctx context.Context, n *atomic.Int64, addr, name, typ string) (*served, error) {
	in, t, err := ask(ctx, n, addr, name, typ)
	if err != nil {
		return nil, err
	}
	s := &served{}
	rrs := in.Answer
	switch {
	case len(in.Answer) > 0:
	case t == dns.TypeNS:
		// NS records below the apex delegate: the server answers them
		// as a referral, in the authority section, not as an answer.
		rrs = in.Ns
	case (t == dns.TypeA || t == dns.TypeAAAA) && len(in.Ns) > 0:
		// The address of a name server inside a child zone (glue) is
		// served in the referral's additional section.
		rrs = in.Extra
	}
	for _, rr := range rrs {
		h := rr.Header()
		if h.Rrtype != t || !strings.EqualFold(h.Name, name) {
			continue
		}
		s.ttl = h.Ttl
		s.values = append(s.values, rdata(rr))
	}
	slices.Sort(s.values)
	return s, nil
}

// ask sends addr one question for name/type over UDP, then TCP when
// the answer is truncated, and returns the answer, which is data or "no
// such name" (any other rcode is an *rcodeError), and the type asked.
func ask(ctx context.Context, n *atomic.Int64, addr, name, typ string) (*dns.Msg, uint16, error) {
	t, ok := dns.StringToType[typ]
	if !ok {
		return nil, 0, fmt.Errorf("cannot query type %s", typ)
	}
	m := question(name, t)
	n.Add(1)
	in, err := exchange(ctx, &dns.Client{Timeout: queryTimeout}, m, addr)
	if err == nil && in.Truncated {
		n.Add(1)
		in, err = exchange(ctx, &dns.Client{Net: "tcp", Timeout: queryTimeout}, m, addr)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("query %s %s: %w", name, typ, err)
	}
	if err := answered(in, name, typ); err != nil {
		return nil, 0, err
	}
	return in, t, nil
}

// rcodeError is a server's answer that is neither data nor "no such
// name": the server is there, but will not answer this question.
type rcodeError struct {
	name, typ string
	rcode     int
}

func (e *rcodeError) Error() string {
	return fmt.Sprintf("query %s %s: server answered %s", e.name, e.typ, dns.RcodeToString[e.rcode])
}
