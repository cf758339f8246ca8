package store

import (
	"context"
	"time"

	"github.com/goldtrace/goldtrace/review"
)

// SubmitCheckedLabelStream is SubmitLabels for labels already checked
// (each with CheckSubmittable against LabelTargets read for it; the writes
// check each again as they go) that arrive while the earlier ones are
// being written (labels import checks a file's labels beside writing
// those it has checked): the labels received on in
// are written in the order sent, in SubmitLabels' short transactions, all
// or nothing, and the Settlements returned are in that order. The caller
// closes in once every label is sent; it gives up (a label further on
// failed its check) by cancelling ctx, and every label written is then
// taken back as after a failed write: the error is ctx's (in a
// *KeptLabelsError when some could not be).
//
// On PostgreSQL the labels are written once in is closed (its writers
// split them by item, see submitLabelsPostgres): giving up before then
// leaves nothing to take back.
//
// While no label is waiting the write lock is free: a transaction takes
// the labels already received (and, stretched, those received within
// labelsGrace), and the call waits for more with none open. It holds only
// the labels not yet written (the sender is held back by in's buffer). On
// an error it stops receiving: a sender selects on the call's return too.
// ctx's audit entry commits with the last labels, so an action that learns
// its object while sending sets it (SetAuditObject) before closing in.
func (s *Store) SubmitCheckedLabelStream(ctx context.Context, in <-chan CheckedLabels) ([]Settlement, error) {
	return s.submitFed(ctx, &labelFeed{in: in, owned: true}, labelsPace)
}

// labelFeed is the labels a submit writes: given at once (allLabels) or
// received from a channel as they are checked.
type labelFeed struct {
	in    <-chan CheckedLabels
	held  []review.Label // labels base… received and not yet written
	prep  []*labelPrep   // theirs (nil: none)
	base  int
	ended bool // in is closed (or there is none): held is all that is left
	owned bool // held is the feed's own: the labels written are let go
	// fresh, when set, says whether the preps' targets may be used
	// (LabelStream).
	fresh *labelFreshness
}

// allLabels feeds labels given at once.
func allLabels(labels []review.Label) *labelFeed {
	return &labelFeed{held: labels, ended: true}
}

// known is how many labels are known to come: all of them when they were
// given at once, else none yet.
func (f *labelFeed) known() int {
	if f.in == nil {
		return f.base + len(f.held)
	}
	return 0
}

// ready takes the labels waiting on in, without waiting for more, until it
// has received labels up to need (exclusive); it returns how many have been
// received.
func (f *labelFeed) ready(need int) int {
	for !f.ended && f.base+len(f.held) < need {
		select {
		case b, ok := <-f.in:
			f.take(b, ok)
		default:
			return f.base + len(f.held)
		}
	}
	return f.base + len(f.held)
}

// soon is ready(need), waiting up to labelsGrace for labels to come
// when none is ready and grace is set.
func (f *labelFeed) soon(need int, grace bool) int {
	if n := f.ready(need); n >= need || f.ended || !grace {
		return n
	}
	t := time.NewTimer(labelsGrace)
	defer t.Stop()
	select {
	case b, ok := <-f.in:
		f.take(b, ok)
	case <-t.C:
	}
	return f.ready(need)
}

// wait waits until a label after the first from has been received (true)
// or in is closed without one (false).
func (f *labelFeed) wait(ctx context.Context, from int) (bool, error) {
	for f.ready(from+1) <= from {
		if f.ended {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case b, ok := <-f.in:
			f.take(b, ok)
		}
	}
	return true, nil
}

func (f *labelFeed) take(b CheckedLabels, ok bool) {
	if !ok {
		f.ended = true
		return
	}
	f.held = append(f.held, b.Labels...)
	if len(b.prep) == len(b.Labels) {
		f.prep = append(f.prep, b.prep...)
	} else {
		f.prep = append(f.prep, make([]*labelPrep, len(b.Labels))...)
	}
}

// all waits for in to close and returns every label received (a feed
// whose labels were given at once returns them).
func (f *labelFeed) all(ctx context.Context) ([]review.Label, error) {
	for !f.ended {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case b, ok := <-f.in:
			f.take(b, ok)
		}
	}
	return f.held, nil
}

// labels are the labels from i to end (exclusive), received and not yet
// let go.
func (f *labelFeed) labels(i, end int) []review.Label {
	return f.held[i-f.base : end-f.base]
}

// itemEnd is end (exclusive) moved past the labels received next to it
// that are of the same item as the one before it: an item's labels that
// come one after the other are written in one group, which settles the
// item at once (split, the first group sets it labeling and the next
// reads their labels back).
func (f *labelFeed) itemEnd(end int) int {
	for end < f.ready(end+1) && f.held[end-f.base].Item == f.held[end-1-f.base].Item {
		end++
	}
	return end
}

// preps are those labels' preps, when all of them have one (else nil).
func (f *labelFeed) preps(i, end int) []*labelPrep {
	if f.prep == nil {
		return nil
	}
	p := f.prep[i-f.base : end-f.base]
	for _, x := range p {
		if x == nil {
			return nil
		}
	}
	return p
}

// written lets go of the labels before upTo (and their preps), once
// written.
func (f *labelFeed) written(upTo int) {
	if !f.owned || upTo <= f.base {
		return
	}
	n := upTo - f.base
	clear(f.held[:n])
	f.held, f.base = f.held[n:], upTo
	if f.prep != nil {
		clear(f.prep[:n])
		f.prep = f.prep[n:]
	}
}

// growTo is out with room for n Settlements.
func growTo(out []Settlement, n int) []Settlement {
	if n > len(out) {
		out = append(out, make([]Settlement, n-len(out))...)
	}
	return out
}

// inFedChunks is inChunks for the labels f receives: transactions run
// while labels are ready (chunk is called with the first not yet written
// and does at least one); when none is, the last one commits and the next
// waits for more with the lock free. With pace.auditLast, ctx's audit
// entry goes in the transaction that writes the last label (or, if in
// closes only after that one committed, in one of its own); with no label
// at all nothing is written.
func (s *Store) inFedChunks(ctx context.Context, f *labelFeed, pace bulkPace, chunk func(tx *Tx, from int, deadline time.Time) (int, error)) error {
	audit := pace.auditLast
	pace.auditLast = false
	from := 0
	var last time.Time // when the last round committed
	for {
		more, err := f.wait(ctx, from)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		if !last.IsZero() {
			if pace.Between != nil {
				pace.Between()
			}
			if err := s.db.PauseForWaiters(ctx, last, pace.Yield); err != nil {
				return err
			}
		}
		final := false
		err = s.paced(ctx, pace, func(tx *Tx, deadline time.Time) (bool, error) {
			done, err := chunk(tx, from, deadline)
			if err != nil {
				return false, err
			}
			from += done
			f.written(from)
			if f.ready(from+1) > from {
				return true, nil
			}
			if final = f.ended && audit; final {
				return false, s.auditInTx(ctx, tx)
			}
			return false, nil
		})
		if err != nil {
			return err
		}
		if final {
			auditCommitted(ctx)
			return nil
		}
		last = time.Now()
	}
	if !audit || from == 0 {
		return nil
	}
	// in closed after the last labels committed: the entry on its own.
	pace.auditLast = true
	return s.paced(ctx, pace, func(*Tx, time.Time) (bool, error) { return false, nil })
}
