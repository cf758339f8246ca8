package catalogue

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/goldtrace/goldtrace/trace"
)

// maxCatalogue bounds a catalogue file: tool lists are small; a larger input
// is a mistake, not a catalogue.
const maxCatalogue = 64 << 20

// Read reads a tool catalogue from r (name is used in errors). Accepted:
//
//   - a JSON array of tools, each OpenAI's {"type":"function","function":
//     {name, description, parameters}} or flat {name, description,
//     parameters};
//   - the same, one tool per line (JSON Lines);
//   - MCP's tools/list result {"tools":[{name, description, inputSchema}]},
//     or the whole JSON-RPC response {"result":{"tools":[…]}}; flat and
//     OpenAI tools are accepted in "tools" too.
//
// Tools come back sorted by name; a name given twice, a tool without a name
// and parameters that are not a JSON object are errors.
func Read(r io.Reader, name string) ([]trace.Tool, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxCatalogue+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxCatalogue {
		return nil, fmt.Errorf("%s: larger than %d MiB: not a tool catalogue", name, maxCatalogue>>20)
	}
	raws, err := toolValues(data, name)
	if err != nil {
		return nil, err
	}
	if len(raws) == 0 {
		return nil, fmt.Errorf("%s: no tools", name)
	}
	seen := map[string]bool{}
	out := make([]trace.Tool, 0, len(raws))
	for i, raw := range raws {
		t, err := decodeTool(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: tool %d: %w", name, i+1, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%s: tool %q given twice", name, t.Name)
		}
		seen[t.Name] = true
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// toolValues finds the tool objects in data, whatever the container.
func toolValues(data []byte, name string) ([]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty", name)
	}
	if trimmed[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, fmt.Errorf("%s: not a JSON array of tools: %v", name, err)
		}
		return raws, nil
	}
	var top struct {
		Tools  []json.RawMessage `json:"tools"`
		Result *struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(trimmed, &top) == nil {
		switch {
		case top.Tools != nil:
			return top.Tools, nil
		case top.Result != nil && top.Result.Tools != nil:
			return top.Result.Tools, nil
		}
	}
	// JSON Lines: one tool per line.
	var raws []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(trimmed))
	sc.Buffer(make([]byte, 0, 1<<16), maxCatalogue)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) || line[0] != '{' {
			return nil, fmt.Errorf("%s:%d: not a tool (want a JSON array, JSON Lines of tools, or MCP's {\"tools\":[…]})", name, n)
		}
		raws = append(raws, json.RawMessage(bytes.Clone(line)))
	}
	return raws, sc.Err()
}

func decodeTool(raw json.RawMessage) (trace.Tool, error) {
	var t struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		InputSchema json.RawMessage `json:"inputSchema"` // MCP
		Function    *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return trace.Tool{}, fmt.Errorf("not a tool object: %v", err)
	}
	if t.Function != nil {
		t.Name, t.Description, t.Parameters = t.Function.Name, t.Function.Description, t.Function.Parameters
	}
	if len(t.Parameters) == 0 {
		t.Parameters = t.InputSchema
	}
	if t.Name == "" {
		return trace.Tool{}, fmt.Errorf("no name")
	}
	params := bytes.TrimSpace(t.Parameters)
	if len(params) == 0 || string(params) == "null" {
		return trace.Tool{Name: t.Name, Description: t.Description}, nil
	}
	if params[0] != '{' {
		return trace.Tool{}, fmt.Errorf("%s: parameters must be a JSON Schema object", t.Name)
	}
	c, err := trace.Canonical(params)
	if err != nil {
		return trace.Tool{}, fmt.Errorf("%s: parameters: %v", t.Name, err)
	}
	return trace.Tool{Name: t.Name, Description: t.Description, Parameters: c}, nil
}
