package store

import (
	"context"
	"fmt"
)

// GoldFingerprint is a cheap summary of everything the dashboard shows:
// gold answers, submitted labels, disputes and sampled items. It changes
// whenever a label is submitted or reopened, an item is settled, adjudicated
// or sent back, or a batch is sampled, so a screen can poll it and recompute
// only when it differs. Gold rows are stamped with Store.Now on every write,
// so their latest updated_at moves with each adjudication.
func (s *Store) GoldFingerprint(ctx context.Context) (string, error) {
	var goldN, labelN, disputeN, sampledN int
	var goldMax, labelMax string
	err := s.r.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM gold), (SELECT coalesce(max(updated_at), '') FROM gold),
		(SELECT count(*) FROM labels), (SELECT coalesce(max(submitted_at), '') FROM labels),
		(SELECT count(*) FROM disputes), (SELECT count(*) FROM batch_items)`).
		Scan(&goldN, &goldMax, &labelN, &labelMax, &disputeN, &sampledN)
	if err != nil {
		return "", fmt.Errorf("read gold fingerprint: %w", err)
	}
	return fmt.Sprintf("gold %d %s · labels %d %s · disputes %d · sampled %d",
		goldN, goldMax, labelN, labelMax, disputeN, sampledN), nil
}

// OpenItemCounts splits the open items of one batch ("" = all) into those
// no reviewer has submitted yet (sampled) and those in progress (labeling).
func (s *Store) OpenItemCounts(ctx context.Context, batch string) (sampled, labeling int, err error) {
	// status != 'new' lets SQLite use the partial index items_status.
	err = s.r.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE i.status = 'sampled'), count(*) FILTER (WHERE i.status = 'labeling')
		FROM items i WHERE i.status != 'new' AND i.status IN ('sampled', 'labeling')
		AND (?1 = '' OR EXISTS (SELECT 1 FROM batch_items b WHERE b.item_id = i.id AND b.batch = ?1))`, batch).
		Scan(&sampled, &labeling)
	if err != nil {
		return 0, 0, fmt.Errorf("count open items: %w", err)
	}
	return sampled, labeling, nil
}
