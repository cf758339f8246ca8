package trace

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
)

// Observability exports: LangSmith runs, Langfuse traces, Braintrust spans
// and MLflow traces. Each wraps the model calls of an application in its
// own envelope; inside it the input and output are a provider's request and
// response (or their messages), read by that provider's decoder. A record
// is one part of a trace (a run, a span) or a whole trace; parts of one
// trace are grouped as spans are (see spanDecoder) and the trace takes the
// model call that saw the most messages.

const (
	FormatLangSmith  = "langsmith"
	FormatLangfuse   = "langfuse"
	FormatBraintrust = "braintrust"
	FormatMLflow     = "mlflow"
)

// groupDecoder groups the parts of consecutive records of the same trace.
type groupDecoder struct {
	cache schemaCache
	parse func(line int, data []byte, cache schemaCache) (parts []spanPart, whole bool, err error)
	open  []spanPart
}

func (d *groupDecoder) record(line int, data []byte) []result {
	parts, whole, err := d.parse(line, data, d.cache)
	if err != nil {
		return append(d.flush(), result{line: line, err: err})
	}
	if whole {
		out := d.flush()
		if len(parts) == 0 {
			return append(out, result{line: line, err: errors.New("trace has no model calls")})
		}
		return append(out, mergeParts(parts))
	}
	var out []result
	for _, p := range parts {
		if len(d.open) > 0 && (p.traceID == "" || p.traceID != d.open[0].traceID) {
			out = append(out, d.flush()...)
		}
		d.open = append(d.open, p)
	}
	return out
}

func (d *groupDecoder) flush() []result {
	if len(d.open) == 0 {
		return nil
	}
	r := mergeParts(d.open)
	d.open = nil
	return []result{r}
}

func newGroupDecoder(format string, cache schemaCache) *groupDecoder {
	d := &groupDecoder{cache: cache}
	switch format {
	case FormatLangSmith:
		d.parse = langSmithParts
	case FormatLangfuse:
		d.parse = langfuseParts
	case FormatBraintrust:
		d.parse = braintrustParts
	default:
		d.parse = mlflowParts
	}
	return d
}

// llmCall is what an envelope says about one model call.
type llmCall struct {
	traceID string
	start   json.RawMessage
	input   json.RawMessage // a request body, a list of messages, or text
	output  json.RawMessage // a response body, a message, choices, generations, or text
	tools   json.RawMessage // tool definitions given beside the input
	model   string
	meta    map[string]string
}

// part decodes the call with its provider's decoder.
func (c llmCall) part(line int, cache schemaCache) (spanPart, error) {
	p := spanPart{line: line, traceID: c.traceID, meta: c.meta}
	start, err := parseTimestamp(c.start)
	if err != nil {
		return p, err
	}
	p.start = start
	ex, err := envelopeExchange(c.input, c.output, c.tools, c.model)
	if err != nil {
		return p, err
	}
	t, err := decodeExchange(ex, guessProvider(ex), cache)
	if err != nil {
		return p, err
	}
	p.messages, p.tools = t.Messages, t.Tools
	for k, v := range t.Metadata {
		if p.meta == nil {
			p.meta = map[string]string{}
		}
		if _, ok := p.meta[k]; !ok {
			p.meta[k] = v
		}
	}
	if len(p.messages) == 0 {
		return p, errors.New("model call has no messages")
	}
	return p, nil
}

// envelopeExchange turns an envelope's input and output into a provider
// exchange: request and response bodies as the provider writes them.
func envelopeExchange(input, output, tools json.RawMessage, model string) (exchange, error) {
	input, output = unquoteJSON(input), unquoteJSON(output)
	req := map[string]json.RawMessage{}
	switch k := firstByte(input); k {
	case '{':
		if err := json.Unmarshal(input, &req); err != nil {
			return exchange{}, fmt.Errorf("input: %w", describeJSONError(err))
		}
		if msgs, ok := req["messages"]; ok && bytes.Contains(msgs, []byte(`"lc"`)) {
			chat, err := anyChatMessages(msgs)
			if err != nil {
				return exchange{}, fmt.Errorf("input.messages%w", err)
			}
			b, _ := json.Marshal(chat)
			req["messages"] = b
		}
		if _, ok := req["messages"]; !ok && req["contents"] == nil && req["input"] == nil && req["prompt"] != nil {
			req["messages"] = wrapText(RoleUser, req["prompt"])
		}
	case '[':
		chat, err := anyChatMessages(input)
		if err != nil {
			return exchange{}, fmt.Errorf("input%w", err)
		}
		b, _ := json.Marshal(chat)
		req["messages"] = b
	case '"':
		req["messages"] = wrapText(RoleUser, input)
	default:
		return exchange{}, errors.New("no input (the model call's messages)")
	}
	if len(bytes.TrimSpace(tools)) > 0 && req["tools"] == nil && req["toolConfig"] == nil {
		req["tools"] = unquoteJSON(tools)
	}
	if model != "" && req["model"] == nil {
		req["model"], _ = json.Marshal(model)
	}
	reqBody, err := json.Marshal(req)
	if err != nil {
		return exchange{}, err
	}
	ex := exchange{request: reqBody}
	if ex.response, err = envelopeResponse(output); err != nil {
		return exchange{}, fmt.Errorf("output: %w", err)
	}
	return ex, nil
}

// envelopeResponse turns an envelope's output into a response body.
func envelopeResponse(output json.RawMessage) ([]byte, error) {
	choice := func(msg json.RawMessage) ([]byte, error) {
		m, err := anyChatMessage(msg)
		if err != nil {
			return nil, err
		}
		if m.Role == "" {
			m.Role = RoleAssistant
		}
		return json.Marshal(map[string]any{"choices": []any{map[string]any{"message": m}}})
	}
	switch firstByte(output) {
	case 0, 'n':
		return nil, nil
	case '"':
		return json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": RoleAssistant, "content": textOf(output)}}}})
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(output, &items); err != nil {
			return nil, describeJSONError(err)
		}
		if len(items) == 0 {
			return nil, errors.New("empty list of choices")
		}
		var c struct {
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(items[0], &c) == nil && len(c.Message) > 0 {
			return choice(c.Message)
		}
		return choice(items[len(items)-1])
	case '{':
		var o struct {
			Choices     json.RawMessage     `json:"choices"`
			Candidates  json.RawMessage     `json:"candidates"`
			Output      json.RawMessage     `json:"output"`
			Content     json.RawMessage     `json:"content"`
			Role        string              `json:"role"`
			Generations [][]json.RawMessage `json:"generations"`
			LC          json.RawMessage     `json:"lc"`
		}
		if err := json.Unmarshal(output, &o); err != nil {
			return nil, describeJSONError(err)
		}
		switch {
		case o.Choices != nil, o.Candidates != nil, o.Output != nil && firstByte(o.Output) != '"',
			o.Role == RoleAssistant && firstByte(o.Content) == '[' && bytes.Contains(o.Content, []byte(`"type"`)):
			return output, nil // a provider's response body
		case len(o.Generations) > 0 && len(o.Generations[0]) > 0:
			var g struct {
				Text    string          `json:"text"`
				Message json.RawMessage `json:"message"`
			}
			if err := json.Unmarshal(o.Generations[0][0], &g); err != nil {
				return nil, fmt.Errorf("generations: %w", describeJSONError(err))
			}
			if len(g.Message) > 0 {
				return choice(g.Message)
			}
			b, _ := json.Marshal(g.Text)
			return envelopeResponse(b)
		case o.LC != nil, o.Role != "":
			return choice(output)
		case o.Output != nil:
			return envelopeResponse(o.Output)
		}
		return nil, errors.New("not a response, message, choices or generations")
	}
	return nil, fmt.Errorf("must be a response or a message, got %s", jsonKind(output))
}

func wrapText(role string, text json.RawMessage) json.RawMessage {
	b, _ := json.Marshal([]map[string]string{{"role": role, "content": textOf(text)}})
	return b
}

func firstByte(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// unquoteJSON returns the JSON a string holds, when it holds JSON (exports
// often serialise inputs and outputs as text); anything else as it is.
func unquoteJSON(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if firstByte(raw) != '"' {
		return raw
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	inner := bytes.TrimSpace([]byte(s))
	if len(inner) > 0 && (inner[0] == '{' || inner[0] == '[') && json.Valid(inner) {
		return inner
	}
	return raw
}

// langSmithParts reads one LangSmith run. Only "llm" runs are model calls;
// the others (chains, tools, retrievers) belong to the trace but hold no
// conversation of their own.
func langSmithParts(line int, data []byte, cache schemaCache) ([]spanPart, bool, error) {
	var run struct {
		ID        string          `json:"id"`
		TraceID   string          `json:"trace_id"`
		RunType   string          `json:"run_type"`
		Name      string          `json:"name"`
		StartTime json.RawMessage `json:"start_time"`
		Inputs    json.RawMessage `json:"inputs"`
		Outputs   json.RawMessage `json:"outputs"`
		Extra     struct {
			InvocationParams struct {
				Model     string          `json:"model"`
				ModelName string          `json:"model_name"`
				Tools     json.RawMessage `json:"tools"`
				Functions json.RawMessage `json:"functions"`
			} `json:"invocation_params"`
			Metadata map[string]json.RawMessage `json:"metadata"`
		} `json:"extra"`
		SessionName string `json:"session_name"`
	}
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, false, describeJSONError(err)
	}
	traceID := run.TraceID
	if traceID == "" {
		traceID = run.ID
	}
	if run.RunType != "llm" {
		return []spanPart{{line: line, traceID: traceID}}, false, nil
	}
	ip := run.Extra.InvocationParams
	model := cmp.Or(ip.Model, ip.ModelName, attrString(run.Extra.Metadata, "ls_model_name"))
	tools := ip.Tools
	if len(tools) == 0 {
		tools = ip.Functions
	}
	meta := map[string]string{}
	if run.SessionName != "" {
		meta["project"] = run.SessionName
	}
	p, err := llmCall{traceID: traceID, start: run.StartTime, input: run.Inputs, output: run.Outputs,
		tools: tools, model: model, meta: meta}.part(line, cache)
	if err != nil {
		return nil, false, fmt.Errorf("run %s: %w", run.ID, err)
	}
	return []spanPart{p}, false, nil
}

// langfuseParts reads one Langfuse trace with its observations: each
// GENERATION is a model call.
func langfuseParts(line int, data []byte, cache schemaCache) ([]spanPart, bool, error) {
	var tr struct {
		ID           string          `json:"id"`
		Timestamp    json.RawMessage `json:"timestamp"`
		SessionID    string          `json:"sessionId"`
		UserID       string          `json:"userId"`
		Observations []struct {
			ID        string          `json:"id"`
			Type      string          `json:"type"`
			StartTime json.RawMessage `json:"startTime"`
			Model     string          `json:"model"`
			Input     json.RawMessage `json:"input"`
			Output    json.RawMessage `json:"output"`
			Metadata  struct {
				Tools json.RawMessage `json:"tools"`
			} `json:"metadata"`
		} `json:"observations"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		return nil, false, describeJSONError(err)
	}
	meta := map[string]string{}
	if tr.SessionID != "" {
		meta["conversation"] = tr.SessionID
	}
	var parts []spanPart
	for i, o := range tr.Observations {
		if o.Type != "GENERATION" {
			continue
		}
		start := o.StartTime
		if len(start) == 0 {
			start = tr.Timestamp
		}
		p, err := llmCall{traceID: tr.ID, start: start, input: o.Input, output: o.Output, tools: o.Metadata.Tools,
			model: o.Model, meta: meta}.part(line, cache)
		if err != nil {
			return nil, true, fmt.Errorf("observations[%d] (%s): %w", i, o.ID, err)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, true, errors.New("trace has no GENERATION observation (no model call)")
	}
	return parts, true, nil
}

// braintrustParts reads one Braintrust span; spans of type "llm" are model
// calls, grouped into traces by root_span_id.
func braintrustParts(line int, data []byte, cache schemaCache) ([]spanPart, bool, error) {
	var sp struct {
		ID             string `json:"id"`
		SpanID         string `json:"span_id"`
		RootSpanID     string `json:"root_span_id"`
		SpanAttributes struct {
			Type string `json:"type"`
		} `json:"span_attributes"`
		Input    json.RawMessage            `json:"input"`
		Output   json.RawMessage            `json:"output"`
		Metadata map[string]json.RawMessage `json:"metadata"`
		Created  json.RawMessage            `json:"created"`
	}
	if err := json.Unmarshal(data, &sp); err != nil {
		return nil, false, describeJSONError(err)
	}
	traceID := cmp.Or(sp.RootSpanID, sp.SpanID, sp.ID)
	if sp.SpanAttributes.Type != "llm" {
		return []spanPart{{line: line, traceID: traceID}}, false, nil
	}
	p, err := llmCall{traceID: traceID, start: sp.Created, input: sp.Input, output: sp.Output,
		tools: sp.Metadata["tools"], model: attrString(sp.Metadata, "model")}.part(line, cache)
	if err != nil {
		return nil, false, fmt.Errorf("span %s: %w", sp.SpanID, err)
	}
	return []spanPart{p}, false, nil
}

// mlflowParts reads one MLflow trace (info and data.spans); spans of type
// LLM or CHAT_MODEL are model calls. MLflow stores span attributes as JSON
// text.
func mlflowParts(line int, data []byte, cache schemaCache) ([]spanPart, bool, error) {
	var tr struct {
		Info struct {
			TraceID     string          `json:"trace_id"`
			RequestID   string          `json:"request_id"`
			TimestampMS json.RawMessage `json:"timestamp_ms"`
			RequestTime json.RawMessage `json:"request_time"`
		} `json:"info"`
		Data struct {
			Spans []struct {
				Name       string                     `json:"name"`
				StartTime  json.RawMessage            `json:"start_time_unix_nano"`
				Attributes map[string]json.RawMessage `json:"attributes"`
			} `json:"spans"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		return nil, false, describeJSONError(err)
	}
	traceID := cmp.Or(tr.Info.TraceID, tr.Info.RequestID)
	var parts []spanPart
	for i, s := range tr.Data.Spans {
		a := s.Attributes
		switch attrString(a, "mlflow.spanType") {
		case `"LLM"`, `"CHAT_MODEL"`, "LLM", "CHAT_MODEL":
		default:
			continue
		}
		start := s.StartTime
		if len(start) == 0 {
			start = firstNonEmpty(tr.Info.TimestampMS, tr.Info.RequestTime)
		}
		p, err := llmCall{traceID: traceID, start: start, input: unquoteJSON(a["mlflow.spanInputs"]),
			output: unquoteJSON(a["mlflow.spanOutputs"]), tools: unquoteJSON(a["mlflow.chat.tools"])}.part(line, cache)
		if err != nil {
			return nil, true, fmt.Errorf("spans[%d] (%s): %w", i, s.Name, err)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, true, errors.New("trace has no LLM or CHAT_MODEL span (no model call)")
	}
	return parts, true, nil
}
