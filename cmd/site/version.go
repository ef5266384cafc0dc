package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func init() { register(newVersionCmd) }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and which backends this binary has",
		Long: `version prints site's version (set at build time, else the module's)
and one line per backend built into this binary: the API and library
version it talks through and the environment variables it reads. For
libvirt it says whether libvirt.so.0 could be loaded on this machine:
libvirt is opened at run time, so site vet works where it is missing.`,
		Example: `  site version      # the version and the backends
  site --version    # the version line alone`,
		Args: noArgs("run site version on its own"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "site %s\n", siteVersion())
			if len(builtIn) == 0 {
				fmt.Fprintln(out, "backends: none")
			}
			for _, b := range builtIn {
				fmt.Fprintf(out, "backend %s: %s\n", b.name, b.about())
			}
			return nil
		},
	}
}

// siteVersion is the version set at build time, else the module's.
func siteVersion() string {
	v := version
	if info, ok := debug.ReadBuildInfo(); ok && v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	return v
}
