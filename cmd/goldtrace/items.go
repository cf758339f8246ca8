package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/internal/textwrap"
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
				enc := json.NewEncoder(cli.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			writeItems(cli.Out, rows, app.Authorize(who, app.ActStatusDetails) != nil, time.Now())
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

// writeItems prints rows in 80 columns: a line of columns per item, then
// its first user message, indented, on a line of its own.
func writeItems(w io.Writer, rows []app.ItemRow, reviewer bool, now time.Time) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no items match")
		return
	}
	heads := []string{"ITEM", "BATCH", "STATE", "OBSERVED TOOL", "AGE"}
	cells := func(r app.ItemRow) []string {
		state := r.Status
		if r.Assignment != "" {
			state = r.Assignment
			if !reviewer && r.Status != "" {
				state = r.Assignment + "/" + r.Status
			}
		}
		return []string{r.ID, r.Batch, state, r.ObservedTool, age(r.UpdatedAt, now)}
	}
	if reviewer {
		heads = []string{"ITEM", "BATCH", "YOUR STATUS", "AGE"}
		cells = func(r app.ItemRow) []string {
			return []string{r.ID, r.Batch, r.Assignment, age(r.UpdatedAt, now)}
		}
	}
	widths := make([]int, len(heads))
	for i, h := range heads {
		widths[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range cells(r) {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	// What does not fit is taken from the widest free-text column.
	const gap = 2
	total := (len(widths) - 1) * gap
	for _, n := range widths {
		total += n
	}
	if over := total - textwrap.Width; over > 0 {
		widest := 1
		for i := 1; i < len(widths)-1; i++ {
			if widths[i] > widths[widest] {
				widest = i
			}
		}
		widths[widest] = max(widths[widest]-over, 5)
	}
	line := func(cs []string) string {
		var b strings.Builder
		for i, c := range cs {
			if i > 0 {
				b.WriteString(strings.Repeat(" ", gap))
			}
			c = clip(c, widths[i])
			if i == len(cs)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-len([]rune(c))))
		}
		return strings.TrimRight(b.String(), " ")
	}
	fmt.Fprintln(w, line(heads))
	for _, r := range rows {
		fmt.Fprintln(w, line(cells(r)))
		if msg := strings.Join(strings.Fields(r.FirstUser), " "); msg != "" {
			fmt.Fprintln(w, "  "+clip(msg, textwrap.Width-2))
		}
	}
	fmt.Fprintf(w, "%s (--json for the full messages)\n", countNoun(len(rows), "item", "items"))
}

// clip shortens s to n runes, ending it with … when cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	return string(r[:n-1]) + "…"
}

// age is how long ago ts (RFC 3339) was, in its largest unit: 40s, 12m,
// 5h, 3d; "-" when unknown.
func age(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
