package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/goldtrace/goldtrace/guide"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// LabelWork is what the label screen shows for one item of the actor's
// queue: the item, their draft of it, the lead's send-back notes to them
// and the guide in force (the shipped default stored when the project has
// none). The actor's progress is counted when the queue is empty (the
// empty screen says whether anything was assigned), and when it comes with
// the next item at no cost (a short queue, on PostgreSQL: store.NextWork);
// otherwise the screen draws the item first and asks Progress after, as
// counting a long queue costs more than loading the item.
type LabelWork struct {
	// Progress is the actor's assignments by status when Empty or
	// counted with the item; nil otherwise.
	Progress map[string]int
	// Empty: the queue has nothing left to label (the other fields but
	// Progress are zero).
	Empty bool
	Item  trace.Item
	// Skipped: the item is one the actor skipped, brought back at the end
	// of the queue (pending again from now on); Returned is the reason
	// they gave.
	Skipped      bool
	Returned     string
	Draft        []byte // nil without a draft
	DraftSeconds int
	Notes        []store.Note
	Guide        store.GuideVersion
}

// LabelWork loads itemID of the actor's queue, or the next item to label
// when itemID is "" (the longest-skipped item not in skipped once the queue
// is done). It authorizes once for the whole load, where loading it piece
// by piece (Progress, NextAssignment, Item, Draft, Notes, EnsureGuide) reads
// the actor's role six times: the label screen loads an item after every
// submit. reviewer must be the actor, and an item not assigned to them is
// not found.
func (s *Session) LabelWork(ctx context.Context, reviewer, batch, itemID string, skipped []string) (_ LabelWork, err error) {
	defer s.shown(&err)
	var w LabelWork
	var actor Actor
	var next store.NextWork
	var nextErr error
	if itemID != "" {
		// The item's read carries the authorize read, and says whether
		// the item is the actor's (mayOpen decides from it).
		actor, next.Work, err = ownRead(s, ctx, ActQueueRead, reviewer, func(ctx context.Context) (store.ItemWork, error) {
			iw, err := s.app.st.ItemWork(ctx, itemID, reviewer)
			nextErr = err
			return iw, nil
		})
	} else {
		// The read of the queue's next item (with the item: one round
		// trip on PostgreSQL) carries the authorize read (ownRead); its
		// error is labelItem's to report.
		actor, next, err = ownRead(s, ctx, ActQueueRead, reviewer, func(ctx context.Context) (store.NextWork, error) {
			nw, err := s.app.st.NextWork(ctx, reviewer, batch)
			nextErr = err
			return nw, nil
		})
	}
	if err != nil {
		return w, err
	}
	for _, act := range []Action{ActLabelSubmit, ActGuideRead} { // returning a skipped item; the guide
		if err := Authorize(actor, act); err != nil {
			return w, s.app.refused(ctx, actor, act, "", err)
		}
	}
	if err := s.labelItem(ctx, actor, reviewer, batch, itemID, skipped, next, nextErr, &w); err != nil || !w.Empty {
		return w, err
	}
	if w.Progress, err = s.app.st.Progress(ctx, reviewer, batch); err != nil {
		return LabelWork{}, fmt.Errorf("load progress: %w", err)
	}
	return w, nil
}

// labelItem loads LabelWork's item part (and the progress counted with
// it) into w from what was read: when itemID is "", next and nextErr are
// what NextWork answered, otherwise next.Work and nextErr are what
// ItemWork answered.
func (s *Session) labelItem(ctx context.Context, actor Actor, reviewer, batch, itemID string, skipped []string, next store.NextWork, nextErr error, w *LabelWork) error {
	st := s.app.st
	var err error
	var iw store.ItemWork
	if itemID == "" {
		err := nextErr
		switch {
		case next.Assignment.ItemID != "" && err != nil:
			return fmt.Errorf("load item %s: %w", next.Assignment.ItemID, err)
		case errors.Is(err, store.ErrNotFound):
			itemID, w.Returned, err = st.ReturnSkipped(ctx, reviewer, batch, skipped)
			if errors.Is(err, store.ErrNotFound) {
				w.Empty = true
				return nil
			} else if err != nil {
				return fmt.Errorf("load skipped items: %w", err)
			}
			w.Skipped = true
		case err != nil:
			return fmt.Errorf("load queue: %w", err)
		default:
			itemID, iw, w.Progress = next.Assignment.ItemID, next.Work, next.Progress
		}
	} else if Authorize(actor, ActAdjudicate) != nil && !next.Work.Assigned {
		// As mayOpen: not the actor's, so not found, whatever the read
		// found of it.
		return fmt.Errorf("item %s: %w", itemID, ErrNotFound)
	} else if nextErr != nil {
		return fmt.Errorf("load item %s: %w", itemID, nextErr)
	} else {
		iw = next.Work
	}
	if iw.Item.ID == "" {
		if iw, err = st.ItemWork(ctx, itemID, reviewer); err != nil {
			return fmt.Errorf("load item %s: %w", itemID, err)
		}
	}
	w.Item, w.Draft, w.DraftSeconds, w.Guide = iw.Item, iw.Draft, iw.DraftSeconds, iw.Guide
	// A note to another reviewer may speak of that reviewer's answer.
	w.Notes = sendBacksTo(iw.Notes, reviewer)
	if !iw.HasGuide {
		if w.Guide, err = st.EnsureGuide(ctx, guide.ID(guide.Default()), guide.Default(), "goldtrace"); err != nil {
			return fmt.Errorf("load guide: %w", err)
		}
	}
	return nil
}
