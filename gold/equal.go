package gold

import (
	"bytes"
	"encoding/json"
	"math/big"
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Value equality, the one comparison agreement and scoring share: numbers
// by exact value (1 = 1.0 = 1e0, big integers digit for digit), booleans
// never numbers, objects regardless of key order, arrays in order. fuzzy
// makes string comparison case- and whitespace-insensitive; a Forest's
// Normalize may equate strings too.

// Equal reports whether node a equals node b (both in f).
func (f *Forest) Equal(a, b int32, fuzzy bool) bool {
	na, nb := &f.Nodes[a], &f.Nodes[b]
	if na.Kind != nb.Kind {
		return false
	}
	switch na.Kind {
	case KindNull:
		return true
	case KindBool:
		return na.Truth == nb.Truth
	case KindNumber:
		return NumbersEqual(na.Text, nb.Text)
	case KindString:
		return f.stringsEqual(na.Text, nb.Text, fuzzy)
	case KindArray:
		x, y := na.First, nb.First
		for x >= 0 && y >= 0 {
			if !f.Equal(x, y, fuzzy) {
				return false
			}
			x, y = f.Nodes[x].Next, f.Nodes[y].Next
		}
		return x < 0 && y < 0
	default:
		count := 0
		for x := na.First; x >= 0; x = f.Nodes[x].Next {
			y := f.Member(b, f.Nodes[x].Key)
			if y < 0 || !f.Equal(x, y, fuzzy) {
				return false
			}
			count++
		}
		for y := nb.First; y >= 0; y = f.Nodes[y].Next {
			count--
		}
		return count == 0
	}
}

func (f *Forest) stringsEqual(a, b []byte, fuzzy bool) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if f.Normalize != nil {
		f.normA = f.Normalize(f.normA[:0], a)
		f.normB = f.Normalize(f.normB[:0], b)
		if bytes.Equal(f.normA, f.normB) {
			return true
		}
	}
	return fuzzy && FuzzyEqual(a, b)
}

// FuzzyEqual compares strings ignoring all whitespace and letter case
// (Unicode simple case folding): the "fuzzy" match of an ArgRule.
func FuzzyEqual(a, b []byte) bool {
	for {
		a = skipSpaces(a)
		b = skipSpaces(b)
		if len(a) == 0 || len(b) == 0 {
			return len(a) == 0 && len(b) == 0
		}
		ra, na := utf8.DecodeRune(a)
		rb, nb := utf8.DecodeRune(b)
		if ra != rb && !foldEqual(ra, rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
}

func skipSpaces(s []byte) []byte {
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if !unicode.IsSpace(r) {
			return s
		}
		s = s[n:]
	}
	return s
}

func foldEqual(a, b rune) bool {
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// IsIntegerLiteral reports whether a JSON number literal has no fraction or
// exponent (how it was written, not its value).
func IsIntegerLiteral(lit []byte) bool {
	return bytes.IndexAny(lit, ".eE") < 0
}

// NumbersEqual compares two JSON number literals by exact value: 1 = 1.0 =
// 1e0, and integers beyond 2^53 are compared digit for digit, never through
// float64.
func NumbersEqual(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if IsIntegerLiteral(a) && IsIntegerLiteral(b) {
		// JSON integers have no leading zeros, so only -0 and 0 differ in
		// text while being equal.
		return isZero(a) && isZero(b)
	}
	ra, okA := exactRat(a)
	rb, okB := exactRat(b)
	if okA && okB {
		return ra.Cmp(rb) == 0
	}
	// An exponent too large to expand exactly: compare at high precision.
	fa, _, errA := big.ParseFloat(string(a), 10, 4096, big.ToNearestEven)
	fb, _, errB := big.ParseFloat(string(b), 10, 4096, big.ToNearestEven)
	return errA == nil && errB == nil && fa.Cmp(fb) == 0
}

func isZero(lit []byte) bool {
	return string(lit) == "0" || string(lit) == "-0"
}

// maxExactExponent bounds the exponents expanded into exact rationals.
const maxExactExponent = 400

func exactRat(lit []byte) (*big.Rat, bool) {
	if i := bytes.IndexAny(lit, "eE"); i >= 0 {
		exp := lit[i+1:]
		if len(exp) > 0 && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		exp = bytes.TrimLeft(exp, "0")
		if len(exp) > 3 || (len(exp) == 3 && string(exp) > "400") {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(string(lit))
	return r, ok
}

// ArgsEqual reports whether two argument values are equal (Equal, exact,
// ignoring arg rules and schema defaults): how two reviewers' arguments
// are compared. Text that is not JSON is equal only to the same text.
func ArgsEqual(a, b json.RawMessage) bool {
	f := getForest()
	defer forests.Put(f)
	x, errA := f.Parse(orEmpty(a))
	y, errB := f.Parse(orEmpty(b))
	if errA != nil || errB != nil {
		return string(a) == string(b)
	}
	return f.Equal(x, y, false)
}

// ArgsDiff lists, sorted, the argument names whose values differ between
// two argument objects (present in one only, or unequal). When either side
// is not a JSON object it returns nil and ok=false.
func ArgsDiff(a, b json.RawMessage) (keys []string, ok bool) {
	f := getForest()
	defer forests.Put(f)
	x, errA := f.Parse(orEmpty(a))
	y, errB := f.Parse(orEmpty(b))
	if errA != nil || errB != nil || f.Nodes[x].Kind != KindObject || f.Nodes[y].Kind != KindObject {
		return nil, false
	}
	for c := f.Nodes[x].First; c >= 0; c = f.Nodes[c].Next {
		d := f.Member(y, f.Nodes[c].Key)
		if d < 0 || !f.Equal(c, d, false) {
			keys = append(keys, string(f.Nodes[c].Key))
		}
	}
	for d := f.Nodes[y].First; d >= 0; d = f.Nodes[d].Next {
		if f.Member(x, f.Nodes[d].Key) < 0 {
			keys = append(keys, string(f.Nodes[d].Key))
		}
	}
	sort.Strings(keys)
	return keys, true
}

// forests keeps the forests ArgsEqual and ArgsDiff parse into: the lead's
// status compares arguments of thousands of label pairs, and a forest on
// the heap per call was most of that cost.
var forests = sync.Pool{New: func() any { return new(Forest) }}

// getForest takes a pooled, empty forest.
func getForest() *Forest {
	f := forests.Get().(*Forest)
	f.Reset()
	return f
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}
