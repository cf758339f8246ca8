package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/trace"
)

// noToolChoice is the picker entry meaning "answer without a tool".
const noToolChoice = "(no tool)"

// toolPicker is a type-to-filter list of the tools offered at an item, plus
// "(no tool)". Up/down move, enter chooses.
type toolPicker struct {
	styles  *Styles
	input   textinput.Model
	names   []string          // noToolChoice first, then the tools in offer order
	descs   map[string]string // first line of each description, for the list
	full    map[string]string // whole descriptions, for the highlighted tool
	matches []string
	cursor  int
	width   int
}

func newToolPicker(styles *Styles) toolPicker {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "type to filter tools"
	in.PlaceholderStyle = styles.Muted
	in.Cursor.SetMode(cursor.CursorStatic)
	return toolPicker{styles: styles, input: in}
}

// SetTools replaces the choices; withNoTool offers "(no tool)" first.
func (p *toolPicker) SetTools(tools []trace.Tool, withNoTool bool) {
	p.names = p.names[:0]
	p.descs = map[string]string{noToolChoice: "the assistant should answer in words"}
	p.full = map[string]string{noToolChoice: p.descs[noToolChoice]}
	if withNoTool {
		p.names = append(p.names, noToolChoice)
	}
	for _, t := range tools {
		p.names = append(p.names, t.Name)
		p.descs[t.Name] = firstLine(t.Description)
		p.full[t.Name] = oneLine(t.Description)
	}
	p.Reset("")
}

// Reset clears the filter and puts the cursor on current (if offered).
func (p *toolPicker) Reset(current string) {
	p.input.SetValue("")
	p.filter()
	p.cursor = 0
	for i, n := range p.matches {
		if n == current {
			p.cursor = i
		}
	}
}

func (p *toolPicker) Focus() tea.Cmd { return p.input.Focus() }
func (p *toolPicker) Blur()          { p.input.Blur() }
func (p *toolPicker) Filter() string { return p.input.Value() }

// Selected is the highlighted choice, "" when nothing matches.
func (p *toolPicker) Selected() string {
	if p.cursor < len(p.matches) {
		return p.matches[p.cursor]
	}
	return ""
}

// Update handles movement and filtering (not enter: the form chooses).
func (p *toolPicker) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.String() {
		case "up", "ctrl+p":
			p.cursor = max(p.cursor-1, 0)
			return nil
		case "down", "ctrl+n":
			p.cursor = min(p.cursor+1, max(len(p.matches)-1, 0))
			return nil
		}
	}
	before := p.input.Value()
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	if p.input.Value() != before {
		p.filter()
		p.cursor = 0
	}
	return cmd
}

// filter keeps the tools whose name or description contains every word of
// the filter; names that start with it come first, then names containing
// it, then description matches.
func (p *toolPicker) filter() {
	words := strings.Fields(strings.ToLower(p.input.Value()))
	type scored struct {
		name  string
		score int
		order int
	}
	var hits []scored
	for i, n := range p.names {
		name, desc := strings.ToLower(n), strings.ToLower(p.descs[n])
		score, ok := 0, true
		for _, w := range words {
			switch {
			case strings.HasPrefix(name, w):
			case strings.Contains(name, w):
				score++
			case strings.Contains(desc, w):
				score += 2
			default:
				ok = false
			}
		}
		if ok {
			hits = append(hits, scored{n, score, i})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score < hits[j].score })
	p.matches = p.matches[:0]
	for _, h := range hits {
		p.matches = append(p.matches, h.name)
	}
}

// InputView is the filter field on the tool line.
func (p *toolPicker) InputView(width int) string {
	p.input.Width = max(width-1, 1)
	return p.input.View()
}

// ListView renders up to height matches around the cursor.
func (p *toolPicker) ListView(width, height int) string {
	if height <= 0 {
		return ""
	}
	if len(p.matches) == 0 {
		return p.styles.Form.Problem.Render(fmt.Sprintf("no tool matches %q — backspace to widen", p.input.Value()))
	}
	rows := height
	overflow := len(p.matches) > height
	if overflow {
		rows = max(height-1, 1) // the last line says what is hidden
	}
	start := 0
	if p.cursor >= rows {
		start = p.cursor - rows + 1
	}
	end := min(start+rows, len(p.matches))
	lines := make([]string, 0, height)
	for i := start; i < end; i++ {
		n := p.matches[i]
		if i == p.cursor {
			// The highlighted tool's description is shown whole, wrapped
			// under its name: it is what the reviewer reads to choose.
			lines = append(lines, p.selectedLines(n, width)...)
			continue
		}
		line := "  " + n
		if d := p.descs[n]; d != "" {
			line += p.styles.Muted.Render(" — " + d)
		}
		lines = append(lines, ansi.Truncate(line, width, "…"))
	}
	if len(lines) > rows {
		// the wrapped description pushed the list down: keep the cursor's
		// lines, drop the others after it, then before it
		cur := p.cursor - start
		for len(lines) > rows && len(lines)-cur > p.selectedHeight(width) {
			lines = lines[:len(lines)-1]
		}
		for len(lines) > rows && cur > 0 {
			lines = lines[1:]
			cur--
		}
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	if overflow && len(lines) < height {
		var hidden []string
		if start > 0 {
			hidden = append(hidden, fmt.Sprintf("↑ %d more", start))
		}
		if rest := len(p.matches) - end; rest > 0 {
			hidden = append(hidden, fmt.Sprintf("↓ %d more", rest))
		}
		lines = append(lines, p.styles.Muted.Render("  "+strings.Join(hidden, " · ")+" — or type to filter"))
	}
	return strings.Join(lines, "\n")
}

// selectedLines are the highlighted tool's lines: its name and its whole
// description, wrapped.
func (p *toolPicker) selectedLines(name string, width int) []string {
	text := name
	if d := p.full[name]; d != "" {
		text += " — " + d
	}
	var out []string
	for k, l := range wrapWords(text, max(width-2, 10)) {
		mark := "  "
		if k == 0 {
			mark = "▸ "
		}
		out = append(out, p.styles.Form.Selected.Render(mark+l))
	}
	return out
}

// selectedHeight is how many lines the highlighted tool takes.
func (p *toolPicker) selectedHeight(width int) int {
	if p.cursor >= len(p.matches) {
		return 0
	}
	return len(p.selectedLines(p.matches[p.cursor], width))
}
