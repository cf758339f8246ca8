package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/trace"
)

// editorCall is one call as the merged-label editor shows it.
type editorCall struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// editorText is a label's calls as the editor's starting text:
// [{"tool":…,"args":{…}}], or [] for no call.
func editorText(l review.Label) string {
	calls := make([]editorCall, 0, len(l.Calls))
	for _, c := range labelCalls(l) {
		args := c.Args
		if len(bytes.TrimSpace(args)) == 0 {
			args = json.RawMessage("{}")
		}
		calls = append(calls, editorCall{Tool: c.Tool, Args: args})
	}
	out, err := json.MarshalIndent(calls, "", "  ")
	if err != nil {
		return "[]"
	}
	return string(out)
}

// parseMergedLabel reads the editor's text as a label's calls and checks
// them against the item's tools; problems are in plain words. An empty
// list means no tool should be called.
func parseMergedLabel(text string, tools []trace.Tool) (review.Label, []string) {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return review.Label{}, []string{jsonProblem(text, err)}
	}
	l := review.Label{Decision: review.DecisionNoCall, Calls: []review.LabelCall{}}
	var problems []string
	for i, r := range raw {
		var c editorCall
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			problems = append(problems, fmt.Sprintf(`call %d: write it as {"tool": "name", "args": {…}} (%s)`, i+1, plainJSONError(err)))
			continue
		}
		if len(bytes.TrimSpace(c.Args)) == 0 || string(bytes.TrimSpace(c.Args)) == "null" {
			c.Args = json.RawMessage("{}")
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, c.Args); err == nil {
			c.Args = compact.Bytes()
		}
		l.Calls = append(l.Calls, review.LabelCall{Tool: c.Tool, Args: c.Args})
	}
	if len(problems) > 0 {
		return l, problems
	}
	if len(l.Calls) > 0 {
		l.Decision = review.DecisionCall
	}
	for _, p := range review.ValidateLabel(l, tools) {
		problems = append(problems, p.Message)
	}
	return l, problems
}

// jsonProblem explains why text is not a list of calls, with the line.
func jsonProblem(text string, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line := 1 + strings.Count(text[:min(int(syn.Offset), len(text))], "\n")
		return fmt.Sprintf("line %d: this is not valid JSON (%s)", line, syn.Error())
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field == "" {
		return `write a list of calls: [{"tool": "name", "args": {…}}], or [] when no tool should be called`
	}
	if strings.TrimSpace(text) == "" {
		return `the editor is empty: write [] when no tool should be called`
	}
	return plainJSONError(err)
}

// plainJSONError drops encoding/json's Go type names from an error.
func plainJSONError(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		if typ.Field == "tool" {
			return "the tool name must be text in quotes"
		}
		return fmt.Sprintf("%s should not be a %s", typ.Field, typ.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// openEditor starts a merged label from l's calls.
func (p *AdjudicatePage) openEditor(l review.Label) tea.Cmd {
	p.mode, p.problem, p.problems = adjEdit, "", nil
	p.decision = adjDecision{}
	p.editor.SetValue(editorText(l))
	p.layout()
	return p.editor.Focus()
}

func (p *AdjudicatePage) handleEditKey(msg tea.KeyMsg) tea.Cmd {
	k := &p.c.Keys.Adjudicate
	switch {
	case key.Matches(msg, k.Cancel):
		p.closeForm()
		return nil
	case key.Matches(msg, k.Save):
		l, problems := parseMergedLabel(p.editor.Value(), p.detail.item.Tools)
		if len(problems) > 0 {
			p.problems = problems
			p.layout()
			return nil
		}
		p.problems = nil
		p.editor.Blur()
		p.decision = adjDecision{label: &l}
		return p.openReason()
	}
	var cmd tea.Cmd
	p.editor, cmd = p.editor.Update(msg)
	return cmd
}
