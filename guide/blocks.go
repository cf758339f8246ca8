package guide

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// renderer lays out one parsed guide.
type renderer struct {
	src   []byte
	th    theme
	depth int // of the list being laid out
}

// minWidth is the narrowest a nested block is laid out at; deeper nesting
// than the width allows is cut at the width rather than squeezed to nothing.
const minWidth = 12

// blocks lays out n's children one under another, a blank line between
// them unless tight (the items of a tight list).
func (r *renderer) blocks(n ast.Node, width int, tight bool) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		ls := r.block(c, width)
		if len(ls) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	return out
}

func (r *renderer) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		return r.heading(n, width)
	case *ast.Paragraph, *ast.TextBlock:
		var w words
		r.inline(n, style{}, &w)
		return layout(w.done(), width)
	case *ast.List:
		return r.list(n, width)
	case *ast.Blockquote:
		bar := paint(r.th.border, "│")
		inner := r.blocks(n, max(width-2, minWidth), false)
		for i, l := range inner {
			if l == "" {
				inner[i] = bar
			} else {
				inner[i] = bar + " " + l
			}
		}
		return inner
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return r.code(n, width)
	case *ast.ThematicBreak:
		return []string{paint(r.th.rule, strings.Repeat("─", width))}
	case *ast.HTMLBlock:
		return r.htmlBlock(n, width)
	case *east.Table:
		return r.table(n, width)
	}
	return r.blocks(n, width, false)
}

// heading marks its level with #s (the top level with a coloured band, or
// a "#" without colour).
func (r *renderer) heading(n *ast.Heading, width int) []string {
	st, prefix, suffix := r.th.heading, strings.Repeat("#", n.Level)+" ", ""
	switch {
	case n.Level == 1 && !r.th.plain:
		st, prefix, suffix = r.th.h1, " ", " "
	case n.Level == 1:
		st = r.th.h1
	case n.Level == 6:
		st = r.th.h6
	}
	var w words
	w.add(prefix, st)
	r.inline(n, st, &w)
	w.add(suffix, st)
	return layout(w.done(), width)
}

// list lays out items after their marker, wrapped lines hanging under the
// item's text: bullets by depth, numbers aligned on their dot, and a task
// item's checkbox in place of a bullet.
func (r *renderer) list(n *ast.List, width int) []string {
	r.depth++
	defer func() { r.depth-- }()
	count := n.ChildCount()
	numW := len(strconv.Itoa(n.Start + count - 1))
	var out []string
	i := 0
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		task := isTask(item)
		var marker string
		hang := 0
		switch {
		case task:
			hang = 4 // under the text after the checkbox, "[ ] "
		case n.IsOrdered():
			num := strconv.Itoa(n.Start + i)
			marker = strings.Repeat(" ", numW-len(num)) + num + string(n.Marker) + " "
			hang = len(marker)
		default:
			marker = bullet(r.depth) + " "
			hang = ansi.StringWidth(marker)
		}
		inner := r.blocks(item, max(width-hang, minWidth), n.IsTight)
		if len(inner) == 0 {
			inner = []string{""}
		}
		if !n.IsTight && i > 0 {
			out = append(out, "")
		}
		for j, l := range inner {
			switch {
			case j == 0:
				out = append(out, marker+l)
			case l == "":
				out = append(out, "")
			default:
				out = append(out, strings.Repeat(" ", hang)+l)
			}
		}
		i++
	}
	return out
}

func bullet(depth int) string {
	switch depth {
	case 1:
		return "•"
	case 2:
		return "◦"
	}
	return "▪"
}

// isTask tells whether a list item starts with a task checkbox.
func isTask(item ast.Node) bool {
	first := item.FirstChild()
	if first == nil {
		return false
	}
	_, ok := first.FirstChild().(*east.TaskCheckBox)
	return ok
}

// code lays out a code block as it is, indented by two, its long lines cut
// at the width rather than reflowed.
func (r *renderer) code(n ast.Node, width int) []string {
	inner := max(width-2, minWidth)
	var out []string
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		s := strings.TrimRight(clean(string(seg.Value(r.src))), "\r\n")
		s = expandTabs(strings.ReplaceAll(s, "\n", " "))
		if strings.TrimSpace(s) == "" {
			out = append(out, "")
			continue
		}
		for _, part := range hardWrap(s, inner) {
			out = append(out, "  "+paint(r.th.codeBlock, part))
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// expandTabs replaces tabs with spaces to the next stop of four, as a
// terminal's width counting does not see a tab.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, c := range s {
		if c == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(c)
		col++
	}
	return b.String()
}

// htmlBlock shows the text of an HTML block without its tags; a comment
// shows nothing.
func (r *renderer) htmlBlock(n *ast.HTMLBlock, width int) []string {
	if n.HTMLBlockType == ast.HTMLBlockType2 {
		return nil
	}
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
	if n.HasClosure() {
		b.Write(n.ClosureLine.Value(r.src))
	}
	var w words
	w.text(unescape([]byte(stripTags(b.String()))), style{})
	return layout(w.done(), width)
}

// stripTags removes <...> tags from s.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, c := range s {
		switch {
		case c == '<':
			in = true
		case c == '>' && in:
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(c)
		}
	}
	return b.String()
}
