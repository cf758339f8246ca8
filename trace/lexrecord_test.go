package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goldtrace/goldtrace/internal/shareddata"
)

// lexerEdgeCases are records whose decoding has encoding/json rules to
// follow: null fields, empty lists, escapes and invalid UTF-8, keys that
// match a field only when folded, repeated keys, wrong types, bad syntax.
var lexerEdgeCases = []string{
	`{"id":"a","messages":[{"role":"user","content":"hi"}]}`,
	`{"id":null,"timestamp":null,"metadata":null,"tools":null,"functions":null,"messages":null}`,
	`{"id":"a","metadata":{},"tools":[],"functions":[],"messages":[]}`,
	`{"id":"a\u00e9\ud800\n","metadata":{"k\"":"v","n":1,"o":{"x":[1, 2]},"z":null},"messages":[{"role":"user","content":"\u2028<&>"}]}`,
	"{\"id\":\"bad \xff utf8\",\"messages\":[{\"role\":\"user\",\"content\":\"\xfe\"}]}",
	` { "id" : "spaced" , "messages" : [ { "role" : "user" , "content" : [ {"type":"text","text":"a"} ] } ] } `,
	`{"ID":"folded","messages":[{"Role":"user","content":"x"}]}`,
	`{"\u0069d":"escaped key","messages":[{"role":"user","content":"x"}]}`,
	`{"id":"a","id":"b","messages":[{"role":"user","content":"x"}]}`,
	`{"id":"a","metadata":{"k":"1","k":"2"},"messages":[{"role":"user","content":"x"}]}`,
	`{"id":"a","messages":[{"role":"user","content":"x","role":"assistant"}]}`,
	`{"id":5,"messages":[{"role":"user","content":"x"}]}`,
	`{"id":"a","messages":[null]}`,
	`{"id":"a","messages":{"role":"user"}}`,
	`{"id":"a","messages":[{"role":"user","content":"x"}]} trailing`,
	`{"id":"a","messages":[{"role":"user","content":"x"}]`,
	`["not","an","object"]`,
	`null`,
	`{"id":"a","extra":{"deep":[[[{"x":true}]]]},"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"b\":1,\"a\":2}"}}],"function_call":null}]}`,
	`{"id":"a","tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"dict","properties":{}}}},{"name":"g","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"x"}]}`,
	`{"id":"a","functions":[{"name":"f","parameters":"{\"type\":\"object\"}"}],"messages":[{"role":"user","content":"x"}]}`,
	`{"id":"a","tools":[null],"messages":[{"role":"user","content":"x"}]}`,
	`{"id":"a","messages":[{"role":"assistant","tool_calls":[{"name":"f","arguments":{"z":1,"a":[1.50,"x"]},"function":{"name":"g"}}]}]}`,
	`{"id":"a","messages":[{"role":"assistant","function_call":{"name":"f","arguments":"not json"},"function_call":null}]}`,
	`{"id":"a","ſd":"non-ASCII key","messages":[{"role":"user","content":"x"}]}`,
	`{"id":"a","messages":[{"role":"user","content":"x"}],"tools":[{"name":"f","name":"g"}]}`,
}

// recordInputs are the edge cases and every line of the trace fixtures,
// the project's testdata and the shared conformance data.
func recordInputs(t testing.TB) [][]byte {
	var out [][]byte
	for _, s := range lexerEdgeCases {
		out = append(out, []byte(s))
	}
	dirs := []string{"testdata", filepath.Join("..", "testdata")}
	if dir, ok := shareddata.Dir(); ok {
		dirs = append(dirs, dir)
	}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") && !strings.HasSuffix(path, ".json") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out = append(out, bytes.TrimSpace(b))
			for _, line := range bytes.Split(b, []byte("\n")) {
				if line = bytes.TrimSpace(line); len(line) > 0 {
					out = append(out, line)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return append(out, bytes.Split(bytes.TrimSpace(benchTraces(50, 3)), []byte("\n"))...)
}

// checkLexerAgrees decodes data with recordLexer and encoding/json: when
// the lexer decodes a record, encoding/json must decode the same one.
func checkLexerAgrees(t *testing.T, data []byte) (lexed bool) {
	t.Helper()
	var got canonicalRecord
	var x recordLexer
	if !x.record(data, &got, nil) {
		return false
	}
	var want canonicalRecord
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("%q: lexer decoded it, encoding/json fails: %v", data, err)
	}
	got.toolsRaw = nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nlexer         %#v\nencoding/json %#v", data, got, want)
	}
	return true
}

func TestRecordLexerAgreesWithEncodingJSON(t *testing.T) {
	for _, data := range recordInputs(t) {
		lexed := checkLexerAgrees(t, data)
		// The lexer must take every record of the fixtures (which
		// encoding/json decodes), not hand them over.
		var rec canonicalRecord
		if !lexed && json.Unmarshal(data, &rec) == nil && !slices.Contains(lexerEdgeCases, string(data)) {
			t.Errorf("%.200s: the lexer gave up on it", data)
		}
	}
	for _, s := range lexerEdgeCases[6:18] {
		if checkLexerAgrees(t, []byte(s)) {
			t.Errorf("%s: the lexer should leave it to encoding/json", s)
		}
	}
}

func FuzzRecordLexer(f *testing.F) {
	for _, s := range lexerEdgeCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkLexerAgrees(t, data) })
}

// referenceTraces decodes canonical JSONL line by line as the canonical
// decoder did before recordLexer and its tools memo: encoding/json, then
// full validation. Each entry is a trace or an error text.
func referenceTraces(data []byte) []string {
	var out []string
	cache := schemaCache{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		var rec canonicalRecord
		var tr Trace
		err := json.Unmarshal(line, &rec)
		switch {
		case err != nil:
			err = describeJSONError(err)
		case rec.Messages == nil:
			err = fmt.Errorf("record has no messages")
		default:
			if tr, _, err = rec.toTrace(cache, nil); err == nil {
				if !utf8.Valid(line) && strings.ContainsRune(tr.ID, utf8.RuneError) {
					err = fmt.Errorf("trace id %q is not valid UTF-8", tr.ID)
				} else {
					tr, err = finish(tr, false)
				}
			}
		}
		if err != nil {
			out = append(out, fmt.Sprintf("line %d: %v", i+1, err))
			continue
		}
		b, _ := json.Marshal(tr)
		out = append(out, string(b))
	}
	return out
}

// The reader (recordLexer, tools memo, skipped tool validation) returns
// exactly the traces and errors of the reference path, across records that
// repeat, change and break their tools.
func TestCanonicalReaderMatchesReference(t *testing.T) {
	tool := func(name string) string {
		return fmt.Sprintf(`{"type":"function","function":{"name":%q,"parameters":{"type":"dict","properties":{"a":{"type":"STRING"}}}}}`, name)
	}
	msgs := `"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"id":"c","name":"f","arguments":{"a":"x"}}]}]`
	good := `[` + tool("f") + `,` + tool("g") + `]`
	twice := `[` + tool("f") + `,` + tool("f") + `]`
	lines := []string{
		`{"id":"1","tools":` + good + `,` + msgs + `}`,
		`{"id":"2","tools":` + good + `,` + msgs + `}`,
		`{"id":"3","tools":` + twice + `,` + msgs + `}`,
		`{"id":"4","tools":` + twice + `,` + msgs + `}`,
		`{"id":"5","tools":` + good + `,"functions":[{"name":"g"}],` + msgs + `}`,
		`{"id":"6","tools":` + good + `x,` + msgs + `}`,
		`{"id":"7","tools":` + good + `,` + msgs + `}`,
		`{"id":"8","tools":[{"name":""}],` + msgs + `}`,
		`{"id":"9","tools":` + good + `,"ID":"folded",` + msgs + `}`,
		`{"id":"10","tools":` + good[:len(good)-1] + `,` + tool("h") + `],` + msgs + `}`,
		`{"id":"11","tools":[],` + msgs + `}`,
		`{"id":"12","tools":` + good + `,"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"name":"f","arguments":"{bad"}]}]}`,
	}
	var data []byte
	for _, l := range lines {
		data = append(data, l+"\n"...)
	}
	data = append(data, benchTraces(30, 5)...)
	for _, s := range lexerEdgeCases {
		data = append(data, s+"\n"...)
	}
	checkReaderMatchesReference(t, data)
}

// checkReaderMatchesReference reads data (JSON Lines) with a Reader and
// with referenceTraces and compares the traces and errors.
func checkReaderMatchesReference(t *testing.T, data []byte) {
	t.Helper()
	want := referenceTraces(data)
	r, err := NewReader(bytes.NewReader(data), FormatTrace)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		tr, err := r.Next()
		if err != nil {
			var rerr *RecordError
			if !errors.As(err, &rerr) {
				break
			}
			got = append(got, rerr.Error())
			continue
		}
		b, _ := json.Marshal(tr)
		got = append(got, string(b))
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d:\n%s\nwant\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d:\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
}

// FuzzCanonicalReader: for any JSON Lines input, the Reader gives the
// traces and errors of the reference path.
func FuzzCanonicalReader(f *testing.F) {
	for _, s := range lexerEdgeCases {
		f.Add([]byte(s + "\n" + s + "\n"))
	}
	f.Add(bytes.Join(bytes.Split(benchTraces(3, 1), []byte("\n"))[:3], []byte("\n")))
	f.Fuzz(func(t *testing.T, data []byte) {
		first := bytes.TrimSpace(bytes.SplitN(data, []byte("\n"), 2)[0])
		if bytes.IndexByte(data, 0) >= 0 || bytes.HasPrefix(data, []byte(utf8BOM)) || bytes.HasPrefix(data, []byte{0x1f, 0x8b}) ||
			len(first) == 0 || opensDocument(first) {
			return // not JSON Lines as referenceTraces reads them
		}
		checkReaderMatchesReference(t, data)
	})
}

// checkGuessAgrees decodes data as guessProvider's request and response
// with the lexer and encoding/json: where the lexer decodes, encoding/json
// must decode the same without an error.
func checkGuessAgrees(t *testing.T, data []byte) (lexed int) {
	t.Helper()
	var req, wantReq guessRequest
	if lexGuessRequest(data, &req) {
		lexed++
		if err := json.Unmarshal(data, &wantReq); err != nil || !reflect.DeepEqual(req, wantReq) {
			t.Fatalf("%q: lexer %#v\nencoding/json %#v, %v", data, req, wantReq, err)
		}
	}
	var resp, wantResp guessResponse
	if lexGuessResponse(data, &resp) {
		lexed++
		if err := json.Unmarshal(data, &wantResp); err != nil || !reflect.DeepEqual(resp, wantResp) {
			t.Fatalf("%q: lexer %#v\nencoding/json %#v, %v", data, resp, wantResp, err)
		}
	}
	var x recordLexer
	var oreq, wantOReq openAIRequest
	if x.openAIRequest(data, &oreq) {
		lexed++
		if err := json.Unmarshal(data, &wantOReq); err != nil || !reflect.DeepEqual(oreq, wantOReq) {
			t.Fatalf("%q: lexer %#v\nencoding/json %#v, %v", data, oreq, wantOReq, err)
		}
	}
	var oresp, wantOResp openAIResponse
	if x.openAIResponse(data, &oresp) {
		lexed++
		if err := json.Unmarshal(data, &wantOResp); err != nil || !reflect.DeepEqual(oresp, wantOResp) {
			t.Fatalf("%q: lexer %#v\nencoding/json %#v, %v", data, oresp, wantOResp, err)
		}
	}
	var areq, wantAReq anthropicRequest
	if x.anthropicRequest(data, &areq) {
		lexed++
		if err := json.Unmarshal(data, &wantAReq); err != nil || !reflect.DeepEqual(areq, wantAReq) {
			t.Fatalf("%q: lexer %#v\nencoding/json %#v, %v", data, areq, wantAReq, err)
		}
	}
	var blocks, wantBlocks []anthropicBlock
	if x.anthropicBlocks(data, &blocks) {
		lexed++
		if err := json.Unmarshal(data, &wantBlocks); err != nil || !reflect.DeepEqual(blocks, wantBlocks) {
			t.Fatalf("%q: lexer %#v\nencoding/json %#v, %v", data, blocks, wantBlocks, err)
		}
	}
	var aresp, wantAResp anthropicResponse
	if lexFlat(data, flatField{name: "id", s: &aresp.ID}, flatField{name: "model", s: &aresp.Model},
		flatField{name: "role", s: &aresp.Role}, flatField{name: "content", r: &aresp.Content}, flatField{name: "error", r: &aresp.Error}) {
		lexed++
		if err := json.Unmarshal(data, &wantAResp); err != nil || !reflect.DeepEqual(aresp, wantAResp) {
			t.Fatalf("%q: lexer %#v\nencoding/json %#v, %v", data, aresp, wantAResp, err)
		}
	}
	var env, wantEnv providerEnvelope
	if x.envelope(data, &env) {
		lexed++
		if err := json.Unmarshal(data, &wantEnv); err != nil || !reflect.DeepEqual(env, wantEnv) {
			t.Fatalf("%q: lexer %#v\nencoding/json %#v, %v", data, env, wantEnv, err)
		}
	}
	var probe struct {
		Body    json.RawMessage `json:"body"`
		Content json.RawMessage `json:"content"`
	}
	if v, ok := lexFields(data, "body", "content"); ok {
		lexed++
		if err := json.Unmarshal(data, &probe); err != nil || !bytes.Equal(v[0], probe.Body) || !bytes.Equal(v[1], probe.Content) ||
			(v[0] == nil) != (probe.Body == nil) || (v[1] == nil) != (probe.Content == nil) {
			t.Fatalf("%q: lexFields %q, encoding/json %+v, %v", data, v, probe, err)
		}
	}
	return lexed
}

func TestGuessLexersAgreeWithEncodingJSON(t *testing.T) {
	lexed := 0
	inputs := recordInputs(t)
	for _, s := range []string{`{"type":null,"object":"chat.completion","content":[1],"Output":1}`, `{"messages":[{"content":"a"},{"Content":"b"}]}`,
		`{"messages":[null]}`, `{"messages":{}}`, `{"messages":[],"system":"s","system":"t"}`, `{"type":5}`, `{"body":1,"bOdy":2}`,
		`{"id":"c","created":1700000000,"model":"m","choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"{}"}}]}},{"message":null}]}`,
		`{"choices":[null]}`, `[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"f","input":{"a":1}},{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r"}]}]`,
		`[null]`, `[]`, `{"model":"claude","system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[]}],"tools":[{"name":"f","input_schema":{}}]}`,
		`{"id":"msg","role":"assistant","content":[{"type":"text","text":"hi"}],"model":"m","error":null,"Role":"x"}`, `{"custom_id":"r1","request":{"messages":[]},"metadata":{"a":"1","b":null},"object":null,"uri":5}`,
		`{"custom_id":"r1","body":"{\"x\":1}","metadata":[],"url":"https://a"}`, `{"message":{"role":"assistant","content":"hi"},"error":null}`, `{"model":"m","messages":[{"role":"user","content":"x"}],"functions":[{"name":"f"}],"metadata":{"a":1}}`} {
		inputs = append(inputs, []byte(s))
	}
	for _, data := range inputs {
		lexed += checkGuessAgrees(t, data)
	}
	if lexed < len(inputs)/10 {
		t.Errorf("the lexers decoded %d of %d", lexed, 3*len(inputs))
	}
}

func FuzzGuessLexers(f *testing.F) {
	f.Add([]byte(`[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"f","input":{"a":1}}]`))
	f.Add([]byte(`{"id":"c","created":1,"choices":[{"message":{"role":"assistant","content":"a"}}],"model":"m"}`))
	for _, s := range lexerEdgeCases {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"messages":[{"content":[{"text":"a"}]}],"system":[{"text":"s"}],"type":"message","content":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkGuessAgrees(t, data) })
}
