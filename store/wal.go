package store

import (
	"context"
	"time"
)

// KeepWALSmall bounds the write-ahead log of a long-running process
// (goldtrace serve) until ctx ends: every interval a PASSIVE checkpoint
// (it waits for no reader and blocks no writer), and when the log file has
// grown past limit bytes anyway — readers kept old pages in use — a
// TRUNCATE checkpoint, which shrinks the file once no reader needs it. The
// SSH server ends commands whose client stops reading, so no reader keeps a
// snapshot for long.
func (s *Store) KeepWALSmall(ctx context.Context, every time.Duration, limit int64) {
	if s.readOnly {
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		w, err := s.writer(ctx)
		if err != nil {
			continue
		}
		_, _ = w.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
		if s.logSize() > limit {
			_, _ = w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
		}
	}
}
