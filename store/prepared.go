package store

import (
	"context"
	"database/sql"
)

// preparedTx is a transaction that prepares each distinct statement once
// and reuses it: a bulk write runs the same dozen statements for every
// unit of a chunk, and preparing them again each time (the driver prepares
// every ExecContext or QueryContext with arguments) was most of its cost.
// The statements close with the transaction.
type preparedTx struct {
	tx    *Tx
	stmts map[string]*sql.Stmt
}

func newPreparedTx(tx *Tx) *preparedTx { return &preparedTx{tx: tx, stmts: map[string]*sql.Stmt{}} }

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
