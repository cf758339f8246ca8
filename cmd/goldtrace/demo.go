package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/goldtrace/goldtrace/internal/outfile"
	"github.com/goldtrace/goldtrace/source"
	"github.com/goldtrace/goldtrace/trace/synth"
	"github.com/goldtrace/goldtrace/tui"
)

// newDemoCmd builds goldtrace demo. It is long because it scripts the demo
// project step by step (traces, users, a batch, labels, a dispute) before
// opening the TUI; each step is one app call.
func newDemoCmd(cli *CLI) *cobra.Command {
	var (
		writeN    int
		seed      int64
		nTraces   int
		dir       string
		asJSON    bool
		noTUI     bool
		batchN    int
		aliceDone int
		layout    string
	)
	cmd := &cobra.Command{
		Use:   "demo [FILE]",
		Short: "Create a demo project with synthetic support-agent traces, or write such traces to FILE",
		Long: `Without flags, demo creates a project in a new temporary directory: a database
with synthetic traces of an online shop's support agent (including the model's
mistakes), reviewers alice and bob and lead carol, and prints what to try next.

With --write-traces N FILE it only writes N synthetic traces to FILE (- for
stdout) as canonical trace JSON Lines, for imports and benchmarks; with
--layout langfuse|langsmith (or a FILE ending .parquet) as that vendor's
Parquet export, one row per model call.`,
		Example: `  goldtrace demo
  goldtrace demo --write-traces 100000 traces.jsonl --seed 7
  goldtrace demo --write-traces 20 - | goldtrace import -
  goldtrace demo --write-traces 100000 export.parquet --layout langsmith`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("write-traces") {
				if len(args) != 1 {
					return errors.New("--write-traces needs a FILE to write to (- for stdout)")
				}
				if writeN < 0 {
					return fmt.Errorf("--write-traces must be at least 0, not %d", writeN)
				}
				if layout == "" && strings.HasSuffix(strings.ToLower(args[0]), ".parquet") {
					layout = source.Langfuse
				}
				return writeDemoTraces(cli, args[0], layout, synth.Options{Seed: seed, N: writeN})
			}
			if layout != "" {
				return errors.New("--layout goes with --write-traces")
			}
			if len(args) > 0 {
				return fmt.Errorf("unexpected argument %q (FILE goes with --write-traces)", args[0])
			}
			be, project, closeStore, err := app.StartDemo(cmd.Context(), dir, synth.Options{Seed: seed, N: nTraces}, batchN, aliceDone)
			if err != nil {
				return err
			}
			defer closeStore()
			if asJSON || noTUI || !IsTerminal(cli.Out) || !IsTerminal(cli.In) {
				return render.DemoProject(cli.Out, project, asJSON, selfCommand())
			}
			hint := "demo: you are alice · ctrl+c quits (work is saved) and shows how to switch"
			alice, err := be.LocalActor(cmd.Context(), "alice")
			if err != nil {
				return err
			}
			err = tui.RunLabel(cmd.Context(), be.As(alice), tui.LabelOptions{Reviewer: "alice", Batch: app.DemoBatch, Hint: hint})
			var notice *tui.QuitNotice
			if errors.As(err, &notice) {
				for _, line := range notice.Lines {
					fmt.Fprintln(cli.Err, line)
				}
				err = nil
			}
			if err != nil {
				return fmt.Errorf("label screen: %w", err)
			}
			// What alice did on the screen changed the batch: say where
			// it stands now, as status says it.
			if err := be.RefreshDemoWork(cmd.Context(), &project.Work); err != nil {
				return err
			}
			return render.DemoProject(cli.Out, project, false, selfCommand())
		},
	}
	cmd.Flags().BoolVar(&noTUI, "no-tui", false, "set the project up and print it, without opening the label screen")
	cmd.Flags().IntVar(&batchN, "batch-items", 40, "items in the demo batch")
	cmd.Flags().IntVar(&aliceDone, "prelabeled", 25, "how many of alice's items are already labeled (bob has labeled all)")
	cmd.Flags().IntVar(&writeN, "write-traces", 0, "only write `N` synthetic traces to FILE (- = stdout)")
	cmd.Flags().StringVar(&layout, "layout", "", "with --write-traces: write a Parquet export in this `LAYOUT` ("+strings.Join(source.Layouts, "|")+"; default for a .parquet FILE: langfuse)")
	cmd.Flags().Int64Var(&seed, "seed", 1, "random seed: the same seed gives the same traces")
	cmd.Flags().IntVar(&nTraces, "traces", 300, "number of traces in the demo project")
	cmd.Flags().StringVar(&dir, "dir", "", "directory for the demo project (default: a new temporary directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the project summary as JSON")
	return cmd
}

// writeDemoTraces writes the traces of opts to path, or to stdout for "-".
func writeDemoTraces(cli *CLI, path, layout string, opts synth.Options) error {
	n, err := app.WriteDemoTraces(path, cli.Out, layout, opts)
	if err == nil && path != "-" && !outfile.NotRegular(path) {
		fmt.Fprintf(cli.Out, "wrote %s (%.1f MB) to %s\n", render.CountNoun(opts.N, "trace", "traces"), float64(n)/1e6, path)
	}
	return err
}

// selfCommand is how to run this goldtrace again from a shell: "goldtrace"
// when that is what PATH finds, "go run ./cmd/goldtrace" under go run (or
// go test), else the binary's own path.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "goldtrace"
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/goldtrace"
	}
	if onPath, err := exec.LookPath("goldtrace"); err == nil {
		a, errA := os.Stat(onPath)
		b, errB := os.Stat(exe)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return "goldtrace"
		}
	}
	return app.ShellQuote(exe)
}
