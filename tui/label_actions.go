package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/app"
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

// submitRetryMsg retries a submit that failed for a reason that passes.
type submitRetryMsg struct {
	ItemID string
	seq    int
}

func (p *LabelPage) onSubmitted(msg submittedMsg) tea.Cmd {
	if msg.ItemID != p.item.ID {
		return ReportErr(msg.Err)
	}
	if msg.Err != nil {
		// The form keeps what was typed and stays dirty: quitting saves
		// it as a draft (or in the recovery file).
		p.state, p.dirty = stateReady, true
		verb := "submitted"
		if msg.Skipped {
			verb = "skipped"
		}
		if !retryable(msg.Err) || msg.Skipped {
			return tea.Batch(ReportErr(fmt.Errorf("not %s, your label is kept: %w", verb, whyOf(msg.Err))), p.replayTypedAhead(), p.recount())
		}
		p.retrySeq++
		seq, id := p.retrySeq, p.item.ID
		retry := p.after(retryDelay, func(time.Time) tea.Msg { return submitRetryMsg{ItemID: id, seq: seq} })
		return tea.Batch(ReportErr(fmt.Errorf("not submitted yet, retrying in %s: %w (your label is kept)", retryDelay, whyOf(msg.Err))), retry, p.replayTypedAhead(), p.recount())
	}
	p.dirty = false
	verb := "submitted"
	if msg.Skipped {
		verb = "skipped"
		p.req.skipped = append(p.req.skipped, msg.ItemID)
	} else {
		p.submitted++
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
	// dirty stays set until the store acknowledges the label: a submit that
	// fails, or is still in flight at quit, is saved as a draft.
	p.state = stateBusy
	p.retrySeq++ // a retry pending from an earlier failure is superseded
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
	// dirty stays set: reopenCmd saves the draft first, and a reopen that
	// fails leaves it unsaved.
	p.state = stateBusy
	return p.req.reopenCmd(current, d, secs)
}

// onDraftSaved answers an autosave. A failure keeps the form dirty, says
// so, and retries (when the failure passes) while the reviewer works on.
func (p *LabelPage) onDraftSaved(msg draftSavedMsg) tea.Cmd {
	if msg.Err == nil {
		return nil
	}
	if errors.Is(msg.Err, app.ErrConflict) {
		// The item was submitted or skipped while this autosave ran:
		// the store kept the label and refused the stale draft.
		return nil
	}
	if msg.ItemID != p.item.ID || p.state != stateReady {
		return ReportErr(msg.Err)
	}
	p.dirty = true
	if !retryable(msg.Err) {
		return ReportErr(fmt.Errorf("draft not saved (it is kept on screen; quitting writes it to a recovery file): %w", whyOf(msg.Err)))
	}
	var retry tea.Cmd
	if p.saveQueued != p.item.ID {
		p.saveQueued = p.item.ID
		id := p.item.ID
		retry = p.after(retryDelay, func(time.Time) tea.Msg { return autosaveMsg{ItemID: id} })
	}
	return tea.Batch(ReportErr(fmt.Errorf("draft not saved yet, retrying in %s: %w", retryDelay, whyOf(msg.Err))), retry)
}
