package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
)

// minToolRows is how many worst tools stay visible when the matrix has to
// scroll to make room.
const minToolRows = 3

// layout divides the page between the header, the matrix and the worst
// tools: the matrix gets what it needs unless that would squeeze the tools
// below minToolRows, then it scrolls.
func (p *DashboardPage) layout() {
	p.item.view.Width, p.item.view.Height = p.width, max(p.height, 1)
	if p.data == nil {
		return
	}
	// header, blank, matrix title, (matrix), blank, tools title, tools header
	fixed := len(p.headerLines()) + 1 + 1 + 1 + 1 + 1
	tools := min(len(p.data.Tools), minToolRows)
	avail := p.height - fixed - tools
	need := p.matrix.nRows + 1
	p.matrix.SetSize(p.width, max(min(need, avail), 2))
}

// View renders the current mode.
func (p *DashboardPage) View() string {
	switch {
	case p.data == nil && p.loadErr != nil:
		return p.c.Styles.Error.Render("The dashboard could not be computed.") + "\n" +
			p.c.Styles.Muted.Render(wrapText(oneLine(p.loadErr.Error()), p.width)) + "\n\n" + "Press r to try again."
	case p.data == nil:
		return p.c.Styles.Muted.Render("Scoring the observed calls against the gold…")
	case p.mode == modeCell:
		return p.viewCell()
	case p.mode == modeTools:
		return strings.Join(p.toolTable(p.data.Tools, p.height, &p.tools), "\n")
	case p.mode == modeItem:
		return p.item.view.View()
	case p.mode == modeRelease:
		return p.viewRelease()
	}
	return p.viewOverview()
}

func (p *DashboardPage) viewOverview() string {
	s := &p.c.Styles
	lines := p.headerLines()
	if p.data.Overall.Items == 0 {
		lines = append(lines, "", s.Title.Render("No gold items yet — label some."),
			wrapText("Gold appears here as soon as two reviewers agree on an item or a lead adjudicates a dispute; "+
				"this screen refreshes by itself while people label.", p.width-1),
			"", s.Muted.Render("Reviewers: goldtrace label --as NAME"),
			s.Muted.Render("Disputes:  goldtrace adjudicate --as NAME"))
		return strings.Join(lines, "\n")
	}
	lines = append(lines, "",
		s.Pane.Title.Render("Confusion")+s.Muted.Render(truncate(
			fmt.Sprintf(" of the first tool · rows gold, columns seen · %s same  %s differs", markRight, markWrong), p.width-9)))
	lines = append(lines, p.matrix.View(s))
	lines = append(lines, "")
	used := lipgloss.Height(strings.Join(lines, "\n"))
	lines = append(lines, p.worstTools(max(p.height-used, 2))...)
	return strings.Join(lines, "\n")
}

// headerLines are the title, metrics, progress and agreement, their parts
// wrapped to the width (two lines of metrics at 80 columns, more when
// narrower).
func (p *DashboardPage) headerLines() []string {
	s := &p.c.Styles
	d := p.data
	m := &d.Overall
	w := p.width
	title := "Preview · observed calls vs gold"
	if p.opts.Batch != "" {
		title += " · batch " + p.opts.Batch
	}
	right := fmt.Sprintf("%d gold · computed %s", m.Items, d.ComputedAt.Format("15:04:05"))
	if p.loading {
		right = "refreshing… · " + right
	}
	gap := w - lipgloss.Width(title) - lipgloss.Width(right)
	var first string
	if gap >= 2 {
		first = s.Title.Render(title) + strings.Repeat(" ", gap) + s.Muted.Render(right)
	} else {
		first = s.Title.Render(truncate(title, w-lipgloss.Width(right)-2)) + "  " + s.Muted.Render(truncate(right, w))
	}
	metric := func(name string, v *float64) string { return metricPart(s, name, v) }
	out := []string{first}
	out = append(out, wrapParts(s, w, metric("exact_call", m.ExactCall), metric("tool_name", m.ToolName),
		metric("args_value", m.ArgsValue), metric("call_f1", m.F1))...)
	out = append(out, wrapParts(s, w, metric("no_tool_accuracy", m.NoToolAccuracy),
		metric("hallucinated_tool_rate", m.HallucinatedToolRate), s.Muted.Render("n ")+fmt.Sprint(m.Items))...)
	out = append(out, wrapParts(s, w, profileParts(s, d)...)...)
	out = append(out, wrapParts(s, w, progressParts(s, d)...)...)
	out = append(out, wrapParts(s, w, agreementParts(s, d.Status.Agreement)...)...)
	if b := batchParts(s, d.Batches); b != nil {
		out = append(out, wrapParts(s, w, b...)...)
	}
	if c := calibrationParts(s, d.Calibration); c != nil {
		out = append(out, wrapParts(s, w, c...)...)
	}
	for i := range out {
		out[i] = lipgloss.NewStyle().MaxWidth(w).Render(out[i])
	}
	return out
}

// metricPart is one metric of the header: its name (the key goldtrace
// score --min takes) and its value.
func metricPart(s *Styles, name string, v *float64) string {
	return s.Muted.Render(name+" ") + app.FormatRate(v)
}

// profileParts is the header's profile line: the profile the gold is
// scored under (p switches) and, for a seed system's profile, that
// system's own metrics.
func profileParts(s *Styles, r *app.Dashboard) []string {
	parts := []string{s.Muted.Render("profile ") + r.Profile}
	switch r.Profile {
	case app.ProfileDefault:
		parts = append(parts, s.Muted.Render("goldtrace's matching"))
	case app.ProfileBFCL:
		parts = append(parts, s.Muted.Render("BFCL's checker: its string normalisation, . and _ alike in names"))
	}
	for _, sr := range r.Overall.Seed {
		parts = append(parts, metricPart(s, sr.Name, sr.Value))
	}
	return parts
}

// wrapParts joins parts with " · ", starting a new line where the next
// part would not fit in w.
func wrapParts(s *Styles, w int, parts ...string) []string {
	sep := s.Muted.Render(" · ")
	var lines []string
	line := ""
	for _, part := range parts {
		switch {
		case line == "":
			line = part
		case lipgloss.Width(line)+lipgloss.Width(sep)+lipgloss.Width(part) <= w:
			line += sep + part
		default:
			lines = append(lines, line)
			line = part
		}
	}
	return append(lines, line)
}

func progressParts(s *Styles, d *app.Dashboard) []string {
	st := &d.Status
	c := st.Items
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	parts := []string{
		s.Muted.Render("sampled ") + fmt.Sprint(d.Sampled),
		s.Muted.Render("labeling ") + fmt.Sprint(d.Labeling),
		s.Muted.Render("agreed ") + fmt.Sprint(n(c.Agreed)),
		s.Muted.Render("disputed ") + fmt.Sprint(n(c.Disputed)),
		s.Muted.Render("adjudicated ") + fmt.Sprint(n(c.Adjudicated)),
		s.Muted.Render("labels ") + fmt.Sprintf("%d/%d", st.Totals.Submitted, st.Totals.Assignments),
	}
	return parts
}

func agreementParts(s *Styles, a *review.Agreement) []string {
	if a == nil || a.Items == 0 {
		return []string{s.Muted.Render("agreement: no item has two labels yet")}
	}
	pct := func(p *float64) string {
		if p == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.1f%%", *p*100)
	}
	parts := []string{s.Muted.Render("agreement ") + pct(a.Tool) + s.Muted.Render(" tool"),
		pct(a.Exact) + s.Muted.Render(" exact")}
	parts = append(parts, kappaText(s, a.Pairs))
	r := a.Reliability
	parts = append(parts, s.Muted.Render("AC1 ")+estimateText(s, r.AC1), s.Muted.Render("α ")+estimateText(s, r.Alpha),
		s.Muted.Render("items ")+fmt.Sprint(a.Items))
	return parts
}

// estimateText is a statistic with its bootstrap 95% interval in muted
// brackets: "0.93 [0.89–0.96]"; "n/a" when undefined.
func estimateText(s *Styles, e review.Estimate) string {
	if e.Value == nil {
		return "n/a"
	}
	v := fmt.Sprintf("%.2f", *e.Value)
	if e.Low == nil || e.High == nil {
		return v
	}
	return v + s.Muted.Render(fmt.Sprintf(" [%.2f–%.2f]", *e.Low, *e.High))
}

// kappaText is Cohen's kappa of the one reviewer pair, or the range over
// several pairs.
func kappaText(s *Styles, pairs []review.PairAgreement) string {
	var ks []float64
	for _, p := range pairs {
		if p.Kappa.Kappa != nil {
			ks = append(ks, *p.Kappa.Kappa)
		}
	}
	switch {
	case len(ks) == 0:
		return s.Muted.Render("κ ") + "n/a"
	case len(pairs) == 1:
		return s.Muted.Render("κ ") + fmt.Sprintf("%.2f", ks[0]) + s.Muted.Render(" ("+pairs[0].A+"–"+pairs[0].B+")")
	}
	lo, hi := ks[0], ks[0]
	for _, k := range ks {
		lo, hi = min(lo, k), max(hi, k)
	}
	return s.Muted.Render("κ ") + fmt.Sprintf("%.2f–%.2f", lo, hi) + s.Muted.Render(fmt.Sprintf(" (%d pairs)", len(pairs)))
}

// worstTools is the per-tool table, lowest exact_call first, in at most h
// lines.
func (p *DashboardPage) worstTools(h int) []string {
	return p.toolTable(p.data.Tools, h, nil)
}

// toolTable renders tools in at most h lines; with a cursor (the tools
// screen) it scrolls and marks the selected tool, without one it ends in
// "… N more tools".
func (p *DashboardPage) toolTable(tools []app.DashboardTool, h int, cur *cellCursor) []string {
	s := &p.c.Styles
	const numW = 6
	kindW := 22
	rateW, heads := 11, []string{"exact_call", "tool_name", "args_value"}
	if p.width < 80 {
		rateW, heads = 7, []string{"exact", "tool", "args"}
	}
	indent := ""
	if cur != nil {
		kindW, indent = kindW-2, "  " // room for the cursor mark
	}
	nameW := min(max(p.width-numW-3*rateW-kindW-len(indent), 10), 28)
	out := []string{s.Pane.Title.Render("Worst tools") + s.Muted.Render(truncate(" (by expected tool, lowest exact_call first)", p.width-11)),
		s.Muted.Render(indent + padRight("tool", nameW) + fmt.Sprintf("%*s%*s%*s%*s", numW, "n", rateW, heads[0], rateW, heads[1], rateW, heads[2]) + "  top error")}
	rows := h - len(out)
	first := 0
	if cur != nil {
		first = cur.top
		out[0] = s.Pane.Title.Render("Tools") + s.Muted.Render(fmt.Sprintf(" · %d, lowest exact_call first · enter lists a tool's items", len(tools)))
	}
	for i := first; i < len(tools); i++ {
		g := tools[i]
		if cur == nil && i == rows-1 && len(tools) > rows {
			out = append(out, s.Muted.Render(fmt.Sprintf("… %d more tools (t)", len(tools)-i)))
			break
		}
		if i-first >= rows {
			break
		}
		top := ""
		if g.TopErrorCount > 0 {
			top = fmt.Sprintf("%s %d", g.TopError, g.TopErrorCount)
		}
		line := padRight(truncate(g.Name, nameW-1), nameW) + fmt.Sprintf("%*d", numW, g.Items) +
			rateCell(s, g.ExactCall, rateW) + rateCell(s, g.ToolName, rateW) + rateCell(s, g.ArgsValue, rateW) + "  " + truncate(top, kindW-2)
		if cur != nil && i == cur.cursor {
			line = s.Form.Selected.Render(markCursor + " " + line)
		} else if cur != nil {
			line = "  " + line
		}
		out = append(out, line)
	}
	for i := range out {
		out[i] = lipgloss.NewStyle().MaxWidth(p.width).Render(out[i])
	}
	return out
}

// rateCell right-aligns a rate, in the error colour below 0.8 (the text
// itself carries the number, so NO_COLOR loses nothing).
func rateCell(s *Styles, v *float64, w int) string {
	text := fmt.Sprintf("%*s", w, app.FormatRate(v))
	if v != nil && *v < 0.8 {
		return s.Warn.Render(text)
	}
	return text
}
