package tui

import (
	"reflect"

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
