package sampling

import (
	"encoding/binary"
	hexpkg "encoding/hex"
)

// inputKey is an input hash's first 128 bits (hashKey): what exact-mode
// deduplication compares.
type inputKey struct{ hi, lo uint64 }

// inputSet is a set of inputKeys: the inputs an
// exact-mode scan has met. A store scan asks it once per decision point
// (half a million times on a 1 GB store), so it is a flat open-addressing
// table probed on the key's first 64 bits, which are uniformly random (a
// sha256's), instead of a Go map that hashes all 16 bytes again and keeps
// them in groups: 16 bytes a slot at most two thirds full, and one cache line of the
// first half for nearly every key. The second halves sit in a parallel
// slice read only when the first halves match.
type inputSet struct {
	hi, lo []uint64 // slot i holds (hi[i], lo[i]); hi[i] == 0: empty
	n      int      // keys held, those with a zero first half included
	zero   map[uint64]struct{}
}

// minSlots is the smallest table (a power of two).
const minSlots = 1 << 10

// grow sizes the table for about n keys (at most two thirds full), keeping what it
// holds.
func (s *inputSet) grow(n int) {
	slots := minSlots
	for 2*slots < 3*n {
		slots *= 2
	}
	if slots <= len(s.hi) {
		return
	}
	hi, lo := s.hi, s.lo
	s.hi, s.lo = make([]uint64, slots), make([]uint64, slots)
	for i, h := range hi {
		if h != 0 {
			s.put(h, lo[i])
		}
	}
}

// add puts k into the set and reports whether it was new.
func (s *inputSet) add(k inputKey) bool {
	h, l := k.hi, k.lo
	if h == 0 {
		if s.zero == nil {
			s.zero = map[uint64]struct{}{}
		}
		if _, ok := s.zero[l]; ok {
			return false
		}
		s.zero[l] = struct{}{}
		s.n++
		return true
	}
	if 3*(s.n+1) > 2*len(s.hi) {
		s.grow(s.n + 1)
	}
	mask := uint64(len(s.hi) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.hi[i] {
		case 0:
			s.hi[i], s.lo[i] = h, l
			s.n++
			return true
		case h:
			if s.lo[i] == l {
				return false
			}
		}
	}
}

// has reports whether k is in the set.
func (s *inputSet) has(k inputKey) bool {
	h, l := k.hi, k.lo
	if h == 0 {
		_, ok := s.zero[l]
		return ok
	}
	if len(s.hi) == 0 {
		return false
	}
	mask := uint64(len(s.hi) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.hi[i] {
		case 0:
			return false
		case h:
			if s.lo[i] == l {
				return true
			}
		}
	}
}

// put stores a key known to be absent, with a non-zero first half, in a
// table with room.
func (s *inputSet) put(h, l uint64) {
	mask := uint64(len(s.hi) - 1)
	i := h & mask
	for s.hi[i] != 0 {
		i = (i + 1) & mask
	}
	s.hi[i], s.lo[i] = h, l
}

// lowerHexKey is the key of an input hash of 64 lowercase hex digits (as
// trace.InputHash writes them); ok is false for any other hash.
func lowerHexKey(h string) (k inputKey, ok bool) {
	if len(h) != 64 {
		return k, false
	}
	for i := range len(h) {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return k, false
		}
	}
	k, _ = hashKey(h)
	return k, true
}

// hex is the first 32 hex digits (lowercase) of the hash k was read from.
func (k inputKey) hex() []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], k.hi)
	binary.BigEndian.PutUint64(b[8:], k.lo)
	return hexpkg.AppendEncode(make([]byte, 0, 32), b[:])
}
