package compiler

import (
	"sort"
	"strings"
)

// CompleteProviders are the shell's candidates for a --provider that
// names one of site.cue's: the providers the operator's file (configFlag,
// else found from here) declares that begin with prefix, each
// "name\tkind", sorted; none when there is no such file.
func CompleteProviders(configFlag, prefix string) []string {
	config, err := FindConfig(configFlag, nil)
	if err != nil {
		return nil
	}
	op, err := ReadOperatorAt(config)
	if err != nil {
		return nil
	}
	var out []string
	for name, p := range op.Providers() {
		if strings.HasPrefix(name, prefix) {
			out = append(out, name+"\t"+p.Kind())
		}
	}
	sort.Strings(out)
	return out
}
