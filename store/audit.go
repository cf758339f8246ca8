package store

import (
	"context"
	"fmt"
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

// AppendAudit records an entry (At is set from the store clock when empty).
func (s *Store) AppendAudit(ctx context.Context, e AuditEntry) error {
	if e.At == "" {
		e.At = s.now()
	}
	if e.Outcome == "" {
		e.Outcome = AuditOK
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO audit(at, actor, role, source, key_fingerprint, action, object, outcome)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, e.At, e.Actor, e.Role, e.Source, e.KeyFingerprint, e.Action, e.Object, e.Outcome)
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		return nil
	})
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
		limit = -1
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
		SELECT * FROM audit WHERE (? = '' OR actor = ?) AND (? = '' OR action = ?) ORDER BY id DESC LIMIT ?) ORDER BY id`,
		f.Actor, f.Actor, f.Action, f.Action, limit)
	return out, err
}
