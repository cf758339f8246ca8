package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// JudgeKey identifies one cached judge (or predict) answer.
type JudgeKey struct {
	Endpoint, Model, TemplateSHA256, Kind, InputSHA256 string
}

// JudgeVerdict returns the cached answer for k; ok is false when there is
// none.
func (s *Store) JudgeVerdict(ctx context.Context, k JudgeKey) (verdict []byte, ok bool, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT verdict FROM judge_verdicts
		WHERE endpoint = ? AND model = ? AND template_sha256 = ? AND kind = ? AND input_sha256 = ?`,
		k.Endpoint, k.Model, k.TemplateSHA256, k.Kind, k.InputSHA256).Scan(&verdict)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.wrap("read judge cache", err)
	}
	return verdict, true, nil
}

// PutJudgeVerdict caches a validated answer (one statement: the row is
// written whole or not at all). An existing answer for k is kept.
func (s *Store) PutJudgeVerdict(ctx context.Context, k JudgeKey, verdict []byte) error {
	err := s.writes.alone(func() error {
		return s.db.ExecAlone(appendWrite(context.WithValue(ctx, statusUnchangedKey{}, true)), `INSERT INTO judge_verdicts
		(endpoint, model, template_sha256, kind, input_sha256, verdict, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			k.Endpoint, k.Model, k.TemplateSHA256, k.Kind, k.InputSHA256, string(verdict), s.now())
	})
	if err != nil {
		return s.wrap("write judge cache", err)
	}
	return nil
}

// JudgeCalibration is the summary of one calibration run.
type JudgeCalibration struct {
	CreatedAt    string
	Gold         string
	Kind         string
	Model        string
	Endpoint     string
	PromptSHA256 string
	Summary      []byte // JSON: agreement, kappa, confusion, per tool
}

// AddJudgeCalibration records a calibration run.
// The run and the context's audit entry (WithAudit) commit together.
func (s *Store) AddJudgeCalibration(ctx context.Context, c JudgeCalibration) error {
	err := s.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO judge_calibrations
		(created_at, gold, kind, model, endpoint, prompt_sha256, summary) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			s.now(), c.Gold, c.Kind, c.Model, c.Endpoint, c.PromptSHA256, string(c.Summary))
		return err
	})
	if err != nil {
		return s.wrap("record calibration", err)
	}
	return nil
}

// JudgeCalibrations returns the newest calibration run of each
// (gold, kind, model), newest first; at most limit.
func (s *Store) JudgeCalibrations(ctx context.Context, limit int) ([]JudgeCalibration, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT created_at, gold, kind, model, endpoint, prompt_sha256, summary
		FROM judge_calibrations c
		WHERE id = (SELECT max(id) FROM judge_calibrations d WHERE d.gold = c.gold AND d.kind = c.kind AND d.model = c.model)
		ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, s.wrap("read calibrations", err)
	}
	defer rows.Close()
	var out []JudgeCalibration
	for rows.Next() {
		var c JudgeCalibration
		var summary string
		if err := rows.Scan(&c.CreatedAt, &c.Gold, &c.Kind, &c.Model, &c.Endpoint, &c.PromptSHA256, &summary); err != nil {
			return nil, fmt.Errorf("read calibrations: %w", err)
		}
		c.Summary = []byte(summary)
		out = append(out, c)
	}
	return out, rows.Err()
}
