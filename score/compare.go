package score

import (
	"unicode"
	"unicode/utf8"
)

// Values compare by gold's one equality (gold.Forest.Equal), which the
// agreement between reviewers uses too; the BFCL profile also equates
// strings by bfclNormalize.

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
