package sampling

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
)

// Candidate is one decision point offered to a Sampler: only what sampling
// needs, never the full trace.
type Candidate struct {
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
func Key(seed int64, inputHash string) uint64 {
	var h uint64
	if len(inputHash) >= 16 {
		v, err := strconv.ParseUint(inputHash[:16], 16, 64)
		if err == nil {
			h = v
		} else {
			h = fnvString(inputHash)
		}
	} else {
		h = fnvString(inputHash)
	}
	var p rand.PCG
	p.Seed(uint64(seed), h)
	return p.Uint64()
}

func fnvString(s string) uint64 {
	f := fnv.New64a()
	f.Write([]byte(s))
	return f.Sum64()
}

// keyLess orders by key, then by input hash, so ties (two different inputs
// with one key) still have one order.
func keyLess(ka uint64, ha string, kb uint64, hb string) bool {
	if ka != kb {
		return ka < kb
	}
	return ha < hb
}
