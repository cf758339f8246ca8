package trace

import (
	"path/filepath"
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

// The provider cassettes mix OpenAI, Anthropic, Ollama, Together, Gemini,
// Bedrock, Mistral and streaming bodies. Auto import must take every OpenAI-
// and Anthropic-shaped exchange with the exact calls the response made, and
// report the others as invalid records with their line.
func TestConformanceProviderCassettes(t *testing.T) {
	path := shareddata.Path(t, "provider", "openinference_cassettes_tool_calls.jsonl")
	r, c, err := OpenFile(path, FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	traces, bad, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	// Final assistant message's calls, by trace id.
	want := map[string][]string{
		"msg_011geMdd2NTwJrvqbfqskQ7r":           {`get_weather {"location":"New York, NY"}`, `get_time {"timezone":"America/New_York"}`},
		"chatcmpl-CoC8iBQCAZ4oQmm3uAGgg8etOGtHL": {`OpenMeteoTool {"country":"USA","end_date":null,"location_name":"Las Vegas","start_date":null,"temperature_unit":"celsius"}`},
		"chatcmpl-DFqnW33WNGeP23OIyWAVD8bOVGy72": {`scrape_website {"url":"http://quotes.toscrape.com/"}`},
		"chatcmpl-CQQIhUuWTKFQcpJvXflDfzI3Fq7fC": {`get_current_weather {"location":"Berlin, Germany"}`},
		"chatcmpl-9vs6CCN08nbDKpovcEGBQkpJOtjzQ": {`get_current_weather {"location":"Berlin"}`},
		"chatcmpl-BZ8blO4x3ynTj8awD7YPWEqaUByIy": {`multiply {"a":3,"b":12}`, `add {"a":11,"b":49}`},
		"msg_011SAnoaGv4jqz7vYeJyzD11":           {`get_weather {"location":"San Francisco"}`},
		"chatcmpl-AgcDNYhR5NPYhy2hmtnkm6CP8GFAN": {`get_weather {"location":"San Francisco"}`},
		"chatcmpl-DD5NFnwbig885vzBzWKxq6GtDvWda": {`get_weather {"city":"San Francisco"}`, `get_population {"city":"San Francisco"}`},
		"chatcmpl-DuuxHvyU5yj190lI2LYpR96IPCXRC": {`get_weather {"city":"Paris"}`},
		"chatcmpl-Ax7BZfEQe2evzgqbTVXWo0ZqoMIUf": {`get_weather {"location":"Paris"}`},
		"ovCayG8-6Ng1vN-a273a07efb3b8b71":        {`get_current_weather {"city":"Paris"}`},
	}
	// Ollama logs carry no id: their ids are derived from content.
	wantByFirstCall := map[string]bool{`add_two_numbers {"a":2,"b":3}`: false, `get_current_weather {"city":"Paris"}`: false}
	got := map[string][]string{}
	for _, tr := range traces {
		last := tr.Messages[len(tr.Messages)-1]
		var calls []string
		for _, c := range last.ToolCalls {
			calls = append(calls, c.Name+" "+string(c.Arguments))
		}
		got[tr.ID] = calls
		if strings.HasPrefix(tr.ID, "tr_") && len(calls) > 0 {
			wantByFirstCall[calls[0]] = true
		}
		checkInvariants(t, tr)
	}
	for id, calls := range want {
		if strings.Join(got[id], "|") != strings.Join(calls, "|") {
			t.Errorf("%s: calls = %q, want %q", id, got[id], calls)
		}
	}
	for call, seen := range wantByFirstCall {
		if !seen {
			t.Errorf("Ollama exchange with %s not imported", call)
		}
	}
	if len(traces) != 15 || len(bad) != 26 {
		t.Errorf("%d traces and %d invalid records, want 15 and 26", len(traces), len(bad))
	}
	for _, b := range bad {
		if b.Line < 1 || b.Line > 41 {
			t.Errorf("invalid record without a line: %v", b)
		}
	}
	// The Anthropic exchange keeps its tool schema and the user's question.
	for _, tr := range traces {
		if tr.ID == "msg_011SAnoaGv4jqz7vYeJyzD11" {
			if tr.Messages[0].Content != "what's the weather in San Francisco?" || tr.Tools[0].Name != "get_weather" {
				t.Errorf("anthropic trace: %+v", tr)
			}
		}
	}
}
