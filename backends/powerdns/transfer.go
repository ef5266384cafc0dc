package powerdns

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"

	"github.com/miekg/dns"
)

// exchange is c.ExchangeContext that also stops when ctx is cancelled,
// not only at its deadline: miekg/dns reads until its timeout otherwise.
func exchange(ctx context.Context, c *dns.Client, m *dns.Msg, addr string) (*dns.Msg, error) {
	conn, err := c.DialContext(ctx, addr)
	if err != nil {
		return nil, cancelled(ctx, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	in, _, err := c.ExchangeWithConnContext(ctx, m, conn)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return in, err
}

// transfer reads the whole zone with AXFR. Cancelling ctx closes the
// connection, which ends the transfer at once (miekg/dns has no other
// way to stop one).
func transfer(ctx context.Context, n *atomic.Int64, addr, zone string) (servedZone, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	conn, err := (&net.Dialer{Timeout: queryTimeout}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, cancelled(ctx, err)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	m := new(dns.Msg)
	m.SetAxfr(zone)
	// The transfer closes conn when it ends, however it ends.
	tr := &dns.Transfer{Conn: &dns.Conn{Conn: conn}, ReadTimeout: queryTimeout, WriteTimeout: queryTimeout}
	n.Add(1)
	ch, err := tr.In(m, addr)
	if err != nil {
		conn.Close()
		return nil, cancelled(ctx, err)
	}
	out := servedZone{}
	var failed error
	for env := range ch { // to the end: the transfer's goroutine sends until then
		if env.Error != nil && failed == nil {
			failed = cancelled(ctx, env.Error)
		} else if failed == nil {
			out.add(env.RR)
		}
	}
	if failed != nil {
		return nil, failed
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("zone transfer of %s returned nothing", zone)
	}
	out.finish()
	return out, nil
}

// cancelled is why ctx ended when it has, else err: a read that failed
// because cancelling closed its connection was interrupted, not broken.
func cancelled(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}
