package score

import "encoding/json"

// Match modes of an ArgRule.
const (
	MatchExact = "exact"
	MatchFuzzy = "fuzzy" // strings: case- and whitespace-insensitive
	MatchAny   = "any"
)

// ArgRule says how one expected argument is compared. The zero value means an
// exact, required match.
type ArgRule struct {
	Match    string            `json:"match,omitempty"`
	Optional bool              `json:"optional,omitempty"`
	AnyOf    []json.RawMessage `json:"any_of,omitempty"`
}

// ExpectedCall is one call of a gold answer.
type ExpectedCall struct {
	Tool     string             `json:"tool"`
	Args     json.RawMessage    `json:"args"`
	ArgRules map[string]ArgRule `json:"arg_rules,omitempty"`
}
