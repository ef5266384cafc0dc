package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/site-tools/site/compiler/specgen"
	"github.com/site-tools/site/schema"
)

// writeVetInput writes tenants generated tenants of records records
// under dir/vet/tenants (with their site.cue) and the embedded schema
// under dir/vet/schema, for cue vet. It returns the directory, the
// tenant files and the schema files, relative to it.
func writeVetInput(dir string, tenants, records int) (string, []string, []string, error) {
	root := filepath.Join(dir, "vet")
	specs := filepath.Join(root, "tenants")
	schemaDir := filepath.Join(root, "schema")
	for _, d := range []string{specs, schemaDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", nil, nil, err
		}
	}
	files, _, err := specgen.Write(specs, tenants, records)
	if err != nil {
		return "", nil, nil, err
	}
	for i, f := range files {
		files[i] = filepath.Join("tenants", filepath.Base(f))
	}
	names, err := fs.Glob(schema.FS, "*.cue")
	if err != nil {
		return "", nil, nil, err
	}
	var schemaFiles []string
	for _, n := range names {
		data, err := fs.ReadFile(schema.FS, n)
		if err != nil {
			return "", nil, nil, err
		}
		if err := os.WriteFile(filepath.Join(schemaDir, n), data, 0o644); err != nil {
			return "", nil, nil, err
		}
		schemaFiles = append(schemaFiles, filepath.Join("schema", n))
	}
	return root, files, schemaFiles, nil
}

// vetOnly is the vet mode: site vet against cue vet -c alone, without
// a PowerDNS server, at any size.
func vetOnly(site, cue string, tenants, records, runs int) error {
	dir, err := os.MkdirTemp("", "sitebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b := &bench{site: site, cue: cue, dir: dir, cache: filepath.Join(dir, "cache"), runs: runs,
		sizes: sizes{tenants: tenants, vetRecords: records}}
	rows, err := b.vetRows()
	if err != nil {
		return err
	}
	fmt.Printf("site vet --no-cache against cue vet -c, %d tenants × %d records, median of %d runs\n\n", tenants, records, runs)
	return printTable(os.Stdout, rows)
}
