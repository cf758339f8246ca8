package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/judge/judgetest"
	"github.com/goldtrace/goldtrace/trace"
)

func sampleInputs(n int) []*Input {
	out := make([]*Input, n)
	for i := range out {
		out[i] = &Input{
			ID: fmt.Sprintf("it_%02d", i),
			Messages: []trace.Message{
				{Role: "system", Content: "You are a support agent."},
				{Role: "user", Content: fmt.Sprintf("where is order ORD-%d?", 9000+i)},
			},
			Tools:    []trace.Tool{{Name: "get_order_status", Description: "Shipping status of one order.", Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}}}`)}},
			Expected: []gold.ExpectedCall{{Tool: "get_order_status", Args: json.RawMessage(fmt.Sprintf(`{"order_id":"ORD-%d"}`, 9000+i)), ArgRules: map[string]gold.ArgRule{"order_id": {Match: "fuzzy"}}}},
			Calls:    []trace.Call{trace.NewCall("c1", "get_order_status", fmt.Sprintf(`{"order_id":"ord-%d "}`, 9000+i))},
		}
	}
	return out
}

func newJudge(t *testing.T, kind Kind, c *Client, cache Cache) *Judge {
	t.Helper()
	tp, err := DefaultTemplate(kind)
	if err != nil {
		t.Fatal(err)
	}
	return &Judge{Kind: kind, Template: tp, Runner: &Runner{Client: c, Cache: cache, Concurrency: 4}}
}

func TestRequestShape(t *testing.T) {
	fs := judgetest.New(t, judgetest.Same(`{"explanation":"fits","answer":"yes"}`))
	j := newJudge(t, KindQuality, testClient(t, fs.URL), nil)
	res, st, err := j.Run(context.Background(), sampleInputs(1))
	if err != nil {
		t.Fatal(err)
	}
	reqs := fs.Requests()
	if len(reqs) != 1 || st.Requests != 1 {
		t.Fatalf("requests = %d (stats %d), want 1", len(reqs), st.Requests)
	}
	r := reqs[0]
	if r.Path != "/v1/chat/completions" {
		t.Errorf("path = %q", r.Path)
	}
	if r.Auth != "Bearer sk-test" {
		t.Errorf("Authorization = %q", r.Auth)
	}
	if r.Body.Model != "judge-model-2024-08-06" {
		t.Errorf("model = %q", r.Body.Model)
	}
	if r.Body.Temperature == nil || *r.Body.Temperature != 0 {
		t.Errorf("temperature = %v, want an explicit 0", r.Body.Temperature)
	}
	if r.Body.N == nil || *r.Body.N != 5 {
		t.Errorf("n = %v, want 5 (quality default samples)", r.Body.N)
	}
	if r.Body.ResponseFormat == nil || r.Body.ResponseFormat.Type != "json_object" {
		t.Errorf("response_format = %+v", r.Body.ResponseFormat)
	}
	if len(r.Body.Messages) != 1 || r.Body.Messages[0].Role != "user" || !contains(r.Body.Prompt(), "where is order ORD-9000?") {
		t.Errorf("messages = %+v", r.Body.Messages)
	}
	v := res[0].Verdict
	if !res[0].Judged || v.Score != 1 || v.Yes != 5 || v.Samples != 5 || v.Reason != "fits" {
		t.Errorf("verdict = %+v", res[0])
	}
	if st.Tokens.Total != 150 {
		t.Errorf("tokens = %+v, want total 150", st.Tokens)
	}
}

func TestSelectionAndArgsRequestOnce(t *testing.T) {
	fs := judgetest.New(t, func(_ int, req *judgetest.Request) (int, map[string]string, string) {
		if req.N != nil {
			return 400, nil, `{"error":{"message":"n given"}}`
		}
		if contains(req.Prompt(), "reference label") {
			return 200, nil, judgetest.Completion(`{"score":0.5,"reason":"derivable"}`)
		}
		return 200, nil, judgetest.Completion(`{"explanation":"right tool","label":"Correct"}`)
	})
	c := testClient(t, fs.URL)
	res, _, err := newJudge(t, KindSelection, c, nil).Run(context.Background(), sampleInputs(1))
	if err != nil || res[0].Verdict.Score != 1 || res[0].Verdict.Label != "correct" {
		t.Fatalf("selection: %+v %v", res, err)
	}
	res, _, err = newJudge(t, KindArgs, c, nil).Run(context.Background(), sampleInputs(1))
	if err != nil || res[0].Verdict.Score != 0.5 || res[0].Verdict.Reason != "derivable" {
		t.Fatalf("args: %+v %v", res, err)
	}
}

func TestQualityWithoutN(t *testing.T) {
	// a server that ignores n (one choice per request): the client asks
	// for the remaining samples one by one, then stops sending n.
	answers := []string{"yes", "no", "yes", "no", "no"}
	fs := judgetest.New(t, func(n int, _ *judgetest.Request) (int, map[string]string, string) {
		a := answers[n%5]
		return 200, nil, judgetest.Completion(fmt.Sprintf(`{"explanation":"because %s","answer":"%s"}`, a, a))
	})
	j := newJudge(t, KindQuality, testClient(t, fs.URL), nil)
	res, _, err := j.Run(context.Background(), sampleInputs(1))
	if err != nil {
		t.Fatal(err)
	}
	v := res[0].Verdict
	if fs.Count() != 5 || v.Samples != 5 || v.Yes != 2 || v.Score != 0.4 || v.Reason != "because no" {
		t.Fatalf("requests %d, verdict %+v; want 5 requests, 2/5 yes, the majority's (no) explanation", fs.Count(), v)
	}
	if _, _, err := j.Run(context.Background(), sampleInputs(1)); err != nil {
		t.Fatal(err)
	}
	for _, r := range fs.Requests()[5:] {
		if r.Body.N != nil {
			t.Fatalf("n sent again after the server ignored it")
		}
	}
}

func TestCacheSecondRunSendsNothing(t *testing.T) {
	fs := judgetest.New(t, judgetest.Same(`{"score":1,"reason":"same order"}`))
	cache := &memCache{}
	c := testClient(t, fs.URL)
	first, st1, err := newJudge(t, KindArgs, c, cache).Run(context.Background(), sampleInputs(6))
	if err != nil {
		t.Fatal(err)
	}
	sent := fs.Count()
	second, st2, err := newJudge(t, KindArgs, c, cache).Run(context.Background(), sampleInputs(6))
	if err != nil {
		t.Fatal(err)
	}
	if sent != 6 || fs.Count() != 6 || st1.Requests != 6 || st2.Requests != 0 || st2.CacheHits != 6 {
		t.Fatalf("server saw %d then %d requests; stats %+v / %+v", sent, fs.Count(), st1, st2)
	}
	for i := range first {
		if first[i].Verdict != second[i].Verdict || !second[i].Cached {
			t.Fatalf("item %d: %+v vs %+v", i, first[i], second[i])
		}
	}
	// offline: the same items answer from the cache; others are missing
	off := newJudge(t, KindArgs, nil, cache)
	off.Runner.Offline, off.Runner.Endpoint, off.Runner.Model = true, c.Host(), c.Model()
	res, st, err := off.Run(context.Background(), sampleInputs(8))
	if err != nil {
		t.Fatal(err)
	}
	if st.CacheHits != 6 || st.Missing != 2 || !res[0].Judged || res[7].Judged || res[7].Err == nil {
		t.Fatalf("offline: stats %+v, last %+v", st, res[7])
	}
	// another template (or model) is another cache entry
	tp, _ := ParseTemplate(KindArgs, "grade {{.Calls}} against {{.Expected}}; answer JSON {\"score\":…,\"reason\":…}")
	j := newJudge(t, KindArgs, c, cache)
	j.Template = tp
	if _, st, _ := j.Run(context.Background(), sampleInputs(1)); st.Requests != 1 {
		t.Fatalf("edited template: %d requests, want 1", st.Requests)
	}
}

func TestRetriesHonourRetryAfter(t *testing.T) {
	fs := judgetest.New(t, func(n int, req *judgetest.Request) (int, map[string]string, string) {
		switch n {
		case 0:
			return 429, map[string]string{"Retry-After": "1"}, `{"error":{"message":"rate limited"}}`
		case 1:
			return 500, map[string]string{"Retry-After": "0"}, `{"error":{"message":"overloaded"}}`
		}
		return judgetest.Same(`{"score":1,"reason":"ok"}`)(n, req)
	})
	c := testClient(t, fs.URL)
	c.MaxBackoff = 5 * time.Second
	start := time.Now()
	res, st, err := newJudge(t, KindArgs, c, nil).Run(context.Background(), sampleInputs(1))
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < time.Second {
		t.Errorf("finished in %s: Retry-After: 1 not honoured", el)
	}
	if fs.Count() != 3 || st.Requests != 3 || !res[0].Judged {
		t.Fatalf("requests %d (stats %d), result %+v", fs.Count(), st.Requests, res[0])
	}
}

func TestConcurrencyBound(t *testing.T) {
	fs := judgetest.New(t, func(n int, req *judgetest.Request) (int, map[string]string, string) {
		time.Sleep(15 * time.Millisecond)
		return judgetest.Same(`{"score":1,"reason":"ok"}`)(n, req)
	})
	j := newJudge(t, KindArgs, testClient(t, fs.URL), nil)
	j.Runner.Concurrency = 3
	if _, _, err := j.Run(context.Background(), sampleInputs(24)); err != nil {
		t.Fatal(err)
	}
	if p := fs.Peak(); p > 3 || p < 2 {
		t.Fatalf("peak in-flight requests = %d, want 2..3", p)
	}
}

func TestBudgetStopsCleanly(t *testing.T) {
	fs := judgetest.New(t, judgetest.Same(`{"score":0,"reason":"wrong order"}`))
	c := testClient(t, fs.URL)
	c.Budget = NewBudget(3)
	j := newJudge(t, KindArgs, c, nil)
	j.Runner.Concurrency = 1
	res, st, err := j.Run(context.Background(), sampleInputs(10))
	if err != nil {
		t.Fatalf("a spent budget is not an error: %v", err)
	}
	judged := 0
	for _, r := range res {
		if r.Judged {
			judged++
		}
	}
	if fs.Count() != 3 || judged != 3 || st.Skipped != 7 || !st.Partial {
		t.Fatalf("sent %d, judged %d, stats %+v", fs.Count(), judged, st)
	}
}

func TestMalformedRetriedOnceThenError(t *testing.T) {
	fs := judgetest.New(t, func(n int, req *judgetest.Request) (int, map[string]string, string) {
		if contains(req.Prompt(), "ORD-9000") {
			return 200, nil, judgetest.Completion(`{"score": 3, "reason":"very good"}`) // out of range, always
		}
		if n == 2 {
			return 200, nil, judgetest.Completion(`I think the score is 1`) // not JSON, then fine
		}
		return 200, nil, judgetest.Completion(`{"score":1,"reason":"ok"}`)
	})
	cache := &memCache{}
	j := newJudge(t, KindArgs, testClient(t, fs.URL), cache)
	j.Runner.Concurrency = 1
	res, st, err := j.Run(context.Background(), sampleInputs(2))
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Judged || res[0].Err == nil || !contains(res[0].Err.Error(), "score 3") {
		t.Fatalf("item 0 = %+v, want a per-item error naming the bad score", res[0])
	}
	if !res[1].Judged || res[1].Verdict.Score != 1 {
		t.Fatalf("item 1 = %+v, want judged after one retry", res[1])
	}
	if st.Errors != 1 || fs.Count() != 4 {
		t.Fatalf("stats %+v, %d requests; want 1 error, 2+2 requests", st, fs.Count())
	}
	if len(cache.m) != 1 {
		t.Fatalf("cache has %d rows; the malformed verdict must not be cached", len(cache.m))
	}
}

func TestFatalEndpointErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"unauthorized", 401, `{"error":{"message":"Incorrect API key provided"}}`, "refused the API key"},
		{"unknown model", 404, `{"error":{"message":"The model 'nope' does not exist"}}`, "has no model"},
		{"not chat json", 200, `{"hello":"world"}`, "not chat-completions JSON"},
		{"html", 200, `<html>proxy</html>`, "not chat-completions JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := judgetest.New(t, func(int, *judgetest.Request) (int, map[string]string, string) { return tc.status, nil, tc.body })
			cache := &memCache{}
			_, _, err := newJudge(t, KindArgs, testClient(t, fs.URL), cache).Run(context.Background(), sampleInputs(5))
			if !errors.Is(err, ErrFatal) || !contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrFatal with %q", err, tc.want)
			}
			if fs.Count() > 4 {
				t.Errorf("%d requests after a fatal answer", fs.Count())
			}
			if len(cache.m) != 0 {
				t.Errorf("cache rows written on a failed run: %d", len(cache.m))
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		fs := judgetest.New(t, judgetest.Same(`{}`))
		url := fs.URL
		fs.Close()
		c := testClient(t, url)
		c.Retries = 1
		_, _, err := newJudge(t, KindArgs, c, nil).Run(context.Background(), sampleInputs(1))
		if !errors.Is(err, ErrFatal) || !contains(err.Error(), "cannot connect") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("never answers", func(t *testing.T) {
		release := make(chan struct{})
		fs := judgetest.New(t, func(int, *judgetest.Request) (int, map[string]string, string) {
			<-release
			return 200, nil, judgetest.Completion(`{"score":1,"reason":"late"}`)
		})
		defer close(release)
		c := testClient(t, fs.URL)
		c.Timeout, c.Retries = 50*time.Millisecond, 1
		_, _, err := newJudge(t, KindArgs, c, nil).Run(context.Background(), sampleInputs(1))
		if !errors.Is(err, ErrFatal) || !contains(err.Error(), "no answer within 50ms") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestAzureStyleURL(t *testing.T) {
	fs := judgetest.New(t, judgetest.Same(`{"score":1,"reason":"ok"}`))
	c, err := NewClient(fs.URL+"/openai/deployments/judge?api-version=2024-10-21", "azkey", "gpt-4o-2024-08-06")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := newJudge(t, KindArgs, c, nil).Run(context.Background(), sampleInputs(1)); err != nil {
		t.Fatal(err)
	}
	r := fs.Requests()[0]
	if r.Path != "/openai/deployments/judge/chat/completions" || r.APIKey != "azkey" || r.Auth != "" {
		t.Fatalf("path %q api-key %q auth %q", r.Path, r.APIKey, r.Auth)
	}
}

func TestUnpinned(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-4o": true, "gpt-4.1": true, "llama3.1:8b": true, "gpt-4o-mini": true,
		"gpt-4o-2024-08-06": false, "gpt-4.1-2025-04-14": false, "claude-3-5-sonnet-20241022": false,
		"gpt-3.5-turbo-0125": false, "mistral-large-2407": false, "gemini-1.5-pro-002": false,
	} {
		if got := Unpinned(model); got != want {
			t.Errorf("Unpinned(%q) = %v, want %v", model, got, want)
		}
	}
}

func TestTemplates(t *testing.T) {
	for _, k := range Kinds {
		tp, err := DefaultTemplate(k)
		if err != nil {
			t.Fatal(err)
		}
		out, err := tp.Render(sampleInputs(1)[0])
		if err != nil || !contains(out, "get_order_status") || len(tp.SHA256) != 64 {
			t.Fatalf("%s: %v\n%s", k, err, out)
		}
	}
	if _, err := ParseTemplate(KindArgs, "{{.Nope}}"); err == nil {
		t.Fatal("a template naming an unknown field parsed")
	}
	if _, err := ParseTemplate(KindArgs, "{{.Calls"); err == nil {
		t.Fatal("a broken template parsed")
	}
}
