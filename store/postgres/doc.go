// Package postgres is goldtrace's PostgreSQL engine: the same seam as
// store/sqlite (a read pool, write transactions, paced bulk writes, error
// explanation, numbered migrations applied on open) over a PostgreSQL
// database named by a postgres:// DSN, through pgx's database/sql driver.
//
// The store's queries are written with SQLite's placeholders (? and ?N);
// the pool's connections rewrite them to PostgreSQL's $N (placeholders.go),
// so one query text serves both engines. Writers are serialised, as on
// SQLite, by a transaction-scoped advisory lock every write transaction
// takes first: the store's rules (an item settles exactly once, versions
// numbered without gaps) hold across processes and hosts without each
// query taking row locks of its own.
package postgres
