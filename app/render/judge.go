package render

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/goldtrace/goldtrace/app"
)

// Calibration writes a judge calibration report: agreement with the human
// gold overall and per tool, and the items the judge and the gold disagree on.
func Calibration(out io.Writer, r *app.CalibrationReport) error {
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "goldtrace judge calibrate: %s judge, model %s at %s (prompt %s)\n", r.Kind, r.Model, r.Endpoint, r.PromptSHA256[:12])
	fmt.Fprintf(w, "gold %s, calls %s; judge correct when score >= %g\n\n", r.Gold, r.Predictions, r.Threshold)
	fmt.Fprintf(w, "agreement %s, Cohen's kappa %s over %d items", app.FormatRate(r.Agreement.Agreement), fmtKappa(r.Kappa), r.Calibration.Items)
	if r.NotJudged > 0 {
		fmt.Fprintf(w, " (%d not judged)", r.NotJudged)
	}
	fmt.Fprintf(w, "\nrequests %d, cache hits %d, errors %d, tokens %d\n\n", r.Stats.Requests, r.Stats.CacheHits, r.Stats.Errors+r.Stats.Missing, r.Stats.Tokens.Total)
	c := r.Confusion
	fmt.Fprintf(w, "%-18s %14s %16s\n", "", "judge correct", "judge incorrect")
	fmt.Fprintf(w, "%-18s %14d %16d\n", "human correct", c.BothCorrect, c.HumanCorrectOnly)
	fmt.Fprintf(w, "%-18s %14d %16d\n\n", "human incorrect", c.JudgeCorrectOnly, c.BothIncorrect)
	// the tools with the most judged items first; --json lists every tool
	tools := slices.Clone(r.PerTool)
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].Items > tools[j].Items })
	fmt.Fprintf(w, "%-32s %6s %10s %8s\n", "TOOL (expected; most items first)", "items", "agreement", "kappa")
	for i, t := range tools {
		if i == 20 {
			fmt.Fprintf(w, "… %d more tools (--json lists every tool)\n", len(tools)-20)
			break
		}
		fmt.Fprintf(w, "%-32s %6d %10s %8s\n", clipName(t.Tool, 32), t.Items, app.FormatRate(t.Agreement.Agreement), fmtKappa(t.Kappa))
	}
	var dis []string
	for _, p := range r.Items {
		if p.Judge != nil && *p.Judge != p.Human {
			dis = append(dis, fmt.Sprintf("%s  human %s, judge %s (%s): %s", p.ID, verdictWord(p.Human), verdictWord(*p.Judge),
				app.FormatRate(p.Score), OneLine(p.Reason)))
		}
	}
	if len(dis) > 0 {
		fmt.Fprintf(w, "\nDISAGREEMENTS (%d)\n", len(dis))
		for i, d := range dis {
			if i == 20 {
				fmt.Fprintf(w, "… %d more (--json lists every item)\n", len(dis)-20)
				break
			}
			fmt.Fprintln(w, clipName(d, 100))
		}
	}
	return w.Flush()
}

func fmtKappa(k *float64) string {
	if k == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *k)
}

func verdictWord(ok bool) string {
	if ok {
		return "correct"
	}
	return "incorrect"
}

func clipName(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
