package review

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// TestRandomSchemasAgainstReference: schemas built at random from every
// keyword toolschema supports, each keyword sometimes with a value the
// metaschema refuses, and random values: toolschema and the reference
// agree on which schemas are usable, on every verdict, and the label
// screen shows the same problems. Byte-level fuzzing rarely builds a
// schema; this reaches the keywords' combinations.
func TestRandomSchemasAgainstReference(t *testing.T) {
	// GOLDTRACE_SCHEMA_DIFF_FULL=1 compares 40,000 schemas;
	// GOLDTRACE_SCHEMA_DIFF_SEED=n draws others.
	schemas, values := 1500, 24
	if os.Getenv("GOLDTRACE_SCHEMA_DIFF_FULL") != "" {
		schemas, values = 40000, 40
	}
	seed := uint64(2)
	if s, err := strconv.ParseUint(os.Getenv("GOLDTRACE_SCHEMA_DIFF_SEED"), 10, 64); err == nil {
		seed = s
	}
	rng := rand.New(rand.NewPCG(30, seed))
	used, valid, failed := 0, 0, 0
	for range schemas {
		doc := randomSchema(rng, 0)
		if rng.IntN(5) == 0 {
			if m, ok := doc.(map[string]any); ok {
				m["$schema"] = "http://json-schema.org/draft-07/schema#"
			}
		}
		params, _ := json.Marshal(doc)
		a := newAgreement(t, "random", params)
		if t.Failed() {
			return
		}
		if a == nil {
			continue
		}
		used++
		for range values {
			a.check(randomValue(rng, 0, true))
		}
		valid += a.valid
		failed += a.failed
		if t.Failed() {
			return
		}
	}
	t.Logf("%d of %d random schemas usable, %d valid and %d invalid values", used, schemas, valid, failed)
	if used < schemas/4 || valid < schemas || failed < schemas {
		t.Errorf("too little compared: %d schemas, %d valid and %d invalid values", used, valid, failed)
	}
}

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

func num(s string) json.Number { return json.Number(s) }

// randomSchema builds a schema from toolschema's keywords.
func randomSchema(rng *rand.Rand, depth int) any {
	if depth > 3 || rng.IntN(12) == 0 {
		return pick[any](rng, true, false, map[string]any{})
	}
	s := map[string]any{}
	sub := func() any { return randomSchema(rng, depth+1) }
	subs := func() any {
		if rng.IntN(15) == 0 {
			return []any{}
		}
		out := []any{sub()}
		if rng.IntN(2) == 0 {
			out = append(out, sub())
		}
		return out
	}
	names := func() any {
		out := []any{}
		for _, n := range []string{"a", "b", "c"} {
			if rng.IntN(2) == 0 {
				out = append(out, n)
			}
		}
		if rng.IntN(15) == 0 {
			out = append(out, pick[any](rng, "a", num("1")))
		}
		return out
	}
	count := func() any {
		return pick[any](rng, num("0"), num("1"), num("2"), num("3"), num("1.0"), num("-1"), num("1.5"), "2")
	}
	bound := func() any {
		return pick[any](rng, num("0"), num("1"), num("3"), num("10"), num("-2.5"), num("1.5"), num("1e2"), true, "1")
	}
	scalars := func() any {
		out := []any{}
		for range rng.IntN(4) {
			out = append(out, randomValue(rng, 2, false))
		}
		return out
	}
	keywords := []func(){
		func() {
			s["type"] = pick[any](rng, "string", "integer", "number", "object", "array", "boolean", "null",
				[]any{"string", "null"}, []any{"integer", "string"}, []any{"number", "integer"}, "float", []any{}, []any{"string", "string"})
		},
		func() { s["enum"] = scalars() },
		func() { s["const"] = randomValue(rng, 1, false) },
		func() {
			p := map[string]any{}
			for _, n := range []string{"a", "b", "c"} {
				if rng.IntN(2) == 0 {
					p[n] = sub()
				}
			}
			s["properties"] = p
		},
		func() { s["required"] = names() },
		func() { s["additionalProperties"] = sub() },
		func() { s["patternProperties"] = map[string]any{pick(rng, "^x_", "a", "(", "^[bc]$"): sub()} },
		func() { s["propertyNames"] = map[string]any{"maxLength": num("1")} },
		func() { s["minProperties"] = count() },
		func() { s["maxProperties"] = count() },
		func() { s["dependentRequired"] = map[string]any{"a": names()} },
		func() { s["dependentSchemas"] = map[string]any{"b": sub()} },
		func() { s["dependencies"] = map[string]any{"c": pick(rng, names(), sub())} },
		func() {
			if rng.IntN(3) == 0 {
				s["items"] = []any{sub(), sub()}
			} else {
				s["items"] = sub()
			}
		},
		func() { s["prefixItems"] = subs() },
		func() { s["additionalItems"] = sub() },
		func() { s["minItems"] = count() },
		func() { s["maxItems"] = count() },
		func() { s["uniqueItems"] = pick[any](rng, true, false, "yes") },
		func() { s["contains"] = sub() },
		func() { s["minContains"] = count() },
		func() { s["maxContains"] = count() },
		func() { s["minLength"] = count() },
		func() { s["maxLength"] = count() },
		func() { s["pattern"] = pick[any](rng, "^a", "b$", "^[a-c]+$", "(", "(?=a)", `\d`, num("1")) },
		func() {
			s["format"] = pick[any](rng, "date", "date-time", "time", "ipv4", "ipv6", "uuid", "regex", num("1"))
		},
		func() { s["minimum"] = bound() },
		func() { s["maximum"] = bound() },
		func() { s["exclusiveMinimum"] = bound() },
		func() { s["exclusiveMaximum"] = bound() },
		func() { s["multipleOf"] = pick[any](rng, num("0.5"), num("3"), num("0"), num("-1"), num("1e-2")) },
		func() { s["anyOf"] = subs() },
		func() { s["oneOf"] = subs() },
		func() { s["allOf"] = subs() },
		func() { s["not"] = sub() },
		func() { s["if"] = sub() },
		func() { s["then"] = sub() },
		func() { s["else"] = sub() },
		func() {
			s["$defs"] = map[string]any{"d": sub()}
			s["$ref"] = pick(rng, "#/$defs/d", "#/$defs/missing", "#", "other.json", "#/properties/a", "#/$defs/d/properties/a")
		},
		func() { s["definitions"] = map[string]any{"e": sub()}; s["$ref"] = "#/definitions/e" },
		func() { s["title"] = pick[any](rng, "T", num("1")) },
		func() { s["description"] = pick[any](rng, "D", nil) },
		func() { s["default"] = randomValue(rng, 1, false) },
		func() { s["x-custom"] = true; s["optional"] = true },
	}
	for range 1 + rng.IntN(4) {
		pick(rng, keywords...)()
	}
	return s
}

// randomValue is a JSON value near the edges the keywords test; an object
// at the top when obj.
func randomValue(rng *rand.Rand, depth int, obj bool) any {
	kind := rng.IntN(8)
	if obj {
		kind = 7
	}
	if depth > 3 && kind >= 6 {
		kind = 0
	}
	switch kind {
	case 0:
		return pick[any](rng, "", "a", "ab", "abc", "x_", "2024-05-01", "2024-02-30", "10:00:00Z", "2024-05-01T10:00:00Z",
			"127.0.0.1", "::1", "123e4567-e89b-12d3-a456-426614174000", "(", "é")
	case 1, 2:
		return pick[any](rng, num("0"), num("1"), num("1.0"), num("1.5"), num("-2.5"), num("3"), num("10"), num("1e2"), num("0.5"), num("-1"))
	case 3:
		return pick[any](rng, true, false)
	case 4:
		return nil
	case 6:
		arr := []any{}
		for range rng.IntN(4) {
			arr = append(arr, randomValue(rng, depth+1, false))
		}
		if len(arr) > 0 && rng.IntN(4) == 0 {
			arr = append(arr, arr[0])
		}
		return arr
	default:
		m := map[string]any{}
		for i := range rng.IntN(4) {
			m[pick(rng, "a", "b", "c", "x_"+strconv.Itoa(i), "dd")] = randomValue(rng, depth+1, false)
		}
		return m
	}
}
