package dataset

import (
	"encoding/json"
	"io"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// The inspect format is inspect_ai's sample JSONL (what json_dataset reads
// with its default field names): "id"; "input" as chat messages in
// inspect's shapes (assistant tool_calls as {id, function, arguments as an
// object, type}; tool results as {role:"tool", content, tool_call_id,
// function}); "target" as the correct call lists, each the canonical JSON
// text [{"name","arguments"}] (the expected calls first, then each acceptable
// list; "[]" means no call); "metadata" with the tools (OpenAI function
// shape), expected_calls with their arg_rules, acceptable, rationale and
// where the item came from. Arguments that did not parse are {} with the
// verbatim text as parse_error, as inspect's own ToolCall carries them.

type inspectMessage struct {
	Role       string            `json:"role"`
	Content    string            `json:"content"`
	ToolCalls  []inspectToolCall `json:"tool_calls,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
	Function   string            `json:"function,omitempty"`
}

type inspectToolCall struct {
	ID         string          `json:"id"`
	Function   string          `json:"function"`
	Arguments  json.RawMessage `json:"arguments"`
	Type       string          `json:"type"`
	ParseError string          `json:"parse_error,omitempty"`
}

func inspectMessages(msgs []trace.Message) []inspectMessage {
	out := make([]inspectMessage, len(msgs))
	for i, m := range msgs {
		im := inspectMessage{Role: m.Role, Content: m.Content}
		if m.Role == trace.RoleTool {
			im.ToolCallID, im.Function = m.ToolCallID, m.Name
		}
		for _, c := range m.ToolCalls {
			tc := inspectToolCall{ID: c.ID, Function: c.Name, Arguments: c.Arguments, Type: "function"}
			if c.Unparseable || !isJSONObject(c.Arguments) {
				tc.Arguments, tc.ParseError = json.RawMessage("{}"), c.RawArguments()
			}
			im.ToolCalls = append(im.ToolCalls, tc)
		}
		out[i] = im
	}
	return out
}

// isJSONObject reports whether raw is a JSON object.
func isJSONObject(raw json.RawMessage) bool {
	for _, b := range raw {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b == '{'
	}
	return false
}

func inspectRow(r gold.Record) (any, error) {
	target, err := idealLists(r)
	if err != nil {
		return nil, err
	}
	type metadata struct {
		rowMetadata
		Tools         []trace.ChatTool      `json:"tools"`
		ExpectedTool  *string               `json:"expected_tool"`
		ExpectedCalls []gold.ExpectedCall   `json:"expected_calls"`
		Acceptable    [][]gold.ExpectedCall `json:"acceptable"`
		Rationale     string                `json:"rationale"`
	}
	return struct {
		ID       string           `json:"id"`
		Input    []inspectMessage `json:"input"`
		Target   []string         `json:"target"`
		Metadata metadata         `json:"metadata"`
	}{r.ID, inspectMessages(r.Input.Messages), target, metadata{metadataOf(r), trace.ChatTools(r.AvailableTools),
		r.ExpectedTool, nonNilCalls(r.ExpectedCalls), nonNilAlts(r.Acceptable), r.Rationale}}, nil
}

// deepEvalToolCall is deepeval's ToolCall as a golden's expected_tools holds
// it.
type deepEvalToolCall struct {
	Name            string          `json:"name"`
	InputParameters json.RawMessage `json:"input_parameters"`
}

// writeDeepEval writes the goldens as one JSON array (what deepeval's
// EvaluationDataset.add_goldens_from_json_file reads): "input" is the last
// user message, "expected_tools" the expected calls as
// [{name, input_parameters}] ([] for no call), "additional_metadata" the
// whole conversation, the tools, the arg rules, the acceptable lists and
// where the item came from, "comments" the rationale, "name" the item id.
func writeDeepEval(w io.Writer, content io.Reader, _ *Manifest) error {
	type metadata struct {
		rowMetadata
		Messages      []trace.ChatMessage   `json:"messages"`
		Tools         []trace.ChatTool      `json:"tools"`
		ExpectedCalls []gold.ExpectedCall   `json:"expected_calls"`
		Acceptable    [][]gold.ExpectedCall `json:"acceptable"`
	}
	type golden struct {
		Name               string             `json:"name"`
		Input              string             `json:"input"`
		ExpectedTools      []deepEvalToolCall `json:"expected_tools"`
		Comments           string             `json:"comments"`
		AdditionalMetadata metadata           `json:"additional_metadata"`
	}
	return writeJSONArray(w, content, func(r gold.Record) (any, error) {
		g := golden{Name: r.ID, Input: lastUserMessage(r.Input.Messages), ExpectedTools: []deepEvalToolCall{}, Comments: r.Rationale,
			AdditionalMetadata: metadata{metadataOf(r), trace.ChatMessages(r.Input.Messages), trace.ChatTools(r.AvailableTools), nonNilCalls(r.ExpectedCalls), nonNilAlts(r.Acceptable)}}
		for _, c := range r.ExpectedCalls {
			g.ExpectedTools = append(g.ExpectedTools, deepEvalToolCall{Name: c.Tool, InputParameters: c.Args})
		}
		return g, nil
	})
}

// lastUserMessage is the content of the last user message, "" without one.
func lastUserMessage(msgs []trace.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == trace.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}
