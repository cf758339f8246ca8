package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/judge/judgetest"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
)

// judgeTestGold writes four gold records with conversations: it_a right,
// it_b right tool with differently written args (wrong_value), it_c a
// right abstention, it_d the wrong tool.
func judgeTestGold(t *testing.T, dir string) string {
	t.Helper()
	status, refund := "get_order_status", "refund"
	type row struct {
		id, user string
		exp      *string
		args     string
		obs      []gold.ObservedCall
	}
	rows := []row{
		{"it_a", "where is order A1?", &status, `{"order_id":"A1"}`, []gold.ObservedCall{{Tool: status, Args: json.RawMessage(`{"order_id":"A1"}`)}}},
		{"it_b", "where is order B2?", &status, `{"order_id":"B2"}`, []gold.ObservedCall{{Tool: status, Args: json.RawMessage(`{"order_id":"b-2"}`)}}},
		{"it_c", "thanks, bye", nil, ``, []gold.ObservedCall{}},
		{"it_d", "refund order D4 please", &refund, `{"order_id":"D4"}`, []gold.ObservedCall{{Tool: status, Args: json.RawMessage(`{"order_id":"D4"}`)}}},
	}
	var buf bytes.Buffer
	for _, r := range rows {
		rec := gold.Record{ID: r.id, ExpectedTool: r.exp, AvailableTools: scoreTestTools, ObservedCalls: r.obs,
			ExpectedCalls: []gold.ExpectedCall{}, Acceptable: [][]gold.ExpectedCall{}, Rationale: "reviewers agreed on " + r.id}
		if r.exp != nil {
			rec.ExpectedArgs = json.RawMessage(r.args)
			rec.ExpectedCalls = []gold.ExpectedCall{{Tool: *r.exp, Args: json.RawMessage(r.args)}}
		}
		rec.Input.Messages = []trace.Message{{Role: "system", Content: "You are a support agent."}, {Role: "user", Content: r.user}}
		rec.Input.Context = gold.InputContext{TraceID: "tr_" + r.id, Turn: 2, Metadata: map[string]string{}}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return scoreTestWrite(t, dir, "gold.jsonl", buf.String())
}

// argsJudge answers the args judge: B2 written as b-2 is the same order.
func argsJudge(_ int, req *judgetest.Request) (int, map[string]string, string) {
	p := req.Prompt()
	if strings.Contains(p, `"b-2"`) || strings.Contains(p, `get_order_status({"order_id":"A1"})`+"\n\nScore") {
		return 200, nil, judgetest.Completion(`{"score":1,"reason":"b-2 is how the user wrote B2"}`)
	}
	return 200, nil, judgetest.Completion(`{"score":0,"reason":"contradicts the input"}`)
}

// selectionJudge calls every selection correct except the abstention.
func selectionJudge(_ int, req *judgetest.Request) (int, map[string]string, string) {
	if strings.Contains(req.Prompt(), "No tools called.") {
		return 200, nil, judgetest.Completion(`{"explanation":"a tool was needed","label":"incorrect"}`)
	}
	return 200, nil, judgetest.Completion(`{"explanation":"the status tool fits","label":"correct"}`)
}

type judgeRun struct {
	t   *testing.T
	db  string
	dir string
}

func newJudgeRun(t *testing.T) *judgeRun {
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("GOLDTRACE_JUDGE_API_KEY", "")
	dir := t.TempDir()
	return &judgeRun{t: t, db: filepath.Join(dir, "gt.db"), dir: dir}
}

// onBothEngines runs test on a SQLite file and on a PostgreSQL database
// (the judge's verdict cache lives in the project's database).
func onBothEngines(t *testing.T, test func(t *testing.T, r *judgeRun)) {
	t.Run("sqlite", func(t *testing.T) { test(t, newJudgeRun(t)) })
	t.Run("postgres", func(t *testing.T) {
		r := newJudgeRun(t)
		r.db = pgtest.DSN(t)
		test(t, r)
	})
}

func (r *judgeRun) run(args ...string) (string, string, int) {
	r.t.Helper()
	out, errOut, code, _ := runCLI(r.db, "", args...)
	return out, errOut, code
}

type judgedReport struct {
	Judge  *score.JudgeSummary `json:"judge"`
	Passed bool                `json:"passed"`
	Items  []struct {
		ID          string   `json:"id"`
		Correct     bool     `json:"correct"`
		JudgeScore  *float64 `json:"judge_score"`
		JudgeReason *string  `json:"judge_reason"`
	} `json:"items"`
}

func TestScoreJudgeCommand(t *testing.T) { onBothEngines(t, testScoreJudgeCommand) }

func testScoreJudgeCommand(t *testing.T, r *judgeRun) {
	srv := judgetest.New(t, argsJudge)
	gold := judgeTestGold(t, r.dir)
	args := []string{"score", "--gold", gold, "--judge", "args", "--judge-model", "judge-2024-08-06", "--judge-url", srv.URL + "/v1", "--format", "json", "--min", "judge_score=0.9"}
	out, errOut, code := r.run(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep judgedReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	j := rep.Judge
	if j == nil || j.Kind != "args" || j.Model != "judge-2024-08-06" || j.Endpoint != strings.TrimPrefix(srv.URL, "http://") || len(j.PromptSHA256) != 64 {
		t.Fatalf("judge = %+v", j)
	}
	// only it_b: right tool, args differ
	if srv.Count() != 1 || j.Requests != 1 || j.Selected != 1 || j.Judged != 1 || j.Rescues != 1 || *j.MeanScore != 1 || j.Tokens.Total != 110 {
		t.Fatalf("%d requests, judge %+v", srv.Count(), j)
	}
	if it := rep.Items[1]; it.ID != "it_b" || it.Correct || it.JudgeScore == nil || *it.JudgeScore != 1 || !strings.Contains(*it.JudgeReason, "b-2") {
		t.Fatalf("it_b = %+v", it)
	}
	if it := rep.Items[0]; it.JudgeScore != nil || it.JudgeReason != nil {
		t.Fatalf("it_a was not judged but has %+v", it)
	}
	body := srv.Requests()[0].Body
	if body.Model != "judge-2024-08-06" || *body.Temperature != 0 || body.ResponseFormat.Type != "json_object" ||
		!strings.Contains(body.Prompt(), "where is order B2?") || !strings.Contains(body.Prompt(), "reviewers agreed on it_b") {
		t.Fatalf("request = %+v", body)
	}

	// rerun: answered from the cache, same numbers, no request
	out2, errOut, code := r.run(args...)
	var rep2 judgedReport
	if code != 0 || json.Unmarshal([]byte(out2), &rep2) != nil {
		t.Fatalf("rerun exit %d: %s", code, errOut)
	}
	if srv.Count() != 1 || rep2.Judge.Requests != 0 || rep2.Judge.CacheHits != 1 || *rep2.Judge.MeanScore != 1 {
		t.Fatalf("rerun sent %d requests: %+v", srv.Count()-1, rep2.Judge)
	}

	// text shows the rescue; --judge-all judges every item with a call and
	// the gate fails on the mean (it_d's wrong tool scores 0)
	out, _, code = r.run("score", "--gold", gold, "--judge", "args", "--judge-all", "--judge-model", "judge-2024-08-06", "--judge-url", srv.URL+"/v1", "--min", "judge_score=0.9")
	if code != 1 || !strings.Contains(out, "RESCUE      it_b") || !strings.Contains(out, "judge_score >= 0.9") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if srv.Count() != 3 {
		t.Fatalf("--judge-all sent %d requests in all, want 3 (it_a and it_d new)", srv.Count())
	}
}

func TestScoreJudgeBadInput(t *testing.T) {
	r := newJudgeRun(t)
	gold := judgeTestGold(t, r.dir)
	unauthorized := judgetest.New(t, func(int, *judgetest.Request) (int, map[string]string, string) {
		return 401, nil, `{"error":{"message":"Incorrect API key provided: sk-test"}}`
	})
	notChat := judgetest.New(t, func(int, *judgetest.Request) (int, map[string]string, string) {
		return 200, nil, `{"status":"ok"}`
	})
	closed := judgetest.New(t, argsJudge)
	closedURL := closed.URL
	closed.Close()
	base := []string{"score", "--gold", gold, "--judge", "selection", "--judge-model", "judge-2024-08-06", "--judge-timeout", "2s"}
	cases := []struct {
		name  string
		args  []string
		noKey bool
		want  string
	}{
		{"no key", nil, true, "no API key for api.openai.com"},
		{"401", []string{"--judge-url", unauthorized.URL + "/v1"}, false, "refused the API key"},
		{"not chat json", []string{"--judge-url", notChat.URL + "/v1"}, false, "not chat-completions JSON"},
		{"unreachable", []string{"--judge-url", closedURL + "/v1", "--judge-max-requests", "2"}, false, "cannot connect"},
		{"no model", []string{"--judge-model", ""}, false, "--judge-model is required"},
		{"unknown judge", []string{"--judge", "vibes"}, false, "unknown judge"},
		{"bad url", []string{"--judge-url", "ftp://x"}, false, "http(s) base URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.noKey {
				t.Setenv("OPENAI_API_KEY", "")
			}
			out, errOut, code := r.run(append(append([]string{}, base...), tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 1 || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, out, errOut, tc.want)
			}
		})
	}
	// --judge-best-effort: the deterministic report is still written
	out, errOut, code := r.run(append(base, "--judge-url", unauthorized.URL+"/v1", "--judge-best-effort", "--format", "json")...)
	var rep judgedReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Judge == nil || !strings.Contains(rep.Judge.Error, "refused the API key") ||
		!strings.Contains(errOut, "--judge-best-effort") {
		t.Fatalf("best effort: exit %d, stderr %q, report %s", code, errOut, out)
	}
	// a judge gate without a judge is bad usage
	if _, errOut, code := r.run("score", "--gold", gold, "--min", "judge_score=0.9"); code != 2 || !strings.Contains(errOut, "needs --judge") {
		t.Fatalf("judge gate without judge: exit %d %s", code, errOut)
	}
	// nothing half-written in the cache: the failed runs left no rows
	if _, errOut, code := r.run(append(base, "--judge-offline", "--format", "json")...); code != 0 || !strings.Contains(errOut, "4 of 4 items are not in the cache") {
		t.Fatalf("offline after failures: exit %d %s", code, errOut)
	}
}

func TestScoreJudgeOffline(t *testing.T) {
	r := newJudgeRun(t)
	gold := judgeTestGold(t, r.dir)
	srv := judgetest.New(t, selectionJudge)
	args := []string{"score", "--gold", gold, "--judge", "selection", "--judge-model", "judge-2024-08-06", "--judge-url", srv.URL + "/v1", "--format", "json"}
	if _, errOut, code := r.run(args...); code != 0 {
		t.Fatalf("online: %s", errOut)
	}
	t.Setenv("OPENAI_API_KEY", "") // offline needs no key
	out, errOut, code := r.run(append(args, "--judge-offline")...)
	var rep judgedReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("offline: exit %d %s", code, errOut)
	}
	if srv.Count() != 4 || rep.Judge.CacheHits != 4 || rep.Judge.Requests != 0 || rep.Judge.Rescues != 2 || rep.Judge.Contradictions != 1 {
		t.Fatalf("%d requests; offline judge %+v", srv.Count(), rep.Judge)
	}
}

func TestJudgeCalibrateCommand(t *testing.T) { onBothEngines(t, testJudgeCalibrateCommand) }

func testJudgeCalibrateCommand(t *testing.T, r *judgeRun) {
	gold := judgeTestGold(t, r.dir)
	srv := judgetest.New(t, selectionJudge)
	out, errOut, code := r.run("judge", "calibrate", "--gold", gold, "--judge", "selection", "--judge-model", "judge-2024-08-06", "--judge-url", srv.URL+"/v1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Agreement *float64       `json:"agreement"`
		Kappa     *float64       `json:"kappa"`
		Items     int            `json:"judged"`
		Confusion map[string]int `json:"confusion"`
		PerTool   []struct {
			Tool  string `json:"tool"`
			Items int    `json:"judged"`
		} `json:"per_tool"`
		List []struct {
			ID    string `json:"id"`
			Human bool   `json:"human"`
			Judge *bool  `json:"judge"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// human: a ✓ b ✗ c ✓ d ✗ ; judge: a ✓ b ✓ c ✗ d ✓ → agreement 1/4
	if rep.Items != 4 || *rep.Agreement != 0.25 || rep.Confusion["human_correct_judge_correct"] != 1 ||
		rep.Confusion["human_incorrect_judge_correct"] != 2 || rep.Confusion["human_correct_judge_incorrect"] != 1 {
		t.Fatalf("calibration %s", out)
	}
	// po .25, human yes .5, judge yes .75 → pe .5 → kappa -0.5
	if rep.Kappa == nil || *rep.Kappa != -0.5 {
		t.Fatalf("kappa = %v", rep.Kappa)
	}
	if len(rep.List) != 4 || rep.List[2].ID != "it_c" || !rep.List[2].Human || rep.List[2].Judge == nil || *rep.List[2].Judge {
		t.Fatalf("items %+v", rep.List)
	}
	if len(rep.PerTool) != 3 || rep.PerTool[2].Tool != "(none)" || rep.PerTool[0].Items != 2 {
		t.Fatalf("per_tool %+v", rep.PerTool)
	}
	// text output, from the cache
	out, _, code = r.run("judge", "calibrate", "--gold", gold, "--judge", "selection", "--judge-model", "judge-2024-08-06", "--judge-url", srv.URL+"/v1")
	if code != 0 || srv.Count() != 4 || !strings.Contains(out, "agreement 0.2500, Cohen's kappa -0.500 over 4 items") || !strings.Contains(out, "DISAGREEMENTS (3)") {
		t.Fatalf("exit %d, %d requests:\n%s", code, srv.Count(), out)
	}
}

func TestJudgePromptCommand(t *testing.T) {
	r := newJudgeRun(t)
	out, _, code := r.run("judge", "prompt", "args")
	if code != 0 || !strings.Contains(out, "{{.Expected}}") || !strings.Contains(out, `"score"`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, errOut, code := r.run("judge", "prompt", "vibes"); code != 2 || !strings.Contains(errOut, "unknown judge") {
		t.Fatalf("exit %d %s", code, errOut)
	}
	// an edited template changes the recorded sha256 and is what is sent
	srv := judgetest.New(t, judgetest.Same(`{"explanation":"fine","label":"correct"}`))
	tmpl := scoreTestWrite(t, r.dir, "sel.tmpl", "Was {{.Calls}} right for: {{.Conversation}}? JSON {\"label\":…,\"explanation\":…}")
	gold := judgeTestGold(t, r.dir)
	out, errOut, code := r.run("score", "--gold", gold, "--judge", "selection", "--judge-template", tmpl, "--judge-model", "m-2024-08-06", "--judge-url", srv.URL+"/v1", "--json")
	var rep judgedReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("exit %d %s", code, errOut)
	}
	if !strings.HasPrefix(srv.Requests()[0].Body.Prompt(), "Was ") || rep.Judge.PromptSHA256 == "" {
		t.Fatalf("template not used: %q", srv.Requests()[0].Body.Prompt())
	}
	bad := scoreTestWrite(t, r.dir, "bad.tmpl", "{{.Nope}}")
	if _, errOut, code := r.run("score", "--gold", gold, "--judge", "selection", "--judge-template", bad, "--judge-model", "m-2024-08-06", "--judge-url", srv.URL+"/v1"); code != 2 || !strings.Contains(errOut, "bad.tmpl") {
		t.Fatalf("bad template: exit %d %s", code, errOut)
	}
}

func TestPredictCommand(t *testing.T) { onBothEngines(t, testPredictCommand) }

func testPredictCommand(t *testing.T, r *judgeRun) {
	gold := judgeTestGold(t, r.dir)
	srv := judgetest.New(t, func(_ int, req *judgetest.Request) (int, map[string]string, string) {
		user := req.Messages[len(req.Messages)-1].Content
		switch {
		case strings.Contains(user, "A1"):
			return 200, nil, judgetest.ToolCalls(judgetest.ToolCall{Name: "get_order_status", Arguments: `{"order_id":"A1"}`})
		case strings.Contains(user, "B2"):
			return 200, nil, judgetest.ToolCalls(judgetest.ToolCall{Name: "get_order_status", Arguments: `{"order_id":"B2"}`})
		case strings.Contains(user, "D4"):
			for _, tl := range req.Tools {
				if tl.Function.Name == "refund" && strings.Contains(tl.Function.Description, "money back") {
					return 200, nil, judgetest.ToolCalls(judgetest.ToolCall{Name: "refund", Arguments: `{"order_id":"D4"}`})
				}
			}
			return 200, nil, judgetest.ToolCalls(judgetest.ToolCall{Name: "get_order_status", Arguments: `{"order_id":"D4"`})
		}
		return 200, nil, judgetest.ToolCalls()
	})
	run := filepath.Join(r.dir, "run.jsonl")
	args := []string{"predict", "--gold", gold, "--model", "agent-2025-04-14", "--url", srv.URL + "/v1", "--out", run}
	if _, errOut, code := r.run(args...); code != 0 || !strings.Contains(errOut, "4 predictions; 4 requests") {
		t.Fatalf("exit %d %s", code, errOut)
	}
	req := srv.Requests()[0].Body
	if len(req.Tools) != 2 || req.Tools[0].Type != "function" || req.Tools[0].Function.Name != "get_order_status" || req.ResponseFormat != nil || *req.Temperature != 0 {
		t.Fatalf("predict request = %+v", req)
	}
	data, _ := os.ReadFile(run)
	if !strings.Contains(string(data), `{"id":"it_c","tool_calls":[]}`) || !strings.Contains(string(data), `"arguments":"{\"order_id\":\"D4\""`) {
		t.Fatalf("predictions:\n%s", data)
	}
	out, _, code := r.run("score", "--gold", gold, "--pred", run, "--json")
	var rep judgedReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.Items[0].Correct || !rep.Items[1].Correct || rep.Items[3].Correct {
		t.Fatalf("score of the predictions: exit %d\n%s", code, out)
	}
	// rerun from the cache: nothing sent
	if _, errOut, code := r.run(args...); code != 0 || srv.Count() != 4 || !strings.Contains(errOut, "0 requests, 4 cache hits") {
		t.Fatalf("rerun: exit %d, %d requests, %s", code, srv.Count(), errOut)
	}
	// what-if: a tighter refund description moves it_d
	tools := scoreTestWrite(t, r.dir, "tools.json", `[{"type":"function","function":{"name":"refund","description":"Give the customer their money back for an order.","parameters":{"type":"object","properties":{"order_id":{"type":"string"},"amount":{"type":"number"}}}}}]`)
	whatif := filepath.Join(r.dir, "whatif.jsonl")
	if _, errOut, code := r.run("predict", "--gold", gold, "--model", "agent-2025-04-14", "--url", srv.URL+"/v1", "--out", whatif, "--tools", tools); code != 0 {
		t.Fatalf("what-if: %s", errOut)
	}
	out, _, _ = r.run("score", "--gold", gold, "--pred", whatif, "--json")
	if json.Unmarshal([]byte(out), &rep) != nil || !rep.Items[3].Correct {
		t.Fatalf("what-if did not move it_d:\n%s", out)
	}
	// bad input
	typo := scoreTestWrite(t, r.dir, "typo.json", `[{"name":"refnud","description":"x"}]`)
	if _, errOut, code := r.run("predict", "--gold", gold, "--model", "m-2025-04-14", "--url", srv.URL+"/v1", "--out", whatif, "--tools", typo); code != 2 || !strings.Contains(errOut, `"refnud" is not available`) {
		t.Fatalf("typo: exit %d %s", code, errOut)
	}
	// a budget stops cleanly with what was predicted
	partial := filepath.Join(r.dir, "partial.jsonl")
	if _, errOut, code := r.run("predict", "--gold", gold, "--model", "other-2025-04-14", "--url", srv.URL+"/v1", "--out", partial, "--max-requests", "2", "--concurrency", "1"); code != 0 || !strings.Contains(errOut, "2 items not predicted") {
		t.Fatalf("budget: exit %d %s", code, errOut)
	}
	if data, _ := os.ReadFile(partial); strings.Count(string(data), "\n") != 2 {
		t.Fatalf("partial file:\n%s", data)
	}
}
