package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// bookingTrace is an airline conversation on the real tau-bench tool
// schemas whose last decision point is a one-way booking: two flights (one
// stop), one passenger, one payment method. The production model booked it
// with the gift card's balance (234) as the amount instead of the price.
func bookingTrace(tools map[string]trace.Tool, i int) trace.Trace {
	all := sortedTools(tools)
	user := `{"user_id":"omar_rossi_1241","name":{"first_name":"Omar","last_name":"Rossi"},"address":{"city":"Chicago","country":"USA"},` +
		`"email":"omar.rossi@example.com","dob":"1970-06-06","payment_methods":{"gift_card_6490722":{"source":"gift_card","amount":234,"id":"gift_card_6490722"},` +
		`"credit_card_9045111":{"source":"credit_card","brand":"visa","last_four":"1111","id":"credit_card_9045111"}},` +
		`"saved_passengers":[{"first_name":"Omar","last_name":"Rossi","dob":"1970-06-06"}],"membership":"gold","reservations":["UM3OG5"]}`
	flights := `[[{"flight_number":"HAT069","origin":"JFK","destination":"ORD","scheduled_departure_time_est":"06:00:00","date":"2024-05-26","available_seats":{"economy":12},"prices":{"economy":90}},` +
		`{"flight_number":"HAT258","origin":"ORD","destination":"SEA","scheduled_departure_time_est":"11:00:00","date":"2024-05-26","available_seats":{"economy":3},"prices":{"economy":64}}]]`
	wrong := `{"user_id":"omar_rossi_1241","origin":"JFK","destination":"SEA","flight_type":"one_way","cabin":"economy",` +
		`"flights":[{"flight_number":"HAT069","date":"2024-05-26"},{"flight_number":"HAT258","date":"2024-05-26"}],` +
		`"passengers":[{"first_name":"Omar","last_name":"Rossi","dob":"1970-06-06"}],"payment_methods":[{"payment_id":"gift_card_6490722","amount":234}],` +
		`"total_baggages":0,"nonfree_baggages":0,"insurance":"no"}`
	return trace.Trace{
		ID: fmt.Sprintf("tr_air_%04d", i), Timestamp: t0,
		Metadata: map[string]string{"model": "gpt-4o", "cohort": "booking"},
		Tools:    all,
		Messages: []trace.Message{
			{Role: "system", Content: fmt.Sprintf("You are airline agent #%d. Confirm the details with the user before booking.", i)},
			{Role: "user", Content: "Hi, I'd like to book a one-way trip from JFK to SEA on May 26, economy. My user id is omar_rossi_1241."},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", "get_user_details", `{"user_id":"omar_rossi_1241"}`)}},
			{Role: "tool", ToolCallID: "c1", Name: "get_user_details", Content: user},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c2", "search_onestop_flight", `{"origin":"JFK","destination":"SEA","date":"2024-05-26"}`)}},
			{Role: "tool", ToolCallID: "c2", Name: "search_onestop_flight", Content: flights},
			{Role: "assistant", Content: "I found HAT069 (JFK→ORD) and HAT258 (ORD→SEA) on 2024-05-26, $154 in economy. Shall I book it for Omar Rossi with gift card gift_card_6490722, no bags, no insurance?"},
			{Role: "user", Content: "Yes, book it. No bags and no insurance."},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c3", "book_reservation", wrong)}},
		},
	}
}

// bookingWant is the right label's arguments.
const bookingWant = `{"user_id":"omar_rossi_1241","origin":"JFK","destination":"SEA","flight_type":"one_way","cabin":"economy",
	"flights":[{"flight_number":"HAT069","date":"2024-05-26"},{"flight_number":"HAT258","date":"2024-05-26"}],
	"passengers":[{"first_name":"Omar","last_name":"Rossi","dob":"1970-06-06"}],"payment_methods":[{"payment_id":"gift_card_6490722","amount":154}],
	"total_baggages":0,"nonfree_baggages":0,"insurance":"no"}`

// The ways of labeling the booking, as a reviewer types them. A string is
// a value (its characters are not overhead); pick(s) is a filter typed in
// the value picker (overhead: the value is not typed); keys are overhead.
type pick string

const bookingWhy = "Confirmed by the user"

var bookingScenarios = []struct {
	name  string
	most  int // overhead keys allowed (what it takes today: a rise is a regression)
	steps []any
}{
	{"from scratch, typing", 26, []any{
		pick("book"), tea.KeyEnter, // tool filter, choose: focus on user_id
		"omar_rossi_1241", tea.KeyEnter, "JFK", tea.KeyEnter, "SEA", tea.KeyEnter,
		pick("o"), tea.KeyEnter, pick("e"), tea.KeyEnter, // choices narrowed by one letter
		"HAT069", tea.KeyTab, "2024-05-26", tea.KeyTab, // typing on "+ add" adds a flight
		"HAT258", tea.KeyTab, "2024-05-26", tea.KeyEnter, // enter: to the next required field (passengers)
		"Omar", tea.KeyTab, "Rossi", tea.KeyTab, "1970-06-06", tea.KeyEnter,
		"gift_card_6490722", tea.KeyTab, "154", tea.KeyEnter,
		"0", tea.KeyEnter, "0", tea.KeyEnter, pick("n"), tea.KeyEnter, // insurance, then the rationale
		bookingWhy, tea.KeyCtrlS,
	}},
	{"from scratch, picking values", 18, []any{
		pick("b"), tea.KeyEnter,
		"omar_rossi_1241", tea.KeyEnter, "JFK", tea.KeyEnter, "SEA", tea.KeyEnter,
		pick("o"), tea.KeyEnter, pick("e"), tea.KeyEnter,
		tea.KeyEnter, // the flights the assistant names, from the search result
		tea.KeyEnter, // the passenger it names: the user's own profile
		tea.KeyEnter, // the gift card it names; the amount is left to type
		"154", tea.KeyEnter,
		"0", tea.KeyEnter, "0", tea.KeyEnter, pick("n"), tea.KeyEnter,
		bookingWhy, tea.KeyCtrlS,
	}},
	{"copy the model's call, fix the amount", 10, []any{
		tea.KeyCtrlO, tea.KeyCtrlO, // show, then copy: nothing invalid, so the focus is on the rationale
		tea.KeyCtrlL, pick("amo"), tea.KeyEnter, // go to the field named amount
		tea.KeyCtrlU, "154", tea.KeyEnter, // the form is complete: enter goes to the rationale
		bookingWhy, tea.KeyCtrlS,
	}},
}

// runBooking sends a scenario's keys through send, returning (all keys,
// overhead keys).
func runBooking(steps []any, send func(tea.KeyMsg)) (total, overhead int) {
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			for _, r := range s {
				send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
				total++
			}
		case pick:
			for _, r := range s {
				send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
				total++
				overhead++
			}
		case tea.KeyType:
			send(tea.KeyMsg{Type: s})
			total++
			overhead++
		}
	}
	return total, overhead
}

func bookingStore(tb testing.TB, n int) (*store.Store, []string) {
	tb.Helper()
	return airlineStore(tb, n, bookingTrace, 8)
}

// airlineStore is a project with n traces made by mk on the tau-bench
// airline tools, their items at turn assigned to alice.
func airlineStore(tb testing.TB, n int, mk func(map[string]trace.Tool, int) trace.Trace, turn int) (*store.Store, []string) {
	tb.Helper()
	tools := airlineTools(tb)
	st, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "gt.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if err := st.AddUser(context.Background(), "alice", store.RoleReviewer); err != nil {
		tb.Fatal(err)
	}
	traces := make([]trace.Trace, n)
	for i := range traces {
		traces[i] = mk(tools, i)
	}
	return st, assignItems(tb, st, traces, turn, "alice")
}

// sortedTools are the tools by name.
func sortedTools(tools map[string]trace.Tool) []trace.Tool {
	var all []trace.Tool
	for _, t := range tools {
		all = append(all, t)
	}
	sort.Slice(all, func(a, b int) bool { return all[a].Name < all[b].Name })
	return all
}

// TestBookingKeystrokes labels the booking each way and checks the stored
// arguments; the keystroke counts are logged (issue 16's measure).
func TestBookingKeystrokes(t *testing.T) {
	for _, sc := range bookingScenarios {
		t.Run(sc.name, func(t *testing.T) {
			st, items := bookingStore(t, 1)
			r, page, _ := newTestLabelRoot(t, labelFixture{st: st, items: items}, "alice", 80, 24)
			total, overhead := runBooking(sc.steps, func(k tea.KeyMsg) {
				_, cmd := r.Update(k)
				drain(r, cmd)
			})
			l, err := st.Label(context.Background(), items[0], "alice")
			if err != nil {
				t.Fatalf("not submitted (%v); status %q\n%s", err, r.Status().Text(), view(r))
			}
			if len(l.Calls) != 1 || l.Calls[0].Tool != "book_reservation" || !sameJSON(t, string(l.Calls[0].Args), bookingWant) {
				t.Fatalf("stored %+v %s", l, l.Calls[0].Args)
			}
			_ = page
			t.Logf("%s: %d keystrokes, %d beyond the value characters", sc.name, total, overhead)
			if overhead > sc.most {
				t.Errorf("%d keystrokes beyond the values, want at most %d", overhead, sc.most)
			}
		})
	}
}

// BenchmarkLabelBooking labels b.N booking items in a running program
// (teatest, 80×24), one scenario per sub-benchmark: the time per label is
// ns/op, the keystrokes are reported as metrics.
func BenchmarkLabelBooking(b *testing.B) {
	for _, sc := range bookingScenarios {
		b.Run(strings.ReplaceAll(sc.name, " ", "_"), func(b *testing.B) {
			benchLabel(b, sc.steps, bookingStore, bookingWant)
		})
	}
}

// BenchmarkLabelRoundTrip is the same for issue 28's round trip.
func BenchmarkLabelRoundTrip(b *testing.B) {
	for _, sc := range roundTripScenarios {
		b.Run(strings.ReplaceAll(sc.name, " ", "_"), func(b *testing.B) {
			benchLabel(b, sc.steps, roundTripStore, roundTripWant)
		})
	}
}

func benchLabel(b *testing.B, steps []any, mk func(testing.TB, int) (*store.Store, []string), want string) {
	st, items := mk(b, b.N)
	lipgloss.SetColorProfile(termenv.Ascii)
	c := &Common{Styles: StylesFor(false), Keys: DefaultKeyMap(), API: as(b, st, "alice"), Now: func() time.Time { return t0 }}
	tm := teatest.NewTestModel(b, NewLabelRoot(c, LabelOptions{Reviewer: "alice"}, true), teatest.WithInitialTermSize(80, 24))
	out := &scanner{}
	waitOut(b, tm, out, fmt.Sprintf("1/%d", b.N))
	var total, overhead int
	b.ResetTimer()
	for i := range b.N {
		total, overhead = runBooking(steps, func(k tea.KeyMsg) { tm.Send(k) })
		waitOut(b, tm, out, "submitted "+items[i])
	}
	b.StopTimer()
	b.ReportMetric(float64(total), "keys/label")
	b.ReportMetric(float64(overhead), "overhead-keys/label")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.WaitFinished(b, teatest.WithFinalTimeout(20*time.Second))
	if l, err := st.Label(context.Background(), items[b.N-1], "alice"); err != nil || !sameJSONB(string(l.Calls[0].Args), want) {
		b.Fatalf("last label %+v %v", l, err)
	}
}

// scanner accumulates a program's output so waits see text that arrived
// in an earlier read.
type scanner struct{ buf bytes.Buffer }

func waitOut(tb testing.TB, tm *teatest.TestModel, s *scanner, text string) {
	tb.Helper()
	teatest.WaitFor(tb, tm.Output(), func(b []byte) bool {
		s.buf.Write(b)
		if i := bytes.Index(s.buf.Bytes(), []byte(text)); i >= 0 {
			rest := append([]byte(nil), s.buf.Bytes()[i+len(text):]...)
			s.buf.Reset()
			s.buf.Write(rest)
			return true
		}
		return false
	}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(time.Millisecond))
}

func sameJSONB(got, want string) bool {
	g, err1 := trace.Canonical(json.RawMessage(got))
	w, err2 := trace.Canonical(json.RawMessage(want))
	return err1 == nil && err2 == nil && string(g) == string(w)
}

// The booking form at 80×24 and 120×40: halfway through (flights picked,
// the passenger list focused), and the picker open on it.
func TestBookingGoldens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		st, items := bookingStore(t, 1)
		r, _, _ := newTestLabelRoot(t, labelFixture{st: st, items: items}, "alice", size[0], size[1])
		send := func(k tea.KeyMsg) {
			_, cmd := r.Update(k)
			drain(r, cmd)
		}
		runBooking([]any{pick("book"), tea.KeyEnter, "omar_rossi_1241", tea.KeyEnter, "JFK", tea.KeyEnter, "SEA", tea.KeyEnter,
			pick("o"), tea.KeyEnter, pick("e"), tea.KeyEnter,
			tea.KeyCtrlF, pick("069"), tea.KeyEnter, tea.KeyCtrlF, pick("258"), tea.KeyEnter, tea.KeyTab}, send)
		suffix := "_" + itoa(size[0]) + "x" + itoa(size[1])
		assertGolden(t, "booking_form"+suffix, r.View())
		runBooking([]any{tea.KeyCtrlF}, send)
		assertGolden(t, "booking_pick"+suffix, r.View())
	}
}

// Warnings name values that appear nowhere in the conversation, never a
// choice the schema offers.
func TestBookingWarnsAboutUnseenValues(t *testing.T) {
	tools := airlineTools(t)
	items := trace.Items(bookingTrace(tools, 0))
	it := items[len(items)-1]
	s := StylesFor(true)
	keys := DefaultKeyMap()
	f := newLabelForm(&s, &keys.Label)
	args := strings.Replace(strings.Replace(bookingWant, "HAT258", "HAT259", 1), "\n", "", -1)
	f.LoadItem(it, draftBody{Calls: []draftCall{{Tool: "book_reservation", Args: args}}})
	ce := f.calls[0]
	if len(ce.problems) != 0 {
		t.Fatalf("problems %v", ce.problems)
	}
	var got []string
	for _, w := range ce.warnings {
		got = append(got, w.Message)
	}
	if len(got) != 1 || got[0] != `flights[1].flight_number "HAT259" appears nowhere in the conversation` {
		t.Errorf("warnings %q", got)
	}
}
