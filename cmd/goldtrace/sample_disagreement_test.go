package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/judge/judgetest"
	"github.com/goldtrace/goldtrace/trace"
)

// TestSampleByDisagreement: the items two runs disagree on come first (a
// different tool before different arguments), the same seed gives the same
// batch, and the batch records the runs and the ranking.
func TestSampleByDisagreement(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testSampleByDisagreement(t, smpDB(t, smpCorpus())) })
	t.Run("postgres", func(t *testing.T) { testSampleByDisagreement(t, smpDBAt(t, pgtest.DSN(t), smpCorpus())) })
}

func testSampleByDisagreement(t *testing.T, db string) {
	dir := t.TempDir()
	var a, b strings.Builder
	tools := map[string]int{}    // items where the runs pick different tools
	argsOnly := map[string]int{} // same tool, different arguments
	for i := 0; i < 120; i++ {
		id := trace.ItemID(fmt.Sprintf("tr_%03d", i), 1) // the first decision point
		a.WriteString(`{"id":"` + id + `","tool_calls":[{"name":"get_order","arguments":{"n":1}}]}` + "\n")
		switch {
		case i%20 == 0: // 6 items
			tools[id]++
			b.WriteString(`{"id":"` + id + `","tool_calls":[{"name":"refund","arguments":{}}]}` + "\n")
		case i%20 == 1: // 6 items
			argsOnly[id]++
			b.WriteString(`{"id":"` + id + `","tool_calls":[{"name":"get_order","arguments":{"n":2}}]}` + "\n")
		default:
			b.WriteString(`{"id":"` + id + `","tool_calls":[{"name":"get_order","arguments":{"n":1.0}}]}` + "\n")
		}
	}
	b.WriteString(`{"id":"it_0000000000000000","tool_calls":[]}` + "\n") // not stored
	runA, runB := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(runA, []byte(a.String()), 0o600)
	os.WriteFile(runB, []byte(b.String()), 0o600)
	args := []string{"sample", "--by", "disagreement", "--runs", runA + "," + runB, "--n", "10", "--seed", "3", "--reviewers", "alice,bob", "--json"}
	p := smpPlan(t, smpMust(t, db, append(args, "--dry-run")...))
	if len(p.Items) != 10 || len(p.Ranking) != 10 || p.Unranked != 1 {
		t.Fatalf("plan: %d items, %d ranked, %d unranked", len(p.Items), len(p.Ranking), p.Unranked)
	}
	for i, it := range p.Items {
		switch {
		case i < 6 && tools[it.ID] == 0:
			t.Errorf("item %d %s: want the tool disagreements first", i, it.ID)
		case i >= 6 && argsOnly[it.ID] == 0:
			t.Errorf("item %d %s: want the argument disagreements next", i, it.ID)
		}
		if p.Ranking[i].ID != it.ID {
			t.Errorf("ranking %d is %s, item %s", i, p.Ranking[i].ID, it.ID)
		}
	}
	if p.Ranking[0].Tool != 0.5 || p.Ranking[9].Tool != 0 || p.Ranking[9].Call != 0.5 {
		t.Errorf("ranking %+v … %+v", p.Ranking[0], p.Ranking[9])
	}
	again := smpPlan(t, smpMust(t, db, append(args, "--dry-run")...))
	if fmt.Sprint(again.Items) != fmt.Sprint(p.Items) {
		t.Error("the same runs and seed gave another sample")
	}
	smpMust(t, db, append(args, "--batch", "dis")...)
	out := smpMust(t, db, "batches", "--json")
	for _, want := range []string{`"by": "disagreement"`, `"sha256": "`, `"lines": 121`, `"ranking": [`, `"tool": 0.5`} {
		if !strings.Contains(out, want) {
			t.Errorf("batch params lack %s:\n%s", want, out)
		}
	}
	for _, bad := range [][]string{
		{"sample", "--by", "disagreement", "--runs", runA, "--reviewers", "alice,bob"},
		{"sample", "--by", "disagreement", "--reviewers", "alice,bob"},
		{"sample", "--runs", runA + "," + runB, "--reviewers", "alice,bob"},
		{"sample", "--by", "disagreement", "--runs", runA + "," + filepath.Join(dir, "absent.jsonl"), "--reviewers", "alice,bob"},
		{"sample", "--by", "disagreement", "--runs", runA + "," + runA + "x", "--reviewers", "alice,bob"},
	} {
		if _, errs, code, _ := runCLI(db, "", bad...); code != 2 || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d %q", bad, code, errs)
		}
	}
}

// TestSampleByDisagreementAndJudgeSplit: with --judge quality, a real HTTP
// judge is asked about each run's calls on every ranked item; the items
// its votes split on come right after those the runs disagree on, the
// same inputs give the same batch from the judge's cache (no new request),
// and the batch records the judge and each item's votes.
func TestSampleByDisagreementAndJudgeSplit(t *testing.T) {
	db := smpDB(t, smpCorpus())
	dir := t.TempDir()
	var a, b strings.Builder
	tools, split := map[string]bool{}, map[string]bool{}
	for i := 0; i < 120; i++ {
		id := trace.ItemID(fmt.Sprintf("tr_%03d", i), 1)
		call := `{"id":"` + id + `","tool_calls":[{"name":"get_order","arguments":{"n":1}}]}` + "\n"
		switch {
		case i%20 == 0: // 6 items: the runs pick different tools
			tools[id] = true
			a.WriteString(call)
			b.WriteString(`{"id":"` + id + `","tool_calls":[{"name":"refund","arguments":{}}]}` + "\n")
		case i%30 == 7: // 4 items: the runs agree on a call the judge is torn about
			split[id] = true
			torn := `{"id":"` + id + `","tool_calls":[{"name":"get_order","arguments":{"n":7}}]}` + "\n"
			a.WriteString(torn)
			b.WriteString(torn)
		default:
			a.WriteString(call)
			b.WriteString(call)
		}
	}
	runA, runB := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(runA, []byte(a.String()), 0o600)
	os.WriteFile(runB, []byte(b.String()), 0o600)
	yes, no := `{"explanation":"fits","answer":"yes"}`, `{"explanation":"unsure","answer":"no"}`
	srv := judgetest.New(t, func(_ int, req *judgetest.Request) (int, map[string]string, string) {
		if req.Samples() != 5 {
			return 400, nil, `{"error":{"message":"want n=5"}}`
		}
		if strings.Contains(req.Prompt(), `"n": 7`) || strings.Contains(req.Prompt(), `"n":7`) {
			return 200, nil, judgetest.Completion(yes, no, yes, no, yes)
		}
		return 200, nil, judgetest.Completion(yes, yes, yes, yes, yes)
	})
	args := []string{"sample", "--by", "disagreement", "--runs", runA + "," + runB, "--n", "10", "--seed", "3", "--reviewers", "alice,bob", "--json",
		"--judge", "quality", "--judge-model", "judge-2024-08-06", "--judge-url", srv.URL + "/v1"}
	p := smpPlan(t, smpMust(t, db, append(args, "--dry-run")...))
	// One question per item and distinct call list: 114 items where the
	// runs agree, two for each of the 6 where they do not.
	if len(p.Items) != 10 || p.Judge == nil || p.Judge.Items != 120 || p.Judge.Judged != 120 || srv.Count() != 126 {
		t.Fatalf("plan: %d items, judge %+v, %d requests", len(p.Items), p.Judge, srv.Count())
	}
	for i, it := range p.Items {
		switch {
		case i < 6 && !tools[it.ID]:
			t.Errorf("item %d %s: want the tool disagreements first", i, it.ID)
		case i >= 6 && !split[it.ID]:
			t.Errorf("item %d %s: want the items the judge splits on next", i, it.ID)
		}
	}
	if r := p.Ranking[6]; r.JudgeYes != 6 || r.JudgeVotes != 10 || r.Tool != 0 {
		t.Errorf("ranking of a torn item: %+v", r)
	}
	again := smpPlan(t, smpMust(t, db, append(args, "--batch", "judged")...))
	if fmt.Sprint(again.Items) != fmt.Sprint(p.Items) || srv.Count() != 126 {
		t.Errorf("the same inputs gave another sample, or asked the judge again (%d requests)", srv.Count())
	}
	out := smpMust(t, db, "batches", "--json")
	for _, want := range []string{`"judge": {`, `"kind": "quality"`, `"model": "judge-2024-08-06"`, `"prompt_sha256": "`, `"judge_yes": 6`, `"judge_votes": 10`} {
		if !strings.Contains(out, want) {
			t.Errorf("batch params lack %s:\n%s", want, out)
		}
	}
	for _, bad := range [][]string{
		{"sample", "--judge", "quality", "--judge-model", "judge-2024-08-06", "--reviewers", "alice,bob"},
		{"sample", "--by", "disagreement", "--runs", runA + "," + runB, "--judge", "args", "--judge-model", "judge-2024-08-06", "--judge-url", srv.URL + "/v1", "--dry-run"},
		{"sample", "--by", "disagreement", "--runs", runA + "," + runB, "--judge", "quality", "--dry-run"},
		{"sample", "--by", "disagreement", "--runs", runA + "," + runB, "--judge-model", "judge-2024-08-06", "--dry-run"},
	} {
		if _, errs, code, _ := runCLI(db, "", bad...); code != 2 || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d %q", bad, code, errs)
		}
	}
}
