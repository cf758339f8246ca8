package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// passTraces is n small canonical traces, one per line.
func passTraces(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":"p%03d","metadata":{"k":"v%d"},"tools":[{"name":"f"}],"messages":[{"role":"user","content":"q%d"},{"role":"assistant","tool_calls":[{"name":"f","arguments":{}}]}]}`+"\n", i, i%3, i)
	}
	return b.String()
}

// smallChunks makes an import write 10 traces per transaction.
var smallChunks = importPace{chunkTraces: 10, chunkTime: time.Second, yield: time.Millisecond}

// assertNothingFromImport checks that no trace of an import remains, with
// none of its items or tool lists (metadata objects, like tools, stay).
func assertNothingFromImport(t *testing.T, st *Store, wantTraces int) {
	t.Helper()
	if n := countRows(t, st, "traces"); n != wantTraces {
		t.Errorf("%d traces stored, want %d", n, wantTraces)
	}
	var n int
	err := st.Reader().QueryRowContext(context.Background(), `SELECT
		(SELECT count(*) FROM items WHERE trace_id NOT IN (SELECT id FROM traces)) +
		(SELECT count(*) FROM trace_tools WHERE trace_id NOT IN (SELECT id FROM traces))`).Scan(&n)
	if err != nil || n != 0 {
		t.Errorf("%d orphaned rows (%v)", n, err)
	}
	assertMetadataOfStoredTraces(t, st)
	if wantTraces == 0 {
		for _, table := range []string{"items", "trace_tools"} {
			if n := countRows(t, st, table); n != 0 {
				t.Errorf("%s has %d rows", table, n)
			}
		}
	}
}

// assertMetadataOfStoredTraces checks that the metadata keys listed and
// summarised are those of the stored traces (metasets an undone import
// leaves behind count for nothing), and that check finds nothing wrong.
func assertMetadataOfStoredTraces(t *testing.T, st *Store) {
	t.Helper()
	ctx := context.Background()
	ids, err := queryStrings(ctx, st.Reader(), `SELECT id FROM traces`)
	if err != nil {
		t.Fatal(err)
	}
	perKey := map[string]int{}
	for _, id := range ids {
		tr, err := st.Trace(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for k := range tr.Metadata {
			perKey[k]++
		}
	}
	keys, err := st.MetaKeys(ctx)
	if err != nil || !slices.Equal(keys, slices.Sorted(maps.Keys(perKey))) {
		t.Errorf("metadata keys %q (%v), the stored traces have %v", keys, err, perKey)
	}
	if has, err := st.HasMetaKey(ctx, "k"); err != nil || has != (perKey["k"] > 0) {
		t.Errorf("HasMetaKey(k) = %v, %v; the stored traces have it %d times", has, err, perKey["k"])
	}
	sum, err := st.TraceSummary(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, k := range sum.Metadata {
		got[k.Key] = k.Traces
	}
	if !maps.Equal(got, perKey) {
		t.Errorf("summary counts traces per key %v, the stored traces have %v", got, perKey)
	}
	if problems, err := st.Check(ctx); err != nil || len(problems) != 0 {
		t.Errorf("check: %v %v", problems, err)
	}
}

// TestImportReadsInputOnce: the input is opened, read and parsed once, and
// its traces are written as they were read.
func TestImportReadsInputOnce(t *testing.T) {
	st := openTemp(t)
	opens := 0
	open := func() (Input, error) {
		opens++
		return bytesOpener([]byte(passTraces(60)))()
	}
	res, err := st.ImportTraces(context.Background(), open, ImportOptions{Source: "x", pace: smallChunks})
	if err != nil || res.Imported != 60 || res.Items != 60 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	if opens != 1 {
		t.Errorf("the input was opened %d times, want once", opens)
	}
	tr, err := st.Trace(context.Background(), "p007")
	if err != nil || tr.Metadata["k"] != "v1" || len(tr.Tools) != 1 || tr.Tools[0].Name != "f" || len(tr.Messages) != 2 {
		t.Errorf("p007 read back as %+v, %v", tr, err)
	}
}

func TestImportInvalidLastLineWritesNothing(t *testing.T) {
	st := openTemp(t)
	input := passTraces(60) + impBad + "\n"
	_, err := st.ImportTraces(context.Background(), bytesOpener([]byte(input)), ImportOptions{Source: "x", pace: smallChunks})
	var rerr *trace.RecordError
	if !errors.As(err, &rerr) || rerr.Line != 61 {
		t.Fatalf("err = %v, want a RecordError at line 61", err)
	}
	assertNothingFromImport(t, st, 0)
}

// TestImportSecondPassFailureIsUndone fails the second pass in each way it
// can fail after some chunks were committed, and checks that what the
// import wrote is gone — except when it is interrupted (SIGINT, SIGHUP):
// then only the unfinished chunk is undone and the import is recorded as
// stopped, to be finished by running it again.
func TestImportSecondPassFailureIsUndone(t *testing.T) {
	input := []byte(passTraces(60))
	stoppedAt := 0    // traces written when the cancelled case cancelled
	stoppedNote := "" // where the cancelled case says it stopped
	tests := []struct {
		name string
		// afterFirstChunk runs once the first chunk is committed; other is
		// a second handle on the same database (another process).
		afterFirstChunk func(t *testing.T, cancel context.CancelFunc, other *Store)
		open            func(calls *int) Opener
		check           func(t *testing.T, err error)
		left            int    // traces stored afterwards
		unfinished      string // the note on the unfinished import, if one is left
	}{
		{
			name:            "cancelled",
			afterFirstChunk: func(t *testing.T, cancel context.CancelFunc, _ *Store) { cancel() },
			check: func(t *testing.T, err error) {
				var ierr *InterruptedError
				if !errors.Is(err, context.Canceled) || !errors.As(err, &ierr) || ierr.At.Written != stoppedAt {
					t.Fatalf("err = %v, want an InterruptedError at %d", err, stoppedAt)
				}
				// The reader has almost surely read all 60 by then; if it
				// had not, the total is not known, and the file's size is.
				if at := ierr.At; at.Total != 60 && (at.Total != 0 || at.Size != int64(len(input)) || at.Read == 0) {
					t.Fatalf("stopped at %+v", at)
				}
				stoppedNote = ierr.At.String()
			},
			left:       -1, // the chunks committed before the cancel: stoppedAt
			unfinished: "import of x stopped at %s — run the same import again to finish",
		},
		{
			name: "concurrent writer stored an id differently",
			afterFirstChunk: func(t *testing.T, _ context.CancelFunc, other *Store) {
				tr := sampleTrace("p050")
				if err := other.WithTx(context.Background(), func(tx *Tx) error {
					_, err := other.InsertTrace(context.Background(), tx, tr, "other")
					return err
				}); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, err error) {
				var rerr *trace.RecordError
				if !errors.As(err, &rerr) || rerr.Line != 51 || !strings.Contains(err.Error(), "different content") {
					t.Fatalf("err = %v, want a RecordError at line 51", err)
				}
			},
			left: 1, // the other writer's
		},
		{
			name: "sampled meanwhile",
			afterFirstChunk: func(t *testing.T, cancel context.CancelFunc, other *Store) {
				ctx := context.Background()
				if err := other.WithTx(ctx, func(tx *Tx) error {
					if _, err := tx.ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b', 1, 2, 'now')`); err != nil {
						return err
					}
					_, err := tx.ExecContext(ctx, `INSERT INTO batch_items(batch, item_id, position) SELECT 'b', id, 0 FROM items WHERE trace_id = 'p003'`)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if err := other.WithTx(ctx, func(tx *Tx) error {
					_, err := other.InsertTrace(ctx, tx, sampleTrace("p050"), "other")
					return err
				}); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, err error) {
				var uerr *UndoError
				if !errors.As(err, &uerr) || len(uerr.Kept) != 1 || uerr.Kept[0] != "p003" || uerr.UndoErr != nil {
					t.Fatalf("err = %v, want an UndoError keeping p003", err)
				}
				var rerr *trace.RecordError
				if !errors.As(err, &rerr) || !strings.Contains(err.Error(), "sampled them into a batch") {
					t.Fatalf("err = %v", err)
				}
			},
			left: 2, // p003, sampled, and the other writer's p050
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			st, err := Open(ctx, filepath.Join(dir, "gt.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			other, err := Open(ctx, filepath.Join(dir, "gt.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			calls := 0
			open := bytesOpener(input)
			if tc.open != nil {
				open = tc.open(&calls)
			}
			fired := false
			stoppedAt = 0
			_, err = st.ImportTraces(ctx, open, ImportOptions{Source: "x", pace: smallChunks, OnProgress: func(p ImportProgress) {
				if p.Imported >= 20 && !fired && tc.afterFirstChunk != nil {
					fired = true
					stoppedAt = p.Imported
					tc.afterFirstChunk(t, cancel, other)
				}
			}})
			tc.check(t, err)
			if tc.left < 0 {
				tc.left = stoppedAt
				tc.unfinished = fmt.Sprintf(tc.unfinished, stoppedNote)
			}
			assertNothingFromImport(t, st, tc.left)
			u, err := st.UnfinishedImports(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var notes []string
			for _, x := range u {
				notes = append(notes, x.Note())
			}
			if want := tc.unfinished; strings.Join(notes, "|") != want {
				t.Errorf("unfinished imports %q, want %q", notes, want)
			}
			if tc.unfinished == "" {
				return
			}
			// Running the same import again finishes it.
			res, err := st.ImportTraces(context.Background(), bytesOpener(input), ImportOptions{Source: "x", pace: smallChunks})
			if err != nil || res.Imported != 60-tc.left || res.Duplicates != tc.left {
				t.Fatalf("import again: %+v, %v", res, err)
			}
			if u, err := st.UnfinishedImports(context.Background()); err != nil || len(u) != 0 {
				t.Errorf("after finishing: unfinished %v, %v", u, err)
			}
		})
	}
}

// TestImportLetsOtherWritersIn imports enough traces for many chunks
// while another handle on the database (another process, e.g. a
// reviewer's TUI) writes in a loop: every write succeeds, and each gets in
// between the import's chunks, again and again, rather than after the
// import (writerTurns: by the order of events, which holds under the race
// detector and on a loaded machine).
func TestImportLetsOtherWritersIn(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of importing")
	}
	dir := t.TempDir()
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(dir, "gt.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := Open(ctx, filepath.Join(dir, "gt.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	n := 4000
	if raceEnabled {
		n = 400
	}
	data := importBenchTraces(n, 3)
	// Chunks shorter than the default's, so that any machine writes many
	// of them; the pause between them is the default's.
	pace := defaultPace()
	pace.chunkTime = 50 * time.Millisecond
	turns := newWriterTurns()
	stop, wrote := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(wrote)
		turns.run(stop, func(i int) error { return other.AddUser(ctx, fmt.Sprintf("reviewer%d", i%5), RoleReviewer) })
	}()
	began := time.Now()
	res, err := st.ImportTraces(ctx, bytesOpener(data), ImportOptions{Source: "big", pace: pace,
		OnProgress: func(ImportProgress) { turns.chunkDone() }})
	close(stop)
	<-wrote
	if err != nil || res.Imported != n {
		t.Fatalf("import: %+v %v", res, err)
	}
	t.Logf("import %v in %d chunks, the longest held the lock %v; %d writes beside it",
		time.Since(began).Round(time.Millisecond), res.chunks, res.longestChunk.Round(time.Millisecond), len(turns.spans))
	turns.check(t, 4)
}
