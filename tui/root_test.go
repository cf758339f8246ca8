package tui

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// notePage is a minimal page that records what reaches it.
type notePage struct {
	w, h    int
	typing  bool
	got     []string
	flushed *bool
	keys    []key.Binding
}

func (p *notePage) Init() tea.Cmd { return nil }
func (p *notePage) Update(msg tea.Msg) (Page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		p.got = append(p.got, msg.String())
	case string:
		p.got = append(p.got, "payload:"+msg)
	}
	return p, nil
}
func (p *notePage) View() string              { return "page body" }
func (p *notePage) SetSize(w, h int)          { p.w, p.h = w, h }
func (p *notePage) ShortHelp() []key.Binding  { return p.keys }
func (p *notePage) FullHelp() [][]key.Binding { return [][]key.Binding{p.keys} }
func (p *notePage) Typing() bool              { return p.typing }
func (p *notePage) Flush() tea.Cmd {
	return func() tea.Msg { *p.flushed = true; return nil }
}

func newTestRoot(typing bool) (*Root, *notePage, *notePage, *bool) {
	flushed := new(bool)
	c := &Common{Styles: StylesFor(true), Keys: DefaultKeyMap()}
	label := &notePage{typing: typing, flushed: flushed, keys: []key.Binding{c.Keys.Label.Submit}}
	guide := &notePage{flushed: flushed}
	r := NewRoot(c, PageLabel, map[PageID]Page{PageLabel: label, PageGuide: guide})
	r.status.after = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	r.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return r, label, guide, flushed
}

func runeKey(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func TestRootQuitKeys(t *testing.T) {
	tests := []struct {
		name     string
		typing   bool
		key      tea.KeyMsg
		wantQuit bool
		wantPage string
	}{
		{"ctrl+c quits while typing", true, tea.KeyMsg{Type: tea.KeyCtrlC}, true, ""},
		{"q quits outside text", false, runeKey("q"), true, ""},
		{"q is text while typing", true, runeKey("q"), false, "q"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, label, _, flushed := newTestRoot(tt.typing)
			_, cmd := r.Update(tt.key)
			quit := drain(r, cmd)
			if quit != tt.wantQuit || *flushed != tt.wantQuit {
				t.Errorf("quit %v flushed %v, want %v", quit, *flushed, tt.wantQuit)
			}
			if got := strings.Join(label.got, ","); got != tt.wantPage {
				t.Errorf("page got keys %q, want %q", got, tt.wantPage)
			}
		})
	}
}

func TestRootSizesPageBelowChrome(t *testing.T) {
	r, label, _, _ := newTestRoot(false)
	if label.w != 80 || label.h != 22 {
		t.Fatalf("page size %dx%d, want 80x22 (status + help lines)", label.w, label.h)
	}
	r.Update(runeKey("?"))
	if label.h >= 22 {
		t.Errorf("full help should take space from the page, page height %d", label.h)
	}
	if lines := strings.Count(r.View(), "\n") + 1; lines != 24 {
		t.Errorf("view is %d lines, want 24", lines)
	}
}

func TestRootStatusAndSwitching(t *testing.T) {
	r, label, guide, _ := newTestRoot(false)
	r.Update(ErrMsg{Err: errors.New("item it_1 is already adjudicated")})
	if v := ansi.Strip(r.View()); !strings.Contains(v, "item it_1 is already adjudicated") {
		t.Fatalf("error not shown:\n%s", v)
	}
	r.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if r.Status().Visible() || strings.Join(label.got, ",") != "esc" {
		t.Errorf("esc should dismiss the status and reach the page: %v %v", r.Status().Text(), label.got)
	}
	_, cmd := r.Update(SwitchPageMsg{To: PageGuide, Payload: "get_order_status"})
	drain(r, cmd)
	if r.Current() != PageGuide || strings.Join(guide.got, ",") != "payload:get_order_status" {
		t.Errorf("switch: page %v, guide got %v", r.Current(), guide.got)
	}
	r.Update(BackMsg{})
	if r.Current() != PageLabel {
		t.Errorf("back: page %v", r.Current())
	}
	_, cmd = r.Update(SwitchPageMsg{To: PageDashboard})
	drain(r, cmd)
	if !r.Status().IsError() || r.Current() != PageLabel {
		t.Errorf("switching to a missing page should report, not switch: %q %v", r.Status().Text(), r.Current())
	}
}

func TestStylesNoColorHasNoColourCodes(t *testing.T) {
	s := StylesFor(true)
	for _, out := range []string{s.Error.Render("x"), s.Role.User.Render("x"), s.Pane.Focused.Render("x")} {
		if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
			t.Errorf("NO_COLOR style emits a colour: %q", out)
		}
	}
	t.Setenv("NO_COLOR", "1")
	if !NewStyles().NoColor {
		t.Error("NewStyles ignores NO_COLOR")
	}
}

func TestRootSplitsFastTyping(t *testing.T) {
	r, label, _, _ := newTestRoot(true)
	r.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("up")})
	if got := strings.Join(label.got, ","); got != "u,p" {
		t.Errorf("page got %q, want the runes one by one", got)
	}
}

// TestFitBodyMatchesStyle: the frame's body, padded and cut by hand, is
// byte for byte what the lipgloss style of that size renders, for views
// that fit, that are too tall, too short, coloured, wide-charactered, and
// too wide (which fall back to the style's wrapping).
func TestFitBodyMatchesStyle(t *testing.T) {
	s := NewStyles()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	colour := StylesWith(r, false)
	if !strings.Contains(colour.Accent.Render("x"), "\x1b[") {
		t.Fatal("the 256-colour styles draw no colour")
	}
	views := []string{
		"",
		"one line",
		"a\nb\nc",
		"trailing newline\n",
		strings.Repeat("row\n", 30),
		s.Title.Render("title") + "  " + s.Muted.Render("muted") + "\n" + colour.Accent.Render("accent") + " x",
		colour.Pane.Focused.Width(30).Render("a pane\nof two lines") + "\n" + colour.Warn.Render("日本"),
		"日本語のテキスト\n漢字",
		strings.Repeat("x", 80),
		strings.Repeat("long words that will not fit ", 5) + "\nshort",
		"tab\there",
	}
	// One lineWidths for every frame, as a screen has: each view is drawn
	// twice at each size (the second time every line's width is the one
	// remembered), and after a view of other lines.
	var m lineWidths
	for _, v := range views {
		for _, size := range [][2]int{{80, 24}, {40, 5}, {20, 1}} {
			w, h := size[0], size[1]
			want := lipgloss.NewStyle().Width(w).Height(h).MaxWidth(w).MaxHeight(h).Render(v)
			for range 2 {
				if got := m.fitBody(v, w, h); got != want {
					t.Errorf("fitBody(%q, %d, %d)\n got %q\nwant %q", v, w, h, got, want)
				}
			}
		}
	}
}

// TestPaletteDrawnOnce: the palette converted once for a renderer draws
// exactly what the adaptive colours drew when converted on every Render,
// for each colour profile and background.
func TestPaletteDrawnOnce(t *testing.T) {
	for _, profile := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.ANSI, termenv.Ascii} {
		for _, dark := range []bool{true, false} {
			r := lipgloss.NewRenderer(io.Discard)
			r.SetColorProfile(profile)
			r.SetHasDarkBackground(dark)
			p, q := DefaultPalette(), DefaultPalette().drawnBy(r)
			pairs := [][2]lipgloss.TerminalColor{{p.Text, q.Text}, {p.Muted, q.Muted}, {p.Subtle, q.Subtle}, {p.Accent, q.Accent},
				{p.OK, q.OK}, {p.Warning, q.Warning}, {p.Error, q.Error}, {p.System, q.System},
				{p.User, q.User}, {p.Assistant, q.Assistant}, {p.Tool, q.Tool}}
			for i, c := range pairs {
				want := r.NewStyle().Foreground(c[0]).Render("text")
				if got := r.NewStyle().Foreground(c[1]).Render("text"); got != want {
					t.Errorf("profile %d dark %v colour %d: %q, want %q", profile, dark, i, got, want)
				}
			}
		}
	}
}
