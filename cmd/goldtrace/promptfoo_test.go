package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// TestPromptfooReplayAgreesWithScore exports a version with --format
// promptfoo, runs the generated promptfooconfig.yaml through the real
// promptfoo with only a provider added (one that answers each test with the
// production model's observed calls), and checks that every test passes
// exactly when goldtrace score counts the same calls as correct.
func TestPromptfooReplayAgreesWithScore(t *testing.T) {
	if testing.Short() {
		t.Skip("promptfoo replay: skipped with -short")
	}
	pf := installPromptfoo(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "goldtrace.db")
	// Realistic gold: the demo's labeled batch with its disputes settled.
	if _, errOut, code := expRun(t, db, "demo", "--no-tui", "--dir", dir, "--traces", "300", "--batch-items", "60", "--prelabeled", "60"); code != 0 {
		t.Fatalf("demo: %s", errOut)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	disputes, err := st.DisputedQueue(ctx, store.DisputeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	// And items whose gold uses every kind of rule and acceptable lists.
	seedRuleGold(t, st)
	st.Close()
	for _, d := range disputes {
		if _, errOut, code := expRun(t, db, "resolve", d.Item, "--as", "carol", "--pick", "bob", "--reason", "per the guide"); code != 0 {
			t.Fatalf("resolve %s: %s", d.Item, errOut)
		}
	}
	out := filepath.Join(dir, "out")
	if _, errOut, code := expRun(t, db, "export", "support", "--as", "carol", "--out", out, "--format", "promptfoo"); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	gold := filepath.Join(out, dataset.FileName("support", 1))

	// goldtrace score's verdicts on the observed calls.
	report, errOut, code := expRun(t, db, "score", "--gold", gold, "--format", "json")
	if code != 0 {
		t.Fatalf("score: %s", errOut)
	}
	var rep struct {
		Items []struct {
			ID      string `json:"id"`
			Correct bool   `json:"correct"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, it := range rep.Items {
		want[it.ID] = it.Correct
	}

	// The provider replays each item's observed calls as an OpenAI model
	// would return them; no call is a text answer.
	replay := map[string]any{}
	f, err := os.Open(gold)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		rec, err := dataset.DecodeRecord(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.ObservedCalls) == 0 {
			replay[rec.ID] = "No tool is needed here."
			continue
		}
		var calls []map[string]any
		for i, c := range rec.ObservedCalls {
			args := string(c.Args)
			if c.Unparseable {
				json.Unmarshal(c.Args, &args)
			}
			calls = append(calls, map[string]any{"id": "call_" + string(rune('a'+i)), "type": "function",
				"function": map[string]string{"name": c.Tool, "arguments": args}})
		}
		replay[rec.ID] = calls
	}
	f.Close()
	replayJSON, _ := json.Marshal(replay)
	provider := filepath.Join(dir, "replay-provider.js")
	writeFile(t, provider, `const outputs = `+string(replayJSON)+`;
class Replay {
  id() { return 'replay-observed-calls'; }
  async callApi(prompt, context) { return { output: outputs[context.vars.id] }; }
}
module.exports = Replay;
`)

	results := filepath.Join(dir, "results.json")
	home := filepath.Join(dir, "home")
	ctxRun, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctxRun, pf.bin, "eval", "-c", filepath.Join(out, "support-v1.promptfooconfig.yaml"), "-r", "file://"+provider,
		"-o", results, "--no-cache", "--no-table", "--no-progress-bar", "--no-write", "-j", "4")
	cmd.Dir = out
	cmd.Env = append(os.Environ(), "PATH="+pf.path, "HOME="+home, "PROMPTFOO_CONFIG_DIR="+filepath.Join(home, ".promptfoo"),
		"PROMPTFOO_DISABLE_TELEMETRY=1", "PROMPTFOO_DISABLE_UPDATE=1", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	// promptfoo exits 100 when some tests fail: expected here.
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 100) {
		t.Fatalf("promptfoo eval: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	var res struct {
		Results struct {
			Results []struct {
				Success  bool   `json:"success"`
				Error    string `json:"error"`
				TestCase struct {
					Vars struct {
						ID string `json:"id"`
					} `json:"vars"`
				} `json:"testCase"`
				GradingResult struct {
					Reason           string `json:"reason"`
					ComponentResults []struct {
						Pass   bool   `json:"pass"`
						Reason string `json:"reason"`
					} `json:"componentResults"`
				} `json:"gradingResult"`
			} `json:"results"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(readFile(t, results)), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results.Results) != len(want) {
		t.Fatalf("promptfoo ran %d tests, the version has %d items\n%s", len(res.Results.Results), len(want), stderr.String())
	}
	agree, calls, noCalls, passed := 0, 0, 0, 0
	for _, r := range res.Results.Results {
		id := r.TestCase.Vars.ID
		w, ok := want[id]
		if !ok {
			t.Errorf("promptfoo test for unknown item %q", id)
			continue
		}
		if strings.Contains(r.GradingResult.Reason, "threw error") || strings.Contains(r.Error, "threw error") {
			t.Errorf("%s: the checker did not run under promptfoo: %s%s", id, r.Error, r.GradingResult.Reason)
		}
		if r.Success != w {
			t.Errorf("%s: promptfoo pass=%v, goldtrace score correct=%v (%s)", id, r.Success, w, r.GradingResult.Reason)
			continue
		}
		agree++
		if r.Success {
			passed++
		}
		if _, isCall := replay[id].([]map[string]any); isCall {
			calls++
		} else {
			noCalls++
		}
	}
	t.Logf("promptfoo agrees with goldtrace score on %d/%d tests (%d passed; replayed %d with calls, %d without)", agree, len(want), passed, calls, noCalls)
	if passed == 0 || passed == len(want) {
		t.Errorf("every test has the same verdict (%d/%d passed): the replay does not tell right from wrong", passed, len(want))
	}
}

// seedRuleGold adds traces whose observed call is known and gold answers
// that exercise each argument rule, acceptable lists and no-call items,
// right and wrong.
func seedRuleGold(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	observed := `{"order_id":"ORD-1","limit":5}`
	nested := `{"order_id":"ORD-1","filter":{"status":"Shipped","since":"2026-05-01","tags":["a","b"]}}`
	cases := []struct {
		decision, calls, acceptable string
		turn                        int
		observed                    string // "" for the default observed call
	}{
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-1","limit":5}}]`, `[]`, 2, ""},                                                          // exact: right
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-2","limit":5}}]`, `[]`, 2, ""},                                                          // wrong value
		{"call", `[{"tool":"get_order_status","args":{"order_id":" ord-1","limit":5},"arg_rules":{"order_id":{"match":"fuzzy"}}}]`, `[]`, 2, ""},              // fuzzy: right
		{"call", `[{"tool":"get_order_status","args":{"order_id":"X","limit":5},"arg_rules":{"order_id":{"match":"any"}}}]`, `[]`, 2, ""},                     // any: right
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-2","limit":5},"arg_rules":{"order_id":{"any_of":["ORD-1"]}}}]`, `[]`, 2, ""},            // any_of: right
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-2","limit":5},"arg_rules":{"order_id":{"any_of":["ORD-3"]}}}]`, `[]`, 2, ""},            // any_of: wrong
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-1","limit":5,"verbose":true},"arg_rules":{"verbose":{"optional":true}}}]`, `[]`, 2, ""}, // optional, omitted: right
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-1"}}]`, `[]`, 2, ""},                                                                    // unexpected arg
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-1","limit":5.0}}]`, `[]`, 2, ""},                                                        // 5 = 5.0: right
		{"call", `[{"tool":"refund","args":{}}]`, `[]`, 2, ""},                                                                                                // wrong tool
		{"call", `[{"tool":"refund","args":{}}]`, `[[{"tool":"get_order_status","args":{"order_id":"ORD-1","limit":5}}]]`, 2, ""},                             // acceptable: right
		{"no_call", `[]`, `[]`, 2, ""},                         // should not call
		{"no_call", `[]`, `[]`, 4, ""},                         // no call: right
		{"call", `[{"tool":"refund","args":{}}]`, `[]`, 4, ""}, // should call
		// JSON-pointer rules on nested values.
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-1","filter":{"status":"shipped ","since":"2026-05-01","tags":["a","b"]}},"arg_rules":{"/filter/status":{"match":"fuzzy"}}}]`, `[]`, 2, nested},                              // nested fuzzy: right
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-1","filter":{"status":"Open","since":"2026-05-01","tags":["a","b"]}},"arg_rules":{"/filter/status":{"any_of":["Shipped"]}}}]`, `[]`, 2, nested},                             // nested any_of: right
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-1","filter":{"status":"Open","since":"2026-05-01","tags":["a","b"]}},"arg_rules":{"/filter/since":{"match":"any"}}}]`, `[]`, 2, nested},                                     // nested: other member wrong
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-1","filter":{"status":"Shipped","since":"2026-01-01","tags":["a","z"]}},"arg_rules":{"/filter/since":{"match":"any"},"/filter/tags/1":{"match":"any"}}}]`, `[]`, 2, nested}, // nested any in an array: right
		{"call", `[{"tool":"get_order_status","args":{"order_id":"ORD-1","filter":{"status":"Shipped","since":"2026-05-01","tags":["a","b"],"limit":3}},"arg_rules":{"/filter/limit":{"optional":true}}}]`, `[]`, 2, nested},                      // nested optional, omitted: right
	}
	err := st.WithTx(ctx, func(tx *store.Tx) error {
		for i, c := range cases {
			id := fmt.Sprintf("tr_rule_%02d", i)
			tr := expTrace(id, "rules")
			obs := observed
			if c.observed != "" {
				obs = c.observed
			}
			tr.Messages[2].ToolCalls = []trace.Call{trace.NewCall("c1", "get_order_status", obs)}
			if _, err := st.InsertTrace(ctx, tx, tr, "test"); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO gold(item_id, status, decision, calls, acceptable, rationale, reviewers, adjudicator, guide_version, updated_at)
				VALUES (?, 'adjudicated', ?, ?, ?, 'per the guide', '["alice","bob"]', 'carol', 'g_000000000001', '2026-05-02T00:00:00Z')`,
				trace.ItemID(id, c.turn), c.decision, c.calls, c.acceptable); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
