package store

import (
	"context"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
)

// bulkPace is a bulk write's pace (the engine's: how long a transaction
// works, how long the lock is left free between two) and what the store
// adds to it.
type bulkPace struct {
	bulk.Pace
	// auditLast writes ctx's audit entry in the last transaction, the one
	// that completes the write (a write that is the whole action); else it
	// is left to the caller.
	auditLast bool
	// stretch, when set, lets a transaction go on past ChunkTime while no
	// other writer waits for the lock (engine.WritersWaiting, asked between
	// two steps) and the log has room, up to stretch: every commit writes
	// again the index pages its transaction changed, so a bulk write alone
	// on the database writes them once a stretch, not once a ChunkTime. A
	// writer that starts waiting waits for one step and the commit.
	stretch time.Duration
	// maxUnits, when set, ends a transaction once it has done that many
	// units (or more: a step is not cut), whatever its time.
	maxUnits int
}

// goOn reports whether a transaction that began at began, when the log's
// file had log bytes, takes a next step predicted to end at next: within
// ChunkTime, or within stretch while no other writer waits and the
// transaction has grown the log's file by less than checkpointLog (after a
// checkpoint, SQLite writes the log again from its start: the file grows
// once its frames pass its old size).
func (s *Store) goOn(ctx context.Context, pace bulkPace, began time.Time, log int64, next time.Time) bool {
	if next.Before(began.Add(pace.ChunkTime)) {
		return true
	}
	return pace.stretch > 0 && next.Before(began.Add(pace.stretch)) &&
		s.logSize()-log < checkpointLog && !s.db.WritersWaiting(ctx)
}

var defaultBulkPace = bulkPace{Pace: bulk.DefaultPace}

// paced runs a bulk write in the engine's short transactions until step
// says nothing is left (sqlite.DB.Paced). A chunk is not the whole action:
// the action's audit entry goes in the transaction that completes it
// (pace.auditLast), or on its own after.
func (s *Store) paced(ctx context.Context, pace bulkPace, step func(tx *Tx, deadline time.Time) (more bool, err error)) error {
	err := s.db.Paced(withoutAudit(ctx), pace.Pace, func(tx *Tx, deadline time.Time) (bool, error) {
		defer s.writes.ended()
		more, err := step(tx, deadline)
		if err == nil && !more && pace.auditLast {
			err = s.auditInTx(ctx, tx)
		}
		return more, err
	})
	if err == nil && pace.auditLast {
		auditCommitted(ctx)
	}
	return err
}

// auditInTx writes ctx's audit entry in tx, the transaction that completes
// a bulk write, if the SSH key the actor came with is still theirs.
func (s *Store) auditInTx(ctx context.Context, tx *Tx) error {
	if err := keyStillTheirs(ctx, tx); err != nil {
		return err
	}
	return s.writePendingAudit(ctx, tx)
}

// inChunks runs a bulk write of n units in short transactions: chunk is
// called with the first unit not yet done and a deadline, does at least one
// unit, and says how many it did.
func (s *Store) inChunks(ctx context.Context, n int, pace bulkPace, chunk func(tx *Tx, from int, deadline time.Time) (int, error)) error {
	from := 0
	if n == 0 {
		return nil
	}
	return s.paced(ctx, pace, func(tx *Tx, deadline time.Time) (bool, error) {
		done, err := chunk(tx, from, deadline)
		if err != nil {
			return false, err
		}
		from += max(done, 1)
		return from < n, nil
	})
}
