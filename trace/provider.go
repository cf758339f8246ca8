package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// providerEnvelope is one logged API exchange. Logs wrap the request and
// response bodies in many ways; these are the ones recognised:
//
//	{"request":{…},"response":{…}}                 a generic log line
//	{"request_body":{…},"response_body":{…}}       recorded HTTP cassettes
//	{"custom_id":…,"body":{…}}                     OpenAI batch input
//	{"custom_id":…,"response":{"body":{…}}}        OpenAI batch output
//	{"messages":[…],…,"choices":[…]}               request and response in one object
//	{"messages":[…],…}                             a request alone
//
// Bodies may be JSON text inside a string.
type providerEnvelope struct {
	ID           json.RawMessage            `json:"id"`
	CustomID     string                     `json:"custom_id"`
	Timestamp    json.RawMessage            `json:"timestamp"`
	Metadata     map[string]json.RawMessage `json:"metadata"`
	Request      json.RawMessage            `json:"request"`
	RequestBody  json.RawMessage            `json:"request_body"`
	Body         json.RawMessage            `json:"body"`
	Response     json.RawMessage            `json:"response"`
	ResponseBody json.RawMessage            `json:"response_body"`
	Choices      json.RawMessage            `json:"choices"`
	Messages     json.RawMessage            `json:"messages"`
}

// exchange is an unwrapped request/response pair.
type exchange struct {
	id        string
	timestamp json.RawMessage
	metadata  map[string]json.RawMessage
	request   []byte
	response  []byte // nil when the log holds only the request
}

func unwrapExchange(data []byte) (exchange, error) {
	var env providerEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		return exchange{}, describeJSONError(err)
	}
	ex := exchange{id: firstString(env.ID), timestamp: env.Timestamp, metadata: env.Metadata}
	if len(env.Messages) > 0 {
		// The record is the request itself; its id, metadata and
		// timestamp belong to the request body, not to a wrapper.
		ex.request = data
		ex.metadata = nil
		if len(env.Choices) > 0 {
			ex.response = data
		}
	} else {
		var err error
		if ex.request, err = body(firstNonEmpty(env.Request, env.RequestBody, env.Body), "request"); err != nil {
			return exchange{}, err
		}
		if ex.request == nil {
			return exchange{}, errors.New("no request (expected messages, request, request_body or body)")
		}
	}
	if ex.id == "" {
		ex.id = env.CustomID
	}
	if ex.response == nil {
		var err error
		if ex.response, err = body(firstNonEmpty(env.Response, env.ResponseBody), "response"); err != nil {
			return exchange{}, err
		}
	}
	// Batch-style bodies nest once more under "body".
	ex.request = unnestBody(ex.request)
	ex.response = unnestBody(ex.response)
	return ex, nil
}

// body returns a logged body as JSON object bytes; a body logged as a string
// must hold JSON.
func body(raw json.RawMessage, what string) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		inner := bytes.TrimSpace([]byte(s))
		if len(inner) == 0 {
			return nil, nil
		}
		if inner[0] != '{' || !json.Valid(inner) {
			return nil, fmt.Errorf("%s body is text, not a JSON object (a streamed response?)", what)
		}
		return inner, nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("%s: must be an object, got %s", what, jsonKind(raw))
	}
	return raw, nil
}

// unnestBody unwraps {"status_code":…,"body":{…}} as OpenAI's batch API
// writes it.
func unnestBody(raw []byte) []byte {
	if raw == nil {
		return nil
	}
	var probe struct {
		Body     json.RawMessage `json:"body"`
		Messages json.RawMessage `json:"messages"`
		Choices  json.RawMessage `json:"choices"`
		Content  json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &probe) != nil || len(probe.Messages)+len(probe.Choices)+len(probe.Content) > 0 {
		return raw
	}
	if inner, err := body(probe.Body, "body"); err == nil && inner != nil {
		return inner
	}
	return raw
}

func firstNonEmpty(vs ...json.RawMessage) json.RawMessage {
	for _, v := range vs {
		if t := bytes.TrimSpace(v); len(t) > 0 && string(t) != "null" {
			return t
		}
	}
	return nil
}

// firstString reads a JSON string or number as text ("" for anything else).
func firstString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '{' || raw[0] == '[' || string(raw) == "null" {
		return ""
	}
	return textOf(raw)
}

// providerDecoder reads OpenAI chat-completions or Anthropic Messages logs.
// With want empty (auto) it decides per record, so a log mixing both works.
type providerDecoder struct {
	cache schemaCache
	want  string
}

func (d *providerDecoder) record(line int, data []byte) []result {
	ex, err := unwrapExchange(data)
	if err != nil {
		return errResult(line, err)
	}
	format := d.want
	if format == "" {
		format = guessProvider(ex)
	}
	var t Trace
	if format == FormatAnthropic {
		t, err = anthropicTrace(ex, d.cache)
	} else {
		t, err = openAITrace(ex, d.cache)
	}
	if err != nil {
		return errResult(line, err)
	}
	return []result{{line: line, t: t}}
}

func (d *providerDecoder) flush() []result { return nil }

// guessProvider tells Anthropic Messages bodies from OpenAI ones by the
// fields only Anthropic has.
func guessProvider(ex exchange) string {
	var resp struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	if ex.response != nil && json.Unmarshal(ex.response, &resp) == nil {
		if resp.Type == "message" || (len(resp.Content) > 0 && resp.Content[0] == '[') {
			return FormatAnthropic
		}
	}
	for _, marker := range []string{`"input_schema"`, `"tool_use"`, `"tool_result"`, `"system":`} {
		if bytes.Contains(ex.request, []byte(marker)) {
			return FormatAnthropic
		}
	}
	return FormatOpenAI
}

// finishExchange fills what OpenAI and Anthropic logs share: id, timestamp
// and metadata from the envelope, the model, and the derived id.
func finishExchange(t *Trace, ex exchange, model string, reqMeta map[string]json.RawMessage) error {
	ts, err := parseTimestamp(ex.timestamp)
	if err != nil {
		return err
	}
	if !ts.IsZero() {
		t.Timestamp = ts
	}
	meta := decodeMetadata(reqMeta)
	for k, v := range decodeMetadata(ex.metadata) {
		if meta == nil {
			meta = map[string]string{}
		}
		meta[k] = v
	}
	if model != "" {
		if meta == nil {
			meta = map[string]string{}
		}
		if _, ok := meta["model"]; !ok {
			meta["model"] = model
		}
	}
	t.Metadata = meta
	if t.ID == "" {
		t.ID = ex.id
	}
	return nil
}
