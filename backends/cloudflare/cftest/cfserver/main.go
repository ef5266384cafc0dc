// Command cfserver serves the Cloudflare FAKE of package cftest on a
// loopback address, with the zones named on its command line created
// (empty, as a zone added in Cloudflare's dashboard is), until it is
// stopped. It is not Cloudflare: make demo-full runs it where the real
// API cannot be reached, and says so. The token it accepts is read from
// the environment (CFTEST_TOKEN), never from arguments, which any user
// of the machine can read.
//
//	CFTEST_TOKEN=... cfserver -listen 127.0.0.1:8082 -zone sjc.example.net
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/site-tools/site/backends/cloudflare/cftest"
)

// tokenEnv names the variable holding the token the fake accepts.
const tokenEnv = "CFTEST_TOKEN"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cfserver:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends. It writes one line once the fake accepts
// connections, so a caller can wait for it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("cfserver", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8082", "`host:port` to serve on")
	var zones []string
	fs.Func("zone", "a zone to create (repeatable)", func(z string) error {
		if strings.TrimSpace(z) == "" {
			return errors.New("empty zone name")
		}
		zones = append(zones, z)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: zones are given with -zone", fs.Args())
	}
	token := getenv(tokenEnv)
	if token == "" {
		return fmt.Errorf("%s is empty: set it to the API token the fake should accept", tokenEnv)
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen: %w (is another cfserver running? make demo-stop stops the demo's)", err)
	}
	s := cftest.Serve(token, l)
	defer s.Close()
	for _, z := range zones {
		s.AddZone(z)
	}
	fmt.Fprintf(stdout, "cfserver: Cloudflare FAKE (package cftest, not Cloudflare) on %s, zones %s\n", s.URL, strings.Join(zones, ", "))
	<-ctx.Done()
	return nil
}
