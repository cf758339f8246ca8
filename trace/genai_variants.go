package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The generations of the OpenTelemetry GenAI conventions still emitted
// besides the current gen_ai.input.messages / gen_ai.output.messages span
// attributes (genai.go):
//
//   - indexed span attributes gen_ai.prompt.N.role/content/tool_call_id,
//     gen_ai.completion.N.tool_calls.M.name/arguments/id and the tools as
//     llm.request.functions.N.name/description/parameters (OpenLLMetry /
//     Traceloop, and the vendors that copied them);
//   - v1.26-era span events gen_ai.content.prompt / gen_ai.content.completion
//     carrying gen_ai.prompt / gen_ai.completion;
//   - one event per message (gen_ai.system.message, gen_ai.user.message,
//     gen_ai.assistant.message, gen_ai.tool.message, gen_ai.choice), as span
//     events or as OTLP log records (resourceLogs) with the message in the
//     body;
//   - the gen_ai.client.inference.operation.details event carrying the
//     current attributes.

// spanEvent is a span event or an OTLP log record of a span.
type spanEvent struct {
	name  string
	attrs map[string]json.RawMessage
	body  json.RawMessage // log records only; nil when absent
	log   bool
}

// genAIOperations are the gen_ai.operation.name values of a model call.
var genAIOperations = map[string]bool{"chat": true, "text_completion": true, "generate_content": true}

// indexedGenAIMessages rebuilds messages flattened as prefix.N.* (nil
// when there are none).
func indexedGenAIMessages(a map[string]json.RawMessage, prefix, defaultRole string) ([]Message, error) {
	var out []Message
	for _, i := range indexes(a, prefix) {
		base := prefix + strconv.Itoa(i) + "."
		role := attrString(a, base+"role")
		if role == "" {
			role = defaultRole
		}
		role, err := normaliseRole(role)
		if err != nil {
			return nil, fmt.Errorf("%srole: %w", base, err)
		}
		m := Message{Role: role, Content: attrString(a, base+"content"), ToolCallID: attrString(a, base+"tool_call_id"),
			Name: attrString(a, base+"name")}
		if raw := attrJSON(a, base+"content"); len(raw) > 0 && raw[0] == '[' {
			// Content given as a list of parts; a JSON list of anything
			// else (a tool's result) is kept as the text it is.
			if text, err := flattenContent(raw); err == nil && text != "" {
				m.Content = text
			}
		}
		for _, j := range indexes(a, base+"tool_calls.") {
			cb := base + "tool_calls." + strconv.Itoa(j) + "."
			name := attrString(a, cb+"name")
			if name == "" {
				return nil, fmt.Errorf("%sname: tool call has no name", cb)
			}
			call, err := callFromJSON(attrString(a, cb+"id"), name, jsonString(attrString(a, cb+"arguments")))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", cb, err)
			}
			m.ToolCalls = append(m.ToolCalls, call)
		}
		if name := attrString(a, base+"function_call.name"); name != "" {
			call, err := callFromJSON("", name, jsonString(attrString(a, base+"function_call.arguments")))
			if err != nil {
				return nil, fmt.Errorf("%sfunction_call: %w", base, err)
			}
			m.ToolCalls = append(m.ToolCalls, call)
		}
		out = append(out, m)
	}
	return out, nil
}

// indexedFunctions reads llm.request.functions.N.* tool definitions.
func indexedFunctions(a map[string]json.RawMessage, cache schemaCache) ([]Tool, error) {
	var defs []chatTool
	for _, i := range indexes(a, "llm.request.functions.") {
		base := "llm.request.functions." + strconv.Itoa(i) + "."
		defs = append(defs, chatTool{Name: attrString(a, base+"name"), Description: attrString(a, base+"description"),
			Parameters: attrJSON(a, base+"parameters")})
	}
	tools, err := chatTools(defs, cache)
	if err != nil {
		return nil, fmt.Errorf("llm.request.functions: %w", err)
	}
	return tools, nil
}

// eventRoles maps the per-message event names onto roles.
var eventRoles = map[string]string{
	"gen_ai.system.message": RoleSystem, "gen_ai.user.message": RoleUser,
	"gen_ai.assistant.message": RoleAssistant, "gen_ai.tool.message": RoleTool, "gen_ai.choice": RoleAssistant,
}

// eventMessages reads the messages a span's events carry. Events of the
// v1.26 and operation-details kinds are merged into attrs instead (their
// attributes are those of a span).
func eventMessages(events []spanEvent, attrs map[string]json.RawMessage) ([]Message, error) {
	var out []Message
	for i, ev := range events {
		switch ev.name {
		case "gen_ai.content.prompt", "gen_ai.content.completion", "gen_ai.client.inference.operation.details":
			for k, v := range ev.attrs {
				if _, ok := attrs[k]; !ok {
					attrs[k] = v
				}
			}
			continue
		}
		role, ok := eventRoles[ev.name]
		if !ok {
			continue
		}
		body := ev.body
		if !ev.log && body == nil {
			// As a span event the message is in the attributes (older
			// instrumentations), or serialised in event.body.
			if raw := attrJSON(ev.attrs, "event.body"); raw != nil {
				body = raw
			} else {
				b, _ := json.Marshal(ev.attrs)
				body = b
			}
		}
		if len(bytes.TrimSpace(body)) == 0 || string(bytes.TrimSpace(body)) == "null" {
			return nil, fmt.Errorf("event %d (%s) has no body", i+1, ev.name)
		}
		msg, err := eventMessage(ev.name, role, unquoteJSON(body))
		if err != nil {
			return nil, fmt.Errorf("event %d (%s): %w", i+1, ev.name, err)
		}
		out = append(out, msg)
	}
	return out, nil
}

// eventMessage reads one message event's body: {content, tool_calls, id}
// or, for gen_ai.choice, {index, finish_reason, message:{…}}.
func eventMessage(name, role string, body json.RawMessage) (Message, error) {
	if firstByte(body) == '"' {
		return Message{Role: role, Content: textOf(body)}, nil
	}
	var b struct {
		Content   json.RawMessage `json:"content"`
		Role      string          `json:"role"`
		ID        string          `json:"id"`
		ToolCalls []chatCall      `json:"tool_calls"`
		Message   json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return Message{}, fmt.Errorf("body: %w", describeJSONError(err))
	}
	if name == "gen_ai.choice" && len(b.Message) > 0 {
		return eventMessage("", role, b.Message)
	}
	if b.Role != "" && name != "gen_ai.tool.message" {
		role = b.Role
	}
	cm := chatMessage{Role: role, Content: b.Content, ToolCalls: b.ToolCalls}
	if role == RoleTool {
		cm.ToolCallID = b.ID
	}
	if firstByte(b.Content) == '{' {
		cm.Content = jsonString(textOf(b.Content))
	}
	return cm.toMessage()
}

// errContentNotCaptured: a model-call span without its messages.
var errContentNotCaptured = errors.New("content not captured: this gen_ai span records a model call but none of its messages " +
	"(the instrumentation's content capture is off; turn it on, e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, and export again)")

// isModelCall says whether a span's attributes describe a model call.
func isModelCall(a map[string]json.RawMessage) bool {
	if op := attrString(a, "gen_ai.operation.name"); op != "" {
		return genAIOperations[op]
	}
	return attrString(a, "llm.request.type") == "chat" || attrString(a, "llm.request.type") == "completion"
}

// isOpenInference says whether a span's attributes follow OpenInference
// rather than the GenAI conventions (both use llm.* keys: OpenLLMetry's
// llm.request.functions is GenAI).
func isOpenInference(a map[string]json.RawMessage) bool {
	for k := range a {
		switch {
		case strings.HasPrefix(k, "openinference."), strings.HasPrefix(k, "llm.input_messages."),
			strings.HasPrefix(k, "llm.output_messages."), strings.HasPrefix(k, "llm.tools."),
			k == "llm.model_name", k == "input.value":
			return true
		}
	}
	return false
}

// otlpLogs reads an OTLP/JSON logs export: log records grouped into one
// span per trace and span id, in the order they come.
func otlpLogs(line int, raw json.RawMessage) ([]span, error) {
	var rl []struct {
		Resource  otlpResource `json:"resource"`
		ScopeLogs []struct {
			LogRecords []struct {
				TimeUnixNano json.RawMessage `json:"timeUnixNano"`
				TraceID      string          `json:"traceId"`
				SpanID       string          `json:"spanId"`
				EventName    string          `json:"eventName"`
				Attributes   []otlpKeyValue  `json:"attributes"`
				Body         *otlpAnyValue   `json:"body"`
			} `json:"logRecords"`
		} `json:"scopeLogs"`
	}
	if err := json.Unmarshal(raw, &rl); err != nil {
		return nil, describeJSONError(err)
	}
	var out []span
	at := map[string]int{}
	for _, r := range rl {
		resource := kvMap(r.Resource.Attributes)
		for _, sl := range r.ScopeLogs {
			for i, lr := range sl.LogRecords {
				attrs := kvMap(lr.Attributes)
				name := lr.EventName
				if name == "" {
					name = attrString(attrs, "event.name")
				}
				ev := spanEvent{name: name, attrs: attrs, log: true}
				if lr.Body != nil {
					ev.body = lr.Body.json()
				}
				if strings.HasPrefix(name, "gen_ai.") && name != "gen_ai.client.inference.operation.details" && lr.Body == nil {
					return nil, fmt.Errorf("log record %d (%s) has no body", i+1, name)
				}
				key := lr.TraceID + "/" + lr.SpanID
				j, ok := at[key]
				if !ok {
					start, err := parseTimestamp(lr.TimeUnixNano)
					if err != nil {
						return nil, fmt.Errorf("log record %d: timeUnixNano: %w", i+1, err)
					}
					j = len(out)
					at[key] = j
					out = append(out, span{line: line, traceID: lr.TraceID, start: start, attrs: map[string]json.RawMessage{}, resource: resource})
				}
				for k, v := range attrs {
					if strings.HasPrefix(k, "gen_ai.") && k != "gen_ai.input.messages" && k != "gen_ai.output.messages" {
						out[j].attrs[k] = v // model, provider: the span's own attributes
					}
				}
				out[j].events = append(out[j].events, ev)
			}
		}
	}
	return out, nil
}
