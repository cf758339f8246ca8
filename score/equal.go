package score

import (
	"encoding/json"
	"sort"
	"sync"
)

// Equality for comparing two reviewers' arguments: the scorer's matcher with
// exact values (numbers by value, booleans never numbers, object key order
// irrelevant, arrays in order), ignoring arg rules and schema defaults.

// ArgsEqual reports whether two argument values are equal. Text that is not
// JSON is equal only to the same text.
func ArgsEqual(a, b json.RawMessage) bool {
	s := getEqualScorer()
	defer equalScorers.Put(s)
	x, errA := s.f.parse(orEmpty(a))
	y, errB := s.f.parse(orEmpty(b))
	if errA != nil || errB != nil {
		return string(a) == string(b)
	}
	return s.equalValues(x, y, false)
}

// ArgsDiff lists, sorted, the argument names whose values differ between
// two argument objects (present in one only, or unequal). When either side
// is not a JSON object it returns nil and ok=false.
func ArgsDiff(a, b json.RawMessage) (keys []string, ok bool) {
	s := getEqualScorer()
	defer equalScorers.Put(s)
	x, errA := s.f.parse(orEmpty(a))
	y, errB := s.f.parse(orEmpty(b))
	if errA != nil || errB != nil || s.f.nodes[x].kind != kindObject || s.f.nodes[y].kind != kindObject {
		return nil, false
	}
	for c := s.f.nodes[x].first; c >= 0; c = s.f.nodes[c].next {
		d := s.f.member(y, s.f.nodes[c].key)
		if d < 0 || !s.equalValues(c, d, false) {
			keys = append(keys, string(s.f.nodes[c].key))
		}
	}
	for d := s.f.nodes[y].first; d >= 0; d = s.f.nodes[d].next {
		if s.f.member(x, s.f.nodes[d].key) < 0 {
			keys = append(keys, string(s.f.nodes[d].key))
		}
	}
	sort.Strings(keys)
	return keys, true
}

// equalScorers keeps the scorers ArgsEqual and ArgsDiff parse into: the lead's
// status compares arguments of thousands of label pairs, and a Scorer (with
// its parse forest) on the heap per call was most of that cost.
var equalScorers = sync.Pool{New: func() any { return new(Scorer) }}

// getEqualScorer takes a pooled scorer with an empty parse forest.
func getEqualScorer() *Scorer {
	s := equalScorers.Get().(*Scorer)
	s.f.reset()
	return s
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}
