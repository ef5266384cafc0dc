package compiler

import "cuelang.org/go/cue"

// This file looks up what the schema wants at a path of the user's
// file, to name the fields a misspelt one may have meant.

// underCredential reports whether path lies inside a credential, whose
// "field not allowed" errors are the branches of #Cred rejecting each
// other's field (tidyCredentials).
func underCredential(path []string) bool {
	for _, label := range path[:max(len(path)-1, 0)] {
		if credentialFields[label] {
			return true
		}
	}
	return false
}

// schemaFields lists, in the schema's order, the fields schema allows
// in the struct at path (schemaAt); nil where the schema has no struct.
func schemaFields(schema cue.Value, path []string) []string {
	v := schemaAt(schema, path)
	if !v.Exists() {
		return nil
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var fields []string
	for it.Next() {
		fields = append(fields, it.Selector().Unquoted())
	}
	return fields
}

// schemaAt is what schema wants at path, a path into the user's file:
// a label the schema names is followed as such, any other through the
// schema's pattern ([string]: #VM) or list element. It does not exist
// where the schema has nothing there.
func schemaAt(schema cue.Value, path []string) cue.Value {
	if !schema.Exists() {
		return cue.Value{}
	}
	v := schema
	for _, label := range path {
		next := cue.Value{}
		for _, sel := range []cue.Selector{cue.Str(label), cue.Str(label).Optional(), cue.Str(label).Required(), cue.AnyString, cue.AnyIndex} {
			if w := v.LookupPath(cue.MakePath(sel)); w.Exists() {
				next = w
				break
			}
		}
		if !next.Exists() {
			return cue.Value{}
		}
		v = next
	}
	return v
}

// credentialFields are the fields whose value is a #Cred.
var credentialFields = map[string]bool{"api_key": true, "token": true, "role_id": true, "secret_id": true}
