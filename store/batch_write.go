package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/goldtrace/goldtrace/store/sqlite"
)

// abandonedAfter is how long a 'writing' batch may go without a heartbeat
// before it counts as left behind by a killed sample.
const abandonedAfter = time.Minute

// heartbeat is the store clock as batches.heartbeat_at holds it: whole
// seconds, so the text compares in time order.
func (s *Store) heartbeat(at time.Time) string { return at.UTC().Format(time.RFC3339) }

// CreateBatch writes a batch — the batch, its items in order, one pending
// assignment per (item, reviewer), each reviewer's positions following
// sample order, and the items moved from 'new' to 'sampled' — all or
// nothing, in short transactions (bulkPace) so reviewers keep submitting
// while a large sample is written. The batch stays 'writing', out of every
// reviewer's queue, until its last chunk commits; a failure (or a cancelled
// context) removes what was written, and a batch left 'writing' by a
// killed process is removed by the next CreateBatch. A batch name in use is
// an ErrConflict. b.Traces are written first, in short transactions of
// their own, while the batch is 'writing'; a failure deletes the ones this
// call inserted again (a trace another process sampled meanwhile stays, and
// the error says so). A killed process leaves those traces stored, complete,
// as a killed import does: sampling the file again finds them stored.
func (s *Store) CreateBatch(ctx context.Context, b NewBatch) error {
	return s.createBatch(ctx, b, defaultBulkPace)
}

func (s *Store) createBatch(ctx context.Context, b NewBatch, pace bulkPace) error {
	if b.Name == "" {
		return errors.New("batch name is empty")
	}
	params, err := json.Marshal(b.Params)
	if err != nil {
		return fmt.Errorf("batch params: %w", err)
	}
	if err := s.removeAbandonedBatches(withoutAudit(ctx), pace); err != nil {
		return err
	}
	now := s.now()
	err = s.WithTx(withoutAudit(ctx), func(tx *Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM batches WHERE name = ?`, b.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%w: batch %q already exists", ErrConflict, b.Name)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, params, created_by, created_at, state, heartbeat_at)
			VALUES (?, ?, ?, ?, ?, ?, 'writing', ?)`,
			b.Name, b.Seed, b.PerItem, string(params), b.CreatedBy, now, s.heartbeat(s.Now())); err != nil {
			return fmt.Errorf("insert batch: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var inserted []string
	err = s.inChunks(ctx, len(b.Traces), pace, func(tx *Tx, from int, deadline time.Time) (int, error) {
		done, ids, err := s.writeBatchTraces(ctx, tx, b, from, deadline)
		if err == nil {
			inserted = append(inserted, ids...)
		}
		return done, err
	})
	next := map[string]int{}
	if err == nil {
		err = s.inChunks(ctx, len(b.Items), pace, func(tx *Tx, from int, deadline time.Time) (int, error) {
			return s.writeBatchChunk(ctx, tx, b, from, deadline, next, now)
		})
	}
	if err == nil {
		// The batch appears in reviewers' queues with its audit entry.
		err = s.withTxAgainIfUndone(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE batches SET state = 'ready', heartbeat_at = '' WHERE name = ?`, b.Name)
			return err
		})
	}
	if err != nil {
		if uerr := s.removeBatch(withoutAudit(context.WithoutCancel(ctx)), b.Name, pace); uerr != nil {
			return fmt.Errorf("%w (and removing the partly written batch %s failed: %v; the next sample removes it)", err, b.Name, uerr)
		}
		if uerr := s.undoImport(withoutAudit(context.WithoutCancel(ctx)), inserted, "", "", defaultPace()); uerr != nil {
			return fmt.Errorf("%w (removing the traces it stored: %s)", err, uerr.Note())
		}
		return err
	}
	return nil
}

// writeBatchTraces stores b.Traces[from:] until deadline: how many it went
// through, and the ids of those it inserted (not stored before). It renews
// the batch's heartbeat, so a long file is not taken for abandoned.
func (s *Store) writeBatchTraces(ctx context.Context, tx *Tx, b NewBatch, from int, deadline time.Time) (int, []string, error) {
	var ids []string
	done := 0
	for i := from; i < len(b.Traces) && (done == 0 || time.Now().Before(deadline)); i++ {
		t := b.Traces[i]
		outcome, err := s.InsertTrace(ctx, tx, t, b.Source)
		if err != nil {
			return 0, nil, fmt.Errorf("import trace %s: %w", t.ID, err)
		}
		switch outcome {
		case DuplicateContent:
			return 0, nil, fmt.Errorf("trace %s from %s is already stored under another id: sample it from the store instead", t.ID, b.Source)
		case Inserted:
			ids = append(ids, t.ID)
		}
		done++
	}
	_, err := tx.ExecContext(ctx, `UPDATE batches SET heartbeat_at = ? WHERE name = ?`, s.heartbeat(s.Now()), b.Name)
	return done, ids, err
}

// writeBatchChunk writes items from b.Items[from:] until deadline.
func (s *Store) writeBatchChunk(ctx context.Context, tx *Tx, b NewBatch, from int, deadline time.Time, next map[string]int, now string) (int, error) {
	addItem, err := tx.PrepareContext(ctx, `INSERT INTO batch_items(batch, item_id, position, stratum) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer addItem.Close()
	assign, err := tx.PrepareContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, status, updated_at)
		VALUES (?, ?, ?, ?, 'pending', ?) ON CONFLICT(item_id, reviewer) DO NOTHING`)
	if err != nil {
		return 0, err
	}
	defer assign.Close()
	mark, err := tx.PrepareContext(ctx, `UPDATE items SET status = 'sampled', in_batch = 1, updated_at = ? WHERE id = ? AND status = 'new'`)
	if err != nil {
		return 0, err
	}
	defer mark.Close()
	// Positions are taken from next only once the chunk is written, so a
	// chunk that fails leaves them as they were.
	taken := map[string]int{}
	done := 0
	for pos := from; pos < len(b.Items) && (done == 0 || time.Now().Before(deadline)); pos++ {
		it := b.Items[pos]
		if _, err := addItem.ExecContext(ctx, b.Name, it.ItemID, pos, it.Stratum); err != nil {
			if foreignKeyFailed(err) {
				return 0, fmt.Errorf("batch item %s: %w: no such item", it.ItemID, ErrNotFound)
			}
			return 0, fmt.Errorf("batch item %s: %w", it.ItemID, classify(err))
		}
		for _, r := range it.Reviewers {
			if _, err := assign.ExecContext(ctx, it.ItemID, r, b.Name, next[r]+taken[r], now); err != nil {
				if foreignKeyFailed(err) {
					return 0, fmt.Errorf("assign %s to %s: %w: no such user", it.ItemID, r, ErrNotFound)
				}
				return 0, fmt.Errorf("assign %s to %s: %w", it.ItemID, r, err)
			}
			taken[r]++
		}
		if _, err := mark.ExecContext(ctx, now, it.ItemID); err != nil {
			return 0, fmt.Errorf("mark %s sampled: %w", it.ItemID, err)
		}
		done++
	}
	if _, err := tx.ExecContext(ctx, `UPDATE batches SET heartbeat_at = ? WHERE name = ?`, s.heartbeat(s.Now()), b.Name); err != nil {
		return 0, err
	}
	for r, n := range taken {
		next[r] += n
	}
	return done, nil
}

// removeAbandonedBatches removes batches a killed sample left 'writing'.
func (s *Store) removeAbandonedBatches(ctx context.Context, pace bulkPace) error {
	names, err := queryStrings(ctx, s.r, `SELECT name FROM batches WHERE state = 'writing' AND heartbeat_at < ?`,
		s.heartbeat(s.Now().Add(-abandonedAfter)))
	if err != nil {
		return s.wrap("read batches", err)
	}
	for _, name := range names {
		if err := s.removeBatch(ctx, name, pace); err != nil {
			return fmt.Errorf("remove batch %s left half-written by a sample that did not finish: %w", name, err)
		}
	}
	return nil
}

// removeBatch undoes a batch that never became 'ready', in short
// transactions (pace): its assignments and their drafts (no reviewer could
// see them), its items (back to 'new' unless another batch holds them),
// then the batch.
func (s *Store) removeBatch(ctx context.Context, name string, pace bulkPace) error {
	const step = 500
	err := s.paced(ctx, pace, sqlite.UntilDone(func(tx *Tx) (int, error) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM drafts WHERE rowid IN (SELECT d.rowid FROM drafts d
			JOIN assignments a ON a.item_id = d.item_id AND a.reviewer = d.reviewer WHERE a.batch = ? LIMIT ?)`, name, step); err != nil {
			return 0, err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM assignments WHERE rowid IN (SELECT rowid FROM assignments WHERE batch = ? LIMIT ?)`, name, step)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		return int(n), err
	}))
	if err != nil {
		return err
	}
	err = s.paced(ctx, pace, sqlite.UntilDone(func(tx *Tx) (int, error) {
		ids, err := queryStrings(ctx, tx, `SELECT item_id FROM batch_items WHERE batch = ? LIMIT ?`, name, step)
		if err != nil {
			return 0, err
		}
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM batch_items WHERE batch = ? AND item_id = ?`, name, id); err != nil {
				return 0, err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE items SET status = 'new', in_batch = 0 WHERE id = ? AND status = 'sampled'
				AND NOT EXISTS (SELECT 1 FROM batch_items WHERE item_id = ?)`, id, id); err != nil {
				return 0, err
			}
		}
		return len(ids), nil
	}))
	if err != nil {
		return err
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM batches WHERE name = ? AND state = 'writing'`, name)
		return err
	})
}
