// Command ttyfloor is the floor BenchmarkLabelScreen measures the label
// screen against: the smallest bubbletea program (the same renderer, an
// 80×24 frame of text), which shows a first frame at once and redraws one
// line per keystroke.
package main

import (
	"fmt"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

type model struct {
	keys  int
	typed string
}

func (m model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.Type {
		case tea.KeyCtrlC:
			return m, tea.Quit
		case tea.KeyBackspace:
			if m.typed != "" {
				m.typed = m.typed[:len(m.typed)-1]
			}
		default:
			m.typed += k.String()
		}
		m.keys++
	}
	return m, nil
}

func (m model) View() string {
	var b strings.Builder
	fmt.Fprintf(&b, "floor ready: %d keys\n> %s\n", m.keys, m.typed)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "line %2d of a screen of text, as wide as a terminal of eighty columns.....\n", i)
	}
	b.WriteString("ctrl+c quit")
	return b.String()
}

func main() {
	if _, err := tea.NewProgram(model{}, tea.WithAltScreen()).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
