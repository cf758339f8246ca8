package faults

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBulkLabelsImportExportAndSampleFromBesideLabelers runs the other bulk
// writers — a labels import of thousands of labels, an export of the gold
// it makes, a sample streamed from a trace file — while 4 reviewers label:
// no reviewer is shown a busy or locked error, every acknowledged label is
// stored, every bulk command succeeds, the exported version verifies, and
// the probe writer never waits long for the lock.
func TestBulkLabelsImportExportAndSampleFromBesideLabelers(t *testing.T) {
	t.Parallel()
	reviewers := []string{"r1", "r2", "r3", "r4"}
	const perReviewer = 6
	dir := t.TempDir()
	db, _ := project(t, dir, 1500, 2*len(reviewers)*perReviewer, reviewers...)
	for _, r := range []string{"alice", "bob"} {
		must(t, db, "users", "add", r, "--role", "reviewer", "--as", "carol")
	}
	must(t, db, "sample", "--n", "1200", "--seed", "3", "--reviewers", "alice,bob", "--batch", "big")
	big := sqlStrings(t, db, `SELECT item_id FROM batch_items WHERE batch = 'big' ORDER BY position`)
	labelsFile := func(name string, items []string) string {
		file := filepath.Join(dir, name)
		writeAgreedLabels(t, file, items, "alice", "bob")
		return file
	}
	// A first part is gold before the run, so the export has something
	// to write while the rest is imported.
	must(t, db, "labels", "import", labelsFile("first.jsonl", big[:300]), "--as", "carol", "--for-others")
	rest := labelsFile("rest.jsonl", big[300:])
	streamed := filepath.Join(dir, "more-traces.jsonl")
	must(t, filepath.Join(dir, "scratch.db"), "demo", "--write-traces", "3000", streamed)
	out := filepath.Join(dir, "out")

	probe := startLockProbe(t, db)
	labelers := startLabelers(t, db, reviewers)
	type bulk struct {
		args []string
		res  result
		took time.Duration
	}
	bulks := []*bulk{
		{args: []string{"labels", "import", rest, "--as", "carol", "--for-others"}},
		{args: []string{"export", "support", "--as", "carol", "--out", out, "--allow-partial"}},
		{args: []string{"sample", "--from", streamed, "--n", "1500", "--seed", "4", "--reviewers", "alice,bob", "--batch", "streamed"}},
	}
	var bwg sync.WaitGroup
	for _, b := range bulks {
		b := b
		bwg.Add(1)
		go func() {
			defer bwg.Done()
			start := time.Now()
			b.res = run(t, db, b.args...)
			b.took = time.Since(start)
		}()
	}
	labelInTurn(labelers, perReviewer)
	bwg.Wait()
	longest, probeBusy := probe.finish()

	busyShown, acked, stored := finishLabelers(t, db, labelers, reviewers, perReviewer)
	var took []string
	for _, b := range bulks {
		if b.res.code != 0 {
			t.Errorf("%s: exit %d: %s", strings.Join(b.args[:2], " "), b.res.code, b.res.err)
		}
		noRawSQLite(t, b.res.err)
		took = append(took, fmt.Sprintf("%s %s", b.args[0], b.took.Round(time.Millisecond)))
	}
	if n := sqlCount(t, db, `SELECT count(*) FROM labels WHERE reviewer IN ('alice', 'bob')`); n != 2*len(big) {
		t.Errorf("%d labels by alice and bob stored, want %d", n, 2*len(big))
	}
	if n := sqlCount(t, db, `SELECT count(*) FROM batch_items WHERE batch = 'streamed'`); n != 1500 {
		t.Errorf("%d items in the batch sampled from the file, want 1500", n)
	}
	versions := sqlStrings(t, db, `SELECT name || '-v' || version FROM datasets`)
	for _, v := range versions {
		if res := run(t, db, "verify", filepath.Join(out, v+".jsonl")); res.code != 0 {
			t.Errorf("verify %s: exit %d: %s%s", v, res.code, res.out, res.err)
		}
	}
	if len(versions) != 1 {
		t.Errorf("versions stored: %v, want one", versions)
	}
	if busyShown > 0 {
		t.Errorf("reviewers were shown %d busy/locked messages", busyShown)
	}
	if probeBusy > 0 {
		t.Errorf("the lock probe gave up %d times (waited over 15 s)", probeBusy)
	}
	checkPasses(t, db)
	t.Logf("FIGURES bulk writers: 4 labelers, %d labels acknowledged, %d stored; beside them %s; longest write-lock wait seen by a probe %s; busy errors seen %d",
		acked, stored, strings.Join(took, ", "), longest.Round(time.Millisecond), busyShown+probeBusy)
	addLabels(acked, stored)
	addLockWait(longest, busyShown+probeBusy)
}
