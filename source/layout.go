package source

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Layout names.
const (
	Langfuse  = "langfuse"
	LangSmith = "langsmith"
)

// Layouts lists the Parquet layouts a source may hold.
var Layouts = []string{Langfuse, LangSmith}

// layout is what one vendor's export calls the columns goldtrace reads.
// A decision point is one row whose kind column says it is a model call.
type layout struct {
	name     string
	id       string   // the row's (observation's, run's) id
	trace    string   // the vendor's trace id, kept as metadata
	kind     string   // observation type / run type
	kindIs   string   // the kind value of a model call
	start    string   // when the call started
	input    string   // the model's input (JSON text)
	output   string   // the model's output (JSON text)
	tools    string   // tool definitions column, "" when the layout has none
	names    string   // names of the tools called, "" when the layout has none
	meta     string   // the free-form metadata column
	model    string   // column holding the model name, "" when none
	extra    string   // LangSmith's extra (invocation params, metadata)
	required []string // columns without which the layout cannot be read
	// context columns copied into a decision's metadata (column -> key).
	context map[string]string
}

var layouts = map[string]layout{
	Langfuse: {
		name: Langfuse, id: "id", trace: "trace_id", kind: "type", kindIs: "GENERATION",
		start: "start_time", input: "input", output: "output", tools: "tool_definitions",
		names: "tool_call_names", meta: "metadata", model: "provided_model_name",
		required: []string{"id", "trace_id", "type", "start_time", "input", "output"},
		context: map[string]string{"trace_id": "langfuse_trace_id", "trace_name": "trace_name",
			"user_id": "user_id", "session_id": "session_id", "environment": "environment",
			"release": "release", "provided_model_name": "model", "name": "observation_name"},
	},
	LangSmith: {
		name: LangSmith, id: "id", trace: "trace_id", kind: "run_type", kindIs: "llm",
		start: "start_time", input: "inputs", output: "outputs", extra: "extra",
		required: []string{"id", "run_type", "start_time", "inputs", "outputs"},
		context: map[string]string{"trace_id": "langsmith_trace_id", "session_id": "session_id",
			"name": "run_name"},
	},
}

// detectLayout picks the layout whose required columns the schema has
// (force, when set, names it). A schema that fits neither names what the
// closest one lacks.
func detectLayout(s *parquet.Schema, force, file string) (layout, error) {
	have := topColumns(s)
	if force != "" {
		l, ok := layouts[force]
		if !ok {
			return layout{}, fmt.Errorf("unknown Parquet layout %q (want %s)", force, strings.Join(Layouts, " or "))
		}
		if miss := missing(l, have); len(miss) > 0 {
			return layout{}, fmt.Errorf("%s: no column %s (a %s export needs %s)", file, miss[0], l.name, strings.Join(l.required, ", "))
		}
		return l, nil
	}
	best, bestMiss := layout{}, []string(nil)
	for _, name := range Layouts {
		l := layouts[name]
		miss := missing(l, have)
		if len(miss) == 0 {
			return l, nil
		}
		if best.name == "" || len(miss) < len(bestMiss) {
			best, bestMiss = l, miss
		}
	}
	return layout{}, fmt.Errorf("%s: neither a Langfuse nor a LangSmith export: no column %s (a %s export needs %s)",
		file, bestMiss[0], best.name, strings.Join(best.required, ", "))
}

func missing(l layout, have map[string]bool) []string {
	var out []string
	for _, c := range l.required {
		if !have[c] {
			out = append(out, c)
		}
	}
	return out
}

// topColumns is the set of the schema's top-level field names.
func topColumns(s *parquet.Schema) map[string]bool {
	have := map[string]bool{}
	for _, f := range s.Fields() {
		have[f.Name()] = true
	}
	return have
}

// leafIndexes are the leaf column indexes under top-level field name, in
// schema order (a list has one, a map two: key then value).
func leafIndexes(s *parquet.Schema, name string) []int {
	var out []int
	for i, path := range s.Columns() {
		if len(path) > 0 && path[0] == name {
			out = append(out, i)
		}
	}
	return out
}

// contextColumns are the layout's context columns present in the schema,
// sorted for a stable order.
func (l layout) contextColumns(have map[string]bool) []string {
	var out []string
	for c := range l.context {
		if have[c] {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}
