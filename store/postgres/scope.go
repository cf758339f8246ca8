package postgres

import (
	"context"
	"hash/fnv"
)

// scopeLocks is the first half of the two-key advisory locks that scoped
// writes take ("scop" in ASCII); two-key locks are apart from one-key
// locks such as the writers' lock (pg_locks.objsubid 2, not 1).
const scopeLocks = 0x73636f70

// scope is what Scoped puts in a context.
type scope struct{ key string }

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
