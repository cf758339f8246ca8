package gold

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

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

// Check rejects an expected call without a tool, with arguments that are
// not an object, or with a rule that cannot apply.
func (c *ExpectedCall) Check() error {
	if c.Tool == "" {
		return errors.New("expected call without a tool name")
	}
	args := bytes.TrimSpace(c.Args)
	if len(args) > 0 && string(args) != "null" && args[0] != '{' {
		return fmt.Errorf("expected call %s: args must be a JSON object", c.Tool)
	}
	if err := c.CheckArgRules(); err != nil {
		return fmt.Errorf("expected call %w", err)
	}
	return nil
}
