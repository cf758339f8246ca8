package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/store"
)

// Recovery files keep a reviewer's unsaved drafts that the database
// refused as the label screen quit (a lock held too long, a full disk, the
// server restarting): one JSON file per reviewer at a recovery base
// (RecoveryBase: beside a SQLite database; for a PostgreSQL one, in the
// cache directory of the host that ran the screen). They go back into the
// database's drafts as soon as it takes writes again: the reviewer's next
// label screen there restores its own file, and every goldtrace serve
// restores every file it holds when it starts and every few seconds
// (KeepRestoringRecoveries), so a reviewer who reconnects to another
// replica finds the draft there. A restore never overwrites newer work
// (store.RestoreDrafts) and is all or nothing per file.

// RecoveryPath is reviewer's recovery file at base. The name is
// path-escaped, which is one-to-one: two reviewers ("a/b", "a_b") never
// share a file.
func RecoveryPath(base, reviewer string) string {
	return base + recoveryInfix + url.PathEscape(reviewer) + ".json"
}

const recoveryInfix = ".recovery-"

// RecoveryFile is a recovery file: one reviewer's drafts.
type RecoveryFile struct {
	Reviewer string          `json:"reviewer"`
	Drafts   []RecoveryDraft `json:"drafts"`
}

// RecoveryDraft is one item's draft in a recovery file: the label screen's
// own JSON, the seconds spent, and when it was typed.
type RecoveryDraft struct {
	Item    string          `json:"item"`
	Body    json.RawMessage `json:"body"`
	Seconds int             `json:"seconds"`
	SavedAt time.Time       `json:"saved_at"`
}

// ReadRecovery reads the recovery file at path.
func ReadRecovery(path string) (RecoveryFile, error) {
	var f RecoveryFile
	b, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("recovery file %s is unreadable: %w", path, err)
	}
	for _, d := range f.Drafts {
		if d.Item == "" || !json.Valid(d.Body) {
			return f, fmt.Errorf("recovery file %s is unreadable: a draft without an item or a body", path)
		}
	}
	return f, nil
}

// KeepRecoveryDraft adds (or replaces) one item's draft in reviewer's
// recovery file at path, durably: a temp file beside it, synced, renamed
// over it, under the recovery lock (a restore taking drafts out of the
// file, another screen quitting, in any process on this host).
func KeepRecoveryDraft(path, reviewer string, d RecoveryDraft) error {
	return withRecoveryLock(path, func() error {
		f, err := ReadRecovery(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err == nil && f.Reviewer != reviewer {
			return fmt.Errorf("recovery file %s holds %q's drafts, not %q's", path, f.Reviewer, reviewer)
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
	})
}

// replaceRecovery writes f at path (removes it when f has no draft).
func replaceRecovery(path string, f RecoveryFile) error {
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

// RecoveryRestore is what restoring one recovery file did: drafts put back
// into the database, and drafts dropped because newer work is there (a
// later draft, a submitted label) or the item is no longer the
// reviewer's.
type RecoveryRestore struct {
	File     string `json:"file"`
	Reviewer string `json:"reviewer"`
	Restored int    `json:"restored"`
	Dropped  int    `json:"dropped"`
}

// RestoreRecovery puts the actor's own recovery file at path back into
// the database (a label screen's start). A file that holds another
// reviewer's drafts is left as it is, and an error.
func (s *Session) RestoreRecovery(ctx context.Context, path string) (_ RecoveryRestore, err error) {
	defer s.shown(&err)
	actor, err := s.app.authorize(ctx, s.actor, ActLabelSubmit, "")
	if err != nil {
		return RecoveryRestore{File: path}, err
	}
	return s.app.restoreRecovery(ctx, path, actor.Name)
}

// restoreRecovery restores reviewer's recovery file at path: its drafts
// in one transaction, then those it restored (or dropped) taken out of
// the file (a draft written to it meanwhile stays), which is removed once
// empty. On failure the file is left as it was, to be tried again.
func (a *App) restoreRecovery(ctx context.Context, path, reviewer string) (RecoveryRestore, error) {
	res := RecoveryRestore{File: path, Reviewer: reviewer}
	var f RecoveryFile
	err := withRecoveryLock(path, func() (err error) {
		f, err = ReadRecovery(path)
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	if f.Reviewer != reviewer {
		// Not this reviewer's work: never saved under their name.
		return res, fmt.Errorf("the file holds %q's drafts, not %q's: left as it is", f.Reviewer, reviewer)
	}
	drafts := make([]store.RestoredDraft, len(f.Drafts))
	for i, d := range f.Drafts {
		body := d.Body
		if b, err := compactJSON(d.Body); err == nil {
			body = b
		}
		drafts[i] = store.RestoredDraft{Item: d.Item, Body: body, Seconds: d.Seconds, SavedAt: d.SavedAt}
	}
	if res.Restored, res.Dropped, err = a.st.RestoreDrafts(ctx, reviewer, drafts); err != nil {
		return res, err
	}
	return res, withRecoveryLock(path, func() error {
		cur, err := ReadRecovery(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		kept := cur.Drafts[:0]
		for _, x := range cur.Drafts {
			done := false
			for _, d := range f.Drafts {
				done = done || (d.Item == x.Item && d.SavedAt.Equal(x.SavedAt))
			}
			if !done {
				kept = append(kept, x)
			}
		}
		cur.Drafts = kept
		return replaceRecovery(path, cur)
	})
}

func compactJSON(b []byte) ([]byte, error) {
	var out bytes.Buffer
	err := json.Compact(&out, b)
	return out.Bytes(), err
}

// RestoreRecoveries restores every reviewer's recovery file at base (what
// a serve replica holds), each all or nothing; a file whose reviewer is
// not the one its name says is left as it is. It returns what it did with
// each file that had drafts, and an error per file it could not restore.
func (a *App) RestoreRecoveries(ctx context.Context, base string) ([]RecoveryRestore, map[string]error) {
	entries, err := os.ReadDir(filepath.Dir(base))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, map[string]error{filepath.Dir(base): err}
	}
	prefix := filepath.Base(base) + recoveryInfix
	var done []RecoveryRestore
	failed := map[string]error{}
	for _, e := range entries {
		escaped, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || e.IsDir() {
			continue
		}
		escaped, ok = strings.CutSuffix(escaped, ".json")
		reviewer, err := url.PathUnescape(escaped)
		if !ok || err != nil || RecoveryPath(base, reviewer) != filepath.Join(filepath.Dir(base), e.Name()) {
			continue // not a name RecoveryPath gives
		}
		path := RecoveryPath(base, reviewer)
		res, err := a.restoreRecovery(ctx, path, reviewer)
		if err != nil {
			failed[path] = err
			continue
		}
		if res.Restored+res.Dropped > 0 {
			done = append(done, res)
		}
	}
	return done, failed
}

// RecoveryRestoreEvery is how often a serve replica looks for recovery
// files to restore.
const RecoveryRestoreEvery = 2 * time.Second

// KeepRestoringRecoveries restores the recovery files at base (a serve
// replica's) now and every `every` until ctx ends, so a draft a screen
// kept there reaches the database, and every replica, as soon as the
// database takes writes again. say is told of each file restored, and of
// each file that fails for a new reason (it is tried again each time).
func (a *App) KeepRestoringRecoveries(ctx context.Context, base string, every time.Duration, say func(string)) {
	told := map[string]string{} // the error said of each failing file
	for {
		done, failed := a.RestoreRecoveries(ctx, base)
		for _, r := range done {
			say(fmt.Sprintf("restored %d unsaved draft(s) of %s from %s (%d no longer needed: the database holds newer work)", r.Restored, r.Reviewer, r.File, r.Dropped))
		}
		still := map[string]string{}
		for path, err := range failed {
			if ctx.Err() != nil {
				return
			}
			if told[path] != err.Error() {
				say(fmt.Sprintf("unsaved drafts in %s not restored yet (%v): tried again every %s", path, err, every))
			}
			still[path] = err.Error()
		}
		told = still
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}
