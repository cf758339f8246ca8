package sampling

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestAllocateHandComputed(t *testing.T) {
	type s = Stratum
	tests := []struct {
		name   string
		strata []Stratum
		n      int
		mode   string
		minPer int
		want   map[string]int
		note   bool
	}{
		{"proportional exact", []Stratum{{Name: "a", Available: 50}, {Name: "b", Available: 30}, {Name: "c", Available: 20}},
			10, AllocProportional, 1, map[string]int{"a": 5, "b": 3, "c": 2}, false},
		// shares 7, 2, 0.7, 0.3; the minimum lifts c and d to 1, the
		// remaining 8 split 70:20 = 6.22, 1.78 -> 6, 2 by largest remainder.
		{"proportional minimum", []Stratum{{Name: "a", Available: 70}, {Name: "b", Available: 20}, {Name: "c", Available: 7}, {Name: "d", Available: 3}},
			10, AllocProportional, 1, map[string]int{"a": 6, "b": 2, "c": 1, "d": 1}, false},
		// without a minimum: 7, 2, 0.7 -> 1 (largest remainder), 0.3 -> 0.
		{"proportional no minimum", []Stratum{{Name: "a", Available: 70}, {Name: "b", Available: 20}, {Name: "c", Available: 7}, {Name: "d", Available: 3}},
			10, AllocProportional, 0, map[string]int{"a": 7, "b": 2, "c": 1, "d": 0}, false},
		// equal 3 each; b has 2 -> the spare 1 spreads: 10/3 each over a, c, d;
		// c has 3 -> 7/2 over a, d = 3.5 each; the tie goes to the larger a.
		{"equal redistribution", []Stratum{{Name: "a", Available: 100}, {Name: "b", Available: 2}, {Name: "c", Available: 3}, {Name: "d", Available: 50}},
			12, AllocEqual, 1, map[string]int{"a": 4, "b": 2, "c": 3, "d": 3}, false},
		{"equal even", []Stratum{{Name: "x", Available: 10}, {Name: "y", Available: 10}, {Name: "z", Available: 10}},
			9, AllocEqual, 1, map[string]int{"x": 3, "y": 3, "z": 3}, false},
		// minimum 2: b can give only 1, c gets 2, a the remaining 3.
		{"minimum above size", []Stratum{{Name: "a", Available: 100}, {Name: "b", Available: 1}, {Name: "c", Available: 3}},
			6, AllocProportional, 2, map[string]int{"a": 3, "b": 1, "c": 2}, false},
		{"n covers all", []Stratum{{Name: "a", Available: 4}, {Name: "b", Available: 1}},
			9, AllocProportional, 1, map[string]int{"a": 4, "b": 1}, false},
		{"n too small for minimums", []Stratum{{Name: "a", Available: 10}, {Name: "b", Available: 5}, {Name: "c", Available: 1}},
			2, AllocProportional, 1, map[string]int{"a": 1, "b": 1, "c": 0}, true},
		{"zero", []Stratum{{Name: "a", Available: 10}}, 0, AllocEqual, 1, map[string]int{"a": 0}, true},
		{"empty stratum", []Stratum{{Name: "a", Available: 10}, {Name: "b", Available: 0}},
			4, AllocEqual, 1, map[string]int{"a": 4, "b": 0}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, note, err := Allocate(tc.strata, tc.n, tc.mode, tc.minPer)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range got {
				if st.Sampled != tc.want[st.Name] {
					t.Errorf("%s: got %d, want %d (all: %+v)", st.Name, st.Sampled, tc.want[st.Name], got)
				}
			}
			if (note != "") != tc.note {
				t.Errorf("note %q, want note: %v", note, tc.note)
			}
		})
	}
}

func TestAllocateRejectsBadArguments(t *testing.T) {
	one := []Stratum{{Name: "a", Available: 3}}
	for _, tc := range []struct {
		n, minPer int
		mode      string
		want      string
	}{
		{-1, 1, AllocEqual, "negative"},
		{1, -1, AllocEqual, "negative"},
		{1, 1, "random", "allocation"},
	} {
		if _, _, err := Allocate(one, tc.n, tc.mode, tc.minPer); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Allocate(n=%d, min=%d, %s): err %v, want %q", tc.n, tc.minPer, tc.mode, err, tc.want)
		}
	}
}

// TestAllocateInvariants checks on random inputs what every allocation must
// satisfy: the total is min(n, available), no stratum gives more than it
// has, and every stratum gets its minimum when n covers the minimums.
func TestAllocateInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 3000; round++ {
		k := 1 + rng.IntN(8)
		strata := make([]Stratum, k)
		total, sumMin := 0, 0
		minPer := rng.IntN(4)
		for i := range strata {
			strata[i] = Stratum{Name: string(rune('a' + i)), Available: rng.IntN(60)}
			total += strata[i].Available
			sumMin += min(minPer, strata[i].Available)
		}
		n := rng.IntN(total + 5)
		mode := AllocProportional
		if rng.IntN(2) == 0 {
			mode = AllocEqual
		}
		got, note, err := Allocate(strata, n, mode, minPer)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, st := range got {
			sum += st.Sampled
			if st.Sampled < 0 || st.Sampled > st.Available {
				t.Fatalf("%+v n=%d %s min=%d: stratum %s got %d of %d", strata, n, mode, minPer, st.Name, st.Sampled, st.Available)
			}
			if note == "" && n < total && st.Sampled < min(minPer, st.Available) {
				t.Fatalf("%+v n=%d %s min=%d: stratum %s below its minimum: %d", strata, n, mode, minPer, st.Name, st.Sampled)
			}
		}
		if sum != min(n, total) {
			t.Fatalf("%+v n=%d %s min=%d: total %d, want %d (%+v)", strata, n, mode, minPer, sum, min(n, total), got)
		}
		if (note != "") != (n < total && sumMin > n) {
			t.Fatalf("%+v n=%d: note %q", strata, n, note)
		}
		// Equal allocation: two strata that both have spare items differ by
		// at most one.
		if mode == AllocEqual && note == "" {
			for _, a := range got {
				for _, b := range got {
					if a.Sampled < a.Available && b.Sampled < b.Available && a.Sampled-b.Sampled > 1 {
						t.Fatalf("%+v n=%d equal: %s=%d vs %s=%d", strata, n, a.Name, a.Sampled, b.Name, b.Sampled)
					}
				}
			}
		}
	}
}
