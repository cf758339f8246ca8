package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/goldtrace/goldtrace/app"
)

// The recovery file keeps a reviewer's unsaved draft when the database
// would not take it as the label screen quit (a lock held too long, a full
// disk, a read-only file): one JSON file beside the database per reviewer,
// restored into the database the next time that reviewer opens the screen.

// RecoveryPath is where the label screen keeps reviewer's unsaved drafts
// for the database at dbPath. The name is path-escaped, which is one-to-one:
// two reviewers ("a/b", "a_b") never share a file.
func RecoveryPath(dbPath, reviewer string) string {
	return dbPath + ".recovery-" + url.PathEscape(reviewer) + ".json"
}

type recoveryFile struct {
	Reviewer string           `json:"reviewer"`
	Drafts   []recoveredDraft `json:"drafts"`
}

type recoveredDraft struct {
	Item    string    `json:"item"`
	Body    draftBody `json:"body"`
	Seconds int       `json:"seconds"`
	SavedAt time.Time `json:"saved_at"`
}

func readRecovery(path string) (recoveryFile, error) {
	var f recoveryFile
	b, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("recovery file %s is unreadable: %w", path, err)
	}
	return f, nil
}

// writeRecovery adds (or replaces) one item's draft in the recovery file,
// durably: a temp file beside it, synced, renamed over it.
func writeRecovery(path, reviewer string, d recoveredDraft) error {
	f, err := readRecovery(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f.Reviewer = reviewer
	kept := f.Drafts[:0]
	for _, x := range f.Drafts {
		if x.Item != d.Item {
			kept = append(kept, x)
		}
	}
	f.Drafts = append(kept, d)
	return replaceRecovery(path, f)
}

func replaceRecovery(path string, f recoveryFile) error {
	if len(f.Drafts) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// recoveryRestoredMsg answers restoreCmd.
type recoveryRestoredMsg struct {
	Restored, Dropped int
	Err               error
}

// restoreCmd saves the recovery file's drafts into the database: each one
// saved (or no longer wanted: its item was submitted or skipped since) leaves
// the file, which is removed once empty; the rest stay for the next start.
func (r labelRequest) restoreCmd() tea.Cmd {
	if r.recovery == "" {
		return nil
	}
	return r.write(func() tea.Msg {
		f, err := readRecovery(r.recovery)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return recoveryRestoredMsg{Err: err}
		}
		if f.Reviewer != r.reviewer {
			// Not this reviewer's work: never saved under their name.
			return recoveryRestoredMsg{Err: fmt.Errorf("%s holds %q's drafts, not %q's: left as it is", r.recovery, f.Reviewer, r.reviewer)}
		}
		var msg recoveryRestoredMsg
		var left []recoveredDraft
		for _, d := range f.Drafts {
			err := r.saveDraft(d.Item, d.Body, d.Seconds)
			switch {
			case err == nil:
				msg.Restored++
			case errors.Is(err, app.ErrConflict), errors.Is(err, app.ErrNotFound):
				msg.Dropped++
			default:
				left = append(left, d)
				msg.Err = err
			}
		}
		f.Drafts = left
		if err := replaceRecovery(r.recovery, f); err != nil && msg.Err == nil {
			msg.Err = err
		}
		return msg
	})
}

func (p *LabelPage) onRestored(msg recoveryRestoredMsg) tea.Cmd {
	if msg.Err != nil {
		return ReportErr(fmt.Errorf("unsaved drafts in %s not restored yet (%w): they stay there and are tried again next start", p.req.recovery, msg.Err))
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
	rd := recoveredDraft{Item: itemID, Body: d, Seconds: seconds, SavedAt: time.Now().UTC()}
	if rerr := writeRecovery(r.recovery, r.reviewer, rd); rerr != nil {
		body, _ := json.Marshal(d)
		return FlushReportMsg{Err: fmt.Errorf("draft of %s not saved (%v) nor written to %s (%v); here it is: %s", itemID, err, r.recovery, rerr, body)}
	}
	return FlushReportMsg{Notice: fmt.Sprintf("draft of %s could not be saved (%v): kept in %s, restored when you next run goldtrace label", itemID, err, r.recovery)}
}
