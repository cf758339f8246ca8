package catalogue

import (
	"encoding/json"
	"math"
	"strings"
	"unicode"

	"github.com/goldtrace/goldtrace/trace"
)

// renameThreshold is the similarity above which a current tool is offered
// as a missing tool's new name.
const renameThreshold = 0.35

// Similarity says how alike two tools are, from 0 to 1: 0.4 × the Jaccard
// index of their descriptions' words, 0.4 × that of their parameter names
// (top level), 0.2 × that of their names' words (split at _ - . and case
// changes). A rename keeps most of a tool's description and parameters.
func Similarity(a, b trace.Tool) float64 {
	return 0.4*jaccard(words(a.Description), words(b.Description)) +
		0.4*jaccard(paramNames(a.Parameters), paramNames(b.Parameters)) +
		0.2*jaccard(nameWords(a.Name), nameWords(b.Name))
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 2 {
			out[w] = true
		}
	}
	return out
}

func nameWords(name string) map[string]bool {
	var b strings.Builder
	prev := rune(0)
	for _, r := range name {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(b.String()), func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' }) {
		out[w] = true
	}
	return out
}

func paramNames(schema json.RawMessage) map[string]bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	out := map[string]bool{}
	for k := range s.Properties {
		out[k] = true
	}
	return out
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
