package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/words"
)

func init() { register(newDiffCmd) }

func newDiffCmd() *cobra.Command {
	var (
		pf          planFlags
		format, out string
		detailed    bool
		maxSteps    int
	)
	cmd := &cobra.Command{
		Use:     "diff [PATH ...]",
		Short:   "Show what apply would change on the live systems, and how disruptive",
		Long:    longHelp("diff"),
		Example: examples("diff"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd, args, diffOptions{pf, format, out, detailed, maxSteps})
		},
	}
	pf.add(cmd, planFlagHelp{
		only:            "observe only these phases: secrets,network,storage,vm,dns",
		ack:             "show steps this gate holds back as deferred (repeatable)",
		parallelism:     "how many steps observe at once",
		restart:         "plan as site apply --restart TENANT/VM would (repeatable)",
		deleteThreshold: "plan as site apply --delete-threshold would",
		updateThreshold: "plan as site apply --update-threshold would",
	})
	addBudgetFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&format, "format", "text", "text, json, or markdown (a pull request comment)")
	_ = cmd.RegisterFlagCompletionFunc("format", completeWords("text\tthe plan for a terminal", "json\tthe versioned JSON plan", "markdown\tfor a pull request comment"))
	f.StringVar(&out, "out", "", "also save the plan as JSON, for site apply --plan")
	f.BoolVar(&detailed, "detailed-exitcode", false, "exit 2 when there are changes")
	f.IntVar(&maxSteps, "max-steps", 0, "exit 1 before observing past this many steps (0: no bound)")
	return cmd
}

// diffOptions are diff's flags.
type diffOptions struct {
	planFlags
	format, out string
	detailed    bool
	maxSteps    int
}

func runDiff(cmd *cobra.Command, args []string, o diffOptions) (err error) {
	phases, err := parseOnly(o.only)
	if err != nil {
		return withCode(exitError, err)
	}
	if o.format != "text" && o.format != "json" && o.format != "markdown" {
		return withCode(exitError, fmt.Errorf("--format %q: use text, json or markdown", o.format))
	}
	planned := false
	if o.format == "markdown" {
		// The pull request comment is made of stdout alone: a diff that
		// stops before its plan says why there too, not only on stderr.
		defer func() {
			if err != nil && !planned {
				_ = plan.WriteMarkdownFailure(cmd.OutOrStdout(), err)
			}
		}()
	}
	if o.maxSteps < 0 {
		return withCode(exitError, fmt.Errorf("--max-steps %d: use 0 (no bound) or more", o.maxSteps))
	}
	run, err := o.newRun()
	if err != nil {
		return withCode(exitError, err)
	}
	if o.out != "" {
		if err := plan.CheckSavePath(o.out); err != nil {
			return withCode(exitError, err)
		}
	}
	s, prog := openSession(cmd, args, providers.Open(run), run, o.planFlags, engine.Options{})
	defer s.Close()
	// Watching from before the load: listing what the tenants no longer
	// declare reads the hosts, and a hung one must not hang a Ctrl-C.
	defer watchInterrupts(prog, nil, nil, s)()
	p, err := observeDiff(cmd, args, o, s, phases)
	if err != nil {
		return err
	}
	planned = true
	return showDiff(cmd, args, o, p, run)
}

// observeDiff loads the specs and observes them in session s: the plan
// diff shows, with what it records for a saved plan.
func observeDiff(cmd *cobra.Command, args []string, o diffOptions, s *engine.Session, phases []plan.Phase) (*plan.Plan, error) {
	targets := parseTargets(o.targets)
	spec, err := compiler.HashSpec(configFlag, args)
	if err != nil {
		return nil, withCode(exitError, err)
	}
	load := budget(cmd)
	load.Warn = warnTo(cmd.ErrOrStderr())
	load.Early = s.ReadAhead(phases, targets, o.maxSteps)
	g, err := o.scope(args, phases, targets, load, s.DiscoverWithin(o.maxSteps, targets))
	if err != nil {
		return nil, withCode(exitError, err)
	}
	if err := s.Check(g); err != nil {
		return nil, withCode(exitError, err)
	}
	if err := engine.WithinMaxSteps(g, o.maxSteps); err != nil {
		return nil, withCode(exitError, err)
	}
	// diff takes no lock, but says when an apply of these tenants runs.
	obs, err := s.Plan(g)
	if err != nil {
		return nil, withCode(exitError, err)
	}
	obs.Scope(phases, targets, g)
	p := obs.Plan
	p.Spec = spec
	p.Options = s.Run().Saved(p.Blocked)
	if !o.quiet {
		writeRequestNotes(cmd.ErrOrStderr(), g, p)
	}
	return p, nil
}

// showDiff writes the plan p in diff's format, saves it (--out) and
// picks the exit code.
func showDiff(cmd *cobra.Command, args []string, o diffOptions, p *plan.Plan, run *backends.Run) (err error) {
	stdout := cmd.OutOrStdout()
	switch o.format {
	case "json":
		err = p.WriteJSON(stdout)
	case "markdown":
		err = p.WriteMarkdown(stdout, run.Acked)
	default:
		err = p.WriteText(stdout, plan.TextOptions{Color: useColor(stdout), Acked: run.Acked, Quiet: o.quiet})
	}
	if err != nil {
		return withCode(exitError, err)
	}
	if o.out != "" {
		if err := p.Save(o.out); err != nil {
			return withCode(exitError, err)
		}
	}
	// A step held back by a gate the user acknowledged (an unreachable
	// secret store with --ack GATE-SECRET-UNREACHABLE) is deferred, as
	// apply would defer it: shown, not an error.
	if stuck := p.Unobserved(run.Acked); len(stuck) > 0 {
		where := `see "Not planned" above`
		if o.format == "json" {
			where = `see "blocked" in the plan`
		}
		// As apply: a step that no gate defers is an error whatever is
		// acknowledged; steps that each wait for a gate not
		// acknowledged are blocked by gates (exit 3), and the message
		// ends with the command that shows them deferred.
		if gates := plan.WaitingGates(stuck); gates != nil {
			n := len(stuck)
			return withCode(exitGated, fmt.Errorf("%s could not be planned without %s acknowledged, so this plan is incomplete: %s; to show %s deferred, as site apply would defer %s, run: %s",
				words.Count(n, "step"), plan.JoinGates(gates), where, words.Plural(n, "it", "them"), words.Plural(n, "it", "them"), diffCommand(args, o, gates)))
		}
		return withCode(exitError, fmt.Errorf("%s could not be planned, so this plan is incomplete: %s", words.Count(len(stuck), "step"), where))
	}
	if err := p.ProblemsError(o.format == "json"); err != nil {
		return withCode(exitError, err)
	}
	if o.detailed && p.HasChanges() {
		return withCode(exitChanges, nil)
	}
	return nil
}

// diffCommand is the diff that was run, with --ack for each of gates:
// the command that shows the steps waiting for them as deferred.
func diffCommand(args []string, o diffOptions, gates []plan.Gate) string {
	var extra []string
	if o.format != "text" {
		extra = append(extra, "--format", o.format)
	}
	if o.out != "" {
		extra = append(extra, "--out", words.ShellQuote(o.out))
	}
	if o.detailed {
		extra = append(extra, "--detailed-exitcode")
	}
	argv := append(commandWords("diff", args...), o.words(extra...)...)
	for _, g := range gates {
		argv = append(argv, "--ack", string(g))
	}
	return strings.Join(argv, " ")
}
