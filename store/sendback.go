package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goldtrace/goldtrace/review"
)

// Note kinds (notes.kind).
const (
	NoteSendBack      = "send_back"
	NoteGuideProposal = "guide_proposal"
	NoteComment       = "comment"
)

// Note is a remark on an item: a lead sending it back to reviewers (To names
// them), a proposed change to the labeling guide, or a comment.
type Note struct {
	ID        int64    `json:"id"`
	Item      string   `json:"item"`
	Author    string   `json:"author"`
	Kind      string   `json:"kind"`
	Body      string   `json:"body"`
	To        []string `json:"to"`
	CreatedAt string   `json:"created_at"`
}

// SendBack returns a disputed item to its reviewers (the named ones, or all
// who labeled it when to is empty) in one transaction: their labels are
// removed (kept in the adjudication audit row), their assignments are
// pending again, the dispute is cleared, the item is labeling again, and the
// lead's note is stored for them (kind send_back). A reviewer sees the item
// back in their queue with the note (Notes) and labels it afresh, still
// blind to the others. With force an agreed or adjudicated item can be sent
// back too; its gold is removed.
func (s *Store) SendBack(ctx context.Context, itemID, lead, note string, to []string, force bool) error {
	if strings.TrimSpace(note) == "" {
		return errors.New("sending back needs a note for the reviewers")
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		if err := requireLead(ctx, tx, lead); err != nil {
			return err
		}
		cur, err := loadItemState(ctx, tx, itemID)
		if err != nil {
			return err
		}
		if err := cur.check(Resolution{Force: force}, ActionSendBack); err != nil {
			return err
		}
		labels, err := itemLabels(ctx, tx, itemID)
		if err != nil {
			return err
		}
		assigned, err := queryStrings(ctx, tx, `SELECT reviewer FROM assignments WHERE item_id = ? ORDER BY reviewer`, itemID)
		if err != nil {
			return err
		}
		if len(to) == 0 {
			for _, l := range labels {
				to = append(to, l.Reviewer)
			}
			if len(to) == 0 {
				to = assigned
			}
		}
		var returned []review.Label
		for _, r := range to {
			if !slices.Contains(assigned, r) {
				return fmt.Errorf("%q is not assigned item %s (assigned: %s): %w", r, itemID, strings.Join(assigned, ", "), ErrNotFound)
			}
			for _, l := range labels {
				if l.Reviewer == r {
					returned = append(returned, l)
				}
			}
		}
		now := s.now()
		for _, r := range to {
			for _, q := range []string{
				`DELETE FROM labels WHERE item_id = ? AND reviewer = ?`,
				`DELETE FROM drafts WHERE item_id = ? AND reviewer = ?`,
			} {
				if _, err := tx.ExecContext(ctx, q, itemID, r); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE assignments SET status = 'pending', skip_reason = '', updated_at = ? WHERE item_id = ? AND reviewer = ?`,
				now, itemID, r); err != nil {
				return err
			}
		}
		if err := unsettle(ctx, tx, itemID, "labeling", now); err != nil {
			return err
		}
		if err := s.addNote(ctx, tx, itemID, lead, NoteSendBack, note, to); err != nil {
			return err
		}
		return s.audit(ctx, tx, itemID, lead, ActionSendBack, note, auditPayload{To: to, Returned: returned, Previous: cur.gold})
	})
}

// ProposeGuideChange stores a lead's proposal to change the labeling guide,
// prompted by an item (kind guide_proposal).
func (s *Store) ProposeGuideChange(ctx context.Context, itemID, lead, body string) error {
	if strings.TrimSpace(body) == "" {
		return errors.New("a guide proposal needs text")
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		if err := requireLead(ctx, tx, lead); err != nil {
			return err
		}
		if _, err := loadItemState(ctx, tx, itemID); err != nil {
			return err
		}
		return s.addNote(ctx, tx, itemID, lead, NoteGuideProposal, body, nil)
	})
}

func (s *Store) addNote(ctx context.Context, tx *Tx, itemID, author, kind, body string, to []string) error {
	recipients, err := json.Marshal(nonNil(to))
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO notes(item_id, author, kind, body, recipients, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		itemID, author, kind, body, string(recipients), s.now())
	return err
}

// Notes lists an item's notes, oldest first. A reviewer's screen shows the
// send_back notes whose To names them; guide proposals are for leads.
func (s *Store) Notes(ctx context.Context, itemID string) ([]Note, error) {
	rows, err := s.r.QueryContext(ctx, notesQuery, itemID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Note
	for rows.Next() {
		n, err := scanNote(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// notesQuery selects an item's notes, oldest first (scanNote).
const notesQuery = notesSelect + `? ORDER BY id`

// notesSelect is notesQuery up to the item it selects.
const notesSelect = `SELECT id, item_id, author, kind, body, recipients, created_at FROM notes WHERE item_id = `

func scanNote(r scanner) (Note, error) {
	var n Note
	var to string
	if err := r.Scan(&n.ID, &n.Item, &n.Author, &n.Kind, &n.Body, &to, &n.CreatedAt); err != nil {
		return n, err
	}
	if err := json.Unmarshal([]byte(to), &n.To); err != nil {
		return n, fmt.Errorf("note %d: recipients: %w", n.ID, err)
	}
	return n, nil
}

// keptBySendBack reports whether the item's last send-back left reviewer
// out: their label, then in place, stayed through the comparison that
// prompted it (a send-back's recipients label afresh).
func keptBySendBack(ctx context.Context, tx *Tx, itemID, reviewer string) (bool, error) {
	var recipients string
	err := tx.QueryRowContext(ctx, `SELECT recipients FROM notes WHERE item_id = ? AND kind = ? ORDER BY id DESC LIMIT 1`,
		itemID, NoteSendBack).Scan(&recipients)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var to []string
	if err := json.Unmarshal([]byte(recipients), &to); err != nil {
		return false, fmt.Errorf("item %s: send-back recipients: %w", itemID, err)
	}
	return !slices.Contains(to, reviewer), nil
}
