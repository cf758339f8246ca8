package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// lblProject is a demo database with n items sampled for alice and bob.
func lblProject(t *testing.T, n int) (db string, items []string) {
	t.Helper()
	dir := t.TempDir()
	_, p, closeStore, err := app.NewDemo(context.Background(), dir, synth.Options{Seed: 3, N: 20})
	if err != nil {
		t.Fatal(err)
	}
	closeStore()
	if _, err := tuiRun(t, p.DB, "sample", "--n", itoaTest(n), "--seed", "1", "--reviewers", "alice,bob", "--batch", "b1"); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), p.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, err := st.Queue(context.Background(), "alice", "b1")
	if err != nil || len(q) != n {
		t.Fatalf("queue %v %v", q, err)
	}
	for _, a := range q {
		items = append(items, a.ItemID)
	}
	return p.DB, items
}

func itoaTest(n int) string { b, _ := json.Marshal(n); return string(b) }

func lblLine(item, reviewer, decision string, calls string) string {
	if calls == "" {
		calls = "[]"
	}
	return `{"item":"` + item + `","reviewer":"` + reviewer + `","decision":"` + decision + `","calls":` + calls +
		`,"rationale":"r","seconds":5,"saw_observed":false,"submitted_at":"2026-05-02T09:14:00Z"}`
}

func lblWrite(t *testing.T, lines ...string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "labels.jsonl")
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// lblRunErr runs goldtrace and returns stdout, stderr and the error.
func lblRunErr(t *testing.T, db string, args ...string) (string, string, error) {
	t.Helper()
	out, errOut, _, err := runCLI(db, "", args...)
	return out, errOut, err
}

func TestLabelsImportIsAtomicAndValidated(t *testing.T) {
	db, items := lblProject(t, 2)
	bad := lblWrite(t,
		lblLine(items[0], "alice", "no_call", ""),
		lblLine("it_0000000000000000", "alice", "no_call", ""),
		lblLine(items[1], "carol", "no_call", ""),
		lblLine(items[1], "alice", "call", `[{"tool":"get_order_status","args":{"ordr_id":"ORD-12345"}}]`),
		`{"item":"x","reviewer":"alice","decision":"call","oops":1}`,
		lblLine(items[0], "alice", "no_call", ""),
	)
	// The lead imports in others' names, so every check is reported as is.
	_, stderr, err := lblRunErr(t, db, "labels", "import", bad, "--as", "carol", "--for-others")
	if err == nil || !strings.Contains(err.Error(), "5 invalid labels in") || exitCode(err) != 2 {
		t.Fatalf("want a refusal, got %v", err)
	}
	for _, want := range []string{
		bad + ":2: unknown item it_0000000000000000",
		bad + ":3: carol is not assigned item " + items[1],
		bad + ":4: unknown field 'ordr_id' — did you mean order_id?; order_id is required",
		bad + `:5: not a label: json: unknown field "oops"`,
		bad + ":6: a second label by alice for " + items[0] + " in this file",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if out, _, _ := lblRunErr(t, db, "labels", "export", "--as", "carol"); out != "" {
		t.Fatalf("a refused import stored labels:\n%s", out)
	}
	out, _, err := lblRunErr(t, db, "labels", "import", bad, "--skip-invalid", "--as", "carol", "--for-others")
	if err != nil || !strings.Contains(out, "imported 1 label from") || !strings.Contains(out, "5 invalid skipped") {
		t.Fatalf("skip-invalid: %v %q", err, out)
	}
	// bob agrees with alice: the item settles, and bob is not told how.
	good := lblWrite(t, lblLine(items[0], "bob", "no_call", ""))
	out, _, err = lblRunErr(t, db, "labels", "import", good, "--as", "bob")
	if err != nil || out != "imported 1 label from "+good+"\n" {
		t.Fatalf("second reviewer: %v %q", err, out)
	}
	_, stderr, err = lblRunErr(t, db, "labels", "import", good, "--as", "bob")
	if err == nil || !strings.Contains(stderr, "bob already submitted a label for "+items[0]) {
		t.Errorf("re-import: %v %s", err, stderr)
	}
}

func TestLabelsExportRoundTrip(t *testing.T) {
	db, items := lblProject(t, 2)
	call := `[{"tool":"get_order_status","args":{"order_id":"ORD-12345"}}]`
	in := lblWrite(t, lblLine(items[0], "alice", "call", call), lblLine(items[1], "bob", "no_call", ""))
	if _, _, err := lblRunErr(t, db, "labels", "import", in, "--as", "carol", "--for-others"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	if _, stderr, err := lblRunErr(t, db, "labels", "export", "--out", out, "--as", "carol"); err != nil || !strings.Contains(stderr, "exported 2 labels") {
		t.Fatalf("export: %v %s", err, stderr)
	}
	b, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("exported:\n%s", b)
	}
	var l review.Label
	byBob, _, _ := lblRunErr(t, db, "labels", "export", "--reviewer", "bob", "--batch", "b1", "--as", "carol")
	if err := json.Unmarshal([]byte(byBob), &l); err != nil || l.Reviewer != "bob" || l.Decision != "no_call" || l.Calls == nil || l.Seconds != 5 {
		t.Errorf("bob's label: %+v %v\n%s", l, err, byBob)
	}
	if !strings.Contains(string(b), `"calls":[{"tool":"get_order_status","args":{"order_id":"ORD-12345"}}]`) {
		t.Errorf("alice's call not exported as imported:\n%s", b)
	}
}

// labels import checks what the label screen checks (a rationale, a guide
// version the project has), refuses an empty file as import refuses an
// empty trace file, and lists at most 20 problems of a file of the wrong
// kind, counting the rest.
func TestLabelsImportAsStrictAsTheScreen(t *testing.T) {
	db, items := lblProject(t, 2)
	noWhy := strings.Replace(lblLine(items[0], "alice", "no_call", ""), `"rationale":"r"`, `"rationale":"  "`, 1)
	_, stderr, err := lblRunErr(t, db, "labels", "import", lblWrite(t, noWhy), "--as", "alice")
	if err == nil || exitCode(err) != 2 || !strings.Contains(stderr, `:1: "rationale" is missing`) {
		t.Fatalf("label without a rationale: %v\n%s", err, stderr)
	}
	oldGuide := strings.Replace(lblLine(items[0], "alice", "no_call", ""), `"seconds":5`, `"guide_version":"g_000000000000","seconds":5`, 1)
	_, stderr, err = lblRunErr(t, db, "labels", "import", lblWrite(t, oldGuide), "--as", "alice")
	if err == nil || !strings.Contains(stderr, ":1: guide_version g_000000000000 is not a guide of this project") {
		t.Fatalf("unknown guide version: %v\n%s", err, stderr)
	}
	guide := filepath.Join(t.TempDir(), "guide.md")
	os.WriteFile(guide, []byte("# Guide\n\nLook the order up first.\n"), 0o644)
	if _, stderr, err := lblRunErr(t, db, "guide", "set", guide, "--as", "carol"); err != nil {
		t.Fatalf("guide set: %v %s", err, stderr)
	}
	if _, stderr, err := lblRunErr(t, db, "labels", "import", lblWrite(t, noWhy), "--as", "alice", "--rationale-optional"); err != nil {
		t.Fatalf("--rationale-optional: %v %s", err, stderr)
	}
	out, _, err := lblRunErr(t, db, "labels", "export", "--as", "alice")
	var l review.Label
	if err != nil || json.Unmarshal([]byte(out), &l) != nil || !strings.HasPrefix(l.GuideVersion, "g_") {
		t.Fatalf("a label without guide_version gets the guide in force: %v %q", err, out)
	}

	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(empty, []byte("\n \n"), 0o644)
	if _, stderr, err := lblRunErr(t, db, "labels", "import", empty, "--as", "alice"); err == nil || exitCode(err) != 2 || !strings.Contains(stderr, empty+": no labels in it") {
		t.Fatalf("empty file: %v %s", err, stderr)
	}

	var traces []string
	for i := range 45 {
		traces = append(traces, `{"id":"tr_`+itoaTest(i)+`","messages":[{"role":"user","content":"hi"}]}`)
	}
	_, stderr, err = lblRunErr(t, db, "labels", "import", lblWrite(t, traces...), "--as", "alice")
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if err == nil || len(lines) != 22 || !strings.HasSuffix(lines[20], ": … 25 more invalid lines") ||
		!strings.Contains(lines[21], "45 invalid labels in") {
		t.Fatalf("a trace file as labels: %v\n%s", err, stderr)
	}
}
