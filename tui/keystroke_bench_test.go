package tui

import (
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// BenchmarkLabelKeystroke is the label screen's work for one keystroke as
// goldtrace serve does it for an SSH client at 80×24 in colour (256
// colours, as an xterm-256color client gets): Update and View, typing a
// short rationale and taking it back. Its cpu-ns/op, ns/op and allocs/op are per key.
//
//	go test ./tui -run '^$' -bench LabelKeystroke -benchmem
func BenchmarkLabelKeystroke(b *testing.B) {
	f := newLabelFixture(b, 3, "alice")
	r := lipgloss.NewRenderer(io.Discard, termenv.WithProfile(termenv.ANSI256))
	r.SetHasDarkBackground(true)
	c := &Common{Styles: StylesWith(r, false), Keys: DefaultKeyMap(), API: as(b, f.st, "alice"), Now: (&clock{now: t0}).Now}
	root := NewLabelRoot(c, LabelOptions{Reviewer: "alice"}, true)
	page := root.Page(PageLabel).(*LabelPage)
	page.after, root.status.after = noTimer, noTimer
	root.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	drain(root, root.Init())
	k := &keys{r: root}
	k.typ("no tool")
	k.press(tea.KeyEnter)
	if page.form.focus != fieldRationale {
		b.Fatal("not in the rationale")
	}
	var seq []tea.KeyMsg
	for _, ch := range "ok lbl" {
		seq = append(seq, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{ch}})
	}
	for range 6 {
		seq = append(seq, tea.KeyMsg{Type: tea.KeyBackspace})
	}
	i := 0
	cpu := cpuTime()
	for b.Loop() {
		_, cmd := root.Update(seq[i%len(seq)])
		_ = cmd // the autosave it schedules is a timer, off here
		_ = root.View()
		i++
	}
	// The machine may be shared: the CPU time per key is the figure to
	// compare.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
