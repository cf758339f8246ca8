package trace

import (
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/shareddata"
)

// The five openinference/*.json fixtures describe the same chat turn in
// OpenInference, current OTel GenAI and deprecated OTel GenAI attributes:
// all must give the same conversation and call.
func TestConformanceOpenInferenceFixtures(t *testing.T) {
	dir := shareddata.Path(t, "openinference")
	files := []string{
		"openinference_client_span_input_output_only.json",
		"openinference_client_span_tool_calls.json",
		"otel_genai_client_span_tool_calls.json",
		"otel_genai_deprecated_client_span_tool_calls.json",
	}
	var ids []string
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			r, c, err := OpenFile(filepath.Join(dir, f), FormatAuto, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			traces, bad, err := readAll(t, r)
			if err != nil || len(bad) > 0 || len(traces) != 1 {
				t.Fatalf("%d traces, invalid %v, err %v", len(traces), bad, err)
			}
			tr := traces[0]
			if got := callsOf(tr); len(got) != 1 || got[0] != `get_weather {"location":"Paris"}` {
				t.Errorf("calls = %q", got)
			}
			var roles []string
			for _, m := range tr.Messages {
				roles = append(roles, m.Role)
			}
			if strings.Join(roles, ",") != "user,assistant,tool,assistant" {
				t.Errorf("roles = %v", roles)
			}
			if tr.Messages[2].ToolCallID != "1234" || tr.Messages[2].Content != "rainy, 57°F" {
				t.Errorf("tool message = %+v", tr.Messages[2])
			}
			if !strings.HasPrefix(tr.Messages[3].Content, "The weather in Paris is currently rainy") {
				t.Errorf("final answer = %q", tr.Messages[3].Content)
			}
			if tr.Metadata["model"] != "gpt-4-0613" {
				t.Errorf("model = %q", tr.Metadata["model"])
			}
			ids = append(ids, tr.ID)
		})
	}
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Errorf("the same conversation got different ids: %v", ids)
		}
	}
	// An execute_tool span alone holds no conversation: an invalid record.
	r, c, err := OpenFile(filepath.Join(dir, "otel_genai_tool_execution_span.json"), FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	traces, bad, err := readAll(t, r)
	if err != nil || len(traces) != 0 || len(bad) != 1 || bad[0].Line != 1 {
		t.Fatalf("execute_tool span: %d traces, invalid %v, err %v", len(traces), bad, err)
	}
}

// The provider cassettes mix OpenAI chat completions and Responses,
// Anthropic, Ollama, Together, Gemini, Bedrock (Converse, Nova, Agents),
// Mistral and streaming bodies (server-sent events and AWS event streams).
// Every one of the 39 that carries a request must import with exactly the
// calls it made; the two with a response alone are invalid records.
func TestConformanceProviderCassettes(t *testing.T) {
	path := shareddata.Path(t, "provider", "openinference_cassettes_tool_calls.jsonl")
	r, c, err := OpenFile(path, FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Every call of the trace, in order, by input line.
	want := map[int][]string{
		3:  {`get_weather {"location":"San Francisco"}`},
		4:  nil,
		5:  {`get_temperature {"location":"San Francisco"}`, `get_humidity {"location":"San Francisco"}`},
		6:  nil,
		7:  {`get_user_profile {"user_id":"user123"}`},
		8:  nil,
		9:  {`get_weather {"location":"New York, NY"}`, `get_time {"timezone":"America/New_York"}`},
		10: {`get_weather {"location":"New York, NY"}`, `get_time {"timezone":"America/New_York"}`},
		11: {`top_song {"sign":"WZPZ"}`},
		12: {`get_weather {"location":"Seattle"}`},
		13: {`top_song {"sign":"Radio XYZ"}`},
		14: {`add_two_numbers {"n1":10,"n2":20}`},
		15: {`get_time {}`},
		16: {`OpenMeteoTool {"country":"USA","end_date":null,"location_name":"Las Vegas","start_date":null,"temperature_unit":"celsius"}`},
		17: {`scrape_website {"url":"http://quotes.toscrape.com/"}`},
		18: {`get_weather {"city":"New York"}`},
		19: {`get_weather {"city":"New York"}`, `get_weather {"city":"London"}`},
		20: {`get_weather {"location":"San Francisco"}`},
		21: {`get_weather {"location":"San Francisco"}`},
		22: {`get_weather {"location":"San Francisco"}`},
		23: {`get_weather {"location":"San Francisco"}`},
		24: {`get_weather {"location":"Boston"}`, `get_weather {"location":"New Delhi"}`},
		25: {`get_weather {"location":"Boston"}`, `get_weather {"location":"New Delhi"}`},
		26: {`get_weather {"location":"San Francisco"}`},
		27: {`get_weather {"location":"Boston"}`, `get_weather {"location":"New Delhi"}`},
		28: {`get_current_weather {"location":"Berlin, Germany"}`},
		29: {`get_current_weather {"location":"Berlin"}`},
		30: {`multiply {"a":3,"b":12}`, `add {"a":11,"b":49}`},
		31: {`get_weather {"location":"San Francisco"}`},
		32: {`get_weather {"location":"San Francisco"}`},
		33: {`get_weather {"city":"San Francisco"}`},
		34: {`get_weather {"city":"San Francisco"}`},
		35: {`add_two_numbers {"a":2,"b":3}`},
		36: {`get_current_weather {"city":"Paris"}`},
		37: {`get_weather {"city":"New York"}`, `get_population {"city":"New York"}`, `get_weather {"city":"San Francisco"}`, `get_population {"city":"San Francisco"}`},
		38: {`get_weather {"city":"Paris"}`},
		39: {`final_answer {"answer":"The image is a generic user avatar icon, typically used as a placeholder for a profile picture. It features a silhouette of a person against a circular background."}`},
		40: {`get_weather {"location":"Paris"}`},
		41: {`get_current_weather {"city":"Paris"}`},
	}
	got := map[int]Trace{}
	var bad []int
	for {
		tr, err := r.Next()
		if err == io.EOF {
			break
		}
		line := r.(interface{ Line() int }).Line()
		var rerr *RecordError
		if errors.As(err, &rerr) {
			bad = append(bad, rerr.Line)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, tr)
		got[line] = tr
	}
	if !slices.Equal(bad, []int{1, 2}) {
		t.Errorf("invalid records on lines %v, want 1 and 2 (a response without its request)", bad)
	}
	for line, calls := range want {
		tr, ok := got[line]
		if !ok {
			t.Errorf("line %d not imported", line)
			continue
		}
		if g := callsOf(tr); !slices.Equal(g, calls) {
			t.Errorf("line %d: calls = %q, want %q", line, g, calls)
		}
		if tr.Messages[len(tr.Messages)-1].Role != RoleAssistant {
			t.Errorf("line %d: the response is not the last message: %+v", line, tr.Messages)
		}
	}
	// Spot checks: provider-specific fields land in the canonical model.
	if tr := got[31]; tr.ID != "msg_011SAnoaGv4jqz7vYeJyzD11" || tr.Messages[0].Content != "what's the weather in San Francisco?" || tr.Tools[0].Name != "get_weather" {
		t.Errorf("anthropic trace: %+v", tr)
	}
	if tr := got[13]; tr.Metadata["model"] != "mistral.devstral-2-123b" || !strings.Contains(string(tr.Tools[0].Parameters), `"sign"`) {
		t.Errorf("bedrock trace: model %q, tools %+v", tr.Metadata["model"], tr.Tools)
	}
	if tr := got[19]; tr.Messages[0].Role != RoleSystem || tr.Messages[3].Role != RoleTool || tr.Messages[3].Name != "get_weather" ||
		!strings.Contains(string(tr.Tools[0].Parameters), `"type":"string"`) {
		t.Errorf("gemini trace: %+v", tr)
	}
	if tr := got[4]; tr.Messages[0].Role != RoleTool || tr.Messages[0].ToolCallID != "call_mhr5WBWG8kgyIy15JTItue8Q" {
		t.Errorf("responses trace: %+v", tr)
	}
}
