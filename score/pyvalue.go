package score

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goldtrace/goldtrace/gold"
)

// Python semantics for the seed profiles, whose graders are Python: values
// compare as json.loads results compared with ==, rounding is round(x, 3),
// fuzzy strings are s.lower().strip().

// pyEqual is Python == on the json.loads values of nodes a and b: numbers
// by value across int and float, booleans equal to 1 and 0, None only to
// None, lists element by element, dicts by keys and values.
func (s *Scorer) pyEqual(a, b int32) bool {
	na, nb := &s.f.Nodes[a], &s.f.Nodes[b]
	if isPyNumber(na) && isPyNumber(nb) {
		return pyNumbersEqual(na, nb)
	}
	if na.Kind != nb.Kind {
		return false
	}
	switch na.Kind {
	case gold.KindNull:
		return true
	case gold.KindString:
		return bytes.Equal(na.Text, nb.Text)
	case gold.KindArray:
		x, y := na.First, nb.First
		for x >= 0 && y >= 0 {
			if !s.pyEqual(x, y) {
				return false
			}
			x, y = s.f.Nodes[x].Next, s.f.Nodes[y].Next
		}
		return x < 0 && y < 0
	case gold.KindObject:
		count := 0
		for x := na.First; x >= 0; x = s.f.Nodes[x].Next {
			y := s.f.Member(b, s.f.Nodes[x].Key)
			if y < 0 || !s.pyEqual(x, y) {
				return false
			}
			count++
		}
		for y := nb.First; y >= 0; y = s.f.Nodes[y].Next {
			count--
		}
		return count == 0
	}
	return false
}

func isPyNumber(n *gold.Node) bool { return n.Kind == gold.KindNumber || n.Kind == gold.KindBool }

// pyNumber is a JSON number or boolean as Python holds it: an int (exact)
// or a float (a double: json.loads rounds "0.1" and overflows "1e400" to
// inf).
type pyNumber struct {
	isInt bool
	i     *big.Int
	f     float64
}

func toPyNumber(n *gold.Node) pyNumber {
	if n.Kind == gold.KindBool {
		return pyNumber{isInt: true, i: big.NewInt(int64(boolScore(n.Truth)))}
	}
	if gold.IsIntegerLiteral(n.Text) {
		i, _ := new(big.Int).SetString(string(n.Text), 10)
		return pyNumber{isInt: true, i: i}
	}
	f, _ := strconv.ParseFloat(string(n.Text), 64) // ±Inf on overflow, as Python
	return pyNumber{f: f}
}

func pyNumbersEqual(a, b *gold.Node) bool {
	if a.Kind == gold.KindNumber && b.Kind == gold.KindNumber && gold.IsIntegerLiteral(a.Text) && gold.IsIntegerLiteral(b.Text) {
		return gold.NumbersEqual(a.Text, b.Text)
	}
	x, y := toPyNumber(a), toPyNumber(b)
	switch {
	case x.isInt && y.isInt:
		return x.i.Cmp(y.i) == 0
	case !x.isInt && !y.isInt:
		return x.f == y.f
	case x.isInt:
		return intEqualsFloat(x.i, y.f)
	default:
		return intEqualsFloat(y.i, x.f)
	}
}

// intEqualsFloat compares exactly, as Python compares int and float.
func intEqualsFloat(i *big.Int, f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
		return false
	}
	r := new(big.Rat).SetFloat64(f)
	return r.IsInt() && r.Num().Cmp(i) == 0
}

// pyRound3 is Python's round(x, 3): the double nearest to x rounded to 3
// decimals, ties to even on the exact binary value.
func pyRound3(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 3, 64), 64)
	return v
}

// pyLowerStrip is Python's s.lower().strip(): full lower-casing (pyLower)
// and Python's whitespace set at both ends.
func pyLowerStrip(text []byte) string {
	return strings.TrimFunc(pyLower(string(text)), pyIsSpace)
}

// pyLower is Python's s.lower(): Unicode's full lower-casing, which maps
// one rune at a time except İ (to "i̇") and Σ (to ς at the end of a word,
// Unicode's Final_Sigma condition, else σ).
func pyLower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == 'İ':
			b.WriteString("i\u0307")
		case r == 'Σ':
			if finalSigma(s, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma applies Unicode's Final_Sigma condition to the Σ at byte i: a
// cased letter before it and none after it (skipping case-ignorable runes).
func finalSigma(s string, i int) bool {
	before := false
	for j := i; j > 0; {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if caseIgnorable(r) {
			continue
		}
		before = cased(r)
		break
	}
	if !before {
		return false
	}
	for j := i + len("Σ"); j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		j += n
		if caseIgnorable(r) {
			continue
		}
		return !cased(r)
	}
	return true
}

func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)
}

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', '\u00b7', '\u2019', '\u2018', '\u2024', '\u2027':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// pyIsSpace is Python's str.isspace for one rune: Go's unicode.IsSpace plus
// the information separators U+001C–U+001F.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}
