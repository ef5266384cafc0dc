package manual

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, src, body     string
		title, summary, err string
	}{
		{"title and first sentence", "a/help/gates.md", "# Gates\n\nA gate is an acknowledgement. More follows.\n", "Gates", "A gate is an acknowledgement.", ""},
		{"paragraph over lines", "a/help/x.md", "# X\n\n## Sub\n\nOne\nline. Two.\n", "X", "One line.", ""},
		{"code skipped", "a/help/x.md", "# X\n\n```\nsite vet\n```\nText.\n", "X", "site vet Text.", ""},
		{"no title", "a/help/x.md", "Gates\n", "", "", `a/help/x.md:1:1: a topic starts with a "# Title" line`},
		{"empty title", "a/help/x.md", "# \n", "", "", "a topic starts with"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parse(c.src, c.body)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got.Title != c.title || got.Summary != c.summary {
				t.Errorf("parse = %+v, %v; want title %q summary %q", got, err, c.title, c.summary)
			}
		})
	}
}

// TestRegister: topics of several packages come together in reading
// order, a bad file or a repeated name is a problem and not a topic, and
// the generated environment topic is always there.
func TestRegister(t *testing.T) {
	Register("x/one", fstest.MapFS{
		"help/records.md":  {Data: []byte("# Records\n\nRecord types.\n")},
		"help/zzz.md":      {Data: []byte("# Zzz\n\nLast.\n")},
		"help/notopic.txt": {Data: []byte("ignored")},
	})
	Register("x/two", fstest.MapFS{
		"help/language.md": {Data: []byte("# Language\n\nFiles.\n")},
		"help/records.md":  {Data: []byte("# Again\n\nDup.\n")},
		"help/bad.md":      {Data: []byte("no title\n")},
	})
	var names []string
	for _, tp := range Topics() {
		names = append(names, tp.Name)
	}
	if got, want := strings.Join(names, " "), "language records environment zzz"; got != want {
		t.Errorf("Topics = %s, want %s", got, want)
	}
	if tp, _ := Lookup("records"); tp.Source != "x/one/help/records.md" {
		t.Errorf("records comes from %s, want the first registration", tp.Source)
	}
	probs := Problems()
	if len(probs) != 2 || !strings.Contains(probs[0].Error()+probs[1].Error(), `topic "records" is x/one/help/records.md already`) {
		t.Errorf("Problems = %v, want the repeated records and the bad file", probs)
	}
	if _, ok := Lookup("notopic"); ok {
		t.Error("a file other than *.md became a topic")
	}
}

// TestEnvironmentTopic: every variable of the list is in the topic.
func TestEnvironmentTopic(t *testing.T) {
	tp, ok := Lookup(EnvironmentTopic)
	if !ok || tp.Title != "Environment variables" {
		t.Fatalf("environment topic = %+v", tp)
	}
	for _, v := range Variables {
		if !strings.Contains(tp.Body, "`"+v.Name+"`") {
			t.Errorf("environment topic lacks %s", v.Name)
		}
	}
}
