package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/trace"
)

// conversationView is how a conversation is drawn: the one renderer the
// label screen, the adjudication screen and the dashboard's item view share.
type conversationView struct {
	// Expanded shows system prompts and tool results whole; otherwise they
	// are cut to collapsedLines with a note of what is hidden.
	Expanded bool
	// ExpandKey names the key that expands, for that note ("" = none).
	ExpandKey string
	// Decision is the line drawn at the decision point ("" = none).
	Decision string
	// Observed, when ShowObserved, are drawn after the decision point as
	// the production model's calls.
	Observed     []trace.Call
	ShowObserved bool
	// Tree, when set, draws the observed calls one aligned line per value
	// with its marks and changes (the label screen); else as JSON.
	Tree *observedTree
	// Notes are drawn after the decision point: who wrote them, and what.
	Notes []conversationNote
}

// conversationNote is a note drawn under the conversation ("sent back by
// carol: …").
type conversationNote struct{ Marker, Body string }

// collapsedLines is how much of a tool result or system prompt shows when
// the conversation is not expanded.
const collapsedLines = 4

// Render draws msgs in width columns. Text wraps at spaces only and JSON is
// pretty-printed, so an id, date, number or quoted value is never cut in
// two (a single token wider than the line is the only exception).
func (cv conversationView) Render(s *Styles, msgs []trace.Message, width int) string {
	width = max(width, 12)
	var out []string
	inner := width - 2
	// prose wraps its first line beside the marker, the rest indented.
	prose := func(marker, text string) []string {
		first := width - ansi.StringWidth(marker) - 1
		lines := wrapWords(text, first)
		if len(lines) <= 1 {
			return lines
		}
		rest := strings.Join(lines[1:], " ")
		if strings.Contains(text, "\n") {
			rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), strings.TrimSpace(lines[0])))
		}
		return append(lines[:1], wrapWords(rest, inner)...)
	}
	block := func(marker string, style func(...string) string, body []string) {
		// The marker leads the first line when the body fits beside it.
		if len(body) > 0 && ansi.StringWidth(marker)+1+ansi.StringWidth(body[0]) <= width && !strings.HasPrefix(body[0], " ") {
			out = append(out, style(marker)+" "+body[0])
			body = body[1:]
		} else {
			out = append(out, style(marker))
		}
		for _, l := range body {
			out = append(out, "  "+l)
		}
	}
	for i, m := range msgs {
		switch m.Role {
		case trace.RoleSystem:
			block("[system]", s.Role.System.Render, cv.collapse(s, prose("[system]", m.Content), 1, width-len("[system] ")))
		case trace.RoleTool:
			marker := "[tool result]"
			if name := trace.ResultName(msgs, i); name != "" {
				marker = "[" + name + " result]"
			}
			block(marker, s.Role.Tool.Render, cv.collapse(s, cv.bodyLines(marker, m.Content, width, prose), collapsedLines, inner))
		case trace.RoleAssistant:
			var body []string
			if strings.TrimSpace(m.Content) != "" {
				body = prose("[assistant]", m.Content)
			}
			for _, c := range m.ToolCalls {
				body = append(body, cv.callLines(s, c, inner)...)
			}
			block("[assistant]", s.Role.Assistant.Render, orEmpty(s, body))
		case trace.RoleUser:
			block("[user]", s.Role.User.Render, orEmpty(s, prose("[user]", m.Content)))
		default:
			block("["+m.Role+"]", s.Muted.Render, orEmpty(s, prose("["+m.Role+"]", m.Content)))
		}
	}
	if cv.Decision != "" {
		out = append(out, s.Accent.Render(ansi.Truncate(cv.Decision, width, "…")))
	}
	for _, n := range cv.Notes {
		block(n.Marker, s.Warn.Render, orEmpty(s, prose(n.Marker, n.Body)))
	}
	if cv.ShowObserved {
		if len(cv.Observed) == 0 {
			block("[model did]", s.Warn.Render, []string{"no tool call (answered in words)"})
		}
		for i, c := range cv.Observed {
			lines := cv.callLines(s, c, inner)
			if cv.Tree != nil {
				if tree := cv.Tree.callTree(s, i, c, inner); tree != nil {
					lines = tree
				}
			}
			block("[model did]", s.Warn.Render, lines)
		}
	}
	return strings.Join(out, "\n")
}

func orEmpty(s *Styles, body []string) []string {
	if len(body) == 0 {
		return []string{s.Muted.Render("(empty)")}
	}
	return body
}

// collapse cuts lines to n unless expanded; the last line kept says how
// many are hidden and which key shows them.
func (cv conversationView) collapse(s *Styles, lines []string, n, room int) []string {
	if cv.Expanded || len(lines) <= n {
		return lines
	}
	note := fmt.Sprintf(" … %s", plural(len(lines)-n, "more line"))
	if cv.ExpandKey != "" {
		note += " [" + cv.ExpandKey + "]"
	}
	kept := slices.Clone(lines[:n])
	last := kept[n-1]
	if ansi.StringWidth(last)+ansi.StringWidth(note) > room {
		last = ansi.Truncate(last, max(room-ansi.StringWidth(note), 4), "")
	}
	kept[n-1] = last + s.Muted.Render(note)
	return kept
}

// bodyLines is message content: JSON pretty-printed when expanded, else
// dense ({"a": 1, "b": [2]}) and wrapped at the spaces after its commas
// and colons; prose wrapped at spaces.
func (cv conversationView) bodyLines(marker, content string, width int, prose func(string, string) []string) []string {
	t := strings.TrimSpace(content)
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		if cv.Expanded {
			if lines, ok := prettyJSONLines(t, width-2, true); ok {
				return lines
			}
		} else if dense, ok := spacedJSON(t); ok {
			return prose(marker, dense)
		}
	}
	return prose(marker, content)
}

// spacedJSON is JSON on one line with a space after each comma and colon
// between values (not inside strings), so it wraps at its structure.
func spacedJSON(text string) (string, bool) {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		return "", false
	}
	var out strings.Builder
	inString, escaped := false, false
	for _, r := range b.String() {
		out.WriteRune(r)
		switch {
		case escaped:
			escaped = false
		case inString && r == '\\':
			escaped = true
		case r == '"':
			inString = !inString
		case !inString && (r == ',' || r == ':'):
			out.WriteByte(' ')
		}
	}
	return out.String(), true
}

// callLines is "→ name {args}" on one line when it fits, else the name and
// the arguments pretty-printed under it.
func (cv conversationView) callLines(s *Styles, c trace.Call, width int) []string {
	args := c.RawArguments()
	if c.Unparseable {
		lines := wrapWords("→ "+c.Name+" "+args, width)
		return append(lines, s.Muted.Render("  (arguments are not valid JSON)"))
	}
	flat := "→ " + c.Name + " " + compactJSON(c.Arguments)
	if ansi.StringWidth(flat) <= width {
		return []string{flat}
	}
	lines, ok := prettyJSONLines(string(c.Arguments), width-2, cv.Expanded)
	if !ok {
		return wrapWords(flat, width)
	}
	out := []string{"→ " + c.Name}
	for _, l := range lines {
		out = append(out, "  "+l)
	}
	return out
}

// prettyJSONLines indents JSON two spaces per level; a line still wider
// than width is cut at the end of its value with "…" (whole when full),
// so keys and the values before them stay readable.
func prettyJSONLines(text string, width int, full bool) ([]string, bool) {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(text), "", "  "); err != nil {
		return nil, false
	}
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if ansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		if !full {
			out = append(out, ansi.Truncate(l, width, "…"))
			continue
		}
		trimmed := strings.TrimLeft(l, " ")
		indent := l[:len(l)-len(trimmed)]
		for i, w := range wrapWords(trimmed, max(width-len(indent)-2, 8)) {
			if i > 0 {
				w = "  " + w
			}
			out = append(out, indent+w)
		}
	}
	return out, true
}

// wrapWords wraps text at spaces only, keeping the text's own line breaks;
// a word wider than width alone is broken where its tokens meet (after
// / . _ - @, see breakToken), so a short token is never cut in two.
func wrapWords(text string, width int) []string {
	width = max(width, 4)
	var out []string
	for _, para := range strings.Split(strings.TrimRight(text, "\n "), "\n") {
		para = strings.TrimRight(para, " \t\r")
		if para == "" {
			out = append(out, "")
			continue
		}
		line, lineW := "", 0
		for _, word := range strings.Fields(para) {
			w := ansi.StringWidth(word)
			switch {
			case lineW == 0:
			case lineW+1+w <= width:
				line += " " + word
				lineW += 1 + w
				continue
			default:
				out = append(out, line)
			}
			if w > width {
				pieces := breakToken(word, width)
				out = append(out, pieces[:len(pieces)-1]...)
				word = pieces[len(pieces)-1]
				w = ansi.StringWidth(word)
			}
			line, lineW = word, w
		}
		out = append(out, line)
	}
	// Collapse runs of blank lines to one.
	var kept []string
	for i, l := range out {
		if l == "" && (i == 0 || out[i-1] == "") {
			continue
		}
		kept = append(kept, l)
	}
	return kept
}

// tokenBreaks are the characters a word wider than its line is broken
// after: the joints of paths, emails, ids and dotted names; strongBreaks
// are tried first (an email breaks after its @, not inside its domain).
const (
	tokenBreaks  = "/._-@"
	strongBreaks = "/@"
)

// breakToken splits a word wider than width into pieces of at most width
// cells, each ending after a tokenBreaks character where one falls on the
// line ("aisha.sharma@" / "icloud.com"); only a run without any is cut
// where the line ends.
func breakToken(word string, width int) []string {
	var out []string
	for ansi.StringWidth(word) > width {
		head := ansi.Truncate(word, width, "")
		cut := strings.LastIndexAny(head, strongBreaks) + 1
		if cut <= 0 || ansi.StringWidth(head[:cut]) < width/3 {
			cut = strings.LastIndexAny(head, tokenBreaks) + 1
		}
		if cut <= 0 || ansi.StringWidth(head[:cut]) < width/3 {
			// no joint on the line, or one so early the line would be
			// mostly empty: cut at the line's end
			cut = len(head)
		}
		if cut == 0 {
			// a first character wider than the line: it goes alone
			_, size := utf8.DecodeRuneInString(word)
			cut = size
		}
		out = append(out, word[:cut])
		word = word[cut:]
	}
	if word == "" && len(out) > 0 {
		return out
	}
	return append(out, word)
}

// wrapStyled wraps styled text at spaces (ANSI styles kept), breaking a
// word only when it alone is wider than the line.
func wrapStyled(s string, width int) []string {
	return strings.Split(ansi.Wrap(s, max(width, 1), ""), "\n")
}
