package dataset

import (
	"encoding/json"
	"io"
	"strconv"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// The current OpenAI Evals API reads a run's data source as JSONL rows
// {"item": {…}} (NAME-vN.openai-evals.items.jsonl) and checks them against
// the item_schema of the eval's custom data source config
// (NAME-vN.openai-evals.eval.json holds the whole create-eval request). An
// item: id, input (chat messages, OpenAI shape, for an item_reference
// "item.input" run), tools (OpenAI shape), ideal (each correct call list as
// canonical JSON text), expected_calls (the expected calls with their
// arg_rules, as JSON text: one schema for every item), metadata.

// openAIEvalItem is one item of the current Evals API shape.
type openAIEvalItem struct {
	ID            string              `json:"id"`
	Input         []trace.ChatMessage `json:"input"`
	Tools         []trace.ChatTool    `json:"tools"`
	Ideal         []string            `json:"ideal"`
	ExpectedCalls string              `json:"expected_calls"`
	Metadata      rowMetadata         `json:"metadata"`
}

func writeOpenAIEvalItems(w io.Writer, content io.Reader, _ *Manifest) error {
	lines := newJSONLines(w)
	err := eachRecord(content, func(r gold.Record) error {
		ideal, err := idealLists(r)
		if err != nil {
			return err
		}
		alts, err := jsonText(struct {
			Expected   []gold.ExpectedCall   `json:"expected"`
			Acceptable [][]gold.ExpectedCall `json:"acceptable"`
		}{nonNilCalls(r.ExpectedCalls), nonNilAlts(r.Acceptable)})
		if err != nil {
			return err
		}
		return lines.write(struct {
			Item openAIEvalItem `json:"item"`
		}{openAIEvalItem{r.ID, trace.ChatMessages(r.Input.Messages), trace.ChatTools(r.AvailableTools), ideal, alts, metadataOf(r)}})
	})
	if err != nil {
		return err
	}
	return lines.flush()
}

// OpenAIEvalItemSchema is the JSON Schema of one item (the data source
// config's item_schema).
const OpenAIEvalItemSchema = `{
    "type": "object",
    "properties": {
      "id": {"type": "string"},
      "input": {
        "type": "array",
        "items": {
          "type": "object",
          "properties": {
            "role": {"type": "string", "enum": ["system", "developer", "user", "assistant", "tool"]},
            "content": {"type": "string"},
            "name": {"type": "string"},
            "tool_call_id": {"type": "string"},
            "tool_calls": {"type": "array", "items": {"type": "object", "properties": {
              "id": {"type": "string"}, "type": {"const": "function"},
              "function": {"type": "object", "properties": {"name": {"type": "string"}, "arguments": {"type": "string"}}, "required": ["name", "arguments"]}
            }, "required": ["type", "function"]}}
          },
          "required": ["role", "content"]
        }
      },
      "tools": {"type": "array", "items": {"type": "object", "properties": {
        "type": {"const": "function"},
        "function": {"type": "object", "properties": {"name": {"type": "string"}, "description": {"type": "string"}, "parameters": {"type": "object"}}, "required": ["name"]}
      }, "required": ["type", "function"]}},
      "ideal": {"type": "array", "items": {"type": "string"}, "minItems": 1},
      "expected_calls": {"type": "string"},
      "metadata": {"type": "object", "properties": {
        "id": {"type": "string"}, "trace_id": {"type": "string"}, "turn": {"type": "integer"},
        "trace_metadata": {"type": "object", "additionalProperties": {"type": "string"}},
        "status": {"type": "string"}, "guide_version": {"type": "string"}
      }}
    },
    "required": ["id", "input", "tools", "ideal", "expected_calls", "metadata"]
  }`

// openAIEvalGrader is the python grader of the eval: 1 when the sample's
// tool calls (sample["output_tools"]) satisfy the expected calls or an
// acceptable list under their arg_rules (exact, fuzzy, any, optional,
// any_of; a JSON-pointer key applies its rule to that nested value and the
// value around it is compared member by member), calls paired one to one in
// any order; else 0. It does not know the tool schemas' defaults, so an
// argument passed with its default value fails here and passes in goldtrace
// score.
const openAIEvalGrader = `import json, re

def _canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))

def _squash(v):
    if isinstance(v, str):
        return re.sub(r"\s+", "", v).casefold()
    if isinstance(v, list):
        return [_squash(x) for x in v]
    if isinstance(v, dict):
        return {k: _squash(x) for k, x in v.items()}
    return v

def _esc(key):
    return key.replace("~", "~0").replace("/", "~1")

def _same(a, b, fuzzy):
    if fuzzy:
        a, b = _squash(a), _squash(b)
    return _canon(a) == _canon(b)

def _match(gold, has_gold, got, has_got, ptr, rules):
    rule = rules.get(ptr, {})
    if not has_got:
        return bool(rule.get("optional"))
    mode = rule.get("match", "exact")
    if mode == "any":
        return True
    accepted = ([gold] if has_gold else []) + rule.get("any_of", [])
    if any(_same(v, got, mode == "fuzzy") for v in accepted):
        return True
    if not has_gold or not any(k.startswith(ptr + "/") for k in rules):
        return False
    # Rules below this value: compare it member by member.
    if isinstance(gold, dict) and isinstance(got, dict):
        keys = set(gold)
        for k in rules:
            rest = k[len(ptr) + 1:] if k.startswith(ptr + "/") else None
            if rest is not None and "/" not in rest:
                keys.add(rest.replace("~1", "/").replace("~0", "~"))
        if any(k not in keys for k in got):
            return False
        return all(_match(gold.get(k), k in gold, got.get(k), k in got, ptr + "/" + _esc(k), rules) for k in keys)
    if isinstance(gold, list) and isinstance(got, list) and len(gold) == len(got):
        return all(_match(g, True, v, True, ptr + "/" + str(i), rules) for i, (g, v) in enumerate(zip(gold, got)))
    return False

def _call_ok(exp, got):
    if got.get("name") != exp["tool"]:
        return False
    try:
        args = json.loads(got.get("arguments") or "{}")
    except ValueError:
        return False
    if not isinstance(args, dict):
        return False
    rules = {(k if k.startswith("/") else "/" + _esc(k)): r for k, r in (exp.get("arg_rules") or {}).items()}
    return _match(exp.get("args") or {}, True, args, True, "", rules)

def _list_ok(exp, got):
    if len(exp) != len(got):
        return False
    used = [False] * len(got)
    def pair(i):
        if i == len(exp):
            return True
        for j, g in enumerate(got):
            if not used[j] and _call_ok(exp[i], g):
                used[j] = True
                if pair(i + 1):
                    return True
                used[j] = False
        return False
    return pair(0)

def grade(sample, item):
    got = []
    for c in sample.get("output_tools") or []:
        f = c.get("function", c)
        got.append({"name": f.get("name"), "arguments": f.get("arguments")})
    lists = json.loads(item["expected_calls"])
    return 1.0 if any(_list_ok(l, got) for l in [lists["expected"]] + lists["acceptable"]) else 0.0
`

// writeOpenAIEvalConfig writes the create-eval request for the items.
func writeOpenAIEvalConfig(w io.Writer, _ io.Reader, m *Manifest) error {
	name := "goldtrace dataset"
	if m != nil {
		name = m.Name + " v" + strconv.Itoa(m.Version)
	}
	req := struct {
		Name             string `json:"name"`
		DataSourceConfig struct {
			Type                string          `json:"type"`
			ItemSchema          json.RawMessage `json:"item_schema"`
			IncludeSampleSchema bool            `json:"include_sample_schema"`
		} `json:"data_source_config"`
		TestingCriteria []struct {
			Type      string  `json:"type"`
			Name      string  `json:"name"`
			Source    string  `json:"source"`
			PassThres float64 `json:"pass_threshold"`
		} `json:"testing_criteria"`
	}{Name: name}
	req.DataSourceConfig.Type = "custom"
	req.DataSourceConfig.ItemSchema = json.RawMessage(OpenAIEvalItemSchema)
	req.DataSourceConfig.IncludeSampleSchema = true
	req.TestingCriteria = append(req.TestingCriteria, struct {
		Type      string  `json:"type"`
		Name      string  `json:"name"`
		Source    string  `json:"source"`
		PassThres float64 `json:"pass_threshold"`
	}{"python", "tool calls match the gold", openAIEvalGrader, 1})
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(req)
}
