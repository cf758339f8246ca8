package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/goldtrace/goldtrace/app"
)

// The recovery file (app.RecoveryPath) keeps a reviewer's unsaved draft
// when the database would not take it as the label screen quit (a lock
// held too long, a full disk, a read-only file, the server restarting);
// the screen restores it the next time that reviewer opens it, and a
// serve replica restores the files it holds on its own
// (app.KeepRestoringRecoveries).

// recoveryRestoredMsg answers restoreCmd.
type recoveryRestoredMsg struct {
	Restored, Dropped int
	Err               error
}

// restoreCmd puts the reviewer's recovery file back into the database
// (app: all or nothing, never over newer work); what it could not restore
// stays in the file for the next start.
func (r labelRequest) restoreCmd() tea.Cmd {
	if r.recovery == "" {
		return nil
	}
	return r.write(func() tea.Msg {
		res, err := r.st.RestoreRecovery(context.Background(), r.recovery)
		return recoveryRestoredMsg{Restored: res.Restored, Dropped: res.Dropped, Err: err}
	})
}

func (p *LabelPage) onRestored(msg recoveryRestoredMsg) tea.Cmd {
	if msg.Err != nil {
		where := "in " + p.req.recovery
		if p.req.served {
			where = "the server keeps for you" // its files are not the reviewer's to see
		}
		return ReportErr(fmt.Errorf("unsaved drafts %s not restored yet (%w): they stay there and are tried again", where, msg.Err))
	}
	if msg.Restored == 0 {
		return nil
	}
	return ReportStatus(fmt.Sprintf("restored %d unsaved draft(s) from the last session", msg.Restored))
}

// FlushReportMsg is what a page's Flush did with unsaved work it could not
// store normally: Notice when the work is kept elsewhere (a recovery file),
// Err when it could not be kept. The router keeps them for after the
// program ends (the screen is gone by then).
type FlushReportMsg struct {
	Notice string
	Err    error
}

// saveDraftWithin saves a draft, retrying failures that pass (a busy lock,
// a full disk) until limit; an attempt still blocked at the limit is left to
// finish on its own.
func (r labelRequest) saveDraftWithin(itemID string, d draftBody, seconds int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		done := make(chan error, 1)
		go func() { done <- r.saveDraft(itemID, d, seconds) }()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Until(deadline)):
			return fmt.Errorf("save draft of %s: %w: the database did not answer within %s", itemID, app.ErrBusy, limit)
		}
		if err == nil || !retryable(err) || time.Now().Add(retryDelay).After(deadline) {
			return err
		}
		time.Sleep(retryDelay)
	}
}

// retryable: the write may succeed later without anyone doing anything.
func retryable(err error) bool {
	return errors.Is(err, app.ErrBusy) || errors.Is(err, app.ErrDiskFull) || errors.Is(err, app.ErrUnavailable)
}

// retryDelay is the pause before a failed submit or draft save is retried.
const retryDelay = 2 * time.Second

// flushSaveLimit bounds how long quitting tries to store a draft before it
// writes the recovery file.
const flushSaveLimit = 4 * time.Second

// flushDraft stores a draft on quit: in the database if it will take it
// within flushSaveLimit, else in the recovery file.
func (r labelRequest) flushDraft(itemID string, d draftBody, seconds int) tea.Msg {
	err := r.saveDraftWithin(itemID, d, seconds, flushSaveLimit)
	if err == nil || errors.Is(err, app.ErrConflict) {
		// Conflict: a submit in flight landed; the label is stored.
		return nil
	}
	if r.recovery == "" {
		return FlushReportMsg{Err: fmt.Errorf("unsaved draft of %s lost: %w", itemID, err)}
	}
	body, merr := json.Marshal(d)
	if merr != nil {
		return FlushReportMsg{Err: fmt.Errorf("unsaved draft of %s lost: %w", itemID, merr)}
	}
	rd := app.RecoveryDraft{Item: itemID, Body: body, Seconds: seconds, SavedAt: time.Now().UTC()}
	if rerr := app.KeepRecoveryDraft(r.recovery, r.reviewer, rd); rerr != nil && r.served {
		return FlushReportMsg{Err: fmt.Errorf("draft of %s not saved (%v) nor kept on the server; here it is: %s", itemID, err, body)}
	} else if rerr != nil {
		return FlushReportMsg{Err: fmt.Errorf("draft of %s not saved (%v) nor written to %s (%v); here it is: %s", itemID, err, r.recovery, rerr, body)}
	}
	if r.served {
		return FlushReportMsg{Notice: fmt.Sprintf("your draft of %s could not be saved: the server keeps it and puts it back as soon as the database takes it again", itemID)}
	}
	return FlushReportMsg{Notice: fmt.Sprintf("draft of %s could not be saved (%v): kept in %s, restored when you next run goldtrace label (or by goldtrace serve on this machine)", itemID, err, r.recovery)}
}
