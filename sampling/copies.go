package sampling

import (
	"fmt"
	"slices"
)

// A store scan that reads the items in parts, each part in no particular
// order, draws what exact mode draws from the same items offered in
// Earlier order: each part gathers the copies of its inputs (AddCopy),
// keeps the earliest copy of each, and offers one candidate per input
// (OfferCopies) to a Sampler of its own (Part), which are joined at the end
// (Join). An input's copies must all fall in one part (a store splits by
// the input key). The earliest copy is told by its timestamp; copies of one
// input with the same timestamp (or none) are told apart by trace id and
// turn, which the caller reads for those rows only (Tied).

// Copy is one matching item that holds an input, as AddCopy takes it.
type Copy struct {
	Row     int64
	TS      int64 // unix seconds; meaningful only when HasTS
	HasTS   bool
	Stratum int32 // the stratum's place in the names OfferCopies is given
}

// Order is what tells copies with the same timestamp apart (Earlier).
type Order struct {
	TraceID string
	Turn    int
}

// gathered is one input of a part: its key, its earliest copy so far and
// how many copies it has.
type gathered struct {
	k      inputKey
	best   Copy
	copies int32
	keyed  bool // best came with its key, without its hash
	hex    bool // hashKey's hex for best's hash
	tied   bool // other copies have best's timestamp: see ties
}

// copies is the inputs a part has gathered: an open-addressing table on the
// key's first half (uniformly random), as inputSet, holding each input's
// place in list plus one (0: empty).
type copies struct {
	slots  []int32
	list   []gathered
	hashes map[int32]string     // the hash of an input whose best copy has no key
	ties   map[int32][]tiedCopy // the copies sharing best's timestamp, best among them
}

type tiedCopy struct {
	c     Copy
	keyed bool
	hash  string
}

// AddCopy gathers a copy of the input whose hash's first 128 bits are hi
// and lo, the hash being 64 lowercase hex digits (the store reads it as two numbers, input_hi and input_lo). A
// copy of an input already in a batch (Exclude) is counted as such and not
// gathered.
func (s *Sampler) AddCopy(hi, lo uint64, c Copy) {
	k := inputKey{hi, lo}
	if s.exclHex.n > 0 && s.exclHex.has(k) {
		s.excl++
		return
	}
	s.gather(k, true, true, "", c)
}

// AddCopyHash is AddCopy for a copy that comes with its input hash, any
// text (the store has no key for hashes that are not 64 lowercase hex
// digits).
func (s *Sampler) AddCopyHash(inputHash string, c Copy) {
	k, hex := hashKey(inputHash)
	if s.isExcluded(inputHash) {
		s.excl++
		return
	}
	s.gather(k, false, hex, inputHash, c)
}

func (s *Sampler) gather(k inputKey, keyed, hex bool, hash string, c Copy) {
	g := &s.copies
	if 3*(len(g.list)+1) > 2*len(g.slots) {
		g.grow()
	}
	mask := uint64(len(g.slots) - 1)
	i := k.hi & mask
	for ; g.slots[i] != 0; i = (i + 1) & mask {
		at := g.slots[i] - 1
		e := &g.list[at]
		if e.k != k {
			continue
		}
		e.copies++
		switch {
		case earlierTime(c, e.best):
			e.best, e.keyed, e.hex, e.tied = c, keyed, hex, false
			delete(g.ties, at)
			g.setHash(at, keyed, hash)
		case !earlierTime(e.best, c):
			// The same time: trace id and turn decide (Tied).
			if !e.tied {
				e.tied = true
				if g.ties == nil {
					g.ties = map[int32][]tiedCopy{}
				}
				g.ties[at] = []tiedCopy{{e.best, e.keyed, g.hashes[at]}}
			}
			g.ties[at] = append(g.ties[at], tiedCopy{c, keyed, hash})
		}
		return
	}
	at := int32(len(g.list))
	g.list = append(g.list, gathered{k: k, best: c, copies: 1, keyed: keyed, hex: hex})
	g.slots[i] = at + 1
	g.setHash(at, keyed, hash)
}

func (g *copies) setHash(at int32, keyed bool, hash string) {
	if keyed {
		delete(g.hashes, at)
		return
	}
	if g.hashes == nil {
		g.hashes = map[int32]string{}
	}
	g.hashes[at] = hash
}

// expect sizes the table for about n inputs.
func (g *copies) expect(n int) {
	if 3*n > 2*len(g.slots) {
		g.resize(n)
	}
	g.list = slices.Grow(g.list, max(0, n-len(g.list)))
}

// grow doubles the table (at least minSlots).
func (g *copies) grow() { g.resize(len(g.slots)) }

// resize makes the table the smallest power of two (at least minSlots)
// over 3n/2 slots, placing what it holds again.
func (g *copies) resize(n int) {
	slots := minSlots
	for 2*slots < 3*(n+1) {
		slots *= 2
	}
	g.slots = make([]int32, slots)
	mask := uint64(len(g.slots) - 1)
	for at := range g.list {
		i := g.list[at].k.hi & mask
		for g.slots[i] != 0 {
			i = (i + 1) & mask
		}
		g.slots[i] = int32(at) + 1
	}
}

// earlierTime reports whether a's timestamp comes before b's in Earlier
// order: any timestamp before none.
func earlierTime(a, b Copy) bool {
	if a.HasTS != b.HasTS {
		return a.HasTS
	}
	return a.HasTS && a.TS < b.TS
}

// Tied lists the rows of the copies gathered since the last OfferCopies
// whose order needs their trace id and turn: copies of one input with the
// same earliest timestamp. It is empty unless an input has such copies.
func (s *Sampler) Tied() []int64 {
	var rows []int64
	for _, list := range s.copies.ties {
		for _, t := range list {
			rows = append(rows, t.c.Row)
		}
	}
	return rows
}

// OfferCopies offers the earliest copy of every input gathered since the
// last call, as Offer would offer the first copy met in Earlier order, and
// counts the others as duplicates. strata names the copies' Stratum
// places; order holds the trace id and turn of each row Tied listed.
func (s *Sampler) OfferCopies(strata []string, order map[int64]Order) error {
	g := &s.copies
	for at, list := range g.ties {
		best := -1
		for i, t := range list {
			o, ok := order[t.c.Row]
			if !ok {
				return errMissingOrder(t.c.Row)
			}
			if best < 0 {
				best = i
				continue
			}
			b := order[list[best].c.Row]
			if o.TraceID < b.TraceID || (o.TraceID == b.TraceID && o.Turn < b.Turn) {
				best = i
			}
		}
		e := &g.list[at]
		t := list[best]
		e.best, e.keyed = t.c, t.keyed
		if !t.keyed {
			e.k, e.hex = hashKey(t.hash)
		}
		g.setHash(at, t.keyed, t.hash)
	}
	// Each stratum's reservoir found once, not once per input.
	rs := make([]*reservoir, len(strata))
	for at := range g.list {
		e := &g.list[at]
		s.dups += int(e.copies) - 1
		r := rs[e.best.Stratum]
		if r == nil {
			r = s.stratum(strata[e.best.Stratum])
			rs[e.best.Stratum] = r
		}
		r.available++
		if s.n <= 0 {
			continue
		}
		var hash []byte
		if !e.keyed {
			hash = []byte(g.hashes[int32(at)])
		}
		s.draw(r, e.best.Row, hash, e.k, e.hex, e.keyed)
	}
	clear(g.slots)
	g.list, g.hashes, g.ties = g.list[:0], nil, nil
	return nil
}

// Part returns an empty sampler that draws as s does (seed, size,
// exclusions, priorities, which it shares and must not change meanwhile),
// for one part of a scan: Join adds what it drew to s.
func (s *Sampler) Part() *Sampler {
	p := NewSampler(s.seed, s.n, true)
	p.excluded, p.exclHex = s.excluded, s.exclHex
	p.priority, p.prioHex = s.priority, s.prioHex
	return p
}

// Join adds what part p drew (Part) to s: each stratum's count and the
// candidates its reservoir holds, and the duplicates and exclusions. The
// inputs of p and s must be distinct.
func (s *Sampler) Join(p *Sampler) {
	s.dups += p.dups
	s.excl += p.excl
	for name, pr := range p.strata {
		r := s.stratum(name)
		r.available += pr.available
		for _, e := range pr.items {
			s.admitTo(r, e)
		}
	}
	p.strata = map[string]*reservoir{}
	p.dups, p.excl = 0, 0
}

func errMissingOrder(row int64) error {
	return fmt.Errorf("row %d: copies at the same time, and no trace id and turn to order them", row)
}

// KeyHi is the first 64 bits of the key an input is told apart by: AddCopy's
// hi for a hash of 64 lowercase hex digits, what AddCopyHash makes of any
// other. A scan in parts puts an input's copies in the part of this number.
func KeyHi(inputHash string) uint64 {
	k, _ := hashKey(inputHash)
	return k.hi
}
