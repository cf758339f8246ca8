package judge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/goldtrace/goldtrace/trace"
)

// chatTools are the tools of a request to the model under test: a tool
// without a schema is sent with an empty object schema, which every
// OpenAI-compatible server accepts.
func chatTools(tools []trace.Tool) []ToolSpec {
	out := trace.ChatTools(tools)
	for i := range out {
		if p := out[i].Function.Parameters; len(p) == 0 || string(p) == "null" {
			out[i].Function.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
	}
	return out
}

// PredictInput is one gold item's input sent to the model under test.
type PredictInput struct {
	ID       string
	Messages []trace.Message
	Tools    []trace.Tool
}

// Prediction is the model's answer on one item: its tool calls (none: it
// called no tool).
type Prediction struct {
	ID    string
	Calls []trace.Call
	Err   error // a per-item error (offline and not cached)
	// Skipped: not sent (the budget ran out).
	Skipped bool
}

// Predict sends each input (its messages and tools) to the runner's model
// and returns the calls it makes; answers are cached under kind "predict".
func Predict(ctx context.Context, r *Runner, inputs []PredictInput) ([]Prediction, Stats, error) {
	tasks := make([]Task, len(inputs))
	for i, in := range inputs {
		tasks[i].Request = Request{Messages: trace.ChatMessages(in.Messages), Tools: chatTools(in.Tools)}
	}
	r.Kind, r.TemplateSHA256 = "predict", ""
	outs, st, err := r.Run(ctx, tasks, func(i int, choices []Choice) (json.RawMessage, error) {
		calls := make([]trace.Call, 0, len(choices[0].ToolCalls))
		for _, tc := range choices[0].ToolCalls {
			if tc.Function.Name == "" {
				return nil, fmt.Errorf("%w: a tool call without a function name", errMalformed)
			}
			calls = append(calls, trace.NewCall(tc.ID, tc.Function.Name, tc.Function.Arguments))
		}
		return json.Marshal(calls)
	})
	preds := make([]Prediction, len(inputs))
	for i, o := range outs {
		p := &preds[i]
		p.ID = inputs[i].ID
		switch {
		case o.Skipped:
			p.Skipped = true
		case o.Err != nil:
			p.Err = o.Err
		default:
			if uerr := json.Unmarshal(o.Value, &p.Calls); uerr != nil {
				p.Err = fmt.Errorf("cached answer: %v", uerr)
			}
		}
	}
	return preds, st, err
}
