package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// EncodeRecord returns the canonical line of r (without the newline): r is
// normalised first, so equal gold gives equal bytes on any machine. A
// record with a Catalogue (gold.RecordFormat2) gets the one its available
// tools make; without one (gold.RecordFormat1) it gets none.
func EncodeRecord(r gold.Record) ([]byte, error) {
	msgs, err := normalizeMessages(r.Input.Messages)
	if err != nil {
		return nil, fmt.Errorf("record %s: input messages: %w", r.ID, err)
	}
	r.Input.Messages = msgs
	tools, err := normalizeTools(r.AvailableTools)
	if err != nil {
		return nil, fmt.Errorf("record %s: available tools: %w", r.ID, err)
	}
	r.AvailableTools = tools
	if r.Catalogue != nil {
		// RecordFormat2: the versions of the tools the record offers.
		if r.Catalogue, err = gold.CatalogueOf(tools); err != nil {
			return nil, fmt.Errorf("record %s: catalogue: %w", r.ID, err)
		}
	}
	if err := normalizeAnswer(&r, false); err != nil {
		return nil, fmt.Errorf("record %s: %w", r.ID, err)
	}
	return marshalLine(&r)
}

// marshalLine encodes an already normalised record.
func marshalLine(r *gold.Record) ([]byte, error) {
	return gold.NewEncoder().AppendRecord(nil, r)
}

// canonicalOr canonicalises raw, using empty when raw is absent.
func canonicalOr(raw json.RawMessage, empty string) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(empty), nil
	}
	return canonical(raw)
}

// normalizeMessages returns msgs with every tool call's arguments canonical
// and a non-nil slice. The input is not modified.
func normalizeMessages(msgs []trace.Message) ([]trace.Message, error) {
	out := make([]trace.Message, len(msgs))
	copy(out, msgs)
	for i := range out {
		if len(out[i].ToolCalls) == 0 {
			out[i].ToolCalls = nil
			continue
		}
		calls := make([]trace.Call, len(out[i].ToolCalls))
		for j, c := range out[i].ToolCalls {
			args, err := canonicalOr(c.Arguments, `{}`)
			if err != nil {
				return nil, fmt.Errorf("message %d call %d arguments: %w", i, j, err)
			}
			c.Arguments = args
			calls[j] = c
		}
		out[i].ToolCalls = calls
	}
	return out, nil
}

// normalizeTools returns tools with canonical parameter schemas.
func normalizeTools(tools []trace.Tool) ([]trace.Tool, error) {
	out := make([]trace.Tool, len(tools))
	for i, t := range tools {
		if len(bytes.TrimSpace(t.Parameters)) > 0 {
			p, err := canonical(t.Parameters)
			if err != nil {
				return nil, fmt.Errorf("tool %q parameters: %w", t.Name, err)
			}
			t.Parameters = p
		} else {
			t.Parameters = nil
		}
		out[i] = t
	}
	return out, nil
}

// normalizeAnswer canonicalises everything of r except the input messages
// and tools (which a Builder shares between the items of one trace), and the
// observed calls when they come from already normalised messages.
func normalizeAnswer(r *gold.Record, observedCanonical bool) error {
	if r.Input.Messages == nil {
		r.Input.Messages = []trace.Message{}
	}
	if r.AvailableTools == nil {
		r.AvailableTools = []trace.Tool{}
	}
	if r.Input.Context.Metadata == nil {
		r.Input.Context.Metadata = map[string]string{}
	}
	calls, err := normalizeCalls(r.ExpectedCalls)
	if err != nil {
		return fmt.Errorf("expected_calls: %w", err)
	}
	r.ExpectedCalls = calls
	if len(calls) == 0 {
		r.ExpectedTool, r.ExpectedArgs = nil, nil
	} else {
		tool := calls[0].Tool
		r.ExpectedTool, r.ExpectedArgs = &tool, calls[0].Args
	}
	acc := make([][]gold.ExpectedCall, len(r.Acceptable))
	for i, alt := range r.Acceptable {
		if acc[i], err = normalizeCalls(alt); err != nil {
			return fmt.Errorf("acceptable[%d]: %w", i, err)
		}
	}
	r.Acceptable = acc
	obs := make([]gold.ObservedCall, len(r.ObservedCalls))
	for i, c := range r.ObservedCalls {
		if !observedCanonical {
			if c.Args, err = canonicalOr(c.Args, `{}`); err != nil {
				return fmt.Errorf("observed_calls[%d].args: %w", i, err)
			}
		}
		obs[i] = c
	}
	r.ObservedCalls = obs
	if r.Provenance.Reviewers == nil {
		r.Provenance.Reviewers = []string{}
	}
	if r.Provenance.Adjudicator != nil && *r.Provenance.Adjudicator == "" {
		r.Provenance.Adjudicator = nil
	}
	return nil
}

// normalizeCalls canonicalises expected calls: object arguments, and one
// rule per argument with its match mode spelled out.
func normalizeCalls(calls []gold.ExpectedCall) ([]gold.ExpectedCall, error) {
	out := make([]gold.ExpectedCall, len(calls))
	for i, c := range calls {
		if c.Tool == "" {
			return nil, fmt.Errorf("call %d: tool name is empty", i)
		}
		args, err := canonicalOr(c.Args, `{}`)
		if err != nil {
			return nil, fmt.Errorf("call %d (%s) args: %w", i, c.Tool, err)
		}
		var fields map[string]json.RawMessage
		if len(args) == 0 || args[0] != '{' || json.Unmarshal(args, &fields) != nil {
			return nil, fmt.Errorf("call %d (%s) args: must be a JSON object, got %s", i, c.Tool, clip(string(args)))
		}
		rules := make(map[string]gold.ArgRule, len(fields)+len(c.ArgRules))
		for k := range fields {
			rules[k] = gold.ArgRule{Match: gold.MatchExact}
		}
		for k, r := range c.ArgRules {
			if gold.IsPointer(k) {
				tokens, err := gold.ParsePointer(k)
				if err != nil {
					return nil, fmt.Errorf("call %d (%s) arg_rules: %w", i, c.Tool, err)
				}
				k = gold.RuleKey(tokens) // "/name" is written as the argument name
			}
			if r.Match == "" {
				r.Match = gold.MatchExact
			}
			switch r.Match {
			case gold.MatchExact, gold.MatchFuzzy, gold.MatchAny:
			default:
				return nil, fmt.Errorf("call %d (%s) arg_rules.%s: match %q is not exact, fuzzy or any", i, c.Tool, k, r.Match)
			}
			if len(r.AnyOf) == 0 {
				r.AnyOf = nil
			} else {
				vals := make([]json.RawMessage, len(r.AnyOf))
				for j, v := range r.AnyOf {
					if vals[j], err = canonical(v); err != nil {
						return nil, fmt.Errorf("call %d (%s) arg_rules.%s.any_of[%d]: %w", i, c.Tool, k, j, err)
					}
				}
				r.AnyOf = vals
			}
			rules[k] = r
		}
		if len(rules) == 0 {
			rules = nil
		}
		out[i] = gold.ExpectedCall{Tool: c.Tool, Args: args, ArgRules: rules}
		if err := c.CheckArgRules(); err != nil {
			return nil, fmt.Errorf("call %d: %w", i, err)
		}
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// itemIDPattern is the shape of trace.ItemID.
var itemIDPattern = regexp.MustCompile(`^it_[0-9a-f]{16}$`)

// requiredKeys lists, per object of a gold record line, the keys that must be
// present.
var requiredKeys = map[string][]string{
	"":                 {"id", "input", "available_tools", "expected_tool", "expected_args", "expected_calls", "acceptable", "rationale", "observed_calls", "provenance"},
	"input":            {"messages", "context"},
	"input.context":    {"trace_id", "turn", "metadata"},
	"provenance":       {"status", "reviewers", "adjudicator", "guide_version"},
	"expected_calls[]": {"tool", "args"},
}

// DecodeRecord parses one line strictly: unknown fields and missing required
// fields are errors, the record must be consistent (ValidateRecord), and the
// line must be exactly the canonical encoding of the record it holds.
func DecodeRecord(line []byte) (gold.Record, error) {
	var r gold.Record
	if err := checkKeys(line); err != nil {
		return r, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("not a gold record: %w", err)
	}
	if dec.More() {
		return r, errors.New("more than one JSON value on the line")
	}
	if err := ValidateRecord(r); err != nil {
		return r, err
	}
	canon, err := EncodeRecord(r)
	if err != nil {
		return r, err
	}
	if !bytes.Equal(canon, line) {
		return r, fmt.Errorf("record %s is not in canonical form (%s)", r.ID, firstDifference(line, canon))
	}
	return r, nil
}

// checkKeys reports the first required key missing from line.
func checkKeys(line []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if err := missing(top, ""); err != nil {
		return err
	}
	for _, path := range []string{"input", "provenance"} {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(top[path], &obj); err != nil || obj == nil {
			return fmt.Errorf("%s: not a JSON object", path)
		}
		if err := missing(obj, path); err != nil {
			return err
		}
		if path == "input" {
			var ctx map[string]json.RawMessage
			if err := json.Unmarshal(obj["context"], &ctx); err != nil || ctx == nil {
				return errors.New("input.context: not a JSON object")
			}
			if err := missing(ctx, "input.context"); err != nil {
				return err
			}
		}
	}
	var calls []map[string]json.RawMessage
	if err := json.Unmarshal(top["expected_calls"], &calls); err != nil {
		return fmt.Errorf("expected_calls: %w", err)
	}
	for i, c := range calls {
		for _, k := range requiredKeys["expected_calls[]"] {
			if _, ok := c[k]; !ok {
				return fmt.Errorf("expected_calls[%d]: missing field %q", i, k)
			}
		}
	}
	return nil
}

func missing(obj map[string]json.RawMessage, path string) error {
	for _, k := range requiredKeys[path] {
		if _, ok := obj[k]; !ok {
			if path == "" {
				return fmt.Errorf("missing field %q", k)
			}
			return fmt.Errorf("%s: missing field %q", path, k)
		}
	}
	return nil
}

// ValidateRecord checks what the JSON types alone do not: the id's shape, the
// gold status, and that expected_tool/expected_args agree with expected_calls.
func ValidateRecord(r gold.Record) error {
	if !itemIDPattern.MatchString(r.ID) {
		return fmt.Errorf("id %q is not an item id (it_ + 16 hex digits)", r.ID)
	}
	switch r.Provenance.Status {
	case gold.StatusAgreed:
		if r.Provenance.Adjudicator != nil {
			return fmt.Errorf("record %s: agreed gold has an adjudicator", r.ID)
		}
	case gold.StatusAdjudicated:
	default:
		return fmt.Errorf("record %s: provenance.status %q is not agreed or adjudicated", r.ID, r.Provenance.Status)
	}
	if len(r.ExpectedCalls) == 0 {
		if r.ExpectedTool != nil {
			return fmt.Errorf("record %s: expected_tool %q but expected_calls is empty", r.ID, *r.ExpectedTool)
		}
		if len(r.ExpectedArgs) > 0 && string(r.ExpectedArgs) != "null" {
			return fmt.Errorf("record %s: expected_args set but expected_calls is empty", r.ID)
		}
		return nil
	}
	if r.ExpectedTool == nil || *r.ExpectedTool != r.ExpectedCalls[0].Tool {
		return fmt.Errorf("record %s: expected_tool does not name the first expected call (%s)", r.ID, r.ExpectedCalls[0].Tool)
	}
	a, errA := canonicalOr(r.ExpectedArgs, "null")
	b, errB := canonicalOr(r.ExpectedCalls[0].Args, `{}`)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		return fmt.Errorf("record %s: expected_args differ from the first expected call's args", r.ID)
	}
	return nil
}

// firstDifference describes where two encodings part.
func firstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("byte %d: found %q, canonical %q", i+1, window(got, i), window(want, i))
}

func window(b []byte, i int) string {
	end := i + 16
	if end > len(b) {
		end = len(b)
	}
	if i > len(b) {
		return ""
	}
	return string(b[i:end])
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
