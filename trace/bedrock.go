package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// AWS Bedrock Converse (and Amazon Nova's InvokeModel body, which has the
// same messages): messages[].content[] blocks with text, toolUse and
// toolResult, system[] text blocks, toolConfig.tools[].toolSpec with
// inputSchema.json, and the response's output.message. Bedrock Agents'
// InvokeAgent traces are read too (see bedrockAgentMessages).

type bedrockMessage struct {
	Role    string         `json:"role"`
	Content []bedrockBlock `json:"content"`
}

type bedrockBlock struct {
	Text    *string `json:"text"`
	ToolUse *struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"toolUse"`
	ToolResult *struct {
		ToolUseID string            `json:"toolUseId"`
		Content   []json.RawMessage `json:"content"`
		Status    string            `json:"status"`
	} `json:"toolResult"`
	// Blocks without text: reasoning, images, documents, cache points.
	ReasoningContent json.RawMessage `json:"reasoningContent"`
	Image            json.RawMessage `json:"image"`
	Document         json.RawMessage `json:"document"`
	Video            json.RawMessage `json:"video"`
	CachePoint       json.RawMessage `json:"cachePoint"`
	GuardContent     json.RawMessage `json:"guardContent"`
}

type bedrockRequest struct {
	ModelID    string            `json:"modelId"`
	Messages   []bedrockMessage  `json:"messages"`
	System     []json.RawMessage `json:"system"`
	ToolConfig *struct {
		Tools []struct {
			ToolSpec *struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				InputSchema struct {
					JSON json.RawMessage `json:"json"`
				} `json:"inputSchema"`
			} `json:"toolSpec"`
		} `json:"tools"`
	} `json:"toolConfig"`
	InputText       string                     `json:"inputText"` // InvokeAgent
	RequestMetadata map[string]json.RawMessage `json:"requestMetadata"`
}

type bedrockResponse struct {
	Output *struct {
		Message *bedrockMessage `json:"message"`
	} `json:"output"`
	AgentTrace []json.RawMessage `json:"agentTrace"` // reassembled InvokeAgent stream
	Message    string            `json:"message"`    // an API error
}

// bedrockMessages converts Converse messages. toolUseIds maps every
// toolUse seen so far; a toolResult must answer one of them.
func bedrockMessages(in []bedrockMessage, field string, toolUseIDs map[string]bool) ([]Message, error) {
	var out []Message
	for i, m := range in {
		msgs, err := m.toMessages(toolUseIDs)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		out = append(out, msgs...)
	}
	return out, nil
}

func (m bedrockMessage) toMessages(toolUseIDs map[string]bool) ([]Message, error) {
	role, err := normaliseRole(m.Role)
	if err != nil {
		return nil, err
	}
	msg := Message{Role: role}
	var texts []string
	var results []Message
	known := 0
	for j, b := range m.Content {
		switch {
		case b.ToolUse != nil:
			known++
			if b.ToolUse.Name == "" {
				return nil, fmt.Errorf("content[%d]: toolUse has no name", j)
			}
			call, err := callFromJSON(b.ToolUse.ToolUseID, b.ToolUse.Name, b.ToolUse.Input)
			if err != nil {
				return nil, fmt.Errorf("content[%d]: %w", j, err)
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
			toolUseIDs[b.ToolUse.ToolUseID] = true
		case b.ToolResult != nil:
			known++
			id := b.ToolResult.ToolUseID
			if !toolUseIDs[id] {
				return nil, fmt.Errorf("content[%d]: toolResult for unknown toolUseId %q", j, id)
			}
			var parts []string
			for _, c := range b.ToolResult.Content {
				var block struct {
					Text *string         `json:"text"`
					JSON json.RawMessage `json:"json"`
				}
				if err := json.Unmarshal(c, &block); err != nil {
					return nil, fmt.Errorf("content[%d]: toolResult: %w", j, describeJSONError(err))
				}
				switch {
				case block.Text != nil:
					parts = append(parts, *block.Text)
				case len(block.JSON) > 0:
					parts = append(parts, textOf(block.JSON))
				}
			}
			text := strings.Join(parts, "\n")
			if b.ToolResult.Status == "error" {
				text = "error: " + text
			}
			results = append(results, Message{Role: RoleTool, ToolCallID: id, Content: text})
		case b.Text != nil:
			known++
			if *b.Text != "" {
				texts = append(texts, *b.Text)
			}
		case b.ReasoningContent != nil, b.Image != nil, b.Document != nil, b.Video != nil, b.CachePoint != nil, b.GuardContent != nil:
			known++
		}
	}
	if len(m.Content) > 0 && known == 0 {
		return nil, errors.New("no content block is text, toolUse or toolResult (not a Converse message?)")
	}
	msg.Content = strings.Join(texts, "\n")
	if len(results) > 0 && msg.Content == "" && len(msg.ToolCalls) == 0 {
		return results, nil
	}
	return append(results, msg), nil
}

// bedrockTrace reads one Bedrock exchange (a Converse or InvokeModel request
// and its response) as a trace. It is long because it is one switch over
// the API's request and response shapes.
func bedrockTrace(ex exchange, cache schemaCache) (Trace, error) {
	var req bedrockRequest
	if err := json.Unmarshal(ex.request, &req); err != nil {
		return Trace{}, describeJSONError(err)
	}
	var resp bedrockResponse
	if ex.response != nil {
		if err := json.Unmarshal(ex.response, &resp); err != nil {
			return Trace{}, fmt.Errorf("response: %w", describeJSONError(err))
		}
	}
	if req.Messages == nil && req.InputText == "" {
		return Trace{}, errors.New("request has no messages")
	}
	t := Trace{Tools: []Tool{}}
	if req.ToolConfig != nil {
		var defs []chatTool
		for i, tool := range req.ToolConfig.Tools {
			if tool.ToolSpec == nil {
				return Trace{}, fmt.Errorf("toolConfig.tools[%d]: no toolSpec", i)
			}
			s := tool.ToolSpec
			defs = append(defs, chatTool{Name: s.Name, Description: s.Description, Parameters: s.InputSchema.JSON})
		}
		tools, err := chatTools(defs, cache)
		if err != nil {
			return Trace{}, fmt.Errorf("toolConfig.%w", err)
		}
		t.Tools = tools
	}
	var sys []string
	for i, s := range req.System {
		var block struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(s, &block); err != nil {
			return Trace{}, fmt.Errorf("system[%d]: %w", i, describeJSONError(err))
		}
		if block.Text != "" {
			sys = append(sys, block.Text)
		}
	}
	if len(sys) > 0 {
		t.Messages = append(t.Messages, Message{Role: RoleSystem, Content: strings.Join(sys, "\n")})
	}
	ids := map[string]bool{}
	msgs, err := bedrockMessages(req.Messages, "messages", ids)
	if err != nil {
		return Trace{}, err
	}
	t.Messages = append(t.Messages, msgs...)
	if req.InputText != "" {
		t.Messages = append(t.Messages, Message{Role: RoleUser, Content: req.InputText})
	}
	model := req.ModelID
	switch {
	case ex.response == nil:
	case len(resp.AgentTrace) > 0:
		msgs, agentModel, err := bedrockAgentMessages(resp.AgentTrace)
		if err != nil {
			return Trace{}, fmt.Errorf("response: %w", err)
		}
		t.Messages = append(t.Messages, msgs...)
		if model == "" {
			model = agentModel
		}
	case resp.Output != nil && resp.Output.Message != nil:
		if resp.Output.Message.Role == "" {
			resp.Output.Message.Role = RoleAssistant
		}
		out, err := resp.Output.Message.toMessages(ids)
		if err != nil {
			return Trace{}, fmt.Errorf("response: output.message: %w", err)
		}
		t.Messages = append(t.Messages, out...)
	case resp.Message != "":
		return Trace{}, fmt.Errorf("response is an API error: %s", resp.Message)
	default:
		return Trace{}, errors.New("response has no output.message")
	}
	if err := finishExchange(&t, ex, model, req.RequestMetadata); err != nil {
		return Trace{}, err
	}
	return t, nil
}

// bedrockAgentMessages reads the orchestration steps of a Bedrock Agents
// trace: each action group invocation is a call (its rationale the text
// before it), each observation its result, and the final response the last
// assistant message.
//
// It is long because it is one switch over the orchestration steps' kinds.
func bedrockAgentMessages(events []json.RawMessage) ([]Message, string, error) {
	var out []Message
	model := ""
	pendingText := ""
	for i, raw := range events {
		var ev struct {
			Trace struct {
				Orchestration *struct {
					ModelInvocationInput *struct {
						FoundationModel string `json:"foundationModel"`
					} `json:"modelInvocationInput"`
					Rationale *struct {
						Text string `json:"text"`
					} `json:"rationale"`
					InvocationInput *struct {
						TraceID     string `json:"traceId"`
						ActionGroup *struct {
							Function   string `json:"function"`
							APIPath    string `json:"apiPath"`
							Parameters []struct {
								Name  string `json:"name"`
								Type  string `json:"type"`
								Value string `json:"value"`
							} `json:"parameters"`
						} `json:"actionGroupInvocationInput"`
					} `json:"invocationInput"`
					Observation *struct {
						TraceID     string `json:"traceId"`
						ActionGroup *struct {
							Text string `json:"text"`
						} `json:"actionGroupInvocationOutput"`
						FinalResponse *struct {
							Text string `json:"text"`
						} `json:"finalResponse"`
					} `json:"observation"`
				} `json:"orchestrationTrace"`
			} `json:"trace"`
		}
		if err := json.Unmarshal(raw, &ev); err != nil {
			return nil, "", fmt.Errorf("agent trace event %d: %w", i, describeJSONError(err))
		}
		o := ev.Trace.Orchestration
		if o == nil {
			continue
		}
		switch {
		case o.ModelInvocationInput != nil && model == "":
			model = o.ModelInvocationInput.FoundationModel
		case o.Rationale != nil:
			pendingText = o.Rationale.Text
		case o.InvocationInput != nil && o.InvocationInput.ActionGroup != nil:
			ag := o.InvocationInput.ActionGroup
			name := ag.Function
			if name == "" {
				name = ag.APIPath
			}
			if name == "" {
				return nil, "", fmt.Errorf("agent trace event %d: action group invocation names no function", i)
			}
			args := map[string]json.RawMessage{}
			for _, p := range ag.Parameters {
				args[p.Name] = agentParamValue(p.Type, p.Value)
			}
			b, err := json.Marshal(args)
			if err != nil {
				return nil, "", err
			}
			call, err := callFromJSON(o.InvocationInput.TraceID, name, b)
			if err != nil {
				return nil, "", err
			}
			out = append(out, Message{Role: RoleAssistant, Content: pendingText, ToolCalls: []Call{call}})
			pendingText = ""
		case o.Observation != nil && o.Observation.ActionGroup != nil:
			out = append(out, Message{Role: RoleTool, ToolCallID: o.Observation.TraceID, Content: o.Observation.ActionGroup.Text})
		case o.Observation != nil && o.Observation.FinalResponse != nil:
			out = append(out, Message{Role: RoleAssistant, Content: o.Observation.FinalResponse.Text})
			pendingText = ""
		}
	}
	if len(out) == 0 {
		return nil, "", errors.New("agent trace has no invocation and no final response")
	}
	return out, model, nil
}

// agentParamValue types an action group parameter (given as text) by its
// declared type; text that does not parse as that type stays text.
func agentParamValue(typ, value string) json.RawMessage {
	switch typ {
	case "number", "integer", "boolean", "array", "object":
		v := bytes.TrimSpace([]byte(value))
		if json.Valid(v) {
			return v
		}
	}
	b, _ := json.Marshal(value)
	return b
}
