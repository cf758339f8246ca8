package guide

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/internal/shareddata"
)

// plainAt renders md without colour at width and strips what is left of
// the escape sequences (bold, italics).
func plainAt(t *testing.T, md string, width int) string {
	t.Helper()
	out, err := Render(md, width, StylePlain)
	if err != nil {
		t.Fatal(err)
	}
	return ansi.Strip(out)
}

func TestRenderElements(t *testing.T) {
	cases := []struct {
		name, md string
		width    int
		want     string
	}{
		{"paragraph wraps at two short of the width", "one two three four five six seven eight nine ten eleven\n", 24,
			"one two three four\nfive six seven eight\nnine ten eleven"},
		{"headings", "# Top\n\n## `get_order_status`\n\n###### small\n", 40,
			"# Top\n\n## `get_order_status`\n\n###### small"},
		{"emphasis keeps the words", "**bold** *it* ~~gone~~ `code`\n", 40, "bold it gone `code`"},
		{"numbered list aligns on the dot and hangs", "1. one\n2. two\n3. three\n4. four\n5. five\n6. six\n7. seven\n8. eight\n9. nine\n10. ten has a long text that wraps\n", 24,
			" 1. one\n 2. two\n 3. three\n 4. four\n 5. five\n 6. six\n 7. seven\n 8. eight\n 9. nine\n10. ten has a long\n    text that wraps"},
		{"nested bullets", "- a\n  - b\n    - c\n- d\n", 40, "• a\n  ◦ b\n    ▪ c\n• d"},
		{"loose list keeps its blank lines", "- a\n\n- b\n\n  more of b\n", 40, "• a\n\n• b\n\n  more of b"},
		{"ordered list from its start", "3) three\n4) four\n", 40, "3) three\n4) four"},
		{"task list", "- [ ] open task that wraps onto a line\n- [x] done\n", 24,
			"[ ] open task that\n    wraps onto a line\n[✓] done"},
		{"block quote, nested", "> quote\n>\n> > inner with **bold** text\n", 24,
			"│ quote\n│\n│ │ inner with bold\n│ │ text"},
		{"fenced code keeps its spaces and cuts long lines", "```json\n{\"a\":  1}\n\tx\nabcdefghijklmnopqrstuvwxyz\n```\n", 24,
			"  {\"a\":  1}\n      x\n  abcdefghijklmnopqrst\n  uvwxyz"},
		{"indented code", "text\n\n    code line\n", 40, "text\n\n  code line"},
		{"rule spans the text width", "a\n\n---\n\nb\n", 24, "a\n\n──────────────────────\n\nb"},
		{"links show their address unless it says nothing more", "[policy](https://x.io/p) [same](https://x.io) <https://x.io> [top](#top) [m](mailto:m)\n", 60,
			"policy https://x.io/p same https://x.io https://x.io top m"},
		{"bare links are links", "see https://x.io/a, or mail help@x.io\n", 60, "see https://x.io/a, or mail help@x.io"},
		{"image", "![diagram](img.png)\n", 40, "Image: diagram → img.png"},
		{"entities and escapes", "Tom &amp; Jerry \\*not emphasis\\* &#x41; &copy;\n", 60, "Tom & Jerry *not emphasis* A ©"},
		{"emoji shortcodes", "ok :white_check_mark: :no_such_emoji:\n", 40, "ok ✅ :no_such_emoji:"},
		{"hard breaks", "line one  \nline two\\\nthree<br>four\n", 40, "line one\nline two\nthree\nfour"},
		{"html: comments hidden, tags dropped", "<!-- note to leads -->\n\n<div>shown <b>text</b></div>\n", 40, "shown text"},
		{"terminal controls are dropped", "evil \x1b]0;title\x07 \x1b[2J and \u009b bell\n", 40, "evil ]0;title [2J and bell"},
		{"a word wider than the line breaks", "x " + strings.Repeat("a", 30) + " y\n", 24,
			"x\n" + strings.Repeat("a", 22) + "\naaaaaaaa y"},
		{"table fits its columns", "| Tool | Use | Args |\n|:--|:-:|--:|\n| `get` | one order | `id` |\n| list | all | — |\n", 60,
			"Tool  │    Use    │ Args\n──────┼───────────┼─────\n`get` │ one order │ `id`\nlist  │    all    │    —"},
		{"table wraps its widest column", "| a | b |\n|---|---|\n| short | a long cell that has to wrap |\n", 24,
			"a     │ b\n──────┼───────────────\nshort │ a long cell\n      │ that has to\n      │ wrap"},
		{"too many columns become records", "| a | b | c | d | e | f |\n|---|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 | 6 |\n| 7 | 8 | 9 | 10 | 11 | 12 |\n", 22,
			"a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\n\na: 7\nb: 8\nc: 9\nd: 10\ne: 11\nf: 12"},
		{"narrow width is taken as 20", "aaaa bbbb cccc dddd eeee\n", 5, "aaaa bbbb cccc\ndddd eeee"},
		{"empty", "", 40, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := plainAt(t, c.md, c.width)
			lines := strings.Split(got, "\n")
			for i := range lines {
				lines[i] = strings.TrimRight(lines[i], " ")
			}
			if got = strings.Join(lines, "\n"); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestRenderStyles(t *testing.T) {
	md := "# Guide\n\n## Tool\n\n**bold** *it* `code` [l](https://x.io)\n\n```\ncode\n```\n\n---\n"
	dark, _ := Render(md, 60, StyleDark)
	light, _ := Render(md, 60, StyleLight)
	plain, _ := Render(md, 60, StylePlain)
	if !strings.Contains(dark, "\x1b[38;5;39m") && !strings.Contains(dark, ";38;5;39m") {
		t.Errorf("dark headings are not blue:\n%q", dark)
	}
	if dark == light {
		t.Error("dark and light render the same")
	}
	if strings.Contains(plain, "38;5") || strings.Contains(plain, "48;5") {
		t.Errorf("plain has colour:\n%q", plain)
	}
	for _, want := range []string{"\x1b[1mbold\x1b[0m", "\x1b[3mit\x1b[0m", "`code`"} {
		if !strings.Contains(plain, want) {
			t.Errorf("plain lacks %q:\n%q", want, plain)
		}
	}
	if ansi.Strip(dark) == ansi.Strip(plain) {
		t.Error("colour styles should pad inline code instead of quoting it")
	}
}

// guideCorpus is the guides the tests can reach: the shipped one, the
// test guides and the shared data's markdown; with docs, the repository's
// documentation too (more markdown of every kind, for the cheaper tests).
func guideCorpus(t *testing.T, docs bool) map[string]string {
	t.Helper()
	files := map[string]string{"default.md": Default()}
	globs := []string{"testdata/*.md"}
	if docs {
		globs = append(globs, "../docs/*.md", "../*.md", "../score/*.md")
	}
	var paths []string
	for _, glob := range globs {
		m, _ := filepath.Glob(glob)
		paths = append(paths, m...)
	}
	if dir, ok := shareddata.Dir(); ok {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				paths = append(paths, p)
			}
			return nil
		})
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = string(b)
	}
	return files
}

// TestRenderKeepsToWidth: no line of any guide is wider than the width, at
// every width from the narrowest to a wide terminal, in every style; and
// every line closes the styles it opens, so a line shown without the lines
// above it (a scrolled pane) is drawn right and leaks no style.
func TestRenderKeepsToWidth(t *testing.T) {
	for name, body := range guideCorpus(t, true) {
		for _, style := range []string{StyleDark, StyleLight, StylePlain} {
			for _, width := range []int{20, 37, 58, 80, 97, 120} {
				out, _ := Render(body, width, style)
				checkLines(t, name+" "+style, out, width)
			}
		}
	}
}

func checkLines(t *testing.T, what, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(l); w > width {
			t.Fatalf("%s at %d: line %d is %d wide: %q", what, width, i, w, l)
		}
		if strings.Contains(l, "\x1b[") && !strings.HasSuffix(l, "\x1b[0m") && strings.LastIndex(l, "\x1b[0m") < strings.LastIndex(l, "\x1b[") {
			t.Fatalf("%s at %d: line %d leaves a style open: %q", what, width, i, l)
		}
		if strings.ContainsAny(ansi.Strip(l), "\x1b\x07\t\r") {
			t.Fatalf("%s at %d: line %d has a control character: %q", what, width, i, l)
		}
	}
}

func FuzzRender(f *testing.F) {
	for _, body := range []string{Default(), "| a | b |\n|--|--|\n| 1 | 2 |\n", "- [x] a\n  1. b\n     > c\n", "```\n\tx\n", "界界界 :smile: `a`"} {
		f.Add(body, 40)
	}
	f.Fuzz(func(t *testing.T, body string, width int) {
		width = 20 + abs(width)%200
		for _, style := range []string{StyleDark, StylePlain} {
			out, err := Render(body, width, style)
			if err != nil {
				t.Fatal(err)
			}
			checkLines(t, style, out, width)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// BenchmarkRender renders the shipped guide for an 80-column pane, as the
// guide pane does when it opens.
func BenchmarkRender(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(Default(), 80, StyleDark); err != nil {
			b.Fatal(err)
		}
	}
}
