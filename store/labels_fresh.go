package store

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store/sqlite"
)

// A labels import checks each label with no lock held, and writes the
// labels it has checked under the write lock. What taking a label back
// needs to know of before (groupBefore, groupDrafts) is read beside the
// writer, on the other core, just before it writes them (LabelStream's
// preparer): the writer uses that instead of reading it again under the
// lock when it can prove that nothing but the import itself has committed
// since that read (labelFreshness), laying its own writes over it
// (importWrites); else it reads it again, as any bulk submit does.

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

// labelFreshness tells a labels import's writer whether what was read
// beside it is still what the database holds, but for the import's own
// writes. A read is stamped with epoch, loaded before it reads. The
// writer looks at the start of each of its transactions (the write lock
// held): when this store's write count or the write connection's
// WriteVersion is not what the last look left (the writer's own
// transaction counted), or than the first look found before anything was
// read, something else committed, and it bumps epoch. So a stamp equal
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
	// fromChecks and reread count the groups written from what was read
	// beside the writer and those read again under the lock (tests).
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

// stamp is what a read beside the writer is stamped with: loaded before
// it reads.
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

// LabelStream is one labels import on a store: labels checked (against
// Targets) are handed to Submit as they are, and written as they come.
type LabelStream struct {
	s     *Store
	fresh *labelFreshness
	names map[string]string // Targets' (targetStamp.names)
	// ahead: what Targets read of each item for the writer (its before),
	// until the preparer takes it.
	mu    sync.Mutex
	ahead map[string]*targetBefore
	read  atomic.Int64 // items the preparer read itself (tests)
}

// LabelStream starts a labels import: call it before the first check.
func (s *Store) LabelStream(ctx context.Context) *LabelStream {
	return &LabelStream{s: s, fresh: newLabelFreshness(ctx, s), names: map[string]string{}, ahead: map[string]*targetBefore{}}
}

// Targets is LabelTargetsWith for the stream's checks, reading each item
// once for both: what writing its labels needs to know of it (its before,
// readBefores, stamped for labelFreshness) is read with what checking them
// needs, and kept for the preparer, which reads only the items it does not
// find (read twice, the checks and the preparer took a quarter of the
// import's CPU time on the other core).
func (ls *LabelStream) Targets(ctx context.Context, itemIDs []string, tools ToolsetTools) (map[string]LabelTarget, error) {
	if ls.fresh == nil {
		return ls.s.LabelTargetsWith(ctx, itemIDs, tools)
	}
	befores, err := readBefores(ctx, ls.s.r, itemIDs, &targetStamp{epoch: ls.fresh.stamp(), names: ls.names})
	if err != nil {
		return nil, err
	}
	out := make(map[string]LabelTarget, len(befores))
	toolsets := make(map[string]int64, len(befores))
	for id, b := range befores {
		lt := LabelTarget{Found: b.found, Status: b.status}
		if b.found {
			lt.Assignments = make(map[string]string, len(b.assigns))
			for _, a := range b.assigns {
				if !a.writing { // as labelTargets reads them
					lt.Assignments[a.reviewer] = a.status
				}
			}
			toolsets[id] = b.toolset
		}
		out[id] = lt
	}
	if err := withTools(ctx, ls.s.r, out, toolsets, tools); err != nil {
		return nil, err
	}
	ls.mu.Lock()
	for id, b := range befores {
		// Beyond aheadMax (the checks far ahead of the writer, or items
		// whose labels failed their checks and are never written), the
		// preparer reads an item itself.
		if len(ls.ahead) >= aheadMax {
			break
		}
		ls.ahead[id] = b
	}
	ls.mu.Unlock()
	return out, nil
}

// aheadMax bounds the befores a stream keeps for its preparer: 50k items
// (the items of a 100k-label file, two labels each), some 15 MB.
var aheadMax = 50_000

// take takes the befores Targets read of ids' items; an item it did not
// find is nil in them and listed (once) in missing.
func (ls *LabelStream) take(ids []string) (befores map[string]*targetBefore, missing []string) {
	befores = make(map[string]*targetBefore, len(ids))
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, id := range ids {
		if _, ok := befores[id]; ok {
			continue
		}
		b, ok := ls.ahead[id]
		if ok {
			delete(ls.ahead, id)
		} else {
			missing = append(missing, id)
		}
		befores[id] = b
	}
	return befores, missing
}

// CheckedLabels are labels checked, in the order to write them.
type CheckedLabels struct {
	Labels []review.Label
	prep   []*labelPrep // one a label, or none (made by LabelStream.Submit)
}

// labelPrep is what writing a label needs that is made with no lock held,
// on the other core, just before the writer needs it: the label's row, the
// row's digest, the label as it will read back, its item's before (nil:
// none could be read), and what its item's labels here settle (nil: it
// has no other here).
type labelPrep struct {
	row    []any
	digest rowDigest
	stored review.Label
	target *targetBefore
	settle *settlePrep
}

// prepare makes the labels' preps, given their items' befores (nil:
// none); a label whose row cannot be made leaves them all without (the
// writer fails it).
func (s *Store) prepare(b *CheckedLabels, befores map[string]*targetBefore) {
	preps := make([]labelPrep, len(b.Labels))
	prep := make([]*labelPrep, len(b.Labels))
	byItem := make(map[string][]*labelPrep, len(b.Labels))
	for i, l := range b.Labels {
		row, err := s.labelRow(l)
		if err != nil {
			return
		}
		stored, err := scanLabel(rowValues(row))
		if err != nil {
			return
		}
		p := &preps[i]
		p.row, p.digest, p.stored, p.target = row, labelRowDigest(row), stored, befores[l.Item]
		prep[i] = p
		byItem[l.Item] = append(byItem[l.Item], p)
	}
	for item, ps := range byItem {
		if len(ps) > 1 {
			prepareSettle(item, ps)
		}
	}
	b.prep = prep
}

// settlePrep is what an item's labels settle when they are all of its
// labels (compared in reviewer order, as settleGroup compares them): made
// beside the writer, for settleGroup to take when its group settles the
// item from exactly these labels.
type settlePrep struct {
	n   int // labels
	cmp review.Comparison
	// row is the gold answer's row (goldArgs') when they agree, else the
	// dispute's (disputeArgs'), its time left to set.
	row []any
}

// prepareSettle gives an item's labels ps (two or more) what they settle.
func prepareSettle(item string, ps []*labelPrep) {
	ls := make([]review.Label, len(ps))
	for i, p := range ps {
		ls[i] = p.stored
	}
	slices.SortFunc(ls, func(a, b review.Label) int { return strings.Compare(a.Reviewer, b.Reviewer) })
	m := &settlePrep{n: len(ls), cmp: review.Compare(ls)}
	var err error
	if m.cmp.Agreed {
		m.row, err = goldArgs(review.AgreedGold(ls), "")
	} else {
		m.row, err = disputeArgs(item, m.cmp, "")
	}
	if err != nil {
		return // settled by the writer
	}
	for _, p := range ps {
		p.settle = m
	}
}

// add adds what m settles to settled at now, as settled.add adds the
// outcome of review.Settle(0, labels, false) (agreed items not held for
// review).
func (m *settlePrep) add(settled *settlements, item, now string) {
	m.row[len(m.row)-1] = now
	if m.cmp.Agreed {
		settled.golds, settled.agreed = append(settled.golds, m.row...), append(settled.agreed, item)
	} else {
		settled.disputes, settled.disputed = append(settled.disputes, m.row...), append(settled.disputed, item)
	}
}

// preparedAhead is how many pieces of preparedPiece labels the preparer
// makes ready ahead of the writer: enough to keep it busy, few enough to
// hold little (the checks run far ahead of the writer: rows made for every
// label waiting would hold them all).
const (
	preparedAhead = 2
	preparedPiece = 256
)

// Submit is SubmitCheckedLabelStream for the labels the stream's checks
// passed. Beside the writer (on the other core), a preparer takes what
// the checks read of each item for taking its labels back (Targets; an
// item they did not keep it reads itself, stamped for labelFreshness), and
// makes the labels' rows: the writer reads again under the lock only what
// others may have changed since.
func (ls *LabelStream) Submit(ctx context.Context, in <-chan CheckedLabels) ([]Settlement, error) {
	if ls.fresh == nil {
		return ls.s.SubmitCheckedLabelStream(ctx, in)
	}
	prepared := make(chan CheckedLabels, preparedAhead)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		defer close(prepared)
		// One read connection for all the rounds: read through several of
		// the pool's, each would fill a page cache of its own.
		var q Queryer = ls.s.r
		if c, err := ls.s.r.Conn(ctx); err == nil {
			defer c.Close()
			q = c
		}
		names := map[string]string{}
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
			ids := make([]string, len(b.Labels))
			for i, l := range b.Labels {
				ids[i] = l.Item
			}
			// What Targets read, and the rest read now (stamped before
			// the read); an item still nil, the writer reads.
			befores, missing := ls.take(ids)
			if len(missing) > 0 {
				ls.read.Add(int64(len(missing)))
				if more, err := readBefores(ctx, q, missing, &targetStamp{epoch: ls.fresh.stamp(), names: names}); err == nil {
					maps.Copy(befores, more)
				}
			}
			for start := 0; start < len(b.Labels); start += preparedPiece {
				piece := CheckedLabels{Labels: b.Labels[start:min(start+preparedPiece, len(b.Labels))]}
				ls.s.prepare(&piece, befores)
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
