package store

import (
	"context"
	"encoding/json"
)

// BatchSample is how a batch was drawn and what it holds: By is the
// sample's --by ("" for a seeded random sample, "disagreement" for the
// ranked one, "stale" for gold put back by sample --stale), Items its item
// ids in sample order.
type BatchSample struct {
	Name  string   `json:"name"`
	By    string   `json:"by"`
	Items []string `json:"items"`
}

// BatchSamples lists every ready batch with how it was drawn and its items,
// by name.
func (s *Store) BatchSamples(ctx context.Context) ([]BatchSample, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT b.name, b.params, bi.item_id FROM batches b
		JOIN batch_items bi ON bi.batch = b.name WHERE b.state = 'ready' ORDER BY b.name, bi.position`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BatchSample
	for rows.Next() {
		var name, params, item string
		if err := rows.Scan(&name, &params, &item); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Name != name {
			var p struct {
				By    string `json:"by"`
				Stale string `json:"stale"`
			}
			_ = json.Unmarshal([]byte(params), &p) // params the sampler wrote; unreadable ones count as random
			if p.Stale != "" {
				p.By = "stale"
			}
			out = append(out, BatchSample{Name: name, By: p.By})
		}
		b := &out[len(out)-1]
		b.Items = append(b.Items, item)
	}
	return out, rows.Err()
}
