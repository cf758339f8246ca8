package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/review"
)

// diffMarker starts every line that differs between the labels, so the
// differences show without colour (NO_COLOR) as well as with it.
const diffMarker = "≠ "

// labelMarks says which parts of one label differ from the other labels.
type labelMarks struct {
	decision bool
	calls    []callMarks
}

// callMarks are the differences of one call (by position).
type callMarks struct {
	tool bool            // another label has no call here, or another tool
	args map[string]bool // argument keys whose value differs (or is absent elsewhere)
	// missing are keys other labels' calls to the same tool have and this
	// one lacks.
	missing []string
	// raw is set when arguments that are not an object differ.
	raw bool
}

// labelCalls are the calls a label stands for: none when it says no call.
func labelCalls(l review.Label) []review.LabelCall {
	if l.Decision != review.DecisionCall {
		return nil
	}
	return l.Calls
}

// markDifferences compares every label with every other, call by call in
// position order, and marks what differs: the decision, the tool at each
// position, and each argument key against the labels calling the same tool
// there.
func markDifferences(labels []review.Label) []labelMarks {
	out := make([]labelMarks, len(labels))
	for j, l := range labels {
		calls := labelCalls(l)
		m := labelMarks{calls: make([]callMarks, len(calls))}
		for i, c := range calls {
			cm := callMarks{args: map[string]bool{}}
			missing := map[string]bool{}
			keys := argKeys(c.Args)
			for k, o := range labels {
				if k == j {
					continue
				}
				oc := labelCalls(o)
				if i >= len(oc) || oc[i].Tool != c.Tool {
					cm.tool = true
					continue
				}
				if keys == nil && !review.ArgsEqual(c.Args, oc[i].Args) {
					cm.raw = true
				}
				for _, key := range keys {
					ov := argValue(oc[i].Args, key)
					if ov == nil || !review.ArgsEqual(argValue(c.Args, key), ov) {
						cm.args[key] = true
					}
				}
				for _, key := range argKeys(oc[i].Args) {
					if argValue(c.Args, key) == nil && !missing[key] {
						missing[key] = true
						cm.missing = append(cm.missing, key)
					}
				}
			}
			m.calls[i] = cm
		}
		for k, o := range labels {
			if k != j && o.Decision != l.Decision {
				m.decision = true
			}
		}
		out[j] = m
	}
	return out
}

// blockLines builds one label's lines at a fixed width: a gutter with the
// difference marker, a field name column and wrapped values.
type blockLines struct {
	styles *Styles
	width  int
	lines  []string
}

const fieldColumn = 10 // "decision  "

// field adds a named value, wrapped under itself; marked lines get the
// marker and the warning style. hard wraps anywhere (JSON); otherwise at
// word boundaries.
func (b *blockLines) field(name, value string, marked, hard bool) {
	textW := max(b.width-len(diffMarker)-fieldColumn, 4)
	// Wrapped at spaces only (JSON keeps its indent): an id, date or
	// number is never cut in two unless it alone is wider than the column.
	indent := ""
	if hard {
		indent = value[:len(value)-len(strings.TrimLeft(value, " "))]
	}
	parts := wrapWords(strings.TrimLeft(value, " "), max(textW-len(indent), 4))
	for i := range parts {
		parts[i] = indent + parts[i]
	}
	if len(parts) == 0 {
		parts = []string{""}
	}
	for i, part := range parts {
		label := strings.Repeat(" ", fieldColumn)
		if i == 0 && name != "" {
			label = name + strings.Repeat(" ", max(fieldColumn-ansi.StringWidth(name), 1))
		}
		b.add(marked, b.styles.Form.Label.Render(label), part)
	}
}

func (b *blockLines) add(marked bool, label, text string) {
	if marked {
		b.lines = append(b.lines, b.styles.Warn.Render(diffMarker)+label+b.styles.Warn.Render(text))
		return
	}
	b.lines = append(b.lines, "  "+label+text)
}

// renderLabel is one label as lines of at most width cells: number and
// reviewer, decision, each call's tool and pretty arguments, rationale.
func renderLabel(s *Styles, n int, l review.Label, m labelMarks, width int) []string {
	b := &blockLines{styles: s, width: width}
	head := s.Title.Render(fmt.Sprintf("[%d] %s", n, l.Reviewer))
	if l.SawObserved {
		head += s.Muted.Render("  (saw the model's call)")
	}
	b.lines = append(b.lines, ansi.Truncate(head, width, "…"))
	decision := l.Decision
	if l.Decision == review.DecisionNoCall {
		decision = "no call — no tool should be called"
	}
	b.field("decision", decision, m.decision, false)
	calls := labelCalls(l)
	for i, c := range calls {
		name := "tool"
		if len(calls) > 1 {
			name = fmt.Sprintf("tool %d", i+1)
		}
		b.field(name, c.Tool, m.calls[i].tool, true)
		renderArgs(b, c.Args, m.calls[i])
	}
	why := strings.TrimSpace(l.Rationale)
	if why == "" {
		why = "(no rationale)"
	}
	for i, para := range strings.Split(why, "\n") {
		name := ""
		if i == 0 {
			name = "why"
		}
		b.field(name, para, false, false)
	}
	return b.lines
}

// renderArgs adds a call's arguments as indented JSON, one key at a time so
// each differing key's lines carry the marker.
func renderArgs(b *blockLines, args json.RawMessage, m callMarks) {
	keys := argKeys(args)
	if keys == nil {
		b.field("args", prettyJSON(args, ""), m.raw, true)
		return
	}
	if len(keys) == 0 && len(m.missing) == 0 {
		b.field("args", "{}", false, true)
		return
	}
	b.field("args", "{", false, true)
	for i, k := range keys {
		name, _ := json.Marshal(k)
		text := "  " + string(name) + ": " + prettyJSON(argValue(args, k), "  ")
		if i < len(keys)-1 {
			text += ","
		}
		for _, line := range strings.Split(text, "\n") {
			b.field("", line, m.args[k], true)
		}
	}
	for _, k := range m.missing {
		b.field("", fmt.Sprintf("  (no %q)", k), true, true)
	}
	b.field("", "}", false, true)
}

// prettyJSON indents raw (verbatim when it is not JSON); prefix starts every
// line after the first.
func prettyJSON(raw json.RawMessage, prefix string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, prefix, "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

// renderLabels lays the labels out side by side, two across from
// sideBySideWidth cells, stacked below it; more labels continue in rows.
// starts holds the line each label begins on, to scroll to it.
func renderLabels(s *Styles, labels []review.Label, width int) (view string, starts []int) {
	marks := markDifferences(labels)
	cols := 1
	if width >= sideBySideWidth {
		cols = 2
	}
	sep := s.Muted.Render(" │ ")
	sepW := lipgloss.Width(sep)
	colW := (width - sepW*(cols-1)) / cols
	var rows []string
	line := 0
	for start := 0; start < len(labels); start += cols {
		var blocks [][]string
		height := 0
		for j := start; j < start+cols && j < len(labels); j++ {
			starts = append(starts, line)
			lines := renderLabel(s, j+1, labels[j], marks[j], colW)
			blocks = append(blocks, lines)
			height = max(height, len(lines))
		}
		var out []string
		for i := 0; i < height; i++ {
			var parts []string
			for _, blk := range blocks {
				line := ""
				if i < len(blk) {
					line = blk[i]
				}
				parts = append(parts, line+strings.Repeat(" ", max(colW-ansi.StringWidth(line), 0)))
			}
			out = append(out, strings.TrimRight(strings.Join(parts, sep), " "))
		}
		rows = append(rows, strings.Join(out, "\n"))
		line += height + 1 // the blank line between rows
	}
	return strings.Join(rows, "\n\n"), starts
}

// sideBySideWidth is the narrowest page that shows two labels across: an
// 80-column terminal does, in columns of 38.
const sideBySideWidth = 76
