package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/trace"
)

// Everything in this file runs inside tea.Cmds: closures get copies of what
// they need and answer with a message tagged so stale answers are dropped.

// itemLoadedMsg answers a load: the item to label (or Empty), its draft
// and, when the queue is empty or the count came with the item (Counted),
// the reviewer's progress (otherwise progressMsg brings it after the item
// is drawn).
type itemLoadedMsg struct {
	seq          int
	Item         trace.Item
	Draft        draftBody
	DraftSeconds int
	Done, Total  int // only when Empty or Counted
	Counted      bool
	Guide        string
	Notes        []app.Note // the lead's send-back notes to this reviewer
	Empty        bool
	Returned     string // the skip reason of a skipped item back in the queue
	Err          error
}

// progressMsg answers a count of the reviewer's queue asked once the item
// of load seq was drawn: done (submitted or skipped) out of total.
type progressMsg struct {
	seq         int
	Done, Total int
	Err         error
}

// labelRequest is what the label page's commands need from the store.
// Writes in flight are counted so quitting can wait for them.
type labelRequest struct {
	st       LabelAPI
	reviewer string
	batch    string
	writes   *sync.WaitGroup
	recovery string   // the recovery file for drafts the database refused on quit ("" = none)
	served   bool     // the recovery file is a server's, which restores it (LabelOptions.RecoveryServed)
	skipped  []string // items skipped in this session: they come back next session
}

// write wraps a command that writes: counted from creation to completion.
func (r labelRequest) write(fn func() tea.Msg) tea.Cmd {
	r.writes.Add(1)
	return func() tea.Msg {
		defer r.writes.Done()
		return fn()
	}
}

// waitWrites waits (a bounded time) for writes in flight to finish.
func (r labelRequest) waitWrites(limit time.Duration) {
	done := make(chan struct{})
	go func() { r.writes.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
	}
}

// loadCmd loads itemID, or the next item in the queue when itemID is "".
func (r labelRequest) loadCmd(seq int, itemID string) tea.Cmd {
	return func() tea.Msg {
		msg, err := r.load(seq, itemID)
		if err != nil {
			return itemLoadedMsg{seq: seq, Err: err}
		}
		return msg
	}
}

func (r labelRequest) load(seq int, itemID string) (itemLoadedMsg, error) {
	msg := itemLoadedMsg{seq: seq}
	w, err := r.st.LabelWork(context.Background(), r.reviewer, r.batch, itemID, r.skipped)
	if err != nil {
		return msg, err
	}
	if w.Empty {
		msg.Empty = true
		msg.Done, msg.Total = doneOf(w.Progress)
		return msg, nil
	}
	msg.Item, msg.Returned, msg.Notes, msg.Guide = w.Item, w.Returned, w.Notes, w.Guide.ID
	if w.Progress != nil {
		msg.Done, msg.Total = doneOf(w.Progress)
		msg.Counted = true
	}
	if w.Draft != nil {
		if jerr := json.Unmarshal(w.Draft, &msg.Draft); jerr != nil {
			return msg, fmt.Errorf("draft of %s is unreadable: %w", w.Item.ID, jerr)
		}
		msg.DraftSeconds = w.DraftSeconds
	}
	return msg, nil
}

// progressCmd counts the reviewer's queue for load seq. It is asked once
// the item is loaded, so a skipped item brought back (pending again) is
// counted open.
func (r labelRequest) progressCmd(seq int) tea.Cmd {
	return func() tea.Msg {
		prog, err := r.st.Progress(context.Background(), r.reviewer, r.batch)
		if err != nil {
			return progressMsg{seq: seq, Err: fmt.Errorf("count your queue: %w", err)}
		}
		msg := progressMsg{seq: seq}
		msg.Done, msg.Total = doneOf(prog)
		return msg
	}
}

// doneOf is how many of the assignments counted by status are done
// (submitted or skipped), and how many there are.
func doneOf(prog map[string]int) (done, total int) {
	for status, n := range prog {
		total += n
		if status == app.AssignSubmitted || status == app.AssignSkipped {
			done += n
		}
	}
	return done, total
}

// draftSavedMsg answers an autosave.
type draftSavedMsg struct {
	ItemID string
	Err    error
}

func (r labelRequest) saveDraft(itemID string, d draftBody, seconds int) error {
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if err := r.st.SaveDraft(context.Background(), itemID, r.reviewer, body, seconds); err != nil {
		return itemError{"save draft of", itemID, err}
	}
	return nil
}

func (r labelRequest) saveDraftCmd(itemID string, d draftBody, seconds int) tea.Cmd {
	return r.write(func() tea.Msg { return draftSavedMsg{ItemID: itemID, Err: r.saveDraft(itemID, d, seconds)} })
}

// itemError is a write of an item that failed: "submit it_…: why".
type itemError struct {
	what, item string
	err        error
}

func (e itemError) Error() string { return e.what + " " + e.item + ": " + e.err.Error() }
func (e itemError) Unwrap() error { return e.err }

// whyOf is why a write of the item on screen failed, without the item's
// id before it: the status line is one line, cut at the screen's width,
// and the reason is what the reviewer needs to read there.
func whyOf(err error) error {
	if e, ok := err.(itemError); ok {
		return e.err
	}
	return err
}

// submittedMsg answers a submit or a skip.
type submittedMsg struct {
	ItemID  string
	Skipped bool
	Err     error
}

func (r labelRequest) submitCmd(l review.Label) tea.Cmd {
	return r.write(func() tea.Msg {
		err := r.st.SubmitLabel(context.Background(), l)
		if err != nil {
			err = itemError{"submit", l.Item, err}
		}
		return submittedMsg{ItemID: l.Item, Err: err}
	})
}

func (r labelRequest) skipCmd(itemID, reason string) tea.Cmd {
	return r.write(func() tea.Msg {
		err := r.st.SkipItem(context.Background(), itemID, r.reviewer, reason)
		if err != nil {
			err = itemError{"skip", itemID, err}
		}
		return submittedMsg{ItemID: itemID, Skipped: true, Err: err}
	})
}

// reopenedMsg answers a reopen: the item to show next, or why not.
type reopenedMsg struct {
	ItemID string
	Err    error
}

// reopenCmd saves the current draft (if any), then takes back the
// reviewer's most recent submitted label.
func (r labelRequest) reopenCmd(current string, d *draftBody, seconds int) tea.Cmd {
	return r.write(func() tea.Msg {
		if d != nil {
			if err := r.saveDraft(current, *d, seconds); err != nil {
				return reopenedMsg{Err: err}
			}
		}
		ctx := context.Background()
		id, err := r.st.LastSubmitted(ctx, r.reviewer, r.batch)
		if errors.Is(err, app.ErrNotFound) {
			return reopenedMsg{Err: errors.New("nothing to reopen: you have not submitted a label yet")}
		} else if err != nil {
			return reopenedMsg{Err: err}
		}
		if _, err := r.st.Reopen(ctx, id, r.reviewer, labelToDraft); err != nil {
			return reopenedMsg{Err: fmt.Errorf("reopen %s: %w", id, err)}
		}
		return reopenedMsg{ItemID: id}
	})
}

// autosaveMsg fires after an edit; the page saves if still dirty.
type autosaveMsg struct{ ItemID string }

// autosaveDelay bounds how much typing a crash can lose.
const autosaveDelay = 800 * time.Millisecond

// clockTickMsg refreshes the time-on-item display.
type clockTickMsg struct{}
