package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
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
