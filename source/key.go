package source

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
)

// Key is the sampling key of a decision point of a source (docs/sampling.md):
// the first 8 bytes, big-endian, of sha256 of the decimal seed, ":", and the
// decision's id (the row's id: a Langfuse observation id, a LangSmith run
// id, a Phoenix span id). It needs no column but the id, and SQL computes it
// as substr(sha256(convert_to(seed || ':' || id, 'UTF8')), 1, 8), which
// orders as bytea exactly as Key orders as uint64.
func Key(seed int64, id string) uint64 {
	b := make([]byte, 0, 24+len(id))
	b = strconv.AppendInt(b, seed, 10)
	b = append(b, ':')
	b = append(b, id...)
	sum := sha256.Sum256(b)
	return binary.BigEndian.Uint64(sum[:8])
}

// keyLess orders by key, then by id, so that ties have one order.
func keyLess(ka uint64, ia string, kb uint64, ib string) bool {
	if ka != kb {
		return ka < kb
	}
	return ia < ib
}
