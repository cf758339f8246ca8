package tui

import (
	"encoding/json"

	"github.com/goldtrace/goldtrace/review"
)

// draftBody is the label form as saved in drafts.body.
type draftBody struct {
	NoTool      bool        `json:"no_tool,omitempty"`
	Calls       []draftCall `json:"calls"`
	Rationale   string      `json:"rationale"`
	SawObserved bool        `json:"saw_observed,omitempty"`
}

type draftCall struct {
	Tool string `json:"tool"`
	Args string `json:"args"`
}

// labelToDraft renders a submitted label as a draft (for reopening).
func labelToDraft(l review.Label) ([]byte, error) {
	d := draftBody{NoTool: l.Decision == review.DecisionNoCall, Rationale: l.Rationale, SawObserved: l.SawObserved}
	for _, c := range l.Calls {
		args, err := json.MarshalIndent(json.RawMessage(c.Args), "", "  ")
		if err != nil {
			args = c.Args
		}
		d.Calls = append(d.Calls, draftCall{Tool: c.Tool, Args: string(args)})
	}
	return json.Marshal(d)
}
