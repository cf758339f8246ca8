package sampling

import (
	"container/heap"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
)

// Sampler draws a seeded stratified sample of at most N items from candidates
// offered one at a time, with memory bounded by N per stratum (plus the
// duplicate set in exact mode): each stratum keeps a reservoir of the N
// candidates with the smallest Key, which is exactly the set a seeded shuffle
// of that stratum would put first. Allocation happens in Result, once the
// stratum sizes are known.
//
// Deduplication: candidates with the same input hash count once.
//   - Exact (NewSampler with ordered=true): candidates must be offered in
//     Earlier order; the first copy of an input wins and later copies are
//     dropped. This remembers the hashes of every distinct input (16 bytes
//     each). A store scan gathers the copies in parts instead, each in any
//     order, and draws the same (Part, AddCopy, OfferCopies, Join).
//   - Streaming (ordered=false, for trace files in arbitrary order): memory
//     stays bounded by the reservoirs. A copy of an input that is held in a
//     reservoir replaces it when it is Earlier (moving strata if needed), so
//     among copies that can be in the sample the earliest wins. Because all
//     copies share one Key, a copy of an input that a reservoir has already
//     rejected is rejected again when it falls in the same stratum; a copy
//     in another stratum may still be kept, and Available counts copies that
//     were never held. Both differ from exact mode only when the duplicates
//     of one input fall in different strata, or for the counts shown.
type Sampler struct {
	seed    int64
	n       int
	ordered bool
	strata  map[string]*reservoir
	held    map[string]*entry // input hash -> its entry in a reservoir
	copies  copies            // a part's inputs (AddCopy)
	seen    inputSet          // exact mode: the inputs met so far
	// exclHex holds the keys of the excluded hashes of 64 lowercase hex
	// digits, excluded the others (Exclude).
	excluded map[string]bool
	exclHex  inputSet

	priority map[string]uint8   // input hash → priority (Prioritize); nil: plain seeded order
	prioHex  map[inputKey]uint8 // priority's hashes of 64 lowercase hex digits, by key
	dups     int
	excl     int
}

type entry struct {
	c     Candidate
	key   uint64
	index int // in its reservoir's heap
}

// reservoir is a max-heap on key: the root is the first to evict.
type reservoir struct {
	name      string
	available int
	items     []*entry
}

func (r *reservoir) Len() int { return len(r.items) }
func (r *reservoir) Less(i, j int) bool {
	return keyLess(r.items[j].key, r.items[j].c.InputHash, r.items[i].key, r.items[i].c.InputHash)
}
func (r *reservoir) Swap(i, j int) {
	r.items[i], r.items[j] = r.items[j], r.items[i]
	r.items[i].index, r.items[j].index = i, j
}
func (r *reservoir) Push(x any) {
	e := x.(*entry)
	e.index = len(r.items)
	r.items = append(r.items, e)
}
func (r *reservoir) Pop() any {
	e := r.items[len(r.items)-1]
	r.items = r.items[:len(r.items)-1]
	return e
}

// NewSampler returns a sampler for at most n items. ordered says candidates
// arrive in Earlier order (exact deduplication, see Sampler).
func NewSampler(seed int64, n int, ordered bool) *Sampler {
	return &Sampler{seed: seed, n: n, ordered: ordered,
		strata: map[string]*reservoir{}, held: map[string]*entry{}}
}

// Expect presizes an exact-mode sampler for about n candidates, sparing
// regrowth on large scans: the set of inputs met for Offer, the table a Part
// gathers copies in for AddCopy.
func (s *Sampler) Expect(n int) {
	if s.ordered && n > 0 {
		s.seen.grow(n)
		s.copies.expect(n)
	}
}

// Exclude drops every candidate with one of these input hashes (inputs that
// are already in a batch). A hash of 64 lowercase hex digits is kept as its
// key, its first 128 bits, as the duplicate set tells inputs apart; any
// other hash as it is.
func (s *Sampler) Exclude(hashes []string) {
	// Sized once: growing a set re-places every key it holds.
	s.exclHex.grow(s.exclHex.n + len(hashes))
	for _, h := range hashes {
		if k, ok := lowerHexKey(h); ok {
			s.exclHex.add(k)
			continue
		}
		if s.excluded == nil {
			s.excluded = map[string]bool{}
		}
		s.excluded[h] = true
	}
}

// isExcluded reports whether an input hash is one Exclude was given.
func (s *Sampler) isExcluded(inputHash string) bool {
	if k, ok := lowerHexKey(inputHash); ok {
		return s.exclHex.n > 0 && s.exclHex.has(k)
	}
	return s.excluded[inputHash]
}

// Prioritize makes the sampler draw inputs of higher priority first (by
// input hash; missing ones have priority 0), in seeded order within one
// priority: the "top of each stratum" of a ranking. Call it before offering.
func (s *Sampler) Prioritize(p map[string]uint8) {
	s.priority, s.prioHex = p, map[inputKey]uint8{}
	for h, v := range p {
		if k, ok := lowerHexKey(h); ok {
			s.prioHex[k] = v
		}
	}
}

// keyFor is the sort key of an input: seeded, above it its priority.
func (s *Sampler) keyFor(k uint64, inputHash string) uint64 {
	if s.priority == nil {
		return k
	}
	return prioritized(k, s.priority[inputHash])
}

// draw keeps a new input in its stratum's reservoir r when its key is among
// the n smallest there (r has counted it): the input of row, known by its
// hash or, when keyed, by its key k alone (inputHash is then nil).
func (s *Sampler) draw(r *reservoir, row int64, inputHash []byte, k inputKey, hex, keyed bool) {
	var key uint64
	if hex {
		key = keyOf(s.seed, k.hi)
	} else {
		key = Key(s.seed, string(inputHash))
	}
	if s.priority != nil {
		if keyed {
			key = prioritized(key, s.prioHex[k])
		} else {
			key = prioritized(key, s.priority[string(inputHash)])
		}
	}
	if r.Len() >= s.n {
		// !keyLess, without a string made for the comparison.
		top := r.items[0]
		if key > top.key {
			return
		}
		if key == top.key {
			if keyed {
				inputHash = k.hex()
			}
			if string(inputHash) >= top.c.InputHash {
				return
			}
		}
	}
	c := Candidate{Row: row, Stratum: r.name}
	if keyed {
		// The hash's first 32 digits: they order inputs as their whole
		// hashes do (distinct inputs differ in them), and the caller
		// reads the hashes of the rows drawn.
		c.InputHash = string(k.hex())
	} else {
		c.InputHash = string(inputHash)
	}
	s.admitTo(r, &entry{c: c, key: key})
}

// Offer considers one candidate.
func (s *Sampler) Offer(c Candidate) {
	if s.isExcluded(c.InputHash) {
		s.excl++
		return
	}
	if e, ok := s.held[c.InputHash]; ok && !s.ordered {
		s.dups++
		if Earlier(c, e.c) {
			s.replace(e, c)
		}
		return
	}
	if s.ordered {
		if k, _ := hashKey(c.InputHash); !s.seen.add(k) {
			s.dups++
			return
		}
	}
	s.admit(c)
}

// admit counts a new input in its stratum and keeps it when its key is among
// the n smallest there.
func (s *Sampler) admit(c Candidate) {
	r := s.stratum(c.Stratum)
	r.available++
	if s.n <= 0 {
		return
	}
	s.admitKeyed(&entry{c: c, key: s.keyFor(Key(s.seed, c.InputHash), c.InputHash)})
}

// admitKeyed keeps e in its stratum's reservoir when its key is among the n
// smallest there (the stratum has already counted it).
func (s *Sampler) admitKeyed(e *entry) {
	s.admitTo(s.stratum(e.c.Stratum), e)
}

// admitTo is admitKeyed given e's stratum. Only a streaming sampler keeps
// track of the entries held by input (held): an exact one never looks.
func (s *Sampler) admitTo(r *reservoir, e *entry) {
	c := e.c
	if r.Len() < s.n {
		heap.Push(r, e)
		if !s.ordered {
			s.held[c.InputHash] = e
		}
		return
	}
	top := r.items[0]
	if keyLess(e.key, c.InputHash, top.key, top.c.InputHash) {
		r.items[0] = e
		e.index = 0
		heap.Fix(r, 0)
		if !s.ordered {
			delete(s.held, top.c.InputHash)
			s.held[c.InputHash] = e
		}
	}
}

// replace swaps the candidate held for an input for an earlier copy of it,
// moving it to the copy's stratum when that differs (where it may not make
// the cut: the input then leaves the sample, as its earliest copy would).
func (s *Sampler) replace(e *entry, c Candidate) {
	if c.Stratum == e.c.Stratum {
		e.c = c
		return
	}
	old := s.strata[e.c.Stratum]
	heap.Remove(old, e.index)
	old.available--
	delete(s.held, e.c.InputHash)
	s.admit(c)
}

func (s *Sampler) stratum(name string) *reservoir {
	r, ok := s.strata[name]
	if !ok {
		r = &reservoir{name: name}
		s.strata[name] = r
	}
	return r
}

// Duplicates is how many candidates were dropped as copies of another input.
func (s *Sampler) Duplicates() int { return s.dups }

// Excluded is how many candidates were dropped because their input is
// already in a batch.
func (s *Sampler) Excluded() int { return s.excl }

// Sample is a drawn sample: the items in sample order (by Key) and what each
// stratum offered and gave.
type Sample struct {
	Items  []Candidate
	Strata []Stratum
	Note   string // set when Allocate could not honour every minimum
}

// Result allocates n over the strata seen (see Allocate) and returns the
// chosen candidates ordered by Key: a seeded shuffle that interleaves strata.
func (s *Sampler) Result(mode string, minPer int) (Sample, error) {
	counts := make([]Stratum, 0, len(s.strata))
	for name, r := range s.strata {
		counts = append(counts, Stratum{Name: name, Available: r.available})
	}
	alloc, note, err := Allocate(counts, s.n, mode, minPer)
	if err != nil {
		return Sample{}, err
	}
	var chosen []*entry
	for _, st := range alloc {
		r := s.strata[st.Name]
		es := append([]*entry(nil), r.items...)
		sort.Slice(es, func(i, j int) bool { return keyLess(es[i].key, es[i].c.InputHash, es[j].key, es[j].c.InputHash) })
		if st.Sampled > len(es) {
			return Sample{}, fmt.Errorf("stratum %q: allocated %d but holds %d", st.Name, st.Sampled, len(es))
		}
		chosen = append(chosen, es[:st.Sampled]...)
	}
	sort.Slice(chosen, func(i, j int) bool {
		return keyLess(chosen[i].key, chosen[i].c.InputHash, chosen[j].key, chosen[j].c.InputHash)
	})
	out := Sample{Strata: alloc, Note: note, Items: make([]Candidate, len(chosen))}
	for i, e := range chosen {
		out.Items[i] = e.c
	}
	return out, nil
}

// hashKey is a fixed-size map key for an input hash: its first 128 bits
// when it is 64 hex digits (a sha256; hex is then true), else the first 128
// bits of its sha256.
func hashKey[T string | []byte](h T) (k inputKey, hex bool) {
	if len(h) == 64 {
		a, okA := prefix64(h[:16])
		b, okB := prefix64(h[16:32])
		if okA && okB {
			return inputKey{a, b}, true
		}
	}
	sum := sha256.Sum256([]byte(h))
	return inputKey{binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])}, false
}
