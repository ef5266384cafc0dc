package spelling

import "strings"

// Users arrive from Terraform and DNSControl and type those tools'
// words first. An unknown command or flag says which of site's own it
// most likely meant: the habit's, else the nearest spelling (Nearest).
// cmd/site keeps the cobra glue; the choice is made here.

// habit is site's word for another tool's, and the tool's usage, to
// say why it was suggested.
type habit struct{ ours, theirs string }

// commandHabits are other tools' commands, by name.
var commandHabits = map[string]habit{
	"plan":     {"diff", "terraform plan"},
	"preview":  {"diff", "dnscontrol preview"},
	"push":     {"apply", "dnscontrol push"},
	"validate": {"vet", "terraform validate"},
	"check":    {"vet", "dnscontrol check"},
}

// flagHabits are other tools' flags, by name without dashes; the
// suggestion is made only to a command that has site's flag.
var flagHabits = map[string]habit{
	"auto-approve": {"yes", "terraform apply -auto-approve"},
	"out":          {"out", "terraform plan -out"},
	"target":       {"target", "terraform -target"},
}

// Command says which of commands (site's) an unknown command word most
// likely meant: another tool's command's counterpart, with theirs
// naming that tool's usage, else the nearest spelling (theirs empty);
// "" when none.
func Command(word string, commands []string) (ours, theirs string) {
	if h, ok := commandHabits[strings.ToLower(word)]; ok {
		return h.ours, h.theirs
	}
	return Nearest(word, commands), ""
}

// Flag says which of a command's flags (flags, those it shows; has
// tells whether it has a flag, shown or not) an unknown flag word most
// likely meant, and why when it is not a slip of spelling; "" when
// none. oneDash is true when it was written with one dash (-out, as
// Terraform writes them): the whole word is the name meant.
func Flag(word string, oneDash bool, has func(string) bool, flags []string) (flag, note string) {
	const dashes = "site's long flags take two dashes"
	h, ok := flagHabits[strings.ToLower(word)]
	switch {
	case ok && has(h.ours) && oneDash && h.ours == word:
		return h.ours, dashes
	case ok && has(h.ours):
		return h.ours, "what " + h.theirs + " does"
	case oneDash && len(word) > 1 && has(word):
		return word, dashes
	case len(word) < 2:
		return "", "" // a mistyped shorthand: nothing to go by
	}
	return Nearest(word, flags), ""
}
