package spelling

import "testing"

// TestCommand: another tool's command is answered with site's own and
// that tool's usage; a slip of spelling with the nearest command.
func TestCommand(t *testing.T) {
	commands := []string{"apply", "diff", "vet", "undo", "history"}
	for _, tc := range []struct{ word, ours, theirs string }{
		{"plan", "diff", "terraform plan"},
		{"PUSH", "apply", "dnscontrol push"},
		{"check", "vet", "dnscontrol check"},
		{"aply", "apply", ""},
		{"frobnicate", "", ""},
	} {
		if ours, theirs := Command(tc.word, commands); ours != tc.ours || theirs != tc.theirs {
			t.Errorf("Command(%q) = %q, %q; want %q, %q", tc.word, ours, theirs, tc.ours, tc.theirs)
		}
	}
}

// TestFlag: a Terraform flag is answered only where site has its
// counterpart; one dash before a long flag is named as the slip it is.
func TestFlag(t *testing.T) {
	flags := []string{"yes", "out", "target", "format"}
	has := func(name string) bool {
		for _, f := range flags {
			if f == name {
				return true
			}
		}
		return false
	}
	none := func(string) bool { return false }
	for _, tc := range []struct {
		word    string
		oneDash bool
		has     func(string) bool
		flag    string
		note    string
	}{
		{"auto-approve", false, has, "yes", "what terraform apply -auto-approve does"},
		{"out", true, has, "out", "site's long flags take two dashes"},
		{"target", false, has, "target", "what terraform -target does"},
		{"format", true, has, "format", "site's long flags take two dashes"},
		{"auto-approve", false, none, "", ""},
		{"x", true, has, "", ""},
		{"fromat", false, has, "format", ""},
	} {
		if flag, note := Flag(tc.word, tc.oneDash, tc.has, flags); flag != tc.flag || note != tc.note {
			t.Errorf("Flag(%q, oneDash %v) = %q, %q; want %q, %q", tc.word, tc.oneDash, flag, note, tc.flag, tc.note)
		}
	}
}
