package dataset

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
)

// nestedAnswer is callAnswer with a nested argument and pointer rules.
func nestedAnswer(rules map[string]gold.ArgRule) Answer {
	a := callAnswer(2)
	a.Calls = []gold.ExpectedCall{{Tool: "get_order_status", Args: json.RawMessage(`{"order_id":"ORD-9182","filter":{"since":"2024-05-01","tags":["a","b"]}}`), ArgRules: rules}}
	return a
}

func TestPointerRulesExportVerifyDiff(t *testing.T) {
	rules := map[string]gold.ArgRule{
		"/filter/since":  {AnyOf: []json.RawMessage{json.RawMessage(` "2024-05-02" `)}},
		"/filter/tags/1": {Optional: true},
		"/order_id":      {Match: gold.MatchFuzzy}, // a top-level pointer is written as the plain key
	}
	a := versionOf(t, TraceGold{Trace: orderTrace("tr_1"), Answers: []Answer{nestedAnswer(rules)}})
	line := string(a.Bytes())
	for _, frag := range []string{`"/filter/since":{"match":"exact","any_of":["2024-05-02"]}`, `"/filter/tags/1":{"match":"exact","optional":true}`, `"order_id":{"match":"fuzzy"}`} {
		if !strings.Contains(line, frag) {
			t.Errorf("export lacks %s:\n%s", frag, line)
		}
	}
	if strings.Contains(line, `"/order_id"`) {
		t.Errorf("top-level pointer not written as the plain key:\n%s", line)
	}
	if _, err := Verify(bytes.NewReader(a.Bytes()), nil); err != nil {
		t.Fatalf("verify: %v", err)
	}

	// A pointer to a path the expected args do not have: refused on export
	// and by verify, naming the rule.
	_, err := BuildLines(TraceGold{Trace: orderTrace("tr_1"), Answers: []Answer{nestedAnswer(map[string]gold.ArgRule{"/filter/until": {Match: gold.MatchFuzzy}})}})
	if err == nil || !strings.Contains(err.Error(), `arg_rules "/filter/until" points to filter.until, which the expected args do not have`) {
		t.Errorf("export of a dangling pointer: %v", err)
	}
	bad := strings.Replace(line, `"arg_rules":{`, `"arg_rules":{"/filter/tags/5":{"match":"exact"},`, 1)
	_, err = Verify(strings.NewReader(bad), nil)
	if err == nil || !strings.Contains(err.Error(), `"/filter/tags/5" points to filter.tags[5]`) {
		t.Errorf("verify of a dangling pointer: %v", err)
	}

	// diff names the pointer rule that changed.
	rules["/filter/since"] = gold.ArgRule{Match: gold.MatchFuzzy}
	b := versionOf(t, TraceGold{Trace: orderTrace("tr_1"), Answers: []Answer{nestedAnswer(rules)}})
	d, err := DiffSources(Source{"a", bytes.NewReader(a.Bytes())}, Source{"b", bytes.NewReader(b.Bytes())})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changed) != 1 || strings.Join(d.Changed[0].Kinds, ",") != "rules" {
		t.Fatalf("diff %+v", d)
	}
	var paths []string
	for _, f := range d.Changed[0].Fields {
		paths = append(paths, f.Path)
	}
	want := `expected_calls[0].arg_rules["/filter/since"].match`
	if !strings.Contains(strings.Join(paths, "\n"), want) {
		t.Errorf("diff paths %q lack %s", paths, want)
	}
}
