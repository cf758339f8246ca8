package store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

func importString(t *testing.T, st *Store, input string, skip bool) (ImportResult, []int, error) {
	t.Helper()
	var lines []int
	res, err := st.ImportTraces(context.Background(), bytesOpener([]byte(input)), ImportOptions{
		Source: "in.jsonl", SkipInvalid: skip,
		OnInvalid: func(e *trace.RecordError) { lines = append(lines, e.Line) },
	})
	return res, lines, err
}

// bytesOpener opens data as a file of its size.
func bytesOpener(data []byte) Opener {
	return func() (Input, error) {
		return OpenInput(bytes.NewReader(data), trace.FormatAuto, int64(len(data)), io.NopCloser(nil))
	}
}

func countRows(t *testing.T, st *Store, table string) int {
	t.Helper()
	var n int
	if err := st.Reader().QueryRowContext(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

const (
	impA   = `{"id":"a","metadata":{"k":"v"},"tools":[{"name":"f"}],"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"name":"f","arguments":{}}]},{"role":"assistant","content":"done"}]}`
	impB   = `{"id":"b","messages":[{"role":"user","content":"y"},{"role":"assistant","content":"ok"}]}`
	impBad = `{"id":"c","messages":[{"role":"alien","content":"z"}]}`
)

func TestImportTracesIsAtomicPerInput(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		_, _, err := importString(t, st, impA+"\n"+impBad+"\n"+impB+"\n", false)
		var rerr *trace.RecordError
		if !errors.As(err, &rerr) || rerr.Line != 2 {
			t.Fatalf("err = %v, want a RecordError at line 2", err)
		}
		for _, table := range []string{"traces", "items", "trace_tools", "metasets", "tools"} {
			if n := countRows(t, st, table); n != 0 {
				t.Errorf("%s has %d rows after an aborted import", table, n)
			}
		}

		res, lines, err := importString(t, st, impA+"\n"+impBad+"\n"+impB+"\n", true)
		if err != nil {
			t.Fatal(err)
		}
		if res.Imported != 2 || res.Skipped != 1 || res.Items != 3 || len(lines) != 1 || lines[0] != 2 {
			t.Fatalf("skip-invalid result %+v, lines %v", res, lines)
		}
		if n := countRows(t, st, "items"); n != 3 {
			t.Errorf("%d items stored, want 3", n)
		}

		res, _, err = importString(t, st, impA+"\n"+impB+"\n", false)
		if err != nil || res.Imported != 0 || res.Duplicates != 2 || res.Items != 0 {
			t.Fatalf("re-import: %+v %v", res, err)
		}
	})
}

func TestImportTracesEmptyAndConflict(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		if _, _, err := importString(t, st, "\n\n", false); !errors.Is(err, ErrNoRecords) {
			t.Fatalf("empty input: err = %v, want ErrNoRecords", err)
		}
		if _, _, err := importString(t, st, impA+"\n", false); err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(impA, `"content":"done"`, `"content":"changed"`, 1)
		_, _, err := importString(t, st, impB+"\n"+changed+"\n", false)
		var rerr *trace.RecordError
		if !errors.As(err, &rerr) || rerr.Line != 2 || !strings.Contains(err.Error(), "different content") {
			t.Fatalf("conflict: err = %v", err)
		}
		if n := countRows(t, st, "traces"); n != 1 {
			t.Errorf("%d traces, want 1 (the aborted input added none)", n)
		}
	})
}

func TestTraceSummaryCounts(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		if _, _, err := importString(t, st, impA+"\n"+impB+"\n", false); err != nil {
			t.Fatal(err)
		}
		sum, err := st.TraceSummary(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Traces != 2 || sum.Items != 3 || sum.ItemsWithCalls != 1 || sum.ItemsWithoutCalls != 2 || sum.DistinctTools != 1 {
			t.Errorf("counts %+v", sum)
		}
		if len(sum.FirstTools) != 2 || sum.FirstTools[0] != (Count{Value: trace.NoTool, N: 2}) {
			t.Errorf("first tools %+v", sum.FirstTools)
		}
		if len(sum.Metadata) != 1 || sum.Metadata[0].Key != "k" || sum.Metadata[0].Top[0] != (Count{Value: "v", N: 1}) {
			t.Errorf("metadata %+v", sum.Metadata)
		}
		if sum.From != nil {
			t.Errorf("time range without timestamps: %v", sum.From)
		}
	})
}

// TestImportDuplicatesWithinOneInput: a trace twice, its content again under
// another id, and its id again with other content, all in one input (one
// chunk: the writer buffers rows it has not written yet, and must see them).
func TestImportDuplicatesWithinOneInput(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		sameContent := strings.Replace(impA, `"id":"a"`, `"id":"a2"`, 1)
		otherContent := strings.Replace(impA, `"content":"done"`, `"content":"changed"`, 1)
		input := impA + "\n" + impB + "\n" + impA + "\n" + sameContent + "\n" + otherContent + "\n"
		res, lines, err := importString(t, st, input, true)
		if err != nil {
			t.Fatal(err)
		}
		if res.Imported != 2 || res.Duplicates != 2 || res.Skipped != 1 || len(lines) != 1 || lines[0] != 5 {
			t.Fatalf("result %+v, invalid lines %v; want 2 imported, 2 duplicates, line 5 skipped", res, lines)
		}
		if n := countRows(t, st, "traces"); n != 2 {
			t.Errorf("%d traces stored, want 2", n)
		}
		if _, _, err := importString(t, st, input, false); err == nil || !strings.Contains(err.Error(), "different content") {
			t.Errorf("without --skip-invalid: %v, want the id stored with different content", err)
		}
	})
}

// TestImportDuplicatesFarApartInOneChunk: duplicates a whole look-ahead
// window (and a flush of buffered rows) apart in one transaction are found
// as surely as adjacent ones: the same trace again, the same content under
// another id, and an id again with other content (invalid).
func TestImportDuplicatesFarApartInOneChunk(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		lines := strings.Split(strings.TrimSpace(passTraces(150)), "\n")
		lines = append(lines,
			lines[5], // p005 again: a duplicate
			strings.Replace(lines[6], `"p006"`, `"x006"`, 1),  // p006's content under another id
			strings.Replace(lines[7], `"q7"`, `"changed"`, 1), // p007 with other content
		)
		input := []byte(strings.Join(lines, "\n") + "\n")
		var invalid []int
		res, err := st.ImportTraces(context.Background(), bytesOpener(input), ImportOptions{Source: "x", SkipInvalid: true,
			pace:      importPace{chunkTraces: 1000, chunkTime: time.Minute, yield: time.Millisecond},
			OnInvalid: func(e *trace.RecordError) { invalid = append(invalid, e.Line) }})
		if err != nil {
			t.Fatal(err)
		}
		if res.Imported != 150 || res.Duplicates != 2 || res.Skipped != 1 || len(invalid) != 1 || invalid[0] != 153 {
			t.Fatalf("result %+v, invalid lines %v; want 150 imported, 2 duplicates, line 153 skipped", res, invalid)
		}
		if n := countRows(t, st, "traces"); n != 150 {
			t.Errorf("%d traces stored, want 150", n)
		}
	})
}

// TestImportConflictAfterItsContentUnderAnotherID: a record whose id is
// stored with other content is invalid even when its content was written
// under another id earlier in the same chunk (the writer's memory of its own
// rows must not answer before the stored id is checked), as it is alone.
func TestImportConflictAfterItsContentUnderAnotherID(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		if _, _, err := importString(t, st, impA+"\n", false); err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(impA, `"content":"done"`, `"content":"changed"`, 1)
		underB := strings.Replace(changed, `"id":"a"`, `"id":"b"`, 1)
		_, _, err := importString(t, st, underB+"\n"+changed+"\n", false)
		var rerr *trace.RecordError
		if !errors.As(err, &rerr) || rerr.Line != 2 || !strings.Contains(err.Error(), "different content") {
			t.Fatalf("err = %v, want line 2's id stored with different content", err)
		}
		if n := countRows(t, st, "traces"); n != 1 {
			t.Errorf("%d traces, want 1 (the failed input's undone)", n)
		}
		res, lines, err := importString(t, st, underB+"\n"+changed+"\n", true)
		if err != nil || res.Imported != 1 || res.Duplicates != 0 || res.Skipped != 1 || len(lines) != 1 || lines[0] != 2 {
			t.Fatalf("skip-invalid: %+v, invalid lines %v, %v; want b imported and line 2 skipped", res, lines, err)
		}
	})
}
