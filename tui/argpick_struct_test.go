package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func decodeNumbers(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		t.Fatal(err)
	}
	return x
}

// Objects are shaped to the element schema field by field; what cannot be
// shaped is not offered.
func TestProjectObject(t *testing.T) {
	passenger := parseArgSchema(json.RawMessage(`{"type":"object","properties":{"first_name":{"type":"string"},"last_name":{"type":"string"},"dob":{"type":"string"}},"required":["first_name","last_name","dob"]}`))
	payment := parseArgSchema(json.RawMessage(`{"type":"object","properties":{"payment_id":{"type":"string"},"amount":{"type":"number"}},"required":["payment_id","amount"]}`))
	item := parseArgSchema(json.RawMessage(`{"type":"object","properties":{"item_id":{"type":"string"},"quantity":{"type":"integer"}},"required":["item_id"]}`))
	for _, tt := range []struct {
		name     string
		schema   *argSchema
		in, want string
		complete bool
		ok       bool
	}{
		{"a profile is a passenger", passenger, `{"user_id":"u1","name":{"first_name":"Omar","last_name":"Rossi"},"dob":"1970-06-06","membership":"gold"}`,
			`{"dob":"1970-06-06","first_name":"Omar","last_name":"Rossi"}`, true, true},
		{"a payment method by its id; a balance is not the amount", payment, `{"source":"gift_card","amount":60,"id":"gift_card_1"}`,
			`{"payment_id":"gift_card_1"}`, false, true},
		{"a number from an object of the same shape", item, `{"item_id":"sku9","quantity":2}`, `{"item_id":"sku9","quantity":2}`, true, true},
		{"without the naming field it is not offered", payment, `{"amount":60}`, `{"amount":60}`, false, false},
		{"a field of the wrong type is not taken", passenger, `{"first_name":"Ann","last_name":7,"dob":"2000-01-01"}`,
			`{"dob":"2000-01-01","first_name":"Ann"}`, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, complete, ok := projectObject(decodeNumbers(t, tt.in).(map[string]any), tt.schema)
			if jsonLine(out) != tt.want || complete != tt.complete || ok != tt.ok {
				t.Errorf("got %s complete %v ok %v, want %s %v %v", jsonLine(out), complete, ok, tt.want, tt.complete, tt.ok)
			}
		})
	}
}

// The objects the latest words name come as one list in the order named;
// a name inside another word ("ava" in "available") does not count.
func TestNamedList(t *testing.T) {
	objs := []pickValue{
		{value: map[string]any{"first_name": "Ava", "last_name": "Rossi"}, source: "saved"},
		{value: map[string]any{"first_name": "Omar", "last_name": "Rossi"}, source: "profile"},
		{value: map[string]any{"first_name": "Zoe", "last_name": "Li"}, source: "saved"},
	}
	got := namedList(objs, []proseMessage{{text: "yes please."}, {text: "seats are available for omar rossi and ava rossi."}, {text: "zoe li?"}})
	if got == nil || jsonLine(got.value) != `[{"first_name":"Omar","last_name":"Rossi"},{"first_name":"Ava","last_name":"Rossi"}]` {
		t.Fatalf("named %+v", got)
	}
	if got := namedList(objs, []proseMessage{{text: "availability is fine"}}); got != nil {
		t.Errorf("named inside a word: %+v", got)
	}
}

// A word too wide for its line breaks after a token joint, never inside a
// short token, and every piece fits.
func TestBreakToken(t *testing.T) {
	for _, tt := range []struct {
		word  string
		width int
		want  []string
	}{
		{`"aisha.sharma@icloud.com",`, 20, []string{`"aisha.sharma@`, `icloud.com",`}},
		{"https://example.com/orders/ORD-10000/returns", 20, []string{"https://example.com/", "orders/ORD-10000/", "returns"}},
		{"abcdefghijklmnopqrstuvwxyz", 10, []string{"abcdefghij", "klmnopqrst", "uvwxyz"}},
		{"日本語日本語", 4, []string{"日本", "語日", "本語"}},
	} {
		got := breakToken(tt.word, tt.width)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%q at %d: %q, want %q", tt.word, tt.width, got, tt.want)
		}
		for _, p := range got {
			if ansi.StringWidth(p) > tt.width {
				t.Errorf("%q wider than %d", p, tt.width)
			}
		}
	}
	// a character wider than the line goes alone rather than looping
	if got := breakToken("日本", 1); strings.Join(got, "|") != "日|本" {
		t.Errorf("narrow break %q", got)
	}
}

// Enter's round: the first of the stops after the focus, wrapping.
func TestNextAfter(t *testing.T) {
	for _, tt := range []struct {
		stops     []int
		at, n     int
		want      int
		wantFound bool
	}{
		{[]int{2, 5}, 3, 8, 5, true},
		{[]int{2, 5}, 6, 8, 2, true},
		{[]int{3}, 3, 8, 3, true},
		{nil, 0, 8, 0, false},
	} {
		got, ok := nextAfter(tt.stops, tt.at, tt.n)
		if got != tt.want || ok != tt.wantFound {
			t.Errorf("nextAfter(%v, %d, %d) = %d %v", tt.stops, tt.at, tt.n, got, ok)
		}
	}
}

// A text field is offered scalars only, never a whole list or object.
func TestTextFieldsAreOfferedScalars(t *testing.T) {
	text := &argSchema{kind: argText}
	for _, v := range []any{[]any{map[string]any{"a": "b"}}, map[string]any{"a": "b"}} {
		if fits(pickValue{value: v}, text) {
			t.Errorf("%v offered for a text field", v)
		}
	}
	if !fits(pickValue{value: "HAT069"}, text) || !fits(pickValue{value: json.Number("26")}, text) {
		t.Error("scalars not offered for a text field")
	}
	if !fits(pickValue{value: []any{"x"}}, &argSchema{kind: argRaw}) {
		t.Error("JSON text refuses a list")
	}
}
