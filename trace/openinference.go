package trace

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// openInferencePart reads the OpenInference attributes of one span:
// llm.input_messages.N.message.*, llm.output_messages.N.message.* and
// llm.tools.N.tool.json_schema, falling back to input.value/output.value
// when the messages are not flattened.
func openInferencePart(s span, cache schemaCache) (spanPart, error) {
	p := spanPart{line: s.line, traceID: s.traceID, start: s.start, meta: spanMeta(s)}
	in, err := flatMessages(s.attrs, "llm.input_messages.", RoleUser)
	if err != nil {
		return p, err
	}
	if in == nil {
		if raw := attrJSON(s.attrs, "input.value"); raw != nil {
			if in, err = parseGenAIMessages(raw, RoleUser); err != nil {
				return p, fmt.Errorf("input.value: %w", err)
			}
		}
	}
	out, err := flatMessages(s.attrs, "llm.output_messages.", RoleAssistant)
	if err != nil {
		return p, err
	}
	if out == nil && in != nil {
		if raw := attrJSON(s.attrs, "output.value"); raw != nil {
			if out, err = parseGenAIMessages(raw, RoleAssistant); err != nil {
				return p, fmt.Errorf("output.value: %w", err)
			}
		}
	}
	p.messages = append(in, out...)
	for _, i := range indexes(s.attrs, "llm.tools.") {
		key := "llm.tools." + strconv.Itoa(i) + ".tool.json_schema"
		raw := attrJSON(s.attrs, key)
		if raw == nil {
			continue
		}
		var def chatTool
		if err := json.Unmarshal(raw, &def); err != nil {
			return p, fmt.Errorf("%s: %w", key, describeJSONError(err))
		}
		tool, err := def.toTool(cache)
		if err != nil {
			return p, fmt.Errorf("%s: %w", key, err)
		}
		p.tools = append(p.tools, tool)
	}
	if raw := attrJSON(s.attrs, "metadata"); raw != nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			for k, v := range decodeMetadata(m) {
				if p.meta == nil {
					p.meta = map[string]string{}
				}
				if _, ok := p.meta[k]; !ok {
					p.meta[k] = v
				}
			}
		}
	}
	if name := attrString(s.attrs, "tool.name"); name != "" && len(p.messages) == 0 {
		p.tools = append(p.tools, Tool{Name: name, Description: attrString(s.attrs, "tool.description")})
	}
	return p, nil
}

// indexes lists the distinct N of the keys prefix+N+".…", in order.
func indexes(attrs map[string]json.RawMessage, prefix string) []int {
	seen := map[int]bool{}
	for k := range attrs {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, ".")
		if n, err := strconv.Atoi(num); err == nil && n >= 0 {
			seen[n] = true
		}
	}
	out := make([]int, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// flatMessages rebuilds the messages flattened under prefix (nil when there
// are none).
func flatMessages(attrs map[string]json.RawMessage, prefix, defaultRole string) ([]Message, error) {
	var out []Message
	for _, i := range indexes(attrs, prefix) {
		base := prefix + strconv.Itoa(i) + ".message."
		field := func(name string) string { return attrString(attrs, base+name) }
		role := field("role")
		if role == "" {
			role = defaultRole
		}
		role, err := normaliseRole(role)
		if err != nil {
			return nil, fmt.Errorf("%srole: %w", base, err)
		}
		msg := Message{Role: role, Content: field("content"), Name: field("name"), ToolCallID: field("tool_call_id")}
		if msg.Content == "" {
			var texts []string
			for _, j := range indexes(attrs, base+"contents.") {
				cb := base + "contents." + strconv.Itoa(j) + ".message_content."
				if t := attrString(attrs, cb+"type"); t != "" && t != "text" {
					continue
				}
				if text := attrString(attrs, cb+"text"); text != "" {
					texts = append(texts, text)
				}
			}
			msg.Content = strings.Join(texts, "\n")
		}
		for _, j := range indexes(attrs, base+"tool_calls.") {
			cb := base + "tool_calls." + strconv.Itoa(j) + ".tool_call."
			name := attrString(attrs, cb+"function.name")
			if name == "" {
				return nil, fmt.Errorf("%sfunction.name: tool call has no name", cb)
			}
			call, err := callFromJSON(attrString(attrs, cb+"id"), name, attrs[cb+"function.arguments"])
			if err != nil {
				return nil, fmt.Errorf("%sfunction.arguments: %w", cb, err)
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
		}
		out = append(out, msg)
	}
	return out, nil
}
