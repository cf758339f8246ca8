package sampling

import (
	"fmt"
	"sort"
)

// maxSubsets bounds the reviewer subsets Assign scores exactly for one item;
// beyond it (very many reviewers) it builds the subset greedily.
const maxSubsets = 5000

// Assign gives each of items sample items perItem distinct reviewers and
// returns them per item (names in the order of the sorted reviewer list).
//
// The rotation is deterministic and keeps two properties at every prefix of
// the sample:
//   - balance: reviewers' loads differ by at most one. Each item takes the
//     least-loaded reviewers; when that leaves a choice among reviewers with
//     equal load, the choice is free.
//   - overlap: the free choice goes to the subset that covers the most
//     reviewer pairs not yet sharing an item, then to the reviewers who still
//     lack the most partners, then to the pairs that share the fewest items,
//     then to the lexicographically first subset. With two reviewers per
//     item and an even number of reviewers the rotation is instead a
//     round-robin tournament (every pair once per r(r-1)/2 items). Every pair
//     overlaps on some item once there are r(r-1)/2 + r items (checked
//     exhaustively for up to 10 reviewers in TestAssignPairsOverlap), so
//     pairwise agreement is measurable for each pair.
func Assign(items int, reviewers []string, perItem int) ([][]string, error) {
	names := append([]string(nil), reviewers...)
	sort.Strings(names)
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			return nil, fmt.Errorf("reviewer %q is listed twice", names[i])
		}
	}
	r := len(names)
	switch {
	case perItem < 1:
		return nil, fmt.Errorf("reviewers per item must be at least 1, not %d", perItem)
	case r == 0:
		return nil, fmt.Errorf("no reviewers given")
	case perItem > r:
		return nil, fmt.Errorf("%d reviewers per item needs at least %d reviewers, have %d", perItem, perItem, r)
	}
	load := make([]int, r)
	cover := make([][]int, r) // cover[a][b]: items shared by reviewers a and b
	for i := range cover {
		cover[i] = make([]int, r)
	}
	var schedule [][]int
	if perItem == 2 && r%2 == 0 {
		schedule = roundRobin(r)
	}
	out := make([][]string, items)
	for it := 0; it < items; it++ {
		var set []int
		if schedule != nil {
			set = schedule[it%len(schedule)]
		} else {
			set = pickReviewers(load, cover, perItem)
		}
		for x, a := range set {
			load[a]++
			for _, b := range set[x+1:] {
				cover[a][b]++
				cover[b][a]++
			}
		}
		out[it] = make([]string, len(set))
		for x, a := range set {
			out[it][x] = names[a]
		}
	}
	return out, nil
}

// roundRobin is the circle-method tournament for an even number of
// reviewers: r-1 rounds, each a perfect matching, so loads stay within one of
// each other at every prefix and every pair meets exactly once per cycle of
// r(r-1)/2 items.
func roundRobin(r int) [][]int {
	var out [][]int
	m := r - 1
	for k := 0; k < m; k++ {
		out = append(out, []int{min(k, m), max(k, m)})
		for i := 1; i < r/2; i++ {
			a, b := (k+i)%m, (k-i+m)%m
			out = append(out, []int{min(a, b), max(a, b)})
		}
	}
	return out
}

// pickReviewers chooses the reviewer indexes (ascending) for one item.
func pickReviewers(load []int, cover [][]int, perItem int) []int {
	low := load[0]
	for _, l := range load {
		low = min(low, l)
	}
	var atLow, above []int
	for i, l := range load {
		if l == low {
			atLow = append(atLow, i)
		} else {
			above = append(above, i)
		}
	}
	var forced, pool []int
	need := perItem
	if perItem >= len(atLow) {
		forced, pool, need = atLow, above, perItem-len(atLow)
	} else {
		pool = atLow
	}
	if binomial(len(pool), need) > maxSubsets {
		return greedyPick(forced, pool, need, cover)
	}
	var best []int
	bestNew, bestShared, bestNeed := -1, 0, 0
	combination(len(pool), need, func(choice []int) {
		set := make([]int, 0, perItem)
		set = append(set, forced...)
		for _, c := range choice {
			set = append(set, pool[c])
		}
		sort.Ints(set)
		fresh, shared := pairScore(set, cover)
		need := neediness(set, cover)
		if fresh > bestNew || (fresh == bestNew && (need > bestNeed || (need == bestNeed && shared < bestShared))) {
			best, bestNew, bestShared, bestNeed = set, fresh, shared, need
		}
	})
	return best
}

// neediness is how many partners the members of set still lack in total:
// preferring needy reviewers keeps later items from being forced onto pairs
// that already overlap.
func neediness(set []int, cover [][]int) int {
	n := 0
	for _, a := range set {
		for b := range cover[a] {
			if b != a && cover[a][b] == 0 {
				n++
			}
		}
	}
	return n
}

// pairScore counts the pairs of set that share no item yet and the items
// the pairs already share in total.
func pairScore(set []int, cover [][]int) (fresh, shared int) {
	for x, a := range set {
		for _, b := range set[x+1:] {
			if cover[a][b] == 0 {
				fresh++
			}
			shared += cover[a][b]
		}
	}
	return fresh, shared
}

// greedyPick adds pool members one at a time by the same preference.
func greedyPick(forced, pool []int, need int, cover [][]int) []int {
	set := append([]int(nil), forced...)
	used := map[int]bool{}
	for ; need > 0; need-- {
		best, bestNew, bestShared := -1, -1, 0
		for _, p := range pool {
			if used[p] {
				continue
			}
			fresh, shared := 0, 0
			for _, a := range set {
				if cover[a][p] == 0 {
					fresh++
				}
				shared += cover[a][p]
			}
			if fresh > bestNew || (fresh == bestNew && shared < bestShared) {
				best, bestNew, bestShared = p, fresh, shared
			}
		}
		used[best] = true
		set = append(set, best)
	}
	sort.Ints(set)
	return set
}

// combination calls fn with every k-subset of 0..n-1 in lexicographic order.
func combination(n, k int, fn func([]int)) {
	c := make([]int, k)
	for i := range c {
		c[i] = i
	}
	for {
		fn(c)
		i := k - 1
		for i >= 0 && c[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		c[i]++
		for j := i + 1; j < k; j++ {
			c[j] = c[j-1] + 1
		}
	}
}

func binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	b := 1
	for i := 1; i <= k; i++ {
		b = b * (n - k + i) / i
		if b > maxSubsets {
			return b
		}
	}
	return b
}
