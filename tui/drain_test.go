package tui

import (
	"reflect"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// sequenceCmds unpacks bubbletea's unexported sequence message (a slice of
// commands) so tests can run sequences in order.
func sequenceCmds(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Slice || v.Type().Elem() != reflect.TypeOf(tea.Cmd(nil)) {
		return nil, false
	}
	out := make([]tea.Cmd, v.Len())
	for i := range out {
		out[i] = v.Index(i).Interface().(tea.Cmd)
	}
	return out, true
}

// noTimer stands in for tea.Tick in tests: timers never fire (no sleeping),
// tests send the timed messages themselves.
func noTimer(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }

// drain runs cmd and every command it produces (sequences and batches
// flattened), feeding messages back into r, and reports whether it quit.
func drain(r *Root, cmd tea.Cmd) (quit bool) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.QuitMsg:
			quit = true
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case nil:
		default:
			if seq, ok := sequenceCmds(msg); ok {
				queue = append(queue, seq...)
				continue
			}
			_, next := r.Update(msg)
			queue = append(queue, next)
		}
	}
	return quit
}
