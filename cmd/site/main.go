// Command site validates tenant specs written in CUE, shows what would
// change on the live systems (PowerDNS, Cloudflare, libvirt, with
// credentials from Vault/OpenBao) and converges them.
//
// The command holds no logic: it parses flags, calls the library, picks
// the output format and the exit code. The reference is
// site help TOPIC (compiler/manual).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler/hint"
)

// Exit codes, the contract scripts rely on.
const (
	exitOK      = 0 // valid / no changes / applied
	exitError   = 1 // invalid spec, backend failure
	exitChanges = 2 // diff --detailed-exitcode: changes present
	exitGated   = 3 // blocked by gates that were not acknowledged
	// exitInterrupted follows a second Ctrl-C or SIGTERM (interrupt.go):
	// 128+SIGINT, as a shell reports a process Ctrl-C ended.
	exitInterrupted = 130
)

// exitErr carries an exit code out of a command. A nil err with a code
// means the command already printed what the user needs.
type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitErr) Unwrap() error { return e.err }

// withCode wraps err so that site exits with code.
func withCode(code int, err error) error { return &exitErr{code: code, err: err} }

// commands holds the constructors of every subcommand; each command's
// file registers itself in init so that the root knows no command by name.
var commands []func() *cobra.Command

func register(newCmd func() *cobra.Command) { commands = append(commands, newCmd) }

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "site",
		Short:         "Validate, diff and converge tenant specs: DNS, VMs, networks, secrets",
		Long:          longHelp("site"),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// site --version prints the first line of site version, as users of
	// other tools try first.
	root.Version = siteVersion()
	root.SetVersionTemplate("site {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Usage is silenced (it would bury the error), so a flag error says
	// where the flags are listed instead.
	// It names the flag the user most likely meant (habits.go).
	root.SetFlagErrorFunc(flagError)
	root.PersistentFlags().StringVar(&configFlag, "config", "", configFlagHelp)
	for _, c := range commands {
		root.AddCommand(c())
	}
	root.SetHelpCommand(newHelpCmd())
	teachCompletion(root)
	completeNoFiles(root)
	return root
}

// run executes site with args and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	err = suggestCommand(root, args, err)
	code := exitError
	var ee *exitErr
	if errors.As(err, &ee) {
		code, err = ee.code, ee.err
	}
	if err != nil {
		writeError(stderr, err)
	}
	return code
}

// writeError prints err on stderr: "site: " and its cause, then its
// advice, when it has one, on an indented "hint:" line of its own
// (site help exit-codes describes the form).
func writeError(stderr io.Writer, err error) {
	cause, h, apart := hint.Split(err)
	fmt.Fprintln(stderr, "site:", cause)
	if apart {
		fmt.Fprintln(stderr, "  hint:", h.Render())
	}
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
