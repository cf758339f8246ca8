package review

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestComparePairKinds(t *testing.T) {
	tests := []struct {
		name  string
		a, b  Label
		kinds []string // nil: agreed
		args  []ArgsDiff
	}{
		{"identical", lab("a", DecisionCall, call("t", `{"x":1}`)), lab("b", DecisionCall, call("t", `{"x":1}`)), nil, nil},
		{"key order and number spelling", lab("a", DecisionCall, call("t", `{"x":1,"y":"s"}`)), lab("b", DecisionCall, call("t", `{"y":"s","x":1.00}`)), nil, nil},
		{"exponent", lab("a", DecisionCall, call("t", `{"x":100}`)), lab("b", DecisionCall, call("t", `{"x":1e2}`)), nil, nil},
		{"both no call", lab("a", DecisionNoCall), lab("b", DecisionNoCall), nil, nil},
		{"decision", lab("a", DecisionCall, call("t", `{}`)), lab("b", DecisionNoCall), []string{KindDecision}, nil},
		{"tool", lab("a", DecisionCall, call("t", `{}`)), lab("b", DecisionCall, call("u", `{}`)), []string{KindTool}, nil},
		{"args with keys", lab("a", DecisionCall, call("t", `{"x":1,"y":2,"z":3}`)), lab("b", DecisionCall, call("t", `{"x":1,"y":3,"w":0}`)),
			[]string{KindArgs}, []ArgsDiff{{Tool: "t", PosA: 0, PosB: 0, Keys: []string{"w", "y", "z"}}}},
		{"bool is not a number", lab("a", DecisionCall, call("t", `{"x":true}`)), lab("b", DecisionCall, call("t", `{"x":1}`)),
			[]string{KindArgs}, []ArgsDiff{{Tool: "t", Keys: []string{"x"}}}},
		{"string is not a number", lab("a", DecisionCall, call("t", `{"x":"1"}`)), lab("b", DecisionCall, call("t", `{"x":1}`)),
			[]string{KindArgs}, []ArgsDiff{{Tool: "t", Keys: []string{"x"}}}},
		{"nested arrays keep order", lab("a", DecisionCall, call("t", `{"x":[1,2]}`)), lab("b", DecisionCall, call("t", `{"x":[2,1]}`)),
			[]string{KindArgs}, []ArgsDiff{{Tool: "t", Keys: []string{"x"}}}},
		{"count: extra call to a shared tool", lab("a", DecisionCall, call("t", `{}`)), lab("b", DecisionCall, call("t", `{}`), call("t", `{"p":2}`)),
			[]string{KindCount}, nil},
		{"count and tool", lab("a", DecisionCall, call("t", `{}`)), lab("b", DecisionCall, call("t", `{}`), call("u", `{}`)),
			[]string{KindCount, KindTool}, nil},
		{"order", lab("a", DecisionCall, call("t", `{}`), call("u", `{}`)), lab("b", DecisionCall, call("u", `{}`), call("t", `{}`)),
			[]string{KindOrder}, nil},
		{"same tool twice, swapped args", lab("a", DecisionCall, call("t", `{"x":1}`), call("t", `{"x":2}`)), lab("b", DecisionCall, call("t", `{"x":2}`), call("t", `{"x":1}`)),
			[]string{KindOrder}, nil},
		{"order and args", lab("a", DecisionCall, call("t", `{"x":1}`), call("u", `{}`)), lab("b", DecisionCall, call("u", `{}`), call("t", `{"x":2}`)),
			[]string{KindArgs, KindOrder}, []ArgsDiff{{Tool: "t", PosA: 0, PosB: 1, Keys: []string{"x"}}}},
		{"unparseable args equal by bytes", lab("a", DecisionCall, call("t", `{oops`)), lab("b", DecisionCall, call("t", `{oops`)), nil, nil},
		{"unparseable vs parsed", lab("a", DecisionCall, call("t", `{oops`)), lab("b", DecisionCall, call("t", `{}`)),
			[]string{KindArgs}, []ArgsDiff{{Tool: "t", Keys: []string{WholeArgs}}}},
		{"missing args equal {}", lab("a", DecisionCall, call("t", ``)), lab("b", DecisionCall, call("t", `{}`)), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, same := ComparePair(tt.a, tt.b)
			if tt.kinds == nil {
				if !same {
					t.Fatalf("want agreement, got %+v", d)
				}
				return
			}
			if same {
				t.Fatalf("want kinds %v, got agreement", tt.kinds)
			}
			if !reflect.DeepEqual(d.Kinds, tt.kinds) {
				t.Errorf("kinds %v, want %v", d.Kinds, tt.kinds)
			}
			if !reflect.DeepEqual(d.Args, tt.args) {
				t.Errorf("args %+v, want %+v", d.Args, tt.args)
			}
		})
	}
}

func TestCompareAllPairsOfThree(t *testing.T) {
	ls := []Label{
		lab("a", DecisionCall, call("t", `{}`)),
		lab("b", DecisionCall, call("t", `{}`)),
		lab("c", DecisionNoCall),
	}
	cmp := Compare(ls)
	if cmp.Agreed || !reflect.DeepEqual(cmp.Kinds, []string{KindDecision}) || len(cmp.Pairs) != 2 {
		t.Fatalf("%+v", cmp)
	}
	if cmp.Pairs[0].A != "a" || cmp.Pairs[0].B != "c" || cmp.Pairs[1].A != "b" {
		t.Errorf("pairs: %+v", cmp.Pairs)
	}
	if got := Compare(ls[:2]); !got.Agreed || got.Kinds != nil {
		t.Errorf("a and b agree: %+v", got)
	}
}

func TestAgreedGoldRationaleAndCalls(t *testing.T) {
	bob := lab("bob", DecisionCall, call("t", `{"x":1.0}`))
	bob.Rationale = "because x"
	alice := lab("alice", DecisionCall, call("t", `{"x":1}`))
	alice.Rationale = "x is asked for"
	carol := lab("carol", DecisionCall, call("t", `{"x":1}`))
	carol.Rationale = "because x"
	g := AgreedGold([]Label{bob, carol, alice})
	if g.Rationale != "x is asked for\n\nbob: because x" {
		t.Errorf("rationale %q", g.Rationale)
	}
	if string(g.Calls[0].Args) != `{"x":1}` || !reflect.DeepEqual(g.Reviewers, []string{"alice", "bob", "carol"}) || g.Status != GoldAgreed {
		t.Errorf("gold %+v", g)
	}
	none := AgreedGold([]Label{lab("a", DecisionNoCall, call("t", `{}`)), lab("b", DecisionNoCall)})
	if len(none.Calls) != 0 || none.Calls == nil {
		t.Errorf("no-call gold carries calls: %+v", none.Calls)
	}
}

func TestArgsEqualIsSymmetric(t *testing.T) {
	vals := []string{`{"x":1}`, `{"x":1.0}`, `{"x":true}`, `{"x":"1"}`, `{"x":null}`, `{}`, `[1]`, `{oops`, ``}
	for _, a := range vals {
		for _, b := range vals {
			if ArgsEqual(json.RawMessage(a), json.RawMessage(b)) != ArgsEqual(json.RawMessage(b), json.RawMessage(a)) {
				t.Errorf("asymmetric: %s vs %s", a, b)
			}
		}
	}
}

// Agree's exact agreement takes a shortcut; it must match ComparePair.
func TestAgreeExactMatchesComparePair(t *testing.T) {
	labels := []Label{
		lab("x", DecisionNoCall), lab("x", DecisionCall), lab("x", DecisionCall, call("t", `{"a":1}`)),
		lab("x", DecisionCall, call("t", `{"a":1.0}`)), lab("x", DecisionCall, call("t", `{"a":2}`)),
		lab("x", DecisionCall, call("t", `{"a":1}`), call("u", `{}`)), lab("x", DecisionCall, call("t", `{"a":1}`), call("u", `{"b":1}`)),
		lab("x", DecisionCall, call("u", `{}`), call("t", `{"a":1}`)), lab("x", DecisionNoCall, call("t", `{}`)),
	}
	for i, a := range labels {
		for j, b := range labels {
			a.Reviewer, b.Reviewer = "a", "b"
			_, same := ComparePair(a, b)
			got := *Agree([][]Label{{a, b}}).Exact == 1
			if got != same {
				t.Errorf("labels %d and %d: Agree exact %v, ComparePair %v", i, j, got, same)
			}
		}
	}
}
