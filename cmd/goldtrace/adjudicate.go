package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/tui"
)

// adjudicateKinds are the dispute kinds --kind accepts.
var adjudicateKinds = []string{review.KindDecision, review.KindTool, review.KindArgs, review.KindCount, review.KindOrder, review.KindReview}

func newAdjudicateCmd(cli *CLI) *cobra.Command {
	var opts tui.AdjudicateOptions
	cmd := &cobra.Command{
		Use:         "adjudicate --as LEAD",
		Annotations: map[string]string{"screen": "yes"},
		Short:       "Settle disputed items in the terminal UI (leads only)",
		Long: `Opens the lead's queue of disputed items, oldest first: the conversation, the
reviewers' labels side by side with their differences marked (≠), and the
decisions: pick one label (1, 2, …), edit a merged label (e), mark both
acceptable (b), set per-argument rules (r), send the item back to its
reviewers (s) or propose a guide change (g). Every decision asks for a short
reason and is recorded with it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Kind != "" && !slices.Contains(adjudicateKinds, opts.Kind) {
				return fmt.Errorf("--kind %q: want one of %s", opts.Kind, strings.Join(adjudicateKinds, ", "))
			}
			be, who, err := cli.Actor(cmd, opts.Lead)
			if err != nil {
				return err
			}
			session := be.As(who)
			if _, err := session.Open(cmd.Context(), app.ActAdjudicate, "adjudication"); err != nil {
				return fmt.Errorf("adjudicate: %w", err)
			}
			opts.Lead = who.Name
			opts.Dashboard = true // d shows the dashboard, a comes back
			err = tui.RunAdjudicate(cmd.Context(), session, opts, cli.programOptions()...)
			var notice *tui.QuitNotice
			if errors.As(err, &notice) {
				// what the session decided and what is left
				fmt.Fprintln(cli.Err, strings.Join(notice.Lines, "\n"))
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVar(&opts.Lead, "as", "", "the lead adjudicating")
	cmd.Flags().StringVar(&opts.Batch, "batch", "", "only disputes in this batch")
	cmd.Flags().StringVar(&opts.Kind, "kind", "", "only disputes of this kind: "+strings.Join(adjudicateKinds, ", "))
	return cmd
}
