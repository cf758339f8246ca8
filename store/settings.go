package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// SettingReviewAgreed, when "true", turns auto-accept off: items whose labels
// agree do not become gold at once but wait in the lead's queue as disputed
// items with the dispute kind "review", until a lead accepts (or changes)
// them.
const SettingReviewAgreed = "review_agreed"

// knownSettings are the settings a lead may change, with their kinds.
var knownSettings = map[string]string{SettingReviewAgreed: "bool"}

// Setting reads a project setting; "" when it was never set.
func (s *Store) Setting(ctx context.Context, key string) (string, error) {
	return setting(ctx, s.r, key)
}

func setting(ctx context.Context, q Queryer, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// Settings lists every known setting with its value ("" when unset).
func (s *Store) Settings(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	for k := range knownSettings {
		v, err := s.Setting(ctx, k)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// SetSetting changes a project setting; only a lead may.
func (s *Store) SetSetting(ctx context.Context, lead, key, value string) error {
	kind, ok := knownSettings[key]
	if !ok {
		return fmt.Errorf("unknown setting %q (known: %s)", key, SettingReviewAgreed)
	}
	if kind == "bool" {
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("setting %s: %q is not true or false", key, value)
		}
		value = strconv.FormatBool(b)
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		if err := requireLead(ctx, tx, lead); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO settings(key, value, updated_by, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
			key, value, lead, s.now())
		return err
	})
}

// reviewAgreed reports whether agreed items wait for a lead.
func reviewAgreed(ctx context.Context, q Queryer) (bool, error) {
	v, err := setting(ctx, q, SettingReviewAgreed)
	return v == "true", err
}
