package tui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
)

// AdjudicateOptions configure the lead's adjudication screen.
type AdjudicateOptions struct {
	Lead string
	// Batch limits the queue to one batch ("" = all).
	Batch string
	// Kind limits the queue to one dispute kind ("" = all); the screen's
	// filter key cycles it.
	Kind string
	// Dashboard: the session also has the dashboard page, and a key goes
	// back to it.
	Dashboard bool
}

// disputeKinds are the kind filter's values, in cycling order ("" = all).
var disputeKinds = []string{"", review.KindDecision, review.KindTool, review.KindArgs,
	review.KindCount, review.KindOrder, review.KindReview}

// adjMode is what the screen is doing: browsing, or one open form.
type adjMode int

const (
	adjBrowse adjMode = iota
	adjChoose         // waiting for a label number
	adjEdit           // the merged-label editor
	adjRules          // the argument rules form
	adjReason         // the reason for a decision
	adjNote           // a note: send back or guide proposal
)

// adjChoice is what a label number is being chosen for.
type adjChoice int

const (
	choiceEdit adjChoice = iota
	choiceRules
	choiceBothPrimary
	choiceBothSecond
)

// adjNoteKind is what an open note is for.
type adjNoteKind int

const (
	noteSendBack adjNoteKind = iota
	noteGuide
)

// AdjudicatePage is the lead's screen: the queue of disputed items one at a
// time, the conversation, the reviewers' labels side by side with their
// differences marked, and the decisions a lead can take.
type AdjudicatePage struct {
	c    *Common
	opts AdjudicateOptions
	req  adjRequest
	kind string

	seq     int // tags loads; older answers are dropped
	loading bool
	busy    bool // a write is in flight
	queue   []app.Dispute
	counts  map[string]int
	pos     int
	detail  adjDetail
	loaded  bool   // detail is queue[pos]'s
	loadErr string // why queue[pos] could not be loaded

	mode        adjMode
	choice      adjChoice
	noteKind    adjNoteKind
	decision    adjDecision
	rulesReturn adjMode // where esc in the rules form goes
	problem     string  // why the open form cannot be accepted
	problems    []string

	reason  textinput.Model
	note    textinput.Model
	editor  textarea.Model
	rules   rulesForm
	context viewport.Model
	labels  viewport.Model
	starts  []int // the line each label starts on in labels

	width, height int

	decided, sentBack int // in this session, for the quit summary
}

// NewAdjudicatePage builds the adjudication screen for opts.Lead over
// c.API. The caller has checked that the lead is one (store.RequireLead).
func NewAdjudicatePage(c *Common, opts AdjudicateOptions) *AdjudicatePage {
	newInput := func(prompt, placeholder string) textinput.Model {
		in := textinput.New()
		in.Prompt = prompt
		in.Placeholder = placeholder
		in.PromptStyle = c.Styles.Form.FocusedLabel
		in.PlaceholderStyle = c.Styles.Muted
		in.Cursor.SetMode(cursor.CursorStatic)
		return in
	}
	ed := textarea.New()
	ed.ShowLineNumbers = false
	ed.Prompt = "│ "
	ed.CharLimit = 0
	ed.Cursor.SetMode(cursor.CursorStatic)
	newView := func() viewport.Model {
		vp := viewport.New(0, 0)
		vp.KeyMap = viewport.KeyMap{} // the page owns the keys
		vp.MouseWheelEnabled = true
		return vp
	}
	return &AdjudicatePage{
		c: c, opts: opts, kind: opts.Kind,
		req:     adjRequest{st: c.API, lead: opts.Lead},
		reason:  newInput("Reason: ", "why, in a few words (required)"),
		note:    newInput("Note: ", ""),
		editor:  ed,
		context: newView(),
		labels:  newView(),
	}
}

// Init loads the queue.
func (p *AdjudicatePage) Init() tea.Cmd { return p.reload("", 0) }

func (p *AdjudicatePage) filter() app.DisputeFilter {
	return app.DisputeFilter{Batch: p.opts.Batch, Kind: p.kind}
}

// reload reloads the queue, showing wantID if still queued, else the item
// now at wantPos.
func (p *AdjudicatePage) reload(wantID string, wantPos int) tea.Cmd {
	p.seq++
	p.loading = true
	return p.req.queueCmd(p.seq, p.filter(), wantID, wantPos)
}

// current is the queue entry shown (ok false when the queue is empty).
func (p *AdjudicatePage) current() (app.Dispute, bool) {
	if p.pos < 0 || p.pos >= len(p.queue) {
		return app.Dispute{}, false
	}
	return p.queue[p.pos], true
}

// Update handles load and write results, then keys; other messages go to
// the open text field.
func (p *AdjudicatePage) Update(msg tea.Msg) (Page, tea.Cmd) {
	switch msg := msg.(type) {
	case adjQueueMsg:
		if msg.seq != p.seq {
			return p, nil // a newer load is under way
		}
		p.onQueue(msg)
		return p, ReportErr(msg.err)
	case adjDetailMsg:
		if msg.seq != p.seq {
			return p, nil
		}
		p.loading = false
		if msg.err != nil {
			p.loadErr = msg.err.Error()
			return p, ReportErr(msg.err)
		}
		p.show(msg.detail)
		return p, nil
	case adjDoneMsg:
		return p, p.onDone(msg)
	case tea.MouseMsg:
		var cmd tea.Cmd
		p.context, cmd = p.context.Update(msg)
		return p, cmd
	case tea.KeyMsg:
		return p, p.handleKey(msg)
	}
	return p, p.updateField(msg)
}

func (p *AdjudicatePage) onQueue(msg adjQueueMsg) {
	p.loading = false
	if msg.err != nil {
		p.loadErr = msg.err.Error()
		return
	}
	p.queue, p.counts, p.pos = msg.queue, msg.counts, msg.pos
	p.loaded = false
	p.closeForm()
	if len(p.queue) > 0 {
		p.show(msg.detail)
	}
}

// show puts an item's detail on screen and closes any open form.
func (p *AdjudicatePage) show(d adjDetail) {
	p.detail, p.loaded, p.loadErr = d, true, ""
	p.closeForm()
	p.setContext()
	p.context.GotoBottom()
	p.setLabels()
	p.labels.GotoTop()
	p.layout()
}

// setContext renders the conversation and the item's notes at the pane's
// width.
func (p *AdjudicatePage) setContext() {
	view := renderItemContext(&p.c.Styles, p.detail.item, p.context.Width)
	if notes := renderNotes(&p.c.Styles, p.detail.notes, p.context.Width); notes != "" {
		view += "\n" + notes
	}
	p.context.SetContent(view)
}

// setLabels renders the labels at the pane's width.
func (p *AdjudicatePage) setLabels() {
	var view string
	view, p.starts = renderLabels(&p.c.Styles, p.detail.labels, p.labels.Width)
	p.labels.SetContent(view)
}

// scrollToLabel brings the label of reviewer into view.
func (p *AdjudicatePage) scrollToLabel(reviewer string) {
	for i, l := range p.detail.labels {
		if l.Reviewer == reviewer && i < len(p.starts) {
			p.labels.SetYOffset(p.starts[i])
		}
	}
}

func (p *AdjudicatePage) onDone(msg adjDoneMsg) tea.Cmd {
	p.busy = false
	if msg.err != nil {
		// The queue may have changed under us (another lead): reload it,
		// staying on this item if it is still disputed.
		return tea.Batch(ReportErr(msg.err), p.reload(msg.itemID, p.pos))
	}
	if !msg.resolved {
		// A guide proposal: the item stays; show it with the new note.
		p.closeForm()
		p.seq++
		p.loading = true
		return tea.Batch(ReportStatus(msg.text), p.req.detailCmd(p.seq, msg.itemID))
	}
	if msg.sentBack {
		p.sentBack++
	} else {
		p.decided++
	}
	return tea.Batch(ReportStatus(msg.text), p.reload("", p.pos))
}

// moveTo shows the queue entry at pos.
func (p *AdjudicatePage) moveTo(pos int) tea.Cmd {
	if pos < 0 || pos >= len(p.queue) || pos == p.pos {
		return nil
	}
	p.pos = pos
	p.seq++
	p.loading, p.loaded, p.loadErr = true, false, ""
	return p.req.detailCmd(p.seq, p.queue[pos].Item)
}

// handleKey handles a key and lays the page out again: a form may have
// opened, closed or grown a problem line.
func (p *AdjudicatePage) handleKey(msg tea.KeyMsg) tea.Cmd {
	cmd := p.routeKey(msg)
	p.layout()
	return cmd
}

func (p *AdjudicatePage) routeKey(msg tea.KeyMsg) tea.Cmd {
	g := &p.c.Keys.Global
	switch {
	case key.Matches(msg, g.ScrollUp):
		p.context.PageUp()
		return nil
	case key.Matches(msg, g.ScrollDown):
		p.context.PageDown()
		return nil
	}
	switch p.mode {
	case adjChoose:
		return p.handleChooseKey(msg)
	case adjEdit:
		return p.handleEditKey(msg)
	case adjRules:
		return p.handleRulesKey(msg)
	case adjReason:
		return p.handleReasonKey(msg)
	case adjNote:
		return p.handleNoteKey(msg)
	}
	return p.handleBrowseKey(msg)
}

func (p *AdjudicatePage) handleBrowseKey(msg tea.KeyMsg) tea.Cmd {
	k := &p.c.Keys.Adjudicate
	switch {
	case key.Matches(msg, k.Kind):
		p.kind = disputeKinds[(indexOf(disputeKinds, p.kind)+1)%len(disputeKinds)]
		return p.reload("", 0)
	case key.Matches(msg, k.LabelsUp):
		p.labels.ScrollUp(1)
		return nil
	case key.Matches(msg, k.LabelsDn):
		p.labels.ScrollDown(1)
		return nil
	case key.Matches(msg, k.Next):
		return p.moveTo(p.pos + 1)
	case key.Matches(msg, k.Prev):
		return p.moveTo(p.pos - 1)
	case p.opts.Dashboard && key.Matches(msg, k.Dashboard):
		return SwitchPage(PageDashboard, nil)
	}
	if !p.ready() {
		return nil
	}
	switch {
	case key.Matches(msg, k.Pick):
		n := int(msg.Runes[0] - '0')
		if n < 1 || n > len(p.detail.labels) {
			return ReportErr(fmt.Errorf("there is no label %d on this item (1–%d)", n, len(p.detail.labels)))
		}
		p.decision = adjDecision{pick: p.detail.labels[n-1].Reviewer}
		return p.openReason()
	case key.Matches(msg, k.Accept):
		if !p.heldForReview() {
			return ReportErr(errors.New("the labels of this item disagree: pick, merge or mark both acceptable"))
		}
		p.decision = adjDecision{accept: true}
		return p.openReason()
	case key.Matches(msg, k.Edit):
		p.openChoose(choiceEdit)
	case key.Matches(msg, k.Both):
		p.openChoose(choiceBothPrimary)
	case key.Matches(msg, k.Rules):
		p.openChoose(choiceRules)
	case key.Matches(msg, k.SendBack):
		return p.openNote(noteSendBack)
	case key.Matches(msg, k.GuideNote):
		return p.openNote(noteGuide)
	}
	return nil
}

// heldForReview reports whether the item shown has agreeing labels and
// waits only for a lead's acceptance (the project reviews agreed items).
func (p *AdjudicatePage) heldForReview() bool {
	d, ok := p.current()
	return ok && len(d.Kinds) == 1 && d.Kinds[0] == review.KindReview
}

// ready reports whether an item is shown and nothing is in flight.
func (p *AdjudicatePage) ready() bool {
	return p.loaded && !p.busy && !p.loading
}

// updateField passes non-key messages (cursor) to the open text field.
func (p *AdjudicatePage) updateField(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch p.mode {
	case adjReason:
		p.reason, cmd = p.reason.Update(msg)
	case adjNote:
		p.note, cmd = p.note.Update(msg)
	case adjEdit:
		p.editor, cmd = p.editor.Update(msg)
	}
	return cmd
}

// closeForm returns to browsing.
func (p *AdjudicatePage) closeForm() {
	p.mode, p.problem, p.problems = adjBrowse, "", nil
	p.reason.Blur()
	p.note.Blur()
	p.editor.Blur()
	p.layout()
}

// Typing reports whether a text field has focus.
func (p *AdjudicatePage) Typing() bool {
	return p.mode == adjReason || p.mode == adjNote || p.mode == adjEdit
}

// Flush has nothing to save (decisions are committed when made); it says
// what the session did, as the label screen does: "2 adjudicated, 1 sent
// back, 5 disputes left in b1".
func (p *AdjudicatePage) Flush() tea.Cmd {
	req, decided, sentBack, batch := p.req, p.decided, p.sentBack, p.opts.Batch
	return func() tea.Msg { return FlushReportMsg{Notice: req.quitSummary(batch, decided, sentBack)} }
}

// labelNames lists the labels as "1 alice · 2 bob".
func (p *AdjudicatePage) labelNames(except string) string {
	var parts []string
	for i, l := range p.detail.labels {
		if l.Reviewer != except {
			parts = append(parts, fmt.Sprintf("%d %s", i+1, l.Reviewer))
		}
	}
	return strings.Join(parts, " · ")
}
