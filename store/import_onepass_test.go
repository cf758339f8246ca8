package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// An import writes while it reads: these tests hold the input back until
// chunks are committed, so what is found later (an invalid last record, an
// interrupt before the input's end) meets a partly written import.

// heldInput is an input of size bytes whose head is readable at once and
// whose tail arrives only when release is called (or never), like a file
// whose end is not read yet, or a slow stdin. Its Closer cannot unblock a
// read, as stdin's cannot.
type heldInput struct {
	pr      *io.PipeReader
	pw      *io.PipeWriter
	size    int
	release func()
}

func holdInput(t *testing.T, head, tail string) *heldInput {
	pr, pw := io.Pipe()
	h := &heldInput{pr: pr, pw: pw, size: len(head) + len(tail)}
	gate := make(chan struct{})
	h.release = sync.OnceFunc(func() { close(gate) })
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := io.WriteString(pw, head); err != nil {
			return
		}
		select {
		case <-gate:
			_, _ = io.WriteString(pw, tail)
			pw.Close()
		case <-t.Context().Done():
		}
	}()
	t.Cleanup(func() {
		pr.CloseWithError(errors.New("test over")) // unblocks the writer
		<-done
	})
	return h
}

func (h *heldInput) open() (Input, error) {
	return OpenInput(h.pr, trace.FormatAuto, int64(h.size), io.NopCloser(nil))
}

// TestImportInvalidLastRecordAfterCommittedChunks: the last record is
// invalid and read only once chunks are committed; they are undone, and an
// earlier stopped run of the same import stays recorded as it was, on
// both engines (taking chunks back must leave no item without its trace).
func TestImportInvalidLastRecordAfterCommittedChunks(t *testing.T) {
	forEngines(t, testImportInvalidLastRecordAfterCommittedChunks)
}

func testImportInvalidLastRecordAfterCommittedChunks(t *testing.T, engine string) {
	for _, prior := range []bool{false, true} {
		t.Run(fmt.Sprintf("stopped before: %v", prior), func(t *testing.T) {
			st := openEngine(t, engine)
			ctx := context.Background()
			head := passTraces(60)
			var before []UnfinishedImport
			left := 0
			if prior { // an earlier run stopped after its first chunks
				cctx, cancel := context.WithCancel(ctx)
				_, err := st.ImportTraces(cctx, bytesOpener([]byte(head)), ImportOptions{Source: "x", pace: smallChunks,
					OnProgress: func(p ImportProgress) {
						if p.Imported >= 20 {
							cancel()
						}
					}})
				var ierr *InterruptedError
				if !errors.As(err, &ierr) {
					t.Fatalf("first run: %v", err)
				}
				left = ierr.At.Written
				if before, err = st.UnfinishedImports(ctx); err != nil || len(before) != 1 {
					t.Fatalf("after the first run: %v, %v", before, err)
				}
			}
			in := holdInput(t, head, impBad+"\n")
			written := 0
			_, err := st.ImportTraces(ctx, in.open, ImportOptions{Source: "x", pace: smallChunks, OnProgress: func(p ImportProgress) {
				written = p.Records
				if p.Records >= 40 {
					in.release()
				}
			}})
			var rerr *trace.RecordError
			if !errors.As(err, &rerr) || rerr.Line != 61 {
				t.Fatalf("err = %v, want a RecordError at line 61", err)
			}
			if written < 40 {
				t.Fatalf("%d records written before the invalid one was read, want chunks committed", written)
			}
			assertNothingFromImport(t, st, left)
			after, err := st.UnfinishedImports(ctx)
			if err != nil || fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("unfinished imports %v (%v), want %v", after, err, before)
			}
		})
	}
}

// TestImportInterruptedBeforeTheInputsEnd: interrupted while the input is
// still being read, the import keeps its committed chunks and says where it
// stopped without a total it does not know: the traces written and how
// much of the file was read. Running it again finishes it.
func TestImportInterruptedBeforeTheInputsEnd(t *testing.T) {
	st := openTemp(t)
	all := passTraces(120)
	head := all[:strings.Index(all, `{"id":"p060"`)]
	in := holdInput(t, head, all[len(head):]) // the tail never comes
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := st.ImportTraces(ctx, in.open, ImportOptions{Source: "x", pace: smallChunks, OnProgress: func(p ImportProgress) {
		if p.Imported >= 20 {
			cancel()
		}
	}})
	var ierr *InterruptedError
	if !errors.As(err, &ierr) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want an InterruptedError", err)
	}
	stored := countRows(t, st, "traces")
	at := ierr.At
	if at.Written != stored || at.Total != 0 || at.Size != int64(len(all)) || at.Read <= 0 || at.Read > int64(len(head)) {
		t.Fatalf("stopped at %+v with %d traces stored, want them, no total, and at most the head read (%d of %d bytes)", at, stored, len(head), len(all))
	}
	want := fmt.Sprintf(`^stopped at %d traces, \d+%% of the file read \(the unfinished chunk was undone\) — run the same import again to finish$`, stored)
	if !regexp.MustCompile(want).MatchString(ierr.Note()) {
		t.Errorf("note %q, want %s", ierr.Note(), want)
	}
	u, err := st.UnfinishedImports(context.Background())
	if err != nil || len(u) != 1 || u[0].Note() != "import of x stopped at "+at.String()+" — run the same import again to finish" || !u[0].Stopped {
		t.Fatalf("unfinished imports %+v, %v", u, err)
	}
	res, err := st.ImportTraces(context.Background(), bytesOpener([]byte(all)), ImportOptions{Source: "x", pace: smallChunks})
	if err != nil || res.Imported != 120-stored || res.Duplicates != stored {
		t.Fatalf("import again: %+v, %v", res, err)
	}
	if u, err := st.UnfinishedImports(context.Background()); err != nil || len(u) != 0 {
		t.Errorf("after finishing: unfinished %v, %v", u, err)
	}
}

// TestImportReportsInvalidRecordsInOrder: with SkipInvalid, the invalid
// records the reader finds and the conflicts the writer finds (a trace id
// twice with different content) are reported in the input's order, each
// with its line, and the rest is imported.
func TestImportReportsInvalidRecordsInOrder(t *testing.T) {
	st := openTemp(t)
	lines := strings.Split(strings.TrimSpace(passTraces(50)), "\n")
	lines[9] = impBad                                           // line 10
	lines[30] = strings.Replace(lines[5], `"q5"`, `"other"`, 1) // line 31: p005 again, other content
	lines[44] = `{"id":`                                        // line 45
	var got []int
	res, err := st.ImportTraces(context.Background(), bytesOpener([]byte(strings.Join(lines, "\n")+"\n")), ImportOptions{
		Source: "x", pace: smallChunks, SkipInvalid: true,
		OnInvalid: func(e *trace.RecordError) { got = append(got, e.Line) },
	})
	if err != nil || res.Imported != 47 || res.Skipped != 3 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	if fmt.Sprint(got) != "[10 31 45]" {
		t.Errorf("reported lines %v, want [10 31 45]", got)
	}
}

// TestImportInterruptedAfterItsLastChunk: an interrupt that comes once the
// last chunk is committed (and the input read to its end) finds nothing
// left to write: the import finished, and says so, and is not left
// recorded as running, nor reported as interrupted with nothing imported.
func TestImportInterruptedAfterItsLastChunk(t *testing.T) {
	for i := 0; i < 5; i++ {
		st := openTemp(t)
		ctx, cancel := context.WithCancel(context.Background())
		res, err := st.ImportTraces(ctx, bytesOpener([]byte(passTraces(40))), ImportOptions{Source: "x", pace: smallChunks,
			OnProgress: func(p ImportProgress) {
				if p.Records == 40 {
					time.Sleep(20 * time.Millisecond) // the reader ends meanwhile
					cancel()
				}
			}})
		cancel()
		if err != nil || res.Imported != 40 {
			t.Fatalf("run %d: %+v, %v; want all 40 imported", i, res, err)
		}
		if u, err := st.UnfinishedImports(context.Background()); err != nil || len(u) != 0 {
			t.Fatalf("run %d: unfinished imports %+v, %v", i, u, err)
		}
	}
}

// TestImportOfAnotherStdinKeepsTheStoppedOne: imports from stdin share one
// name; one that finishes does not forget an earlier stopped one of another
// input (it did not find that one's records stored), whose traces stay
// half-imported, while the same input again finishes it.
func TestImportOfAnotherStdinKeepsTheStoppedOne(t *testing.T) {
	st := openTemp(t)
	ctx := context.Background()
	all := passTraces(120)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, err := st.ImportTraces(cctx, func() (Input, error) {
		return OpenInput(strings.NewReader(all), trace.FormatAuto, 0, io.NopCloser(nil))
	}, ImportOptions{Source: "stdin", pace: smallChunks, OnProgress: func(p ImportProgress) {
		if p.Imported >= 20 {
			cancel()
		}
	}})
	var ierr *InterruptedError
	if !errors.As(err, &ierr) {
		t.Fatalf("first import: %v, want it interrupted", err)
	}
	before, err := st.UnfinishedImports(ctx)
	if err != nil || len(before) != 1 {
		t.Fatalf("unfinished after the interrupt: %v, %v", before, err)
	}
	if _, err := st.ImportTraces(ctx, bytesOpener([]byte(impB+"\n")), ImportOptions{Source: "stdin", pace: smallChunks}); err != nil {
		t.Fatal(err)
	}
	if after, err := st.UnfinishedImports(ctx); err != nil || fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("after another stdin's import: unfinished %v (%v), want %v", after, err, before)
	}
	res, err := st.ImportTraces(ctx, bytesOpener([]byte(all)), ImportOptions{Source: "stdin", pace: smallChunks})
	if err != nil || res.Duplicates != ierr.At.Written {
		t.Fatalf("the same input again: %+v, %v", res, err)
	}
	if after, err := st.UnfinishedImports(ctx); err != nil || len(after) != 0 {
		t.Errorf("after finishing it: unfinished %v, %v", after, err)
	}
}

// TestImportUndoKeepsWhatAnotherImportFoundStored: an import that another
// one (b) ran beside and found its traces stored by, then failed on its
// last record, undoes only what b did not count as already stored: b said
// all its traces are stored, and they stay so.
func TestImportUndoKeepsWhatAnotherImportFoundStored(t *testing.T) {
	st := openTemp(t)
	ctx := context.Background()
	head := passTraces(60)
	in := holdInput(t, head, impBad+"\n")
	var other ImportResult
	var otherErr error
	_, err := st.ImportTraces(ctx, in.open, ImportOptions{Source: "a", pace: smallChunks, OnProgress: func(p ImportProgress) {
		if p.Records >= 40 && other.Source == "" {
			other, otherErr = st.ImportTraces(ctx, bytesOpener([]byte(head)), ImportOptions{Source: "b", pace: smallChunks})
			in.release()
		}
	}})
	var rerr *trace.RecordError
	if !errors.As(err, &rerr) || rerr.Line != 61 {
		t.Fatalf("a: err = %v, want a RecordError at line 61", err)
	}
	if otherErr != nil || other.Imported+other.Duplicates != 60 || other.Duplicates < 40 {
		t.Fatalf("b: %+v, %v; want 60 traces, at least 40 of them already stored", other, otherErr)
	}
	if n := countRows(t, st, "traces"); n != 60 {
		t.Errorf("%d traces stored after a's undo, want b's 60", n)
	}
	var fromB int
	if err := st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM traces WHERE source = 'b'`).Scan(&fromB); err != nil || fromB != 60 {
		t.Errorf("%d traces from b (%v), want all 60", fromB, err)
	}
}
