package sampling

import (
	"fmt"
	"sort"
)

// Allocation modes for stratified samples.
const (
	// AllocProportional gives each stratum a share of n proportional to its
	// available items.
	AllocProportional = "proportional"
	// AllocEqual gives each stratum the same share of n.
	AllocEqual = "equal"
)

// Stratum is one group of candidates and what the sample takes from it.
type Stratum struct {
	Name      string `json:"name"`
	Available int    `json:"available"`
	Sampled   int    `json:"sampled"`
}

// Allocate decides how many items each stratum contributes to a sample of n.
//
// Shares are proportional to Available (AllocProportional) or equal
// (AllocEqual), rounded by largest remainder (ties: the larger stratum, then
// the name). Every stratum with items gets at least min(minPer, Available).
// A stratum with fewer items than its share gives all it has and the rest is
// redistributed over the others, repeatedly, until every share fits; the
// result is the clamped water-filling solution computed in exact integer
// arithmetic, so it never depends on floating point.
//
// When n cannot cover every stratum's minimum, the largest strata get theirs
// first (Allocate reports this in the returned note). When n is at least the
// total, every item is taken. The result is sorted by stratum name.
//
// It is long because the water-filling rounds, the minimum per stratum and
// the remainder distribution work on the same integer shares; it is kept
// whole so that its exact arithmetic can be read in one place.
func Allocate(strata []Stratum, n int, mode string, minPer int) ([]Stratum, string, error) {
	if n < 0 {
		return nil, "", fmt.Errorf("sample size %d is negative", n)
	}
	if minPer < 0 {
		return nil, "", fmt.Errorf("minimum per stratum %d is negative", minPer)
	}
	if mode != AllocProportional && mode != AllocEqual {
		return nil, "", fmt.Errorf("allocation %q: must be %s or %s", mode, AllocProportional, AllocEqual)
	}
	out := append([]Stratum(nil), strata...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	total := 0
	for i := range out {
		if out[i].Available < 0 {
			return nil, "", fmt.Errorf("stratum %q: negative size", out[i].Name)
		}
		total += out[i].Available
		out[i].Sampled = 0
	}
	if n >= total {
		for i := range out {
			out[i].Sampled = out[i].Available
		}
		return out, "", nil
	}

	lo := make([]int, len(out)) // the minimum each stratum must get
	sumLo := 0
	for i, s := range out {
		lo[i] = min(minPer, s.Available)
		sumLo += lo[i]
	}
	note := ""
	if sumLo > n {
		note = fmt.Sprintf("n=%d cannot give every stratum its minimum of %d; the largest strata got theirs first", n, minPer)
		budget := n
		for _, i := range bySizeDesc(out) {
			lo[i] = min(lo[i], budget)
			budget -= lo[i]
		}
	}

	weight := func(i int) int64 {
		if mode == AllocEqual {
			return 1
		}
		return int64(out[i].Available)
	}
	fixed := make([]bool, len(out))
	for i, s := range out {
		if s.Available == 0 {
			fixed[i] = true
		}
	}
	for {
		var active []int
		rest := int64(n)
		var w int64
		for i := range out {
			if fixed[i] {
				rest -= int64(out[i].Sampled)
				continue
			}
			active = append(active, i)
			w += weight(i)
		}
		if len(active) == 0 {
			break
		}
		// Exact share of stratum i is rest*weight(i)/w. Excess over the
		// upper bounds and deficit under the lower ones, both times w.
		var excess, deficit int64
		for _, i := range active {
			x := rest * weight(i)
			if up := int64(out[i].Available) * w; x > up {
				excess += x - up
			}
			if down := int64(lo[i]) * w; x < down {
				deficit += down - x
			}
		}
		if excess == 0 && deficit == 0 {
			largestRemainder(out, active, rest, w, weight)
			break
		}
		// When the excess is at least the deficit, the final level is no
		// lower than this one, so strata over their size stay clamped there;
		// otherwise the level falls and strata under their minimum stay
		// clamped there. Fix those and solve for the rest again.
		for _, i := range active {
			x := rest * weight(i)
			if excess >= deficit && x > int64(out[i].Available)*w {
				out[i].Sampled, fixed[i] = out[i].Available, true
			}
			if excess < deficit && x < int64(lo[i])*w {
				out[i].Sampled, fixed[i] = lo[i], true
			}
		}
	}
	return out, note, nil
}

// largestRemainder sets Sampled for the active strata to the floor of their
// exact share rest*weight/w and gives the units left over to the largest
// remainders (ties: the larger stratum, then the name).
func largestRemainder(out []Stratum, active []int, rest, w int64, weight func(int) int64) {
	left := rest
	rem := make(map[int]int64, len(active))
	for _, i := range active {
		x := rest * weight(i)
		out[i].Sampled = int(x / w)
		rem[i] = x % w
		left -= x / w
	}
	order := append([]int(nil), active...)
	sort.SliceStable(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if rem[i] != rem[j] {
			return rem[i] > rem[j]
		}
		if out[i].Available != out[j].Available {
			return out[i].Available > out[j].Available
		}
		return out[i].Name < out[j].Name
	})
	for _, i := range order {
		if left == 0 {
			break
		}
		if rem[i] > 0 {
			out[i].Sampled++
			left--
		}
	}
}

// bySizeDesc returns the indexes of strata from the largest to the smallest
// (ties by name).
func bySizeDesc(s []Stratum) []int {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if s[idx[a]].Available != s[idx[b]].Available {
			return s[idx[a]].Available > s[idx[b]].Available
		}
		return s[idx[a]].Name < s[idx[b]].Name
	})
	return idx
}
