package trace

import (
	"encoding/json"
	"time"
)

// Roles a Message may have. Importers map provider-specific roles onto these
// (OpenAI "developer" becomes RoleSystem, Anthropic tool_result blocks become
// RoleTool messages).
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Trace is one production conversation.
type Trace struct {
	ID        string            `json:"id"`
	Timestamp time.Time         `json:"timestamp,omitzero"`
	Metadata  map[string]string `json:"metadata,omitempty"`
	Tools     []Tool            `json:"tools"`
	Messages  []Message         `json:"messages"`
}

// Message is one turn of a conversation. Content is plain text: importers
// flatten multi-part content into it.
type Message struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	Name       string `json:"name,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolCalls  []Call `json:"tool_calls,omitempty"`
}

// Call is one tool call made by a model.
//
// Arguments always holds valid, compact JSON. When the model's arguments were
// not valid JSON, Unparseable is true and Arguments is a JSON string holding
// the verbatim text: nothing is dropped or repaired.
type Call struct {
	ID          string          `json:"id,omitempty"`
	Name        string          `json:"name"`
	Arguments   json.RawMessage `json:"arguments"`
	Unparseable bool            `json:"unparseable,omitempty"`
}

// Tool is a tool offered to the model. Parameters is a JSON Schema object
// (canonical JSON; a schema "type":"dict" is normalised to "object").
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// RawArguments returns the text the model produced for the arguments: the
// verbatim string for unparseable arguments, the JSON otherwise.
func (c Call) RawArguments() string {
	if c.Unparseable {
		var s string
		if json.Unmarshal(c.Arguments, &s) == nil {
			return s
		}
	}
	return string(c.Arguments)
}

// NewCall builds a Call from raw argument text as a provider logged it. Text
// that is valid JSON is kept in canonical form; anything else is kept verbatim
// and flagged Unparseable. Empty text means no arguments ({}).
func NewCall(id, name, rawArgs string) Call {
	c := Call{ID: id, Name: name}
	if rawArgs == "" {
		c.Arguments = json.RawMessage(`{}`)
		return c
	}
	if canon, err := Canonical(json.RawMessage(rawArgs)); err == nil {
		c.Arguments = canon
		return c
	}
	b, _ := json.Marshal(rawArgs)
	c.Arguments = b
	c.Unparseable = true
	return c
}

// ToolNames returns the names of the tools in order.
func ToolNames(tools []Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// ResultName is the tool whose result msgs[i] is: the message's own name,
// else the name of the call it answers (by tool_call_id) in an earlier
// message, as OpenAI, Anthropic and most span formats link them; "" when
// neither says.
func ResultName(msgs []Message, i int) string {
	if msgs[i].Name != "" || msgs[i].ToolCallID == "" {
		return msgs[i].Name
	}
	for j := i - 1; j >= 0; j-- {
		for _, c := range msgs[j].ToolCalls {
			if c.ID == msgs[i].ToolCallID {
				return c.Name
			}
		}
	}
	return ""
}
