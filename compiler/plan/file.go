package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/site-tools/site/compiler/hostilefile"
)

// A saved plan's file: written whole or not at all, and recognised
// without trusting the path it is found at.

// Save writes p as JSON to path (site diff --out) through a temporary
// file, so an interrupted write never leaves half a plan for apply
// --plan to read.
func (p *Plan) Save(path string) error {
	var b bytes.Buffer
	if err := p.WriteJSON(&b); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".site-plan-*")
	if err != nil {
		return fmt.Errorf("saving the plan to %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("saving the plan to %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving the plan to %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("saving the plan to %s: %w", path, err)
	}
	return nil
}

// savedPlanPeek is how much of a PATH IsSavedFile reads: a plan that
// site diff --out writes starts with its format_version.
const savedPlanPeek = 64 << 10

// IsSavedFile reports whether the file at path is a saved plan: a JSON
// object with a format_version among its first savedPlanPeek bytes.
// A PATH may be one a pull request added (site apply tenants/*), so,
// as for tenant files, only a regular file is read, never through a
// symbolic link, and only its start: not a pipe that never ends, nor a
// file of the runner's that a link points at, nor all of a huge one.
func IsSavedFile(path string) bool {
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
		return false
	}
	// A pipe or a link put in the file's place meanwhile is refused.
	f, err := hostilefile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, savedPlanPeek))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false
		}
		if key == "format_version" {
			var n *int
			return json.Unmarshal(v, &n) == nil && n != nil
		}
	}
	return false
}

// CheckSavePath fails when path cannot take a saved plan (site diff
// --out), so diff can say so before anything is observed rather than
// after a long observation has been printed.
func CheckSavePath(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("--out %s: directory %s does not exist or cannot be read (%v): create it or choose another path", path, dir, errors.Unwrap(err))
	case !fi.IsDir():
		return fmt.Errorf("--out %s: %s is not a directory", path, dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("--out %s: is a directory; name a file, e.g. %s", path, filepath.Join(path, "plan.json"))
	}
	return nil
}
