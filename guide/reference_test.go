package guide

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// glamourPlain renders body as the guide pane did before goldtrace had its
// own renderer: glamour's dark layout without colour.
func glamourPlain(t *testing.T, body string, width int) string {
	t.Helper()
	cfg := styles.DarkStyleConfig
	zero := uint(0)
	cfg.Document.Margin = &zero
	r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithColorProfile(termenv.Ascii), glamour.WithWordWrap(width-2), glamour.WithEmoji())
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render(body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// textOf is the visible text of a rendering as one string: no styling, no
// layout (spaces, rules, bullets, borders, quote bars) and no marks the
// two renderers draw differently (an ordered list's "1)" is "1." in
// glamour, so dots and closing parentheses are left out too).
func textOf(s string) string {
	var b strings.Builder
	s = ansi.Strip(s)
	s = marks.ReplaceAllString(s, "")
	for _, r := range s {
		if unicode.IsSpace(r) || strings.ContainsRune("•◦▪│─┼`#.)", r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// marks are what the renderers draw their own ways: glamour's rule
// ("--------"), the references glamour puts after a link in a table ("[1]"
// and a list of them under the table), the address glamour adds to an
// e-mail address.
var marks = regexp.MustCompile(`(?m)^-+ *$|^\[\d+\]: .*$|\[\d+\]|mailto:\S+`)

// linkDest matches an inline link's address.
var linkDest = regexp.MustCompile(`\]\([^)\s]*\)`)

// TestSameTextAsGlamour: the guide pane shows the same text as glamour, the
// renderer it had before, for every guide the tests can reach (glamour is
// too slow at this width for all the documentation in a quick test). Link
// addresses are left out (glamour rewrote relative ones, and repeated one
// that is its own text; TestRenderElements covers them).
func TestSameTextAsGlamour(t *testing.T) {
	for name, body := range guideCorpus(t, false) {
		body = linkDest.ReplaceAllString(body, "](#)")
		// Wide enough that no table cell wraps: wrapped cells interleave
		// the text of a row's columns, which each renderer does its way.
		want := textOf(glamourPlain(t, body, 1000))
		out, _ := Render(body, 1000, StylePlain)
		got := textOf(out)
		if got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: text differs at %d:\n ours:    %q\n glamour: %q", name, i, clip(got, i), clip(want, i))
		}
	}
}

func clip(s string, i int) string {
	lo, hi := max(i-60, 0), min(i+60, len(s))
	return s[lo:hi]
}

// BenchmarkRenderGlamour is BenchmarkRender with the renderer the guide
// pane had before.
func BenchmarkRenderGlamour(b *testing.B) {
	b.ReportAllocs()
	cfg := styles.DarkStyleConfig
	for b.Loop() {
		r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithColorProfile(termenv.TrueColor), glamour.WithWordWrap(78), glamour.WithEmoji())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Render(Default()); err != nil {
			b.Fatal(err)
		}
	}
}
