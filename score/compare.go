package score

import (
	"bytes"
	"math/big"
	"unicode"
	"unicode/utf8"
)

// Value comparison: numbers by exact value, booleans never numbers, objects
// regardless of key order, arrays in order. fuzzy makes string comparison
// case- and whitespace-insensitive; the profile may normalise strings too.

// equalValues reports whether node a equals node b (both in f).
func (s *Scorer) equalValues(a, b int32, fuzzy bool) bool {
	na, nb := &s.f.nodes[a], &s.f.nodes[b]
	if na.kind != nb.kind {
		return false
	}
	switch na.kind {
	case kindNull:
		return true
	case kindBool:
		return na.truth == nb.truth
	case kindNumber:
		return numbersEqual(na.text, nb.text)
	case kindString:
		return s.stringsEqual(na.text, nb.text, fuzzy)
	case kindArray:
		x, y := na.first, nb.first
		for x >= 0 && y >= 0 {
			if !s.equalValues(x, y, fuzzy) {
				return false
			}
			x, y = s.f.nodes[x].next, s.f.nodes[y].next
		}
		return x < 0 && y < 0
	default:
		count := 0
		for x := na.first; x >= 0; x = s.f.nodes[x].next {
			y := s.f.member(b, s.f.nodes[x].key)
			if y < 0 || !s.equalValues(x, y, fuzzy) {
				return false
			}
			count++
		}
		for y := nb.first; y >= 0; y = s.f.nodes[y].next {
			count--
		}
		return count == 0
	}
}

func (s *Scorer) stringsEqual(a, b []byte, fuzzy bool) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if s.profile.normalizeStrings {
		s.normA = bfclNormalize(s.normA[:0], a)
		s.normB = bfclNormalize(s.normB[:0], b)
		if bytes.Equal(s.normA, s.normB) {
			return true
		}
	}
	return fuzzy && fuzzyEqual(a, b)
}

// fuzzyEqual compares strings ignoring all whitespace and letter case
// (Unicode simple case folding).
func fuzzyEqual(a, b []byte) bool {
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

// isIntegerLiteral reports whether a JSON number literal has no fraction or
// exponent (how it was written, not its value).
func isIntegerLiteral(lit []byte) bool {
	return bytes.IndexAny(lit, ".eE") < 0
}

// numbersEqual compares two JSON number literals by exact value: 1 = 1.0 =
// 1e0, and integers beyond 2^53 are compared digit for digit, never through
// float64.
func numbersEqual(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if isIntegerLiteral(a) && isIntegerLiteral(b) {
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

// bfclNormalize appends BFCL's normalised form of s to dst, as its checker
// computes it: re.sub("[ ,./\-_*^]", "", s).lower().replace("'", '"') —
// Python's full lower-casing, so a word-final Σ becomes ς once the removed
// characters are gone (pyLower).
func bfclNormalize(dst, s []byte) []byte {
	start := len(dst)
	ascii := true
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		s = s[n:]
		switch r {
		case ' ', ',', '.', '/', '-', '_', '*', '^':
			continue
		case '\'':
			r = '"'
		}
		if r >= utf8.RuneSelf {
			ascii = false
			dst = utf8.AppendRune(dst, r)
			continue
		}
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
	}
	if ascii {
		return dst
	}
	lowered := pyLower(string(dst[start:]))
	return append(dst[:start], lowered...)
}
