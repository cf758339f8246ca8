package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// DefaultURL is the OpenAI API; any chat-completions compatible server
// (vLLM, llama.cpp server, Ollama, Azure deployments) works in its place.
const DefaultURL = "https://api.openai.com/v1"

// Errors a run stops on. Each wraps a one-line explanation.
var (
	// ErrFatal marks an error no retry can fix: a refused key, an unknown
	// model, an unreachable or silent endpoint, a response that is not
	// chat-completions JSON.
	ErrFatal = errors.New("judge endpoint failed")
	// ErrBudget: --judge-max-requests requests were sent.
	ErrBudget = errors.New("request budget spent")
)

// Client sends chat-completions requests to one endpoint with one model.
// It is safe for concurrent use.
type Client struct {
	endpoint string // full URL of .../chat/completions, query kept
	host     string
	azure    bool
	key      string
	model    string
	http     *http.Client

	// Timeout bounds one request (default 60s).
	Timeout time.Duration
	// Retries is how many times a 429, a 5xx, a timeout or a refused
	// connection is retried (default 4).
	Retries int
	// Backoff is the first retry's delay; it doubles per retry, with full
	// jitter, capped at MaxBackoff. A Retry-After header takes precedence
	// (capped at MaxBackoff too).
	Backoff, MaxBackoff time.Duration
	// Budget, when set, bounds the HTTP requests sent.
	Budget *Budget

	noN      atomic.Bool // the server ignored or refused n > 1
	requests atomic.Int64
	usage    usageCounter
}

// Budget counts requests against a limit shared by everything one run sends.
type Budget struct {
	max  int64
	used atomic.Int64
}

// NewBudget allows max requests; max <= 0 is unlimited.
func NewBudget(max int) *Budget { return &Budget{max: int64(max)} }

// take reserves one request, false when the budget is spent.
func (b *Budget) take() bool {
	if b == nil || b.max <= 0 {
		return true
	}
	if b.used.Add(1) > b.max {
		b.used.Add(-1)
		return false
	}
	return true
}

// Exhausted reports whether no request is left.
func (b *Budget) Exhausted() bool { return b != nil && b.max > 0 && b.used.Load() >= b.max }

// NewClient returns a client for the chat-completions endpoint under baseURL
// (DefaultURL when empty). An Azure-style base URL (…/openai/deployments/D
// ?api-version=…) keeps its query and is sent the key as api-key.
func NewClient(baseURL, key, model string) (*Client, error) {
	if baseURL == "" {
		baseURL = DefaultURL
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--judge-url %q: want an http(s) base URL such as %s", baseURL, DefaultURL)
	}
	if model == "" {
		return nil, errors.New("a model is required (--judge-model)")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/chat/completions") {
		u.Path += "/chat/completions"
	}
	return &Client{
		endpoint:   u.String(),
		host:       u.Host,
		azure:      strings.HasSuffix(u.Hostname(), ".azure.com") || u.Query().Has("api-version"),
		key:        key,
		model:      model,
		http:       &http.Client{},
		Timeout:    60 * time.Second,
		Retries:    4,
		Backoff:    500 * time.Millisecond,
		MaxBackoff: 30 * time.Second,
	}, nil
}

// Host is the endpoint's host (with port), as verdicts are cached under.
func (c *Client) Host() string { return c.host }

// Model is the model every request names.
func (c *Client) Model() string { return c.model }

// Requests is the number of HTTP requests sent so far.
func (c *Client) Requests() int { return int(c.requests.Load()) }

// Usage is the token count the server reported so far.
func (c *Client) Usage() Usage { return c.usage.get() }

// Usage counts tokens as the server's usage object reports them.
type Usage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	Total      int `json:"total"`
}

type usageCounter struct {
	mu sync.Mutex
	u  Usage
}

func (u *usageCounter) add(x Usage) {
	u.mu.Lock()
	u.u.Prompt += x.Prompt
	u.u.Completion += x.Completion
	u.u.Total += x.Total
	u.mu.Unlock()
}

func (u *usageCounter) get() Usage {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.u
}

// Message, ToolCall and ToolSpec are the chat-completions shapes: the
// canonical conversation as trace.ChatMessages and trace.ChatTools write it.
type (
	Message  = trace.ChatMessage
	ToolCall = trace.ChatToolCall
	ToolSpec = trace.ChatTool
)

// Request is what one completion asks for.
type Request struct {
	Messages []Message
	Tools    []ToolSpec
	// JSON asks for a JSON object answer (response_format json_object).
	JSON bool
	// N is the number of answers wanted (0 or 1: one).
	N int
}

// Choice is one answer.
type Choice struct {
	Content   string
	ToolCalls []ToolCall
}

// chatRequest is the wire form of a request.
type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Tools          []ToolSpec      `json:"tools,omitempty"`
	Temperature    float64         `json:"temperature"`
	N              int             `json:"n,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type string `json:"type"`
}

// chatResponse is the part of a chat-completions response the client reads.
type chatResponse struct {
	Object  string `json:"object"`
	Choices []struct {
		Message *struct {
			Content   *string    `json:"content"`
			ToolCalls []ToolCall `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// Complete asks for req.N answers (at least one) at temperature 0. With
// N > 1 it sends n once; when the server answers with fewer choices (or
// refuses n), it asks for the rest one request at a time, and does so from
// then on.
func (c *Client) Complete(ctx context.Context, req Request) ([]Choice, error) {
	n := max(req.N, 1)
	var out []Choice
	if n > 1 && !c.noN.Load() {
		got, err := c.send(ctx, req, n)
		switch {
		case errors.Is(err, errRefusedN):
			c.noN.Store(true)
		case err != nil:
			return nil, err
		default:
			out = append(out, got...)
			if len(got) < n {
				c.noN.Store(true)
			}
		}
	}
	for len(out) < n {
		got, err := c.send(ctx, req, 1)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out[:n], nil
}

// errRefusedN: a 400 whose message names the n parameter.
var errRefusedN = errors.New("server refuses n")

// send makes one logical request, retrying transient failures.
func (c *Client) send(ctx context.Context, req Request, n int) ([]Choice, error) {
	body := chatRequest{Model: c.model, Messages: req.Messages, Tools: req.Tools, Temperature: 0}
	if n > 1 {
		body.N = n
	}
	if req.JSON {
		body.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var last *transientError
	for attempt := 0; ; attempt++ {
		if !c.Budget.take() {
			if last != nil {
				// the endpoint failed and the budget ran out retrying it:
				// that is the endpoint's failure, not a partial run
				return nil, fmt.Errorf("%w: %s %v (the request budget ran out retrying)", ErrFatal, c.host, last.err)
			}
			return nil, ErrBudget
		}
		choices, retryAfter, err := c.once(ctx, payload, n)
		if err == nil {
			return choices, nil
		}
		var tr *transientError
		if !errors.As(err, &tr) || ctx.Err() != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		last = tr
		if attempt >= c.Retries {
			return nil, fmt.Errorf("%w: %s %v (after %d attempts)", ErrFatal, c.host, tr.err, attempt+1)
		}
		wait := c.backoff(attempt, retryAfter)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// transientError is worth retrying.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }

// backoff is the wait before retry number attempt+1.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	maxWait := c.MaxBackoff
	if maxWait <= 0 {
		maxWait = 30 * time.Second
	}
	if retryAfter >= 0 {
		return min(retryAfter, maxWait)
	}
	// the wait before retry number attempt+1 doubles from Backoff
	d := c.Backoff << attempt
	if d <= 0 || d > maxWait {
		d = maxWait
	}
	// full jitter over the upper half keeps a floor while spreading clients
	return d/2 + rand.N(d/2+1)
}

// once sends one HTTP request.
//
// It is long because building the request, reading the response and
// classifying every failure (retryable, fatal, rate-limited) share the
// response's state.
func (c *Client) once(ctx context.Context, payload []byte, n int) ([]Choice, time.Duration, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(rctx, http.MethodPost, c.endpoint, bytes.NewReader(payload))
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrFatal, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		if c.azure {
			hreq.Header.Set("api-key", c.key)
		} else {
			hreq.Header.Set("Authorization", "Bearer "+c.key)
		}
	}
	c.requests.Add(1)
	resp, err := c.http.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		if rctx.Err() != nil {
			return nil, -1, &transientError{fmt.Errorf("no answer within %s", timeout)}
		}
		var ne net.Error
		var oe *net.OpError
		if errors.As(err, &oe) || errors.As(err, &ne) {
			return nil, -1, &transientError{fmt.Errorf("cannot connect (%v)", shortNetErr(err))}
		}
		return nil, -1, &transientError{err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		if rctx.Err() != nil && ctx.Err() == nil {
			return nil, -1, &transientError{fmt.Errorf("no answer within %s", timeout)}
		}
		return nil, -1, &transientError{fmt.Errorf("reading the response: %v", err)}
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, retryAfter(resp.Header.Get("Retry-After")), &transientError{fmt.Errorf("HTTP %d%s", resp.StatusCode, apiMessage(data))}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, 0, fmt.Errorf("%w: %s refused the API key (HTTP %d%s); set OPENAI_API_KEY or GOLDTRACE_JUDGE_API_KEY", ErrFatal, c.host, resp.StatusCode, apiMessage(data))
	case resp.StatusCode == http.StatusNotFound:
		return nil, 0, fmt.Errorf("%w: %s has no model %q or no chat-completions endpoint at %s (HTTP 404%s)", ErrFatal, c.host, c.model, c.endpoint, apiMessage(data))
	case resp.StatusCode == http.StatusBadRequest && n > 1 && mentionsN(data):
		return nil, 0, errRefusedN
	case resp.StatusCode >= 400:
		msg := apiMessage(data)
		if strings.Contains(strings.ToLower(msg), "model") {
			return nil, 0, fmt.Errorf("%w: %s: model %q refused (HTTP %d%s)", ErrFatal, c.host, c.model, resp.StatusCode, msg)
		}
		return nil, 0, fmt.Errorf("%w: %s answered HTTP %d%s", ErrFatal, c.host, resp.StatusCode, msg)
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil || cr.Choices == nil {
		return nil, 0, fmt.Errorf("%w: %s: the response is not chat-completions JSON (%s)", ErrFatal, c.host, clip(string(data), 60))
	}
	if cr.Usage != nil {
		c.usage.add(Usage{Prompt: cr.Usage.PromptTokens, Completion: cr.Usage.CompletionTokens, Total: cr.Usage.TotalTokens})
	}
	out := make([]Choice, 0, len(cr.Choices))
	for _, ch := range cr.Choices {
		if ch.Message == nil {
			return nil, 0, fmt.Errorf("%w: %s: a choice without a message is not chat-completions JSON", ErrFatal, c.host)
		}
		var content string
		if ch.Message.Content != nil {
			content = *ch.Message.Content
		}
		out = append(out, Choice{Content: content, ToolCalls: ch.Message.ToolCalls})
	}
	if len(out) == 0 {
		return nil, -1, &transientError{errors.New("an answer without choices")}
	}
	return out, 0, nil
}

// retryAfter reads a Retry-After header: seconds or an HTTP date; -1 when
// there is none.
func retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return -1
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return -1
}

// apiMessage extracts the error message of an OpenAI-style error body.
func apiMessage(data []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &e) != nil || len(e.Error) == 0 {
		return ""
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
		return ": " + clip(obj.Message, 120)
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil && s != "" {
		return ": " + clip(s, 120)
	}
	return ""
}

func mentionsN(data []byte) bool {
	msg := strings.ToLower(apiMessage(data))
	return strings.Contains(msg, "'n'") || strings.Contains(msg, "\"n\"") || strings.Contains(msg, " n ") || strings.Contains(msg, "n must") || strings.Contains(msg, "parameter n")
}

// shortNetErr drops the URL and method a net/http error repeats.
func shortNetErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// clip shortens s to n runes on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
