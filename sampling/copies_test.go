package sampling

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// copyRow is one row of a test scan: its input hash and what tells it
// apart in Earlier order.
type copyRow struct {
	hash    string
	ts      int64
	hasTS   bool
	trace   string
	turn    int
	stratum int32
}

// drawInParts draws from rows as a store scan in parts does: the rows
// split by their key's first 64 bits into parts, each part's rows in a
// shuffled order, gathered by a Part of their own, joined into s.
func drawInParts(t *testing.T, s *Sampler, rows []copyRow, strata []string, parts int, shuffle uint64) (tied int) {
	t.Helper()
	byPart := make([][]int, parts)
	for i, r := range rows {
		k, _ := hashKey(r.hash)
		p := int(k.hi >> 60 % uint64(parts))
		byPart[p] = append(byPart[p], i)
	}
	rng := rand.New(rand.NewPCG(shuffle, 1))
	for _, list := range byPart {
		rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		p := s.Part()
		for _, i := range list {
			r := rows[i]
			c := Copy{Row: int64(i), TS: r.ts, HasTS: r.hasTS, Stratum: r.stratum}
			if k, ok := lowerHexKey(r.hash); ok {
				p.AddCopy(k.hi, k.lo, c)
			} else {
				p.AddCopyHash(r.hash, c)
			}
		}
		order := map[int64]Order{}
		for _, row := range p.Tied() {
			order[row] = Order{rows[row].trace, rows[row].turn}
			tied++
		}
		if err := p.OfferCopies(strata, order); err != nil {
			t.Fatal(err)
		}
		s.Join(p)
	}
	return tied
}

// drawInOrder is the reference: the rows offered one by one in Earlier
// order to an exact-mode sampler.
func drawInOrder(s *Sampler, rows []copyRow, strata []string) {
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	cand := func(i int) Candidate {
		r := rows[i]
		return Candidate{TS: r.ts, HasTS: r.hasTS, TraceID: r.trace, Turn: r.turn}
	}
	sort.SliceStable(order, func(a, b int) bool { return Earlier(cand(order[a]), cand(order[b])) })
	for _, i := range order {
		s.Offer(Candidate{Row: int64(i), InputHash: rows[i].hash, Stratum: strata[rows[i].stratum]})
	}
}

func sampleDigest(t *testing.T, s *Sampler, mode string, hashOfRow func(int64) string) string {
	t.Helper()
	got, err := s.Result(mode, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := sha256.New()
	for _, c := range got.Items {
		if h := hashOfRow(c.Row); !strings.HasPrefix(h, c.InputHash) {
			t.Fatalf("row %d: input hash %q, want (a prefix of) %q", c.Row, c.InputHash, h)
		}
		fmt.Fprintln(d, c.Row, c.Stratum, hashOfRow(c.Row))
	}
	for _, st := range got.Strata {
		fmt.Fprintln(d, st.Name, st.Available, st.Sampled)
	}
	fmt.Fprintln(d, s.Duplicates(), s.Excluded(), got.Note)
	return hex.EncodeToString(d.Sum(nil))[:16]
}

// Gathered in parts, in any order, the rows of TestOfferRowPinned draw
// what they draw offered in order: the same pinned digests.
func TestOfferCopiesPinned(t *testing.T) {
	strata := []string{"(none)", "get_order", "refund", "search", "rare", "rarest"}
	names := []string{"(none)", "(none)", "get_order", "refund", "search", "rare"}
	rows := make([]copyRow, 30_000)
	for i := range rows {
		var h string
		switch {
		case i%17 == 16:
			h = rows[i*2/3].hash
		case i%1000 == 5:
			h = fmt.Sprint("plain-", i)
		default:
			h = hashOf(fmt.Sprint("input ", i))
		}
		st := names[(i*7)%len(names)]
		if i%5 == 0 && st == "rare" {
			st = "rarest"
		}
		rows[i] = copyRow{hash: h, ts: int64(i), hasTS: true, trace: fmt.Sprintf("tr_%06d", i),
			stratum: int32(slices.Index(strata, st))}
	}
	var excluded []string
	for i := 3; i < len(rows); i += 211 {
		excluded = append(excluded, rows[i].hash)
	}
	for _, tc := range []struct {
		seed int64
		n    int
		mode string
		want string
	}{
		{1, 500, AllocProportional, "1a8c5736a1640e83"},
		{2, 120, AllocEqual, "1c6dde07eaebb109"},
		{-3, 40, AllocProportional, "bd9b9fd65cdf9289"},
		{4, 50_000, AllocProportional, "5bc7bc88d327b2b2"},
	} {
		for parts := 1; parts <= 5; parts += 2 {
			s := NewSampler(tc.seed, tc.n, true)
			s.Exclude(excluded)
			drawInParts(t, s, rows, strata, parts, uint64(parts))
			if got := sampleDigest(t, s, tc.mode, func(r int64) string { return rows[r].hash }); got != tc.want {
				t.Errorf("seed %d, n %d, %d parts: digest %s, want %s", tc.seed, tc.n, parts, got, tc.want)
			}
		}
	}
}

// Copies with the same time (or none) are told apart by trace id and turn,
// across strata, keyed or not (hashes in capitals have no key), with
// priorities and exclusions: the parts draw what the ordered scan draws.
func TestOfferCopiesMatchesOrderedScan(t *testing.T) {
	strata := []string{"a", "b", "c", "(none)"}
	rows := make([]copyRow, 8000)
	for i := range rows {
		h := hashOf(fmt.Sprint("q", i%5000)) // copies of 3000 inputs
		if i%9 == 4 {
			h = strings.ToUpper(h)
		}
		if i%700 == 6 {
			h = fmt.Sprint("odd ", i%1400)
		}
		ts := int64(i % 5000 / 50) // copies at the same time
		if i%3 == 0 {
			ts = int64(i % 97)
		}
		rows[i] = copyRow{hash: h, ts: ts, hasTS: i%5000%11 != 0, trace: fmt.Sprintf("tr_%d", (i*31)%53),
			turn: i % 4, stratum: int32(i * i % 4)}
	}
	prio := map[string]uint8{}
	for i := 0; i < len(rows); i += 13 {
		prio[rows[i].hash] = uint8(i % 3)
	}
	excluded := []string{rows[10].hash, rows[22].hash, strings.ToUpper(rows[31].hash), "odd 6"}
	for _, n := range []int{0, 7, 90, 10_000} {
		want := NewSampler(77, n, true)
		want.Prioritize(prio)
		want.Exclude(excluded)
		drawInOrder(want, rows, strata)
		wantSum := sampleDigest(t, want, AllocEqual, func(r int64) string { return rows[r].hash })
		for parts := 1; parts <= 4; parts++ {
			s := NewSampler(77, n, true)
			s.Prioritize(prio)
			s.Exclude(excluded)
			if tied := drawInParts(t, s, rows, strata, parts, uint64(n+parts)); tied == 0 {
				t.Error("no copies at the same time")
			}
			if got := sampleDigest(t, s, AllocEqual, func(r int64) string { return rows[r].hash }); got != wantSum {
				t.Errorf("n %d, %d parts: digest %s, the ordered scan's %s (dups %d/%d, excluded %d/%d)", n, parts, got, wantSum,
					s.Duplicates(), want.Duplicates(), s.Excluded(), want.Excluded())
			}
		}
	}
}

// A tie with no trace id and turn given is an error, not a guess.
func TestOfferCopiesNeedsOrderOfTies(t *testing.T) {
	s := NewSampler(1, 5, true)
	h := hashOf("x")
	k, _ := lowerHexKey(h)
	s.AddCopy(k.hi, k.lo, Copy{Row: 1, TS: 5, HasTS: true})
	s.AddCopy(k.hi, k.lo, Copy{Row: 2, TS: 5, HasTS: true})
	if tied := s.Tied(); len(tied) != 2 {
		t.Fatalf("tied %v, want rows 1 and 2", tied)
	}
	if err := s.OfferCopies([]string{""}, nil); err == nil {
		t.Fatal("no error")
	}
}
