package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
)

func newItemsCmd(cli *CLI) *cobra.Command {
	var q app.ItemsQuery
	var as string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "items",
		Short: "List item ids: a batch's items, the disputes, the gold, or your label queue",
		Long: `items lists item ids (for resolve ITEM, labels import and assign) with what
tells where to look: the item's state, the tool the production model called
there, how long it has been in that state, and the conversation's first user
message.

What you see depends on who you are (--as):
  a lead       every item, filtered by --batch, --state (pending, disputed,
               agreed, adjudicated, gold), --tool (the observed first tool,
               "(none)" for no call) and --reviewer (that reviewer's queue)
  a reviewer   your own queue only, with your progress on each item (--state
               pending, draft, submitted, skipped); not whether items agreed,
               nor the production model's calls (you label blind to them)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.Actor(cmd, as)
			if err != nil {
				return err
			}
			if q.Limit < 0 {
				return fmt.Errorf("--limit must not be negative")
			}
			rows, err := be.Items(cmd.Context(), who, q)
			if err != nil {
				return fmt.Errorf("items: %w", err)
			}
			if asJSON {
				if rows == nil {
					rows = []app.ItemRow{}
				}
				return render.IndentJSON(cli.Out, rows)
			}
			render.Items(cli.Out, rows, app.Authorize(who, app.ActStatusDetails) != nil, time.Now())
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&as, "as", "", "who is asking: a lead sees every item, a reviewer their own queue")
	fl.StringVar(&q.Batch, "batch", "", "only this batch")
	fl.StringVar(&q.State, "state", "", "only items in this state: pending, disputed, agreed, adjudicated, gold (a reviewer: pending, draft, submitted, skipped)")
	fl.StringVar(&q.Tool, "tool", "", `only items where the production model called this tool first ("(none)": no call; leads)`)
	fl.StringVar(&q.Reviewer, "reviewer", "", "only this reviewer's queue (a lead; a reviewer's is their own)")
	fl.IntVar(&q.Limit, "limit", 0, "at most this many items (0: all)")
	fl.BoolVar(&asJSON, "json", false, "print JSON (the full first user message)")
	return cmd
}
