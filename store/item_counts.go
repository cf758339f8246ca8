package store

import "context"

// ItemStatusCounts counts the items by status (sampled, labeling, agreed,
// disputed, adjudicated, …), of one batch or of all batches when batch is
// "". Only items assigned to reviewers count; statuses with no items are
// absent.
func (s *Store) ItemStatusCounts(ctx context.Context, batch string) (map[string]int, error) {
	return queryCounts(ctx, s.r, `SELECT i.status, count(*)
		FROM (SELECT DISTINCT item_id FROM assignments WHERE (?1 = '' OR batch = ?1) AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')) a CROSS JOIN items i ON i.id = a.item_id
		GROUP BY i.status`, batch)
}
