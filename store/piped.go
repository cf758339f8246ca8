package store

import (
	"context"

	"github.com/goldtrace/goldtrace/store/postgres"
)

// pipedTx is a PostgreSQL write transaction sent in rounds
// (postgres.Piped), with what WithTx adds to one: ctx's audit entry,
// written in the first round only while the SSH key the actor came with
// is still theirs (ErrRevoked otherwise, found before the transaction
// commits: keys are removed by writes that run alone, so the check holds
// to the commit).
type pipedTx struct {
	*postgres.Piped
	s     *Store
	ctx   context.Context
	first bool
}

// withPiped runs fn in a pipedTx.
func (s *Store) withPiped(ctx context.Context, fn func(p *pipedTx) error) error {
	err := s.db.(*postgres.DB).WithPiped(ctx, func(p *postgres.Piped) error {
		return fn(&pipedTx{Piped: p, s: s, ctx: ctx, first: true})
	})
	if err != nil {
		return s.wrap("", err)
	}
	auditCommitted(ctx)
	return nil
}

// Round sends stmts in one round trip, the audit entry after them in the
// first.
func (t *pipedTx) Round(stmts ...postgres.Stmt) error {
	first := t.first
	t.first = false
	if !first {
		return t.Piped.Round(stmts...)
	}
	// ctx's UserCheck goes first, its Then decides after the round (in
	// every attempt of a transaction begun again).
	var fill func()
	c := writeUserCheck(t.ctx)
	if c != nil {
		var check postgres.Stmt
		check, fill = c.stmt()
		stmts = append([]postgres.Stmt{check}, stmts...)
	}
	q, args, ok := t.s.auditOfKeyStillTheirs(t.ctx)
	var n int64
	if ok {
		stmts = append(stmts, postgres.Stmt{Query: q, Args: args, Affected: &n})
	}
	if err := t.Piped.Round(stmts...); err != nil {
		return err
	}
	if c != nil {
		fill()
		if c.Then != nil {
			if err := c.Then(c); err != nil {
				return err
			}
		}
	}
	if !ok {
		return nil
	}
	return t.s.auditWritten(t.ctx, n)
}

// Commit sends stmts and commits, in one round trip; but the first round
// with an audit entry or a UserCheck is sent on its own before the commit.
func (t *pipedTx) Commit(stmts ...postgres.Stmt) error {
	if _, _, ok := t.s.auditOfKeyStillTheirs(t.ctx); t.first && (ok || writeUserCheck(t.ctx) != nil) {
		if err := t.Round(stmts...); err != nil {
			return err
		}
		stmts = nil
	}
	t.first = false
	return t.Piped.Commit(stmts...)
}

// commitAuditPiped is CommitAudit on PostgreSQL: the entry alone, in one
// round trip with the transaction's begin and commit. Written only while
// the SSH key is still the actor's, it is the transaction's only write, so
// a refused entry commits nothing.
func (s *Store) commitAuditPiped(ctx context.Context) error {
	return s.withPiped(ctx, func(p *pipedTx) error {
		q, args, ok := s.auditOfKeyStillTheirs(ctx)
		if !ok {
			return nil
		}
		var n int64
		if err := p.Piped.Commit(postgres.Stmt{Query: q, Args: args, Affected: &n}); err != nil {
			return err
		}
		return s.auditWritten(ctx, n)
	})
}
