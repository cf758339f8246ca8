package score

import (
	"math/rand/v2"
	"testing"
)

// TestAssignerOptimal checks the Hungarian solver against brute force over
// every permutation on random matrices up to 6×6.
func TestAssignerOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var a assigner
	for trial := 0; trial < 2000; trial++ {
		k := 1 + rng.IntN(6)
		cost := make([]int64, k*k)
		for i := range cost {
			cost[i] = int64(rng.IntN(50))
			if rng.IntN(8) == 0 {
				cost[i] = costInf
			}
		}
		a.solve(cost, k)
		got := int64(0)
		used := make([]bool, k)
		for i := 0; i < k; i++ {
			j := a.colOf[i]
			if used[j] {
				t.Fatalf("column %d assigned twice", j)
			}
			used[j] = true
			got += cost[i*k+j]
		}
		if want := bruteForce(cost, k); got != want {
			t.Fatalf("trial %d (k=%d): cost %d, optimum %d", trial, k, got, want)
		}
	}
}

func bruteForce(cost []int64, k int) int64 {
	perm := make([]int, k)
	for i := range perm {
		perm[i] = i
	}
	best := int64(-1)
	var rec func(int)
	rec = func(i int) {
		if i == k {
			sum := int64(0)
			for r, c := range perm {
				sum += cost[r*k+c]
			}
			if best < 0 || sum < best {
				best = sum
			}
			return
		}
		for j := i; j < k; j++ {
			perm[i], perm[j] = perm[j], perm[i]
			rec(i + 1)
			perm[i], perm[j] = perm[j], perm[i]
		}
	}
	rec(0)
	return best
}

// TestMatchOrderInvariant: shuffling the predicted calls never changes an
// item's verdict or call counts (a greedy matcher fails this).
func TestMatchOrderInvariant(t *testing.T) {
	cases, preds := benchDataset(3000, 3)
	rng := rand.New(rand.NewPCG(5, 6))
	s := NewScorer(ProfileDefault)
	for i := range cases {
		a := s.Item(&cases[i], preds[i])
		shuffled := append(preds[i].Calls[:0:0], preds[i].Calls...)
		rng.Shuffle(len(shuffled), func(x, y int) { shuffled[x], shuffled[y] = shuffled[y], shuffled[x] })
		b := s.Item(&cases[i], Prediction{Calls: shuffled})
		if a.Correct != b.Correct || a.MatchedCalls != b.MatchedCalls || a.Missed != b.Missed || a.Spurious != b.Spurious || a.ArgsValue != b.ArgsValue {
			t.Fatalf("%s: verdict changed with call order: %+v vs %+v", cases[i].ID, a, b)
		}
	}
}
