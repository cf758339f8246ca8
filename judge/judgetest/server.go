// Package judgetest is a local OpenAI-compatible chat-completions server for
// tests: it answers from a function of each request and records what it was
// sent, so the judge and predict paths are tested without a network.
package judgetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// Server is a running test endpoint; its base URL is URL + "/v1".
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	reqs     []Recorded
	inFlight atomic.Int32
	peak     atomic.Int32
	answer   Answer
}

// Answer returns the status, headers and body for request number n (from 0).
type Answer func(n int, req *Request) (status int, headers map[string]string, body string)

// Recorded is one request as the server saw it.
type Recorded struct {
	Path, Auth, APIKey string
	Body               Request
}

// Request is a chat-completions request as decoded by the server; pointer
// fields tell absent from zero.
type Request struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string  `json:"role"`
		Content    string  `json:"content"`
		Name       *string `json:"name"`
		ToolCallID string  `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Temperature    *float64 `json:"temperature"`
	N              *int     `json:"n"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

// Samples is the n the request asked for (1 when absent).
func (r *Request) Samples() int {
	if r.N == nil {
		return 1
	}
	return *r.N
}

// Prompt is the first message's content.
func (r *Request) Prompt() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[0].Content
}

// New starts a server closed at the end of the test.
func New(t testing.TB, answer Answer) *Server {
	t.Helper()
	s := &Server{answer: answer}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	cur := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		p := s.peak.Load()
		if cur <= p || s.peak.CompareAndSwap(p, cur) {
			break
		}
	}
	var body Request
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, 400)
		return
	}
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, Recorded{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), APIKey: r.Header.Get("api-key"), Body: body})
	s.mu.Unlock()
	status, headers, out := s.answer(n, &body)
	for k, v := range headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprint(w, out)
}

// Count is the number of requests received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.reqs...)
}

// Peak is the most requests ever in flight at once.
func (s *Server) Peak() int { return int(s.peak.Load()) }

// Completion is a chat-completions response with one choice per content.
func Completion(contents ...string) string {
	cs := make([]map[string]any, len(contents))
	for i, c := range contents {
		cs[i] = map[string]any{"index": i, "message": map[string]any{"role": "assistant", "content": c}, "finish_reason": "stop"}
	}
	return response(cs, len(contents))
}

// ToolCall is a call in a ToolCalls response; Arguments is the JSON string.
type ToolCall struct{ Name, Arguments string }

// ToolCalls is a chat-completions response whose one choice makes calls
// (none: a plain text answer).
func ToolCalls(calls ...ToolCall) string {
	tcs := make([]map[string]any, len(calls))
	for i, c := range calls {
		tcs[i] = map[string]any{"id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	if len(calls) > 0 {
		msg["tool_calls"] = tcs
	} else {
		msg["content"] = "No tool is needed."
	}
	return response([]map[string]any{{"index": 0, "message": msg, "finish_reason": "tool_calls"}}, 1)
}

func response(choices []map[string]any, n int) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": "test-model-2024-08-06",
		"choices": choices,
		"usage":   map[string]int{"prompt_tokens": 100, "completion_tokens": 10 * n, "total_tokens": 100 + 10*n},
	})
	return string(b)
}

// Same answers every request with content, once per requested sample.
func Same(content string) Answer {
	return func(_ int, req *Request) (int, map[string]string, string) {
		cs := make([]string, req.Samples())
		for i := range cs {
			cs[i] = content
		}
		return 200, nil, Completion(cs...)
	}
}
