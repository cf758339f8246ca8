package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Streamed response bodies, reassembled into the body the same call would
// have returned without streaming, so the provider decoders read them as
// any other response:
//
//   - server-sent events of OpenAI chat completions (and the providers that
//     copy them: Mistral, Together, vLLM), the OpenAI Responses API,
//     Anthropic Messages and Gemini streamGenerateContent;
//   - AWS event streams of Bedrock ConverseStream and of Bedrock Agents'
//     InvokeAgent (its orchestration trace events).
//
// Tool-call argument deltas are concatenated in order.

// isStream says whether a logged body held as text is a stream.
func isStream(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return strings.HasPrefix(t, "data:") || strings.HasPrefix(t, "event:") || strings.HasPrefix(t, ":") ||
		strings.Contains(s, ":event-type")
}

// reassembleStream returns the JSON response body a stream stands for.
func reassembleStream(s string) ([]byte, error) {
	if strings.Contains(s, ":event-type") && !strings.HasPrefix(strings.TrimLeft(s, " \r\n"), "data:") {
		return reassembleEventStream(s)
	}
	events, err := sseEvents(s)
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, errors.New("streamed response has no data events")
	}
	var probe struct {
		Type       string          `json:"type"`
		Object     string          `json:"object"`
		Choices    json.RawMessage `json:"choices"`
		Candidates json.RawMessage `json:"candidates"`
	}
	if err := json.Unmarshal(events[0], &probe); err != nil {
		return nil, fmt.Errorf("streamed response: %w", describeJSONError(err))
	}
	switch {
	case probe.Type == "message_start":
		return mergeAnthropicEvents(events)
	case strings.HasPrefix(probe.Type, "response."):
		return lastResponsesEvent(events)
	case probe.Candidates != nil:
		return mergeGeminiChunks(events)
	case probe.Choices != nil || probe.Object == "chat.completion.chunk":
		return mergeChatChunks(events)
	}
	return nil, errors.New("streamed response of an unknown kind (not OpenAI, Anthropic, Gemini or Responses events)")
}

// sseEvents returns the JSON data of each server-sent event, stopping at
// "[DONE]".
func sseEvents(s string) ([]json.RawMessage, error) {
	var out []json.RawMessage
	var data strings.Builder
	flush := func() error {
		d := strings.TrimSpace(data.String())
		data.Reset()
		if d == "" || d == "[DONE]" {
			return nil
		}
		if !json.Valid([]byte(d)) {
			return fmt.Errorf("streamed response: event %d is not JSON", len(out)+1)
		}
		out = append(out, json.RawMessage(d))
		return nil
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case line == "":
			if err := flush(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeChatChunks joins chat.completion.chunk events into one chat
// completion: content deltas appended, tool calls collected by index with
// their argument deltas concatenated.
//
// It is long because content, tool calls by index and their argument
// deltas are merged in one pass over the chunks.
func mergeChatChunks(events []json.RawMessage) ([]byte, error) {
	type callAcc struct {
		ID, Name string
		Args     strings.Builder
	}
	var id, model string
	var created json.RawMessage
	role := RoleAssistant
	var content strings.Builder
	var calls []*callAcc
	byIndex := map[int]*callAcc{}
	for i, ev := range events {
		var chunk struct {
			ID      string          `json:"id"`
			Model   string          `json:"model"`
			Created json.RawMessage `json:"created"`
			Choices []struct {
				Index *int `json:"index"`
				Delta struct {
					Role      string  `json:"role"`
					Content   *string `json:"content"`
					ToolCalls []struct {
						Index    *int   `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(ev, &chunk); err != nil {
			return nil, fmt.Errorf("streamed response: event %d: %w", i+1, describeJSONError(err))
		}
		if chunk.ID != "" {
			id = chunk.ID
		}
		if chunk.Model != "" {
			model = chunk.Model
		}
		if len(chunk.Created) > 0 {
			created = chunk.Created
		}
		for _, ch := range chunk.Choices {
			if ch.Index != nil && *ch.Index != 0 {
				continue // only the first choice is kept, as for whole responses
			}
			d := ch.Delta
			if d.Role != "" {
				role = d.Role
			}
			if d.Content != nil {
				content.WriteString(*d.Content)
			}
			for _, tc := range d.ToolCalls {
				var acc *callAcc
				if tc.Index != nil {
					acc = byIndex[*tc.Index]
				}
				if acc == nil {
					acc = &callAcc{}
					calls = append(calls, acc)
					if tc.Index != nil {
						byIndex[*tc.Index] = acc
					}
				}
				if tc.ID != "" {
					acc.ID = tc.ID
				}
				acc.Name += tc.Function.Name
				acc.Args.WriteString(tc.Function.Arguments)
			}
		}
	}
	msg := ChatMessage{Role: role, Content: content.String()}
	for _, c := range calls {
		msg.ToolCalls = append(msg.ToolCalls, ChatToolCall{ID: c.ID, Type: "function", Function: ChatFunctionCall{c.Name, c.Args.String()}})
	}
	out := map[string]any{"id": id, "model": model, "choices": []any{map[string]any{"message": msg}}}
	if len(created) > 0 {
		out["created"] = created
	}
	return json.Marshal(out)
}

// mergeAnthropicEvents rebuilds a Messages API response from its events.
func mergeAnthropicEvents(events []json.RawMessage) ([]byte, error) {
	var msg map[string]json.RawMessage
	blocks := map[int]map[string]any{}
	partial := map[int]*strings.Builder{}
	for i, ev := range events {
		var e struct {
			Type         string                     `json:"type"`
			Index        int                        `json:"index"`
			Message      map[string]json.RawMessage `json:"message"`
			ContentBlock map[string]any             `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal(ev, &e); err != nil {
			return nil, fmt.Errorf("streamed response: event %d: %w", i+1, describeJSONError(err))
		}
		switch e.Type {
		case "message_start":
			msg = e.Message
		case "content_block_start":
			blocks[e.Index] = e.ContentBlock
			partial[e.Index] = &strings.Builder{}
		case "content_block_delta":
			b := blocks[e.Index]
			if b == nil {
				return nil, fmt.Errorf("streamed response: event %d: delta for content block %d before its start", i+1, e.Index)
			}
			switch e.Delta.Type {
			case "text_delta":
				s, _ := b["text"].(string)
				b["text"] = s + e.Delta.Text
			case "input_json_delta":
				partial[e.Index].WriteString(e.Delta.PartialJSON)
			}
		case "error":
			return nil, fmt.Errorf("streamed response ends in an error event: %s", textOf(ev))
		}
	}
	if msg == nil {
		return nil, errors.New("streamed response has no message_start event")
	}
	idx := make([]int, 0, len(blocks))
	for i := range blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	content := make([]map[string]any, 0, len(idx))
	for _, i := range idx {
		b := blocks[i]
		if p := partial[i].String(); p != "" {
			if json.Valid([]byte(p)) {
				b["input"] = json.RawMessage(p)
			} else {
				b["input"] = p // kept verbatim, flagged unparseable on import
			}
		}
		content = append(content, b)
	}
	c, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	msg["content"] = c
	return json.Marshal(msg)
}

// lastResponsesEvent takes the response of a Responses stream's final
// event (response.completed, or .incomplete / .failed).
func lastResponsesEvent(events []json.RawMessage) ([]byte, error) {
	for i := len(events) - 1; i >= 0; i-- {
		var e struct {
			Type     string          `json:"type"`
			Response json.RawMessage `json:"response"`
		}
		if json.Unmarshal(events[i], &e) == nil && len(e.Response) > 0 &&
			(e.Type == "response.completed" || e.Type == "response.incomplete" || e.Type == "response.failed") {
			return e.Response, nil
		}
	}
	return nil, errors.New("streamed Responses API body has no response.completed event (cut short?)")
}

// eventStreamMessage is one message of an AWS event stream.
type eventStreamMessage struct {
	eventType string
	payload   json.RawMessage
}

// eventStreamMessages reads the messages of an AWS event stream
// (application/vnd.amazon.eventstream). The body may have been logged as
// text, with bytes that were not UTF-8 replaced, so the framing lengths are
// not trusted: each message is found by its :event-type header, and its
// payload is the JSON object that follows the headers.
func eventStreamMessages(s string) ([]eventStreamMessage, error) {
	const header = ":event-type"
	var out []eventStreamMessage
	for pos := 0; ; {
		i := strings.Index(s[pos:], header)
		if i < 0 {
			break
		}
		at := pos + i + len(header)
		// header value: type 7 (string), 2-byte big-endian length, bytes.
		if at+3 > len(s) || s[at] != 7 {
			pos = at
			continue
		}
		n := int(binary.BigEndian.Uint16([]byte(s[at+1 : at+3])))
		if at+3+n > len(s) {
			return nil, errors.New("event stream cut short in a header")
		}
		typ := s[at+3 : at+3+n]
		rest := s[at+3+n:]
		j := strings.IndexByte(rest, '{')
		if j < 0 {
			return nil, fmt.Errorf("event stream: %s event has no JSON payload", typ)
		}
		dec := json.NewDecoder(strings.NewReader(rest[j:]))
		var payload json.RawMessage
		if err := dec.Decode(&payload); err != nil {
			return nil, fmt.Errorf("event stream: %s event: %w", typ, describeJSONError(err))
		}
		out = append(out, eventStreamMessage{eventType: typ, payload: payload})
		pos = at + 3 + n + j + int(dec.InputOffset())
	}
	if len(out) == 0 {
		return nil, errors.New("event stream has no events")
	}
	return out, nil
}

// reassembleEventStream rebuilds a Converse response from ConverseStream
// events, or collects an InvokeAgent stream's trace events.
//
// It is long because it is one switch over the stream's event types, each a
// few lines.
func reassembleEventStream(s string) ([]byte, error) {
	msgs, err := eventStreamMessages(s)
	if err != nil {
		return nil, err
	}
	var traces []json.RawMessage
	role := RoleAssistant
	type block struct {
		text     strings.Builder
		toolUse  map[string]any
		input    strings.Builder
		hasInput bool
	}
	blocks := map[int]*block{}
	get := func(i int) *block {
		if blocks[i] == nil {
			blocks[i] = &block{}
		}
		return blocks[i]
	}
	for _, m := range msgs {
		var e struct {
			Role              string `json:"role"`
			ContentBlockIndex int    `json:"contentBlockIndex"`
			Start             struct {
				ToolUse map[string]any `json:"toolUse"`
			} `json:"start"`
			Delta struct {
				Text    *string `json:"text"`
				ToolUse *struct {
					Input string `json:"input"`
				} `json:"toolUse"`
			} `json:"delta"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(m.payload, &e); err != nil {
			return nil, fmt.Errorf("event stream: %s event: %w", m.eventType, describeJSONError(err))
		}
		switch m.eventType {
		case "trace":
			traces = append(traces, m.payload)
		case "messageStart":
			if e.Role != "" {
				role = e.Role
			}
		case "contentBlockStart":
			if e.Start.ToolUse != nil {
				get(e.ContentBlockIndex).toolUse = e.Start.ToolUse
			}
		case "contentBlockDelta":
			b := get(e.ContentBlockIndex)
			if e.Delta.Text != nil {
				b.text.WriteString(*e.Delta.Text)
			}
			if e.Delta.ToolUse != nil {
				b.input.WriteString(e.Delta.ToolUse.Input)
				b.hasInput = true
			}
		case "internalServerException", "modelStreamErrorException", "validationException", "throttlingException":
			return nil, fmt.Errorf("event stream ends in %s: %s", m.eventType, e.Message)
		}
	}
	if len(traces) > 0 {
		return json.Marshal(map[string]any{"agentTrace": traces})
	}
	idx := make([]int, 0, len(blocks))
	for i := range blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	content := []map[string]any{}
	for _, i := range idx {
		b := blocks[i]
		if b.toolUse != nil {
			in := b.input.String()
			switch {
			case !b.hasInput || strings.TrimSpace(in) == "":
				b.toolUse["input"] = map[string]any{}
			case json.Valid([]byte(in)):
				b.toolUse["input"] = json.RawMessage(in)
			default:
				b.toolUse["input"] = in
			}
			content = append(content, map[string]any{"toolUse": b.toolUse})
			continue
		}
		content = append(content, map[string]any{"text": b.text.String()})
	}
	return json.Marshal(map[string]any{"output": map[string]any{"message": map[string]any{"role": role, "content": content}}})
}

// streamBody returns a body logged as text: a stream reassembled, or the
// JSON object the text holds.
func streamBody(text []byte, what string) ([]byte, error) {
	inner := bytes.TrimSpace(text)
	if len(inner) == 0 {
		return nil, nil
	}
	if inner[0] == '{' && json.Valid(inner) {
		return inner, nil
	}
	if isStream(string(text)) {
		b, err := reassembleStream(string(text))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s body is text, not a JSON object or a stream of events", what)
}
