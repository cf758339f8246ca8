package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// Session is the App as one actor's screens use it: the method names and
// arguments are the store's, so the screens' I/O reads as before, but every
// call is authorized for the session's actor. A reviewer argument other than
// the actor reads as "not found" (a reviewer cannot open another reviewer's
// queue, drafts or labels); a lead argument is replaced by the actor. Its
// errors say where the database lives only to those who may see it
// (App.Shown).
type Session struct {
	app   *App
	actor Actor
}

// As is the session of actor.
func (a *App) As(actor Actor) *Session { return &Session{app: a, actor: actor} }

// Actor is who the session acts as.
func (s *Session) Actor() Actor { return s.actor }

// Open authorizes opening a screen that needs action and records it (a
// lead's adjudication or dashboard session is a lead read). It returns the
// actor with its current role.
func (s *Session) Open(ctx context.Context, action Action, object string) (_ Actor, err error) {
	defer s.shown(&err)
	actor, err := s.app.authorize(ctx, s.actor, action, object)
	if err != nil {
		return actor, err
	}
	s.actor = actor
	if action == ActQueueRead {
		return actor, nil // opening one's own queue reads nothing of others'
	}
	return actor, s.app.audit(ctx, actor, action, object+" (screen opened)")
}

// own authorizes action for the actor's own data: reviewer must be the
// actor, or the answer is not found.
func (s *Session) own(ctx context.Context, action Action, reviewer string) error {
	_, err := s.ownAs(ctx, action, reviewer)
	return err
}

// ownAs is own, returning the actor with its current role.
func (s *Session) ownAs(ctx context.Context, action Action, reviewer string) (Actor, error) {
	actor, err := s.app.authorize(ctx, s.actor, action, "")
	if err != nil {
		return actor, err
	}
	if reviewer != actor.Name {
		return actor, fmt.Errorf("%s's queue: %w", reviewer, ErrNotFound)
	}
	return actor, nil
}

// lead authorizes an adjudication step and returns the lead's name.
func (s *Session) lead(ctx context.Context, object string) (Actor, error) {
	return s.app.authorize(ctx, s.actor, ActAdjudicate, object)
}

// ownRead is ownAs for an action whose first store call, read, only
// reads: the actor's user and key are read in read's round trip where the
// engine can (authorizeRead).
func ownRead[T any](s *Session, ctx context.Context, action Action, reviewer string, read func(context.Context) (T, error)) (Actor, T, error) {
	if reviewer != s.actor.Name {
		// Refused or not found, as ownAs says, without reading.
		actor, err := s.ownAs(ctx, action, reviewer)
		var zero T
		return actor, zero, err
	}
	return authorizeRead(s.app, ctx, s.actor, action, "", read)
}

// Progress counts the actor's assignments by status.
func (s *Session) Progress(ctx context.Context, reviewer, batch string) (_ map[string]int, err error) {
	defer s.shown(&err)
	_, p, err := ownRead(s, ctx, ActQueueRead, reviewer, func(ctx context.Context) (map[string]int, error) {
		return s.app.st.Progress(ctx, reviewer, batch)
	})
	return p, err
}

// Item loads an item: a reviewer only one assigned to them (otherwise not
// found); a lead any.
func (s *Session) Item(ctx context.Context, id string) (_ trace.Item, err error) {
	defer s.shown(&err)
	actor, err := s.app.authorize(ctx, s.actor, ActQueueRead, "")
	if err != nil {
		return trace.Item{}, err
	}
	if err := s.mayOpen(ctx, actor, id); err != nil {
		return trace.Item{}, err
	}
	return s.app.st.Item(ctx, id)
}

// mayOpen is nil when actor may open itemID: a lead any item, a reviewer
// only one assigned to them (another is not found).
func (s *Session) mayOpen(ctx context.Context, actor Actor, itemID string) error {
	if Authorize(actor, ActAdjudicate) == nil {
		return nil
	}
	if _, err := s.app.st.Assignment(ctx, itemID, actor.Name); err != nil {
		return fmt.Errorf("item %s: %w", itemID, ErrNotFound)
	}
	return nil
}

// Notes are an item's notes: a lead sees all; a reviewer only the
// send-backs addressed to them, on an item assigned to them (a note to
// another reviewer may speak of that reviewer's answer).
func (s *Session) Notes(ctx context.Context, itemID string) (_ []store.Note, err error) {
	defer s.shown(&err)
	actor, err := s.app.authorize(ctx, s.actor, ActQueueRead, "")
	if err != nil {
		return nil, err
	}
	if err := s.mayOpen(ctx, actor, itemID); err != nil {
		return nil, err
	}
	all, err := s.app.st.Notes(ctx, itemID)
	if err != nil || Authorize(actor, ActAdjudicate) == nil {
		return all, err
	}
	return sendBacksTo(all, actor.Name), nil
}

// sendBacksTo are the send-back notes of notes addressed to reviewer (or
// to all the item's reviewers): all a reviewer may read of an item's notes.
func sendBacksTo(notes []store.Note, reviewer string) []store.Note {
	var mine []store.Note
	for _, n := range notes {
		if n.Kind == store.NoteSendBack && (len(n.To) == 0 || slices.Contains(n.To, reviewer)) {
			mine = append(mine, n)
		}
	}
	return mine
}

// EnsureGuide is the guide in force (the shipped default stored when the
// project has none).
func (s *Session) EnsureGuide(ctx context.Context, id, body, author string) (_ store.GuideVersion, err error) {
	defer s.shown(&err)
	return s.app.EnsureGuide(ctx, s.actor, id, body, author)
}

// SaveDraft autosaves the actor's draft (not audited: it is saved every
// few keystrokes and changes nothing anyone else sees).
// On PostgreSQL the check of the actor's user and key is asserted in the
// draft's own round trip (checkedWrite).
func (s *Session) SaveDraft(ctx context.Context, itemID, reviewer string, body []byte, seconds int) (err error) {
	defer s.shown(&err)
	return s.checkedWrite(ctx, ActLabelSubmit, reviewer, "", func(ctx context.Context, _ Actor) error {
		return s.app.st.SaveDraft(ctx, itemID, reviewer, body, seconds)
	})
}

// SubmitLabel submits the actor's label. It says only whether the label
// was stored: whether it settled the item, and how it compared with the
// other reviewers', is kept from every screen (a lead sees it on the
// adjudication screen).
//
// A submit of the answer the reviewer's stored label already gives is
// stored: the retry of a submit whose commit the database made but never
// answered (the server or the connection went as it committed), which
// the store refuses as already submitted. Such a retry adds nothing to the
// audit log: the entry of the submit that stored the label committed with
// it (act), and a write refused by the store is not audited, as a guide
// set to the text in force is not.
func (s *Session) SubmitLabel(ctx context.Context, l review.Label) (err error) {
	defer s.shown(&err)
	err = s.ownWrite(ctx, ActLabelSubmit, l.Reviewer, "submit "+l.Item, func(ctx context.Context) error {
		_, err := s.app.st.SubmitLabel(ctx, l)
		return err
	})
	if errors.Is(err, ErrConflict) {
		if stored, serr := s.app.st.Label(ctx, l.Item, l.Reviewer); serr == nil && sameAnswer(stored, l) {
			return nil
		}
	}
	return err
}

// sameAnswer reports whether two labels of an item by one reviewer give
// the same answer (whenever, and however long, each took).
func sameAnswer(a, b review.Label) bool {
	if a.Decision != b.Decision || a.Rationale != b.Rationale || a.GuideVersion != b.GuideVersion || a.SawObserved != b.SawObserved {
		return false
	}
	calls := func(l review.Label) ([]byte, error) {
		if len(l.Calls) == 0 {
			return []byte("[]"), nil
		}
		return json.Marshal(l.Calls) // arguments compacted: as stored
	}
	ca, errA := calls(a)
	cb, errB := calls(b)
	return errA == nil && errB == nil && bytes.Equal(ca, cb)
}

// SkipItem skips an item of the actor's queue.
func (s *Session) SkipItem(ctx context.Context, itemID, reviewer, reason string) (err error) {
	defer s.shown(&err)
	return s.ownWrite(ctx, ActLabelSubmit, reviewer, "skip "+itemID, func(ctx context.Context) error {
		return s.app.st.SkipItem(ctx, itemID, reviewer, reason)
	})
}

// LastSubmitted is the item the actor submitted last.
func (s *Session) LastSubmitted(ctx context.Context, reviewer, batch string) (_ string, err error) {
	defer s.shown(&err)
	if err := s.own(ctx, ActQueueRead, reviewer); err != nil {
		return "", err
	}
	return s.app.st.LastSubmitted(ctx, reviewer, batch)
}

// Reopen takes back the actor's submitted label; the store refuses it once
// the item has been compared.
func (s *Session) Reopen(ctx context.Context, itemID, reviewer string, toDraft func(review.Label) ([]byte, error)) (_ review.Label, err error) {
	defer s.shown(&err)
	actor, err := s.ownAs(ctx, ActLabelReopen, reviewer)
	if err != nil {
		return review.Label{}, err
	}
	return act(s.app, ctx, actor, ActLabelReopen, "reopen "+itemID, func(ctx context.Context) (review.Label, error) {
		return s.app.st.Reopen(ctx, itemID, reviewer, toDraft)
	})
}

// DisputedQueue is the lead's queue of disputes.
func (s *Session) DisputedQueue(ctx context.Context, f store.DisputeFilter) (_ []store.Dispute, err error) {
	defer s.shown(&err)
	if _, err := s.lead(ctx, ""); err != nil {
		return nil, err
	}
	return s.app.st.DisputedQueue(ctx, f)
}

// ItemStatusCounts counts items by status (leads: it has the
// agreed/disputed split).
func (s *Session) ItemStatusCounts(ctx context.Context, batch string) (_ map[string]int, err error) {
	defer s.shown(&err)
	if _, err := s.lead(ctx, ""); err != nil {
		return nil, err
	}
	return s.app.st.ItemStatusCounts(ctx, batch)
}

// ItemLabels are every reviewer's labels of an item: a lead read, audited.
// To anyone else they do not exist.
func (s *Session) ItemLabels(ctx context.Context, itemID string) (_ []review.Label, err error) {
	defer s.shown(&err)
	actor, err := s.app.current(ctx, s.actor)
	if err != nil {
		return nil, err
	}
	if Authorize(actor, ActAdjudicate) != nil {
		return nil, fmt.Errorf("labels of %s: %w", itemID, ErrNotFound)
	}
	ls, err := s.app.st.ItemLabels(ctx, itemID)
	if err != nil {
		return nil, err
	}
	return ls, s.app.audit(ctx, actor, ActLabelsReadAll, "labels of "+itemID)
}

// Resolve records the lead's decision (the resolution's Lead is the actor).
func (s *Session) Resolve(ctx context.Context, r store.Resolution) (_ review.Gold, err error) {
	defer s.shown(&err)
	return s.app.Resolve(ctx, s.actor, r)
}

// SendBack returns an item to its reviewers; lead is the actor whatever
// the argument says.
func (s *Session) SendBack(ctx context.Context, itemID, _, note string, to []string, force bool) (err error) {
	defer s.shown(&err)
	return s.app.SendBack(ctx, s.actor, itemID, note, to, force)
}

// ProposeGuideChange notes a guide proposal; lead is the actor.
func (s *Session) ProposeGuideChange(ctx context.Context, itemID, _, body string) (err error) {
	defer s.shown(&err)
	return s.app.ProposeGuideChange(ctx, s.actor, itemID, body)
}

// GoldFingerprint changes whenever the gold does (the dashboard polls it).
func (s *Session) GoldFingerprint(ctx context.Context) (_ string, err error) {
	defer s.shown(&err)
	if _, err := s.app.authorize(ctx, s.actor, ActDashboard, ""); err != nil {
		return "", err
	}
	return s.app.st.GoldFingerprint(ctx)
}

// GoldTraces reads the current gold (unexported: leads only).
func (s *Session) GoldTraces(ctx context.Context, f store.GoldFilter) (_ []dataset.TraceGold, err error) {
	defer s.shown(&err)
	if _, err := s.app.authorize(ctx, s.actor, ActScoreStore, ""); err != nil {
		return nil, err
	}
	return s.app.st.GoldTraces(ctx, f)
}

// Status is the status as the actor may see it (a lead's is not audited
// per poll here: opening the dashboard was).
func (s *Session) Status(ctx context.Context, q store.StatusQuery) (_ store.Status, err error) {
	defer s.shown(&err)
	actor, err := s.app.authorize(ctx, s.actor, ActStatusTotals, "")
	if err != nil {
		return store.Status{}, err
	}
	q.As = actor.Name
	return s.app.st.Status(ctx, q)
}

// BatchSamples lists how each batch was drawn and its items (leads: the
// dashboard compares the model's accuracy per batch).
func (s *Session) BatchSamples(ctx context.Context) (_ []store.BatchSample, err error) {
	defer s.shown(&err)
	if _, err := s.app.authorize(ctx, s.actor, ActStatusDetails, ""); err != nil {
		return nil, err
	}
	return s.app.st.BatchSamples(ctx)
}

// OpenItemCounts counts the items still sampled or being labeled.
func (s *Session) OpenItemCounts(ctx context.Context, batch string) (sampled, labeling int, err error) {
	defer s.shown(&err)
	if _, err := s.app.authorize(ctx, s.actor, ActStatusTotals, ""); err != nil {
		return 0, 0, err
	}
	return s.app.st.OpenItemCounts(ctx, batch)
}

// ReleaseAssignments moves a reviewer's skipped (and stalled) items to
// another reviewer, as goldtrace assign --release does: a lead's decision,
// authorized and audited the same way (the request's Lead is the actor).
func (s *Session) ReleaseAssignments(ctx context.Context, req store.ReleaseRequest) (released, kept []store.Release, err error) {
	defer s.shown(&err)
	return s.app.ReleaseAssignments(ctx, s.actor, req)
}

// Users lists the project's users (who may receive released items).
func (s *Session) Users(ctx context.Context) (_ []store.User, err error) {
	defer s.shown(&err)
	return s.app.Users(ctx, s.actor)
}
