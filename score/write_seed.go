package score

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The seed profiles' numbers in the text and markdown reports.

// seedHeads are short column heads for the per-tool seed table.
var seedHeads = map[string]string{
	SeedToolNameMatch: "name", SeedToolArgsShapeMatch: "shape",
	SeedSelectionAccuracy: "select", SeedAvgParamAccuracy: "params", SeedSequenceAccuracy: "seq", SeedCompositeScore: "composite",
	SeedCoverage: "coverage", SeedValidity: "validity", SeedCallSuccess: "success", SeedToolSelectionAccuracy: "accuracy",
}

// seedSettings describes the profile's settings, e.g. "param mode exact,
// weights 0.4/0.4/0.2".
func (r *Report) seedSettings() string {
	if r.Weights == nil {
		return ""
	}
	w := r.Weights
	return fmt.Sprintf("param mode %s, weights %g/%g/%g (selection/params/sequence)", r.ParamMode, w[0], w[1], w[2])
}

func (r *Report) writeSeedText(w io.Writer) {
	if len(r.Overall.Seed) == 0 {
		return
	}
	head := fmt.Sprintf("PROFILE %s (its own numbers: mean per item where defined", r.Profile)
	if s := r.seedSettings(); s != "" {
		head += "; " + s
	}
	fmt.Fprintln(w)
	writeWrapped(w, "", head+")", "  ")
	for _, sr := range r.Overall.Seed {
		fmt.Fprintf(w, "%-24s %8s\n", sr.Name, FormatRate(sr.Value))
	}
	if n := len(r.Trajectories); n > 0 {
		var sum float64
		k := 0
		for _, t := range r.Trajectories {
			if t.ToolSelectionAccuracy != nil {
				sum += *t.ToolSelectionAccuracy
				k++
			}
		}
		fmt.Fprintf(w, "trajectories: %s, mean tool_selection_accuracy %s\n", plural(n, "trace"), FormatRate(ratio(sum, k)))
	}
	names := seedColumns(r)
	const countWidth = 5
	colWidth := 0
	for _, n := range names {
		colWidth = max(colWidth, len(seedHeads[n]), 6)
	}
	tools := r.WorstTools()
	nameWidth := len("PER TOOL")
	for i, g := range tools {
		if i < 15 {
			nameWidth = max(nameWidth, len([]rune(g.Name)))
		}
	}
	nameWidth = max(min(nameWidth, textWidth-1-countWidth-len(names)*(1+colWidth)), 8)
	fmt.Fprintf(w, "\n%s %*s", pad("PER TOOL", nameWidth), countWidth, "N")
	for _, n := range names {
		fmt.Fprintf(w, " %*s", colWidth, seedHeads[n])
	}
	fmt.Fprintln(w)
	for i, g := range tools {
		if i == 15 {
			fmt.Fprintf(w, "… %d more (see --format json)\n", len(r.PerTool)-15)
			break
		}
		fmt.Fprintf(w, "%s %*d", pad(abbreviate(g.Name, nameWidth), nameWidth), countWidth, g.Items)
		for _, n := range names {
			p, _ := g.rate(n)
			fmt.Fprintf(w, " %*s", colWidth, FormatRate(p))
		}
		fmt.Fprintln(w)
	}
}

// seedColumns are the per-item seed metrics the report carries.
func seedColumns(r *Report) []string {
	var out []string
	for _, sr := range r.Overall.Seed {
		if sr.Name != SeedInvalidToolRate {
			out = append(out, sr.Name)
		}
	}
	return out
}

func (r *Report) writeSeedMarkdown(w io.Writer) {
	if len(r.Overall.Seed) == 0 {
		return
	}
	fmt.Fprintf(w, "\n**Profile `%s`**", r.Profile)
	if s := r.seedSettings(); s != "" {
		fmt.Fprintf(w, " (%s)", s)
	}
	fmt.Fprintf(w, "\n\n| metric | value |\n|---|---:|\n")
	for _, sr := range r.Overall.Seed {
		fmt.Fprintf(w, "| %s | %s |\n", sr.Name, FormatRate(sr.Value))
	}
	names := seedColumns(r)
	fmt.Fprintf(w, "\n<details><summary>Profile numbers per tool</summary>\n\n| tool | n | %s |\n|---|---:|%s\n",
		strings.Join(names, " | "), strings.Repeat("---:|", len(names)))
	for i, g := range r.WorstTools() {
		if i == 25 {
			fmt.Fprintf(w, "| … %d more |\n", len(r.PerTool)-25)
			break
		}
		fmt.Fprintf(w, "| %s | %d |", mdEscape(g.Name), g.Items)
		for _, n := range names {
			p, _ := g.rate(n)
			fmt.Fprintf(w, " %s |", FormatRate(p))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n</details>\n")
}

// exactRate prints a rate in full precision (as JSON would), or "null".
func exactRate(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// seedProperties are the JUnit properties of an item: its seed numbers.
func (it *ItemResult) seedProperties() []junitProperty {
	lo, hi := seedRange(int(it.seed))
	var out []junitProperty
	for i := lo; i < hi; i++ {
		out = append(out, junitProperty{Name: seedNames[i], Value: exactRate(orNull(it.Seed[i]))})
	}
	return out
}
