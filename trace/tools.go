package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// DecodeTools reads a JSON array of tool definitions as users write them in
// gold files and tool lists: the canonical {name, description, parameters},
// OpenAI's {"type":"function","function":{name, description, parameters}}
// or Anthropic's {name, description, input_schema}. null or nothing is no
// tools. Parameters are kept as written (a schema given as a JSON string
// is unwrapped). A tool without a name, a name given twice or parameters
// that are not a JSON object are errors that name field and the tool's
// index ("available_tools[2]: tool has no name"): a tool is never read
// without its name.
func DecodeTools(raw []byte, field string) ([]Tool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var in []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &in) != nil {
		return nil, fmt.Errorf("%s must be a JSON array of tools", field)
	}
	out := make([]Tool, 0, len(in))
	seen := make(map[string]bool, len(in))
	for i, el := range in {
		var t chatTool
		if err := json.Unmarshal(el, &t); err != nil {
			return nil, fmt.Errorf("%s[%d] must be a tool object ({name, description, parameters} or {type, function})", field, i)
		}
		tool, err := t.plainTool()
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		if seen[tool.Name] {
			return nil, fmt.Errorf("%s[%d]: tool %s is defined twice", field, i, tool.Name)
		}
		seen[tool.Name] = true
		out = append(out, tool)
	}
	return out, nil
}

// plainTool is t in the canonical shape with its parameters as written.
func (t chatTool) plainTool() (Tool, error) {
	out := Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
	if len(out.Parameters) == 0 {
		out.Parameters = t.InputSchema
	}
	if f := t.Function; f != nil {
		if out.Name == "" {
			out.Name = f.Name
		}
		if out.Description == "" {
			out.Description = f.Description
		}
		if len(out.Parameters) == 0 {
			out.Parameters = f.Parameters
		}
	}
	if out.Name == "" {
		if t.Type != "" && t.Type != "function" {
			return Tool{}, fmt.Errorf("a %q tool has no name (only function tools can be called)", t.Type)
		}
		return Tool{}, errors.New("tool has no name (give name, or function.name in OpenAI's shape)")
	}
	p := bytes.TrimSpace(out.Parameters)
	if len(p) > 0 && p[0] == '"' {
		var s string
		if err := json.Unmarshal(p, &s); err != nil {
			return Tool{}, fmt.Errorf("%s: parameters: %v", out.Name, err)
		}
		p = bytes.TrimSpace([]byte(s))
	}
	switch {
	case len(p) == 0 || string(p) == "null":
		p = nil
	case p[0] != '{' || !validJSON(p):
		return Tool{}, fmt.Errorf("%s: parameters must be a JSON Schema object", out.Name)
	}
	out.Parameters = json.RawMessage(p)
	return out, nil
}
