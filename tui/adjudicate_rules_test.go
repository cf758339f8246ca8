package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/review"
)

// The rules form lists nested values by JSON Pointer, so a lead can make
// "any flights[0].date of these two" or a nested field optional, and the
// resulting rules apply to the gold.
func TestRulesFormNestedFields(t *testing.T) {
	styles := NewStyles()
	keys := defaultAdjudicateKeys()
	chosen := []review.LabelCall{{Tool: "book", Args: json.RawMessage(`{"user":"u1","flights":[{"no":"HAT1","date":"2024-05-01"}],"body":{"mode":"cool"}}`)}}
	other := []review.Label{{Decision: review.DecisionCall, Calls: []review.LabelCall{{Tool: "book", Args: json.RawMessage(`{"user":"u1","flights":[{"no":"HAT1","date":"2024-05-02"}],"body":{}}`)}}}}
	f := newRulesForm(&styles, &keys, chosen, other, nil)
	var names []string
	for _, r := range f.rows {
		names = append(names, r.name())
	}
	want := "book.body, book.body.mode, book.flights, book.flights[0], book.flights[0].date, book.flights[0].no, book.user"
	if got := strings.Join(names, ", "); got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
	press := func(k string) { f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}) }
	move := func(n int) {
		for range n {
			f.Update(tea.KeyMsg{Type: tea.KeyTab})
		}
	}
	move(1) // body.mode: exact → fuzzy → any → optional
	press(" ")
	press(" ")
	press(" ")
	move(3) // flights[0].date: any_of the other reviewer's date is on offer
	for f.rows[f.cursor].rule != ruleAnyOf {
		press(" ")
	}
	f.SetSize(80, 10)
	view := f.View()
	for _, frag := range []string{"book.flights[0].date", `[any_of: "2024-05-02"]`, "[optional]"} {
		if !strings.Contains(view, frag) {
			t.Errorf("view lacks %s:\n%s", frag, view)
		}
	}
	if got := rulesSummary(f.rows); got != `body.mode=optional, flights[0].date=any_of: "2024-05-02"` {
		t.Errorf("summary %q", got)
	}
	specs := ruleSpecs(f.rows)
	if len(specs) != 2 || specs[0].Arg != "/body/mode" || specs[1].Arg != "/flights/0/date" {
		t.Fatalf("specs %+v", specs)
	}
	g := review.Gold{Calls: review.ExpectedCalls(chosen)}
	if err := review.ApplyArgRules(&g, specs); err != nil {
		t.Fatal(err)
	}
	if r := g.Calls[0].ArgRules["/flights/0/date"]; len(r.AnyOf) != 1 || string(r.AnyOf[0]) != `"2024-05-02"` || !g.Calls[0].ArgRules["/body/mode"].Optional {
		t.Errorf("gold rules %+v", g.Calls[0].ArgRules)
	}
}
