package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// roundTripTrace is a tau-bench airline conversation on the real tool
// schemas ending in a round-trip booking: two flights, two passengers (the
// user and a saved passenger), one payment method. The production model
// wrote the return flight's date as 2024-05-24, a date the conversation
// never mentions; it is 2024-05-26.
func roundTripTrace(tools map[string]trace.Tool, i int) trace.Trace {
	all := sortedTools(tools)
	user := `{"user_id":"omar_rossi_1241","name":{"first_name":"Omar","last_name":"Rossi"},"address":{"city":"Chicago","country":"USA"},` +
		`"email":"omar.rossi@example.com","dob":"1970-06-06","payment_methods":{"gift_card_6490722":{"source":"gift_card","amount":60,"id":"gift_card_6490722"},` +
		`"credit_card_9045111":{"source":"credit_card","brand":"visa","last_four":"1111","id":"credit_card_9045111"}},` +
		`"saved_passengers":[{"first_name":"Ava","last_name":"Rossi","dob":"1975-03-14"}],"membership":"gold","reservations":["UM3OG5"]}`
	out := `[{"flight_number":"HAT069","origin":"JFK","destination":"SEA","scheduled_departure_time_est":"06:00:00","date":"2024-05-20","available_seats":{"economy":12},"prices":{"economy":190}},` +
		`{"flight_number":"HAT083","origin":"JFK","destination":"SEA","scheduled_departure_time_est":"15:00:00","date":"2024-05-20","available_seats":{"economy":4},"prices":{"economy":171}}]`
	back := `[{"flight_number":"HAT258","origin":"SEA","destination":"JFK","scheduled_departure_time_est":"11:00:00","date":"2024-05-26","available_seats":{"economy":9},"prices":{"economy":216}},` +
		`{"flight_number":"HAT290","origin":"SEA","destination":"JFK","scheduled_departure_time_est":"19:00:00","date":"2024-05-26","available_seats":{"economy":2},"prices":{"economy":188}}]`
	model := strings.Replace(roundTripWant, `"HAT258","date":"2024-05-26"`, `"HAT258","date":"2024-05-24"`, 1)
	return trace.Trace{
		ID: fmt.Sprintf("tr_rt_%04d", i), Timestamp: t0,
		Metadata: map[string]string{"model": "gpt-4o", "cohort": "booking"},
		Tools:    all,
		Messages: []trace.Message{
			{Role: "system", Content: fmt.Sprintf("You are airline agent #%d. Confirm the details with the user before booking.", i)},
			{Role: "user", Content: "Hi, I'd like a round trip from JFK to SEA, out on May 20 and back on May 26, economy, for me and my wife Ava. My user id is omar_rossi_1241."},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", "get_user_details", `{"user_id":"omar_rossi_1241"}`)}},
			{Role: "tool", ToolCallID: "c1", Name: "get_user_details", Content: user},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c2", "search_direct_flight", `{"origin":"JFK","destination":"SEA","date":"2024-05-20"}`)}},
			{Role: "tool", ToolCallID: "c2", Name: "search_direct_flight", Content: out},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c3", "search_direct_flight", `{"origin":"SEA","destination":"JFK","date":"2024-05-26"}`)}},
			{Role: "tool", ToolCallID: "c3", Name: "search_direct_flight", Content: back},
			{Role: "assistant", Content: "I can book HAT069 on May 20 and HAT258 on May 26, economy, for Omar Rossi and Ava Rossi: $812 in total on your credit card credit_card_9045111, no bags, no insurance. Shall I go ahead?"},
			{Role: "user", Content: "Yes, please book it."},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c4", "book_reservation", model)}},
		},
	}
}

// roundTripWant is the right label's arguments.
const roundTripWant = `{"user_id":"omar_rossi_1241","origin":"JFK","destination":"SEA","flight_type":"round_trip","cabin":"economy",` +
	`"flights":[{"flight_number":"HAT069","date":"2024-05-20"},{"flight_number":"HAT258","date":"2024-05-26"}],` +
	`"passengers":[{"first_name":"Omar","last_name":"Rossi","dob":"1970-06-06"},{"first_name":"Ava","last_name":"Rossi","dob":"1975-03-14"}],` +
	`"payment_methods":[{"payment_id":"credit_card_9045111","amount":812}],"total_baggages":0,"nonfree_baggages":0,"insurance":"no"}`

// roundTripTurn is the decision point's message index.
const roundTripTurn = 10

var roundTripScenarios = []struct {
	name  string
	most  int // overhead keys allowed: the goals
	steps []any
}{
	{"copy, jump to the warning, fix the date", 6, []any{
		tea.KeyCtrlO, tea.KeyCtrlO, // show, then copy: only a warning, so the focus is on the rationale
		tea.KeyCtrlP,               // the field with the warning: flights[1].date
		tea.KeyCtrlU, "2024-05-26", // clear it, type the right date
		tea.KeyEnter, // the form is complete and valid: to the rationale
		bookingWhy, tea.KeyCtrlS,
	}},
	{"from scratch with the picker", 20, []any{
		pick("b"), tea.KeyEnter,
		"omar_rossi_1241", tea.KeyEnter, "JFK", tea.KeyEnter, "SEA", tea.KeyEnter,
		pick("r"), tea.KeyEnter, pick("e"), tea.KeyEnter,
		tea.KeyEnter, // the two flights the assistant names
		tea.KeyEnter, // the two passengers it names: the user's profile, the saved passenger
		tea.KeyEnter, // the credit card it names; the amount is left to type
		"812", tea.KeyEnter,
		"0", tea.KeyEnter, "0", tea.KeyEnter, pick("n"), tea.KeyEnter,
		bookingWhy, tea.KeyCtrlS,
	}},
}

func roundTripStore(tb testing.TB, n int) (*store.Store, []string) {
	tb.Helper()
	return airlineStore(tb, n, roundTripTrace, roundTripTurn)
}

// The measure: fixing the one wrong value of a copied call takes
// at most 6 keys beyond what is typed, labeling from scratch with the
// picker at most 20; the stored label is right either way.
func TestRoundTripKeystrokes(t *testing.T) {
	for _, sc := range roundTripScenarios {
		t.Run(sc.name, func(t *testing.T) {
			st, items := roundTripStore(t, 1)
			r, _, _ := newTestLabelRoot(t, labelFixture{st: st, items: items}, "alice", 80, 24)
			total, overhead := runBooking(sc.steps, func(k tea.KeyMsg) {
				_, cmd := r.Update(k)
				drain(r, cmd)
			})
			l, err := st.Label(context.Background(), items[0], "alice")
			if err != nil {
				t.Fatalf("not submitted (%v); status %q\n%s", err, r.Status().Text(), view(r))
			}
			if len(l.Calls) != 1 || l.Calls[0].Tool != "book_reservation" || !sameJSON(t, string(l.Calls[0].Args), roundTripWant) {
				t.Fatalf("stored %s", l.Calls[0].Args)
			}
			t.Logf("%s: %d keystrokes, %d beyond the value characters", sc.name, total, overhead)
			if overhead > sc.most {
				t.Errorf("%d keystrokes beyond the values, want at most %d", overhead, sc.most)
			}
		})
	}
}

// Each step of the copy-and-fix path lands where the issue says: ctrl+p on
// the warned date, enter on the rationale.
func TestRoundTripJumpsToTheWarning(t *testing.T) {
	st, items := roundTripStore(t, 1)
	r, page, _ := newTestLabelRoot(t, labelFixture{st: st, items: items}, "alice", 80, 24)
	k := &keys{r: r}
	k.press(tea.KeyCtrlO)
	k.press(tea.KeyCtrlO)
	if page.form.focus != fieldRationale {
		t.Fatalf("after copying: focus %v", page.form.focus)
	}
	focused := func() string {
		ce := page.form.calls[page.form.cur]
		if page.form.focus != fieldArgs || !ce.useForm {
			return fmt.Sprint(page.form.focus)
		}
		return ce.form.stopName(ce.form.stops[ce.form.at])
	}
	k.press(tea.KeyCtrlP)
	if got := focused(); got != "flights[1].date" {
		t.Fatalf("ctrl+p: at %s\n%s", got, view(r))
	}
	k.press(tea.KeyCtrlP) // the only warning: it cycles back to itself
	if got := focused(); got != "flights[1].date" {
		t.Fatalf("ctrl+p again: at %s", got)
	}
	k.press(tea.KeyCtrlUp) // the same field of the other flight
	if got := focused(); got != "flights[0].date" {
		t.Fatalf("ctrl+↑: at %s", got)
	}
	k.press(tea.KeyCtrlDown)
	if got := focused(); got != "flights[1].date" {
		t.Fatalf("ctrl+↓: at %s", got)
	}
	k.press(tea.KeyCtrlL)
	k.typ("date")
	if got := ansi.Strip(view(r)); !strings.Contains(got, "flights[0].date") || !strings.Contains(got, "flights[1].date") {
		t.Fatalf("go to field lists both dates:\n%s", got)
	}
	k.press(tea.KeyDown)
	k.press(tea.KeyEnter)
	if got := focused(); got != "flights[1].date" {
		t.Fatalf("go to field: at %s", got)
	}
	k.press(tea.KeyCtrlL)
	k.typ("q") // text in the list, not quit
	k.press(tea.KeyEsc)
	if ce := page.form.calls[0]; ce.form.jump != nil || focused() != "flights[1].date" || r.quitting {
		t.Fatalf("esc leaves the go-to list where it was: at %s, open %v", focused(), ce.form.jump != nil)
	}
	k.press(tea.KeyEnter) // a warning does not hold enter back: nothing is empty or invalid
	if page.form.focus != fieldRationale {
		t.Fatalf("enter on a complete form: focus %v", page.form.focus)
	}
}

// The model's call once revealed is one aligned line per value, the warned
// date marked; once copied and fixed, the changed value says what it is now.
func TestRoundTripObservedTreeGolden(t *testing.T) {
	st, items := roundTripStore(t, 1)
	r, _, _ := newTestLabelRoot(t, labelFixture{st: st, items: items}, "alice", 80, 24)
	send := func(k tea.KeyMsg) {
		_, cmd := r.Update(k)
		drain(r, cmd)
	}
	runBooking([]any{tea.KeyCtrlO}, send)
	assertGolden(t, "roundtrip_revealed_80x24", r.View())
	runBooking([]any{tea.KeyCtrlO, tea.KeyCtrlP, tea.KeyCtrlU, "2024-05-26"}, send)
	assertGolden(t, "roundtrip_fixed_80x24", r.View())
}

// Switching tools keeps the arguments the new tool takes by the same name
// and type; the others are dropped, and the status line says what stayed.
func TestSwitchingToolsKeepsSharedArguments(t *testing.T) {
	st, items := roundTripStore(t, 1)
	r, page, _ := newTestLabelRoot(t, labelFixture{st: st, items: items}, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("search_d")
	k.press(tea.KeyEnter)
	k.typ("JFK")
	k.press(tea.KeyEnter)
	k.typ("SEA")
	k.press(tea.KeyEnter)
	k.typ("2024-05-20")
	drain(r, page.form.setFocus(0, fieldTool))
	k.typ("search_one")
	k.press(tea.KeyEnter)
	if got := page.form.calls[0].value(); !sameJSON(t, got, `{"origin":"JFK","destination":"SEA","date":"2024-05-20"}`) {
		t.Fatalf("to search_onestop_flight: %s", got)
	}
	drain(r, page.form.setFocus(0, fieldTool))
	k.typ("book_res")
	k.press(tea.KeyEnter)
	if got := page.form.calls[0].value(); !sameJSON(t, got, `{"origin":"JFK","destination":"SEA"}`) {
		t.Fatalf("to book_reservation: %s", got)
	}
	if got := r.Status().Text(); !strings.Contains(got, "kept origin, destination") {
		t.Errorf("status %q", got)
	}
}

// squeeze drops every space, so text wrapped over lines compares with the
// text it came from.
func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

// At 80x24 every tool's description can be read whole in the tool list
// (highlighted), and every argument's description whole under its field:
// wrapped, never cut with "…".
func TestEveryHintAndDescriptionInFull(t *testing.T) {
	tools := airlineTools(t)
	st, items := roundTripStore(t, 1)
	r, page, _ := newTestLabelRoot(t, labelFixture{st: st, items: items}, "alice", 80, 24)
	k := &keys{r: r}
	for _, tool := range sortedTools(tools) {
		drain(r, page.form.setFocus(0, fieldTool))
		k.typ(tool.Name)
		v := view(r)
		if want := squeeze(tool.Name + " — " + tool.Description); !strings.Contains(squeeze(v), want) {
			t.Errorf("%s: description not whole in the tool list:\n%s", tool.Name, v)
		}
		k.press(tea.KeyEnter)
		ce := page.form.calls[0]
		if !ce.useForm {
			continue
		}
		for i := range ce.form.stops {
			drain(r, ce.form.FocusStop(i))
			page.layout()
			_, node := ce.form.current()
			desc := node.s.desc
			if ce.form.stops[i].add {
				desc = node.s.desc
			}
			hint := strings.Join(ce.form.hintLines(), "\n")
			v := view(r)
			if strings.Contains(ansi.Strip(hint), "…") {
				t.Errorf("%s %s: hint cut:\n%s", tool.Name, ce.form.stopName(ce.form.stops[i]), hint)
			}
			if desc != "" && !strings.Contains(squeeze(v), squeeze(desc)) {
				t.Errorf("%s %s: description not whole on screen:\n%s", tool.Name, ce.form.stopName(ce.form.stops[i]), v)
			}
		}
	}
	assertGolden(t, "hints_last_tool_80x24", r.View())
}

// f1 in the argument form lists every key the screen answers to there
// (↓, ctrl+d, ctrl+↑/↓ included), and the screen still fits 80x24.
func TestFullHelpInTheFormListsEveryKey(t *testing.T) {
	st, items := roundTripStore(t, 1)
	r, _, _ := newTestLabelRoot(t, labelFixture{st: st, items: items}, "alice", 80, 24)
	k := &keys{r: r}
	k.press(tea.KeyCtrlO)
	k.press(tea.KeyCtrlO)
	k.press(tea.KeyCtrlP)
	k.press(tea.KeyF1)
	v := view(r)
	for _, want := range []string{"tab/↓", "ctrl+d", "ctrl+↑", "ctrl+↓", "ctrl+p", "ctrl+l", "ctrl+o", "ctrl+f", "ctrl+x", "alt+↑", "shift+↑", "ctrl+t", "ctrl+e", "ctrl+g", "ctrl+z", "ctrl+n", "ctrl+s", "ctrl+c"} {
		if !strings.Contains(v, want) {
			t.Errorf("f1 lacks %s", want)
		}
	}
	if n := len(strings.Split(v, "\n")); n > 24 {
		t.Errorf("%d lines at 80x24", n)
	}
	assertGolden(t, "roundtrip_full_help_80x24", r.View())
}

// In a list element's field, ctrl+f also offers whole objects for the
// element: the saved passenger fills all three fields of passengers[1], the
// amount typed in the payment stays when the card is picked over it.
func TestPickingAWholeElementFromItsField(t *testing.T) {
	st, items := roundTripStore(t, 1)
	r, page, _ := newTestLabelRoot(t, labelFixture{st: st, items: items}, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("book_res")
	k.press(tea.KeyEnter)
	form := page.form.calls[0].form
	drain(r, form.FocusStop(form.stopFor("passengers")))
	k.typ("Ava") // starts passengers[0] with its first name
	k.press(tea.KeyCtrlF)
	k.typ("1975")
	if v := view(r); !strings.Contains(v, "whole passengers[0]: first_name Ava") {
		t.Fatalf("no whole passenger offered:\n%s", v)
	}
	for form.pick.matches[form.pick.sel].into == nil {
		k.press(tea.KeyDown)
	}
	k.press(tea.KeyEnter)
	if got := form.JSON(); !sameJSON(t, got, `{"passengers":[{"first_name":"Ava","last_name":"Rossi","dob":"1975-03-14"}]}`) {
		t.Fatalf("after the pick: %s", got)
	}
	drain(r, form.FocusStop(form.stopFor("payment_methods")))
	k.typ("x")          // starts payment_methods[0] (its payment_id)
	k.press(tea.KeyTab) // to its amount
	k.typ("812")
	k.press(tea.KeyCtrlF)
	k.typ("credit")
	for form.pick.matches[form.pick.sel].into == nil {
		k.press(tea.KeyDown)
	}
	k.press(tea.KeyEnter)
	if got := form.JSON(); !strings.Contains(squeeze(got), `"payment_methods":[{"payment_id":"credit_card_9045111","amount":812}]`) {
		t.Fatalf("the card over a typed amount: %s", got)
	}
}
