package main

import (
	_ "embed"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// usageText holds each command's --help description and examples
// (usage.txtar): prose, kept out of the Go that wires the commands.
//
//go:embed usage.txtar
var usageText []byte

// usage is usage.txtar by file name ("apply.long").
var usage = func() map[string]string {
	m := map[string]string{}
	for _, f := range txtar.Parse(usageText).Files {
		m[f.Name] = strings.TrimSuffix(string(f.Data), "\n")
	}
	return m
}()

// longHelp is command name's description (usage.txtar: name.long).
func longHelp(name string) string { return mustUsage(name + ".long") }

// examples is command name's examples (usage.txtar: name.example).
func examples(name string) string { return mustUsage(name + ".example") }

func mustUsage(file string) string {
	s, ok := usage[file]
	if !ok {
		panic("cmd/site/usage.txtar has no " + file)
	}
	return s
}
