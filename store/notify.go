package store

import (
	"context"

	"github.com/goldtrace/goldtrace/store/postgres"
)

// keysChannel is the PostgreSQL notification channel a removal of keys
// (a key, or a user and all their keys) is announced on, so that every
// serve replica on the database ends the sessions of those keys at once.
const keysChannel = "goldtrace_keys"

// keysRemoved announces, when tx commits, that keys were removed. On
// SQLite there is no one to tell: the replicas of a SQLite project are the
// processes on one machine, which check their sessions' keys on a timer.
func (s *Store) keysRemoved(ctx context.Context, tx *Tx) error {
	if pg, ok := s.db.(*postgres.DB); ok {
		return pg.Notify(ctx, tx, keysChannel)
	}
	return nil
}

// WatchKeyRemovals calls removed soon after any process removes keys from
// the project, until ctx ends, and reports whether it can: on PostgreSQL
// (LISTEN) it returns true at once and watches in the background; when
// the connection it listens on fails it reconnects by itself and calls
// removed then too, since what was announced meanwhile was missed; up
// tells the caller whether it is listening. On SQLite it returns false
// and watches nothing.
func (s *Store) WatchKeyRemovals(ctx context.Context, removed func(), up func(listening bool)) bool {
	pg, ok := s.db.(*postgres.DB)
	if !ok {
		return false
	}
	go pg.Listen(ctx, keysChannel, removed, up)
	return true
}
