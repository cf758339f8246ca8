package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// pinTraces is 600 traces of three decision points each over twelve tools
// (two rare), two cohorts, every 40th without a timestamp, and copies: every
// 25th trace repeats an earlier trace's question (its first decision point is
// a duplicate input, in the same stratum or, every other time, in another:
// the copy calls another tool there), stored after it in time or before it.
func pinTraces() []trace.Trace {
	tools := []string{"", "", "", "get_order", "get_order", "refund", "search", "lookup_user", "cancel",
		"update_address", "track", "escalate"}
	var defs []trace.Tool
	for _, n := range tools[3:] {
		defs = append(defs, trace.Tool{Name: n})
	}
	defs = append(defs, trace.Tool{Name: "rare_export"}, trace.Tool{Name: "rarest_wipe"})
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var out []trace.Trace
	for i := 0; i < 600; i++ {
		q := fmt.Sprint("question ", i)
		if i%25 == 24 {
			q = fmt.Sprint("question ", i*3/5) // an earlier trace's question
		}
		t := trace.Trace{ID: fmt.Sprintf("tr_%04d", i), Timestamp: base.Add(time.Duration((i*37)%600) * time.Minute),
			Metadata: map[string]string{"cohort": []string{"billing", "shipping"}[i%2]}, Tools: defs,
			Messages: []trace.Message{{Role: "user", Content: q}}}
		if i%40 == 39 {
			t.Timestamp = time.Time{}
		}
		for turn := 0; turn < 3; turn++ {
			tool := tools[(i*5+turn*3)%len(tools)]
			switch {
			case i%25 == 24 && turn == 0 && i%50 == 49:
				tool = "rare_export" // a copy in another stratum
			case i%25 == 24 && turn == 0:
				tool = tools[(i*3/5*5)%len(tools)] // the original's tool
			case i == 301 && turn == 2:
				tool = "rarest_wipe"
			}
			if tool == "" {
				t.Messages = append(t.Messages, trace.Message{Role: "assistant", Content: fmt.Sprint("answer ", turn)},
					trace.Message{Role: "user", Content: fmt.Sprint("and then ", turn)})
				continue
			}
			id := fmt.Sprint("c", turn)
			t.Messages = append(t.Messages,
				trace.Message{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall(id, tool, fmt.Sprintf(`{"n":%d}`, turn))}},
				trace.Message{Role: "tool", ToolCallID: id, Name: tool, Content: "ok"})
		}
		out = append(out, t)
	}
	return out
}

// TestSamplePinned pins what a seed draws from the store: the same traces,
// seed and flags must give the same batch, item for item and in the same
// order, in every release and on both engines (a product promise; the
// digests were taken before the scan was made faster, and must never
// change). Each digest covers the items in batch order with their strata,
// every stratum's counts, the duplicates and the inputs already sampled.
func TestSamplePinned(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		path := filepath.Join(t.TempDir(), "gt.db")
		if engine == "postgres" {
			path = pgtest.DSN(t)
		}
		ctx := context.Background()
		st, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		err = st.WithTx(ctx, func(tx *store.Tx) error {
			for _, tr := range pinTraces() {
				if _, err := st.InsertTrace(ctx, tx, tr, "test"); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []string{"alice", "bob", "carol"} {
			if err := st.AddUser(ctx, u, store.RoleReviewer); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.AddUser(ctx, "lead", store.RoleLead); err != nil {
			t.Fatal(err)
		}
		a := New(st)
		lead := Actor{Name: "lead", Role: RoleLead, Source: SourceLocal}
		draw := func(o SampleOptions) string {
			t.Helper()
			o.MinPer, o.PerItem, o.Reviewers = 1, 2, []string{"alice", "bob", "carol"}
			if o.Alloc == "" {
				o.Alloc = "proportional"
			}
			if o.Turns == "" {
				o.Turns = "all"
			}
			p, err := a.Sample(ctx, lead, o, true, SampleIO{})
			if err != nil {
				t.Fatalf("%+v: %v", o, err)
			}
			h := sha256.New()
			for _, it := range p.Items {
				fmt.Fprintln(h, it.ID, it.Stratum, it.Reviewers)
			}
			for _, s := range p.Strata {
				fmt.Fprintln(h, s.Name, s.Available, s.Sampled)
			}
			fmt.Fprintln(h, p.Matching, p.Duplicates, p.Excluded, p.Note)
			return hex.EncodeToString(h.Sum(nil))[:16]
		}
		for _, tc := range []struct {
			o    SampleOptions
			want string
		}{
			{SampleOptions{N: 60, Seed: "1", By: "tool", ExcludeSampled: true, DryRun: true}, "e706e0b00cd270ba"},
			{SampleOptions{N: 60, Seed: "2", By: "tool", ExcludeSampled: true, DryRun: true}, "c1c6c536867da097"},
			{SampleOptions{N: 40, Seed: "-9", By: "meta.cohort", Alloc: "equal", ExcludeSampled: true, DryRun: true}, "8a3e20a9ad5152b5"},
			{SampleOptions{N: 50, Seed: "3", ExcludeSampled: true, DryRun: true}, "9f670dbc9391a8ce"},
			{SampleOptions{N: 30, Seed: "4", By: "tool", Turns: "calls", Where: []string{"meta.cohort=billing"}, ExcludeSampled: true, DryRun: true}, "7aa26d5f11235a03"},
			{SampleOptions{N: 5000, Seed: "5", By: "tool", ExcludeSampled: true, DryRun: true}, "f0897aa2b1d7149b"},
			// A batch, then samples that leave its inputs out (or not).
			{SampleOptions{N: 80, Seed: "6", By: "tool", ExcludeSampled: true, Batch: "b1"}, "d301ae05448a1352"},
			{SampleOptions{N: 60, Seed: "1", By: "tool", ExcludeSampled: true, DryRun: true}, "b5dd9770225f840d"},
			{SampleOptions{N: 60, Seed: "1", By: "tool", ExcludeSampled: false, DryRun: true}, "e706e0b00cd270ba"},
		} {
			if got := draw(tc.o); got != tc.want {
				t.Errorf("%+v: digest %s, want %s", tc.o, got, tc.want)
			}
		}
	})
}
