package store

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store/sqlite"
)

// A labels import checks each label against what it reads of the label's
// item (LabelStream.Targets) with no lock held, and writes the labels it
// has checked under the write lock. What taking a label back needs to know
// of before (groupBefore) is what the check has just read: the writer uses
// that instead of reading it again under the lock, when it can prove that
// nothing but the import itself has committed since the check read it
// (labelFreshness); else it reads it again, as any bulk submit does.

// writeCount counts this store's write transactions, so that a labels
// import's writer can tell whether anything of this process wrote besides
// itself. Every write of the project's tables goes through WithTx, paced,
// an import's relaxed transaction or a copy's (each counts itself with
// ended, inside the transaction: under the write lock, before its commit,
// so a transaction that committed before another began has been counted
// by then), or runs alone outside a transaction (alone: in flight from
// before it starts until it has counted itself, after its commit).
type writeCount struct {
	seq      atomic.Uint64
	inflight atomic.Int64
}

// ended counts a write transaction, inside it.
func (w *writeCount) ended() { w.seq.Add(1) }

// alone runs a write outside a transaction.
func (w *writeCount) alone(write func() error) error {
	w.inflight.Add(1)
	defer func() {
		w.seq.Add(1)
		w.inflight.Add(-1)
	}()
	return write()
}

// load is the count, and whether a write outside a transaction may be
// under way (busy: the count says nothing of it yet). The write lock held,
// a count equal to an earlier one with nothing under way means that no
// write of this process committed in between.
func (w *writeCount) load() (seq uint64, busy bool) {
	busy = w.inflight.Load() > 0
	return w.seq.Load(), busy
}

// versioned is the SQLite engine's WriteVersion, which tells other
// connections' commits (another process's).
type versioned interface {
	WriteVersion(ctx context.Context, wait time.Duration, held func()) (sqlite.WriteVersion, bool)
	TxWriteVersion(ctx context.Context, tx *Tx) (sqlite.WriteVersion, error)
}

// labelFreshness tells a labels import's writer whether what its checks
// read is still what the database holds, but for the import's own writes.
// A check stamps what it reads with epoch, loaded before it reads. The
// writer looks at the start of each of its transactions (the write lock
// held): when this store's write count or the write connection's
// WriteVersion is not what the last look left (the writer's own
// transaction counted), or than the first look found before anything was
// checked, something else committed, and it bumps epoch. So a stamp equal
// to epoch means that nothing else committed since before its read: a
// commit is found at the first look after it landed, and bumps epoch
// there; a stamp loaded before that look is stale, one loaded after it
// comes after the commit, and the read after it sees what it wrote. While
// the writer holds the lock nothing else commits, and what does in a gap
// is found at the next look, before the writer uses anything read.
type labelFreshness struct {
	epoch atomic.Uint64
	// The writer's (and the constructor's) alone:
	s     *Store
	eng   versioned
	known bool   // seq and ver are what to expect at the next look
	seq   uint64 // the write count expected (the writer's own transaction counted)
	ver   sqlite.WriteVersion
	// fromChecks and reread count the groups written from the checks'
	// reads and those read again under the lock (tests).
	fromChecks, reread atomic.Int64
}

// freshnessWait is how long a labels import waits for the write connection
// to take its first look (else its first transaction's look is the first,
// and what was checked before it is read again under the lock).
const freshnessWait = 2 * time.Second

// newLabelFreshness takes the first look, before anything is checked; nil
// on PostgreSQL (its writers read everything under their locks).
func newLabelFreshness(ctx context.Context, s *Store) *labelFreshness {
	eng, ok := s.db.(versioned)
	if !ok || s.pg {
		return nil
	}
	f := &labelFreshness{s: s, eng: eng}
	var busy bool
	// The count is read holding the write connection: no transaction of
	// this process is between its count and its commit meanwhile.
	ver, ok := eng.WriteVersion(ctx, freshnessWait, func() { f.seq, busy = s.writes.load() })
	f.known, f.ver = ok && !busy, ver
	return f
}

// stamp is what a check's read is stamped with: loaded before it reads.
func (f *labelFreshness) stamp() uint64 {
	if f == nil {
		return 0
	}
	return f.epoch.Load()
}

// look runs at the start of each of the writer's transactions: anything
// else committed since the last look (or one that failed) makes every
// stamp loaded before now stale.
func (f *labelFreshness) look(ctx context.Context, tx *Tx) {
	if f == nil {
		return
	}
	seq, busy := f.s.writes.load()
	ver, err := f.eng.TxWriteVersion(ctx, tx)
	if !f.known || busy || err != nil || seq != f.seq || ver != f.ver {
		f.epoch.Add(1)
	}
	// This transaction counts itself as it ends.
	f.known, f.seq, f.ver = err == nil, seq+1, ver
}

// fresh reports whether what was read at stamp is still what the
// database holds (but for the writer's own writes since): called by the
// writer after its transaction's look.
func (f *labelFreshness) fresh(stamp uint64) bool {
	return f != nil && f.known && stamp == f.epoch.Load()
}

// LabelStream is one labels import on a store: the checks read the items
// of the labels (Targets), the labels they pass are prepared for writing
// (Checked) and written as they come (Submit).
type LabelStream struct {
	s     *Store
	fresh *labelFreshness
	names map[string]string // kept by the targets (targetStamp.name)
}

// LabelStream starts a labels import: call it before the first check.
func (s *Store) LabelStream(ctx context.Context) *LabelStream {
	return &LabelStream{s: s, fresh: newLabelFreshness(ctx, s), names: map[string]string{}}
}

// Targets is LabelTargetsWith, also reading what the writer needs to take
// each label back, stamped so the writer knows whether it may use it. It
// is called by one goroutine at a time (the checks').
func (ls *LabelStream) Targets(ctx context.Context, itemIDs []string, tools ToolsetTools) (map[string]LabelTarget, error) {
	if ls.fresh == nil {
		return ls.s.LabelTargetsWith(ctx, itemIDs, tools)
	}
	return ls.s.labelTargetsWith(ctx, itemIDs, tools, &targetStamp{epoch: ls.fresh.stamp(), names: ls.names})
}

// CheckedLabels are labels checked against targets (LabelStream.Checked),
// ready to be written.
type CheckedLabels struct {
	Labels []review.Label
	// befores are the labels' targets' befores (one a label, nil: none),
	// kept without the rest of the targets while the labels wait.
	befores []*targetBefore
	prep    []labelPrep // one a label, or none (made by Submit's preparer)
}

// labelPrep is what writing a label needs that the database does not
// decide, made beside the writer (on the other core) just before it needs
// it: its row, the row's digest, the label as it will read back, and its
// item's before as the check read it (nil: none).
type labelPrep struct {
	row    []any
	digest rowDigest
	stored review.Label
	target *targetBefore
}

// Checked is labels checked against targets (Targets') for Submit.
func (ls *LabelStream) Checked(labels []review.Label, targets map[string]LabelTarget) CheckedLabels {
	if ls.s.pg {
		return CheckedLabels{Labels: labels} // its writers take the labels alone
	}
	befores := make([]*targetBefore, len(labels))
	for i, l := range labels {
		befores[i] = targets[l.Item].before
	}
	return CheckedLabels{Labels: labels, befores: befores}
}

// prepare makes the labels' preps; a label whose row cannot be made
// leaves them all without (the writer fails it).
func (s *Store) prepare(b *CheckedLabels) {
	prep := make([]labelPrep, len(b.Labels))
	for i, l := range b.Labels {
		row, err := s.labelRow(l)
		if err != nil {
			return
		}
		stored, err := scanLabel(rowValues(row))
		if err != nil {
			return
		}
		p := &prep[i]
		p.row, p.digest, p.stored = row, labelRowDigest(row), stored
		if i < len(b.befores) {
			p.target = b.befores[i]
		}
	}
	b.prep, b.befores = prep, nil
}

// preparedAhead is how many pieces of preparedPiece labels the preparer
// makes ready ahead of the writer: enough to keep it busy, few enough that
// the rows of the labels the checks ran far ahead with are not all held
// at once.
const (
	preparedAhead = 2
	preparedPiece = 256
)

// Submit is SubmitCheckedLabelStream for the labels the stream's checks
// passed. Their preps are made on a goroutine of their own, just ahead of
// the writer.
func (ls *LabelStream) Submit(ctx context.Context, in <-chan CheckedLabels) ([]Settlement, error) {
	if ls.s.pg {
		return ls.s.SubmitCheckedLabelStream(ctx, in)
	}
	prepared := make(chan CheckedLabels, preparedAhead)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		defer close(prepared)
		for {
			var b CheckedLabels
			var ok bool
			select {
			case b, ok = <-in:
			case <-quit:
				return
			}
			if !ok {
				return
			}
			for start := 0; start < len(b.Labels); start += preparedPiece {
				end := min(start+preparedPiece, len(b.Labels))
				piece := CheckedLabels{Labels: b.Labels[start:end]}
				if b.befores != nil {
					piece.befores = b.befores[start:end]
				}
				ls.s.prepare(&piece)
				select {
				case prepared <- piece:
				case <-quit:
					return
				}
			}
		}
	}()
	return ls.s.submitFed(ctx, &labelFeed{in: prepared, owned: true, fresh: ls.fresh}, labelsPace)
}
