package guide

import "strings"

// attr is a set of text attributes a terminal shows without colour.
type attr uint8

const (
	attrBold attr = 1 << iota
	attrItalic
	attrUnderline
	attrStrike
)

// style is how a run of text is drawn: attributes and colours as SGR
// parameters ("38;5;39"), empty for the terminal's own.
type style struct {
	attrs  attr
	fg, bg string
}

func fg(n string) string { return "38;5;" + n }
func bg(n string) string { return "48;5;" + n }

// with is s with o drawn over it: o's attributes added, its colours in
// place of s's where it has them.
func (s style) with(o style) style {
	s.attrs |= o.attrs
	if o.fg != "" {
		s.fg = o.fg
	}
	if o.bg != "" {
		s.bg = o.bg
	}
	return s
}

// sgr is the escape sequence that starts s, or "" for unstyled text.
func (s style) sgr() string {
	if s == (style{}) {
		return ""
	}
	var p []string
	for _, a := range []struct {
		bit  attr
		code string
	}{{attrBold, "1"}, {attrItalic, "3"}, {attrUnderline, "4"}, {attrStrike, "9"}} {
		if s.attrs&a.bit != 0 {
			p = append(p, a.code)
		}
	}
	if s.fg != "" {
		p = append(p, s.fg)
	}
	if s.bg != "" {
		p = append(p, s.bg)
	}
	return "\x1b[" + strings.Join(p, ";") + "m"
}

// theme is the look of each markdown element in one style. The colours are
// the 256-colour palette glamour's dark and light styles used, so the guide
// looks as it did.
type theme struct {
	h1, heading, h6   style
	code, codeBlock   style
	linkText, link    style
	imageText, image  style
	rule, border      style
	strong, emph, del style
	// plain marks what colour would: inline code in backquotes, the top
	// heading with a "#".
	plain bool
}

// palette is a colour style's 256-colour numbers.
type palette struct {
	heading, h6, codeBg, codeBlock, linkText, link, image, rule string
}

var (
	darkPalette  = palette{heading: "39", h6: "35", codeBg: "236", codeBlock: "244", linkText: "35", link: "30", image: "212", rule: "240"}
	lightPalette = palette{heading: "27", h6: "27", codeBg: "254", codeBlock: "242", linkText: "29", link: "36", image: "205", rule: "249"}
)

func themeFor(name string) theme {
	t := theme{
		strong: style{attrs: attrBold},
		emph:   style{attrs: attrItalic},
		del:    style{attrs: attrStrike},
	}
	if name == StylePlain {
		t.plain = true
		t.h1 = style{attrs: attrBold}
		t.heading = style{attrs: attrBold}
		t.linkText = style{attrs: attrBold}
		t.link = style{attrs: attrUnderline}
		t.image = style{attrs: attrUnderline}
		return t
	}
	p := darkPalette
	if name == StyleLight {
		p = lightPalette
	}
	t.h1 = style{attrs: attrBold, fg: fg("228"), bg: bg("63")}
	t.heading = style{attrs: attrBold, fg: fg(p.heading)}
	t.h6 = style{fg: fg(p.h6)}
	t.code = style{fg: fg("203"), bg: bg(p.codeBg)}
	t.codeBlock = style{fg: fg(p.codeBlock)}
	t.linkText = style{attrs: attrBold, fg: fg(p.linkText)}
	t.link = style{attrs: attrUnderline, fg: fg(p.link)}
	t.imageText = style{fg: fg("243")}
	t.image = style{attrs: attrUnderline, fg: fg(p.image)}
	t.rule = style{fg: fg(p.rule)}
	t.border = t.rule
	return t
}
