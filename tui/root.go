package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/internal/coldstart"
)

// Root is the router: it shows one page at a time, keeps the status and help
// lines under it, and owns quitting.
type Root struct {
	c        *Common
	pages    map[PageID]Page
	current  PageID
	history  []PageID
	status   StatusLine
	help     HelpLine
	quitting bool
	flush    flushState
	// widths are the last frame's lines and their widths (fitBody).
	widths lineWidths
}

// NewRoot routes between pages, starting at start (which must be in pages).
func NewRoot(c *Common, start PageID, pages map[PageID]Page) *Root {
	return &Root{c: c, pages: pages, current: start,
		status: NewStatusLine(&c.Styles), help: NewHelpLine(&c.Styles)}
}

// Current is the page shown.
func (r *Root) Current() PageID { return r.current }

// Page returns one of the router's pages (nil when absent).
func (r *Root) Page(id PageID) Page { return r.pages[id] }

// Status is the status line, for tests and callers that inspect it.
func (r *Root) Status() *StatusLine { return &r.status }

// Init starts every page.
func (r *Root) Init() tea.Cmd {
	var cmds []tea.Cmd
	for _, id := range []PageID{PageLabel, PageAdjudicate, PageDashboard, PageGuide} {
		if p, ok := r.pages[id]; ok {
			cmds = append(cmds, p.Init())
		}
	}
	return tea.Batch(cmds...)
}

// Update routes a message: window size, quitting, help, status and page
// switches are the router's; everything else goes to the current page.
func (r *Root) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		r.c.SetSize(msg.Width, msg.Height)
		r.resize()
		return r, nil
	case tea.KeyMsg:
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			return r, r.splitRunes(msg)
		}
		// Text inputs clean a key's runes in place, and bubbletea hands
		// every program the same slice for some keys (space): two screens
		// of one serve process typing at once would write it together.
		msg.Runes = slices.Clone(msg.Runes)
		if cmd, handled := r.handleKey(msg); handled {
			return r, cmd
		}
		return r, r.route(msg)
	case ErrMsg, StatusMsg, statusExpiredMsg:
		return r, r.status.Update(msg)
	case QuitMsg:
		return r, r.quit()
	case FlushReportMsg:
		return r, nil // kept by flushCmds for after the program ends
	case SwitchPageMsg:
		return r, r.switchTo(msg)
	case BackMsg:
		if n := len(r.history); n > 0 {
			r.current, r.history = r.history[n-1], r.history[:n-1]
			r.resize()
		}
		return r, nil
	}
	return r, r.route(msg)
}

// route sends input (keys, mouse) to the current page only and every other
// message (command results, ticks) to every page, the current one first:
// pages drop what is not theirs, so a result arriving after a page switch
// still reaches the page that asked for it.
func (r *Root) route(msg tea.Msg) tea.Cmd {
	switch msg.(type) {
	case tea.KeyMsg, tea.MouseMsg:
		return r.updatePage(r.current, msg)
	}
	cmds := []tea.Cmd{r.updatePage(r.current, msg)}
	for _, id := range []PageID{PageLabel, PageAdjudicate, PageDashboard, PageGuide} {
		if id != r.current {
			cmds = append(cmds, r.updatePage(id, msg))
		}
	}
	return tea.Batch(cmds...)
}

// splitRunes delivers fast typing one key at a time. Bubbletea reports
// several runes read at once as one message whose String() is the text, so
// a quickly typed "up" or "end" would match the arrow-up or end key.
func (r *Root) splitRunes(msg tea.KeyMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, ch := range msg.Runes {
		_, cmd := r.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{ch}, Alt: msg.Alt})
		cmds = append(cmds, cmd)
	}
	return tea.Sequence(cmds...)
}

func (r *Root) handleKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	g := r.c.Keys.Global
	page := r.pages[r.current]
	switch {
	case key.Matches(msg, g.ForceQuit):
		return r.quit(), true
	case key.Matches(msg, g.Help) && (!page.Typing() || msg.Type != tea.KeyRunes):
		// "?" is text while a text field has focus; f1 always works.
		r.help.ToggleFull()
		r.resize()
		return nil, true
	case page.Typing():
		// Text fields get every other key, including q.
	case key.Matches(msg, g.Quit):
		return r.quit(), true
	}
	if key.Matches(msg, g.Back) && r.status.Visible() {
		// esc dismisses the message and still reaches the page (it may
		// also cancel a prompt there).
		r.status.Dismiss()
	}
	return nil, false
}

func (r *Root) quit() tea.Cmd {
	if r.quitting {
		return nil
	}
	r.quitting = true
	// Every page saves, not only the one shown: a draft behind the guide
	// must survive quitting from the guide.
	return tea.Sequence(append(r.flushCmds(), tea.Quit)...)
}

func (r *Root) switchTo(msg SwitchPageMsg) tea.Cmd {
	if _, ok := r.pages[msg.To]; !ok {
		return ReportErr(fmt.Errorf("the %s screen is not available here", msg.To))
	}
	var cmd tea.Cmd
	if msg.Payload != nil {
		cmd = r.updatePage(msg.To, msg.Payload)
	}
	if msg.To != r.current {
		r.history = append(r.history, r.current)
		r.current = msg.To
	}
	r.resize()
	return cmd
}

func (r *Root) updatePage(id PageID, msg tea.Msg) tea.Cmd {
	p, ok := r.pages[id]
	if !ok {
		return nil
	}
	p, cmd := p.Update(msg)
	r.pages[id] = p
	return cmd
}

// chromeHeight is the status line plus the help.
func (r *Root) chromeHeight() int {
	return 1 + r.help.Height(r.pages[r.current], r.c.Keys.Global)
}

func (r *Root) resize() {
	w, h := r.c.Width, r.c.Height
	r.status.SetWidth(w)
	r.help.SetWidth(w)
	ph := max(h-r.chromeHeight(), 1)
	for _, p := range r.pages {
		p.SetSize(w, ph)
	}
}

// View stacks the page, the status line and the help, cut to the window.
func (r *Root) View() string {
	if r.quitting {
		return ""
	}
	if r.c.Width == 0 {
		return "loading…"
	}
	page := r.pages[r.current]
	ph := max(r.c.Height-r.chromeHeight(), 1)
	body := r.widths.fitBody(page.View(), r.c.Width, ph)
	help := r.help.View(page, r.c.Keys.Global)
	return strings.Join([]string{body, r.status.View(), help}, "\n")
}

// lineWidths remembers a frame's lines and their widths: most lines of a
// frame are those of the frame before, and measuring every line's width
// (grapheme by grapheme) took a sixth of a keystroke's time.
type lineWidths struct {
	lines  []string
	widths []int
}

// fitBody is view padded and cut to w columns and h lines, as a lipgloss
// style of that Width, Height, MaxWidth and MaxHeight renders it. When
// every line fits (the pages lay themselves out to their size) it only
// pads and cuts, without the style's word-wrapping pass over the whole
// screen, which took a fifth of a frame's time. A line that is the same
// as the last frame's at its place is not measured again.
func (m *lineWidths) fitBody(view string, w, h int) string {
	lines := strings.Split(view, "\n")
	widths := make([]int, len(lines))
	for i, l := range lines {
		if i < len(m.lines) && m.lines[i] == l {
			widths[i] = m.widths[i]
		} else {
			widths[i] = ansi.StringWidth(l)
		}
		if widths[i] > w || strings.ContainsAny(l, "\t\r") {
			m.lines, m.widths = nil, nil
			return lipgloss.NewStyle().Width(w).Height(h).MaxWidth(w).MaxHeight(h).Render(view)
		}
	}
	m.lines, m.widths = lines, widths
	if len(lines) > h {
		lines = lines[:h]
	}
	var b strings.Builder
	b.Grow(len(view) + w*h)
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
		b.WriteString(strings.Repeat(" ", w-widths[i]))
	}
	for range h - len(lines) {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", w))
	}
	return b.String()
}

// Run runs the router full-screen until the user quits or ctx ends. Every
// way out saves the pages' unsaved work first (runFlushing).
//
// The renderer draws what changed on a ticker: a keystroke shows at the
// next tick, half a period later on average. localFPS is bubbletea's
// highest rate (its default is 60), which halves that wait on a local
// terminal; when nothing changed a tick writes nothing.
func Run(ctx context.Context, root *Root, opts ...tea.ProgramOption) error {
	// The collector stays off until the screen is up (see coldstart).
	coldstart.ResumeAfter(firstFrameGrace)
	opts = append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithFPS(localFPS)}, opts...)
	return root.runFlushing(ctx, tea.NewProgram(root, opts...))
}

const localFPS = 120

// firstFrameGrace is how long after it starts a local screen runs before
// the garbage collector is back: long enough for the first frame and the
// first item to be drawn without a collection in between.
const firstFrameGrace = 200 * time.Millisecond

// RunProgram runs prog, a program over r that the caller built (goldtrace
// serve builds one on each SSH session's streams), until the user quits or
// ctx ends, and flushes the pages' work however it ends, exactly as Run.
func (r *Root) RunProgram(ctx context.Context, prog *tea.Program) error {
	return r.runFlushing(ctx, prog)
}
