package trace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readAll drains a reader: the traces, the invalid records, and the error
// that ended it (nil at EOF).
func readAll(t *testing.T, r Reader) ([]Trace, []*RecordError, error) {
	t.Helper()
	var traces []Trace
	var bad []*RecordError
	for {
		tr, err := r.Next()
		if err == io.EOF {
			return traces, bad, nil
		}
		var rerr *RecordError
		if errors.As(err, &rerr) {
			bad = append(bad, rerr)
			continue
		}
		if err != nil {
			return traces, bad, err
		}
		traces = append(traces, tr)
	}
}

func readString(t *testing.T, input, format string) ([]Trace, []*RecordError, error) {
	t.Helper()
	r, err := NewReader(strings.NewReader(input), format)
	if err != nil {
		return nil, nil, err
	}
	return readAll(t, r)
}

// callsOf lists "name args" of every call in a trace, in order.
func callsOf(tr Trace) []string {
	var out []string
	for _, m := range tr.Messages {
		for _, c := range m.ToolCalls {
			out = append(out, c.Name+" "+string(c.Arguments))
		}
	}
	return out
}

const okLine = `{"id":"tr_ok","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"name":"f","arguments":{"a":1}}]}]}`

func TestBadInputIsReportedByLine(t *testing.T) {
	long := `{"id":"tr_long","messages":[{"role":"user","content":"` + strings.Repeat("x", 10<<20) + `"}]}`
	tests := []struct {
		name     string
		input    string
		traces   int
		badLines []int
		badWord  string // in the first RecordError
		fatal    string // in the error that ends the input
	}{
		{"truncated line", okLine + "\n" + `{"id":"tr_2","messages":[{"role":"us`, 1, []int{2}, "truncated", ""},
		{"invalid JSON", okLine + "\n{not json}\n" + strings.Replace(okLine, "tr_ok", "tr_3", 1), 2, []int{2}, "invalid JSON", ""},
		{"messages a string", `{"id":"a","messages":"hello"}` + "\n" + okLine, 1, []int{1}, "messages: must be an array", ""},
		{"unknown role", `{"id":"a","messages":[{"role":"wizard","content":"x"}]}`, 0, []int{1}, `unknown role "wizard"`, ""},
		{"call without name", `{"id":"a","messages":[{"role":"assistant","tool_calls":[{"arguments":"{}"}]}]}`, 0, []int{1}, "no name", ""},
		{"no messages", `{"id":"a","messages":[]}`, 0, []int{1}, "no messages", ""},
		{"duplicate tool", `{"id":"a","tools":[{"name":"f"},{"name":"f"}],"messages":[{"role":"user","content":"x"}]}`, 0, []int{1}, "defined twice", ""},
		{"timestamp after 9999", `{"id":"a","timestamp":700000000000000,"messages":[{"role":"user","content":"x"}]}` + "\n" + okLine, 1, []int{1}, "out of range", ""},
		{"timestamp before year 0", `{"id":"a","timestamp":"0000-01-01T00:00:00+01:00","messages":[{"role":"user","content":"x"}]}`, 0, []int{1}, "out of range", ""},
		{"not an object", "[1,2]\n", 0, []int{1}, "", ""},
		{"10 MB line", long + "\n" + okLine, 2, nil, "", ""},
		{"BOM", "\xef\xbb\xbf" + okLine + "\n", 1, nil, "", ""},
		{"CRLF", okLine + "\r\n" + strings.Replace(okLine, "tr_ok", "tr_b", 1) + "\r\n", 2, nil, "", ""},
		{"blank lines", "\n\n" + okLine + "\n\n", 1, nil, "", ""},
		{"binary garbage", "\x00\x01\x02\xff\xfe garbage", 0, nil, "", "binary"},
		{"empty", "", 0, nil, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			traces, bad, err := readString(t, tc.input, FormatTrace)
			if tc.fatal != "" {
				var re *ReadError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.fatal) {
					t.Fatalf("error = %v, want a ReadError with %q", err, tc.fatal)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(traces) != tc.traces {
				t.Errorf("got %d traces, want %d", len(traces), tc.traces)
			}
			if tc.name == "not an object" {
				if len(bad) != 1 || !strings.Contains(bad[0].Error(), "must be an object, got array") {
					t.Fatalf("want one invalid record, got %v", bad)
				}
				return
			}
			var lines []int
			for _, b := range bad {
				lines = append(lines, b.Line)
			}
			if !slices.Equal(lines, tc.badLines) {
				t.Fatalf("invalid lines = %v (%v), want %v", lines, bad, tc.badLines)
			}
			if tc.badWord != "" && !strings.Contains(bad[0].Error(), tc.badWord) {
				t.Errorf("error %q does not say %q", bad[0].Error(), tc.badWord)
			}
		})
	}
}

func TestGzipInputAndCutShortGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := 0; i < 2000; i++ {
		io.WriteString(zw, strings.Replace(okLine, "tr_ok", "tr_"+strings.Repeat("z", i%7)+string(rune('a'+i%26))+itoa(i), 1)+"\n")
	}
	zw.Close()
	traces, bad, err := readString(t, buf.String(), FormatAuto)
	if err != nil || len(bad) > 0 || len(traces) != 2000 {
		t.Fatalf("gzip: %d traces, %v, %v", len(traces), bad, err)
	}
	cut := buf.Bytes()[:buf.Len()/2]
	r, err := NewReader(bytes.NewReader(cut), FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = readAll(t, r)
	var re *ReadError
	if !errors.As(err, &re) || re.Line < 1 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut-short gzip: err = %v, want ReadError wrapping unexpected EOF", err)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestOpenFileMissing(t *testing.T) {
	_, _, err := OpenFile(filepath.Join(t.TempDir(), "nope.jsonl"), FormatAuto, nil)
	if err == nil || err.Error() != "no such file" {
		t.Fatalf("err = %v", err)
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := NewReader(strings.NewReader(okLine), "csv"); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Fatalf("err = %v", err)
	}
}

// TestFixtures reads each fixture with its own format and with auto, and
// checks the extracted calls and normalisations.
func TestFixtures(t *testing.T) {
	tests := []struct {
		file, format string
		ids          []string
		calls        [][]string
		check        func(t *testing.T, traces []Trace)
	}{
		{"canonical.jsonl", FormatTrace, []string{"tr_0001", "tr_0002", "tr_0003"},
			[][]string{{`get_order_status {"order_id":"ORD-9182"}`}, {`search {"q":"weather"}`}, {`lookup "{not json"`}},
			func(t *testing.T, tr []Trace) {
				if tr[0].Messages[0].Role != RoleSystem || tr[0].Messages[1].Content != "where's my\npackage?" {
					t.Errorf("developer role / parts: %+v", tr[0].Messages[:2])
				}
				if got := string(tr[0].Tools[0].Parameters); strings.Contains(got, "dict") {
					t.Errorf("dict not normalised: %s", got)
				}
				if tr[0].Metadata["turns"] != "3" || tr[0].Metadata["vip"] != "true" {
					t.Errorf("metadata not stringified: %v", tr[0].Metadata)
				}
				if c := tr[2].Messages[1].ToolCalls[0]; !c.Unparseable || c.RawArguments() != "{not json" {
					t.Errorf("unparseable arguments not kept verbatim: %+v", c)
				}
			}},
		{"openai.jsonl", FormatOpenAI, []string{"log_1", "chatcmpl-2", "req-3"},
			[][]string{{`get_weather {"city":"Paris"}`}, nil, {`add {"a":2,"b":2}`}},
			func(t *testing.T, tr []Trace) {
				if tr[0].Metadata["model"] != "gpt-4o-2024-08-06" || tr[0].Timestamp.Unix() != 1738652337 {
					t.Errorf("model/timestamp: %v %v", tr[0].Metadata, tr[0].Timestamp)
				}
				if last := tr[1].Messages[len(tr[1].Messages)-1]; last.Role != RoleAssistant || last.Content != "Hi!" {
					t.Errorf("response not appended: %+v", last)
				}
			}},
		{"anthropic.jsonl", FormatAnthropic, []string{"msg_1"},
			[][]string{{`get_weather {"location":"New York"}`, `get_weather {"day":"tomorrow","location":"New York"}`}},
			func(t *testing.T, tr []Trace) {
				roles := []string{}
				for _, m := range tr[0].Messages {
					roles = append(roles, m.Role)
				}
				if got := strings.Join(roles, ","); got != "system,user,assistant,tool,user,assistant" {
					t.Errorf("roles = %s", got)
				}
				if m := tr[0].Messages[3]; m.ToolCallID != "toolu_1" || m.Content != "sunny" {
					t.Errorf("tool_result: %+v", m)
				}
			}},
		{"otlp.json", FormatOTLP, []string{"5b8efff798038103d269b633813fc60c", "0af7651916cd43dd8448eb211c80319c"},
			[][]string{{`get_weather {"location":"Paris"}`}, nil},
			func(t *testing.T, tr []Trace) {
				if n := len(tr[0].Messages); n != 4 || tr[0].Messages[3].Content != "It is rainy." {
					t.Errorf("longest span not chosen: %+v", tr[0].Messages)
				}
				if len(tr[0].Tools) != 1 || len(tr[0].Tools[0].Parameters) == 0 {
					t.Errorf("tools: %+v", tr[0].Tools)
				}
				if tr[0].Metadata["service"] != "support-bot" || tr[0].Timestamp.Unix() != 1746100800 {
					t.Errorf("meta/ts: %v %v", tr[0].Metadata, tr[0].Timestamp)
				}
				if m := tr[1].Messages; len(m) != 2 || m[1].Content != "hello" {
					t.Errorf("deprecated prompt/completion: %+v", m)
				}
			}},
		{"openinference.jsonl", FormatOpenInference, []string{"oi-1"},
			[][]string{{`search_flights {"to":"OSL"}`}},
			func(t *testing.T, tr []Trace) {
				if len(tr[0].Tools) != 1 || strings.Contains(string(tr[0].Tools[0].Parameters), "dict") {
					t.Errorf("tools: %+v", tr[0].Tools)
				}
			}},
	}
	for _, tc := range tests {
		for _, format := range []string{tc.format, FormatAuto} {
			t.Run(tc.file+"/"+format, func(t *testing.T) {
				r, closer, err := OpenFile(filepath.Join("testdata", tc.file), format, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer closer.Close()
				traces, bad, err := readAll(t, r)
				if err != nil || len(bad) > 0 {
					t.Fatalf("err %v, invalid %v", err, bad)
				}
				if len(traces) != len(tc.ids) {
					t.Fatalf("got %d traces, want %d", len(traces), len(tc.ids))
				}
				for i, tr := range traces {
					if tr.ID != tc.ids[i] {
						t.Errorf("trace %d id = %q, want %q", i, tr.ID, tc.ids[i])
					}
					if got := callsOf(tr); strings.Join(got, "|") != strings.Join(tc.calls[i], "|") {
						t.Errorf("trace %d calls = %q, want %q", i, got, tc.calls[i])
					}
					checkInvariants(t, tr)
				}
				tc.check(t, traces)
			})
		}
	}
}

func TestDerivedIDIsDeterministic(t *testing.T) {
	in := `{"request":{"messages":[{"role":"user","content":"x"}]}}`
	a, _, _ := readString(t, in, FormatOpenAI)
	b, _, _ := readString(t, in, FormatOpenAI)
	if len(a) != 1 || a[0].ID != b[0].ID || !strings.HasPrefix(a[0].ID, "tr_") {
		t.Fatalf("ids %v %v", a, b)
	}
}

func TestPrettyPrintedDocumentAndArray(t *testing.T) {
	doc := "{\n  \"id\": \"tr_p\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"x\"}\n  ]\n}\n"
	traces, bad, err := readString(t, doc, FormatTrace)
	if err != nil || len(bad) > 0 || len(traces) != 1 || traces[0].ID != "tr_p" {
		t.Fatalf("pretty document: %v %v %v", traces, bad, err)
	}
	arr := "[\n" + okLine + ",\n{\"id\":\"x\",\"messages\":\"no\"},\n" + strings.Replace(okLine, "tr_ok", "tr_c", 1) + "\n]\n"
	traces, bad, err = readString(t, arr, FormatTrace)
	if err != nil || len(traces) != 2 || len(bad) != 1 || bad[0].Line != 3 {
		t.Fatalf("array: %d traces, bad %v, err %v", len(traces), bad, err)
	}
	broken := "{\n  \"id\": \"tr_p\",\n  \"messages\": [\n    {\"role\": \"user\" \"content\": \"x\"}\n  ]\n}\n"
	_, bad, err = readString(t, broken, FormatTrace)
	if err != nil || len(bad) != 1 || bad[0].Line != 4 {
		t.Fatalf("broken document: bad %v err %v", bad, err)
	}
}

func TestSniff(t *testing.T) {
	tests := map[string]string{
		okLine:                           FormatTrace,
		`{"request":{"messages":[]}}`:    formatProvider,
		`{"model":"m","messages":[]}`:    formatProvider,
		`{"resourceSpans":[]}`:           FormatOTLP,
		`{"gen_ai.input.messages":"[]"}`: FormatOTLP,
		`{"llm.model_name":"x"}`:         FormatOpenInference,
		`{"attributes":{"llm.input_messages.0.message.role":"user"}}`: FormatOpenInference,
	}
	for in, want := range tests {
		if got, err := sniff([]byte(in)); got != want {
			t.Errorf("sniff(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := sniff([]byte(`{"foo":1}`)); err == nil || !strings.Contains(err.Error(), "--format") {
		t.Errorf("unknown shape: %v", err)
	}
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }

// Input honesty: bytes that are not UTF-8 in a trace id refuse the record
// (replacing them could make two ids equal); in content they are replaced
// and counted. NUL bytes are reported on their own line.
func TestInvalidUTF8AndBinaryLines(t *testing.T) {
	badID := `{"id":"tr_` + "\xff\xfe" + `","messages":[{"role":"user","content":"hi"}]}`
	badContent := `{"id":"tr_c","messages":[{"role":"user","content":"caf` + "\xe9" + `"}]}`
	nul := `{"id":"tr_n","messages":[` + "\x00\x00\x00" + `]}`
	garbage := "\x89PNG\r\x1a\x00\x00\x00\rIHDR"
	tests := []struct {
		name     string
		input    string
		traces   int
		badLines []int
		badWord  string
		replaced int
	}{
		{"invalid UTF-8 id", okLine + "\n" + badID, 1, []int{2}, "is not valid UTF-8", 0},
		{"invalid UTF-8 content", badContent + "\n" + okLine, 2, nil, "", 1},
		{"NUL bytes on line 2", okLine + "\n" + nul + "\n" + strings.Replace(okLine, "tr_ok", "tr_3", 1), 2, []int{2}, "binary data", 0},
		// Escaped, a NUL is valid JSON, but PostgreSQL cannot store it in
		// text: refused on every engine so that a project stays copyable.
		{"NUL character in the id", okLine + "\n" + `{"id":"tr_\u0000x","messages":[{"role":"user","content":"hi"}]}`, 1, []int{2}, "id \"tr_\\x00x\" holds a NUL character", 0},
		{"NUL character in a tool name", `{"id":"tr_t","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"a\u0000b","parameters":{}}}]}` + "\n" + okLine, 1, []int{1}, "tool name \"a\\x00b\" holds a NUL character", 0},
		{"NUL character in a description", `{"id":"tr_d","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","description":"x\u0000","parameters":{}}}]}`, 0, []int{1}, "tools[0] (f): the description holds a NUL character", 0},
		{"NUL character in a call's name", `{"id":"tr_c","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"g\u0000","arguments":"{}"}}]}]}`, 0, []int{1}, "tool name \"g\\x00\" holds a NUL character", 0},
		{"binary garbage on line 3", okLine + "\n" + strings.Replace(okLine, "tr_ok", "tr_2", 1) + "\n" + garbage + "\n", 2, []int{3}, "binary data", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(tc.input), FormatAuto)
			if err != nil {
				t.Fatal(err)
			}
			traces, bad, err := readAll(t, r)
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for _, b := range bad {
				lines = append(lines, b.Line)
			}
			if len(traces) != tc.traces || !slices.Equal(lines, tc.badLines) {
				t.Fatalf("%d traces, invalid lines %v (%v); want %d, %v", len(traces), lines, bad, tc.traces, tc.badLines)
			}
			if tc.badWord != "" && !strings.Contains(bad[0].Error(), tc.badWord) {
				t.Errorf("error %q does not say %q", bad[0], tc.badWord)
			}
			if got := r.(interface{ ReplacedUTF8() int }).ReplacedUTF8(); got != tc.replaced {
				t.Errorf("replaced = %d, want %d", got, tc.replaced)
			}
			if tc.replaced > 0 && traces[0].Messages[0].Content != "caf\uFFFD" {
				t.Errorf("content = %q", traces[0].Messages[0].Content)
			}
		})
	}
}

// A span whose start time is not a time is an invalid record with its
// line, not a trace at time zero.
func TestMalformedSpanTimestamp(t *testing.T) {
	span := `{"traceId":"t1","startTimeUnixNano":"yesterday","attributes":{"gen_ai.input.messages":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"hi\"}]}]"}}`
	for _, input := range []string{
		span,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t1","startTimeUnixNano":"soon","attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"content\":\"hi\"}]"}}]}]}]}]}`,
	} {
		traces, bad, err := readString(t, okLineSpan+"\n"+input, FormatOTLP)
		if err != nil || len(traces) != 1 || len(bad) != 1 || bad[0].Line != 2 || !strings.Contains(bad[0].Error(), "timestamp") {
			t.Errorf("%d traces, invalid %v, err %v; want the span on line 2 refused for its timestamp", len(traces), bad, err)
		}
	}
}

const okLineSpan = `{"traceId":"t0","startTimeUnixNano":"1700000000000000000","attributes":{"gen_ai.input.messages":"[{\"role\":\"user\",\"content\":\"hi\"}]"}}`
