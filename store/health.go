package store

import "context"

// Backup writes a consistent copy of the database to dest while others
// keep reading and writing, and checks it; dest must not exist.
func (s *Store) Backup(ctx context.Context, dest string) error { return s.db.Backup(ctx, dest) }
