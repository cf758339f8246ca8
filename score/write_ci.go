package score

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML: one testcase per item (classname = expected first tool), and a
// second suite with one testcase per gate or baseline check.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Failure    *junitFailure   `xml:"failure,omitempty"`
}

// junitProperty carries a seed profile's numbers (overall on the suite,
// per item on each testcase).
type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitFailure struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func (r *Report) writeJUnit(out io.Writer) error {
	items := junitSuite{Name: "goldtrace score items", Cases: make([]junitCase, 0, len(r.Items))}
	for _, it := range r.Items {
		c := junitCase{Name: it.ID, Classname: "goldtrace." + it.ExpectedTool, Properties: it.seedProperties()}
		if !it.Correct {
			c.Failure = &junitFailure{Type: string(it.Kind), Message: it.Message, Text: string(it.Kind) + ": " + it.Message}
			items.Failures++
		}
		items.Cases = append(items.Cases, c)
	}
	items.Tests = len(items.Cases)
	if len(r.Overall.Seed) > 0 {
		items.Properties = append(items.Properties, junitProperty{Name: "profile", Value: r.Profile})
		for _, sr := range r.Overall.Seed {
			items.Properties = append(items.Properties, junitProperty{Name: sr.Name, Value: exactRate(sr.Value)})
		}
	}
	if n := len(r.MissingPredictions); n > 0 {
		items.Properties = append(items.Properties, junitProperty{Name: "missing_predictions", Value: fmt.Sprint(n)})
	}
	suites := junitSuites{Name: "goldtrace score", Suites: []junitSuite{items}}
	if len(r.Gates) > 0 {
		gates := junitSuite{Name: "goldtrace score gates"}
		for _, g := range r.Gates {
			c := junitCase{Name: g.Check + " [" + g.Scope + "]", Classname: "goldtrace.gates"}
			if !g.Passed {
				msg := fmt.Sprintf("%s is %s", g.Scope, FormatRate(g.Value))
				if g.Baseline != nil {
					msg += " (baseline " + FormatRate(g.Baseline) + ")"
				}
				c.Failure = &junitFailure{Type: "gate", Message: msg, Text: g.Check + ": " + msg}
				gates.Failures++
			}
			gates.Cases = append(gates.Cases, c)
		}
		gates.Tests = len(gates.Cases)
		suites.Suites = append(suites.Suites, gates)
	}
	for _, s := range suites.Suites {
		suites.Tests += s.Tests
		suites.Failures += s.Failures
	}
	w := bufio.NewWriter(out)
	w.WriteString(xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(suites); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	w.WriteString("\n")
	return w.Flush()
}

// Markdown for a pull-request comment.
func (r *Report) writeMarkdown(out io.Writer, opts WriteOptions) error {
	w := bufio.NewWriter(out)
	status := "✅ passed"
	if !r.Passed {
		status = fmt.Sprintf("❌ failed (%s)", plural(len(r.FailedGates()), "check"))
	}
	m := &r.Overall
	fmt.Fprintf(w, "### goldtrace score — %s\n\n", status)
	fmt.Fprintf(w, "%d items, %d correct, profile `%s`", m.Items, m.Correct, r.Profile)
	if r.Gold != "" {
		fmt.Fprintf(w, ", gold `%s`", r.Gold)
	}
	if r.Predictions != "" {
		fmt.Fprintf(w, ", predictions `%s`", r.Predictions)
	}
	fmt.Fprintf(w, "\n\n| metric | value |\n|---|---:|\n")
	for _, name := range RateNames {
		p, _ := m.rate(name)
		fmt.Fprintf(w, "| %s | %s |\n", name, FormatRate(p))
	}
	r.writeSeedMarkdown(w)
	if k := kindCounts(m); len(k) > 0 {
		fmt.Fprintf(w, "\n**Error kinds:** %s\n", strings.Join(k, ", "))
	}
	if fails := r.FailedGates(); len(fails) > 0 {
		fmt.Fprintf(w, "\n**Failed checks**\n\n")
		for _, g := range fails {
			line := fmt.Sprintf("- `%s` [%s]: %s", g.Check, mdEscape(g.Scope), FormatRate(g.Value))
			if g.Baseline != nil {
				line += " (baseline " + FormatRate(g.Baseline) + ")"
			}
			fmt.Fprintln(w, line)
		}
	}
	if n := len(r.MissingPredictions); n > 0 {
		fmt.Fprintf(w, "\n%d items had no prediction (scored as no call).\n", n)
	}
	fmt.Fprintf(w, "\n<details><summary>Per tool (worst first)</summary>\n\n| tool | n | exact | tool | args | recall |\n|---|---:|---:|---:|---:|---:|\n")
	for i, g := range r.WorstTools() {
		if i == 25 {
			fmt.Fprintf(w, "| … %d more | | | | | |\n", len(r.PerTool)-25)
			break
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", mdEscape(g.Name), g.Items,
			FormatRate(g.ExactCall), FormatRate(g.ToolName), FormatRate(g.ArgsValue), FormatRate(g.Recall))
	}
	fmt.Fprintf(w, "\n</details>\n")
	if fails := r.Failures(); len(fails) > 0 {
		n := min(opts.Failures, len(fails))
		fmt.Fprintf(w, "\n<details><summary>First %d of %d failures</summary>\n\n| item | kind | explanation |\n|---|---|---|\n", n, len(fails))
		for _, f := range fails[:n] {
			fmt.Fprintf(w, "| `%s` | %s | %s |\n", f.ID, f.Kind, mdEscape(f.Message))
		}
		fmt.Fprintf(w, "\n</details>\n")
	}
	r.writeJudgeText(w, true, opts.Failures)
	return w.Flush()
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
