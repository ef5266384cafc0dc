package journal

import (
	"embed"

	"github.com/site-tools/site/compiler/manual"
)

// Help holds this package's topics for site help (help/*.md, each
// starting with its "# Title" line); a file added there is a topic.
//
//go:embed help/*.md
var Help embed.FS

func init() { manual.Register("backends/journal", Help) }
