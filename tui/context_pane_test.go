package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

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

// An OpenAI chat log links a tool result to its call only by id; the
// result's header still names the tool.
func TestToolResultHeaderNamesTheToolOfOpenAILogs(t *testing.T) {
	rec := `{"id":"log_1","request":{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_a","content":"{\"temp\":18}"}],` +
		`"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]},` +
		`"response":{"id":"chatcmpl-1","created":1738652337,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"18 degrees."}}]}}`
	r, err := trace.NewReader(strings.NewReader(rec+"\n"), "openai")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	s := StylesFor(true)
	got := ansi.Strip(conversationView{}.Render(&s, tr.Messages, 80))
	if !strings.Contains(got, "[get_weather result]") || strings.Contains(got, "[tool result]") {
		t.Errorf("header does not name the tool:\n%s", got)
	}
}
