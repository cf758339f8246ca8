package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
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
	Contents     json.RawMessage            `json:"contents"` // a Gemini request
	Input        json.RawMessage            `json:"input"`    // a Responses request
	InputText    json.RawMessage            `json:"inputText"`
	Object       string                     `json:"object"`
	URI          string                     `json:"uri"`
	URL          string                     `json:"url"`
	Output       json.RawMessage            `json:"output"`
}

// exchange is an unwrapped request/response pair.
type exchange struct {
	id        string
	timestamp json.RawMessage
	metadata  map[string]json.RawMessage
	request   []byte
	response  []byte // nil when the log holds only the request
	uri       string // the URL the request went to, when logged
}

func unwrapExchange(data []byte) (exchange, error) {
	var env providerEnvelope
	var x recordLexer
	if !x.envelope(data, &env) {
		env = providerEnvelope{}
		if err := json.Unmarshal(data, &env); err != nil {
			return exchange{}, describeJSONError(err)
		}
	}
	ex := exchange{id: firstString(env.ID), timestamp: env.Timestamp, metadata: env.Metadata, uri: env.URI}
	if ex.uri == "" {
		ex.uri = env.URL
	}
	if env.Object == "response" && len(env.Output) > 0 {
		// A bare Responses API object, with its stored input when present.
		ex.id = ""
		ex.metadata = nil
		ex.response = data
		return ex, nil
	}
	if len(env.Messages) > 0 || len(env.Contents) > 0 || len(env.InputText) > 0 ||
		len(env.Input) > 0 && len(env.Request)+len(env.RequestBody)+len(env.Body) == 0 {
		// The record is the request itself; its id, metadata and
		// timestamp belong to the request body, not to a wrapper.
		ex.request = data
		ex.metadata = nil
		if len(env.Choices) > 0 || len(env.Output) > 0 {
			ex.response = data
		}
	} else {
		var err error
		if ex.request, err = body(firstNonEmpty(env.Request, env.RequestBody, env.Body), "request"); err != nil {
			return exchange{}, err
		}
		if ex.request == nil {
			return exchange{}, errors.New("no request (expected messages, contents, input, request, request_body or body)")
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
		return streamBody([]byte(s), what)
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
	if v, ok := lexFields(raw, "body", "messages", "choices", "content"); ok {
		probe.Body, probe.Messages, probe.Choices, probe.Content = v[0], v[1], v[2], v[3]
	} else if json.Unmarshal(raw, &probe) != nil {
		return raw
	}
	if len(probe.Messages)+len(probe.Choices)+len(probe.Content) > 0 {
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

// providerDecoder reads logged provider API exchanges: OpenAI chat
// completions and Responses, Anthropic Messages, Gemini generateContent and
// Bedrock Converse. With want empty (auto) it decides per record, so a log
// mixing providers works.
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
	if ex.request == nil && format != FormatResponses {
		return errResult(line, errors.New("no request (expected messages, contents, input, request, request_body or body)"))
	}
	t, err := decodeExchange(ex, format, d.cache)
	if err != nil {
		return errResult(line, err)
	}
	return []result{{line: line, t: t}}
}

// decodeExchange decodes one exchange with the decoder of its provider.
func decodeExchange(ex exchange, format string, cache schemaCache) (Trace, error) {
	switch format {
	case FormatAnthropic:
		return anthropicTrace(ex, cache)
	case FormatResponses:
		return responsesTrace(ex, cache)
	case FormatGemini:
		return geminiTrace(ex, cache)
	case FormatBedrock:
		return bedrockTrace(ex, cache)
	}
	return openAITrace(ex, cache)
}

func (d *providerDecoder) flush() []result { return nil }

// guessProvider names the provider of an exchange from the fields only it
// has. Bedrock is told from Anthropic by its content blocks, which have no
// "type" (both have a top-level "system").
func guessProvider(ex exchange) string {
	var req guessRequest
	var resp guessResponse
	if ex.request != nil && !lexGuessRequest(ex.request, &req) {
		_ = json.Unmarshal(ex.request, &req) // a malformed request is reported by its decoder
	}
	if ex.response != nil && !lexGuessResponse(ex.response, &resp) {
		_ = json.Unmarshal(ex.response, &resp)
	}
	output := bytes.TrimSpace(resp.Output)
	switch {
	case req.Contents != nil || resp.Candidates != nil:
		return FormatGemini
	case req.Input != nil || resp.Object == "response" || len(output) > 0 && output[0] == '[':
		return FormatResponses
	case req.ToolConfig != nil || req.SchemaVersion != nil || req.InputText != nil || len(output) > 0 && output[0] == '{':
		return FormatBedrock
	}
	for _, m := range req.Messages {
		if untypedBlocks(m.Content) {
			return FormatBedrock
		}
	}
	if untypedBlocks(req.System) {
		return FormatBedrock
	}
	if resp.Type == "message" || (len(resp.Content) > 0 && resp.Content[0] == '[') {
		return FormatAnthropic
	}
	for _, marker := range []string{`"input_schema"`, `"tool_use"`, `"tool_result"`, `"system":`} {
		if bytes.Contains(ex.request, []byte(marker)) {
			return FormatAnthropic
		}
	}
	return FormatOpenAI
}

// guessRequest and guessResponse are what guessProvider reads of an
// exchange.
type guessRequest struct {
	Messages      []guessMessage  `json:"messages"`
	Contents      json.RawMessage `json:"contents"`
	Input         json.RawMessage `json:"input"`
	ToolConfig    json.RawMessage `json:"toolConfig"`
	SchemaVersion json.RawMessage `json:"schemaVersion"`
	InputText     json.RawMessage `json:"inputText"`
	System        json.RawMessage `json:"system"`
}

type guessMessage struct {
	Content json.RawMessage `json:"content"`
}

type guessResponse struct {
	Type       string          `json:"type"`
	Object     string          `json:"object"`
	Content    json.RawMessage `json:"content"`
	Output     json.RawMessage `json:"output"`
	Candidates json.RawMessage `json:"candidates"`
}

// lexGuessRequest fills req as json.Unmarshal would, reporting false when
// it is not certain to (lexFields).
func lexGuessRequest(raw []byte, req *guessRequest) bool {
	var r guessRequest
	var msgs json.RawMessage
	if !lexFlat(raw, flatField{name: "messages", r: &msgs}, flatField{name: "contents", r: &r.Contents},
		flatField{name: "input", r: &r.Input}, flatField{name: "toolConfig", r: &r.ToolConfig},
		flatField{name: "schemaVersion", r: &r.SchemaVersion}, flatField{name: "inputText", r: &r.InputText},
		flatField{name: "system", r: &r.System}) {
		return false
	}
	if msgs != nil {
		x := recordLexer{l: jsonlex.Lexer{Data: msgs}}
		if !list(&x, &r.Messages, func(m *guessMessage) bool {
			b, err := x.l.Skip()
			return err == nil && lexFlat(b, flatField{name: "content", r: &m.Content})
		}) || x.l.End() != nil {
			return false
		}
	}
	*req = r
	return true
}

// lexGuessResponse fills resp as json.Unmarshal would, reporting false
// when it is not certain to.
func lexGuessResponse(raw []byte, resp *guessResponse) bool {
	var r guessResponse
	if !lexFlat(raw, flatField{name: "type", s: &r.Type}, flatField{name: "object", s: &r.Object},
		flatField{name: "content", r: &r.Content}, flatField{name: "output", r: &r.Output}, flatField{name: "candidates", r: &r.Candidates}) {
		return false
	}
	*resp = r
	return true
}

// untypedBlocks says whether raw is a list of content blocks without a
// "type" (Bedrock's {"text":…}, {"toolUse":…}), not OpenAI's or Anthropic's
// typed parts.
func untypedBlocks(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return false
	}
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(raw, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		if _, typed := b["type"]; typed {
			return false
		}
		for _, k := range []string{"text", "toolUse", "toolResult", "image", "document", "reasoningContent"} {
			if _, ok := b[k]; ok {
				return true
			}
		}
	}
	return false
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
	if model == "" {
		model = modelFromURI(ex.uri)
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

// modelFromURI reads the model from a request URL that names it, as
// Bedrock's (/model/ID/converse) and Gemini's (/models/ID:generateContent)
// do.
func modelFromURI(uri string) string {
	for _, marker := range []string{"/model/", "/models/"} {
		i := strings.Index(uri, marker)
		if i < 0 {
			continue
		}
		rest := uri[i+len(marker):]
		if j := strings.IndexAny(rest, "/:?#"); j >= 0 {
			rest = rest[:j]
		}
		if m, err := url.PathUnescape(rest); err == nil {
			return m
		}
		return rest
	}
	return ""
}
