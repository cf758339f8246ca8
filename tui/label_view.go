package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/review"
)

// labelColumn is the width of the form's field names ("Tool", "Args", "Why").
const labelColumn = 7

// formLayout is how the page's height is shared out.
type formLayout struct {
	context, args, rationale, others, problem int
}

func (p *LabelPage) computeLayout() formLayout {
	h := p.height
	var l formLayout
	l.rationale = 2
	if h >= 34 {
		l.rationale = 3
	}
	l.args = min(max(h/5, 3), 10)
	if p.form.calls != nil {
		l.others = min(len(p.form.calls)-1, 3)
	}
	l.problem = 1
	if p.form.calls != nil {
		l.problem = len(p.problemLines(p.form.calls[p.form.cur]))
	}
	fixed := 1 + 1 + 1 + l.others + l.problem + 1 + l.rationale // header, two rules, tool, problem lines, rationale
	if p.opts.Hint != "" {
		fixed++
	}
	room := h - fixed // shared by the conversation and the arguments
	// The arguments get what their form needs (the tool list what it
	// shows), as long as minContext lines of conversation stay; the
	// conversation gets the rest.
	if want := p.argsWant(); want > 0 {
		l.args = max(min(want, room-minContext), 3)
	}
	l.context = room - l.args
	for l.context < minContext && l.args > 1 {
		l.args--
		l.context++
	}
	l.context = max(l.context, 1)
	return l
}

// overlayRows is the most lines the value picker or the go-to list ask for.
const overlayRows = 10

// minContext is the conversation lines kept at any height: the decision
// point and what leads to it.
const minContext = 4

// argsWant is how many lines the focused call's argument form would use
// whole (its fields and the hint line), 0 when it is not a form.
func (p *LabelPage) argsWant() int {
	f := p.form
	if f.calls == nil || f.noTool || f.focus == fieldTool {
		return 0
	}
	ce := f.calls[f.cur]
	if !ce.useForm || ce.form == nil {
		return 0
	}
	if ce.form.pick != nil {
		return len(ce.form.pickLines(overlayRows))
	}
	if ce.form.jump != nil {
		return len(ce.form.jumpLines(overlayRows))
	}
	return len(ce.form.lines()) + len(ce.form.hintLines())
}

func (p *LabelPage) layout() {
	if p.width <= 0 || p.height <= 0 {
		return
	}
	l := p.computeLayout()
	p.context.SetSize(p.width, l.context)
	p.form.SetWidth(p.width)
	p.form.SetArgsHeight(l.args)
	p.form.rationale.SetHeight(l.rationale)
}

// View draws the page: header, conversation, label form.
func (p *LabelPage) View() string {
	if p.width <= 0 {
		return ""
	}
	switch {
	case p.state == stateEmpty:
		return p.emptyView()
	case p.item.ID == "" && p.state == stateLoading:
		return p.c.Styles.Muted.Render("loading your queue…")
	case p.item.ID == "":
		// No item has been loaded (a reopen from the empty screen is in
		// flight): there is no form to draw; the empty screen stays.
		return p.emptyView()
	}
	s := &p.c.Styles
	l := p.computeLayout()
	var rows []string
	rows = append(rows, p.headerView())
	if p.opts.Hint != "" {
		rows = append(rows, ansi.Truncate(s.Accent.Render(p.opts.Hint), p.width, "…"))
	}
	title := "Conversation"
	if info := p.context.ScrollInfo(); info != "" {
		title += " (" + info + ")"
	}
	rows = append(rows, p.rule(title, false))
	rows = append(rows, fitLines(p.context.View(), l.context))
	rows = append(rows, p.rule(p.formTitle(), true))
	rows = append(rows, p.formView(l)...)
	return strings.Join(rows, "\n")
}

// headerKey is what the header is drawn from.
type headerKey struct {
	reviewer, item, trace string
	turn                  int
	counted               bool
	done, total, countW   int
	secs, width           int
}

func (p *LabelPage) headerView() string {
	secs := p.secondsAt(p.now)
	k := headerKey{reviewer: p.opts.Reviewer, item: p.item.ID, trace: p.item.TraceID, turn: p.item.Turn,
		counted: p.counted, done: p.done, total: p.total, countW: p.countWidth, secs: secs, width: p.width}
	return p.headers.get(k, func() string { return p.drawHeader(secs) })
}

// drawHeader draws the header line with secs on the item's clock.
func (p *LabelPage) drawHeader(secs int) string {
	s := &p.c.Styles
	left := s.Title.Render(p.opts.Reviewer) + "  " + p.countView() + " " + p.barView(12)
	right := s.Muted.Render(fmt.Sprintf("⏱ %d:%02d", secs/60, secs%60))
	meta := []string{fmt.Sprintf("%s turn %d", p.item.TraceID, p.item.Turn)}
	keys := make([]string, 0, len(p.item.Metadata))
	for k := range p.item.Metadata {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return metaRank(keys[i]) < metaRank(keys[j]) || metaRank(keys[i]) == metaRank(keys[j]) && keys[i] < keys[j]
	})
	for _, k := range keys {
		meta = append(meta, k+"="+p.item.Metadata[k])
	}
	room := p.width - lipgloss.Width(left) - lipgloss.Width(right) - 4
	middle := ""
	if room > 8 {
		middle = ansi.Truncate(s.Header.Render(strings.Join(meta, " · ")), room, "…")
	}
	gap := max(p.width-lipgloss.Width(left)-lipgloss.Width(middle)-lipgloss.Width(right)-2, 1)
	return left + "  " + middle + strings.Repeat(" ", gap) + right
}

// metaRank puts the metadata a reviewer reads first (model, cohort) first.
func metaRank(k string) int {
	switch k {
	case "model":
		return 0
	case "cohort":
		return 1
	}
	return 2
}

// countView is the item's place in the queue ("12/340"), or "…" in its
// place (as wide as the count last shown) until the count arrives.
func (p *LabelPage) countView() string {
	if !p.counted {
		return p.c.Styles.Muted.Render(fmt.Sprintf("%-*s", p.countWidth, "…"))
	}
	return p.count()
}

func (p *LabelPage) count() string {
	return fmt.Sprintf("%d/%d", min(p.done+1, p.total), p.total)
}

func (p *LabelPage) barView(width int) string {
	s := &p.c.Styles
	if p.total == 0 && p.counted {
		return ""
	}
	filled := 0
	if p.counted {
		filled = p.done * width / p.total
	}
	full, empty := "█", "░"
	if s.NoColor {
		full, empty = "#", "."
	}
	return s.Accent.Render(strings.Repeat(full, filled)) + s.Muted.Render(strings.Repeat(empty, width-filled))
}

func (p *LabelPage) formTitle() string {
	f := p.form
	title := "Your label"
	if len(f.calls) > 1 {
		title += fmt.Sprintf(" — call %d of %d", f.cur+1, len(f.calls))
	}
	if p.revealed {
		title += " (model's call revealed)"
	}
	return title
}

// ruleKey is what a rule is drawn from.
type ruleKey struct {
	title  string
	accent bool
	width  int
}

// rule is a titled horizontal line across the page.
func (p *LabelPage) rule(title string, accent bool) string {
	return p.rules.get(ruleKey{title, accent, p.width}, func() string { return p.drawRule(title, accent) })
}

func (p *LabelPage) drawRule(title string, accent bool) string {
	s := &p.c.Styles
	style := s.Muted
	if accent {
		style = s.Pane.Title
	}
	head := "── " + title + " "
	return style.Render(ansi.Truncate(head, p.width, "…")) + s.Muted.Render(strings.Repeat("─", max(p.width-ansi.StringWidth(head), 0)))
}

// fieldKey is what a field's name is drawn from.
type fieldKey struct {
	name    string
	focused bool
}

func (p *LabelPage) fieldName(name string, focused bool) string {
	return p.fieldNames.get(fieldKey{name, focused}, func() string { return p.drawFieldName(name, focused) })
}

func (p *LabelPage) drawFieldName(name string, focused bool) string {
	s := &p.c.Styles
	style := s.Form.Label
	if focused {
		style = s.Form.FocusedLabel
		name = "▸" + name
	} else {
		name = " " + name
	}
	return style.Render(name) + strings.Repeat(" ", max(labelColumn-ansi.StringWidth(name), 1))
}

// formView renders the label form's lines for layout l. It is long because
// the form's fields are laid out in order, each with its own state
// (focus, validation, revealed calls); a helper per field would pass the
// same layout to each.
func (p *LabelPage) formView(l formLayout) []string {
	s := &p.c.Styles
	f := p.form
	inner := max(p.width-labelColumn, 10)
	var rows []string
	// The other calls of a sequence, one line each, in their order around
	// the one being edited.
	var before, after []string
	shown := 0
	for i, c := range f.calls {
		if i == f.cur || shown >= l.others {
			continue
		}
		shown++
		tool := c.tool
		if tool == "" {
			tool = "(no tool chosen)"
		}
		line := fmt.Sprintf(" %d. %s %s", i+1, tool, oneLine(c.value()))
		if len(c.problems) > 0 {
			line += "  ✗"
		}
		line = ansi.Truncate(s.Muted.Render(line), p.width, "…")
		if i < f.cur {
			before = append(before, line)
		} else {
			after = append(after, line)
		}
	}
	rows = append(rows, before...)
	ce := f.calls[f.cur]
	// Tool line.
	toolFocused := f.focus == fieldTool
	var toolText string
	switch {
	case toolFocused:
		current := ""
		if f.noTool {
			current = noToolChoice
		} else if ce.tool != "" {
			current = ce.tool
		}
		toolText = f.picker.InputView(inner - ansi.StringWidth(current) - 3)
		if current != "" && f.picker.Filter() == "" {
			toolText = s.Form.Selected.Render(current) + "  " + s.Muted.Render("type to change")
		}
	case f.noTool:
		toolText = s.Form.Selected.Render(noToolChoice) + s.Muted.Render(" — the assistant should answer in words")
	case ce.tool == "":
		toolText = s.Form.Problem.Render("(not chosen)")
	default:
		// The description goes beside the name only when it fits whole
		// (the tool list shows it whole, wrapped).
		toolText = s.Form.Selected.Render(ce.tool)
		if d := " — " + f.picker.descs[ce.tool]; labelColumn+ansi.StringWidth(ce.tool+d) <= p.width {
			toolText += s.Muted.Render(d)
		}
	}
	rows = append(rows, ansi.Truncate(p.fieldName("Tool", toolFocused)+toolText, p.width, "…"))
	// Args area: the tool list while choosing, else the editor.
	var area string
	switch {
	case toolFocused:
		area = f.picker.ListView(inner, l.args)
	case f.noTool:
		area = s.Muted.Render("no arguments: no tool is called")
	case ce.tool == "":
		area = s.Muted.Render("choose a tool first (shift+tab)")
	case ce.useForm:
		area = ce.form.View()
	default:
		area = ce.args.View()
	}
	areaLines := strings.Split(fitLines(area, l.args), "\n")
	for i, line := range areaLines {
		name := strings.Repeat(" ", labelColumn)
		if i == 0 {
			if toolFocused {
				name = strings.Repeat(" ", labelColumn)
			} else {
				name = p.fieldName("Args", f.focus == fieldArgs)
			}
		}
		rows = append(rows, name+line)
	}
	rows = append(rows, after...)
	// Problem or hint line (or the skip prompt).
	rows = append(rows, p.problemLines(ce)...)
	// Rationale.
	ratLines := strings.Split(fitLines(f.rationale.View(), l.rationale), "\n")
	for i, line := range ratLines {
		name := strings.Repeat(" ", labelColumn)
		if i == 0 {
			name = p.fieldName("Why", f.focus == fieldRationale)
		}
		rows = append(rows, name+line)
	}
	return rows
}

// problemLine is the line under the form, unwrapped.
func (p *LabelPage) problemLine(ce *callEditor) string {
	s := &p.c.Styles
	f := p.form
	indent := strings.Repeat(" ", labelColumn)
	var line string
	switch {
	case p.skipping:
		return p.skipIn.View()
	case p.state == stateBusy:
		line = s.Muted.Render("saving…")
	case f.focus == fieldTool:
		line = s.Muted.Render("enter chooses · ↑/↓ move · tab keeps the current tool")
	case f.noTool || ce.tool == "":
		line = ""
	case len(ce.problems) > 0:
		first := ce.problems[0]
		if ce.useForm {
			first = focusedFirst(ce.problems, ce.form)
		}
		msg := "✗ " + first.Message
		if n := len(ce.problems) - 1; n > 0 {
			msg += fmt.Sprintf(" (+%d more)", n)
		}
		line = s.Form.Problem.Render(msg)
	case len(ce.warnings) > 0:
		msg := "⚠ " + ce.warnings[0].Message
		if n := len(ce.warnings) - 1; n > 0 {
			msg += fmt.Sprintf(" (+%d more)", n)
		}
		line = s.Warn.Render(msg)
	default:
		msg := "✓ arguments fit the tool"
		if ce.hint != "" {
			msg += " · " + ce.hint
		}
		line = s.Form.Valid.Render(msg)
	}
	return indent + line
}

// maxUnderLines bounds how many lines the message under the form wraps
// to (the rest of a long list of problems is behind "+N more").
const maxUnderLines = 3

// problemLines is the line under the form wrapped to the width, never cut
// mid-word: what is wrong, or what the focused field wants.
func (p *LabelPage) problemLines(ce *callEditor) []string {
	line := p.problemLine(ce)
	if p.skipping {
		return []string{ansi.Truncate(line, p.width, "…")}
	}
	indent := strings.Repeat(" ", labelColumn)
	lines := wrapStyled(strings.TrimPrefix(line, indent), max(p.width-labelColumn, 10))
	if len(lines) > maxUnderLines {
		lines = lines[:maxUnderLines]
		lines[maxUnderLines-1] = ansi.Truncate(lines[maxUnderLines-1], p.width-labelColumn-1, "") + "…"
	}
	for i := range lines {
		lines[i] = indent + lines[i]
	}
	return lines
}

func (p *LabelPage) emptyView() string {
	s := &p.c.Styles
	batch := ""
	if p.opts.Batch != "" {
		batch = " in batch " + p.opts.Batch
	}
	lines := []string{
		s.Title.Render(fmt.Sprintf("Nothing to label, %s.", p.opts.Reviewer)),
		"",
	}
	if p.total > 0 {
		lines = append(lines, fmt.Sprintf("All %d of your items%s are done. Thank you!", p.total, batch))
	} else {
		lines = append(lines, fmt.Sprintf("No items are assigned to you%s yet.", batch),
			"A lead assigns items with:  goldtrace sample --reviewers "+p.opts.Reviewer+",… --n N")
	}
	lines = append(lines, "", s.Muted.Render("ctrl+z reopens your last label · q quits"))
	return lipgloss.NewStyle().Padding(1, 2).Width(p.width).Render(strings.Join(lines, "\n"))
}

// fitLines pads or cuts s to exactly n lines.
func fitLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// focusedFirst puts the problem of the focused field (or inside it) first,
// so the line under the form speaks about what is being typed.
func focusedFirst(problems []review.Problem, form *argForm) review.Problem {
	st, v := form.current()
	if v == nil {
		return problems[0]
	}
	name := form.root.name(st.path)
	for _, p := range problems {
		if name != "" && (p.Field == name || strings.HasPrefix(p.Field, name+".") || strings.HasPrefix(p.Field, name+"[")) {
			return p
		}
	}
	return problems[0]
}
