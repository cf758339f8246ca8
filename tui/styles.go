package tui

import (
	"os"
	"strconv"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Palette is the one set of semantic colours every style is built from.
// Components never pick colours of their own.
type Palette struct {
	Text      lipgloss.TerminalColor
	Muted     lipgloss.TerminalColor
	Subtle    lipgloss.TerminalColor // borders, separators
	Accent    lipgloss.TerminalColor // focus, selection, titles
	OK        lipgloss.TerminalColor
	Warning   lipgloss.TerminalColor
	Error     lipgloss.TerminalColor
	System    lipgloss.TerminalColor
	User      lipgloss.TerminalColor
	Assistant lipgloss.TerminalColor
	Tool      lipgloss.TerminalColor
}

// DefaultPalette adapts to light and dark terminals.
func DefaultPalette() Palette {
	return Palette{
		Text:      lipgloss.AdaptiveColor{Light: "#1F1F1F", Dark: "#E4E4E4"},
		Muted:     lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"},
		Subtle:    lipgloss.AdaptiveColor{Light: "#C8C8C8", Dark: "#3F3F3F"},
		Accent:    lipgloss.AdaptiveColor{Light: "#5A3FD1", Dark: "#A68CFF"},
		OK:        lipgloss.AdaptiveColor{Light: "#1B7F3B", Dark: "#5BD68A"},
		Warning:   lipgloss.AdaptiveColor{Light: "#9A6200", Dark: "#F2B84B"},
		Error:     lipgloss.AdaptiveColor{Light: "#B3261E", Dark: "#FF6B6B"},
		System:    lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"},
		User:      lipgloss.AdaptiveColor{Light: "#0B5CAD", Dark: "#6CB6FF"},
		Assistant: lipgloss.AdaptiveColor{Light: "#1B7F3B", Dark: "#5BD68A"},
		Tool:      lipgloss.AdaptiveColor{Light: "#8A4B00", Dark: "#E0A060"},
	}
}

// NoColorPalette has no colours at all (NO_COLOR); emphasis comes from bold,
// underline and text markers only.
func NoColorPalette() Palette {
	n := lipgloss.NoColor{}
	return Palette{Text: n, Muted: n, Subtle: n, Accent: n, OK: n, Warning: n, Error: n,
		System: n, User: n, Assistant: n, Tool: n}
}

// drawnBy is the palette as r draws it: each adaptive colour picked for
// r's background and converted once to r's colour profile. Left as they
// are, every Render converts them again, and matching a hex colour to the
// 256-colour palette (an SSH client's usual xterm-256color) cost more than
// drawing the text.
func (p Palette) drawnBy(r *lipgloss.Renderer) Palette {
	dark, profile := r.HasDarkBackground(), r.ColorProfile()
	conv := func(c lipgloss.TerminalColor) lipgloss.TerminalColor {
		ac, ok := c.(lipgloss.AdaptiveColor)
		if !ok {
			return c
		}
		hex := ac.Light
		if dark {
			hex = ac.Dark
		}
		switch tc := profile.Color(hex).(type) {
		case termenv.ANSIColor:
			return lipgloss.Color(strconv.Itoa(int(tc)))
		case termenv.ANSI256Color:
			return lipgloss.Color(strconv.Itoa(int(tc)))
		case termenv.RGBColor:
			return lipgloss.Color(hex)
		default:
			return lipgloss.NoColor{}
		}
	}
	return Palette{Text: conv(p.Text), Muted: conv(p.Muted), Subtle: conv(p.Subtle), Accent: conv(p.Accent),
		OK: conv(p.OK), Warning: conv(p.Warning), Error: conv(p.Error), System: conv(p.System),
		User: conv(p.User), Assistant: conv(p.Assistant), Tool: conv(p.Tool)}
}

// Styles are the nested, per-component styles of every screen.
type Styles struct {
	NoColor bool
	Palette Palette

	// Title is a screen or pane title; Header the one-line metadata bar.
	Title  lipgloss.Style
	Header lipgloss.Style
	Muted  lipgloss.Style
	Accent lipgloss.Style
	OK     lipgloss.Style
	Warn   lipgloss.Style
	Error  lipgloss.Style

	Pane struct {
		Blurred lipgloss.Style // a bordered box without focus
		Focused lipgloss.Style // the same box with focus
		Title   lipgloss.Style
	}
	Role struct {
		System, User, Assistant, Tool lipgloss.Style
		Body                          lipgloss.Style
	}
	Form struct {
		Label        lipgloss.Style
		FocusedLabel lipgloss.Style
		Hint         lipgloss.Style
		Problem      lipgloss.Style
		Valid        lipgloss.Style
		Selected     lipgloss.Style
	}
	Status struct {
		Info  lipgloss.Style
		Error lipgloss.Style
	}
	Help help.Styles
}

// NewStyles builds the styles for this process, honouring NO_COLOR
// (https://no-color.org: set and not empty).
func NewStyles() Styles {
	return StylesFor(os.Getenv("NO_COLOR") != "")
}

// StylesFor builds the styles with or without colour, for this process's
// terminal.
func StylesFor(noColor bool) Styles {
	return StylesWith(lipgloss.DefaultRenderer(), noColor)
}

// StylesWith builds the styles for the terminal r renders to (an SSH
// client's, in goldtrace serve): its colour profile and background decide
// how the palette is drawn.
func StylesWith(r *lipgloss.Renderer, noColor bool) Styles {
	p := DefaultPalette()
	if noColor {
		p = NoColorPalette()
	}
	p = p.drawnBy(r)
	s := Styles{NoColor: noColor, Palette: p}
	fg := func(c lipgloss.TerminalColor) lipgloss.Style { return r.NewStyle().Foreground(c) }

	s.Title = fg(p.Accent).Bold(true)
	s.Header = fg(p.Muted)
	s.Muted = fg(p.Muted)
	s.Accent = fg(p.Accent)
	s.OK = fg(p.OK)
	s.Warn = fg(p.Warning).Bold(true)
	s.Error = fg(p.Error).Bold(true)

	s.Pane.Blurred = r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(p.Subtle).Padding(0, 1)
	s.Pane.Focused = s.Pane.Blurred.BorderForeground(p.Accent)
	if noColor {
		// Without colour the focused pane needs another shape to stand out.
		s.Pane.Focused = s.Pane.Focused.Border(lipgloss.ThickBorder())
	}
	s.Pane.Title = fg(p.Accent).Bold(true)

	s.Role.System = fg(p.System).Bold(true)
	s.Role.User = fg(p.User).Bold(true)
	s.Role.Assistant = fg(p.Assistant).Bold(true)
	s.Role.Tool = fg(p.Tool).Bold(true)
	s.Role.Body = fg(p.Text)

	s.Form.Label = fg(p.Muted)
	s.Form.FocusedLabel = fg(p.Accent).Bold(true)
	if noColor {
		s.Form.FocusedLabel = s.Form.FocusedLabel.Underline(true)
	}
	s.Form.Hint = fg(p.Muted)
	s.Form.Problem = fg(p.Error)
	s.Form.Valid = fg(p.OK)
	s.Form.Selected = fg(p.Accent).Bold(true)
	if noColor {
		s.Form.Selected = s.Form.Selected.Reverse(true)
	}

	s.Status.Info = fg(p.OK)
	s.Status.Error = fg(p.Error).Bold(true)

	key := fg(p.Accent)
	desc := fg(p.Muted)
	sep := fg(p.Subtle)
	s.Help = help.Styles{Ellipsis: sep, ShortKey: key, ShortDesc: desc, ShortSeparator: sep,
		FullKey: key, FullDesc: desc, FullSeparator: sep}
	return s
}
