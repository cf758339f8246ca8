package gold

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The index finds every id whatever the order of adds and lookups, and
// tells duplicates with the line of the first.
func TestIndex(t *testing.T) {
	for _, tc := range []struct {
		name           string
		shuffleAdds    bool
		shuffleLookups bool
	}{{"sorted", false, false}, {"lookups shuffled", false, true}, {"adds shuffled", true, false}, {"both", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			ids := make([]string, 500)
			for i := range ids {
				ids[i] = fmt.Sprintf("it_%04d", i)
			}
			if tc.shuffleAdds {
				rng.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
			}
			var x Index
			for i, id := range ids {
				if _, dup := x.add(id, i+1); dup {
					t.Fatalf("%s reported as a duplicate", id)
				}
			}
			if first, dup := x.add(ids[7], 999); !dup || first != 8 {
				t.Fatalf("duplicate of %s: first line %d, dup %v; want 8, true", ids[7], first, dup)
			}
			order := rng.Perm(len(ids))
			if !tc.shuffleLookups {
				for i := range order {
					order[i] = i
				}
			}
			for _, i := range order {
				if pos, ok := x.Lookup(ids[i]); !ok || pos != i {
					t.Fatalf("Lookup(%s) = %d, %v; want %d", ids[i], pos, ok, i)
				}
			}
			for _, id := range []string{"", "it_", "it_0500", "zz"} {
				if pos, ok := x.Lookup(id); ok {
					t.Errorf("Lookup(%q) = %d, found", id, pos)
				}
			}
			if x.Len() != len(ids) {
				t.Errorf("Len %d", x.Len())
			}
		})
	}
}
