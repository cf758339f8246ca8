package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/goldtrace/goldtrace/review"
)

// DisputeFilter narrows the lead's queue: to one batch and/or to disputes
// of one kind (review.KindDecision, …, review.KindReview). Zero values mean
// all.
type DisputeFilter struct {
	Batch string
	Kind  string
}

// Dispute is one item waiting for a lead.
type Dispute struct {
	Item      string            `json:"item"`
	Batches   []string          `json:"batches"`
	Kinds     []string          `json:"kinds"`
	Pairs     []review.PairDiff `json:"pairs"`
	Reviewers []string          `json:"reviewers"`
	CreatedAt string            `json:"created_at"`
	// UpdatedAt is the item's version: pass it as Resolution.Seen so a
	// decision on a stale screen is refused.
	UpdatedAt string `json:"updated_at"`
}

// DisputedQueue lists the disputed items, oldest dispute first.
func (s *Store) DisputedQueue(ctx context.Context, f DisputeFilter) ([]Dispute, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT d.item_id, d.kinds, d.detail, d.created_at, i.updated_at,
			(SELECT json_group_array(batch) FROM (SELECT DISTINCT batch FROM assignments WHERE item_id = d.item_id ORDER BY batch) b),
			(SELECT json_group_array(reviewer) FROM (SELECT reviewer FROM labels WHERE item_id = d.item_id ORDER BY reviewer) r)
		FROM disputes d JOIN items i ON i.id = d.item_id
		WHERE i.status = 'disputed'
		  AND (?1 = '' OR EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = d.item_id AND a.batch = ?1))
		  AND (?2 = '' OR EXISTS (SELECT 1 FROM json_each(d.kinds) WHERE value = ?2))
		ORDER BY d.created_at, d.item_id`, f.Batch, f.Kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Dispute
	for rows.Next() {
		var d Dispute
		var kinds, detail, batches, reviewers string
		if err := rows.Scan(&d.Item, &kinds, &detail, &d.CreatedAt, &d.UpdatedAt, &batches, &reviewers); err != nil {
			return nil, err
		}
		var dd disputeDetail
		for _, f := range []struct {
			name, raw string
			dst       any
		}{{"kinds", kinds, &d.Kinds}, {"detail", detail, &dd}, {"batches", batches, &d.Batches}, {"reviewers", reviewers, &d.Reviewers}} {
			if err := json.Unmarshal([]byte(f.raw), f.dst); err != nil {
				return nil, fmt.Errorf("dispute of %s: %s: %w", d.Item, f.name, err)
			}
		}
		d.Pairs = nonNil(dd.Pairs)
		out = append(out, d)
	}
	return out, rows.Err()
}

// ItemLabels loads every submitted label of an item, by reviewer. It shows
// reviewers' answers side by side, so it is for leads' screens only: callers
// check the user with RequireLead first (reviewers never see another
// reviewer's label before adjudication).
func (s *Store) ItemLabels(ctx context.Context, itemID string) ([]review.Label, error) {
	return itemLabels(ctx, s.r, itemID)
}
