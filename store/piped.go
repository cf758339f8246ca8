package store

import (
	"context"
	"errors"
	"fmt"

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
	if !t.first {
		return t.Piped.Round(stmts...)
	}
	return t.firstRound(false, stmts)
}

// Commit sends stmts and commits, in one round trip; but a first round
// with an audit entry or a UserCheck is sent on its own before the commit
// (its Then decides, and the audit entry's key is checked, before
// anything commits), unless the check asserts the decision in the round
// itself (UserCheck.Roles) and there is no audit entry.
func (t *pipedTx) Commit(stmts ...postgres.Stmt) error {
	if !t.first {
		return t.Piped.Commit(stmts...)
	}
	c := writeUserCheck(t.ctx)
	_, _, audited := t.s.auditOfKeyStillTheirs(t.ctx)
	switch {
	case c != nil && c.Roles != nil && !audited:
		return t.firstRound(true, stmts)
	case c != nil || audited:
		if err := t.firstRound(false, stmts); err != nil {
			return err
		}
		return t.Piped.Commit()
	}
	t.first = false
	return t.Piped.Commit(stmts...)
}

// firstRound sends the transaction's first round: ctx's UserCheck first
// (and its assertion when the round commits), then stmts, then the audit
// entry; the check's Then decides after the round (in every attempt of a
// transaction begun again).
func (t *pipedTx) firstRound(commit bool, stmts []postgres.Stmt) error {
	t.first = false
	var fill func()
	c := writeUserCheck(t.ctx)
	if c != nil {
		var check postgres.Stmt
		check, fill = c.stmt()
		head := []postgres.Stmt{check}
		if commit {
			head = append(head, c.guard())
		}
		stmts = append(head, stmts...)
	}
	q, args, ok := t.s.auditOfKeyStillTheirs(t.ctx)
	var n int64
	if ok {
		stmts = append(stmts, postgres.Stmt{Query: q, Args: args, Affected: &n})
	}
	send := t.Piped.Round
	if commit {
		send = t.Piped.Commit
	}
	err := send(stmts...)
	refused := errors.Is(err, errUserRefused)
	if err != nil && !refused {
		return err
	}
	if c != nil {
		fill()
		if err := c.Then(c); err != nil {
			return err
		}
		if refused {
			// The assertion and Then decided differently: nothing was
			// written, and the caller is told so.
			return fmt.Errorf("user %s: %w", c.Name, errUserRefused)
		}
	}
	if !ok {
		return nil
	}
	return t.s.auditWritten(t.ctx, n)
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
