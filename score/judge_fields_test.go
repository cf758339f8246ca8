package score

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func judgedReport() *Report {
	a := NewAggregator(Options{})
	for _, it := range []ItemResult{
		{ID: "a", Correct: false, Kind: KindWrongValue, ExpectedTool: "lookup", PredictedTool: "lookup"},
		{ID: "b", Correct: true, ExpectedTool: "lookup", PredictedTool: "lookup"},
		{ID: "c", Correct: false, Kind: KindWrongTool, ExpectedTool: "lookup", PredictedTool: "cancel"},
	} {
		a.Add(it, nil)
	}
	r := a.Report()
	one, zero := 1.0, 0.0
	why := "same order"
	r.SetJudge(JudgeSummary{Kind: "args", Model: "m-2024-08-06", Endpoint: "127.0.0.1:1", Threshold: 0.5, Selected: 2},
		map[int]ItemJudge{0: {JudgeScore: &one, JudgeReason: &why}, 1: {JudgeScore: &zero, JudgeReason: &why}})
	return r
}

func TestSetJudge(t *testing.T) {
	r := judgedReport()
	j := r.Judge
	if j.Judged != 2 || *j.MeanScore != 0.5 || j.Rescues != 1 || j.Contradictions != 1 {
		t.Fatalf("summary %+v", j)
	}
	var buf bytes.Buffer
	if err := r.Write(&buf, "json", WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Judge map[string]any   `json:"judge"`
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kind", "model", "endpoint", "prompt_sha256", "samples", "requests", "cache_hits", "errors", "tokens", "mean_score"} {
		if _, ok := back.Judge[k]; !ok {
			t.Errorf("judge object lacks %q", k)
		}
	}
	if v, ok := back.Items[2]["judge_score"]; !ok || v != nil {
		t.Errorf("unjudged item: judge_score = %v (present %v), want null", v, ok)
	}
	if back.Items[0]["judge_score"] != 1.0 || back.Items[0]["judge_reason"] != "same order" {
		t.Errorf("judged item: %v", back.Items[0])
	}
	// without a judge, items carry no judge fields at all
	plain := &Report{Items: []ItemResult{{ID: "a"}}}
	b, _ := json.Marshal(plain)
	if strings.Contains(string(b), "judge") {
		t.Errorf("report without a judge mentions it: %s", b)
	}
	buf.Reset()
	if err := r.Write(&buf, "text", WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(buf.String()), " ") // lines wrap at 80 columns
	for _, want := range []string{"JUDGE", "RESCUE a", "CONTRADICTS b", "1 rescue, 1 contradiction"} {
		if !strings.Contains(flat, want) {
			t.Errorf("text report lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestJudgeGate(t *testing.T) {
	g, err := ParseGate("judge_score=0.9", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseGate("per_tool.judge_score=0.9", false); err == nil {
		t.Fatal("per_tool.judge_score accepted")
	}
	r := judgedReport()
	r.ApplyGates([]Gate{g}, 5)
	if r.Passed || len(r.FailedGates()) != 1 {
		t.Fatalf("mean 0.5 passed judge_score >= 0.9: %+v", r.Gates)
	}
	g.Limit = 0.5
	r = judgedReport()
	r.ApplyGates([]Gate{g}, 5)
	if !r.Passed {
		t.Fatalf("mean 0.5 failed judge_score >= 0.5: %+v", r.Gates)
	}
}
