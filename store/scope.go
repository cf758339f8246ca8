package store

import (
	"context"

	"github.com/goldtrace/goldtrace/store/postgres"
)

// itemWrite marks ctx's write transactions as touching one labeling
// item's rows and no other item's: its assignments, drafts, labels, gold
// answer, dispute and status, beside what they only add (an audit entry)
// and read of rows only unscoped writes change (users, keys, batches,
// settings). On PostgreSQL such writes to different items run at once,
// those to one item one at a time, and none beside an unscoped write
// (postgres.Scoped): the rule that an item's last label settles it once
// needs only its own item's writes ordered. On SQLite, with one writer,
// it changes nothing.
func itemWrite(ctx context.Context, itemID string) context.Context {
	return postgres.Scoped(ctx, itemLockKey(itemID))
}

// appendWrite marks ctx's write transactions as only adding rows that no
// other write reads or changes in its transaction (an audit entry, a judge
// verdict cached): on PostgreSQL they wait for no item's writes.
func appendWrite(ctx context.Context) context.Context {
	return postgres.Scoped(ctx, "")
}
