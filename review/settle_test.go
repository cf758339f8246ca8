package review

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestSettle(t *testing.T) {
	call := func(who, args string) Label {
		return Label{Item: "it_1", Reviewer: who, Decision: "call", Calls: []LabelCall{{Tool: "refund", Args: json.RawMessage(args)}}}
	}
	alice, bob, bobOther := call("alice", `{"id":1}`), call("bob", `{"id":1.0}`), call("bob", `{"id":2}`)
	tests := []struct {
		name    string
		open    int
		labels  []Label
		hold    bool
		settled bool
		gold    bool
		kinds   []string
	}{
		{"an assignment still open", 1, []Label{alice, bob}, false, false, false, nil},
		{"one label (the other skipped)", 0, []Label{alice}, false, false, false, nil},
		{"agreed", 0, []Label{alice, bob}, false, true, true, nil},
		{"agreed, held for a lead", 0, []Label{alice, bob}, true, true, false, []string{KindReview}},
		{"disputed", 0, []Label{alice, bobOther}, false, true, false, []string{KindArgs}},
		{"disputed while holding", 0, []Label{alice, bobOther}, true, true, false, []string{KindArgs}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Settle(tt.open, tt.labels, tt.hold)
			if out.Settled != tt.settled || (out.Gold != nil) != tt.gold || !reflect.DeepEqual(out.Dispute.Kinds, tt.kinds) {
				t.Fatalf("Settle = %+v", out)
			}
			if tt.gold && (out.Gold.Status != GoldAgreed || !reflect.DeepEqual(out.Gold.Reviewers, []string{"alice", "bob"})) {
				t.Errorf("gold %+v", out.Gold)
			}
			if tt.settled && out.Comparison.Agreed != (tt.kinds == nil || tt.hold && tt.kinds[0] == KindReview) {
				t.Errorf("comparison %+v", out.Comparison)
			}
		})
	}
}
