package sampling

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// population is n candidates over strata by weight, one trace each, with
// distinct inputs and timestamps.
func population(n int, strata []string) []Candidate {
	out := make([]Candidate, n)
	for i := range out {
		out[i] = Candidate{
			ItemID: fmt.Sprintf("it_%06d", i), TraceID: fmt.Sprintf("tr_%06d", i), Turn: 1,
			Stratum: strata[i%len(strata)], InputHash: hashOf(fmt.Sprint("input", i)),
			TS: int64(1_700_000_000 + i), HasTS: true,
		}
	}
	return out
}

func draw(t *testing.T, cands []Candidate, seed int64, n int, ordered bool, mode string) Sample {
	t.Helper()
	s := NewSampler(seed, n, ordered)
	for _, c := range cands {
		s.Offer(c)
	}
	out, err := s.Result(mode, 1)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ids(s Sample) []string {
	out := make([]string, len(s.Items))
	for i, c := range s.Items {
		out[i] = c.ItemID
	}
	return out
}

// TestKeyIsStable pins the PCG outputs: if a Go release changed them, every
// stored seed would stop reproducing its sample.
func TestKeyIsStable(t *testing.T) {
	for _, tc := range []struct {
		seed int64
		hash string
		want uint64
	}{
		{42, "0123456789abcdef0000", 10677727925253951776},
		{1, "ffffffffffffffff", 17001756098262937791},
		{-7, "xyz", 15688401532860734249},
	} {
		if got := Key(tc.seed, tc.hash); got != tc.want {
			t.Errorf("Key(%d, %q) = %d, want %d", tc.seed, tc.hash, got, tc.want)
		}
	}
}

func TestSampleIsReproducibleAndOrderIndependent(t *testing.T) {
	cands := population(2000, []string{"get_order", "refund", "(none)", "rare"})
	for _, ordered := range []bool{true, false} {
		a := draw(t, cands, 7, 100, ordered, AllocProportional)
		shuffled := slices.Clone(cands)
		rand.New(rand.NewPCG(3, 4)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		// Only the unordered (streaming) mode accepts any order.
		if !ordered {
			b := draw(t, shuffled, 7, 100, ordered, AllocProportional)
			if !slices.Equal(ids(a), ids(b)) {
				t.Errorf("ordered=%v: shuffled input gave another sample", ordered)
			}
		}
		if len(a.Items) != 100 {
			t.Fatalf("got %d items", len(a.Items))
		}
		c := draw(t, cands, 8, 100, ordered, AllocProportional)
		if slices.Equal(ids(a), ids(c)) {
			t.Errorf("seeds 7 and 8 gave the same sample")
		}
		seen := map[string]bool{}
		for _, id := range ids(a) {
			if seen[id] {
				t.Fatalf("item %s sampled twice", id)
			}
			seen[id] = true
		}
	}
	// Both modes draw the same sample from distinct inputs.
	if !slices.Equal(ids(draw(t, cands, 5, 50, true, AllocEqual)), ids(draw(t, cands, 5, 50, false, AllocEqual))) {
		t.Errorf("ordered and streaming modes disagree on distinct inputs")
	}
}

func TestSampleCoversRareStrata(t *testing.T) {
	cands := population(1000, []string{"common"})
	for i := 0; i < 3; i++ {
		cands = append(cands, Candidate{ItemID: fmt.Sprint("rare", i), TraceID: fmt.Sprint("r", i),
			Stratum: "rare_tool", InputHash: hashOf(fmt.Sprint("rare", i))})
	}
	got := draw(t, cands, 1, 20, true, AllocProportional)
	per := map[string]int{}
	for _, c := range got.Items {
		per[c.Stratum]++
	}
	if per["rare_tool"] != 1 || per["common"] != 19 {
		t.Errorf("per stratum: %v, want rare_tool 1, common 19", per)
	}
	eq := draw(t, cands, 1, 20, true, AllocEqual)
	per = map[string]int{}
	for _, c := range eq.Items {
		per[c.Stratum]++
	}
	if per["rare_tool"] != 3 || per["common"] != 17 {
		t.Errorf("equal per stratum: %v, want rare_tool 3 (all), common 17", per)
	}
}

func TestSampleDeduplicatesEarliestWins(t *testing.T) {
	h := hashOf("same question")
	late := Candidate{ItemID: "it_late", TraceID: "tr_b", Stratum: "billing", InputHash: h, TS: 200, HasTS: true}
	early := Candidate{ItemID: "it_early", TraceID: "tr_c", Stratum: "shipping", InputHash: h, TS: 100, HasTS: true}
	tie := Candidate{ItemID: "it_tie", TraceID: "tr_a", Stratum: "billing", InputHash: h, TS: 100, HasTS: true}
	noTS := Candidate{ItemID: "it_nots", TraceID: "tr_0", Stratum: "billing", InputHash: h}
	other := Candidate{ItemID: "it_other", TraceID: "tr_x", Stratum: "billing", InputHash: hashOf("other"), TS: 50, HasTS: true}

	// Streaming: any arrival order, the earliest copy (ts 100, then trace
	// id tr_a) wins, in its own stratum.
	for _, order := range [][]Candidate{{late, early, tie, noTS, other}, {noTS, tie, other, early, late}, {other, early, late, noTS, tie}} {
		got := draw(t, order, 1, 10, false, AllocProportional)
		if !slices.Equal(sortedIDs(got), []string{"it_other", "it_tie"}) {
			t.Errorf("streaming: got %v, want it_other and it_tie", ids(got))
		}
	}
	// Exact mode is fed in Earlier order.
	feed := []Candidate{late, early, tie, noTS, other}
	slices.SortFunc(feed, func(a, b Candidate) int {
		if Earlier(a, b) {
			return -1
		}
		if Earlier(b, a) {
			return 1
		}
		return 0
	})
	s := NewSampler(1, 10, true)
	for _, c := range feed {
		s.Offer(c)
	}
	got, _ := s.Result(AllocProportional, 1)
	if !slices.Equal(sortedIDs(got), []string{"it_other", "it_tie"}) || s.Duplicates() != 3 {
		t.Errorf("exact: got %v with %d duplicates, want it_other and it_tie with 3", ids(got), s.Duplicates())
	}
	for _, st := range got.Strata {
		if st.Name == "billing" && st.Available != 2 {
			t.Errorf("billing available %d, want 2 (duplicates count once)", st.Available)
		}
	}
}

func TestSampleExcludesSampledInputs(t *testing.T) {
	cands := population(10, []string{"a"})
	s := NewSampler(1, 10, true)
	s.Exclude([]string{cands[3].InputHash})
	for _, c := range cands {
		s.Offer(c)
	}
	got, _ := s.Result(AllocEqual, 1)
	if len(got.Items) != 9 || slices.Contains(ids(got), cands[3].ItemID) || s.Excluded() != 1 {
		t.Errorf("got %v (excluded %d), want the 9 others", ids(got), s.Excluded())
	}
}

// TestSampleIsUniform: over many seeds every item of a stratum is drawn at
// about the same rate (n/N), so the sampler has no positional bias.
func TestSampleIsUniform(t *testing.T) {
	cands := population(40, []string{"s"})
	hits := map[string]int{}
	const rounds = 4000
	for seed := int64(0); seed < rounds; seed++ {
		for _, id := range ids(draw(t, cands, seed, 10, true, AllocProportional)) {
			hits[id]++
		}
	}
	want := rounds * 10 / 40 // 1000
	for _, c := range cands {
		if h := hits[c.ItemID]; h < want*85/100 || h > want*115/100 {
			t.Errorf("%s drawn %d times, want about %d", c.ItemID, h, want)
		}
	}
}

func sortedIDs(s Sample) []string {
	out := ids(s)
	slices.Sort(out)
	return out
}

// TestOfferRowPinned pins what exact mode draws from 30,000 rows offered in
// order with copies (one in 17 repeats an earlier input, in its stratum or
// another), inputs whose hash is not hex, and excluded inputs: the same seed
// must draw the same rows in the same order in every release. The sampler
// is told to expect fewer rows than it gets, and more, and nothing.
// TestOfferCopiesPinned draws the same from the rows gathered in parts, as
// the store does.
func TestOfferRowPinned(t *testing.T) {
	strata := []string{"(none)", "(none)", "get_order", "refund", "search", "rare"}
	hashes := make([]string, 30_000)
	for i := range hashes {
		switch {
		case i%17 == 16:
			hashes[i] = hashes[i*2/3]
		case i%1000 == 5:
			hashes[i] = fmt.Sprint("plain-", i)
		default:
			hashes[i] = hashOf(fmt.Sprint("input ", i))
		}
	}
	stratumOf := func(i int) string {
		st := strata[(i*7)%len(strata)]
		if i%5 == 0 && st == "rare" {
			st = "rarest"
		}
		return st
	}
	var excluded []string
	for i := 3; i < len(hashes); i += 211 {
		excluded = append(excluded, hashes[i])
	}
	for _, tc := range []struct {
		seed   int64
		n      int
		expect int
		mode   string
		want   string
	}{
		{1, 500, 30_000, AllocProportional, "1a8c5736a1640e83"},
		{2, 120, 1_000, AllocEqual, "1c6dde07eaebb109"},
		{-3, 40, 0, AllocProportional, "bd9b9fd65cdf9289"},
		{4, 50_000, 100_000, AllocProportional, "5bc7bc88d327b2b2"},
	} {
		{
			s := NewSampler(tc.seed, tc.n, true)
			s.Expect(tc.expect)
			s.Exclude(excluded)
			for i, h := range hashes {
				s.Offer(Candidate{Row: int64(i), InputHash: h, Stratum: stratumOf(i)})
			}
			got, err := s.Result(tc.mode, 1)
			if err != nil {
				t.Fatal(err)
			}
			d := sha256.New()
			for _, c := range got.Items {
				if h := hashes[c.Row]; h != c.InputHash {
					t.Fatalf("row %d: input hash %q, want (a prefix of) %q", c.Row, c.InputHash, h)
				}
				fmt.Fprintln(d, c.Row, c.Stratum, hashes[c.Row])
			}
			for _, st := range got.Strata {
				fmt.Fprintln(d, st.Name, st.Available, st.Sampled)
			}
			fmt.Fprintln(d, s.Duplicates(), s.Excluded(), got.Note)
			if sum := hex.EncodeToString(d.Sum(nil))[:16]; sum != tc.want {
				t.Errorf("seed %d, n %d, expect %d: digest %s, want %s (%d dups, %d excluded)", tc.seed, tc.n, tc.expect, sum, tc.want, s.Duplicates(), s.Excluded())
			}
		}
	}
}
