package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/goldtrace/goldtrace/review"
)

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
