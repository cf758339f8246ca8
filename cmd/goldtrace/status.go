package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/goldtrace/goldtrace/internal/textwrap"
)

func newStatusCmd(cli *CLI) *cobra.Command {
	var q app.StatusQuery
	var as string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Progress per batch and reviewer; for leads also disputes and agreement",
		Long: `status shows labeling progress per batch (pending, draft, submitted, skipped,
median seconds per label) and how many items are open or settled.

What you see depends on who you are (--as):
  no --as      totals only: no per-reviewer rows, no agreement
  a reviewer   the totals plus your own progress
  a lead       everything: every reviewer, agreed / disputed / adjudicated / gold,
               open disputes by kind, percent agreement and Cohen's kappa per
               reviewer pair; kappa (Cohen's, Conger's for more reviewers), Gwet's
               AC1 and Krippendorff's alpha on the tool with bootstrap 95%
               intervals, overall and per tool; args agreement given the same
               tool, per argument path; and which tools reviewers confuse

Reviewers never see agreement or the agreed/disputed split: with them a reviewer
could tell how another reviewer answered an item they just submitted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.Actor(cmd, as)
			if err != nil {
				return err
			}
			s, err := be.Status(cmd.Context(), who, q)
			if err != nil {
				return fmt.Errorf("status: %w", err)
			}
			if err := warnUnfinishedImports(cmd.Context(), cli, be, who); err != nil {
				return err
			}
			if asJSON {
				return render.IndentJSON(cli.Out, s)
			}
			// What is still too wide (long names, large counts) wraps at
			// spaces, indented under itself, rather than at the terminal's
			// edge mid-word.
			var buf strings.Builder
			if err := render.Status(&buf, s); err != nil {
				return err
			}
			_, err = io.WriteString(cli.Out, textwrap.FitLines(buf.String(), textwrap.Width))
			return err
		},
	}
	cmd.Flags().StringVar(&q.Batch, "batch", "", "only this batch")
	cmd.Flags().StringVar(&as, "as", "", "who is asking (a lead sees agreement and every reviewer)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// warnUnfinishedImports tells on stderr about imports that were interrupted
// (or are still running) and how to finish them (status and traces).
func warnUnfinishedImports(ctx context.Context, cli *CLI, be *app.App, who app.Actor) error {
	unfinished, err := be.UnfinishedImports(ctx, who)
	if err != nil {
		return err
	}
	for _, u := range unfinished {
		fmt.Fprintln(cli.Err, "goldtrace: "+u.Note())
	}
	return nil
}
