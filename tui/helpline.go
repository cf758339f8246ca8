package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// HelpLine shows the keys that work now: one line by default, the full
// list when toggled with "?".
type HelpLine struct {
	model help.Model
	// drawn are the helps drawn lately, by what each was drawn from (the
	// keys' help and whether they are enabled, the width): the screen
	// redraws on every key, and the help takes turns between a few states
	// (a label screen's tool field, its rationale, …) far less often.
	drawn map[string]string
}

// helpDrawings bounds the helps a HelpLine keeps drawn.
const helpDrawings = 16

// NewHelpLine is a one-line help in the given styles.
func NewHelpLine(styles *Styles) HelpLine {
	m := help.New()
	m.Styles = styles.Help
	return HelpLine{model: m}
}

// SetWidth sets the width the help is cut to.
func (h *HelpLine) SetWidth(w int) { h.model.Width = w }

// ToggleFull switches between the one-line and the full help.
func (h *HelpLine) ToggleFull() { h.model.ShowAll = !h.model.ShowAll }

// Full reports whether the full help is shown.
func (h *HelpLine) Full() bool { return h.model.ShowAll }

// View renders the page's keys followed by the global ones.
func (h *HelpLine) View(page Page, global GlobalKeys) string {
	var from strings.Builder
	from.WriteString(strconv.FormatBool(h.model.ShowAll) + " " + strconv.Itoa(h.model.Width))
	describe := func(bs []key.Binding) {
		for _, b := range bs {
			from.WriteString(strconv.FormatBool(b.Enabled()))
			from.WriteString("\x01" + b.Help().Key + "\x01" + b.Help().Desc + "\x00")
		}
		from.WriteByte('\n')
	}
	var groups [][]key.Binding
	if h.model.ShowAll {
		groups = page.FullHelp()
	} else {
		groups = [][]key.Binding{page.ShortHelp()}
	}
	globals := []key.Binding{global.Help, global.ScrollUp, global.ScrollDown, global.Quit, global.ForceQuit}
	for _, g := range groups {
		describe(g)
	}
	describe(globals)
	if v, ok := h.drawn[from.String()]; ok {
		return v
	}
	if h.drawn == nil || len(h.drawn) >= helpDrawings {
		h.drawn = make(map[string]string, helpDrawings)
	}
	v := h.draw(groups, globals)
	h.drawn[from.String()] = v
	return v
}

// draw renders the help of groups (the page's short help alone when the
// full help is off) and the global keys (help first; the short line shows
// only it).
func (h *HelpLine) draw(groups [][]key.Binding, globals []key.Binding) string {
	if h.model.ShowAll {
		groups := append(groups, globals)
		wide := h.model
		wide.Width = 0 // bubbles cuts with "…"; measure it whole
		if full := wide.FullHelpView(groups); h.model.Width <= 0 || lipgloss.Width(full) <= h.model.Width {
			return full
		}
		return h.gridView(groups)
	}
	// The page lists its keys most important first; the help key always
	// shows, so later page keys give way when the line is too narrow.
	keys := groups[0]
	wide := h.model
	wide.Width = 0 // bubbles cuts with "…"; measure the line whole
	for n := len(keys); n >= 0; n-- {
		line := wide.ShortHelpView(append(keys[:n:n], globals[0]))
		if h.model.Width <= 0 || ansi.StringWidth(line) <= h.model.Width || n == 0 {
			return ansi.Truncate(line, max(h.model.Width, 1), "…")
		}
	}
	return ""
}

// gridView lays every enabled key out in as many columns as the width
// holds, for screens whose grouped help is wider than the terminal.
func (h *HelpLine) gridView(groups [][]key.Binding) string {
	st := h.model.Styles
	var all []key.Binding
	keyW, descW := 0, 0
	for _, g := range groups {
		for _, b := range g {
			if !b.Enabled() || b.Help().Key == "" {
				continue
			}
			all = append(all, b)
			keyW = max(keyW, ansi.StringWidth(b.Help().Key))
			descW = max(descW, ansi.StringWidth(b.Help().Desc))
		}
	}
	cell := keyW + 1 + descW + 2
	cols := max(h.model.Width/cell, 1)
	rows := (len(all) + cols - 1) / cols
	lines := make([]string, rows)
	for i, b := range all {
		k, d := b.Help().Key, b.Help().Desc
		text := st.FullKey.Render(k) + strings.Repeat(" ", keyW-ansi.StringWidth(k)+1) + st.FullDesc.Render(d)
		if i/rows < cols-1 {
			text += strings.Repeat(" ", max(cell-keyW-1-ansi.StringWidth(d), 0))
		}
		lines[i%rows] += text
	}
	for i := range lines {
		lines[i] = ansi.Truncate(lines[i], h.model.Width, "…")
	}
	return strings.Join(lines, "\n")
}

// Height is the number of lines View takes for page.
func (h *HelpLine) Height(page Page, global GlobalKeys) int {
	v := h.View(page, global)
	if v == "" {
		return 1
	}
	return lipgloss.Height(strings.TrimRight(v, "\n"))
}
