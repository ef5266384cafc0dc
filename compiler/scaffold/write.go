package scaffold

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/site-tools/site/compiler"
)

// This file writes what site init generated and says what comes next;
// the command keeps the flags and the exit code.

// Writing is where one site init writes and how it names the commands
// it prints.
type Writing struct {
	Stdout, Stderr io.Writer
	// Out is the tenant's file, "-" for stdout.
	Out string
	// ToConfig is true when --config named the operator's file: the
	// lines it needs are added to it rather than printed.
	ToConfig bool
	// Command is a site command line to print for pasting back.
	Command func(sub string, args ...string) string
}

// Write writes what init generated (g, for o): the tenant's file (or
// prints it, with Out "-"), and the operator's file op new, or its
// lines added with ToConfig, or printed for the operator to add.
func (w Writing) Write(op Operator, g Result, o Options) error {
	if w.Out == "-" {
		// Nothing written: the tenant's file is the output, and the
		// operator's lines go beside it.
		if _, err := w.Stdout.Write(g.Tenant); err != nil {
			return err
		}
		if w.ToConfig && op.Exists && !g.Granted {
			return AppendFile(op.Path, g.Site)
		}
		_, err := w.Stderr.Write(g.Site)
		return err
	}
	switch {
	case !op.Exists:
		// The operator's file first: O_EXCL makes sure no other appeared.
		if err := WriteNew(op.Path, g.Site); err != nil {
			return err
		}
	case w.ToConfig && !g.Granted:
		if err := AppendFile(op.Path, g.Site); err != nil {
			return err
		}
	}
	if err := WriteNew(w.Out, g.Tenant); err != nil {
		return err
	}
	out, stdout := w.Out, w.Stdout
	switch {
	case !op.Exists:
		w.next(op.Path, g, o)
	case g.Granted:
		fmt.Fprintf(stdout, "wrote %s; %s grants tenant %s already, so it needs nothing more; check it with: site vet %s\n", out, op.Path, o.Name, out)
	case w.ToConfig:
		fmt.Fprintf(stdout, "wrote %s and added tenant %s to %s; check them with: site vet %s\n", out, o.Name, op.Path, out)
	default:
		// vet refuses a tenant site.cue does not grant: the grant comes first.
		fmt.Fprintf(stdout, "wrote %s; site vet refuses it until site.cue grants tenant %s, so first the operator adds this to %s (or run site init with --config FILE, which adds it):\n\n%s\nthen check it with: site vet %s\n",
			out, o.Name, op.Path, g.Site, out)
	}
	return nil
}

// next tells a new project what it has and the three commands that
// come next.
func (w Writing) next(config string, g Result, o Options) {
	fmt.Fprintf(w.Stdout, "wrote %s and %s.\n", config, w.Out)
	if g.Kind == Cloudflare {
		fmt.Fprintf(w.Stdout, "Provider %s in %s is Cloudflare's API, its token read from $CLOUDFLARE_API_TOKEN: set that variable.\n", o.Provider, config)
	} else {
		fmt.Fprintf(w.Stdout, "Provider %s in %s is a placeholder, a PowerDNS on loopback (as make demo starts one): point its url and dns at your server and set $PDNS_API_KEY.\n", o.Provider, config)
	}
	vet := "./" + compiler.TenantsDir + "/..."
	if filepath.Dir(w.Out) != compiler.TenantsDir {
		vet = w.Out
	}
	fmt.Fprintln(w.Stdout, "Next:")
	for _, c := range []string{w.Command("vet", vet), w.Command("diff"), w.Command("apply")} {
		fmt.Fprintln(w.Stdout, "  "+c)
	}
}
