package store

import (
	"context"
	"errors"
)

// trySavepoint runs fn inside a savepoint of tx: when fn fails, what it
// wrote is rolled back and the transaction goes on. A statement that fails
// on PostgreSQL aborts the whole transaction (every later statement is
// refused until it ends), so a write that handles a failed statement and
// goes on (tries a faster way first, treats a taken key as "already
// there") runs the statement here; on SQLite it costs two statements.
func trySavepoint(ctx context.Context, tx *Tx, fn func() error) error {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT gt_try`); err != nil {
		return err
	}
	if err := fn(); err != nil {
		if _, rerr := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT gt_try`); rerr != nil {
			return errors.Join(err, rerr)
		}
		if _, rerr := tx.ExecContext(ctx, `RELEASE SAVEPOINT gt_try`); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	_, err := tx.ExecContext(ctx, `RELEASE SAVEPOINT gt_try`)
	return err
}
