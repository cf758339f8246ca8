package store

import (
	"context"
	"time"
)

// KeepWALSmall bounds the database's write-ahead log for a long-running
// process (goldtrace serve) until ctx ends: checked every interval, with
// limit its largest size (the engine's KeepLogSmall).
func (s *Store) KeepWALSmall(ctx context.Context, every time.Duration, limit int64) {
	if s.ReadOnly() {
		return
	}
	s.db.KeepLogSmall(ctx, every, limit)
}
