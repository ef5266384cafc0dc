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
		Use:     "version",
		Short:   "Print the version and which backends this binary has",
		Long:    longHelp("version"),
		Example: examples("version"),
		Args:    noArgs("run site version on its own"),
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
