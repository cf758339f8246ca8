package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
)

// Status writes the status as text: progress per batch and reviewer, and
// for a lead the settled items, disputes and agreement.
func Status(w io.Writer, s app.Status) error {
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
		CountNoun(p.Assignments, "assignment", "assignments"), p.Pending, p.Draft, p.Submitted, p.Skipped)
}

// itemsLines is the median time and the item counts, on lines of at most 80
// columns after an indent of indent spaces.
func itemsLines(p app.BatchProgress, c app.ItemCounts, indent string) string {
	line := fmt.Sprintf("%smedian %s per label; %s: %d open, %d settled", indent, seconds(p.MedianSeconds), CountNoun(c.Items, "item", "items"), c.Open, c.Settled)
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
	fmt.Fprintf(w, "\nagreement over %s with two or more labels:\n", CountNoun(a.Items, "item", "items"))
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

// worstArgPaths is how many argument paths status lists (lowest agreement
// first); --json has them all.
const worstArgPaths = 5

// writeReliability prints the chance-corrected statistics of the tool
// decision with their intervals and the argument paths reviewers agree on
// least (the per-tool statistics are in the tool table). Every line fits 80
// columns (tool names and paths are clipped).
func writeReliability(w io.Writer, r review.Reliability, paths []review.ArgPathAgreement) error {
	fmt.Fprintf(w, "  tool decision (95%% CI: %d bootstrap resamples of items, seed %d):\n", r.Replicates, r.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "    kappa (Cohen, Conger)\t%s\n    Gwet's AC1\t%s\n    Krippendorff's alpha\t%s\n",
		estimate(r.Kappa), estimate(r.AC1), estimate(r.Alpha))
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(paths) > 0 {
		worst := append([]review.ArgPathAgreement(nil), paths...)
		sort.SliceStable(worst, func(i, j int) bool { return share(worst[i]) < share(worst[j]) })
		if len(worst) > worstArgPaths {
			worst = worst[:worstArgPaths]
		}
		fmt.Fprintf(w, "  argument paths agreed least (of %d; all in --json):\n", len(paths))
		fmt.Fprintln(tw, "    TOOL\tPATH\tAGREED")
		for _, p := range worst {
			path := p.Path
			if path == "" {
				path = "(whole args)"
			}
			fmt.Fprintf(tw, "    %s\t%s\t%d/%d\n", clipName(p.Tool, 30), clipName(path, 30), p.Agreed, p.Pairs)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

func share(p review.ArgPathAgreement) float64 {
	if p.Percent == nil {
		return 1
	}
	return *p.Percent
}

// estimate formats a statistic with its interval: "0.812 (0.75–0.87)",
// "0.812" without an interval, "n/a" when undefined.
func estimate(e review.Estimate) string {
	if e.Value == nil {
		return "n/a"
	}
	if e.Low == nil || e.High == nil {
		return fmt.Sprintf("%.3f", *e.Value)
	}
	return fmt.Sprintf("%.3f (%.2f–%.2f)", *e.Value, *e.Low, *e.High)
}
