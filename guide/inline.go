package guide

import (
	"bufio"
	"bytes"
	stdhtml "html"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	emast "github.com/yuin/goldmark-emoji/ast"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer/html"
)

// piece is a run of text in one style.
type piece struct {
	text string
	st   style
}

// word is what wrapping never splits unless it is wider than a line: text
// between spaces, possibly in several styles ("**bold**,").
type word struct {
	pieces []piece
	width  int
	sep    style // the space before it, when it stays on the same line
	brk    bool  // a hard line break comes before it
}

// words collects the inline text of a block as words.
type words struct {
	list    []word
	cur     word
	space   bool // a space comes before the next text
	spaceSt style
	brk     bool
}

// text adds s, splitting it at spaces.
func (w *words) text(s string, st style) {
	for s != "" {
		i := strings.IndexAny(s, " \t\n")
		if i < 0 {
			w.add(s, st)
			return
		}
		if i > 0 {
			w.add(s[:i], st)
		}
		w.gap(st)
		s = strings.TrimLeft(s[i:], " \t\n")
	}
}

// add adds s to the current word, spaces and all.
func (w *words) add(s string, st style) {
	if s == "" {
		return
	}
	if len(w.cur.pieces) == 0 {
		if w.space && len(w.list) > 0 && !w.brk {
			w.cur.sep = w.spaceSt
		}
		w.cur.brk = w.brk
		w.space, w.brk = false, false
	}
	w.cur.pieces = append(w.cur.pieces, piece{s, st})
	w.cur.width += ansi.StringWidth(s)
}

// gap ends the current word: what follows is a word of its own.
func (w *words) gap(st style) {
	w.end()
	if !w.space {
		w.space, w.spaceSt = true, st
	}
}

// hardBreak starts a new line.
func (w *words) hardBreak() {
	w.end()
	w.brk = true
	w.space = false
}

func (w *words) end() {
	if len(w.cur.pieces) > 0 {
		w.list = append(w.list, w.cur)
		w.cur = word{}
	}
}

func (w *words) done() []word {
	w.end()
	return w.list
}

// layout fills lines no wider than width with ws, breaking at spaces, and a
// word wider than a line wherever it has to.
func layout(ws []word, width int) []string {
	var (
		lines []string
		line  []piece
		lw    int
	)
	flush := func() {
		lines = append(lines, draw(line))
		line, lw = line[:0], 0
	}
	for i, w := range ws {
		if w.brk && i > 0 {
			flush()
		}
		if lw > 0 {
			if lw+1+w.width > width {
				flush()
			} else {
				line = append(line, piece{" ", w.sep})
				lw++
			}
		}
		if lw+w.width <= width {
			line = append(line, w.pieces...)
			lw += w.width
			continue
		}
		for _, p := range w.pieces {
			for _, c := range clusters(p.text) {
				cw := ansi.StringWidth(c)
				if lw > 0 && lw+cw > width {
					flush()
				}
				line = append(line, piece{c, p.st})
				lw += cw
			}
		}
	}
	if len(line) > 0 {
		flush()
	}
	return lines
}

// clusters splits s into its grapheme clusters (what a terminal draws in
// one or two cells).
func clusters(s string) []string {
	var out []string
	for s != "" {
		c, _ := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		if c == "" { // not reached for valid input; never loop
			c = s[:1]
		}
		out = append(out, c)
		s = s[len(c):]
	}
	return out
}

// hardWrap cuts s into pieces no wider than width, keeping its spaces (code).
func hardWrap(s string, width int) []string {
	if ansi.StringWidth(s) <= width {
		return []string{s}
	}
	var (
		out []string
		b   strings.Builder
		w   int
	)
	for _, c := range clusters(s) {
		cw := ansi.StringWidth(c)
		if w > 0 && w+cw > width {
			out = append(out, b.String())
			b.Reset()
			w = 0
		}
		b.WriteString(c)
		w += cw
	}
	return append(out, b.String())
}

// draw renders pieces as one line, each run of a style opened and closed
// on the line so that any line stands on its own in a scrolled view.
func draw(ps []piece) string {
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].st == ps[i].st {
			j++
		}
		b.WriteString(paint(ps[i].st, joinPieces(ps[i:j])))
		i = j
	}
	return b.String()
}

func joinPieces(ps []piece) string {
	if len(ps) == 1 {
		return ps[0].text
	}
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.text)
	}
	return b.String()
}

// paint wraps s in st's escape sequence and a reset.
func paint(st style, s string) string {
	if seq := st.sgr(); seq != "" && s != "" {
		return seq + s + "\x1b[0m"
	}
	return s
}

// inline adds the inline content of n to w, drawn in st.
func (r *renderer) inline(n ast.Node, st style, w *words) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(r.src)
			if c.IsRaw() {
				w.text(clean(string(v)), st)
			} else {
				w.text(unescape(v), st)
			}
			switch {
			case c.HardLineBreak():
				w.hardBreak()
			case c.SoftLineBreak():
				w.gap(style{})
			}
		case *ast.String:
			w.text(clean(string(c.Value)), st)
		case *ast.CodeSpan:
			r.codeSpan(c, st, w)
		case *ast.Emphasis:
			if c.Level >= 2 {
				r.inline(c, st.with(r.th.strong), w)
			} else {
				r.inline(c, st.with(r.th.emph), w)
			}
		case *east.Strikethrough:
			r.inline(c, st.with(r.th.del), w)
		case *ast.Link:
			r.inline(c, st.with(r.th.linkText), w)
			r.destination(string(c.Destination), plainText(c, r.src), st, w)
		case *ast.AutoLink:
			label := clean(string(c.Label(r.src)))
			w.text(label, st.with(r.th.link))
		case *ast.Image:
			w.text("Image:", st.with(r.th.imageText))
			w.gap(style{})
			r.inline(c, st.with(r.th.imageText), w)
			w.gap(style{})
			w.text("→", st.with(r.th.imageText))
			r.destination(string(c.Destination), "", st, w)
		case *ast.RawHTML:
			r.rawHTML(c, w)
		case *east.TaskCheckBox:
			box := "[ ]"
			if c.IsChecked {
				box = "[✓]"
			}
			w.text(box, st)
			w.gap(style{})
		case *emast.Emoji:
			if c.Value != nil {
				w.text(string(c.Value.Unicode), st)
			} else {
				w.text(":"+clean(string(c.ShortName))+":", st)
			}
		default:
			r.inline(c, st, w)
		}
	}
}

// codeSpan adds inline code: coloured and padded like a key cap, or in
// backquotes without colour.
func (r *renderer) codeSpan(c *ast.CodeSpan, st style, w *words) {
	var b strings.Builder
	for t := c.FirstChild(); t != nil; t = t.NextSibling() {
		switch t := t.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(r.src))
		case *ast.String:
			b.Write(t.Value)
		}
	}
	code := clean(b.String())
	st = st.with(r.th.code)
	edge := " "
	if r.th.plain {
		edge = "`"
	}
	w.add(edge, st)
	w.text(code, st)
	w.add(edge, st)
}

// destination adds a link's address after its text, unless it says no
// more than the text or points inside the document.
func (r *renderer) destination(dest, label string, st style, w *words) {
	dest = clean(dest)
	if dest == "" || strings.HasPrefix(dest, "#") || dest == label || dest == "mailto:"+label {
		return
	}
	w.gap(style{})
	w.text(dest, st.with(r.th.link))
}

// rawHTML keeps a line break; other tags and comments are markup, not text.
func (r *renderer) rawHTML(c *ast.RawHTML, w *words) {
	var b strings.Builder
	for i := 0; i < c.Segments.Len(); i++ {
		seg := c.Segments.At(i)
		b.Write(seg.Value(r.src))
	}
	tag := strings.ToLower(strings.TrimSpace(b.String()))
	if strings.HasPrefix(tag, "<br") {
		w.hardBreak()
	}
}

// plainText is the text of n's inline content, without markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.WriteString(unescape(c.Segment.Value(src)))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// unescape is the text a markdown text segment stands for: backslash
// escapes and character references resolved as goldmark's HTML renderer
// resolves them, and made safe for a terminal.
func unescape(v []byte) string {
	if bytes.IndexAny(v, "\\&\x00") < 0 {
		return clean(string(v))
	}
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	html.DefaultWriter.Write(bw, v)
	_ = bw.Flush()
	return clean(stdhtml.UnescapeString(buf.String()))
}

// clean makes s safe and measurable on a terminal: invalid UTF-8 becomes
// U+FFFD and control characters (escape sequences a guide's author could
// use to drive a reviewer's terminal) are dropped; tabs and newlines stay
// for the layout to place.
func clean(s string) string {
	ok := utf8.ValidString(s)
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f || c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f {
			ok = false
		}
	}
	if ok {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n':
			return r
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
