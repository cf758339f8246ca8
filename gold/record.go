package gold

import (
	"encoding/json"

	"github.com/goldtrace/goldtrace/trace"
)

// Record is one line of an exported dataset (docs/formats.md, "Gold
// record"). The field order is the fixed key order of the JSON line, which
// AppendJSON writes.
//
// Canonical form (what dataset.EncodeRecord writes and dataset.Verify demands): every JSON
// value inside (arguments, schemas, rule values) is trace.Canonical; slices
// are [] rather than null; metadata is {} rather than null; every expected
// call carries a rule for each of its arguments with "match" spelled out
// ("exact" by default), plus rules for optional arguments the call omits;
// "arg_rules" is left out only for a call without arguments and rules.
type Record struct {
	ID             string          `json:"id"`
	Input          Input           `json:"input"`
	AvailableTools []trace.Tool    `json:"available_tools"`
	ExpectedTool   *string         `json:"expected_tool"` // null: no tool should be called
	ExpectedArgs   json.RawMessage `json:"expected_args"` // the first expected call's args; null with no call
	ExpectedCalls  []ExpectedCall  `json:"expected_calls"`
	// Acceptable holds other complete call lists that also count as correct.
	Acceptable    [][]ExpectedCall `json:"acceptable"`
	Rationale     string           `json:"rationale"`
	ObservedCalls []ObservedCall   `json:"observed_calls"`
	Provenance    Provenance       `json:"provenance"`
}

// Input is what the model saw at the decision point.
type Input struct {
	Messages []trace.Message `json:"messages"`
	Context  InputContext    `json:"context"`
}

// InputContext locates the decision point.
type InputContext struct {
	TraceID  string            `json:"trace_id"`
	Turn     int               `json:"turn"`
	Metadata map[string]string `json:"metadata"`
}

// ObservedCall is a call the production model made at the decision point.
// Unparseable arguments are kept verbatim as a JSON string and flagged.
type ObservedCall struct {
	Tool        string          `json:"tool"`
	Args        json.RawMessage `json:"args"`
	Unparseable bool            `json:"unparseable,omitempty"`
}

// Provenance says how the gold answer was reached.
type Provenance struct {
	Status       string   `json:"status"` // agreed | adjudicated
	Reviewers    []string `json:"reviewers"`
	Adjudicator  *string  `json:"adjudicator"` // null when agreed
	GuideVersion string   `json:"guide_version"`
}

// Gold statuses a record's provenance may carry.
const (
	StatusAgreed      = "agreed"
	StatusAdjudicated = "adjudicated"
)

// FirstTool is the expected tool, or trace.NoTool when no call is expected.
func (r Record) FirstTool() string {
	if r.ExpectedTool == nil {
		return trace.NoTool
	}
	return *r.ExpectedTool
}

// ExpectedList is the record's expected calls. A record with only the
// older expected_tool/expected_args fields reads as one expected call.
func (r *Record) ExpectedList() []ExpectedCall {
	if len(r.ExpectedCalls) == 0 && r.ExpectedTool != nil && *r.ExpectedTool != "" {
		return []ExpectedCall{{Tool: *r.ExpectedTool, Args: r.ExpectedArgs}}
	}
	return r.ExpectedCalls
}
