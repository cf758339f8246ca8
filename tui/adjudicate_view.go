package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// SetSize gives the page its space and lays it out again.
func (p *AdjudicatePage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.layout()
}

// maxProblemLines bounds the editor's problem list.
const maxProblemLines = 4

// layout sizes the panes: one header line, then either the labels over the
// editor (editing) or the context over the labels over the open form. The
// context gets two fifths of what is left and the labels the rest; a pane
// shorter than its share gives the spare lines to the other.
func (p *AdjudicatePage) layout() {
	w, h := p.width, p.height
	if w <= 0 || h <= 0 {
		return
	}
	atBottom := p.context.AtBottom()
	if p.context.Width != w {
		p.context.Width = w
		if p.loaded {
			p.setContext()
			atBottom = true
		}
	}
	if p.labels.Width != w {
		p.labels.Width = w
		if p.loaded {
			p.setLabels()
		}
	}
	// Long text scrolls inside the inputs instead of running off the screen.
	p.reason.Width = max(w-ansi.StringWidth(p.reason.Prompt)-1, 1)
	p.note.Width = max(w-ansi.StringWidth(p.note.Prompt)-1, 1)
	const header, titles = 1, 2
	labelLines := max(p.labels.TotalLineCount(), 1)
	if p.mode == adjEdit {
		rest := h - header - titles - min(len(p.problems), maxProblemLines)
		p.labels.Height = max(min(rest*2/5, labelLines), 1)
		p.editor.SetWidth(w)
		p.editor.SetHeight(max(rest-p.labels.Height, 1))
	} else {
		if p.mode == adjRules {
			p.rules.SetSize(w, max(h/3, 1))
		}
		formH := 0
		if f := p.formView(); f != "" {
			formH = lipgloss.Height(f)
		}
		rest := max(h-header-titles-formH, 2)
		ctxLines := max(p.context.TotalLineCount(), 1)
		ctxShare := rest * 2 / 5
		switch {
		case ctxLines < ctxShare && labelLines > rest-ctxShare:
			p.context.Height = ctxLines
		case labelLines < rest-ctxShare:
			p.context.Height = rest - labelLines
		default:
			p.context.Height = ctxShare
		}
		p.context.Height = max(p.context.Height, 1)
		p.labels.Height = max(rest-p.context.Height, 1)
	}
	// Keep the decision point in view when it was, and the offsets
	// inside the (maybe shorter) content.
	if atBottom {
		p.context.GotoBottom()
	}
	p.context.SetYOffset(p.context.YOffset)
	p.labels.SetYOffset(p.labels.YOffset)
}

// View draws the header, the panes and the open form.
func (p *AdjudicatePage) View() string {
	if p.width <= 0 {
		return ""
	}
	switch {
	case p.queue == nil && p.loadErr != "":
		return p.c.Styles.Error.Render(ansi.Wrap("Could not load the disputed items: "+p.loadErr, p.width, ""))
	case p.queue == nil && p.loading:
		return p.c.Styles.Muted.Render("Loading the disputed items…")
	case len(p.queue) == 0:
		return p.emptyView()
	case !p.loaded && p.loadErr != "":
		return p.headerView() + "\n" + p.c.Styles.Error.Render(ansi.Wrap("Could not load this item: "+p.loadErr+
			" — "+p.c.Keys.Adjudicate.Next.Help().Key+" goes to the next one.", p.width, ""))
	case !p.loaded:
		return p.headerView() + "\n" + p.c.Styles.Muted.Render("Loading "+p.queue[p.pos].Item+"…")
	}
	parts := []string{p.headerView()}
	if p.mode == adjEdit {
		parts = append(parts, p.labelsTitle(), p.labels.View(),
			p.sectionTitle("Merged label", "calls as JSON; [] = no tool"), p.editor.View())
		for i, prob := range p.problems {
			if i == maxProblemLines {
				break
			}
			parts = append(parts, p.c.Styles.Form.Problem.Render(ansi.Truncate("✗ "+prob, p.width, "…")))
		}
		return strings.Join(parts, "\n")
	}
	parts = append(parts, p.contextTitle(), p.context.View(), p.labelsTitle(), p.labels.View())
	if f := p.formView(); f != "" {
		parts = append(parts, f)
	}
	return strings.Join(parts, "\n")
}

func (p *AdjudicatePage) headerView() string {
	s := &p.c.Styles
	d := p.queue[p.pos]
	parts := []string{
		s.Title.Render("Adjudicate"),
		s.Accent.Render(fmt.Sprintf("%d/%d", p.pos+1, len(p.queue))),
		d.Item,
		"disputed: " + strings.Join(d.Kinds, ", "),
	}
	if p.heldForReview() {
		parts[3] = "labels agree, held for review"
	}
	if p.kind != "" {
		parts = append(parts, "filter: "+p.kind)
	}
	if p.opts.Batch != "" {
		parts = append(parts, "batch "+p.opts.Batch)
	}
	if p.busy {
		parts = append(parts, s.Warn.Render("saving…"))
	}
	return ansi.Truncate(strings.Join(parts, s.Muted.Render(" · ")), p.width, "…")
}

// sectionTitle is a rule with a title and a hint: "── Context · hint ───".
func (p *AdjudicatePage) sectionTitle(title, hint string) string {
	s := &p.c.Styles
	text := s.Muted.Render("── ") + s.Pane.Title.Render(title)
	if hint != "" {
		text += s.Muted.Render(" · " + hint)
	}
	text = ansi.Truncate(text, p.width, "…")
	if fill := p.width - ansi.StringWidth(text) - 1; fill > 0 {
		text += " " + s.Muted.Render(strings.Repeat("─", fill))
	}
	return text
}

func (p *AdjudicatePage) contextTitle() string {
	hint := "pgup/pgdn"
	if p.context.TotalLineCount() > p.context.Height {
		hint += fmt.Sprintf(" %d%%", int(p.context.ScrollPercent()*100))
	}
	return p.sectionTitle("Context", hint)
}

func (p *AdjudicatePage) labelsTitle() string {
	hint := fmt.Sprintf("%d labels · %s marks differences", len(p.detail.labels), strings.TrimSpace(diffMarker))
	if p.labels.TotalLineCount() > p.labels.Height {
		hint += fmt.Sprintf(" · ↑/↓ %d%%", int(p.labels.ScrollPercent()*100))
	}
	return p.sectionTitle("Labels", hint)
}

// formView is the open form under the labels ("" when browsing).
func (p *AdjudicatePage) formView() string {
	s := &p.c.Styles
	var lines []string
	switch p.mode {
	case adjChoose:
		lines = append(lines, s.Form.FocusedLabel.Render(p.choosePrompt()))
	case adjReason:
		lines = append(lines, s.Form.Label.Render("Decision: ")+s.Accent.Render(p.decision.describe()), p.reason.View())
	case adjNote:
		lines = append(lines, p.note.View())
	case adjRules:
		lines = append(lines, s.Form.Label.Render("Argument rules for "+p.decision.whose()+" (exact unless changed):"), p.rules.View())
	default:
		return ""
	}
	if p.problem != "" {
		lines = append(lines, s.Form.Problem.Render("✗ "+p.problem))
	}
	lines = strings.Split(strings.Join(lines, "\n"), "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, p.width, "…")
	}
	return strings.Join(lines, "\n")
}

// emptyView explains an empty queue and what is happening elsewhere.
func (p *AdjudicatePage) emptyView() string {
	s := &p.c.Styles
	gold := p.counts["agreed"] + p.counts["adjudicated"]
	labeling := p.counts["new"] + p.counts["sampled"] + p.counts["labeling"]
	what := "No disputed items"
	if p.kind != "" {
		what += " of kind " + p.kind
	}
	if p.opts.Batch != "" {
		what += " in batch " + p.opts.Batch
	}
	lines := []string{
		s.Title.Render(what) + fmt.Sprintf(" — %s gold, %d still labeling.", plural(gold, "item"), labeling),
	}
	if other := p.counts["disputed"]; other > 0 && p.kind != "" {
		lines = append(lines, "", fmt.Sprintf("%s of other kinds: press %s to change the filter.", plural(other, "disputed item"), p.c.Keys.Adjudicate.Kind.Help().Key))
	}
	lines = append(lines, "", s.Muted.Render("Disputes appear here when two reviewers' labels of an item differ."))
	return lipgloss.NewStyle().Width(p.width).Padding(1, 2).Render(strings.Join(lines, "\n"))
}

// pickHelp names the label numbers that exist ("1-2 pick").
func (p *AdjudicatePage) pickHelp() key.Binding {
	b := p.c.Keys.Adjudicate.Pick
	if n := len(p.detail.labels); p.loaded && n > 1 && n < 10 {
		b.SetHelp(fmt.Sprintf("1-%d", n), b.Help().Desc)
	}
	return b
}

// withHelp is b with another description.
func withHelp(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// ShortHelp lists the keys that work in the current mode.
func (p *AdjudicatePage) ShortHelp() []key.Binding {
	k := p.c.Keys.Adjudicate
	switch p.mode {
	case adjChoose:
		return []key.Binding{withHelp(p.pickHelp(), "choose"), k.Cancel}
	case adjReason:
		return []key.Binding{withHelp(k.Confirm, "resolve"), k.OpenRules, k.Cancel}
	case adjNote:
		return []key.Binding{withHelp(k.Confirm, "save"), k.Cancel}
	case adjRules:
		return []key.Binding{k.RuleDown, k.RuleCycle, withHelp(k.Confirm, "done"), k.Cancel}
	case adjEdit:
		return []key.Binding{k.Save, k.Cancel}
	}
	if len(p.queue) == 0 {
		return p.withDashboard([]key.Binding{k.Kind})
	}
	if p.heldForReview() {
		return []key.Binding{k.Accept, p.pickHelp(), k.Edit, k.Rules, k.SendBack, k.Next}
	}
	return []key.Binding{p.pickHelp(), k.Edit, k.Both, k.Rules, k.SendBack, k.Next}
}

// FullHelp groups every key of the current mode.
func (p *AdjudicatePage) FullHelp() [][]key.Binding {
	k := p.c.Keys.Adjudicate
	if p.mode != adjBrowse {
		if p.mode == adjRules {
			return [][]key.Binding{{k.RuleUp, k.RuleDown, k.RuleCycle, k.RuleBack}, {withHelp(k.Confirm, "done"), k.Cancel}}
		}
		return [][]key.Binding{p.ShortHelp()}
	}
	if len(p.queue) == 0 {
		return [][]key.Binding{p.withDashboard([]key.Binding{k.Kind})}
	}
	first := []key.Binding{p.pickHelp(), k.Edit, k.Both, k.Rules}
	if p.heldForReview() {
		first = append([]key.Binding{k.Accept}, first...)
	}
	return [][]key.Binding{
		first,
		{k.SendBack, k.GuideNote, k.Next, k.Prev},
		p.withDashboard([]key.Binding{k.Kind, k.LabelsUp, k.LabelsDn}),
	}
}

// withDashboard adds the key back to the dashboard when the session has one.
func (p *AdjudicatePage) withDashboard(keys []key.Binding) []key.Binding {
	if p.opts.Dashboard {
		return append(keys, p.c.Keys.Adjudicate.Dashboard)
	}
	return keys
}

// plural is "1 item" or "n items".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
