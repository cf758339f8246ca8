package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/internal/textwrap"
	"github.com/goldtrace/goldtrace/review"
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
				enc := json.NewEncoder(cli.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			// What is still too wide (long names, large counts) wraps at
			// spaces, indented under itself, rather than at the terminal's
			// edge mid-word.
			var buf strings.Builder
			if err := writeStatus(&buf, s); err != nil {
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

func writeStatus(w io.Writer, s app.Status) error {
	switch s.View {
	case app.ViewLead:
		fmt.Fprintf(w, "status as lead %s", s.As)
	case app.ViewReviewer:
		fmt.Fprintf(w, "status as reviewer %s (your progress and the totals)", s.As)
	default:
		fmt.Fprint(w, "status: totals (--as LEAD for agreement and every reviewer)")
	}
	if s.ReviewAgreed {
		fmt.Fprint(w, "; agreed items wait for a lead (review_agreed)")
	}
	fmt.Fprintln(w)
	if len(s.Batches) == 0 {
		fmt.Fprintln(w, "no assignments yet: goldtrace sample --reviewers a,b …")
		return nil
	}
	fmt.Fprintf(w, "\nall: %s\n%s\n", progressLine(s.Totals), itemsLines(s.Totals, s.Items, "     "))
	for _, b := range s.Batches {
		fmt.Fprintf(w, "\nbatch %s:\n  %s\n%s\n", b.Batch, progressLine(b.Totals), itemsLines(b.Totals, b.Items, "  "))
		if len(b.Reviewers) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  REVIEWER\tPENDING\tDRAFT\tSUBMITTED\tSKIPPED\tMEDIAN S/LABEL")
		for _, r := range b.Reviewers {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%s\n", r.Reviewer, r.Pending, r.Draft, r.Submitted, r.Skipped, seconds(r.MedianSeconds))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(s.Disputes) > 0 {
		var kinds []string
		for k, n := range s.Disputes {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "\nopen disputes by kind: %s\n", strings.Join(kinds, ", "))
	}
	if s.Agreement != nil {
		return writeAgreement(w, s)
	}
	return nil
}

func progressLine(p app.BatchProgress) string {
	return fmt.Sprintf("%s: %d pending, %d draft, %d submitted, %d skipped",
		countNoun(p.Assignments, "assignment", "assignments"), p.Pending, p.Draft, p.Submitted, p.Skipped)
}

// itemsLines is the median time and the item counts, on lines of at most 80
// columns after an indent of indent spaces.
func itemsLines(p app.BatchProgress, c app.ItemCounts, indent string) string {
	line := fmt.Sprintf("%smedian %s per label; %s: %d open, %d settled", indent, seconds(p.MedianSeconds), countNoun(c.Items, "item", "items"), c.Open, c.Settled)
	if c.Agreed != nil {
		line += fmt.Sprintf("\n%s(%d agreed, %d disputed, %d adjudicated); %d gold", indent, *c.Agreed, *c.Disputed, *c.Adjudicated, *c.Gold)
	}
	return line
}

func seconds(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%gs", *v)
}

// percent formats a share; "n/a" when undefined.
func percent(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", *v*100)
}

// coefficient formats kappa or alpha; "n/a" when undefined (e.g. every
// label the same class: chance explains all agreement).
func coefficient(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *v)
}

func writeAgreement(w io.Writer, s app.Status) error {
	a := s.Agreement
	fmt.Fprintf(w, "\nagreement over %s with two or more labels:\n", countNoun(a.Items, "item", "items"))
	fmt.Fprintf(w, "  exact %s, tool %s, args given the same tool %s (%d/%d)\n",
		percent(a.Exact), percent(a.Tool), percent(a.Args.Percent), a.Args.Agreed, a.Args.Pairs)
	if err := writeReliability(w, a.Reliability, a.ArgPaths); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(a.Pairs) > 0 {
		fmt.Fprintln(tw, "  PAIR\tITEMS\tEXACT\tTOOL AGREEMENT\tCOHEN'S KAPPA")
		for _, p := range a.Pairs {
			exact := float64(p.ExactAgreed) / float64(max(p.Items, 1))
			fmt.Fprintf(tw, "  %s–%s\t%d\t%s\t%s\t%s\n", p.A, p.B, p.Items, percent(&exact), percent(&p.Kappa.Observed), coefficient(p.Kappa.Kappa))
		}
	}
	if len(a.PerTool) > 0 {
		// Per tool as a yes/no question; the intervals of kappa and alpha
		// are in --json (80 columns hold one).
		fmt.Fprintln(tw, "\n  TOOL\tPAIRS\tAGREED\tARGS\tKAPPA\tAC1 (95% CI)\tALPHA")
		args := map[string]string{}
		for _, t := range a.Args.PerTool {
			args[t.Tool] = fmt.Sprintf("%d/%d", t.Agreed, t.Pairs)
		}
		rel := map[string]review.ToolReliability{}
		for _, t := range a.Reliability.PerTool {
			rel[t.Tool] = t
		}
		for _, t := range a.PerTool {
			arg := args[t.Tool]
			if arg == "" {
				arg = "-"
			}
			r := rel[t.Tool]
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\t%s\t%s\n", clipName(t.Tool, 20), t.Involved, t.Agreed, arg,
				coefficient(r.Kappa.Value), estimate(r.AC1), coefficient(r.Alpha.Value))
		}
	}
	if len(a.Confusion) > 0 {
		fmt.Fprintln(tw, "\n  CONFUSED TOOL\tWITH\tPAIRS")
		for _, c := range a.Confusion {
			fmt.Fprintf(tw, "  %s\t%s\t%d\n", clipName(c.A, 34), clipName(c.B, 34), c.Count)
		}
	}
	return tw.Flush()
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
