package dataset

import (
	"fmt"

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
}

// Line is one encoded gold record and what the manifest needs from it.
type Line struct {
	ID           string
	Bytes        []byte // canonical JSON, without the newline
	Tool         string // expected tool, trace.NoTool for no call
	Status       string
	GuideVersion string
}

// BuildLines turns the gold answers of one trace into canonical record lines.
func BuildLines(tg TraceGold) ([]Line, error) {
	t := tg.Trace
	msgs, err := normalizeMessages(t.Messages)
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", t.ID, err)
	}
	tools, err := normalizeTools(t.Tools)
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", t.ID, err)
	}
	meta := t.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	out := make([]Line, 0, len(tg.Answers))
	for _, a := range tg.Answers {
		rec, err := newRecord(t.ID, msgs, tools, meta, a)
		if err != nil {
			return nil, err
		}
		b, err := marshalLine(&rec)
		if err != nil {
			return nil, err
		}
		out = append(out, Line{ID: rec.ID, Bytes: b, Tool: rec.FirstTool(), Status: a.Status, GuideVersion: a.GuideVersion})
	}
	return out, nil
}

// newRecord assembles and normalises the record of one answer; msgs and
// tools are already normalised and shared between the trace's records.
func newRecord(traceID string, msgs []trace.Message, tools []trace.Tool, meta map[string]string, a Answer) (Record, error) {
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
		ID: id,
		Input: Input{
			Messages: msgs[:a.Turn:a.Turn],
			Context:  InputContext{TraceID: traceID, Turn: a.Turn, Metadata: meta},
		},
		AvailableTools: tools,
		ExpectedCalls:  a.Calls,
		Acceptable:     a.Acceptable,
		Rationale:      a.Rationale,
		ObservedCalls:  observed,
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
	if err := normalizeAnswer(&rec); err != nil {
		return Record{}, fmt.Errorf("item %s: %w", id, err)
	}
	if err := ValidateRecord(rec); err != nil {
		return Record{}, fmt.Errorf("item %s: %w", id, err)
	}
	return rec, nil
}
