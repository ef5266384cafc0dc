// Package manual gathers site's reference: the Markdown help topics each
// package embeds beside itself (<package dir>/help/<topic>.md, first line
// "# Title"), which `site help TOPIC` prints. Packages register their
// topics from init (see Register), so this package stays a leaf that
// imports nothing of site's and a topic added to a help directory needs
// no code change: its package's //go:embed help/*.md picks it up.
package manual

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

// Topic is one help topic.
type Topic struct {
	Name    string // the file name without .md: what `site help NAME` takes
	Title   string // the first line without "# "
	Summary string // the first sentence of the first paragraph
	Source  string // the file's path from the repository's top
	Body    string // the Markdown, title line included
}

var (
	mu       sync.Mutex
	topics   = map[string]Topic{}
	problems []error
)

// Register adds the topics fsys holds under help/*.md. dir is the
// registering package's directory from the repository's top (such as
// "backends/lock"), so that a topic names the file it comes from. A
// topic that cannot be read, lacks its "# Title" line or repeats a name
// is left out and reported by Problems, which a test keeps empty; a
// user's site help never fails because of one.
func Register(dir string, fsys fs.FS) {
	files, err := fs.Glob(fsys, "help/*.md")
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		problems = append(problems, fmt.Errorf("%s: %w", dir, err))
		return
	}
	for _, f := range files {
		src := path.Join(dir, f)
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", src, err))
			continue
		}
		t, err := parse(src, string(b))
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if prev, ok := topics[t.Name]; ok {
			problems = append(problems, fmt.Errorf("%s: topic %q is %s already: rename one of them", src, t.Name, prev.Source))
			continue
		}
		topics[t.Name] = t
	}
}

// parse reads one topic file.
func parse(src, body string) (Topic, error) {
	name := strings.TrimSuffix(path.Base(src), ".md")
	first, rest, _ := strings.Cut(body, "\n")
	title, ok := strings.CutPrefix(first, "# ")
	if !ok || strings.TrimSpace(title) == "" {
		return Topic{}, fmt.Errorf("%s:1:1: a topic starts with a \"# Title\" line, not %q", src, first)
	}
	return Topic{Name: name, Title: strings.TrimSpace(title), Summary: summary(rest), Source: src, Body: body}, nil
}

// summary is the first sentence of the first paragraph of text, for the
// one-line list site help prints.
func summary(text string) string {
	var para []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" && len(para) > 0:
			return sentence(strings.Join(para, " "))
		case line == "", strings.HasPrefix(line, "#"), strings.HasPrefix(line, "```"):
			continue
		default:
			para = append(para, line)
		}
	}
	return sentence(strings.Join(para, " "))
}

func sentence(p string) string {
	if i := strings.Index(p, ". "); i >= 0 {
		p = p[:i+1]
	}
	return p
}

// Problems returns what kept a registered file out of the manual.
func Problems() []error {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(problems)
}

// Lookup returns the topic named name.
func Lookup(name string) (Topic, bool) {
	if name == EnvironmentTopic {
		return environmentTopic(), true
	}
	mu.Lock()
	defer mu.Unlock()
	t, ok := topics[name]
	return t, ok
}

// Topics returns every topic, in reading order: the ones Order names
// first, in its order, then the others by name.
func Topics() []Topic {
	mu.Lock()
	all := make([]Topic, 0, len(topics)+1)
	for _, t := range topics {
		all = append(all, t)
	}
	mu.Unlock()
	all = append(all, environmentTopic())
	rank := func(name string) int {
		if i := slices.Index(Order, name); i >= 0 {
			return i
		}
		return len(Order)
	}
	slices.SortFunc(all, func(a, b Topic) int {
		if ra, rb := rank(a.Name), rank(b.Name); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Name, b.Name)
	})
	return all
}

// Order is the reading order of the topics, newcomer's first. A topic
// it does not name comes after these, by name; a name here whose file
// has not been written yet is simply absent from site help.
var Order = []string{
	"language", "records", "operator", "trust", "ci",
	"plans", "gates", "ownership", "running", "confirmation", "interrupts", "locking", "state", "undo", "exit-codes",
	EnvironmentTopic,
	"powerdns", "cloudflare", "vault", "libvirt", "storage", "transport",
	"export", "leftovers",
	"install", "demo", "completion", "performance", "limits", "testing",
}
