package score

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/trace"
)

// A prediction may say which tools the model was offered: "tools" (tool
// objects in OpenAI's {type, function}, flat {name, description,
// parameters} or MCP's {name, description, inputSchema} shape) or
// "catalogue" ({"TOOL": "HASH"}, the first 16 hex digits of
// trace.ToolHash, as manifests write them). ParsePrediction keeps either as
// Prediction.Catalogue.

// predictionTools turns a prediction's "tools" array into name → short hash.
func predictionTools(raw []byte) (map[string]string, error) {
	var tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Function    *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, fmt.Errorf("tools must be an array of tools: %v", err)
	}
	out := make(map[string]string, len(tools))
	for _, t := range tools {
		tool := trace.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
		if t.Function != nil {
			tool = trace.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters}
		}
		if len(tool.Parameters) == 0 {
			tool.Parameters = t.InputSchema
		}
		if p := bytes.TrimSpace(tool.Parameters); string(p) == "null" {
			tool.Parameters = nil
		}
		if tool.Parameters != nil && !json.Valid(tool.Parameters) {
			return nil, fmt.Errorf("tools: %s: parameters are not JSON", tool.Name)
		}
		h, err := shortToolHash(tool)
		if err != nil {
			return nil, err
		}
		out[tool.Name] = h
	}
	return out, nil
}

// shortToolHash is the first 16 hex digits of trace.ToolHash, the schema
// canonical first (gold records hold it so; a prediction's may not).
func shortToolHash(t trace.Tool) (string, error) {
	if len(t.Parameters) > 0 {
		if c, err := trace.Canonical(t.Parameters); err == nil {
			t.Parameters = c
		}
	}
	h, err := trace.ToolHash(t)
	if err != nil {
		return "", err
	}
	return h[:16], nil
}

// CatalogueDrift says how many predictions named the tools they were made
// against and how many of those differ from their gold item's tools, and
// which tools differ (added, removed or changed), sorted.
type CatalogueDrift struct {
	Checked   int      `json:"checked"`
	Different int      `json:"different"`
	Tools     []string `json:"tools"`
}

// CompareCatalogues compares each prediction's catalogue with its case's
// tools. Predictions without a catalogue are not checked.
func CompareCatalogues(cases []Case, preds []Prediction) CatalogueDrift {
	var out CatalogueDrift
	tools := map[string]bool{}
	for i := range cases {
		if i >= len(preds) || preds[i].Catalogue == nil {
			continue
		}
		out.Checked++
		gold := map[string]string{}
		for _, t := range cases[i].Tools {
			if h, err := shortToolHash(t); err == nil {
				gold[t.Name] = h
			}
		}
		differs := false
		for name, h := range gold {
			if preds[i].Catalogue[name] != h {
				tools[name], differs = true, true
			}
		}
		for name := range preds[i].Catalogue {
			if _, ok := gold[name]; !ok {
				tools[name], differs = true, true
			}
		}
		if differs {
			out.Different++
		}
	}
	out.Tools = make([]string, 0, len(tools))
	for name := range tools {
		out.Tools = append(out.Tools, name)
	}
	sort.Strings(out.Tools)
	return out
}

// Warning is the one line score prints when predictions were made against
// another catalogue; "" when none was.
func (d CatalogueDrift) Warning() string {
	if d.Different == 0 {
		return ""
	}
	names := d.Tools
	more := ""
	if len(names) > 8 {
		names, more = names[:8], fmt.Sprintf(" and %d more", len(d.Tools)-8)
	}
	return fmt.Sprintf("warning: %d of %d predictions were made against tools that differ from the gold's (%s%s): the score measures the catalogue change as well as the model (goldtrace drift --gold … --tools … shows what changed)",
		d.Different, d.Checked, strings.Join(names, ", "), more)
}
