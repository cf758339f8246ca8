package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// rowDigest identifies a labels row by its content, so that taking back a
// label written by SubmitLabels can tell whether the row is still the one
// it wrote without keeping a copy of every row.
type rowDigest [sha256.Size]byte

// labelRowDigest is the digest of a labels row given as labelRow's values
// (or as read by storedLabelDigest: text as string or bytes, integers of
// any width).
func labelRowDigest(vals []any) rowDigest {
	h := sha256.New()
	var buf []byte
	for _, v := range vals {
		buf = buf[:0]
		switch x := v.(type) {
		case nil:
			buf = append(buf, 'n')
		case string:
			buf = strconv.AppendInt(append(buf, 's'), int64(len(x)), 10)
			buf = append(append(buf, ':'), x...)
		case []byte:
			buf = strconv.AppendInt(append(buf, 's'), int64(len(x)), 10)
			buf = append(append(buf, ':'), x...)
		case int:
			buf = strconv.AppendInt(append(buf, 'i'), int64(x), 10)
		case int64:
			buf = strconv.AppendInt(append(buf, 'i'), x, 10)
		case int32:
			buf = strconv.AppendInt(append(buf, 'i'), int64(x), 10)
		default:
			buf = fmt.Appendf(append(buf, 'v'), "%T:%v", x, x)
		}
		h.Write(append(buf, 0))
	}
	var d rowDigest
	h.Sum(d[:0])
	return d
}

// storedLabelDigest reads the labels row of (item, reviewer), the columns
// insertLabel writes, and returns its digest; found is false when there is
// none.
func storedLabelDigest(ctx context.Context, tx Queryer, item, reviewer string) (d rowDigest, found bool, err error) {
	vals := make([]any, 9)
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	err = tx.QueryRowContext(ctx, `SELECT item_id, reviewer, decision, calls, rationale, guide_version, seconds, saw_observed, submitted_at
		FROM labels WHERE `+labelKey, item, reviewer).Scan(ptrs...)
	if errors.Is(err, sql.ErrNoRows) {
		return d, false, nil
	}
	if err != nil {
		return d, false, err
	}
	return labelRowDigest(vals), true, nil
}
