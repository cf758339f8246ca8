package source

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/goldtrace/goldtrace/trace"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// langfuseRow is one row of Langfuse's enriched observations export
// (observations_v2), the columns docs/sources.md lists.
type langfuseRow struct {
	ID                  string            `parquet:"id"`
	TraceID             string            `parquet:"trace_id"`
	ProjectID           string            `parquet:"project_id"`
	Environment         string            `parquet:"environment"`
	Type                string            `parquet:"type,dict"`
	ParentObservationID string            `parquet:"parent_observation_id"`
	StartTime           int64             `parquet:"start_time,timestamp(microsecond:utc)"`
	Name                string            `parquet:"name"`
	Metadata            map[string]string `parquet:"metadata"`
	Level               string            `parquet:"level"`
	Input               string            `parquet:"input,zstd"`
	Output              string            `parquet:"output,zstd"`
	ProvidedModelName   string            `parquet:"provided_model_name,dict"`
	ToolCalls           []string          `parquet:"tool_calls,list"`
	ToolCallNames       []string          `parquet:"tool_call_names,list"`
	ToolDefinitions     string            `parquet:"tool_definitions,dict"`
	UserID              string            `parquet:"user_id"`
	SessionID           string            `parquet:"session_id"`
	TraceName           string            `parquet:"trace_name"`
	Tags                []string          `parquet:"tags,list"`
}

// langSmithRow is one run of LangSmith's bulk export, the columns
// docs/sources.md lists.
type langSmithRow struct {
	ID          string   `parquet:"id"`
	TraceID     string   `parquet:"trace_id"`
	ParentRunID *string  `parquet:"parent_run_id,optional"`
	DottedOrder string   `parquet:"dotted_order"`
	Name        string   `parquet:"name"`
	RunType     string   `parquet:"run_type"`
	StartTime   int64    `parquet:"start_time,timestamp(microsecond:utc)"`
	EndTime     int64    `parquet:"end_time,timestamp(microsecond:utc)"`
	Status      string   `parquet:"status"`
	Inputs      string   `parquet:"inputs,zstd"`
	Outputs     string   `parquet:"outputs,zstd"`
	Extra       string   `parquet:"extra,zstd"`
	Tags        []string `parquet:"tags,list"`
	SessionID   string   `parquet:"session_id"`
}

// Writer writes traces as a vendor's Parquet export: each assistant message
// becomes one model-call row (its input the messages before it, its output
// that message), beside one non-model row per trace (the trace's root span
// or chain run), as the vendors export them.
type Writer struct {
	layout string
	lf     *parquet.GenericWriter[langfuseRow]
	ls     *parquet.GenericWriter[langSmithRow]
	rows   int
}

// NewWriter writes to w in layout (Langfuse or LangSmith).
func NewWriter(w io.Writer, layout string) (*Writer, error) {
	opts := []parquet.WriterOption{parquet.Compression(&zstd.Codec{}), parquet.MaxRowsPerRowGroup(50_000),
		parquet.PageBufferSize(64 << 10), parquet.CreatedBy("goldtrace", "", "")}
	switch layout {
	case Langfuse:
		return &Writer{layout: layout, lf: parquet.NewGenericWriter[langfuseRow](w, opts...)}, nil
	case LangSmith:
		return &Writer{layout: layout, ls: parquet.NewGenericWriter[langSmithRow](w, opts...)}, nil
	}
	return nil, fmt.Errorf("unknown layout %q (want %s or %s)", layout, Langfuse, LangSmith)
}

// Rows is how many rows have been written.
func (w *Writer) Rows() int { return w.rows }

// Write writes the rows of one trace.
func (w *Writer) Write(t trace.Trace) error {
	if w.lf != nil {
		rows, err := langfuseRows(t)
		if err != nil {
			return err
		}
		w.rows += len(rows)
		_, err = w.lf.Write(rows)
		return err
	}
	rows, err := langSmithRows(t)
	if err != nil {
		return err
	}
	w.rows += len(rows)
	_, err = w.ls.Write(rows)
	return err
}

// Close flushes the last row group and writes the footer.
func (w *Writer) Close() error {
	if w.lf != nil {
		return w.lf.Close()
	}
	return w.ls.Close()
}

// chatMessage is a message in OpenAI's chat-completions shape.
func chatMessage(m trace.Message) map[string]any {
	out := map[string]any{"role": m.Role, "content": m.Content}
	if m.Name != "" {
		out["name"] = m.Name
	}
	if m.ToolCallID != "" {
		out["tool_call_id"] = m.ToolCallID
	}
	if len(m.ToolCalls) > 0 {
		var calls []any
		for _, c := range m.ToolCalls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.RawArguments()}})
		}
		out["tool_calls"] = calls
	}
	return out
}

func chatMessages(ms []trace.Message) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = chatMessage(m)
	}
	return out
}

func chatTools(tools []trace.Tool) []any {
	out := make([]any, len(tools))
	for i, t := range tools {
		fn := map[string]any{"name": t.Name}
		if t.Description != "" {
			fn["description"] = t.Description
		}
		if len(t.Parameters) > 0 {
			fn["parameters"] = t.Parameters
		}
		out[i] = map[string]any{"type": "function", "function": fn}
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps, slices and strings of valid JSON reach here
	}
	return string(b)
}

// callTime is when the model call at message index i of t happened: a
// second per message after the trace's start.
func callTime(t trace.Trace, i int) int64 {
	ts := t.Timestamp
	if ts.IsZero() {
		ts = time.Unix(0, 0)
	}
	return ts.Add(time.Duration(i) * time.Second).UnixMicro()
}

func langfuseRows(t trace.Trace) ([]langfuseRow, error) {
	meta := maps.Clone(t.Metadata)
	model := meta["model"]
	delete(meta, "model")
	defs := map[string]any{}
	for _, tl := range t.Tools {
		d := map[string]any{}
		if tl.Description != "" {
			d["description"] = tl.Description
		}
		if len(tl.Parameters) > 0 {
			d["parameters"] = tl.Parameters
		}
		defs[tl.Name] = d
	}
	defsJSON := mustJSON(defs)
	root := langfuseRow{ID: t.ID + "-root", TraceID: t.ID, ProjectID: "demo", Environment: "production", Type: "SPAN",
		StartTime: callTime(t, 0), Name: "agent", Metadata: meta, Level: "DEFAULT", TraceName: "support-agent"}
	out := []langfuseRow{root}
	for i, m := range t.Messages {
		if m.Role != trace.RoleAssistant {
			continue
		}
		r := root
		r.ID = fmt.Sprintf("%s-gen-%d", t.ID, i)
		r.Type, r.Name, r.ParentObservationID = "GENERATION", "chat", root.ID
		r.StartTime = callTime(t, i)
		r.Input = mustJSON(chatMessages(t.Messages[:i]))
		r.Output = mustJSON(chatMessage(m))
		r.ProvidedModelName = model
		r.ToolDefinitions = defsJSON
		for _, c := range m.ToolCalls {
			r.ToolCallNames = append(r.ToolCallNames, c.Name)
			r.ToolCalls = append(r.ToolCalls, mustJSON(chatMessage(trace.Message{ToolCalls: []trace.Call{c}})["tool_calls"].([]any)[0]))
		}
		out = append(out, r)
	}
	return out, nil
}

func langSmithRows(t trace.Trace) ([]langSmithRow, error) {
	meta := maps.Clone(t.Metadata)
	model := meta["model"]
	start := callTime(t, 0)
	root := langSmithRow{ID: t.ID, TraceID: t.ID, DottedOrder: t.ID, Name: "agent", RunType: "chain",
		StartTime: start, EndTime: start, Status: "success", Inputs: `{}`, Outputs: `{}`,
		Extra: mustJSON(map[string]any{"metadata": meta}), SessionID: "demo-project"}
	out := []langSmithRow{root}
	tools := chatTools(t.Tools)
	for i, m := range t.Messages {
		if m.Role != trace.RoleAssistant {
			continue
		}
		r := root
		r.ID = fmt.Sprintf("%s-llm-%d", t.ID, i)
		parent := root.ID
		r.ParentRunID = &parent
		r.DottedOrder = root.ID + "." + r.ID
		r.Name, r.RunType = "ChatOpenAI", "llm"
		r.StartTime, r.EndTime = callTime(t, i), callTime(t, i)
		r.Inputs = mustJSON(map[string]any{"messages": chatMessages(t.Messages[:i]), "model": model, "tools": tools})
		r.Outputs = mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "message": chatMessage(m)}}})
		r.Extra = mustJSON(map[string]any{"metadata": meta, "invocation_params": map[string]any{"model": model}})
		out = append(out, r)
	}
	return out, nil
}

// WriteSynth writes the synthetic traces of opts to w as a layout export
// and returns the bytes written. The same options give the same bytes.
func WriteSynth(w io.Writer, layout string, opts synth.Options) (int64, error) {
	cw := &countWriter{w: w}
	pw, err := NewWriter(cw, layout)
	if err != nil {
		return 0, err
	}
	s := synth.NewStream(opts)
	for {
		t, ok := s.Next()
		if !ok {
			break
		}
		if err := pw.Write(t); err != nil {
			return cw.n, err
		}
	}
	err = pw.Close()
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
