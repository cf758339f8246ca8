package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
)

// adjDecision is the decision being built; a reason commits it. Exactly one
// of pick, both, label and accept is set.
type adjDecision struct {
	accept bool // the agreeing labels of an item held for review
	pick   string
	both   []string // primary, acceptable
	label  *review.Label
	rules  []ruleRow
}

// answer is the calls the decision makes expected, for the rules form.
func (d adjDecision) answer(labels []review.Label) []review.LabelCall {
	name := d.pick
	if len(d.both) > 0 {
		name = d.both[0]
	}
	if d.label != nil {
		return labelCalls(*d.label)
	}
	if d.accept && len(labels) > 0 {
		return labelCalls(labels[0]) // gold takes the first reviewer's by name
	}
	for _, l := range labels {
		if l.Reviewer == name {
			return labelCalls(l)
		}
	}
	return nil
}

// others are the labels whose values any_of offers.
func (d adjDecision) others(labels []review.Label) []review.Label {
	primary := d.pick
	if len(d.both) > 0 {
		primary = d.both[0]
	}
	var out []review.Label
	for _, l := range labels {
		if d.label != nil || l.Reviewer != primary {
			out = append(out, l)
		}
	}
	return out
}

// showChosen scrolls the labels to the decision's chosen one (after the
// form is laid out, so the offset fits the pane).
func (p *AdjudicatePage) showChosen() {
	switch {
	case p.decision.pick != "":
		p.scrollToLabel(p.decision.pick)
	case len(p.decision.both) > 0:
		p.scrollToLabel(p.decision.both[0])
	}
}

// whose names the answer the rules form edits ("bob's answer").
func (d adjDecision) whose() string {
	switch {
	case d.label != nil:
		return "the merged label"
	case len(d.both) > 0:
		return d.both[0] + "'s answer (and the acceptable one)"
	case d.accept:
		return "the agreed answer"
	}
	return d.pick + "'s answer"
}

// describe is the decision in a few words ("pick bob").
func (d adjDecision) describe() string {
	var s string
	switch {
	case d.label != nil && d.label.Decision == review.DecisionNoCall:
		s = "merged label: no call"
	case d.label != nil:
		var tools []string
		for _, c := range d.label.Calls {
			tools = append(tools, c.Tool)
		}
		s = "merged label: " + strings.Join(tools, ", ")
	case len(d.both) == 2:
		s = fmt.Sprintf("%s primary, %s acceptable", d.both[0], d.both[1])
	case d.accept:
		s = "accepted the agreeing labels"
	default:
		s = "picked " + d.pick
	}
	if r := rulesSummary(d.rules); r != "" {
		s += " (rules: " + r + ")"
	}
	return s
}

// resolution is the decision for store.Resolve.
func (d adjDecision) resolution(item app.Dispute, lead, reason string) app.Resolution {
	return app.Resolution{Item: item.Item, Lead: lead, Reason: reason, Seen: item.UpdatedAt,
		Pick: d.pick, Both: d.both, Label: d.label, Accept: d.accept, Rules: ruleSpecs(d.rules)}
}

func (p *AdjudicatePage) openChoose(c adjChoice) {
	p.mode, p.choice, p.problem = adjChoose, c, ""
	if c != choiceBothSecond {
		p.decision = adjDecision{}
	}
	p.layout()
}

// choosePrompt asks for a label number.
func (p *AdjudicatePage) choosePrompt() string {
	switch p.choice {
	case choiceEdit:
		return "Edit starting from which label? " + p.labelNames("")
	case choiceRules:
		return "Argument rules on which label's answer? " + p.labelNames("")
	case choiceBothPrimary:
		return "Both acceptable — which label is primary (expected)? " + p.labelNames("")
	}
	return fmt.Sprintf("Both acceptable — %s is primary; which one is also acceptable? %s", p.decision.both[0], p.labelNames(p.decision.both[0]))
}

func (p *AdjudicatePage) handleChooseKey(msg tea.KeyMsg) tea.Cmd {
	k := &p.c.Keys.Adjudicate
	if key.Matches(msg, k.Cancel) {
		p.closeForm()
		return nil
	}
	if !key.Matches(msg, k.Pick) {
		return nil
	}
	n := int(msg.Runes[0] - '0')
	if n < 1 || n > len(p.detail.labels) {
		p.problem = fmt.Sprintf("there is no label %d here", n)
		return nil
	}
	name := p.detail.labels[n-1].Reviewer
	switch p.choice {
	case choiceEdit:
		return p.openEditor(p.detail.labels[n-1])
	case choiceRules:
		p.decision = adjDecision{pick: name}
		return p.openRules(adjBrowse)
	case choiceBothPrimary:
		p.decision = adjDecision{both: []string{name}}
		if len(p.detail.labels) == 2 {
			p.decision.both = append(p.decision.both, p.detail.labels[2-n].Reviewer)
			return p.openReason()
		}
		p.openChoose(choiceBothSecond)
	case choiceBothSecond:
		if name == p.decision.both[0] {
			p.problem = name + " is already the primary; choose another label"
			return nil
		}
		p.decision.both = append(p.decision.both, name)
		return p.openReason()
	}
	return nil
}

// openReason asks why before committing the decision, with the chosen
// label in view.
func (p *AdjudicatePage) openReason() tea.Cmd {
	p.mode, p.problem = adjReason, ""
	p.showChosen()
	p.reason.SetValue("")
	p.layout()
	return p.reason.Focus()
}

func (p *AdjudicatePage) handleReasonKey(msg tea.KeyMsg) tea.Cmd {
	k := &p.c.Keys.Adjudicate
	switch {
	case key.Matches(msg, k.Cancel):
		p.closeForm()
		return nil
	case key.Matches(msg, k.OpenRules):
		p.reason.Blur()
		return p.openRules(adjReason)
	case key.Matches(msg, k.Confirm):
		reason := strings.TrimSpace(p.reason.Value())
		if reason == "" {
			p.problem = "a reason is required: say in a few words why"
			return nil
		}
		item, ok := p.current()
		if !ok || !p.ready() {
			return nil
		}
		p.busy = true
		return p.req.resolveCmd(p.decision.resolution(item, p.opts.Lead, reason),
			fmt.Sprintf("resolved %s : %s", item.Item, p.decision.describe()))
	}
	var cmd tea.Cmd
	p.reason, cmd = p.reason.Update(msg)
	p.problem = ""
	return cmd
}

// openRules lists the decision's answer's arguments; back is where esc goes.
func (p *AdjudicatePage) openRules(back adjMode) tea.Cmd {
	calls := p.decision.answer(p.detail.labels)
	p.rules = newRulesForm(&p.c.Styles, &p.c.Keys.Adjudicate, calls, p.decision.others(p.detail.labels), p.decision.rules)
	if len(p.rules.rows) == 0 {
		p.problem = "this answer has no arguments to set rules on"
		if back == adjReason {
			p.mode = adjReason
			p.layout()
			return p.reason.Focus()
		}
		p.mode = adjChoose
		p.layout()
		return nil
	}
	p.mode, p.rulesReturn, p.problem = adjRules, back, ""
	p.layout()
	p.showChosen()
	return nil
}

func (p *AdjudicatePage) handleRulesKey(msg tea.KeyMsg) tea.Cmd {
	k := &p.c.Keys.Adjudicate
	switch {
	case key.Matches(msg, k.Cancel):
		if p.rulesReturn == adjReason {
			p.mode = adjReason
			p.layout()
			return p.reason.Focus()
		}
		p.closeForm()
		return nil
	case key.Matches(msg, k.Confirm):
		p.decision.rules = append([]ruleRow(nil), p.rules.rows...)
		if p.rulesReturn == adjReason {
			p.mode = adjReason
			p.layout()
			return p.reason.Focus()
		}
		return p.openReason()
	}
	p.rules.Update(msg)
	return nil
}

// openNote asks for a send-back note or a guide proposal.
func (p *AdjudicatePage) openNote(kind adjNoteKind) tea.Cmd {
	p.mode, p.noteKind, p.problem = adjNote, kind, ""
	p.note.SetValue("")
	if kind == noteSendBack {
		p.note.Prompt = "Note for the reviewers: "
		p.note.Placeholder = "what to reconsider (required)"
	} else {
		p.note.Prompt = "Guide change: "
		p.note.Placeholder = "what the guide should say (required)"
	}
	p.layout()
	return p.note.Focus()
}

func (p *AdjudicatePage) handleNoteKey(msg tea.KeyMsg) tea.Cmd {
	k := &p.c.Keys.Adjudicate
	switch {
	case key.Matches(msg, k.Cancel):
		p.closeForm()
		return nil
	case key.Matches(msg, k.Confirm):
		text := strings.TrimSpace(p.note.Value())
		if text == "" {
			p.problem = "the note is empty: write what the reviewers should reconsider"
			if p.noteKind == noteGuide {
				p.problem = "the proposal is empty: write what the guide should say"
			}
			return nil
		}
		item, ok := p.current()
		if !ok || !p.ready() {
			return nil
		}
		p.busy = true
		if p.noteKind == noteSendBack {
			return p.req.sendBackCmd(item.Item, text)
		}
		return p.req.guideNoteCmd(item.Item, text)
	}
	var cmd tea.Cmd
	p.note, cmd = p.note.Update(msg)
	p.problem = ""
	return cmd
}
