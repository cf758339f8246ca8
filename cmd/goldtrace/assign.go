package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/spf13/cobra"
)

// assignFlags are assign's options.
type assignFlags struct {
	as, from, to, batch, item string
	stalled                   time.Duration
	release, asJSON           bool
}

func newAssignCmd(cli *CLI) *cobra.Command {
	var f assignFlags
	cmd := &cobra.Command{
		Use:   "assign --release --as LEAD --from REVIEWER --to REVIEWER",
		Short: "Move a reviewer's skipped or stalled items to another reviewer",
		Long: `assign --release moves a reviewer's skipped items (and, with --stalled DUR,
pending items nobody touched for DUR) to another reviewer, who finds them at
the end of their queue and labels them blind like any other item. Items the
receiver is already assigned stay where they are and are listed. Drafts are
never moved: they hold the reviewer's typed work.

Only a lead may release.`,
		Example: `  goldtrace assign --release --as carol --from bob --to dave
  goldtrace assign --release --as carol --from bob --to dave --batch b1 --stalled 72h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAssign(cmd, cli, f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.release, "release", false, "release items (the only mode so far)")
	fl.StringVar(&f.as, "as", "", "the lead releasing (required)")
	fl.StringVar(&f.from, "from", "", "the reviewer whose items are released (required)")
	fl.StringVar(&f.to, "to", "", "the reviewer who gets them (required)")
	fl.StringVar(&f.batch, "batch", "", "only this batch")
	fl.StringVar(&f.item, "item", "", "only this item")
	fl.DurationVar(&f.stalled, "stalled", 0, "also release pending items untouched for this long (e.g. 72h)")
	fl.BoolVar(&f.asJSON, "json", false, "print what was released as JSON")
	return cmd
}

func runAssign(cmd *cobra.Command, cli *CLI, f assignFlags) error {
	switch {
	case !f.release:
		return errors.New("assign: say --release (moving skipped or stalled items is what assign does)")
	case f.from == "" || f.to == "":
		return errors.New("assign --release: --from REVIEWER and --to REVIEWER are required")
	case f.stalled < 0:
		return fmt.Errorf("assign --release: --stalled %s is negative", f.stalled)
	}
	be, who, err := cli.Actor(cmd, f.as)
	if err != nil {
		return err
	}
	req := app.ReleaseRequest{From: f.from, To: f.to, Batch: f.batch, Item: f.item}
	if f.stalled > 0 {
		req.StalledSince = time.Now().Add(-f.stalled)
	}
	released, kept, err := be.ReleaseAssignments(cmd.Context(), who, req)
	if err != nil {
		return fmt.Errorf("assign --release: %w", err)
	}
	return render.Releases(cli.Out, released, kept, f.from, f.to, f.asJSON)
}
