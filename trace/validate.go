package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// Validate checks what every importer guarantees about a trace: an id, at
// least one message, known roles, tool calls with names and JSON arguments,
// and tools with distinct, non-empty names.
func (t Trace) Validate() error {
	if err := t.validateMessages(); err != nil {
		return err
	}
	return validateTools(t.Tools)
}

func (t Trace) validateMessages() error {
	if t.ID == "" {
		return errors.New("trace has no id")
	}
	if strings.IndexByte(t.ID, 0) >= 0 {
		return fmt.Errorf("trace id %q holds a NUL character", t.ID)
	}
	if len(t.Messages) == 0 {
		return errors.New("trace has no messages")
	}
	for i, m := range t.Messages {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		default:
			return fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
		for j, c := range m.ToolCalls {
			if c.Name == "" {
				return fmt.Errorf("messages[%d].tool_calls[%d]: tool call has no name", i, j)
			}
			if strings.IndexByte(c.Name, 0) >= 0 {
				return fmt.Errorf("messages[%d].tool_calls[%d]: tool name %q holds a NUL character", i, j, c.Name)
			}
			if !validJSON(c.Arguments) {
				return fmt.Errorf("messages[%d].tool_calls[%d] (%s): arguments are not JSON", i, j, c.Name)
			}
		}
	}
	return nil
}

// validateTools checks that tools have distinct, non-empty names and JSON
// parameters.
func validateTools(tools []Tool) error {
	seen := make(map[string]bool, len(tools))
	for i, tool := range tools {
		if tool.Name == "" {
			return fmt.Errorf("tools[%d]: tool has no name", i)
		}
		if strings.IndexByte(tool.Name, 0) >= 0 {
			return fmt.Errorf("tools[%d]: tool name %q holds a NUL character", i, tool.Name)
		}
		if strings.IndexByte(tool.Description, 0) >= 0 {
			return fmt.Errorf("tools[%d] (%s): the description holds a NUL character", i, tool.Name)
		}
		if seen[tool.Name] {
			return fmt.Errorf("tools[%d]: tool %q is defined twice", i, tool.Name)
		}
		seen[tool.Name] = true
		if len(tool.Parameters) > 0 && !validJSON(tool.Parameters) {
			return fmt.Errorf("tools[%d] (%s): parameters are not JSON", i, tool.Name)
		}
	}
	return nil
}

// validJSON is json.Valid, by jsonlex's quicker scan when that accepts b
// (it accepts nothing json.Valid refuses, but refuses nesting deeper than
// jsonlex.MaxDepth, which json.Valid then decides).
func validJSON(b []byte) bool {
	l := jsonlex.Lexer{Data: b}
	if _, err := l.Skip(); err == nil && l.End() == nil {
		return true
	}
	return json.Valid(b)
}

// normaliseRole maps a provider's role onto the canonical roles: OpenAI's
// "developer" is a system message and its legacy "function" a tool message.
func normaliseRole(role string) (string, error) {
	switch role {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return role, nil
	case "developer":
		return RoleSystem, nil
	case "function":
		return RoleTool, nil
	case "":
		return "", errors.New("message has no role")
	}
	return "", fmt.Errorf("unknown role %q", role)
}

// DeriveID returns the id of a trace whose input had none: "tr_" and the
// first 16 hex digits of its content hash, so the same conversation always
// gets the same id.
func DeriveID(t Trace) (string, error) {
	h, err := ContentHash(t)
	if err != nil {
		return "", err
	}
	return "tr_" + h[:16], nil
}
