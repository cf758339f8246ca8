package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// RestoredDraft is a reviewer's draft that was kept outside the database
// (a label screen's recovery file, when the database refused it) and is
// put back: Body is the screen's own JSON, SavedAt when it was typed.
type RestoredDraft struct {
	Item    string
	Body    []byte
	Seconds int
	SavedAt time.Time
}

// RestoreDrafts puts reviewer's drafts back into the database, in one
// transaction: all of them or none. A draft is left out (dropped) when it
// would overwrite newer work: its assignment is gone or no longer open
// (submitted, skipped), or the item has a draft of the reviewer's saved
// at or after SavedAt (a later session's, or this very draft restored
// before). A restored draft keeps SavedAt as its time, so restoring it
// again drops it.
func (s *Store) RestoreDrafts(ctx context.Context, reviewer string, drafts []RestoredDraft) (restored, dropped int, err error) {
	err = s.WithTx(ctx, func(tx *Tx) error {
		restored, dropped = 0, 0
		for _, d := range drafts {
			st, err := assignmentStatus(ctx, tx, d.Item, reviewer)
			if errors.Is(err, ErrNotFound) || (err == nil && st != AssignPending && st != AssignDraft) {
				dropped++
				continue
			}
			if err != nil {
				return err
			}
			var at string
			err = tx.QueryRowContext(ctx, `SELECT updated_at FROM drafts WHERE item_id = ? AND reviewer = ?`, d.Item, reviewer).Scan(&at)
			switch {
			case errors.Is(err, sql.ErrNoRows):
			case err != nil:
				return err
			default:
				if stored, perr := time.Parse(time.RFC3339Nano, at); perr != nil || !stored.Before(d.SavedAt) {
					dropped++ // newer (or a time this store did not write: keep it)
					continue
				}
			}
			if _, err := tx.ExecContext(ctx, upsertDraft, d.Item, reviewer, string(d.Body), d.Seconds, d.SavedAt.UTC().Format(time.RFC3339Nano)); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, markDraft, s.now(), d.Item, reviewer); err != nil {
				return err
			}
			restored++
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return restored, dropped, nil
}
