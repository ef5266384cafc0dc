package leftovers

import "github.com/site-tools/site/compiler/words"

// shellQuote quotes a name read from a server (a zone, a domain) that
// goes into a command line the report prints for pasting.
var shellQuote = words.ShellQuote
