package score

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/internal/textwrap"
)

// The text report fits in 80 columns (a terminal's default): tables narrow
// their name column, long lines wrap at spaces with their continuation
// indented under their text.
const textWidth = textwrap.Width

// tableMetrics are the columns of the per-tool and cohort tables.
var tableMetrics = []struct{ name, head string }{
	{"exact_call", "exact"},
	{"tool_name", "tool"},
	{"args_value", "args"},
	{"precision", "prec"},
	{"recall", "recall"},
	{"no_tool_accuracy", "no-tool"},
}

func (r *Report) writeText(out io.Writer, opts WriteOptions) error {
	w := bufio.NewWriter(out)
	verdict := "PASS"
	if !r.Passed {
		verdict = fmt.Sprintf("FAIL (%s failed)", plural(len(r.FailedGates()), "check"))
	}
	fmt.Fprintf(w, "goldtrace score: %d items, profile %s — %s\n", r.Overall.Items, r.Profile, verdict)
	if r.Gold != "" || r.Predictions != "" {
		fmt.Fprintf(w, "gold %s, predictions %s\n", r.Gold, r.Predictions)
	}
	fmt.Fprintln(w)

	m := &r.Overall
	fmt.Fprintf(w, "%-24s %8s  %s\n", "METRIC", "VALUE", "OVER")
	over := map[string]string{
		"exact_call": fmt.Sprintf("%d items (%d correct)", m.Items, m.Correct), "tool_name": fmt.Sprintf("%d items", m.Items),
		"args_shape": fmt.Sprintf("%d items with gold calls", m.CallItems), "args_value": fmt.Sprintf("%d items with gold calls", m.CallItems),
		"sequence": fmt.Sprintf("%d items with gold calls", m.CallItems), "precision": fmt.Sprintf("%d predicted calls", m.PredictedCalls),
		"recall": fmt.Sprintf("%d expected calls", m.ExpectedCalls), "f1": "", "no_tool_accuracy": fmt.Sprintf("%d no-call items", m.NoCallItems),
		"hallucinated_tool_rate": fmt.Sprintf("%d predicted calls on items listing tools", m.CatalogCalls), "unparseable_rate": fmt.Sprintf("%d predicted calls", m.PredictedCalls),
	}
	for _, name := range RateNames {
		p, _ := m.rate(name)
		fmt.Fprintf(w, "%-24s %8s  %s\n", name, FormatRate(p), over[name])
	}
	writeWrapped(w, "", fmt.Sprintf("calls: %d expected, %d predicted, %d matched, %d missed, %d spurious",
		m.ExpectedCalls, m.PredictedCalls, m.MatchedCalls, m.MissedCalls, m.SpuriousCalls), "  ")
	if k := kindCounts(m); len(k) > 0 {
		writeWrapped(w, "error kinds: ", strings.Join(k, ", "), "  ")
	}
	if n := len(r.MissingPredictions); n > 0 {
		writeWrapped(w, "", fmt.Sprintf("no prediction for %s (scored as no call): %s", plural(n, "item"), listSome(r.MissingPredictions, 5)), "  ")
	}
	r.writeSeedText(w)

	fmt.Fprintf(w, "\nPER TOOL (expected first tool, worst first)\n")
	writeGroups(w, r.WorstTools(), 15)
	for _, c := range r.Cohorts {
		fmt.Fprintf(w, "\nBY %s\n", c.Key)
		writeGroups(w, c.Groups, 15)
	}
	fmt.Fprintln(w)
	r.writeConfusionText(w)
	r.writeFailuresText(w, opts.Failures)
	r.writeJudgeText(w, false, opts.Failures)
	r.writeGatesText(w)
	return w.Flush()
}

// plural writes "1 check" or "2 checks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func listSome(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:n], ", ") + fmt.Sprintf(", … (%d more)", len(ids)-n)
}

// writeGroups prints a table of groups (at most limit rows) in textWidth
// columns: the name column is as wide as the longest name shown, up to what
// the metric columns leave (longer names are shortened in the middle).
func writeGroups(w io.Writer, groups []Group, limit int) {
	const countWidth, metricWidth = 5, 7
	maxName := textWidth - 1 - countWidth - len(tableMetrics)*(1+metricWidth)
	nameWidth := len("NAME")
	for i, g := range groups {
		if i == limit {
			break
		}
		nameWidth = max(nameWidth, min(len([]rune(g.Name)), maxName))
	}
	fmt.Fprintf(w, "%s %*s", pad("NAME", nameWidth), countWidth, "N")
	for _, c := range tableMetrics {
		fmt.Fprintf(w, " %*s", metricWidth, c.head)
	}
	fmt.Fprintln(w)
	for i, g := range groups {
		if i == limit {
			fmt.Fprintf(w, "… %d more (see --format json)\n", len(groups)-limit)
			break
		}
		fmt.Fprintf(w, "%s %*d", pad(abbreviate(g.Name, nameWidth), nameWidth), countWidth, g.Items)
		for _, c := range tableMetrics {
			p, _ := g.rate(c.name)
			fmt.Fprintf(w, " %*s", metricWidth, FormatRate(p))
		}
		fmt.Fprintln(w)
	}
}

// writeWrapped writes lead then text, wrapped at spaces to textWidth
// columns; continuation lines start with indent. A word longer than a line
// is cut only when it must be.
func writeWrapped(w io.Writer, lead, text, indent string) {
	fmt.Fprintln(w, textwrap.Wrap(lead+text, textWidth, indent))
}

// maxConfusionClasses bounds the confusion matrix shown in text (the JSON
// report has all of it).
const maxConfusionClasses = 10

func (r *Report) writeConfusionText(w io.Writer) {
	total := map[string]int{}
	for _, c := range r.Confusion.Cells {
		total[c.Expected] += c.Count
		total[c.Predicted] += c.Count
	}
	classes := append([]string(nil), r.Confusion.Labels...)
	sort.SliceStable(classes, func(i, j int) bool { return total[classes[i]] > total[classes[j]] })
	shown := classes
	other := false
	if len(shown) > maxConfusionClasses {
		shown, other = shown[:maxConfusionClasses-1], true
	}
	index := map[string]int{}
	for i, c := range shown {
		index[c] = i
	}
	k := len(shown)
	if other {
		k++
	}
	grid := make([][]int, k)
	for i := range grid {
		grid[i] = make([]int, k)
	}
	at := func(class string) int {
		if i, ok := index[class]; ok {
			return i
		}
		return k - 1
	}
	for _, c := range r.Confusion.Cells {
		grid[at(c.Expected)][at(c.Predicted)] += c.Count
	}
	fmt.Fprintf(w, "CONFUSION (rows: expected first tool, columns: predicted; %d of %d classes)\n", len(shown), len(classes))
	const labelWidth = 24
	cell := (textWidth - labelWidth - 4) / k
	cell = min(max(cell, 5), 8)
	fmt.Fprintf(w, "%s", pad("", labelWidth+4))
	for j := 0; j < k; j++ {
		fmt.Fprintf(w, "%*s", cell, fmt.Sprintf("[%d]", j+1))
	}
	fmt.Fprintln(w)
	for i := 0; i < k; i++ {
		name := "(other classes)"
		if i < len(shown) {
			name = shown[i]
		}
		fmt.Fprintf(w, "%4s%s", fmt.Sprintf("[%d]", i+1), pad(" "+abbreviate(name, labelWidth-1), labelWidth))
		for j := 0; j < k; j++ {
			v := "."
			if grid[i][j] > 0 {
				v = fmt.Sprint(grid[i][j])
			}
			fmt.Fprintf(w, "%*s", cell, v)
		}
		fmt.Fprintln(w)
	}
}

func (r *Report) writeFailuresText(w io.Writer, limit int) {
	fails := r.Failures()
	if len(fails) == 0 {
		fmt.Fprintf(w, "\nNo failures.\n")
		return
	}
	n := min(limit, len(fails))
	fmt.Fprintf(w, "\nFAILURES (first %d of %d)\n", n, len(fails))
	idWidth := 0
	for _, f := range fails[:n] {
		idWidth = max(idWidth, len([]rune(f.ID)))
	}
	idWidth = min(idWidth, 24)
	for _, f := range fails[:n] {
		// The message wraps under itself rather than being cut: the part
		// a cut would hide (the wanted value) is the useful one.
		prefix := fmt.Sprintf("%s  %-15s  ", pad(abbreviate(f.ID, idWidth), idWidth), f.Kind)
		indent := strings.Repeat(" ", len([]rune(prefix)))
		lines := strings.Split(textwrap.Wrap(f.Message, textWidth-len(indent), ""), "\n")
		fmt.Fprintln(w, prefix+strings.Join(lines, "\n"+indent))
	}
}

func (r *Report) writeGatesText(w io.Writer) {
	if len(r.Gates) == 0 && r.BaselineScopes == 0 {
		return
	}
	fmt.Fprintf(w, "\nGATES\n")
	passed := 0
	for _, g := range r.Gates {
		if g.Passed {
			passed++
			continue
		}
		line := fmt.Sprintf("FAIL %s [%s]: %s", g.Check, g.Scope, FormatRate(g.Value))
		if g.Baseline != nil {
			line += fmt.Sprintf(" (baseline %s)", FormatRate(g.Baseline))
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%s passed", plural(passed, "threshold check"))
	if r.BaselineScopes > 0 {
		fmt.Fprintf(w, "; %d scopes compared with the baseline", r.BaselineScopes)
	}
	fmt.Fprintln(w)
}
