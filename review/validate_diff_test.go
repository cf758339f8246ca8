package review

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/toolschema"
	"github.com/goldtrace/goldtrace/trace"
)

// agreement compares toolschema with the reference on one schema: whether
// each can use it, and then on every value, the verdict and the problems
// the label screen would show.
type agreement struct {
	t      testing.TB
	params []byte
	v      *ArgsValidator
	ref    func(inst any) (bool, []toolschema.Error)
	words  bool // compare the problems' words too, not only the verdict
	valid  int
	failed int
}

// newAgreement returns nil when the schema is outside toolschema's subset
// or neither validator can use it.
func newAgreement(t testing.TB, source string, params []byte) *agreement {
	t.Helper()
	doc, err := decodeJSON(params)
	if err != nil || outsideSubset(doc) != "" {
		return nil
	}
	v := NewArgsValidator(trace.Tool{Name: "t", Parameters: params})
	refSchema, refErr := refCompile(doc)
	switch {
	case v.schema == nil && refErr != nil:
		return nil
	case v.schema == nil && strings.Contains(v.compiled.Error(), "loops back"):
		return nil // the reference reports a $ref cycle only on values that reach it
	case v.schema == nil:
		t.Errorf("%s: toolschema refuses a schema the reference uses: %v\n%s", source, v.compiled, params)
		return nil
	case refErr != nil:
		t.Errorf("%s: toolschema uses a schema the reference refuses: %v\n%s", source, refErr, params)
		return nil
	}
	return &agreement{t: t, params: params, v: v, words: !strings.Contains(string(params), `"propertyNames"`),
		ref: func(inst any) (bool, []toolschema.Error) { return refErrors(refSchema, inst) }}
}

// check compares the validators on one argument value.
func (a *agreement) check(inst any) {
	a.t.Helper()
	got, err := a.v.schema.Validate(inst)
	if err != nil {
		return // beyond toolschema's bounds: checked as without a schema
	}
	refValid, refErrs := a.ref(inst)
	args, _ := json.Marshal(inst)
	if refValid {
		a.valid++
	} else {
		a.failed++
	}
	if refValid != (len(got) == 0) {
		a.t.Errorf("schema %s\nargs %s\nreference valid=%v, toolschema errors %+v (reference %+v)", a.params, args, refValid, got, refErrs)
		return
	}
	if _, ok := inst.(map[string]any); !ok || !a.words {
		return
	}
	want, have := a.v.problems(inst, refErrs), a.v.problems(inst, got)
	if strings.Contains(string(a.params), `"dependencies"`) {
		// The reference applies dependencies in map order: the
		// problems of one field may come in any order.
		byText := func(a, b Problem) int { return strings.Compare(a.Field+"\x00"+a.Message, b.Field+"\x00"+b.Message) }
		slices.SortFunc(want, byText)
		slices.SortFunc(have, byText)
	}
	if !reflect.DeepEqual(want, have) {
		a.t.Errorf("schema %s\nargs %s\nproblems %q\nreference %q", a.params, args, messages(have), messages(want))
	}
}

// TestArgsAgainstReference: on every tool schema in the real data, and
// values generated from each (valid ones, and each mutated where it can
// go wrong) and the arguments real calls gave, toolschema and the
// reference agree on the verdict and the label screen shows the same
// problems.
func TestArgsAgainstReference(t *testing.T) {
	corpus := toolCorpus(t)
	perSchema := 12
	if os.Getenv("GOLDTRACE_SCHEMA_DIFF_FULL") != "" {
		perSchema = 200
	}
	rng := rand.New(rand.NewPCG(30, 1))
	used, valid, failed := 0, 0, 0
	for _, ct := range corpus {
		a := newAgreement(t, ct.source, ct.params)
		if a == nil {
			continue
		}
		used++
		for _, raw := range ct.args {
			if inst, err := decodeJSON(raw); err == nil {
				a.check(inst)
			}
		}
		doc, _ := decodeJSON(ct.params)
		for _, inst := range argumentValues(doc, rng, perSchema) {
			a.check(inst)
		}
		valid += a.valid
		failed += a.failed
	}
	t.Logf("%d of %d schemas compared, %d valid and %d invalid values", used, len(corpus), valid, failed)
	if used < 1000 || valid < 5000 || failed < 5000 {
		t.Errorf("too little compared: %d schemas, %d valid and %d invalid values", used, valid, failed)
	}
}

// argumentValues are values for the schema: generated to fit it, then each
// changed in one place (a member dropped or added, a value of another type,
// an edge number, an altered text, a list emptied or repeated).
func argumentValues(doc any, rng *rand.Rand, n int) []any {
	var out []any
	for range max(1, n/8) {
		base := generate(doc, doc, rng, 0)
		out = append(out, base)
		for range 7 {
			out = append(out, mutate(cloneJSON(base), rng))
		}
	}
	return out
}

// generate builds a value meant to fit schema s (within document root).
func generate(s, root any, rng *rand.Rand, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > 8 {
		return "x"
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
		if target, ok := pointerTarget(root, ref[1:]); ok {
			return generate(target, root, rng, depth+1)
		}
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[rng.IntN(len(e))]
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := m[kw].([]any); ok && len(alts) > 0 {
			return generate(alts[rng.IntN(len(alts))], root, rng, depth+1)
		}
	}
	ty, _ := m["type"].(string)
	if list, ok := m["type"].([]any); ok && len(list) > 0 {
		ty, _ = list[rng.IntN(len(list))].(string)
	}
	if ty == "" {
		switch {
		case m["properties"] != nil:
			ty = "object"
		case m["items"] != nil:
			ty = "array"
		default:
			ty = "string"
		}
	}
	switch ty {
	case "object", "dict":
		obj := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		req, _ := m["required"].([]any)
		for _, k := range sortedKeysOf(props) {
			if slices.Contains(req, any(k)) || rng.IntN(2) == 0 {
				obj[k] = generate(props[k], root, rng, depth+1)
			}
		}
		return obj
	case "array", "tuple":
		count := 1 + rng.IntN(2)
		if minItems, err := strconv.Atoi(fmt.Sprint(m["minItems"])); err == nil && minItems <= 5 {
			count = max(count, minItems)
		}
		if tuple, ok := m["items"].([]any); ok {
			arr := make([]any, len(tuple))
			for i, e := range tuple {
				arr[i] = generate(e, root, rng, depth+1)
			}
			return arr
		}
		arr := make([]any, count)
		for i := range arr {
			arr[i] = generate(m["items"], root, rng, depth+1)
		}
		return arr
	case "integer":
		if v, ok := m["minimum"].(json.Number); ok {
			return v
		}
		return json.Number(strconv.Itoa(rng.IntN(100)))
	case "number", "float":
		return json.Number("2.5")
	case "boolean":
		return rng.IntN(2) == 0
	case "null":
		return nil
	}
	switch m["format"] {
	case "date":
		return "2024-05-01"
	case "date-time":
		return "2024-05-01T10:00:00Z"
	}
	if ex, ok := m["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	return []string{"abc", "ORD-12345", "New York, NY", "2024-05-01"}[rng.IntN(4)]
}

// mutate changes v in one place.
func mutate(v any, rng *rand.Rand) any {
	var paths [][]string
	var walk func(x any, p []string)
	walk = func(x any, p []string) {
		paths = append(paths, slices.Clone(p))
		switch y := x.(type) {
		case map[string]any:
			for _, k := range sortedKeysOf(y) {
				walk(y[k], append(p, k))
			}
		case []any:
			for i, e := range y {
				walk(e, append(p, strconv.Itoa(i)))
			}
		}
	}
	walk(v, nil)
	p := paths[rng.IntN(len(paths))]
	replacements := []any{nil, true, "", "zzz", json.Number("0"), json.Number("-1"), json.Number("2.5"),
		json.Number("1e9"), []any{}, map[string]any{}}
	return setAt(v, p, func(old any) (any, bool) {
		switch rng.IntN(4) {
		case 0:
			return nil, false // drop it
		case 1:
			switch o := old.(type) {
			case map[string]any:
				o["zzz_extra"] = json.Number("1")
				return o, true
			case []any:
				if len(o) > 0 {
					return append(o, o[0]), true
				}
			case string:
				return o + "x", true
			case json.Number:
				return json.Number("-" + strings.TrimPrefix(string(o), "-")), true
			}
		}
		return replacements[rng.IntN(len(replacements))], true
	})
}

// setAt replaces (or, when f says so, removes) the value at path p.
func setAt(v any, p []string, f func(any) (any, bool)) any {
	if len(p) == 0 {
		nv, keep := f(v)
		if !keep {
			return map[string]any{}
		}
		return nv
	}
	switch x := v.(type) {
	case map[string]any:
		if len(p) == 1 {
			if nv, keep := f(x[p[0]]); keep {
				x[p[0]] = nv
			} else {
				delete(x, p[0])
			}
			return x
		}
		x[p[0]] = setAt(x[p[0]], p[1:], f)
	case []any:
		i, _ := strconv.Atoi(p[0])
		if len(p) == 1 {
			if nv, keep := f(x[i]); keep {
				x[i] = nv
				return x
			}
			return slices.Delete(x, i, i+1)
		}
		x[i] = setAt(x[i], p[1:], f)
	}
	return v
}

func pointerTarget(root any, ptr string) (any, bool) {
	v := root
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return v, true
}

func sortedKeysOf(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func cloneJSON(v any) any {
	b, _ := json.Marshal(v)
	out, _ := decodeJSON(b)
	return out
}

// FuzzArgsAgainstReference: for any schema and arguments, toolschema and
// the reference agree on whether the schema is usable and on the verdict,
// and the label screen shows the same problems (outside the constructs
// toolschema leaves out on purpose).
func FuzzArgsAgainstReference(f *testing.F) {
	for _, tool := range []trace.Tool{shipTool, idTool, boundsTool, strictShipTool, openTool} {
		f.Add(string(tool.Parameters), `{"order_id":"ORD-12345","carrier":"ups","items":[{"sku":"a"}],"quantity":3}`)
	}
	f.Add(`{"type":"object","properties":{"a":{"anyOf":[{"type":"string","minLength":2},{"type":"integer","multipleOf":3}]}},"required":["a"]}`, `{"a":4}`)
	f.Add(`{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"},"v":{"const":1}}}},"$ref":"#/$defs/n"}`, `{"next":{"next":{"v":2}}}`)
	f.Add(`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"d":{"type":"string","format":"date"},"t":{"items":[{"type":"string"}],"additionalItems":false}}}`, `{"d":"2024-02-30","t":["a",1]}`)
	f.Add(`{"properties":{"l":{"type":"array","uniqueItems":true,"contains":{"type":"null"},"maxContains":1,"prefixItems":[{"enum":[1,"a",null]}],"items":{"not":{"type":"boolean"}}}},"dependentRequired":{"a":["b"]},"oneOf":[{"minProperties":1},{"maxProperties":0}]}`, `{"l":[1,null,1.0],"a":0}`)
	f.Add(`{"patternProperties":{"^x_":{"type":"number","exclusiveMaximum":10}},"additionalProperties":{"type":"string","maxLength":3},"if":{"required":["k"]},"then":{"properties":{"k":{"minimum":-2.5}}},"else":false}`, `{"x_a":10,"b":"long","k":-3}`)
	// The reference makes every number an exact fraction: 1e999999999
	// takes it minutes (toolschema bounds the exponent).
	hugeExponent := regexp.MustCompile(`[eE][-+]?0*[0-9]{4,}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		if hugeExponent.MatchString(schema) || hugeExponent.MatchString(args) {
			return
		}
		a := newAgreement(t, "fuzz", []byte(schema))
		if a == nil {
			return
		}
		inst, err := decodeJSON([]byte(args))
		if err != nil {
			return
		}
		a.check(inst)
	})
}
