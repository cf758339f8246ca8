package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/trace"
)

// airlineTools reads the real tau-bench airline tool schemas from
// ../shared/data (skipping when it is absent): OpenAI function format.
func airlineTools(tb testing.TB) map[string]trace.Tool {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	var path string
	for d := dir; path == "" && filepath.Dir(d) != d; d = filepath.Dir(d) {
		for _, up := range []string{"shared", filepath.Join("..", "shared")} {
			p := filepath.Join(d, up, "data", "tau-airline", "airline_tools.json")
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		tb.Skip("shared data tau-airline/airline_tools.json not found beside the module (../shared/data)")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var raw []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	out := map[string]trace.Tool{}
	for _, r := range raw {
		out[r.Function.Name] = trace.Tool{Name: r.Function.Name, Description: r.Function.Description, Parameters: r.Function.Parameters}
	}
	return out
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	g, err1 := trace.Canonical(json.RawMessage(got))
	w, err2 := trace.Canonical(json.RawMessage(want))
	if err1 != nil || err2 != nil {
		return got == want
	}
	return string(g) == string(w)
}

func manyProps(n int) string {
	var props []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"f%03d":{"type":"string"}`, i))
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
}

// The bad-input list of issue 16: each part the form cannot render becomes
// JSON text saying why, the rest stays a form, and the value round-trips.
func TestArgFormDegradesAndKeepsEveryValue(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		args    string
		usable  bool   // the call is a form
		field   string // the field that is JSON text ("" = none)
		why     string
		partial bool
	}{
		{"$ref", `{"type":"object","properties":{"a":{"type":"string"},"addr":{"$ref":"#/$defs/addr"}},"$defs":{"addr":{"type":"object"}}}`,
			`{"a":"x","addr":{"city":"Oslo"}}`, true, "addr", "the schema uses $ref", true},
		{"oneOf", `{"type":"object","properties":{"id":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
			`{"id":7}`, true, "id", "the schema uses oneOf", true},
		{"anyOf", `{"type":"object","properties":{"id":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`,
			`{"id":null}`, true, "id", "the schema uses anyOf", true},
		{"nullable type list", `{"type":"object","properties":{"note":{"type":["string","null"]}},"required":["note"]}`,
			`{"note":null}`, true, "note", "several types (string or null)", true},
		{"recursive object", `{"type":"object","properties":{"node":{"$ref":"#"}}}`,
			`{"node":{"node":{}}}`, true, "node", "$ref", true},
		{"200 properties", manyProps(200), `{"f000":"a","f199":"z"}`, false, "", "200 fields: too many for a form", false},
		{"minItems renders", `{"type":"object","properties":{"tags":{"type":"array","minItems":2,"items":{"type":"string"}}}}`,
			`{"tags":["a","b"]}`, true, "", "", false},
		{"no schema", ``, `{"anything":[1,2]}`, false, "", "the tool has no schema", false},
		{"value does not fit", `{"type":"object","properties":{"amount":{"type":"number"}}}`,
			`{"amount":"12"}`, true, "amount", "does not fit", true},
		{"enum value not a choice", `{"type":"object","properties":{"cabin":{"type":"string","enum":["economy","business"]}}}`,
			`{"cabin":"first"}`, true, "cabin", "not one of the choices", true},
		{"undeclared fields are kept", `{"type":"object","properties":{"a":{"type":"string"}}}`,
			`{"a":"x","b":{"deep":[1]},"c":2}`, true, "", "", false},
		{"args not an object", `{"type":"object","properties":{"a":{"type":"string"}}}`, `["x"]`, false, "", "not an object", false},
		{"args not JSON", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"a": "x"`, false, "", "not valid JSON", false},
	}
	s := StylesFor(true)
	keys := defaultArgKeys()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newArgForm(&s, &keys, parseArgSchema(json.RawMessage(tt.schema)), tt.args)
			f.SetSize(80, 12)
			if f.Usable() != tt.usable {
				t.Fatalf("usable %v, want %v (why %q)", f.Usable(), tt.usable, f.Why())
			}
			if !tt.usable && !strings.Contains(f.Why(), tt.why) {
				t.Errorf("why %q, want %q", f.Why(), tt.why)
			}
			if tt.usable && tt.field != "" {
				found := false
				for i, st := range f.stops {
					v := f.root.at(st.path)
					if f.root.name(st.path) == tt.field {
						found = true
						if v.kind() != argRaw || !strings.Contains(v.reason(), tt.why) {
							t.Errorf("%s: kind %v reason %q, want JSON because %q", tt.field, v.kind(), v.reason(), tt.why)
						}
						f.focus(i)
						if hint := ansi.Strip(strings.Join(f.hintLines(), " ")); !strings.Contains(hint, "JSON because") {
							t.Errorf("hint does not say why: %q", hint)
						}
					}
				}
				if !found {
					t.Errorf("no field %s in %d stops", tt.field, len(f.stops))
				}
			}
			got := f.JSON()
			if !tt.usable {
				got = f.root.text // the call is edited as JSON text, verbatim
			}
			if !sameJSON(t, got, tt.args) {
				t.Errorf("value changed:\n got %s\nwant %s", got, tt.args)
			}
			_ = f.View() // renders without panicking at any of these
		})
	}
}

// The 200-property tool and a tool without schema fall back to the JSON
// editor in the label form, saying why.
func TestLabelFormFallsBackToJSON(t *testing.T) {
	s := StylesFor(true)
	keys := DefaultKeyMap()
	f := newLabelForm(&s, &keys.Label)
	tools := []trace.Tool{{Name: "wide", Parameters: json.RawMessage(manyProps(200))}, {Name: "bare"}}
	for _, tool := range tools {
		f.Load(tools, draftBody{Calls: []draftCall{{Tool: tool.Name, Args: `{"f001":"v"}`}}})
		ce := f.calls[0]
		if ce.useForm || ce.args.Value() != `{"f001":"v"}` || !strings.HasPrefix(ce.hint, "JSON: ") {
			t.Errorf("%s: form %v args %q hint %q", tool.Name, ce.useForm, ce.args.Value(), ce.hint)
		}
	}
}

// Form and JSON text round-trip through ctrl+t, and JSON the form cannot
// show is kept as JSON with the reason.
func TestArgsToggleRoundTrips(t *testing.T) {
	tools := airlineTools(t)
	book := tools["book_reservation"]
	s := StylesFor(true)
	keys := DefaultKeyMap()
	f := newLabelForm(&s, &keys.Label)
	args := `{"user_id":"omar_rossi_1241","origin":"JFK","destination":"SEA","flight_type":"one_way","cabin":"economy",
		"flights":[{"flight_number":"HAT023","date":"2024-05-26","destination":"SEA"}],"passengers":[{"first_name":"Omar","last_name":"Rossi","dob":"1970-06-06"}],
		"payment_methods":[{"payment_id":"gift_card_6490722","amount":"154"}],"total_baggages":1,"nonfree_baggages":0,"insurance":"no","note":"x"}`
	f.Load([]trace.Tool{book}, draftBody{Calls: []draftCall{{Tool: book.Name, Args: args}}})
	ce := f.calls[0]
	if !ce.useForm || !sameJSON(t, ce.value(), args) {
		t.Fatalf("loaded: form %v value %s", ce.useForm, ce.value())
	}
	// An undeclared nested field (flights[0].destination) is not an error:
	// the schema does not forbid it. amount "154" is (text for a number).
	for _, p := range ce.problems {
		if strings.Contains(p.Message, "destination") {
			t.Errorf("undeclared nested field refused: %s", p.Message)
		}
	}
	if len(ce.problems) != 1 || !strings.Contains(ce.problems[0].Message, "payment_methods[0].amount must be a number") {
		t.Errorf("problems %v", ce.problems)
	}
	f.setFocus(0, fieldArgs)
	ctrlT := tea.KeyMsg{Type: tea.KeyCtrlT}
	f.Update(ctrlT)
	if ce.useForm || !sameJSON(t, ce.args.Value(), args) {
		t.Fatalf("to JSON: form %v text %s", ce.useForm, ce.args.Value())
	}
	f.Update(ctrlT)
	if !ce.useForm || !sameJSON(t, ce.value(), args) {
		t.Fatalf("back to the form: form %v value %s", ce.useForm, ce.value())
	}
	// JSON text that is not valid stays JSON text.
	f.Update(ctrlT)
	ce.args.SetValue(`{"user_id": "x"`)
	_, cmd := f.Update(ctrlT)
	if ce.useForm || ce.args.Value() != `{"user_id": "x"` {
		t.Fatalf("invalid JSON went into the form: %v %q", ce.useForm, ce.args.Value())
	}
	if msg := cmd(); !strings.Contains(fmt.Sprint(msg), "not valid JSON") {
		t.Errorf("no reason given: %v", msg)
	}
}

// typeKeys sends text and named keys to a form.
func typeKeys(f *argForm, steps ...any) {
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			for _, r := range s {
				f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
		case tea.KeyType:
			f.Update(tea.KeyMsg{Type: s})
		case tea.KeyMsg:
			f.Update(s)
		}
	}
}

// Lists of objects: tab reaches an empty list, enter adds an element,
// ctrl+x removes one, shift+↑ reorders; nested values land in place.
func TestArgFormListsOfObjects(t *testing.T) {
	book := airlineTools(t)["book_reservation"]
	s := StylesFor(true)
	keys := defaultArgKeys()
	f := newArgForm(&s, &keys, parseArgSchema(book.Parameters), "")
	f.SetSize(80, 10)
	f.FocusWork()
	tab := tea.KeyTab
	typeKeys(f, "sara_doe_496", tab, "SFO", tab, "JFK", tab, "one", tab, "eco", tab)
	if st, _ := f.current(); !st.add || f.root.name(st.path) != "flights" {
		t.Fatalf("tab should reach the empty flights list, at %v", f.stops[f.at])
	}
	typeKeys(f, tea.KeyEnter, "HAT001", tab, "2024-05-01", tab, "HAT002", tab, "2024-05-02", tab, tea.KeyEnter, "HAT003") // typing on "+ add" adds too
	typeKeys(f, tea.KeyCtrlX)                                                                                             // drop the third flight
	// back to the second flight and move it first
	typeKeys(f, tea.KeyUp, tea.KeyUp, tea.KeyMsg{Type: tea.KeyShiftUp})
	got := f.JSON()
	want := `{"user_id":"sara_doe_496","origin":"SFO","destination":"JFK","flight_type":"one_way","cabin":"economy",
		"flights":[{"flight_number":"HAT002","date":"2024-05-02"},{"flight_number":"HAT001","date":"2024-05-01"}]}`
	if !sameJSON(t, got, want) {
		t.Errorf("got %s\nwant %s", got, want)
	}
	view := ansi.Strip(f.View())
	if !strings.Contains(view, "1. flight_number HAT002") {
		t.Errorf("view:\n%s", view)
	}
}

// Picking: values from the conversation, most recent first; an object from
// a tool result fills a list element.
func TestArgFormPicksFromTheConversation(t *testing.T) {
	book := airlineTools(t)["book_reservation"]
	it := trace.Item{Tools: []trace.Tool{book}, Context: []trace.Message{
		{Role: "user", Content: "Book me HAT023 on 2024-05-26, user id omar_rossi_1241. Pay with gift_card_6490722, $1,154."},
		{Role: "tool", Name: "search_direct_flight", Content: `[{"flight_number":"HAT023","date":"2024-05-26","price":154},{"flight_number":"HAT024","date":"2024-05-26","price":99}]`},
	}}
	values := conversationValues(it)
	if len(values) == 0 || values[0].source != "search_direct_flight result" {
		t.Fatalf("most recent first: %+v", values)
	}
	seen := map[string]bool{}
	for _, v := range values {
		seen[v.text] = true
	}
	for _, want := range []string{"HAT023", "2024-05-26", "omar_rossi_1241", "gift_card_6490722", "1154", `{"date":"2024-05-26","flight_number":"HAT024","price":99}`} {
		if !seen[want] {
			t.Errorf("%q not offered", want)
		}
	}
	s := StylesFor(true)
	keys := defaultArgKeys()
	f := newArgForm(&s, &keys, parseArgSchema(book.Parameters), "")
	f.SetValues(values, conversationProse(it))
	f.SetSize(80, 10)
	f.FocusWork()
	typeKeys(f, tea.KeyCtrlF, "omar", tea.KeyEnter)
	if st, _ := f.current(); f.root.name(st.path) != "origin" {
		t.Errorf("a pick moves on; at %s", f.root.name(st.path))
	}
	for f.stops[f.at].add == false {
		typeKeys(f, tea.KeyTab)
	}
	typeKeys(f, tea.KeyCtrlF, "HAT024", tea.KeyEnter)
	want := `{"user_id":"omar_rossi_1241","flights":[{"flight_number":"HAT024","date":"2024-05-26"}]}` // price is not a flight field
	if got := f.JSON(); !sameJSON(t, got, want) {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// FuzzArgForm: any schema and any arguments load without a panic, render,
// survive keys, and a JSON object comes back out as the same value.
func FuzzArgForm(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"integer"}},"required":["a"]}`, `{"a":"x","n":2,"z":[1]}`)
	f.Add(`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"k":{"enum":[1,"b",null]}}}}}}`, `{"l":[{"k":1},{"k":"q"},3]}`)
	f.Add(`{"properties":{"r":{"$ref":"#"},"u":{"type":["string","null"]}}}`, `{"r":{"r":{}},"u":null}`)
	f.Add(`{"type":"object","properties":{"b":{"type":"boolean"},"o":{"type":"object","properties":{"x":{"type":"number"}}}}}`, `{"b":"yes","o":{"x":1e400}}`)
	f.Add(``, `[1,2`)
	s := StylesFor(true)
	keys := defaultArgKeys()
	f.Fuzz(func(t *testing.T, schema, args string) {
		form := newArgForm(&s, &keys, parseArgSchema(json.RawMessage(schema)), args)
		form.SetSize(60, 8)
		_ = form.View()
		var obj map[string]any
		if form.Usable() && json.Unmarshal([]byte(args), &obj) == nil {
			if !sameJSON(t, form.JSON(), args) {
				t.Fatalf("value changed:\n got %s\nwant %s", form.JSON(), args)
			}
		}
		for _, k := range []tea.KeyType{tea.KeyTab, tea.KeyEnter, tea.KeyCtrlX, tea.KeyBackspace, tea.KeyShiftUp, tea.KeyCtrlF, tea.KeyEnter, tea.KeyUp, tea.KeyCtrlDown, tea.KeyCtrlUp, tea.KeyEsc} {
			form.Update(tea.KeyMsg{Type: k})
			form.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a1 ")})
			_ = form.View()
		}
		_ = form.JSON()
	})
}

// q typed on "+ add" starts an element (it is text there), it does not quit;
// on a yes/no field q and ? are the screen's.
func TestTypingOnAddIsText(t *testing.T) {
	s := StylesFor(true)
	keys := DefaultKeyMap()
	f := newLabelForm(&s, &keys.Label)
	tool := trace.Tool{Name: "t", Parameters: json.RawMessage(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"ok":{"type":"boolean"}},"required":["tags","ok"]}`)}
	f.Load([]trace.Tool{tool}, draftBody{Calls: []draftCall{{Tool: "t"}}})
	f.setFocus(0, fieldArgs)
	if st, _ := f.calls[0].form.current(); !st.add || !f.Typing() {
		t.Fatalf("on + add: typing %v", f.Typing())
	}
	f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	if got := f.calls[0].value(); !sameJSON(t, got, `{"tags":["q"]}`) {
		t.Errorf("value %s", got)
	}
	f.Update(tea.KeyMsg{Type: tea.KeyTab})
	f.Update(tea.KeyMsg{Type: tea.KeyTab})
	if _, v := f.calls[0].form.current(); v == nil || v.kind() != argBool || f.Typing() {
		t.Errorf("on the yes/no field typing should be off")
	}
}

// TestHaystackNumbers: a number counts as seen when the conversation
// writes it as is, with thousands separators, with trailing zeros or as
// an amount; the numbers are read once and the answer stays the same.
func TestHaystackNumbers(t *testing.T) {
	h := &haystack{text: "refund $1,234.50 on order 98765 and 3.10 kg, ref ab-1200x"}
	for _, c := range []struct {
		n    string
		want bool
	}{
		{"1234.5", true}, {"1,234.50", true}, {"98765", true}, {"3.1", true}, {"3.10", true},
		{"12000", false}, {"4321", false}, {"98766", false}, {"1234.51", false},
	} {
		for range 2 {
			if got := h.hasNumber(c.n); got != c.want {
				t.Errorf("hasNumber(%s) = %v, want %v", c.n, got, c.want)
			}
		}
	}
}
