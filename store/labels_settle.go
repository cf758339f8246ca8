package store

import (
	"context"
	"strings"

	"github.com/goldtrace/goldtrace/review"
)

// settlements collects the outcomes a group of labels settles (each item
// once) and writes them with a few statements for the whole group: the
// gold answers upserted in one, the items agreed in one; the disputed
// items' agreed gold removed, their disputes upserted and the items marked
// disputed in three. What settleLabels writes per item, set-based.
type settlements struct {
	golds    []any // upsertGold's rows, eleven values each
	agreed   []any // item ids
	disputes []any // upsertDispute's rows, four values each
	disputed []any // item ids
}

// add records one settled item's outcome, settled at now (its gold
// answer's updated_at, its dispute's created_at: the lead's queue is in
// that order, as when items settle one by one).
func (w *settlements) add(itemID string, out review.Outcome, now string) error {
	if out.Gold == nil {
		args, err := disputeArgs(itemID, out.Dispute, now)
		if err != nil {
			return err
		}
		w.disputes = append(w.disputes, args...)
		w.disputed = append(w.disputed, itemID)
		return nil
	}
	args, err := goldArgs(*out.Gold, now)
	if err != nil {
		return err
	}
	w.golds = append(w.golds, args...)
	w.agreed = append(w.agreed, itemID)
	return nil
}

// settleRowsPerStatement bounds the rows of one multi-row upsert (11
// values a gold row: well under both engines' limit on parameters).
const settleRowsPerStatement = 500

// write writes what was added, the items' status changes at now.
func (w *settlements) write(ctx context.Context, tx Queryer, now string) error {
	for start := 0; start < len(w.agreed); start += settleRowsPerStatement {
		n := min(settleRowsPerStatement, len(w.agreed)-start)
		if _, err := tx.ExecContext(ctx, multiRow(upsertGold, goldValues, n), w.golds[11*start:11*(start+n)]...); err != nil {
			return err
		}
	}
	if err := updateStatus(ctx, tx, "agreed", w.agreed, now); err != nil {
		return err
	}
	for start := 0; start < len(w.disputed); start += settleRowsPerStatement {
		ids := w.disputed[start:min(start+settleRowsPerStatement, len(w.disputed))]
		if _, err := tx.ExecContext(ctx, `DELETE FROM gold WHERE item_id IN `+placeholderList(len(ids))+` AND status = 'agreed'`, ids...); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, multiRow(upsertDispute, disputeValues, len(ids)), w.disputes[4*start:4*(start+len(ids))]...); err != nil {
			return err
		}
	}
	return updateStatus(ctx, tx, "disputed", w.disputed, now)
}

// updateStatus sets the status of the items ids (held until the
// transaction's end on a preparedTx that holds them).
func updateStatus(ctx context.Context, tx Queryer, status string, ids []any, now string) error {
	if p, ok := tx.(*preparedTx); ok && p.held != nil {
		return p.held.set(status, ids, now)
	}
	for start := 0; start < len(ids); start += settleRowsPerStatement {
		part := ids[start:min(start+settleRowsPerStatement, len(ids))]
		if _, err := tx.ExecContext(ctx, failFast(tx, `UPDATE items SET status = ?, updated_at = ? WHERE id IN `+placeholderList(len(part))),
			append([]any{status, now}, part...)...); err != nil {
			return err
		}
	}
	return nil
}

// multiRow is a one-row INSERT … VALUES (…) statement (upsert) given with
// its VALUES tuple, made to insert n rows.
func multiRow(stmt, values string, n int) string {
	i := strings.Index(stmt, values)
	return stmt[:i] + strings.TrimSuffix(strings.Repeat(values+", ", n), ", ") + stmt[i+len(values):]
}

// placeholderList is "(?, ?, …)" of n placeholders.
func placeholderList(n int) string { return "(?" + strings.Repeat(", ?", n-1) + ")" }
