package judge

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// Input is one decision point as a judge sees it.
type Input struct {
	ID       string
	Messages []trace.Message // the conversation before the decision
	Tools    []trace.Tool
	// Expected, Acceptable and Rationale are the reference label (the args
	// judge reads them; the others are reference-free).
	Expected   []gold.ExpectedCall
	Acceptable [][]gold.ExpectedCall
	Rationale  string
	// Calls are what the model did (none: it called no tool).
	Calls []trace.Call
}

// templateFields is what a template sees: each part already rendered as
// readable text (Phoenix found human-readable input judges better than raw
// JSON).
type templateFields struct {
	Conversation, Tools, Expected, Acceptable, Rationale, Calls string
}

func (in *Input) fields() templateFields {
	f := templateFields{
		Conversation: conversationText(in.Messages),
		Tools:        toolsText(in.Tools),
		Expected:     expectedText(in.Expected),
		Rationale:    in.Rationale,
		Calls:        callsText(in.Calls),
	}
	var alts []string
	for i, list := range in.Acceptable {
		alts = append(alts, fmt.Sprintf("alternative %d:\n%s", i+1, expectedText(list)))
	}
	f.Acceptable = strings.Join(alts, "\n")
	return f
}

func conversationText(msgs []trace.Message) string {
	if len(msgs) == 0 {
		return "(empty)"
	}
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte('\n')
		}
		role := m.Role
		if len(role) > 0 {
			role = strings.ToUpper(role[:1]) + role[1:]
		}
		switch {
		case m.Role == trace.RoleTool:
			name := m.Name
			if name == "" {
				name = m.ToolCallID
			}
			fmt.Fprintf(&b, "Tool result (%s): %s", name, m.Content)
		case len(m.ToolCalls) > 0:
			if m.Content != "" {
				fmt.Fprintf(&b, "%s: %s\n", role, m.Content)
			}
			fmt.Fprintf(&b, "%s called: %s", role, strings.ReplaceAll(callsText(m.ToolCalls), "\n", "; "))
		default:
			fmt.Fprintf(&b, "%s: %s", role, m.Content)
		}
	}
	return b.String()
}

func toolsText(tools []trace.Tool) string {
	if len(tools) == 0 {
		return "(no tools)"
	}
	var b strings.Builder
	for i, t := range tools {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t.Name)
		if t.Description != "" {
			b.WriteString(": " + t.Description)
		}
		if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
			b.WriteString("\n  parameters: " + string(t.Parameters))
		}
	}
	return b.String()
}

func expectedText(list []gold.ExpectedCall) string {
	if len(list) == 0 {
		return "No tool should be called."
	}
	var b strings.Builder
	for i, c := range list {
		if i > 0 {
			b.WriteByte('\n')
		}
		args := string(c.Args)
		if args == "" || args == "null" {
			args = "{}"
		}
		fmt.Fprintf(&b, "%s(%s)", c.Tool, args)
		if len(c.ArgRules) > 0 {
			rules, _ := json.Marshal(c.ArgRules)
			fmt.Fprintf(&b, " arg_rules: %s", rules)
		}
	}
	return b.String()
}

func callsText(calls []trace.Call) string {
	if len(calls) == 0 {
		return "No tools called."
	}
	var b strings.Builder
	for i, c := range calls {
		if i > 0 {
			b.WriteByte('\n')
		}
		if c.Unparseable {
			fmt.Fprintf(&b, "%s(<arguments that are not JSON: %s>)", c.Name, c.RawArguments())
			continue
		}
		fmt.Fprintf(&b, "%s(%s)", c.Name, c.Arguments)
	}
	return b.String()
}
