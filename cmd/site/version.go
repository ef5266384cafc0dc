package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler/manual"
)

// version is set at build time with -ldflags "-X main.version=..."
// (make build sets it from git describe); empty, the module's build
// info says it (see versionOf).
var version string

func init() { register(newVersionCmd) }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and which backends this binary has",
		Long: `version prints site's version (set at build time, else the module's)
and one line per backend built into this binary: the API and library
version it talks through and the environment variables it reads. For
libvirt it says whether libvirt.so.0 could be loaded on this machine
(libvirt is opened at run time, so site vet works where it is missing),
or that this binary was built without it and how to get one with it.`,
		Example: `  site version      # the version and the backends
  site --version    # the version line alone`,
		Args: noArgs("run site version on its own"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "site %s\n", siteVersion())
			for _, b := range providers.Table {
				fmt.Fprintf(out, "backend %s: %s\n", b.Name, b.About())
			}
			return nil
		},
	}
}

// siteVersion is the version set at build time, else the one the
// module's build info holds (see manual.Version).
func siteVersion() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(version, info)
}

// versionOf is manual.Version, under the name the tests call it by.
var versionOf = manual.Version
