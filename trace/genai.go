package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// genAIMessage is a message of the OpenTelemetry GenAI conventions
// (gen_ai.input.messages / gen_ai.output.messages): a role and typed parts.
// Older instrumentations log OpenAI-shaped messages instead, so the chat
// fields are accepted too.
type genAIMessage struct {
	chatMessage
	Parts []genAIPart `json:"parts"`
}

type genAIPart struct {
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Response  json.RawMessage `json:"response"`
	Result    json.RawMessage `json:"result"`
}

// toMessages converts one GenAI message; tool_call_response parts become
// tool messages of their own.
func (m genAIMessage) toMessages() ([]Message, error) {
	if m.Parts == nil {
		msg, err := m.chatMessage.toMessage()
		return []Message{msg}, err
	}
	role, err := normaliseRole(m.Role)
	if err != nil {
		return nil, err
	}
	msg := Message{Role: role, Name: m.Name, ToolCallID: m.ToolCallID}
	var texts []string
	var responses []Message
	for j, p := range m.Parts {
		switch p.Type {
		case "text":
			if t := textOf(firstNonEmpty(p.Content, jsonString(p.Text))); t != "" {
				texts = append(texts, t)
			}
		case "tool_call":
			if p.Name == "" {
				return nil, fmt.Errorf("parts[%d]: tool call has no name", j)
			}
			call, err := callFromJSON(p.ID, p.Name, p.Arguments)
			if err != nil {
				return nil, fmt.Errorf("parts[%d]: %w", j, err)
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
		case "tool_call_response":
			out := textOf(firstNonEmpty(p.Response, p.Result, p.Content))
			if role == RoleTool && len(m.Parts) == 1 {
				msg.ToolCallID, texts = p.ID, []string{out}
				continue
			}
			responses = append(responses, Message{Role: RoleTool, ToolCallID: p.ID, Content: out})
		}
	}
	msg.Content = strings.Join(texts, "\n")
	if len(responses) > 0 && msg.Content == "" && len(msg.ToolCalls) == 0 {
		return responses, nil
	}
	return append(responses, msg), nil
}

func jsonString(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	b, _ := json.Marshal(s)
	return b
}

// parseGenAIMessages reads a JSON list of GenAI messages. A JSON object with
// "text" (the deprecated gen_ai.completion form) is one message of
// defaultRole, an object with "messages" is a request body, and text that
// is not JSON is one message of defaultRole.
func parseGenAIMessages(raw json.RawMessage, defaultRole string) ([]Message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, nil
	}
	if !json.Valid(raw) {
		return []Message{{Role: defaultRole, Content: string(raw)}}, nil
	}
	switch raw[0] {
	case '{':
		var obj struct {
			Text     *string         `json:"text"`
			Messages json.RawMessage `json:"messages"`
			Choices  json.RawMessage `json:"choices"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, describeJSONError(err)
		}
		switch {
		case obj.Messages != nil:
			return parseGenAIMessages(obj.Messages, defaultRole)
		case obj.Choices != nil:
			var resp openAIResponse
			if err := json.Unmarshal(raw, &resp); err != nil || len(resp.Choices) == 0 || resp.Choices[0].Message == nil {
				return nil, errors.New("response has no choices[0].message")
			}
			reply := resp.Choices[0].Message
			if reply.Role == "" {
				reply.Role = RoleAssistant
			}
			m, err := reply.toMessage()
			return []Message{m}, err
		case obj.Text != nil:
			return []Message{{Role: defaultRole, Content: *obj.Text}}, nil
		}
		var one genAIMessage
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, describeJSONError(err)
		}
		return one.toMessages()
	case '[':
		var list []genAIMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, describeJSONError(err)
		}
		var out []Message
		for i, m := range list {
			if m.Role == "" {
				m.Role = defaultRole
			}
			msgs, err := m.toMessages()
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out = append(out, msgs...)
		}
		return out, nil
	case '"':
		return []Message{{Role: defaultRole, Content: textOf(raw)}}, nil
	}
	return nil, fmt.Errorf("must be a list of messages, got %s", jsonKind(raw))
}

// genAISpanPart reads the OpenTelemetry GenAI attributes of one span: the
// current gen_ai.input.messages / gen_ai.output.messages /
// gen_ai.system_instructions / gen_ai.tool.definitions, the deprecated
// gen_ai.prompt / gen_ai.completion, and execute_tool spans'
// gen_ai.tool.name (a tool known to exist).
//
// It is long because it is one switch over the attribute names.
func genAISpanPart(s span, cache schemaCache) (spanPart, error) {
	p := spanPart{line: s.line, traceID: s.traceID, start: s.start, meta: spanMeta(s)}
	a := s.attrs
	var fromEvents []Message
	if len(s.events) > 0 {
		a = make(map[string]json.RawMessage, len(s.attrs)+4)
		for k, v := range s.attrs {
			a[k] = v
		}
		var err error
		if fromEvents, err = eventMessages(s.events, a); err != nil {
			return p, err
		}
		if p.meta == nil {
			p.meta = spanMeta(span{attrs: a, resource: s.resource})
		}
	}
	if raw := attrJSON(a, "gen_ai.system_instructions"); raw != nil {
		msgs, err := parseGenAIMessages(wrapParts(raw), RoleSystem)
		if err != nil {
			return p, fmt.Errorf("gen_ai.system_instructions: %w", err)
		}
		p.messages = append(p.messages, msgs...)
	}
	for _, field := range []struct{ key, role string }{
		{"gen_ai.input.messages", RoleUser}, {"gen_ai.prompt", RoleUser},
		{"gen_ai.output.messages", RoleAssistant}, {"gen_ai.completion", RoleAssistant},
	} {
		if field.key == "gen_ai.prompt" && a["gen_ai.input.messages"] != nil ||
			field.key == "gen_ai.completion" && a["gen_ai.output.messages"] != nil {
			continue
		}
		raw := attrJSON(a, field.key)
		if raw == nil {
			continue
		}
		msgs, err := parseGenAIMessages(raw, field.role)
		if err != nil {
			return p, fmt.Errorf("%s: %w", field.key, err)
		}
		p.messages = append(p.messages, msgs...)
	}
	if raw := attrJSON(a, "gen_ai.tool.definitions"); raw != nil {
		var defs []chatTool
		if err := json.Unmarshal(raw, &defs); err != nil {
			return p, fmt.Errorf("gen_ai.tool.definitions: %w", describeJSONError(err))
		}
		tools, err := chatTools(defs, cache)
		if err != nil {
			return p, fmt.Errorf("gen_ai.tool.definitions: %w", err)
		}
		p.tools = tools
	}
	if len(p.messages) == 0 {
		in, err := indexedGenAIMessages(a, "gen_ai.prompt.", RoleUser)
		if err != nil {
			return p, err
		}
		out, err := indexedGenAIMessages(a, "gen_ai.completion.", RoleAssistant)
		if err != nil {
			return p, err
		}
		p.messages = append(in, out...)
	}
	if len(p.messages) == 0 {
		p.messages = fromEvents
	}
	if p.tools == nil {
		tools, err := indexedFunctions(a, cache)
		if err != nil {
			return p, err
		}
		p.tools = tools
	}
	if name := attrString(a, "gen_ai.tool.name"); name != "" {
		p.tools = append(p.tools, Tool{Name: name, Description: attrString(a, "gen_ai.tool.description")})
	}
	if len(p.messages) == 0 && isModelCall(a) {
		return p, errContentNotCaptured
	}
	return p, nil
}

// wrapParts turns system instructions given as a bare list of parts into a
// one-message list.
func wrapParts(raw json.RawMessage) json.RawMessage {
	var probe []struct {
		Type string `json:"type"`
		Role string `json:"role"`
	}
	if json.Unmarshal(raw, &probe) == nil && len(probe) > 0 && probe[0].Type != "" && probe[0].Role == "" {
		return json.RawMessage(`[{"role":"system","parts":` + string(raw) + `}]`)
	}
	return raw
}

// spanMeta collects the metadata goldtrace keeps from a span's attributes.
func spanMeta(s span) map[string]string {
	meta := map[string]string{}
	set := func(key string, attrs map[string]json.RawMessage, names ...string) {
		for _, n := range names {
			if v := attrString(attrs, n); v != "" {
				meta[key] = v
				return
			}
		}
	}
	set("model", s.attrs, "gen_ai.response.model", "gen_ai.request.model", "llm.model_name")
	set("provider", s.attrs, "gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system")
	set("conversation", s.attrs, "gen_ai.conversation.id", "session.id")
	set("agent", s.attrs, "gen_ai.agent.name")
	set("service", s.resource, "service.name")
	if len(meta) == 0 {
		return nil
	}
	return meta
}
