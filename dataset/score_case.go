package dataset

import (
	"encoding/json"
	"fmt"

	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
)

// ScoreCase is the record as the scorer sees it. A record with only the
// older expected_tool/expected_args fields is read as one expected call.
func (r *Record) ScoreCase() score.Case {
	c := score.Case{
		ID:         r.ID,
		Expected:   r.ExpectedCalls,
		Acceptable: r.Acceptable,
		Tools:      r.AvailableTools,
		Meta:       r.Input.Context.Metadata,
		Trace:      r.Input.Context.TraceID,
	}
	if len(c.Expected) == 0 && r.ExpectedTool != nil && *r.ExpectedTool != "" {
		c.Expected = []score.ExpectedCall{{Tool: *r.ExpectedTool, Args: r.ExpectedArgs}}
	}
	return c
}

// ObservedPrediction is what the production model did at the record's
// decision point, as a prediction to score.
func (r *Record) ObservedPrediction() score.Prediction {
	p := score.Prediction{Calls: make([]trace.Call, 0, len(r.ObservedCalls))}
	for _, o := range r.ObservedCalls {
		p.Calls = append(p.Calls, trace.Call{Name: o.Tool, Arguments: o.Args, Unparseable: o.Unparseable})
	}
	return p
}

// ScoringRecord is a gold record as the scorer reads it: the conversation,
// the tools and the metadata are kept raw, to be decoded only when needed
// and shared between records that carry the same bytes.
type ScoringRecord struct {
	ID    string `json:"id"`
	Input struct {
		Messages json.RawMessage `json:"messages"` // decoded only for input hashes
		Context  struct {
			TraceID  string          `json:"trace_id"`
			Turn     int             `json:"turn"`
			Metadata json.RawMessage `json:"metadata"`
		} `json:"context"`
	} `json:"input"`
	AvailableTools json.RawMessage        `json:"available_tools"`
	ExpectedTool   *string                `json:"expected_tool"`
	ExpectedArgs   json.RawMessage        `json:"expected_args"`
	ExpectedCalls  []score.ExpectedCall   `json:"expected_calls"`
	Acceptable     [][]score.ExpectedCall `json:"acceptable"`
	Rationale      string                 `json:"rationale"`
	ObservedCalls  []ObservedCall         `json:"observed_calls"`
	Provenance     Provenance             `json:"provenance"`
}

// Record is the gold record g holds, without its conversation, with tools
// and metadata decoded once per distinct text through in (the records of
// one trace carry the same bytes, so they get one value).
func (g *ScoringRecord) Record(in *score.Interner) (Record, error) {
	r := Record{ID: g.ID, ExpectedTool: g.ExpectedTool, ExpectedArgs: g.ExpectedArgs,
		ExpectedCalls: g.ExpectedCalls, Acceptable: g.Acceptable, Rationale: g.Rationale,
		ObservedCalls: g.ObservedCalls, Provenance: g.Provenance}
	r.Input.Context.TraceID, r.Input.Context.Turn = g.Input.Context.TraceID, g.Input.Context.Turn
	var err error
	if r.AvailableTools, err = in.Tools(g.AvailableTools); err != nil {
		return r, err
	}
	if r.Input.Context.Metadata, err = in.Metadata(g.Input.Context.Metadata); err != nil {
		return r, fmt.Errorf("input.context.metadata: %v", err)
	}
	return r, nil
}
