package compiler

// Inputs returns the files Load reads for config and paths, in the order
// it reads them: the operator's file, the named tenant files and their
// neighbours. A saved plan records a hash of each and refuses to be
// applied once one changed. A path that names no spec is a Diagnostics
// error, as Load reports it.
func Inputs(config string, paths []string) ([]string, error) {
	files, diags := expand(paths)
	if len(diags) > 0 {
		return nil, diags
	}
	return append([]string{config}, withoutFile(withSiblings(withoutFile(files, config)), config)...), nil
}
