package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/site-tools/site/compiler/spelling"
)

// Users arrive from Terraform and DNSControl and type those tools'
// words first: an unknown command or flag says which of site's own it
// most likely meant (spelling.Command and spelling.Flag choose).

// unknownCommand matches cobra's error for a word that names no
// command of the root (legacyArgs); its suggestions, on lines of their
// own, are replaced by one hint on the same line.
var unknownCommand = regexp.MustCompile(`^unknown command ("(?:[^"\\]|\\.)*") for "`)

// suggestCommand rewrites err, when it is cobra's unknown command of
// root, to name the command the word most likely meant.
func suggestCommand(root *cobra.Command, args []string, err error) error {
	m := unknownCommand.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	if _, _, ferr := root.Find(args); ferr == nil {
		return err // not the root's unknown word after all
	}
	word, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		return err
	}
	see := fmt.Sprintf("see %s --help", root.CommandPath())
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	switch near, theirs := spelling.Command(word, names); {
	case theirs != "":
		return fmt.Errorf("unknown command %q: did you mean %s %s? (what %s does; %s)", word, root.CommandPath(), near, theirs, see)
	case near != "":
		return fmt.Errorf("unknown command %q: did you mean %s %s? (%s)", word, root.CommandPath(), near, see)
	}
	return fmt.Errorf("unknown command %q (%s)", word, see)
}

// flagError is the root's flag error function: err, then the flag the
// user most likely meant when err is an unknown flag, then where the
// command's flags are listed.
func flagError(c *cobra.Command, err error) error {
	see := fmt.Sprintf("see %s --help", c.CommandPath())
	flag, note := suggestFlag(c, err)
	switch {
	case flag != "" && note != "":
		return fmt.Errorf("%w: did you mean --%s? (%s; %s)", err, flag, note, see)
	case flag != "":
		return fmt.Errorf("%w: did you mean --%s? (%s)", err, flag, see)
	}
	return fmt.Errorf("%w (%s)", err, see)
}

// suggestFlag says which of c's flags an unknown flag most likely
// meant, and why when it is not a slip of spelling; "" when none. A
// long flag written with one dash (-out, as Terraform writes them)
// reaches pflag as shorthands: the whole word is the name meant.
func suggestFlag(c *cobra.Command, err error) (flag, note string) {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return "", ""
	}
	word, oneDash := ne.GetSpecifiedName(), false
	if group := ne.GetSpecifiedShortnames(); group != "" {
		word, _, _ = strings.Cut(group, "=")
		oneDash = true
	}
	has := func(name string) bool { return c.Flags().Lookup(name) != nil }
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return spelling.Flag(word, oneDash, has, names)
}
