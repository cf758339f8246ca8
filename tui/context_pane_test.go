package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

// TestContextPaneViewFollowsItsState: the pane's kept view is the one its
// viewport draws now, after scrolling, resizing, a new item or expanding.
func TestContextPaneViewFollowsItsState(t *testing.T) {
	styles := StylesFor(true)
	c := newContextPane(&styles)
	item := func(word string) trace.Item {
		var msgs []trace.Message
		for i := range 30 {
			msgs = append(msgs, trace.Message{Role: "user", Content: fmt.Sprintf("%s message %d", word, i)})
		}
		return trace.Item{ID: "it_" + word, Context: msgs}
	}
	check := func(step string) {
		t.Helper()
		got := c.View()
		if want := c.vp.View(); got != want {
			t.Fatalf("%s: kept view\n%s\nwant\n%s", step, got, want)
		}
		if again := c.View(); again != got {
			t.Fatalf("%s: a second View differs", step)
		}
	}
	c.SetSize(60, 8)
	c.SetItem(item("alpha"), false, nil)
	check("loaded")
	if !strings.Contains(c.View(), "alpha message 29") {
		t.Fatalf("the decision point is not in view:\n%s", c.View())
	}
	c.PageUp()
	check("page up")
	c.PageDown()
	check("page down")
	c.SetSize(50, 6)
	check("resized")
	c.SetItem(item("beta"), false, nil)
	check("next item")
	if strings.Contains(c.View(), "alpha") {
		t.Fatalf("the last item's view was kept:\n%s", c.View())
	}
	c.ToggleExpanded()
	check("expanded")
	c.Reveal()
	check("revealed")
}
