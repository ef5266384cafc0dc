package compiler

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/words"
)

// This file renders what site vet found: diagnostics as text, as JSON
// or as GitHub Actions workflow commands, and what a valid spec holds.

// RelPos makes file names relative to the working directory, as a user
// reading the output in a terminal or a CI log expects.
func RelPos(p model.Pos) model.Pos {
	if filepath.IsAbs(p.File) {
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, p.File); err == nil && !strings.HasPrefix(r, "..") {
				p.File = r
			}
		}
	}
	return p
}

// vetSummary counts what a valid spec holds.
type vetSummary struct {
	Tenants  int `json:"tenants"`
	Zones    int `json:"zones"`
	Records  int `json:"records"`
	VMs      int `json:"vms"`
	Networks int `json:"networks"`
}

func summarize(spec *model.Spec) vetSummary {
	var s vetSummary
	for _, t := range spec.Tenants {
		s.Tenants++
		s.Zones += len(t.Zones)
		s.VMs += len(t.VMs)
		s.Networks += len(t.Networks)
		for _, z := range t.Zones {
			for _, rs := range z.RRsets {
				s.Records += len(rs.Values)
			}
		}
	}
	return s
}

type jsonPos struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

type jsonDiag struct {
	jsonPos
	Path    string    `json:"path,omitempty"`
	Message string    `json:"message"`
	Related []jsonPos `json:"related,omitempty"`
}

// jsonVet is vet --format json. Summary, errors and warnings are always
// there, zero or empty when the spec did not load or has none, so a
// reader need not test for them.
type jsonVet struct {
	Valid    bool       `json:"valid"`
	Summary  vetSummary `json:"summary"`
	Errors   []jsonDiag `json:"errors"`
	Warnings []jsonDiag `json:"warnings"`
}

// WriteVetResult writes what site vet of spec says to w in format
// (text, json or github): diags, the load's errors and warnings, and
// err, the load's error (nil, Diagnostics, or one with no position).
// valid is false when a spec is invalid or unreadable; shown is an
// error for stderr, only when text has no report that carries it.
func WriteVetResult(w io.Writer, format string, spec *model.Spec, diags Diagnostics, err error) (valid bool, shown error) {
	if err != nil && !errors.As(err, &diags) {
		if format == "text" {
			return false, err
		}
		// A machine reading json or github output gets every error in
		// that form, once, not on stderr beside it.
		return false, WriteVetError(w, format, err)
	}
	if err := WriteVet(w, format, spec, diags); err != nil {
		return false, err
	}
	return spec != nil, nil
}

// WriteVetError reports an error that has no position in a spec (no
// site.cue, a PATH that does not exist) in the json or github format.
func WriteVetError(w io.Writer, format string, err error) error {
	if format == "github" {
		_, werr := fmt.Fprintf(w, "::error::%s\n", ghData("site: "+err.Error()))
		return werr
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonVet{Errors: []jsonDiag{{Message: err.Error()}}, Warnings: []jsonDiag{}})
}

// WriteVet prints diags, the errors and warnings of the load, and the
// summary of spec when it loaded (it is nil when the specs are invalid).
func WriteVet(w io.Writer, format string, spec *model.Spec, diags Diagnostics) error {
	switch format {
	case "json":
		out := jsonVet{Valid: spec != nil, Errors: []jsonDiag{}, Warnings: []jsonDiag{}}
		if spec != nil {
			out.Summary = summarize(spec)
		}
		for _, d := range diags {
			p := RelPos(d.Pos)
			jd := jsonDiag{jsonPos: jsonPos{p.File, p.Line, p.Col}, Path: d.Path, Message: d.Msg}
			for _, r := range d.Related {
				r = RelPos(r)
				jd.Related = append(jd.Related, jsonPos{r.File, r.Line, r.Col})
			}
			if d.Warning {
				out.Warnings = append(out.Warnings, jd)
			} else {
				out.Errors = append(out.Errors, jd)
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "github":
		for _, d := range diags {
			p := RelPos(d.Pos)
			props := "file=" + ghProp(p.File)
			if p.Line > 0 {
				props += fmt.Sprintf(",line=%d,col=%d", p.Line, p.Col)
			}
			command := "error"
			if d.Warning {
				command = "warning"
			}
			if _, err := fmt.Fprintf(w, "::%s %s::%s\n", command, props, ghData(d.Message(RelPos))); err != nil {
				return err
			}
		}
	default:
		for _, d := range diags {
			if _, err := fmt.Fprintln(w, d.Format(RelPos)); err != nil {
				return err
			}
		}
	}
	if spec != nil {
		s := summarize(spec)
		_, err := fmt.Fprintf(w, "ok: %s, %s, %s, %s, %s\n", words.Count(s.Tenants, "tenant"), words.Count(s.Zones, "zone"),
			words.Count(s.Records, "record"), words.Count(s.VMs, "VM"), words.Count(s.Networks, "network"))
		return err
	}
	return nil
}

// ghData and ghProp escape a workflow command's message and property
// values as GitHub Actions reads them.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
