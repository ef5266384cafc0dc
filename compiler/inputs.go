package compiler

// Inputs returns the files Load reads for paths, in the order it reads
// them, so that a saved plan can record a hash of each and refuse to be
// applied once one changed. A path that names no spec is a Diagnostics
// error, as Load reports it.
func Inputs(paths []string) ([]string, error) {
	files, diags := expand(paths)
	if len(diags) > 0 {
		return nil, diags
	}
	return files, nil
}
