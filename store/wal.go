package store

import (
	"context"
	"time"
)

// KeepWALSmall bounds the write-ahead log of a long-running process
// (goldtrace serve) until ctx ends. SQLite's automatic checkpoints keep it
// small while readers let them finish; when the log has grown past a
// quarter of limit anyway (readers kept old pages in use), a PASSIVE
// checkpoint (it waits for no reader) copies what it can, and past limit a
// TRUNCATE checkpoint shrinks the file once no reader needs it. Checked
// every interval; a log under a quarter of limit costs nothing. The SSH
// server ends commands whose client stops reading, so no reader keeps a
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
		size := s.logSize()
		if size <= limit/4 {
			continue
		}
		w, err := s.writer(ctx)
		if err != nil {
			continue
		}
		_, _ = w.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
		if size > limit {
			_, _ = w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
		}
	}
}
