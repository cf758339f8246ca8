package store

import (
	"context"
	"database/sql"
	"strings"
)

// preparedTx is a transaction that prepares each distinct statement once
// and reuses it: a bulk write runs the same dozen statements for every
// unit of a chunk, and preparing them again each time (the driver prepares
// every ExecContext or QueryContext with arguments) was most of its cost.
// The statements close with the transaction.
type preparedTx struct {
	tx    *Tx
	stmts map[string]*sql.Stmt
	// sqlite: the transaction is SQLite's (failFast applies).
	sqlite bool
	// held, when set, holds the items' status changes (updateStatus)
	// until written with held.write.
	held *heldStatuses
}

func newPreparedTx(tx *Tx) *preparedTx { return &preparedTx{tx: tx, stmts: map[string]*sql.Stmt{}} }

// prepared is newPreparedTx for a transaction of s's engine.
func (s *Store) prepared(tx *Tx) *preparedTx {
	p := newPreparedTx(tx)
	p.sqlite = !s.onPostgres()
	return p
}

// failFast turns a multi-row UPDATE run with tx into one that stops at its
// first failing row (UPDATE OR FAIL) on SQLite, where an UPDATE of many
// rows that may fail a constraint (a CHECK, a NOT NULL) otherwise copies
// every page it changes into a statement journal first, to undo its own
// rows alone: a fifth of a labels import's status updates. The bulk
// writers that use it give up the whole transaction on any error, so the
// rows a failed statement changed are rolled back with it. Other engines
// and other Queryers get the statement as it is.
func failFast(tx Queryer, update string) string {
	if p, ok := tx.(*preparedTx); ok && p.sqlite {
		if rest, ok := strings.CutPrefix(update, "UPDATE "); ok {
			return "UPDATE OR FAIL " + rest
		}
	}
	return update
}

func (p *preparedTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := p.stmts[query]; ok {
		return st, nil
	}
	st, err := p.tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	p.stmts[query] = st
	return st, nil
}

func (p *preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (p *preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (p *preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := p.stmt(ctx, query)
	if err != nil {
		// The same statement again, unprepared: its Row carries the error.
		return p.tx.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}
