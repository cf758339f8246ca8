package dataset

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// Formats other than the canonical JSONL that an export can also write
// beside the canonical file (FormatFiles lists each one's files):
//
//   - openai-evals: the legacy evals registry's NAME-vN.openai-evals.jsonl,
//     {"input":[chat messages],"ideal":[…],"tools":[…],"metadata":{…}}
//     per line; each ideal is the canonical JSON of one correct call list
//     [{"name","arguments"}] (the expected calls first, then each acceptable
//     alternative; "[]" means no tool should be called). Beside it the
//     current Evals API's shape: NAME-vN.openai-evals.items.jsonl with one
//     {"item":{…}} per line and NAME-vN.openai-evals.eval.json, the create-eval
//     request (a custom data source whose item_schema every item satisfies,
//     and a python grader comparing sample.output_tools with the ideals).
//   - langsmith: dataset example rows {"inputs":{"messages","tools"},
//     "outputs":{expected_tool, expected_args, expected_calls, acceptable,
//     rationale},"metadata":{…}}.
//   - promptfoo: test cases {"description","vars","options","assert","metadata"}:
//     vars hold the messages, expected_calls and acceptable, options.tools
//     the item's tools (OpenAI shape); every item asserts a multi-line
//     javascript check of tool names and argument rules (for a no-call item:
//     that no tool was called), items that expect calls also tool-call-f1.
//     Beside it NAME-vN.promptfooconfig.yaml runs them (promptfoo_config.go).
//   - inspect: inspect_ai samples (inspect_format.go).
//   - deepeval: a JSON array of goldens (inspect_format.go).
//   - bfcl: BFCL's question and possible-answer files and a report of the
//     rules BFCL cannot express (bfcl_format.go).
//   - hf: a Hugging Face dataset folder, README card and data file
//     (hf_format.go).
//   - tau2: τ²-bench tasks and a report of what τ² cannot express
//     (tau2_format.go).
//
// Messages and tools use OpenAI chat-completions shapes: tool_calls as
// {id,type:"function",function:{name,arguments}} with arguments as a JSON
// string, tools as {type:"function",function:{name,description,parameters}}.
//
// Formats (export_formats.go) lists them; exportFormats says their files.

// ValidFormat reports whether f is "jsonl" (canonical only) or one of Formats.
func ValidFormat(f string) bool {
	if f == "jsonl" {
		return true
	}
	for _, x := range Formats {
		if x == f {
			return true
		}
	}
	return false
}

// WriteFormat converts a canonical dataset (its JSONL, read from content) into
// a format written one row per record (openai-evals' legacy rows, langsmith,
// promptfoo's tests, inspect), in the same order, deterministically.
func WriteFormat(w io.Writer, format string, content io.Reader) error {
	convert, ok := map[string]func(gold.Record) (any, error){
		"openai-evals": openAIEvalsRow,
		"langsmith":    langSmithRow,
		"promptfoo":    promptfooRow,
		"inspect":      inspectRow,
	}[format]
	if !ok {
		return fmt.Errorf("unknown row format %q (want openai-evals, langsmith, promptfoo or inspect)", format)
	}
	lines := newJSONLines(w)
	err := eachRecord(content, func(r gold.Record) error {
		row, err := convert(r)
		if err != nil {
			return err
		}
		return lines.write(row)
	})
	if err != nil {
		return err
	}
	return lines.flush()
}

// nameArgs is a call as {"name","arguments"} with arguments as JSON.
type nameArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// idealCalls encodes one correct call list as canonical JSON text.
func idealCalls(calls []gold.ExpectedCall) (string, error) {
	list := make([]nameArgs, len(calls))
	for i, c := range calls {
		list[i] = nameArgs{Name: c.Tool, Arguments: c.Args}
	}
	b, err := trace.MarshalCanonical(list)
	return string(b), err
}

// idealLists is every correct call list of r as canonical JSON text: the
// expected calls first, then each acceptable alternative.
func idealLists(r gold.Record) ([]string, error) {
	ideal := []string{}
	for _, calls := range append([][]gold.ExpectedCall{r.ExpectedCalls}, r.Acceptable...) {
		s, err := idealCalls(calls)
		if err != nil {
			return nil, err
		}
		ideal = append(ideal, s)
	}
	return ideal, nil
}

// rowMetadata is what every shape carries about where a row came from.
type rowMetadata struct {
	ID            string            `json:"id"`
	TraceID       string            `json:"trace_id"`
	Turn          int               `json:"turn"`
	TraceMetadata map[string]string `json:"trace_metadata"`
	Status        string            `json:"status"`
	GuideVersion  string            `json:"guide_version"`
}

func metadataOf(r gold.Record) rowMetadata {
	meta := r.Input.Context.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	return rowMetadata{ID: r.ID, TraceID: r.Input.Context.TraceID, Turn: r.Input.Context.Turn,
		TraceMetadata: meta, Status: r.Provenance.Status, GuideVersion: r.Provenance.GuideVersion}
}

func openAIEvalsRow(r gold.Record) (any, error) {
	ideal, err := idealLists(r)
	if err != nil {
		return nil, err
	}
	return struct {
		Input    []trace.ChatMessage `json:"input"`
		Ideal    []string            `json:"ideal"`
		Tools    []trace.ChatTool    `json:"tools"`
		Metadata rowMetadata         `json:"metadata"`
	}{trace.ChatMessages(r.Input.Messages), ideal, trace.ChatTools(r.AvailableTools), metadataOf(r)}, nil
}

func langSmithRow(r gold.Record) (any, error) {
	type inputs struct {
		Messages []trace.ChatMessage `json:"messages"`
		Tools    []trace.ChatTool    `json:"tools"`
	}
	type outputs struct {
		ExpectedTool  *string               `json:"expected_tool"`
		ExpectedArgs  json.RawMessage       `json:"expected_args"`
		ExpectedCalls []gold.ExpectedCall   `json:"expected_calls"`
		Acceptable    [][]gold.ExpectedCall `json:"acceptable"`
		Rationale     string                `json:"rationale"`
	}
	return struct {
		Inputs   inputs      `json:"inputs"`
		Outputs  outputs     `json:"outputs"`
		Metadata rowMetadata `json:"metadata"`
	}{
		inputs{trace.ChatMessages(r.Input.Messages), trace.ChatTools(r.AvailableTools)},
		outputs{r.ExpectedTool, r.ExpectedArgs, nonNilCalls(r.ExpectedCalls), nonNilAlts(r.Acceptable), r.Rationale},
		metadataOf(r),
	}, nil
}

type promptfooAssert struct {
	Type      string   `json:"type"`
	Value     any      `json:"value,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	Metric    string   `json:"metric,omitempty"`
}

// promptfooRow is one promptfoo test case: the messages, expected calls and
// acceptable lists as vars (the config's prompt renders the messages), the
// item's tools as options.tools (promptfoo merges a test's options into the
// provider's config, so an OpenAI-compatible provider offers them), the
// generated checker for every item, and tool-call-f1 on the expected tool
// names for items that expect calls.
func promptfooRow(r gold.Record) (any, error) {
	type vars struct {
		ID            string                `json:"id"`
		Messages      []trace.ChatMessage   `json:"messages"`
		ExpectedCalls []gold.ExpectedCall   `json:"expected_calls"`
		Acceptable    [][]gold.ExpectedCall `json:"acceptable"`
	}
	type options struct {
		Tools []trace.ChatTool `json:"tools"`
	}
	asserts := []promptfooAssert{{Type: "javascript", Value: promptfooCallCheck, Metric: "gold_match"}}
	desc := r.ID + ": no tool call"
	if len(r.ExpectedCalls) > 0 {
		desc = r.ID + ": " + r.ExpectedCalls[0].Tool
		asserts = append(asserts, promptfooF1(r))
	}
	return struct {
		Description string            `json:"description"`
		Vars        vars              `json:"vars"`
		Options     options           `json:"options"`
		Assert      []promptfooAssert `json:"assert"`
		Metadata    rowMetadata       `json:"metadata"`
	}{desc, vars{r.ID, trace.ChatMessages(r.Input.Messages), nonNilCalls(r.ExpectedCalls), nonNilAlts(r.Acceptable)},
		options{trace.ChatTools(r.AvailableTools)}, asserts, metadataOf(r)}, nil
}

// promptfooF1 is tool-call-f1 on the expected tool names. It gates (threshold
// 1) only when every correct list calls the same set of tools, so that it
// can never fail a test the checker passes; otherwise it is reported with
// threshold 0.
func promptfooF1(r gold.Record) promptfooAssert {
	set := func(calls []gold.ExpectedCall) string {
		names := map[string]bool{}
		for _, c := range calls {
			names[c.Tool] = true
		}
		return strings.Join(sortedKeys(names), ",")
	}
	names := []string{}
	seen := map[string]bool{}
	for _, c := range r.ExpectedCalls {
		if !seen[c.Tool] {
			seen[c.Tool] = true
			names = append(names, c.Tool)
		}
	}
	threshold := 1.0
	for _, alt := range r.Acceptable {
		if set(alt) != set(r.ExpectedCalls) {
			threshold = 0
		}
	}
	return promptfooAssert{Type: "tool-call-f1", Value: names, Threshold: &threshold, Metric: "tool_call_f1"}
}

func nonNilCalls(c []gold.ExpectedCall) []gold.ExpectedCall {
	if c == nil {
		return []gold.ExpectedCall{}
	}
	return c
}

func nonNilAlts(c [][]gold.ExpectedCall) [][]gold.ExpectedCall {
	if c == nil {
		return [][]gold.ExpectedCall{}
	}
	return c
}

// promptfooCalls normalises promptfoo's output (OpenAI tool_calls array,
// {tool_calls}, or their JSON text) into [{name, args}], or null when the
// output holds no tool calls.
const promptfooCalls = `const calls = (o) => { let v = o; if (typeof v === 'string') { try { v = JSON.parse(v); } catch (e) { return null; } } if (v && !Array.isArray(v) && Array.isArray(v.tool_calls)) v = v.tool_calls; if (!Array.isArray(v)) return null; return v.map((c) => { const f = (c && c.function) || c || {}; let a = f.arguments !== undefined ? f.arguments : (f.input !== undefined ? f.input : {}); if (typeof a === 'string') { try { a = JSON.parse(a); } catch (e) { a = undefined; } } return { name: f.name, args: a }; }); };`

// promptfooCallCheck passes when the called tools and arguments satisfy the
// expected calls (or an acceptable alternative; no call at all when they are
// []) under their arg_rules: exact
// (key-order-free JSON equality), fuzzy (strings compared ignoring case and
// whitespace, also inside arrays and objects), any, optional, any_of, on
// top-level arguments and on nested values named by JSON-Pointer keys
// ("/body/mode", "/flights/0/date"); calls are paired one to one in any
// order, extra arguments or nested members fail.
const promptfooCallCheck = promptfooCalls + ` const canon = (x, f) => typeof x === 'string' && f ? x.toLowerCase().replace(/\s+/g, '') : Array.isArray(x) ? x.map((v) => canon(v, f)) : (x && typeof x === 'object') ? Object.keys(x).sort().reduce((o, k) => { o[k] = canon(x[k], f); return o; }, {}) : x;
const eq = (a, b) => JSON.stringify(canon(a, false)) === JSON.stringify(canon(b, false));
const fuzzyEq = (a, b) => JSON.stringify(canon(a, true)) === JSON.stringify(canon(b, true));
const has = (o, k) => o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k);
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const esc = (t) => String(t).replace(/~/g, '~0').replace(/\//g, '~1');
const ptrOf = (path) => path.map((t) => '/' + esc(t)).join('');
const tokens = (k) => k.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
const below = (rules, path) => { const pre = ptrOf(path) + '/'; return Object.keys(rules).some((k) => k.startsWith(pre)); };
const nodeOk = (e, p, path, rules, fz) => { if (!below(rules, path)) return fz ? fuzzyEq(e, p) : eq(e, p); if (Array.isArray(e) && Array.isArray(p)) { for (let i = 0; i < Math.max(e.length, p.length); i++) if (!childOk(e, String(i), i < e.length, p, i < p.length, path.concat([String(i)]), rules, fz)) return false; return true; } if (isObj(e) && isObj(p)) { for (const k of new Set(Object.keys(e).concat(Object.keys(p)))) if (!childOk(e, k, has(e, k), p, has(p, k), path.concat([k]), rules, fz)) return false; return true; } return fz ? fuzzyEq(e, p) : eq(e, p); };
const childOk = (eo, k, hasE, po, hasP, path, rules, fz) => { const r = rules[ptrOf(path)]; if (r && r.match) fz = r.match === 'fuzzy'; if (!hasP) return !!(r && r.optional) || (!hasE && !r); if (r && r.match === 'any') return true; if (!hasE && !r) return false; if (hasE && nodeOk(eo[k], po[k], path, rules, fz)) return true; return !!r && (r.any_of || []).some((w) => fz ? fuzzyEq(w, po[k]) : eq(w, po[k])); };
const callOk = (e, p) => { if (!p || p.name !== e.tool || !isObj(p.args)) return false; const rules = {}; for (const k of Object.keys(e.arg_rules || {})) rules[k.startsWith('/') ? ptrOf(tokens(k)) : ptrOf([k])] = e.arg_rules[k]; const ea = e.args || {}; const keys = new Set(Object.keys(ea).concat(Object.keys(p.args))); for (const k of Object.keys(rules)) { const t = tokens(k); if (t.length === 1) keys.add(t[0]); } for (const k of keys) if (!childOk(ea, k, has(ea, k), p.args, has(p.args, k), [k], rules, false)) return false; return true; };
const listOk = (exp, got) => { if (exp.length !== got.length) return false; const used = new Array(got.length).fill(false); const pair = (i) => { if (i === exp.length) return true; for (let j = 0; j < got.length; j++) { if (!used[j] && callOk(exp[i], got[j])) { used[j] = true; if (pair(i + 1)) return true; used[j] = false; } } return false; }; return pair(0); };
const got = calls(output) || [];
const lists = [context.vars.expected_calls].concat(context.vars.acceptable || []);
const ok = lists.some((l) => listOk(l, got));
const names = (l, none) => l.length ? l.map((c) => c.tool || c.name).join(', ') : none;
return { pass: ok, score: ok ? 1 : 0, reason: ok ? 'tool calls match the gold answer' : 'expected ' + names(context.vars.expected_calls, 'no tool call') + ', got ' + names(got, 'no tool call') };`
