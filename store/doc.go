// Package store persists goldtrace's data in one SQLite file: schema from
// embedded numbered migrations, a single-connection write pool with immediate
// transactions, and a separate read pool.
package store
