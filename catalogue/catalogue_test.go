package catalogue

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/internal/shareddata"
	"github.com/goldtrace/goldtrace/trace"
)

func TestReadShapes(t *testing.T) {
	params := `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`
	for name, in := range map[string]string{
		"openai array": `[{"type":"function","function":{"name":"get","description":"Get one.","parameters":` + params + `}},{"type":"function","function":{"name":"all","description":"All."}}]`,
		"flat lines":   `{"name":"get","description":"Get one.","parameters":` + params + "}\n\n" + `{"name":"all","description":"All."}` + "\n",
		"mcp list":     `{"tools":[{"name":"get","description":"Get one.","inputSchema":` + params + `},{"name":"all","description":"All.","inputSchema":null}]}`,
		"mcp response": `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"all","description":"All."},{"name":"get","description":"Get one.","inputSchema":` + params + `}]}}`,
	} {
		tools, err := Read(strings.NewReader(in), "cat.json")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(tools) != 2 || tools[0].Name != "all" || tools[1].Name != "get" || tools[1].Description != "Get one." || !strings.Contains(string(tools[1].Parameters), `"required":["id"]`) {
			t.Errorf("%s: %+v", name, tools)
		}
	}
	for name, in := range map[string]string{
		"empty":        "",
		"no tools":     `[]`,
		"twice":        `[{"name":"a"},{"name":"a"}]`,
		"no name":      `[{"description":"x"}]`,
		"bad schema":   `[{"name":"a","parameters":"string"}]`,
		"not json":     "{\"name\":\"a\"}\nnope\n",
		"broken array": `[{"name":"a"}`,
	} {
		if _, err := Read(strings.NewReader(in), "cat.json"); err == nil || !strings.HasPrefix(err.Error(), "cat.json") {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
}

func tool(name, desc, params string) trace.Tool {
	return trace.Tool{Name: name, Description: desc, Parameters: json.RawMessage(params)}
}

func record(id string, tools []trace.Tool, calls ...gold.ExpectedCall) gold.Record {
	return gold.Record{ID: id, AvailableTools: tools, ExpectedCalls: calls}
}

func call(name, args string) gold.ExpectedCall {
	return gold.ExpectedCall{Tool: name, Args: json.RawMessage(args)}
}

func TestDriftKinds(t *testing.T) {
	search := tool("search_direct_flight", "Search direct flights between two cities on a specific date.",
		`{"type":"object","properties":{"origin":{"type":"string"},"destination":{"type":"string"},"date":{"type":"string"}},"required":["origin","destination","date"]}`)
	cancel := tool("cancel_reservation", "Cancel the whole reservation.",
		`{"type":"object","properties":{"reservation_id":{"type":"string"},"note":{"type":"string"}},"required":["reservation_id"]}`)
	update := tool("update_flights", "Update the flights of a reservation.",
		`{"type":"object","properties":{"cabin":{"type":"string","enum":["basic_economy","economy"]},"flights":{"type":"array","items":{"type":"object","properties":{"date":{"type":"string"}}}}},"required":["cabin"]}`)
	think := tool("think", "Think.", `{"type":"object","properties":{"thought":{"type":"string"}}}`)
	old := []trace.Tool{cancel, search, think, update}

	current := []trace.Tool{
		tool("find_direct_flights", "Search direct flights between two cities on a given date.", string(search.Parameters)),
		tool("cancel_reservation", cancel.Description,
			`{"type":"object","properties":{"reservation_id":{"type":"string"},"note":{"type":"string"},"reason":{"type":"string"}},"required":["reservation_id","note","reason"]}`),
		tool("update_flights", update.Description,
			`{"type":"object","properties":{"cabin":{"type":"string","enum":["economy"]},"flights":{"type":"array","items":{"type":"object","properties":{"date":{"type":"string","pattern":"^\\d{4}-\\d{2}-\\d{2}$"}}}}},"required":["cabin"]}`),
		think,
	}
	recs := []gold.Record{
		record("it_1", old, call("search_direct_flight", `{"origin":"JFK","destination":"SEA","date":"2024-05-25"}`)),
		record("it_2", old, call("cancel_reservation", `{"reservation_id":"ZFA04Y"}`)),
		record("it_3", old, call("update_flights", `{"cabin":"basic_economy","flights":[{"date":"22 May"}]}`)),
		record("it_4", old, call("think", `{"thought":"x"}`)),                           // unchanged tool
		record("it_5", old, call("update_flights", `{"cabin":"economy","flights":[]}`)), // changed tool, gold still fits
		record("it_6", old), // no call
		record("it_7", []trace.Tool{think}, call("gone", `{}`)), // removed, nothing alike
	}
	r := Drift(recs, current)
	if r.Items != 7 || r.Stale != 4 || strings.Join(r.StaleIDs, ",") != "it_1,it_2,it_3,it_7" {
		t.Fatalf("stale %d %v", r.Stale, r.StaleIDs)
	}
	got := map[string][]Finding{}
	for _, it := range r.Details {
		got[it.ID] = it.Findings
	}
	if f := got["it_1"]; len(f) != 1 || f[0].Kind != KindToolRenamed || f[0].Suggest != "find_direct_flights" || f[0].Similarity == nil || *f[0].Similarity < 0.6 {
		t.Errorf("rename: %+v", f)
	}
	kinds := func(fs []Finding) string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Kind+":"+f.Field)
		}
		return strings.Join(out, " ")
	}
	// note was optional and is now required; reason is new and required.
	if k := kinds(got["it_2"]); k != "newly_required:note newly_required:reason" {
		t.Errorf("newly required: %s", k)
	}
	if !strings.Contains(got["it_2"][1].Detail, "new required field") || !strings.Contains(got["it_2"][0].Detail, "was optional") {
		t.Errorf("details: %+v", got["it_2"])
	}
	// The dropped enum value, and the date that no longer has the form.
	if k := kinds(got["it_3"]); k != "enum_value_removed:cabin args_invalid:flights[0].date" {
		t.Errorf("enum and args: %s", k)
	}
	if f := got["it_7"]; len(f) != 1 || f[0].Kind != KindToolRemoved || f[0].Suggest != "" {
		t.Errorf("removed: %+v", f)
	}
	c := r.Catalogue
	if strings.Join(c.Removed, ",") != "search_direct_flight" || strings.Join(c.Added, ",") != "find_direct_flights" ||
		strings.Join(c.Changed, ",") != "cancel_reservation,update_flights" || c.Unchanged != 1 {
		t.Errorf("catalogue change %+v", c)
	}
	// Same catalogue: nothing stale.
	if same := Drift(recs[:6], old); same.Stale != 0 || len(same.Catalogue.Changed) != 0 {
		t.Errorf("same catalogue: %+v", same)
	}
	var text, md bytes.Buffer
	r.Gold, r.Tools = "airline@v1", "v2.json"
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4 of 7 items stale", "likely renamed to find_direct_flights", "sample --stale airline@v1"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if !strings.Contains(md.String(), "| `it_3` | 1 | update_flights | enum_value_removed | cabin |") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

func TestSimilarityPrefersTheRename(t *testing.T) {
	tools := shareddata.Path(t, "tau-airline", "airline_tools.json")
	f, err := os.Open(tools)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cat, err := Read(f, tools)
	if err != nil {
		t.Fatal(err)
	}
	// The new catalogue renames search_direct_flight and adds an unrelated
	// tool; tools the item already offered (search_onestop_flight, much
	// alike) are not candidates.
	next := []trace.Tool{tool("book_hotel", "Book a hotel room in a city for some nights.", `{"type":"object","properties":{"city":{"type":"string"},"nights":{"type":"integer"}}}`)}
	for _, c := range cat {
		if c.Name == "search_direct_flight" {
			c.Name = "find_direct_flights"
		}
		next = append(next, c)
	}
	r := Drift([]gold.Record{record("it_1", cat, call("search_direct_flight", `{"origin":"JFK","destination":"SEA","date":"2024-05-25"}`))}, next)
	if len(r.Details) != 1 || r.Details[0].Findings[0].Suggest != "find_direct_flights" {
		t.Errorf("drift %+v", r.Details)
	}
}
