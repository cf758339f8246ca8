package review

import "testing"

func TestArgPaths(t *testing.T) {
	items := [][]Label{
		{ // same tool: date differs by value, passengers agree (1 = 1.0)
			lab("alice", DecisionCall, call("book", `{"flights":[{"date":"2024-05-01","no":"HAT1"}],"passengers":1,"a/b":{}}`)),
			lab("bob", DecisionCall, call("book", `{"flights":[{"date":"2024-05-02","no":"HAT1"}],"passengers":1.0}`)),
		},
		{ // different tools: not compared
			lab("alice", DecisionCall, call("book", `{"passengers":2}`)),
			lab("bob", DecisionCall, call("cancel", `{"id":"x"}`)),
		},
		{ // three reviewers: three pairs; args not JSON is one leaf
			lab("alice", DecisionCall, call("search", `{"q":"paris"}`)),
			lab("bob", DecisionCall, call("search", `{"q":"paris"}`)),
			lab("carol", DecisionCall, call("search", `not json`)),
		},
		{ // no call on both: nothing to compare
			lab("alice", DecisionNoCall), lab("bob", DecisionNoCall),
		},
	}
	got := ArgPaths(items)
	want := []struct {
		tool, path    string
		pairs, agreed int
	}{
		{"book", "/a~1b", 1, 0},
		{"book", "/flights/0/date", 1, 0},
		{"book", "/flights/0/no", 1, 1},
		{"book", "/passengers", 1, 1},
		{"search", "", 2, 0},
		{"search", "/q", 3, 1},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Tool != w.tool || g.Path != w.path || g.Pairs != w.pairs || g.Agreed != w.agreed {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
	if got[3].Percent == nil || *got[3].Percent != 1 {
		t.Errorf("percent: %+v", got[3])
	}
}
