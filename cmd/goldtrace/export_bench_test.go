package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// benchInsert runs one multi-row INSERT per chunk of rows.
func benchInsert(ctx context.Context, tx *store.Tx, head string, cols int, rows [][]any) error {
	per := 30000 / cols
	for start := 0; start < len(rows); start += per {
		end := min(start+per, len(rows))
		args := make([]any, 0, cols*(end-start))
		for _, r := range rows[start:end] {
			args = append(args, r...)
		}
		ph := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + "),"
		if _, err := tx.ExecContext(ctx, head+" VALUES "+strings.TrimSuffix(strings.Repeat(ph, end-start), ","), args...); err != nil {
			return err
		}
	}
	return nil
}

// benchSeed stores nTraces support conversations with two gold items each
// (a call at turn 2, no call at turn 4), each labeled by alice and bob (who
// disagree on every tenth no-call item, which carol adjudicated), with
// batched direct INSERTs.
func benchSeed(b *testing.B, db string, nTraces int) {
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	tools := []trace.Tool{
		{Name: "get_order_status", Description: "Shipping status of one order.", Parameters: json.RawMessage(`{"properties":{"order_id":{"description":"Order id, e.g. ORD-1234.","type":"string"}},"required":["order_id"],"type":"object"}`)},
		{Name: "get_order_history", Description: "Orders of one customer, newest first.", Parameters: json.RawMessage(`{"properties":{"limit":{"type":"integer"},"user_id":{"type":"string"}},"required":["user_id"],"type":"object"}`)},
		{Name: "refund", Description: "Refund an order in full or in part.", Parameters: json.RawMessage(`{"properties":{"amount":{"type":"number"},"order_id":{"type":"string"},"reason":{"type":"string"}},"required":["order_id"],"type":"object"}`)},
		{Name: "escalate", Description: "Hand the conversation to a human.", Parameters: json.RawMessage(`{"properties":{"summary":{"type":"string"}},"type":"object"}`)},
	}
	const at = "2026-05-01T10:00:00Z"
	var toolRows, traceRows, itemRows, goldRows, batchRows, asgRows, labelRows [][]any
	var toolHashes []string
	for _, tool := range tools {
		h, err := trace.ToolHash(tool)
		if err != nil {
			b.Fatal(err)
		}
		toolHashes = append(toolHashes, h)
		toolRows = append(toolRows, []any{h, tool.Name, tool.Description, string(tool.Parameters)})
	}
	toolset, _ := json.Marshal(toolHashes)
	for i := 0; i < nTraces; i++ {
		id := fmt.Sprintf("tr_%07d", i)
		order := fmt.Sprintf("ORD-%05d", i)
		call := trace.NewCall("c1", "get_order_status", `{"order_id":"`+order+`"}`)
		msgs := []trace.Message{
			{Role: "system", Content: "You are a support agent for an online shop. Be brief, be kind, and look things up before answering."},
			{Role: "user", Content: "Hi, where is my package? I ordered it last week and it has not arrived yet (" + order + ")."},
			{Role: "assistant", ToolCalls: []trace.Call{call}},
			{Role: "tool", ToolCallID: "c1", Name: "get_order_status", Content: `{"status":"in_transit","carrier":"DHL","eta":"2026-05-03"}`},
			{Role: "assistant", Content: "Your order " + order + " is on its way with DHL and should arrive on May 3."},
		}
		mb, _ := trace.MarshalCanonical(msgs)
		metaset := 1 + i%3 // cohort billing, shipping, refunds
		traceRows = append(traceRows, []any{id, "", nil, fmt.Sprintf("h%d", i), metaset, string(mb), 1, "bench", "now"})
		obs, _ := trace.MarshalCanonical([]trace.Call{call})
		it2, it4 := trace.ItemID(id, 2), trace.ItemID(id, 4)
		itemRows = append(itemRows, []any{it2, id, 2, "x", string(obs), "get_order_status", 1, "agreed", 1, metaset},
			[]any{it4, id, 4, "y", "[]", trace.NoTool, 0, "adjudicated", 1, metaset})
		goldRows = append(goldRows,
			[]any{it2, "agreed", "call", `[{"tool":"get_order_status","args":{"order_id":"` + order + `"}}]`, "[]", "One open order: a status lookup answers it.", `["alice","bob"]`, "", "g_000000000001", "now"},
			[]any{it4, "adjudicated", "no_call", "[]", "[]", "The tool result answers the question.", `["alice","bob"]`, "carol", "g_000000000001", "now"})
		bobOn4 := []any{it4, "bob", "no_call", "[]", "Answered.", "g_000000000001", 12, 0, at}
		if i%10 == 0 {
			bobOn4 = []any{it4, "bob", "call", `[{"tool":"escalate","args":{}}]`, "Hand over.", "g_000000000001", 12, 0, at}
		}
		for j, it := range []string{it2, it4} {
			batchRows = append(batchRows, []any{"b1", it, 2*i + j})
			for _, r := range []string{"alice", "bob"} {
				asgRows = append(asgRows, []any{it, r, "b1", 2*i + j, "submitted", "now"})
			}
		}
		labelRows = append(labelRows,
			[]any{it2, "alice", "call", `[{"tool":"get_order_status","args":{"order_id":"` + order + `"}}]`, "Status lookup.", "g_000000000001", 20, 1, at},
			[]any{it2, "bob", "call", `[{"tool":"get_order_status","args":{"order_id":"` + order + `"}}]`, "Lookup.", "g_000000000001", 15, 0, at},
			[]any{it4, "alice", "no_call", "[]", "The result answers it.", "g_000000000001", 9, 1, at},
			bobOn4)
	}
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		for _, step := range []struct {
			head string
			cols int
			rows [][]any
		}{
			{"INSERT INTO tools(hash, name, description, parameters)", 4, toolRows},
			{"INSERT INTO toolsets(id, hashes)", 2, [][]any{{1, string(toolset)}}},
			{"INSERT INTO metasets(id, json)", 2, [][]any{{1, `{"cohort":"billing"}`}, {2, `{"cohort":"shipping"}`}, {3, `{"cohort":"refunds"}`}}},
			{"INSERT INTO traces(id, ts, ts_unix, content_hash, metaset, messages, toolset, source, imported_at)", 9, traceRows},
			{"INSERT INTO items(id, trace_id, turn, input_hash, observed, first_tool, n_calls, status, in_batch, metaset)", 10, itemRows},
			{"INSERT INTO gold(item_id, status, decision, calls, acceptable, rationale, reviewers, adjudicator, guide_version, updated_at)", 10, goldRows},
			{"INSERT INTO users(name, role, created_at)", 3, [][]any{{"alice", "reviewer", "now"}, {"bob", "reviewer", "now"}, {"carol", "lead", "now"}}},
			{"INSERT INTO batches(name, seed, per_item, created_at)", 4, [][]any{{"b1", 1, 2, "now"}}},
			{"INSERT INTO batch_items(batch, item_id, position)", 3, batchRows},
			{"INSERT INTO assignments(item_id, reviewer, batch, position, status, updated_at)", 6, asgRows},
			{"INSERT INTO labels(item_id, reviewer, decision, calls, rationale, guide_version, seconds, saw_observed, submitted_at)", 9, labelRows},
		} {
			if err := benchInsert(ctx, tx, step.head, step.cols, step.rows); err != nil {
				return fmt.Errorf("%s: %w", step.head, err)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkExport exports 100k gold items (50k traces × 2, 200k labels) as a
// new version: reading, building, hashing, the manifest's agreement,
// writing both files and storing the version. In process, so it measures
// the export without the process start (about 0.1 s for the CLI).
func BenchmarkExport(b *testing.B) {
	dir := b.TempDir()
	db := filepath.Join(dir, "gt.db")
	benchSeed(b, db, 50_000)
	cpu0 := smpCPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var out, errb strings.Builder
		cli := NewCLI(strings.NewReader(""), &out, &errb)
		root := newRootCmd(cli)
		root.SetArgs([]string{"--db", db, "export", "bench", "--as", "carol", "--out", filepath.Join(dir, "out"), "--force"})
		err := root.ExecuteContext(context.Background())
		cli.Close()
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 && !strings.Contains(out.String(), "100000 items") {
			b.Fatalf("unexpected output: %s", out.String())
		}
		if i == 0 {
			m, err := os.ReadFile(filepath.Join(dir, "out", "bench-v1.manifest.json"))
			if err != nil || !strings.Contains(string(m), `"percent_agreement": 0.95,`) {
				b.Fatalf("manifest agreement (%v): %.600s", err, m)
			}
		}
	}
	b.StopTimer()
	// CPU seconds (user+system, all threads) per export: wall time on a
	// shared machine measures the queue for the CPU as much as the export.
	b.ReportMetric((smpCPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
