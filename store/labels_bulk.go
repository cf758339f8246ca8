package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
	"github.com/goldtrace/goldtrace/review"
)

// SubmitLabels records many labels, each exactly as SubmitLabel would (items
// settle as their last label arrives), all or nothing, without holding the
// write lock for long: every label is first checked against the database
// with no lock held (a label that cannot be submitted fails the whole call
// before anything is written, as a *LabelError naming its index), then the
// labels are written in short transactions (bulkPace). If a transaction
// fails (a reviewer submitted the same assignment meanwhile, the disk is
// full, the context is cancelled), the labels the earlier ones wrote are
// taken back (undoLabel), and the error is returned.
//
// Taking back removes only what this call wrote: its labels, and the
// assignments and drafts its submits changed, put back as they were; the
// item's state is then recomputed from the labels that remain, as Reopen
// does. What other connections wrote between the chunks (other reviewers'
// submits, drafts) stays. An item a lead acted on meanwhile (adjudicated,
// accepted, rules changed, exported) is left alone with the imported label
// in it: the error then names those items (a *KeptLabelsError in its chain).
//
// Trade-offs: other connections see the labels arrive chunk by chunk, and
// may see them vanish if the import then fails; a process killed while
// writing leaves the labels written so far (each one complete), and
// importing the file again submits the rest (the ones stored are refused as
// already submitted: import with --skip-invalid).
func (s *Store) SubmitLabels(ctx context.Context, labels []review.Label) ([]Settlement, error) {
	if err := s.checkSubmittable(ctx, labels); err != nil {
		return nil, err
	}
	return s.submitLabels(ctx, labels, labelsPace)
}

// labelsPace is SubmitLabels' pace: import's (a transaction holds the lock
// 200 ms at most, its commit included; see defaultPace), not the 80 ms of
// work other bulk writers do before a commit: every commit writes again the
// index pages its chunk changed (a labels import touches pages all over
// the items' and labels' indexes), so fewer, fuller chunks write less.
//
// While no other writer waits, a transaction goes on for up to
// labelsStretch (and while the log has room): a 50k-label import alone on
// the database then commits a few times instead of thirty-five, and
// writes the pages of the items' indexes a few times instead of at every
// commit (145 MB written instead of 820 MB).
var labelsPace = bulkPace{Pace: bulk.Pace{ChunkTime: defaultPace().chunkTime, Yield: defaultPace().yield}, stretch: labelsStretch}

// labelsStretch is how long one of SubmitLabels' transactions may go on
// while no other writer waits: long enough for most imports to commit a
// few times, short enough for another bulk writer (which does not say it
// waits) to get in well within its busy timeout.
const labelsStretch = 3 * time.Second

// labelTables are the tables checking and writing labels reads by lists
// of keys (Analyze).
var labelTables = []string{"items", "traces", "assignments", "labels", "gold", "disputes", "drafts"}

// labelsCacheMiB is the page cache SubmitLabels writes with: 8 MiB (not
// import's 32) keeps a 50k-label import within 150 MB, for about the same
// time (measured: 3.7 s of CPU either way, a little more read from the
// file).
const labelsCacheMiB = 8

func (s *Store) submitLabels(ctx context.Context, labels []review.Label, pace bulkPace) ([]Settlement, error) {
	return s.submitFed(ctx, allLabels(labels), pace)
}

// submitFed is submitLabels for the labels feed receives, in the order
// received; the Settlements are in that order. On PostgreSQL the labels
// are first all received (its writers split them by item), then written.
func (s *Store) submitFed(ctx context.Context, feed *labelFeed, pace bulkPace) ([]Settlement, error) {
	// The import's audit entry commits with its last labels.
	pace.auditLast = true
	if s.onPostgres() {
		labels, err := feed.all(ctx)
		if err != nil {
			return nil, err
		}
		return s.submitLabelsPostgres(ctx, labels, pace)
	}
	out, undo, err := s.writeLabels(ctx, feed, pace)
	if err != nil {
		return nil, s.takeBack(ctx, err, undo, pace)
	}
	return out, nil
}

// takeBack undoes what a failed SubmitLabels wrote (undo) and returns its
// error err, with what could not be taken back.
func (s *Store) takeBack(ctx context.Context, err error, undo []labelUndo, pace bulkPace) error {
	pace.auditLast = false // nothing was done: no entry
	kept, uerr := s.undoLabels(context.WithoutCancel(ctx), undo, pace)
	if uerr != nil {
		return &LabelsUndoError{Err: err, Written: len(undo), Undo: uerr}
	}
	if len(kept) > 0 {
		return &KeptLabelsError{Err: err, Items: kept}
	}
	return err
}

// writeLabels is SubmitLabels' writes of the labels feed receives, without
// taking them back on failure: the labels' settlements (none on failure),
// how to take back what was written (the chunks committed), and the error.
func (s *Store) writeLabels(ctx context.Context, feed *labelFeed, pace bulkPace) ([]Settlement, []labelUndo, error) {
	// One entry a label written: sized once when the labels are given at
	// once, not grown (and copied) by doubling as the chunks append.
	out := make([]Settlement, 0, feed.known())
	undo := make([]labelUndo, 0, feed.known())
	// The log is checkpointed between chunks once it has grown past
	// checkpointLog, and once at the end, not every thousand pages: an
	// item's pages, written again by every chunk, are copied back once.
	s.db.Analyze(ctx, labelTables...)
	restore := s.db.BulkTuning(ctx, labelsCacheMiB)
	defer func() {
		restore()
		s.checkpoint(context.WithoutCancel(ctx))
	}()
	pace.Between = func() {
		if s.logSize() >= checkpointLog {
			s.checkpoint(ctx)
		}
	}
	// A chunk's deadline includes its commit, predicted from the ones
	// before (up fast, down slowly), as import's chunkPacer does; a group
	// starts only when one more of the last group's length fits.
	commit := pace.ChunkTime / 4
	held := pace.Held
	pace.Held = func(work, total time.Duration) {
		if c := total - work; c > commit {
			commit = c
		} else {
			commit = (7*commit + c) / 8
		}
		if held != nil {
			held(work, total)
		}
	}
	// Groups start at one label and double while a chunk has time left,
	// up to labelGroup, and halve when one took more than a quarter of the
	// chunk's time: a short chunk time still bounds the lock's hold.
	group := 1
	var took time.Duration // the last group's time
	err := s.inFedChunks(ctx, feed, pace, func(tx *Tx, from int, deadline time.Time) (int, error) {
		var chunkUndo []labelUndo
		done := 0
		ptx := s.prepared(tx)
		if ptx.sqlite {
			ptx.held = newHeldStatuses()
		}
		began, log := deadline.Add(-pace.ChunkTime), s.logSize()
		reserve := min(commit, pace.ChunkTime*3/4)
		budget := time.Until(deadline.Add(-reserve))
		for i := from; i < feed.ready(i+1) && (done == 0 || (pace.maxUnits == 0 || done < pace.maxUnits) && s.goOn(ctx, pace, began, log, time.Now().Add(took+reserve))); i = from + done {
			switch {
			case took > budget/4:
				group = max(group/2, 1)
			case done > 0:
				group = min(2*group, s.labelGroup())
			}
			end := min(i+group, feed.ready(i+group))
			out = growTo(out, end)
			began := time.Now()
			u, err := s.writeGroup(ctx, ptx, feed.labels(i, end), i, out[i:end])
			took = time.Since(began)
			var le *LabelError
			if err != nil && !errors.As(err, &le) {
				err = &LabelError{Index: i, Err: err} // the group's first label
			}
			if err != nil {
				return 0, err
			}
			chunkUndo = append(chunkUndo, u...)
			done += end - i
		}
		if ptx.held != nil {
			if err := ptx.held.write(ctx, ptx); err != nil {
				return 0, err
			}
		}
		undo = append(undo, chunkUndo...) // only once the chunk is written
		return done, nil
	})
	if err != nil {
		return nil, undo, err
	}
	return out, undo, nil
}

// KeptLabelsError is a failed SubmitLabels that could not take back all of
// its labels: Items (in the order written) were adjudicated, accepted or
// exported by a lead while the labels were being written, and keep the
// label this call gave them.
type KeptLabelsError struct {
	Err   error
	Items []string
}

func (e *KeptLabelsError) Error() string {
	return fmt.Sprintf("%v; %d label(s) kept because a lead acted on their items meanwhile: %s",
		e.Err, len(e.Items), strings.Join(e.Items, ", "))
}
func (e *KeptLabelsError) Unwrap() error { return e.Err }

// LabelsUndoError is a failed SubmitLabels whose labels already written
// could not all be taken back: Undo is why (the database went away), and
// some of the Written labels may remain.
type LabelsUndoError struct {
	Err     error
	Written int
	Undo    error
}

func (e *LabelsUndoError) Error() string {
	return fmt.Sprintf("%v (and undoing the %d labels already written failed: %v)", e.Err, e.Written, e.Undo)
}
func (e *LabelsUndoError) Unwrap() error { return e.Err }

// checkSubmittable is submitLabel's refusals, read without a lock for all
// the labels at once; the first label refused is a *LabelError.
func (s *Store) checkSubmittable(ctx context.Context, labels []review.Label) error {
	ids := make([]string, len(labels))
	for i, l := range labels {
		ids[i] = l.Item
	}
	targets, _, err := labelTargets(ctx, s.r, ids)
	if err != nil {
		return err
	}
	for i, l := range labels {
		if err := CheckSubmittable(targets[l.Item], l); err != nil {
			return &LabelError{Index: i, Err: err}
		}
	}
	return nil
}

// CheckSubmittable is why SubmitLabel would refuse l, given its item's
// LabelTarget: its reviewer is not assigned the item (ErrNotFound), has
// submitted it already, or the item is adjudicated (ErrConflict); nil when
// none of these.
func CheckSubmittable(t LabelTarget, l review.Label) error {
	st, ok := t.Assignments[l.Reviewer]
	switch {
	case !ok:
		return fmt.Errorf("%s is not assigned item %s: %w", l.Reviewer, l.Item, ErrNotFound)
	case st == AssignSubmitted:
		return fmt.Errorf("%s already submitted a label for %s: %w", l.Reviewer, l.Item, ErrConflict)
	case t.Status == review.GoldAdjudicated:
		return fmt.Errorf("item %s is already settled: %w", l.Item, ErrConflict)
	}
	return nil
}

// labelUndo is what taking back one written label needs: the label row as
// written (a label taken back and submitted again by someone else is not
// this call's any more), the assignment's status and the draft the submit
// replaced, the item's status before, and how far the item's adjudication
// and export history went when the label was written.
type labelUndo struct {
	item, reviewer string
	written        rowDigest // the labels row as inserted (labelRowDigest)
	assignStatus   string
	skipReason     string
	assignment     int64     // the assignment's rowid (SQLite; 0 elsewhere)
	draft          *savedRow // nil: none
	itemStatus     string
	adjudications  int64 // max adjudications.id of the item, 0: none
	exports        int   // dataset_items rows of the item
}

// leadActs are the columns that say how far a lead has acted on the item
// whose id is the SQL expression item: its last adjudication's id (0: none)
// and how many exported versions hold it. undoLabel compares them with the
// ones writeGroup saw.
func leadActs(item string) string {
	return `(SELECT coalesce(max(id), 0) FROM adjudications WHERE item_id = ` + item + `),
	(SELECT count(*) FROM dataset_items di JOIN datasets d ON d.name = di.name AND d.version = di.version
		WHERE di.item_id = ` + item + ` AND d.state = 'ready')`
}

// labelKey selects one (item, reviewer) row of labels, drafts or
// assignments.
const labelKey = "item_id = ? AND reviewer = ?"

// savedRow is one row as it was (found) or its absence.
type savedRow struct {
	found bool
	cols  []string
	vals  []any
}

// savedColumns are the columns of a SELECT * that a saved row keeps: all
// but PostgreSQL's rowid (an identity column standing for SQLite's hidden
// rowid, which a row put back gets anew, as on SQLite).
func savedColumns(all []string) []string {
	if len(all) > 0 && all[0] == "rowid" {
		return all[1:]
	}
	return all
}

// scanSaved reads the current row of a SELECT * whose columns are all, of
// which a saved row keeps cols (savedColumns).
func scanSaved(rows *sql.Rows, all, cols []string) (savedRow, error) {
	r := savedRow{found: true, cols: cols, vals: make([]any, len(cols))}
	ptrs := make([]any, len(all))
	skip := len(all) - len(cols)
	for i := range ptrs {
		if i < skip {
			ptrs[i] = new(any)
		} else {
			ptrs[i] = &r.vals[i-skip]
		}
	}
	return r, rows.Scan(ptrs...)
}

// insert puts a saved row back into table.
func (r savedRow) insert(ctx context.Context, tx Queryer, table string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO `+table+`(`+strings.Join(r.cols, ", ")+`) VALUES (?`+strings.Repeat(", ?", len(r.cols)-1)+`)`, r.vals...)
	return err
}

// undoLabels takes back written labels, the last first, in short
// transactions, and returns the items left alone because a lead acted on
// them meanwhile.
func (s *Store) undoLabels(ctx context.Context, undo []labelUndo, pace bulkPace) ([]string, error) {
	var kept []string
	err := s.inChunks(ctx, len(undo), pace, func(tx *Tx, from int, deadline time.Time) (int, error) {
		var chunkKept []string
		done := 0
		ptx := s.prepared(tx)
		for i := len(undo) - 1 - from; i >= 0 && (done == 0 || time.Now().Before(deadline)); i-- {
			k, err := s.undoLabel(ctx, ptx, undo[i])
			if err != nil {
				return 0, fmt.Errorf("undo the label of %s by %s: %w", undo[i].item, undo[i].reviewer, err)
			}
			if k {
				chunkKept = append(chunkKept, undo[i].item)
			}
			done++
		}
		kept = append(kept, chunkKept...)
		return done, nil
	})
	slices.Reverse(kept)
	return kept, err
}

// undoLabel takes back one written label with tx, unless it is no longer
// there as written (a lead sent it back, the reviewer reopened it: nothing
// of this call is left) or a lead acted on its item since (kept reports
// that). The assignment and draft go back to what they were, and the item
// is recomputed from the labels that remain: its agreement or dispute is
// undone, as Reopen does, and it is settled again if its open assignments
// allow (an assignment that was skipped before).
func (s *Store) undoLabel(ctx context.Context, tx Queryer, u labelUndo) (kept bool, err error) {
	cur, found, err := storedLabelDigest(ctx, tx, u.item, u.reviewer)
	if err != nil {
		return false, err
	}
	if !found || cur != u.written {
		return false, nil
	}
	var status string
	var adjudications int64
	var exports int
	if err := tx.QueryRowContext(ctx, `SELECT status, `+leadActs("?1")+` FROM items WHERE id = ?1`, u.item).Scan(&status, &adjudications, &exports); err != nil {
		return false, err
	}
	if status == review.GoldAdjudicated || adjudications > u.adjudications || exports > u.exports {
		return true, nil
	}
	now := s.now()
	if _, err := tx.ExecContext(ctx, `DELETE FROM labels WHERE `+labelKey, u.item, u.reviewer); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE assignments SET status = ?, skip_reason = ?, updated_at = ? WHERE `+labelKey,
		u.assignStatus, u.skipReason, now, u.item, u.reviewer); err != nil {
		return false, err
	}
	if u.draft != nil {
		if _, err := tx.ExecContext(ctx, `DELETE FROM drafts WHERE `+labelKey, u.item, u.reviewer); err != nil {
			return false, err
		}
		if err := u.draft.insert(ctx, tx, "drafts"); err != nil {
			return false, err
		}
	}
	var remaining int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM labels WHERE item_id = ?`, u.item).Scan(&remaining); err != nil {
		return false, err
	}
	next := "labeling"
	if remaining == 0 && u.itemStatus == "sampled" {
		next = "sampled"
	}
	if err := unsettle(ctx, tx, u.item, next, now); err != nil {
		return false, err
	}
	_, err = s.settle(ctx, tx, u.item)
	return false, err
}
