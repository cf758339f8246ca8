package score

import (
	"strconv"

	"github.com/goldtrace/goldtrace/gold"
)

// Matching under JSON-gold.Pointer rules (pointer.go): an argument whose value
// has rules below it is compared member by member and element by element,
// each nested value under the rule its pointer names (exact by default,
// fuzzy inherited from above unless the nested rule sets a match).

// ptrRule is one pointer rule of the expected call in hand.
type ptrRule struct {
	tokens []string
	rule   gold.ArgRule
}

// nestFail is the innermost nested value that failed.
type nestFail struct {
	set       bool
	path      string
	want, got []byte
}

// loadPointers collects the pointer rules of e into s.ptrs.
func (s *Scorer) loadPointers(e *gold.ExpectedCall) {
	s.ptrs = s.ptrs[:0]
	for k, r := range e.ArgRules {
		if !gold.IsPointer(k) {
			continue
		}
		tokens, err := gold.ParsePointer(k)
		if err != nil {
			continue // rejected when the gold is read; ignored here
		}
		s.ptrs = append(s.ptrs, ptrRule{tokens: tokens, rule: r})
	}
}

// topRule is the rule of top-level argument key: its plain key, or a
// one-token pointer.
func (s *Scorer) topRule(e *gold.ExpectedCall, key []byte) (gold.ArgRule, bool) {
	if r, ok := e.ArgRules[string(key)]; ok {
		return r, true
	}
	for i := range s.ptrs {
		if t := s.ptrs[i].tokens; len(t) == 1 && t[0] == string(key) {
			return s.ptrs[i].rule, true
		}
	}
	return gold.ArgRule{}, false
}

// ruleAt returns the rule whose pointer is exactly s.path.
func (s *Scorer) ruleAt() (gold.ArgRule, bool) {
	for i := range s.ptrs {
		if samePath(s.ptrs[i].tokens, s.path) {
			return s.ptrs[i].rule, true
		}
	}
	return gold.ArgRule{}, false
}

// rulesBelow reports whether some pointer names a value strictly inside
// s.path.
func (s *Scorer) rulesBelow() bool {
	for i := range s.ptrs {
		t := s.ptrs[i].tokens
		if len(t) > len(s.path) && samePath(t[:len(s.path)], s.path) {
			return true
		}
	}
	return false
}

func samePath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// matchValue compares expected x with predicted pv for top-level argument
// key: plain equality, or the nested walk when pointer rules lie below it.
func (s *Scorer) matchValue(x, pv int32, key []byte, fuzzy bool) bool {
	if len(s.ptrs) == 0 {
		return s.f.Equal(x, pv, fuzzy)
	}
	s.path = append(s.path[:0], string(key))
	if !s.rulesBelow() {
		return s.f.Equal(x, pv, fuzzy)
	}
	s.fail = nestFail{}
	return s.matchNested(x, pv, fuzzy)
}

// matchNested compares expected x with predicted pv at s.path.
func (s *Scorer) matchNested(x, pv int32, fuzzy bool) bool {
	nx, np := &s.f.Nodes[x], &s.f.Nodes[pv]
	if nx.Kind != np.Kind || (nx.Kind != gold.KindObject && nx.Kind != gold.KindArray) || !s.rulesBelow() {
		if s.f.Equal(x, pv, fuzzy) {
			return true
		}
		return s.failHere(nx.Raw, np.Raw)
	}
	if nx.Kind == gold.KindObject {
		for c := nx.First; c >= 0; c = s.f.Nodes[c].Next {
			key := s.f.Nodes[c].Key
			if !s.child(string(key), c, s.f.Member(pv, key), fuzzy) {
				return false
			}
		}
		for y := np.First; y >= 0; y = s.f.Nodes[y].Next {
			key := s.f.Nodes[y].Key
			if s.f.Member(x, key) >= 0 {
				continue
			}
			if !s.child(string(key), -1, y, fuzzy) {
				return false
			}
		}
		return true
	}
	a, b := nx.First, np.First
	for i := 0; a >= 0 || b >= 0; i++ {
		if !s.child(strconv.Itoa(i), a, b, fuzzy) {
			return false
		}
		if a >= 0 {
			a = s.f.Nodes[a].Next
		}
		if b >= 0 {
			b = s.f.Nodes[b].Next
		}
	}
	return true
}

// child checks the member or element token of the value at s.path:
// predicted pv (-1 absent) against expected x (-1 when the gold gives none)
// under the rule its pointer names.
func (s *Scorer) child(token string, x, pv int32, fuzzy bool) bool {
	s.path = append(s.path, token)
	ok := s.childAt(x, pv, fuzzy)
	s.path = s.path[:len(s.path)-1]
	return ok
}

func (s *Scorer) childAt(x, pv int32, fuzzy bool) bool {
	rule, has := s.ruleAt()
	if has && rule.Match != "" {
		fuzzy = rule.Match == gold.MatchFuzzy
	}
	var want []byte
	if x >= 0 {
		want = s.f.Nodes[x].Raw
	}
	if pv < 0 {
		// Absent: fine when optional; a rule with only any_of values (no
		// gold value) still wants the value, as at the top level.
		if (has && rule.Optional) || (x < 0 && !has) {
			return true
		}
		if want == nil && has {
			want = firstRaw(rule.AnyOf)
		}
		return s.failHere(want, nil)
	}
	got := s.f.Nodes[pv].Raw
	if has && rule.Match == gold.MatchAny {
		return true
	}
	if !has && x < 0 {
		return s.failHere(nil, got)
	}
	if x >= 0 && s.matchNested(x, pv, fuzzy) {
		return true
	}
	for _, alt := range rule.AnyOf {
		ai, err := s.f.Parse(alt)
		if err != nil {
			continue
		}
		if s.f.Equal(ai, pv, fuzzy) {
			s.fail = nestFail{}
			return true
		}
		if want == nil {
			want = alt
		}
	}
	if want == nil {
		want = []byte("(omitted)")
	}
	return s.failHere(want, got)
}

// failHere records the failure at s.path unless a deeper one is recorded.
func (s *Scorer) failHere(want, got []byte) bool {
	if !s.fail.set {
		s.fail = nestFail{set: true, path: gold.DisplayPath(gold.Pointer(s.path...)), want: want, got: got}
	}
	return false
}
