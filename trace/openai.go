package trace

import (
	"encoding/json"
	"errors"
	"fmt"
)

// openAIRequest is a chat-completions request body (Ollama's /api/chat has
// the same shape).
type openAIRequest struct {
	Model     string                     `json:"model"`
	Messages  []chatMessage              `json:"messages"`
	Tools     []chatTool                 `json:"tools"`
	Functions []chatFunction             `json:"functions"`
	Metadata  map[string]json.RawMessage `json:"metadata"`
}

// openAIResponse is a chat-completions response body, or Ollama's, which
// has one message instead of choices.
type openAIResponse struct {
	ID        string          `json:"id"`
	Created   json.RawMessage `json:"created"`
	CreatedAt json.RawMessage `json:"created_at"`
	Model     string          `json:"model"`
	Choices   []openAIChoice  `json:"choices"`
	Message   *chatMessage    `json:"message"`
	Error     json.RawMessage `json:"error"`
}

type openAIChoice struct {
	Message *chatMessage `json:"message"`
}

// openAITrace turns one chat-completions exchange into a trace: the
// request's messages and tools, and the response's first choice appended as
// the final assistant message.
func openAITrace(ex exchange, cache schemaCache) (Trace, error) {
	var req openAIRequest
	var x recordLexer
	if !x.openAIRequest(ex.request, &req) {
		req = openAIRequest{}
		if err := json.Unmarshal(ex.request, &req); err != nil {
			return Trace{}, describeJSONError(err)
		}
	}
	if req.Messages == nil {
		return Trace{}, errors.New("request has no messages")
	}
	msgs, err := chatMessages(req.Messages, "messages")
	if err != nil {
		return Trace{}, err
	}
	rec := canonicalRecord{Tools: req.Tools, Functions: req.Functions}
	tools, _, err := rec.toTrace(cache, nil)
	if err != nil {
		return Trace{}, err
	}
	t := Trace{Tools: tools.Tools, Messages: msgs}
	model := req.Model
	if ex.response != nil {
		var resp openAIResponse
		if !x.openAIResponse(ex.response, &resp) {
			resp = openAIResponse{}
			if err := json.Unmarshal(ex.response, &resp); err != nil {
				return Trace{}, fmt.Errorf("response: %w", describeJSONError(err))
			}
		}
		if len(resp.Error) > 0 && string(resp.Error) != "null" && resp.Message == nil && len(resp.Choices) == 0 {
			return Trace{}, fmt.Errorf("response is an API error: %s", textOf(resp.Error))
		}
		reply := resp.Message
		if len(resp.Choices) > 0 {
			reply = resp.Choices[0].Message
		}
		if reply == nil {
			return Trace{}, errors.New("response has no choices[0].message")
		}
		if reply.Role == "" {
			reply.Role = RoleAssistant
		}
		m, err := reply.toMessage()
		if err != nil {
			return Trace{}, fmt.Errorf("response: %w", err)
		}
		t.Messages = append(t.Messages, m)
		if resp.Model != "" {
			model = resp.Model
		}
		if ts, err := parseTimestamp(firstNonEmpty(resp.Created, resp.CreatedAt)); err == nil {
			t.Timestamp = ts
		}
		if ex.id == "" {
			ex.id = resp.ID
		}
	}
	if err := finishExchange(&t, ex, model, req.Metadata); err != nil {
		return Trace{}, err
	}
	return t, nil
}
