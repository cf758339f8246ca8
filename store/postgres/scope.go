package postgres

import (
	"context"
	"database/sql"
	"hash/fnv"
	"slices"
)

// scopeLocks is the first half of the two-key advisory locks that scoped
// writes take ("scop" in ASCII); two-key locks are apart from one-key
// locks such as the writers' lock (pg_locks.objsubid 2, not 1).
const scopeLocks = 0x73636f70

// ScopeLocks is the first half of every key's lock, KeyLock the second:
// a session that takes pg_advisory_xact_lock(ScopeLocks, KeyLock(key))
// waits exactly as long as a write scoped to key would.
const ScopeLocks int32 = scopeLocks

// scope is what Scoped puts in a context.
type scope struct {
	key  string
	many bool // ScopedKeys': the transaction takes its keys' locks itself
}

type scopeKey struct{}

// Scoped returns a context whose write transactions change nothing but
// what belongs to key (one labeling item's rows, say) and rows they only
// add, so they need not wait for writes scoped to other keys: each takes
// the writers' lock shared and key's lock exclusively, and so runs one at
// a time with the writes scoped to key, beside those scoped to others,
// and never beside an unscoped write (which takes the writers' lock
// exclusively). key "" scopes a write that only adds rows (an audit
// entry): it waits for no scoped write. A write that reads or changes
// rows of several keys, or that counts on no other write running, is not
// scoped.
func Scoped(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, scopeKey{}, scope{key: key})
}

// lock is the second half of the key's advisory lock. Two keys may share
// it: they are then written one at a time, which is only slower.
func (s scope) lock() int32 {
	h := fnv.New32a()
	h.Write([]byte(s.key))
	return int32(h.Sum32())
}

// ScopedKeys returns a context whose write transactions take the writers'
// lock shared, as Scoped's do, and the locks of the keys they write
// themselves, with LockKeys, before they read or write those keys' rows:
// a bulk write of many keys, beside the writes scoped to other keys.
// Transactions that take several keys' locks must take disjoint sets of
// them (or one set, in one LockKeys, each): two that each hold a lock the
// other asks for would wait for each other.
func ScopedKeys(ctx context.Context) context.Context {
	return context.WithValue(ctx, scopeKey{}, scope{many: true})
}

// HasKeys reports whether ctx is ScopedKeys'.
func HasKeys(ctx context.Context) bool {
	sc, ok := ctx.Value(scopeKey{}).(scope)
	return ok && sc.many
}

// KeyLock is the number of key's lock: two keys with the same number are
// written one at a time (ScopedKeys' writers split their keys by it).
func KeyLock(key string) int32 { return scope{key: key}.lock() }

// LockKeys takes the locks of keys in tx (a transaction of ctx, which
// ScopedKeys made), in ascending order, each once: tx then writes them as
// a transaction scoped to each would, one at a time with those.
func LockKeys(ctx context.Context, tx *sql.Tx, keys []string) error {
	locks := make([]int32, 0, len(keys))
	for _, k := range keys {
		locks = append(locks, KeyLock(k))
	}
	slices.Sort(locks)
	locks = slices.Compact(locks)
	_, err := tx.ExecContext(ctx, `SELECT count(pg_advisory_xact_lock($1, k)) FROM unnest($2::int4[]) k`, int32(scopeLocks), locks)
	return err
}
