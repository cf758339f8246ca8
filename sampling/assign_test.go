package sampling

import (
	"fmt"
	"strings"
	"testing"
)

func reviewerNames(r int) []string {
	out := make([]string, r)
	for i := range out {
		out[i] = fmt.Sprintf("rev%02d", r-i) // given unsorted on purpose
	}
	return out
}

// TestAssignBalancedAtEveryPrefix: each item gets perItem distinct
// reviewers, and after every item the reviewers' loads differ by at most one.
func TestAssignBalancedAtEveryPrefix(t *testing.T) {
	for r := 1; r <= 8; r++ {
		for per := 1; per <= r; per++ {
			sets, err := Assign(120, reviewerNames(r), per)
			if err != nil {
				t.Fatal(err)
			}
			load := map[string]int{}
			for i, set := range sets {
				if len(set) != per {
					t.Fatalf("r=%d per=%d item %d: %d reviewers", r, per, i, len(set))
				}
				distinct := map[string]bool{}
				for _, name := range set {
					if distinct[name] {
						t.Fatalf("r=%d per=%d item %d: %s twice", r, per, i, name)
					}
					distinct[name] = true
					load[name]++
				}
				lo, hi := 1<<30, 0
				for _, name := range reviewerNames(r) {
					lo, hi = min(lo, load[name]), max(hi, load[name])
				}
				if hi-lo > 1 {
					t.Fatalf("r=%d per=%d after %d items: loads %v differ by %d", r, per, i+1, load, hi-lo)
				}
			}
		}
	}
}

// TestAssignPairsOverlap: every reviewer pair shares an item once there are
// r(r-1)/2 + r items, for up to 10 reviewers and every per-item count; with
// two per item and an even number of reviewers, after exactly r(r-1)/2.
func TestAssignPairsOverlap(t *testing.T) {
	for r := 2; r <= 10; r++ {
		for per := 2; per <= r; per++ {
			pairs := r * (r - 1) / 2
			bound := pairs + r
			if per == 2 && r%2 == 0 {
				bound = pairs
			}
			sets, err := Assign(bound, reviewerNames(r), per)
			if err != nil {
				t.Fatal(err)
			}
			shared := map[[2]string]int{}
			for _, set := range sets {
				for x := range set {
					for y := x + 1; y < len(set); y++ {
						shared[[2]string{set[x], set[y]}]++
					}
				}
			}
			if len(shared) != pairs {
				t.Errorf("r=%d per=%d: %d of %d pairs overlap after %d items", r, per, len(shared), pairs, bound)
			}
		}
	}
}

// TestAssignSmallCases spells out the rotation for the common team sizes.
func TestAssignSmallCases(t *testing.T) {
	tests := []struct {
		reviewers []string
		per, n    int
		want      string
	}{
		{[]string{"carol", "alice", "bob"}, 2, 6, "alice+bob alice+carol bob+carol alice+bob alice+carol bob+carol"},
		{[]string{"a", "b", "c", "d"}, 2, 6, "a+d b+c b+d a+c c+d a+b"},
		{[]string{"a", "b", "c", "d"}, 3, 4, "a+b+c a+b+d a+c+d b+c+d"},
	}
	for _, tc := range tests {
		sets, err := Assign(tc.n, tc.reviewers, tc.per)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range sets {
			got = append(got, strings.Join(s, "+"))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%v per %d: got %q, want %q", tc.reviewers, tc.per, strings.Join(got, " "), tc.want)
		}
	}
}

func TestAssignRejects(t *testing.T) {
	for _, tc := range []struct {
		reviewers []string
		per       int
		want      string
	}{
		{[]string{"a", "b"}, 3, "needs at least 3 reviewers"},
		{[]string{"a", "b"}, 0, "at least 1"},
		{nil, 1, "no reviewers"},
		{[]string{"a", "a"}, 1, "listed twice"},
	} {
		if _, err := Assign(3, tc.reviewers, tc.per); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Assign(%v, %d): %v, want %q", tc.reviewers, tc.per, err, tc.want)
		}
	}
}
