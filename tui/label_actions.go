package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/review"
)

// The label page's actions that end an item or bring one back (submit,
// skip, reopen) and the keys typed while they run.

// typeAheadLimit bounds the keys kept while an item loads.
const typeAheadLimit = 256

// replayTypedAhead applies the keys typed while the item was loading.
func (p *LabelPage) replayTypedAhead() tea.Cmd {
	keys := p.typedAhead
	p.typedAhead = nil
	var cmds []tea.Cmd
	for _, k := range keys {
		cmds = append(cmds, p.handleKey(k))
	}
	return tea.Batch(cmds...)
}

func (p *LabelPage) onSubmitted(msg submittedMsg) tea.Cmd {
	if msg.ItemID != p.item.ID {
		return ReportErr(msg.Err)
	}
	if msg.Err != nil {
		p.state = stateReady
		return tea.Batch(ReportErr(msg.Err), p.replayTypedAhead())
	}
	verb := "submitted"
	if msg.Skipped {
		verb = "skipped"
	}
	return tea.Batch(p.load(""), ReportStatus(fmt.Sprintf("%s %s", verb, msg.ItemID)))
}

func (p *LabelPage) handleSkipKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, p.c.Keys.Global.Back):
		p.skipping = false
		p.skipIn.Blur()
		return nil
	case key.Matches(msg, p.c.Keys.Label.Choose):
		reason := strings.TrimSpace(p.skipIn.Value())
		if reason == "" {
			return ReportErr(errors.New("a skip needs a reason: type why, then enter (esc cancels)"))
		}
		p.skipping = false
		p.state = stateBusy
		return p.req.skipCmd(p.item.ID, reason)
	}
	var cmd tea.Cmd
	p.skipIn, cmd = p.skipIn.Update(msg)
	return cmd
}

func (p *LabelPage) submit() tea.Cmd {
	msgs, call, field := p.form.Problems(!p.opts.RationaleOptional)
	l := p.form.Label()
	l.Item, l.Reviewer = p.item.ID, p.opts.Reviewer
	l.GuideVersion, l.Seconds, l.SawObserved = p.guideID, p.seconds(), p.revealed
	l.SubmittedAt = p.c.Now().UTC().Truncate(time.Second)
	if len(msgs) == 0 {
		for _, pr := range review.ValidateLabel(l, p.item.Tools) {
			msgs = append(msgs, pr.Message)
		}
	}
	if len(msgs) > 0 {
		cmd := p.form.setFocus(max(call, 0), field)
		more := ""
		if len(msgs) > 1 {
			more = fmt.Sprintf(" (+%d more)", len(msgs)-1)
		}
		return tea.Batch(cmd, ReportErr(fmt.Errorf("not submitted: %s%s", msgs[0], more)))
	}
	p.state = stateBusy
	p.dirty = false
	return p.req.submitCmd(l)
}

func (p *LabelPage) reopen() tea.Cmd {
	if p.state == stateBusy || p.state == stateLoading {
		return nil
	}
	var d *draftBody
	if p.state == stateReady && p.dirty {
		body := p.form.Draft(p.revealed)
		d = &body
	}
	current, secs := p.item.ID, p.seconds()
	p.state, p.dirty = stateBusy, false
	return p.req.reopenCmd(current, d, secs)
}
