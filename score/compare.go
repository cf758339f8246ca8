package score

import (
	"unicode"
	"unicode/utf8"
)

// Values compare by gold's one equality (gold.Forest.Equal), which the
// agreement between reviewers uses too; the BFCL profile also equates
// strings by bfclNormalize.

// bfclNormalize appends BFCL's normalised form of s to dst: spaces and
// ,./-_*^ removed, lower-cased, ' turned into ".
func bfclNormalize(dst, s []byte) []byte {
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		s = s[n:]
		switch r {
		case ' ', ',', '.', '/', '-', '_', '*', '^':
			continue
		case '\'':
			r = '"'
		}
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
	}
	return dst
}
