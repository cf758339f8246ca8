package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
)

// Decisions a gold answer may carry.
const (
	DecisionCall   = "call"
	DecisionNoCall = "no_call"
)

// Answer is the gold answer of one decision point, as review and
// adjudication settled it.
type Answer struct {
	ItemID       string
	Turn         int // index of the assistant message the item decides
	Status       string
	Decision     string
	Calls        []score.ExpectedCall
	Acceptable   [][]score.ExpectedCall
	Rationale    string
	Reviewers    []string
	Adjudicator  string // "" when agreed
	GuideVersion string
}

// TraceGold is one trace with the gold answers of its decision points: the
// unit the store loads, so a trace's messages and tools are decoded and
// canonicalised once however many of its items are gold.
type TraceGold struct {
	Trace   trace.Trace
	Answers []Answer
	// MessagesJSON, when Trace.Messages is nil, is the JSON array the
	// messages decode from: a store hands rows over undecoded so that
	// decoding runs in the builders' goroutines (and, as the store keeps
	// them canonical, mostly need not run: see Builder.Lines).
	MessagesJSON []byte
	// MetadataJSON, when Trace.Metadata is nil, is the metadata as the
	// store keeps it: a JSON object of strings, as json.Marshal writes it.
	MetadataJSON []byte
	// ToolsKey, when not empty, identifies Trace.Tools: traces with equal
	// keys offer the same tools (a store uses their hashes), so a Builder
	// makes their canonical JSON once.
	ToolsKey string
}

// Line is one encoded gold record and what the manifest needs from it.
type Line struct {
	ID           string
	Bytes        []byte // canonical JSON, without the newline
	Hash         string // RecordHash(Bytes)
	Tool         string // expected tool, trace.NoTool for no call
	Status       string
	GuideVersion string
}

// BuildLines turns the gold answers of one trace into canonical record lines.
func BuildLines(tg TraceGold) ([]Line, error) {
	return NewBuilder().Lines(tg)
}

// BuildStream starts workers goroutines (at least one) building the lines
// of the traces handed to add, so building overlaps reading them. After the
// last add, wait returns every line (in no particular order: Assemble sorts
// them) or the error of the earliest trace added that failed.
func BuildStream(workers int) (add func(TraceGold), wait func() ([]Line, error)) {
	type job struct {
		n  int
		tg TraceGold
	}
	jobs := make(chan job, 256)
	workers = max(1, workers)
	parts := make([][]Line, workers)
	errAt := make([]int, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := NewBuilder()
			for j := range jobs {
				if errs[w] != nil {
					continue // keep draining: add never blocks for good
				}
				ls, err := b.Lines(j.tg)
				if err != nil {
					errs[w], errAt[w] = err, j.n
					continue
				}
				parts[w] = append(parts[w], ls...)
			}
		}()
	}
	n := 0
	add = func(tg TraceGold) {
		jobs <- job{n, tg}
		n++
	}
	wait = func() ([]Line, error) {
		close(jobs)
		wg.Wait()
		var first error
		firstAt, total := 0, 0
		for w := range parts {
			if errs[w] != nil && (first == nil || errAt[w] < firstAt) {
				first, firstAt = errs[w], errAt[w]
			}
			total += len(parts[w])
		}
		if first != nil {
			return nil, first
		}
		out := make([]Line, 0, total)
		for _, p := range parts {
			out = append(out, p...)
		}
		return out, nil
	}
	return add, wait
}

// BuildAll builds the lines of many traces with workers goroutines (at
// least one). The order of the result is unspecified: Assemble sorts it.
func BuildAll(golds []TraceGold, workers int) ([]Line, error) {
	workers = max(1, min(workers, len(golds)))
	parts := make([][]Line, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			b := NewBuilder()
			for i := w; i < len(golds); i += workers {
				ls, err := b.Lines(golds[i])
				if err != nil {
					errs[w] = err
					return
				}
				parts[w] = append(parts[w], ls...)
			}
		}(w)
	}
	wg.Wait()
	n := 0
	for w := range parts {
		if errs[w] != nil {
			return nil, errs[w]
		}
		n += len(parts[w])
	}
	out := make([]Line, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out, nil
}

// Builder turns gold answers into record lines, fast: each trace's messages,
// tools and metadata are canonicalised and encoded once for all its items,
// and tool schemas shared between traces are canonicalised once. Its output
// is byte for byte EncodeRecord's.
type Builder struct {
	params   map[string]json.RawMessage // raw tool parameters → canonical
	toolSets map[string][]byte          // TraceGold.ToolsKey → available_tools JSON
	buf      bytes.Buffer
	enc      *json.Encoder
	arena    []byte // unused room for the next lines
}

// builderArenaSize is the size of the blocks lines are carved from: one
// allocation per 1 MiB of lines instead of one per line.
const builderArenaSize = 1 << 20

// room returns an empty slice with capacity n for the next line, carved
// from the arena; the line is kept by calling used with it when done.
func (b *Builder) room(n int) []byte {
	if cap(b.arena)-len(b.arena) < n {
		b.arena = make([]byte, 0, max(builderArenaSize, n))
	}
	return b.arena[len(b.arena) : len(b.arena) : len(b.arena)+n]
}

// used keeps line, which room returned, and returns it with its capacity
// trimmed (a line longer than its estimate was reallocated and is not in
// the arena).
func (b *Builder) used(line []byte) []byte {
	if n := len(b.arena); cap(b.arena) > n && len(line) > 0 && &b.arena[:n+1][n] == &line[0] {
		b.arena = b.arena[:n+len(line)]
	}
	return line[:len(line):len(line)]
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	b := &Builder{params: map[string]json.RawMessage{}, toolSets: map[string][]byte{}}
	b.enc = json.NewEncoder(&b.buf)
	b.enc.SetEscapeHTML(false)
	return b
}

// encode returns the JSON of v as EncodeRecord would write it (a copy).
func (b *Builder) encode(v any) ([]byte, error) {
	b.buf.Reset()
	if err := b.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimSuffix(b.buf.Bytes(), []byte("\n"))), nil
}

// tools canonicalises tool schemas through the cache.
func (b *Builder) tools(tools []trace.Tool) ([]trace.Tool, error) {
	out := make([]trace.Tool, len(tools))
	for i, t := range tools {
		if len(bytes.TrimSpace(t.Parameters)) == 0 {
			t.Parameters = nil
		} else if canon, ok := b.params[string(t.Parameters)]; ok {
			t.Parameters = canon
		} else {
			canon, err := canonical(t.Parameters)
			if err != nil {
				return nil, fmt.Errorf("tool %q parameters: %w", t.Name, err)
			}
			b.params[string(t.Parameters)] = canon
			t.Parameters = canon
		}
		out[i] = t
	}
	return out, nil
}

// recordTail is the part of a Record after available_tools, in key order.
type recordTail struct {
	ExpectedTool  *string                `json:"expected_tool"`
	ExpectedArgs  json.RawMessage        `json:"expected_args"`
	ExpectedCalls []score.ExpectedCall   `json:"expected_calls"`
	Acceptable    [][]score.ExpectedCall `json:"acceptable"`
	Rationale     string                 `json:"rationale"`
	ObservedCalls []ObservedCall         `json:"observed_calls"`
	Provenance    Provenance             `json:"provenance"`
}

// Lines turns the gold answers of one trace into canonical record lines.
func (b *Builder) Lines(tg TraceGold) ([]Line, error) {
	t := tg.Trace
	msgs, msgJSON, err := b.messages(tg)
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", t.ID, err)
	}
	toolsJSON, err := b.toolsJSON(tg)
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", t.ID, err)
	}
	metaJSON, err := b.metadataJSON(tg)
	if err != nil {
		return nil, fmt.Errorf("trace %s: metadata: %w", t.ID, err)
	}
	traceIDJSON, err := b.stringJSON(t.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Line, 0, len(tg.Answers))
	for _, a := range tg.Answers {
		rec, err := newRecord(t.ID, msgs, a)
		if err != nil {
			return nil, err
		}
		tail, err := b.encode(recordTail{rec.ExpectedTool, rec.ExpectedArgs, rec.ExpectedCalls, rec.Acceptable,
			rec.Rationale, rec.ObservedCalls, rec.Provenance})
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", rec.ID, err)
		}
		// The fixed keys and punctuation below take 96 bytes, the turn at
		// most 20: with 128 the line fits the room made for it.
		size := 128 + len(rec.ID) + len(traceIDJSON) + len(metaJSON) + len(toolsJSON) + len(tail)
		for _, m := range msgJSON[:a.Turn] {
			size += len(m) + 1
		}
		line := b.room(size)
		line = append(line, `{"id":"`...)
		line = append(line, rec.ID...) // an item id needs no escaping
		line = append(line, `","input":{"messages":[`...)
		for i, m := range msgJSON[:a.Turn] {
			if i > 0 {
				line = append(line, ',')
			}
			line = append(line, m...)
		}
		line = append(line, `],"context":{"trace_id":`...)
		line = append(line, traceIDJSON...)
		line = append(line, `,"turn":`...)
		line = strconv.AppendInt(line, int64(a.Turn), 10)
		line = append(line, `,"metadata":`...)
		line = append(line, metaJSON...)
		line = append(line, `}},"available_tools":`...)
		line = append(line, toolsJSON...)
		line = append(line, ',')
		line = append(line, tail[1:]...)
		line = b.used(line)
		out = append(out, Line{ID: rec.ID, Bytes: line, Hash: RecordHash(line), Tool: rec.FirstTool(), Status: a.Status, GuideVersion: a.GuideVersion})
	}
	return out, nil
}

// newRecord assembles and normalises the part of the record of one answer
// that comes after available_tools; msgs[a.Turn] is normalised (the other
// messages need not even be decoded).
func newRecord(traceID string, msgs []trace.Message, a Answer) (Record, error) {
	id := trace.ItemID(traceID, a.Turn)
	if a.ItemID != "" && a.ItemID != id {
		return Record{}, fmt.Errorf("item %s: id does not match trace %s turn %d (%s)", a.ItemID, traceID, a.Turn, id)
	}
	if a.Turn < 0 || a.Turn >= len(msgs) || msgs[a.Turn].Role != trace.RoleAssistant {
		return Record{}, fmt.Errorf("item %s: trace %s has no assistant message at turn %d", id, traceID, a.Turn)
	}
	switch {
	case a.Decision == DecisionNoCall && len(a.Calls) > 0:
		return Record{}, fmt.Errorf("item %s: decision no_call but %d expected calls", id, len(a.Calls))
	case a.Decision == DecisionCall && len(a.Calls) == 0:
		return Record{}, fmt.Errorf("item %s: decision call but no expected calls", id)
	case a.Decision != DecisionCall && a.Decision != DecisionNoCall:
		return Record{}, fmt.Errorf("item %s: decision %q is not call or no_call", id, a.Decision)
	}
	observed := make([]ObservedCall, len(msgs[a.Turn].ToolCalls))
	for i, c := range msgs[a.Turn].ToolCalls {
		observed[i] = ObservedCall{Tool: c.Name, Args: c.Arguments, Unparseable: c.Unparseable}
	}
	rec := Record{
		ID:            id,
		ExpectedCalls: a.Calls,
		Acceptable:    a.Acceptable,
		Rationale:     a.Rationale,
		ObservedCalls: observed,
		Provenance: Provenance{
			Status:       a.Status,
			Reviewers:    a.Reviewers,
			GuideVersion: a.GuideVersion,
		},
	}
	if a.Adjudicator != "" {
		adj := a.Adjudicator
		rec.Provenance.Adjudicator = &adj
	}
	if err := normalizeAnswer(&rec, true); err != nil {
		return Record{}, fmt.Errorf("item %s: %w", id, err)
	}
	if err := ValidateRecord(rec); err != nil {
		return Record{}, fmt.Errorf("item %s: %w", id, err)
	}
	return rec, nil
}
