package toolschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// checkAnnotations applies the metaschema to the keywords that only
// annotate: a description that is not text makes the schema invalid.
func checkAnnotations(s map[string]any) error {
	for _, kw := range []string{"title", "description", "$comment", "format", "contentEncoding", "contentMediaType", "$id"} {
		if v, ok := s[kw]; ok {
			if _, ok := v.(string); !ok {
				return fmt.Errorf("%s must be a string", kw)
			}
		}
	}
	for _, kw := range []string{"readOnly", "writeOnly", "deprecated"} {
		if v, ok := s[kw]; ok {
			if _, ok := v.(bool); !ok {
				return fmt.Errorf("%s must be true or false", kw)
			}
		}
	}
	if v, ok := s["examples"]; ok {
		if _, ok := v.([]any); !ok {
			return errors.New("examples must be an array")
		}
	}
	return nil
}

// typeSet is a set of JSON types, as bits.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

// typeNames in the order messages list them.
var typeNames = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

func typeBit(name string) typeSet {
	if i := slices.Index(typeNames, name); i >= 0 {
		return 1 << i
	}
	return 0
}

func (t typeSet) names() []string {
	var out []string
	for i, n := range typeNames {
		if t&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

func parseTypes(v any) (typeSet, error) {
	switch v := v.(type) {
	case string:
		if b := typeBit(v); b != 0 {
			return b, nil
		}
		return 0, fmt.Errorf("type %q is not a JSON Schema type", v)
	case []any:
		if len(v) == 0 {
			return 0, errors.New("type must list at least one type")
		}
		var set typeSet
		for _, e := range v {
			s, _ := e.(string)
			b := typeBit(s)
			if b == 0 {
				return 0, fmt.Errorf("type %v is not a JSON Schema type", e)
			}
			if set&b != 0 {
				return 0, fmt.Errorf("type lists %q twice", s)
			}
			set |= b
		}
		return set, nil
	}
	return 0, errors.New("type must be a string or an array of strings")
}

func stringArray(v any, kw string) ([]string, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s must be an array of strings", kw)
	}
	out := make([]string, len(a))
	seen := make(map[string]bool, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s must be an array of strings", kw)
		}
		if seen[s] {
			return nil, fmt.Errorf("%s lists %q twice", kw, s)
		}
		seen[s] = true
		out[i] = s
	}
	return out, nil
}

// count reads a non-negative whole number keyword; absent is def.
func count(s map[string]any, kw string, def int) (int, error) {
	v, ok := s[kw]
	if !ok {
		return def, nil
	}
	r, ok := rat(v)
	if !ok || !r.IsInt() || r.Sign() < 0 {
		return 0, fmt.Errorf("%s must be a whole number, 0 or more", kw)
	}
	if !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 1 << 31, nil // larger than any argument value
	}
	return int(r.Num().Int64()), nil
}

// rat is a JSON number as an exact fraction.
func rat(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	r := numberRat(string(n))
	return r, r != nil
}

// regexp compiles a pattern with Go's regexp (RE2 syntax), wherever the
// metaschema reaches, applied or not, as the metaschema asserts the
// regex format.
func (c *compiler) regexp(src string) (*regexp.Regexp, error) {
	if c.patBytes += len(src); c.patBytes > MaxPatternBytes {
		return nil, fmt.Errorf("patterns longer than %d bytes in all", MaxPatternBytes)
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", src, err)
	}
	return re, nil
}

func typeOf(v any) typeSet {
	switch v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case json.Number, float64:
		return tNumber
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	}
	return 0
}

func isInteger(v any) bool {
	r := toRat(v)
	return r != nil && r.IsInt()
}

// maxExponent bounds the decimal exponent of a number made exact: 1e999999999
// would take gigabytes as a fraction. Beyond it a number counts as ±10^±400,
// which compares with any bound a tool would write as the number does.
const maxExponent = 400

func toRat(v any) *big.Rat {
	switch x := v.(type) {
	case json.Number:
		return numberRat(string(x))
	case float64:
		return new(big.Rat).SetFloat64(x)
	}
	return nil
}

// numberRat is the JSON number text s as an exact fraction, its exponent
// clamped to ±maxExponent.
func numberRat(s string) *big.Rat {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil {
			// Too long for an int: far beyond the clamp either way.
			e = maxExponent + 1
			if strings.HasPrefix(s[i+1:], "-") {
				e = -e
			}
		}
		mant, exp = s[:i], e
	}
	r, ok := new(big.Rat).SetString(mant)
	if !ok {
		return nil
	}
	if r.Sign() == 0 {
		return r
	}
	exp = max(-maxExponent, min(maxExponent, exp))
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
	if exp >= 0 {
		return r.Mul(r, new(big.Rat).SetInt(p))
	}
	return r.Quo(r, new(big.Rat).SetInt(p))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
