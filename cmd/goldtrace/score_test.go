package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
)

var scoreTestTools = []trace.Tool{
	{Name: "get_order_status", Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}}}`)},
	{Name: "refund", Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"},"amount":{"type":"number"}}}`)},
}

// scoreTestGold writes three gold records: two calls and one no-call.
func scoreTestGold(t *testing.T, dir string) string {
	t.Helper()
	tool := "get_order_status"
	recs := []gold.Record{
		{ID: "it_a", ExpectedTool: &tool, ExpectedCalls: []gold.ExpectedCall{{Tool: tool, Args: json.RawMessage(`{"order_id":"A1"}`)}},
			ObservedCalls: []gold.ObservedCall{{Tool: tool, Args: json.RawMessage(`{"order_id":"A1"}`)}}},
		{ID: "it_b", ExpectedTool: &tool, ExpectedCalls: []gold.ExpectedCall{{Tool: tool, Args: json.RawMessage(`{"order_id":"B2"}`)}},
			ObservedCalls: []gold.ObservedCall{{Tool: "refund", Args: json.RawMessage(`{"order_id":"B2"}`)}}},
		{ID: "it_c", ExpectedCalls: []gold.ExpectedCall{}, ObservedCalls: []gold.ObservedCall{}},
	}
	var buf bytes.Buffer
	for i, r := range recs {
		r.AvailableTools = scoreTestTools
		r.Input.Context.Metadata = map[string]string{"cohort": []string{"billing", "shipping", "billing"}[i]}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return scoreTestWrite(t, dir, "gold.jsonl", buf.String())
}

func scoreTestWrite(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func scoreTestRun(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	out, errOut, _, err := runCLI(filepath.Join(t.TempDir(), "gt.db"), "", append([]string{"score"}, args...)...)
	return out, errOut, err
}

func TestScoreCommand(t *testing.T) {
	dir := t.TempDir()
	gold := scoreTestGold(t, dir)
	goodPred := scoreTestWrite(t, dir, "good.jsonl",
		`{"id":"it_a","tool_calls":[{"name":"get_order_status","arguments":{"order_id":"A1"}}]}
{"id":"it_b","tool_calls":[{"type":"function","function":{"name":"get_order_status","arguments":"{\"order_id\": \"B2\"}"}}]}
{"id":"it_c","tool_calls":[]}
`)
	badArgs := scoreTestWrite(t, dir, "badargs.jsonl",
		`{"id":"it_a","tool_calls":[{"function":{"name":"get_order_status","arguments":"{order_id: A1"}}]}
{"id":"it_c","tool_calls":[{"function":{"name":"refund","arguments":"{\"order_id\":"}}]}
`)
	unknown := scoreTestWrite(t, dir, "unknown.jsonl", `{"id":"it_a"}
{"id":"it_zz","tool_calls":[]}
`)
	badGold := scoreTestWrite(t, dir, "badgold.jsonl", `{"id":"it_a","expected_calls":[]}
{"id":"it_b","expected_calls":[{"tool":"x","args":[1]}]}
`)

	t.Run("observed calls by default", func(t *testing.T) {
		out, _, err := scoreTestRun(t, "--gold", gold, "--by", "meta.cohort")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"3 items", "exact_call                 0.6667", "wrong_tool", "it_b", "BY meta.cohort"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("predictions in both call shapes", func(t *testing.T) {
		out, _, err := scoreTestRun(t, "--gold", gold, "--pred", goodPred, "--json", "--min", "exact_call=1")
		if err != nil {
			t.Fatal(err)
		}
		var r score.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Overall.Correct != 3 || !r.Passed || r.Predictions != goodPred {
			t.Errorf("report %+v", r.Overall)
		}
	})
	t.Run("unparseable arguments are flagged, missing predictions listed", func(t *testing.T) {
		_, _, err := scoreTestRun(t, "--gold", gold, "--pred", badArgs, "--json")
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "no prediction for 1 of 3 gold items (first: it_b)") {
			t.Fatalf("a missing prediction without --allow-missing: %v", err)
		}
		out, _, err := scoreTestRun(t, "--gold", gold, "--pred", badArgs, "--json", "--allow-missing")
		if err != nil {
			t.Fatal(err)
		}
		var r score.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		kinds := map[string]score.ErrorKind{}
		for _, it := range r.Items {
			kinds[it.ID] = it.Kind
		}
		if kinds["it_a"] != score.KindUnparseableArgs || kinds["it_c"] != score.KindShouldNotCall || kinds["it_b"] != score.KindShouldCall {
			t.Errorf("kinds %v", kinds)
		}
		if len(r.MissingPredictions) != 1 || r.MissingPredictions[0] != "it_b" {
			t.Errorf("missing %v", r.MissingPredictions)
		}
		if v, _ := r.Overall.Value("unparseable_rate"); v != 1 {
			t.Errorf("unparseable_rate %v", v)
		}
	})
	t.Run("--allow-missing: the count is in every report format", func(t *testing.T) {
		for format, want := range map[string]string{
			"text":     "no prediction for 1 item ",
			"markdown": "1 items had no prediction",
			"junit":    `<property name="missing_predictions" value="1">`,
			"json":     `"missing_predictions": [`,
		} {
			out, _, err := scoreTestRun(t, "--gold", gold, "--pred", badArgs, "--allow-missing", "--format", format)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", format, want, out)
			}
		}
	})
	t.Run("failed gate exits 1", func(t *testing.T) {
		_, _, err := scoreTestRun(t, "--gold", gold, "--min", "exact_call=0.9")
		if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "exact_call >= 0.9") {
			t.Fatalf("err %v (code %d)", err, exitCode(err))
		}
	})
	t.Run("baseline regression exits 1 naming the metric", func(t *testing.T) {
		base := filepath.Join(dir, "base.json")
		if _, _, err := scoreTestRun(t, "--gold", gold, "--pred", goodPred, "--format", "json", "--out", base); err != nil {
			t.Fatal(err)
		}
		_, _, err := scoreTestRun(t, "--gold", gold, "--baseline", base, "--min-support", "1")
		if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "baseline exact_call drop") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("max gate and bfcl profile", func(t *testing.T) {
		dotted := scoreTestWrite(t, dir, "dotted.jsonl", `{"id":"it_a","tool_calls":[{"name":"get_order_status","arguments":{"order_id":"a 1"}}]}
{"id":"it_b","tool_calls":[{"name":"lookup","arguments":{}}]}
{"id":"it_c"}
`)
		_, _, err := scoreTestRun(t, "--gold", gold, "--pred", dotted, "--max", "hallucinated_tool_rate=0.1")
		if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "hallucinated_tool_rate <= 0.1") {
			t.Fatalf("--max: err %v", err)
		}
		out, _, err := scoreTestRun(t, "--gold", gold, "--pred", dotted, "--profile", "bfcl", "--json")
		if err != nil {
			t.Fatal(err)
		}
		var r score.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		// BFCL normalises "a 1" to "a1" and "A1" to "a1".
		if r.Profile != "bfcl" || !r.Items[0].Correct {
			t.Errorf("bfcl profile: %+v", r.Items[0])
		}
	})
	t.Run("seed profiles", func(t *testing.T) {
		pred := scoreTestWrite(t, dir, "seed.jsonl", `{"id":"it_a","tool_calls":[{"name":"get_order_status","arguments":{"order_id":"a1 "},"error":null}]}
{"id":"it_b","tool_calls":[{"function":{"name":"refund","arguments":"{\"order_id\":\"B2\"}"},"error":"timeout"}]}
{"id":"it_c","tool_calls":[]}
`)
		item := func(args ...string) []map[string]any {
			t.Helper()
			out, _, err := scoreTestRun(t, append([]string{"--gold", gold, "--pred", pred, "--json"}, args...)...)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Items []map[string]any `json:"items"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			return r.Items
		}
		check := func(items []map[string]any, key string, want ...any) {
			t.Helper()
			for i, w := range want {
				if items[i][key] != w {
					t.Errorf("item %d %s = %v, want %v", i, key, items[i][key], w)
				}
			}
		}
		// pipeline: refund is the wrong name with the right shape; no call
		// on a no-call item matches None and {}.
		items := item("--profile", "pipeline")
		check(items, "tool_name_match", 1.0, 0.0, 1.0)
		check(items, "tool_args_shape_match", 1.0, 1.0, 1.0)
		// tutorial, fuzzy: "a1 " = "A1"; it_b pairs refund's args with the
		// expected call's (positional) → params 1, composite .4; it_c: .6.
		items = item("--profile", "tutorial", "--param-mode", "fuzzy")
		check(items, "composite_score", 1.0, 0.4, 0.6)
		check(items, "avg_param_accuracy", 1.0, 1.0, 0.0)
		// futureagi: it_b covers nothing and failed: (.4·0+.3·1+.3·0)/1.
		items = item("--profile", "futureagi")
		check(items, "tool_selection_accuracy", 1.0, 0.3, 1.0)
		check(items, "coverage", 1.0, 0.0, nil)
		check(items, "call_success", 1.0, 0.0, nil)
		_, _, err := scoreTestRun(t, "--gold", gold, "--pred", pred, "--profile", "tutorial", "--min", "composite_score=0.7")
		if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "composite_score >= 0.7") {
			t.Errorf("composite gate: %v", err)
		}
		out, _, err := scoreTestRun(t, "--gold", gold, "--pred", pred, "--profile", "futureagi")
		if err != nil || !strings.Contains(out, "PROFILE futureagi") || !strings.Contains(out, "invalid_tool_rate") {
			t.Errorf("text report (%v):\n%s", err, out)
		}
	})
	t.Run("junit", func(t *testing.T) {
		out, _, err := scoreTestRun(t, "--gold", gold, "--format", "junit")
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		}
		if err := xml.Unmarshal([]byte(out), &v); err != nil || v.Tests != 3 || v.Failures != 1 {
			t.Fatalf("junit %+v %v:\n%s", v, err, out)
		}
	})
	t.Run("allow-unknown ignores unknown prediction ids", func(t *testing.T) {
		_, stderr, err := scoreTestRun(t, "--gold", gold, "--pred", unknown, "--allow-unknown", "--allow-missing", "--json")
		if err != nil || !strings.Contains(stderr, "ignored 1 predictions for items not in the gold") {
			t.Fatalf("err %v, stderr %q", err, stderr)
		}
	})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown prediction id", []string{"--gold", gold, "--pred", unknown}, unknown + ":2: prediction id it_zz is not in the gold"},
		{"duplicate prediction", []string{"--gold", gold, "--pred", scoreTestWrite(t, dir, "dup.jsonl", "{\"id\":\"it_a\"}\n\n{\"id\":\"it_a\"}\n")}, "dup.jsonl:3: duplicate prediction for it_a (first on line 1)"},
		{"prediction without id", []string{"--gold", gold, "--pred", scoreTestWrite(t, dir, "noid.jsonl", "{\"tool_calls\":[]}\n")}, "noid.jsonl:1: prediction without id"},
		{"bad profile", []string{"--gold", gold, "--profile", "strict"}, "--profile must be one of default, bfcl, pipeline, tutorial, futureagi"},
		{"param mode without tutorial", []string{"--gold", gold, "--param-mode", "fuzzy"}, "--param-mode and --weights apply to --profile tutorial only"},
		{"bad weights", []string{"--gold", gold, "--profile", "tutorial", "--weights", "1,2"}, "--weights: weights \"1,2\": want three numbers"},
		{"bad param mode", []string{"--gold", gold, "--profile", "tutorial", "--param-mode", "loose"}, "--param-mode: param mode must be exact, subset or fuzzy"},
		{"min on a lower-is-better rate", []string{"--gold", gold, "--min", "unparseable_rate=0.1"}, "use --max"},
		{"bad gold line", []string{"--gold", badGold}, badGold + ":2: expected call x: args must be a JSON object"},
		{"dangling pointer rule", []string{"--gold", scoreTestWrite(t, dir, "ptr.jsonl", `{"id":"it_a","expected_calls":[{"tool":"book","args":{"flights":[{"date":"d"}]},"arg_rules":{"/flights/1/date":{"optional":true}}}]}`+"\n")},
			`ptr.jsonl:1: expected call book: arg_rules "/flights/1/date" points to flights[1], which the expected args do not have (an array of 1)`},
		{"dataset version without a database", []string{"--gold", "support@v3"}, "no goldtrace database at "},
		{"bad dataset reference", []string{"--gold", "support@vx"}, "version must look like v1"},
		{"bad gate", []string{"--gold", gold, "--min", "accuracy=0.9"}, `unknown metric "accuracy"`},
		{"bad format", []string{"--gold", gold, "--format", "yaml"}, "--format must be one of"},
		{"bad by", []string{"--gold", gold, "--by", "cohort"}, "want meta.NAME"},
		{"missing gold file", []string{"--gold", filepath.Join(dir, "nope.jsonl")}, "no such file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := scoreTestRun(t, tt.args...)
			if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v (code %d); want exit 2 with %q", err, exitCode(err), tt.want)
			}
		})
	}
}

// TestScoreStoredVersion scores an exported version by NAME@vN and by its
// file: the same report.
func TestScoreStoredVersion(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	expSeed(t, db, expGolds())
	if _, stderr, code := expRun(t, db, "export", "support", "--out", dir, "--as", "carol"); code != 0 {
		t.Fatal(stderr)
	}
	stored, stderr, code := expRun(t, db, "score", "--gold", "support@v1", "--json", "--by", "meta.cohort")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	file, stderr, code := expRun(t, db, "score", "--gold", filepath.Join(dir, "support-v1.jsonl"), "--json", "--by", "meta.cohort")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var a, b score.Report
	if err := json.Unmarshal([]byte(stored), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(file), &b); err != nil {
		t.Fatal(err)
	}
	if a.Gold != "support@v1" || a.Overall.Items != 4 {
		t.Fatalf("stored report: gold %q, %d items", a.Gold, a.Overall.Items)
	}
	a.Gold, b.Gold = "", ""
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("NAME@vN and file reports differ:\n%s\n%s", ja, jb)
	}
	// The observed calls of tr_1 turn 2 match the gold; the no-call turns
	// made no call; tr_2r called get_order_status where refund was wanted.
	if a.Overall.Correct != 3 || a.Overall.ErrorKinds[score.KindWrongTool] != 1 {
		t.Errorf("overall %+v", a.Overall)
	}
}

// TestScorePredictionsFromTraces reads predictions as canonical traces,
// matched to the exported gold items by input hash.
func TestScorePredictionsFromTraces(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	expSeed(t, db, expGolds())
	if _, stderr, code := expRun(t, db, "export", "support", "--out", dir, "--as", "carol"); code != 0 {
		t.Fatal(stderr)
	}
	// A new run: tr_2r now calls refund (right), tr_1 is not in the file.
	fixed := expTrace("tr_2r", "refunds")
	fixed.Messages[2].ToolCalls = []trace.Call{trace.NewCall("c1", "refund", `{}`)}
	var buf bytes.Buffer
	for _, tr := range []trace.Trace{fixed, expTrace("tr_3", "billing")} {
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	runs := scoreTestWrite(t, dir, "run.jsonl", buf.String())
	out, stderr, code := expRun(t, db, "score", "--gold", "support@v1", "--pred", runs, "--pred-format", "trace", "--json", "--allow-missing")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r score.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	missing := map[string]bool{}
	for _, id := range r.MissingPredictions {
		missing[id] = true
	}
	if len(missing) != 2 || !missing[trace.ItemID("tr_1", 2)] || !missing[trace.ItemID("tr_1", 4)] {
		t.Errorf("missing %v, want the two tr_1 items", r.MissingPredictions)
	}
	for _, it := range r.Items {
		if it.ID == trace.ItemID("tr_2r", 2) && !it.Correct {
			t.Errorf("tr_2r turn 2 matched by input hash should be correct: %+v", it)
		}
	}
	if _, stderr, code := expRun(t, db, "score", "--gold", "support@v1", "--pred", runs, "--pred-format", "csv"); code != 2 || !strings.Contains(stderr, "--pred-format must be one of") {
		t.Errorf("bad --pred-format: exit %d %s", code, stderr)
	}
}

// TestScoreRefusesSwappedFiles: the README's CI gate with --gold and --pred
// swapped, or a file of ids as gold, is exit 2 with one line saying which
// file looks like what, never a PASS.
func TestScoreRefusesSwappedFiles(t *testing.T) {
	dir := t.TempDir()
	gold := filepath.Join(dir, ciProject(t, dir))
	db := filepath.Join(dir, "goldtrace.db")
	run := filepath.Join(dir, "run.jsonl")
	writeRun(t, gold, run, 0)
	ids := filepath.Join(dir, "ids.jsonl")
	writeFile(t, ids, `{"id":"it_0000000000000001"}`+"\n")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--gold", run, "--pred", gold}, run + ":1: this is a prediction, not a gold record (it has tool_calls and no expected_calls or expected_tool): are --gold and --pred swapped?"},
		{[]string{"--gold", gold, "--pred", gold}, gold + ":1: this is a gold record, not a prediction"},
		{[]string{"--gold", ids, "--pred", run}, ids + ":1: not a gold record: it has neither expected_calls nor expected_tool"},
	} {
		out, errOut, code := expRun(t, db, append([]string{"score", "--min", "exact_call=0.85"}, tt.args...)...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) || strings.Contains(out, "PASS") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tt.args, code, out, errOut, tt.want)
		}
	}
	if _, errOut, code := expRun(t, db, "score", "--gold", gold, "--pred", run, "--min", "exact_call=0.85"); code != 0 {
		t.Errorf("the right way round: exit %d %s", code, errOut)
	}
}
