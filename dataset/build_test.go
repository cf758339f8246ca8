package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// orderTrace is a support conversation with two decision points: turn 2
// (the model called get_order_history) and turn 4 (it answered in text).
func orderTrace(id string) trace.Trace {
	return trace.Trace{
		ID:        id,
		Timestamp: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		Metadata:  map[string]string{"cohort": "billing", "model": "m1"},
		Tools: []trace.Tool{
			{Name: "get_order_status", Description: "Shipping status of one order.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`)},
			{Name: "get_order_history", Parameters: json.RawMessage(`{"type":"object"}`)},
		},
		Messages: []trace.Message{
			{Role: "system", Content: "You are a support agent. <b>Be kind</b> & brief."},
			{Role: "user", Content: "where's my package?"},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", "get_order_history", `{"user_id": "u_9"}`)}},
			{Role: "tool", ToolCallID: "c1", Name: "get_order_history", Content: "[ORD-9182]"},
			{Role: "assistant", Content: "Your order ORD-9182 ships tomorrow.", ToolCalls: []trace.Call{trace.NewCall("c2", "get_order_status", `{order_id: ORD-9182`)}},
		},
	}
}

func callAnswer(turn int) Answer {
	return Answer{
		Turn: turn, Status: gold.StatusAdjudicated, Decision: DecisionCall,
		Calls: []gold.ExpectedCall{{Tool: "get_order_status", Args: json.RawMessage(`{ "order_id" : "ORD-9182" }`),
			ArgRules: map[string]gold.ArgRule{"note": {Optional: true, Match: gold.MatchAny}}}},
		Rationale: "User has one open order; status lookup is sufficient.",
		Reviewers: []string{"alice", "bob"}, Adjudicator: "carol", GuideVersion: "g_1a2b3c4d5e6f",
	}
}

func noCallAnswer(turn int) Answer {
	return Answer{Turn: turn, Status: gold.StatusAgreed, Decision: DecisionNoCall, Rationale: "answer in text",
		Reviewers: []string{"alice", "bob"}, GuideVersion: "g_1a2b3c4d5e6f"}
}

func TestBuildLinesWritesTheDesignShape(t *testing.T) {
	lines, err := BuildLines(TraceGold{Trace: orderTrace("tr_0001"), Answers: []Answer{callAnswer(2), noCallAnswer(4)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("got %d lines", len(lines))
	}
	want := `{"id":"` + trace.ItemID("tr_0001", 2) + `","input":{"messages":[{"role":"system","content":"You are a support agent. <b>Be kind</b> & brief."},{"role":"user","content":"where's my package?"}],` +
		`"context":{"trace_id":"tr_0001","turn":2,"metadata":{"cohort":"billing","model":"m1"}}},` +
		`"available_tools":[{"name":"get_order_status","description":"Shipping status of one order.","parameters":{"properties":{"order_id":{"type":"string"}},"required":["order_id"],"type":"object"}},{"name":"get_order_history","parameters":{"type":"object"}}],` +
		`"catalogue":{"get_order_history":"959b2a501ef2e649","get_order_status":"db3faf413581be81"},` +
		`"expected_tool":"get_order_status","expected_args":{"order_id":"ORD-9182"},` +
		`"expected_calls":[{"tool":"get_order_status","args":{"order_id":"ORD-9182"},"arg_rules":{"note":{"match":"any","optional":true},"order_id":{"match":"exact"}}}],` +
		`"acceptable":[],"rationale":"User has one open order; status lookup is sufficient.",` +
		`"observed_calls":[{"tool":"get_order_history","args":{"user_id":"u_9"}}],` +
		`"provenance":{"status":"adjudicated","reviewers":["alice","bob"],"adjudicator":"carol","guide_version":"g_1a2b3c4d5e6f"}}`
	if got := string(lines[0].Bytes()); got != want {
		t.Errorf("call record:\n got %s\nwant %s", got, want)
	}
	// The catalogue is the hashes of the tools as the record writes them.
	rec, err := DecodeRecord([]byte(want))
	if err != nil {
		t.Fatal(err)
	}
	if cat, err := gold.CatalogueOf(rec.AvailableTools); err != nil || !maps.Equal(cat, rec.Catalogue) {
		t.Errorf("catalogue %v, tools hash to %v (%v)", rec.Catalogue, cat, err)
	}
	// The first record format has no catalogue, and is otherwise the same.
	v1, err := NewBuilderFormat(gold.RecordFormat1).Lines(TraceGold{Trace: orderTrace("tr_0001"), Answers: []Answer{callAnswer(2)}})
	if err != nil {
		t.Fatal(err)
	}
	cat := `"catalogue":{"get_order_history":"959b2a501ef2e649","get_order_status":"db3faf413581be81"},`
	if got := string(v1[0].Bytes()); got != strings.Replace(want, cat, "", 1) {
		t.Errorf("format 1 record:\n got %s", got)
	}
	if v1[0].Hash != lines[0].HashAs(gold.RecordFormat1) {
		t.Errorf("format 1 hash %s, format 2 line's as format 1 %s", v1[0].Hash, lines[0].HashAs(gold.RecordFormat1))
	}
	noCall := string(lines[1].Bytes())
	for _, frag := range []string{`"expected_tool":null,"expected_args":null,"expected_calls":[]`,
		`"observed_calls":[{"tool":"get_order_status","args":"{order_id: ORD-9182","unparseable":true}]`,
		`"adjudicator":null`, `"turn":4`} {
		if !strings.Contains(noCall, frag) {
			t.Errorf("no-call record lacks %s:\n%s", frag, noCall)
		}
	}
	if lines[1].Tool != trace.NoTool || lines[0].Tool != "get_order_status" {
		t.Errorf("tools: %q %q", lines[0].Tool, lines[1].Tool)
	}
	for _, l := range lines {
		if _, err := DecodeRecord(l.Bytes()); err != nil {
			t.Errorf("built line does not decode strictly: %v", err)
		}
	}
}

func TestBuildLinesRejectsInconsistentGold(t *testing.T) {
	tests := []struct {
		name   string
		answer func() Answer
		want   string
	}{
		{"no_call with calls", func() Answer { a := callAnswer(2); a.Decision = DecisionNoCall; return a }, "decision no_call"},
		{"call without calls", func() Answer { a := noCallAnswer(2); a.Decision = DecisionCall; return a }, "no expected calls"},
		{"turn not assistant", func() Answer { return callAnswer(1) }, "no assistant message at turn 1"},
		{"turn out of range", func() Answer { return callAnswer(9) }, "no assistant message at turn 9"},
		{"wrong item id", func() Answer { a := callAnswer(2); a.ItemID = "it_0000000000000000"; return a }, "does not match"},
		{"bad rule", func() Answer {
			a := callAnswer(2)
			a.Calls[0].ArgRules = map[string]gold.ArgRule{"order_id": {Match: "regex"}}
			return a
		}, `match "regex"`},
		{"args not object", func() Answer { a := callAnswer(2); a.Calls[0].Args = json.RawMessage(`[1]`); return a }, "must be a JSON object"},
		{"agreed with adjudicator", func() Answer { a := callAnswer(2); a.Status = gold.StatusAgreed; return a }, "agreed gold has an adjudicator"},
		{"bad status", func() Answer { a := callAnswer(2); a.Status = "disputed"; return a }, `"disputed"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BuildLines(TraceGold{Trace: orderTrace("tr_1"), Answers: []Answer{tc.answer()}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want error containing %q", err, tc.want)
			}
		})
	}
}

func TestEncodeRecordIsCanonical(t *testing.T) {
	lines, err := BuildLines(TraceGold{Trace: orderTrace("tr_1"), Answers: []Answer{callAnswer(2)}})
	if err != nil {
		t.Fatal(err)
	}
	var rec gold.Record
	if err := json.Unmarshal(lines[0].Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	// The same record with other spellings of the same JSON encodes the same.
	rec.ExpectedCalls[0].Args = json.RawMessage("{\n \"order_id\": \"ORD-9182\" }")
	rec.ExpectedArgs = json.RawMessage(`{"order_id" :"ORD-9182"}`)
	rec.AvailableTools[0].Parameters = json.RawMessage(`{"type":"object","required":["order_id"],"properties":{"order_id":{"type":"string"}}}`)
	got, err := EncodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(lines[0].Bytes()) {
		t.Errorf("not canonical:\n got %s\nwant %s", got, lines[0].Bytes())
	}
}

func TestBuildStreamMatchesOneBuilder(t *testing.T) {
	var golds []TraceGold
	var seq []Line
	for _, id := range []string{"tr_1", "tr_2", "tr_3", "tr_4", "tr_5"} {
		tg := TraceGold{Trace: orderTrace(id), Answers: []Answer{callAnswer(2), noCallAnswer(4)}}
		ls, err := BuildLines(tg)
		if err != nil {
			t.Fatal(err)
		}
		seq = append(seq, ls...)
		// The store's shape: messages still JSON.
		raw, _ := trace.MarshalCanonical(tg.Trace.Messages)
		tg.Trace.Messages, tg.MessagesJSON = nil, raw
		golds = append(golds, tg)
	}
	a, _ := Assemble(seq)
	var par []Line
	for _, workers := range []int{0, 1, 3} {
		add, wait := BuildStream(workers, gold.CurrentRecordFormat)
		for _, tg := range golds {
			add(tg)
		}
		streamed, err := wait()
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := Assemble(streamed); c.SHA256() != a.SHA256() || len(c.Lines) != 10 {
			t.Errorf("streamed build with %d workers differs: %d lines", workers, len(c.Lines))
		}
		par = streamed
	}
	// Of several bad traces, the stream reports the first one added.
	bad := append([]TraceGold(nil), golds...)
	for _, i := range []int{1, 4} {
		tg := bad[i]
		tg.Answers = []Answer{callAnswer(2)}
		tg.Answers[0].Decision = fmt.Sprintf("bad%d", i)
		bad[i] = tg
	}
	for range 5 {
		add, wait := BuildStream(2, gold.CurrentRecordFormat)
		for _, tg := range bad {
			add(tg)
		}
		if _, err := wait(); err == nil || !strings.Contains(err.Error(), `"bad1"`) {
			t.Fatalf("streamed build error: %v, want the one of trace 1", err)
		}
	}
	if _, err := Assemble(append(par, par[0])); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate not rejected: %v", err)
	}
}

// A version built with its records' bytes in a temporary file is the
// same, byte for byte, as one built in memory, in both record formats:
// its file, hashes, compressed parts and older-format hashes; the file
// leaves nothing in its directory and a read after release is reported.
func TestBuildSpilledMatchesInMemory(t *testing.T) {
	var golds []TraceGold
	for i := range 40 {
		tg := TraceGold{Trace: orderTrace(fmt.Sprintf("tr_%02d", 40-i)), Answers: []Answer{callAnswer(2), noCallAnswer(4)}}
		if i%2 == 0 {
			tg.ToolsKey = "orders" // their tools stay in memory; the others' are in the file
		}
		golds = append(golds, tg)
	}
	for _, format := range []int{gold.RecordFormat1, gold.RecordFormat2} {
		add, wait := BuildStream(2, format)
		for _, tg := range golds {
			add(tg)
		}
		lines, err := wait()
		if err != nil {
			t.Fatal(err)
		}
		want, err := Assemble(lines)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		add, wait, release := BuildSpilled(2, format, dir)
		for _, tg := range golds {
			add(tg)
		}
		spilled, err := wait()
		if err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("format %d: the temporary file is visible in its directory: %v", format, left)
		}
		got, err := Assemble(spilled)
		if err != nil {
			t.Fatal(err)
		}
		shared := 0
		for _, l := range spilled {
			if l.Parts != nil || l.src == nil {
				t.Fatalf("format %d: line %s not spilled", format, l.ID)
			}
			if l.memTools != nil {
				shared++
			}
		}
		if shared != 40 {
			t.Errorf("format %d: %d lines keep their tools in memory, want 40", format, shared)
		}
		var gotFile, wantFile bytes.Buffer
		got.WriteTo(&gotFile)
		want.WriteTo(&wantFile)
		if !bytes.Equal(gotFile.Bytes(), wantFile.Bytes()) || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("format %d: spilled file differs", format)
		}
		if got.SHA256() != want.SHA256() || got.Size != want.Size || got.NumParts() != want.NumParts() || got.Format != want.Format {
			t.Errorf("format %d: spilled content differs: %s %d vs %s %d", format, got.SHA256(), got.Size, want.SHA256(), want.Size)
		}
		for _, as := range []int{0, gold.RecordFormat1} {
			if !maps.Equal(got.HashesAs(as), want.HashesAs(as)) {
				t.Errorf("format %d: hashes as format %d differ", format, as)
			}
		}
		if format == gold.RecordFormat2 && maps.Equal(got.HashesAs(gold.RecordFormat1), got.Hashes) {
			t.Errorf("format 2: hashes as format 1 are format 2's")
		}
		if err := got.Err(); err != nil {
			t.Fatal(err)
		}
		release()
		if _, err := got.WriteTo(io.Discard); err == nil || got.Err() == nil {
			t.Errorf("format %d: reading released records: no error", format)
		}
	}
}
