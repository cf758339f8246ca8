package source

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// phoenixSchema is the part of Phoenix's schema goldtrace reads, as its
// first migration (cf03bd6bae1d "init") creates it.
const phoenixSchema = `
CREATE TABLE projects (
	id SERIAL PRIMARY KEY,
	name VARCHAR NOT NULL UNIQUE,
	description VARCHAR,
	gradient_start_color VARCHAR NOT NULL DEFAULT '#5bdbff',
	gradient_end_color VARCHAR NOT NULL DEFAULT '#1c76fc',
	created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
	updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()
);
CREATE TABLE traces (
	id SERIAL PRIMARY KEY,
	project_rowid INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	trace_id VARCHAR NOT NULL UNIQUE,
	start_time TIMESTAMP WITH TIME ZONE NOT NULL,
	end_time TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX ix_traces_project_rowid ON traces (project_rowid);
CREATE INDEX ix_traces_start_time ON traces (start_time);
CREATE TABLE spans (
	id SERIAL PRIMARY KEY,
	trace_rowid INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
	span_id VARCHAR NOT NULL UNIQUE,
	parent_id VARCHAR,
	name VARCHAR NOT NULL,
	span_kind VARCHAR NOT NULL,
	start_time TIMESTAMP WITH TIME ZONE NOT NULL,
	end_time TIMESTAMP WITH TIME ZONE NOT NULL,
	attributes JSONB NOT NULL,
	events JSONB NOT NULL,
	status_code VARCHAR NOT NULL DEFAULT 'UNSET' CONSTRAINT valid_status CHECK (status_code IN ('OK', 'ERROR', 'UNSET')),
	status_message VARCHAR NOT NULL,
	cumulative_error_count INTEGER NOT NULL,
	cumulative_llm_token_count_prompt INTEGER NOT NULL,
	cumulative_llm_token_count_completion INTEGER NOT NULL
);
CREATE INDEX ix_spans_trace_rowid ON spans (trace_rowid);
CREATE INDEX ix_spans_parent_id ON spans (parent_id);
CREATE INDEX ix_spans_start_time ON spans (start_time);
INSERT INTO projects (name, description) VALUES ('default', 'Default project');
`

// testDatabase creates a fresh database in the PostgreSQL GOLDTRACE_TEST_PG
// names and returns its URL; it is dropped when the test ends.
func testDatabase(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("GOLDTRACE_TEST_PG")
	if dsn == "" {
		t.Skip("GOLDTRACE_TEST_PG is not set: no PostgreSQL to test Phoenix sources against (.ci/run starts one)")
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("GOLDTRACE_TEST_PG: %v", err)
	}
	name := fmt.Sprintf("gt_phoenix_%d", time.Now().UnixNano())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
		admin.Close(ctx)
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// openInferenceMessage is one message as Phoenix nests OpenInference's
// llm.*_messages.N.message.* attributes.
func openInferenceMessage(m trace.Message) map[string]any {
	msg := map[string]any{"role": m.Role, "content": m.Content}
	if m.Name != "" {
		msg["name"] = m.Name
	}
	if m.ToolCallID != "" {
		msg["tool_call_id"] = m.ToolCallID
	}
	var calls []any
	for _, c := range m.ToolCalls {
		calls = append(calls, map[string]any{"tool_call": map[string]any{"id": c.ID,
			"function": map[string]any{"name": c.Name, "arguments": c.RawArguments()}}})
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	return map[string]any{"message": msg}
}

// loadPhoenix stores the traces of next (until it reports false) as
// Phoenix does: a traces row each, a CHAIN root span and one LLM span per
// assistant message (input: the messages before it; output: it), streamed
// to COPY.
func loadPhoenix(t testing.TB, dsn string, next func() (trace.Trace, bool)) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, phoenixSchema); err != nil {
		t.Fatal(err)
	}
	// Spans go through a second connection's COPY while this one copies
	// the traces they belong to, in step.
	spansConn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer spansConn.Close(ctx)
	var traceRows [][]any
	var spanRows [][]any
	flush := func() {
		if len(traceRows) == 0 {
			return
		}
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"traces"}, []string{"id", "project_rowid", "trace_id", "start_time", "end_time"},
			pgx.CopyFromRows(traceRows)); err != nil {
			t.Fatal(err)
		}
		if _, err := spansConn.CopyFrom(ctx, pgx.Identifier{"spans"}, []string{"trace_rowid", "span_id", "parent_id", "name",
			"span_kind", "start_time", "end_time", "attributes", "events", "status_code", "status_message",
			"cumulative_error_count", "cumulative_llm_token_count_prompt", "cumulative_llm_token_count_completion"},
			pgx.CopyFromRows(spanRows)); err != nil {
			t.Fatal(err)
		}
		traceRows, spanRows = traceRows[:0], spanRows[:0]
	}
	span := func(rowid int, id string, parent any, name, kind string, start time.Time, attrs string) {
		spanRows = append(spanRows, []any{rowid, id, parent, name, kind, start, start, attrs, "[]", "OK", "", 0, 0, 0})
	}
	for ti := 1; ; ti++ {
		tr, ok := next()
		if !ok {
			break
		}
		start := tr.Timestamp
		traceRows = append(traceRows, []any{ti, 1, tr.ID, start, start})
		var tools []any
		for _, tl := range tr.Tools {
			schema, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]any{
				"name": tl.Name, "description": tl.Description, "parameters": tl.Parameters}})
			tools = append(tools, map[string]any{"tool": map[string]any{"json_schema": string(schema)}})
		}
		root := tr.ID + "-root"
		span(ti, root, nil, "agent", "CHAIN", start, `{"openinference":{"span":{"kind":"CHAIN"}}}`)
		for i, m := range tr.Messages {
			if m.Role != trace.RoleAssistant {
				continue
			}
			var in []any
			for _, p := range tr.Messages[:i] {
				in = append(in, openInferenceMessage(p))
			}
			attrs, _ := json.Marshal(map[string]any{
				"openinference": map[string]any{"span": map[string]any{"kind": "LLM"}},
				"llm": map[string]any{"model_name": tr.Metadata["model"], "input_messages": in,
					"output_messages": []any{openInferenceMessage(m)}, "tools": tools},
				"metadata": map[string]any{"cohort": tr.Metadata["cohort"]},
			})
			span(ti, fmt.Sprintf("%s-llm-%d", tr.ID, i), root, "ChatCompletion", "LLM", start.Add(time.Duration(i)*time.Second), string(attrs))
		}
		if len(traceRows) == 2000 {
			flush()
		}
	}
	flush()
	if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
}

// sliceTraces hands out traces one at a time.
func sliceTraces(traces []trace.Trace) func() (trace.Trace, bool) {
	return func() (trace.Trace, bool) {
		if len(traces) == 0 {
			return trace.Trace{}, false
		}
		t := traces[0]
		traces = traces[1:]
		return t, true
	}
}

func TestSampleFromPhoenixInsidePostgreSQL(t *testing.T) {
	dsn := testDatabase(t)
	traces := synth.Generate(synth.Options{Seed: 4, N: 150})
	loadPhoenix(t, dsn, sliceTraces(traces))
	want := hashesOf(traces)
	opts := Options{Spec: dsn, Seed: 21, N: 40, By: "tool", Alloc: sampling.AllocProportional}
	res, err := Sample(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sample.Items) != 40 || res.Info.Layout != Phoenix {
		t.Fatalf("sampled %d items, layout %q", len(res.Sample.Items), res.Info.Layout)
	}
	keys := make([]uint64, len(res.Sample.Items))
	for i, c := range res.Sample.Items {
		tool, ok := want[c.InputHash]
		if !ok {
			t.Fatalf("span %s: input hash is no decision point of the JSONL traces", c.TraceID)
		}
		if tool != c.Stratum {
			t.Fatalf("span %s: stratum %q, the JSONL trace's first tool is %q", c.TraceID, c.Stratum, tool)
		}
		keys[i] = Key(opts.Seed, c.TraceID)
	}
	if !sort.SliceIsSorted(keys, func(i, j int) bool { return keys[i] < keys[j] }) {
		t.Fatal("items are not in the order of Key: PostgreSQL's sha256 key and Key disagree")
	}
	// Only the chosen spans' attributes crossed the wire.
	if res.Info.Requests != 40 {
		t.Fatalf("fetched %d spans' attributes for 40 items", res.Info.Requests)
	}
	if strings.Contains(res.Info.URI, "password") || !strings.HasPrefix(res.Info.Files[0].Version, "snapshot ") {
		t.Fatalf("info %+v", res.Info)
	}
	again, err := Sample(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Sample.Items {
		if again.Sample.Items[i] != res.Sample.Items[i] {
			t.Fatalf("second draw differs at %d", i)
		}
	}

	// Filters and meta strata run in SQL too.
	opts.By, opts.Filter = "meta.cohort", sampling.Filter{Turns: sampling.TurnsCalls}
	res, err = Sample(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Sample.Items {
		if want[c.InputHash] == trace.NoTool {
			t.Fatalf("span %s has no tool call but --turns calls", c.TraceID)
		}
	}
}

func TestPhoenixSourceRefusesOtherDatabases(t *testing.T) {
	dsn := testDatabase(t)
	_, err := Sample(context.Background(), Options{Spec: dsn, Seed: 1, N: 3, Alloc: sampling.AllocProportional})
	if err == nil || !strings.Contains(err.Error(), "not a Phoenix database: no column spans.") {
		t.Fatalf("empty database: %v", err)
	}
	u, _ := url.Parse(dsn)
	u.User = url.UserPassword("nobody", "s3cret")
	_, err = Sample(context.Background(), Options{Spec: u.String(), Seed: 1, N: 3, Alloc: sampling.AllocProportional})
	if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("bad user: %v", err)
	}
	t.Log(err)
}
