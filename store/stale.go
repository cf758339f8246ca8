package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goldtrace/goldtrace/trace"
)

// StaleItem is one gold item put back in front of reviewers because the
// tool catalogue changed under it.
type StaleItem struct {
	Item      string
	Reviewers []string
	// Draft is the label form each reviewer starts from (the old gold
	// answer, in the label screen's draft JSON).
	Draft []byte
	// Note tells the reviewers why (the drift findings).
	Note string
}

// StaleBatch is a batch of stale gold items to review again.
type StaleBatch struct {
	Name      string
	Seed      int64
	PerItem   int
	Params    any // recorded as the batch's parameters
	CreatedBy string
	Items     []StaleItem
	// Tools, when not empty, is the current catalogue: each item is
	// labeled against it from now on, in place of its trace's tools
	// (stored once, referenced by every item of the batch).
	Tools []trace.Tool
}

// ReviewAgain writes batch b and puts each of its gold items back to
// reviewers, all in one transaction (a stale set is the items one catalogue
// change touched, not a sample of the traffic): the item's labels and drafts
// are removed (kept in its audit row with the gold it had), assignments of
// reviewers not named again go, the named reviewers get an assignment in
// the batch with the old answer as a draft to start from and the lead's
// note, and the item is labeling again without gold, until the new labels
// settle it. Only agreed or adjudicated items can be put back; an item
// named twice, an unknown reviewer or a batch name in use is refused and
// nothing is written.
func (s *Store) ReviewAgain(ctx context.Context, b StaleBatch) error {
	if b.Name == "" {
		return errors.New("batch name is empty")
	}
	params, err := json.Marshal(b.Params)
	if err != nil {
		return fmt.Errorf("batch params: %w", err)
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		if err := requireLead(ctx, tx, b.CreatedBy); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM batches WHERE name = ?`, b.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%w: batch %q already exists (name another with --batch)", ErrConflict, b.Name)
		}
		now := s.now()
		if _, err := tx.ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, params, created_by, created_at, state, heartbeat_at)
			VALUES (?, ?, ?, ?, ?, ?, 'ready', '')`, b.Name, b.Seed, b.PerItem, string(params), b.CreatedBy, now); err != nil {
			return fmt.Errorf("insert batch: %w", err)
		}
		var toolset any // NULL: the items keep the catalogue they have
		if len(b.Tools) > 0 {
			if toolset, err = putToolset(ctx, tx, b.Tools); err != nil {
				return fmt.Errorf("store the current catalogue: %w", err)
			}
		}
		positions := map[string]int{}
		seen := map[string]bool{}
		for i, it := range b.Items {
			if seen[it.Item] {
				return fmt.Errorf("item %s is listed twice", it.Item)
			}
			seen[it.Item] = true
			if err := s.reviewAgain(ctx, tx, b, i, it, positions, now); err != nil {
				return err
			}
			if toolset != nil {
				if _, err := tx.ExecContext(ctx, `UPDATE items SET toolset = ? WHERE id = ?`, toolset, it.Item); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (s *Store) reviewAgain(ctx context.Context, tx *Tx, b StaleBatch, pos int, it StaleItem, positions map[string]int, now string) error {
	cur, err := loadItemState(ctx, tx, it.Item)
	if err != nil {
		return err
	}
	if cur.gold == nil {
		return fmt.Errorf("item %s is %s, not gold: only agreed or adjudicated items are put back: %w", it.Item, cur.status, ErrConflict)
	}
	labels, err := itemLabels(ctx, tx, it.Item)
	if err != nil {
		return err
	}
	assigned, err := queryStrings(ctx, tx, `SELECT reviewer FROM assignments WHERE item_id = ?`, it.Item)
	if err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM labels WHERE item_id = ?`, `DELETE FROM drafts WHERE item_id = ?`} {
		if _, err := tx.ExecContext(ctx, q, it.Item); err != nil {
			return err
		}
	}
	for _, r := range assigned {
		if !slices.Contains(it.Reviewers, r) {
			if _, err := tx.ExecContext(ctx, `DELETE FROM assignments WHERE item_id = ? AND reviewer = ?`, it.Item, r); err != nil {
				return err
			}
		}
	}
	for _, r := range it.Reviewers {
		p := positions[r]
		positions[r]++
		if _, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, status, skip_reason, updated_at)
			VALUES (?, ?, ?, ?, 'pending', '', ?)
			ON CONFLICT(item_id, reviewer) DO UPDATE SET batch = excluded.batch, position = excluded.position,
				status = 'pending', skip_reason = '', updated_at = excluded.updated_at`,
			it.Item, r, b.Name, p, now); err != nil {
			return fmt.Errorf("assign %s to %s: %w", it.Item, r, err)
		}
		if len(it.Draft) > 0 {
			if err := putDraft(ctx, tx, it.Item, r, it.Draft, 0, now); err != nil {
				return err
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO batch_items(batch, item_id, position, stratum) VALUES (?, ?, ?, 'stale')`, b.Name, it.Item, pos); err != nil {
		return err
	}
	if err := unsettle(ctx, tx, it.Item, "labeling", now); err != nil {
		return err
	}
	note := strings.TrimSpace(it.Note)
	if note == "" {
		note = "the tool catalogue changed: review this item again"
	}
	if err := s.addNote(ctx, tx, it.Item, b.CreatedBy, NoteSendBack, note, it.Reviewers); err != nil {
		return err
	}
	return s.audit(ctx, tx, it.Item, b.CreatedBy, ActionSendBack, note, auditPayload{To: it.Reviewers, Returned: labels, Previous: cur.gold})
}

// putToolset stores tools (each once) and their ordered list (once), as an
// import stores a trace's, and returns the list's id.
func putToolset(ctx context.Context, tx *Tx, tools []trace.Tool) (int64, error) {
	hashes := make([]string, len(tools))
	for i, t := range tools {
		h, err := trace.ToolHash(t)
		if err != nil {
			return 0, err
		}
		hashes[i] = h
		if _, err := tx.ExecContext(ctx, sqlToolInsert, h, t.Name, t.Description, string(t.Parameters)); err != nil {
			return 0, err
		}
	}
	list, err := json.Marshal(hashes)
	if err != nil {
		return 0, err
	}
	var id int64
	err = tx.QueryRowContext(ctx, sqlToolsetInsert, string(list)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = tx.QueryRowContext(ctx, sqlToolsetID, string(list)).Scan(&id)
	}
	return id, err
}
