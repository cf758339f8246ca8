package judge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/goldtrace/goldtrace/trace"
)

// ChatMessages converts a conversation to chat-completions messages (tool
// call arguments as JSON strings, verbatim when they were unparseable).
func ChatMessages(msgs []trace.Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if m.Role == trace.RoleTool {
			out[i].Name = m.Name
		}
		for _, c := range m.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, chatCall(c))
		}
	}
	return out
}

func chatCall(c trace.Call) ToolCall {
	var tc ToolCall
	tc.ID, tc.Type = c.ID, "function"
	tc.Function.Name, tc.Function.Arguments = c.Name, c.RawArguments()
	return tc
}

// ChatTools converts tools to the chat-completions tools format.
func ChatTools(tools []trace.Tool) []ToolSpec {
	out := make([]ToolSpec, len(tools))
	for i, t := range tools {
		out[i].Type = "function"
		out[i].Function.Name, out[i].Function.Description = t.Name, t.Description
		out[i].Function.Parameters = t.Parameters
		if len(t.Parameters) == 0 || string(t.Parameters) == "null" {
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
		tasks[i].Request = Request{Messages: ChatMessages(in.Messages), Tools: ChatTools(in.Tools)}
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
