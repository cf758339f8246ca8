// Package sqlite is the SQLite engine beneath the store: a read pool and a
// single-connection write pool with immediate transactions, group commit
// of concurrent writers, bulk writes in paced chunks that leave the lock
// to waiting writers (seen through a flock beside the file), the
// migrations runner, the daily quick check, backup, and the explanation of
// SQLite's failures as internal/dberr errors. It knows nothing of
// goldtrace's domain: the store hands it the migrations and the writes.
package sqlite
