package dataset

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// nestedTrace offers a tool with an object argument and one with a list of
// objects; its observed call updates an address.
func nestedTrace(id string) trace.Trace {
	return trace.Trace{
		ID:        id,
		Timestamp: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		Metadata:  map[string]string{"cohort": "travel"},
		Tools: []trace.Tool{
			{Name: "update_address", Description: "Change the delivery address.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"},"address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}}}},"required":["order_id","address"]}`)},
			{Name: "book", Description: "Book flights.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"flights":{"type":"array","items":{"type":"object","properties":{"date":{"type":"string"},"seat":{"type":"string"}}}},"price":{"type":"number"}}}`)},
		},
		Messages: []trace.Message{
			{Role: "user", Content: "ship it to Berlin 10115 instead, and book me the 9 May flight"},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", "update_address", `{"order_id":"ORD-1","address":{"city":"berlin","zip":"10115"}}`)}},
			{Role: "tool", ToolCallID: "c1", Name: "update_address", Content: "ok"},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c2", "book", `{"flights":[{"date":"2026-05-09","seat":"12A"}],"price":120}`)}},
			{Role: "tool", ToolCallID: "c2", Name: "book", Content: "booked"},
			{Role: "assistant", Content: "Done."},
		},
	}
}

// formatsVersion is a version whose gold uses nested pointer rules, fuzzy
// and any matches, optional arguments, any_of, an acceptable list and a
// no-call item.
func formatsVersion(t *testing.T) (Content, Manifest) {
	t.Helper()
	addr := Answer{Turn: 1, Status: gold.StatusAdjudicated, Decision: DecisionCall, Rationale: "the user gave the new address",
		Calls: []gold.ExpectedCall{{Tool: "update_address", Args: json.RawMessage(`{"order_id":"ORD-1","address":{"city":"Berlin","zip":"10115"}}`),
			ArgRules: map[string]gold.ArgRule{"/address/city": {Match: gold.MatchFuzzy}, "/address/zip": {AnyOf: []json.RawMessage{json.RawMessage(`"10117"`)}}}}},
		Reviewers: []string{"alice", "bob"}, Adjudicator: "carol", GuideVersion: "g_1a2b3c4d5e6f"}
	book := Answer{Turn: 3, Status: gold.StatusAgreed, Decision: DecisionCall, Rationale: "one flight",
		Calls: []gold.ExpectedCall{{Tool: "book", Args: json.RawMessage(`{"flights":[{"date":"2026-05-09","seat":"12A"}],"price":120}`),
			ArgRules: map[string]gold.ArgRule{"/flights/0/seat": {Match: gold.MatchAny}, "price": {Optional: true}}}},
		Acceptable: [][]gold.ExpectedCall{{{Tool: "book", Args: json.RawMessage(`{"flights":[{"date":"2026-05-09","seat":"14C"}]}`)}}},
		Reviewers:  []string{"alice", "bob"}, GuideVersion: "g_1a2b3c4d5e6f"}
	none := Answer{Turn: 5, Status: gold.StatusAgreed, Decision: DecisionNoCall, Rationale: "just confirm",
		Reviewers: []string{"alice", "bob"}, GuideVersion: "g_1a2b3c4d5e6f"}
	c := versionOf(t, TraceGold{Trace: nestedTrace("tr_nested"), Answers: []Answer{addr, book, none}},
		TraceGold{Trace: orderTrace("tr_order"), Answers: []Answer{callAnswer(2), noCallAnswer(4)}})
	alpha, kappa := 0.8123, 0.75
	m := NewManifest(VersionInfo{Name: "support", Version: 3, ParentVersion: 2, CreatedAt: time.Date(2026, 5, 3, 0, 0, 0, 0, time.UTC),
		CreatedBy: "carol", Message: "nested rules", Labels: LabelAgreement{AlphaTool: &alpha, KappaTool: &kappa}}, c)
	return c, m
}

// writeFormatFiles writes every file of format into a map path → bytes.
func writeFormatFiles(t *testing.T, c Content, m Manifest, format string) map[string][]byte {
	t.Helper()
	files, err := FormatFiles(m.Name, m.Version, format)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		var a, b bytes.Buffer
		if err := f.Write(&a, bytes.NewReader(c.Bytes()), &m); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if err := f.Write(&b, bytes.NewReader(c.Bytes()), &m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s is not deterministic", f.Path)
		}
		out[f.Path] = a.Bytes()
	}
	return out
}

// decodeStrict decodes one JSON value into v, refusing fields v does not
// name (the consumer's documented schema).
func decodeStrict(t *testing.T, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
}

func jsonlRows(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var rows [][]byte
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if !json.Valid(l) {
			t.Fatalf("invalid JSON line %s", l)
		}
		rows = append(rows, l)
	}
	return rows
}

func TestFormatFilesUnknownFormat(t *testing.T) {
	if _, err := FormatFiles("support", 1, "csv"); err == nil || !strings.Contains(err.Error(), "bfcl") {
		t.Errorf("unknown format: %v, want an error listing the formats", err)
	}
	for _, f := range Formats {
		if _, err := FormatFiles("support", 1, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestBFCLExport reads the files as BFCL's AST checker does: questions with
// BFCL's type names, possible answers as {tool: {param: [values]}} with
// nested possible answers for object arguments, "" for optional ones.
func TestBFCLExport(t *testing.T) {
	c, m := formatsVersion(t)
	files := writeFormatFiles(t, c, m, "bfcl")
	type question struct {
		ID       string             `json:"id"`
		Question [][]map[string]any `json:"question"`
		Function []map[string]any   `json:"function"`
	}
	for _, row := range jsonlRows(t, files["support-v3.bfcl.jsonl"]) {
		var q question
		decodeStrict(t, row, &q)
		if len(q.Question) != 1 || len(q.Question[0]) == 0 || len(q.Function) == 0 {
			t.Errorf("question %s: want one turn of messages and the functions", q.ID)
		}
		if strings.Contains(string(row), `"type":"object"`) || strings.Contains(string(row), `"type":"number"`) {
			t.Errorf("question %s keeps JSON Schema type names BFCL does not know: %s", q.ID, row)
		}
	}
	answers := map[string][]map[string]map[string][]any{}
	for _, row := range jsonlRows(t, files["support-v3.bfcl.possible_answer.jsonl"]) {
		var a struct {
			ID          string                        `json:"id"`
			GroundTruth []map[string]map[string][]any `json:"ground_truth"`
		}
		decodeStrict(t, row, &a)
		answers[a.ID] = a.GroundTruth
	}
	canon := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	addr := answers[trace.ItemID("tr_nested", 1)]
	if got := canon(addr); got != `[{"update_address":{"address":[{"city":["Berlin"],"zip":["10115","10117"]}],"order_id":["ORD-1"]}}]` {
		t.Errorf("nested possible answer: %s", got)
	}
	book := answers[trace.ItemID("tr_nested", 3)]
	if got := canon(book); got != `[{"book":{"flights":[[{"date":["2026-05-09"],"seat":["12A"]}]],"price":[120,""]}}]` {
		t.Errorf("list-of-objects possible answer: %s", got)
	}
	if got := canon(answers[trace.ItemID("tr_nested", 5)]); got != `[]` {
		t.Errorf("no-call item: ground_truth %s, want []", got)
	}
	report := string(files["support-v3.bfcl.report.txt"])
	for _, want := range []string{
		trace.ItemID("tr_nested", 1) + " update_address /address/city: fuzzy",
		trace.ItemID("tr_nested", 3) + " book /flights/0/seat: any value",
		trace.ItemID("tr_nested", 3) + " acceptable: 1 alternative",
		trace.ItemID("tr_order", 2) + " get_order_status /note: any value",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if n, err := BFCLUnexpressed(bytes.NewReader(c.Bytes())); err != nil || n != 4 {
		t.Errorf("BFCLUnexpressed = %d, %v; want 4", n, err)
	}
}

// TestInspectExport reads the samples with inspect_ai's Sample and
// ChatMessage fields.
func TestInspectExport(t *testing.T) {
	c, m := formatsVersion(t)
	files := writeFormatFiles(t, c, m, "inspect")
	type toolCall struct {
		ID         string         `json:"id"`
		Function   string         `json:"function"`
		Arguments  map[string]any `json:"arguments"`
		Type       string         `json:"type"`
		ParseError string         `json:"parse_error"`
	}
	type message struct {
		Role       string     `json:"role"`
		Content    string     `json:"content"`
		ToolCalls  []toolCall `json:"tool_calls"`
		ToolCallID string     `json:"tool_call_id"`
		Function   string     `json:"function"`
	}
	type sample struct {
		ID       string         `json:"id"`
		Input    []message      `json:"input"`
		Target   []string       `json:"target"`
		Metadata map[string]any `json:"metadata"`
	}
	rows := jsonlRows(t, files["support-v3.inspect.jsonl"])
	if len(rows) != 5 {
		t.Fatalf("%d samples, want 5", len(rows))
	}
	sawParseError := false
	for _, row := range rows {
		var s sample
		decodeStrict(t, row, &s)
		if len(s.Target) == 0 {
			t.Errorf("%s: no target", s.ID)
		}
		for _, tgt := range s.Target {
			var calls []struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			}
			if err := json.Unmarshal([]byte(tgt), &calls); err != nil {
				t.Errorf("%s: target %q is not a call list: %v", s.ID, tgt, err)
			}
		}
		for _, msg := range s.Input {
			for _, tc := range msg.ToolCalls {
				if tc.Type != "function" || tc.Arguments == nil {
					t.Errorf("%s: tool call %+v", s.ID, tc)
				}
				sawParseError = sawParseError || tc.ParseError != ""
			}
			if msg.Role == "tool" && (msg.ToolCallID == "" || msg.Function == "") {
				t.Errorf("%s: tool message without tool_call_id/function: %+v", s.ID, msg)
			}
		}
		for _, k := range []string{"tools", "expected_calls", "acceptable", "trace_id", "rationale"} {
			if _, ok := s.Metadata[k]; !ok {
				t.Errorf("%s: metadata lacks %s", s.ID, k)
			}
		}
	}
	_ = sawParseError // the order trace's unparseable call comes after its decision points
	for _, row := range rows {
		if strings.Contains(string(row), `"id":"`+trace.ItemID("tr_nested", 3)+`"`) &&
			(!strings.Contains(string(row), `"target":["[{\"name\":\"book\"`) || !strings.Contains(string(row), `\"seat\":\"14C\"`)) {
			t.Errorf("acceptable list missing from target: %s", row)
		}
	}
}

// TestDeepEvalExport reads the goldens with deepeval's Golden and ToolCall
// fields.
func TestDeepEvalExport(t *testing.T) {
	c, m := formatsVersion(t)
	files := writeFormatFiles(t, c, m, "deepeval")
	type toolCall struct {
		Name            string         `json:"name"`
		Description     string         `json:"description"`
		Reasoning       string         `json:"reasoning"`
		Output          any            `json:"output"`
		InputParameters map[string]any `json:"input_parameters"`
	}
	var goldens []struct {
		Input              string         `json:"input"`
		ActualOutput       string         `json:"actual_output"`
		ExpectedOutput     string         `json:"expected_output"`
		Context            []string       `json:"context"`
		RetrievalContext   []string       `json:"retrieval_context"`
		AdditionalMetadata map[string]any `json:"additional_metadata"`
		Comments           string         `json:"comments"`
		ToolsCalled        []toolCall     `json:"tools_called"`
		ExpectedTools      []toolCall     `json:"expected_tools"`
		SourceFile         string         `json:"source_file"`
		Name               string         `json:"name"`
	}
	decodeStrict(t, files["support-v3.deepeval.json"], &goldens)
	if len(goldens) != 5 {
		t.Fatalf("%d goldens, want 5", len(goldens))
	}
	byName := map[string]int{}
	for i, g := range goldens {
		byName[g.Name] = i
	}
	g := goldens[byName[trace.ItemID("tr_nested", 1)]]
	if g.Input != "ship it to Berlin 10115 instead, and book me the 9 May flight" || len(g.ExpectedTools) != 1 || g.ExpectedTools[0].Name != "update_address" ||
		g.ExpectedTools[0].InputParameters["order_id"] != "ORD-1" || g.AdditionalMetadata["messages"] == nil {
		t.Errorf("golden %+v", g)
	}
	if none := goldens[byName[trace.ItemID("tr_nested", 5)]]; none.ExpectedTools == nil || len(none.ExpectedTools) != 0 {
		t.Errorf("no-call golden: expected_tools %v, want []", none.ExpectedTools)
	}
}

// TestHFExport checks the card's front matter the Hub reads and that every
// data row has one schema (same keys, same JSON types).
func TestHFExport(t *testing.T) {
	c, m := formatsVersion(t)
	files := writeFormatFiles(t, c, m, "hf")
	card := string(files["support-v3.hf/README.md"])
	front, body, ok := strings.Cut(strings.TrimPrefix(card, "---\n"), "\n---\n")
	if !strings.HasPrefix(card, "---\n") || !ok {
		t.Fatalf("card has no YAML front matter:\n%s", card)
	}
	for _, want := range []string{`pretty_name: "support v3"`, "license: other", "task_categories:\n- text-generation", "size_categories:\n- \"n<1K\"",
		"configs:\n- config_name: default\n  data_files:\n  - split: test\n    path: data/test.jsonl"} {
		if !strings.Contains(front, want) {
			t.Errorf("front matter lacks %q:\n%s", want, front)
		}
	}
	for _, want := range []string{m.SHA256, "| items | 5 |", "Krippendorff's alpha (tool) | 0.8123", "g_1a2b3c4d5e6f", "| update_address | 1 |", "| (none) | 2 |"} {
		if !strings.Contains(body, want) {
			t.Errorf("card body lacks %q", want)
		}
	}
	if py, err := exec.LookPath("python3"); err == nil && exec.Command(py, "-c", "import yaml").Run() == nil {
		// The Hub parses the front matter as YAML.
		path := filepath.Join(t.TempDir(), "front.yaml")
		os.WriteFile(path, []byte(front), 0o644)
		out, err := exec.Command(py, "-c", `import yaml,sys,json; d=yaml.safe_load(open(sys.argv[1])); print(json.dumps(d, sort_keys=True))`, path).CombinedOutput()
		if err != nil {
			t.Fatalf("YAML front matter does not parse: %v\n%s", err, out)
		}
		want := `{"configs": [{"config_name": "default", "data_files": [{"path": "data/test.jsonl", "split": "test"}]}], "license": "other", "pretty_name": "support v3", "size_categories": ["n<1K"], "tags": ["tool-calling", "function-calling", "goldtrace"], "task_categories": ["text-generation"]}`
		if strings.TrimSpace(string(out)) != want {
			t.Errorf("front matter reads as %s", out)
		}
	}
	kinds := func(row []byte) map[string]string {
		var obj map[string]any
		if err := json.Unmarshal(row, &obj); err != nil {
			t.Fatal(err)
		}
		k := map[string]string{}
		for key, v := range obj {
			k[key] = reflect.TypeOf(v).String()
		}
		return k
	}
	rows := jsonlRows(t, files["support-v3.hf/data/test.jsonl"])
	first := kinds(rows[0])
	for _, row := range rows[1:] {
		if got := kinds(row); !reflect.DeepEqual(got, first) {
			t.Errorf("row schema %v differs from the first row's %v", got, first)
		}
	}
	for _, k := range []string{"expected_args", "arg_rules", "tools", "metadata", "messages", "expected_calls", "acceptable"} {
		if first[k] != "string" {
			t.Errorf("%s is %s, want JSON text", k, first[k])
		}
	}
}

// TestOpenAIEvalsExport validates every item against the eval's item_schema
// and runs the python grader (when python3 is installed) on known outputs.
func TestOpenAIEvalsExport(t *testing.T) {
	c, m := formatsVersion(t)
	files := writeFormatFiles(t, c, m, "openai-evals")
	var req struct {
		Name             string `json:"name"`
		DataSourceConfig struct {
			Type                string          `json:"type"`
			ItemSchema          json.RawMessage `json:"item_schema"`
			IncludeSampleSchema bool            `json:"include_sample_schema"`
		} `json:"data_source_config"`
		TestingCriteria []struct {
			Type          string  `json:"type"`
			Name          string  `json:"name"`
			Source        string  `json:"source"`
			PassThreshold float64 `json:"pass_threshold"`
		} `json:"testing_criteria"`
	}
	decodeStrict(t, files["support-v3.openai-evals.eval.json"], &req)
	if req.DataSourceConfig.Type != "custom" || !req.DataSourceConfig.IncludeSampleSchema || len(req.TestingCriteria) != 1 || req.TestingCriteria[0].Type != "python" {
		t.Fatalf("create-eval request %+v", req)
	}
	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(req.DataSourceConfig.ItemSchema))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("item.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	schema, err := comp.Compile("item.json")
	if err != nil {
		t.Fatal(err)
	}
	items := map[int]json.RawMessage{}
	turnOf := map[string]int{trace.ItemID("tr_nested", 1): 0, trace.ItemID("tr_nested", 3): 1, trace.ItemID("tr_nested", 5): 2}
	n := 0
	for _, row := range jsonlRows(t, files["support-v3.openai-evals.items.jsonl"]) {
		var r struct {
			Item json.RawMessage `json:"item"`
		}
		decodeStrict(t, row, &r)
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.Item))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("item does not satisfy item_schema: %v\n%s", err, r.Item)
		}
		var id struct {
			ID string `json:"id"`
		}
		json.Unmarshal(r.Item, &id)
		if k, ok := turnOf[id.ID]; ok {
			items[k] = r.Item
		}
		n++
	}
	if len(jsonlRows(t, files["support-v3.openai-evals.jsonl"])) != n || len(items) != 3 {
		t.Error("legacy rows and items differ in number")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not installed: the grader is not executed")
		return
	}
	call := func(name, args string) map[string]any {
		return map[string]any{"id": "c", "type": "function", "function": map[string]string{"name": name, "arguments": args}}
	}
	cases := []struct {
		item  int
		tools []map[string]any
		want  float64
	}{
		{0, []map[string]any{call("update_address", `{"order_id":"ORD-1","address":{"city":" BERLIN","zip":"10117"}}`)}, 1},
		{0, []map[string]any{call("update_address", `{"order_id":"ORD-1","address":{"city":"Berlin","zip":"99999"}}`)}, 0},
		{1, []map[string]any{call("book", `{"flights":[{"date":"2026-05-09","seat":"1A"}]}`)}, 1},
		{1, []map[string]any{call("book", `{"flights":[{"date":"2026-05-10","seat":"12A"}],"price":120}`)}, 0},
		{1, []map[string]any{call("book", `{"flights":[{"date":"2026-05-09","seat":"14C"}]}`)}, 1},
		{2, nil, 1},
		{2, []map[string]any{call("book", `{}`)}, 0},
	}
	var script strings.Builder
	script.WriteString(req.TestingCriteria[0].Source + "\nimport json\n")
	for _, tc := range cases {
		sample, _ := json.Marshal(map[string]any{"output_text": "", "output_tools": tc.tools})
		script.WriteString("print(grade(json.loads(" + pyString(string(sample)) + "), json.loads(" + pyString(string(items[tc.item])) + ")))\n")
	}
	out, err := exec.Command(py, "-c", script.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("python grader: %v\n%s", err, out)
	}
	got := strings.Fields(string(out))
	for i, tc := range cases {
		if i >= len(got) || got[i] != map[float64]string{0: "0.0", 1: "1.0"}[tc.want] {
			t.Errorf("case %d: grade = %v, want %v (%s)", i, got, tc.want, out)
		}
	}
}

// pyString is s as a python string literal.
func pyString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
