package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeServer is a local OpenAI-compatible chat-completions server answering
// from a function of the request; it records what it was sent.
type fakeServer struct {
	*httptest.Server
	mu       sync.Mutex
	reqs     []recorded
	inFlight atomic.Int32
	peak     atomic.Int32
	// answer returns the status, headers and body for request number n
	// (from 0).
	answer func(n int, req *chatRequestSeen) (int, map[string]string, string)
}

type recorded struct {
	path, auth, apiKey string
	body               chatRequestSeen
}

// chatRequestSeen is the request as the server decodes it; pointer fields
// tell absent from zero.
type chatRequestSeen struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Tools          []ToolSpec      `json:"tools"`
	Temperature    *float64        `json:"temperature"`
	N              *int            `json:"n"`
	ResponseFormat *responseFormat `json:"response_format"`
}

func newFakeServer(t *testing.T, answer func(n int, req *chatRequestSeen) (int, map[string]string, string)) *fakeServer {
	t.Helper()
	fs := &fakeServer{answer: answer}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := fs.inFlight.Add(1)
		defer fs.inFlight.Add(-1)
		for {
			p := fs.peak.Load()
			if cur <= p || fs.peak.CompareAndSwap(p, cur) {
				break
			}
		}
		var body chatRequestSeen
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, "bad json", 400)
			return
		}
		fs.mu.Lock()
		n := len(fs.reqs)
		fs.reqs = append(fs.reqs, recorded{path: r.URL.Path, auth: r.Header.Get("Authorization"), apiKey: r.Header.Get("api-key"), body: body})
		fs.mu.Unlock()
		status, headers, out := fs.answer(n, &body)
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, out)
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeServer) count() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return len(fs.reqs)
}

func (fs *fakeServer) requests() []recorded {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]recorded(nil), fs.reqs...)
}

// completion is a chat-completions response whose choices carry contents.
func completion(contents ...string) string {
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	type choice struct {
		Index        int    `json:"index"`
		Message      msg    `json:"message"`
		FinishReason string `json:"finish_reason"`
	}
	var cs []choice
	for i, c := range contents {
		cs = append(cs, choice{Index: i, Message: msg{Role: "assistant", Content: c}, FinishReason: "stop"})
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": "judge-model-2024-08-06",
		"choices": cs,
		"usage":   map[string]int{"prompt_tokens": 100, "completion_tokens": 10 * len(contents), "total_tokens": 100 + 10*len(contents)},
	})
	return string(b)
}

// ok answers every request with the same verdict, once per requested n.
func ok(content string) func(int, *chatRequestSeen) (int, map[string]string, string) {
	return func(_ int, req *chatRequestSeen) (int, map[string]string, string) {
		n := 1
		if req.N != nil {
			n = *req.N
		}
		cs := make([]string, n)
		for i := range cs {
			cs[i] = content
		}
		return 200, nil, completion(cs...)
	}
}

// memCache is an in-memory Cache for the judge package's own tests (the
// SQLite cache is tested in store and end to end in the command tests).
type memCache struct {
	mu sync.Mutex
	m  map[CacheKey][]byte
}

func (c *memCache) Get(_ context.Context, k CacheKey) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok, nil
}

func (c *memCache) Put(_ context.Context, k CacheKey, v []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[CacheKey][]byte{}
	}
	c.m[k] = append([]byte(nil), v...)
	return nil
}

func testClient(t *testing.T, url string) *Client {
	t.Helper()
	c, err := NewClient(url+"/v1", "sk-test", "judge-model-2024-08-06")
	if err != nil {
		t.Fatal(err)
	}
	c.Backoff = 5 * time.Millisecond // tests do not wait out real backoffs
	c.MaxBackoff = 20 * time.Millisecond
	return c
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
