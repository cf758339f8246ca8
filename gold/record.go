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
	ID             string       `json:"id"`
	Input          Input        `json:"input"`
	AvailableTools []trace.Tool `json:"available_tools"`
	// Catalogue maps each available tool's name to its version, the first
	// 16 hex digits of trace.ToolHash (RecordFormat2; nil in records of
	// RecordFormat1, which have no such member).
	Catalogue     map[string]string `json:"catalogue,omitempty"`
	ExpectedTool  *string           `json:"expected_tool"` // null: no tool should be called
	ExpectedArgs  json.RawMessage   `json:"expected_args"` // the first expected call's args; null with no call
	ExpectedCalls []ExpectedCall    `json:"expected_calls"`
	// Acceptable holds other complete call lists that also count as correct.
	Acceptable    [][]ExpectedCall `json:"acceptable"`
	Rationale     string           `json:"rationale"`
	ObservedCalls []ObservedCall   `json:"observed_calls"`
	Provenance    Provenance       `json:"provenance"`
}

// Record formats: how a dataset version's lines are written. A version
// keeps the format it was exported in, so its bytes never change.
const (
	// RecordFormat1 is the first shape, without "catalogue".
	RecordFormat1 = 1
	// RecordFormat2 adds "catalogue" after "available_tools": each offered
	// tool's version (CatalogueOf).
	RecordFormat2 = 2
	// CurrentRecordFormat is the format new versions are exported in.
	CurrentRecordFormat = RecordFormat2
)

// CatalogueOf maps each tool's name to its version: the first 16 hex
// digits of trace.ToolHash (its name, description and schema), as
// manifests, drift reports and prediction lines write it.
func CatalogueOf(tools []trace.Tool) (map[string]string, error) {
	out := make(map[string]string, len(tools))
	for _, t := range tools {
		h, err := trace.ToolHash(t)
		if err != nil {
			return nil, err
		}
		out[t.Name] = h[:16]
	}
	return out, nil
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
