package tui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/gold"
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
