package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
	"github.com/goldtrace/goldtrace/trace/synth"
	"github.com/goldtrace/goldtrace/tui"
)

func newDemoCmd(app *App) *cobra.Command {
	var (
		writeN    int
		seed      int64
		nTraces   int
		dir       string
		asJSON    bool
		noTUI     bool
		batchN    int
		aliceDone int
	)
	cmd := &cobra.Command{
		Use:   "demo [FILE]",
		Short: "Create a demo project with synthetic support-agent traces, or write such traces to FILE",
		Long: `Without flags, demo creates a project in a new temporary directory: a database
with synthetic traces of an online shop's support agent (including the model's
mistakes), reviewers alice and bob and lead carol, and prints what to try next.

With --write-traces N FILE it only writes N synthetic traces to FILE (- for
stdout) as canonical trace JSON Lines, for imports and benchmarks.`,
		Example: `  goldtrace demo
  goldtrace demo --write-traces 100000 traces.jsonl --seed 7
  goldtrace demo --write-traces 20 - | goldtrace import -`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("write-traces") {
				if len(args) != 1 {
					return errors.New("--write-traces needs a FILE to write to (- for stdout)")
				}
				if writeN < 0 {
					return fmt.Errorf("--write-traces must be at least 0, not %d", writeN)
				}
				return writeDemoTraces(app, args[0], synth.Options{Seed: seed, N: writeN})
			}
			if len(args) > 0 {
				return fmt.Errorf("unexpected argument %q (FILE goes with --write-traces)", args[0])
			}
			if nTraces < 1 {
				return fmt.Errorf("--traces must be at least 1, not %d", nTraces)
			}
			if dir == "" {
				d, err := os.MkdirTemp("", "goldtrace-demo-")
				if err != nil {
					return fmt.Errorf("create demo directory: %w", err)
				}
				dir = d
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("create demo directory: %w", err)
			}
			opts := synth.Options{Seed: seed, N: nTraces}
			st, project, err := setupDemo(cmd.Context(), dir, opts)
			if err != nil {
				return err
			}
			defer st.Close()
			project.Work, err = seedDemoWork(cmd.Context(), st, project.cases, seed, batchN, aliceDone)
			if err != nil {
				return err
			}
			if asJSON || noTUI || !IsTerminal(app.Out) || !IsTerminal(app.In) {
				return printDemoProject(app.Out, project, asJSON)
			}
			hint := "demo: you are alice · ctrl+c quits (work is saved) and shows how to switch"
			err = tui.RunLabel(cmd.Context(), st, tui.LabelOptions{Reviewer: "alice", Batch: demoBatch, Hint: hint})
			var notice *tui.QuitNotice
			if errors.As(err, &notice) {
				for _, line := range notice.Lines {
					fmt.Fprintln(app.Err, line)
				}
				err = nil
			}
			if err != nil {
				return fmt.Errorf("label screen: %w", err)
			}
			return printDemoProject(app.Out, project, false)
		},
	}
	cmd.Flags().BoolVar(&noTUI, "no-tui", false, "set the project up and print it, without opening the label screen")
	cmd.Flags().IntVar(&batchN, "batch-items", 40, "items in the demo batch")
	cmd.Flags().IntVar(&aliceDone, "prelabeled", 25, "how many of alice's items are already labeled (bob has labeled all)")
	cmd.Flags().IntVar(&writeN, "write-traces", 0, "only write `N` synthetic traces to FILE (- = stdout)")
	cmd.Flags().Int64Var(&seed, "seed", 1, "random seed: the same seed gives the same traces")
	cmd.Flags().IntVar(&nTraces, "traces", 300, "number of traces in the demo project")
	cmd.Flags().StringVar(&dir, "dir", "", "directory for the demo project (default: a new temporary directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the project summary as JSON")
	return cmd
}

// writeDemoTraces writes the traces of opts to path, or to stdout for "-".
// A file is written beside its final name and renamed into place, so a
// failed run leaves no half-written FILE.
func writeDemoTraces(app *App, path string, opts synth.Options) error {
	if path == "-" {
		if _, err := synth.Write(app.Out, opts); err != nil {
			return fmt.Errorf("write traces to stdout: %w", err)
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("write traces to %s: cannot create a file in %s", path, filepath.Dir(path))
	}
	// CreateTemp makes the file private; the traces are an ordinary output file.
	err = tmp.Chmod(0o644)
	var n int64
	if err == nil {
		n, err = synth.Write(tmp, opts)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write traces to %s: %w", path, err)
	}
	fmt.Fprintf(app.Out, "wrote %d traces (%.1f MB) to %s\n", opts.N, float64(n)/1e6, path)
	return nil
}

// demoProject is what setupDemo made.
type demoProject struct {
	Dir             string   `json:"dir"`
	DB              string   `json:"db"`
	Seed            int64    `json:"seed"`
	Traces          int      `json:"traces"`
	Items           int      `json:"items"`
	ItemsWithCalls  int      `json:"items_with_calls"`
	ItemsNoCalls    int      `json:"items_without_calls"`
	Reviewers       []string `json:"reviewers"`
	Leads           []string `json:"leads"`
	DeliberateWrong int      `json:"deliberately_wrong_items"`
	Work            demoWork `json:"work"`
	// cases are the generated traces with their simulated truth.
	cases []synth.Case
}

// setupDemo creates the demo database in dir: the users and the synthetic
// traces of opts, inserted in one transaction. The caller closes the store.
func setupDemo(ctx context.Context, dir string, opts synth.Options) (*store.Store, demoProject, error) {
	p := demoProject{Dir: dir, DB: filepath.Join(dir, "goldtrace.db"), Seed: opts.Seed}
	st, err := store.Open(ctx, p.DB)
	if err != nil {
		return nil, p, fmt.Errorf("open demo store: %w", err)
	}
	users := []struct{ name, role string }{
		{"alice", store.RoleReviewer}, {"bob", store.RoleReviewer}, {"carol", store.RoleLead},
	}
	for _, u := range users {
		if err := st.AddUser(ctx, u.name, u.role); err != nil {
			st.Close()
			return nil, p, fmt.Errorf("add demo user %s: %w", u.name, err)
		}
		if u.role == store.RoleLead {
			p.Leads = append(p.Leads, u.name)
		} else {
			p.Reviewers = append(p.Reviewers, u.name)
		}
	}
	cases := synth.GenerateCases(opts)
	p.cases = cases
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		for _, c := range cases {
			// Re-running in the same directory finds the same traces stored.
			if _, err := st.InsertTrace(ctx, tx, c.Trace, "demo"); err != nil {
				return fmt.Errorf("insert demo trace %s: %w", c.Trace.ID, err)
			}
			p.Traces++
			for _, it := range trace.Items(c.Trace) {
				p.Items++
				if len(it.Observed) > 0 {
					p.ItemsWithCalls++
				} else {
					p.ItemsNoCalls++
				}
			}
			for _, e := range c.Expected {
				if e.Mistake != synth.MistakeNone {
					p.DeliberateWrong++
				}
			}
		}
		return nil
	})
	if err != nil {
		st.Close()
		return nil, p, err
	}
	return st, p, nil
}

func printDemoProject(w io.Writer, p demoProject, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	fmt.Fprintf(w, "demo project in %s\n", p.Dir)
	fmt.Fprintf(w, "  database: %s\n", p.DB)
	fmt.Fprintf(w, "  traces:   %d synthetic support-agent conversations (seed %d)\n", p.Traces, p.Seed)
	fmt.Fprintf(w, "  items:    %d decision points: %d with tool calls, %d without (%d deliberately wrong)\n",
		p.Items, p.ItemsWithCalls, p.ItemsNoCalls, p.DeliberateWrong)
	fmt.Fprintf(w, "  users:    %s (reviewers), %s (lead)\n", strings.Join(p.Reviewers, ", "), strings.Join(p.Leads, ", "))
	fmt.Fprintf(w, "  batch:    %s, %d items for alice and bob; bob labeled %d, alice %d (%d left for you)\n",
		p.Work.Batch, p.Work.Items, p.Work.BobLabeled, p.Work.AliceLabeled, p.Work.AliceLeft)
	fmt.Fprintf(w, "            so far %d agreed, %d disputed; guide %s\n", p.Work.Agreed, p.Work.Disputed, p.Work.Guide)
	fmt.Fprintf(w, "\nnext:\n")
	fmt.Fprintf(w, "  export GOLDTRACE_DB=%s\n", p.DB)
	fmt.Fprintf(w, "  goldtrace label --as alice        # label the rest, blind (F1 lists keys)\n")
	fmt.Fprintf(w, "  goldtrace label --as bob          # the second reviewer (bob is done)\n")
	fmt.Fprintf(w, "  goldtrace status --as carol       # progress and agreement\n")
	fmt.Fprintf(w, "  goldtrace adjudicate --as carol   # the lead resolves disputes\n")
	fmt.Fprintf(w, "  goldtrace dashboard --as carol    # production model vs gold so far\n")
	fmt.Fprintf(w, "  goldtrace export support --as carol --out %s -m 'first cut'\n", p.Dir)
	fmt.Fprintf(w, "  goldtrace score --gold support@v1 # grade the production model\n")
	return nil
}
