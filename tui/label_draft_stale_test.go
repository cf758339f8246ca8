package tui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// sample --stale writes drafts for the label screen: they must read as the
// screen's own drafts do.
func TestStaleDraftIsALabelFormDraft(t *testing.T) {
	b, err := app.StaleDraft([]gold.ExpectedCall{{Tool: "get_order", Args: json.RawMessage(`{"id":"ORD-1","n":2}`)}}, "the user asked")
	if err != nil {
		t.Fatal(err)
	}
	var d draftBody
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	if d.NoTool || len(d.Calls) != 1 || d.Calls[0].Tool != "get_order" || !strings.Contains(d.Calls[0].Args, `"id": "ORD-1"`) || d.Rationale != "the user asked" {
		t.Errorf("draft %+v", d)
	}
}

// A stale draft's tool that the item no longer offers (renamed in the
// current catalogue) is an error before submit, and the form starts at the
// tool.
func TestDraftToolNoLongerOfferedIsAProblem(t *testing.T) {
	s := StylesFor(true)
	keys := DefaultKeyMap()
	f := newLabelForm(&s, &keys.Label)
	tools := []trace.Tool{{Name: "get_booking_details", Parameters: json.RawMessage(`{"type":"object","properties":{"reservation_id":{"type":"string"}},"required":["reservation_id"]}`)}}
	f.Load(tools, draftBody{Calls: []draftCall{{Tool: "get_reservation_details", Args: `{"reservation_id":"ZFA04Y"}`}}, Rationale: "old"})
	ce := f.calls[0]
	if len(ce.problems) == 0 || !strings.Contains(ce.problems[0].Message, `"get_reservation_details" is not one of the tools offered here`) {
		t.Fatalf("problems %+v", ce.problems)
	}
	if f.focus != fieldTool {
		t.Errorf("focus %v, want the tool", f.focus)
	}
	// Choosing the renamed tool keeps the arguments that fit it.
	if args, kept := f.carryArgs(ce, "get_booking_details"); args != `{"reservation_id":"ZFA04Y"}` || len(kept) != 1 {
		t.Errorf("carried %s %v", args, kept)
	}
	f.Load(tools, draftBody{Calls: []draftCall{{Tool: "get_booking_details", Args: `{"reservation_id":"ZFA04Y"}`}}, Rationale: "new"})
	if len(f.calls[0].problems) != 0 || f.focus != fieldRationale {
		t.Errorf("offered tool: problems %+v focus %v", f.calls[0].problems, f.focus)
	}
}

// A choice field holding a dropped enum value is JSON text; typing one of
// the choices without quotes is that choice.
func TestDroppedChoiceTakesAChoiceWithoutQuotes(t *testing.T) {
	s := parseArgSchema(json.RawMessage(`{"type":"object","properties":{"cabin":{"type":"string","enum":["economy","business"]}}}`))
	v := loadArgs(s, `{"cabin":"basic_economy"}`)
	if v.fields[0].kind() != argRaw {
		t.Fatalf("kind %v", v.fields[0].kind())
	}
	for text, want := range map[string]string{"economy": "economy", `"business"`: "business", "first": ""} {
		v.fields[0].text = text
		var got struct{ Cabin string }
		err := json.Unmarshal([]byte(v.JSON()), &got)
		if (want == "") != (err != nil) || got.Cabin != want {
			t.Errorf("%s: %s (%v)", text, v.JSON(), err)
		}
	}
}
