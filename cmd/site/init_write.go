package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler/scaffold"
)

// writeScaffold writes what init generated: the tenant's file (or
// prints it, with --out -), and the operator's file new, or its lines
// added with --config, or printed for the operator to add.
func writeScaffold(cmd *cobra.Command, out string, op scaffold.Operator, g scaffold.Result, o scaffold.Options) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if out == "-" {
		// Nothing written: the tenant's file is the output, and the
		// operator's lines go beside it.
		if _, err := stdout.Write(g.Tenant); err != nil {
			return err
		}
		if configFlag != "" && op.Exists && !g.Granted {
			return scaffold.AppendFile(op.Path, g.Site)
		}
		_, err := stderr.Write(g.Site)
		return err
	}
	switch {
	case !op.Exists:
		// The operator's file first: O_EXCL makes sure no other appeared.
		if err := scaffold.WriteNew(op.Path, g.Site); err != nil {
			return err
		}
	case configFlag != "" && !g.Granted:
		if err := scaffold.AppendFile(op.Path, g.Site); err != nil {
			return err
		}
	}
	if err := scaffold.WriteNew(out, g.Tenant); err != nil {
		return err
	}
	switch {
	case !op.Exists:
		printNext(stdout, out, op.Path, g, o)
	case g.Granted:
		fmt.Fprintf(stdout, "wrote %s; %s grants tenant %s already, so it needs nothing more; check it with: site vet %s\n", out, op.Path, o.Name, out)
	case configFlag != "":
		fmt.Fprintf(stdout, "wrote %s and added tenant %s to %s; check them with: site vet %s\n", out, o.Name, op.Path, out)
	default:
		// vet refuses a tenant site.cue does not grant: the grant comes first.
		fmt.Fprintf(stdout, "wrote %s; site vet refuses it until site.cue grants tenant %s, so first the operator adds this to %s (or run site init with --config FILE, which adds it):\n\n%s\nthen check it with: site vet %s\n",
			out, o.Name, op.Path, g.Site, out)
	}
	return nil
}

// printNext tells a new project what it has and the three commands
// that come next.
func printNext(w io.Writer, out, config string, g scaffold.Result, o scaffold.Options) {
	fmt.Fprintf(w, "wrote %s and %s.\n", config, out)
	if g.Kind == scaffold.Cloudflare {
		fmt.Fprintf(w, "Provider %s in %s is Cloudflare's API, its token read from $CLOUDFLARE_API_TOKEN: set that variable.\n", o.Provider, config)
	} else {
		fmt.Fprintf(w, "Provider %s in %s is a placeholder, a PowerDNS on loopback (as make demo starts one): point its url and dns at your server and set $PDNS_API_KEY.\n", o.Provider, config)
	}
	vet := "./" + defaultDir + "/..."
	if filepath.Dir(out) != defaultDir {
		vet = out
	}
	fmt.Fprintln(w, "Next:")
	for _, c := range [][]string{commandWords("vet", vet), commandWords("diff"), commandWords("apply")} {
		fmt.Fprintln(w, "  "+strings.Join(c, " "))
	}
}
