package tui

import (
	"fmt"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/trace"
)

// LabelOptions configure the label screen.
type LabelOptions struct {
	Reviewer string
	// Batch limits the queue to one batch ("" = all of the reviewer's).
	Batch string
	// RationaleOptional lets labels be submitted without a rationale.
	RationaleOptional bool
	// Hint is one line shown under the header (e.g. the demo's "you are
	// alice; run … to be the second reviewer").
	Hint string
	// Recovery is the file a draft the database refuses on quit is kept in
	// and restored from at start (app.RecoveryPath); "" keeps none.
	Recovery string
	// RecoveryServed: the recovery file is on a server (goldtrace serve)
	// that restores it by itself; what the reviewer is told names neither
	// its path nor the database's words.
	RecoveryServed bool
}

type labelState int

const (
	stateLoading labelState = iota
	stateReady
	stateEmpty
	stateBusy // a submit, skip or reopen is in flight
)

// LabelPage is the reviewer's labeling screen: one item at a time from the
// queue, the conversation above and the label form below.
type LabelPage struct {
	c    *Common
	opts LabelOptions
	req  labelRequest

	state      labelState
	loadSeq    int
	item       trace.Item
	done       int
	total      int
	counted    bool // done and total are those of the item shown (else "…")
	countWidth int  // the width of the count last shown, kept by its placeholder
	guideID    string
	revealed   bool
	copied     bool          // the model's call was copied into the form
	tree       *observedTree // the model's calls' schemas and marks, once revealed
	leaf       string        // the field the conversation last showed the model's value of
	lastInput  time.Time     // the last key or mouse event on this item
	active     time.Duration // time on this item so far, idle stretches capped
	baseSecs   int
	now        time.Time
	dirty      bool
	saveQueued string // the item an autosave is scheduled for ("": none)
	retrySeq   int    // the pending submit retry (submitRetryMsg.seq)
	loading    string // the item the load under way asked for ("": the queue's next)

	submitted int // labels submitted in this session, for the quit summary

	skipping bool
	skipIn   textinput.Model

	// typedAhead holds keys pressed while an item loads or a submit is in
	// flight; they apply to the item that comes next, not lost.
	typedAhead []tea.KeyMsg

	// after schedules timed messages (autosave, clock); tests replace it.
	after func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

	form    *labelForm
	context contextPane
	width   int
	height  int

	// headers, rules and fieldNames: the parts of the screen drawn lately.
	headers    drawings[headerKey]
	rules      drawings[ruleKey]
	fieldNames drawings[fieldKey]
}

// NewLabelPage builds the label screen for opts.Reviewer over c.API.
func NewLabelPage(c *Common, opts LabelOptions) *LabelPage {
	skip := textinput.New()
	skip.Prompt = "Why skip? "
	skip.Placeholder = "e.g. context cut off; can't judge this language"
	skip.PlaceholderStyle = c.Styles.Muted
	skip.PromptStyle = c.Styles.Warn
	skip.Cursor.SetMode(cursor.CursorStatic)
	return &LabelPage{
		c: c, opts: opts,
		req:     labelRequest{st: c.API, reviewer: opts.Reviewer, batch: opts.Batch, writes: &sync.WaitGroup{}, recovery: opts.Recovery, served: opts.RecoveryServed},
		form:    newLabelForm(&c.Styles, &c.Keys.Label),
		context: newContextPane(&c.Styles),
		skipIn:  skip,
		after:   tea.Tick,
	}
}

// Init restores drafts kept from a session the database refused, loads
// the first item and starts the clock display.
func (p *LabelPage) Init() tea.Cmd {
	p.loadSeq++
	return tea.Batch(tea.Sequence(p.req.restoreCmd(), p.req.loadCmd(p.loadSeq, "")), p.clockTick())
}

// Update handles results, then keys; the key bindings' enabled state is
// brought up to date after every message.
func (p *LabelPage) Update(msg tea.Msg) (Page, tea.Cmd) {
	cmd := p.update(msg)
	p.syncKeys()
	return p, cmd
}

func (p *LabelPage) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case itemLoadedMsg:
		return p.onLoaded(msg)
	case progressMsg:
		return p.onProgress(msg)
	case draftSavedMsg:
		return p.onDraftSaved(msg)
	case submittedMsg:
		return p.onSubmitted(msg)
	case submitRetryMsg:
		if msg.seq != p.retrySeq || msg.ItemID != p.item.ID || p.state != stateReady || p.skipping {
			return nil // submitted by hand, or moved on, since
		}
		return p.submit()
	case recoveryRestoredMsg:
		return p.onRestored(msg)
	case reopenedMsg:
		if msg.Err != nil {
			p.state = stateReady
			if p.item.ID == "" {
				p.state, p.typedAhead = stateEmpty, nil
			}
			return tea.Batch(ReportErr(msg.Err), p.replayTypedAhead(), p.recount())
		}
		return tea.Batch(p.load(msg.ItemID), ReportStatus("reopened "+msg.ItemID+": change it and submit again"))
	case loadRetryMsg:
		if msg.seq != p.loadSeq || p.state != stateLoading {
			return nil
		}
		return p.load(p.loading)
	case autosaveMsg:
		if msg.ItemID == p.saveQueued {
			p.saveQueued = ""
		}
		if msg.ItemID != p.item.ID && p.dirty && p.state == stateReady {
			// Scheduled for the item before (submitted since): what was
			// typed on this one since then has no save scheduled yet.
			return p.edited()
		}
		if msg.ItemID != p.item.ID || !p.dirty || p.state != stateReady {
			return nil
		}
		p.dirty = false
		return p.req.saveDraftCmd(p.item.ID, p.form.Draft(p.revealed), p.seconds())
	case clockTickMsg:
		p.now = p.c.Now()
		return p.clockTick()
	case tea.MouseMsg:
		p.touch()
		return p.context.Update(msg)
	case tea.KeyMsg:
		p.touch()
		return p.handleKey(msg)
	}
	if p.state == stateReady {
		// Cursor blinks and other component messages.
		_, cmd := p.form.Update(msg)
		return cmd
	}
	return nil
}

func (p *LabelPage) load(itemID string) tea.Cmd {
	p.loadSeq++
	p.state, p.loading = stateLoading, itemID
	return p.req.loadCmd(p.loadSeq, itemID)
}

// loadRetryMsg loads again what a load that failed for a reason that
// passes (the database away for a moment) was loading.
type loadRetryMsg struct{ seq int }

func (p *LabelPage) onLoaded(msg itemLoadedMsg) tea.Cmd {
	if msg.seq != p.loadSeq {
		return nil // a newer load is under way
	}
	if msg.Err != nil && retryable(msg.Err) {
		// Not "nothing to label": the queue could not be read just now.
		// Keys typed meanwhile wait for the item, as during any load.
		p.item = trace.Item{}
		seq := p.loadSeq
		retry := p.after(retryDelay, func(time.Time) tea.Msg { return loadRetryMsg{seq: seq} })
		return tea.Batch(ReportErr(fmt.Errorf("%w (trying again in %s)", msg.Err, retryDelay)), retry)
	}
	if msg.Err != nil {
		p.state, p.item, p.typedAhead = stateEmpty, trace.Item{}, nil
		return ReportErr(msg.Err)
	}
	p.guideID = msg.Guide
	if msg.Empty {
		p.done, p.total, p.counted = msg.Done, msg.Total, true
		p.state, p.item, p.typedAhead = stateEmpty, trace.Item{}, nil
		return nil
	}
	p.counted = false
	p.state, p.item, p.dirty, p.skipping = stateReady, msg.Item, false, false
	p.revealed = msg.Draft.SawObserved
	p.lastInput, p.now, p.active, p.baseSecs = p.c.Now(), p.c.Now(), 0, msg.DraftSeconds
	p.form.LoadItem(msg.Item, msg.Draft)
	p.context.SetItem(msg.Item, p.revealed, msg.Notes)
	p.copied, p.tree, p.leaf = false, nil, ""
	p.syncTree()
	p.layout()
	// The count comes after the item is drawn (a long queue takes longer
	// to count than its next item to load), unless it came with it.
	var count tea.Cmd
	if msg.Counted {
		p.done, p.total, p.counted = msg.Done, msg.Total, true
		p.countWidth = len(p.count())
	} else {
		count = p.req.progressCmd(p.loadSeq)
	}
	if msg.Returned != "" {
		return tea.Batch(count, p.replayTypedAhead(), ReportStatus("back from your skips (\""+oneLine(msg.Returned)+"\"): label it, or ctrl+n to skip it again"))
	}
	return tea.Batch(count, p.replayTypedAhead())
}

// onProgress shows the count of the item's load. A count that arrives
// while a submit, skip or reopen is in flight may or may not include it:
// it is dropped, and the load after that write (or recount, when the
// write fails) counts again.
func (p *LabelPage) onProgress(msg progressMsg) tea.Cmd {
	if msg.seq != p.loadSeq || p.state != stateReady {
		return nil
	}
	if msg.Err != nil {
		return ReportErr(msg.Err)
	}
	p.done, p.total, p.counted = msg.Done, msg.Total, true
	p.countWidth = len(p.count())
	return nil
}

// recount counts the queue again when the item shown has no count (its
// count was dropped while a write that failed was in flight).
func (p *LabelPage) recount() tea.Cmd {
	if p.counted || p.state != stateReady {
		return nil
	}
	return p.req.progressCmd(p.loadSeq)
}

// idleLimit caps how much of a pause without any key counts as time on
// the item: reading counts, a lunch break does not.
const idleLimit = 5 * time.Minute

// seconds is the time spent on the current item up to at, drafts included.
func (p *LabelPage) secondsAt(at time.Time) int {
	pause := min(max(at.Sub(p.lastInput), 0), idleLimit)
	return p.baseSecs + int((p.active+pause)/time.Second)
}

func (p *LabelPage) seconds() int { return p.secondsAt(p.c.Now()) }

// touch records input: the pause before it counts, up to idleLimit.
func (p *LabelPage) touch() {
	now := p.c.Now()
	p.active += min(max(now.Sub(p.lastInput), 0), idleLimit)
	p.lastInput = now
}

// handleKey dispatches one key on the label screen. It is long because it
// is one switch over the screen's key bindings; each case delegates.
func (p *LabelPage) handleKey(msg tea.KeyMsg) tea.Cmd {
	p.syncKeys() // the state may have changed since the last message
	k := &p.c.Keys.Label
	g := &p.c.Keys.Global
	if p.skipping {
		return p.handleSkipKey(msg)
	}
	switch {
	case key.Matches(msg, g.ScrollUp):
		p.context.PageUp()
		return nil
	case key.Matches(msg, g.ScrollDown):
		p.context.PageDown()
		return nil
	case key.Matches(msg, k.Reopen):
		return p.reopen()
	case p.state == stateLoading || p.state == stateBusy:
		// Typing ahead while the next item loads: keep the keys for it.
		if len(p.typedAhead) < typeAheadLimit {
			p.typedAhead = append(p.typedAhead, msg)
		}
		return nil
	case p.state != stateReady:
		return nil
	case key.Matches(msg, k.Submit):
		return p.submit()
	case key.Matches(msg, k.Skip):
		p.skipping = true
		p.skipIn.SetValue("")
		return p.skipIn.Focus()
	case key.Matches(msg, k.Reveal):
		if !p.revealed {
			p.revealed = true
			p.context.Reveal()
			p.syncTree()
			return p.edited()
		}
		cmd := p.form.CopyCalls(p.item.Observed) // the second ctrl+o
		p.copied = true
		p.syncTree()
		p.layout()
		note := "copied the model's call: change what is wrong"
		if n := len(p.form.problemStops()); n > 0 {
			note = "copied the model's call · " + plural(n, "field") + " flagged: ctrl+p goes there"
		}
		return tea.Batch(cmd, p.edited(), ReportStatus(note))
	case key.Matches(msg, k.Guide):
		tool := ""
		if !p.form.noTool {
			tool = p.form.calls[p.form.cur].tool
		}
		return SwitchPage(PageGuide, OpenGuideMsg{Tool: tool})
	case key.Matches(msg, k.ExpandTools):
		p.context.ToggleExpanded()
		return nil
	case key.Matches(msg, k.AddCall):
		cmd := p.form.AddCall()
		p.layout()
		return tea.Batch(cmd, p.edited())
	case key.Matches(msg, k.RemoveCall):
		if ok, cmd := p.form.RemoveCall(); ok {
			p.layout()
			return tea.Batch(cmd, p.edited())
		}
		return ReportStatus("the label has one call: ctrl+d removes a call of a sequence (ctrl+a adds one)")
	case key.Matches(msg, k.MoveCallUp), key.Matches(msg, k.MoveCallDn):
		delta := 1
		if key.Matches(msg, k.MoveCallUp) {
			delta = -1
		}
		if p.form.MoveCall(delta) {
			return p.edited()
		}
		if len(p.form.calls) < 2 {
			return ReportStatus("the label has one call: alt+↑/↓ reorder the calls of a sequence")
		}
		return nil
	case key.Matches(msg, k.NextProblem):
		return p.moved(p.form.NextProblem, "no field has a warning or an error")
	case key.Matches(msg, k.GoToField):
		return p.moved(p.form.GoToField, "choose a tool with a form first: go to field names its arguments")
	case key.Matches(msg, k.PrevField):
		return p.form.Move(-1)
	case key.Matches(msg, k.NextField) && p.form.focus == fieldTool:
		return p.form.Move(1)
	}
	changed, cmd := p.form.Update(msg)
	p.layout()
	p.followLeaf()
	if changed {
		return tea.Batch(cmd, p.edited())
	}
	return cmd
}

// moved runs a focus move of the form and lays the page out again; when
// there is nowhere to go the status line says why (refusal).
func (p *LabelPage) moved(move func() (bool, tea.Cmd), refusal string) tea.Cmd {
	ok, cmd := move()
	p.layout()
	p.followLeaf()
	if !ok {
		return ReportStatus(refusal)
	}
	return cmd
}

// syncTree gives the conversation the marks on the model's calls and,
// once copied, what the label has made of them.
func (p *LabelPage) syncTree() {
	if !p.revealed {
		return
	}
	if p.tree == nil {
		t := p.form.observedTree(p.item.Observed)
		p.tree = &t
	}
	t := *p.tree
	t.Now = nil
	if p.copied && !p.form.noTool {
		for i := range p.item.Observed {
			now := ""
			if i < len(p.form.calls) {
				now = p.form.calls[i].value()
			}
			t.Now = append(t.Now, now)
		}
	}
	p.context.SetTree(t)
	p.followLeaf()
}

// followLeaf scrolls the conversation to the model's value of the field
// the focus is on, when the model's call is shown and the field changed.
func (p *LabelPage) followLeaf() {
	f := p.form
	if !p.revealed || f.noTool || f.focus != fieldArgs || f.calls == nil {
		return
	}
	ce := f.calls[f.cur]
	if !ce.useForm || ce.form == nil || len(ce.form.stops) == 0 {
		return
	}
	name := ce.form.stopName(ce.form.stops[ce.form.at])
	if name == p.leaf {
		return
	}
	p.leaf = name
	p.context.ShowLeaf(f.cur, name)
}

// edited marks the draft dirty and schedules an autosave if none is due
// for this item. One still due for the item before (submitted a moment
// ago) does not count: it would only schedule this item's when it fires,
// and what was typed here would wait up to twice the delay.
func (p *LabelPage) edited() tea.Cmd {
	p.syncTree()
	p.dirty = true
	if p.saveQueued == p.item.ID {
		return nil
	}
	p.saveQueued = p.item.ID
	id := p.item.ID
	return p.after(autosaveDelay, func(time.Time) tea.Msg { return autosaveMsg{ItemID: id} })
}

// flushWait bounds how long quitting waits for a submit still in flight.
const flushWait = 5 * time.Second

// Flush saves unsaved work before quitting, after any submit, skip or
// autosave still in flight has landed: as a draft in the database, retried
// for a few seconds, else in the recovery file. Its message is a
// FlushReportMsg when the draft did not reach the database.
func (p *LabelPage) Flush() tea.Cmd {
	req := p.req
	save := p.item.ID != "" && p.dirty && (p.state == stateReady || p.state == stateBusy)
	id, d, secs := p.item.ID, p.form.Draft(p.revealed), p.seconds()
	p.dirty = false
	submitted := p.submitted
	return func() tea.Msg {
		req.waitWrites(flushWait)
		var rep tea.Msg
		if save {
			rep = req.flushDraft(id, d, secs)
		}
		return withSummary(rep, req.quitSummary(submitted))
	}
}

// Typing is true while a text field has focus, and while an item loads
// (keys typed ahead go to its fields): q and ? work elsewhere (a yes/no
// field, the empty screen).
func (p *LabelPage) Typing() bool {
	return p.skipping || p.state == stateLoading || p.state == stateBusy || p.state == stateReady && p.form.Typing()
}

// SetSize lays the page out in w×h.
func (p *LabelPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.layout()
}

// ShortHelp lists the keys of the common path, most used first (the help
// line drops the last ones that do not fit).
func (p *LabelPage) ShortHelp() []key.Binding {
	k := &p.c.Keys.Label
	if p.skipping {
		return []key.Binding{k.Choose, p.c.Keys.Global.Back}
	}
	if p.state == stateReady && p.form.focus == fieldTool {
		return []key.Binding{k.Choose, k.Submit, k.Reveal, k.Skip, k.NextField, k.Guide}
	}
	return []key.Binding{k.Submit, k.Reveal, k.NextProblem, k.GoToField, k.NextField, k.Skip, k.Guide, k.Reopen}
}

// FullHelp lists every key the screen answers to now.
func (p *LabelPage) FullHelp() [][]key.Binding {
	k := &p.c.Keys.Label
	g := &p.c.Keys.Global
	form := p.form.argHelp()
	moves := []key.Binding{k.NextField, k.PrevField, k.Choose, k.Submit, k.Skip, k.Reopen}
	if len(form) > 0 && key.Matches(tea.KeyMsg{Type: tea.KeyTab}, form[0]) {
		moves = moves[1:] // the form's "tab/↓ next field" says it
	}
	return [][]key.Binding{
		moves,
		{k.NextProblem, k.GoToField, k.Reveal, k.ExpandTools, k.Guide, g.Back},
		{k.AddCall, k.RemoveCall, k.MoveCallUp, k.MoveCallDn},
		form,
	}
}

// syncKeys switches bindings on and off so the help shows what works now.
func (p *LabelPage) syncKeys() {
	k := &p.c.Keys.Label
	ready := p.state == stateReady && !p.skipping
	for _, b := range []*key.Binding{&k.NextField, &k.PrevField, &k.Submit, &k.Skip, &k.Guide, &k.ExpandTools, &k.AddCall,
		&k.RemoveCall, &k.MoveCallUp, &k.MoveCallDn, &k.NextProblem} {
		b.SetEnabled(ready)
	}
	k.Choose.SetEnabled(p.skipping || ready && p.form.focus == fieldTool)
	k.GoToField.SetEnabled(ready && !p.form.noTool && p.form.calls[p.form.cur].useForm)
	k.Reveal.SetEnabled(ready)
	if p.revealed {
		k.Reveal.SetHelp("ctrl+o", "copy model's call")
	} else {
		k.Reveal.SetHelp("ctrl+o", "model's call")
	}
	k.Reopen.SetEnabled(!p.skipping && p.state != stateBusy && p.state != stateLoading)
}

func (p *LabelPage) clockTick() tea.Cmd {
	return p.after(time.Second, func(time.Time) tea.Msg { return clockTickMsg{} })
}
