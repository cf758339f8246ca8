package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/goldtrace/goldtrace/review"
)

var labelCallsSamples = []string{
	`[]`,
	`null`,
	`[{"tool":"get_weather","args":{"city":"Paris","days":3}}]`,
	`[{"tool":"a","args":{}},{"tool":"b","args":{"x":[1,{"y":"}]\""}]}}]`,
	`[{"args":{"q":"x"},"tool":"search"}]`,
	`[ {"tool" : "a" , "args" : { "k" : "v" } } ]`,
	`[{"tool":"a"}]`,
	`[{}]`,
	`[{"tool":"a","args":null}]`,
	`[{"tool":"a","args":"text"}]`,
	`[{"tool":"a","args":[1,2]}]`,
	`[{"tool":"a","tool":"b","args":{"n":1},"args":{"n":2}}]`,
	`[{"Tool":"a","ARGS":{"n":1}}]`,
	`[{"tool":"caf\u00e9","args":{}}]`,
	"[{\"tool\":\"caf\xe9\",\"args\":{}}]",
	`[{"tool":"a","args":{},"extra":1}]`,
	`[{"tool":1,"args":{}}]`,
	`[null]`,
	`[{"tool":"a","args":{}}`,
	`[{"tool":"a","args":{}}] x`,
	`{"tool":"a"}`,
	``,
}

// decodeLabelCalls must give exactly what json.Unmarshal gives: the lead's
// agreement numbers depend on it.
func TestDecodeLabelCallsMatchesEncodingJSON(t *testing.T) {
	for _, raw := range labelCallsSamples {
		checkLabelCallsDecode(t, raw)
	}
}

func FuzzDecodeLabelCalls(f *testing.F) {
	for _, raw := range labelCallsSamples {
		f.Add(raw)
	}
	f.Fuzz(checkLabelCallsDecode)
}

func checkLabelCallsDecode(t *testing.T, raw string) {
	var want []review.LabelCall
	wantErr := json.Unmarshal([]byte(raw), &want)
	var g labelGrouper
	got, err := decodeLabelCalls([]byte(raw), g.intern)
	if (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%q: error %v, encoding/json says %v", raw, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: got %#v, encoding/json gives %#v", raw, got, want)
	}
}

// The store's own shape takes the fast path (else the status is slow again).
func TestFastLabelCallsTakesStoreShape(t *testing.T) {
	calls := []review.LabelCall{{Tool: "search", Args: json.RawMessage(`{"n":1.5,"q":"a \"b\""}`)}, {Tool: "mail", Args: json.RawMessage(`{}`)}}
	raw, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	var g labelGrouper
	got, ok := fastLabelCalls(raw, g.intern)
	if !ok || !reflect.DeepEqual(got, calls) {
		t.Fatalf("fastLabelCalls(%s) = %#v, %v", raw, got, ok)
	}
}
