package tui

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/trace"
)

// argsSkeleton is the JSON the args editor starts with for tool: every
// required parameter with a typed placeholder ("" for text and choices, 0
// for numbers, false for yes/no, [] and {} for lists and objects), and a
// hint naming the optional ones.
func argsSkeleton(tool trace.Tool) (text, hint string) {
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	_ = json.Unmarshal(tool.Parameters, &schema)
	required := map[string]bool{}
	var lines []string
	for _, name := range schema.Required {
		if required[name] {
			continue
		}
		required[name] = true
		key, _ := json.Marshal(name)
		lines = append(lines, "  "+string(key)+": "+placeholder(schema.Properties[name]))
	}
	var optional []string
	for name := range schema.Properties {
		if !required[name] {
			optional = append(optional, name)
		}
	}
	sort.Strings(optional)
	if len(optional) > 0 {
		hint = "optional: " + strings.Join(optional, ", ")
	}
	if len(lines) == 0 {
		return "{}", hint
	}
	return "{\n" + strings.Join(lines, ",\n") + "\n}", hint
}

func placeholder(prop json.RawMessage) string {
	var p struct {
		Type json.RawMessage `json:"type"`
		Enum []any           `json:"enum"`
	}
	_ = json.Unmarshal(prop, &p)
	var types []string
	if err := json.Unmarshal(p.Type, &types); err != nil {
		var one string
		_ = json.Unmarshal(p.Type, &one)
		types = []string{one}
	}
	if len(p.Enum) > 0 {
		if _, isText := p.Enum[0].(string); !isText {
			b, _ := json.Marshal(p.Enum[0])
			return string(b)
		}
		return `""`
	}
	switch types[0] {
	case "number", "integer":
		return "0"
	case "boolean":
		return "false"
	case "array":
		return "[]"
	case "object":
		return "{}"
	case "null":
		return "null"
	}
	return `""`
}

// nextEmptyValue finds the first empty text value ("") at or after
// (row, col) in the editor text: the position just inside its quotes.
func nextEmptyValue(text string, row, col int) (int, int, bool) {
	lines := strings.Split(text, "\n")
	for r := row; r < len(lines); r++ {
		from := 0
		if r == row {
			from = col
		}
		line := lines[r]
		for i := strings.Index(line, `: ""`); i >= 0; {
			pos := i + len(`: "`) // inside the quotes, in bytes
			if runeCol := len([]rune(line[:pos])); runeCol >= from && (r > row || runeCol > col || col == 0) {
				return r, runeCol, true
			}
			next := strings.Index(line[i+1:], `: ""`)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return 0, 0, false
}
