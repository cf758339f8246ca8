package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
)

// Audit outcomes.
const (
	AuditOK     = "ok"
	AuditDenied = "denied"
)

// AuditEntry is one line of the audit log: who did what to which object,
// how their identity was established, and whether it was allowed.
type AuditEntry struct {
	ID             int64  `json:"id"`
	At             string `json:"at"`
	Actor          string `json:"actor"`
	Role           string `json:"role"`
	Source         string `json:"source"`
	KeyFingerprint string `json:"key_fingerprint,omitempty"`
	Action         string `json:"action"`
	Object         string `json:"object"`
	Outcome        string `json:"outcome"`
}

// AppendAudit records an entry on its own, in a transaction of its own (At
// is set from the store clock when empty): a refusal, or a read that is
// audited. An action's entry goes in the action's own transaction instead
// (WithAudit).
func (s *Store) AppendAudit(ctx context.Context, e AuditEntry) error {
	return s.CommitAudit(WithAudit(ctx, e))
}

// pendingAudit is an audit entry waiting for the transaction that does
// what it records.
type pendingAudit struct {
	entry AuditEntry
	// detail is what the action's transaction found out (how many items
	// it moved), added to the entry's object.
	detail string
	mu     sync.Mutex
	// written: a transaction holding the entry committed.
	written bool
}

type auditKey struct{}

// WithAudit returns a context whose next committed write transaction
// records e: WithTx writes the entry inside that transaction, so the action
// and its audit row commit (or roll back) together. A call that commits no
// transaction under the context (a read, nothing to change) leaves the
// entry for CommitAudit. Bulk writes that span several transactions keep
// the entry out of all but the one that completes the action.
func WithAudit(ctx context.Context, e AuditEntry) context.Context {
	return context.WithValue(ctx, auditKey{}, &pendingAudit{entry: e})
}

// withoutAudit hides ctx's audit entry from the transactions run under the
// returned context (a bulk write's chunks, housekeeping before the action).
func withoutAudit(ctx context.Context) context.Context {
	if ctx.Value(auditKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, auditKey{}, (*pendingAudit)(nil))
}

// CommitAudit writes ctx's audit entry in a transaction of its own unless a
// transaction under ctx has already committed it. It is written even when
// ctx is cancelled: what was done is recorded.
func (s *Store) CommitAudit(ctx context.Context) error {
	p, _ := ctx.Value(auditKey{}).(*pendingAudit)
	if p == nil || p.isWritten() {
		return nil
	}
	// An audit entry alone changes nothing a status reads.
	ctx = appendWrite(context.WithValue(context.WithoutCancel(ctx), statusUnchangedKey{}, true))
	if s.pg {
		return s.commitAuditPiped(ctx)
	}
	// An entry undone with a transaction it shared is written again: a
	// refusal's entry has no caller that would retry it.
	return s.withTxAgainIfUndone(ctx, func(tx *Tx) error { return nil })
}

// statusUnchangedKey marks the context of a transaction that only commits an
// audit entry (CommitAudit).
type statusUnchangedKey struct{}

func (p *pendingAudit) isWritten() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.written
}

// writePendingAudit inserts ctx's audit entry into tx, unless it has been
// committed already.
func (s *Store) writePendingAudit(ctx context.Context, tx *Tx) error {
	p, _ := ctx.Value(auditKey{}).(*pendingAudit)
	if p == nil || p.isWritten() {
		return nil
	}
	e := s.pendingEntry(p)
	_, err := tx.ExecContext(context.WithoutCancel(ctx), `INSERT INTO audit(at, actor, role, source, key_fingerprint, action, object, outcome)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, e.At, e.Actor, e.Role, e.Source, e.KeyFingerprint, e.Action, e.Object, e.Outcome)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// SetAuditObject sets the object of ctx's audit entry, for an action that
// learns it while it runs (SubmitCheckedLabelStream: how many labels came);
// it must be set before the transaction that writes the entry.
func SetAuditObject(ctx context.Context, object string) {
	if p, _ := ctx.Value(auditKey{}).(*pendingAudit); p != nil {
		p.mu.Lock()
		p.entry.Object = object
		p.mu.Unlock()
	}
}

// pendingEntry is p's entry as written: with its detail, time and outcome.
func (s *Store) pendingEntry(p *pendingAudit) AuditEntry {
	p.mu.Lock()
	e := p.entry
	p.mu.Unlock()
	if p.detail != "" {
		e.Object += " (" + p.detail + ")"
	}
	if e.At == "" {
		e.At = s.now()
	}
	if e.Outcome == "" {
		e.Outcome = AuditOK
	}
	return e
}

// writeAuditOfKeyStillTheirs is keyStillTheirs and writePendingAudit in one
// statement, for PostgreSQL, where each is a round trip: the entry is
// written only if the key is still theirs, and ErrRevoked returned
// otherwise. Run last in the transaction, it refuses the same writes as
// keyStillTheirs run first: keys are removed by writes that run alone.
func (s *Store) writeAuditOfKeyStillTheirs(ctx context.Context, tx *Tx) error {
	q, args, ok := s.auditOfKeyStillTheirs(ctx)
	if !ok {
		return nil
	}
	res, err := tx.ExecContext(context.WithoutCancel(ctx), q, args...)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return s.auditWritten(ctx, n)
}

// auditOfKeyStillTheirs is the statement writeAuditOfKeyStillTheirs runs,
// and its arguments; ok is false when ctx has no entry left to write.
func (s *Store) auditOfKeyStillTheirs(ctx context.Context) (query string, args []any, ok bool) {
	p, _ := ctx.Value(auditKey{}).(*pendingAudit)
	if p == nil || p.isWritten() {
		return "", nil, false
	}
	e := s.pendingEntry(p)
	check := e.Source == "ssh" && e.KeyFingerprint != "" && e.Outcome == AuditOK
	if c, _ := ctx.Value(userCheckKey{}).(*UserCheck); c != nil {
		// The caller decides on the user as the transaction reads them
		// (UserCheck), after the entry was made: the role is theirs now.
		return `INSERT INTO audit(at, actor, role, source, key_fingerprint, action, object, outcome)
		SELECT ?, ?, coalesce((SELECT role FROM users WHERE name = ?), ?), ?, ?, ?, ?, ? WHERE NOT ? OR EXISTS (SELECT 1 FROM user_keys WHERE fingerprint = ? AND "user" = ?)`,
			[]any{e.At, e.Actor, e.Actor, e.Role, e.Source, e.KeyFingerprint, e.Action, e.Object, e.Outcome, check, e.KeyFingerprint, e.Actor}, true
	}
	return `INSERT INTO audit(at, actor, role, source, key_fingerprint, action, object, outcome)
		SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT ? OR EXISTS (SELECT 1 FROM user_keys WHERE fingerprint = ? AND "user" = ?)`,
		[]any{e.At, e.Actor, e.Role, e.Source, e.KeyFingerprint, e.Action, e.Object, e.Outcome, check, e.KeyFingerprint, e.Actor}, true
}

// auditWritten is ErrRevoked when the statement of auditOfKeyStillTheirs
// wrote no entry (n rows): the key was not the actor's.
func (s *Store) auditWritten(ctx context.Context, n int64) error {
	if n > 0 {
		return nil
	}
	p, _ := ctx.Value(auditKey{}).(*pendingAudit)
	e := p.entry
	return fmt.Errorf("key %s of %s: %w", e.KeyFingerprint, e.Actor, ErrRevoked)
}

// auditDetail adds what the transaction under way found out to the object
// of ctx's audit entry, if it carries one.
func auditDetail(ctx context.Context, detail string) {
	if p, _ := ctx.Value(auditKey{}).(*pendingAudit); p != nil {
		p.detail = detail
	}
}

// auditCommitted marks ctx's audit entry written once its transaction has
// committed.
func auditCommitted(ctx context.Context) {
	if p, _ := ctx.Value(auditKey{}).(*pendingAudit); p != nil {
		p.mu.Lock()
		p.written = true
		p.mu.Unlock()
	}
}

// AuditFilter narrows AuditLog: by actor, by action, the last Limit entries
// (0: all).
type AuditFilter struct {
	Actor  string
	Action string
	Limit  int
}

// AuditLog returns audit entries, oldest first.
func (s *Store) AuditLog(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = math.MaxInt64 // no limit, on every engine
	}
	var out []AuditEntry
	err := s.scanRows(ctx, func(r scanner) error {
		var e AuditEntry
		if err := r.Scan(&e.ID, &e.At, &e.Actor, &e.Role, &e.Source, &e.KeyFingerprint, &e.Action, &e.Object, &e.Outcome); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	}, `SELECT id, at, actor, role, source, key_fingerprint, action, object, outcome FROM (
		SELECT * FROM audit WHERE (? = '' OR actor = ?) AND (? = '' OR action = ?) ORDER BY id DESC LIMIT ?) a ORDER BY id`,
		f.Actor, f.Actor, f.Action, f.Action, limit)
	return out, err
}

// ErrRevoked: the SSH key an action came with was removed before the
// action's transaction committed; nothing of it was written.
var ErrRevoked = errors.New("the key was removed: nothing was written")

// keyStillTheirs checks, inside the transaction that does an SSH actor's
// action, that the key the actor connected with is still theirs: a write
// that races users key remove or users remove is refused (and rolled
// back with its savepoint), not stored under a removed key.
func keyStillTheirs(ctx context.Context, tx *Tx) error {
	p, _ := ctx.Value(auditKey{}).(*pendingAudit)
	if p == nil || p.isWritten() {
		return nil
	}
	e := p.entry
	if e.Source != "ssh" || e.KeyFingerprint == "" || (e.Outcome != "" && e.Outcome != AuditOK) {
		return nil
	}
	var n int
	err := tx.QueryRowContext(context.WithoutCancel(ctx), `SELECT count(*) FROM user_keys WHERE fingerprint = ? AND "user" = ?`,
		e.KeyFingerprint, e.Actor).Scan(&n)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("key %s of %s: %w", e.KeyFingerprint, e.Actor, ErrRevoked)
	}
	return nil
}
