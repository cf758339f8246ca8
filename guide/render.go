package guide

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	emoji "github.com/yuin/goldmark-emoji"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Styles the renderer knows.
const (
	StyleDark  = "dark"
	StyleLight = "light"
	// StylePlain has no colour (NO_COLOR).
	StylePlain = "plain"
)

// Render formats body, markdown (CommonMark with GitHub's tables,
// strikethrough, task lists and bare links, and emoji shortcodes), for a terminal width
// columns wide: styled lines, none wider than width. Text wraps two columns
// short of the width, as the guide pane has always shown it. The error is
// always nil; it stays in the signature for callers that check it.
func Render(body string, width int, style string) (string, error) {
	if width < 20 {
		width = 20
	}
	src := []byte(body)
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, extension.Linkify, emoji.Emoji))
	doc := md.Parser().Parse(text.NewReader(src))
	r := &renderer{src: src, th: themeFor(style)}
	lines := r.blocks(doc, width-2, false)
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// Layout keeps to the width; this is the guarantee, whatever a
	// pathological nesting or a terminal's idea of a character's width does.
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
