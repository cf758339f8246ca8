package sampling

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// sliceReader yields traces, and a *trace.RecordError where a trace is nil.
type sliceReader struct {
	traces []*trace.Trace
	i      int
}

func (r *sliceReader) Next() (trace.Trace, error) {
	if r.i >= len(r.traces) {
		return trace.Trace{}, io.EOF
	}
	r.i++
	if t := r.traces[r.i-1]; t != nil {
		return *t, nil
	}
	return trace.Trace{}, &trace.RecordError{Line: r.i, Err: errors.New("bad record")}
}

func streamTrace(i int, tool string) *trace.Trace {
	t := &trace.Trace{ID: fmt.Sprintf("tr_%04d", i), Timestamp: time.Unix(int64(1_700_000_000+i), 0).UTC(),
		Metadata: map[string]string{"cohort": fmt.Sprint("c", i%3)},
		Messages: []trace.Message{{Role: "user", Content: fmt.Sprint("q", i)}}}
	if tool == "" {
		t.Messages = append(t.Messages, trace.Message{Role: "assistant", Content: "a"})
	} else {
		t.Messages = append(t.Messages, trace.Message{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c", tool, "{}")}})
	}
	return t
}

func TestSampleReaderKeepsOnlySampledTraces(t *testing.T) {
	var traces []*trace.Trace
	var all []Candidate
	for i := 0; i < 600; i++ {
		tool := []string{"a", "b", "", "a"}[i%4]
		traces = append(traces, streamTrace(i, tool))
		it := trace.Items(*traces[i])[0]
		all = append(all, Candidate{ItemID: it.ID, TraceID: it.TraceID, Turn: it.Turn, Stratum: StratumOf("tool", it),
			InputHash: it.InputHash, TS: it.Timestamp.Unix(), HasTS: true})
	}
	got, err := SampleReader(&sliceReader{traces: traces}, StreamOptions{Seed: 3, N: 12, By: "tool", Alloc: AllocEqual, MinPer: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := draw(t, all, 3, 12, true, AllocEqual)
	if !slices.Equal(ids(got.Sample), ids(want)) {
		t.Errorf("stream sample %v, want %v", ids(got.Sample), ids(want))
	}
	var traceIDs, needed []string
	for _, tr := range got.Traces {
		traceIDs = append(traceIDs, tr.ID)
	}
	for _, c := range got.Items {
		needed = append(needed, c.TraceID)
	}
	slices.Sort(needed)
	if !slices.Equal(traceIDs, slices.Compact(needed)) || got.Read != 600 {
		t.Errorf("traces kept %v, want %v (read %d)", traceIDs, needed, got.Read)
	}
	// Held traces come back exactly as read.
	for _, tr := range got.Traces {
		var i int
		fmt.Sscanf(tr.ID, "tr_%d", &i)
		got, err1 := trace.ContentHash(tr)
		want, err2 := trace.ContentHash(*traces[i])
		if err1 != nil || err2 != nil || got != want {
			t.Errorf("trace %s changed while held", tr.ID)
		}
	}
}

func TestSampleReaderFiltersAndInvalidRecords(t *testing.T) {
	traces := []*trace.Trace{streamTrace(0, "a"), nil, streamTrace(2, ""), streamTrace(3, "b")}
	if _, err := SampleReader(&sliceReader{traces: traces}, StreamOptions{Seed: 1, N: 5, Alloc: AllocEqual}); err == nil {
		t.Error("invalid record without SkipInvalid: no error")
	}
	var reported []int
	got, err := SampleReader(&sliceReader{traces: traces}, StreamOptions{Seed: 1, N: 5, Alloc: AllocEqual, SkipInvalid: true,
		Filter:    Filter{Turns: TurnsCalls, Where: []Condition{{Key: "meta.cohort", Value: "c0"}}},
		OnInvalid: func(e *trace.RecordError) { reported = append(reported, e.Line) }})
	if err != nil {
		t.Fatal(err)
	}
	// c0 holds traces 0 and 3; both call a tool.
	if got.Invalid != 1 || !slices.Equal(reported, []int{2}) || len(got.Items) != 2 || got.Read != 3 {
		t.Errorf("invalid %d %v, items %d, read %d", got.Invalid, reported, len(got.Items), got.Read)
	}
	res, _ := SampleReader(&sliceReader{traces: traces[2:]}, StreamOptions{Seed: 1, N: 5, By: "meta.region", Alloc: AllocEqual})
	if res.ByKeySeen {
		t.Error("ByKeySeen for a key no trace has")
	}
}
