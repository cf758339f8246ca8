package store

import "context"

// ItemStatusCounts counts the items by status (sampled, labeling, agreed,
// disputed, adjudicated, …), of one batch or of all batches when batch is
// "". Only items assigned to reviewers count; statuses with no items are
// absent.
func (s *Store) ItemStatusCounts(ctx context.Context, batch string) (map[string]int, error) {
	return queryCounts(ctx, s.r, `SELECT i.status, count(*) FROM items i
		WHERE EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id AND (?1 = '' OR a.batch = ?1))
		GROUP BY i.status`, batch)
}
