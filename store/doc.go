// Package store is goldtrace's database: the project's schema (embedded
// numbered migrations), its queries and its rules (the settle rule itself
// is review.Settle, applied in the transaction that records a label). It
// decides no authorization. The database machinery — pools, transactions
// and group commit, bulk writes in paced chunks, the migrations runner,
// error explanation — is an engine's (store/sqlite), used through the
// small engine interface in store.go.
package store
