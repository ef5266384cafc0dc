package main

import (
	"fmt"
	"io"
	"time"

	"github.com/site-tools/site/backends/providers"
)

// runBackends are the drivers one run uses (package providers builds
// them from its table, the one place that names concrete backends).
// Close them when the run ends: closeBackends.
type runBackends = providers.Set

// closeBackends closes the run's backends when a command ends. What
// fails to close changed nothing the run did, so it is reported on
// stderr and does not change the exit code.
func closeBackends(bk *runBackends, stderr io.Writer) {
	closed := make(chan error, 1)
	go func() { closed <- bk.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			fmt.Fprintln(stderr, "site:", err)
		}
	case <-time.After(closeTimeout):
		// A connection whose server stopped answering (an observation
		// left behind by an interrupt holds it) would keep the run from
		// ending; the process ends and the kernel closes it.
		fmt.Fprintf(stderr, "site: closing the connections did not finish within %s (a server that stopped answering?); exiting without waiting longer\n", closeTimeout)
	}
}

// closeTimeout bounds closing the backends' connections at the end of a
// run.
const closeTimeout = 3 * time.Second
