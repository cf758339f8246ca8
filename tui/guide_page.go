package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/guide"
)

// OpenGuideMsg opens the guide, at the section on Tool when it has one.
type OpenGuideMsg struct{ Tool string }

// guideLoadedMsg answers a guide load.
type guideLoadedMsg struct {
	Version app.GuideVersion
	Err     error
}

// GuidePage shows the labeling guide in force, rendered to the width.
type GuidePage struct {
	c        *Common
	style    string
	version  app.GuideVersion
	rendered string
	renderID string
	renderW  int
	tool     string
	note     string
	vp       viewport.Model
	width    int
	height   int
}

// NewGuidePage builds the guide screen; dark picks the colour style for a
// dark terminal (ignored under NO_COLOR).
func NewGuidePage(c *Common, dark bool) *GuidePage {
	style := guide.StyleLight
	switch {
	case c.Styles.NoColor:
		style = guide.StylePlain
	case dark:
		style = guide.StyleDark
	}
	vp := viewport.New(0, 0)
	vp.MouseWheelEnabled = true
	return &GuidePage{c: c, style: style, vp: vp}
}

func loadGuideCmd(st GuideAPI) tea.Cmd {
	return func() tea.Msg {
		v, err := st.EnsureGuide(context.Background(), guide.ID(guide.Default()), guide.Default(), "goldtrace")
		if err != nil {
			err = fmt.Errorf("load guide: %w", err)
		}
		return guideLoadedMsg{Version: v, Err: err}
	}
}

// Init does nothing: the guide loads when opened.
func (g *GuidePage) Init() tea.Cmd { return nil }

// Update handles opening, loading, rendering and scrolling.
func (g *GuidePage) Update(msg tea.Msg) (Page, tea.Cmd) {
	switch msg := msg.(type) {
	case OpenGuideMsg:
		g.tool, g.note = msg.Tool, ""
		return g, loadGuideCmd(g.c.API)
	case guideLoadedMsg:
		if msg.Err != nil {
			return g, ReportErr(msg.Err)
		}
		g.version = msg.Version
		return g, g.render()
	case tea.KeyMsg:
		return g, g.handleKey(msg)
	case tea.MouseMsg:
		var cmd tea.Cmd
		g.vp, cmd = g.vp.Update(msg)
		return g, cmd
	}
	return g, nil
}

// render formats the guide for the current width. It is computation, not
// I/O, and takes a few milliseconds, so it runs inline (also from SetSize,
// which cannot return a command).
func (g *GuidePage) render() tea.Cmd {
	if g.version.ID == "" || g.width <= 0 {
		return nil
	}
	if g.renderID != g.version.ID || g.renderW != g.width {
		out, err := guide.Render(g.version.Body, g.width, g.style)
		if err != nil {
			return ReportErr(fmt.Errorf("render guide: %w", err))
		}
		g.rendered, g.renderID, g.renderW = out, g.version.ID, g.width
	}
	g.jump()
	return nil
}

// jump scrolls to the chosen tool's section, or to the top.
func (g *GuidePage) jump() {
	g.vp.SetContent(g.rendered)
	g.vp.GotoTop()
	if g.tool == "" {
		return
	}
	if line := guide.SectionLine(g.rendered, g.tool); line >= 0 {
		// Room below the last section so its heading can sit at the top.
		g.vp.SetContent(g.rendered + strings.Repeat("\n", max(g.vp.Height-1, 0)))
		g.vp.SetYOffset(line)
		g.note = "section " + g.tool
		return
	}
	g.note = "no section on " + g.tool + " yet — a lead can add “## " + g.tool + "”"
}

func (g *GuidePage) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &g.c.Keys.Guide
	gl := &g.c.Keys.Global
	switch {
	case key.Matches(msg, k.Close):
		return Back()
	case key.Matches(msg, k.Up):
		g.vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		g.vp.ScrollDown(1)
	case key.Matches(msg, gl.ScrollUp):
		g.vp.HalfPageUp()
	case key.Matches(msg, gl.ScrollDown):
		g.vp.HalfPageDown()
	case key.Matches(msg, k.Top):
		g.vp.GotoTop()
	case key.Matches(msg, k.End):
		g.vp.GotoBottom()
	}
	return nil
}

// View is a title line and the rendered guide.
func (g *GuidePage) View() string {
	s := &g.c.Styles
	title := s.Title.Render("Labeling guide")
	if g.version.ID != "" {
		title += s.Muted.Render(fmt.Sprintf("  %s · by %s", g.version.ID, g.version.Author))
	}
	if g.note != "" {
		title += s.Accent.Render("  · " + g.note)
	}
	title = ansi.Truncate(title, g.width, "…")
	if g.rendered == "" {
		return title + "\n" + s.Muted.Render("loading the guide…")
	}
	return title + "\n" + g.vp.View()
}

// SetSize re-renders for a new width.
func (g *GuidePage) SetSize(w, h int) {
	changed := w != g.width
	g.width, g.height = w, h
	g.vp.Width, g.vp.Height = w, max(h-1, 1)
	if changed {
		offset := g.vp.YOffset
		g.render()
		if g.tool == "" {
			g.vp.SetYOffset(offset)
		}
	}
}

func (g *GuidePage) ShortHelp() []key.Binding {
	k := &g.c.Keys.Guide
	return []key.Binding{k.Close, k.Up, k.Down, g.c.Keys.Global.ScrollDown, k.Top, k.End, g.c.Keys.Global.Quit}
}

func (g *GuidePage) FullHelp() [][]key.Binding { return [][]key.Binding{g.ShortHelp()} }
func (g *GuidePage) Typing() bool              { return false }
func (g *GuidePage) Flush() tea.Cmd            { return nil }
