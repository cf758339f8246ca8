package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// The tau2 format is a τ²-bench task file (sierra-research/tau2-bench,
// src/tau2/data_model/tasks.py), one task per gold decision point that
// expects calls:
//
//   - NAME-vN.tau2.json: a JSON array of Task objects. "initial_state"
//     carries "message_history", the conversation up to the decision (system,
//     user, assistant with tool_calls {id, name, arguments, requestor}, tool
//     {id, role, content, requestor, error}); "evaluation_criteria" carries
//     "actions", the expected calls in order as {action_id, requestor, name,
//     arguments, compare_args}, and "reward_basis": ["ACTION"], so τ²-bench's
//     action evaluator grades the agent's calls against them.
//     "compare_args" lists the expected arguments τ² compares exactly: those
//     whose rule is exact and required; an argument whose rule is fuzzy, any,
//     optional or any_of, or with such a rule on a pointer inside it, is left
//     out (τ² compares whole top-level values, exactly) and reported.
//   - NAME-vN.tau2.report.txt: what τ² cannot express, one line each: no-call
//     items (not exported: an ACTION reward has no way to say "call nothing"),
//     arguments left out of compare_args, acceptable alternative call lists
//     (τ² knows one trajectory), and history calls whose arguments are not a
//     JSON object (written as {}). Each exported task also lists its own
//     lines as τ² "issues".
//
// τ² compares only the arguments in compare_args: an extra argument the
// agent adds is not a failure there, as it is in goldtrace's scoring.

type tau2Task struct {
	ID                 string           `json:"id"`
	Description        tau2Description  `json:"description"`
	UserScenario       tau2UserScenario `json:"user_scenario"`
	InitialState       tau2InitialState `json:"initial_state"`
	EvaluationCriteria tau2Criteria     `json:"evaluation_criteria"`
	Issues             []tau2Issue      `json:"issues,omitempty"`
}

type tau2Description struct {
	Purpose string `json:"purpose"`
	Notes   string `json:"notes,omitempty"`
}

type tau2UserScenario struct {
	Instructions string `json:"instructions"`
}

type tau2InitialState struct {
	MessageHistory []tau2Message `json:"message_history"`
}

// tau2Message is one of τ²'s SystemMessage, UserMessage, AssistantMessage
// and ToolMessage; fields a role does not have stay empty and are left out.
type tau2Message struct {
	ID        string         `json:"id,omitempty"` // tool messages: the call answered
	Role      string         `json:"role"`
	Content   *string        `json:"content"`
	ToolCalls []tau2ToolCall `json:"tool_calls,omitempty"`
	Requestor string         `json:"requestor,omitempty"` // tool messages
	Error     *bool          `json:"error,omitempty"`     // tool messages
}

type tau2ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Requestor string          `json:"requestor"`
}

type tau2Criteria struct {
	Actions     []tau2Action `json:"actions"`
	RewardBasis []string     `json:"reward_basis"`
}

type tau2Action struct {
	ActionID    string          `json:"action_id"`
	Requestor   string          `json:"requestor"`
	Name        string          `json:"name"`
	Arguments   json.RawMessage `json:"arguments"`
	Info        string          `json:"info,omitempty"`
	CompareArgs []string        `json:"compare_args"`
}

type tau2Issue struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"`
}

// tau2Convert makes r's task, or none for a no-call item, and the report
// lines of what τ² cannot express.
func tau2Convert(r gold.Record) (*tau2Task, []string) {
	var notes []string
	if len(r.ExpectedCalls) == 0 {
		return nil, []string{fmt.Sprintf("%s: expects no tool call; a τ² ACTION reward cannot say so: not exported", r.ID)}
	}
	history, hn := tau2History(r.Input.Messages)
	for _, n := range hn {
		notes = append(notes, r.ID+": "+n)
	}
	task := &tau2Task{
		ID: r.ID,
		Description: tau2Description{
			Purpose: fmt.Sprintf("goldtrace gold decision point: trace %s, turn %d (%s)", r.Input.Context.TraceID, r.Input.Context.Turn, r.Provenance.Status),
			Notes:   r.Rationale,
		},
		UserScenario: tau2UserScenario{Instructions: tau2Instructions(r.Input.Messages)},
		InitialState: tau2InitialState{MessageHistory: history},
		EvaluationCriteria: tau2Criteria{Actions: make([]tau2Action, len(r.ExpectedCalls)),
			RewardBasis: []string{"ACTION"}},
	}
	for i, c := range r.ExpectedCalls {
		args, ok := tau2Arguments(c.Args)
		if !ok {
			notes = append(notes, fmt.Sprintf("%s: expected call %d (%s) has arguments that are not a JSON object: written as {}", r.ID, i+1, c.Tool))
		}
		compare, left := tau2CompareArgs(args, c.ArgRules)
		for _, l := range left {
			notes = append(notes, fmt.Sprintf("%s: %s.%s not compared by τ² (%s)", r.ID, c.Tool, l.arg, l.why))
		}
		task.EvaluationCriteria.Actions[i] = tau2Action{ActionID: fmt.Sprintf("%s-%d", r.ID, i+1), Requestor: "assistant",
			Name: c.Tool, Arguments: args, CompareArgs: compare}
	}
	if n := len(r.Acceptable); n > 0 {
		notes = append(notes, fmt.Sprintf("%s: %d acceptable alternative call list(s): τ² knows one trajectory, the expected calls", r.ID, n))
	}
	for i, n := range notes {
		task.Issues = append(task.Issues, tau2Issue{ID: fmt.Sprintf("goldtrace-%d", i+1), Title: strings.TrimPrefix(n, r.ID+": "), Status: "open"})
	}
	return task, notes
}

// tau2Instructions tells τ²'s user simulator where the conversation stands.
func tau2Instructions(msgs []trace.Message) string {
	last := lastUserMessage(msgs)
	if last == "" {
		return "Continue the conversation in the message history as the user."
	}
	return "Continue the conversation in the message history as the user. Your last request was: " + last
}

// tau2History converts the context messages. Calls without an id get one
// ("call_M_N": message M, call N) and tool messages without a tool_call_id
// answer the previous assistant message's calls in order.
func tau2History(msgs []trace.Message) ([]tau2Message, []string) {
	out := make([]tau2Message, 0, len(msgs))
	var notes, pending []string
	for mi, m := range msgs {
		content := m.Content
		tm := tau2Message{Role: m.Role, Content: &content}
		if (m.Role == trace.RoleUser || m.Role == trace.RoleAssistant) && strings.TrimSpace(content) == "" && len(m.ToolCalls) == 0 {
			// τ² refuses a participant message without content or calls.
			notes = append(notes, fmt.Sprintf("message %d: empty %s message left out", mi, m.Role))
			continue
		}
		switch m.Role {
		case trace.RoleAssistant:
			pending = pending[:0]
			for ci, c := range m.ToolCalls {
				id := c.ID
				if id == "" {
					id = fmt.Sprintf("call_%d_%d", mi, ci)
				}
				args, ok := tau2Arguments(c.Arguments)
				if !ok || c.Unparseable {
					args = json.RawMessage(`{}`)
					notes = append(notes, fmt.Sprintf("message %d: call %s's arguments are not a JSON object: written as {}", mi, c.Name))
				}
				tm.ToolCalls = append(tm.ToolCalls, tau2ToolCall{ID: id, Name: c.Name, Arguments: args, Requestor: "assistant"})
				pending = append(pending, id)
			}
			if content == "" && len(tm.ToolCalls) > 0 {
				tm.Content = nil
			}
		case trace.RoleTool:
			tm.ID = m.ToolCallID
			if tm.ID == "" && len(pending) > 0 {
				tm.ID = pending[0]
			}
			if len(pending) > 0 {
				pending = pending[1:]
			}
			if tm.ID == "" {
				tm.ID = fmt.Sprintf("call_%d", mi)
			}
			f := false
			tm.Requestor, tm.Error = "assistant", &f
		}
		out = append(out, tm)
	}
	return out, notes
}

// tau2Arguments is args as a JSON object ({} when missing or null); ok is
// false when args are something else (then {} as well).
func tau2Arguments(args json.RawMessage) (json.RawMessage, bool) {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{}`), true
	}
	if t[0] != '{' || !json.Valid(t) {
		return json.RawMessage(`{}`), false
	}
	return t, true
}

type tau2Left struct{ arg, why string }

// tau2CompareArgs lists, sorted, the top-level arguments of args τ² can
// compare exactly, and the ones it leaves out with the reason.
func tau2CompareArgs(args json.RawMessage, rules map[string]gold.ArgRule) ([]string, []tau2Left) {
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(args, &obj) // args is a JSON object (tau2Arguments)
	loose := map[string]string{}
	keys := make([]string, 0, len(rules))
	for key := range rules {
		keys = append(keys, key)
	}
	sort.Strings(keys) // the first rule (by key) names why an argument is left out
	for _, key := range keys {
		rule := rules[key]
		why := tau2Loosened(rule)
		if why == "" {
			continue
		}
		top, rest := key, ""
		if strings.HasPrefix(key, "/") {
			tok, after, _ := strings.Cut(key[1:], "/")
			top = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			if after != "" {
				rest = " at " + key
			}
		}
		if _, ok := loose[top]; !ok {
			loose[top] = why + rest
		}
	}
	compare := []string{}
	var left []tau2Left
	for k := range obj {
		if why, ok := loose[k]; ok {
			left = append(left, tau2Left{k, why})
			continue
		}
		compare = append(compare, k)
	}
	sort.Strings(compare)
	sort.Slice(left, func(i, j int) bool { return left[i].arg < left[j].arg })
	return compare, left
}

// tau2Loosened names what in rule τ²'s exact comparison cannot express, ""
// when the rule is exact and required.
func tau2Loosened(rule gold.ArgRule) string {
	var why []string
	if rule.Match != "" && rule.Match != gold.MatchExact {
		why = append(why, rule.Match)
	}
	if rule.Optional {
		why = append(why, "optional")
	}
	if len(rule.AnyOf) > 0 {
		why = append(why, "any_of")
	}
	return strings.Join(why, "+")
}

func writeTau2Tasks(w io.Writer, content io.Reader, _ *Manifest) error {
	return writeJSONArray(w, content, func(r gold.Record) (any, error) {
		task, _ := tau2Convert(r)
		if task == nil {
			return nil, nil
		}
		return task, nil
	})
}

func writeTau2Report(w io.Writer, content io.Reader, _ *Manifest) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# What τ²-bench cannot express in this version (one line each; empty: nothing)")
	err := eachRecord(content, func(r gold.Record) error {
		_, notes := tau2Convert(r)
		for _, n := range notes {
			if _, err := fmt.Fprintln(bw, n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}
