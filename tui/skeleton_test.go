package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

func TestArgsSkeleton(t *testing.T) {
	tests := []struct {
		name, params, want, hint string
	}{
		{"typed placeholders",
			`{"type":"object","properties":{"order_id":{"type":"string"},"qty":{"type":"integer"},"gift":{"type":"boolean"},
			"carrier":{"type":"string","enum":["ups","dhl"]},"tags":{"type":"array"},"note":{"type":"string"}},
			"required":["order_id","qty","gift","carrier","tags"]}`,
			"{\n  \"order_id\": \"\",\n  \"qty\": 0,\n  \"gift\": false,\n  \"carrier\": \"\",\n  \"tags\": []\n}", "optional: note"},
		{"nothing required", `{"type":"object","properties":{"q":{"type":"string"}}}`, "{}", "optional: q"},
		{"no schema", ``, "{}", ""},
		{"numeric enum", `{"properties":{"level":{"enum":[1,2]}},"required":["level"]}`, "{\n  \"level\": 1\n}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, hint := argsSkeleton(trace.Tool{Name: "x", Parameters: json.RawMessage(tt.params)})
			if got != tt.want || hint != tt.hint {
				t.Errorf("got %q (%q), want %q (%q)", got, hint, tt.want, tt.hint)
			}
		})
	}
}

func TestNextEmptyValue(t *testing.T) {
	text := "{\n  \"a\": \"\",\n  \"b\": \"x\",\n  \"c\": \"\"\n}"
	tests := []struct {
		row, col, wantRow, wantCol int
		ok                         bool
	}{
		{0, 0, 1, 8, true},  // from the start: inside a's quotes
		{1, 8, 3, 8, true},  // from inside a: on to c
		{3, 8, 0, 0, false}, // none after c
	}
	for _, tt := range tests {
		r, c, ok := nextEmptyValue(text, tt.row, tt.col)
		if r != tt.wantRow || c != tt.wantCol || ok != tt.ok {
			t.Errorf("from %d:%d got %d:%d %v", tt.row, tt.col, r, c, ok)
		}
	}
}

// FuzzArgsSkeleton: whatever a tool's schema says, the skeleton is valid
// JSON the editor can start from, and the empty-value finder stays in range.
func FuzzArgsSkeleton(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"]},"c":{"enum":[true]}},"required":["a","b","c","a"]}`)
	f.Add(`{"required":["weird \"key\""]}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, params string) {
		text, _ := argsSkeleton(trace.Tool{Name: "x", Parameters: json.RawMessage(params)})
		if !json.Valid([]byte(text)) {
			t.Fatalf("skeleton %q is not JSON", text)
		}
		lines := strings.Split(text, "\n")
		for r, c, ok := nextEmptyValue(text, 0, 0); ok; r, c, ok = nextEmptyValue(text, r, c) {
			if r >= len(lines) || c > len([]rune(lines[r])) {
				t.Fatalf("position %d:%d outside %q", r, c, text)
			}
		}
	})
}
