package dataset

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// tau2Schema compiles the hand-written JSON Schema of a τ²-bench task file
// (named .jsonschema: every .json in testdata is read as a trace fixture).
func tau2Schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "tau2_tasks.jsonschema"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("tau2.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := comp.Compile("tau2.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateTau2(t *testing.T, s *jsonschema.Schema, b []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if err := s.Validate(v); err != nil {
		t.Fatalf("not a τ²-bench task file: %v\n%s", err, b)
	}
}

func TestTau2Export(t *testing.T) {
	c, m := formatsVersion(t)
	files := writeFormatFiles(t, c, m, "tau2")
	tasksFile := files["support-v3.tau2.json"]
	schema := tau2Schema(t)
	validateTau2(t, schema, tasksFile)

	var tasks []tau2Task
	decodeStrict(t, tasksFile, &tasks)
	// 5 gold items, 2 of them no-call: 3 tasks.
	if len(tasks) != 3 {
		t.Fatalf("%d tasks, want 3", len(tasks))
	}
	byID := map[string]tau2Task{}
	for _, task := range tasks {
		byID[task.ID] = task
	}
	book, ok := byID[trace.ItemID("tr_nested", 3)]
	if !ok {
		t.Fatalf("no task for the book decision: %v", byID)
	}
	// History up to the decision: user, assistant call, tool result.
	h := book.InitialState.MessageHistory
	if len(h) != 3 || h[0].Role != "user" || h[1].ToolCalls[0].ID != "c1" || h[1].Content != nil || h[2].ID != "c1" || h[2].Requestor != "assistant" {
		t.Errorf("history %+v", h)
	}
	a := book.EvaluationCriteria.Actions
	if len(a) != 1 || a[0].Name != "book" || a[0].ActionID != book.ID+"-1" || !reflect.DeepEqual(a[0].CompareArgs, []string{}) ||
		!reflect.DeepEqual(book.EvaluationCriteria.RewardBasis, []string{"ACTION"}) {
		t.Errorf("actions %+v", book.EvaluationCriteria)
	}
	// flights has an "any" rule inside it, price is optional: neither is
	// compared; the acceptable alternative is an issue.
	var titles []string
	for _, is := range book.Issues {
		titles = append(titles, is.Title)
	}
	joined := strings.Join(titles, "\n")
	for _, want := range []string{"book.flights not compared by τ² (any at /flights/0/seat)", "book.price not compared by τ² (optional)", "1 acceptable alternative"} {
		if !strings.Contains(joined, want) {
			t.Errorf("issues lack %q:\n%s", want, joined)
		}
	}
	addr := byID[trace.ItemID("tr_nested", 1)]
	if got := addr.EvaluationCriteria.Actions[0].CompareArgs; !reflect.DeepEqual(got, []string{"order_id"}) {
		t.Errorf("address compare_args %v, want [order_id] (address has fuzzy and any_of rules inside)", got)
	}
	var args map[string]any
	json.Unmarshal(addr.EvaluationCriteria.Actions[0].Arguments, &args)
	if args["order_id"] != "ORD-1" {
		t.Errorf("arguments %v", args)
	}

	report := string(files["support-v3.tau2.report.txt"])
	for _, want := range []string{trace.ItemID("tr_nested", 5) + ": expects no tool call", "update_address.address not compared by τ² (fuzzy at /address/city)"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

func TestTau2ExportEdges(t *testing.T) {
	schema := tau2Schema(t)
	// No calls expected anywhere: an empty task file, still valid.
	empty := versionOf(t, TraceGold{Trace: orderTrace("tr_order"), Answers: []Answer{noCallAnswer(4)}})
	var b bytes.Buffer
	if err := writeTau2Tasks(&b, bytes.NewReader(empty.Bytes()), nil); err != nil {
		t.Fatal(err)
	}
	validateTau2(t, schema, b.Bytes())

	// History without call ids, an empty assistant message and arguments
	// that are not JSON: ids are made up and matched, the rest reported.
	tr := trace.Trace{ID: "tr_odd", Tools: []trace.Tool{{Name: "f"}},
		Messages: []trace.Message{
			{Role: "system", Content: "be brief"},
			{Role: "user", Content: "go"},
			{Role: "assistant", Content: ""},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("", "f", `{"a":1}`), trace.NewCall("", "f", `not json`)}},
			{Role: "tool", Content: "one"},
			{Role: "tool", Content: "two"},
			{Role: "assistant", Content: "done"},
		}}
	ans := Answer{Turn: 6, Status: gold.StatusAgreed, Decision: DecisionCall, Rationale: "again",
		Calls: []gold.ExpectedCall{{Tool: "f", Args: json.RawMessage(`{"a":2}`)}}, Reviewers: []string{"alice", "bob"}}
	c := versionOf(t, TraceGold{Trace: tr, Answers: []Answer{ans}})
	b.Reset()
	if err := writeTau2Tasks(&b, bytes.NewReader(c.Bytes()), nil); err != nil {
		t.Fatal(err)
	}
	validateTau2(t, schema, b.Bytes())
	var tasks []tau2Task
	decodeStrict(t, b.Bytes(), &tasks)
	h := tasks[0].InitialState.MessageHistory
	if len(h) != 5 || h[0].Role != "system" || h[2].ToolCalls[0].ID != "call_3_0" || h[3].ID != "call_3_0" || h[4].ID != "call_3_1" {
		t.Fatalf("history %+v", h)
	}
	if string(h[2].ToolCalls[1].Arguments) != "{}" || !reflect.DeepEqual(tasks[0].EvaluationCriteria.Actions[0].CompareArgs, []string{"a"}) {
		t.Errorf("calls %+v / %+v", h[2].ToolCalls, tasks[0].EvaluationCriteria.Actions)
	}
	var report bytes.Buffer
	if err := writeTau2Report(&report, bytes.NewReader(c.Bytes()), nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"message 2: empty assistant message left out", "message 3: call f's arguments are not a JSON object"} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, report.String())
		}
	}
	// The schema catches what τ² refuses: a tool message without its call id.
	bad := bytes.Replace(b.Bytes(), []byte(`{"id":"call_3_1","role":"tool"`), []byte(`{"role":"tool"`), 1)
	if bytes.Equal(bad, b.Bytes()) {
		t.Fatal("no tool message to break")
	}
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if schema.Validate(v) == nil {
		t.Error("the schema accepts a tool message without id")
	}
}
