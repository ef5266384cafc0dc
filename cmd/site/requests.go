package main

import (
	"fmt"
	"io"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

// writeRequestNotes writes engine.RequestNotes to w, each line begun
// "site: ": what the plan's apply will spend of each provider's rate.
func writeRequestNotes(w io.Writer, g *graph.Graph, p *plan.Plan) {
	for _, l := range engine.RequestNotes(g, p) {
		fmt.Fprintf(w, "site: %s\n", l)
	}
}
