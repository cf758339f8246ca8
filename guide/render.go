package guide

import (
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// Styles the renderer knows.
const (
	StyleDark  = "dark"
	StyleLight = "light"
	// StylePlain has no colour (NO_COLOR).
	StylePlain = "plain"
)

// Render formats body for a terminal width columns wide.
func Render(body string, width int, style string) (string, error) {
	if width < 20 {
		width = 20
	}
	cfg := styles.DarkStyleConfig
	profile := termenv.TrueColor
	switch style {
	case StyleLight:
		cfg = styles.LightStyleConfig
	case StylePlain:
		// The dark layout without any colour: bold and italics stay, so
		// emphasis survives NO_COLOR without literal ** markers.
		profile = termenv.Ascii
	}
	// The document margin is the pane's business, not the guide's.
	zero := uint(0)
	cfg.Document.Margin = &zero
	r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithColorProfile(profile), glamour.WithWordWrap(width-2), glamour.WithEmoji())
	if err != nil {
		return "", err
	}
	out, err := r.Render(body)
	if err != nil {
		return "", err
	}
	// Glamour's wrap can overshoot by the padding of inline code; never
	// exceed the width the caller has.
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "")
		}
	}
	return strings.Join(lines, "\n"), nil
}

// SectionLine is the line of rendered (the output of Render) where the
// heading naming tool starts, or -1 when there is none.
func SectionLine(rendered, tool string) int {
	for i, line := range strings.Split(rendered, "\n") {
		t := strings.TrimSpace(ansi.Strip(line))
		t = strings.TrimLeft(t, "# ")
		t = strings.Trim(t, "`")
		if t == tool {
			return i
		}
	}
	return -1
}
