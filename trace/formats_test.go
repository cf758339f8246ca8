package trace

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of the format fixtures")

// describe renders a trace compactly for fixture tests: one line per
// message (role, tool call id, text, calls with arguments), then the tools
// with their schemas.
func describe(tr Trace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id %s model %s\n", tr.ID, tr.Metadata["model"])
	for _, m := range tr.Messages {
		b.WriteString(m.Role)
		if m.ToolCallID != "" || m.Name != "" {
			fmt.Fprintf(&b, "(%s)", strings.TrimSpace(m.ToolCallID+" "+m.Name))
		}
		fmt.Fprintf(&b, ": %s", m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, " [%s %s %s]", c.ID, c.Name, c.Arguments)
		}
		b.WriteByte('\n')
	}
	for _, t := range tr.Tools {
		fmt.Fprintf(&b, "tool %s %s\n", t.Name, t.Parameters)
	}
	return b.String()
}

// Every format's fixture (../testdata, written from the vendor's published
// schema and examples) decodes, auto-detected and named, to the trace its
// golden file (../testdata/NAME.golden) spells out: messages, tool calls
// with their arguments, tool results with their call ids, tools with their
// schemas.
func TestFormatFixtures(t *testing.T) {
	for _, tc := range []struct{ file, format string }{
		{"openai_responses.jsonl", FormatResponses},
		{"gemini.jsonl", FormatGemini},
		{"bedrock_converse.jsonl", FormatBedrock},
		{"openai_stream.jsonl", FormatOpenAI},
		{"anthropic_stream.jsonl", FormatAnthropic},
		{"langsmith.jsonl", FormatLangSmith},
		{"langfuse.jsonl", FormatLangfuse},
		{"braintrust.jsonl", FormatBraintrust},
		{"mlflow.jsonl", FormatMLflow},
		{"otel_indexed.json", FormatOTLP},
		{"otel_events_v126.json", FormatOTLP},
		{"otel_logs.json", FormatOTLP},
		{"otel_operation_details.json", FormatOTLP},
		{"otlp_openinference.json", FormatOpenInference},
	} {
		for _, format := range []string{FormatAuto, tc.format} {
			r, c, err := OpenFile(filepath.Join("..", "testdata", tc.file), format, nil)
			if err != nil {
				t.Fatal(err)
			}
			traces, bad, err := readAll(t, r)
			c.Close()
			if err != nil || len(bad) > 0 {
				t.Fatalf("%s (%s): invalid %v, err %v", tc.file, format, bad, err)
			}
			var descs []string
			for _, tr := range traces {
				checkInvariants(t, tr)
				descs = append(descs, describe(tr))
			}
			got := strings.Join(descs, "--\n")
			golden := filepath.Join("..", "testdata", strings.TrimSuffix(strings.TrimSuffix(tc.file, ".jsonl"), ".json")+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s (%s) decodes to\n%s\nwant\n%s", tc.file, format, got, want)
			}
		}
	}
}

// Bad input of each format is one invalid record naming what is wrong.
func TestFormatBadInput(t *testing.T) {
	tests := []struct{ name, format, input, want string }{
		{"truncated Responses body", FormatAuto, `{"request":{"model":"gpt-4.1","input":[{"role":"user","content":"hi"}]},"response":"{\"object\":\"response\",\"output\":[{\"type\":\"mess"}`, "not a JSON object"},
		{"function_call without call_id", FormatAuto, `{"request":{"model":"m","input":"hi"},"response":{"object":"response","output":[{"type":"function_call","name":"f","arguments":"{}"}]}}`, "function_call without call_id"},
		{"Gemini part with text and functionCall", FormatAuto, `{"request":{"contents":[{"role":"user","parts":[{"text":"hi"}]}]},"response":{"candidates":[{"content":{"role":"model","parts":[{"text":"x","functionCall":{"name":"f","args":{}}}]}}]}}`, "not several"},
		{"Bedrock toolResult for an unknown toolUseId", FormatAuto, `{"request":{"messages":[{"role":"user","content":[{"text":"hi"}]},{"role":"user","content":[{"toolResult":{"toolUseId":"t9","content":[{"text":"ok"}]}}]}],"toolConfig":{"tools":[]}},"response":{"output":{"message":{"role":"assistant","content":[{"text":"done"}]}}}}`, `unknown toolUseId "t9"`},
		{"Bedrock blocks all unrecognised", FormatBedrock, `{"messages":[{"role":"user","content":[{"audio":{}}]}]}`, "no content block"},
		{"every message empty", FormatAuto, `{"messages":[{"role":"user","content":[{"text":""}]},{"role":"assistant","content":[{"image":{}}]}],"toolConfig":{"tools":[]}}`, "decoded to nothing"},
		{"LangChain message of unknown type", FormatAuto, `{"id":"r1","run_type":"llm","inputs":{"messages":[[{"lc":1,"type":"constructor","id":["langchain","schema","messages","WizardMessage"],"kwargs":{"content":"hi"}}]]},"outputs":{"generations":[[{"text":"x"}]]}}`, `unknown type "WizardMessage"`},
		{"content not captured", FormatAuto, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t1","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o"}}]}]}]}]}`, "content not captured"},
		{"OTLP log with no body", FormatAuto, `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"t1","spanId":"s1","eventName":"gen_ai.user.message"}]}]}]}`, "has no body"},
		{"truncated SSE stream", FormatAuto, `{"request_body":{"model":"claude","messages":[{"role":"user","content":"hi"}]},"response_body":"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"role\":\"assistant\",\"content\":[]}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"}`, "before its start"},
		{"cut-short Responses stream", FormatAuto, `{"request_body":{"model":"m","input":"hi"},"response_body":"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\n"}`, "no response.completed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			traces, bad, err := readString(t, tc.input+"\n", tc.format)
			if err != nil || len(traces) != 0 || len(bad) != 1 || bad[0].Line != 1 {
				t.Fatalf("%d traces, invalid %v, err %v; want one invalid record on line 1", len(traces), bad, err)
			}
			if !strings.Contains(bad[0].Error(), tc.want) {
				t.Errorf("error %q does not say %q", bad[0], tc.want)
			}
		})
	}
}
