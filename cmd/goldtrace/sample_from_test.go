package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// smpWriteJSONL writes traces as canonical JSON Lines.
func smpWriteJSONL(t *testing.T, traces []trace.Trace, extra ...string) string {
	t.Helper()
	var b strings.Builder
	for _, tr := range traces {
		line, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	path := filepath.Join(t.TempDir(), "traces.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func smpItemIDs(p app.SamplePlan) []string {
	var out []string
	for _, it := range p.Items {
		out = append(out, it.ID)
	}
	return out
}

// TestSampleFromFileImportsOnlySampledTraces: --from draws the same sample
// as importing everything and sampling the store, and imports only the traces
// that hold sampled items.
func TestSampleFromFileImportsOnlySampledTraces(t *testing.T) {
	corpus := smpCorpus()
	file := smpWriteJSONL(t, corpus)
	args := []string{"sample", "--n", "25", "--seed", "9", "--by", "tool", "--reviewers", "alice,bob,carol", "--json"}

	streamDB := smpDB(t, nil)
	fromFile := smpPlan(t, smpMust(t, streamDB, append(args, "--from", file)...))
	fromStore := smpPlan(t, smpMust(t, smpDB(t, corpus), args...))
	if !slices.Equal(smpItemIDs(fromFile), smpItemIDs(fromStore)) {
		t.Errorf("--from and the store drew different samples:\n%v\n%v", smpItemIDs(fromFile), smpItemIDs(fromStore))
	}
	if fromFile.Read != 120 || fromFile.Matching != 360 || fromFile.Sampled != 25 {
		t.Errorf("read %d, matching %d, sampled %d", fromFile.Read, fromFile.Matching, fromFile.Sampled)
	}
	traces := map[string]bool{}
	for _, it := range fromFile.Items {
		traces[it.TraceID] = true
	}
	ctx := context.Background()
	st, err := store.Open(ctx, streamDB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var stored, sampled int
	st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM traces`).Scan(&stored)
	st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM items WHERE status = 'sampled'`).Scan(&sampled)
	if stored != len(traces) || fromFile.Imported != len(traces) || sampled != 25 {
		t.Errorf("stored %d traces (plan says %d), %d sampled items; want the %d traces holding the 25 items",
			stored, fromFile.Imported, sampled, len(traces))
	}
	// A second pass over the same file never draws the sampled inputs again.
	again := smpPlan(t, smpMust(t, streamDB, "sample", "--n", "400", "--seed", "9", "--from", file, "--reviewers", "alice,bob", "--json"))
	if again.Sampled != 335 || again.Excluded != 25 {
		t.Errorf("second pass: sampled %d, excluded %d; want 335 and 25", again.Sampled, again.Excluded)
	}
}

func TestSampleFromFileBadInput(t *testing.T) {
	db := smpDB(t, nil)
	good := smpWriteJSONL(t, smpCorpus()[:5])
	bad := smpWriteJSONL(t, smpCorpus()[:5], `{"id": "broken", "messages": 7}`)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--from", filepath.Join(t.TempDir(), "nope.jsonl")}, "no such file"},
		{[]string{"--from", good, "--by", "meta.color"}, `no trace in ` + good + ` has metadata "color"`},
		{[]string{"--from", good, "--format", "csv"}, "--format must be one of"},
		{[]string{"--from", bad}, bad + ":6:"},
		{[]string{"--from", good, "--where", "tool=nothing"}, "no items match --where tool=nothing"},
	}
	for _, tc := range tests {
		args := append([]string{"sample", "--seed", "1", "--reviewers", "alice,bob"}, tc.args...)
		out, err := smpRun(t, db, args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitCode(err) != 2 || out != "" {
			t.Errorf("%v: error %v (exit %d, output %q), want %q", tc.args, err, exitCode(err), out, tc.want)
		}
	}
	if got := smpMust(t, db, "traces", "--json"); !strings.Contains(got, `"traces": 0,`) {
		t.Errorf("failed --from runs imported traces: %s", got)
	}
	out := smpMust(t, db, "sample", "--seed", "1", "--n", "3", "--reviewers", "alice,bob", "--from", bad, "--skip-invalid")
	if !strings.Contains(out, "read 5 traces from "+bad+" (1 invalid skipped)") {
		t.Errorf("--skip-invalid output:\n%s", out)
	}
}
