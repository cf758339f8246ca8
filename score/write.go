package score

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Formats Write understands.
var Formats = []string{"text", "json", "junit", "markdown"}

// WriteOptions tune the human-readable writers.
type WriteOptions struct {
	// Failures is how many failing items the text and markdown writers list
	// (0: DefaultFailures).
	Failures int
}

// DefaultFailures is the number of failures listed unless told otherwise.
const DefaultFailures = 20

// Write renders the report in format (text, json, junit or markdown).
func (r *Report) Write(w io.Writer, format string, opts WriteOptions) error {
	if opts.Failures <= 0 {
		opts.Failures = DefaultFailures
	}
	switch format {
	case "text":
		return r.writeText(w, opts)
	case "json":
		return r.writeJSON(w)
	case "junit":
		return r.writeJUnit(w)
	case "markdown":
		return r.writeMarkdown(w, opts)
	}
	return fmt.Errorf("unknown report format %q (one of %s)", format, strings.Join(Formats, ", "))
}

// FailedGates returns the checks that did not pass.
func (r *Report) FailedGates() []GateResult {
	var out []GateResult
	for _, g := range r.Gates {
		if !g.Passed {
			out = append(out, g)
		}
	}
	return out
}

// Failures returns the failing items in input order.
func (r *Report) Failures() []ItemResult {
	var out []ItemResult
	for _, it := range r.Items {
		if !it.Correct {
			out = append(out, it)
		}
	}
	return out
}

// WorstTools returns the per-tool groups sorted worst first: lowest
// exact_call, then most items, then name.
func (r *Report) WorstTools() []Group {
	out := append([]Group(nil), r.PerTool...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := rateOr(out[i].ExactCall, 2), rateOr(out[j].ExactCall, 2)
		if a != b {
			return a < b
		}
		if out[i].Items != out[j].Items {
			return out[i].Items > out[j].Items
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func rateOr(p *float64, v float64) float64 {
	if p == nil {
		return v
	}
	return *p
}

// abbreviate shortens s to at most n runes, keeping its head and tail
// (tool names differ at both ends: get_customer_…_history).
func abbreviate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 5 {
		return string(r[:n])
	}
	tail := (n - 1) / 3
	head := n - 1 - tail
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// pad left-aligns s in width runes (s must already fit).
func pad(s string, width int) string {
	n := len([]rune(s))
	if n >= width {
		return s
	}
	return s + strings.Repeat(" ", width-n)
}

// kindCounts lists the error kinds with counts in precedence order.
func kindCounts(m *Metrics) []string {
	var out []string
	for _, k := range ErrorKinds {
		if n := m.ErrorKinds[k]; n > 0 {
			out = append(out, fmt.Sprintf("%s %d", k, n))
		}
	}
	return out
}
