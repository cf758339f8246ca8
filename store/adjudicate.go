package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/review"
)

// Adjudication actions (adjudications.action).
const (
	ActionPick     = "pick"            // one reviewer's label becomes gold
	ActionMerge    = "merge"           // a label written by the lead becomes gold
	ActionBoth     = "both_acceptable" // one label expected, the other acceptable
	ActionRules    = "rules"           // argument rules changed on existing gold
	ActionSendBack = "send_back"       // labels returned to reviewers
	ActionAccept   = "accept"          // agreed labels accepted (review_agreed on)
)

// Resolution is a lead's decision on one item. Exactly one of Pick, Label,
// Both or Accept is set, or none of them and Rules only (ActionRules: change
// the argument rules of an item that already has gold).
type Resolution struct {
	Item   string
	Lead   string
	Reason string // required: why, in a few words
	// Pick names the reviewer whose label becomes gold.
	Pick string
	// Label is a merged or edited label (decision, calls, rationale); its
	// reviewer is ignored. An empty rationale takes the reviewers' ones.
	Label *review.Label
	// Both names two reviewers: the first's calls are expected, the
	// second's are acceptable too.
	Both []string
	// Accept takes the agreed labels of an item held for review.
	Accept bool
	// Rules are attached to the resulting gold's calls.
	Rules []review.ArgRuleSpec
	// Force re-adjudicates an item that already has gold (agreed or
	// adjudicated, exported or not: exported versions are immutable copies,
	// the next export carries the change).
	Force bool
	// Seen, when set, is the item's updated_at when the lead looked at it
	// (Dispute.UpdatedAt); if the item changed since, nothing is written and
	// ErrConflict is returned.
	Seen string
}

func (r Resolution) action() (string, error) {
	n := 0
	action := ActionRules
	if r.Pick != "" {
		n, action = n+1, ActionPick
	}
	if r.Label != nil {
		n, action = n+1, ActionMerge
	}
	if len(r.Both) > 0 {
		n, action = n+1, ActionBoth
	}
	if r.Accept {
		n, action = n+1, ActionAccept
	}
	switch {
	case n > 1:
		return "", errors.New("choose one of pick, label, both or accept")
	case n == 0 && len(r.Rules) == 0:
		return "", errors.New("nothing to decide: give pick, label, both, accept or rules")
	case len(r.Both) > 0 && (len(r.Both) != 2 || r.Both[0] == r.Both[1]):
		return "", errors.New("both needs two different reviewers")
	}
	return action, nil
}

// Resolve applies a lead's decision in one transaction: the gold row
// (adjudicated, or agreed for Accept), the item status, and an audit row in
// adjudications with the lead, the time, the reason and what was decided
// (including the gold it replaced). Only leads may resolve (ErrForbidden);
// only disputed items, or with Force items that have gold (ErrConflict). Of
// two leads resolving the same item at once exactly one wins; the other gets
// ErrConflict naming the winner.
func (s *Store) Resolve(ctx context.Context, r Resolution) (review.Gold, error) {
	action, err := r.action()
	if err != nil {
		return review.Gold{}, err
	}
	if strings.TrimSpace(r.Reason) == "" {
		return review.Gold{}, errors.New("a resolution needs a reason")
	}
	var g review.Gold
	err = s.WithTx(ctx, func(tx *Tx) error {
		if err := requireLead(ctx, tx, r.Lead); err != nil {
			return err
		}
		cur, err := loadItemState(ctx, tx, r.Item)
		if err != nil {
			return err
		}
		if err := cur.check(r, action); err != nil {
			return err
		}
		labels, err := itemLabels(ctx, tx, r.Item)
		if err != nil {
			return err
		}
		if g, err = decideGold(r, action, labels, cur); err != nil {
			return err
		}
		if err := review.ApplyArgRules(&g, r.Rules); err != nil {
			return err
		}
		if len(r.Rules) > 0 {
			// A lead who changes what counts as correct decided the gold:
			// agreed gold given rules becomes adjudicated, by that lead.
			g.Status = review.GoldAdjudicated
		}
		g.Adjudicator, g.Reason = "", r.Reason
		if g.Status == review.GoldAdjudicated {
			// Agreed gold has no adjudicator (an accepting lead is in the
			// adjudications log), or no export could carry it.
			g.Adjudicator = r.Lead
		}
		now := s.now()
		g.UpdatedAt = s.Now()
		if err := putGold(ctx, tx, g, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE items SET status = ?, updated_at = ? WHERE id = ?`, g.Status, now, r.Item); err != nil {
			return err
		}
		return s.audit(ctx, tx, r.Item, r.Lead, action, r.Reason, auditPayload{
			Pick: r.Pick, Both: r.Both, Label: r.Label, Rules: r.Rules, Gold: &g, Previous: cur.gold})
	})
	return g, err
}

// itemState is what a decision checks before writing.
type itemState struct {
	id, status, updatedAt string
	kinds                 []string
	gold                  *review.Gold
}

func loadItemState(ctx context.Context, q Queryer, itemID string) (itemState, error) {
	st := itemState{id: itemID}
	var kinds sql.NullString
	err := q.QueryRowContext(ctx, `SELECT i.status, i.updated_at, d.kinds FROM items i LEFT JOIN disputes d ON d.item_id = i.id WHERE i.id = ?`,
		itemID).Scan(&st.status, &st.updatedAt, &kinds)
	if errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("item %q: %w", itemID, ErrNotFound)
	}
	if err != nil {
		return st, err
	}
	if kinds.Valid {
		if err := json.Unmarshal([]byte(kinds.String), &st.kinds); err != nil {
			return st, fmt.Errorf("dispute of %s: kinds: %w", itemID, err)
		}
	}
	g, err := loadGoldRow(ctx, q, itemID)
	if err == nil {
		st.gold = &g
	} else if !errors.Is(err, ErrNotFound) {
		return st, err
	}
	return st, nil
}

// check refuses decisions the item's state does not allow.
func (st itemState) check(r Resolution, action string) error {
	if r.Seen != "" && r.Seen != st.updatedAt {
		return fmt.Errorf("item %s changed since you loaded it (now %s%s): %w", st.id, st.status, st.byWhom(), ErrConflict)
	}
	if action == ActionRules {
		if st.gold == nil {
			return fmt.Errorf("item %s has no gold yet to attach rules to (it is %s): %w", st.id, st.status, ErrConflict)
		}
		return nil
	}
	switch st.status {
	case "disputed":
		if action == ActionAccept && !st.heldForReview() {
			return fmt.Errorf("item %s is disputed (%s), not agreed: pick, merge or mark both acceptable: %w",
				st.id, strings.Join(st.kinds, ", "), ErrConflict)
		}
		return nil
	case "agreed", "adjudicated":
		if r.Force && action != ActionAccept {
			return nil
		}
		return fmt.Errorf("item %s is already %s%s, not disputed (force to re-adjudicate): %w", st.id, st.status, st.byWhom(), ErrConflict)
	}
	return fmt.Errorf("item %s is %s, not disputed: its labels are not all in: %w", st.id, st.status, ErrConflict)
}

func (st itemState) heldForReview() bool {
	return len(st.kinds) == 1 && st.kinds[0] == review.KindReview
}

func (st itemState) byWhom() string {
	if st.gold == nil || st.gold.Adjudicator == "" {
		return ""
	}
	return " by " + st.gold.Adjudicator
}

// decideGold builds the gold answer a decision produces.
func decideGold(r Resolution, action string, labels []review.Label, cur itemState) (review.Gold, error) {
	byReviewer := map[string]review.Label{}
	var reviewers []string
	for _, l := range labels {
		byReviewer[l.Reviewer] = l
		reviewers = append(reviewers, l.Reviewer)
	}
	find := func(name string) (review.Label, error) {
		l, ok := byReviewer[name]
		if !ok {
			return l, fmt.Errorf("item %s has no label by %q (labels by: %s): %w", r.Item, name, strings.Join(reviewers, ", "), ErrNotFound)
		}
		return l, nil
	}
	g := review.Gold{Item: r.Item, Status: review.GoldAdjudicated, Reviewers: nonNil(reviewers), Acceptable: review.NoAcceptable()}
	switch action {
	case ActionAccept:
		if len(labels) == 0 {
			return g, fmt.Errorf("item %s has no labels to accept: %w", r.Item, ErrConflict)
		}
		return review.AgreedGold(labels), nil
	case ActionRules:
		return *cur.gold, nil
	case ActionPick:
		l, err := find(r.Pick)
		if err != nil {
			return g, err
		}
		fillFromLabel(&g, l)
	case ActionBoth:
		first, err := find(r.Both[0])
		if err != nil {
			return g, err
		}
		second, err := find(r.Both[1])
		if err != nil {
			return g, err
		}
		fillFromLabel(&g, first)
		g.Acceptable = append(g.Acceptable, review.GoldCalls(second))
		g.Rationale = review.JoinRationales([]review.Label{first, second})
	case ActionMerge:
		l := *r.Label
		if l.Decision != review.DecisionCall && l.Decision != review.DecisionNoCall {
			return g, fmt.Errorf("label decision %q: must be %s or %s", l.Decision, review.DecisionCall, review.DecisionNoCall)
		}
		if l.Decision == review.DecisionCall && len(l.Calls) == 0 {
			return g, errors.New("label decision is call but it has no calls")
		}
		fillFromLabel(&g, l)
		if strings.TrimSpace(l.Rationale) == "" {
			g.Rationale = review.JoinRationales(labels)
		}
		if g.GuideVersion == "" && len(labels) > 0 {
			g.GuideVersion = labels[0].GuideVersion
		}
	}
	return g, nil
}

func fillFromLabel(g *review.Gold, l review.Label) {
	g.Decision = l.Decision
	g.Calls = review.GoldCalls(l)
	g.Rationale = l.Rationale
	g.GuideVersion = l.GuideVersion
}

// auditPayload is the JSON of adjudications.payload.
type auditPayload struct {
	Pick     string               `json:"pick,omitempty"`
	Both     []string             `json:"both,omitempty"`
	Label    *review.Label        `json:"label,omitempty"`
	Rules    []review.ArgRuleSpec `json:"rules,omitempty"`
	To       []string             `json:"to,omitempty"`
	Gold     *review.Gold         `json:"gold,omitempty"`
	Previous *review.Gold         `json:"previous,omitempty"`
	// Returned holds the labels a send-back removed, so no answer is lost.
	Returned []review.Label `json:"returned,omitempty"`
}

func (s *Store) audit(ctx context.Context, tx *Tx, item, lead, action, reason string, p auditPayload) error {
	payload, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO adjudications(item_id, lead, action, reason, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		item, lead, action, reason, string(payload), s.now())
	return err
}

// requireLead fails with ErrForbidden unless name is a user with role lead.
func requireLead(ctx context.Context, q Queryer, name string) error {
	var role string
	err := q.QueryRowContext(ctx, `SELECT role FROM users WHERE name = ?`, name).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("unknown user %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return err
	}
	if role != RoleLead {
		return fmt.Errorf("%s is a %s; only a lead may do this: %w", name, role, ErrForbidden)
	}
	return nil
}

// RequireLead fails with ErrForbidden unless name is a lead (ErrNotFound
// when there is no such user). Screens that show reviewers' answers call it.
func (s *Store) RequireLead(ctx context.Context, name string) error {
	return requireLead(ctx, s.r, name)
}

// loadGoldRow reads an item's gold answer; ErrNotFound when it has none.
func loadGoldRow(ctx context.Context, q Queryer, itemID string) (review.Gold, error) {
	g := review.Gold{Item: itemID}
	var calls, acceptable, reviewers, updated string
	err := q.QueryRowContext(ctx, `SELECT status, decision, calls, acceptable, rationale, reviewers, adjudicator, guide_version, reason, updated_at
		FROM gold WHERE item_id = ?`, itemID).Scan(&g.Status, &g.Decision, &calls, &acceptable, &g.Rationale, &reviewers,
		&g.Adjudicator, &g.GuideVersion, &g.Reason, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("gold of %s: %w", itemID, ErrNotFound)
	}
	if err != nil {
		return g, err
	}
	for _, f := range []struct {
		name string
		raw  string
		dst  any
	}{{"calls", calls, &g.Calls}, {"acceptable", acceptable, &g.Acceptable}, {"reviewers", reviewers, &g.Reviewers}} {
		if err := json.Unmarshal([]byte(f.raw), f.dst); err != nil {
			return g, fmt.Errorf("gold of %s: %s: %w", itemID, f.name, err)
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, updated); err == nil {
		g.UpdatedAt = t
	}
	return g, nil
}

// GoldOf is an item's current gold answer; ErrNotFound when it has none.
func (s *Store) GoldOf(ctx context.Context, itemID string) (review.Gold, error) {
	return loadGoldRow(ctx, s.r, itemID)
}
