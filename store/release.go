package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Release is one assignment a lead moved from a reviewer to another.
type Release struct {
	Item   string `json:"item"`
	Batch  string `json:"batch"`
	From   string `json:"from"`
	To     string `json:"to"`
	Status string `json:"status"`           // what it was with From: skipped or pending
	Reason string `json:"reason,omitempty"` // From's skip reason
}

// ReleaseRequest says which of a reviewer's assignments a lead releases.
type ReleaseRequest struct {
	Lead, From, To string
	// Batch limits the release to one batch ("" = every batch).
	Batch string
	// Item limits it to one item ("" = every match).
	Item string
	// StalledSince also releases pending assignments not touched since
	// then (zero = skipped ones only). Drafts are never released: they
	// hold the reviewer's typed work.
	StalledSince time.Time
}

// ReleaseAssignments moves From's skipped (and, with StalledSince, stalled
// pending) assignments to To, as pending at the end of To's queue in the
// same batch, in one transaction. To labels them blind like any other item.
// Items To is already assigned stay with From and come back in kept.
func (s *Store) ReleaseAssignments(ctx context.Context, req ReleaseRequest) (released, kept []Release, err error) {
	if req.From == req.To {
		return nil, nil, fmt.Errorf("release: --from and --to are both %s", req.From)
	}
	err = s.WithTx(ctx, func(tx *Tx) error {
		if err := requireLead(ctx, tx, req.Lead); err != nil {
			return err
		}
		for _, name := range []string{req.From, req.To} {
			var role string
			err := tx.QueryRowContext(ctx, `SELECT role FROM users WHERE name = ?`, name).Scan(&role)
			if err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return fmt.Errorf("unknown user %q: %w", name, ErrNotFound)
				}
				return err
			}
			if name == req.To && role != RoleReviewer && role != RoleLead {
				return fmt.Errorf("%s is a %s and cannot label: %w", name, role, ErrForbidden)
			}
		}
		stalled := ""
		if !req.StalledSince.IsZero() {
			stalled = req.StalledSince.UTC().Format(time.RFC3339Nano)
		}
		rows, err := tx.QueryContext(ctx, `SELECT item_id, batch, status, skip_reason FROM assignments
			WHERE reviewer = ? AND (? = '' OR batch = ?) AND (? = '' OR item_id = ?)
			AND (status = 'skipped' OR (? != '' AND status = 'pending' AND updated_at < ?))
			ORDER BY batch, position`, req.From, req.Batch, req.Batch, req.Item, req.Item, stalled, stalled)
		if err != nil {
			return err
		}
		var found []Release
		for rows.Next() {
			r := Release{From: req.From, To: req.To}
			if err := rows.Scan(&r.Item, &r.Batch, &r.Status, &r.Reason); err != nil {
				rows.Close()
				return err
			}
			found = append(found, r)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		now := s.now()
		for _, r := range found {
			var has int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM assignments WHERE item_id = ? AND reviewer = ?`, r.Item, req.To).Scan(&has); err != nil {
				return err
			}
			if has > 0 {
				kept = append(kept, r)
				continue
			}
			var pos int
			if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(position), -1) + 1 FROM assignments WHERE reviewer = ? AND batch = ?`, req.To, r.Batch).Scan(&pos); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM assignments WHERE item_id = ? AND reviewer = ?`, r.Item, req.From); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, status, updated_at) VALUES (?, ?, ?, ?, 'pending', ?)`,
				r.Item, req.To, r.Batch, pos, now); err != nil {
				return err
			}
			released = append(released, r)
		}
		auditDetail(ctx, fmt.Sprintf("%d item(s) released, %d kept", len(released), len(kept)))
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return released, kept, nil
}

// ReturnSkipped brings back the reviewer's skipped item that was skipped
// longest ago (in one batch, if given; never one in exclude): pending again
// at the end of the queue, its skip reason kept. An item compared meanwhile
// (the other reviewers' labels settled it) stays skipped: from then on only
// a lead's send-back reopens it. It returns the item and
// that reason; ErrNotFound when nothing skipped is left.
func (s *Store) ReturnSkipped(ctx context.Context, reviewer, batch string, exclude []string) (item, reason string, err error) {
	// Every queue's end asks; most have skipped nothing, and a read says
	// so without waiting for the write lock (which this write takes
	// whole, as it picks among items) nor holding it up for everyone else.
	var skipped bool
	if err := s.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM assignments
		WHERE reviewer = ? AND status = 'skipped' AND (? = '' OR batch = ?))`, reviewer, batch, batch).Scan(&skipped); err != nil {
		return "", "", s.wrap("read skipped items", err)
	}
	if !skipped {
		return "", "", fmt.Errorf("%s has no skipped item to come back to: %w", reviewer, ErrNotFound)
	}
	err = s.WithTx(ctx, func(tx *Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT item_id, batch, skip_reason FROM assignments
			WHERE reviewer = ? AND status = 'skipped' AND (? = '' OR batch = ?)
			AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')
			AND item_id IN (SELECT id FROM items WHERE status IN ('new', 'sampled', 'labeling'))
			ORDER BY updated_at, position`, reviewer, batch, batch)
		if err != nil {
			return err
		}
		var from string
		for rows.Next() {
			var id, b, why string
			if err := rows.Scan(&id, &b, &why); err != nil {
				rows.Close()
				return err
			}
			if !slices.Contains(exclude, id) {
				item, from, reason = id, b, why
				break
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if item == "" {
			return fmt.Errorf("%s has no skipped item to come back to: %w", reviewer, ErrNotFound)
		}
		_, err = tx.ExecContext(ctx, `UPDATE assignments SET status = 'pending', updated_at = ?,
			position = (SELECT coalesce(max(position), -1) + 1 FROM assignments WHERE reviewer = ? AND batch = ?)
			WHERE item_id = ? AND reviewer = ?`, s.now(), reviewer, from, item, reviewer)
		return err
	})
	if err != nil {
		return "", "", err
	}
	return item, reason, nil
}
