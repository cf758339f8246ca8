package review

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/goldtrace/goldtrace/internal/shareddata"
	"github.com/goldtrace/goldtrace/internal/toolschema"
	"github.com/goldtrace/goldtrace/trace"
)

// The reference for internal/toolschema is santhosh-tekuri/jsonschema/v6,
// the general validator the label screen used before, set up as it was
// (draft 2020-12 by default, no external references). It is a test
// dependency only: cmd/goldtrace's TestHeavyInitialisersNotLinked keeps
// it out of the binary.

// refCompile compiles a tool schema as NewArgsValidator did with the
// reference.
func refCompile(doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(refNoLoader{})
	const loc = "goldtrace://tool-parameters.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

type refNoLoader struct{}

func (refNoLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema %s is not loaded", url)
}

// refErrors validates inst with the reference and returns its leaves as
// toolschema errors, so that the same words are put on both.
func refErrors(s *jsonschema.Schema, inst any) (bool, []toolschema.Error) {
	err := s.Validate(inst)
	if err == nil {
		return true, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		panic(err)
	}
	var out []toolschema.Error
	refLeaves(ve, &out)
	return false, out
}

func refLeaves(e *jsonschema.ValidationError, out *[]toolschema.Error) {
	if pn, ok := e.ErrorKind.(*kind.PropertyNames); ok {
		*out = append(*out, toolschema.Error{Path: e.InstanceLocation, Keyword: "propertyNames", Prop: pn.Property})
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			refLeaves(c, out)
		}
		return
	}
	x := toolschema.Error{Path: e.InstanceLocation}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		x.Keyword, x.Missing = "required", k.Missing
	case *kind.DependentRequired:
		x.Keyword, x.Missing, x.Prop = "dependentRequired", k.Missing, k.Prop
	case *kind.Dependency:
		x.Keyword, x.Missing, x.Prop = "dependentRequired", k.Missing, k.Prop
	case *kind.Type:
		x.Keyword, x.Want, x.Got = "type", k.Want, k.Got
	case *kind.Enum:
		x.Keyword, x.Want = "enum", k.Want
	case *kind.Const:
		x.Keyword, x.Want = "const", k.Want
	case *kind.Pattern:
		x.Keyword, x.Want, x.Got = "pattern", k.Want, k.Got
	case *kind.Format:
		x.Keyword, x.Want, x.Got = "format", k.Want, k.Got
	case *kind.MinLength:
		x.Keyword, x.Want, x.Got = "minLength", k.Want, k.Got
	case *kind.MaxLength:
		x.Keyword, x.Want, x.Got = "maxLength", k.Want, k.Got
	case *kind.MinItems:
		x.Keyword, x.Want, x.Got = "minItems", k.Want, k.Got
	case *kind.MaxItems:
		x.Keyword, x.Want, x.Got = "maxItems", k.Want, k.Got
	case *kind.UniqueItems:
		x.Keyword, x.Want = "uniqueItems", k.Duplicates
	case *kind.AdditionalItems:
		x.Keyword, x.Got = "additionalItems", k.Count
	case *kind.Contains:
		x.Keyword, x.Want, x.Got = "contains", 1, 0
	case *kind.MinContains:
		x.Keyword, x.Want, x.Got = "minContains", k.Want, len(k.Got)
	case *kind.MaxContains:
		x.Keyword, x.Want, x.Got = "maxContains", k.Want, len(k.Got)
	case *kind.MinProperties:
		x.Keyword, x.Want, x.Got = "minProperties", k.Want, k.Got
	case *kind.MaxProperties:
		x.Keyword, x.Want, x.Got = "maxProperties", k.Want, k.Got
	case *kind.Minimum:
		x.Keyword, x.Want = "minimum", k.Want
	case *kind.Maximum:
		x.Keyword, x.Want = "maximum", k.Want
	case *kind.ExclusiveMinimum:
		x.Keyword, x.Want = "exclusiveMinimum", k.Want
	case *kind.ExclusiveMaximum:
		x.Keyword, x.Want = "exclusiveMaximum", k.Want
	case *kind.MultipleOf:
		x.Keyword, x.Want = "multipleOf", k.Want
	case *kind.AdditionalProperties:
		x.Keyword, x.Missing = "additionalProperties", k.Properties
	case *kind.Not:
		x.Keyword = "not"
	case *kind.OneOf:
		x.Keyword = "oneOf"
		if len(k.Subschemas) == 2 {
			x.Want = [2]int{k.Subschemas[0], k.Subschemas[1]}
		}
	case *kind.FalseSchema:
		x.Keyword = "false"
	default:
		x.Keyword = fmt.Sprintf("%T", e.ErrorKind)
	}
	*out = append(*out, x)
}

// outsideSubset says why toolschema is not expected to agree with the
// reference on doc, "" when it is: the constructs it leaves out on
// purpose (docs/json-schema.md).
func outsideSubset(doc any) string {
	draft := "2020"
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"].(string); ok {
			switch strings.TrimSuffix(s, "#") {
			case "http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema":
				draft = "7"
			case "https://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2020-12/schema":
			default:
				return "$schema " + s
			}
		}
	}
	var why string
	var walk func(v any, root bool)
	walk = func(v any, root bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
					"unevaluatedProperties", "unevaluatedItems", "$vocabulary":
					why = k
				case "$id", "$schema":
					if !root {
						why = k + " in a subschema"
					}
				case "format":
					if f, ok := e.(string); ok && draft == "7" && !slices.Contains([]string{"date", "time", "date-time", "ipv4", "ipv6", "uuid", "regex"}, f) {
						why = "format " + f
					}
				}
				walk(e, false)
			}
		case []any:
			for _, e := range x {
				walk(e, false)
			}
		}
	}
	walk(doc, true)
	return why
}

// corpusTool is a tool schema from real data, with argument values real
// calls gave it.
type corpusTool struct {
	source string
	params []byte
	args   []json.RawMessage
}

// toolCorpus is every distinct tool schema in the shared data (BFCL,
// tau-bench airline and retail, provider recordings, OpenInference spans)
// and the project's trace fixtures, each also in the form an import
// normalises it to (BFCL's "dict", "float", "tuple" and "any" made JSON
// Schema).
func toolCorpus(t testing.TB) []corpusTool {
	byParams := map[string]*corpusTool{}
	var order []string
	add := func(source string, params []byte, args ...json.RawMessage) {
		if len(bytes.TrimSpace(params)) == 0 {
			return
		}
		for _, p := range [][]byte{params, pythonTypesToJSONSchema(params)} {
			k := string(p)
			ct, ok := byParams[k]
			if !ok {
				ct = &corpusTool{source: source, params: p}
				byParams[k] = ct
				order = append(order, k)
			}
			ct.args = append(ct.args, args...)
		}
	}
	dir := shareddata.Path(t, ".")

	// BFCL: each record's tools, and the model's calls as arguments.
	f, err := os.Open(filepath.Join(dir, "bfcl", "gpt-oss-120b.bfcl.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec struct {
			ID     string          `json:"id"`
			Tools  json.RawMessage `json:"tools"`
			Actual []struct {
				Name string          `json:"name"`
				Args json.RawMessage `json:"arguments"`
			} `json:"actual"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		tools, err := trace.DecodeTools(rec.Tools, "tools")
		if err != nil {
			t.Fatalf("bfcl %s: %v", rec.ID, err)
		}
		for _, tool := range tools {
			var args []json.RawMessage
			for _, a := range rec.Actual {
				if a.Name == strings.ReplaceAll(tool.Name, ".", "_") && len(a.Args) > 0 && a.Args[0] == '{' {
					args = append(args, a.Args)
				}
			}
			add("bfcl "+rec.ID, tool.Parameters, args...)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	// tau-bench: the tool lists, and retail's gold actions as arguments.
	gold := map[string][]json.RawMessage{}
	tasks, err := os.ReadFile(filepath.Join(dir, "tau-retail", "retail_tasks_test.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(tasks), []byte("\n")) {
		var task struct {
			Actions []struct {
				Name   string          `json:"name"`
				Kwargs json.RawMessage `json:"kwargs"`
			} `json:"actions"`
		}
		if err := json.Unmarshal(line, &task); err != nil {
			t.Fatal(err)
		}
		for _, a := range task.Actions {
			gold[a.Name] = append(gold[a.Name], a.Kwargs)
		}
	}
	for _, file := range []string{"tau-airline/airline_tools.json", "tau-retail/retail_tools.json"} {
		raw, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		tools, err := trace.DecodeTools(raw, file)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			add(file+" "+tool.Name, tool.Parameters, gold[tool.Name]...)
		}
	}

	// Recordings and spans, read as an import reads them, with the calls
	// they made.
	files, _ := filepath.Glob(filepath.Join(dir, "openinference", "*.json"))
	files = append(files, filepath.Join(dir, "provider", "openinference_cassettes_tool_calls.jsonl"))
	fixtures, _ := filepath.Glob(filepath.Join("..", "testdata", "*.json*"))
	for _, path := range append(files, fixtures...) {
		r, c, err := trace.OpenFile(path, trace.FormatAuto, nil)
		if err != nil {
			continue // not a trace file (a schema, a gold file)
		}
		for {
			tr, err := r.Next()
			if err != nil {
				var re *trace.RecordError
				if errors.As(err, &re) {
					continue
				}
				break
			}
			for _, tool := range tr.Tools {
				var args []json.RawMessage
				for _, m := range tr.Messages {
					for _, call := range m.ToolCalls {
						if call.Name == tool.Name {
							args = append(args, json.RawMessage(call.Arguments))
						}
					}
				}
				add(filepath.Base(path)+" "+tool.Name, tool.Parameters, args...)
			}
		}
		c.Close()
	}
	out := make([]corpusTool, len(order))
	for i, k := range order {
		out[i] = *byParams[k]
	}
	return out
}

// pythonTypesToJSONSchema rewrites BFCL's Python type names as JSON Schema
// spells them, as an import does for "dict".
func pythonTypesToJSONSchema(params []byte) []byte {
	var doc any
	if json.Unmarshal(params, &doc) != nil {
		return params
	}
	var fix func(v any)
	fix = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ty, ok := x["type"].(string); ok {
				switch strings.ToLower(ty) {
				case "dict":
					x["type"] = "object"
				case "float":
					x["type"] = "number"
				case "tuple":
					x["type"] = "array"
				case "any":
					delete(x, "type")
				default:
					x["type"] = strings.ToLower(ty)
				}
			}
			for _, e := range x {
				fix(e)
			}
		case []any:
			for _, e := range x {
				fix(e)
			}
		}
	}
	fix(doc)
	out, _ := json.Marshal(doc)
	return out
}
