package synth

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

func writeBytes(t *testing.T, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := Write(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("Write reported %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

func TestWriteIsDeterministic(t *testing.T) {
	tests := []struct {
		name     string
		a, b     Options
		wantSame bool
	}{
		{"same options", Options{Seed: 7, N: 200}, Options{Seed: 7, N: 200}, true},
		{"other seed", Options{Seed: 7, N: 200}, Options{Seed: 8, N: 200}, false},
		{"other start", Options{Seed: 7, N: 50}, Options{Seed: 7, N: 50, Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			same := bytes.Equal(writeBytes(t, tt.a), writeBytes(t, tt.b))
			if same != tt.wantSame {
				t.Errorf("same bytes = %v, want %v", same, tt.wantSame)
			}
		})
	}
}

func TestOffsetGivesTheSameTracesWithDisjointIDs(t *testing.T) {
	all := Generate(Options{Seed: 3, N: 30})
	tail := Generate(Options{Seed: 3, N: 10, Offset: 20})
	for i := range tail {
		a, _ := json.Marshal(all[20+i])
		b, _ := json.Marshal(tail[i])
		if !bytes.Equal(a, b) {
			t.Fatalf("trace %d with offset 20 differs from trace %d of the full set", i, 20+i)
		}
	}
	head := Generate(Options{Seed: 9, N: 20})
	ids := map[string]bool{}
	for _, tr := range append(head, tail...) {
		if ids[tr.ID] {
			t.Fatalf("id %s in both sets", tr.ID)
		}
		ids[tr.ID] = true
	}
	if got := Generate(Options{Seed: 1, N: 1, Prefix: "demo_"})[0].ID; got != "demo_000001" {
		t.Errorf("id with prefix = %q, want demo_000001", got)
	}
}

func TestGeneratedTracesAreValid(t *testing.T) {
	cases := GenerateCases(Options{Seed: 42, N: 1000})
	ids := map[string]bool{}
	var prev time.Time
	for _, c := range cases {
		tr := c.Trace
		if ids[tr.ID] {
			t.Fatalf("duplicate trace id %s", tr.ID)
		}
		ids[tr.ID] = true
		if tr.Timestamp.Before(prev.Add(-2 * time.Minute)) {
			t.Errorf("%s: timestamp %v far before the previous %v", tr.ID, tr.Timestamp, prev)
		}
		prev = tr.Timestamp
		for _, k := range []string{"model", "prompt_version", "cohort", "region"} {
			if tr.Metadata[k] == "" {
				t.Errorf("%s: metadata %q missing", tr.ID, k)
			}
		}
		if len(tr.Tools) < 5 || len(tr.Tools) > 10 {
			t.Errorf("%s: %d tools offered", tr.ID, len(tr.Tools))
		}
		if tr.Messages[0].Role != trace.RoleSystem || tr.Messages[1].Role != trace.RoleUser {
			t.Errorf("%s: starts with %s, %s", tr.ID, tr.Messages[0].Role, tr.Messages[1].Role)
		}
		pending := map[string]bool{}
		for i, m := range tr.Messages {
			if m.Content == "" && len(m.ToolCalls) == 0 {
				t.Errorf("%s message %d (%s): empty", tr.ID, i, m.Role)
			}
			for _, call := range m.ToolCalls {
				if call.Name == "" || call.ID == "" {
					t.Errorf("%s message %d: call without name or id", tr.ID, i)
				}
				if !call.Unparseable {
					if canon, err := trace.Canonical(call.Arguments); err != nil || !bytes.Equal(canon, call.Arguments) {
						t.Errorf("%s message %d: arguments %s not canonical JSON (%v)", tr.ID, i, call.Arguments, err)
					}
				}
				pending[call.ID] = true
			}
			if m.Role == trace.RoleTool {
				if !pending[m.ToolCallID] {
					t.Errorf("%s message %d: tool result for unknown call %q", tr.ID, i, m.ToolCallID)
				}
				delete(pending, m.ToolCallID)
				if !json.Valid([]byte(m.Content)) {
					t.Errorf("%s message %d: tool result is not JSON: %s", tr.ID, i, m.Content)
				}
			}
		}
		if len(pending) > 0 {
			t.Errorf("%s: calls without a result: %v", tr.ID, pending)
		}
		if last := tr.Messages[len(tr.Messages)-1]; last.Role != trace.RoleAssistant || len(last.ToolCalls) > 0 {
			t.Errorf("%s: does not end with an assistant reply", tr.ID)
		}
	}
}

// TestExpectedMatchesItems: the truth has exactly one entry per decision
// point trace.Items finds, with the same ids, and the observed calls differ
// from the truth exactly where a mistake was made.
func TestExpectedMatchesItems(t *testing.T) {
	for _, c := range GenerateCases(Options{Seed: 5, N: 500}) {
		items := trace.Items(c.Trace)
		if len(items) == 0 || len(items) != len(c.Expected) {
			t.Fatalf("%s: %d items, %d expected", c.Trace.ID, len(items), len(c.Expected))
		}
		for i, it := range items {
			e := c.Expected[i]
			if e.ItemID != it.ID || e.Turn != it.Turn || e.TraceID != c.Trace.ID {
				t.Fatalf("%s: expected[%d] is %s turn %d, item is %s turn %d", c.Trace.ID, i, e.ItemID, e.Turn, it.ID, it.Turn)
			}
			if e.NoCall != (len(e.Calls) == 0) {
				t.Errorf("%s: NoCall %v with %d calls", e.ItemID, e.NoCall, len(e.Calls))
			}
			same := sameCalls(it.Observed, e.Calls)
			if same != (e.Mistake == MistakeNone) {
				t.Errorf("%s: observed %v vs expected %v, mistake %q", e.ItemID, it.Observed, e.Calls, e.Mistake)
			}
		}
	}
}

func sameCalls(observed, expected []trace.Call) bool {
	return slices.EqualFunc(observed, expected, func(a, b trace.Call) bool {
		return a.Name == b.Name && bytes.Equal(a.Arguments, b.Arguments) && a.Unparseable == b.Unparseable
	})
}

func TestTracesAreTheSameWithOrWithoutTruth(t *testing.T) {
	opts := Options{Seed: 17, N: 200}
	plain := Generate(opts)
	cases := GenerateCases(opts)
	for i := range plain {
		a, _ := json.Marshal(plain[i])
		b, _ := json.Marshal(cases[i].Trace)
		if !bytes.Equal(a, b) {
			t.Fatalf("trace %d differs when generated with its truth", i)
		}
	}
}

func TestArgMatchMarksFreeText(t *testing.T) {
	seen := map[string]string{}
	for _, c := range GenerateCases(Options{Seed: 8, N: 600}) {
		for _, e := range c.Expected {
			for k, rule := range e.ArgMatch {
				seen[e.Calls[0].Name+"."+k] = rule
			}
		}
	}
	want := map[string]string{"escalate_to_human.summary": "any", "cancel_order.reason": "any", "search_products.query": "fuzzy"}
	for k, rule := range want {
		if seen[k] != rule {
			t.Errorf("%s: rule %q, want %q", k, seen[k], rule)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("loose arguments %v, want only %v", seen, want)
	}
}
