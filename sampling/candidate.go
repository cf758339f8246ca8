package sampling

import "math/rand/v2"

// Candidate is one decision point offered to a Sampler: only what sampling
// needs, never the full trace.
type Candidate struct {
	Row       int64 // the store's row number of the item, when it has one
	ItemID    string
	TraceID   string
	Turn      int
	Stratum   string
	InputHash string
	TS        int64 // unix seconds; meaningful only when HasTS
	HasTS     bool
}

// Earlier reports whether a comes before b in the order that decides which
// copy of a duplicated input is kept: earlier timestamp (a missing timestamp
// counts as later than any), then trace id, then turn.
func Earlier(a, b Candidate) bool {
	if a.HasTS != b.HasTS {
		return a.HasTS
	}
	if a.HasTS && a.TS != b.TS {
		return a.TS < b.TS
	}
	if a.TraceID != b.TraceID {
		return a.TraceID < b.TraceID
	}
	return a.Turn < b.Turn
}

// Key is the seeded random sort key of an input: the first output of a
// math/rand/v2 PCG generator seeded with (seed, the first 64 bits of the
// input hash). Every copy of one input gets the same key, and the key does not
// depend on the order candidates arrive in, so a sample is the same whether
// it is drawn from a database or a file, in any row order. PCG-DXSM is a
// fixed algorithm; TestKeyIsStable pins its outputs.
func Key(seed int64, inputHash string) uint64 { return key(seed, inputHash) }

func key[T string | []byte](seed int64, inputHash T) uint64 {
	h, ok := prefix64(inputHash)
	if !ok {
		h = fnv64a(inputHash)
	}
	return keyOf(seed, h)
}

func keyOf(seed int64, h uint64) uint64 {
	var p rand.PCG
	p.Seed(uint64(seed), h)
	return p.Uint64()
}

// prefix64 is the number written by the first 16 hex digits of h.
func prefix64[T string | []byte](h T) (uint64, bool) {
	if len(h) < 16 {
		return 0, false
	}
	var v uint64
	var bad uint8
	for i := 0; i < 16; i++ {
		d := hexDigits[h[i]]
		bad |= d
		v = v<<4 | uint64(d&0xf)
	}
	return v, bad&0xf0 == 0
}

// hexDigits is each byte's value as a hex digit, 0xff for a byte that is
// not one.
var hexDigits = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = uint8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c], t[c-'a'+'A'] = uint8(c-'a'+10), uint8(c-'a'+10)
	}
	return t
}()

// fnv64a is the 64-bit FNV-1a hash, for input hashes that are not hex.
func fnv64a[T string | []byte](s T) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// keyLess orders by key, then by input hash, so ties (two different inputs
// with one key) still have one order.
func keyLess(ka uint64, ha string, kb uint64, hb string) bool {
	if ka != kb {
		return ka < kb
	}
	return ha < hb
}
